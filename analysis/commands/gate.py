"""gate: the regression gate. Exit status 1 when a variant is slower than the baseline by more than
P % (multiplicity-adjusted); the verdict is written as JSON beside the first file (or to --json)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..verdicts.gate import default_verdict_path, verdict_document, write_atomic
from ..verdicts.compare import Comparison
from ..views.text import (aligned_rows, fmt_interval, fmt_ratio, headline_groups, headline_tags, interval_label,
                          legend_lines, wrapped)
from .common import check_outputs, check_study_options, check_threshold, compare_study, inputs_of, study_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("gate", help="regression gate: exit 1 when a variant is slower than the baseline by "
                                    "more than P %% (multiplicity-adjusted)")
    study_options(p)
    p.add_argument("--fail-if-slower", type=float, required=True, metavar="P", help="threshold in percent")
    p.add_argument("--json", dest="json_out", help="verdict file (default: FIRST_FILE.verdict.json beside it)")
    return p


def _verdict_target(args: argparse.Namespace) -> tuple[str | Path, str]:
    if args.json_out is not None:
        return args.json_out, "--json"  # as given: Path("") would be the current folder
    return default_verdict_path(args.files[0]), "verdict file"


def run(args: argparse.Namespace) -> int:
    check_threshold(args.fail_if_slower)
    check_study_options(args)
    path, label = _verdict_target(args)
    check_outputs(args, [(str(path), label)])
    _, _, comps = compare_study(args, secondary=False)
    doc = verdict_document(comps, args.files, args.baseline, args.fail_if_slower / 100, args.level, args.adjust)
    write_atomic(path, doc, label, inputs_of(args))
    print("\n".join(gate_headline(comps, [row["gate"] for row in doc["comparisons"]], args.fail_if_slower)))
    failed = [row["variant"] for row in doc["comparisons"] if row["gate"] == "regression"]
    print(f"gate {'FAILED' if doc['failed'] else 'passed'} (fail if slower by more than {args.fail_if_slower:g} %)"
          + (f": {', '.join(failed)}" if failed else ""))
    print(f"verdict: {path}")
    return 1 if doc["failed"] else 0


# The gate's statuses in the order its headline lists them (verdicts/gate.py status_of).
GATE_ORDER = ("regression", "slower-within-threshold", "faster", "equivalent", "inconclusive")


def gate_headline(comps: list[Comparison], statuses: list[str], threshold: float) -> list[str]:
    """The gate at a glance, as compare's headline is laid out (aligned_rows): per group one line per
    variant with its status, regressions first, then the tags' legend and the key."""
    status = {id(c): s for c, s in zip(comps, statuses)}
    out = [f"== gate: time / the baseline's; fails where slower by more than {threshold:g} %"]
    if not comps:
        return out + ["(no comparisons)"]

    def rank(c: Comparison) -> int:
        s = status[id(c)]
        return GATE_ORDER.index(s) if s in GATE_ORDER else len(GATE_ORDER)
    groups = [(title, [(c.variant, fmt_ratio(c.ratio), fmt_interval(c.ci_adj_low, c.ci_adj_high), ("", status[id(c)]),
                        f"{c.processes} proc", headline_tags(c)) for c in sorted(cs, key=rank)])
              for title, cs in headline_groups(comps)]
    return (out + aligned_rows(groups) + legend_lines(comps)
            + wrapped(f"[{interval_label(comps)}]; regression: slower, the whole interval above {1 + threshold / 100:g}; "
                      f"slower-within-threshold: slower, by {threshold:g} % or less"))

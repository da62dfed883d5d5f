"""gate: the regression gate. Exit status 1 when a variant is slower than the baseline by more than
P % (multiplicity-adjusted); the verdict is written as JSON beside the first file (or to --json)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..verdicts.gate import default_verdict_path, verdict_document, write_atomic
from ..views.text import DASH
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


def _num(x: float | None) -> str:
    """A ratio to four decimals; a dash where it does not exist (fewer than 2 rounds paired)."""
    return f"{x:.4f}" if x is not None and math.isfinite(x) else DASH


def run(args: argparse.Namespace) -> int:
    check_threshold(args.fail_if_slower)
    check_study_options(args)
    path, label = _verdict_target(args)
    check_outputs(args, [(str(path), label)])
    _, _, comps = compare_study(args, secondary=False)
    doc = verdict_document(comps, args.files, args.baseline, args.fail_if_slower / 100, args.level, args.adjust)
    write_atomic(path, doc, label, inputs_of(args))
    # the status first, padded after it (not before: right-aligned to the longest status,
    # "slower-within-threshold", a regression's line began with 14 spaces)
    width = max((len(row["gate"]) for row in doc["comparisons"]), default=0) + 1
    for row in doc["comparisons"]:
        print(f"{row['gate'] + ':':<{width}} {row['variant']} vs {row['baseline']} on {row['distribution']}: ratio "
              f"{_num(row['ratio'])}, simultaneous CI [{_num(row['ci_adj_low'])}, {_num(row['ci_adj_high'])}]")
    print(f"gate {'FAILED' if doc['failed'] else 'passed'} (fail if slower by more than {args.fail_if_slower:g} %); "
          f"verdict: {path}")
    return 1 if doc["failed"] else 0

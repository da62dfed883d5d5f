"""suite: one number across several studies (memfbench suite writes them: the five functions on
their fleet tables, or a named set): each variant's geometric mean of its ratios to the baseline,
with an interval that carries each study's own (verdicts/suite.py), one line per variant."""
from __future__ import annotations

import argparse
import math

from ..verdicts.suite import study_ratios, suite_headline, suite_lines
from .common import UsageError, check_study_options, compare_study, study_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("suite", help="one number across studies: each variant's geometric mean of its ratios to "
                                     "the baseline over several result files, with its interval")
    study_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    check_study_options(args)
    # each file compared on its own: a suite's studies are different functions and tables, whose
    # variants of one name are different code by nature (the files are never pooled)
    comps = []
    for f in args.files:
        comps += compare_study(argparse.Namespace(**{**vars(args), "files": [f]}), secondary=False)[2]
    studies = sorted({(c.function, c.distribution) for c in comps})
    if len(studies) < 2:
        raise UsageError(f"suite: {len(studies)} study among the files: a suite needs at least two (functions or "
                         "distributions), each a result file")
    lines = suite_lines(comps, args.level, args.margin / 100)
    baselines = sorted({line.baseline for line in lines})
    tables = sorted({d for _, d in studies})
    where = ("their fleet tables" if all(d.endswith("_Fleet") for d in tables) else tables[0] if len(tables) == 1
             else ", ".join(tables) if len(tables) <= 3 else f"{len(tables)} tables")
    print(f"suite of {len(studies)} studies: {', '.join(sorted({f for f, _ in studies}))} on {where}")
    print(f"each variant's geometric mean of its ratio to {', '.join(baselines) or 'the baseline'} over the studies "
          f"it ran in, {args.level * 100:g} % interval from the studies' own (below 1: faster; the studies' "
          "precision in this session: a suite re-run on a busy host can move further, docs/analysis.md)")
    if not lines:
        print("(no variant but the baseline ran in two studies or more)")
        return 0
    order = {"faster": 0, "slower": 1, "equivalent": 2, "inconclusive": 3}
    for line in sorted(lines, key=lambda x: (order[x.verdict], x.geomean)):
        tag = f"  [{line.withheld} withheld]" if line.withheld else ""
        print(suite_headline(line) + tag)
        print("\n".join(study_ratios(line)))
    dofs = [line.dof for line in lines if math.isfinite(line.dof)]
    if any(line.withheld for line in lines):
        print("[N withheld]: N of its studies' own verdicts were withheld (a state change, or one process); "
              "their ratios are in the mean")
    if dofs:
        print(f"degrees of freedom (Welch-Satterthwaite over the studies): {min(dofs):.0f} to {max(dofs):.0f}")
    return 0

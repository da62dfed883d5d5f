"""variants: one line per variant of a run with seed 000's metrics: the time ratio to the
baseline, code size, the i-cache pressure slope (--pressure), the slowdown beside a second thread
(--threads), the PGO gain (the run's own NAME-pgo pairs, or --pgo), "not measured" where no file
measured it, and a line per column saying how it was measured (verdicts/variants.py)."""
from __future__ import annotations

import argparse

from ..views.text import text_table
from ..views.variants import how_lines, variants_frame, variants_title
from .common import UsageError, check_level, load, metric_options, metric_tables


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("variants", help="one line per variant: time ratio, code size, i-cache pressure slope, "
                                        "slowdown beside a second thread, PGO gain (seed 000's metrics)")
    p.add_argument("file", help="a memfbench result file: its variants are the rows")
    metric_options(p)
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    return p


def run(args: argparse.Namespace) -> int:
    check_level(args.level)
    runs, _ = load([args.file])
    if runs[0].doc.get("sweep"):
        raise UsageError(f"{args.file}: a size sweep has no ratio over the whole distribution; give a run of a "
                         "distribution")
    t = metric_tables(runs, args, args.level)[0]
    print(f"== {variants_title(t)}")
    print(text_table(variants_frame(t)))
    print("\n".join(how_lines(t)))
    return 0

"""Command line: python3 -m analysis {summarize,compare,report} FILE..."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from . import stats
from .compare import comparisons_frame, compare_runs
from .load import load_runs
from .report import COMPARISON_COLUMNS, context_lines, verdict_lines, write_report
from .schema import ResultFileError
from .summary import summarize_run


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="memfbench result files (JSON)")
    p.add_argument("--baseline", help="variant to compare against (default: each run's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--adjust", choices=["holm", "bh", "none"], default="holm",
                   help="multiplicity adjustment across all comparisons (default holm)")
    p.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples (default {stats.DEFAULT_RESAMPLES}, at least 1000)")
    p.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="bootstrap seed")


def _fmt_table(df) -> str:
    with np.printoptions(precision=4):
        return df.to_string(index=False, float_format=lambda v: f"{v:.4g}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m analysis", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sm = sub.add_parser("summarize", help="context, per-variant statistics and verdicts")
    _common(sm)
    sm.add_argument("--report", metavar="DIR", help="also write the report (as `report -o DIR`)")
    c = sub.add_parser("compare", help="A/B verdicts against a baseline")
    _common(c)
    c.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    r = sub.add_parser("report", help="Markdown and HTML report with plots")
    _common(r)
    r.add_argument("-o", "--output", required=True, help="folder for report.md, report.html and figures")
    args = ap.parse_args(argv)
    if args.resamples < 1000:
        ap.error("--resamples must be at least 1000")
    if not 0.5 <= args.level < 1:
        ap.error("--level must be in [0.5, 1)")
    try:
        runs = load_runs(args.files)
        comps = compare_runs(runs, args.baseline, level=args.level, margin=args.margin / 100, adjust=args.adjust,
                             resamples=args.resamples, seed=args.seed)
    except (ResultFileError, ValueError) as e:
        print(f"analysis: {e}", file=sys.stderr)
        return 2
    if args.cmd == "summarize":
        for run in runs:
            print(f"\n== {run.function} on {run.distribution}")
            print("\n".join(context_lines(run)))
            print()
            print(_fmt_table(summarize_run(run, args.resamples, args.seed, args.level)))
        print("\n== verdicts (ratio = median over rounds of variant time / baseline time; below 1: faster)")
        print("\n".join(verdict_lines(comps)) or "(no comparisons)")
        print(f"\nmargin ±{args.margin:g} %, {args.adjust} adjustment over {len(comps)} comparisons, "
              f"intervals at {args.level:.0%} (simultaneous: Bonferroni)")
        if args.report:
            md, html = write_report(runs, comps, Path(args.report))
            print(f"report: {html} (and {md.name})")
    elif args.cmd == "compare":
        print(_fmt_table(comparisons_frame(comps)[COMPARISON_COLUMNS]))
        print()
        print("\n".join(verdict_lines(comps)))
        if args.json_out:
            Path(args.json_out).write_text(json.dumps([x.as_dict() for x in comps], indent=1) + "\n")
    else:
        md, html = write_report(runs, comps, Path(args.output))
        print(f"wrote {md} and {html}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Command line: python3 -m analysis {summarize,compare,report,gate,export} FILE..."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import stats
from .compare import comparisons_frame, compare_runs
from .export import to_csv, to_gbench
from .gate import default_verdict_path, verdict_document, write_atomic
from .load import load_run, load_runs
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
    p.add_argument("--allow-single-process", action="store_true",
                   help="give faster/slower verdicts from one process (its interval covers that process only)")


def _fmt_table(df) -> str:
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
    g = sub.add_parser("gate", help="regression gate: exit 1 when a variant is slower than the baseline by "
                                    "more than P %% (multiplicity-adjusted)")
    _common(g)
    g.add_argument("--fail-if-slower", type=float, required=True, metavar="P", help="threshold in percent")
    g.add_argument("--json", dest="json_out", help="verdict file (default: FIRST_FILE.verdict.json beside it)")
    e = sub.add_parser("export", help="export one result file")
    e.add_argument("file")
    e.add_argument("--format", choices=["gbench", "csv"], required=True,
                   help="gbench: Google Benchmark JSON (for its compare.py); csv: raw samples")
    e.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    if args.cmd == "export":
        return _export(args)
    if args.cmd == "gate" and args.fail_if_slower < 0:
        ap.error("--fail-if-slower must be a non-negative percentage")
    if args.resamples < 1000:
        ap.error("--resamples must be at least 1000")
    if not 0.5 <= args.level < 1:
        ap.error("--level must be in [0.5, 1)")
    try:
        runs = load_runs(args.files)
        comps = compare_runs(runs, args.baseline, level=args.level, margin=args.margin / 100, adjust=args.adjust,
                             resamples=args.resamples, seed=args.seed,
                             allow_single_process=args.allow_single_process)
    except (ResultFileError, ValueError) as e:
        print(f"analysis: {e}", file=sys.stderr)
        return 2
    if args.cmd == "summarize":
        for run in runs:
            print(f"\n== {run.function} on {run.distribution}")
            print("\n".join(context_lines(run)))
            print()
            print(_fmt_table(summarize_run(run, args.resamples, args.seed, args.level)))
        print("\n== verdicts (ratio: per process, the median over rounds of variant time / baseline time; "
              "over processes, their mean in log space; below 1: faster)")
        print("\n".join(verdict_lines(comps)) or "(no comparisons)")
        print(f"\nmargin ±{args.margin:g} %, {args.adjust} adjustment over {len(comps)} comparisons, "
              f"intervals at {args.level:.0%} (simultaneous: Bonferroni)")
        if args.report:
            md, html = write_report(runs, comps, Path(args.report))
            print(f"report: {html} (and {md.name})")
    elif args.cmd == "compare":
        if comps:
            print(_fmt_table(comparisons_frame(comps)[COMPARISON_COLUMNS]))
            print()
            print("\n".join(verdict_lines(comps)))
        else:
            print("(no comparisons: every variant besides the baseline is the harness's noop)")
        if args.json_out:
            Path(args.json_out).write_text(json.dumps([x.as_dict() for x in comps], indent=1) + "\n")
    elif args.cmd == "gate":
        doc = verdict_document(comps, args.files, args.baseline, args.fail_if_slower / 100, args.level, args.adjust)
        path = Path(args.json_out) if args.json_out else default_verdict_path(args.files[0])
        write_atomic(path, doc)
        for row in doc["comparisons"]:
            print(f"{row['gate']:>24}: {row['variant']} vs {row['baseline']} on {row['distribution']}: ratio "
                  f"{row['ratio']:.4f}, simultaneous CI [{row['ci_adj_low']:.4f}, {row['ci_adj_high']:.4f}]")
        print(f"gate {'FAILED' if doc['failed'] else 'passed'} (fail if slower by more than {args.fail_if_slower:g} %); "
              f"verdict: {path}")
        return 1 if doc["failed"] else 0
    else:
        md, html = write_report(runs, comps, Path(args.output))
        print(f"wrote {md} and {html}")
    return 0


def _export(args: argparse.Namespace) -> int:
    try:
        run = load_run(args.file)
    except ResultFileError as e:
        print(f"analysis: {e}", file=sys.stderr)
        return 2
    if args.format == "gbench":
        Path(args.output).write_text(json.dumps(to_gbench(run), indent=1) + "\n")
    else:
        to_csv(run, args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

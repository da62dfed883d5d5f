"""summarize: the verdicts at a glance (one short line per variant), then each run's context and
per-variant statistics, with --detail every figure of each verdict (one long line each), and, with
--report DIR, the report as `report -o DIR` writes it."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..stats.threads import is_threaded
from ..verdicts.sweep import describe, is_sweep, sweep_points, sweep_table
from ..views.counters import counter_summary, counters_source, has_counters
from ..views.pgo import pgo_summary_lines, terminal_lines
from ..views.summary import summary_rows
from ..views.text import (context_lines, wrapped, dashed, headline_lines, interference_lines, plain, rows_table, table,
                          verdict_lines)
from .common import (DETAIL_HINT, check_outputs, check_study_options, command_name, compare_study, detail_option, suite_block,
                     study_options)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("summarize", help="context, per-variant statistics and verdicts")
    study_options(p)
    detail_option(p)
    p.add_argument("--report", metavar="DIR", help="also write the report (as `report -o DIR`)")
    return p


# The per-variant table's columns without --detail, and their headers: 80 columns for the
# built-ins' names (the whole table, 168, is --detail's).
SHOWN = {"variant": "variant", "batches": "batches", "median_ns_per_call": "median ns/call", "ci_low": "95% CI low",
         "ci_high": "high", "bytes_per_ns": "bytes/ns", "outliers_severe": "severe outliers"}


def run(args: argparse.Namespace) -> int:
    check_study_options(args)
    check_outputs(args, folder=(args.report, "--report") if args.report is not None else None)
    runs, code_notes, comps = compare_study(args, secondary=args.report is not None)
    pgo = pgo_summary_lines(runs, args.level)  # before any output: a malformed pair is refused alone
    if comps or not runs or not all(is_sweep(r) for r in runs):  # a sweep's verdicts are its table's
        print("\n".join(headline_lines(comps, "" if args.detail or not comps else DETAIL_HINT)
                        + suite_block(comps, args.level, args.margin / 100)))
    if pgo:
        print("\n".join(terminal_lines(pgo)))
    for r in (r for r in runs if is_sweep(r)):
        print(f"\n== size sweep: {r.function}, {describe(r)}")
        print("\n".join(plain(x) for x in context_lines(r, args.quiet)))
        print(dashed(sweep_table(sweep_points(r, args.baseline, args.level, args.margin / 100))))
    for r in (r for r in runs if not is_sweep(r)):
        print(f"\n== {r.function} on {r.distribution}")
        # each context line wrapped to the headline's 80 columns, its continuation indented
        print("\n".join(y for x in context_lines(r, args.quiet) for y in wrapped(plain(x))))
        print()
        rows = summary_rows(r, args.resamples, args.seed, args.level)
        # the columns a reader needs at a glance; every column under --detail
        print(rows_table(rows if args.detail else [{SHOWN.get(k, k): v for k, v in row.items() if k in SHOWN}
                                                   for row in rows]))
        if has_counters(r):
            print(f"\nhardware counters ({counters_source(r)}), per call, median over batches "
                  "(with -v noop in the run, its row is the loop's own share):")
            print(table(counter_summary(r)))
        if is_threaded(r):
            print(f"\nthreads (details: {command_name()} threads {r.path}); "
                  + "\n".join(interference_lines(r, args.level, ratios=False)))
    if args.detail:
        _detail(runs, comps, args)
    for r in (r for r in runs if r.doc.get("by_class")):
        from ..verdicts.classes import decompose_run, decomposition_lines  # a file with --by-class only
        print(f"\n== where the time goes: {r.function} on {r.distribution} by size class "
              f"(details: {command_name()} classes {r.path})")
        try:
            for dec in decompose_run(r, args.baseline, args.level, args.margin / 100):
                print(dashed("\n".join(decomposition_lines(dec)), head=2))
        except ValueError as e:
            print(f"(no decomposition: {e})")
    if args.report is not None:
        from ..views.report import write_report  # its figures and tables: matplotlib, pandas
        md, html = write_report(runs, comps, Path(args.report), "--report", args.quiet, notes=code_notes,
                                baseline=args.baseline)
        print(f"report: {html} (and {md.name})")
    return 0


def _detail(runs: list, comps: list, args: argparse.Namespace) -> None:
    """Every figure of each verdict: one long line per comparison, as summarize printed them
    before the headline."""
    rotating = any(r.doc["config"].get("code_rotation") == "round" for r in runs)
    print("\n== verdicts (ratio: per process, the median over rounds of variant time / baseline time"
          + (", the median over blocks of 8 rounds (every code placement once) of each block's mean" if rotating else "")
          + "; over processes, their mean in log space; below 1: faster)")
    print("\n".join(plain(x) for x in verdict_lines(comps)) or "(no comparisons)")
    print(f"\nmargin ±{args.margin:g} %, {args.adjust} adjustment over {len(comps)} comparisons, "
          f"intervals at {args.level:.0%} (simultaneous: Bonferroni)")

"""report: the Markdown and HTML report of the runs, with their figures (and, with --probe FILE,
the memory system the runs ran on)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..verdicts.sweep import is_sweep
from ..views.report import write_report
from .common import (UsageError, check_outputs, check_study_options, compare_study, metric_options, metric_tables,
                     study_options)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("report", help="Markdown and HTML report with plots")
    study_options(p)
    p.add_argument("-o", "--output", required=True, help="folder for report.md, report.html and figures "
                                                         "(created; its parent must exist)")
    p.add_argument("--svg", action="store_true", help="also write each figure as SVG (vector, for papers)")
    p.add_argument("--probe", metavar="FILE", help="a memfbench probe file of the same machine: its curves, the "
                                                  "cache levels it found on sweep plots, and sweep throughput as a "
                                                  "fraction of the measured bandwidth")
    metric_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    check_study_options(args)
    check_outputs(args, folder=(args.output, "-o"))
    runs, code_notes, comps = compare_study(args, secondary=True)
    probe_doc = None
    if args.probe:
        from ..io.probe_file import read_probe
        from ..views.probe import check_reference
        probe_doc = read_probe(args.probe)
        for r in (r for r in runs if is_sweep(r)):
            try:
                check_reference(probe_doc, r.function, args.probe)
            except ValueError as e:
                raise UsageError(str(e)) from e
    tables = metric_tables(runs, args, args.level, match=True, made=comps)
    md, html = write_report(runs, comps, Path(args.output), "-o", args.quiet, args.svg, probe_doc, args.probe,
                            code_notes, tables)
    print(f"wrote {md} and {html}")
    return 0

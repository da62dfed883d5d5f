"""sweep: a size sweep (memfbench sweep SIZES): per size and variant ns/call, bytes/ns and the ratio
to the baseline; with --probe FILE, each point against the bandwidth where its data lives."""
from __future__ import annotations

import argparse

from ..io.files import write_bytes_atomic, write_text_atomic
from ..io.load import load_run
from ..io.probe_file import read_probe
from ..verdicts.sweep import describe, sweep_points, sweep_rows, sweep_table
from ..views.probe import check_reference, roofline, roofline_sentences, roofline_table
from ..views.text import dashed
from .common import UsageError, check_margin_level, check_outputs, inputs_of, png, verdict_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("sweep", help="a size sweep (memfbench sweep SIZES): per size and variant ns/call, "
                                     "bytes/ns and the ratio to the baseline")
    p.add_argument("file")
    verdict_options(p)
    p.add_argument("--csv", dest="csv_out", help="also write every point as CSV to this file")
    p.add_argument("--plot", metavar="STEM", help="also write the plot as STEM.png")
    p.add_argument("--probe", metavar="FILE", help="a memfbench probe file of the same machine: each point's "
                                                  "bytes/ns as a fraction of the bandwidth where its data lives")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    check_outputs(args, ([(args.csv_out, "--csv")] if args.csv_out is not None else [])
                  + ([(f"{args.plot}.png", "--plot")] if args.plot is not None else []))
    inputs = inputs_of(args)
    probe_doc = read_probe(args.probe) if args.probe else None
    r = load_run(args.file)
    try:
        points = sweep_points(r, args.baseline, args.level, args.margin / 100)
        if probe_doc is not None:
            check_reference(probe_doc, r.function, args.probe)
    except ValueError as e:
        raise UsageError(str(e)) from e
    print(f"== size sweep: {r.function}, {describe(r)}")
    print(dashed(sweep_table(points)))
    print("ns: per process the median over its rounds, then the mean over processes (log scale); x ratio to "
          f"{points[0].variant} in the same rounds with its {args.level:.0%} interval, Holm over the sizes")
    if args.csv_out is not None:
        import pandas as pd
        write_text_atomic(args.csv_out, pd.DataFrame(sweep_rows(points)).to_csv(index=False), "--csv", inputs)
    if args.plot is not None:
        from ..views.plots.sweep import sweep as sweep_figure
        write_bytes_atomic(f"{args.plot}.png", png(sweep_figure(r, points, probe_doc=probe_doc)), "--plot", inputs)
    if probe_doc is not None:
        roof = roofline(points, r.doc, r.function, probe_doc)
        print(f"\n== against the memory system (probe {args.probe})")
        print(dashed(roofline_table(roof, r.function)))
        print("\n".join(roofline_sentences(roof, r.function)))
    return 0

"""probe: a probe file (memfbench probe): the cache levels found against those reported, and the
latency and bandwidth per size, as tables, CSV and figures."""
from __future__ import annotations

import argparse

from ..io.files import write_bytes_atomic, write_text_atomic
from ..io.probe_file import read_probe
from ..views.probe import bandwidth_frame, bandwidth_table, context_lines, latency_frame, levels_table
from ..views.text import plain
from .common import check_outputs, inputs_of, png


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("probe", help="a probe file (memfbench probe): cache levels found against those reported, "
                                     "latency and bandwidth per size")
    p.add_argument("file")
    p.add_argument("--plot", metavar="STEM", help="also write STEM_latency.png and STEM_bandwidth.png")
    p.add_argument("--csv", dest="csv_out", metavar="STEM", help="also write STEM_latency.csv and "
                                                                  "STEM_bandwidth.csv")
    return p


def run(args: argparse.Namespace) -> int:
    kinds = ("latency", "bandwidth")
    check_outputs(args, [(f"{args.plot}_{k}.png", "--plot") for k in kinds if args.plot is not None]
                  + [(f"{args.csv_out}_{k}.csv", "--csv") for k in kinds if args.csv_out is not None])
    doc = read_probe(args.file)
    print(f"== memory system: {args.file}")
    print("\n".join(plain(x) for x in context_lines(doc)))
    if doc.get("latency"):
        print("\n== cache levels found in the latency curve "
              f"({doc['latency']['levels']['pattern'] + ' chain, ' + doc['latency']['levels']['pages'] + ' pages' if doc['latency']['levels'] else 'none'})")
        print(levels_table(doc))
    if doc.get("bandwidth"):
        print(f"\n== bandwidth, GB/s ({doc['bandwidth']['unit']})")
        print(bandwidth_table(doc))
    if args.csv_out is not None:
        write_text_atomic(f"{args.csv_out}_latency.csv", latency_frame(doc).to_csv(index=False), "--csv", inputs_of(args))
        write_text_atomic(f"{args.csv_out}_bandwidth.csv", bandwidth_frame(doc).to_csv(index=False), "--csv",
                          inputs_of(args))
    if args.plot is not None:
        from ..views.plots.probe import probe_bandwidth, probe_latency
        if doc.get("latency"):
            write_bytes_atomic(f"{args.plot}_latency.png", png(probe_latency(doc)), "--plot", inputs_of(args))
        if doc.get("bandwidth"):
            write_bytes_atomic(f"{args.plot}_bandwidth.png", png(probe_bandwidth(doc)), "--plot", inputs_of(args))
    return 0

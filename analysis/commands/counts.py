"""counts: a counts file (memfbench counts): instructions, branches, simulated mispredictions and
simulated L1 misses per call of each variant, and each one's ratio to the baseline (libc)."""
from __future__ import annotations

import argparse

from ..io.counts_file import read_counts
from ..views.counts import counts_table


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("counts", help="a counts file (memfbench counts): per-call counts under valgrind and "
                                      "their ratios to libc")
    p.add_argument("file")
    return p


def run(args: argparse.Namespace) -> int:
    doc = read_counts(args.file)
    print(f"== counts per call under {doc['tool']['valgrind']} callgrind (simulated caches and predictor): "
          f"{doc['function']} on {doc['distribution']['spec']}, {doc['calls']} calls, seed {doc['seed']}")
    print(counts_table(doc))
    print("/base: the variant's count over the baseline's; L1 miss: D1 read + write + I1 misses. Not the real "
          "predictor, memory latency or cache hierarchy (docs/methodology.md, \"Counts under valgrind\").")
    return 0

"""counts: a counts file (memfbench counts): instructions, branches, simulated mispredictions and
simulated L1 misses per call of each variant, and each one's ratio to the baseline (libc)."""
from __future__ import annotations

import argparse

from ..io.counts_file import read_counts
from ..io.load import load_run
from ..verdicts.compare import time_ratios as compared_ratios
from ..views.counts import code_lines, counts_table
from ..views.text import INDENT, wrapped
from .common import UsageError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("counts", help="a counts file (memfbench counts): per-call counts under valgrind and "
                                      "their ratios to libc")
    p.add_argument("file")
    p.add_argument("--beside", metavar="RUN", help="a result file (memfbench run) of the same function and "
                   "distribution: each variant's time ratio to the same baseline, with its interval, beside its counts")
    return p


def time_ratios(doc: dict, run_file: str) -> dict[str, tuple[float, float, float]]:
    """Each variant's time ratio to the counts' baseline in run_file, with its interval; UsageError when
    the run is of another function or distribution (its times would be of other calls)."""
    run = load_run(run_file)
    if run.function != doc["function"] or run.distribution != doc["distribution"]["spec"]:
        raise UsageError(f"--beside {run_file}: {run.function} on {run.distribution}, not "
                         f"{doc['function']} on {doc['distribution']['spec']} as the counts")
    try:
        return compared_ratios(run, doc["baseline"])
    except ValueError as e:  # the counts' baseline is not a variant of the run
        raise UsageError(f"--beside {run_file}: {e}") from e


def run(args: argparse.Namespace) -> int:
    doc = read_counts(args.file)
    said = [f"== counts per call under {doc['tool']['valgrind']} callgrind (simulated caches and predictor): "
            f"{doc['function']} on {doc['distribution']['spec']}, {doc['calls']} calls, seed {doc['seed']}"]
    print("\n".join(x for line in said for x in wrapped(line)))
    print(counts_table(doc, time_ratios(doc, args.beside) if args.beside else None))
    said = []
    if args.beside:
        said.append(f"time /base: {args.beside}'s median paired time ratio to {doc['baseline']} with its 95 % interval "
                    "(as analyze compare gives it); a variant whose counts and time part ways is paying for what the "
                    "simulation leaves out (memory, the real predictor, microcode)")
    said.append("/base: the variant's count over the baseline's; L1 miss: D1 read + write + I1 misses. Not the real "
                "predictor, memory latency or cache hierarchy (docs/methodology.md, \"Counts under valgrind\").")
    code = code_lines(doc)
    if code:
        said.append("code B: bytes of the variant's function and every function it called in the counted loop (their "
                    "ELF symbol sizes); N+: some function's size unknown (?), so N is a lower bound; -: its own "
                    "unknown")
    print("\n".join([x for line in said for x in wrapped(line)] + [x for line in code for x in wrapped(line, INDENT * 3)]))
    return 0

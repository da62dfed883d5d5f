"""callsites: the call sites of a recorded trace (memfbench record --trace), the top ones by bytes
and by calls."""
from __future__ import annotations

import argparse

from ..io.callsites import read_callsites, top
from ..views.text import table
from .common import UsageError


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("callsites", help="the call sites of a recorded trace (memfbench record --trace), "
                                         "by bytes and by calls")
    p.add_argument("folder", help="a recorded folder (or its callsites.csv)")
    p.add_argument("--top", type=int, default=10, help="how many of each ranking (default 10)")
    return p


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise UsageError(f"--top {args.top}: must be at least 1")
    df = read_callsites(args.folder)
    cols = ["function", "caller", "calls", "calls_pct", "bytes", "bytes_pct"]
    for by in ("bytes", "calls"):
        print(f"== top {args.top} call sites by {by} (% of the function's traced {by})")
        print(table(top(df, by, args.top)[cols]))
        print()
    print("callers as symbol+offset@object, or object+offset (addr2line -f -e OBJECT OFFSET names those when the "
          "object has debug information)")
    return 0

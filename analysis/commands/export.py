"""export: one result file in a format other tools read: Google Benchmark JSON (for its
compare.py) or the raw samples as CSV."""
from __future__ import annotations

import argparse

from ..io.export import to_csv, to_gbench_file
from ..io.load import load_run
from .common import check_outputs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("export", help="export one result file")
    p.add_argument("file")
    p.add_argument("--format", choices=["gbench", "csv"], required=True,
                   help="gbench: Google Benchmark JSON (for its compare.py); csv: raw samples")
    p.add_argument("-o", "--output", required=True)
    return p


def run(args: argparse.Namespace) -> int:
    check_outputs(args, [(args.output, "-o")])
    r = load_run(args.file)
    if args.format == "gbench":
        to_gbench_file(r, args.output, "-o")
    else:
        to_csv(r, args.output, "-o")
    print(f"wrote {args.output}")
    return 0

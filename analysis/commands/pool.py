"""pool: studies of the same code on the same host, run at different times, combined into one
ratio per variant with a between-study variance: its interval and where a study run later would
put its ratio (verdicts/pool.py)."""
from __future__ import annotations

import argparse

from ..io.files import json_text, write_text_atomic
from ..io.load import load_runs
from ..verdicts.pool import pool_runs
from ..views.text import pooled_lines
from .common import UsageError, check_margin_level, check_outputs, inputs_of


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("pool", help="studies of the same code on the same host run at different times: one ratio "
                                    "per variant with the drift between studies in its interval")
    p.add_argument("files", nargs="+", metavar="FILE", help="result files of the same study, two or more")
    p.add_argument("--baseline", help="variant to compare against (default: the first file's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--detail", action="store_true", help="also print every study's ratio and interval")
    p.add_argument("--json", dest="json_out", help="also write the pooled comparisons as JSON to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    if len(args.files) < 2:
        raise UsageError(f"pool: {len(args.files)} file given: pool needs two studies or more")
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    runs = load_runs(args.files)
    try:
        pooled = pool_runs(runs, args.baseline, args.level, args.margin / 100)
    except ValueError as e:
        raise UsageError(str(e)) from e
    print("\n".join(pooled_lines(pooled, args.detail)))
    if args.json_out is not None:
        doc = {"schema": "memfbench-pool", "schema_version": 1, "files": args.files, "level": args.level,
               "margin_percent": args.margin, "pooled": [pc.as_dict() for pc in pooled]}
        write_text_atomic(args.json_out, json_text(doc), "--json", inputs_of(args))
    return 0

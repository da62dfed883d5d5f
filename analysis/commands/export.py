"""export: one result file in a format other tools read: Google Benchmark JSON (for its
compare.py) or the raw samples as CSV."""
from __future__ import annotations

import argparse

from ..io.export import to_csv, to_gbench
from ..io.files import json_text, write_text_atomic
from ..io.load import load_run
from ..verdicts.compare import compare_runs
from .common import check_outputs


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("export", help="export one result file")
    p.add_argument("file")
    p.add_argument("--format", choices=["gbench", "csv"], required=True,
                   help="gbench: Google Benchmark JSON (for its compare.py); csv: raw samples")
    p.add_argument("-o", "--output", required=True)
    return p


def verdicts(r) -> list[dict]:
    """The file's verdicts as summarize's headline prints them (the same estimator, ratio and
    simultaneous interval), for a reader of the export who wants memfbench's number beside the
    repetitions' own aggregates (which are medians of per-process medians: another statistic)."""
    comps = compare_runs([r], secondary=False) if not r.doc.get("sweep") else []
    return [{"variant": c.variant, "baseline": c.baseline, "ratio": c.ratio, "ci_low": c.ci_adj_low,
             "ci_high": c.ci_adj_high, "level": c.level, "verdict": c.verdict, "processes": c.processes,
             "processes_dropped": len(c.dropped), "estimator": c.estimand} for c in comps]


def run(args: argparse.Namespace) -> int:
    check_outputs(args, [(args.output, "-o")])
    r = load_run(args.file)
    if args.format == "gbench":
        doc = to_gbench(r)
        doc["context"]["memfbench_verdicts"] = verdicts(r)
        write_text_atomic(args.output, json_text(doc), "-o", [r.path])
    else:
        to_csv(r, args.output, "-o")
    print(f"wrote {args.output}")
    return 0

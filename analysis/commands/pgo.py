"""pgo: the PGO gain of every (NAME, NAME-pgo) pair of memfbench run --pgo files, per source a
table of the distribution the profile was trained on (rows) by the one it was timed on (columns),
each row labelled by where the gain holds (verdicts/pgo.py)."""
from __future__ import annotations

import argparse

from ..io.files import json_text, write_text_atomic
from ..verdicts.pgo import pgo_pairs, pgo_table
from ..views.pgo import group_lines
from .common import UsageError, check_level, check_outputs, inputs_of, load


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("pgo", help="PGO gain of run --pgo files: profiled build / the same source without a "
                                   "profile, per source a trained-on x tested-on table (overfitting)")
    p.add_argument("files", nargs="+", help="memfbench result files of runs with --pgo")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--json", dest="json_out", metavar="OUT", help="also write the tables as JSON to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_level(args.level)
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    # each file's NAME-pgo is its own profile's code: kept apart, as expected, without a note
    runs, _ = load(args.files, expected=lambda note: note.split(" ", 1)[0].endswith("-pgo"))
    # every file's pairs read first: a malformed one is refused here, naming its field
    if not any(pgo_pairs(r) for r in runs if not r.doc.get("sweep")):
        raise UsageError(f"{', '.join(args.files)}: no NAME-pgo variant (variants[].build.pgo) in any file; "
                         "memfbench run --pgo -v FILE.c:SYMBOL=NAME makes one")
    try:
        groups = pgo_table(runs, args.level)
    except ValueError as e:
        raise UsageError(str(e)) from e
    for i, g in enumerate(groups):
        print(("\n" if i else "") + "\n".join(group_lines(g, args.level)))
    if args.json_out is not None:
        doc = {"schema": "memfbench-pgo-table", "level": args.level, "files": list(args.files),
               "groups": [g.as_dict() for g in groups]}
        write_text_atomic(args.json_out, json_text(doc), "--json", inputs_of(args))
    return 0

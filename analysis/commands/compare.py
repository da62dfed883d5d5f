"""compare: the A/B verdicts of every variant against the baseline, at a glance (one short line
each), with --detail as a table and one long line each (and, with --json FILE, as JSON)."""
from __future__ import annotations

import argparse

from ..io.files import json_text, write_text_atomic
from ..verdicts.compare import comparisons_frame
from ..views.pgo import pgo_summary_lines, terminal_lines
from ..views.text import COMPARISON_COLUMNS, headline_lines, plain, table, verdict_lines
from .common import (DETAIL_HINT, check_outputs, check_study_options, compare_study, detail_option, inputs_of, suite_block,
                     study_options)


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("compare", help="A/B verdicts against a baseline")
    study_options(p)
    detail_option(p)
    p.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_study_options(args)
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    # the secondary statistics (ratio of medians, Mann-Whitney, Hodges-Lehmann) are shown by the
    # wide table of --detail and written by --json only
    runs, _, comps = compare_study(args, secondary=args.detail or args.json_out is not None)
    pgo = pgo_summary_lines(runs, args.level) if comps else []  # before any output: a bad pair is refused alone
    if comps:
        print("\n".join(headline_lines(comps, "" if args.detail else DETAIL_HINT)
                        + suite_block(comps, args.level, args.margin / 100)))
        if args.detail:
            print()
            print(table(comparisons_frame(comps)[COMPARISON_COLUMNS]))
            print()
            print("\n".join(plain(x) for x in verdict_lines(comps)))
        if pgo:
            print("\n".join(terminal_lines(pgo)))
    else:
        print("(no comparisons: every variant besides the baseline is the harness's noop)")
    if args.json_out is not None:
        write_text_atomic(args.json_out, json_text([x.as_dict() for x in comps]), "--json", inputs_of(args))
    return 0

"""classes: where the time goes (a run with --by-class): per size class the ratios, and each
variant's difference decomposed into class contributions and a residual."""
from __future__ import annotations

import argparse

from ..io.files import write_text_atomic
from ..io.load import load_run
from ..verdicts.classes import decompose, decompose_run, decomposition_lines
from ..views.text import dashed
from .common import UsageError, check_margin_level, check_outputs, inputs_of, verdict_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("classes", help="where the time goes: per size class ratios and the decomposition of "
                                       "each difference into class contributions and a residual (run --by-class)")
    p.add_argument("file")
    verdict_options(p)
    p.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    p.add_argument("--csv", dest="csv_out", help="also write the table as CSV to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    check_outputs(args, [(args.csv_out, "--csv")] if args.csv_out is not None else [])
    r = load_run(args.file)
    try:
        decs = ([decompose(r, v, args.baseline, args.level, args.margin / 100) for v in args.variant]
                if args.variant else decompose_run(r, args.baseline, args.level, args.margin / 100))
    except ValueError as e:
        raise UsageError(str(e)) from e
    for dec in decs:
        print(dashed("\n".join(decomposition_lines(dec)), head=2) + "\n")
    print("class: the whole distribution's share of calls (calls %) x the per-call difference within the class; "
          "residual: the whole difference less the classes' sum (what timing the classes apart misses: "
          "predictors and caches mixing sizes); ratios paired by round, Holm over the classes")
    if args.csv_out is not None:
        import pandas as pd
        rows = [row for dec in decs for row in dec.rows()]
        write_text_atomic(args.csv_out, pd.DataFrame(rows).to_csv(index=False), "--csv", inputs_of(args))
    return 0

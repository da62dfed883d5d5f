"""pressure: instruction-cache pressure. The ratio to the baseline against the --icache-pressure
size, one run file per size (a file without the option is size 0)."""
from __future__ import annotations

import argparse

from ..io.files import write_bytes_atomic
from ..verdicts.pressure import pressure_frame
from ..views.text import table
from .common import UsageError, check_margin_level, check_outputs, inputs_of, load, png, verdict_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("pressure", help="instruction-cache pressure: ratio against --icache-pressure size, one "
                                        "run file per size (a file without the option is size 0)")
    p.add_argument("files", nargs="+")
    verdict_options(p, each_run=True)
    p.add_argument("--plot", metavar="STEM", help="also write STEM.png: ratio against pressure size")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    check_outputs(args, [(f"{args.plot}.png", "--plot")] if args.plot is not None else [])
    runs, _ = load(args.files)
    try:
        df = pressure_frame(runs, args.baseline, args.level, args.margin / 100)
    except ValueError as e:
        raise UsageError(str(e)) from e
    if df.empty:
        raise UsageError("no comparisons: each file needs a baseline and another variant besides the noop")
    print("== ratio to the baseline against instruction-cache pressure (one file per size; the block runs "
          "after every call, inside the timed loop)")
    cols = ["pressure_bytes", "variant", "code_size", "ratio", "ci_low", "ci_high", "diff_ns", "diff_low", "diff_high",
            "verdict", "block_ns"]
    print(table(df[cols]))
    print("diff_ns: variant minus baseline in ns per call, paired round by round (the block cancels; the ratio "
          "is diluted by it); code_size: bytes of the variant's function (null: not known)")
    if args.plot is not None:
        from ..views.plots.pressure import pressure as pressure_figure
        write_bytes_atomic(f"{args.plot}.png", png(pressure_figure(df)), "--plot", inputs_of(args))
    return 0

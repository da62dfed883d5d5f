"""tune: a memfbench tune folder read back: the race, the fresh study's verdicts on the leader and
the runner-up, the leader on the function's other distributions, the winner's settings
(views/tune.py); --plot draws the race (views/plots/race.py)."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..io.files import write_bytes_atomic
from ..io.reading import ResultFileError
from ..io.tune_folder import read_tune_folder
from ..verdicts.tune import tune_verdicts
from ..views.tune import tune_lines
from .common import UsageError, check_outputs, inputs_of, png


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("tune", help="a memfbench tune folder: the race, the leader's fresh-study interval, the "
                                    "leader on the other distributions, the winner")
    p.add_argument("folder", metavar="DIR", help="the folder memfbench tune -o DIR wrote")
    p.add_argument("--plot", metavar="PNG", help="also draw the race (each candidate's interval by step) here")
    p.add_argument("--report", metavar="DIR", help="also write a report (report.md and report.html, the race drawn, "
                                                   "every table) into this new folder")
    return p


def run(args: argparse.Namespace) -> int:
    check_outputs(args, [(args.plot, "--plot")] if args.plot else [],
                  (args.report, "--report") if args.report is not None else None)
    try:
        t = read_tune_folder(args.folder)
        v = tune_verdicts(t)
    except (ResultFileError, ValueError) as e:
        raise UsageError(str(e)) from e
    print("\n".join(tune_lines(t.tune, t.race, v, t.final.cpu_model)))
    if args.plot:
        from ..views.plots.race import race_figure
        write_bytes_atomic(args.plot, png(race_figure(t.race)), "--plot", inputs_of(args))
    if args.report is not None:
        from ..views.report import write_tune_report
        md, page = write_tune_report(t, v, Path(args.report), "--report")
        print(f"report: {md} and {page}")
    return 0

"""tune: a memfbench tune folder read back: the race, the fresh study's verdicts on the leader and
the runner-up, the leader on the function's other distributions, the winner's settings
(views/tune.py); --plot draws the race (views/plots/race.py)."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..io.files import write_bytes_atomic
from ..io.load import load_runs
from ..verdicts.compare import compare_runs
from ..views.tune import CheckRow, tune_lines
from .common import UsageError, check_outputs, inputs_of, png


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("tune", help="a memfbench tune folder: the race, the leader's fresh-study interval, the "
                                    "leader on the other distributions, the winner")
    p.add_argument("folder", metavar="DIR", help="the folder memfbench tune -o DIR wrote")
    p.add_argument("--plot", metavar="PNG", help="also draw the race (each candidate's interval by step) here")
    return p


def read_json(path: Path, what: str) -> dict:
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no {what} here: is this a folder memfbench tune wrote?") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: cannot read {what}: {e}") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: {what} is not a JSON object")
    return doc


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (memfbench tune -o DIR writes one)")
    check_outputs(args, [(args.plot, "--plot")] if args.plot else [])
    tune = read_json(folder / "tune.json", "tune.json")
    race = read_json(folder / "race.json", "race.json")
    if tune.get("schema") != "memfbench-tune" or race.get("schema") != "memfbench-race":
        raise UsageError(f"{folder}: tune.json or race.json is not memfbench tune's")
    try:
        final_run = load_runs([str(folder / "final.json.gz")])[0]
        final = compare_runs([final_run], None, secondary=False)
        leader, runner = tune["leader"], tune.get("runner_up")
        names = {c.variant for c in final}
        lvr = None
        if runner and leader in names and runner in names:
            lvr = next((c for c in compare_runs([final_run], leader, secondary=False) if c.variant == runner), None)
        rows = []
        for ch in tune.get("checks", []):
            comps = compare_runs(load_runs([str(folder / ch["file"])]), None, secondary=False)
            rows.append(CheckRow(ch["distribution"], next((c for c in comps if c.variant == leader), None)))
    except (KeyError, ValueError) as e:
        raise UsageError(f"{folder}: {e}") from e
    cpu = final_run.cpu_model
    print("\n".join(tune_lines(tune, race, final, lvr, rows, cpu)))
    if args.plot:
        from ..views.plots.race import race_figure
        write_bytes_atomic(args.plot, png(race_figure(race)), "--plot", inputs_of(args))
    return 0

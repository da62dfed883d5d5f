"""race: one step of memfbench tune's race over the race studies so far (verdicts/race.py): who is
dropped, the leader, whether the race is done; memfbench tune runs it after each step and reads
its --json. It can be run on a tune folder's race/ files to see the race again."""
from __future__ import annotations

import argparse

from ..io.files import json_text, write_text_atomic
from ..io.load import load_runs
from ..io.reading import ResultFileError, read_json
from ..verdicts.compare import compare_runs
from ..verdicts.race import file_step, run_race, step_line, stored_units
from .common import UsageError, check_outputs, inputs_of


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("race", help="memfbench tune's racing rule over its race studies: the candidates dropped, "
                                    "the leader, whether the race is done")
    p.add_argument("files", nargs="+", metavar="FILE", help="race studies, named race/step-SSS-GG.json.gz")
    p.add_argument("--margin", type=float, default=0.5, help="drop margin in percent (default 0.5)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="the chance of dropping the fastest candidate over the race (default 0.05)")
    p.add_argument("--json", dest="json_out", help="write the race (every candidate's history) as JSON here")
    p.add_argument("--resume", metavar="RACE_JSON", help="the race so far, as an earlier --json wrote it: the FILEs "
                                                          "are then the next step's studies only")
    return p


def race_units(files: list[str]) -> list[tuple[int, str, dict[str, list[float]]]]:
    """Each file's step, baseline and each candidate's per-process log ratios to it."""
    out = []
    steps = []
    for f in files:
        try:
            steps.append(file_step(f))
        except ValueError as e:
            raise UsageError(str(e)) from e
    for f, run, step in zip(files, load_runs(files), steps):
        comps = compare_runs([run], None, secondary=False)
        if not comps:
            raise UsageError(f"{f}: no candidate beside the baseline")
        out.append((step, comps[0].baseline, {c.variant: list(c.units) for c in comps}))
    return out


def resumed(path: str, alpha: float, margin: float) -> list[tuple[int, str, dict[str, list[float]]]]:
    """The units of the race so far (--resume), refused when the file is not a race of this rule."""
    try:
        doc = read_json(path)
    except ResultFileError as e:
        raise UsageError(str(e)) from None
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-race":
        raise UsageError(f"--resume {path}: not a race.json (memfbench analyze race --json)")
    if doc.get("alpha") != alpha or doc.get("margin_percent") != margin:
        raise UsageError(f"--resume {path}: its race ran with --alpha {doc.get('alpha')} and --margin "
                         f"{doc.get('margin_percent')}, not {alpha:g} and {margin:g}")
    try:
        return stored_units(doc)
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(f"--resume {path}: a candidate's history without its units ({e})") from None


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.margin <= 50:
        raise UsageError(f"--margin: {args.margin:g} is not a percentage from 0 to 50")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha: {args.alpha:g} is not a probability between 0 and 1")
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    earlier = resumed(args.resume, args.alpha, args.margin) if args.resume is not None else []
    try:
        race = run_race(earlier + race_units(args.files), args.alpha, args.margin / 100)
    except ValueError as e:
        raise UsageError(str(e)) from e
    print(step_line(race))
    if args.json_out is not None:
        write_text_atomic(args.json_out, json_text(race.as_dict()), "--json", inputs_of(args))
    return 0

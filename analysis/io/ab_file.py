"""memfbench ab files: their JSON Schema (docs/schema/memfbench-ab.schema.json) and the rules it
cannot state, the measured runs as a frame, and the call count of the recording a prediction
scales by; the verdicts are verdicts/ab.py's."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from .reading import ResultFileError, read_json
from .schema import first_error, read_small_document



def read_ab(path: str | Path) -> dict[str, Any]:
    """Reads and validates a memfbench ab file (plain or .json.gz); ResultFileError names what is
    wrong: the schema, and that every run names an arm of the file and every measured block holds
    each arm once."""
    doc, errors = read_small_document(path, "memfbench-ab")
    if not errors:
        arms = [a["name"] for a in doc["arms"]]
        kinds = [a["kind"] for a in doc["arms"]]
        if len(set(arms)) != len(arms) or kinds.count("plain") != 1 or kinds.count("libc") != 1:
            errors.append("arms: names must differ, with one plain and one libc arm")
        for i, r in enumerate(doc["runs"]):
            if r["arm"] not in arms:
                errors.append(f"runs/{i}/arm: '{r['arm']}' is not one of the arms")
                break
        if not errors:
            df = runs_frame(doc)
            counts = df.groupby("block")["arm"].agg(lambda a: sorted(a) == sorted(arms))
            if not counts.all():
                errors.append(f"runs: block {int(counts.index[~counts.to_numpy()][0])} does not run every arm once")
            elif df["block"].nunique() < 2:
                errors.append("runs: fewer than two measured blocks")
    if errors:
        raise ResultFileError(first_error(path, "memfbench ab file", errors))
    return doc


def runs_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """The measured runs (warm-up blocks left out): block, order, arm, wall_s, cpu_s."""
    df = pd.DataFrame(doc["runs"])
    df = df[~df["warmup"]].copy()
    df["cpu_s"] = df["user_s"] + df["sys_s"]
    return df


# A recording's call count scales a per-call difference into a per-run prediction: a whole number
# of calls, at least one, and no more than a double holds exactly (2^53; the recorder counts in 64
# bits, and 2^53 calls of a nanosecond would take over a hundred days).
MAX_RECORDED_CALLS = 2 ** 53


def recorded_calls(recording: str | Path, function: str) -> int:
    """Calls the program made to the function in its recorded run (provenance.json's
    calls.FUNCTION.calls): a whole number from 1 to 2^53, else a ResultFileError naming the file
    and the field (-5 would flip a prediction's sign, 1e300 overflow it, Infinity end in a
    traceback)."""
    where = f"{Path(recording) / 'provenance.json'}"
    doc = read_json(Path(recording) / "provenance.json")
    try:
        value = doc["calls"][function]["calls"]
    except (KeyError, TypeError):
        raise ResultFileError(f"{where}: no call count for {function} (calls.{function}.calls)") from None
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and math.isfinite(value) and value.is_integer())
    if not whole or not 1 <= value <= MAX_RECORDED_CALLS:
        shown = (f"the string {value!r}" if isinstance(value, str) else repr(value))[:60]
        raise ResultFileError(f"{where}: calls.{function}.calls is {shown}, not a whole number of calls from 1 "
                              f"to 2^53")
    return int(value)

"""memfbench ab files: their JSON Schema (docs/schema/memfbench-ab.schema.json) and the rules it
cannot state, the measured runs as a frame, and the call count of the recording a prediction
scales by; the verdicts are verdicts/ab.py's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd

from .reading import ResultFileError, read_json
from .schema import SCHEMA_DIR, load_schema_file

AB_SCHEMA_PATH = SCHEMA_DIR / "memfbench-ab.schema.json"


def read_ab(path: str | Path) -> dict[str, Any]:
    """Reads and validates a memfbench ab file (plain or .json.gz); ResultFileError names what is
    wrong: the schema, and that every run names an arm of the file and every measured block holds
    each arm once."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-ab":
        raise ResultFileError(f"{path}: not a memfbench ab file (its \"schema\" is not \"memfbench-ab\")")
    errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in
              sorted(jsonschema.Draft202012Validator(load_schema_file(AB_SCHEMA_PATH)).iter_errors(doc),
                     key=lambda e: list(e.absolute_path))]
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
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultFileError(f"{path}: not a valid memfbench ab file: {errors[0][:300]}{more}")
    return doc


def runs_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """The measured runs (warm-up blocks left out): block, order, arm, wall_s, cpu_s."""
    df = pd.DataFrame(doc["runs"])
    df = df[~df["warmup"]].copy()
    df["cpu_s"] = df["user_s"] + df["sys_s"]
    return df


def recorded_calls(recording: str | Path, function: str) -> int:
    """Calls the program made to the function in its recorded run (provenance.json)."""
    doc = read_json(Path(recording) / "provenance.json")
    try:
        return int(doc["calls"][function]["calls"])
    except (KeyError, TypeError, ValueError):
        raise ResultFileError(f"{recording}/provenance.json: no call count for {function}") from None

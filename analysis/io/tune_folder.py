"""A memfbench tune folder read back (docs/json-schema.md, "The tune folder"): tune.json and
race.json checked for their schemas, the fresh study and each check's run loaded."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .load import Run, load_runs
from .reading import ResultFileError, read_json


@dataclass
class TuneFolder:
    path: Path
    tune: dict            # tune.json
    race: dict            # race.json
    final: Run            # final.json.gz: the baseline, the leader, the runner-up
    checks: list[tuple[str, Run]]  # each other distribution and the leader's study on it


def _json(path: Path, what: str, schema: str) -> dict:
    if not path.exists():
        raise ResultFileError(f"{path}: no {what} here: is this a folder memfbench tune wrote?")
    doc = read_json(path)  # bounded, and a FIFO or a device refused, as every input is
    if not isinstance(doc, dict) or doc.get("schema") != schema:
        raise ResultFileError(f"{path}: not memfbench tune's {what} (schema {schema})")
    return doc


def read_tune_folder(folder: str | Path) -> TuneFolder:
    path = Path(folder)
    if not path.is_dir():
        raise ResultFileError(f"{path}: not a folder (memfbench tune -o DIR writes one)")
    tune = _json(path / "tune.json", "tune.json", "memfbench-tune")
    race = _json(path / "race.json", "race.json", "memfbench-race")
    try:
        final = load_runs([str(path / "final.json.gz")])[0]
        checks = [(c["distribution"], load_runs([str(path / c["file"])])[0]) for c in tune.get("checks", [])]
    except (KeyError, TypeError) as e:
        raise ResultFileError(f"{path / 'tune.json'}: no {e} in a check") from None
    return TuneFolder(path, tune, race, final, checks)

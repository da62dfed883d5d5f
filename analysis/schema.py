"""The JSON Schema of memfbench result files and validation against it."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "schema" / "memfbench-run.schema.json"

SAMPLE_COLUMNS = ("variant", "round", "position", "calls", "bytes", "ticks", "ns", "t_start_ns", "cpu", "warmup")


class ResultFileError(ValueError):
    """A result file that cannot be used; the message names the file and what is wrong."""


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def validation_errors(doc: Any) -> list[str]:
    """Every schema violation plus the cross-field rules a schema cannot state, as 'path: message'."""
    validator = jsonschema.Draft202012Validator(load_schema())
    errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
              for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))]
    if errors:
        return errors
    samples = doc["samples"]
    n = samples["count"]
    for col in SAMPLE_COLUMNS:
        if len(samples[col]) != n:
            errors.append(f"samples/{col}: {len(samples[col])} entries, count says {n}")
    nvar = len(doc["variants"])
    if any(v >= nvar for v in samples["variant"]):
        errors.append(f"samples/variant: an index is not below the {nvar} variants")
    if [v["name"] for v in doc["variants"]] != doc["config"]["variants"]:
        errors.append("variants: names differ from config/variants")
    return errors


def validate(doc: Any, source: str = "<document>") -> None:
    """Raises ResultFileError naming the first problem."""
    errors = validation_errors(doc)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultFileError(f"{source}: not a valid memfbench result: {errors[0]}{more}")


def read(path: str | Path) -> dict[str, Any]:
    """Reads and validates one result file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ResultFileError(f"{p}: cannot read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise ResultFileError(f"{p}: not UTF-8 text (byte {e.start})") from e
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultFileError(f"{p}:{e.lineno}: not JSON: {e.msg}") from e
    validate(doc, str(p))
    return doc

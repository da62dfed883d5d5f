"""The JSON Schema of memfbench result files and validation against it."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "schema" / "memfbench-run.schema.json"

SAMPLE_COLUMNS = ("variant", "round", "position", "calls", "bytes", "ticks", "ns", "t_start_ns", "cpu", "warmup",
                  "process")


class ResultFileError(ValueError):
    """A result file that cannot be used; the message names the file and what is wrong."""


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


# Sample columns are checked with numpy: per-item schema validation of hundreds of thousands of
# numbers in Python takes seconds. The schema still sees a short prefix of each column.
_PREFIX = 16
_COLUMN_KINDS = {"variant": "uint", "round": "uint", "position": "uint", "calls": "uint", "bytes": "uint",
                 "ticks": "uint", "t_start_ns": "uint", "ns": "number", "cpu": "int", "warmup": "bool",
                 "process": "uint"}


def _column_errors(name: str, values: Any) -> list[str]:
    if not isinstance(values, list):
        return []  # the schema reports the type
    if not values:
        return []
    kind = _COLUMN_KINDS.get(name)
    if kind == "bool":
        ok = all(v is True or v is False for v in values)
        return [] if ok else [f"samples/{name}: entries must be true or false"]
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        return [f"samples/{name}: entries must be numbers"]
    arr = np.asarray(values)
    if kind in ("uint", "int") and arr.dtype.kind not in "iu":
        return [f"samples/{name}: entries must be integers"]
    if kind == "uint" and arr.min() < 0:
        return [f"samples/{name}: entries must be non-negative"]
    if kind == "int" and arr.min() < -1:
        return [f"samples/{name}: entries must be -1 or more"]
    if kind == "number" and (not np.all(np.isfinite(arr)) or arr.min() < 0):
        return [f"samples/{name}: entries must be finite and non-negative"]
    return []


def validation_errors(doc: Any) -> list[str]:
    """Every schema violation plus the cross-field rules a schema cannot state, as 'path: message'."""
    validator = jsonschema.Draft202012Validator(load_schema())
    probe = doc
    samples = doc.get("samples") if isinstance(doc, dict) else None
    if isinstance(samples, dict):
        probe = dict(doc)
        probe["samples"] = {k: (v[:_PREFIX] if isinstance(v, list) else v) for k, v in samples.items()}
    errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
              for e in sorted(validator.iter_errors(probe), key=lambda e: list(e.absolute_path))]
    if errors:
        return errors
    for col in SAMPLE_COLUMNS:
        errors += _column_errors(col, samples[col])
    if errors:
        return errors
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

"""The JSON Schema of memfbench result files, validation against it, and the names it defines.

The schema file (docs/schema/memfbench-run.schema.json) is the one source of truth: the sample
columns and their kinds, and the closed sets of names (stop reasons, warm-up modes, table
origins), are read from it here rather than listed again in Python."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "schema" / "memfbench-run.schema.json"

class ResultFileError(ValueError):
    """A result file that cannot be used; the message names the file and what is wrong."""


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def resolve(node: dict[str, Any], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The subschema a local `$ref` ("#/$defs/NAME") points to; any other node as it is."""
    ref = node.get("$ref")
    if ref is None:
        return node
    if not ref.startswith("#/"):
        raise ValueError(f"schema: only local references are supported, not {ref!r}")
    target: Any = schema if schema is not None else load_schema()
    for key in ref[2:].split("/"):
        target = target[key]
    return resolve(target, schema)


def subschema(*path: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The schema of the property at `path` (names of nested properties from the document's top),
    with references resolved: subschema("status", "stop_reason")."""
    node = schema if schema is not None else load_schema()
    for key in path:
        node = resolve(node, schema)["properties"][key]
    return resolve(node, schema)


def schema_enum(*path: str, schema: dict[str, Any] | None = None) -> tuple[str, ...]:
    """The allowed values of the enumerated property at `path`, in the schema's order."""
    node = subschema(*path, schema=schema)
    if "enum" not in node:
        raise ValueError(f"schema: {'/'.join(path)} is not an enum")
    return tuple(node["enum"])


def column_kind(spec: dict[str, Any], schema: dict[str, Any] | None = None) -> str:
    """The kind of one sample column from its schema: "uint" (integers >= 0), "int" (integers >= -1),
    "number" (numbers) or "bool" (booleans)."""
    node = resolve(spec, schema)
    items = resolve(node.get("items", {}), schema)
    if node.get("type") != "array":
        raise ValueError(f"schema: a sample column is not an array: {spec}")
    kind = items.get("type")
    if kind == "boolean":
        return "bool"
    if kind == "number":
        return "number"
    if kind == "integer" and items.get("minimum") == 0:
        return "uint"
    if kind == "integer" and items.get("minimum") == -1:
        return "int"
    raise ValueError(f"schema: a sample column of unknown kind: {spec}")


def sample_column_kinds(schema: dict[str, Any] | None = None) -> dict[str, str]:
    """Every sample column (the required names of `samples` but "count"), in the schema's order,
    with its kind."""
    samples = subschema("samples", schema=schema)
    return {name: column_kind(samples["properties"][name], schema)
            for name in samples["required"] if name != "count"}


COLUMN_KINDS: dict[str, str] = sample_column_kinds()
SAMPLE_COLUMNS: tuple[str, ...] = tuple(COLUMN_KINDS)
STOP_REASONS: tuple[str, ...] = schema_enum("status", "stop_reason")
WARMUP_MODES: tuple[str, ...] = schema_enum("rounds", "warmup_detail", "mode")
TABLE_ORIGINS: tuple[str, ...] = schema_enum("distribution", "tables", "size", "origin")

# Sample columns are checked with numpy: per-item schema validation of hundreds of thousands of
# numbers in Python takes seconds. The schema still sees a short prefix of each column.
_PREFIX = 16


def _column_errors(name: str, values: Any) -> list[str]:
    if not isinstance(values, list):
        return []  # the schema reports the type
    if not values:
        return []
    kind = COLUMN_KINDS.get(name)
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

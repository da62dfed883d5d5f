"""analysis.io.schema reads the sample columns and the closed sets of names from the JSON Schema
file; what a real run writes matches them."""
from __future__ import annotations

import pytest

from analysis.io import schema
from conftest import QUICK

TOY = {
    "properties": {
        "samples": {
            "required": ["count", "a", "b", "c", "d", "e"],
            "properties": {
                "count": {"type": "integer"},
                "a": {"$ref": "#/$defs/uints"},
                "b": {"type": "array", "items": {"type": "integer", "minimum": -1}},
                "c": {"type": "array", "items": {"type": "number", "minimum": 0}},
                "d": {"type": "array", "items": {"type": "boolean"}},
                "e": {"type": "array", "items": {"$ref": "#/$defs/nonneg"}},
            },
        },
        "status": {"properties": {"why": {"enum": ["x", "y"]}, "free": {"type": "string"}}},
        "ref": {"$ref": "#/$defs/thing"},
    },
    "$defs": {
        "uints": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "nonneg": {"type": "integer", "minimum": 0},
        "thing": {"properties": {"origin": {"enum": ["p", "q"]}}},
    },
}


def test_kinds_and_order_from_a_schema():
    assert schema.sample_column_kinds(TOY) == {"a": "uint", "b": "int", "c": "number", "d": "bool", "e": "uint"}


def test_enums_from_a_schema():
    assert schema.schema_enum("status", "why", schema=TOY) == ("x", "y")
    assert schema.schema_enum("ref", "origin", schema=TOY) == ("p", "q")  # through a $ref
    with pytest.raises(ValueError, match="not an enum"):
        schema.schema_enum("status", "free", schema=TOY)


def test_unknown_column_kind_is_refused():
    bad = {"properties": {"samples": {"required": ["s"], "properties": {
        "s": {"type": "array", "items": {"type": "string"}}}}}}
    with pytest.raises(ValueError, match="unknown kind"):
        schema.sample_column_kinds(bad)


def test_names_come_from_the_schema_file():
    s = schema.load_schema()
    samples = s["properties"]["samples"]
    assert schema.SAMPLE_COLUMNS == tuple(c for c in samples["required"] if c != "count")
    assert set(schema.COLUMN_KINDS) == set(schema.SAMPLE_COLUMNS)
    assert set(schema.COLUMN_KINDS.values()) <= {"uint", "int", "number", "bool"}
    for names in (schema.STOP_REASONS, schema.WARMUP_MODES, schema.TABLE_ORIGINS):
        assert names and all(isinstance(n, str) and n for n in names)
    assert schema.STOP_REASONS == tuple(s["properties"]["status"]["properties"]["stop_reason"]["enum"])


def column_ok(kind: str, values: list) -> bool:
    if kind == "bool":
        return all(v is True or v is False for v in values)
    if kind == "number":
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in values)
    low = 0 if kind == "uint" else -1
    return all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values)


def test_a_real_run_matches_the_derived_names(run):
    r = run("-f", "memcmp", *QUICK)  # memcmp: its mismatch table has the "default" origin
    assert r.code == 0, r.stderr
    d = r.doc
    assert set(d["samples"]) - {"count"} == set(schema.SAMPLE_COLUMNS)
    for col, kind in schema.COLUMN_KINDS.items():
        assert column_ok(kind, d["samples"][col]), col
    assert d["status"]["stop_reason"] == "rounds" and "rounds" in schema.STOP_REASONS  # run with --rounds
    assert d["rounds"]["warmup_detail"]["mode"] in schema.WARMUP_MODES
    origins = {t["origin"] for t in d["distribution"]["tables"].values() if t is not None}
    assert origins and origins <= set(schema.TABLE_ORIGINS)


def test_detected_warmup_mode_is_a_schema_name(run):
    r = run("-d", "fixed:64", "-v", "libc", "--rounds", "4", "-q")
    assert r.code == 0, r.stderr
    assert r.doc["rounds"]["warmup_detail"]["mode"] == "detected" and "detected" in schema.WARMUP_MODES

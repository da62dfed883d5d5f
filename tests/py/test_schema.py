"""analysis.io.schema reads the sample columns and the closed sets of names from the JSON Schema
file; what a real run writes matches them. Validation: the fast check passes exactly what jsonschema
passes, and a refused file reads the same either way."""
from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from analysis.io import schema
from analysis.io.upgrade import upgrade
from conftest import QUICK, ROOT

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


# --- validation: the fast check and jsonschema -------------------------------------------------

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"
GOLDEN_V1 = ROOT / "tests" / "data" / "golden-run-v1.json"


def test_every_schema_file_is_a_draft_2020_12_schema():
    """Reading a schema file no longer checks it (the names it defines need no jsonschema): here it is."""
    import jsonschema
    files = sorted((ROOT / "docs" / "schema").glob("*.schema.json"))
    assert len(files) >= 4
    for f in files:
        jsonschema.Draft202012Validator.check_schema(json.loads(f.read_text(encoding="utf-8")))


def schema_keywords(node: Any) -> set[str]:
    """Every keyword of a schema's nodes (the names under properties and $defs are not keywords)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "patternProperties", "$defs"):
                for sub in value.values():
                    found |= schema_keywords(sub)
            elif key in ("items", "additionalProperties", "not", "if", "then", "else"):
                found |= schema_keywords(value)
            elif key in ("oneOf", "anyOf", "allOf", "prefixItems"):
                for sub in value:
                    found |= schema_keywords(sub)
    return found


def test_the_fast_check_knows_every_keyword_of_the_result_schemas():
    """A keyword it does not know sends every file to jsonschema (correct, but the cost the fast
    check saves): the result schema and the analysis's own use none."""
    assert schema_keywords(schema.load_schema()) <= schema.FAST_KEYWORDS
    assert schema_keywords(schema.ANALYSIS_NEEDS) <= schema.FAST_KEYWORDS


def without_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any) -> list[str]:
        raise AssertionError("jsonschema validated a file the fast check should pass")
    monkeypatch.setattr(schema, "_schema_errors", refuse)


def test_valid_files_pass_the_fast_check_alone(run, monkeypatch):
    """The result files memfbench writes, now and before (upgraded), are valid without jsonschema."""
    r = run("-f", "memcmp", *QUICK)
    assert r.code == 0, r.stderr
    docs = [r.doc, upgrade(json.loads(GOLDEN.read_text())), upgrade(json.loads(GOLDEN_V1.read_text()))]
    without_jsonschema(monkeypatch)
    for d in docs:
        assert schema.validation_errors(d) == []


# What a mutation puts in place of a value: every JSON kind, and numbers at the schema's bounds.
REPLACEMENTS = [None, True, False, 0, 1, -1, 2.5, 1.0, -0.5, "", "x", "fleetbench/Memcpy_Fleet", [], [1], {},
                {"a": 1}]


def mutations(doc: dict[str, Any], count: int, seed: int) -> list[dict[str, Any]]:
    """count copies of doc, each changed at one random place: a value replaced (REPLACEMENTS), a
    key removed or added, an entry of a list removed or repeated."""
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node[:4]):  # a column's first entries stand for the rest
                walk(v, path + (i,))

    walk(doc, ())
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        d = copy.deepcopy(doc)
        path = rng.choice(paths[1:])
        parent = d
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        op = rng.random()
        if op < 0.7:
            parent[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif isinstance(parent, dict) and op < 0.85:
            del parent[last]
        elif isinstance(parent, dict):
            target = parent[last] if isinstance(parent[last], dict) else parent
            target["unknown_key"] = 1
        elif op < 0.85:
            del parent[last]
        else:
            parent.insert(last, copy.deepcopy(parent[last]))
        out.append(d)
    return out


@pytest.mark.parametrize("source", ["golden", "golden-v1"])
def test_the_fast_check_agrees_with_jsonschema_on_every_mutation(source):
    """On hundreds of one-place changes of a result file, the fast check passes exactly what
    jsonschema passes, for the schema file and for what the analysis needs beyond it; and a file
    is refused with the same message whichever passes it."""
    import jsonschema
    doc = upgrade(json.loads((GOLDEN if source == "golden" else GOLDEN_V1).read_text()))
    refused = 0
    for d in mutations(doc, 400, seed=53 if source == "golden" else 54):
        for s in (schema.load_schema(), schema.ANALYSIS_NEEDS):
            valid = not any(True for _ in jsonschema.Draft202012Validator(s).iter_errors(d))
            assert schema.conforms(d, s) == valid, (s is schema.ANALYSIS_NEEDS, d)
            refused += not valid
    assert refused > 100  # the mutations reach the schema's rules, not only what it leaves open


def test_a_refusal_reads_the_same_with_the_fast_check_or_without(monkeypatch):
    doc = upgrade(json.loads(GOLDEN.read_text()))
    fast = [schema.validation_errors(d) for d in mutations(doc, 150, seed=55)]
    monkeypatch.setattr(schema, "conforms", lambda d, s: False)
    slow = [schema.validation_errors(d) for d in mutations(doc, 150, seed=55)]
    assert fast == slow and sum(1 for e in fast if e) > 50


# Each keyword the fast check interprets, alone and in the combinations jsonschema words apart.
TOY_SCHEMAS = [
    {"type": "integer"}, {"type": "number"}, {"type": ["string", "null"]}, {"type": "boolean"}, {"type": "object"},
    {"type": "array"}, {"minimum": 0}, {"maximum": 1}, {"exclusiveMinimum": 0}, {"exclusiveMaximum": 1},
    {"enum": ["a", 1, None]}, {"enum": [True]}, {"enum": [0]}, {"enum": [1.0]}, {"const": 1}, {"const": False},
    {"const": "a"}, {"pattern": "^a+$"}, {"minLength": 1, "maxLength": 2}, {"minItems": 1, "maxItems": 1},
    {"items": {"type": "integer", "minimum": 0}}, {"items": False}, {"required": ["a"]},
    {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
    {"patternProperties": {"^x_": {"type": "integer"}}, "additionalProperties": False},
    {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]}, {"oneOf": [{"type": "null"}, {"minimum": 1}]},
    {"anyOf": [{"type": "string"}, {"maximum": 0}]}, {"allOf": [{"minimum": 0}, {"maximum": 1}]},
    {"$ref": "#/$defs/n", "maximum": 5, "$defs": {"n": {"type": "integer", "minimum": 2}}},
]
TOY_VALUES = [None, True, False, 0, 1, 2, -1, 0.5, 1.0, 2.0, "", "a", "aa", "aaa", "b", [], [0], [1, 2], [-1], [True],
              {}, {"a": "s"}, {"a": 1}, {"b": 1}, {"x_1": 1}, {"x_1": "s"}, {"a": "s", "b": 2}]


def test_the_fast_check_agrees_with_jsonschema_keyword_by_keyword():
    import jsonschema
    for s in TOY_SCHEMAS:
        for x in TOY_VALUES:
            assert schema.conforms(x, s) == jsonschema.Draft202012Validator(s).is_valid(x), (s, x)

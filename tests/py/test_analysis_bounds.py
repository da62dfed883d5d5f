"""What the analysis reads, bounded and whole (issue 42, cases 6, 12 and 14): a batch must be of a
process the file has; a gzip bomb is refused in one line with little memory; history streams its
files and keeps only each point; a recording's call count is a whole number from 1 to 2^53."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.io import schema, upgrade

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-run.json"


def analysis(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "analysis", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def golden() -> dict:
    """The golden run (2 processes) at the current schema version."""
    return upgrade.upgrade(json.loads(GOLDEN.read_text(encoding="utf-8")))


def one_line_refusal(p: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and all(w in lines[0] for w in words), lines[0]


# --- case 14: a batch of a process the file does not have ----------------------------------------

def test_a_batch_beyond_the_processes_is_refused_in_one_line(tmp_path: Path) -> None:
    """The golden run has processes 0 and 1: a batch of process 7 would be pooled as a third process
    and move the interval; the file is refused, named, and left as it was."""
    doc = golden()
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][3] = 7
    f = tmp_path / "beyond.json"
    f.write_text(json.dumps(doc))
    before = f.read_bytes()
    for command in ("summarize", "compare"):
        one_line_refusal(analysis(command, str(f)), str(f), "samples/process", "process 7",
                         "its 2 processes")
    assert f.read_bytes() == before


def test_a_one_process_file_has_process_0_only() -> None:
    """Without a processes block (a run of one process) every batch is process 0's."""
    doc = golden()
    del doc["processes"]
    doc["samples"]["process"] = [0] * doc["samples"]["count"]
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][-1] = 1
    errors = schema.validation_errors(doc)
    assert errors and errors[0].startswith("samples/process: 1 batches name process 1, not one of its one process")


def test_processes_numbered_with_a_gap_are_their_indices() -> None:
    """A processes block of indices 0 and 2 (not 0 and 1): process 2's batches are the file's, 1's
    are not."""
    doc = golden()
    doc["processes"][1]["index"] = 2
    doc["samples"]["process"] = [2 if p == 1 else p for p in doc["samples"]["process"]]
    assert schema.validation_errors(doc) == []
    bad = copy.deepcopy(doc)
    bad["samples"]["process"][0] = 1
    assert any(e.startswith("samples/process: 1 batches name process 1") for e in schema.validation_errors(bad))


# --- case 12: validating a file's long tables at once ---------------------------------------------

def long_tables(rows: int = 2000) -> dict:
    """The golden run with a size table of `rows` rows, as a fleetbench distribution's (thousands)."""
    doc = golden()
    size = doc["distribution"]["tables"]["size"]
    size["lo"], size["hi"] = list(range(rows)), list(range(rows))
    size["p"], size["rows"] = [1 / rows] * rows, rows
    return doc


def test_a_valid_long_table_is_shown_to_the_schema_by_its_prefix() -> None:
    doc = long_tables()
    assert schema.validation_errors(doc) == []
    errors, long = schema._scan(doc)
    assert errors == [] and sorted(long) == [("distribution", "tables", "size", k) for k in ("hi", "lo", "p")]
    probe = schema._probe(doc, long, [schema.load_schema(), schema.ANALYSIS_NEEDS])
    assert all(len(probe["distribution"]["tables"]["size"][k]) == 16 for k in ("lo", "hi", "p"))
    assert len(doc["distribution"]["tables"]["size"]["p"]) == 2000  # the document itself is not cut


@pytest.mark.parametrize("column,value,message", [
    ("p", 1.5, "distribution/tables/size/p/1500: 1.5 is greater than the maximum of 1"),
    ("p", -0.25, "distribution/tables/size/p/1500: -0.25 is less than the minimum of 0"),
    ("p", True, "distribution/tables/size/p/1500: True is not of type 'number'"),
    ("p", "x", "distribution/tables/size/p/1500: 'x' is not of type 'number'"),
    ("p", None, "distribution/tables/size/p/1500: None is not of type 'number'"),
    ("lo", 2 ** 70, "distribution/tables/size/lo/1500: integer out of range (more than 64 bits)"),
    ("hi", float("inf"), "distribution/tables/size/hi/1500: inf is not a finite number"),
    ("p", float("nan"), "distribution/tables/size/p/1500: nan is not a finite number"),
])
def test_an_entry_deep_in_a_long_table_is_refused_as_before(column, value, message) -> None:
    """An entry past the prefix the schema sees is still checked, with the message the validator
    gives when it sees the whole list."""
    doc = long_tables()
    doc["distribution"]["tables"]["size"][column][1500] = value
    assert schema.validation_errors(doc) == [message]


def test_a_list_the_schema_says_more_of_is_shown_whole() -> None:
    """A keyword about the whole list (here maxItems) or one not followed (here not) keeps the list
    whole for the validator: only type and bounds of its entries are checked at once."""
    values = list(range(100))
    for node in ({"type": "array", "maxItems": 50}, {"type": "array", "items": {"not": {"const": 7}}},
                 {"type": "array", "items": {"type": "integer", "multipleOf": 2}}):
        s = {"type": "object", "properties": {"a": node}}
        assert not schema._may_shorten(s, ("a",), values)
        assert list(jsonschema_errors(s, {"a": values}))  # each of them refuses this list
    assert schema._may_shorten({"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "integer", "minimum": 0, "maximum": 99}}}}, ("a",), values)
    assert not schema._may_shorten({"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "integer", "minimum": 0, "maximum": 98}}}}, ("a",), values)


def jsonschema_errors(s: dict, doc: dict) -> list:
    import jsonschema
    return list(jsonschema.Draft202012Validator(s).iter_errors(doc))

"""The golden result file (tests/data/golden-run.json, a 2-process run written by memfbench) is
what both sides read: tests/c/test_columns.c reads and rewrites its samples with the C column
table; here the analysis package validates and loads it with columns derived from the schema."""
from __future__ import annotations

import json
from pathlib import Path

from analysis.io import load, schema, upgrade

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden-run.json"
# The same run as schema version 1 wrote it (before --by-class): old files keep loading.
GOLDEN_V1 = GOLDEN.with_name("golden-run-v1.json")


def test_golden_file_validates_against_the_schema() -> None:
    doc = load.read_result(GOLDEN)
    assert doc["schema"] == "memfbench-run"


def test_python_columns_are_the_golden_files_columns() -> None:
    doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert list(schema.SAMPLE_COLUMNS) == [k for k in doc["samples"] if k != "count"]


def test_golden_file_loads_into_one_row_per_batch() -> None:
    run = load.load_run(GOLDEN)
    doc = run.doc
    n = doc["samples"]["count"]
    df = run.batches
    assert len(df) == n == 16
    assert sorted(df["process"].unique()) == [0, 1]
    assert list(df["variant"].cat.categories) == doc["config"]["variants"] == ["libc", "bytes"]
    # Every round of every process holds each variant once, at distinct positions.
    for _, g in df.groupby(["process", "round"]):
        assert sorted(g["variant"].astype(str)) == ["bytes", "libc"]
        assert sorted(g["position"]) == [0, 1]
    assert (df["ns_per_call"] > 0).all()
    assert df["warmup"].sum() == 4  # one warm-up round of 2 variants in each of 2 processes


def test_version_1_files_load_as_version_3() -> None:
    old = load.load_run(GOLDEN_V1)
    new = load.load_run(GOLDEN)
    assert old.doc["schema_version"] == 3 and old.doc["by_class"] is None
    assert (old.batches["size_class"] == 0).all()
    cols = [c for c in new.batches.columns if c != "run"]
    assert old.batches[cols].equals(new.batches[cols])


def test_version_2_code_placement_keys_take_their_version_3_names() -> None:
    """Version 3 names code placement apart from data placement (config.placement stays the data's)."""
    v2 = json.loads(GOLDEN.read_text(encoding="utf-8"))
    v2["layout"] = {"kernel_placement": 3, "placement_step": 528, "placement_design": "balanced",
                    "kernel_placements": [3, 4]}
    v2["variants"][1]["placement"], v2["variants"][1]["placements"] = 5, [5, 6]
    v2["processes"] = [{**e, "layout": {"kernel_placement": 3}, "variant_placements": [None, 5]} for e in v2["processes"]]
    up = upgrade.upgrade(v2)
    assert up["schema_version"] == 3 and up["config"]["placement"] == v2["config"]["placement"]
    assert up["layout"] == {"kernel_code_placement": 3, "code_placement_step": 528, "code_placement_design": "balanced",
                            "kernel_code_placements": [3, 4]}
    assert up["variants"][1]["code_placement"] == 5 and up["variants"][1]["code_placements"] == [5, 6]
    assert "placement" not in up["variants"][1]
    p0 = up["processes"][0]
    assert p0["layout"] == {"kernel_code_placement": 3} and p0["variant_code_placements"] == [None, 5]
    assert "variant_placements" not in p0
    schema.validate(up, "upgraded")

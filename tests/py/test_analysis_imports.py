"""What the analysis commands import, and the numpy columns that spare summarize and compare pandas.

summarize, compare and gate read a result file and give their verdicts with numpy and
scipy.special alone: no pandas (its frames are made from the columns on first use), no matplotlib,
no jsonschema (a valid file passes the fast check: test_schema.py), no scipy.stats. The report
draws with matplotlib's figures, never pyplot. Which modules a fresh interpreter holds after a
command is a structural property, not a timing: tools/bench_analysis.py measures what it saves."""
from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.io import load
from analysis.views.summary import summarize_run, summary_rows
from analysis.views.text import rows_table, table
from conftest import QUICK, ROOT

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"
HEAVY = ("pandas", "matplotlib", "matplotlib.pyplot", "jsonschema", "scipy.stats")

# A command in a fresh interpreter, its output thrown away; then the heavy modules it holds.
PROBE = """
import contextlib, io, json, sys
from analysis.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def imported(*args: str) -> tuple[int, list[str]]:
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    return out["code"], out["loaded"]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory, memfbench: str) -> Path:
    """16 processes (two blocks of code placements: the placement model, screening and the drift
    test run) with the harness's noop, so every step of a verdict is taken."""
    out = tmp_path_factory.mktemp("study") / "study.json"
    p = subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "-v", "avx2", "-v", "noop", "--processes", "16",
                        "--rounds", "8", "--warmup-rounds", "1", "-q", "--cache", "32K:512K:32M", "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return out


@pytest.mark.parametrize("command", [["summarize"], ["summarize", "--detail"], ["compare"],
                                     ["gate", "--fail-if-slower", "50", "--json"]])
def test_the_verdicts_import_no_pandas_matplotlib_or_jsonschema(study, command, tmp_path):
    for f in (study, GOLDEN):
        out = [str(tmp_path / f"{f.stem}.verdict.json")] if command[0] == "gate" else []
        code, loaded = imported(command[0], str(f), *command[1:], *out)
        assert code in (0, 1) and loaded == [], (command, f.name, loaded)


def test_a_table_that_needs_pandas_imports_it_then(study):
    """compare --detail prints the comparisons' wide table: a pandas frame, imported for it."""
    code, loaded = imported("compare", str(study), "--detail")
    assert code == 0 and loaded == ["pandas"]


def test_the_report_draws_without_pyplot(study, tmp_path):
    code, loaded = imported("report", str(study), "-o", str(tmp_path / "report"))
    assert code == 0 and "matplotlib" in loaded and "matplotlib.pyplot" not in loaded
    assert "jsonschema" not in loaded and "scipy.stats" not in loaded


def test_columns_and_frames_hold_the_same_batches(study, run):
    """Run.batches, class_batches and thread_batches (made from the numpy columns on first use) are
    the frames the loader made before the columns: each column of each row, and the frame's columns
    in its order, for a study, a file with size classes and a file of the format's first version."""
    r = run("--by-class", *QUICK)
    assert r.code == 0, r.stderr
    for path in (study, r.out, GOLDEN):
        got = load.load_run(path)
        doc = load.read_result(path)
        frame = load.batches_frame(doc, load.result_stem(path))
        whole = frame["size_class"] == 0
        for part, want in ((got.batches, frame[whole]), (got.class_batches, frame[~whole])):
            pd.testing.assert_frame_equal(part, want.reset_index(drop=True))
        assert got.thread_batches.empty
        assert list(got.batches.columns[:6]) == ["run", "host", "process", "function", "distribution", "variant"]
        for name in got.batches.columns:
            if name not in load.TEXT_COLUMNS:
                assert np.array_equal(np.asarray(got.table[name]), got.batches[name].to_numpy()), name
        assert got.table.present() == set(got.batches["variant"].unique())


def test_the_summary_rows_are_the_summary_frame(study):
    run = load.load_run(study)
    rows = summary_rows(run, 1000, 7)
    frame = summarize_run(run, 1000, 7)
    pd.testing.assert_frame_equal(pd.DataFrame(rows), frame)
    assert list(frame["variant"]) == ["libc", "avx2", "noop"] and math.isnan(frame["net_ns_per_call"].iloc[2])


def random_rows(rng: random.Random) -> list[dict]:
    """Rows of the kinds summarize prints: names, counts and floats (NaN, infinities, signs, every
    magnitude), some names longer than their column's title."""
    names = ["libc", "avx2", "rep_movsb", "x", "a_rather_long_variant_name@1a2b3c", "ünïcode", "erms"]
    floats = [0.0, -0.0, 1.5, -2.25, 1e-9, 123456789.0, float("nan"), float("inf"), -float("inf"), 17.71]
    rows = []
    for _ in range(rng.randint(1, 6)):
        rows.append({"variant": rng.choice(names), "n": rng.choice([0, 7, 6963, 10 ** 12, -3]),
                     "median_ns_per_call": rng.choice(floats) * rng.choice([1, 1e3, 1e-3]),
                     "x": rng.choice(floats), "np": np.float64(rng.choice(floats)), "k": np.int64(rng.randint(-5, 99))})
    return rows


def test_rows_table_is_what_pandas_prints():
    """summarize's table without pandas: the same text as table() of the rows' frame, for rows of
    text, integers and floats; rows of any other kind (None, mixed kinds) go through pandas."""
    rng = random.Random(53)
    for _ in range(300):
        rows = random_rows(rng)
        assert rows_table(rows) == table(pd.DataFrame(rows)), rows
    for rows in ([{"a": 1, "b": None}, {"a": 2, "b": 1.5}], [{"a": 1}, {"a": 2.5}], [{"a": "x\ty"}],
                 [{"a": True}], [{"a": 1}, {"b": 2}]):
        assert rows_table(rows) == table(pd.DataFrame(rows)), rows

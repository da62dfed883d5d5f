"""Plugins, the regression gate, exports to Google Benchmark JSON and CSV, and the meson
benchmark suite."""
from __future__ import annotations

import copy
import csv
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from analysis.io import load, schema
from tools import gbench_agreement
from analysis_runner import analysis
from conftest import QUICK
from whole_processes import synthetic_study


def plugin(name: str) -> str:
    p = os.environ.get(name)
    if not p:
        pytest.skip(f"{name} not set (run under meson test)")
    return p


# --- plugins -------------------------------------------------------------------------------------

def test_good_plugin_is_verified_and_timed(run):
    so = plugin("MEMFBENCH_EXAMPLE_PLUGIN")
    r = run("-v", "libc", "-v", f"{so}:erms_memcpy=erms", *QUICK)
    assert r.code == 0, r.stderr
    v = r.doc["variants"][1]
    assert v["name"] == "erms" and v["origin"] == "plugin" and v["verified_calls"] >= 1
    assert v["object"].endswith("libmemcpy_erms.so") and v["symbol"] == "erms_memcpy"


@pytest.mark.parametrize("spec,fragments", [
    ("/nonexistent/libx.so:f", ["/nonexistent/libx.so", "no such file"]),
    ("{example}:no_such_symbol", ["exports no symbol 'no_such_symbol'"]),
    ("{example}:", ["no symbol after ':'"]),
    ("{example}:erms_memcpy=", ["empty name"]),
    ("{notlib}:f", ["cannot load"]),
])
def test_plugin_errors(run, tmp_path, spec, fragments):
    notlib = tmp_path / "notlib.so"
    notlib.write_text("not an ELF file")
    spec = spec.format(example=plugin("MEMFBENCH_EXAMPLE_PLUGIN"), notlib=notlib)
    r = run("-v", "libc", "-v", spec, *QUICK)
    assert r.code == 2 and not r.out.exists()
    lines = r.stderr_lines
    assert len(lines) == 1 and all(f in lines[0] for f in fragments), lines


def test_wrong_plugin_is_rejected_before_timing(run):
    so = plugin("MEMFBENCH_WRONG_PLUGIN")
    r = run("-v", "libc", "-v", f"{so}:dropping_memcpy", *QUICK)
    assert r.code == 1 and not r.out.exists()
    assert "variant 'dropping_memcpy' of memcpy gives a wrong result" in r.stderr


# --- regression gate on synthetic results --------------------------------------------------------

def synthetic(template: dict, ratio: float, sigma: float, rounds: int, seed: int, processes: int = 8) -> dict:
    """A valid result document with two variants whose paired per-round times have a known ratio,
    its rounds dealt over `processes` processes, each with its own small layout effect (sd 0.2 %)."""
    d = copy.deepcopy(template)
    d["variants"] = d["variants"][:2]
    d["variants"][1] = {**d["variants"][1], "index": 1}
    d["config"]["variants"] = [v["name"] for v in d["variants"]]
    d["config"]["baseline"] = d["variants"][0]["name"]
    rng = np.random.default_rng(seed)
    cols: dict[str, list] = {k: [] for k in schema.SAMPLE_COLUMNS}
    nspt = d["timer"]["ns_per_tick"]
    t = 0
    layout = np.exp(rng.normal(0, 0.002, processes))
    for r in range(rounds):
        proc, rnd = r % processes, r // processes
        work = rng.lognormal(0, 0.2) * 20000
        for pos, v in enumerate((0, 1) if rnd % 2 == 0 else (1, 0)):
            effect = ratio * layout[proc] if v == 1 else 1.0
            ticks = int(work * effect * np.exp(rng.normal(0, sigma)) / nspt)
            row = {"variant": v, "round": rnd, "position": pos, "calls": 1000, "bytes": 135000, "ticks": ticks,
                   "ns": round(ticks * nspt, 3), "t_start_ns": t, "cpu": 1, "warmup": False, "process": proc,
                   "size_class": 0}
            for k in schema.SAMPLE_COLUMNS:  # a column the schema adds and this row lacks fails here
                cols[k].append(row[k])
            t += 30000
    d["samples"] = {"count": len(cols["variant"]), **cols}
    d["rounds"] = {**d["rounds"], "count": rounds, "warmup": 0, "measured": rounds}
    return synthetic_study(d)


@pytest.fixture(scope="module")
def template(tmp_path_factory, memfbench) -> dict:
    p = tmp_path_factory.mktemp("tpl") / "t.json"
    subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "-v", "sizeclass", *QUICK, "-o", str(p)],
                   check=True)
    return json.loads(p.read_text())


@pytest.mark.parametrize("case,ratio,sigma,rounds,code,status", [
    ("clearly-slower", 1.10, 0.01, 200, 1, "regression"),
    ("slower-below-threshold", 1.02, 0.005, 400, 0, "slower-within-threshold"),
    ("equivalent", 1.0, 0.005, 400, 0, "equivalent"),
    ("inconclusive", 1.04, 0.25, 12, 0, "inconclusive"),
    ("faster", 0.9, 0.01, 200, 0, "faster"),
])
def test_gate_exit_codes(template, tmp_path, case, ratio, sigma, rounds, code, status):
    f = tmp_path / f"{case}.json"
    f.write_text(json.dumps(synthetic(template, ratio, sigma, rounds, seed=1)))
    p = analysis("gate", str(f), "--fail-if-slower", "5", "--resamples", "1000")
    assert p.returncode == code, p.stdout + p.stderr
    verdict = json.loads((tmp_path / f"{case}.verdict.json").read_text())
    assert verdict["schema"] == "memfbench-gate" and verdict["failed"] == (code == 1)
    assert verdict["comparisons"][0]["gate"] == status
    assert verdict["fail_if_slower_percent"] == 5


def test_gate_bad_input(tmp_path):
    f = tmp_path / "x.json"
    f.write_text("[]")
    p = analysis("gate", str(f), "--fail-if-slower", "5")
    assert p.returncode == 2 and str(f) in p.stderr
    assert not (tmp_path / "x.verdict.json").exists()


# --- exports --------------------------------------------------------------------------------------

CONTEXT_KEYS = {"date": str, "host_name": str, "executable": str, "num_cpus": int, "mhz_per_cpu": int,
                "cpu_scaling_enabled": bool, "caches": list, "load_avg": list, "library_build_type": str,
                "json_schema_version": int}
ITERATION_KEYS = {"name": str, "family_index": int, "per_family_instance_index": int, "run_name": str,
                  "run_type": str, "repetitions": int, "repetition_index": int, "threads": int, "iterations": int,
                  "real_time": float, "cpu_time": float, "time_unit": str}
AGGREGATE_KEYS = {k: t for k, t in ITERATION_KEYS.items() if k != "repetition_index"} | {
    "aggregate_name": str, "aggregate_unit": str}


def test_gbench_export_has_one_repetition_per_process(template, tmp_path):
    doc = synthetic(template, 1.05, 0.01, 160, seed=4, processes=8)
    src, out = tmp_path / "run.json", tmp_path / "gb.json"
    src.write_text(json.dumps(doc))
    p = analysis("export", str(src), "--format", "gbench", "-o", str(out))
    assert p.returncode == 0, p.stderr
    s = doc["samples"]
    for vi, v in enumerate(doc["variants"]):
        rows = [b for b in json.loads(out.read_text())["benchmarks"]
                if b["run_name"].endswith("/" + v["name"]) and b["run_type"] == "iteration"]
        assert len(rows) == 8 and all(b["repetitions"] == 8 for b in rows)
        for proc, b in enumerate(rows):
            mine = [s["ns"][i] / s["calls"][i] for i in range(s["count"]) if s["variant"][i] == vi and s["process"][i] == proc]
            assert b["real_time"] == pytest.approx(float(np.median(mine)), rel=1e-12) and f"process {proc}," in b["label"]


@pytest.mark.skipif(not gbench_agreement.COMPARE_PY.exists(),
                    reason="Debian's libbenchmark-tools (compare.py) is not installed: ./bootstrap.sh test installs it")
@pytest.mark.parametrize("after_ratio,verdict", [(1.10, "slower"), (0.92, "faster"), (1.0, "no difference")])
def test_compare_py_on_two_exports_reaches_the_verdict_of_diff(template, tmp_path, after_ratio, verdict):
    """Upstream compare.py on the exports of two files of known answer: its U test on the
    per-baseline family (each process's paired ratio to the baseline) calls what diff --normalize
    calls on the files, faster, slower or no change, with the change's sign and about its size."""
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(synthetic(template, 1.0, 0.01, 400, seed=1)))
    after.write_text(json.dumps(synthetic(template, after_ratio, 0.01, 400, seed=2)))
    rows = gbench_agreement.agreement(str(before), str(after), normalize="libc", between=0.0)
    assert [r.variant for r in rows] == ["sizeclass"]
    r = rows[0]
    assert gbench_agreement.agrees(r.diff, r.words(r.per_base)), (r.diff, r.per_base)
    assert r.words(r.per_base) == verdict and r.per_base[0] == pytest.approx(after_ratio - 1, abs=0.01)


def test_gbench_export_has_google_benchmark_fields(template, tmp_path):
    src = tmp_path / "run.json"
    src.write_text(json.dumps(template))
    out = tmp_path / "gb.json"
    p = analysis("export", str(src), "--format", "gbench", "-o", str(out))
    assert p.returncode == 0, p.stderr
    gb = json.loads(out.read_text())
    assert set(gb) == {"context", "benchmarks"}
    for k, t in CONTEXT_KEYS.items():
        assert isinstance(gb["context"][k], t), k
    for c in gb["context"]["caches"]:
        assert set(c) == {"type", "level", "size", "num_sharing"}
    assert gb["context"]["json_schema_version"] == 1
    s = template["samples"]
    for vi, v in enumerate(template["variants"]):
        name = f"memcpy/fixed:64/{v['name']}"
        rows = [b for b in gb["benchmarks"] if b["run_name"] == name and b["run_type"] == "iteration"]
        aggs = {b["aggregate_name"]: b for b in gb["benchmarks"] if b["run_name"] == name and b["run_type"] == "aggregate"}
        assert rows and set(aggs) == {"mean", "median", "stddev", "cv"}
        for b in rows:
            for k, t in ITERATION_KEYS.items():
                assert isinstance(b[k], t), (k, b[k])
            assert b["time_unit"] == "ns" and b["repetitions"] == len(rows) and b["threads"] == 1
        for b in aggs.values():
            for k, t in AGGREGATE_KEYS.items():
                assert isinstance(b[k], t), (k, b[k])
        assert [b["repetition_index"] for b in rows] == list(range(len(rows)))
        measured = [i for i in range(s["count"]) if s["variant"][i] == vi and not s["warmup"][i]]
        assert sum(b["iterations"] for b in rows) == sum(s["calls"][i] for i in measured)
        # one process: blocks of consecutive rounds, each the median of its batches' ns per call
        per_call = [s["ns"][i] / s["calls"][i] for i in measured]
        blocks = np.array_split(np.array(per_call), len(rows))
        assert [b["real_time"] for b in rows] == pytest.approx([float(np.median(x)) for x in blocks], rel=1e-12)
        assert aggs["median"]["real_time"] == pytest.approx(float(np.median([b["real_time"] for b in rows])))


def test_csv_export(template, tmp_path):
    src = tmp_path / "run.json"
    src.write_text(json.dumps(template))
    out = tmp_path / "s.csv"
    assert analysis("export", str(src), "--format", "csv", "-o", str(out)).returncode == 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == template["samples"]["count"]
    assert {load.FRAME_NAMES.get(c, c) for c in schema.SAMPLE_COLUMNS} <= set(rows[0])
    assert {r["variant"] for r in rows} == {v["name"] for v in template["variants"]}


def test_the_csv_export_read_by_pandas_gives_the_verdicts_ratio(template, tmp_path):
    """The CSV of every batch, read with pandas as a user would: per process, the median over its
    measured rounds of ln(time / the baseline's time in the same round), their mean over processes,
    exponentiated, is the ratio compare prints (issue 54: an export that agrees with us)."""
    import pandas as pd
    from analysis.verdicts.compare import compare_runs
    doc = synthetic(template, 1.07, 0.02, 240, seed=5, processes=8)
    src, out = tmp_path / "run.json", tmp_path / "s.csv"
    src.write_text(json.dumps(doc))
    assert analysis("export", str(src), "--format", "csv", "-o", str(out)).returncode == 0
    df = pd.read_csv(out)
    df = df[~df["warmup"].astype(bool)]
    t = df.assign(per_call=df["ns"] / df["calls"]).pivot_table(index=["process", "round"], columns="variant",
                                                                 values="per_call")
    base, variant = doc["variants"][0]["name"], doc["variants"][1]["name"]
    per_process = np.log(t[variant] / t[base]).groupby(level="process").median()
    mine = float(np.exp(per_process.mean()))
    c = next(x for x in compare_runs([load.load_run(src)], base) if x.variant == variant)
    assert mine == pytest.approx(c.ratio, rel=1e-9) and mine == pytest.approx(1.07, rel=0.01)


# --- meson benchmark suite ------------------------------------------------------------------------

def test_meson_benchmark_suite_lists_and_runs():
    build = os.environ.get("MEMFBENCH_BUILD")
    if not build:
        pytest.skip("MEMFBENCH_BUILD not set (run under meson test)")
    p = subprocess.run(["meson", "test", "-C", build, "--benchmark", "--list"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    for name in ("memcpy-fleet-auto", "memcpy-spec2017-l1", "memset-fleet-dram", "bcmp-fleet-auto",
                 "gate-memcpy-aa", "quick-memcpy"):
        assert name in p.stdout
    p = subprocess.run(["meson", "test", "-C", build, "--benchmark", "--suite", "quick", "--no-rebuild",
                        "--logbase", "benchlog-from-tests",
                        "--print-errorlogs"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    out = Path(build) / "bench-results" / "quick-memcpy.json"
    doc = json.loads(out.read_text())
    assert doc["config"]["variants"] == ["libc", "sizeclass"]

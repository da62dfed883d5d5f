"""Several timing threads (`memfbench run --threads N`) in the analysis, on synthetic files built
from the golden run with known per-thread medians and a known slowdown: the loader keeps thread
0's batches timed together as the file's batches, the per-thread table and the aggregate
throughput come out as built, the interference and the ratio to the baseline alone and together
recover their known values, and the command line prints them or refuses an unthreaded file in
one line."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.io import load, schema, upgrade
from analysis.stats.intervals import sign_test_ci, t_interval
from analysis.stats.threads import (background, background_line, interference, interval_method, is_threaded,
                                    thread0_rounds, thread_summary, threads_config, threads_line, topology_frame)
from analysis.verdicts.compare import compare_runs, paired_rounds
from analysis.verdicts.diff import diff_runs
from conftest import ROOT
from analysis_runner import analysis
from whole_processes import synthetic_study

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"
CALLS = 1000
SIZE = 64  # the golden run's distribution: fixed:64
# Thread 0 alone, and each thread's median with every thread running: libc 25 % slower together,
# bytes 10 %, so bytes / libc is 12 % lower together (1.10 / 1.25).
ALONE = {"libc": 3.2, "bytes": 30.0, "noop": 1.0}
TOGETHER = {"libc": [4.0, 5.0, 6.0], "bytes": [33.0, 40.0, 50.0], "noop": [1.2, 1.5, 1.6]}
TOPOLOGY = [  # threads 0 and 1 on one core (SMT), thread 2 on another
    {"thread": 0, "cpu": 0, "core": 0, "package": 0, "siblings": "0,4", "shares_core_with": [1]},
    {"thread": 1, "cpu": 4, "core": 0, "package": 0, "siblings": "0,4", "shares_core_with": [0]},
    {"thread": 2, "cpu": 1, "core": 1, "package": 0, "siblings": "1,5", "shares_core_with": []},
]
BACKGROUND = {"stressor": "bandwidth", "cpus": [2, 3], "buffer_bytes": 256 << 20, "seconds": 1.5,
              "bytes_per_ns": 12.5, "loops": 40}


def spread(r: int) -> float:
    """The round's own factor, the same for every batch of the round (its calls): over 10 rounds
    each of 0.98 ... 1.02 twice, so the median over a process's measured rounds is exactly 1."""
    return 1 + 0.01 * ((r % 5) - 2)


def threaded_doc(rounds: int = 10, processes: int = 2, noise: float = 0.0, seed: int = 1,
                 alone_batches: bool = True) -> dict:
    """The golden run remade as a 3-thread run of libc, bytes and noop: per process a warm-up round
    (100x slower, so any statistic that kept it would show) and `rounds` measured ones; in each
    round, per variant, thread 0's alone batch, then every thread's batch timed together. Each
    batch takes its median x the round's factor x exp(noise x a normal draw)."""
    d = upgrade.upgrade(json.loads(GOLDEN.read_text(encoding="utf-8")))
    libc, byt = d["variants"]
    noop = {**libc, "index": 2, "name": "noop", "origin": "harness", "noop": True, "symbol": "mfb_noop",
            "description": "returns at once: the harness's own cost per call"}
    d["variants"] = [libc, byt, noop]
    names = [v["name"] for v in d["variants"]]
    d["config"]["variants"] = names
    d["config"]["threads"] = {"count": 3, "cpus": [t["cpu"] for t in TOPOLOGY], "start": "batch",
                              "alone_batches": alone_batches, "topology": copy.deepcopy(TOPOLOGY)}
    d["config"]["background"] = dict(BACKGROUND)
    rng = np.random.default_rng(seed)
    nspt = d["timer"]["ns_per_tick"]
    cols: dict[str, list] = {k: [] for k in (*schema.SAMPLE_COLUMNS, "thread", "alone")}
    for p in range(processes):
        t_ns = 0
        for r in range(rounds + 1):
            order = range(3) if r % 2 == 0 else range(2, -1, -1)
            for pos, vi in enumerate(order):
                v = names[vi]
                batches = ([(0, True, ALONE[v])] if alone_batches else []) + \
                          [(t, False, TOGETHER[v][t]) for t in range(3)]
                for thread, alone, median in batches:
                    per_call = median * (100 if r == 0 else spread(r)) * float(np.exp(noise * rng.normal()))
                    ns = round(per_call * CALLS, 3)
                    row = {"variant": vi, "round": r, "position": pos, "calls": CALLS, "bytes": SIZE * CALLS,
                           "ticks": int(round(ns / nspt)), "ns": ns, "t_start_ns": t_ns,
                           "cpu": TOPOLOGY[thread]["cpu"], "warmup": r == 0, "process": p, "size_class": 0,
                           "thread": thread, "alone": alone}
                    for k in cols:  # a column the schema requires and this row lacks fails here
                        cols[k].append(row[k])
                    t_ns += int(ns) + 1000
    d["samples"] = {"count": len(cols["variant"]), **cols}
    return synthetic_study(d)


def write(path: Path, doc: dict) -> str:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.fixture
def threaded(tmp_path) -> load.Run:
    return load.load_run(write(tmp_path / "threads.json", threaded_doc()))


def test_a_threaded_file_validates_and_loads_its_columns(tmp_path):
    doc = threaded_doc()
    assert schema.OPTIONAL_KINDS["thread"] == "uint" and schema.OPTIONAL_KINDS["alone"] == "bool"
    assert schema.validation_errors(doc) == []
    cols = load.sample_arrays(doc["samples"])
    assert cols["thread"].dtype == np.int64 and cols["alone"].dtype == np.bool_
    bad = copy.deepcopy(doc)
    bad["samples"]["thread"][5] = 3  # config/threads has 3 threads: 0, 1, 2
    errors = schema.validation_errors(bad)
    assert any(e.startswith("samples/thread: an index is not below the 3 threads") for e in errors), errors


def test_batches_are_thread_0_timed_together_and_thread_batches_are_all(threaded):
    n = threaded.doc["samples"]["count"]
    rounds = 2 * 11  # 2 processes x (1 warm-up + 10 measured rounds)
    assert n == rounds * 3 * 4  # 3 variants x (1 alone + 3 together)
    b, tb = threaded.batches, threaded.thread_batches
    assert len(tb) == n and tb["alone"].sum() == rounds * 3 and sorted(tb["thread"].unique()) == [0, 1, 2]
    assert len(b) == rounds * 3 and (b["thread"] == 0).all() and not b["alone"].any()
    # one batch per (process, round, variant), as in a one-thread file: nothing pairs an alone
    # batch with a together batch, or thread 0 with another thread
    assert not b.duplicated(["process", "round", "variant"]).any()
    assert len(paired_rounds(b, "bytes", "libc")) == 20
    assert threaded.class_batches.empty
    m = load.measured(b)
    assert np.allclose(m.groupby("variant", observed=True)["ns_per_call"].median().to_dict()["libc"], 4.0)
    comps = compare_runs([threaded], allow_single_process=True)
    assert [c.variant for c in comps] == ["bytes"] and comps[0].rounds == 20
    assert comps[0].ratio == pytest.approx(33.0 / 4.0)  # thread 0's ratio together, not alone


def test_split_keeps_class_batches_of_thread_0_timed_together():
    df = pd.DataFrame({"size_class": [0, 0, 0, 1, 1, 1], "thread": [0, 0, 1, 0, 0, 1],
                       "alone": [False, True, False, False, True, False], "x": range(6)})
    batches, classes, every = load.split_batches(df)
    assert list(batches["x"]) == [0] and list(classes["x"]) == [3] and list(every["x"]) == [0, 1, 2]
    plain = df.drop(columns=["thread", "alone"])
    batches, classes, every = load.split_batches(plain)
    assert list(batches["x"]) == [0, 1, 2] and list(classes["x"]) == [3, 4, 5] and every.empty


def test_files_before_threads_load_as_before_and_count_one_thread():
    run = load.load_run(GOLDEN)
    assert run.thread_batches.empty and "thread" not in run.batches.columns
    assert threads_config(run)["count"] == 1 and threads_config(run)["cpus"] == [run.doc["host"]["pinned_cpu"]]
    assert not is_threaded(run) and background(run) is None
    s = thread_summary(run, resamples=1000)
    assert list(s["thread"]) == ["0", "all"] * 2
    with pytest.raises(ValueError, match="not a threaded run"):
        interference(run)


def test_config_and_topology(threaded):
    assert is_threaded(threaded) and threads_config(threaded)["cpus"] == [0, 4, 1]
    assert background(threaded) == BACKGROUND
    topo = topology_frame(threaded)
    assert list(topo["cpu"]) == [0, 4, 1] and list(topo["smt"]) == [True, True, False]
    assert list(topo["shares_core_with"]) == ["1", "0", "-"] and list(topo["core"]) == [0, 0, 1]
    line = threads_line(threaded)
    assert "3 timing threads on CPUs 0, 4, 1" in line and "threads 0+1 share a core" in line
    assert "thread 0's batches timed with all 3 running" in line
    assert background_line(threaded) == ("- background: bandwidth stressor (memcpy over 256 MiB), copying "
                                         "12.5 bytes/ns on CPUs 2, 3 for 1.5 s (40 loops)")


def test_thread_summary_gives_each_thread_its_median_and_sums_throughput(threaded):
    s = thread_summary(threaded, resamples=1000)
    assert list(s["variant"]) == ["libc"] * 4 + ["bytes"] * 4 + ["noop"] * 4
    assert list(s["thread"]) == ["0", "1", "2", "all"] * 3
    for v, medians in TOGETHER.items():
        rows = s[s["variant"] == v].set_index("thread")
        for t, med in enumerate(medians):
            r = rows.loc[str(t)]
            assert r["batches"] == 20  # measured rounds only, alone batches out
            assert r["median_ns_per_call"] == pytest.approx(med)
            assert r["ci_low"] <= med <= r["ci_high"] and r["ci_high"] <= med * 1.02
            assert r["bytes_per_ns"] == pytest.approx(SIZE / med)
        assert list(rows.loc[["0", "1", "2"], "cpu"]) == [0, 4, 1]
        assert list(rows.loc[["0", "1", "2"], "smt"]) == [True, True, False]
        agg = rows.loc["all"]
        assert agg["batches"] == 60 and agg["median_ns_per_call"] == pytest.approx(sorted(medians)[1])
        assert agg["bytes_per_ns"] == pytest.approx(sum(SIZE / m for m in medians))
        assert agg["cpu"] is pd.NA and agg["smt"] is pd.NA


def test_interference_recovers_a_known_slowdown(tmp_path):
    run = load.load_run(write(tmp_path / "noisy.json", threaded_doc(rounds=40, noise=0.02, seed=7)))
    df = interference(run).set_index("variant")
    for v, expected in (("libc", 25.0), ("bytes", 10.0), ("noop", 20.0)):
        r = df.loc[v]
        assert r["rounds"] == 80
        assert r["slowdown_low"] <= expected <= r["slowdown_high"], (v, r.to_dict())
        assert abs(r["slowdown_pct"] - expected) < 2 and r["slowdown_high"] - r["slowdown_low"] < 6
        assert r["alone_ns_per_call"] == pytest.approx(ALONE[v], rel=0.03)
        assert r["together_ns_per_call"] == pytest.approx(TOGETHER[v][0], rel=0.03)


def test_ratio_to_the_baseline_alone_and_together(tmp_path):
    run = load.load_run(write(tmp_path / "noisy.json", threaded_doc(rounds=40, noise=0.02, seed=3)))
    df = interference(run).set_index("variant")
    b = df.loc["bytes"]
    assert b["baseline"] == "libc"
    for col, truth in (("ratio_alone", 30.0 / 3.2), ("ratio_together", 33.0 / 4.0)):
        assert b[f"{col}_low"] <= truth <= b[f"{col}_high"] and b[col] == pytest.approx(truth, rel=0.02)
    assert b["change_low"] <= -12.0 <= b["change_high"] and b["change_high"] < 0  # the comparison moves
    for v in ("libc", "noop"):  # the baseline and the harness are not compared
        assert np.isnan(df.loc[v, ["ratio_alone", "ratio_together", "change_pct"]].to_numpy(dtype=float)).all()
    exact = interference(load.load_run(write(tmp_path / "exact.json", threaded_doc()))).set_index("variant")
    # without noise every round's ratio is the built one: the estimate and both ends
    assert exact.loc["libc", ["slowdown_pct", "slowdown_low", "slowdown_high"]].to_numpy(dtype=float) == \
        pytest.approx([25.0] * 3)
    assert exact.loc["bytes", "change_pct"] == pytest.approx(-12.0)


def test_no_alone_batches_is_a_clear_error(tmp_path):
    run = load.load_run(write(tmp_path / "t.json", threaded_doc(alone_batches=False)))
    assert is_threaded(run) and len(run.batches) == 2 * 11 * 3
    with pytest.raises(ValueError, match="timed no batch alone"):
        interference(run)


def test_csv_export_keeps_every_thread(threaded):
    from io import StringIO

    from analysis.io.export import csv_text
    df = pd.read_csv(StringIO(csv_text(threaded)))
    assert len(df) == threaded.doc["samples"]["count"] and sorted(df["thread"].unique()) == [0, 1, 2]
    assert df["alone"].sum() == 2 * 11 * 3
    assert list(pd.read_csv(StringIO(csv_text(load.load_run(GOLDEN))))["ns"]) == \
        list(load.load_run(GOLDEN).batches["ns"])


def test_threads_command(tmp_path):
    f = write(tmp_path / "threads.json", threaded_doc(rounds=20, noise=0.01))
    png = tmp_path / "threads.png"
    p = analysis("threads", f, "--plot", str(png))
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert f"== threads: memcpy on fixed:64 ({f})" in out
    assert "3 timing threads on CPUs 0, 4, 1" in out and "bandwidth stressor" in out
    topo = [x.split() for x in out.splitlines() if x.split()[:2] in (["0", "0"], ["1", "4"], ["2", "1"])]
    assert [x[-2:] for x in topo[:3]] == [["True", "1"], ["True", "0"], ["False", "-"]], out
    assert "slowdown_pct" in out and "ratio_together" in out and "change_pct" in out
    libc = next(x.split() for x in out.splitlines() if x.split()[:2] == ["libc", "40"])
    assert 23 < float(libc[4]) < 27  # slowdown_pct of libc: 25 % built in
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_threads_command_refuses_an_unthreaded_file_in_one_line(tmp_path):
    f = write(tmp_path / "threads.json", threaded_doc())
    p = analysis("threads", f, str(GOLDEN))
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", p.stderr
    assert lines[0].startswith("analysis: ") and str(GOLDEN) in lines[0] and "not a threaded run" in lines[0]
    p = analysis("threads", f, f, "--plot", str(tmp_path / "x.png"))
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1


def test_summarize_and_report_show_the_threads(tmp_path):
    f = write(tmp_path / "threads.json", threaded_doc(rounds=20, noise=0.01))
    p = analysis("summarize", f, "--allow-single-process", "--resamples", "1000", "--report", str(tmp_path / "rep"))
    assert p.returncode == 0, p.stderr
    assert "- threads: 3 timing threads" in p.stdout and "interference" in p.stdout
    assert "- background: bandwidth stressor" in p.stdout
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert "### Threads" in md and "| variant | rounds | alone ns per call" in md
    assert "![threads](" in md


def test_interference_intervals_are_over_processes_when_there_are_several(tmp_path):
    one = load.load_run(write(tmp_path / "one.json", threaded_doc(rounds=30, processes=1, noise=0.02, seed=5)))
    four = load.load_run(write(tmp_path / "four.json", threaded_doc(rounds=30, processes=4, noise=0.02, seed=5)))
    assert "one process" in interval_method(one) and "4 processes" in interval_method(four)
    # one process: the exact sign-test interval of its rounds' log ratios
    w = thread0_rounds(one)
    d = np.log(w[("libc", False)] / w[("libc", True)]).to_numpy()
    ci = sign_test_ci(d, 0.95)
    row = interference(one).set_index("variant").loc["libc"]
    assert row["slowdown_low"] == pytest.approx(100 * (np.exp(ci.low) - 1))
    assert row["slowdown_high"] == pytest.approx(100 * (np.exp(ci.high) - 1))
    # several: a t interval over the processes' medians
    w = thread0_rounds(four)
    per = np.log(w[("libc", False)] / w[("libc", True)]).groupby(level="process").median().to_numpy()
    ci = t_interval(per, 0.95)
    row = interference(four).set_index("variant").loc["libc"]
    assert row["slowdown_pct"] == pytest.approx(100 * (np.exp(ci.estimate) - 1))
    assert row["slowdown_low"] == pytest.approx(100 * (np.exp(ci.low) - 1))


def test_runs_beside_other_threads_are_never_pooled_with_runs_without(tmp_path):
    plain = load.load_run(GOLDEN)
    threaded_run = load.load_run(write(tmp_path / "threads.json", threaded_doc()))
    assert plain.neighbours == "" and \
        threaded_run.neighbours == "3 threads (SMT siblings among them), background bandwidth on 2 CPUs"
    comps = compare_runs([plain, threaded_run])
    assert sorted(c.neighbours for c in comps if c.variant == "bytes") == ["", threaded_run.neighbours]
    with pytest.raises(ValueError, match="mix what thread 0 ran beside"):
        diff_runs([plain, threaded_run], [plain])


def test_threads_command_against_a_one_thread_run(tmp_path):
    f = write(tmp_path / "threads.json", threaded_doc(rounds=20, noise=0.01))
    p = analysis("threads", f, "--one-thread", str(GOLDEN))
    assert p.returncode == 0, p.stderr
    assert "against the one-thread run" in p.stdout
    # each variant on both sides gets diff's line; the threaded file's libc takes 4.0 ns per call
    lines = [x for x in p.stdout.splitlines() if x.startswith("- libc:") or x.startswith("- bytes:")]
    assert len(lines) == 2 and all("after/before" in x for x in lines)
    # a one-thread file must be one: a threaded file there is refused in one line
    g = write(tmp_path / "threads2.json", threaded_doc(rounds=20, noise=0.01, seed=2))
    p = analysis("threads", f, "--one-thread", g)
    assert p.returncode != 0 and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert "not a one-thread run" in p.stderr


def test_gbench_export_names_the_threads_and_the_stressor(threaded):
    from analysis.io.export import to_gbench
    doc = to_gbench(threaded)
    names = {b["name"] for b in doc["benchmarks"] if b["run_type"] == "iteration"}
    assert all("/threads:3/background:bandwidth" in n for n in names)
    assert {b["threads"] for b in doc["benchmarks"]} == {3}


def test_diff_sees_no_difference_between_an_old_file_and_one_thread(tmp_path):
    from analysis.verdicts.diff import context_differences
    old = load.load_run(GOLDEN)
    new_doc = json.loads(GOLDEN.read_text(encoding="utf-8"))
    new_doc["config"]["threads"] = {"count": 1, "cpus": [1], "start": "batch", "alone_batches": False,
                                    "topology": [{"thread": 0, "cpu": 1, "core": 1, "package": 0, "siblings": "1",
                                                  "shares_core_with": []}]}
    new = load.load_run(write(tmp_path / "new.json", new_doc))
    assert not any(d.startswith("timing threads") for d in context_differences([old], [new]))

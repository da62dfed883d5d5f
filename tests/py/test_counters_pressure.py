"""Hardware counters (--counters) and instruction-cache pressure (--icache-pressure): counting is
off unless asked; asked on a machine without a PMU, one note and a run without counter columns; the fake source fills the columns
through the same path (and the merge of --processes), and the analysis gives back its IPC; a
pressure run records its block's size and cost, runs of different pressure are never pooled, and
the analysis tabulates and plots ratio against pressure size; bad values are one line."""
from __future__ import annotations


import pytest

from analysis.io import schema
from analysis.io.load import load_run
from analysis.views.counters import counter_summary, has_counters
from analysis_runner import analysis
from conftest import QUICK

COUNTERS = ("cycles", "instructions", "branch_misses", "l1d_misses")


def test_counters_are_off_unless_asked(run):
    r = run(*QUICK)
    assert r.code == 0, r.stderr
    c = r.doc["config"]["counters"]
    assert c == {"requested": "off", "source": "none", "events": [], "why": None}
    assert not any(w["code"] == "counters" for w in r.doc["status"]["warnings"])
    assert not any(k in r.doc["samples"] for k in COUNTERS)


def test_counters_auto_counts_or_says_once_why_not(run):
    r = run(*QUICK, "--counters", "auto")
    assert r.code == 0, r.stderr
    d = r.doc
    c = d["config"]["counters"]
    assert c["requested"] == "auto" and schema.validation_errors(d) == []
    notes = [w for w in d["status"]["warnings"] if w["code"] == "counters_absent"]
    if c["source"] == "perf_event_open":
        assert not notes and "cycles" in c["events"] and "cycles" in d["samples"]
        assert min(d["samples"]["cycles"]) >= 0
    else:
        assert c["source"] == "none" and c["why"] and len(notes) == 1 and notes[0]["severity"] == "note"
        assert not any(k in d["samples"] for k in COUNTERS)
        assert "counters" not in r.stderr  # a note: in the file, not printed


def test_counters_on_without_a_pmu_warns_and_goes_on(run):
    r = run(*[a for a in QUICK if a != "-q"], "--counters", "on")
    assert r.code == 0, r.stderr
    if r.doc["config"]["counters"]["source"] == "none":
        assert sum("--counters on: no hardware counters" in x for x in r.stderr_lines) == 1
        assert [w["severity"] for w in r.doc["status"]["warnings"] if w["code"] == "counters"] == ["warning"]


def test_fake_counters_fill_the_columns_and_the_analysis_reads_them(run, tmp_path):
    r = run(*QUICK[:-3], "--processes", "2", "-q", "--counters", "fake")  # the merge of two processes too
    assert r.code == 0, r.stderr
    d = r.doc
    assert d["config"]["counters"]["source"] == "fake" and d["config"]["counters"]["events"] == list(COUNTERS)
    assert schema.validation_errors(d) == []
    n = d["samples"]["count"]
    for k in COUNTERS:
        assert len(d["samples"][k]) == n and min(d["samples"][k]) >= 0
    assert set(d["samples"]["process"]) == {0, 1}
    loaded = load_run(r.out)
    assert has_counters(loaded)
    s = counter_summary(loaded)
    # the fake source retires 2 instructions per cycle: the analysis must give back exactly that
    assert (abs(s["ipc"] - 2.0) < 1e-3).all(), s
    assert (s["cycles_per_call"] > 0).all()
    p = analysis("summarize", str(r.out), "--allow-single-process", timeout=120)
    assert p.returncode == 0, p.stderr
    assert "hardware counters (fake)" in p.stdout


def test_bad_counters_mode_is_one_line(run):
    r = run(*QUICK, "--counters", "always")
    assert r.code == 2 and len(r.stderr_lines) == 1 and "--counters: 'always' is not" in r.stderr
    assert not r.out.exists()


def test_pressure_run_records_its_block(run):
    r = run(*QUICK, "-v", "libc", "-v", "rep_movsb", "--icache-pressure", "16K")
    assert r.code == 0, r.stderr
    ip = r.doc["config"]["icache_pressure"]
    assert ip["bytes"] == 16384 and ip["taken_branches"] == 256 and ip["ns_per_run"] > 0
    assert "after every call" in ip["where"] and schema.validation_errors(r.doc) == []
    assert run(*QUICK, out="plain.json").doc["config"]["icache_pressure"] is None


# 2M: over the 1 MiB bound (64M, once allowed, made a default study run for hours)
@pytest.mark.parametrize("value", ["100", "0", "32", "128M", "2M", "64M", "x"])
def test_bad_pressure_sizes_are_one_line(run, value):
    r = run(*QUICK, "--icache-pressure", value)
    assert r.code == 2 and len(r.stderr_lines) == 1 and "--icache-pressure" in r.stderr, r.stderr
    assert not r.out.exists()


def test_pressure_analysis_and_no_pooling_across_sizes(run, tmp_path):
    a = run(*QUICK, "-v", "libc", "-v", "rep_movsb", out="p0.json")
    b = run(*QUICK, "-v", "libc", "-v", "rep_movsb", "--icache-pressure", "64K", out="p64.json")
    assert a.code == 0 and b.code == 0
    p = analysis("pressure", str(a.out), str(b.out), "--plot", str(tmp_path / "pr"), timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [x.split() for x in p.stdout.splitlines() if x.split()[:1] in (["0"], ["65536"])]
    assert {(x[0], x[1]) for x in rows} == {("0", "rep_movsb"), ("65536", "rep_movsb")}
    assert (tmp_path / "pr.png").read_bytes()[:4] == b"\x89PNG"
    from analysis.verdicts.compare import compare_runs
    ra, rb = load_run(a.out), load_run(b.out)
    comps = compare_runs([ra, rb], allow_single_process=True)
    pooled = [c for c in comps if c.variant == "rep_movsb"]
    assert sorted(c.icache_pressure for c in pooled) == [0, 65536]  # one per pressure size, not pooled
    from analysis.views.text import verdict_line
    assert any("[icache pressure 65536 B]" in verdict_line(c) for c in pooled)
    from analysis.verdicts.diff import context_differences, diff_runs
    with pytest.raises(ValueError, match="mix --icache-pressure sizes"):
        diff_runs([ra, rb], [ra])
    assert any(x.startswith("icache pressure") for x in context_differences([ra], [rb]))

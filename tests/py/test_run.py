"""End-to-end runs of the memfbench binary: output structure, schema, the study design
(rounds, balanced order, warm-up flags, one batch size), seeds, interrupts, every function."""
from __future__ import annotations

import json
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from analysis.io import schema
from conftest import AA_OF_LIBC, GEOMETRY, QUICK, SANITIZED, a_process_finished, kept_processes, wait_until


def test_default_memcpy_study_structure(run):
    r = run(*QUICK)
    assert r.code == 0, r.stderr
    d = r.doc
    assert schema.validation_errors(d) == []
    names = [v["name"] for v in d["variants"]]
    # Defaults: libc first (the baseline), the built-ins, and the noop overhead probe.
    assert names[0] == "libc" and "bytes" in names and "sizeclass" in names and names[-1] == "noop"
    assert d["config"]["distribution"] == "fleetbench/Memcpy_Fleet"
    s = d["samples"]
    k = len(names)
    # --rounds counts measured rounds; the 2 warm-up rounds come on top
    assert s["count"] == 10 * k
    assert d["rounds"]["count"] == 10 and d["rounds"]["measured"] == 8 and d["rounds"]["warmup"] == 2
    assert d["status"]["stop_reason"] == "rounds" and d["rounds"]["warmup_detail"]["mode"] == "fixed"
    for rnd in range(10):
        rows = [i for i in range(s["count"]) if s["round"][i] == rnd]
        # every variant once per round, positions a permutation
        assert sorted(s["variant"][i] for i in rows) == list(range(k))
        assert sorted(s["position"][i] for i in rows) == list(range(k))
        assert all(s["warmup"][i] == (rnd < 2) for i in rows)
    # balanced order: in each pair of rounds the second is the first reversed
    for rnd in range(0, 10, 2):
        a = [s["variant"][i] for i in range(s["count"]) if s["round"][i] == rnd]
        b = [s["variant"][i] for i in range(s["count"]) if s["round"][i] == rnd + 1]
        assert b == a[::-1]
    calls = d["batch"]["calls_per_pass"] * d["batch"]["passes"]
    assert set(s["calls"]) == {calls}
    # same parameters for every variant of a round: same bytes
    for rnd in range(10):
        assert len({s["bytes"][i] for i in range(s["count"]) if s["round"][i] == rnd}) == 1
    assert set(s["process"]) == {0}
    assert d["harness"]["overhead_ns_per_call"] > 0
    assert all(v["linearity"] > 0 for v in d["variants"]) and d["batch"]["single_call"] is False
    assert all(t > 0 for t in s["ticks"])
    ns_per_tick = d["timer"]["ns_per_tick"]
    assert all(abs(ns - t * ns_per_tick) <= 1e-3 + 1e-9 * ns for ns, t in zip(s["ns"], s["ticks"]))
    assert s["t_start_ns"] == sorted(s["t_start_ns"])
    assert all(v["verified_calls"] >= 1 for v in d["variants"])
    assert d["distribution"]["selfcheck"]["passed"] is True
    assert len(d["seeds"]["master"]) > 0 and d["seeds"]["source"].startswith("fresh")
    assert d["host"]["caches"]["l1d"] > 0
    assert d["timer"]["overhead_ns"] > 0


def test_same_seed_same_calls(run):
    a = run(*QUICK, "--seed", "1234", out="a.json")
    b = run(*QUICK, "--seed", "1234", out="b.json")
    c = run(*QUICK, "--seed", "1235", out="c.json")
    assert a.code == b.code == c.code == 0

    def per_pass(doc):  # the pass count comes from timing calibration; the calls from the seed
        return [x // doc["batch"]["passes"] for x in doc["samples"]["bytes"]]

    assert per_pass(a.doc) == per_pass(b.doc)
    assert a.doc["samples"]["variant"] == b.doc["samples"]["variant"]
    assert a.doc["seeds"] == b.doc["seeds"] and a.doc["seeds"]["source"] == "given"
    assert per_pass(a.doc) != per_pass(c.doc)


@pytest.mark.parametrize("func", ["memmove", "memset", "memcmp", "bcmp"])
def test_every_function_runs_on_its_fleet_distribution(run, func):
    r = run("-f", func, *QUICK)
    assert r.code == 0, r.stderr
    d = r.doc
    assert schema.validation_errors(d) == []
    assert d["config"]["function"] == func
    assert d["config"]["distribution"].lower() == f"fleetbench/{func}_fleet"
    if func in ("memcmp", "bcmp"):
        assert d["distribution"]["tables"]["mismatch"]["origin"] == "default"
    if func == "memmove":
        assert d["distribution"]["tables"]["overlap"] is not None


@pytest.mark.parametrize("spec,lo,hi", [("fixed:64", 64, 64), ("uniform:0-300", 0, 300), ("pow2:1-4096", 1, 4096)])
def test_synthetic_distributions(run, spec, lo, hi):
    r = run("-d", spec, "-v", "libc", "-v", "sizeclass", *QUICK)
    assert r.code == 0, r.stderr
    t = r.doc["distribution"]["tables"]["size"]
    assert min(t["lo"]) == lo and max(t["hi"]) == hi and r.doc["distribution"]["format"] == "synthetic"


@pytest.mark.parametrize("placement", ["l1", "l2", "llc", "dram"])
def test_forced_placements(run, placement):
    r = run("-d", "uniform:1-1024", "-p", placement, "-v", "libc", *QUICK)
    assert r.code == 0, r.stderr
    w = r.doc["workset"]
    assert w["placement"] == placement
    assert (w["small_window"] is None) == (placement != "l1")


def test_placement_that_cannot_hold_the_distribution_is_refused(run):
    r = run("-p", "l1", *QUICK)
    assert r.code == 1 and not r.out.exists()
    assert "placement l1" in r.stderr and "261126" in r.stderr


def test_stdout_output(memfbench):
    p = subprocess.run([memfbench, "run", "-d", "fixed:8", "-v", "libc", *QUICK, "-o", "-"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    assert schema.validation_errors(json.loads(p.stdout)) == []


def test_summary_on_stderr(run):
    r = run("-d", "fixed:32", "--rounds", "8", "--warmup-rounds", "2", "--processes", "1")
    assert r.code == 0
    assert "ns/call" in r.stderr and "ratio" in r.stderr
    for name in ("libc", "bytes", "noop"):
        assert any(line.strip().startswith(name) for line in r.stderr.splitlines())


def test_interrupt_writes_a_complete_file(memfbench, tmp_path: Path):
    out = tmp_path / "int.json"
    # the geometry given: this machine's LLC could make the set-up outlast the wait
    p = subprocess.Popen([memfbench, "run", "-t", "60", "-q", *GEOMETRY, "-o", str(out)], stderr=subprocess.PIPE,
                         text=True)
    # the premise, an event: one process has finished, so the file will hold measured batches
    wait_until(lambda: a_process_finished(tmp_path, out.name) or p.poll() is not None, "a process of the run to finish")
    assert p.poll() is None, p.communicate()[1]
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    d = json.loads(out.read_text())
    assert schema.validation_errors(d) == []
    assert d["status"] == {**d["status"], "complete": False, "stop_reason": "interrupted"}
    # the rounds of every process that ran (a merged file's rounds block is its first process's)
    rounds = sum(p["rounds"]["count"] for p in d["processes"]) if d.get("processes") else d["rounds"]["count"]
    assert d["samples"]["count"] == rounds * len(d["variants"]) > 0
    assert [f.name for f in tmp_path.iterdir()] == ["int.json"]


def test_variant_selection_and_order(run):
    r = run("-v", "sizeclass", "-v", "libc", *QUICK)
    assert r.code == 0
    assert r.doc["config"]["variants"] == ["sizeclass", "libc"] and r.doc["config"]["baseline"] == "sizeclass"
    assert Counter(r.doc["samples"]["variant"]) == {0: 10, 1: 10}  # 2 warm-up + 8 measured rounds


def test_list(memfbench):
    p = subprocess.run([memfbench, "list"], capture_output=True, text=True)
    assert p.returncode == 0
    for word in ("memcpy", "memmove", "memset", "memcmp", "bcmp", "rep_movsb", "fleetbench/Memcpy_Fleet",
                 "spec2017/memcpy", "fixed:N"):
        assert word in p.stdout


def test_warmup_detected_by_default(run):
    r = run("-d", "fixed:64", "-v", "libc", "-v", "sizeclass", "--rounds", "20", "--processes", "1", "-q")
    assert r.code == 0, r.stderr
    d = r.doc
    w = d["rounds"]["warmup"]
    assert d["config"]["warmup_rounds"] is None and d["rounds"]["warmup_detail"]["mode"] == "detected"
    assert w >= 10 and d["rounds"]["measured"] == 20 and d["rounds"]["count"] == w + 20
    s = d["samples"]
    assert all(s["warmup"][i] == (s["round"][i] < w) for i in range(s["count"]))
    detail = d["rounds"]["warmup_detail"]
    if detail["settled"]:
        assert abs(detail["last_change"]) <= 0.01


def test_target_ci_stops_when_reached(run):
    # a short fixed size in L1 and a loose target: what is tested is the rule (the harness's noop is
    # not a compared variant; the analysis computes the same interval), not how long it takes
    r = run("-d", "fixed:64", "-p", "l1", "-v", "libc", "-v", "sizeclass", "-v", "noop", "--processes", "2",
            "--target-ci", "20", "-t", "10", "-q")
    assert r.code == 0, r.stderr
    st = r.doc["status"]
    assert st["stop_reason"] in ("target_ci", "time")
    tc = st["target_ci"]
    assert tc["percent"] == 20 and set(tc["half_widths"]) == {"sizeclass"}
    if st["stop_reason"] == "target_ci":
        assert tc["reached"] and tc["half_widths"]["sizeclass"] <= 0.2
        # the analysis computes the same interval from the samples
        from analysis.io import load
        from analysis.verdicts import compare
        import tempfile, json as _json
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            _json.dump(r.doc, f)
        c = compare.compare_runs([load.load_run(f.name)])[0]
        assert max(c.ci_high / c.ratio - 1, 1 - c.ci_low / c.ratio) <= 0.2 + 1e-9


def test_processes_are_merged(run, tmp_path):
    r = run("-d", "fixed:128", "-v", "libc", "-v", "sizeclass", "--processes", "3", "--rounds", "12",
            "--warmup-rounds", "2", "-q")
    assert r.code == 0, r.stderr
    d = r.doc
    assert schema.validation_errors(d) == []
    s = d["samples"]
    assert sorted(set(s["process"])) == [0, 1, 2] and s["count"] == 3 * 14 * 2
    assert d["config"]["processes"] == 3 and len(kept_processes(d)) == 3
    seeds = {p["seeds"]["master"] for p in d["processes"]}
    assert len(seeds) == 3
    assert [f.name for f in tmp_path.iterdir()] == ["out.json"]  # children's files removed


def test_aa_copies_are_identical_code_elsewhere(run):
    pairs = [("sizeclass-copy", "sizeclass")] + ([("libc-copy", "libc")] if AA_OF_LIBC == "libc-copy" else [])
    r = run(*[a for p in pairs for a in ("-v", p[1], "-v", p[0])], *QUICK)
    assert r.code == 0, r.stderr
    v = {x["name"]: x for x in r.doc["variants"]}
    for copy, orig in pairs:
        # instrumented code calls the sanitizer runtime position-relatively: copies then differ
        assert v[copy]["copy_of"]["variant"] == orig and (v[copy]["copy_of"]["identical"] is True or SANITIZED)
        assert v[copy]["address"] != v[orig]["address"]
    assert v["sizeclass-copy"]["copy_of"]["bytes_compared"] == v["sizeclass"]["code_size"]
    # copies are not in the default set
    d = run(*QUICK, out="default.json").doc
    assert not any(x["origin"] in ("copy", "validation") for x in d["variants"])


def test_memcmp_store_forwarding_probes_exist(run, memfbench):
    import subprocess
    listing = subprocess.run([memfbench, "list"], capture_output=True, text=True).stdout
    for func in ("memcmp", "bcmp"):
        section = listing.split(f"  {func} (")[1].split("\n  ")[0:20]
        text = "\n".join(section)
        # each probe listed with its origin (the columns are as wide as the longest name)
        assert re.search(r"^ +load1 +probe ", text, re.M) and re.search(r"^ +load32 +probe ", text, re.M), text
    r = run("-f", "memcmp", "-d", "probe/FlipFirst", "-v", "load1", "-v", "load32", *QUICK)
    assert r.code == 0, r.stderr
    v = {x["name"]: x for x in r.doc["variants"]}
    assert v["load1"]["origin"] == v["load32"]["origin"] == "probe"
    assert r.doc["config"]["flip_lead"] == 4
    assert r.doc["distribution"]["name"] == "probe/FlipFirst"
    # probes are timed only when named
    d = run("-f", "memcmp", *QUICK, out="default.json").doc
    assert not any(x["origin"] == "probe" for x in d["variants"])


def test_flip_lead_and_small_max_are_recorded(run):
    d = run("-f", "bcmp", "--flip-lead", "0", *QUICK).doc
    assert d["config"]["flip_lead"] == 0
    d = run(*QUICK, *GEOMETRY, out="copy.json").doc
    assert d["config"]["flip_lead"] is None  # memcpy stores nothing into its buffers before a call
    assert d["config"]["small_max"] is None
    assert d["workset"]["small_max_source"] == "default" and d["workset"]["small_window"]["max_call_size"] == 2048
    d = run("--small-max", "1K", *QUICK, *GEOMETRY, out="small.json").doc
    assert d["config"]["small_max"] == 1024
    assert d["workset"]["small_max_source"] == "user" and d["workset"]["small_window"]["max_call_size"] == 1024


def test_small_max_on_this_machines_own_caches(run):
    """The same without --cache: from a 32 KiB L1d up the default 2 KiB limit holds; below, the
    largest that fits, said so in the file."""
    d = run(*QUICK, out="own.json", own_caches=True).doc
    l1d, ws = d["host"]["caches"]["l1d"], d["workset"]
    limit = ws["small_window"]["max_call_size"]
    if l1d >= 32 * 1024:
        assert ws["small_max_source"] == "default" and limit == 2048, (l1d, ws)
    else:
        assert ws["small_max_source"] in ("default", "reduced") and 256 <= limit <= ws["small_fits_bytes"]


def test_notes_stay_in_the_file_and_warnings_are_printed(run):
    """fleet memcpy's table asks for overlap, which memcpy forbids: a note (nothing to act on), in
    the file with its severity and never on stderr."""
    r = run("-v", "libc", "--rounds", "8", "--warmup-rounds", "2", "--processes", "1")
    assert r.code == 0, r.stderr
    warns = r.doc["status"]["warnings"]
    assert {"code": "overlap", "severity": "note"}.items() <= next(w for w in warns if w["code"] == "overlap").items()
    assert all(w["severity"] in ("warning", "note") for w in warns)
    assert "overlapping calls" not in r.stderr
    printed = [w for w in warns if w["severity"] == "warning"]
    assert all(w["message"] in r.stderr for w in printed)

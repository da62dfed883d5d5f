"""memfbench probe: a quick probe completes and its file validates against the probe schema; the
configuration it used is echoed; huge pages are reported as had, never as asked; bandwidth runs
on the threads asked; Ctrl-C keeps a valid partial file; bad input is one line and no file; the
analysis reads the file (tables, plots, CSV), sets a sweep against it, and `run --cache-from`
takes its caches. (The chains' every-line-once property is tests/c/test_probe.c.)"""
from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from analysis.io import probe_file
from analysis.views import probe as pr
from analysis_runner import analysis
from conftest import QUICK

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def probe_run(memfbench: str, out: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "probe", "--quick", *args, "-o", str(out)], capture_output=True, text=True,
                          timeout=timeout)


def free_huge_pages() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("HugePages_Free:"):
            return int(line.split()[1])
    return 0


@pytest.fixture(scope="module")
def quick(memfbench, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("probe") / "probe.json"
    p = probe_run(memfbench, out, "--seed", "7")
    assert p.returncode == 0, p.stderr
    assert "levels found" in p.stderr and "bandwidth, GB/s" in p.stderr
    return out, json.loads(out.read_text())


def test_quick_probe_validates_and_echoes_what_it_used(quick):
    path, d = quick
    assert probe_file.probe_errors(d) == []
    assert probe_file.read_probe(path)["schema"] == "memfbench-probe"
    cfg = d["config"]
    assert cfg["quick"] and cfg["seed"] == "7" and cfg["repeats"] == 5 and cfg["steps_per_octave"] == 2
    assert cfg["max_size_source"].startswith("--quick") and cfg["cpus"] == [cfg["cpu"]]
    assert d["status"]["complete"] and d["timer"]["name"]
    curves = {(c["pattern"], c["pages"]) for c in d["latency"]["curves"]}
    assert {("random", "4k"), ("stride1", "4k"), ("stride2", "4k")} <= curves
    for c in d["latency"]["curves"]:
        sizes = [p["size"] for p in c["points"]]
        assert sizes[0] == cfg["min_size"] and sizes[-1] <= cfg["max_size"] and sizes == sorted(set(sizes))
        assert all(len(p["ns"]) == cfg["repeats"] for p in c["points"])
        assert all(s % d["host"]["caches"]["line"] == 0 for s in sizes)
    kernels = {c["kernel"] for c in d["bandwidth"]["curves"]}
    assert {"read", "write", "copy"} <= kernels
    assert d["bandwidth"]["threads"] == 1 and d["bandwidth"]["vector"] in ("scalar64", "sse2", "avx2", "avx512")
    for c in d["bandwidth"]["curves"]:
        assert all(p["bytes"] > 0 and len(p["gbps"]) == cfg["repeats"] for p in c["points"])
    # levels: plateaus ascend; every boundary lies between its two bracketing sizes
    lv = d["latency"]["levels"]
    assert lv is not None and len(lv["plateaus"]) == len(lv["boundaries"]) + 1
    assert [p["ns"] for p in lv["plateaus"]] == sorted(p["ns"] for p in lv["plateaus"])
    for b in lv["boundaries"]:
        assert b["below"] <= b["estimate"] <= b["above"]
    # a --quick probe stops before the LLC's edge: it finds no LLC, so --cache-from refuses it
    assert d["caches_found"] is None or d["caches_found"]["l1d"] < d["caches_found"]["l2"] <= d["caches_found"]["llc"]


def test_quick_probe_cross_checks_each_level(quick):
    """Each level against the reported size: L1d and L2 are within the curves, the LLC of any
    machine this runs on is beyond a --quick probe (at most 32 MiB; 4x the L2 here), so nothing is
    found for --cache-from. Which verdict L1d and L2 get depends on this machine, not checked."""
    _, d = quick
    xc = d["cross_check"]
    caches = d["host"]["caches"]
    assert d["schema_version"] == 2 and xc["tolerance"] == 0.15 and xc["reference_source"] == caches["source"]
    assert [x["level"] for x in xc["levels"]] == ["L1d", "L2", "LLC"]
    for x, key in zip(xc["levels"], ("l1d", "l2", "llc")):
        assert x["reference"] == caches[key] and x["why"]
        assert set(x["contradicted_by"]) == {k for k, c in (("latency", x["latency"]), ("read bandwidth",
                                                                                         x["bandwidth"]))
                                             if c and c["contradicts"]}
        if x["verdict"] == "agrees":
            assert x["kept_from"] in ("latency", "read bandwidth")
            step = x["latency" if x["kept_from"] == "latency" else "bandwidth"]["step"]
            assert x["kept"] == round(step) and abs(step / x["reference"] - 1) <= 0.15
        elif x["verdict"] in ("reference kept", "not reached"):
            assert x["kept"] == x["reference"] and x["kept_from"] == caches["source"]
    llc = xc["levels"][2]
    if caches["llc"] * 1.15 > d["config"]["max_size"]:
        assert llc["verdict"] == "not reached" and d["caches_found"] is None and not xc["usable"]


def test_progress_is_one_line_per_stage_off_a_terminal(memfbench, tmp_path):
    """stderr is a pipe here: one line per stage (core clock, each curve, the levels), none with -q."""
    out = tmp_path / "s.json"
    p = probe_run(memfbench, out, "--latency", "--huge", "off", "--max-size", "256K")
    assert p.returncode == 0, p.stderr
    stages = [x for x in p.stderr.splitlines() if x.startswith("probe: [")]
    assert "\r" not in p.stderr
    assert [x.split("] ", 1)[1].split(" ", 1)[1].split(":")[0] for x in stages] == [
        "core clock and host", "latency random/4k", "latency stride1/4k", "latency stride2/4k",
        "levels, cross-check, file"]
    assert all(f"] {i + 1}/{len(stages)} " in x for i, x in enumerate(stages))
    p = probe_run(memfbench, out, "--latency", "--huge", "off", "--max-size", "256K", "-q")
    assert p.returncode == 0 and p.stderr == "", p.stderr


def test_version_1_probe_files_stay_valid(quick):
    """A file written before the cross-check (schema_version 1: no cross_check, caches_found with
    l1d_l2_from) still validates; a version 2 file must have its cross_check."""
    _, d = quick
    old = copy.deepcopy(d)
    old["schema_version"] = 1
    del old["cross_check"]
    old["caches_found"] = {"l1d": 46336, "l2": 1482880, "llc": 96573440, "line": 64, "l1d_l2_from": "latency",
                           "llc_from": "read bandwidth"}
    assert probe_file.probe_errors(old) == []
    new = copy.deepcopy(d)
    del new["cross_check"]
    assert any("cross_check" in e for e in probe_file.probe_errors(new))
    new = with_caches(d, 46336, 1 << 20, 32 << 20)
    new["caches_found"].update({"l1d_from": "latency", "l2_from": "sysconf", "llc_from": "read bandwidth"})
    del new["caches_found"]["l1d_l2_from"]
    assert probe_file.probe_errors(new) == []


def test_huge_pages_are_reported_as_had(memfbench, tmp_path):
    out = tmp_path / "h.json"
    p = probe_run(memfbench, out, "--latency", "--huge", "hugetlb", "--max-size", "8M")
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    pages = d["pages"]
    need = 4  # 8 MiB of 2 MiB pages
    if free_huge_pages() >= need:
        assert pages["huge"] == "hugetlb" and pages["why"] is None
        c = next(c for c in d["latency"]["curves"] if c["pages"] == "hugetlb")
        assert all(pt["huge_fraction"] == 1 for pt in c["points"])
    else:
        assert pages["huge"] == "4k" and "reserved huge pages free" in pages["why"]
        assert all(c["pages"] == "4k" for c in d["latency"]["curves"])
        assert any(w["code"] == "huge_pages" for w in d["status"]["warnings"])
        assert "--huge hugetlb" in p.stderr
    out2 = tmp_path / "t.json"
    p = probe_run(memfbench, out2, "--latency", "--huge", "thp", "--max-size", "8M")
    assert p.returncode == 0, p.stderr
    d = json.loads(out2.read_text())
    thp_on = THP.exists() and "[never]" not in THP.read_text()
    assert d["pages"]["huge"] == ("thp" if thp_on else "4k")
    for c in d["latency"]["curves"]:
        fractions = [pt["huge_fraction"] for pt in c["points"]]
        assert all(0 <= f <= 1 for f in fractions)
        if c["pages"] == "4k":
            assert max(fractions) == 0  # MADV_NOHUGEPAGE: base pages only, as smaps says
    out3 = tmp_path / "o.json"
    assert probe_run(memfbench, out3, "--latency", "--huge", "off", "--max-size", "64K").returncode == 0
    assert {c["pages"] for c in json.loads(out3.read_text())["latency"]["curves"]} == {"4k"}


@pytest.mark.all_cpus
def test_bandwidth_threads_run_on_the_cpus_listed(memfbench, tmp_path):
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("one CPU allowed")
    out = tmp_path / "bw.json"
    p = probe_run(memfbench, out, "--bandwidth", "--cpus", f"{cpus[0]},{cpus[1]}", "--max-size", "1M")
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    assert d["latency"] is None and d["config"]["threads"] == 2 and d["config"]["cpus"] == cpus[:2]
    assert d["bandwidth"]["threads"] == 2 and probe_file.probe_errors(d) == []
    for c in d["bandwidth"]["curves"]:
        assert all(p["size"] % (2 * 512) == 0 for p in c["points"])  # two threads, each whole copy steps


def test_interrupt_keeps_a_valid_partial_file(memfbench, tmp_path):
    out = tmp_path / "i.json"
    proc = subprocess.Popen([memfbench, "probe", "--latency", "--max-size", "256M", "--repeats", "3", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    d = json.loads(out.read_text())
    assert not d["status"]["complete"] and d["status"]["stop_reason"] == "interrupted"
    assert probe_file.probe_errors(d) == [] and "interrupted" in err


@pytest.mark.parametrize("args,fragment,code", [
    (["--repeats", "0"], "--repeats: '0' is not a whole number from 1 to 32", 2),
    (["--repeats", "33"], "from 1 to 32", 2),
    (["--huge", "always"], "--huge: 'always' is not auto, off, thp or hugetlb", 2),
    (["--max-size", "1K"], "--max-size: '1K' is not a size from 4K to 256G", 2),
    (["--max-size", "512G"], "--max-size: '512G' is not a size from 4K to 256G", 2),
    (["--cpus", "1,4000"], "--cpus: CPU 4000 does not exist on this machine", 2),
    (["--min-size", "8M", "--max-size", "4M"], "--max-size is below --min-size", 2),
    (["--steps", "17"], "--steps: '17'", 2),
    (["--cpu", "1000"], "--cpu: CPU 1000 does not exist on this machine", 2),
    (["--cpus", "0-1000"], "--cpus: more than 256 CPUs", 2),
    (["--cpus", "1,1000"], "--cpus: CPU 1000 does not exist on this machine", 2),
    (["--cpus", "3-1"], "--cpus: '3-1' is not a CPU list", 2),
    (["--threads", "3", "--cpus", "0"], "--threads 3 but --cpus lists 1 CPU ", 2),
    (["--cpus", "0,0"], "--cpus: CPU 0 is listed twice", 2),
    (["--threads", "0"], "--threads: '0'", 2),
    (["--bogus"], "unknown option '--bogus'", 2),
    (["extra"], "unexpected argument 'extra'", 2),
])
@pytest.mark.all_cpus  # "--cpus 1,4000" is refused for CPU 4000, which needs CPU 1 allowed
def test_bad_probe_arguments_are_one_line(memfbench, tmp_path, args, fragment, code):
    out = tmp_path / "x.json"
    p = subprocess.run([memfbench, "probe", "--quick", *args, "-o", str(out)], capture_output=True, text=True,
                       timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == code and len(lines) == 1 and fragment in lines[0], p.stderr
    assert not out.exists()


def test_a_max_size_beyond_free_memory_is_refused_before_anything_runs(memfbench, tmp_path):
    out = tmp_path / "m.json"
    p = subprocess.run([memfbench, "probe", "--max-size", "256G", "-o", str(out)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1 and "more than the" in p.stderr and "MemAvailable" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and not out.exists()


def test_probe_needs_an_output_that_can_be_written(memfbench, tmp_path):
    p = subprocess.run([memfbench, "probe", "--quick"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "-o FILE is required" in p.stderr
    p = probe_run(memfbench, tmp_path / "no" / "such" / "p.json")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "/no/such does not exist" in p.stderr


def test_analysis_reads_plots_and_exports_a_probe(quick, tmp_path):
    path, d = quick
    p = analysis("probe", str(path), "--plot", str(tmp_path / "p"), "--csv", str(tmp_path / "p"), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "cache levels found" in p.stdout and "bandwidth, GB/s" in p.stdout and "L1d" in p.stdout
    for name in ("p_latency.png", "p_bandwidth.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
    lat = (tmp_path / "p_latency.csv").read_text().splitlines()
    assert len(lat) == 1 + sum(len(c["points"]) for c in d["latency"]["curves"])
    # a damaged file is one line naming it
    bad = tmp_path / "bad.json"
    broken = copy.deepcopy(d)
    broken["latency"]["curves"][0]["points"][0]["ns_median"] = -1
    bad.write_text(json.dumps(broken))
    p = analysis("probe", str(bad), timeout=60)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1 and str(bad) in p.stderr
    assert "Traceback" not in p.stderr


def test_reference_interpolates_in_log_size():
    import numpy as np
    sizes, vals = np.array([1024, 4096]), np.array([10.0, 30.0])
    assert pr.interpolate(sizes, vals, 2048) == (20.0, True)
    assert pr.interpolate(sizes, vals, 1 << 20) == (30.0, False)  # beyond: the last point's value, flagged
    assert pr.interpolate(sizes, vals, 512) == (10.0, False)


def with_caches(d: dict, l1d: int, l2: int, llc: int) -> dict:
    d = copy.deepcopy(d)
    d["caches_found"] = {"l1d": l1d, "l2": l2, "llc": llc, "line": 64, "l1d_l2_from": "latency",
                         "llc_from": "latency"}
    return d


def test_run_cache_from_takes_the_probes_caches(quick, run, tmp_path):
    _, d = quick
    f = tmp_path / "found.json"
    f.write_text(json.dumps(with_caches(d, 40 << 10, 1 << 20, 12 << 20)))
    r = run(*QUICK, "--cache-from", str(f))
    assert r.code == 0, r.stderr
    caches = r.doc["host"]["caches"]
    assert (caches["l1d"], caches["l2"], caches["llc"]) == (40 << 10, 1 << 20, 12 << 20)
    assert caches["source"] == "probe (--cache-from)" and r.doc["config"]["cache_from"] == str(f)


@pytest.mark.parametrize("edit,fragment", [
    (lambda d: None, "caches_found is null"),
    (lambda d: {**d, "schema": "memfbench-run"}, "not a memfbench probe file"),
    (lambda d: with_caches(d, 2 << 20, 1 << 20, 12 << 20), "l1d < l2 <= llc does not hold"),
    (lambda d: {**with_caches(d, 40 << 10, 1 << 20, 12 << 20), "caches_found": {"l1d": "big"}},
     "caches_found.l1d: not a whole number"),
    # a line size that is not one (it sizes the placement's strides) is refused, not replaced by 64
    (lambda d: {**with_caches(d, 40 << 10, 1 << 20, 12 << 20)} | {"caches_found": {
        **with_caches(d, 40 << 10, 1 << 20, 12 << 20)["caches_found"], "line": 0}}, "caches_found.line: not a power"),
    (lambda d: {**with_caches(d, 40 << 10, 1 << 20, 12 << 20)} | {"caches_found": {
        **with_caches(d, 40 << 10, 1 << 20, 12 << 20)["caches_found"], "line": 96}}, "caches_found.line: not a power"),
])
def test_bad_probe_files_for_cache_from_are_one_line(quick, run, tmp_path, edit, fragment):
    _, d = quick
    doc = copy.deepcopy(d)
    doc["caches_found"] = None
    doc = edit(doc) or doc
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc))
    r = run(*QUICK, "--cache-from", str(f))
    assert r.code == 2 and len(r.stderr_lines) == 1 and fragment in r.stderr and str(f) in r.stderr, r.stderr
    assert not r.out.exists()


def test_cache_from_refuses_junk_and_clashes(run, tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text("not json")
    r = run(*QUICK, "--cache-from", str(junk))
    assert r.code == 2 and "not JSON" in r.stderr and not r.out.exists()
    r = run(*QUICK, "--cache-from", str(tmp_path / "missing.json"))
    assert r.code == 2 and "cannot open" in r.stderr
    r = run(*QUICK, "--cache-from", str(junk), "--cache", "48K:2M:32M")
    assert r.code == 2 and "give one" in r.stderr


def test_cache_from_a_fifo_reads_its_writer_and_gives_up_on_none(quick, run, tmp_path):
    """A FIFO is how a compressed probe file arrives through <(zcat ...): it is read when a writer
    comes, and one no program writes to is refused after a few seconds instead of hanging."""
    _, d = quick
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    text = json.dumps(with_caches(d, 40 << 10, 1 << 20, 12 << 20)).encode()
    writer = subprocess.Popen(["sh", "-c", 'sleep 0.3; cat > "$1"', "sh", str(fifo)], stdin=subprocess.PIPE)
    writer.stdin.write(text)
    writer.stdin.close()
    r = run(*QUICK, "--cache-from", str(fifo))
    writer.wait(timeout=30)
    assert r.code == 0 and r.doc["host"]["caches"]["l1d"] == 40 << 10, r.stderr
    started = time.monotonic()
    r = run(*QUICK, "--cache-from", str(fifo), out="refused.json", timeout=30)
    assert r.code == 2 and len(r.stderr_lines) == 1 and "a FIFO nothing wrote to" in r.stderr, r.stderr
    assert time.monotonic() - started < 20 and not r.out.exists()


def test_sweep_against_the_probe(memfbench, quick, tmp_path):
    _, d = quick
    sw = tmp_path / "sw.json"
    p = subprocess.run([memfbench, "sweep", "64,4K,64K", "--rounds", "4", "--warmup-rounds", "1", "-q",
                        "--processes", "1", "--allow-single-process", "-v", "libc", "-v", "rep_movsb", "-o", str(sw)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    pf = tmp_path / "probe.json"
    pf.write_text(json.dumps(d))
    p = analysis("sweep", str(sw), "--probe", str(pf), "--plot", str(tmp_path / "s"), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "against the memory system" in p.stdout and "of the measured" in p.stdout
    # the fraction printed is the point's bytes/ns over the reference printed beside it
    from analysis.io.load import load_run
    from analysis.verdicts.sweep import sweep_points
    run = load_run(sw)
    roof = pr.roofline(sweep_points(run), run.doc, "memcpy", d)
    assert (abs(roof["fraction"] - roof["bytes_per_ns"] / roof["reference_gbps"]) < 1e-12).all()
    assert set(roof["reference_kernel"]) <= {"copy", "copy_nt", "rep_movsb"}
    big = roof[roof["size"] == 65536].iloc[0]
    assert big["window"].startswith("large window")  # 64 KiB calls are placed beyond the LLC
    # flushed before every batch, they read memory: the reference is the probe's largest footprint
    # (on a large LLC, one the size of the 64 MiB window would be the LLC's bandwidth)
    assert run.doc["workset"]["large_window"]["scheme"] == "evicted" and big["footprint"] == float("inf")
    at_largest = [max(c["points"], key=lambda pt: pt["size"])["gbps_median"] for c in d["bandwidth"]["curves"]
                  if c["kernel"] in pr.REFERENCE_KERNELS["memcpy"][0] and c["points"]]
    assert big["reference_gbps"] == max(at_largest)
    # a probe without the function's bandwidth, or measured on several threads, cannot be the roofline
    for edit, fragment in ((lambda x: {**x, "bandwidth": None}, "no bandwidth curve"),
                           (lambda x: {**x, "bandwidth": {**x["bandwidth"], "threads": 2}}, "2 threads together")):
        bad = tmp_path / "badprobe.json"
        bad.write_text(json.dumps(edit(d)))
        p = analysis("sweep", str(sw), "--probe", str(bad), timeout=120)
        assert p.returncode == 2 and fragment in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr
    # the probe is an input: an output path naming it is refused
    p = analysis("sweep", str(sw), "--probe", str(pf), "--csv", str(pf), timeout=120)
    assert p.returncode == 2 and json.loads(pf.read_text()) == d
    rep = tmp_path / "rep"
    p = analysis("report", str(sw), "--probe", str(pf), "-o", str(rep), timeout=180)
    assert p.returncode == 0, p.stderr
    md = (rep / "report.md").read_text()
    assert "## Memory system (memfbench probe)" in md and "Against the memory system" in md
    assert (rep / "probe_latency.png").exists() and (rep / "probe_bandwidth.png").exists()

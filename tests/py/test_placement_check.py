"""The placement check (docs/methodology.md, "The placement check"): each process measures, after
its rounds, whether its small-call windows load at L1 latency and its large window's lines at the
latency of lines flushed from every cache. It must catch a lie: cache sizes given far larger than
any real L1d make windows that cannot stay in L1, and the check fails, warns, and the analysis
prints it beside every verdict. The plan itself follows the sizes given, so those tests give them
with --cache; one test uses this machine's own detection."""
from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest

from analysis.io import placement_check
from analysis_runner import analysis
from conftest import GEOMETRY, QUICK, needs_plain_build

# No L1d of any machine is 512 KiB: the small windows (about 190 KiB each) spill to L2 or beyond.
LIE = ["--cache", "512K:2M:32M"]
# A busy neighbour on the host's other hardware thread shares the core's L1d and can make a true-size
# window fail in a burst of processes (19 of 200 in the Zen 5 VM's validation): a true size must pass
# in a run, so the tests on true sizes record the small windows' verdict without requiring a pass;
# the lie (2.5x the L1 latency here) fails whatever the neighbour does.


@needs_plain_build
def test_windows_larger_than_l1_fail_the_check_with_a_warning(run):
    r = run(*LIE, "-v", "libc", "-v", "rep_movsb", "--rounds", "8", "--warmup-rounds", "2", "--processes", "2")
    assert r.code == 0, r.stderr
    pc = r.doc["placement_check"]
    small = pc["small_window"]
    assert not pc["passed"] and small["verdict"] == "fail" and small["expect"] == "l1"
    assert small["ratio"] > small["limit"] and small["lines"] > 1000
    # every process measured its own, and each failed
    procs = [p["placement_check"] for p in r.doc["processes"]]
    assert len(procs) == 2 and all(p["small_window"]["verdict"] == "fail" for p in procs)
    assert any(w["code"] == "placement_check" and w["severity"] == "warning" for w in r.doc["status"]["warnings"])
    assert "placement check: the small-call windows" in r.stderr and "--cache" in r.stderr
    # the analysis says so beside every verdict of the file, and in its context
    s = analysis("summarize", str(r.out), "--detail")
    assert s.returncode == 0, s.stderr
    verdicts = [x for x in s.stdout.splitlines() if x.startswith("- rep_movsb vs libc")]
    # (the large window's own verdict is a timing, which a neighbouring test's memory traffic can
    # fail: when it does, it is named after the small windows inside the same brackets)
    assert verdicts and all("[placement check failed: small-call windows not in L1d in 2 of 2 processes" in x
                            for x in verdicts), s.stdout
    assert ("placement check, small-call windows (expected in L1d): passed in 0 of 2 processes"
            in " ".join(s.stdout.split()))  # summarize's context lines are wrapped to 80 columns


@needs_plain_build
def test_a_32k_geometry_keeps_the_2k_limit_and_its_windows_in_l1(run):
    """Every machine we run on has an L1d of at least 32 KiB, so windows planned for 32 KiB stay in
    it; the large window's verdict depends on this machine's LLC against the 32 MiB given, so it is
    recorded, not asserted."""
    d = run(*QUICK, *GEOMETRY).doc
    ws = d["workset"]
    assert ws["small_max_source"] == "default" and ws["small_window"]["max_call_size"] == 2048
    assert ws["small_window"]["bytes_per_buffer"] == 8192 and ws["align_room_bytes"] == 64
    small = d["placement_check"]["small_window"]
    # measured and judged; whether it passes depends on the host's neighbour too (see the note on LIE)
    assert small["verdict"] in ("pass", "fail") and small["lines"] == 384 and small["ratio"] > 0, small
    assert d["placement_check"]["large_window"]["verdict"] in ("pass", "fail"), d["placement_check"]


def cpu_flags() -> str:
    """The kernel's flags line of the first CPU, padded with spaces (what CPUID gives it)."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return " " + line.split(":", 1)[1].strip() + " "
    return " "


@needs_plain_build
def test_this_machines_own_caches_are_checked(run):
    """Without --cache the plan uses what the machine reports, and the large window is the evicted
    one whatever that is: both windows are measured, the large one with the eviction step's own
    figures. Whether they pass is a timing, which a test never asserts (under the suite's two
    workers a neighbouring test's memory traffic once failed the large window's walk): the
    validation report counts the passes over 400 processes (docs/validation.md, section 9)."""
    d = run(*QUICK, "-v", "libc", own_caches=True).doc
    pc, ws = d["placement_check"], d["workset"]
    large = pc["large_window"]
    assert ws["large_window"]["scheme"] == "evicted" and ws["large_window"]["bytes_per_buffer"] == 64 << 20
    # the eviction step's instruction, and what chose it: clflushopt only where CPUID says so
    lw = ws["large_window"]
    want = {"x86_64": ("clflush", "clflushopt"), "aarch64": ("dc civac",)}.get(platform.machine(), ())
    assert lw["flush_instruction"] in want and lw["flush_instruction_source"], lw
    assert (lw["flush_instruction"] == "clflushopt") == ("CLFLUSHOPT" in lw["flush_instruction_source"]), lw
    if platform.machine() == "x86_64":
        assert (lw["flush_instruction"] == "clflushopt") == (" clflushopt " in cpu_flags()), lw
    assert large["expect"] == "beyond_llc" and large["verdict"] in ("pass", "fail"), pc
    assert large["lines"] > 0 and large["cached_ns"] > 0 and large["flush_gain_min"] == 3, large
    assert large["lines_from"] in ("calls", "window"), large  # window: an array without large calls
    assert large["verdict"] == "pass" or large.get("why"), large  # a failure says why
    assert pc["small_window"]["verdict"] in ("pass", "fail")  # a busy host neighbour can fail it (see the note on LIE)


def test_by_class_on_a_32k_geometry_has_its_classes(run):
    d = run("--by-class", *QUICK, *GEOMETRY, "-v", "libc").doc
    classes = d["by_class"]["classes"]
    assert len(classes) >= 8 and d["by_class"]["edges"][-1] == 2048, d["by_class"]["edges"]


def test_forced_placements_are_checked_for_what_they_name(run):
    d = run(*QUICK, "-v", "libc", "-p", "dram", out="dram.json").doc
    assert d["placement_check"]["small_window"] is None
    assert d["placement_check"]["large_window"]["expect"] == "beyond_llc"
    d = run(*QUICK, "-v", "libc", "-p", "llc", out="llc.json").doc
    assert d["placement_check"]["large_window"]["expect"] == "cached"
    assert d["placement_check"]["large_window"]["limit"] < 1


def test_a_plan_below_the_floor_is_refused_in_one_line(run, tmp_path):
    """A table that asks for 4 KiB alignments leaves a 16 KiB L1d's windows no room for any small
    call (tests/c/test_geometry.c refuses a 2 KiB L1d the same way): one line, no file."""
    (tmp_path / "paged_size.csv").write_text("size,weight\n64,1\n100000,1\n")
    (tmp_path / "paged_alignment.csv").write_text("alignment,weight\n4096,1\n8,1\n")
    r = run(*QUICK, "-d", str(tmp_path / "paged_size.csv"), "--cache", "16K:256K:8M", out="paged.json")
    lines = r.stderr.strip().splitlines()
    assert r.code != 0 and r.out is not None and not r.out.exists()
    assert len(lines) == 1 and "below 256" in lines[0] and "4096 of alignment room" in lines[0], r.stderr
    assert "--cache" in lines[0] and "--placement" in lines[0]
    r = run(*QUICK, "-d", str(tmp_path / "paged_size.csv"), *GEOMETRY, out="paged32.json")
    assert r.code == 0 and r.doc["workset"]["align_room_bytes"] == 4096, r.stderr
    assert r.doc["workset"]["small_window"]["max_call_size"] == 2048


def test_failures_are_counted_per_window_and_process():
    ok = {"small_window": {"expect": "l1", "verdict": "pass"}, "large_window": None}
    bad = {"small_window": {"expect": "l1", "verdict": "fail"},
           "large_window": {"expect": "beyond_llc", "verdict": "fail"}}
    doc = {"processes": [{"placement_check": ok}, {"placement_check": bad}, {"placement_check": bad}]}
    assert placement_check.failures([doc]) == ("small-call windows not in L1d in 2 of 3 processes; "
                                         "large-window lines still cached in 2 of 3 processes")
    assert placement_check.failures([{"placement_check": ok}]) == ""
    assert placement_check.failures([{}]) == ""  # a file from before the check
    assert placement_check.summary_lines({}) == ["- placement check: not recorded (a file from before the check)"]


@needs_plain_build
def test_an_array_without_large_calls_still_checks_the_flush(run):
    """Fleet bcmp draws a large call once in 10,000: its arrays have none to sample, so the evicted
    check samples the window instead and still measures (it was "not measured" before)."""
    # seeded: an unseeded array holds a large call now and then (then its lines come from "calls")
    d = run(*QUICK, *GEOMETRY, "-f", "bcmp", "-v", "libc", "--seed", "1").doc
    large = d["placement_check"]["large_window"]
    assert large["lines_from"] == "window" and large["verdict"] in ("pass", "fail"), large
    assert large["cached_ns"] > 0 and large["reference_ns"] > 0, large

"""memfbench ab on the footing of memfbench run (issue 42, cases 3-7): variants checked before the
program runs, runs that did not do the work refused, a time limit, stops obeyed within a second
with the program's whole tree, bounded program output, and --predict-from read in full first.

Each refusal: one line, no result file, nothing left running. The one-second bound of a stop is
the product's promise (programs/run.h); it is asserted on the plain build only, where
nothing else slows the processes down."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SANITIZED, needs_plain_preload
from tools.lib.stopping import asleep, running_with, stop

BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
PROGRAM = BUILD / "tests" / "c" / "ab_calls"
WRONG = BUILD / "tests" / "c" / "libwrong_plugin.so"
CTOR_EXIT = BUILD / "tests" / "c" / "libctor_exit.so"
QUICK = ["--runs", "2", "--warmup", "0"]
BOUND_S = 1.0

pytestmark = pytest.mark.skipif(not (PROGRAM.exists() and (BUILD / "bench" / "ab" / "shim" /
                                                            "libmemfbench-ab.so").exists()),
                                reason="the ab shim or tests/c/ab_calls not built")
pytestmark = [pytestmark, needs_plain_preload]


def ab(memfbench: str, *args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "ab", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**os.environ, "MPLBACKEND": "Agg"})


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    """ab_calls, copied where its path names this test only: what is left running is found by it."""
    prog = tmp_path / "prog" / "ab_calls"
    prog.parent.mkdir()
    shutil.copy2(PROGRAM, prog)
    return prog


def refused(p: subprocess.CompletedProcess[str], code: int, *fragments: str) -> str:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == code and len(lines) == 1, (p.returncode, p.stderr)
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


def only_inputs(folder: Path) -> None:
    """Nothing in folder but the program's folder (and a recording): no result, no temporary."""
    assert sorted(x.name for x in folder.iterdir() if x.name not in ("prog", "rec")) == []


# -- case 3: variants checked before the program runs; runs that did not do the work refused --

@pytest.mark.parametrize("spec,why", [
    ("WRONG:offset_memcpy", "did not return the destination pointer"),
    ("WRONG:dropping_memcpy", "relative to the destination differs"),
    ("CTOR:ctor_memcpy", "called exit() while being loaded"),
])
def test_a_wrong_variant_is_refused_before_the_program_runs(memfbench: str, program: Path, tmp_path: Path,
                                                            spec: str, why: str) -> None:
    spec = spec.replace("WRONG", str(WRONG)).replace("CTOR", str(CTOR_EXIT))
    p = ab(memfbench, "-q", "-v", spec, *QUICK, "-o", str(tmp_path / "x.json"), "--", str(program))
    line = refused(p, 1, "the variants' check", why)
    assert "default distribution" in line
    only_inputs(tmp_path)


def test_a_run_that_ends_early_with_status_0_is_refused(memfbench: str, program: Path, tmp_path: Path) -> None:
    """The variant passes memfbench's check but exits at its first call in the program: status 0,
    a run 40 times shorter; the shim sees the exit called inside the variant's code."""
    p = ab(memfbench, "-q", "-v", f"{WRONG}:exit_in_program_memcpy=quits", *QUICK, "-o", str(tmp_path / "x.json"),
           "--", str(program))
    refused(p, 1, "arm quits)", "1 process of", "exited inside the code of the variant quits (it called exit)")
    only_inputs(tmp_path)


def test_a_program_without_calls_through_the_shim_is_refused(memfbench: str, tmp_path: Path) -> None:
    """true makes no memcpy call through the dynamic C library: nothing would be compared."""
    p = ab(memfbench, "-q", "-v", "sse2", *QUICK, "-o", str(tmp_path / "x.json"), "--", "true")
    refused(p, 1, "arm ", "the shim counted no memcpy call")
    only_inputs(tmp_path)


def test_each_run_records_its_calls_and_processes(memfbench: str, program: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    p = ab(memfbench, "-q", "-v", "sse2", *QUICK, "-o", str(out), "--", str(program))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    for r in doc["runs"]:
        # 6 entry points of the memcpy family, 7 calls each (tests/c/ab_calls.c)
        assert (r["calls"], r["processes"]) == ((None, 0) if r["arm"] == "plain" else (42, 1)), r
        assert r["leftovers"] == 0
    assert doc["config"]["watchdog_s"] is None and "10 times the longest run" in doc["config"]["watchdog"]


# -- case 5: a time limit for programs and variants --

@pytest.mark.parametrize("args,arm", [
    (["-v", "sse2", "--", "PROG", "sleep"], "arm "),
    (["-v", f"{WRONG}:hang_in_program_memcpy=hangs", "--", "PROG"], "arm hangs)"),
])
def test_a_run_past_the_watchdog_is_stopped(memfbench: str, program: Path, tmp_path: Path, args: list[str],
                                            arm: str) -> None:
    args = [str(program) if a == "PROG" else a for a in args]
    p = ab(memfbench, "-q", "--watchdog", "0.5", *QUICK, "-o", str(tmp_path / "x.json"), *args)
    refused(p, 1, arm, "(--watchdog)", "stopped")
    assert running_with(str(program)) == []
    only_inputs(tmp_path)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "1e9", "x"])
def test_a_bad_watchdog_is_one_line(memfbench: str, program: Path, tmp_path: Path, value: str) -> None:
    p = ab(memfbench, "-v", "sse2", "--watchdog", value, "-o", str(tmp_path / "x.json"), "--", str(program))
    refused(p, 2, "--watchdog", value)


# -- case 4: what a program leaves, and stops --

@pytest.mark.parametrize("how", ["spawn", "daemon"])
def test_what_a_run_leaves_running_is_stopped_and_counted(memfbench: str, program: Path, tmp_path: Path,
                                                          how: str) -> None:
    out = tmp_path / "x.json"
    p = ab(memfbench, "-v", "sse2", *QUICK, "-o", str(out), "--", str(program), how)
    assert p.returncode == 0, p.stderr
    assert "left 1 process running after it ended; stopped" in p.stderr
    left = [r["leftovers"] for r in json.loads(out.read_text(encoding="utf-8"))["runs"]]
    # spawn leaves one child; a daemon's first child may still be alive beside the grandchild it
    # forked when the program ends (then both are stopped): one or two, never none
    assert len(left) == 6 and all(x == 1 for x in left) if how == "spawn" else all(x in (1, 2) for x in left), left
    assert running_with(str(program)) == []


STOPS = [(sig, group, behaviour) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) for group in (False, True)
         for behaviour in (("sleep",),)] + [
    (signal.SIGINT, True, ("ignore", "sleep")),
    (signal.SIGTERM, False, ("ignore", "sleep")),
    (signal.SIGTERM, False, ("daemon", "sleep")),
    (signal.SIGINT, True, ("daemon", "sleep")),
]


@pytest.mark.parametrize("sig,group,behaviour", STOPS,
                         ids=[f"{signal.Signals(s).name}-{'group' if g else 'pid'}-{'-'.join(b)}" for s, g, b in STOPS])
def test_a_stop_ends_ab_and_the_programs_tree_within_a_second(memfbench: str, program: Path, tmp_path: Path,
                                                              sig: int, group: bool, behaviour: tuple[str, ...]) -> None:
    cmd = [memfbench, "ab", "-q", "-v", "sse2", *QUICK, "-o", "x.json", "--", str(program), *behaviour]
    s = stop(cmd, tmp_path, sig, 2.0, group, str(program), ready=lambda: asleep(str(program)))
    assert s.returncode == 128 + sig, s.stderr
    lines = s.stderr.strip().splitlines()
    assert len(lines) == 1 and f"interrupted by {signal.Signals(sig).name} during run 1 (block 1, arm " in lines[0], \
        s.stderr
    assert s.processes_left == 0 and s.files_left == ()
    if not SANITIZED:
        assert s.seconds < BOUND_S, f"ended {s.seconds:.2f} s after the signal"


def test_a_stop_during_the_replay_ends_it_and_leaves_no_file(memfbench: str, program: Path, tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    subprocess.run([memfbench, "record", "-o", str(rec), "--", str(program)], check=True, capture_output=True,
                   timeout=120)
    cmd = [memfbench, "ab", "-q", "-v", "sse2", *QUICK, "--predict-from", str(rec), "--replay-time", "60",
           "-o", "x.json", "--", str(program)]
    # the signal once the replay's study has begun its first process (its temporary is there),
    # 4 s at most
    s = stop(cmd, tmp_path, signal.SIGTERM, 4.0, False, str(tmp_path),
             ready=lambda: any(x.name.startswith("..x.json.replay.json") and "-proc0." in x.name
                               for x in tmp_path.iterdir()))
    assert s.returncode == 128 + signal.SIGTERM, s.stderr
    assert "during the replay of the recorded table" in s.stderr, s.stderr
    assert s.processes_left == 0 and s.files_left == ()
    if not SANITIZED:
        assert s.seconds < BOUND_S, f"ended {s.seconds:.2f} s after the signal"


def test_a_killed_ab_takes_its_program_with_it_and_the_next_sweeps_its_files(memfbench: str, program: Path,
                                                                             tmp_path: Path) -> None:
    """SIGKILL reaches no handler: the program dies by its death signal; the temporaries stay
    until the next ab (or run) writes into the folder."""
    cmd = [memfbench, "ab", "-q", "-v", "sse2", *QUICK, "-o", "x.json", "--", str(program), "sleep"]
    s = stop(cmd, tmp_path, signal.SIGKILL, 2.0, False, str(program), ready=lambda: asleep(str(program)))
    assert s.returncode == -signal.SIGKILL and s.processes_left == 0
    assert s.files_left and all(".memfbench-" in f for f in s.files_left), s.files_left
    p = ab(memfbench, "-v", "sse2", *QUICK, "-o", str(tmp_path / "y.json"), "--", str(program))
    assert p.returncode == 0 and "removed 2 temporaries left by runs that were killed" in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir() if x.name != "prog") == ["y.json"]


# -- case 2: bounded program output --

def test_program_output_is_kept_per_run_within_its_bound(memfbench: str, program: Path, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    three_mib = 3 << 20
    p = ab(memfbench, "-q", "-v", "sse2", *QUICK, "--program-output", str(log), "-o", str(tmp_path / "x.json"),
           "--", str(program), "write", str(three_mib))
    assert p.returncode == 0, p.stderr
    data = log.read_bytes()
    heads = [x for x in data.split(b"\n") if x.startswith(b"== memfbench ab: run ")]
    assert len(heads) == 6 and all(f"{three_mib} bytes of output ==".encode() in h for h in heads), heads[:2]
    cuts = data.count(f"{three_mib - (1 << 20)} bytes of run".encode())
    assert cuts == 6
    assert len(data) < 6 * ((1 << 20) + 1024)
    doc = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert {r["output_bytes"] for r in doc["runs"]} == {three_mib}


# -- case 6: --predict-from read in full before the first run --

def recording(tmp_path: Path, program: Path, memfbench: str) -> Path:
    rec = tmp_path / "rec"
    subprocess.run([memfbench, "record", "-o", str(rec), "--", str(program)], check=True, capture_output=True,
                   timeout=120)
    return rec


@pytest.mark.parametrize("edit,why", [
    (lambda d: d["calls"]["memcpy"].update(calls=-5), "calls.memcpy.calls: not a whole number"),
    (lambda d: d["calls"]["memcpy"].update(calls=1e300), "calls.memcpy.calls: not a whole number"),
    (lambda d: d["calls"]["memcpy"].update(calls=2.5), "calls.memcpy.calls: not a whole number"),
    (lambda d: d["calls"]["memcpy"].update(calls="42"), "calls.memcpy.calls: not a whole number"),
    (lambda d: d.update(command=["/usr/bin/gzip", "-k"]), "a recording of '/usr/bin/gzip'"),
    (lambda d: d.pop("command"), "command: no recorded program"),
    ("Infinity", "not JSON"),
])
def test_a_bad_recording_is_refused_before_the_first_run(memfbench: str, program: Path, tmp_path: Path, edit,
                                                         why: str) -> None:
    rec = recording(tmp_path, program, memfbench)
    prov = rec / "provenance.json"
    doc = json.loads(prov.read_text(encoding="utf-8"))
    if edit == "Infinity":
        prov.write_text(prov.read_text(encoding="utf-8").replace('"calls":\t42', '"calls":\tInfinity')
                        .replace('"calls": 42', '"calls": Infinity'), encoding="utf-8")
        assert "Infinity" in prov.read_text(encoding="utf-8")
    else:
        edit(doc)
        prov.write_text(json.dumps(doc), encoding="utf-8")
    p = ab(memfbench, "-v", "sse2", *QUICK, "--predict-from", str(rec), "-o", str(tmp_path / "x.json"), "--",
           str(program))
    refused(p, 2, "--predict-from", why)
    only_inputs(tmp_path)


def test_a_trace_that_is_not_a_regular_file_is_refused(memfbench: str, program: Path, tmp_path: Path) -> None:
    rec = recording(tmp_path, program, memfbench)
    os.mkfifo(rec / "memcpy_trace.csv")
    p = ab(memfbench, "-v", "sse2", *QUICK, "--predict-from", str(rec), "-o", str(tmp_path / "x.json"), "--",
           str(program), timeout=60)
    refused(p, 2, "memcpy_trace.csv is not a regular file")


def test_a_program_that_drops_the_shim_is_refused_against_its_recording(memfbench: str, program: Path,
                                                                        tmp_path: Path) -> None:
    """A wrapper of the same name that runs the program without LD_PRELOAD: the shim counts the
    wrapper's few calls, not the 42 the recording counted."""
    rec = recording(tmp_path, program, memfbench)
    wrapper = tmp_path / "wrap" / "ab_calls"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\nexec env -u LD_PRELOAD {program}\n", encoding="utf-8")
    wrapper.chmod(0o755)
    p = ab(memfbench, "-q", "-v", "sse2", *QUICK, "--predict-from", str(rec), "-o", str(tmp_path / "x.json"), "--",
           str(wrapper))
    line = refused(p, 1, "(block 1, arm ")
    assert ("arm libc" in line and "the recording 42" in line) or "the shim counted no memcpy call" in line, line
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "x.json.replay.json").exists()

"""A stop request (SIGTERM here; SIGINT and SIGHUP take the same path) ends every long-running
subcommand within a second at any phase, leaves no process of its own or of the program running
and no temporary file: run with a variant that never returns (while verified, while timed, in a
--processes study), record with a program that ignores the signal, and the probe.

The one-second bound is the product's promise (the guard ends a call that does not return 0.75 s
after the request; record kills a program 0.75 s after passing it on); it is asserted on the plain
build only, where nothing else slows the process down."""
from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SANITIZED, binary, needs_plain_preload
from test_reliability import leftovers, wrong_plugin

GEOMETRY = ["--cache", "32K:512K:32M"]
BOUND_S = 1.0


def stop_after(cmd: list[str], delay: float, cwd: Path,
               at_mark: bool = False) -> tuple[subprocess.CompletedProcess[str], float]:
    """Starts cmd, sends SIGTERM delay seconds after its start (at_mark: after the wrong plugin marks
    the moment it misbehaves, through $MEMFBENCH_TEST_MARK: it hangs, turns slow, starts a long
    call), and returns its result and how long it took to end after the signal. A mark finds the
    run where the test means it to, on a fast machine or a slow one, without a wait sized for the
    slowest."""
    mark = cwd / "plugin-mark"
    env = {**os.environ, "MEMFBENCH_TEST_MARK": str(mark)} if at_mark else None
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if at_mark:
        deadline = time.monotonic() + 120
        while not mark.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mark.exists(), p.communicate()
        mark.unlink()
    time.sleep(delay)
    assert p.poll() is None, p.communicate()
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err), time.monotonic() - t0


def running_with(marker: str) -> list[int]:
    """Processes whose command line holds marker."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if marker.encode() in (d / "cmdline").read_bytes():
                found.append(int(d.name))
        except OSError:
            continue
    return found


def assert_quick(elapsed: float) -> None:
    if not SANITIZED:
        assert elapsed < BOUND_S, f"ended {elapsed:.2f} s after SIGTERM"


@pytest.mark.parametrize("processes", ["1", "2"])
def test_run_stopped_while_a_variant_hangs_in_verification(tmp_path: Path, processes: str) -> None:
    cmd = [binary(), "run", "-q", "--processes", processes, "--allow-single-process", "-d", "fixed:777",
           "-v", "libc", "-v", f"{wrong_plugin()}:hang_memcpy", "--watchdog", "100", *GEOMETRY,
           "-o", "out.json"]
    r, elapsed = stop_after(cmd, 0, tmp_path, at_mark=True)
    assert r.returncode == 128 + signal.SIGTERM, r.stderr  # 128 + the signal, as every command ends on a stop
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "'hang_memcpy'" in lines[0] and "stopped by SIGTERM in a call" in lines[0] \
        and "while being verified: memcpy of 777 bytes" in lines[0], r.stderr
    assert_quick(elapsed)
    assert leftovers(tmp_path) == []


def test_run_stopped_while_a_variant_hangs_in_the_rounds(tmp_path: Path) -> None:
    cmd = [binary(), "run", "-q", "--processes", "1", "--allow-single-process", "-d", "fixed:64", "-t", "60",
           "-v", "libc", "-v", f"{wrong_plugin()}:late_hang_memcpy", "--watchdog", "100", *GEOMETRY,
           "-o", "out.json"]
    r, elapsed = stop_after(cmd, 0, tmp_path, at_mark=True)
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    assert "'late_hang_memcpy'" in r.stderr and "while being timed in round" in r.stderr, r.stderr
    assert "stopped by SIGTERM in a batch of its calls" in r.stderr and "calls of up to 64 bytes" in r.stderr, r.stderr
    assert_quick(elapsed)


def test_a_stop_during_a_large_call_names_the_signal_and_the_call(tmp_path: Path) -> None:
    """A replayed trace with a 64 MiB call, stopped by SIGTERM while that call is under way (a
    plugin that takes 20 s over calls of 1 MiB or more stands for a slow machine, and marks when
    its call starts, so the signal always finds the run inside it): exit 130 within the second, one
    line that names the signal, the variant and the call's 67108864 bytes, and no word of a variant
    that "did not return" (the line blamed a hang, for a call that was only large)."""
    trace = tmp_path / "big_trace.csv"
    trace.write_text("size,src_alignment,dst_alignment,caller\n" + "64,1,1,0\n" * 20 + "67108864,64,64,0\n"
                     + "128,1,1,0\n" * 20)
    cmd = [binary(), "run", "-q", "--processes", "1", "--allow-single-process", "--trace", str(trace),
           "-v", "libc", "-v", f"{wrong_plugin()}:slow_large_memcpy=slow", "--watchdog", "100", *GEOMETRY,
           "-o", "out.json"]
    p, elapsed = stop_after(cmd, 0, tmp_path, at_mark=True)
    err = p.stderr
    assert p.returncode == 128 + signal.SIGTERM, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "variant 'slow'" in lines[0] and "was stopped by SIGTERM in a call" in lines[0], lines[0]
    assert "memcpy of 67108864 bytes" in lines[0] and "did not return" not in lines[0], lines[0]
    assert_quick(elapsed)
    assert leftovers(tmp_path) == []
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("delay", [0.02, 0.3])
def test_run_stopped_while_it_prepares_its_buffers(tmp_path: Path, delay: float) -> None:
    """memfbench's own set-up (distribution, buffers: with --large-window sized, 1 GiB per buffer
    for a 256 MiB LLC, over a second to map and fill) ends within a second too, without a file: the arena is populated in
    slices a signal can come between, and the guard ends the set-up at its next tick. A signal
    before the guard exists (delay 0.02: the start) is kept and acted on as it is installed; one
    before even the handlers (on a slow machine) ends the process as SIGTERM does, before it has
    made anything."""
    cmd = [binary(), "run", "-q", "--processes", "1", "--allow-single-process", "-v", "libc", "-v", "bytes",
           "--cache", "32K:512K:256M", "--large-window", "sized", "-o", "out.json"]
    r, elapsed = stop_after(cmd, delay, tmp_path)
    if r.returncode != -signal.SIGTERM:
        assert r.returncode == 128 + signal.SIGTERM, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "interrupted while preparing the run" in lines[0], r.stderr
    assert_quick(elapsed)
    assert leftovers(tmp_path) == []


def test_a_run_that_is_not_stuck_keeps_what_it_measured(tmp_path: Path) -> None:
    """The guard ends only calls that do not return: a run in its rounds stops before its next
    batch and writes every whole round, as before."""
    cmd = [binary(), "run", "-q", "--processes", "1", "--allow-single-process", "-d", "fixed:64", "-t", "60",
           "-v", "libc", "-v", "bytes", *GEOMETRY, "-o", "out.json"]
    r, elapsed = stop_after(cmd, 3, tmp_path)
    assert r.returncode == 128 + signal.SIGTERM and (tmp_path / "out.json").is_file(), r.stderr
    assert "holds every batch measured" in r.stderr
    assert_quick(elapsed)


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.all_cpus)])  # two: CPUs 0 and 1
def test_a_stop_does_not_wait_for_a_long_round(tmp_path: Path, threads: int) -> None:
    """Thirty names of a plugin that turns slow 2 s after its first call make rounds of about 4 s
    (30 batches of 512 calls of 250 us; with two threads, eight names and their alone batches). The stop is seen before the next batch: the run ends
    within the second (before, it waited for the round's end: 4-7 s here),
    and the round it was in is dropped, so the file holds whole rounds only, every variant once
    in each."""
    # two threads: 24 names at 100 us a call (rounds of about 2.5 s as well, in batches of about
    # 50 ms that a loaded machine cannot stretch past the guard's grace)
    names = [f"{wrong_plugin()}:{'late_slow_memcpy' if threads == 1 else 'late_slow100_memcpy'}=slow{i}"
             for i in range(30 if threads == 1 else 24)]
    team = [] if threads == 1 else ["--threads", "2", "--cpus", "0,1"]  # two batches a variant: one alone
    cmd = [binary(), "run", "-q", "--processes", "1", "--allow-single-process", "-d", "fixed:64", "-t", "120",
           "--batch-passes", "1", "-v", "libc", *[x for n in names for x in ("-v", n)], *team, *GEOMETRY,
           "-o", "out.json"]
    r, elapsed = stop_after(cmd, 1.0, tmp_path, at_mark=True)  # 1 s into the slow rounds
    assert r.returncode == 128 + signal.SIGTERM and "holds every batch measured" in r.stderr, r.stderr
    assert_quick(elapsed)
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["status"]["stop_reason"] == "interrupted"
    rounds = doc["samples"]["round"]
    per_round = collections.Counter(zip(rounds, doc["samples"].get("thread", [0] * len(rounds))))
    assert len(per_round) == doc["rounds"]["count"] * threads
    # every variant once per thread, and once more alone on thread 0
    # (the plugins have one layout each: the study adds a built-in run from every placement, and
    # threads time it as they time the others)
    nv = len(doc["variants"])
    assert sorted(set(per_round.values())) == ([nv] if threads == 1 else [nv, 2 * nv])
    assert leftovers(tmp_path) == ["out.json"]


@needs_plain_preload
def test_record_passes_the_stop_on_and_leaves_nothing_running(tmp_path: Path) -> None:
    marker = f"99.{os.getpid()}"
    script = f'trap "" TERM INT HUP; sleep {marker}'
    r, elapsed = stop_after([binary(), "record", "-o", "rec", "--", "sh", "-c", script], 1.0, tmp_path)
    assert r.returncode != 0 and "interrupted by SIGTERM (it did not end within 0.75 s and was killed)" in r.stderr, r.stderr
    assert_quick(elapsed)
    assert running_with(marker) == [], "the program's child outlived record"
    assert [p.name for p in tmp_path.iterdir()] == [], "record left a folder behind"


@needs_plain_preload
def test_record_killed_takes_its_program_with_it(tmp_path: Path) -> None:
    """kill -9 of record: the program gets SIGTERM (parent-death signal) instead of running on."""
    marker = f"98.{os.getpid()}"
    p = subprocess.Popen([binary(), "record", "-o", "rec", "--", "sleep", marker], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    p.kill()
    p.wait(timeout=10)
    deadline = time.monotonic() + 5
    while running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(marker) == []


def test_probe_stops_within_a_second(tmp_path: Path) -> None:
    r, elapsed = stop_after([binary(), "probe", "-q", "-o", "p.json"], 2.0, tmp_path)
    assert r.returncode == 128 + signal.SIGTERM, r.stderr
    assert "holds the points measured" in r.stderr
    assert_quick(elapsed)
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]

"""A starved process (issue 52): one that got a fraction of the others' rounds because the host ran
other work on its CPU has its design slot run again once the study's processes have run, the first
run marked dropped and the re-run marked with the slot it ran; the analysis leaves the dropped one
out and names it. The starvation is made, not hoped for: the test stops the first process with
SIGSTOP for 95 % of its life, so it gets a few rounds wherever it runs."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import GEOMETRY, binary
from analysis_runner import analysis


def starved_study(tmp_path: Path, processes: int = 4) -> tuple[dict, str]:
    out = tmp_path / "st.json"
    # half a second a process: the starved one gets tens of rounds against the others' thousands
    p = subprocess.Popen([binary(), "run", "--processes", str(processes), "-t", str(processes / 2), "-d", "fixed:64",
                          "-v", "libc", "-v", "bytes", *GEOMETRY, "-o", str(out)], stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    child = None
    deadline = time.monotonic() + 60
    while child is None and time.monotonic() < deadline:
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                    ours = os.getsid(int(pid)) == p.pid
                except OSError:  # gone meanwhile
                    continue
                if ours and b"--process-index" in cmd and cmd[cmd.index(b"--process-index") + 1] == b"0":
                    child = int(pid)
        time.sleep(0.005)
    assert child, "the first process never started"
    try:  # runnable 5 % of the time while it lives
        while True:
            os.kill(child, signal.SIGSTOP)
            time.sleep(0.095)
            os.kill(child, signal.SIGCONT)
            time.sleep(0.005)
    except ProcessLookupError:
        pass
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.read_text()), err


def test_a_starved_process_has_its_slot_run_again_and_is_left_out(tmp_path: Path) -> None:
    doc, err = starved_study(tmp_path)
    procs = doc["processes"]
    assert len(procs) == 5, [p["rounds"]["measured"] for p in procs]
    first, again = procs[0], procs[4]
    assert "measured rounds" in first["dropped"]["reason"] and "ran again as process 5" in first["dropped"]["reason"]
    assert again["rerun_of"] == 0 and "dropped" not in again
    assert all("dropped" not in p and "rerun_of" not in p for p in procs[1:4])
    # the study asked for 4 and kept 4: the re-run stands in for the dropped run, not one more
    assert doc["config"]["processes"] == 4 and doc["status"]["complete"] is True
    # the same design slot: the timed loop's and each variant's code placements, and the seed
    assert again["layout"]["kernel_code_placement"] == first["layout"]["kernel_code_placement"]
    assert again["seeds"] == first["seeds"]
    # said on the terminal, once, naming both processes
    lines = [x for x in err.splitlines() if "running its slot again" in x]
    assert len(lines) == 1 and "process 1 got" in lines[0] and "as process 5" in lines[0], err
    # the run's own table counts the kept processes and their batches only, as the analysis does
    assert "merged 5 processes into" in err and "(1 of them starved and marked dropped)" in err, err
    s = doc["samples"]
    kept = sum(1 for p, w, c in zip(s["process"], s["warmup"], s["size_class"]) if p != 0 and not w and c == 0)
    assert f"  4 processes (and 1 starved, left out: its slot ran again), {kept} measured batches, " in err, err
    # the analysis leaves it out and names it as the run did
    p = analysis("summarize", str(tmp_path / "st.json"))
    assert p.returncode == 0, p.stderr
    assert "[dropped]" in p.stdout and "process 1" in p.stdout and "4 proc" in p.stdout, p.stdout

"""A command stopped by a signal, as a user or a batch system stops it: what it leaves behind.
One measurement for the tests that hold memfbench to its promise (tests/py/test_ab_hardening.py)
and for the table docs/program-ab.md quotes (tools/ab_signal_table.py)."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stopped:
    """The outcome: the command's exit status and stderr, seconds from the signal to its end,
    processes whose command line holds the marker one second after it ended, and the files of
    the folder then that were not there before it started."""
    returncode: int
    stderr: str
    seconds: float
    processes_left: int
    files_left: tuple[str, ...]


def running_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds marker."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if marker.encode() in (d / "cmdline").read_bytes() and \
                    (d / "stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                found.append(int(d.name))
        except (OSError, IndexError):
            continue
    return found


def stop(cmd: list[str], cwd: Path, sig: int, delay: float, to_group: bool, marker: str,
         timeout: float = 60) -> Stopped:
    """Starts cmd in a session of its own (its process group is the terminal's foreground group
    would be: Ctrl-C is SIGINT to that group), sends sig after delay seconds, to the command
    alone or to its group, and looks at what is left a second after it ended."""
    before = set(p.name for p in cwd.iterdir())
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(delay)
    t0 = time.monotonic()
    if to_group:
        os.killpg(p.pid, sig)
    else:
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
    seconds = time.monotonic() - t0
    time.sleep(1.0)
    left = tuple(sorted(x.name for x in cwd.iterdir() if x.name not in before))
    return Stopped(p.returncode, err, seconds, len(running_with(marker)), left)

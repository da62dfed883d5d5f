"""A command stopped by a signal, as a user or a batch system stops it: what it leaves behind.
One measurement for the tests that hold memfbench to its promise (tests/py/test_ab_hardening.py)
and for the table docs/program-ab.md quotes (tools/ab_signal_table.py)."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

# How often the conditions below are looked at: a fraction of the second a stop is allowed.
POLL_S = 0.01
# Processes a stop leaves are counted this long after the command ended (they may still be dying).
GRACE_S = 1.0


@dataclass(frozen=True)
class Stopped:
    """The outcome: the command's exit status and stderr, seconds from the signal to its end,
    processes whose command line holds the marker one second after it ended (fewer only when
    none is left sooner), and the files of the folder then that were not there before it
    started."""
    returncode: int
    stderr: str
    seconds: float
    processes_left: int
    files_left: tuple[str, ...]


def _processes() -> Iterator[tuple[Path, bytes]]:
    """Every process but this one, as its /proc folder and its command line (NUL-separated), those
    gone while read left out."""
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            yield d, (d / "cmdline").read_bytes()
        except OSError:
            continue


def running_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds marker."""
    found = []
    for d, cmdline in _processes():
        try:
            if marker.encode() in cmdline and \
                    (d / "stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                found.append(int(d.name))
        except (OSError, IndexError):
            continue
    return found


def asleep(program: str) -> bool:
    """Whether the processes running program (their argv[0]) are all asleep in nanosleep, and
    there is one: a test program that has reached its long sleep, every step before it (a signal
    disposition, a daemon's forks) done."""
    seen = False
    for d, cmdline in _processes():
        if cmdline.split(b"\0", 1)[0] != program.encode():
            continue
        try:
            if "nanosleep" not in (d / "wchan").read_text():
                return False
        except OSError:
            continue
        seen = True
    return seen


def _wait_until(done: Callable[[], bool], most: float) -> None:
    until = time.monotonic() + most
    while not done() and time.monotonic() < until:
        time.sleep(POLL_S)


def stop(cmd: list[str], cwd: Path, sig: int, delay: float, to_group: bool, marker: str,
         timeout: float = 60, ready: Callable[[], bool] | None = None) -> Stopped:
    """Starts cmd in a session of its own (its process group is the terminal's foreground group
    would be: Ctrl-C is SIGINT to that group), sends sig after delay seconds (or as soon as
    ready() holds, within them), to the command alone or to its group, and looks at what is left
    a second after it ended (at once when nothing holding the marker is left sooner)."""
    before = set(p.name for p in cwd.iterdir())
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    _wait_until(ready or (lambda: False), delay)
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
    _wait_until(lambda: not running_with(marker), GRACE_S)
    left = tuple(sorted(x.name for x in cwd.iterdir() if x.name not in before))
    return Stopped(p.returncode, err, seconds, len(running_with(marker)), left)

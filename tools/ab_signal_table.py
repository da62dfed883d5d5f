"""memfbench ab stopped by signals: the table docs/program-ab.md quotes (issue 42). Each row starts
`memfbench ab` on tests/c/ab_calls (a copy, so that what is left running is found by its path),
sends a signal while a run is under way (or while the replay of --predict-from runs), and gives
the exit status, the seconds from the signal to ab's end, the processes of the program still
running one second later, and the files left in the folder. A measurement, not a test: the tests
(tests/py/test_ab_hardening.py) assert the properties.

    /usr/bin/python3 -m tools.ab_signal_table --build build [--cpu 1]
"""
from __future__ import annotations

import argparse
import platform
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from tools.lib.stopping import stop

# (signal, to the group, the program's behaviour (tests/c/ab_calls.c), during the replay)
ROWS = [(s, g, ("sleep",), False) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) for g in (False, True)] + [
    (signal.SIGINT, True, ("ignore", "sleep"), False),
    (signal.SIGTERM, False, ("ignore", "sleep"), False),
    (signal.SIGTERM, False, ("daemon", "sleep"), False),
    (signal.SIGINT, True, ("daemon", "sleep"), False),
    (signal.SIGTERM, False, (), True),
    (signal.SIGINT, True, (), True),
    (signal.SIGKILL, False, ("sleep",), False),
]


def describe(behaviour: tuple[str, ...], replay: bool) -> str:
    if replay:
        return "during --predict-from's replay"
    return {("sleep",): "runs 60 s", ("ignore", "sleep"): "ignores the signals, runs 60 s",
            ("daemon", "sleep"): "leaves a daemon, runs 60 s"}[behaviour]


def table(build: Path, cpu: str) -> str:
    """The Markdown table, one row per case of ROWS."""
    memfbench = str((build / "bench" / "memfbench").resolve())
    lines = ["| signal | to | the program | exit | s to exit | processes left 1 s later | files left |",
             "|---|---|---|---|---|---|---|"]
    for sig, group, behaviour, replay in ROWS:
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d)
            prog = folder / "prog" / "ab_calls"
            prog.parent.mkdir()
            shutil.copy2(build / "tests" / "c" / "ab_calls", prog)
            extra: list[str] = []
            delay = 2.0
            if replay:
                subprocess.run([memfbench, "record", "-o", str(folder / "rec"), "--", str(prog)], check=True,
                               capture_output=True)
                extra = ["--predict-from", str(folder / "rec"), "--replay-time", "60"]
                delay = 4.0
            cmd = [memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "--cpu", cpu, *extra,
                   "-o", "x.json", "--", str(prog), *behaviour]
            s = stop(cmd, folder, sig, delay, group, str(folder))
            left = [f for f in s.files_left if f != "rec"]
            files = ("the result's and the runs' temporaries (removed by the next memfbench in the folder)"
                     if left and all(".memfbench-" in f for f in left) else ", ".join(left) or "none")
            lines.append(f"| {signal.Signals(sig).name} | {'group' if group else 'pid'} | "
                         f"{describe(behaviour, replay)} | {s.returncode} | {s.seconds:.2f} | {s.processes_left} | "
                         f"{files} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, default=Path("build"))
    ap.add_argument("--cpu", default="1", help="memfbench ab --cpu (default 1)")
    a = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}\n")
    print(table(a.build, a.cpu), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

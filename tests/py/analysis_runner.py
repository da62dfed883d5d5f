"""`python3 -m analysis ARGS` for the tests, as a process forked from one that imported the analysis
once, instead of a fresh interpreter each time.

A fresh interpreter spends about 0.2 s of CPU (on the Intel 167 VM) importing numpy, scipy, pandas
and the analysis before a command starts, most of a summarize's time; the suite runs some four
hundred commands.
Here a server process per pytest worker imports them once and forks a child per command: the
child is a process of its own with the command line, working folder, environment, CPUs, standard
streams and exit status a fresh one would have (a traceback printed and status 1 on an uncaught
exception, as the interpreter does), and it exits as the interpreter does, after its atexit
handlers. What differs is only what was imported before the command began; a test about start-up
itself (which modules a command imports, the interpreter without Debian's packages), about
signals sent to the command, or about a setting read at start (PYTHON*, LANG, LC_*, MPLBACKEND)
runs the interpreter itself (fresh_analysis; `analysis` falls back to it for such an environment)."""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Mapping

ROOT = Path(__file__).resolve().parents[2]

# The server: reads one request a line on stdin, forks the command, writes the child's pid, then
# its wait status, a line each on stdout. A child never returns into the loop.
_SERVER = r"""
import atexit, io, json, os, runpy, sys, time, traceback
import analysis.cli
analysis.cli.commands()  # every subcommand's module and what it imports
import matplotlib.pyplot  # noqa: F401 (the report's drawers)
proto_in, proto_out = sys.stdin.buffer, sys.stdout.buffer
# the server's streams are pipes, as a fresh interpreter's are under subprocess: their settings
IN = (sys.stdin.encoding, sys.stdin.errors)
OUT = (sys.stdout.encoding, sys.stdout.errors)
ERR = (sys.stderr.encoding, sys.stderr.errors)
def child(req):
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    time.tzset()
    os.sched_setaffinity(0, req["cpus"])  # the caller's CPUs (a test marked all_cpus widens them)
    for fd, path, mode in ((0, req["stdin"], os.O_RDONLY), (1, req["stdout"], os.O_WRONLY),
                           (2, req["stderr"], os.O_WRONLY)):
        f = os.open(path, mode)
        os.dup2(f, fd)
        os.close(f)
    # new streams on the new descriptors, as the interpreter makes them for files
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=IN[0],
                                 errors=IN[1])
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding=OUT[0],
                                  errors=OUT[1])
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding=ERR[0],
                                  errors=ERR[1], line_buffering=True)
    sys.argv = ["analysis", *req["args"]]
    code = 0
    try:
        runpy.run_module("analysis", run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code & 0xFF)
for line in proto_in:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        child(req)
    proto_out.write(b"%d\n" % pid)
    proto_out.flush()
    _, status = os.waitpid(pid, 0)
    proto_out.write(b"%d\n" % status)
    proto_out.flush()
"""

# What the interpreter (or matplotlib, when the server imports it) reads at its start: where a
# test sets one of these otherwise, its command runs in a fresh interpreter.
_AT_START = ("PYTHON", "LANG", "LC_", "MPLBACKEND")


# Set for every command: the package importable from any folder, figures drawn without a display.
_FIXED = {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}


def _environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a command gets: the test's as it is now (a monkeypatched variable included),
    _FIXED, then extra."""
    return {**os.environ, **_FIXED, **(extra or {})}


class _ServerGone(Exception):
    pass


class _Server:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}  # what the server started with

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def reads_otherwise(self, env: Mapping[str, str]) -> bool:
        """Whether a command in env would start otherwise than the server did (_AT_START)."""
        started = self.env if self.running() else _environment()
        return any(k.startswith(_AT_START) and env.get(k) != started.get(k) for k in {*env, *started})

    def start(self) -> subprocess.Popen[bytes]:
        if not self.running():
            self.env = _environment()
            # unbuffered: a line read is all that is taken from the pipe, so select sees the next
            self.proc = subprocess.Popen([sys.executable, "-c", _SERVER], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, cwd=ROOT, env=self.env, bufsize=0)
        return self.proc

    def stop(self) -> None:
        if self.running():
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)

    def run(self, args: list[str], cwd: Path, env: dict[str, str], stdin: str, timeout: float
            ) -> subprocess.CompletedProcess[str]:
        with self.lock, tempfile.TemporaryDirectory(prefix="analysis-run-") as tmp:
            out, err = Path(tmp) / "out", Path(tmp) / "err"
            out.touch()
            err.touch()
            proc = self.start()
            assert proc.stdin is not None and proc.stdout is not None
            req = {"args": args, "cwd": str(cwd), "env": env, "stdin": stdin, "stdout": str(out), "stderr": str(err),
                   "cpus": sorted(os.sched_getaffinity(0))}
            proc.stdin.write(json.dumps(req).encode() + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:  # the server did not start (an import failed): the caller runs a fresh interpreter
                raise _ServerGone
            pid = int(line)
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            if not ready:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # it ended as the time ran out
                    pass
                proc.stdout.readline()
                raise subprocess.TimeoutExpired(["analysis", *args], timeout)
            status = int(proc.stdout.readline())
            code = os.waitstatus_to_exitcode(status)
            return subprocess.CompletedProcess(["analysis", *args], code, out.read_text(encoding="utf-8"),
                                               err.read_text(encoding="utf-8", errors="backslashreplace"))


_server = _Server()


def fresh_analysis(*args: str, cwd: Path = ROOT, env: Mapping[str, str] | None = None, timeout: float = 600,
                   input: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a fresh interpreter, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "analysis", *args], capture_output=True, text=True, cwd=cwd,
                          env=_environment(env), timeout=timeout, input=input)


def analysis(*args: str, cwd: Path = ROOT, env: Mapping[str, str] | None = None, timeout: float = 600,
             input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python3 -m analysis ARGS` run in `cwd` with the tests' environment plus `env`: a forked child
    of the worker's server (a fresh interpreter where `env` sets what one reads at start)."""
    full = _environment(env)
    if _server.reads_otherwise(full):
        return fresh_analysis(*args, cwd=cwd, env=env, timeout=timeout, input=input)
    try:
        if input is None:
            return _server.run(list(args), Path(cwd), full, os.devnull, timeout)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".stdin") as f:
            f.write(input)
            f.flush()
            return _server.run(list(args), Path(cwd), full, f.name, timeout)
    except (_ServerGone, BrokenPipeError):  # its own error, in the words a user would see
        return fresh_analysis(*args, cwd=cwd, env=env, timeout=timeout, input=input)


def stop() -> None:
    """Ends the worker's server (conftest, at the session's end)."""
    _server.stop()

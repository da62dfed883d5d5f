"""Shared fixtures: the repository root, where the memfbench binary is, and a helper that runs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

import analysis_runner

ROOT = Path(__file__).resolve().parents[2]  # tests/py/conftest.py
sys.path.insert(0, str(ROOT))

# Short runs: few rounds in one process (the default is 10 processes), everything else at its default.
QUICK = ["--rounds", "8", "--warmup-rounds", "2", "--processes", "1", "-q"]
# A cache geometry given rather than detected, for tests whose expected layout depends on it, so
# they mean the same on every machine (Zen 3's: the smallest L1d of our development machines). The
# plan follows it; what the caches really do is the placement check's to say (test_placement_check.py).
GEOMETRY = ["--cache", "32K:512K:32M"]


# The CPUs pytest may use, before a worker is given its share (below): a test that needs several
# CPUs, or names one, is marked all_cpus and runs on all of them.
ALL_CPUS = frozenset(os.sched_getaffinity(0))


def worker_cpus() -> frozenset[int]:
    """This pytest-xdist worker's share of ALL_CPUS: worker i of n takes every n-th CPU from the i-th,
    where there are at least n CPUs; all of them otherwise and outside xdist. A study pins itself to
    the last CPU it may run on, so with every worker on all CPUs, both workers' studies (and their
    children) queued on that one while the others waited for Python, and a process starved by its
    neighbour had its slot run again; each on its own CPU, neither waits on the other."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    cpus = sorted(ALL_CPUS)
    if not name.startswith("gw") or not name[2:].isdigit() or not 1 < count <= len(cpus):
        return ALL_CPUS
    return frozenset(cpus[int(name[2:]) % count::count])


WORKER_CPUS = worker_cpus()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """A test marked all_cpus (its set-up, its fixtures' and its teardown included) runs on ALL_CPUS,
    every other one on its worker's share."""
    wide = item.get_closest_marker("all_cpus") is not None and WORKER_CPUS != ALL_CPUS
    if wide:
        os.sched_setaffinity(0, ALL_CPUS)
    try:
        yield
    finally:
        if wide:
            os.sched_setaffinity(0, WORKER_CPUS)


def pytest_configure(config: pytest.Config) -> None:
    """Every skip's reason in the closing summary (as -rs), not only how many: a run says what it
    did not test (test_slurm.py's cluster where the daemons are missing or do not start, say). A
    worker runs on its share of the CPUs (worker_cpus)."""
    config.addinivalue_line("markers", "all_cpus: the test needs several CPUs, or names one: it runs on every "
                            "CPU pytest may use, not on its worker's share")
    if WORKER_CPUS != ALL_CPUS:
        os.sched_setaffinity(0, WORKER_CPUS)
    chars = config.option.reportchars or ""
    if not any(c in chars for c in "saAN"):
        config.option.reportchars = chars + "s"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The worker's analysis server (analysis_runner) ends with it."""
    analysis_runner.stop()


def binary() -> str:
    env = os.environ.get("MEMFBENCH")
    if env:
        return env
    for cand in (ROOT / "build" / "bench" / "memfbench",):
        if cand.exists():
            return str(cand)
    pytest.skip("memfbench binary not built (set MEMFBENCH or build into ./build)")
    return ""


def libc_copy_runs() -> bool:
    """Whether this build has the dlmopen copy of libc (not under AddressSanitizer: `memfbench list`
    marks it unavailable there, with the reason)."""
    listing = subprocess.run([binary(), "list"], capture_output=True, text=True, timeout=60).stdout
    return any(line.split()[:1] == ["libc-copy"] for line in listing.splitlines())


def sanitized() -> bool:
    """Whether the binary is built with AddressSanitizer (its runtime's entry point is linked in):
    a few properties (address-space limits, resident memory, byte-identical code copies) only
    hold without the instrumentation."""
    env = os.environ.get("MEMFBENCH")
    path = Path(env) if env else ROOT / "build" / "bench" / "memfbench"
    return path.exists() and b"__asan_init" in path.read_bytes()


SANITIZED = sanitized()
needs_plain_build = pytest.mark.skipif(SANITIZED, reason="not under AddressSanitizer: its shadow memory and "
                                       "instrumented code change what this test measures")

# memfbench record and ab preload libraries into programs (the recorder, the ab shim and, through
# it, the built-ins), where a sanitizer runtime would have to come first: under the sanitized build
# their tests cannot run the programs; tests/c/ab_sanitizers.sh checks ab's own code there.
needs_plain_preload = pytest.mark.skipif(SANITIZED, reason="preloads libraries into programs, which a sanitized "
                                         "build's recorder and built-ins cannot enter (tests/c/ab_sanitizers.sh "
                                         "runs ab under the sanitizers)")

# The A/A partner of libc in quick structural tests: libc's second copy where it runs, else libc
# in the counting wrapper (the same function through one more call).
AA_OF_LIBC = "libc-copy" if os.environ.get("MEMFBENCH") is None or libc_copy_runs() else "libc-wrapped"


class Result:
    def __init__(self, proc: subprocess.CompletedProcess[str], out: Path | None):
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out

    @property
    def doc(self) -> dict[str, Any]:
        assert self.out is not None
        with open(self.out, encoding="utf-8") as f:
            return json.load(f)

    @property
    def stderr_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def memfbench() -> str:
    return binary()


def gives_caches(args: tuple[str, ...]) -> bool:
    return any(a in ("--cache", "--cache-from") or a.startswith(("--cache=", "--cache-from=")) for a in args)


def run_in(memfbench: str, folder: Path, *args: str, out: str | None = "out.json", timeout: float = 120,
           own_caches: bool = False) -> Result:
    """memfbench run with the given arguments, its file in `folder`. The cache geometry is GEOMETRY
    unless the test gives one (--cache, --cache-from) or asks for the machine's own (own_caches=True,
    for the tests about detection): a plan means the same on every machine, and a VM that claims a
    socket-wide LLC (508 MiB on the Zen 5 VM) does not make every process fill a 2 GiB arena."""
    target = folder / out if out else None
    cmd = [memfbench, "run", *args, *([] if own_caches or gives_caches(args) else GEOMETRY)]
    if target is not None:
        cmd += ["-o", str(target)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return Result(proc, target)


@pytest.fixture
def run(memfbench: str, tmp_path: Path):
    """run_in the test's own folder."""
    def _run(*args: str, out: str | None = "out.json", timeout: float = 120, own_caches: bool = False) -> Result:
        return run_in(memfbench, tmp_path, *args, out=out, timeout=timeout, own_caches=own_caches)

    return _run


def kept_processes(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A merged file's processes less those the run marked dropped (a starved process whose design
    slot it ran again, which a loaded machine can cause in any study: processes/processes.c)."""
    return [p for p in doc.get("processes") or [] if "dropped" not in p]


def one_line_refusal(p: subprocess.CompletedProcess[str], *words: str) -> None:
    """A refusal as every command gives one: exit 2, one line on stderr naming each of words, nothing
    on stdout, no traceback."""
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and all(w in lines[0] for w in words), lines[0]


def wait_until(ready: Callable[[], Any], what: str, timeout: float = 120.0) -> Any:
    """Polls ready() every 20 ms until it gives something true, and returns that; past timeout the
    test fails naming what it waited for. A wait on an event, never on the clock: on a loaded
    machine it lasts as long as the event takes, on an idle one no longer."""
    deadline = time.monotonic() + timeout
    while not (got := ready()):
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(0.02)
    return got


def a_process_finished(folder: Path, out_name: str) -> bool:
    """A run writing folder/out_name has finished one of its processes: that process's hidden
    temporary (.OUT.memfbench-PID-procN.*) holds its result, so an interrupt from now on leaves
    measured batches in the file."""
    try:
        return any(f.name.startswith(f".{out_name}.memfbench-") and "-proc" in f.name and f.stat().st_size > 0
                   for f in folder.iterdir())
    except FileNotFoundError:  # a temporary renamed between the listing and its stat
        return False

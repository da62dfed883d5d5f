"""The subcommand matrix (issue 51): every subcommand the dispatcher lists (`memfbench help
--commands`, made from bench/cli/main.c's table) passes every case that applies to it, by the
table in tools/lib/matrix.py (COMMANDS: its file inputs, its output, its phases that start a
program): --help; SIGINT to its group and SIGTERM to it in each such phase, held open by a
recipe, end it within STOP_BOUND_S with 128 + the signal, one line, nothing left running and no
temporary; -o onto each input refused in one line with the input intact; an unwritable output
folder refused in one line before any work; a FIFO and /dev/zero as each input refused or
bounded, in one line. A subcommand the dispatcher lists and the table lacks fails here, named.
The cases are tools/lib/matrix.py's run_case, which tools/matrix.py tabulates for
docs/reliability.md; one pytest case each, so pytest-xdist spreads them."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, SANITIZED
from tools.lib import matrix as mx


def _listed() -> list[str]:
    """The dispatcher's list, read when the cases are collected: none before the build, or from a
    binary that cannot list them (test_the_dispatcher_lists_what_its_usage_shows then says why, and
    every row of the matrix fails as one the dispatcher does not list)."""
    path = Path(os.environ.get("MEMFBENCH") or ROOT / "build" / "bench" / "memfbench")
    try:
        return mx.listed_commands(str(path)) if path.exists() else []
    except RuntimeError:
        return []


CASES = mx.all_cases(_listed())


def _missing(case: mx.Case) -> str | None:
    """Why this machine (or build) cannot run the case, or None."""
    if case.kind in (mx.Kind.HELP, mx.Kind.UNLISTED):
        return None
    if case.command == "counts" and shutil.which("valgrind") is None:
        return "memfbench counts runs valgrind, which is not installed (Debian package valgrind)"
    if case.item in ("compile", "training", "source") and shutil.which("cc") is None:
        return "no C compiler (cc) to build the source variant"
    if case.command in ("record", "ab") and SANITIZED:
        return "record and ab preload libraries a sanitized build's programs cannot take (tests/c/ab_sanitizers.sh)"
    return None


@pytest.fixture(scope="session")
def shared(memfbench: str, tmp_path_factory: pytest.TempPathFactory) -> mx.Shared:
    """The valid inputs every case copies (one recording, one result file per worker)."""
    return mx.prepare(tmp_path_factory.mktemp("matrix-inputs"), memfbench)


def test_the_dispatcher_lists_what_its_usage_shows(memfbench: str) -> None:
    listed = mx.listed_commands(memfbench)
    usage = subprocess.run([memfbench, "help"], capture_output=True, text=True, timeout=30).stdout
    shown = re.findall(r"(?m)^  ([a-z]+) ", usage)
    assert listed == shown, (listed, shown)
    assert {"run", "sweep", "analyze", "list", "version", "help"} <= set(listed)


def test_a_subcommand_missing_from_the_matrix_fails_by_name() -> None:
    cases = mx.all_cases(["run", "frobnicate"])
    missing = [c for c in cases if c.kind == mx.Kind.UNLISTED]
    assert [c.command for c in missing] == ["frobnicate"] + [n for n in mx.COMMANDS if n != "run"]
    o = mx.run_case(mx.Shared("memfbench", Path("/nonexistent"), Path("/nonexistent")), Path("/nonexistent"),
                    missing[0])
    assert not o.passed and "'frobnicate'" in o.message() and "add it to the matrix" in o.message()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matrix(case: mx.Case, shared: mx.Shared, tmp_path: Path, record_property) -> None:
    if why := _missing(case):
        pytest.skip(why)
    o = mx.run_case(shared, tmp_path / "case", case)
    if o.seconds is not None:  # the stop cases' seconds are the table's (tools/matrix.py)
        record_property("seconds", f"{o.seconds:.3f}")
        print(f"{case.id}: {o.seconds:.3f} s")
    assert o.passed, o.message()

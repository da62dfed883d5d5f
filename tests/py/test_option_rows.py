"""Every command's options are rows read by the one parser (bench/base/flags.c): an unknown option,
a missing value and a bad value are one line naming the option, exit 2, before anything runs and
with nothing written; --help lists every row. --cache and --deadline are declared once
(base/flags.h) and mean the same on every command that has them; a --deadline given is the one
that bounds the command's programs. counts -v refuses an empty name and a name given twice."""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, needs_plain_preload
from test_cli_help import INTERNAL, table

# Each command with an argument list that would run as given (so the option under test is all
# that is wrong with it); {out} is a path in the test's folder that must not appear.
VALID = {
    "run": ["-v", "libc", "--rounds", "1", "--processes", "1", "-q", "-o", "{out}"],
    "ab": ["-v", "sse2", "-q", "-o", "{out}", "--", "true"],
    "merge": ["-o", "{out}", "{tmp}/nothing"],
    "record": ["-o", "{out}", "--", "true"],
    "suite": ["-o", "{out}", "--", "-v", "libc", "-v", "bytes", "--rounds", "1"],
    "counts": ["-v", "bytes", "--calls", "100", "-q", "-o", "{out}"],
    "probe": ["--quick", "-q", "-o", "{out}"],
}
# The commands that start programs, so take --deadline.
STARTERS = ["run", "ab", "record", "suite", "counts"]


def command(memfbench: str, name: str, tmp: Path, *before: str) -> list[str]:
    """name's valid arguments with before put first (options, so record's and ab's program stays last)."""
    args = [a.replace("{out}", str(tmp / "out")).replace("{tmp}", str(tmp)) for a in VALID[name]]
    return [memfbench, name, *before, *args]


def refused(p: subprocess.CompletedProcess[str], tmp: Path) -> str:
    """The one line of a usage error; nothing written."""
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr)
    assert not (tmp / "out").exists() and p.stdout == ""
    return lines[0]


def run(args: list[str], timeout: float = 60, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize("name, typo, meant", [
    ("run", "--runds", "--rounds"), ("ab", "--runz", "--runs"), ("merge", "--bpftracee", "--bpftrace"),
    ("record", "--flsh", "--flush"), ("suite", "--sett", "--set"), ("counts", "--calss", "--calls"),
    ("probe", "--repaets", "--repeats")])
def test_an_unknown_option_is_one_line_with_the_nearest(memfbench: str, tmp_path: Path, name: str, typo: str,
                                                        meant: str) -> None:
    line = refused(run(command(memfbench, name, tmp_path, typo, "1")), tmp_path)
    assert line.startswith(f"memfbench {name}: unknown option '{typo}': did you mean {meant}? "
                           f"(see memfbench {name} --help"), line


@pytest.mark.parametrize("name", list(VALID))
def test_an_option_far_from_every_row_gets_no_guess(memfbench: str, tmp_path: Path, name: str) -> None:
    line = refused(run(command(memfbench, name, tmp_path, "--zzzzzz")), tmp_path)
    assert f"memfbench {name}: unknown option '--zzzzzz'" in line and "did you mean" not in line


def test_the_suite_says_where_run_options_go(memfbench: str, tmp_path: Path) -> None:
    line = refused(run([memfbench, "suite", "--rounds", "1", "-o", str(tmp_path / "out")]), tmp_path)
    assert "unknown option '--rounds'" in line and "run options go after --" in line


@pytest.mark.parametrize("name, last, said", [
    ("run", "--deadline", "--deadline needs a value"), ("ab", "--deadline", "--deadline needs a value"),
    ("record", "--deadline", "--deadline needs a value"), ("suite", "--deadline", "--deadline needs a value"),
    ("counts", "--deadline", "--deadline needs a value"), ("merge", "-o", "-o (--output) needs a value"),
    ("probe", "--repeats", "--repeats needs a value")])
def test_a_missing_value_names_its_option(memfbench: str, name: str, last: str, said: str) -> None:
    # the last argument: after a program (record's, ab's) it would be the program's
    p = run([memfbench, name, last])
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and lines == [f"memfbench {name}: {said}"], p.stderr


@pytest.mark.parametrize("name, option, value, said", [
    ("run", "--rounds", "0", "--rounds"), ("ab", "--runs", "1", "--runs: '1' is not a number of blocks"),
    ("record", "--rate", "2/3", "--rate: '2/3'"), ("suite", "--set", "nope", "--set: 'nope'"),
    ("counts", "--calls", "5", "--calls: '5'"), ("probe", "--repeats", "99", "--repeats: '99'")])
def test_a_bad_value_is_one_line_naming_its_option(memfbench: str, tmp_path: Path, name: str, option: str,
                                                   value: str, said: str) -> None:
    line = refused(run(command(memfbench, name, tmp_path, option, value)), tmp_path)
    assert line.startswith(f"memfbench {name}: ") and said in line, line


def test_a_value_holding_a_newline_is_still_one_line(memfbench: str, tmp_path: Path) -> None:
    line = refused(run(command(memfbench, "ab", tmp_path, "--runs", "1\n2")), tmp_path)
    assert "--runs: '1?2'" in line


@pytest.mark.parametrize("name", list(VALID))
def test_help_lists_every_row(memfbench: str, name: str) -> None:
    p = run([memfbench, name, "--help"])
    assert p.returncode == 0 and p.stderr == "" and p.stdout.startswith(f"usage: memfbench {name}")
    for option in set(table(name)) - INTERNAL.get(name, set()):
        assert re.search(rf"(?m)^  (-\w, )?    --{option}\b|^  -\w, --{option}\b", p.stdout), option


def test_no_command_keeps_its_own_option_loop() -> None:
    """Every command's options go through base/flags.c; no cli file runs getopt itself."""
    for src in sorted((ROOT / "bench" / "cli").glob("*.c")):
        text = src.read_text(encoding="utf-8")
        assert "getopt_long(" not in text and "<getopt.h>" not in text, src.name


def help_row(memfbench: str, name: str, option: str) -> list[str]:
    """The lines --help gives an option: its own and the help's further lines under it."""
    lines = run([memfbench, name, "--help"]).stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if re.match(rf"^  (-\w, |    )--{option}\b", x))
    rest = lines[at + 1:]
    end = next((i for i, x in enumerate(rest) if not x.startswith(" " * 25)), len(rest))
    return [lines[at], *rest[:end]]


@pytest.mark.parametrize("option, commands", [("cache", ["run", "counts"]), ("deadline", STARTERS)])
def test_a_shared_option_is_declared_once(memfbench: str, option: str, commands: list[str]) -> None:
    rows = {name: help_row(memfbench, name, option) for name in commands}
    first = rows[commands[0]]
    assert all(r == first for r in rows.values()), rows


@pytest.mark.parametrize("name", ["run", "counts"])
def test_a_bad_cache_is_said_alike(memfbench: str, tmp_path: Path, name: str) -> None:
    line = refused(run(command(memfbench, name, tmp_path, "--cache", "48K:2M")), tmp_path)
    assert line == f"memfbench {name}: --cache: '48K:2M' is not L1D:L2:LLC sizes such as 48K:2M:32M"


@pytest.mark.parametrize("name", STARTERS)
@pytest.mark.parametrize("value, said", [
    ("nokind=1", "--deadline: 'nokind' is not a kind of program"),
    ("build", "--deadline: 'build' is not KIND=SECONDS"),
    ("build=-1", "--deadline: build: '-1' is not a number of seconds"),
    ("valgrind=1,", "--deadline: 'valgrind=1,' ends with a comma")])
def test_a_bad_deadline_is_one_line(memfbench: str, tmp_path: Path, name: str, value: str, said: str) -> None:
    line = refused(run(command(memfbench, name, tmp_path, "--deadline", value)), tmp_path)
    assert line.startswith(f"memfbench {name}: {said}"), line


def test_ab_bounds_its_runs_with_its_watchdog(memfbench: str, tmp_path: Path) -> None:
    line = refused(run(command(memfbench, "ab", tmp_path, "--deadline", "program=5")), tmp_path)
    assert "--deadline program" in line and "--watchdog" in line


@needs_plain_preload
def test_record_stops_the_program_at_its_deadline(memfbench: str, tmp_path: Path) -> None:
    # the deadline is the bound: 30 s of sleep end after about one (20 s is the generous bound of a
    # loaded machine, where the test fails by its timeout)
    p = run([memfbench, "record", "--deadline", "program=1", "-o", str(tmp_path / "out"), "--", "sleep", "30"],
            timeout=20)
    assert p.returncode != 0 and "--deadline program" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_counts_stops_valgrind_at_its_deadline(memfbench: str, tmp_path: Path) -> None:
    # 16 million calls under callgrind take minutes; the deadline ends them after one second
    p = run([memfbench, "counts", "--deadline", "valgrind=1", "-v", "bytes", "--calls", "16777216", "-q", "-o",
             str(tmp_path / "out")], timeout=30)
    assert p.returncode == 1 and "--deadline valgrind" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["ab", "suite"])
def test_a_process_deadline_bounds_memfbenchs_own_processes(memfbench: str, tmp_path: Path, name: str) -> None:
    # a microsecond: no process of memfbench's own (ab's check of the variants, a suite's study)
    # can start and answer within it
    p = run(command(memfbench, name, tmp_path, "--deadline", "process=1e-6"), timeout=60)
    assert p.returncode != 0 and "--deadline process" in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()


def test_a_suite_gives_its_deadlines_to_each_study(memfbench: str, tmp_path: Path) -> None:
    out = tmp_path / "s"
    p = run([memfbench, "suite", "-q", "--deadline", "build=77,tool=none", "-o", str(out), "--", "-v", "libc", "-v",
             "bytes", "--rounds", "2", "--processes", "1", "--cache", "32K:512K:32M"], timeout=300)
    assert p.returncode == 0, p.stderr
    for f in sorted(out.iterdir()):
        deadline = json.loads(gzip.decompress(f.read_bytes()))["config"]["deadline"]
        assert deadline["build"] == 77 and deadline["tool"] is None, (f.name, deadline)


@pytest.mark.parametrize("values, said", [
    ([",,"], "-v: ',,' holds an empty name"),
    (["avx2,,sse2"], "-v: 'avx2,,sse2' holds an empty name"),
    ([""], "-v: '' holds an empty name"),
    (["bytes,"], "-v: 'bytes,' holds an empty name"),
    (["bytes,bytes"], "-v: 'bytes' is named twice"),
    (["bytes", "bytes"], "-v: 'bytes' is named twice"),
    (["sse2,bytes", "noop,bytes"], "-v: 'bytes' is named twice"),
    (["libc"], "-v: libc is the baseline")])
def test_counts_refuses_an_empty_or_repeated_name_before_anything_runs(memfbench: str, tmp_path: Path,
                                                                       values: list[str], said: str) -> None:
    # without valgrind on PATH: a check made after the first step would be about valgrind
    env = {**os.environ, "PATH": str(tmp_path / "nowhere")}
    args = [memfbench, "counts", *[x for v in values for x in ("-v", v)], "-o", str(tmp_path / "out")]
    line = refused(run(args, env=env), tmp_path)
    assert line.startswith(f"memfbench counts: {said}"), line

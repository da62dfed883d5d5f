"""Readers bounded by construction (issue 42, case 8 and 15): a table or trace that never ends,
a device, a folder, a line or a row past any real table's are refused in one line, fast, before
memory grows."""
from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest

QUICK = ["-v", "libc", "--rounds", "1", "--processes", "1", "--cache", "32K:512K:32M", "-q"]


def run(memfbench: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "run", *QUICK, *args, "-o", str(tmp_path / "x.json")], capture_output=True,
                          text=True, timeout=30)


def one_line(p: subprocess.CompletedProcess[str]) -> str:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr[-500:])
    return lines[0]


@pytest.mark.parametrize("option", ["--trace", "-d"])
def test_a_device_that_never_ends_is_refused(memfbench: str, tmp_path: Path, option: str) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = run(memfbench, tmp_path, option, "/dev/zero")
    assert "/dev/zero" in one_line(p) and "not a regular file" in one_line(p)
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < max(before, 512 * 1024)  # KiB: no growth
    assert not (tmp_path / "x.json").exists()


def test_a_folder_is_named_as_one(memfbench: str, tmp_path: Path) -> None:
    assert "not a regular file (a folder)" in one_line(run(memfbench, tmp_path, "-d", str(tmp_path)))


def test_a_line_longer_than_any_table_is_refused(memfbench: str, tmp_path: Path) -> None:
    f = tmp_path / "long_size.csv"
    f.write_text("size,weight\n8," + "1" * (1 << 20) + "\n")
    line = one_line(run(memfbench, tmp_path, "-d", str(f)))
    assert f"{f}:2: a line longer than 1048576 bytes" in line


def test_a_file_without_a_newline_is_bounded_too(memfbench: str, tmp_path: Path) -> None:
    """Fields: at most half a line's bytes, so the line bound bounds them; a 3 MiB row of commas
    is refused at its first MiB."""
    f = tmp_path / "wide_size.csv"
    f.write_text("size,weight\n" + "," * (3 << 20))
    assert f"{f}:2: a line longer than 1048576 bytes" in one_line(run(memfbench, tmp_path, "-d", str(f)))


def test_temporaries_of_killed_runs_are_swept_with_one_line(memfbench: str, tmp_path: Path) -> None:
    """Every memfbench temporary of a process that is gone, whatever file it was for (issue 42,
    case 15: a killed run's temporary stayed until a run to that very file); a live one stays."""
    import os
    dead = 2 ** 22 + 12345  # above pid_max's default: no such process
    (tmp_path / f".a.json.memfbench-{dead}.x1").write_text("{")
    (tmp_path / f".other.json.gz.memfbench-{dead}-proc3.abc").write_text("")
    (tmp_path / f".rec.memfbench-{dead}.d").mkdir()
    live = tmp_path / f".b.json.memfbench-{os.getpid()}.x2"
    live.write_text("")
    (tmp_path / "keep.memfbench-1.txt").write_text("not a temporary")
    p = subprocess.run([memfbench, "run", *QUICK, "-o", str(tmp_path / "new.json")], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert f"{tmp_path}: removed 3 temporaries left by runs that were killed" in p.stderr
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted([live.name, "keep.memfbench-1.txt", "new.json"])

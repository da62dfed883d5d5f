"""The table of warnings and notes (bench/base/warn.c): every row has a code, a severity, a
consequence and a fix; every row is raised somewhere in the sources and nothing is raised outside
it; a warning as printed and as written into the file is the finding followed by its row's
consequence and fix. And the run's usage errors: a configuration that cannot run (variant, plugin,
distribution, output onto an input) exits 2 before any process starts, in one line; progress is
never one line per process where stderr is not a terminal."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT


def table(memfbench: str) -> list[list[str]]:
    p = subprocess.run([memfbench, "list", "--warnings"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines()]


def test_every_row_says_consequence_and_fix(memfbench):
    rows = table(memfbench)
    assert len(rows) >= 20
    for row in rows:
        assert len(row) == 4, row
        code, severity, consequence, fix = row
        assert re.fullmatch(r"[a-z_]+", code) and severity in ("warning", "note"), row
        # sentences of their own, not a stub: a clause of several words each
        assert len(consequence.split()) >= 4 and len(fix.split()) >= 3, row
        assert not consequence.endswith(".") and not fix.endswith("."), row  # the line adds its own stops
    codes = [r[0] for r in rows]
    assert len(set(codes)) == len(codes)
    listed = subprocess.run([memfbench, "list"], capture_output=True, text=True).stdout
    assert listed.split("memfbench list --warnings):")[1].strip().split(", ") == codes


def test_every_row_is_raised_somewhere_and_nothing_outside_the_table():
    kinds = set()
    for f in (Path(ROOT) / "bench").rglob("*.c"):
        if f.name == "warn.c":
            continue
        text = f.read_text()
        kinds |= set(re.findall(r"mfb_warn\([^,]+, (MFB_W_[A-Z_]+)", text))
        assert not re.search(r'mfb_(?:warn|note)\([^,]+, "', text), f  # a code given as a string bypasses the table
    header = (Path(ROOT) / "bench" / "base" / "warn.h").read_text()
    declared = set(re.findall(r"\b(MFB_W_[A-Z_]+)\b", header.split("enum mfb_warning {")[1].split("};")[0])) - {"MFB_W_COUNT"}
    assert kinds == declared, (declared - kinds, kinds - declared)


def test_a_warning_is_its_finding_then_its_rows_consequence_and_fix(memfbench, tmp_path):
    # an L1d of 4 KiB leaves no room for small calls on any machine: warning small_max
    out = tmp_path / "w.json"
    p = subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "--rounds", "4", "--warmup-rounds", "1",
                        "--processes", "2", "--cache", "4K:1M:32M", "-o", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    row = {r[0]: r for r in table(memfbench)}["small_max"]
    want = f": {row[2]}. Fix: {row[3]}"
    printed = [x for x in p.stderr.splitlines() if x.startswith("memfbench: warning: ") and want in x]
    assert len(printed) == 1 and "this CPU's L1d (4096 bytes) leaves" in printed[0], p.stderr
    filed = [w for w in json.loads(out.read_text())["status"]["warnings"] if w["code"] == "small_max"]
    assert len(filed) == 1 and filed[0]["message"].endswith(want) and filed[0]["severity"] == "warning"
    for w in json.loads(out.read_text())["status"]["warnings"]:
        r = {x[0]: x for x in table(memfbench)}[w["code"]]
        assert w["severity"] == r[1] and r[2] in w["message"] and r[3] in w["message"], w


@pytest.mark.parametrize("args,fragment", [
    (["-v", "nosuch"], "'nosuch' is not a variant of memcpy"),
    (["-v", "libc", "-v", "/nonexistent/lib.so:f"], "no such file"),
    (["-d", "no_such_table"], "'no_such_table'"),
    (["-d", "uniform:64-8"], "uniform:64-8"),
])
def test_a_configuration_error_exits_2_before_any_process(memfbench, tmp_path, args, fragment):
    out = tmp_path / "c.json"
    p = subprocess.run([memfbench, "run", *args, "-o", str(out)], capture_output=True, text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], p.stderr
    assert "process" not in lines[0] and not out.exists()


def test_no_line_per_process_off_a_terminal(memfbench, tmp_path):
    p = subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "--rounds", "4", "--warmup-rounds", "1",
                        "--processes", "3", "--cache", "48K:1M:32M", "-o", str(tmp_path / "p.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not re.search(r"process \d+ of \d+", p.stderr), p.stderr
    assert "merged 3 processes" in p.stderr

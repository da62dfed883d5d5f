"""The analysis against hostile names and folders (issue 42, cases 11, 13, 14): history never
writes over a result file of the folder it reads, an unreadable folder is one line, a variant name
holding a newline or a terminal escape is printed as its escapes (never raw, never a new Markdown
line), '|' and '<' in a name stay inside their table cell, and two names of one file name get
plots of their own."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.io.load import shown_name
from analysis_runner import analysis

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--rounds", "3", "--processes", "2", "--allow-single-process", "--cache", "32K:512K:32M", "-q"]


def test_names_are_shown_as_their_escapes() -> None:
    assert shown_name("a\nb") == "a\\nb" and shown_name("x\x1b[31m") == "x\\x1b[31m"
    assert shown_name("ab\u202ec") == "ab\\u202ec" and shown_name("plain-name_1.2") == "plain-name_1.2"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, memfbench) -> Path:
    """A study whose variant names hold a newline, an escape sequence, '|' and '<script>'."""
    d = tmp_path_factory.mktemp("hostile")
    lib = d / "lib.so"
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", "-o", str(lib), str(ROOT / "examples/plugin/memcpy_erms.c")],
                   check=True)
    out = d / "h.json"
    subprocess.run([memfbench, "run", "-v", "libc", "-v", f"{lib}:erms_memcpy=a\nb", "-v",
                    f"{lib}:erms_memcpy=x\x1b[31m|<script>", *QUICK, "-o", str(out)], check=True, timeout=120)
    return out


def test_a_hostile_name_is_escaped_in_the_terminal_and_the_report(hostile: Path, tmp_path: Path) -> None:
    p = analysis("summarize", str(hostile))
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "a\\nb" in p.stdout and "x\\x1b[31m|<script>" in p.stdout
    p = analysis("report", str(hostile), "-o", str(tmp_path / "r"))
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "r" / "report.md").read_text()
    assert "<script>" not in md and "x\\x1b[31m\\|&lt;script&gt;" in md
    assert not any(line.startswith("b |") for line in md.splitlines())  # no row split by the newline
    assert "<script>" not in (tmp_path / "r" / "report.html").read_text()


def test_history_never_writes_over_a_file_it_reads(hostile: Path, tmp_path: Path) -> None:
    d = tmp_path / "series"
    d.mkdir()
    for i in range(3):
        shutil.copy(hostile, d / f"r{i}.json")
    before = (d / "r1.json").read_bytes()
    for option in ("--json", "--csv"):
        p = analysis("history", str(d), option, str(d / "r1.json"))
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert "r1.json" in p.stderr
    assert (d / "r1.json").read_bytes() == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_an_unreadable_folder_is_one_line(tmp_path: Path) -> None:
    d = tmp_path / "locked"
    d.mkdir(mode=0)
    p = analysis("history", str(d))
    assert p.returncode == 2 and "cannot read the folder" in p.stderr and "Traceback" not in p.stderr


def _doc(path: Path) -> dict:
    import gzip
    import json
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def test_a_key_given_twice_is_refused(hostile: Path, tmp_path: Path) -> None:
    """The last of two `samples` blocks would silently win: the file is refused, in one line."""
    import json
    text = json.dumps(_doc(hostile))
    doubled = text[:-1] + ', "samples": {"count": 0}}'
    f = tmp_path / "twice.json"
    f.write_text(doubled)
    p = analysis("summarize", str(f))
    assert p.returncode == 2 and "the key 'samples' is given twice" in p.stderr and "Traceback" not in p.stderr

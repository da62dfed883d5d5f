"""Labels that our own analysis reads back (issue 42, case 9): --label is UTF-8, counted in
characters, without control or direction characters; the git default is cut at a character's
boundary, made UTF-8, and read without side effects on the repository (no fsmonitor command run,
no index written)."""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from analysis_runner import analysis

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--rounds", "1", "--processes", "1", "--cache", "32K:512K:32M", "-q"]


def run(memfbench: str, out: Path, *args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([memfbench, "run", "-v", "libc", *QUICK, *args, "-o", str(out)], capture_output=True,
                          timeout=120)


@pytest.mark.parametrize("label, problem", [(b"v1\xff", b"is no UTF-8"), ("ok\u0085x".encode(), b"U+0085"),
                                            ("a\u202eb".encode(), b"U+202E"), ("\u00e9".encode() * 201, b"201 characters")])
def test_a_label_that_is_not_one_line_of_text_is_refused(memfbench: str, tmp_path: Path, label: bytes,
                                                         problem: bytes) -> None:
    p = run(memfbench, tmp_path / "x.json", "--label", label)
    assert p.returncode == 2 and problem in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.json").exists()


def test_two_hundred_characters_of_two_bytes_each_are_a_label(memfbench: str, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    assert run(memfbench, out, "--label", "\u00e9" * 200).returncode == 0
    p = analysis("summarize", str(out))
    assert p.returncode == 0, p.stderr


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git repository holding the example plugin's build, tagged with a name git allows but that
    is no UTF-8 and is longer than a label, with an fsmonitor command that leaves a mark."""
    if not shutil.which("git"):
        pytest.skip("no git")
    r = tmp_path / "repo"
    r.mkdir()
    git = ["git", "-C", str(r), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", "-o", str(r / "lib.so"),
                    str(ROOT / "examples/plugin/memcpy_erms.c")], check=True)
    (r / "f.txt").write_text("x")
    subprocess.run([*git, "add", "f.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    subprocess.run([*git, "tag", b"v" + b"a" * 198 + "\u00e9".encode() + b"\xff"], check=True)
    subprocess.run([*git, "config", "core.fsmonitor", f"touch {tmp_path / 'fsmonitor-ran'}; false"], check=True)
    return r


def test_the_git_label_is_text_and_reads_the_repository_without_side_effects(memfbench: str, repo: Path,
                                                                             tmp_path: Path) -> None:
    index = repo / ".git" / "index"
    before = index.stat().st_mtime_ns
    out = tmp_path / "g.json"
    p = run(memfbench, out, "-v", f"{repo / 'lib.so'}:erms_memcpy=erms")
    assert p.returncode == 0, p.stderr
    label = json.loads(out.read_text(encoding="utf-8"))["config"]["label"]
    assert label["source"] == "git" and len(label["text"]) <= 200 and "\ufffd" not in label["text"]
    assert label["text"].startswith("va") and "\u00e9" in label["text"]  # the whole character kept, the bad byte '?'
    assert not (tmp_path / "fsmonitor-ran").exists() and index.stat().st_mtime_ns == before
    p = analysis("summarize", str(out))
    assert p.returncode == 0, p.stderr

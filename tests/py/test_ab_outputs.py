"""memfbench ab under the input/output rule of every subcommand (files/inputs.c): neither -o nor
--program-output may name the program, a variant's shared object, a file of the recording, or each
other; each is one line, exit 2, and leaves the input as it was (issue 42, case 1 and 2)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import needs_plain_preload

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
SHIM = BUILD / "bench" / "ab" / "shim" / "libmemfbench-ab.so"
QUICK = ["-q", "--runs", "2", "--warmup", "0"]

pytestmark = pytest.mark.skipif(not SHIM.exists(), reason="the ab shim is not built")


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def refused(p: subprocess.CompletedProcess[str], *fragments: str) -> None:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr)
    for f in fragments:
        assert f in lines[0], lines[0]


@pytest.fixture()
def program(tmp_path: Path) -> Path:
    prog = tmp_path / "p"
    shutil.copy2(shutil.which("true"), prog)
    return prog


def test_the_result_may_not_overwrite_the_program(memfbench: str, program: Path, tmp_path: Path) -> None:
    before = digest(program)
    (tmp_path / "link").symlink_to(program)
    for target in (program, tmp_path / "link"):
        p = subprocess.run([memfbench, "ab", *QUICK, "-v", "rep_movsb", "-o", str(target), "--", str(program)],
                           capture_output=True, text=True, timeout=120)
        refused(p, "-o names an input, the program")
    assert digest(program) == before


def test_the_result_may_not_overwrite_a_variants_library(memfbench: str, program: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib.so"
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", "-o", str(lib), str(ROOT / "examples/plugin/memcpy_erms.c")],
                   check=True)
    before = digest(lib)
    p = subprocess.run([memfbench, "ab", *QUICK, "-v", f"{lib}:erms_memcpy", "-o", str(lib), "--", str(program)],
                       capture_output=True, text=True, timeout=120)
    refused(p, "-o names an input, the plugin")
    assert digest(lib) == before


def test_the_programs_output_may_not_go_into_an_input_or_the_result(memfbench: str, program: Path,
                                                                      tmp_path: Path) -> None:
    before = digest(program)
    p = subprocess.run([memfbench, "ab", *QUICK, "-v", "rep_movsb", "--program-output", str(program), "-o",
                        str(tmp_path / "o.json"), "--", str(program)], capture_output=True, text=True, timeout=120)
    refused(p, "--program-output names an input, the program")
    assert digest(program) == before and not (tmp_path / "o.json").exists()
    out = tmp_path / "o.json"
    p = subprocess.run([memfbench, "ab", *QUICK, "-v", "rep_movsb", "--program-output", str(out), "-o", str(out), "--",
                        str(program)], capture_output=True, text=True, timeout=120)
    refused(p, "--program-output names the result file")
    assert not out.exists()


@needs_plain_preload
def test_the_result_may_not_overwrite_the_recording(memfbench: str, tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    readme = str(ROOT / "README.md")
    subprocess.run([memfbench, "record", "-o", str(rec), "--", "sort", "-o", str(tmp_path / "s.txt"), readme],
                   check=True, capture_output=True, timeout=120)
    for option, target in (("-o", rec / "provenance.json"), ("--program-output", rec / "memcpy_size.csv")):
        before = digest(target)
        extra = ["-o", str(tmp_path / "o.json")] if option != "-o" else []
        p = subprocess.run([memfbench, "ab", *QUICK, "-v", "rep_movsb", "--predict-from", str(rec), option, str(target),
                            *extra, "--", "sort", "-o", str(tmp_path / "s.txt"), readme],
                           capture_output=True, text=True, timeout=120)
        refused(p, f"{option} names an input, the file of the recording")
        assert digest(target) == before

"""Errors that teach: a typo gets the nearest option or variant, a file given as a variant gets
the PATH:SYMBOL form and the functions it offers, an output folder that is not there is named
before anything runs (exit 2). One line each, no output left behind."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import ROOT

QUICK = ["--rounds", "1", "--processes", "1", "--cache", "32K:512K:32M", "-q"]


def one_line(p: subprocess.CompletedProcess) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("typo, meant", [("--processs", "--processes"), ("--tmie", "--time"), ("--cahce=1", "--cache"),
                                         ("--latnecy", "--latency")])
def test_a_misspelled_option_gets_the_nearest(memfbench: str, tmp_path: Path, typo: str, meant: str) -> None:
    p = subprocess.run([memfbench, "run", typo, "-o", str(tmp_path / "x.json")], capture_output=True, text=True)
    assert p.returncode == 2 and f"did you mean {meant}?" in one_line(p)


def test_a_word_far_from_every_option_gets_no_guess(memfbench: str, tmp_path: Path) -> None:
    p = subprocess.run([memfbench, "run", "--zz", "-o", str(tmp_path / "x.json")], capture_output=True, text=True)
    assert p.returncode == 2 and "did you mean" not in one_line(p)


def test_a_misspelled_builtin_gets_the_nearest(memfbench: str, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    p = subprocess.run([memfbench, "run", "-v", "libc", "-v", "rep_movs", *QUICK, "-o", str(out)], capture_output=True,
                       text=True)
    line = one_line(p)
    assert p.returncode == 2 and "did you mean 'rep_movsb'?" in line and "(have:" in line and not out.exists()


def test_a_library_without_its_symbol_gets_the_form_and_its_functions(memfbench: str, tmp_path: Path) -> None:
    lib = Path(memfbench).resolve().parents[1] / "tests" / "c" / "libmemcpy_erms.so"
    if not lib.exists():
        pytest.skip("the example plugin is not built")
    out = tmp_path / "x.json"
    p = subprocess.run([memfbench, "run", "-v", "libc", "-v", str(lib), *QUICK, "-o", str(out)], capture_output=True,
                       text=True)
    line = one_line(p)
    assert p.returncode == 2 and f"as {lib}:SYMBOL[=NAME]" in line and "it offers: erms_memcpy" in line
    assert not out.exists()


@pytest.mark.parametrize("command", [["run", "-v", "libc", *QUICK], ["probe", "--quick"], ["record"], ["merge"],
                                     ["ab", "-v", "sse2"]])
def test_an_output_folder_that_is_not_there_is_named(memfbench: str, tmp_path: Path, command: list[str]) -> None:
    target = tmp_path / "no" / "such" / "out"
    tail = {"record": ["--", "true"], "merge": [str(tmp_path)], "ab": ["--", "true"]}.get(command[0], [])
    p = subprocess.run([memfbench, *command, "-o", str(target), *tail], capture_output=True, text=True, timeout=60)
    line = one_line(p)
    assert p.returncode == 2 and f"the folder {tmp_path / 'no' / 'such'} does not exist" in line, line
    assert not (tmp_path / "no").exists()


def test_an_interpreter_without_the_libraries_gets_one_line() -> None:
    """python3 -m analysis under an interpreter that lacks pandas and the rest (here Debian's
    own, without its site packages: -S): one line naming what is missing and what works."""
    import sys
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([sys.executable, "-S", "-m", "analysis", "summarize", "x.json"], capture_output=True, text=True,
                       cwd=root)
    line = one_line(p)
    assert p.returncode == 2 and "cannot import" in line and "pandas" in line and "./memfbench analyze" in line
    assert "Traceback" not in p.stderr


def test_the_checkout_wrapper_runs_the_built_binary(memfbench: str) -> None:
    """./memfbench, the name the docs use, runs the build's binary (MEMFBENCH_BUILD, else build/)."""
    import os
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, MEMFBENCH_BUILD=str(Path(memfbench).resolve().parents[1]))
    p = subprocess.run([str(root / "memfbench"), "list"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and "memcpy" in p.stdout
    env["MEMFBENCH_BUILD"] = "/nonexistent-build"
    p = subprocess.run([str(root / "memfbench"), "list"], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and "bootstrap.sh study" in one_line(p)


@pytest.mark.parametrize("typo, meant", [("--basline", "--baseline"), ("--margni", "--margin"),
                                         ("--detial", "--detail")])
def test_the_analysis_gives_a_misspelled_option_its_nearest(tmp_path: Path, typo: str, meant: str) -> None:
    """analyze compare F --basline libc: argparse's bare "unrecognized arguments" gets the
    subcommand's nearest option (issue 54), one line, exit 2."""
    golden = ROOT / "tests" / "data" / "golden-run.json"
    p = analysis("compare", str(golden), typo, "libc")
    assert p.returncode == 2 and one_line(p).endswith(f"(did you mean {meant}?)"), p.stderr
    far = analysis("compare", str(golden), "--zzzz")
    assert far.returncode == 2 and "did you mean" not in one_line(far)


@pytest.mark.parametrize("start, shown", [(b"# a README\n", "'#'"), (b"\x01\x02", "byte 0x01"), (b"[1, 2]", "'['")])
def test_a_file_that_is_not_a_result_is_named_by_its_first_character(tmp_path: Path, start: bytes, shown: str) -> None:
    """The first character as a reader types it ('#'), not Python's bytes literal (b'#'); a control
    byte by its value."""
    f = tmp_path / "README.md"
    f.write_bytes(start)
    p = analysis("summarize", str(f))
    assert p.returncode == 2 and one_line(p).endswith(f"this starts with {shown}") and "b'" not in p.stderr

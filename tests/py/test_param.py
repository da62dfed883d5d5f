"""--param: a source variant built once per setting of its macros, each its own variant, each
verified and placed as any source variant (issue 55's parametric source); bad settings refused in
one line before anything is built."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import ROOT, one_line_refusal

SOURCE = f"{ROOT / 'examples' / 'source' / 'memcpy_blocks.c'}:blocks_memcpy=blocks"


@pytest.fixture(scope="module")
def family(tmp_path_factory, memfbench) -> dict:
    from conftest import GEOMETRY
    out = tmp_path_factory.mktemp("param") / "family.json"
    p = subprocess.run([memfbench, "run", "-q", "--processes", "2", "-t", "0.4", "-v", "libc", "-v", SOURCE,
                        "--param", "BLOCK=16,64", "--param", "LIBC_FROM=256,4096", *GEOMETRY, "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


def test_every_setting_is_its_own_verified_build(family) -> None:
    """Four settings, the first macro varying slowest; each built with its -D flags after the
    variant's, under its own key and code identity, and verified before it was timed; every process
    built the same family (the parent refuses a child whose variants differ)."""
    names = [v["name"] for v in family["variants"]]
    assert names == ["libc", "blocks[BLOCK=16,LIBC_FROM=256]", "blocks[BLOCK=16,LIBC_FROM=4096]",
                     "blocks[BLOCK=64,LIBC_FROM=256]", "blocks[BLOCK=64,LIBC_FROM=4096]"]
    builds = [v for v in family["variants"] if v["origin"] == "source"]
    for v in builds:
        setting = v["name"][len("blocks["):-1].split(",")
        assert v["build"]["flags"].split()[-2:] == [f"-D{s}" for s in setting], v["build"]["flags"]
        assert v["verified_calls"] > 0
    assert len({v["build"]["key"] for v in builds}) == len({v["code_identity"]["id"] for v in builds}) == 4
    assert family["config"]["params"] == [{"name": "BLOCK", "values": ["16", "64"]},
                                          {"name": "LIBC_FROM", "values": ["256", "4096"]}]
    assert "--param" in family["command_line"]


def test_the_analysis_reads_the_family(family, tmp_path) -> None:
    f = tmp_path / "family.json"
    f.write_text(json.dumps(family))
    p = analysis("summarize", str(f), timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith("  blocks[")]
    assert len(rows) == 4 and "simultaneous over 4" in p.stdout, p.stdout


def refusal(r) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess([], r.code, r.stdout, r.stderr)


@pytest.mark.parametrize("args,words", [
    (["--param", "9X=1"], ["--param '9X=1'", "not a C identifier"]),
    (["--param", "X"], ["--param 'X'", "expected NAME=V1,V2"]),
    (["--param", "X="], ["--param 'X='", "an empty value"]),
    (["--param", "X=1,,2"], ["--param 'X=1,,2'", "an empty value"]),
    (["--param", "X=1;rm"], ["--param 'X=1;rm'", "holds ';'"]),
    (["--param", "X=a b"], ["holds ' '"]),
    (["--param", "X=1", "--param", "X=2"], ["--param X: given twice"]),
    (["--param", "X=1,1"], ["--param X: the value 1 is given twice"]),
    ([x for k in "ABCDE" for x in ("--param", f"{k}=1")], ["--param: at most 4 macros"]),
    (["--param", "X=" + ",".join(str(i) for i in range(17))], ["--param X: at most 16 values"]),
    (["--param", "X=" + "1" * 32], ["a value longer than 31 characters"]),
], ids=["identifier", "no-equals", "empty", "empty-between", "semicolon", "space", "twice", "value-twice",
        "five-macros", "seventeen-values", "long-value"])
def test_a_bad_setting_is_one_line(run, args: list[str], words: list[str]) -> None:
    r = run("-v", "libc", "-v", SOURCE, *args)
    one_line_refusal(refusal(r), *words)
    assert not r.out.exists()


@pytest.mark.parametrize("args,words", [
    (["-v", "libc", "--param", "X=1,2"], ["--param: no source variant to build with it"]),
    (["-v", "libc", "-v", SOURCE, "--param", "A=" + ",".join(str(i) for i in range(16)), "--param", "B=1,2,3"],
     ["--param: 48 settings of 1 source variant and 1 other variant make 49 variants; at most 32"]),
    (["-v", "libc", "-v", SOURCE, "--param", "X=1,2", "--pgo"], ["--param and --pgo"]),
], ids=["no-source", "too-many", "pgo"])
def test_a_family_that_cannot_be_built_is_refused_before_any_build(run, args: list[str], words: list[str],
                                                                    tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEMFBENCH_CACHE", str(tmp_path / "cache"))
    r = run(*args)
    one_line_refusal(refusal(r), *words)
    assert not r.out.exists() and not (tmp_path / "cache" / "variants").exists()


def test_a_settings_copy_is_its_a_a_pair(run) -> None:
    """NAME[SETTING]-copy: that build at another placement in every process, as a source's copy is;
    NAME-copy alone names no build of the family, and the refusal says what to give."""
    r = run("-q", "--processes", "2", "-t", "0.4", "-v", "libc", "-v", SOURCE, "--param", "BLOCK=16,64",
            "-v", "blocks[BLOCK=64]-copy")
    assert r.code == 0, r.stderr
    copy = next(v for v in r.doc["variants"] if v["name"] == "blocks[BLOCK=64]-copy")
    assert copy["copy_of"]["variant"] == "blocks[BLOCK=64]" and copy["copy_of"]["identical"]
    r = run("-v", "libc", "-v", SOURCE, "--param", "BLOCK=16,64", "-v", "blocks-copy", out="bad.json")
    one_line_refusal(refusal(r), "--variant blocks-copy: with --param", "'blocks[BLOCK=16]-copy'")
    assert not r.out.exists()

"""run --pgo: a source variant NAME timed beside NAME-pgo, its build with the compiler's profile.
The profile comes from a training replay with a seed of its own (never a timed process's),
is used (the code changes, and a profile of other code is refused as the compiler reports), is
found in the cache by every later process, and bad requests are refused in one line with no
file written."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import ROOT

SIZECLASS = ROOT / "examples" / "source" / "memcpy_sizeclass.c"
BRANCHFREE = ROOT / "examples" / "source" / "memcpy_branchfree.c"
SHORT = ["--rounds", "3", "--warmup-rounds", "1", "-q", "--processes", "2"]
HAVE_CLANG = shutil.which("clang") is not None and shutil.which("llvm-profdata") is not None


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache of builds and profiles (never the user's ~/.cache)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEMFBENCH_CACHE", str(root))
    monkeypatch.delenv("CFLAGS", raising=False)
    monkeypatch.delenv("CC", raising=False)
    return root


def source(tmp_path: Path, path: Path = SIZECLASS) -> Path:
    """The example copied into the test's folder (a profile names its source's path)."""
    dst = tmp_path / path.name
    shutil.copy(path, dst)
    return dst


def pgo_of(doc: dict, name: str) -> dict:
    v = next(v for v in doc["variants"] if v["name"] == name)
    return v["build"]["pgo"]


def sha(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_pgo_times_name_and_name_pgo_with_a_profile_of_its_own_training(run, tmp_path: Path, cache: Path) -> None:
    src = source(tmp_path)
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT)
    assert r.code == 0, r.stderr
    d = r.doc
    names = [v["name"] for v in d["variants"]]
    assert names == ["sc", "sc-pgo"]
    plain, trained = d["variants"]
    assert "pgo" not in plain["build"]
    p = trained["build"]["pgo"]
    assert (p["of"], p["compiler_family"]) == ("sc", "gcc")
    assert "-fprofile-generate" in p["instrument_flags"] and "-fprofile-update=single" in p["instrument_flags"]
    assert "-fprofile-use" in p["use_flags"] and "-fprofile-use" in trained["build"]["flags"]
    assert trained["build"]["flags"].startswith(plain["build"]["flags"])
    # the profile recorded is the one in the cache, by its digest
    assert Path(p["profile_file"]).is_relative_to(cache) and sha(p["profile_file"]) == p["profile_sha256"]
    # trained on the study's own distribution, every call verified, with the study's pgo seed
    t = p["train"]
    assert t["own"] is True and t["distribution"] == d["config"]["distribution"]
    assert t["calls"] == d["config"]["pgo"]["calls"] and t["verified_calls"] >= t["calls"]
    assert t["seed"] == d["config"]["pgo"]["seed"] == "0x70676f747261696e"
    # both run from every code placement, like any source variant
    assert plain["code_layout"] == trained["code_layout"] == "placed"
    # the profile changed the code: another machine code from the same file and flags
    assert plain["build"]["key"] != trained["build"]["key"]
    a = Path(plain["build"]["cache_entry"]) / "code.o"
    b = Path(trained["build"]["cache_entry"]) / "code.o"
    assert a.read_bytes() != b.read_bytes()


def test_the_training_calls_are_not_the_timed_calls(run, tmp_path: Path, cache: Path) -> None:
    """The training seed is fixed (--pgo-seed changes it), so studies of other seeds train the same
    profile and the second finds it in the cache; it is none of the timed processes' seeds, and a
    --pgo-seed that is one is refused."""
    src = source(tmp_path)
    runs = [run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, *extra, out=f"{i}.json")
            for i, extra in enumerate([["--seed", "11"], ["--seed", "12"], ["--seed", "11", "--pgo-seed", "7"]])]
    for r in runs:
        assert r.code == 0, r.stderr
    p = [pgo_of(r.doc, "sc-pgo") for r in runs]
    for r in runs[:2]:
        procs = [q["seeds"] for q in r.doc["processes"]]
        timed = {int(s[k]) for s in procs for k in ("master", "params")} | {int(r.doc["seeds"]["master"])}
        assert int(p[0]["train"]["seed"], 16) not in timed
    assert p[0]["train"]["seed"] == p[1]["train"]["seed"] == runs[0].doc["config"]["pgo"]["seed"]
    assert p[0]["train"]["seed_source"] == "default (fixed)" and p[2]["train"]["seed_source"] == "--pgo-seed"
    assert int(p[2]["train"]["seed"], 16) == 7
    # one profile for one training, whatever the study's seed: NAME-pgo is one code in both files
    assert p[0]["profile_sha256"] == p[1]["profile_sha256"] and p[1]["cached"] is True
    ids = [next(v for v in r.doc["variants"] if v["name"] == "sc-pgo")["code_identity"]["id"] for r in runs]
    assert ids[0] == ids[1] != ids[2]
    # the same code trained on other calls counts other branches: another profile
    assert p[2]["profile_sha256"] != p[0]["profile_sha256"]
    assert len(list((cache / "profiles").iterdir())) == 2
    # a training seed that is a timed process's seed would replay its calls: refused
    first = runs[0].doc["processes"][0]["seeds"]["master"]
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "11", "--pgo-seed", first, out="x.json")
    assert r.code == 2 and "timed process" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "x.json").exists()


def test_pgo_train_takes_a_distribution_or_a_record_folder(run, tmp_path: Path) -> None:
    src = source(tmp_path)
    folder = tmp_path / "rec"
    folder.mkdir()
    for table in (ROOT / "distributions" / "spec2017").glob("memcpy_*.csv"):
        shutil.copy(table, folder / table.name)
    own = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "5", out="own.json")
    spec = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "5", "--pgo-train", "spec2017/memcpy",
               out="spec.json")
    rec = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "5", "--pgo-train", str(folder),
              out="rec.json")
    for r in (own, spec, rec):
        assert r.code == 0, r.stderr
    po, ps, pr = (pgo_of(r.doc, "sc-pgo") for r in (own, spec, rec))
    assert (ps["train"]["own"], ps["train"]["distribution"]) == (False, "spec2017/memcpy")
    assert pr["train"]["table"] == str(folder / "memcpy_size.csv")
    assert spec.doc["config"]["pgo"]["train"] == "spec2017/memcpy"
    # other sizes, another profile; the same tables by another route, the same profile (found in
    # the cache: the key is the tables' bytes, not their path)
    assert po["profile_sha256"] != ps["profile_sha256"]
    assert ps["profile_sha256"] == pr["profile_sha256"] and pr["cached"] is True


FAMILIES = [pytest.param("cc", "coverage-mismatch", id="gcc"),
            pytest.param("clang", "profile-instr-", id="clang",
                         marks=pytest.mark.skipif(not HAVE_CLANG, reason="clang and llvm-profdata are not installed"))]


@pytest.mark.parametrize("compiler, warning", FAMILIES)
def test_a_profile_of_other_code_is_refused_as_the_compiler_reports(run, tmp_path: Path, cache: Path,
                                                                     monkeypatch: pytest.MonkeyPatch, compiler: str,
                                                                     warning: str) -> None:
    """The cache's profile replaced with the profile of other code under the same file and symbol
    names: GCC's coverage-mismatch, clang's out-of-date or missing profile (errors memfbench asks
    for) refuse the build in one line naming the variant; nothing is written, no build folder left."""
    monkeypatch.setenv("CC", compiler)
    src = source(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    moved = (other / "memcpy_sizeclass.c")
    moved.write_text(BRANCHFREE.read_text().replace("branchfree_memcpy", "sizeclass_memcpy"))
    first = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "3", out="a.json")
    second = run("--pgo", "-v", f"{moved}:sizeclass_memcpy=sc", *SHORT, "--seed", "3", out="b.json")
    assert first.code == 0 and second.code == 0, first.stderr + second.stderr
    mine = Path(pgo_of(first.doc, "sc-pgo")["profile_file"])
    theirs = Path(pgo_of(second.doc, "sc-pgo")["profile_file"])
    assert mine != theirs and pgo_of(first.doc, "sc-pgo")["compiler_family"] == ("gcc" if compiler == "cc" else "clang")
    shutil.copy(theirs, mine)
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "3", out="c.json")
    assert r.code != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert str(src) in lines[0] and warning in lines[0] and "profile" in lines[0]
    assert not (tmp_path / "c.json").exists()
    assert not [p.name for p in (cache / "variants").iterdir() if p.name.startswith(".")]


@pytest.mark.skipif(not HAVE_CLANG, reason="clang and llvm-profdata are not installed")
def test_clang_trains_and_merges_its_raw_profile(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "clang")
    src = source(tmp_path)
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT, "--seed", "9")
    assert r.code == 0, r.stderr
    p = pgo_of(r.doc, "sc-pgo")
    assert p["compiler_family"] == "clang" and p["merge_tool"].endswith("llvm-profdata")
    assert p["instrument_flags"] == "-fprofile-instr-generate"
    assert f"-fprofile-instr-use={p['profile_file']}" in p["use_flags"]
    assert Path(p["profile_file"]).read_bytes()[:8] == b"\xfflprofi\x81"  # an indexed profile, merged


@pytest.mark.parametrize("args, says", [
    (["--pgo-train", "fixed:64"], "--pgo-train needs --pgo"),
    (["--pgo-seed", "5"], "--pgo-seed needs --pgo"),
    (["--pgo", "-v", "libc"], "--pgo: no source variant"),
    (["--pgo"], "--pgo: no source variant"),
    (["--pgo", "-v", "SRC", "--pgo-train", "nosuch"], "--pgo-train: distribution 'nosuch'"),
    (["--pgo", "-v", "SRC", "--pgo-train", "DIR"], "a folder without memcpy_size.csv"),
    (["--pgo", "-v", "OBJ"], "--pgo needs the source (FILE.c)"),
    (["--pgo", "-v", "SRC", "--trace", "TRACE"], "--pgo with --trace: name the training calls"),
])
def test_bad_pgo_requests_are_refused_in_one_line(run, tmp_path: Path, args: list[str], says: str) -> None:
    src = source(tmp_path)
    obj = tmp_path / "sc.o"
    subprocess.run(["cc", "-O2", "-fPIC", "-c", str(src), "-o", str(obj)], check=True)
    trace = tmp_path / "t.csv"
    trace.write_text("size\n64\n")
    (tmp_path / "empty").mkdir()
    subst = {"SRC": f"{src}:sizeclass_memcpy", "OBJ": f"{obj}:sizeclass_memcpy", "DIR": str(tmp_path / "empty"),
             "TRACE": str(trace)}
    r = run(*[subst.get(a, a) for a in args], *SHORT)
    assert r.code == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], r.stderr
    assert not (tmp_path / "out.json").exists()


def test_a_compiler_that_is_neither_gcc_nor_clang_is_named(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "fakecc"
    fake.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "tcc version 0.9.27"; exit 0; fi\nexec cc "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    src = source(tmp_path)
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy", *SHORT)
    assert r.code == 2
    assert r.stderr.strip().count("\n") == 0 and "neither GCC nor clang" in r.stderr and "tcc" in r.stderr
    assert not (tmp_path / "out.json").exists()


def test_a_training_that_fails_verification_is_refused_in_one_line(run, tmp_path: Path, cache: Path) -> None:
    """The instrumented copy is verified on the training calls before it trains: wrong code stops
    the study there, named, with no profile kept."""
    bad = tmp_path / "bad.c"
    bad.write_text("#include <string.h>\n"
                   "void *drops(void *d, const void *s, size_t n) { memcpy(d, s, n > 100 ? n - 1 : n); return d; }\n")
    r = run("--pgo", "-v", f"{bad}:drops", *SHORT)
    assert r.code != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "training replay" in lines[0] and str(bad) in lines[0], r.stderr
    assert not (tmp_path / "out.json").exists()
    assert not list((cache / "profiles").iterdir())


def test_the_analysis_reads_a_real_pgo_file(run, tmp_path: Path) -> None:
    """The file run --pgo writes, as analyze pgo and summarize read it (schema-validated): one gain
    per pair, trained and tested on the study's own distribution."""
    r = run("--pgo", "-v", f"{source(tmp_path)}:sizeclass_memcpy=sc", "-v", f"{source(tmp_path, BRANCHFREE)}:"
            "branchfree_memcpy=bf", *SHORT)
    assert r.code == 0, r.stderr

    table = tmp_path / "t.json"
    p = analysis("pgo", str(r.out), "--json", str(table))
    assert p.returncode == 0, p.stderr
    groups = json.loads(table.read_text())["groups"]
    assert sorted(g["source"].rsplit(":", 1)[1] for g in groups) == ["branchfree_memcpy", "sizeclass_memcpy"]
    for g in groups:
        assert g["trained_on"] == g["tested_on"] == [r.doc["config"]["distribution"]]
    s = analysis("summarize", str(r.out))
    assert s.returncode == 0, s.stderr
    assert sum(line.startswith(("sc-pgo vs sc (gcc profile", "bf-pgo vs bf (gcc profile"))
               for line in s.stdout.splitlines()) == 2


def test_a_compiler_without_profile_support_is_refused_in_one_line(run, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A GCC that cannot instrument (here a wrapper that rejects -fprofile-generate, as a build
    without libgcov or the option would): its own error, in one line naming the variant, no file."""
    fake = tmp_path / "gcc-noprofile"
    fake.write_text('#!/bin/sh\n'
                    'if [ "$1" = "--version" ]; then echo "gcc (fake) 12.2.0"; echo "Free Software Foundation"; exit 0; fi\n'
                    'for a in "$@"; do if [ "$a" = "-fprofile-generate" ]; then\n'
                    '  echo "cc1: error: unrecognized command-line option \'-fprofile-generate\'" >&2; exit 1; fi; done\n'
                    'exec cc "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    src = source(tmp_path)
    r = run("--pgo", "-v", f"{src}:sizeclass_memcpy=sc", *SHORT)
    assert r.code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(src) in lines[0] and "-fprofile-generate" in lines[0], r.stderr
    assert not (tmp_path / "out.json").exists()

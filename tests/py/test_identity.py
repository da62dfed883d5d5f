"""A variant is its code (analysis/io/identity.py, bench/impl/identity.c), and --label (base/label.h)."""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT

from analysis.io.identity import SHORT_ID, code_id, separate
from analysis.io.load import load_runs

SHORT = ["--rounds", "30", "--warmup-rounds", "3", "--processes", "2", "-q", *GEOMETRY]


def build_dir() -> Path:
    return Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")


def plugin(which: str) -> Path:
    """The example plugin as built in examples/ ("examples") or again with -O0 in tests/c/ ("rebuilt")."""
    p = build_dir() / ("examples" if which == "examples" else "tests/c") / "libmemcpy_erms.so"
    if not p.exists():
        pytest.skip(f"{p} not built")
    return p


def doc_of(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def erms_runs(tmp_path_factory, memfbench) -> dict[str, Path]:
    """Short runs of libc and the example plugin named erms: two of the examples build, one of the
    -O0 build."""
    d = tmp_path_factory.mktemp("identity")
    out = {}
    for name, which in (("a", "examples"), ("a2", "examples"), ("b", "rebuilt")):
        p = d / f"{name}.json"
        subprocess.run([memfbench, "run", "-v", "libc", "-v", f"{plugin(which)}:erms_memcpy=erms", *SHORT,
                        "-o", str(p)], check=True, timeout=120)
        out[name] = p
    return out


def test_the_builds_differ_in_code() -> None:
    assert plugin("examples").read_bytes() != plugin("rebuilt").read_bytes()


def test_a_plugin_is_its_file_and_symbol(erms_runs) -> None:
    v = {x["name"]: x for x in doc_of(erms_runs["a"])["variants"]}
    ident = v["erms"]["code_identity"]
    assert ident["basis"] == "plugin file"
    assert ident["file_sha256"] == hashlib.sha256(plugin("examples").read_bytes()).hexdigest()
    facts = "\n".join(["plugin file", ident["file_sha256"], "erms_memcpy"]) + "\n"
    assert ident["id"] == hashlib.sha256(facts.encode()).hexdigest()[:12]


def test_libc_is_its_file_and_entry(erms_runs) -> None:
    v = {x["name"]: x for x in doc_of(erms_runs["a"])["variants"]}
    ident = v["libc"]["code_identity"]
    assert ident["basis"] == "library file"
    assert ident["file_sha256"] == hashlib.sha256(Path(v["libc"]["object"]).read_bytes()).hexdigest()
    assert int(ident["offset"], 16) > 0  # the IFUNC's pick, inside the file's mapping


def test_builtins_are_their_build(run) -> None:
    r = run("-v", "libc", "-v", "bytes", *SHORT)
    assert r.code == 0, r.stderr
    d = r.doc
    ident = {x["name"]: x for x in d["variants"]}["bytes"]["code_identity"]
    assert ident["basis"] == "build" and ident["file_sha256"] is None
    assert d["tool"]["build"]["source_revision"] in ident["build"]
    assert d["tool"]["build"]["compiler"] in ident["build"]


def over_processes(stdout: str, variant: str, every: int) -> bool:
    """The variant's verdict line rests on every process, or on fewer and names the ones left out
    (a process the host's load starved is screened out of the verdict)."""
    line = next((x for x in stdout.splitlines() if x.startswith(f"- {variant}")), "")
    m = re.search(r"over (\d+) processes", line)
    return bool(m) and (int(m.group(1)) == every or (int(m.group(1)) < every and "left out:" in line))


def test_one_build_in_two_files_is_pooled(erms_runs) -> None:
    p = analysis("compare", str(erms_runs["a"]), str(erms_runs["a2"]), "--detail")
    assert p.returncode == 0, p.stderr
    assert "note:" not in p.stdout and "@" not in p.stdout
    assert "erms vs libc" in p.stdout and over_processes(p.stdout, "erms", 4)


def test_two_builds_under_one_name_are_two_variants(erms_runs, tmp_path) -> None:
    a, b = erms_runs["a"], erms_runs["b"]
    ia = code_id({x["name"]: x for x in doc_of(a)["variants"]}["erms"])
    ib = code_id({x["name"]: x for x in doc_of(b)["variants"]}["erms"])
    assert ia and ib and ia != ib
    la, lb = f"erms@{ia[:SHORT_ID]}", f"erms@{ib[:SHORT_ID]}"
    p = analysis("compare", str(a), str(b), "--detail")
    assert p.returncode == 0, p.stderr
    notes = [line for line in p.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and la in notes[0] and lb in notes[0] and a.name in notes[0] and b.name in notes[0]
    verdicts = [line for line in p.stdout.splitlines() if line.startswith("- ")]
    assert sorted(v.split()[1] for v in verdicts) == sorted([la, lb])
    # each over its own file's processes only, against the baseline both files share
    assert all("vs libc" in v and over_processes(v, v.split()[1], 2) for v in verdicts)
    rep = analysis("report", "-o", str(tmp_path / "rep"), str(a), str(b))
    assert rep.returncode == 0, rep.stderr
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert la in md and lb in md and "different codes" in md


def test_diff_names_the_code_change(erms_runs) -> None:
    p = analysis("diff", "--detail", str(erms_runs["a"]), str(erms_runs["b"]))
    assert p.returncode == 0, p.stderr
    changed = [line for line in p.stdout.splitlines() if line.startswith("note: code changed:")]
    assert len(changed) == 1 and changed[0].startswith("note: code changed: erms: plugin file sha256")
    # the same name on both sides: diff compares them (that is its question), under the name
    assert any(line.startswith("- erms:") for line in p.stdout.splitlines())


def test_a_different_baseline_code_is_never_pooled(erms_runs) -> None:
    """libc relabelled as another code in one file: the two files' ratios are to different
    baselines, so they are two comparisons, not one."""
    runs = load_runs([erms_runs["a"], erms_runs["a2"]])
    forged = dict(runs[1].doc)
    forged["variants"] = [{**v, "code_identity": {**v["code_identity"], "id": "0" * 12}} if v["name"] == "libc" else v
                          for v in forged["variants"]]
    from dataclasses import replace
    from analysis.verdicts.compare import compare_runs
    split, notes = separate([runs[0], replace(runs[1], doc=forged)])
    assert len(notes) == 1 and "libc@000000" in notes[0]
    comps = compare_runs(split)
    assert sorted(c.baseline for c in comps) == sorted(["libc@000000", f"libc@{code_id(runs[0].doc['variants'][0])[:6]}"])
    assert all(c.processes + len(c.dropped) == 2 for c in comps)  # a process the load starved is named in dropped


def test_files_without_identity_keep_their_names(erms_runs) -> None:
    runs = load_runs([erms_runs["a"], erms_runs["b"]])
    from dataclasses import replace
    old = [replace(r, doc={**r.doc, "variants": [{k: x for k, x in v.items() if k != "code_identity"}
                                                  for v in r.doc["variants"]]}) for r in runs]
    same, notes = separate(old)
    assert notes == [] and [r.variants for r in same] == [r.variants for r in old]


# --label

def test_a_given_label_is_recorded(run) -> None:
    r = run("-v", "libc", "--label", "v1.2-rc3 (nightly)", *SHORT)
    assert r.code == 0, r.stderr
    assert r.doc["config"]["label"] == {"text": "v1.2-rc3 (nightly)", "source": "given", "folder": None,
                                        "commit_time": None}


@pytest.mark.parametrize("label,problem", [("", "0 characters"), ("x" * 201, "201 characters"),
                                           ("a\tb", "control or direction character (U+0009) at character 2")])
def test_a_bad_label_is_one_line(run, label: str, problem: str) -> None:
    r = run("-v", "libc", "--label", label, *SHORT)
    assert r.code != 0 and len(r.stderr_lines) == 1
    assert "--label" in r.stderr_lines[0] and problem in r.stderr_lines[0]
    assert not r.out.exists()


def test_no_label_without_a_plugin_in_a_repository(run, tmp_path, monkeypatch) -> None:
    lone = tmp_path / "lone" / "libmemcpy_erms.so"
    lone.parent.mkdir()
    shutil.copy(plugin("examples"), lone)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # whatever holds the temporary folder
    r = run("-v", "libc", "-v", f"{lone}:erms_memcpy=erms", *SHORT)
    assert r.code == 0, r.stderr
    assert r.doc["config"]["label"] is None
    r = run("-v", "libc", *SHORT)
    assert r.doc["config"]["label"] is None


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_the_default_label_is_git_describe_of_the_plugins_folder(run, tmp_path) -> None:
    repo = tmp_path / "mylib"
    (repo / "build").mkdir(parents=True)
    shutil.copy(plugin("examples"), repo / "build" / "libmine.so")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "README").write_text("x\n", encoding="utf-8")
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    subprocess.run([*git, "tag", "v0.1"], check=True)
    r = run("-v", "libc", "-v", f"{repo / 'build' / 'libmine.so'}:erms_memcpy=mine", *SHORT)
    assert r.code == 0, r.stderr
    label = r.doc["config"]["label"]
    assert label["source"] == "git" and label["text"] == "v0.1"
    assert label["folder"] == str(repo / "build") and label["commit_time"].startswith("20")

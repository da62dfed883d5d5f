"""Issue 51, the builds' and counts' part: every file counts reads is an input -o may not name;
a bad request (a plugin that cannot be one, an unknown training distribution, -o onto a source)
is refused in one line before the first program starts (a compiler, valgrind, a training); the
compiler is given the path a --pgo build is keyed by; a legal file name holding $ ; ( ) # or a
space builds and runs, one holding a newline builds and every message naming it is one line;
messages name the cause (a binary named x.c, a compiler that writes nothing), never an internal
temporary; a plugin may not take a built-in's name; an endless #include ends at the build's bound.
Each test failed on 04cd578."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import GEOMETRY, ROOT, needs_plain_preload

BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
EXAMPLE_PLUGIN = Path(os.environ.get("MEMFBENCH_EXAMPLE_PLUGIN") or BUILD / "examples" / "libmemcpy_erms.so")
WRONG_PLUGIN = Path(os.environ.get("MEMFBENCH_WRONG_PLUGIN") or BUILD / "tests" / "c" / "libwrong_plugin.so")
SHIM = BUILD / "bench" / "ab" / "shim" / "libmemfbench-ab.so"
SIZECLASS = ROOT / "examples" / "source" / "memcpy_sizeclass.c"
SHORT = ["--rounds", "3", "--warmup-rounds", "1", "--processes", "1", "-q", *GEOMETRY]
COPY_SOURCE = ("#include <string.h>\n#include \"h.h\"\n"
               "void *f(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n")


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache of builds (never the user's), the compiler and flags at their defaults."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEMFBENCH_CACHE", str(root))
    monkeypatch.delenv("CFLAGS", raising=False)
    monkeypatch.delenv("CC", raising=False)
    return root


def digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def one_line(p: subprocess.CompletedProcess[str], code: int | None = 2) -> str:
    """The one line of a refusal (exit code, when given), no traceback."""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, (p.returncode, p.stderr)
    assert code is None or p.returncode == code, (p.returncode, p.stderr)
    return lines[0]


def marker_script(folder: Path, name: str, then: str) -> Path:
    """An executable `name` in folder that leaves folder/name.ran behind, then runs `then`: it proves
    whether memfbench started it."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(f"#!/bin/sh\ntouch '{folder}/{name}.ran'\n{then}\n")
    script.chmod(0o755)
    return script


def source_with_header(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "h.h").write_text("/* included */\n")
    src = folder / "x.c"
    src.write_text(COPY_SOURCE)
    return src, folder / "h.h"


def leftovers(root: Path) -> list[str]:
    """Whatever is in the cache but complete entries: a build folder or temporary a failure left."""
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*")) if root.exists() else []


# -- 1: counts' output never names an input -------------------------------------------------------

def _dist(d: Path) -> list[str]:
    (d / "x_size.csv").write_text("size,weight\n8,1\n16,1\n")
    (d / "x_alignment.csv").write_text("alignment,weight\n1,1\n")
    return ["-v", "avx2", "-d", str(d / "x_size.csv")]


def _plugin(d: Path) -> list[str]:
    shutil.copy(EXAMPLE_PLUGIN, d / "lib.so")
    return ["-v", f"{d / 'lib.so'}:erms_memcpy=erms"]


def _source(d: Path) -> list[str]:
    src, _ = source_with_header(d)
    return ["-v", f"{src}:f=mine"]


@pytest.mark.parametrize("make, target", [
    (_dist, "x_size.csv"), (_dist, "x_alignment.csv"), (_plugin, "lib.so"), (_source, "x.c"), (_source, "h.h"),
], ids=["distribution", "sibling-table", "plugin", "source", "included-header"])
def test_counts_output_onto_any_of_its_inputs_is_refused(memfbench: str, tmp_path: Path, make, target: str) -> None:
    d = tmp_path / "in"
    d.mkdir()
    args = make(d)
    before = {p.name: digest(p) for p in d.iterdir()}
    p = subprocess.run([memfbench, "counts", "-q", "--calls", "100", *args, "-o", str(d / target)],
                       capture_output=True, text=True, timeout=300)
    line = one_line(p)
    assert "-o names an input" in line and target in line, line
    assert {p.name: digest(p) for p in d.iterdir()} == before


# -- 9: argument checks before the expensive part -------------------------------------------------

def _not_elf(d: Path) -> str:
    (d / "text.so").write_text("not a library\n")
    return f"{d / 'text.so'}:f"


def _object_as_library(d: Path) -> str:
    (d / "o.c").write_text("int g(void) { return 1; }\n")
    subprocess.run(["cc", "-c", "-fPIC", str(d / "o.c"), "-o", str(d / "obj.so")], check=True)
    return f"{d / 'obj.so'}:g"


@pytest.mark.parametrize("spec, says", [
    (lambda d: f"{WRONG_PLUGIN}:", "no symbol after ':'"),
    (lambda d: f"{d / 'missing.so'}:f", "no such file"),
    (_not_elf, "not an ELF file"),
    (_object_as_library, "not a shared object"),
    # defined by the C library it depends on, not by the plugin: dlsym would find libc's
    (lambda d: f"{WRONG_PLUGIN}:memcpy", "exports no symbol 'memcpy'"),
    (lambda d: f"{WRONG_PLUGIN}:no_such_function", "exports no symbol 'no_such_function'"),
], ids=["empty-symbol", "missing", "not-elf", "not-shared", "dependency's-symbol", "absent-symbol"])
def test_counts_refuses_a_bad_plugin_before_valgrind_runs(memfbench: str, tmp_path: Path, spec, says: str) -> None:
    d = tmp_path / "in"
    d.mkdir()
    tools = tmp_path / "tools"
    marker_script(tools, "valgrind", "exit 1")
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"}
    p = subprocess.run([memfbench, "counts", "-q", "--calls", "100", "-v", spec(d), "-o", str(tmp_path / "c.json")],
                       capture_output=True, text=True, timeout=120, env=env)
    assert says in one_line(p)
    assert not (tools / "valgrind.ran").exists() and not (tmp_path / "c.json").exists()


def test_counts_replay_is_internal(memfbench: str, tmp_path: Path) -> None:
    p = subprocess.run([memfbench, "counts", "--replay", "-v", "avx2", "-o", str(tmp_path / "f.json")],
                       capture_output=True, text=True, timeout=120)
    assert "internal" in one_line(p) and not (tmp_path / "f.json").exists()


@pytest.mark.parametrize("case", ["pgo-train", "output-onto-source", "unknown-after-source", "pgo-of-an-object",
                                  "counts-output-onto-source"])
def test_a_bad_request_is_refused_before_anything_is_built(memfbench: str, tmp_path: Path, case: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cc = marker_script(tmp_path / "tools", "cc", 'exec cc "$@"')
    src, _ = source_with_header(tmp_path / "src")
    obj = tmp_path / "src" / "x.o"
    subprocess.run(["cc", "-O2", "-fPIC", "-c", str(src), "-I", str(src.parent), "-o", str(obj)], check=True)
    before = digest(src)
    out = tmp_path / "out.json"
    cmd, says = {
        "pgo-train": (["run", "--pgo", "--pgo-train", "NOSUCH", "-v", f"{src}:f", "-o", str(out)], "NOSUCH"),
        "output-onto-source": (["run", "-v", f"{src}:f", "-o", str(src)], "names an input"),
        "unknown-after-source": (["run", "-v", f"{src}:f", "-v", "nosuch", "-o", str(out)], "'nosuch'"),
        "pgo-of-an-object": (["run", "--pgo", "-v", f"{obj}:f", "-o", str(out)], "needs the source"),
        "counts-output-onto-source": (["counts", "--calls", "100", "-v", f"{src}:f", "-o", str(src)], "names an input"),
    }[case]
    monkeypatch.setenv("CC", str(cc))
    extra = SHORT if cmd[0] == "run" else ["-q"]
    p = subprocess.run([memfbench, *cmd, *extra], capture_output=True, text=True, timeout=120)
    assert says in one_line(p)
    assert not (cc.parent / "cc.ran").exists(), "a compiler ran before the request was refused"
    assert digest(src) == before and not out.exists()


# -- 4: the compiler gets the path the --pgo build is keyed by -------------------------------------

def test_pgo_finds_its_build_under_another_spelling_of_the_same_file(memfbench: str, tmp_path: Path) -> None:
    shutil.copy(SIZECLASS, tmp_path / "good.c")
    runs = [["--pgo", "-v", f"{tmp_path / 'good.c'}:sizeclass_memcpy=g"],
            ["--pgo", "--pgo-seed", "7", "-v", "good.c:sizeclass_memcpy=g"]]
    for i, args in enumerate(runs):
        out = tmp_path / f"o{i}.json"
        p = subprocess.run([memfbench, "run", *args, *SHORT, "-o", str(out)], capture_output=True, text=True,
                           timeout=600, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        assert [v["name"] for v in json.loads(out.read_text())["variants"]] == ["g", "g-pgo"]


# -- 10: legal paths -------------------------------------------------------------------------------

def test_a_source_in_a_folder_named_like_shell_code_builds_runs_and_is_found_again(memfbench: str, tmp_path: Path,
                                                                                   cache: Path) -> None:
    """The compiler's dependency file quotes $ as $$, # as \\#, a space as '\\ ': read back, each header is
    found (the second run finds the build) and nothing of the name is ever run."""
    folder = tmp_path / "D" / "$(touch X);a b#c"
    src, _ = source_with_header(folder)
    spec = f"D/$(touch X);a b#c/x.c:f=g"
    for i in range(2):
        out = tmp_path / f"o{i}.json"
        p = subprocess.run([memfbench, "run", "-v", spec, *SHORT, "-d", "fixed:64", "-o", str(out)],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        g = next(v for v in json.loads(out.read_text())["variants"] if v["name"] == "g")
        assert g["build"]["cached"] == (i == 1)
    assert not list(tmp_path.rglob("X")), "a command in the file name ran"
    assert leftovers(cache) == []


def test_a_newline_in_a_folder_name_builds_and_keeps_every_message_one_line(memfbench: str, tmp_path: Path) -> None:
    folder = tmp_path / "N\nx"
    src, _ = source_with_header(folder)
    (folder / "bad.c").write_text("void *f(void *d) { return d }\n")
    shutil.copy(EXAMPLE_PLUGIN, folder / "lib.so")
    p = subprocess.run([memfbench, "run", "-v", f"{src}:f=g", *SHORT, "-d", "fixed:64", "-o", str(tmp_path / "o.json")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    for spec in (f"{folder / 'nosuch.c'}:f", f"{folder / 'bad.c'}:f", f"{folder / 'lib.so'}:nosuch",
                 f"{folder / 'nosuch.so'}:f", f"{src}:nosuch"):
        for cmd in (["run", *SHORT], ["counts", "-q"]):
            p = subprocess.run([memfbench, *cmd, "-v", spec, "-o", str(tmp_path / "r.json")], capture_output=True,
                               text=True, timeout=300)
            assert "N\\nx" in one_line(p, code=None) and p.returncode != 0, (spec, cmd)


# -- 11: messages that name the cause --------------------------------------------------------------

def test_a_binary_named_x_c_is_named_for_what_it_is(memfbench: str, tmp_path: Path) -> None:
    shutil.copy("/bin/true", tmp_path / "x.c")
    for cmd in (["run", *SHORT], ["counts", "-q"]):
        p = subprocess.run([memfbench, *cmd, "-v", f"{tmp_path / 'x.c'}:f", "-o", str(tmp_path / "o.json")],
                           capture_output=True, text=True, timeout=120)
        line = one_line(p)
        assert "x.c: not C source" in line and "ELF" in line, line


def test_a_compiler_that_writes_no_object_is_named_without_a_temporary(memfbench: str, tmp_path: Path,
                                                                       cache: Path) -> None:
    src, _ = source_with_header(tmp_path / "src")
    p = subprocess.run([memfbench, "run", "-v", f"{src}:f", *SHORT, "-o", str(tmp_path / "o.json")],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "CC": "/bin/true"})
    line = one_line(p)
    assert "/bin/true" in line and "wrote no object" in line, line
    assert str(cache) not in line and ".memfbench" not in line, line
    assert leftovers(cache) == []


@needs_plain_preload
@pytest.mark.skipif(not SHIM.exists(), reason="the ab shim is not built")
def test_ab_refuses_a_folder_where_its_replay_file_goes(memfbench: str, tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    readme = str(ROOT / "README.md")
    prog = ["sort", "-o", str(tmp_path / "s.txt"), readme]
    subprocess.run([memfbench, "record", "-o", str(rec), "--", *prog], check=True, capture_output=True, timeout=120)
    (tmp_path / "o.json.replay.json").mkdir()
    p = subprocess.run([memfbench, "ab", "-q", "--runs", "2", "--warmup", "0", "-v", "rep_movsb", "--predict-from",
                        str(rec), "-o", str(tmp_path / "o.json"), "--", *prog],
                       capture_output=True, text=True, timeout=300)
    line = one_line(p)
    assert "o.json.replay.json" in line and "folder" in line, line
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("cmd", [["run", *SHORT], ["counts", "-q", "--calls", "100"]], ids=["run", "counts"])
def test_a_plugin_may_not_take_a_builtins_name(memfbench: str, tmp_path: Path, cmd: list[str]) -> None:
    """avx2 is not in the study, but its name means the built-in in every file and analysis."""
    p = subprocess.run([memfbench, *cmd, "-v", f"{EXAMPLE_PLUGIN}:erms_memcpy=avx2", "-o", str(tmp_path / "o.json")],
                       capture_output=True, text=True, timeout=300)
    line = one_line(p)
    assert "'avx2'" in line and "built-in" in line, line
    assert not (tmp_path / "o.json").exists()


# -- 6: an endless include ends at the build's bound ----------------------------------------------

def test_an_include_of_dev_zero_ends_at_the_builds_bound(memfbench: str, tmp_path: Path, cache: Path) -> None:
    src = tmp_path / "zero.c"
    src.write_text('#include "/dev/zero"\n')
    p = subprocess.run([memfbench, "run", "--deadline", "build=5", "-v", f"{src}:f", *SHORT,
                        "-o", str(tmp_path / "o.json")], capture_output=True, text=True, timeout=120)
    line = one_line(p, code=None)
    assert p.returncode != 0 and "zero.c" in line and ("memory" in line or "deadline" in line), line
    assert not (tmp_path / "o.json").exists() and leftovers(cache) == []
    # nothing it started is left: no process names the test's folder (cc1 is given the source's path)
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(tmp_path).encode() in (proc / "cmdline").read_bytes():
                alive.append(proc.name)
        except OSError:
            continue
    assert alive == []

"""Source variants (-v FILE.c:SYMBOL, FILE.o, FILE.a): built at every code placement into a cache,
checked to be one machine code, timed from placements balanced over the study with an A/A copy;
refused in one line naming the file for anything that cannot be built into a callable function,
with nothing left behind. And prebuilt plugins: labelled as one code layout, with a built-in
added to measure how far identical code moves with its placement."""
from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import ROOT
from headline import headline_block, headline_rows

KNOWN = str(ROOT / "examples" / "source" / "known_cost.c")
STRUCT = ["--rounds", "3", "--warmup-rounds", "1", "-q", "-d", "fixed:64", "-p", "l1"]
BAD_SOURCE = """#include <string.h>
int table[4];
__attribute__((noinline)) static void *local(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
void *calls_local(void *d, const void *s, size_t n) { return local(d, s, n); }
__attribute__((visibility("hidden"))) void *hidden(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
extern void *elsewhere(void *d, const void *s, size_t n);
void *needs_more(void *d, const void *s, size_t n) { return elsewhere(d, s, n); }
void *fine(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
"""


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own cache of built variants (never the user's ~/.cache)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("MEMFBENCH_CACHE", str(root))
    monkeypatch.delenv("CFLAGS", raising=False)
    return root


def cc(*args: str) -> None:
    subprocess.run(["cc", *args], check=True, capture_output=True)


def leftovers(root: Path) -> list[str]:
    """Anything in the cache but complete entries (a build folder a failure left, say)."""
    folder = root / "variants"
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.exists() else []


def test_a_source_variant_runs_from_every_placement_balanced_with_its_copy(run) -> None:
    r = run("-v", "libc", "-v", f"{KNOWN}:wrapped_memcpy=wrapped", "-v", "wrapped-copy", "--processes", "16",
            *STRUCT)
    assert r.code == 0, r.stderr
    d = r.doc
    lib, wrapped, copy = d["variants"]
    assert (wrapped["origin"], wrapped["code_layout"], copy["origin"]) == ("source", "placed", "copy")
    assert lib["code_layout"] == "fixed"
    b = wrapped["build"]
    assert b["symbol"] == "wrapped_memcpy" and b["kind"] == "c" and b["flags"] == "-O2" and b["flags_source"] == "default"
    assert b["compiler"] == "cc" and b["compiler_version"] and len(b["key"]) == 64
    assert len(set(b["page_offsets"])) == 8 and b["line_offsets_all"]
    assert b["relocated_fields"] >= 1  # the call to libc's memcpy, at least
    assert copy["copy_of"] == {"variant": "wrapped", "bytes_compared": b["code_bytes"], "identical": True}
    assert wrapped["code_identity"]["basis"] == "source build"
    assert wrapped["code_identity"]["id"] == copy["code_identity"]["id"]
    placements = [p["variant_code_placements"] for p in d["processes"]]
    # every placement twice over 16 processes, for the variant and for its copy, never the same in one
    assert Counter(p[1] for p in placements) == {k: 2 for k in range(8)}
    assert Counter(p[2] for p in placements) == {k: 2 for k in range(8)}
    assert all(p[1] != p[2] for p in placements)
    assert all(p[0] is None for p in placements)


def test_a_second_run_finds_the_build_and_a_change_rebuilds(run, tmp_path: Path, cache: Path) -> None:
    src, header = tmp_path / "v.c", tmp_path / "v.h"
    header.write_text("#define PAD 1\n")
    src.write_text('#include <string.h>\n#include "v.h"\n'
                   "void *v(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n")
    spec = f"{src}:v"
    first = run("-v", "libc", "-v", spec, "--processes", "1", *STRUCT)
    assert first.code == 0, first.stderr
    built = first.doc["variants"][1]["build"]  # read now: the next run writes the same file
    entry = Path(built["cache_entry"])
    stamp = {p.name: p.stat().st_mtime_ns for p in entry.iterdir()}
    second = run("-v", "libc", "-v", spec, "--processes", "1", *STRUCT)
    assert [built["cached"], second.doc["variants"][1]["build"]["cached"]] == [False, True]
    assert {p.name: p.stat().st_mtime_ns for p in entry.iterdir()} == stamp  # nothing was rebuilt
    # a header it includes changed: built again, into the same entry (the key covers the file itself)
    header.write_text("#define PAD 2\n")
    third = run("-v", "libc", "-v", spec, "--processes", "1", *STRUCT).doc["variants"][1]["build"]
    assert third["cached"] is False
    # other flags: another entry
    fourth = run("-v", "libc", "-v", spec, "--processes", "1", "--variant-cflags", "-O1", *STRUCT)
    b = fourth.doc["variants"][1]["build"]
    assert (b["flags"], b["flags_source"], b["cached"]) == ("-O1", "--variant-cflags", False)
    assert fourth.doc["config"]["variant_cflags"] == "-O1"
    assert b["key"] != third["key"]
    assert leftovers(cache) == []


def test_the_parent_builds_once_and_the_file_says_so(run, cache: Path) -> None:
    """Several processes: the parent builds before the first one and each finds it; the merged file
    records the build as the study made it, and the terminal says it was built."""
    r = run("-v", "libc", "-v", f"{KNOWN}:twice_memcpy=twice", "--processes", "2", "--rounds", "3",
            "--warmup-rounds", "1", "-d", "fixed:64", "-p", "l1")
    assert r.code == 0, r.stderr
    assert r.doc["variants"][1]["build"]["cached"] is False
    assert any("twice: built" in line and "at 8 code placements" in line for line in r.stderr_lines)


def test_objects_and_archives_are_source_variants_too(run, tmp_path: Path) -> None:
    """An archive's build takes the members that define the symbol: a member beside it that needs
    more than the C library does not stop it."""
    (tmp_path / "f.c").write_text("#include <string.h>\n"
                                  "void *fine(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n")
    (tmp_path / "other.c").write_text(BAD_SOURCE.replace("fine", "other_fine"))
    cc("-O2", "-fPIC", "-c", str(tmp_path / "f.c"), "-o", str(tmp_path / "f.o"))
    cc("-O2", "-fPIC", "-c", str(tmp_path / "other.c"), "-o", str(tmp_path / "other.o"))
    subprocess.run(["ar", "rcs", str(tmp_path / "libf.a"), str(tmp_path / "other.o"), str(tmp_path / "f.o")],
                   check=True)
    for spec, kind in ((f"{tmp_path / 'f.o'}:fine", "object"), (f"{tmp_path / 'libf.a'}:fine=fine_a", "archive")):
        r = run("-v", "libc", "-v", spec, "--processes", "1", *STRUCT)
        assert r.code == 0, r.stderr
        assert r.doc["variants"][1]["build"]["kind"] == kind


@pytest.mark.parametrize("spec, says", [
    ("SRC:table", "'table' is a variable, not a function"),
    ("SRC:local", "'local' is static"),
    ("SRC:hidden", "'hidden' has hidden visibility"),
    ("SRC:absent", "'absent' is not among its symbols"),
    ("SRC:needs_more", "undefined reference to `elsewhere'"),
    ("BROKEN:f", "error: expected"),
    ("LTO:fine", "LTO bytecode"),
    ("ARCHIVE:absent", "'absent' is defined by none of its members"),
    ("MISSING:f", "no such file"),
    ("SRC:", "no symbol after ':'"),
])
def test_what_cannot_be_built_is_refused_in_one_line(run, tmp_path: Path, cache: Path, spec: str, says: str) -> None:
    src = tmp_path / "src.c"
    src.write_text(BAD_SOURCE)
    broken = tmp_path / "broken.c"
    broken.write_text("void *f(void *d) { return d }\n")
    cc("-O2", "-fPIC", "-flto", "-c", str(src), "-o", str(tmp_path / "lto.o"))
    cc("-O2", "-fPIC", "-c", str(src), "-o", str(tmp_path / "plain.o"))
    subprocess.run(["ar", "rcs", str(tmp_path / "lib.a"), str(tmp_path / "plain.o")], check=True)
    paths = {"SRC": src, "BROKEN": broken, "LTO": tmp_path / "lto.o", "ARCHIVE": tmp_path / "lib.a",
             "MISSING": tmp_path / "missing.c"}
    name, _, symbol = spec.partition(":")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    r = run("-v", "libc", "-v", f"{paths[name]}:{symbol}", "--processes", "1", *STRUCT)
    assert r.code != 0
    assert len(r.stderr_lines) == 1 and says in r.stderr_lines[0], r.stderr
    assert str(paths[name]) in r.stderr_lines[0]
    assert not (tmp_path / "out.json").exists()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert leftovers(cache) == []


def test_no_compiler_is_one_line(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-anywhere")
    r = run("-v", "libc", "-v", f"{KNOWN}:wrapped_memcpy", "--processes", "1", *STRUCT)
    assert r.code != 0 and len(r.stderr_lines) == 1 and "no C compiler" in r.stderr
    assert not (Path(r.out)).exists()


def test_the_result_never_replaces_the_source(run, tmp_path: Path) -> None:
    src = tmp_path / "keep.c"
    text = "#include <string.h>\nvoid *k(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n"
    src.write_text(text)
    r = run("-v", "libc", "-v", f"{src}:k", "--processes", "1", *STRUCT, out="keep.c")
    assert r.code != 0 and "source variant" in r.stderr
    assert src.read_text() == text


def test_garbage_objects_are_refused_without_a_crash(run, tmp_path: Path, cache: Path) -> None:
    """A file named .o that is no object, or a truncated one: the linker or the reader says so."""
    good = tmp_path / "good.o"
    (tmp_path / "g.c").write_text(BAD_SOURCE)
    cc("-O2", "-fPIC", "-c", str(tmp_path / "g.c"), "-o", str(good))
    data = good.read_bytes()
    cases = {"text.o": b"not an object at all\n", "cut.o": data[: len(data) // 3], "head.o": data[:64]}
    for name, content in cases.items():
        (tmp_path / name).write_bytes(content)
        r = run("-v", "libc", "-v", f"{tmp_path / name}:fine", "--processes", "1", *STRUCT)
        assert r.code not in (0, -11, -6) and len(r.stderr_lines) == 1, (name, r.stderr)
    assert leftovers(cache) == []


def test_a_plugin_is_one_layout_and_gets_a_layout_sentinel(run, memfbench: str) -> None:
    plugin = Path(memfbench).parent.parent / "examples" / "libmemcpy_erms.so"
    if not plugin.exists():
        pytest.skip("the example plugin is not built")
    r = run("-v", "libc", "-v", f"{plugin}:erms_memcpy=erms", "--processes", "16", *STRUCT)
    assert r.code == 0, r.stderr
    d = r.doc
    names = [v["name"] for v in d["variants"]]
    assert names == ["libc", "erms", "libc-wrapped"]
    assert d["variants"][1]["code_layout"] == "fixed" and d["variants"][2]["layout_sentinel"] is True
    out = subprocess.run([memfbench, "analyze", "compare", r.out, "--detail", "--json",
                          str(Path(r.out).with_suffix(".cmp.json"))], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = json.loads(Path(r.out).with_suffix(".cmp.json").read_text())
    assert [row["variant"] for row in rows] == ["erms"]  # the sentinel is no verdict
    assert rows[0]["one_layout"] == "erms" and rows[0]["layout_sensitivity"] >= 0
    assert rows[0]["layout_sensitivity_from"] == "libc-wrapped"
    assert "one code layout: erms" in out.stdout and "give the source (-v FILE.c:SYMBOL)" in out.stdout
    # the headline tags it, and its legend says what the tag means
    # (on its row, or below it where the machine's state adds tags past the width)
    erms = headline_rows(headline_block(out.stdout))["erms"]
    assert "[1 layout]" in (erms["tags"] or "") and "\n[1 layout] prebuilt code" in out.stdout


def test_a_study_with_placed_code_adds_no_sentinel(run, memfbench: str) -> None:
    plugin = Path(memfbench).parent.parent / "examples" / "libmemcpy_erms.so"
    if not plugin.exists():
        pytest.skip("the example plugin is not built")
    r = run("-v", "libc", "-v", f"{plugin}:erms_memcpy=erms", "-v", "bytes", "--processes", "1", *STRUCT)
    assert [v["name"] for v in r.doc["variants"]] == ["libc", "erms", "bytes"]

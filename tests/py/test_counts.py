"""memfbench counts: callgrind's counts of each variant on the same calls are the same on a re-run,
and they order the known-cost wrappers as their code says (bench/impl/known_cost.c); the code each
variant ran is listed with its functions' ELF sizes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")


CODE_FIELDS = ("code", "code_bytes", "code_bytes_complete")
# The distribution where a test's point is not the distribution: one 64-byte size needs no large
# window. Under callgrind every instruction of the set-up is simulated, and filling the default
# distributions' large window (64 MiB a buffer) cost about 9 s a variant on the Zen 3 VM; the
# counted calls' properties asserted here do not depend on it. The source variant's test keeps the
# default distribution (its large copies call libc's).
SMALL = ("-d", "fixed:64")


def counts(memfbench: str, out: Path, *extra: str) -> dict:
    subprocess.run([memfbench, "counts", "-v", "noop,libc-twice,libc-wrapped,bytes", "--calls", "2000", *SMALL, "-q",
                    "-o", str(out), *extra], check=True, capture_output=True, timeout=300)
    return {v["name"]: v for v in json.loads(out.read_text())["variants"]}


def readelf_size(binary: str, symbol: str) -> int:
    """The symbol's st_size as binutils' readelf shows it in the binary's symbol tables: the check on
    memfbench's own ELF reading (base/elfobj.c) from a reader that shares no code with it."""
    out = subprocess.run(["readelf", "-sW", binary], check=True, capture_output=True, text=True).stdout
    sizes = {int(f[2], 0) for f in (line.split() for line in out.splitlines()) if len(f) >= 8 and f[7] == symbol}
    assert len(sizes) == 1, (symbol, sizes)
    return sizes.pop()


@pytest.fixture(scope="module")
def two_runs(memfbench: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    d = tmp_path_factory.mktemp("counts")
    return counts(memfbench, d / "a.json"), counts(memfbench, d / "b.json")


def test_two_runs_count_alike_and_known_costs_order(two_runs: tuple[dict, dict]) -> None:
    a, b = two_runs
    assert {k: v["totals"] for k, v in a.items()} == {k: v["totals"] for k, v in b.items()}
    ir = {k: v["per_call"]["Ir"] for k, v in a.items()}
    # twice copies every call a second time through the same libc memcpy, plus one wrapper layer:
    # at least 1.8 times libc's work, whatever share the wrapper's few instructions take
    assert ir["libc-twice"] > 1.8 * ir["libc"]
    assert ir["libc-wrapped"] > ir["libc"] and ir["noop"] < ir["libc"]


def test_two_runs_list_the_same_code(two_runs: tuple[dict, dict]) -> None:
    """The code list is read from callgrind's call graph and the binaries' symbols, neither of which
    a re-run changes: field for field the same, in the same order."""
    a, b = two_runs
    for name in a:
        assert {f: a[name][f] for f in CODE_FIELDS} == {f: b[name][f] for f in CODE_FIELDS}, name


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils' readelf not installed")
def test_a_builtins_code_is_its_own_symbol(memfbench: str, two_runs: tuple[dict, dict]) -> None:
    """bytes calls nothing: its code is its one function in memfbench's binary, and its code bytes
    are that symbol's size as readelf reads it."""
    v = two_runs[0]["bytes"]
    assert [(os.path.realpath(f["object"]), f["function"]) for f in v["code"]] == \
        [(os.path.realpath(memfbench), "mfb_memcpy_bytes")]
    size = readelf_size(memfbench, "mfb_memcpy_bytes")
    assert v["code"][0]["bytes"] == v["code_bytes"] == size and v["code_bytes_complete"] is True


def test_a_wrapper_lists_itself_and_libc(memfbench: str, two_runs: tuple[dict, dict]) -> None:
    """libc-wrapped's code is its wrapper first (not the harness's function traits, not the counted
    loop), then what the wrapper called: libc's copy, the very function libc itself ran as the
    baseline, with the same size; its code bytes add up the sizes known, and it is complete only
    when none is missing."""
    runs = two_runs[0]
    w, libc = runs["libc-wrapped"]["code"], runs["libc"]["code"]
    names = [f["function"] for f in w]
    assert names[0] == "mfb_memcpy_wrapped" and os.path.realpath(w[0]["object"]) == os.path.realpath(memfbench)
    assert "mfb_counted_loop" not in names and "mfb_func_traits" not in names
    assert len(libc) == 1 and libc[0] in w and os.path.basename(libc[0]["object"]).startswith("libc.so")
    if shutil.which("readelf"):
        assert w[0]["bytes"] == readelf_size(memfbench, "mfb_memcpy_wrapped")
    for name in ("libc-wrapped", "libc-twice"):
        v = runs[name]
        known = [f["bytes"] for f in v["code"] if f["bytes"] is not None]
        assert v["code_bytes"] == sum(known) and v["code_bytes_complete"] == (len(known) == len(v["code"]))
    # the wrappers differ only in their own function: the functions they call are the same
    assert w[1:] == runs["libc-twice"]["code"][1:]


@pytest.mark.parametrize("args,word", [(["--calls", "5"], "--calls"), (["-v", "nosuch"], "nosuch"),
                                       (["--cache", "32K"], "--cache")])
def test_bad_input_one_line(memfbench: str, tmp_path: Path, args: list[str], word: str) -> None:
    p = subprocess.run([memfbench, "counts", *args, "-o", str(tmp_path / "c.json")], capture_output=True, text=True)
    assert p.returncode == 2 and word in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "c.json").exists()


def test_a_source_variant_is_built_and_counted_as_run_builds_it(memfbench: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """-v FILE.c:SYMBOL=NAME: built into the run's cache (the same entry run uses) and counted from its
    first placement under its own name; what it calls (libc's memcpy for large copies) is in its code."""
    monkeypatch.setenv("MEMFBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("CFLAGS", raising=False)
    src = Path(__file__).resolve().parents[2] / "examples" / "source" / "memcpy_sizeclass.c"
    out = tmp_path / "c.json"
    p = subprocess.run([memfbench, "counts", "-v", f"{src}:sizeclass_memcpy=mine", "--calls", "2000", "-q", "-o",
                        str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    v = {v["name"]: v for v in json.loads(out.read_text())["variants"]}
    mine = v["mine"]
    assert mine["origin"] == "source" and f"source {src}:sizeclass_memcpy" in mine["description"]
    assert mine["code"][0]["function"] == "sizeclass_memcpy" and mine["verified_calls"] >= 2000
    assert {f["function"] for f in mine["code"][1:]} & {f["function"] for f in v["libc"]["code"]}
    entries = list((tmp_path / "cache" / "variants").iterdir())
    assert len(entries) == 1 and str(entries[0]) in " ".join(mine["command"])
    bad = tmp_path / "bad.c"
    bad.write_text("int nothing;\n")
    p = subprocess.run([memfbench, "counts", "-v", f"{bad}:nosuch", "-o", str(tmp_path / "d.json")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "nosuch" in p.stderr, p.stderr
    assert not (tmp_path / "d.json").exists()


def test_no_valgrind_on_path(memfbench: str, tmp_path: Path) -> None:
    p = subprocess.run([memfbench, "counts", "-o", str(tmp_path / "c.json")], capture_output=True, text=True,
                       env={"PATH": str(tmp_path)})
    assert p.returncode != 0 and "valgrind" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("function", ["memset", "memmove", "memcmp", "bcmp"])
def test_every_function_is_counted_and_the_byte_loop_does_more(memfbench: str, tmp_path: Path,
                                                               function: str) -> None:
    """Each function's replay path (memset's one buffer, the compares' flipped byte) runs under
    callgrind: the byte-at-a-time loop executes more instructions per call than libc's."""
    out = tmp_path / "c.json"
    subprocess.run([memfbench, "counts", "-f", function, "-v", "bytes", "--calls", "500", *SMALL, "-q", "-o", str(out)],
                   check=True, capture_output=True, timeout=300)
    doc = json.loads(out.read_text())
    ir = {v["name"]: v["per_call"]["Ir"] for v in doc["variants"]}
    assert set(ir) == {"libc", "bytes"} and 0 < ir["libc"] < ir["bytes"]


def test_analyze_counts_prints_each_variant_against_libc(memfbench: str, tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    subprocess.run([memfbench, "counts", "-v", "noop", "--calls", "500", *SMALL, "-q", "-o", str(out)], check=True,
                   capture_output=True, timeout=300)
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run([str(root / "memfbench"), "analyze", "counts", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line.split() for line in p.stdout.splitlines() if line.split()[:1] in (["libc"], ["noop"])}
    assert rows["libc"][2] == "1.000" and float(rows["noop"][2]) < 1
    assert "Not the real predictor" in p.stdout


def test_a_counts_file_is_read_against_its_schema(tmp_path: Path) -> None:
    """A counts file that breaks its schema (a negative count, a missing event, no baseline among
    the variants) is one line from analyze counts, naming the field; the shipped schema holds a
    file memfbench writes (test_analyze_counts_prints_each_variant_against_libc)."""
    from analysis.io.counts_file import EVENTS
    root = Path(__file__).resolve().parents[2]
    variant = {"name": "libc", "origin": "libc", "verified_calls": 100, "command": ["valgrind"],
               "totals": {e: 10 for e in EVENTS}, "per_call": {e: 0.1 for e in EVENTS}}
    good = {"schema": "memfbench-counts", "schema_version": 1, "memfbench": "0.1.0", "command": ["counts"],
            "function": "memcpy", "distribution": {"spec": "fixed:64"}, "calls": 100, "seed": "1",
            "baseline": "libc", "tool": {"name": "callgrind", "valgrind": "valgrind-3.19.0",
                                         "counted_function": "mfb_counted_loop", "options": [],
                                         "simulated_caches": []},
            "variants": [variant]}
    bad = [("per_call", lambda d: d["variants"][0]["per_call"].update(Ir=-1), "variants/0/per_call/Ir"),
           ("missing", lambda d: d["variants"][0]["totals"].pop("Bcm"), "variants/0/totals"),
           ("baseline", lambda d: d.update(baseline="sse2"), "the baseline must be one of them")]
    for name, edit, where in bad:
        doc = json.loads(json.dumps(good))
        edit(doc)
        f = tmp_path / f"{name}.json"
        f.write_text(json.dumps(doc), encoding="utf-8")
        p = subprocess.run([str(root / "memfbench"), "analyze", "counts", str(f)], capture_output=True, text=True,
                           timeout=120)
        lines = p.stderr.strip().splitlines()
        assert p.returncode != 0 and len(lines) == 1 and where in lines[0] and "Traceback" not in p.stderr, p.stderr
    f = tmp_path / "good.json"
    f.write_text(json.dumps(good), encoding="utf-8")
    assert subprocess.run([str(root / "memfbench"), "analyze", "counts", str(f)], capture_output=True,
                          timeout=120).returncode == 0


def test_code_bytes_are_shown_and_must_add_up(tmp_path: Path) -> None:
    """analyze counts shows each variant's code bytes (N+ when a size is unknown, - for a file
    written before the code list); a file whose code_bytes is not its code's sum, or claims to be
    complete with a size missing, or has the code without its sum, is refused in one line."""
    from analysis.io.counts_file import EVENTS
    root = Path(__file__).resolve().parents[2]

    def variant(name: str, **code: object) -> dict:
        return {"name": name, "origin": "builtin", "verified_calls": 100, "command": ["valgrind"],
                "totals": {e: 1 for e in EVENTS}, "per_call": {e: 1.0 for e in EVENTS}, **code}
    lib = {"object": "/lib/libc.so.6", "function": "__memcpy_avx_unaligned_erms", "bytes": 1758}
    stub = {"object": "???", "function": "0x000000000011bce0", "bytes": None}
    doc = {"schema": "memfbench-counts", "schema_version": 1, "memfbench": "0.1.0", "command": ["counts"],
           "function": "memcpy", "distribution": {"spec": "fixed:64"}, "calls": 100, "seed": "1",
           "baseline": "libc", "tool": {"name": "callgrind", "valgrind": "valgrind-3.19.0",
                                        "counted_function": "mfb_counted_loop", "options": [], "simulated_caches": []},
           "variants": [variant("libc", code=[lib], code_bytes=1758, code_bytes_complete=True),
                        variant("libc-wrapped", code=[{"object": "/b/memfbench", "function": "w", "bytes": 120}, lib,
                                                      stub], code_bytes=1878, code_bytes_complete=False),
                        variant("old")]}

    def analyze(d: dict) -> subprocess.CompletedProcess:
        f = tmp_path / "c.json"
        f.write_text(json.dumps(d), encoding="utf-8")
        return subprocess.run([str(root / "memfbench"), "analyze", "counts", str(f)], capture_output=True, text=True,
                              timeout=120)
    p = analyze(doc)
    assert p.returncode == 0, p.stderr
    cells = {line.split()[0]: line.split()[-1] for line in p.stdout.splitlines()
             if line.split()[:1] in (["libc"], ["libc-wrapped"], ["old"])}
    assert cells == {"libc": "1758", "libc-wrapped": "1878+", "old": "-"}
    assert ("libc-wrapped: w 120, __memcpy_avx_unaligned_erms (libc.so.6) 1758, 0x000000000011bce0 (???) ?"
            in " ".join(p.stdout.split()))  # wrapped to 80 columns
    assert all(len(x) <= 80 for x in p.stdout.splitlines()), p.stdout
    bad = [(lambda d: d["variants"][1].update(code_bytes=1879), "variants/1/code_bytes"),
           (lambda d: d["variants"][1].update(code_bytes_complete=True), "variants/1/code_bytes_complete"),
           (lambda d: d["variants"][0].pop("code_bytes"), "variants/0"),
           (lambda d: d["variants"][0].update(code_bytes=None), "variants/0/code_bytes")]
    for edit, where in bad:
        d = json.loads(json.dumps(doc))
        edit(d)
        p = analyze(d)
        lines = p.stderr.strip().splitlines()
        assert p.returncode != 0 and len(lines) == 1 and where in lines[0] and "Traceback" not in p.stderr, p.stderr


def test_counts_beside_a_runs_time_ratios(tmp_path: Path) -> None:
    """--beside RUN puts each variant's time ratio from a result file beside its counts (the golden
    file: memcpy on fixed:64, libc and bytes); a run of other calls is refused in one line."""
    from analysis.io.counts_file import EVENTS
    from analysis.io.load import load_run
    from analysis.verdicts.compare import compare_runs
    root = Path(__file__).resolve().parents[2]
    golden = root / "tests" / "data" / "golden-run.json"

    def variant(name: str, ir: float) -> dict:
        return {"name": name, "origin": "builtin", "verified_calls": 100, "command": ["valgrind"],
                "totals": {e: 1 for e in EVENTS}, "per_call": {e: (ir if e == "Ir" else 1.0) for e in EVENTS}}
    doc = {"schema": "memfbench-counts", "schema_version": 1, "memfbench": "0.1.0", "command": ["counts"],
           "function": "memcpy", "distribution": {"spec": "fixed:64"}, "calls": 100, "seed": "1",
           "baseline": "libc", "tool": {"name": "callgrind", "valgrind": "valgrind-3.19.0",
                                        "counted_function": "mfb_counted_loop", "options": [], "simulated_caches": []},
           "variants": [variant("libc", 100.0), variant("bytes", 400.0)]}
    f = tmp_path / "c.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    p = subprocess.run([str(root / "memfbench"), "analyze", "counts", str(f), "--beside", str(golden)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    c = next(c for c in compare_runs([load_run(golden)], baseline="libc", secondary=False,
                                     allow_single_process=True) if c.variant == "bytes")
    row = next(line for line in p.stdout.splitlines() if line.startswith("bytes"))
    assert f"{c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}]" in row and "4.000" in row
    doc["distribution"]["spec"] = "fleetbench/Memcpy_Fleet"
    f.write_text(json.dumps(doc), encoding="utf-8")
    p = subprocess.run([str(root / "memfbench"), "analyze", "counts", str(f), "--beside", str(golden)],
                       capture_output=True, text=True, timeout=120)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "--beside" in lines[0] and "fixed:64" in lines[0], p.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_a_cxx_functions_size_is_found_under_its_mangled_name(memfbench: str, tmp_path: Path) -> None:
    """callgrind runs with --demangle=no, so a C++ function is named as the object's symbol table
    names it and its size is found (demangled, `mine::copy(...)` matched no symbol)."""
    src = tmp_path / "cxx.cc"
    src.write_text("#include <cstring>\n#include <cstddef>\nnamespace mine {\n"
                   "__attribute__((noinline)) void *copy(void *d, const void *s, std::size_t n)"
                   " { return std::memcpy(d, s, n); }\n}\n"
                   "extern \"C\" void *cxx_memcpy(void *d, const void *s, std::size_t n) { return mine::copy(d, s, n); }\n")
    lib = tmp_path / "libcxx.so"
    subprocess.run(["g++", "-O2", "-fPIC", "-shared", "-o", str(lib), str(src)], check=True)
    out = tmp_path / "c.json"
    subprocess.run([memfbench, "counts", "-v", f"{lib}:cxx_memcpy=cxx", "--calls", "500", *SMALL, "-q", "-o",
                    str(out)],
                   check=True, capture_output=True, timeout=300)
    v = next(v for v in json.loads(out.read_text())["variants"] if v["name"] == "cxx")
    mangled = [f for f in v["code"] if f["function"].startswith("_ZN4mine4copy")]
    assert len(mangled) == 1 and mangled[0]["bytes"] and v["code_bytes_complete"] is True

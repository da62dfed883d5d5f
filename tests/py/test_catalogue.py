"""The catalogue of bad inputs to `memfbench run`: distribution files, command lines, plugins and
output paths, as a careless or hostile user would give them. Every case must end with a non-zero
exit and exactly one error line that names the file, line, field or option; no traceback or
sanitizer report, no result or temporary file left behind, and every input byte-identical.
(The analysis side has its own catalogue: test_catalogue_analysis.py.)"""
from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from conftest import binary

# If a case were wrongly accepted, it still ends quickly.
QUICK = ["--rounds", "2", "--warmup-rounds", "1", "--processes", "1", "-q"]


@dataclass
class Case:
    id: str
    args: list[str]                      # {dir} is the case's folder, {wrong} the wrong-plugin library
    fragments: list[str]                 # all must appear in the one error line
    code: int = 1                        # 2: a configuration error, refused before any process starts
    files: dict[str, str | bytes] = field(default_factory=dict)   # written into {dir} first
    output: str | None = "out.json"      # -o value relative to {dir}; None: the case gives its own
    quick: bool = True
    setup: Callable[[Path], None] | None = None


def csv(name: str, text: str | bytes, *fragments: str, extra: dict[str, str | bytes] | None = None) -> Case:
    """A bad size table given with -d; the error must name the file."""
    return Case(f"csv-{name}", ["-d", "{dir}/t_size.csv"], ["t_size.csv", *fragments], code=2,
                files={"t_size.csv": text, **(extra or {})})


CSV_CASES = [
    csv("header-300-chars", "x" * 300 + ",weight\n8,1\n", ":1: header", "..."),
    csv("header-130-fields", ",".join(["ab"] * 130) + "\n8,1\n", ":1: header"),
    csv("empty", "", "empty file"),
    csv("only-comments", "# nothing\n# here\n", "header"),
    csv("header-only", "size,weight\n", "no data rows"),
    csv("size-not-number", "size,weight\nabc,1\n", ":2:", "size", "'abc'"),
    csv("size-negative", "size,weight\n-5,1\n", ":2:", "size", "negative"),
    csv("size-too-big", "size,weight\n99999999999,1\n", ":2:", "size", "maximum"),
    csv("size-2^64", "size,weight\n18446744073709551616,1\n", ":2:", "size"),
    csv("weight-negative", "size,weight\n8,-1\n", ":2:", "weight", "negative"),
    csv("weight-nan", "size,weight\n8,nan\n", ":2:", "weight", "NaN"),
    csv("weight-inf", "size,weight\n8,inf\n", ":2:", "weight", "not finite"),
    csv("weight-overflow", "size,weight\n8,1e999\n", ":2:", "weight", "not finite"),
    csv("weight-underflow", "size,weight\n8,1\n9,1e-400\n", ":3:", "weight", "too small"),
    csv("weight-hex", "size,weight\n8,0x10\n", ":2:", "weight", "decimal"),
    csv("weight-empty", "size,weight\n8,\n", ":2:", "weight", "empty"),
    csv("weights-zero", "size,weight\n8,0\n16,0\n", "total weight is zero"),
    csv("duplicate-size", "size,weight\n8,1\n8,2\n", ":3:", "duplicates line 2"),
    csv("too-many-fields", "size,weight\n8,1,2\n", ":2:", "expected 2 fields"),
    csv("too-few-fields", "size,weight\n8\n", ":2:", "expected 2 fields"),
    csv("range-inverted", "size_lo,size_hi,weight\n64,8,1\n", ":2:", "size_hi", "below"),
    csv("ranges-overlap", "size_lo,size_hi,weight\n8,64,1\n32,128,1\n", ":3:", "overlaps"),
    csv("unterminated-quote", 'size,weight\n"8,1\n', ":2:", "quote"),
    csv("nul-bytes", b"size,weight\n8\x00,1\n", ":2:"),
    csv("bad-alignment-sibling", "size,weight\n8,1\n", "t_alignment.csv", ":2:", "power of two",
        extra={"t_alignment.csv": "alignment,weight\n3,1\n"}),
    csv("bad-overlap-sibling", "size,weight\n8,1\n", "t_overlap.csv", ":2:", "overlap", "'sideways'",
        extra={"t_overlap.csv": "overlap,weight\nsideways,1\n"}),
]
# The size table is named in CSV_CASES; its siblings' errors name the sibling instead.
for c in CSV_CASES:
    if c.id in ("csv-bad-alignment-sibling", "csv-bad-overlap-sibling"):
        c.fragments = c.fragments[1:]

FLEETBENCH_CASES = [
    Case("fleetbench-bad-pair", ["-d", "{dir}/fb.txt"], ["fb.txt:1", "'abc'"], files={"fb.txt": "8:0.5,abc\n"}, code=2),
    Case("fleetbench-negative-prob", ["-d", "{dir}/fb.txt"], ["fb.txt", "negative"], files={"fb.txt": "8:-0.5\n"}, code=2),
]


def cli(id_: str, args: list[str], *fragments: str, code: int = 2) -> Case:
    return Case(f"cli-{id_}", args, list(fragments), code=code)


CLI_CASES = [
    cli("cpu-2^32", ["--cpu", "4294967296"], "--cpu", "at most 1023"),
    cli("cpu-negative", ["--cpu", "-1"], "--cpu"),
    cli("cpu-not-allowed", ["--cpu", "1000"], "--cpu", "1000"),
    cli("rounds-2^32", ["--rounds", "4294967296"], "--rounds", "at most"),
    cli("rounds-zero", ["--rounds", "0"], "--rounds", "below the minimum 1"),
    cli("rounds-hex", ["--rounds", "0x10"], "--rounds", "'0x10'"),
    cli("warmup-2^32", ["--warmup-rounds", "4294967296"], "--warmup-rounds", "at most"),
    cli("time-nan", ["--time", "nan"], "--time", "'nan'"),
    cli("time-inf", ["--time", "inf"], "--time", "'inf'"),
    cli("time-negative", ["--time", "-3"], "--time"),
    cli("time-huge", ["--time", "1e300"], "--time", "at most"),
    cli("time-too-small-for-processes", ["--time", "0.2", "--processes", "10"], "--time", "--processes"),
    cli("processes-65", ["--processes", "65"], "--processes", "at most 64"),
    cli("target-ci-nan", ["--target-ci", "nan"], "--target-ci"),
    cli("target-ci-100", ["--target-ci", "100"], "--target-ci"),
    cli("max-batches-zero", ["--max-batches", "0"], "--max-batches"),
    cli("max-batches-too-few", ["--max-batches", "100", "--processes", "10"], "--max-batches", "64"),
    cli("watchdog-zero", ["--watchdog", "0"], "--watchdog"),
    cli("watchdog-nan", ["--watchdog", "nan"], "--watchdog"),
    cli("batch-passes-huge", ["--batch-passes", "99999999999"], "--batch-passes", "at most"),
    cli("flip-lead-negative", ["--flip-lead", "-1"], "--flip-lead"),
    cli("seed-too-big", ["--seed", "18446744073709551616"], "--seed"),
    cli("cache-four-parts", ["--cache", "48K:2M:32M:1G"], "--cache"),
    cli("cache-long", ["--cache", "48K:2M:" + "9" * 200], "--cache"),
    cli("small-max-overflow", ["--small-max", "99999999999999999999"], "--small-max"),
    cli("large-window-unknown", ["--large-window", "huge"], "--large-window", "'huge'"),
    cli("variant-33", sum((["-v", "libc"] for _ in range(33)), []), "--variant", "at most 32"),
    cli("unknown-option", ["--margin", "1"], "unknown option '--margin'"),
    cli("stray-argument", ["extra"], "unexpected argument 'extra'"),
    Case("cli-missing-value", ["-o", "{dir}/out.json", "--rounds"], ["--rounds", "needs a value"], code=2, output=None),
    cli("distribution-missing", ["-d", "no_such_table"], "'no_such_table'"),
    cli("synthetic-inverted", ["-d", "uniform:64-8"], "uniform:64-8"),
    cli("synthetic-not-number", ["-d", "fixed:-1"], "fixed:-1"),
    cli("synthetic-too-big", ["-d", "fixed:99999999999"], "fixed:99999999999"),
]


def plugin(id_: str, spec: str, *fragments: str, files: dict[str, str | bytes] | None = None, code: int = 2) -> Case:
    return Case(f"plugin-{id_}", ["-v", "libc", "-v", spec], list(fragments), files=files or {}, code=code)


PLUGIN_CASES = [
    plugin("missing-file", "{dir}/nope.so:f", "nope.so", "no such file"),
    plugin("not-elf", "{dir}/notlib.so:f", "notlib.so", "cannot load", files={"notlib.so": "not an ELF file"}),
    plugin("no-symbol", "{wrong}:no_such_symbol", "no symbol 'no_such_symbol'"),
    plugin("empty-symbol", "{wrong}:", "no symbol after ':'"),
    plugin("empty-name", "{wrong}:dropping_memcpy=", "empty name"),
    plugin("directory", "{dir}/:f", "not a regular file"),
    plugin("path-too-long", "/" + "a" * 5000 + ".so:f", "too long"),
    plugin("wrong-result", "{wrong}:dropping_memcpy", "'dropping_memcpy'", "wrong result", code=1),
    plugin("name-clash", "{wrong}:dropping_memcpy=libc", "'libc' is named twice"),
]


def out(id_: str, target: str, *fragments: str, setup: Callable[[Path], None] | None = None,
        files: dict[str, str | bytes] | None = None, code: int = 1) -> Case:
    return Case(f"output-{id_}", ["-o", target], list(fragments), output=None, setup=setup, files=files or {},
                code=code)


def _mkdir(name: str) -> Callable[[Path], None]:
    return lambda d: (d / name).mkdir()


def _fifo(d: Path) -> None:
    os.mkfifo(d / "fifo")


def _device(d: Path) -> None:
    # A device node of our own (null's numbers): the test never risks the real /dev/null.
    try:
        os.mknod(d / "dev", 0o600 | 0o020000, os.makedev(1, 3))
    except PermissionError:
        os.symlink("/dev/null", d / "dev")


OUTPUT_CASES = [
    out("empty", "", "-o: empty file name"),
    out("directory", "{dir}/sub", "sub", "not a regular file", "directory", setup=_mkdir("sub")),
    out("trailing-slash", "{dir}/sub/", "names a folder", setup=_mkdir("sub")),
    out("dot", "{dir}/.", "names a folder"),
    # a folder that is not there is a usage error, found before anything runs, and named
    out("missing-folder", "{dir}/no/such/dir/out.json", "out.json", "the folder", "/no/such/dir does not exist", code=2),
    out("under-a-file", "{dir}/plain/out.json", "plain/out.json", "plain is not a folder", files={"plain": "x"}, code=2),
    out("too-long", "{dir}/" + "a" * 5000, "too long"),
    out("fifo", "{dir}/fifo", "fifo", "a FIFO", setup=_fifo),
    out("device", "{dir}/dev", "dev", "not a regular file", setup=_device),
    Case("output-onto-distribution", ["-d", "{dir}/in_size.csv", "-o", "{dir}/in_size.csv"],
         ["in_size.csv", "names an input"], code=2, output=None, files={"in_size.csv": "size,weight\n8,1\n16,1\n"}),
    Case("output-onto-sibling", ["-d", "{dir}/in_size.csv", "-o", "{dir}/in_alignment.csv"],
         ["in_alignment.csv", "names an input, the distribution table"], code=2, output=None,
         files={"in_size.csv": "size,weight\n8,1\n16,1\n", "in_alignment.csv": "alignment,weight\n1,1\n"}),
    Case("output-onto-probe-file", ["--cache-from", "{dir}/p.json", "-o", "{dir}/p.json"],
         ["p.json", "names an input, the probe file"], code=2, output=None, files={"p.json": "{}"}),
    Case("output-onto-trace", ["--trace", "{dir}/t.csv", "-o", "{dir}/t.csv"],
         ["t.csv", "names an input"], code=2, output=None, files={"t.csv": "size,src_alignment,dst_alignment,caller\n8,1,1,0\n"}),
    Case("output-onto-plugin", ["-v", "libc", "-v", "{dir}/lib.so:dropping_memcpy", "-o", "{dir}/lib.so"],
         ["lib.so", "names an input"], code=2, output=None,
         setup=lambda d: (d / "lib.so").write_bytes(Path(os.environ["MEMFBENCH_WRONG_PLUGIN"]).read_bytes())),
]

ALL = CSV_CASES + FLEETBENCH_CASES + CLI_CASES + PLUGIN_CASES + OUTPUT_CASES


def snapshot(d: Path) -> dict[str, str]:
    """Every entry under d (hidden ones included) with a digest of its content or kind."""
    snap = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = Path(root) / name
            rel = str(p.relative_to(d))
            if p.is_symlink():
                snap[rel] = "link:" + os.readlink(p)
            elif p.is_file():
                snap[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                snap[rel] = f"mode:{p.lstat().st_mode:o}"
    return snap


def test_catalogue_is_large_enough() -> None:
    assert len(ALL) >= 60 and len({c.id for c in ALL}) == len(ALL)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_bad_input(case: Case, tmp_path: Path) -> None:
    wrong = os.environ.get("MEMFBENCH_WRONG_PLUGIN")
    if ("{wrong}" in " ".join(case.args) or case.id == "output-onto-plugin") and not wrong:
        pytest.skip("MEMFBENCH_WRONG_PLUGIN not set (run through meson test)")
    for name, text in case.files.items():
        p = tmp_path / name
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    if case.setup:
        case.setup(tmp_path)
    subst = {"{dir}": str(tmp_path), "{wrong}": wrong or ""}
    args = []
    for a in case.args:
        for k, v in subst.items():
            a = a.replace(k, v)
        args.append(a)
    if case.output is not None:
        args += ["-o", str(tmp_path / case.output)]
    before = snapshot(tmp_path)
    # the case's own options come last, so they win over the quick defaults
    proc = subprocess.run([binary(), "run", *(QUICK if case.quick else []), *args], capture_output=True,
                          text=True, errors="replace", timeout=120, cwd=tmp_path)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == case.code, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1, lines[:20]
    assert all(f in lines[0] for f in case.fragments), (lines[0], case.fragments)
    assert "Traceback" not in proc.stderr and "Sanitizer" not in proc.stderr and "runtime error" not in proc.stderr
    assert proc.stdout == ""
    assert snapshot(tmp_path) == before, "files created, changed or left behind"

"""PGO friendliness of the shipped examples (docs/methodology.md, "PGO friendliness"): the gain of
`memfbench run --pgo` for examples/source/memcpy_sizeclass.c and memcpy_branchfree.c with each
compiler that is installed (gcc, clang), two default studies each; the trained-on x tested-on table
of the size-class memcpy over the fleet table, SPEC2017's and a recorded Python program's; and the
instructions per call callgrind counts for each build beside its profiled one.

    /usr/bin/python3 -m tools.pgo_table --build build --cpu 1 [--keep DIR]

Every study runs alone, pinned, one after the other (about 4 minutes for 22 default studies on the
Zen 5 VM); the tables are printed as Markdown."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from analysis.io import load  # noqa: E402
from analysis.verdicts.pgo import PgoGroup, pgo_table, run_gains, Gain  # noqa: E402
from analysis.views.counts import code_cell  # noqa: E402
from analysis.views.pgo import cell_text  # noqa: E402

SOURCES = {"sizeclass": "examples/source/memcpy_sizeclass.c:sizeclass_memcpy",
           "branchfree": "examples/source/memcpy_branchfree.c:branchfree_memcpy"}
# the recorded program: a JSON encoder and zlib (docs/recording.md records the same kind)
PROGRAM = ("import json, zlib; d=[json.dumps({'k': i, 'v': 'x' * (i % 300)}) for i in range(200000)]; "
           "zlib.compress(''.join(d).encode())")
DISTRIBUTIONS = {"fleet": "fleetbench/Memcpy_Fleet", "SPEC2017": "spec2017/memcpy", "program": None}


def compilers() -> list[str]:
    """gcc always (the default cc); clang where it and llvm-profdata are installed."""
    have = ["gcc"]
    if shutil.which("clang") and shutil.which("llvm-profdata"):
        have.append("clang")
    return have


def _run(cmd: list[str], env: dict[str, str]) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"pgo_table: {' '.join(cmd)} failed (exit {p.returncode}): {last}")


def gains_table(files: dict[tuple[str, str, int], Path]) -> str:
    """One row per example and compiler: each study's gain on the fleet table."""
    rows = ["| example | compiler | PGO gain, study 1 | PGO gain, study 2 |", "|---|---|---|---|"]
    for cc in compilers():
        for name in SOURCES:
            cells = []
            for rep in (1, 2):
                gains = [g for g in run_gains(load.load_run(files[(cc, "gain", rep)]))
                         if isinstance(g, Gain) and g.pairs[0].of == name]
                cells.append(cell_text(gains[0] if gains else None))
            rows.append(f"| {name} | {cc} | {cells[0]} | {cells[1]} |")
    return "\n".join(rows)


def cross_table(group: PgoGroup, names: dict[str, str]) -> str:
    """A trained-on x tested-on group as Markdown, distributions by their short names."""
    short = {v: k for k, v in names.items()}
    head = "| trained on \\ tested on | " + " | ".join(short.get(t, t) for t in group.tested) + " | where the gain holds |"
    rows = [head, "|---" * (len(group.tested) + 2) + "|"]
    for t in group.trained:
        cells = [cell_text(group.cells.get((t, c))) for c in group.tested]
        rows.append(f"| {short.get(t, t)} | " + " | ".join(cells) + f" | {group.labels[t]} |")
    return "\n".join(rows)


def counts_table(memfbench: str, files: dict[tuple[str, str, int], Path], out: Path, env: dict[str, str]) -> str:
    """callgrind's instructions per call of each example's build and its profiled build (the first
    gain study's cache entries, as plugins), on memfbench counts' default calls."""
    specs = []
    for cc in compilers():
        doc = load.load_run(files[(cc, "gain", 1)]).doc
        for v in doc["variants"]:
            b = v["build"]
            specs.append(f"{b['cache_entry']}/p0.so:{b['symbol']}={v['name']}-{cc}")
    _run([memfbench, "counts", "-q", "-v", ",".join(specs), "-o", str(out)], env)
    doc = json.loads(out.read_text())
    per = {v["name"]: v for v in doc["variants"]}
    rows = ["| example | compiler | instructions/call | with its profile | branches/call | with its profile | "
            "code bytes | with its profile |", "|---|---|---|---|---|---|---|---|"]
    for cc in compilers():
        for name in SOURCES:
            a, b = per[f"{name}-{cc}"], per[f"{name}-pgo-{cc}"]
            rows.append(f"| {name} | {cc} | {a['per_call']['Ir']:.1f} | {b['per_call']['Ir']:.1f} | "
                        f"{a['per_call']['Bc']:.1f} | {b['per_call']['Bc']:.1f} | {code_cell(a)} | {code_cell(b)} |")
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="the meson build folder (default build)")
    ap.add_argument("--cpu", default="1", help="the CPU every study is pinned to (default 1)")
    ap.add_argument("--keep", help="keep the result files in this folder")
    a = ap.parse_args()
    memfbench = str((ROOT / a.build / "bench" / "memfbench").resolve())
    folder = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="pgo_table."))
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MEMFBENCH_CACHE=str(folder / "cache"))
    env.pop("CFLAGS", None)
    rec = folder / "program"
    if not (rec / "memcpy_size.csv").exists():
        shutil.rmtree(rec, ignore_errors=True)
        _run([memfbench, "record", "-o", str(rec), "--", sys.executable, "-c", PROGRAM], env)
    names = dict(DISTRIBUTIONS, program=str(rec / "memcpy_size.csv"))
    train_spec = dict(DISTRIBUTIONS, program=str(rec))
    files: dict[tuple[str, str, int], Path] = {}
    sources = [f"{ROOT / spec}={name}" for name, spec in SOURCES.items()]
    for cc in compilers():
        env_cc = dict(env, CC=cc)
        for rep in (1, 2):
            f = files[(cc, "gain", rep)] = folder / f"gain-{cc}-{rep}.json.gz"
            _run([memfbench, "run", "--pgo", *[x for s in sources for x in ("-v", s)], "--cpu", a.cpu, "-q",
                  "-o", str(f)], env_cc)
        for t, tspec in train_spec.items():
            for u, uspec in names.items():
                f = folder / f"cross-{cc}-{t}-{u}.json.gz"
                _run([memfbench, "run", "--pgo", "--pgo-train", tspec, "-d", uspec, "-v", sources[0], "--cpu", a.cpu,
                      "-q", "-o", str(f)], env_cc)
    print("PGO gain, NAME-pgo over NAME, time per call on the fleet table, 95 % interval (below 0: faster):\n")
    print(gains_table(files))
    for cc in compilers():
        runs = [load.load_run(f) for f in sorted(folder.glob(f"cross-{cc}-*.json.gz"))]
        # every file's sizeclass-pgo is its own profile's code: each cell is one file
        for g in pgo_table(runs):
            print(f"\nsizeclass with {cc}'s profile, trained on (rows) and timed on (columns):\n")
            print(cross_table(g, names))
    print("\nCounts under callgrind (memfbench counts' default calls: the fleet table, seed 1), per call:\n")
    print(counts_table(memfbench, files, folder / "counts.json", env))
    if not a.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

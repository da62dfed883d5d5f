"""Did a change to the C code leave the result files the same? Runs a set of studies with a build
from before the change (twice: what differs between those two is run-to-run noise: timings, dates,
addresses) and with a build after it (once), and compares every field and every sample column.
A report, not a test: it needs two builds.

    /usr/bin/python3 -m tools.golden_compare --before OLD/bench/memfbench --after build/bench/memfbench
        [--cpu 1] [--repeat 3] [--keep DIR]

Each study fixes its seed, rounds, warm-up and batch shape, and gives its caches with --cache, so
the only differences left between runs of one build are measured times and what follows from them
(a stressor's loop count, a --target-ci study's process count); --repeat runs before the change
show which paths those are. The builds' own folders are written as one name on both sides (a
distribution folder, a variant's object). Exit status 1 when any path changed that never differs
between runs before the change.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.lib import golden  # noqa: E402

GEOMETRY = ["--cache", "32K:512K:32M"]
FIXED = ["-q", "--batch-passes", "4", "--warmup-rounds", "2"]
# One study per path through the merge: plain, --by-class with --target-ci over processes,
# --background, --sweep, a single process.
STUDIES = {
    "plain": ["-v", "libc", "-v", "bytes", "-v", "libc-copy", "-d", "fixed:64", "-p", "l1", "--processes", "2",
              "--rounds", "6", "--seed", "5"],
    "by-class-target": ["-v", "libc", "-v", "rep_movsb", "-d", "fixed:64", "--by-class=32,48", "--processes", "3",
                        "--target-ci", "30", "--seed", "9"],
    "background": ["-v", "libc", "-v", "rep_movsb", "-d", "fixed:64", "--processes", "2", "--rounds", "4",
                   "--seed", "11", "--background", "bandwidth", "--background-cpus", "0"],
    "sweep": ["-v", "libc", "-v", "rep_movsb", "--sweep", "16-64:16", "--processes", "2", "--rounds", "4",
              "--seed", "12"],
    "one-process": ["-v", "libc", "-v", "sse2", "-d", "fixed:64", "--processes", "1", "--allow-single-process",
                    "--rounds", "6", "--seed", "13"],
}


def run(binary: str, study: list[str], cpu: str, out: Path) -> dict:
    cmd = [binary, "run", *study, *GEOMETRY, *FIXED, "--cpu", cpu, "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):  # 3: a warning the study prints (a check, not a failure)
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"golden_compare: {' '.join(cmd)} failed with exit status {p.returncode}: {last}")
    # Where each build lives is not what the change did.
    build_root = str(Path(binary).resolve().parents[2])
    text = out.read_text(encoding="utf-8").replace(str(Path(binary).resolve()), "BINARY")
    text = text.replace(binary, "BINARY").replace(str(out), "OUTPUT").replace(build_root, "ROOT")
    return json.loads(text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="memfbench built before the change")
    ap.add_argument("--after", required=True, help="memfbench built after the change")
    ap.add_argument("--cpu", default="1")
    ap.add_argument("--repeat", type=int, default=3, help="runs before the change per study (at least 2)")
    ap.add_argument("--keep", type=Path, help="keep the result files in this folder")
    args = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        runs = {}
        for name, study in STUDIES.items():
            befores = [run(args.before, study, args.cpu, folder / f"{name}-before{k}.json")
                       for k in range(max(2, args.repeat))]
            runs[name] = (befores, run(args.after, study, args.cpu, folder / f"{name}-after.json"))
    # What varies between runs of the same code in any study may vary in every study.
    shapes = set().union(*(golden.noise(b[0], b[1:]) for b, _ in runs.values()))
    for name, (befores, after) in runs.items():
        v = golden.compare(befores[0], after, shapes)
        print(f"{name}: {v.paths} paths, {len(v.noise)} vary between runs before (noise), "
              f"{len(v.changed)} differ between before and after, {len(v.unexplained)} unexplained")
        fb, fa = golden.flatten(befores[0]), golden.flatten(after)
        for p in v.unexplained[:20]:
            print("  " + golden.describe(p, fb, fa))
        failed += not v.same
    print("same result files" if not failed else f"{failed} of {len(STUDIES)} studies changed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

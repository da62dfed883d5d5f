"""How often `memfbench ab --predict-from` agrees on the known-answer program, measured: K studies
of one shape of tests/c/ab_known.c (recorded once with its trace), each a default `memfbench ab`
of rep_movsb and sse2 with --predict-from, seeds 1..K, one after another. A benchmark that
reports, not a test: timing has no place in a pass/fail test.

    python3 -m tools.bench_ab_known [--shape replay] [--studies 5] [--cpu N] [--memfbench PATH]

Prints, per variant and replay (the table drawn at random, the trace in order): in how many
studies measured and predicted agreed (the 95 % interval of measured - predicted held 0), the
median per-call difference predicted and measured (ns: per run over the run's calls), and the
median gap.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from analysis.io.ab_file import read_ab
from analysis.verdicts.ab import predict_ab

ROOT = Path(__file__).resolve().parents[1]
SHAPES = ("replay", "shuffled", "batched", "interleaved")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.bench_ab_known", description=__doc__.splitlines()[0])
    ap.add_argument("--shape", choices=SHAPES, default="replay")
    ap.add_argument("--studies", type=int, default=5)
    ap.add_argument("--cpu", default=None, help="memfbench ab's --cpu (default: its own)")
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    a = ap.parse_args(argv)
    if a.studies < 2:
        ap.error("--studies: at least 2")
    program = [str(ROOT / "build" / "tests" / "c" / "ab_known"),
               str(ROOT / "distributions" / "fleetbench" / "Memcpy_Fleet_size.csv"), a.shape]
    if not Path(a.memfbench).exists() or not Path(program[0]).exists():
        print(f"bench_ab_known: {a.memfbench} or {program[0]} is missing: build first (meson compile -C build)",
              file=sys.stderr)
        return 2
    cpu = ["--cpu", a.cpu] if a.cpu is not None else []
    rows: dict[tuple[str, str], list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        rec = Path(tmp) / "rec"
        subprocess.run([a.memfbench, "record", "--trace", "100000", "-o", str(rec), "--", *program], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for seed in range(1, a.studies + 1):
            out = Path(tmp) / f"ab{seed}.json"
            subprocess.run([a.memfbench, "ab", "-q", "-v", "rep_movsb", "-v", "sse2", *cpu, "--seed", str(seed),
                            "--predict-from", str(rec), "-o", str(out), "--", *program], check=True)
            for p in predict_ab(read_ab(out)):
                rows.setdefault((p.arm, p.basis), []).append(p)
    print(f"ab_known {a.shape}: {a.studies} studies of memfbench ab --predict-from (seeds 1..{a.studies}, "
          "10 blocks each), 95 % intervals")
    print(f"{'variant':>10} {'replay':>6} {'agree':>7} {'predicted ns/call':>18} {'measured ns/call':>17} "
          f"{'gap ns/call':>12}")
    for (arm, basis), ps in rows.items():
        calls = ps[0].calls
        pred = np.median([p.predicted_s for p in ps]) / calls * 1e9
        meas = np.median([p.measured_s for p in ps]) / calls * 1e9
        agree = sum(p.verdict == "agree" for p in ps)
        print(f"{arm:>10} {basis:>6} {agree:>3} of {len(ps):<2} {pred:+18.2f} {meas:+17.2f} {meas - pred:+12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How well `memfbench analyze history` finds a change, measured: its false-alarm rate on series of
A/A studies (one build, no change) and its detection of a known step (the counting wrapper replaced
by its 1 %-slower twin under the same variant name). A benchmark that reports, not a test.

    python3 -m tools.bench_history run DIR [--aa 24] [--step 12] [--cpu 1]
    python3 -m tools.bench_history evaluate DIR [--length 12] [--draws 200]

`run` makes the studies, one after another, each a default study (10 processes) of libc and the
variant `candidate`: first --aa of them with the known-cost plugin's mfb_memcpy_wrapped, then
--step with its mfb_memcpy_slow1pct (build/tests/c/libknown_cost.so, bench/impl/known_cost.c),
labelled aa-NN and step-NN. `evaluate` reads them and prints, for docs/analysis.md:
- the A/A studies as one series in time order, and the step series (the last --length/2 A/A
  studies, then the first --length/2 step studies) in time order: the changes found;
- --draws series of --length A/A studies drawn at random: the share with a change (false alarms);
- --draws series of --length/2 A/A then --length/2 step studies drawn at random (and of as many
  of each as the step studies allow): the share with a change within one point of the step, and
  the sizes found;
- the detector's power on this machine's own noise: A/A series of --length and of all the A/A
  studies drawn at random, with a known step (--steps, percent) added to their second half.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

from analysis.io.load import load_runs
from analysis.verdicts import history

ROOT = Path(__file__).resolve().parents[1]


def build() -> Path:
    return ROOT / "build"


def study(binary: Path, plugin: Path, symbol: str, label: str, out: Path, cpu: int) -> None:
    cmd = [str(binary), "run", "-q", "--cpu", str(cpu), "-v", "libc", "-v", f"{plugin}:{symbol}=candidate",
           "--label", label, "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench_history: {' '.join(cmd)} failed: {p.stderr.strip()}")


def run(a: argparse.Namespace) -> int:
    binary, plugin = build() / "bench" / "memfbench", build() / "tests" / "c" / "libknown_cost.so"
    for f in (binary, plugin):
        if not f.exists():
            raise SystemExit(f"bench_history: {f} not built (ninja -C build)")
    a.dir.mkdir(parents=True, exist_ok=True)
    for i in range(a.aa):
        study(binary, plugin, "mfb_memcpy_wrapped", f"aa-{i + 1:02d}", a.dir / f"aa-{i + 1:02d}.json.gz", a.cpu)
        print(f"aa {i + 1}/{a.aa}", file=sys.stderr)
    for i in range(a.step):
        study(binary, plugin, "mfb_memcpy_slow1pct", f"step-{i + 1:02d}", a.dir / f"step-{i + 1:02d}.json.gz", a.cpu)
        print(f"step {i + 1}/{a.step}", file=sys.stderr)
    return 0


def log_ratios(files: list[Path]) -> np.ndarray:
    """Each file's ratio of candidate to libc over its processes (the history's point), as logs, in
    time order."""
    runs, _ = history.ordered(load_runs(files), "created")
    points = history.points_frame(runs, "libc")
    return np.log(points[points["variant"] == "candidate"].sort_values("position")["ratio"].to_numpy())


def changes_line(x: np.ndarray, truth: int | None, a: argparse.Namespace) -> str:
    cuts = history.change_points(x, a.min_size, a.alpha, a.permutations)
    if not cuts:
        return "none"
    return ", ".join(f"after point {c} (p {p:.3f}" + (f", the step is after point {truth}" if truth else "") + ")"
                     for c, p in cuts)


def evaluate(a: argparse.Namespace) -> int:
    aa = sorted(a.dir.glob("aa-*.json.gz"))
    step = sorted(a.dir.glob("step-*.json.gz"))
    half = a.length // 2
    if len(aa) < a.length or len(step) < half:
        raise SystemExit(f"bench_history: {a.dir} has {len(aa)} A/A and {len(step)} step studies; --length "
                         f"{a.length} needs {a.length} and {half}")
    xa, xs = log_ratios(aa), log_ratios(step)
    sd = float(np.std(np.concatenate([xa - xa.mean(), xs - xs.mean()]), ddof=2))
    print(f"studies: {len(aa)} A/A (candidate = mfb_memcpy_wrapped), {len(step)} step (candidate = "
          f"mfb_memcpy_slow1pct), each a default study of libc and candidate")
    print(f"ratio candidate/libc: A/A mean {np.exp(xa.mean()):.4f}, step mean {np.exp(xs.mean()):.4f}; the step "
          f"{(np.exp(xs.mean() - xa.mean()) - 1) * 100:+.2f} %; spread of a study's ratio between studies "
          f"{sd * 100:.2f} % (sd of log ratios about each side's mean)")
    print(f"detector: e-divisive means, permutation test at {a.alpha:g} per split, {a.permutations} permutations, "
          f"at least {a.min_size} points a side")
    print(f"A/A, all {len(aa)} in time order: changes {changes_line(xa, None, a)}")
    ordered_step = np.concatenate([xa[-half:], xs[:half]])
    print(f"step, {half} A/A then {half} step studies in time order: changes {changes_line(ordered_step, half, a)}")
    fa = history.false_alarms(xa, a.length, a.draws, a.min_size, a.alpha, a.permutations)
    print(f"false alarms: {fa.flagged} of {fa.draws} series of {fa.length} A/A studies drawn at random "
          f"({fa.flagged / fa.draws:.1%})")
    for h in sorted({half, min(len(xs), len(xa) // 2)}):
        det = history.detections(xa, xs, h, a.draws, a.min_size, a.alpha, a.permutations)
        sizes = np.array(det.sizes)
        print(f"detection: {det.at_step} of {det.draws} series of {h} A/A then {h} step studies drawn at random "
              f"({det.at_step / det.draws:.1%}) have a change within one point of the step; {det.flagged} have any "
              "change" + (f"; the change found there: median {(np.median(sizes) - 1) * 100:+.2f} %, range "
                          f"{(sizes.min() - 1) * 100:+.2f} to {(sizes.max() - 1) * 100:+.2f} %" if len(sizes) else ""))
    print("power on this machine's noise: A/A studies drawn at random, a known step added to the second half "
          "(share of series with a change within one point of it):")
    lengths = sorted({a.length, 2 * (len(xa) // 2)})
    print("| step | " + " | ".join(f"{n} studies" for n in lengths) + " |")
    print("| --- |" + " --- |" * len(lengths))
    for step in a.steps:
        cells = []
        for n in lengths:
            r = history.injected(xa, step / 100, n, a.draws, a.min_size, a.alpha, a.permutations)
            cells.append(f"{r.at_step / r.draws:.0%}")
        print(f"| {step:+g} % | " + " | ".join(cells) + " |")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.bench_history", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="make the A/A and step studies")
    r.add_argument("dir", type=Path)
    r.add_argument("--aa", type=int, default=24)
    r.add_argument("--step", type=int, default=12)
    r.add_argument("--cpu", type=int, default=1)
    e = sub.add_parser("evaluate", help="false alarms and detection on the studies of DIR")
    e.add_argument("dir", type=Path)
    e.add_argument("--length", type=int, default=12, help="points per series (default 12)")
    e.add_argument("--draws", type=int, default=200, help="random series per rate (default 200)")
    e.add_argument("--alpha", type=float, default=history.ALPHA)
    e.add_argument("--permutations", type=int, default=history.PERMUTATIONS)
    e.add_argument("--min-size", type=int, default=history.MIN_SIZE)
    e.add_argument("--steps", type=float, nargs="+", default=[1, 2, 3, 5], metavar="P",
                   help="known steps (percent) added to A/A series for the power table (default 1 2 3 5)")
    a = ap.parse_args(argv)
    return run(a) if a.cmd == "run" else evaluate(a)


if __name__ == "__main__":
    sys.exit(main())

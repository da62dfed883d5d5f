"""Does upstream compare.py, on the Google Benchmark exports of two result files, reach the verdict
memfbench's `diff --normalize BASELINE` reaches on the files themselves? For each pair of files
(before, after) and each variant: diff's verdict, and compare.py's on the export's absolute family
("<function>/<distribution>/<variant>": each process's median time per call, what the export held
before issue 54) and on its per-baseline family ("<variant>/per:<baseline>": each process's
paired ratio to the baseline), each as its mean change and its U test's p.

    /usr/bin/python3 -m tools.gbench_agreement BEFORE AFTER [BEFORE AFTER ...] [--compare-py PATH]

compare.py is Debian's (libbenchmark-tools: /usr/share/benchmark/compare.py). A benchmark, not a
test: it prints a Markdown table and the counts of agreement; tests/py/test_interop.py checks the
same functions on files of known answer.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from analysis.io.export import to_gbench_file
from analysis.io.load import load_run
from analysis.verdicts.diff import diff_runs

PROG = "python3 -m tools.gbench_agreement"
COMPARE_PY = Path("/usr/share/benchmark/compare.py")
# compare.py's own default significance level (--alpha)
ALPHA = 0.05


@dataclass
class Agreement:
    before: str
    after: str
    variant: str
    diff: str                   # diff's verdict (faster, slower, equivalent, inconclusive)
    absolute: tuple[float, float]    # compare.py on the absolute family: mean change, U test p
    per_base: tuple[float, float]    # the same on the per-baseline family

    def words(self, which: tuple[float, float]) -> str:
        return compare_py_verdict(*which)


def compare_py_verdict(change: float, p: float, alpha: float = ALPHA) -> str:
    """compare.py's result in diff's words: a change its U test calls significant is faster or
    slower by its sign; any other is no difference."""
    if p == p and p < alpha:
        return "faster" if change < 0 else "slower"
    return "no difference"


def agrees(diff_verdict: str, compare_py: str) -> bool:
    """The same call: both faster, both slower, or neither calls a change."""
    called = diff_verdict if diff_verdict in ("faster", "slower") else "no difference"
    return called == compare_py


def compare_py(before: Path, after: Path, tool: Path = COMPARE_PY) -> dict[str, tuple[float, float]]:
    """compare.py benchmarks BEFORE AFTER on two exports: per benchmark (run name), the change of its
    mean over the repetitions ((after - before) / before) and its U test's p-value."""
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "cmp.json"
        p = subprocess.run([sys.executable, str(tool), "-a", "--no-color", "-d", str(dump), "benchmarks", str(before),
                            str(after)], capture_output=True, text=True, timeout=300)
        if p.returncode != 0 or not dump.exists():
            last = (p.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"{tool} failed (exit {p.returncode}): {last}")
        rows = json.loads(dump.read_text())
    out: dict[str, tuple[float, float]] = {}
    pvalue = {r["name"]: r["utest"]["time_pvalue"] for r in rows if r.get("utest")}
    for r in rows:
        if r.get("run_type") == "aggregate" and r.get("aggregate_name") == "mean":
            name = r["name"].removesuffix("_mean")
            out[name] = (float(r["measurements"][0]["time"]), float(pvalue.get(name, float("nan"))))
    return out


def agreement(before: str, after: str, normalize: str = "libc", between: float | None = None,
              tool: Path = COMPARE_PY) -> list[Agreement]:
    """Each variant's diff verdict (between: the drift diff carries, as --between-sd; None: its
    default) beside compare.py's on the two exports."""
    rb, ra = load_run(before), load_run(after)
    shifts = diff_runs([rb], [ra], normalize, between=between)
    with tempfile.TemporaryDirectory() as tmp:
        gb, ga = Path(tmp) / "before.json", Path(tmp) / "after.json"
        to_gbench_file(rb, gb)
        to_gbench_file(ra, ga)
        cmp = compare_py(gb, ga, tool)
    nan = (float("nan"), float("nan"))
    stem = f"{rb.function}/{rb.distribution}/"
    return [Agreement(before, after, s.variant, s.verdict, cmp.get(stem + s.variant, nan),
                      cmp.get(f"{stem}{s.variant}/per:{normalize}", nan)) for s in shifts]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="result files, taken in pairs: BEFORE AFTER ...")
    ap.add_argument("--normalize", default="libc", help="diff --normalize (default libc)")
    ap.add_argument("--between-sd", type=float, metavar="P", help="diff --between-sd (default: diff's)")
    ap.add_argument("--compare-py", default=str(COMPARE_PY), help=f"compare.py (default {COMPARE_PY})")
    args = ap.parse_args(argv)
    if len(args.files) % 2:
        print(f"{PROG}: error: {len(args.files)} files: give them in pairs, BEFORE AFTER", file=sys.stderr)
        return 2
    tool = Path(args.compare_py)
    if not tool.exists():
        print(f"{PROG}: error: --compare-py {tool}: no such file (Debian: apt-get install libbenchmark-tools)",
              file=sys.stderr)
        return 2
    between = None if args.between_sd is None else args.between_sd / 100
    rows: list[Agreement] = []
    try:
        for b, a in zip(args.files[0::2], args.files[1::2]):
            rows += agreement(b, a, args.normalize, between, tool)
    except (RuntimeError, ValueError, OSError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    print("| before -> after | variant | diff | compare.py, absolute times (change, p) | compare.py, per "
          f"{args.normalize} (change, p) |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {Path(r.before).name} -> {Path(r.after).name} | {r.variant} | {r.diff} | "
              f"{r.words(r.absolute)} ({100 * r.absolute[0]:+.2f} %, p {r.absolute[1]:.3f}) | "
              f"{r.words(r.per_base)} ({100 * r.per_base[0]:+.2f} %, p {r.per_base[1]:.3f}) |")
    n = len(rows)
    print(f"\ncompare.py agrees with diff: absolute times {sum(agrees(r.diff, r.words(r.absolute)) for r in rows)} "
          f"of {n}; per {args.normalize} {sum(agrees(r.diff, r.words(r.per_base)) for r in rows)} of {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

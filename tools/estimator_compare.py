"""Before and after for the interval a verdict rests on: the same stored result files (re-runs of one
study) analysed with the t interval over processes, the analysis before the placement model, and
with the placement model (analysis/stats/placement_model.py design_estimate): the median
half-width of each, how far the estimates move between the files, how often each interval holds
the re-runs' median, and how often it clears 1 (an effect detected, at 95 % two-sided).

    /usr/bin/python3 -m tools.estimator_compare --variant V --baseline B FILE...

It is a benchmark's driver, not a test: nothing passes or fails. A file that cannot be read is one
error line.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from analysis.io.load import load_run
from analysis.io.reading import ResultFileError
from analysis.stats.placement_model import design_estimate
from analysis.verdicts.compare import paired_rounds, placement_levels

PROG = "python3 -m tools.estimator_compare"


def units(path: str, variant: str, baseline: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Per process, the median over rounds of ln(t_variant / t_baseline), and its placements."""
    run = load_run(path)
    pr = paired_rounds(run.batches, variant, baseline)
    if pr.empty:
        raise ValueError(f"{path}: no rounds pair {variant} with {baseline}")
    d = np.log(pr["ns_per_call_v"].to_numpy() / pr["ns_per_call_b"].to_numpy())
    procs = pr["process"].to_numpy()
    ids = np.unique(procs)
    return np.array([np.median(d[procs == g]) for g in ids]), placement_levels(pr, ids)


def rows(files: list[str], variant: str, baseline: str) -> list[str]:
    est = {"t over processes (before)": [], "placement model (after)": []}
    for f in files:
        x, levels = units(f, variant, baseline)
        est["t over processes (before)"].append(design_estimate(x).interval(0.95))
        est["placement model (after)"].append(design_estimate(x, levels).interval(0.95))
    out = []
    for name, ivs in est.items():
        mid = np.array([i.estimate for i in ivs])
        median = float(np.median(mid))
        half = np.median([(i.high - i.low) / 2 for i in ivs])
        holds = sum(i.low <= median <= i.high for i in ivs)
        clears = sum(i.low > 0 or i.high < 0 for i in ivs)
        out.append(f"| {name} | {len(ivs)} | ±{100 * half:.2f} % | {100 * np.std(mid, ddof=1):.2f} % | "
                   f"{holds} of {len(ivs)} | {clears} of {len(ivs)} |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("files", nargs="+", help="result files, re-runs of one study")
    args = ap.parse_args(argv)
    try:
        lines = rows(args.files, args.variant, args.baseline)
    except (ResultFileError, ValueError, OSError) as e:
        print(f"{PROG}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    print(f"{args.variant}/{args.baseline}, in log space (a relative difference)")
    print("| interval | studies | median half-width | sd of the estimates between studies | holds the median of "
          "the studies | clears 0 |")
    print("| --- | --- | --- | --- | --- | --- |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How the process screen and the pooling fare on simulated studies with a known answer (the
figures docs/methodology.md quotes in its record `screening`): clean studies with the placement
model alone and screened (coverage of the true value, median width ratio, studies that lost a
process), busy studies (a minority starved or spiked), and series of studies pooled over time
(a later study inside the prediction interval).

    /usr/bin/python3 -m tools.screening_sim [--studies 2000] [--seed 1]
"""
from __future__ import annotations

import argparse

import numpy as np

from analysis.stats import simulate as sim
from analysis.stats.placement_model import design_estimate, placement_columns
from analysis.stats.screening import levels_kept, screen

TRUE = 0.008


def clean(rng: np.random.Generator, n: int, noise_df: float) -> str:
    held_m = held_s = lost = 0
    ratio = []
    for _ in range(n):
        placements = sim.block_placements(rng, 32)
        x = sim.process_values(rng, placements, TRUE, 0.03, 0.01, noise_df)
        levels = placements % 4
        a = design_estimate(x, levels).interval(0.95)
        s = screen(x, rng.integers(32, 80, 32), placement_columns(levels)[0])
        b = design_estimate(x[s.kept], levels[s.kept] if levels_kept(levels, s.kept) else None).interval(0.95)
        held_m += a.low <= TRUE <= a.high
        held_s += b.low <= TRUE <= b.high
        ratio.append((b.high - b.low) / (a.high - a.low))
        lost += s.dropped > 0
    law = "Gaussian" if not noise_df else f"Student t, {noise_df:g} df"
    return (f"clean, {law}, {n} studies of 32: the model's interval held the true value {held_m} times, screened "
            f"{held_s}; median width screened / model {np.median(ratio):.3f}; studies that lost a process {lost}")


def busy(rng: np.random.Generator, n: int, starved: int, spikes: int) -> str:
    found = extra = held = 0
    for _ in range(n):
        placements = sim.block_placements(rng, 32)
        x = sim.process_values(rng, placements, 0.0, 0.01, 0.004)
        rounds = rng.integers(32, 80, 32)
        bad = rng.choice(32, starved + spikes, replace=False)
        rounds[bad[:starved]] = rng.integers(2, 6, starved)
        x[bad[:starved]] = np.log(rng.choice([1 - 0.879, 1 - 0.097, 1.3], starved))
        x[bad[starved:]] += np.log(rng.uniform(10, 30, spikes)) * rng.choice([-1, 1], spikes)
        levels = placements % 4
        s = screen(x, rounds, placement_columns(levels)[0])
        found += int(np.all(~s.kept[bad]))
        extra += int(np.sum(~s.kept)) - len(bad)
        b = design_estimate(x[s.kept], levels[s.kept] if levels_kept(levels, s.kept) else None).interval(0.95)
        held += b.low <= 0 <= b.high
    return (f"busy, {starved} starved and {spikes} spiked of 32, {n} studies: every bad process left out in {found}, "
            f"good processes left out {extra} in all, the interval held the true value {held}")


def series(rng: np.random.Generator, n: int, k: int, tau: float) -> str:
    later, mean = sim.pooled_coverage(rng, n, k, TRUE, tau, 0.003)
    return (f"pooled, {k} studies, between-study sd {tau:.2%}, each study ±0.30 % sd, {n} series: a later study in "
            f"the prediction interval {later}, the interval held the mean {mean}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--studies", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    n = args.studies
    print(clean(rng, n, 0.0))
    print(clean(rng, n, 5.0))
    for st, sp in ((4, 0), (0, 1), (0, 3), (2, 2)):
        print(busy(rng, n // 4, st, sp))
    for k in (3, 5, 10):
        for tau in (0.0046, 0.0134):
            print(series(rng, n, k, tau))


if __name__ == "__main__":
    main()

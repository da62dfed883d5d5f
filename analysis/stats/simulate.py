"""Simulated studies with a known answer, for the tests and for the drivers that measure how the
estimators fare (tools/screening_sim.py): processes in blocks of 8, each block drawing its own
permutation of the 8 code placements for the timed loop, the variant and the baseline (as a
balanced study draws them), every placement with an effect of its own, each process's noise, and
what a busy machine does to some processes (few rounds, a whole-process spike); and series of
studies whose true ratio moves from study to study by a known between-study sd."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .placement_model import CODE_PLACEMENTS


def block_placements(rng: np.random.Generator, k: int) -> np.ndarray:
    """k processes' placements (0..7) of the loop, the variant and the baseline: a permutation of
    each per block of 8 processes."""
    rows: list[list[int]] = []
    for _ in range(-(-k // CODE_PLACEMENTS)):
        perms = [rng.permutation(CODE_PLACEMENTS) for _ in range(3)]
        rows += [[int(p[t]) for p in perms] for t in range(CODE_PLACEMENTS)]
    return np.array(rows[:k], np.int64)


def process_values(rng: np.random.Generator, placements: np.ndarray, true: float, placement_sd: float = 0.03,
                   noise_sd: float = 0.01, noise_df: float = 0.0) -> np.ndarray:
    """Each process's log ratio: the true value, the line offset's effect of each code's placement
    (placement mod 4, drawn per study and centred, so the balanced mean is the true value), and the
    process's noise (normal, or Student's t with noise_df degrees of freedom scaled to noise_sd)."""
    k = len(placements)
    effects = rng.normal(0, placement_sd, (3, 4))
    effects -= effects.mean(axis=1, keepdims=True)
    line = placements % 4
    x = true + sum(effects[f][line[:, f]] for f in range(3))
    if noise_df > 2:
        return x + noise_sd * rng.standard_t(noise_df, k) / np.sqrt(noise_df / (noise_df - 2))
    return x + rng.normal(0, noise_sd, k)


def batches(rng: np.random.Generator, values: np.ndarray, placements: np.ndarray, rounds: np.ndarray,
            round_sd: float = 0.02, baseline_ns: float = 10.0) -> pd.DataFrame:
    """The measured batches of a study of two variants, "v" and "b", as compare.paired_rounds reads
    them: process i has rounds[i] rounds whose log ratios scatter about values[i] by round_sd (the
    median of a few rounds is as noisy as a few rounds are)."""
    rows = []
    for i, (x, r) in enumerate(zip(values, rounds)):
        base = baseline_ns * np.exp(rng.normal(0, 0.05, int(r)))
        var = base * np.exp(x + rng.normal(0, round_sd, int(r)))
        for j in range(int(r)):
            for name, ns, place in (("b", base[j], placements[i, 2]), ("v", var[j], placements[i, 1])):
                rows.append((name, False, i, j, float(ns), int(ns * 3), int(place), int(placements[i, 0])))
    return pd.DataFrame(rows, columns=["variant", "warmup", "process", "round", "ns_per_call", "ticks",
                                       "code_placement", "kernel_placement"])


def study_series(rng: np.random.Generator, studies: int, true: float, between_sd: float,
                 within_se: np.ndarray | float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-study estimates of a series: each study's true value moves by between_sd (the host's
    drift), its estimate by its own standard error. Returns the estimates, their standard errors
    (as each study's interval reports them) and each study's true value."""
    se = np.broadcast_to(np.asarray(within_se, float), (studies,)).copy()
    truth = true + rng.normal(0, between_sd, studies)
    return truth + rng.normal(0, 1, studies) * se, se, truth


def pooled_coverage(rng: np.random.Generator, series: int, k: int, true: float, between_sd: float,
                    within_se: float) -> tuple[int, int]:
    """Of `series` simulated series of k + 1 studies (study_series), pooled over the first k
    (stats/pooling.py with no default), how many put the last study's estimate inside the 95 %
    prediction interval, and how many the true value inside the 95 % interval."""
    from .pooling import pool
    later = held = 0
    for _ in range(series):
        y, se, _ = study_series(rng, k + 1, true, between_sd, within_se)
        p = pool(y[:k], se[:k])
        lo, hi = p.prediction(0.95)
        later += lo <= y[k] <= hi
        lo, hi = p.interval(0.95)
        held += lo <= true <= hi
    return later, held

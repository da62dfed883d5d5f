"""Seeded resampling: the bootstrap intervals of a median and of a ratio of medians (paired by
round, in moving blocks when the rounds are autocorrelated, hierarchical over processes), their
Monte-Carlo error, and the seeds and resample counts every command defaults to."""
from __future__ import annotations

import numpy as np

from . import laws
from .intervals import Interval

DEFAULT_RESAMPLES = 10_000
# bootstrap_median_ci holds every draw at once (several arrays of `resamples` doubles); beyond a
# million the percentile interval no longer changes while memory and time keep growing.
MAX_RESAMPLES = 1_000_000
# The paired ratio-of-medians interval is a secondary estimate (the verdicts use the process-level
# t interval) and costs O(rounds) per resample: at 25,000 rounds, 2000 resamples took 8 of a
# default study's 10 s of analysis. With 400, each end's Monte-Carlo error (stated with the
# interval) was a tenth to a fifth of the interval's half-width on a default study.
ROM_RESAMPLES = 400
DEFAULT_SEED = 20261122


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - i) for i in range(0, total, size)]


def bootstrap_median_ci(x: np.ndarray, level: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = DEFAULT_SEED) -> Interval:
    """Percentile bootstrap CI of the median, from the bootstrap distribution's exact law.

    The median of a resample of sorted x is an order statistic x_(J); J has the law
    P(J <= j) = P(Binomial(n, (j+1)/n) >= q+1) for the middle rank q. `resamples` seeded draws from
    that law give the same distribution as resampling and taking medians (exactly for odd n; for
    even n the two middle order statistics are drawn from one uniform), without O(n) work per draw.
    """
    xs = np.sort(np.asarray(x, dtype=float))
    n = len(xs)
    rng = np.random.default_rng(seed)
    u = rng.random(resamples)
    j = np.arange(1, n + 1) / n

    def draw(q: int) -> np.ndarray:
        cdf = laws.binom_sf(q, n, j)  # P(J <= j-1) for j = 1..n
        return xs[np.minimum(np.searchsorted(cdf, u, side="left"), n - 1)]

    meds = draw((n - 1) // 2) if n % 2 else (draw(n // 2 - 1) + draw(n // 2)) / 2
    a = (1 - level) / 2
    lo, hi = np.quantile(meds, [a, 1 - a])
    return Interval(float(np.median(xs)), float(lo), float(hi), level,
                    f"percentile bootstrap, {resamples} draws from the exact law of the resampled median")


def _ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and each element's rank, in the narrowest integer type (partitions of small
    integers are several times faster than of gathered doubles)."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x), dtype=np.int16 if len(x) < 2 ** 15 else np.int32)
    r[order] = np.arange(len(x))
    return x[order], r


def _resampled_medians(sorted_x: np.ndarray, ranks: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Median of x over each row of resample indices idx, through the ranks."""
    n = idx.shape[1]
    rr = ranks[idx]
    lo, hi = (n - 1) // 2, n // 2
    # numpy sorts 16-bit integers by radix (kind="stable"): four times faster than partitioning
    # them here; wider ranks have no radix path and are partitioned.
    part = np.sort(rr, axis=1, kind="stable") if rr.dtype.itemsize <= 2 else \
        np.partition(rr, (lo, hi) if hi != lo else lo, axis=1)
    return (sorted_x[part[:, lo]] + sorted_x[part[:, hi]]) / 2


def lag1_autocorrelation(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    if len(x) < 3 or np.std(x) == 0:
        return 0.0
    return float(np.corrcoef(x[:-1], x[1:])[0, 1])


def block_length(x: np.ndarray) -> int:
    """1 when lag-1 autocorrelation is negligible, else n^(1/3) (moving-block bootstrap rule of thumb)."""
    return 1 if abs(lag1_autocorrelation(x)) < 0.1 else max(2, int(round(len(x) ** (1 / 3))))


def _block_indices(rng: np.random.Generator, n: int, block: int, k: int) -> np.ndarray:
    """k resamples of n indices made of moving blocks of length `block`."""
    if block <= 1:
        return rng.integers(0, n, (k, n))
    nb = -(-n // block)
    starts = rng.integers(0, n - block + 1, (k, nb))
    idx = (starts[:, :, None] + np.arange(block)[None, None, :]).reshape(k, nb * block)
    return idx[:, :n]


def ratio_of_medians_ci(a: np.ndarray, b: np.ndarray, groups: np.ndarray | None = None, level: float = 0.95,
                        resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> tuple[Interval, int]:
    """median(a) / median(b) with a bootstrap CI; a[i], b[i] are one round (resampled together).

    Rounds are resampled in moving blocks when the paired log ratios are autocorrelated. With
    `groups` (process ids) holding more than one value, the bootstrap is hierarchical: processes
    first, then rounds within each chosen process. Returns the interval and the block length.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    rng = np.random.default_rng(seed)
    est = float(np.median(a) / np.median(b))
    block = block_length(np.log(a / b))
    alpha = (1 - level) / 2
    if groups is not None and len(np.unique(groups)) > 1:
        # Processes first, then rounds within each chosen process; every chosen process
        # contributes as many rounds as the median process has (runs share one time budget).
        ids = np.unique(groups)
        order = np.argsort(groups, kind="stable")
        lengths = np.array([np.sum(groups == g) for g in ids])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        per = int(np.median(lengths))
        sa, ra = _ranks(a[order])
        sb, rb = _ranks(b[order])
        parts = []
        for k in _chunks(resamples, 100):
            chosen = rng.integers(0, len(ids), (k, len(ids)))
            # float32 draws (half the cost of doubles): 24 bits place an index exactly in any
            # process of fewer than 2^24 rounds
            u = rng.random((k, len(ids), per), dtype=np.float32)
            idx = (starts[chosen][..., None] + (u * lengths[chosen][..., None]).astype(np.int64)).reshape(k, -1)
            parts.append(_resampled_medians(sa, ra, idx) / _resampled_medians(sb, rb, idx))
        ratios = np.concatenate(parts)
        method = f"hierarchical bootstrap (processes, then rounds), {resamples} resamples"
    else:
        sa, ra = _ranks(a)
        sb, rb = _ranks(b)
        parts = []
        for k in _chunks(resamples, 200):
            idx = _block_indices(rng, len(a), block, k)
            parts.append(_resampled_medians(sa, ra, idx) / _resampled_medians(sb, rb, idx))
        ratios = np.concatenate(parts)
        method = f"{'block' if block > 1 else 'paired'} bootstrap over rounds (block {block}), {resamples} resamples"
    lo, hi = np.quantile(ratios, [alpha, 1 - alpha])
    method += f" (Monte-Carlo error of each end about ±{percentile_mc_error(ratios, alpha):.2g})"
    return Interval(est, float(lo), float(hi), level, method), block


def percentile_mc_error(draws: np.ndarray, alpha: float) -> float:
    """Standard error of the percentile interval's ends from a finite number of bootstrap draws:
    an end's rank has binomial sd sqrt(B a (1 - a)); half the spread of the order statistics one
    such sd either side of each end, the larger of the two ends."""
    b = len(draws)
    s = np.sqrt(alpha * (1 - alpha) / b)
    errs = [(np.quantile(draws, min(q + s, 1)) - np.quantile(draws, max(q - s, 0))) / 2 for q in (alpha, 1 - alpha)]
    return float(max(errs))

"""Robust location and spread of a sample (IQR, MAD, the normal-equivalent sd, Tukey's outlier
counts) and the two-sample Hodges-Lehmann shift. Reported beside the verdicts, never part of them."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bootstrap import DEFAULT_SEED


def iqr(x: np.ndarray) -> float:
    q1, q3 = np.percentile(x, [25, 75])
    return float(q3 - q1)


def mad(x: np.ndarray) -> float:
    """Median absolute deviation (unscaled)."""
    return float(np.median(np.abs(x - np.median(x))))


def robust_sd(x: np.ndarray) -> float:
    """IQR / 1.349: the standard deviation a normal sample with this IQR would have."""
    return iqr(x) / 1.349


@dataclass(frozen=True)
class TukeyCounts:
    low_severe: int
    low_mild: int
    high_mild: int
    high_severe: int

    @property
    def total(self) -> int:
        return self.low_severe + self.low_mild + self.high_mild + self.high_severe


def tukey_outliers(x: np.ndarray) -> TukeyCounts:
    """Counts outside Tukey's fences (1.5 and 3 IQR beyond the quartiles). Reported, never dropped."""
    q1, q3 = np.percentile(x, [25, 75])
    r = q3 - q1
    lo3, lo15, hi15, hi3 = q1 - 3 * r, q1 - 1.5 * r, q3 + 1.5 * r, q3 + 3 * r
    return TukeyCounts(int(np.sum(x < lo3)), int(np.sum((x >= lo3) & (x < lo15))),
                       int(np.sum((x > hi15) & (x <= hi3))), int(np.sum(x > hi3)))


def hodges_lehmann(a: np.ndarray, b: np.ndarray, max_n: int = 1000, seed: int = DEFAULT_SEED) -> tuple[float, bool]:
    """Two-sample Hodges-Lehmann shift: the median of all differences a_i - b_j.

    Above max_n per side a seeded random subsample of max_n is used (the estimate is then
    approximate); the flag says so.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    sub = len(a) > max_n or len(b) > max_n
    if sub:
        rng = np.random.default_rng(seed)
        a = a[rng.choice(len(a), min(max_n, len(a)), replace=False)]
        b = b[rng.choice(len(b), min(max_n, len(b)), replace=False)]
    # The median of the m*n differences, selected in place (np.median would copy them first).
    diffs = np.subtract.outer(a, b).ravel()
    if len(diffs) == 0:
        return float("nan"), sub
    lo, hi = (len(diffs) - 1) // 2, len(diffs) // 2
    diffs.partition((lo, hi) if hi != lo else lo)
    return float((diffs[lo] + diffs[hi]) / 2), sub

"""Intervals and tests of a location: the Student t interval of a mean over processes, the
prediction interval of a re-run's mean, and the exact sign test's interval and p-value of a median
(within one process, over its rounds: the same rule as bench/base/signtest.c). The Interval every
statistic returns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import laws


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    level: float
    method: str


def t_interval(x: np.ndarray, level: float = 0.95) -> Interval:
    """Student t interval of the mean (used across processes, where each value is one process)."""
    x = np.asarray(x, float)
    n = len(x)
    m = float(np.mean(x))
    if n < 2:
        return Interval(m, float("-inf"), float("inf"), level, "t interval (one value)")
    half = float(laws.t_quantile(1 - (1 - level) / 2, n - 1) * np.std(x, ddof=1) / np.sqrt(n))
    return Interval(m, m - half, m + half, level, f"t interval over {n} values")


def prediction_interval(x: np.ndarray, level: float = 0.95, k_new: int | None = None) -> Interval:
    """Where the mean of k_new new values (a re-run with k_new processes; default: as many as now)
    falls with probability `level`, from n values of the same kind: mean +- t_{n-1} s sqrt(1/n +
    1/k_new). Wider than the t interval of the mean by sqrt(1 + n/k_new): the re-run has its own
    sampling error on top of this one's."""
    x = np.asarray(x, float)
    n = len(x)
    m = float(np.mean(x)) if n else float("nan")
    if n < 2:
        return Interval(m, float("-inf"), float("inf"), level, "prediction interval (one value)")
    k = k_new or n
    half = float(laws.t_quantile(1 - (1 - level) / 2, n - 1) * np.std(x, ddof=1) * np.sqrt(1 / n + 1 / k))
    return Interval(m, m - half, m + half, level, f"prediction interval of a re-run's mean of {k} values")


def sign_test_ci(d: np.ndarray, level: float = 0.95) -> Interval:
    """Distribution-free CI of the median of d from binomial order statistics (exact).

    With d sorted, [d_(k), d_(n-k+1)] covers the median with probability
    1 - 2 P(Binomial(n, 1/2) < k); k is the largest index keeping that at least `level`.
    """
    d = np.sort(np.asarray(d, dtype=float))
    n = len(d)
    med = float(np.median(d)) if n else float("nan")
    alpha = 1 - level
    # largest k with P(B <= k-1) <= alpha/2
    # start from the normal approximation; the two loops then land on the exact k
    k = max(0, int(n / 2 + laws.norm_quantile(alpha / 2) * np.sqrt(n) / 2))
    while k > 0 and laws.binom_cdf(k - 1, n, 0.5) > alpha / 2:
        k -= 1
    while laws.binom_cdf(k, n, 0.5) <= alpha / 2:
        k += 1
    if k < 1:
        return Interval(med, float("-inf"), float("inf"), level, "sign test (too few pairs for this level)")
    achieved = 1 - 2 * laws.binom_cdf(k - 1, n, 0.5)
    return Interval(med, float(d[k - 1]), float(d[n - k]), level, f"exact sign test (coverage {achieved:.4f})")


def sign_test_p(d: np.ndarray) -> float:
    """Two-sided exact sign test of median(d) = 0; zeros (ties) are dropped."""
    d = np.asarray(d, dtype=float)
    pos, neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    if pos + neg == 0:
        return 1.0
    return laws.binom_test_p(pos, pos + neg)

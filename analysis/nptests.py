"""The distribution functions and rank tests the analysis uses, on numpy and scipy.special.

Why not scipy.stats: importing it takes about 0.3 s here (it loads every distribution), a
seventh of the whole analysis of a default study, which issue 11 asks to finish in 2 s. These are
the same formulas as scipy 1.10's (tests/py/test_nptests.py checks each against scipy.stats to
1e-12 relative); only Mann-Whitney's exact small-sample law is left to scipy, imported when it is
needed.
"""
from __future__ import annotations

import numpy as np
from scipy import special


def t_quantile(q: float, dof: float) -> float:
    """Student t quantile (dof may be fractional: Welch)."""
    return float(special.stdtrit(dof, q))


def t_sf(x: float, dof: float) -> float:
    """P(T > x) for Student t with dof degrees of freedom."""
    return float(special.stdtr(dof, -x))


def norm_quantile(q: float) -> float:
    return float(special.ndtri(q))


def binom_cdf(k: int | np.ndarray, n: int, p: float | np.ndarray) -> np.ndarray | float:
    """P(X <= k), X ~ Binomial(n, p); 0 for k < 0."""
    k = np.asarray(k)
    out = np.where(k < 0, 0.0, special.bdtr(np.maximum(k, 0), n, p))
    return float(out) if out.ndim == 0 else out


def binom_sf(k: int, n: int, p: float | np.ndarray) -> np.ndarray | float:
    """P(X > k), X ~ Binomial(n, p)."""
    if k < 0:
        return np.ones_like(np.asarray(p, dtype=float)) if np.ndim(p) else 1.0
    out = special.bdtrc(k, n, p)
    return float(out) if np.ndim(out) == 0 else out


def sign_test_p(k: int, n: int) -> float:
    """Two-sided exact binomial test of p = 1/2 (scipy's binomtest): the law is symmetric, so
    twice the smaller tail, at most 1."""
    if n == 0 or 2 * k == n:
        return 1.0
    return float(min(1.0, 2 * binom_cdf(min(k, n - k), n, 0.5)))


def ttest_1samp_p(x: np.ndarray) -> float:
    """Two-sided one-sample t test of mean 0 (x must have n >= 2 and a spread)."""
    n = len(x)
    t = float(np.mean(x)) / (float(np.std(x, ddof=1)) / np.sqrt(n))
    return float(min(1.0, 2 * t_sf(abs(t), n - 1)))


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given their average rank."""
    x = np.asarray(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    first = np.concatenate([[True], xs[1:] != xs[:-1]])
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(x))
    avg = (starts + ends + 1) / 2.0  # mean of ranks start+1 .. end
    ranks = np.empty(len(x), dtype=float)
    ranks[order] = avg[group]
    return ranks


def _tie_sizes(x: np.ndarray) -> np.ndarray:
    return np.unique(x, return_counts=True)[1].astype(float)


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value as scipy's mannwhitneyu(method="auto"): the normal
    approximation with tie and continuity corrections, except for small tie-free samples (one
    side of 8 or fewer), whose exact law scipy computes."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n1, n2 = len(a), len(b)
    xy = np.concatenate([a, b])
    ties = _tie_sizes(xy)
    if (n1 <= 8 or n2 <= 8) and not np.any(ties > 1):
        from scipy import stats as sps  # the exact small-sample law; rare, so imported here
        return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    ranks = rankdata(xy)
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - (ties ** 3 - ties).sum() / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - n1 * n2 / 2 - 0.5) / s
    return float(np.clip(2 * special.ndtr(-z), 0, 1))


def spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Spearman's rho and its two-sided p-value (t approximation, n - 2 dof), as scipy's
    spearmanr; nan for constant input."""
    rx, ry = rankdata(x), rankdata(y)
    if np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return float("nan"), float("nan")
    rho = float(np.corrcoef(rx, ry)[0, 1])
    n = len(rx)
    if abs(rho) >= 1:
        return rho, 0.0  # a perfect monotone relation: t is infinite
    t = rho * np.sqrt((n - 2) / ((rho + 1.0) * (1.0 - rho)))
    return rho, float(2 * t_sf(abs(t), n - 2))


def theil_slope(y: np.ndarray, x: np.ndarray) -> float:
    """Theil-Sen slope: the median of the slopes between every pair of points with distinct x
    (quadratic: callers subsample long series)."""
    dx = x[:, None] - x[None, :]
    dy = y[:, None] - y[None, :]
    keep = dx > 0
    return float(np.median(dy[keep] / dx[keep])) if keep.any() else float("nan")


def kruskal_p(groups: list[np.ndarray]) -> float:
    """Kruskal-Wallis H test p-value with the tie correction (chi-square law, k - 1 dof); the
    caller makes sure there are two or more non-empty groups and not every value equal."""
    allx = np.concatenate(groups)
    n = len(allx)
    ranks = rankdata(allx)
    bounds = np.cumsum([0] + [len(g) for g in groups])
    h = 12.0 / (n * (n + 1)) * sum(ranks[lo:hi].sum() ** 2 / (hi - lo) for lo, hi in zip(bounds[:-1], bounds[1:]))
    h -= 3 * (n + 1)
    ties = _tie_sizes(allx)
    h /= 1 - (ties ** 3 - ties).sum() / (n ** 3 - n)
    return float(special.chdtrc(len(groups) - 1, h))

"""The probability laws and classical tests the statistics rest on: the one door to scipy.

The t, normal and binomial laws are scipy.special's functions, the ones scipy.stats' t, norm and
binom distributions call themselves: every interval of every command needs a t quantile, and going
through scipy.stats would add its import (about 0.1 s: it loads every distribution) and some 35 µs
of argument handling per call (3 µs here) to each command: summarize of the default study took
0.72 s this way and 0.86 s through scipy.stats (the least of 10 runs each, Zen 5 VM, 2026-11-26).

The tests are scipy.stats' own, imported when a path first needs one: the exact binomial test
under the sign test (a one-process verdict) and the one-sample t test (ab). Mann-Whitney U, the
secondary column of every compare and report, is the exception: its normal approximation is
computed here, as scipy computes it, because importing scipy.stats for it made compare of the
default study 1.19 s instead of 0.98 s (the least of 10 runs each, Zen 5 VM, 2026-11-26)."""
from __future__ import annotations

import numpy as np
from scipy import special


def t_quantile(q: float, dof: float) -> float:
    """Student t quantile (dof may be fractional: Welch); scipy.stats.t.ppf."""
    return float(special.stdtrit(dof, q))


def t_sf(x: float, dof: float) -> float:
    """P(T > x) for Student t with dof degrees of freedom; scipy.stats.t.sf."""
    return float(special.stdtr(dof, -x))


def norm_quantile(q: float) -> float:
    """The standard normal quantile; scipy.stats.norm.ppf."""
    return float(special.ndtri(q))


def binom_cdf(k: int | np.ndarray, n: int, p: float | np.ndarray) -> np.ndarray | float:
    """P(X <= k), X ~ Binomial(n, p); 0 for k < 0 (scipy.stats.binom.cdf)."""
    k = np.asarray(k)
    out = np.where(k < 0, 0.0, special.bdtr(np.maximum(k, 0), n, p))
    return float(out) if out.ndim == 0 else out


def binom_sf(k: int, n: int, p: float | np.ndarray) -> np.ndarray | float:
    """P(X > k), X ~ Binomial(n, p); 1 for k < 0 (scipy.stats.binom.sf)."""
    if k < 0:
        return np.ones_like(np.asarray(p, dtype=float)) if np.ndim(p) else 1.0
    out = special.bdtrc(k, n, p)
    return float(out) if np.ndim(out) == 0 else out


def binom_test_p(k: int, n: int) -> float:
    """Two-sided exact binomial test of p = 1/2 with k successes in n trials (scipy.stats.binomtest);
    1 for no trials."""
    if n == 0:
        return 1.0
    from scipy import stats as sps
    return float(sps.binomtest(k, n, 0.5).pvalue)


def t_test_p(x: np.ndarray) -> float:
    """Two-sided one-sample t test of mean 0 (scipy.stats.ttest_1samp); without a spread, 1 when
    the values are all 0 (or fewer than two), else 0."""
    x = np.asarray(x, float)
    if len(x) < 2 or np.std(x) == 0:
        return 1.0 if len(x) < 2 or np.mean(x) == 0 else 0.0
    from scipy import stats as sps
    return float(sps.ttest_1samp(x, 0.0).pvalue)


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties given their average rank (scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    first = np.concatenate([[True], xs[1:] != xs[:-1]])
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(x))
    ranks = np.empty(len(x), dtype=float)
    ranks[order] = ((starts + ends + 1) / 2.0)[group]  # the mean of ranks start+1 .. end
    return ranks


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value as scipy.stats.mannwhitneyu(method="auto") gives it; nan
    when a side is empty. The normal approximation with tie and continuity corrections is computed
    here: it is the only test of a common path (compare's and report's secondary column), and
    importing scipy.stats for it cost compare 0.2 s of its 1 s; small tie-free samples (a side of 8
    or fewer), whose exact law scipy computes, import it (tests/py/test_laws.py holds the two
    agreeing)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return float("nan")
    xy = np.concatenate([a, b])
    ties = np.unique(xy, return_counts=True)[1].astype(float)
    if (n1 <= 8 or n2 <= 8) and not np.any(ties > 1):
        from scipy import stats as sps
        return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    u1 = _ranks(xy)[:n1].sum() - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - (ties ** 3 - ties).sum() / (n * (n - 1))))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (u - n1 * n2 / 2 - 0.5) / s
    return float(np.clip(2 * special.ndtr(-z), 0, 1))

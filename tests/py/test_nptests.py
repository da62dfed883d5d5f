"""analysis.nptests (numpy + scipy.special) agrees with scipy.stats, which it replaces to keep
the analysis's start-up short: same values to 1e-12 relative on tied, untied, small and large
samples."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from analysis import nptests

RTOL = 1e-12


def close(a: float, b: float, rtol: float = RTOL) -> bool:
    return bool(np.isclose(a, b, rtol=rtol, atol=1e-300) or (np.isnan(a) and np.isnan(b)))


@pytest.mark.parametrize("dof", [1, 2, 4.5, 9, 30, 1000])
def test_t_and_normal(dof: float) -> None:
    for q in (0.001, 0.025, 0.5, 0.9, 0.975):
        assert close(nptests.t_quantile(q, dof), sps.t.ppf(q, dof))
        assert close(nptests.norm_quantile(q), sps.norm.ppf(q))
    for x in (-3.0, 0.0, 0.7, 2.5, 40.0):
        assert close(nptests.t_sf(x, dof), sps.t.sf(x, dof), 1e-10)


def test_binomial_laws_and_the_sign_test() -> None:
    for n in list(range(1, 61)) + [101, 1000, 16347]:
        ks = range(-1, n + 1) if n <= 60 else (0, n // 3, n // 2, n // 2 + 7, n)
        for k in ks:
            assert close(nptests.binom_cdf(k, n, 0.5), sps.binom.cdf(k, n, 0.5), 1e-10), (k, n)
            assert close(nptests.binom_sf(k, n, 0.5), sps.binom.sf(k, n, 0.5), 1e-10), (k, n)
            if k >= 0:
                assert close(nptests.sign_test_p(k, n), sps.binomtest(k, n, 0.5).pvalue, 1e-10), (k, n)
    j = np.arange(1, 11) / 10
    assert np.allclose(nptests.binom_sf(4, 10, j), sps.binom.sf(4, 10, j), rtol=1e-12)


def test_one_sample_t_test() -> None:
    rng = np.random.default_rng(1)
    for n in (2, 3, 10, 200):
        x = rng.normal(0.1, 1, n)
        assert close(nptests.ttest_1samp_p(x), sps.ttest_1samp(x, 0.0).pvalue, 1e-10)


def test_ranks_average_ties() -> None:
    rng = np.random.default_rng(2)
    for x in (rng.normal(size=50), rng.integers(0, 5, 60).astype(float), np.array([3.0, 3.0, 3.0]),
              np.array([1.0])):
        assert np.array_equal(nptests.rankdata(x), sps.rankdata(x))


@pytest.mark.parametrize("n1,n2,tied", [(5, 7, False), (5, 7, True), (9, 12, False), (40, 30, True),
                                        (16000, 16000, True), (3, 40, False)])
def test_mann_whitney(n1: int, n2: int, tied: bool) -> None:
    rng = np.random.default_rng(n1 * 31 + n2)
    a, b = rng.normal(0, 1, n1), rng.normal(0.2, 1, n2)
    if tied:
        a, b = np.round(a, 1), np.round(b, 1)
    assert close(nptests.mann_whitney_p(a, b), sps.mannwhitneyu(a, b, alternative="two-sided").pvalue, 1e-10)


def test_spearman_theil_kruskal() -> None:
    rng = np.random.default_rng(3)
    for n, tied in ((3, False), (20, True), (500, False), (900, True)):
        t = np.sort(rng.uniform(0, 60, n))
        y = 20 + 0.01 * t + rng.normal(0, 1, n)
        if tied:
            y = np.round(y)
        rho, p = nptests.spearman(t, y)
        ref = sps.spearmanr(t, y)
        assert close(rho, ref[0], 1e-10) and close(p, ref[1], 1e-9)
        assert close(nptests.theil_slope(y, t), sps.theilslopes(y, t)[0])
        groups = [y[i::3] for i in range(3)]
        assert close(nptests.kruskal_p(groups), sps.kruskal(*groups).pvalue, 1e-10)
    rho, p = nptests.spearman(np.arange(5.0), np.arange(5.0))
    assert close(rho, 1.0) and close(p, sps.spearmanr(np.arange(5.0), np.arange(5.0))[1], 1e-6)
    assert all(np.isnan(nptests.spearman(np.arange(5.0), np.ones(5))))

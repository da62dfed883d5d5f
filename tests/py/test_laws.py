"""analysis.stats.laws, the one door to scipy: the t, normal and binomial laws it takes from
scipy.special agree with scipy.stats' distributions to 1e-12 relative (the same functions, called
without scipy.stats' import and per-call cost), and the tests it takes from scipy.stats (the
binomial test, the one-sample t test, Mann-Whitney U) keep their answers where scipy's have none
to give (no trials, no spread, an empty side)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from analysis.stats import laws
from analysis.stats.intervals import sign_test_p

RTOL = 1e-12


def close(a: float, b: float, rtol: float = RTOL) -> bool:
    return bool(np.isclose(a, b, rtol=rtol, atol=1e-300) or (np.isnan(a) and np.isnan(b)))


@pytest.mark.parametrize("dof", [1, 2, 4.5, 9, 30, 1000])
def test_t_and_normal(dof: float) -> None:
    for q in (0.001, 0.025, 0.5, 0.9, 0.975):
        assert close(laws.t_quantile(q, dof), sps.t.ppf(q, dof))
        assert close(laws.norm_quantile(q), sps.norm.ppf(q))
    for x in (-3.0, 0.0, 0.7, 2.5, 40.0):
        assert close(laws.t_sf(x, dof), sps.t.sf(x, dof), 1e-10)


def test_binomial_laws() -> None:
    for n in list(range(1, 61)) + [101, 1000, 16347]:
        ks = range(-1, n + 1) if n <= 60 else (0, n // 3, n // 2, n // 2 + 7, n)
        for k in ks:
            assert close(laws.binom_cdf(k, n, 0.5), sps.binom.cdf(k, n, 0.5), 1e-10), (k, n)
            assert close(laws.binom_sf(k, n, 0.5), sps.binom.sf(k, n, 0.5), 1e-10), (k, n)
    j = np.arange(1, 11) / 10
    assert np.allclose(laws.binom_sf(4, 10, j), sps.binom.sf(4, 10, j), rtol=1e-12)
    assert np.array_equal(laws.binom_sf(-1, 10, j), np.ones(10))


def test_the_tests_where_there_is_nothing_to_test() -> None:
    assert laws.binom_test_p(0, 0) == 1.0
    assert laws.t_test_p(np.array([0.3])) == 1.0  # one value
    assert laws.t_test_p(np.zeros(5)) == 1.0 and laws.t_test_p(np.full(5, 0.01)) == 0.0  # no spread
    assert np.isnan(laws.mann_whitney_p(np.array([]), np.array([1.0, 2.0])))


def test_the_sign_test_drops_ties_and_is_the_binomial_test() -> None:
    d = np.array([0.0, 0.0, 1.0, 2.0, 3.0, -1.0, 4.0, 5.0, 0.0, 6.0])  # 6 above, 1 below, 3 ties
    assert sign_test_p(d) == laws.binom_test_p(6, 7) == pytest.approx(2 * 8 / 128, rel=1e-12)
    assert sign_test_p(np.zeros(4)) == 1.0


def test_the_u_test_is_scipys_with_and_without_ties() -> None:
    """mann_whitney_p computes the normal approximation itself (to keep scipy.stats out of
    compare's import): it must give scipy.stats.mannwhitneyu's p-value, ties or none, small or
    large samples, one side far from the other or not."""
    rng = np.random.default_rng(40)
    for n1, n2, ties, shift in [(5, 7, False, 0.0), (9, 12, False, 0.3), (30, 25, True, 0.0), (40, 60, True, 0.5),
                                (12, 3, True, 1.0), (200, 180, False, 0.1)]:
        a, b = rng.normal(shift, 1, n1), rng.normal(0, 1, n2)
        if ties:
            a, b = np.round(a, 1), np.round(b, 1)
        want = sps.mannwhitneyu(a, b, alternative="two-sided").pvalue
        assert laws.mann_whitney_p(a, b) == pytest.approx(want, rel=1e-9, abs=1e-15), (n1, n2, ties, shift)

"""Studies pooled over time (analysis/stats/pooling.py) on simulated series with a known
between-study sd: the prediction interval holds a study run later at least 90 % of the time, the
interval holds the true mean, REML finds tau on a long series, and two studies use the stated
default (named). No test assumes how wide an interval is."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.stats import simulate as sim
from analysis.stats.pooling import MIN_STUDIES_TAU, between_sd, pool, reml_tau2

TRUE = 0.1


@pytest.mark.parametrize("k", [3, 5, 10])
@pytest.mark.parametrize("tau", [0.0, 0.0046, 0.0134])
def test_a_later_study_falls_in_the_prediction_interval(k: int, tau: float) -> None:
    """tau 0.46 % and 1.34 %: the between-study CVs of avx2/libc and rep_movsb/libc in the Zen 5
    VM's validation; each study's own error 0.3 % (a default study's)."""
    rng = np.random.default_rng(1000 * k + int(tau * 1e4))
    n = 1000
    later, mean = sim.pooled_coverage(rng, n, k, TRUE, tau, 0.003)
    assert later >= 0.90 * n
    assert mean >= 0.92 * n


def test_reml_finds_tau_on_a_long_series() -> None:
    rng = np.random.default_rng(5)
    y, se, _ = sim.study_series(rng, 400, TRUE, 0.01, 0.004)
    assert np.sqrt(reml_tau2(y, se ** 2)) == pytest.approx(0.01, rel=0.15)
    assert between_sd(y, se) == pytest.approx(0.01, rel=0.15)
    assert np.isnan(between_sd(y[:MIN_STUDIES_TAU - 1], se[:MIN_STUDIES_TAU - 1]))


def test_two_studies_take_the_stated_default_and_say_so() -> None:
    rng = np.random.default_rng(6)
    n, later = 1000, 0
    for _ in range(n):
        y, se, _ = sim.study_series(rng, 3, TRUE, 0.0134, 0.003)
        p = pool(y[:2], se[:2], tau_default=0.0134, default_source="the validation's")
        assert p.tau == 0.0134 and p.tau_source == "the validation's" and p.known_tau and np.isnan(p.tau_measured)
        lo, hi = p.prediction(0.95)
        later += lo <= y[2] <= hi
    assert later >= 0.90 * n


def test_the_floor_and_what_is_named() -> None:
    y, se = np.array([0.1, 0.1001, 0.0999, 0.1]), np.full(4, 0.003)
    p = pool(y, se)
    assert p.tau == 0 and "REML over these 4 studies" == p.tau_source
    q = pool(y, se, tau_floor=0.005)
    assert q.tau == 0.005 and "floor" in q.tau_source
    assert q.prediction(0.95)[1] - q.prediction(0.95)[0] > p.prediction(0.95)[1] - p.prediction(0.95)[0]

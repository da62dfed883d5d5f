"""The estimator a verdict rests on (analysis.stats.design_estimate) and the check for a machine that
changed state during a study (analysis.stats.shift_over_order), on simulated studies with a known
answer: processes in code-placement strata (turn i mod 8, as a balanced study runs them), each
stratum with an effect of its own that the balanced mean cancels, and the noise within strata."""
from __future__ import annotations

import numpy as np
import pytest

from analysis import stats

TRUE = 0.008  # the effect every simulated study measures (0.8 %)


def study(rng: np.random.Generator, k: int = 32, placement_sd: float = 0.03, noise_sd: float = 0.01,
          shift: float = 0.0, at: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """k processes in turns of 8 placements: a fresh draw of the placements' effects (a re-run draws
    its own permutation), centred as a balanced design makes them, plus noise, plus a shift from
    process `at` on."""
    effects = rng.normal(0, placement_sd, 8)
    effects -= effects.mean()
    turn = np.arange(k) % 8
    x = TRUE + effects[turn] + rng.normal(0, noise_sd, k) + np.where(np.arange(k) >= at, shift, 0.0) * (shift != 0)
    return x, turn


def test_the_stratified_interval_tracks_re_runs_and_the_t_interval_does_not() -> None:
    """Over many re-runs, the stratified 95 % interval holds the true effect about 95 % of the time
    with a width near what the re-runs spread; the t interval over processes counts the placement
    effects the balanced mean cancels and is several times too wide."""
    rng = np.random.default_rng(1)
    est, strat_half, t_half, held = [], [], [], 0
    for _ in range(2000):
        x, turn = study(rng)
        d = stats.design_estimate(x, turn)
        ci = d.interval(0.95)
        held += ci.low <= TRUE <= ci.high
        est.append(d.estimate)
        strat_half.append((ci.high - ci.low) / 2)
        t = stats.t_interval(x)
        t_half.append((t.high - t.low) / 2)
    spread = 1.96 * np.std(est)
    assert 0.93 <= held / 2000 <= 0.97
    assert 0.8 < np.median(strat_half) / spread < 1.25
    assert np.median(t_half) / spread > 2.5


def test_the_strata_means_cancel_placement_effects_in_an_unbalanced_count() -> None:
    """10 processes: turns 0 and 1 twice. The plain mean weights their placements double; the mean
    of the strata's means does not, so it stays on the true effect while the plain mean wanders."""
    rng = np.random.default_rng(2)
    strat, plain = [], []
    for _ in range(3000):
        x, turn = study(rng, k=10, noise_sd=0.002)
        strat.append(stats.design_estimate(x, turn).estimate)
        plain.append(float(np.mean(x)))
    assert abs(np.mean(strat) - TRUE) < 0.0002
    assert np.std(strat) < np.std(plain) / 3


def test_without_a_repeated_stratum_it_is_the_t_interval_over_processes() -> None:
    x = np.array([0.01, 0.02, 0.015, 0.03, 0.0, 0.01, 0.02, 0.025])
    d = stats.design_estimate(x, np.arange(8))
    t = stats.t_interval(x)
    assert not d.stratified and d.df == 7
    assert (d.interval(0.95).low, d.interval(0.95).high) == pytest.approx((t.low, t.high))


def test_processes_needed_are_whole_turns_and_resolve_the_margin() -> None:
    """The count the verdict line prints: whole turns of 8, at least two; a study of that many
    resolves the margin in about 80 % of simulated re-runs (the power it is computed for)."""
    rng = np.random.default_rng(3)
    x, turn = study(rng, k=32, noise_sd=0.012)
    d = stats.design_estimate(x, turn)
    n = d.processes_needed(0.01, unit=8)
    assert n % 8 == 0 and n >= 16
    resolved = 0
    for _ in range(400):
        y, t = study(rng, k=n, noise_sd=0.012)
        y = y - TRUE + np.log1p(0.01)  # an effect of exactly the margin
        ci = stats.design_estimate(y, t).interval(0.95)
        resolved += ci.low > 0
    assert 0.65 <= resolved / 400 <= 0.95


def test_a_shift_in_the_middle_of_a_study_is_found_where_it_is() -> None:
    rng = np.random.default_rng(4)
    found, where = 0, []
    for _ in range(100):
        x, turn = study(rng, shift=0.025, at=12)
        s = stats.shift_over_order(x, turn, permutations=500)
        found += s.p < 0.01
        where.append(s.at)
    assert found >= 90
    assert abs(np.median(where) - 12) <= 2


def test_no_shift_gives_few_false_alarms() -> None:
    rng = np.random.default_rng(5)
    alarms = sum(stats.shift_over_order(*study(rng), permutations=500).p < 0.01 for _ in range(300))
    assert alarms <= 9  # 1 % of 300 is 3; a binomial tail of 9 has p < 0.005


def test_placement_effects_alone_are_no_shift() -> None:
    """Large placement effects in a balanced order look like steps between neighbouring processes;
    taken off by stratum, they are no change of state."""
    rng = np.random.default_rng(6)
    alarms = sum(stats.shift_over_order(*study(rng, placement_sd=0.08, noise_sd=0.002), permutations=500).p < 0.01
                 for _ in range(100))
    assert alarms <= 4

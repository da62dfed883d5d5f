"""The estimator a verdict rests on (analysis.stats.placement_model.design_estimate) and the check for a machine that
changed state during a study (analysis.stats.placement_model.shift_over_order), on simulated studies with a known
answer: processes in blocks of 8, each block with its own permutations of the code placements (as a
balanced study draws them), every placement of the loop and of the two compared codes with an
effect of its own that the balanced mean cancels, how two placements meet (an interaction) and
each process's noise, which it does not."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.stats.intervals import t_interval
from analysis.stats.placement_model import design_estimate, shift_over_order

TRUE = 0.008  # the effect every simulated study measures (0.8 %)


def study(rng: np.random.Generator, k: int = 32, placement_sd: float = 0.03, noise_sd: float = 0.01,
          shift: float = 0.0, at: int = 0, pairing_sd: float = 0.0, blocks: bool = True,
          effects: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """k processes: placements of the loop, the variant and the baseline drawn as a balanced study
    draws them (per block of 8, or one set repeated), each placement's effect (one draw per study
    unless given), an interaction of the variant's and the baseline's placements, noise, and a shift
    from process `at` on."""
    if effects is None:
        effects = rng.normal(0, placement_sd, (3, 8))
    pairing = rng.normal(0, pairing_sd, (8, 8))
    rows = []
    for b in range(-(-k // 8)):
        if blocks or b == 0:
            kp, vp, bp = rng.permutation(8), rng.permutation(8), rng.permutation(8)
        rows += [[kp[t], vp[t], bp[t]] for t in range(8)]
    levels = np.array(rows[:k])
    x = (TRUE + sum(effects[f][levels[:, f]] for f in range(3)) + pairing[levels[:, 1], levels[:, 2]]
         + rng.normal(0, noise_sd, k) + np.where(np.arange(k) >= at, shift, 0.0))
    # the placements' effects as the balanced mean sees them: centred per code
    x -= sum(effects[f].mean() for f in range(3)) + pairing.mean()
    return x, levels


@pytest.mark.parametrize("pairing_sd", [0.0, 0.006])
def test_the_interval_tracks_re_runs_and_the_t_interval_does_not(pairing_sd: float) -> None:
    """Over many re-runs, the model's 95 % interval holds the true effect about 95 % of the time with a
    width near what the re-runs spread, also where how two placements meet matters; the t interval
    over processes counts the placement effects the balanced mean cancels and is several times too
    wide."""
    rng = np.random.default_rng(1)
    est, half, t_half, held = [], [], [], 0
    for _ in range(1500):
        x, levels = study(rng, pairing_sd=pairing_sd)
        d = design_estimate(x, levels)
        ci = d.interval(0.95)
        held += ci.low <= TRUE <= ci.high
        est.append(d.estimate)
        half.append((ci.high - ci.low) / 2)
        t = t_interval(x)
        t_half.append((t.high - t.low) / 2)
    spread = 1.96 * np.std(est)
    assert 0.93 <= held / 1500 <= 0.97
    assert 0.8 < np.median(half) / spread < 1.3
    assert np.median(t_half) / spread > 2.5


def test_one_repeated_set_of_placements_misses_how_they_meet() -> None:
    """The design before: one set of pairings for the whole study. Where two placements' meeting
    matters, the study's mean carries its set's share, which no spread within the study shows: its
    interval holds the true effect far less often than the blocks' do."""
    rng = np.random.default_rng(7)
    held = {True: 0, False: 0}
    for blocks in (True, False):
        for _ in range(800):
            x, levels = study(rng, pairing_sd=0.01, noise_sd=0.003, blocks=blocks)
            ci = design_estimate(x, levels).interval(0.95)
            held[blocks] += ci.low <= TRUE <= ci.high
    assert held[True] / 800 >= 0.92 and held[False] / 800 < 0.85


def test_the_model_cancels_placement_effects_in_an_unbalanced_count() -> None:
    """10 processes: the second block has 2. The plain mean weights their placements double; the
    model's intercept does not, so it stays on the true effect while the plain mean wanders."""
    rng = np.random.default_rng(2)
    model, plain = [], []
    effects = np.random.default_rng(9).normal(0, 0.03, (3, 8))
    for _ in range(1500):
        x, levels = study(rng, k=18, noise_sd=0.002, effects=effects)
        model.append(design_estimate(x, levels).estimate)
        plain.append(float(np.mean(x)))
    assert abs(np.mean(model) - TRUE) < 0.001
    assert np.std(model) < np.std(plain)


def test_without_placements_or_degrees_of_freedom_it_is_the_t_interval_over_processes() -> None:
    x = np.array([0.01, 0.02, 0.015, 0.03, 0.0, 0.01, 0.02, 0.025])
    t = t_interval(x)
    for levels in (None, np.full((8, 3), -1), np.column_stack([np.arange(8)] * 3)):  # 8 values, 8 parameters
        d = design_estimate(x, levels)
        assert not d.modelled and d.df == 7
        assert (d.interval(0.95).low, d.interval(0.95).high) == pytest.approx((t.low, t.high))


def test_processes_needed_are_whole_turns_and_resolve_the_margin() -> None:
    """The count the verdict line prints: whole turns of 8, at least two; a study of that many
    resolves the margin in about 80 % of simulated re-runs (the power it is computed for)."""
    rng = np.random.default_rng(3)
    x, levels = study(rng, k=32, noise_sd=0.012)
    d = design_estimate(x, levels)
    n = d.processes_needed(0.01, unit=8)
    assert n % 8 == 0 and n >= d.parameters + 16
    resolved = 0
    for _ in range(400):
        y, lv = study(rng, k=n, noise_sd=0.012)
        y = y - TRUE + np.log1p(0.01)  # an effect of exactly the margin
        ci = design_estimate(y, lv).interval(0.95)
        resolved += ci.low > 0
    assert resolved / 400 >= 0.75  # at least the power it is computed for (the model's own floor may add)


def test_a_shift_in_the_middle_of_a_study_is_found_where_it_is() -> None:
    rng = np.random.default_rng(4)
    found, where = 0, []
    for _ in range(100):
        x, levels = study(rng, shift=0.033, at=12)  # the size of the jump the issue saw on the Zen 5 VM
        s = shift_over_order(x, levels, permutations=500)
        found += s.p < 0.01
        where.append(s.at)
    assert found >= 90
    assert abs(np.median(where) - 12) <= 2


def test_no_shift_gives_few_false_alarms() -> None:
    rng = np.random.default_rng(5)
    alarms = sum(shift_over_order(*study(rng), permutations=500).p < 0.01 for _ in range(300))
    assert alarms <= 9  # 1 % of 300 is 3; a binomial tail of 9 has p < 0.005 (the law drawn is Gaussian)


def test_placement_effects_alone_are_no_shift() -> None:
    """Large placement effects look like steps between neighbouring processes; taken off by the
    placement model, they are no change of state."""
    rng = np.random.default_rng(6)
    alarms = sum(shift_over_order(*study(rng, placement_sd=0.08, noise_sd=0.002), permutations=500).p < 0.01
                 for _ in range(100))
    assert alarms <= 4

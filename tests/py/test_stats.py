"""Known-answer and simulation tests of the statistics: interval coverage, A/A false positives,
detection of a known shift, equivalence, multiplicity control, power, diagnostics."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.stats.bootstrap import block_length, bootstrap_median_ci, lag1_autocorrelation, ratio_of_medians_ci
from analysis.stats.intervals import prediction_interval, sign_test_ci, sign_test_p
from analysis.stats.laws import mann_whitney_p
from analysis.stats.multiplicity import benjamini_hochberg, holm
from analysis.stats.placement_model import process_estimate
from analysis.stats.power import minimum_detectable_effect, rounds_needed
from analysis.stats.robust import hodges_lehmann, iqr, mad, robust_sd, tukey_outliers
from analysis.stats.diagnostics import diagnose
from analysis.verdicts.compare import adjust_family, compare_one, verdict_of


def test_spread_measures_known_answers():
    x = np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 100])
    assert iqr(x) == 4.0  # numpy's linear quantiles: Q1 = 3, Q3 = 7
    assert mad(x) == 2.0
    assert robust_sd(x) == pytest.approx(4 / 1.349)
    t = tukey_outliers(x)
    assert (t.low_severe, t.low_mild, t.high_mild, t.high_severe) == (0, 0, 0, 1)
    t2 = tukey_outliers(np.array([0, 10, 11, 12, 13, 14, 15, 16, 21.5]))
    assert t2.low_mild == 1 and t2.high_mild == 1 and t2.total == 2


def test_sign_test_ci_known_answer():
    d = np.arange(1.0, 12.0)  # n = 11: k = 2 (P(B <= 1) = 0.0059, P(B <= 2) = 0.0327 > 0.025)
    ci = sign_test_ci(d, 0.95)
    assert (ci.low, ci.estimate, ci.high) == (2.0, 6.0, 10.0)
    assert "0.9883" in ci.method
    assert np.isinf(sign_test_ci(np.arange(5.0)).low)  # 5 pairs cannot give 95 %


def test_sign_test_ci_coverage_near_nominal():
    from scipy.stats import gamma

    rng = np.random.default_rng(1)
    true = np.log(1.02)
    shift = gamma(2.0, scale=0.01).median()
    hits = 0
    sims = 2000
    for _ in range(sims):
        d = true + rng.gamma(2.0, 0.01, 51) - shift  # skewed paired log ratios, median exactly `true`
        ci = sign_test_ci(d)
        hits += ci.low <= true <= ci.high
    cov = hits / sims
    assert 0.935 <= cov <= 0.985, cov  # exact coverage of the order statistics used: 0.9672


def test_bootstrap_median_law_matches_resampling():
    rng = np.random.default_rng(2)
    x = rng.lognormal(0, 1, 51)
    law = bootstrap_median_ci(x, resamples=20000, seed=3)
    idx = rng.integers(0, len(x), (20000, len(x)))
    brute = np.quantile(np.median(x[idx], axis=1), [0.025, 0.975])
    assert law.low == pytest.approx(brute[0], rel=0.05) and law.high == pytest.approx(brute[1], rel=0.05)


def test_bootstrap_median_ci_coverage_near_nominal():
    rng = np.random.default_rng(4)
    hits, sims = 0, 1000
    for i in range(sims):
        x = rng.lognormal(0, 0.5, 101)  # population median 1
        ci = bootstrap_median_ci(x, seed=i)
        hits += ci.low <= 1.0 <= ci.high
    assert 0.92 <= hits / sims <= 0.98, hits / sims


def test_ratio_of_medians_ci_coverage_near_nominal():
    rng = np.random.default_rng(5)
    hits, sims = 0, 300
    for i in range(sims):
        b = rng.lognormal(0, 0.3, 101)
        a = 1.05 * rng.lognormal(0, 0.3, 101)  # median ratio exactly 1.05
        ci, _ = ratio_of_medians_ci(a, b, resamples=2000, seed=i)
        hits += ci.low <= 1.05 <= ci.high
    assert 0.91 <= hits / sims <= 0.985, hits / sims


def test_block_bootstrap_chosen_for_autocorrelated_rounds():
    rng = np.random.default_rng(6)
    e = np.zeros(1000)
    for i in range(1, 1000):
        e[i] = 0.6 * e[i - 1] + rng.normal(0, 0.01)
    assert lag1_autocorrelation(e) > 0.4
    assert block_length(e) == 10
    assert block_length(rng.normal(size=1000)) == 1
    a = np.exp(e) * 2
    ci, block = ratio_of_medians_ci(a, np.ones(1000) * 2 * np.exp(rng.normal(0, 1e-9, 1000)), resamples=2000)
    assert block == 10 and "block" in ci.method


def test_hierarchical_bootstrap_with_processes():
    rng = np.random.default_rng(7)
    # process-level offsets make the between-process variance dominate
    groups = np.repeat(np.arange(5), 40)
    off = rng.normal(0, 0.05, 5)[groups]
    b = rng.lognormal(0, 0.02, 200)
    a = b * np.exp(off + 0.01)
    flat, _ = ratio_of_medians_ci(a, b, resamples=2000)
    hier, _ = ratio_of_medians_ci(a, b, groups=groups, resamples=2000)
    assert "hierarchical" in hier.method
    assert (hier.high - hier.low) > 2 * (flat.high - flat.low)


def test_hodges_lehmann_and_mann_whitney():
    rng = np.random.default_rng(8)
    b = rng.normal(0, 1, 300)
    a = b + 2
    shift, sub = hodges_lehmann(a, b)
    assert shift == pytest.approx(2.0, abs=0.15) and not sub
    assert mann_whitney_p(b, b.copy()) == pytest.approx(1.0)
    assert mann_whitney_p(a, b) < 1e-10


def test_holm_and_bh_known_answers():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert np.allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    assert np.allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])


def synthetic_rounds(rng, n: int, ratio: float, sigma: float, variant="B", baseline="A") -> pd.DataFrame:
    """Two variants over n rounds: a common per-round workload factor (as when every round draws new
    calls), per-batch noise sigma (log scale), and a true time ratio."""
    work = rng.lognormal(0, 0.3, n) * 10
    rows = []
    for r in range(n):
        for name, mult in ((baseline, 1.0), (variant, ratio)):
            t = work[r] * mult * np.exp(rng.normal(0, sigma))
            rows.append((0, r, name, t, int(t * 1000)))
    return pd.DataFrame(rows, columns=["process", "round", "variant", "ns_per_call", "ticks"]).assign(warmup=False)


def verdict(df, margin=0.01, resamples=1000) -> str:
    c = compare_one(df, "sim", "memcpy", "synthetic", "B", "A", margin=margin, resamples=resamples,
                    allow_single_process=True)  # these simulations test the within-process statistics
    adjust_family([c])
    return c.verdict


def test_aa_false_positive_rate_near_alpha():
    rng = np.random.default_rng(9)
    sims = 400
    reported = sum(verdict(synthetic_rounds(rng, 60, 1.0, 0.02)) in ("faster", "slower") for _ in range(sims))
    rate = reported / sims
    # nominal 5 %; the exact sign test at n = 60 is conservative (about 2.7 %)
    assert 0.005 <= rate <= 0.08, rate


def test_known_shift_detected_and_covered():
    rng = np.random.default_rng(10)
    sims, slower, covered = 100, 0, 0
    for _ in range(sims):
        df = synthetic_rounds(rng, 60, 1.03, 0.02)
        c = compare_one(df, "sim", "memcpy", "synthetic", "B", "A", resamples=1000, allow_single_process=True)
        adjust_family([c])
        slower += c.verdict == "slower"
        covered += c.ci_low <= 1.03 <= c.ci_high
    assert slower >= 95 and covered >= 88


def test_equivalence_and_inconclusive():
    rng = np.random.default_rng(11)
    eq = sum(verdict(synthetic_rounds(rng, 400, 1.002, 0.005)) == "equivalent" for _ in range(30))
    assert eq >= 27
    inc = sum(verdict(synthetic_rounds(rng, 20, 1.015, 0.10)) == "inconclusive" for _ in range(30))
    assert inc >= 25


def test_verdict_rules():
    assert verdict_of(0.995, 1.005, 0.5, 1.0, 0.01, 0.05) == "equivalent"
    assert verdict_of(0.90, 0.95, 0.001, 0.92, 0.01, 0.05) == "faster"
    assert verdict_of(1.05, 1.10, 0.001, 1.07, 0.01, 0.05) == "slower"
    assert verdict_of(0.95, 1.05, 0.3, 1.0, 0.01, 0.05) == "inconclusive"
    # significant but the interval is inside the margin: practically equivalent
    assert verdict_of(1.001, 1.004, 0.001, 1.002, 0.01, 0.05) == "equivalent"


def test_multiplicity_controls_familywise_error():
    rng = np.random.default_rng(12)
    fams, raw_any, holm_any = 300, 0, 0
    for _ in range(fams):
        p = np.array([sign_test_p(rng.normal(0, 1, 40)) for _ in range(10)])
        raw_any += np.any(p < 0.05)
        holm_any += np.any(holm(p) < 0.05)
    assert raw_any / fams > 0.15
    assert holm_any / fams <= 0.07


def test_mde_and_rounds_needed_are_consistent_with_power():
    rng = np.random.default_rng(13)
    pilot = rng.normal(0, 0.02, 200)
    n = rounds_needed(pilot, 0.01)
    mde = minimum_detectable_effect(pilot[: min(n, 200)] if n <= 200 else np.resize(pilot, n))
    assert mde == pytest.approx(0.01, rel=0.15)
    hits = sum(sign_test_p(rng.normal(np.log(1.01), 0.02, n)) < 0.05 for _ in range(300))
    assert 0.65 <= hits / 300 <= 0.95, (n, hits)


def _diagnostics_frame(rng, drift=0.0, own_drift=0.0, position=0.0, carry=0.0, ar=0.0, processes=4, rounds=300):
    """Three variants A, B, C in rotating order; effects on A: drift (fractional change over a
    process, shared by every variant), own_drift (A alone), position (A slower when first), carry
    (A slower right after C), ar (lag-1 autocorrelation of A's own noise); every batch 1 % noise."""
    rows = []
    for p in range(processes):
        e = 0.0
        for r in range(rounds):
            order = [["A", "B", "C"], ["B", "C", "A"], ["C", "A", "B"], ["A", "C", "B"], ["B", "A", "C"],
                     ["C", "B", "A"]][r % 6]
            e = ar * e + rng.normal(0, 0.01)
            for pos, v in enumerate(order):
                f = 1 + drift * r / rounds
                noise = e if v == "A" else rng.normal(0, 0.01)
                if v == "A":
                    f *= (1 + own_drift * r / rounds) * (1 + position * (pos == 0))
                    f *= 1 + carry * (pos > 0 and order[pos - 1] == "C")
                rows.append((p, r, pos, v, 10 * f * np.exp(noise), r * 0.01 + pos * 0.003))
    df = pd.DataFrame(rows, columns=["process", "round", "position", "variant", "ns_per_call", "t_start_s"])
    df["warmup"] = False
    return {d.variant: d for d in diagnose(df)}


@pytest.mark.parametrize("effect,kwargs,word", [
    ("drift shared by every variant", {"drift": 0.05}, "as the other variants' did"),
    ("drift of one variant", {"own_drift": 0.05}, "relative to the round's other variants"),
    ("position", {"position": 0.03}, "at position 0 it is"),
    ("carry-over", {"carry": 0.03}, "after C it is"),
    ("autocorrelation", {"ar": 0.8}, "autocorrelation: consecutive rounds"),
])
def test_each_diagnostic_finds_its_effect_and_says_what_it_means(effect, kwargs, word):
    d = _diagnostics_frame(np.random.default_rng(14), **kwargs)["A"]
    assert any(word in v for v in d.verdicts), (effect, d.verdicts)
    if "drift" in kwargs and "own_drift" not in kwargs:
        assert not any("relative to the round's other" in v for v in d.verdicts), d.verdicts
    if "drift" in kwargs:
        assert 0.03 < d.drift.estimate < 0.07 and d.drift.low > 0  # about the 5 % put in, first to last third
    if "position" in kwargs:
        assert d.position.where == "0" and d.position.low > 0.01
    if "carry" in kwargs:
        assert d.carryover.where == "C" and d.carryover.low > 0.01


def test_diagnostics_of_data_without_effects_flag_nothing():
    flagged = 0
    for seed in range(5):
        for d in _diagnostics_frame(np.random.default_rng(100 + seed)).values():
            flagged += bool(d.verdicts)
            assert abs(d.drift.estimate) < 0.01 and abs(d.lag1) < 0.2
    assert flagged <= 1  # 15 variant diagnoses at simultaneous 95 % and the size bounds: almost never


def test_processes_carry_their_own_offsets_into_the_verdict():
    """Identical variants whose relative speed differs per process (code placement): pooling all
    rounds would call most pairs different; the per-process interval keeps A/A near alpha."""
    rng = np.random.default_rng(15)
    pooled_fp, proc_fp, sims = 0, 0, 50
    for _ in range(sims):
        frames = []
        for p in range(6):
            off = rng.normal(0, 0.01)  # a 1 % placement effect, fixed within the process
            df = synthetic_rounds(rng, 100, float(np.exp(off)), 0.005)
            frames.append(df.assign(process=p))
        df = pd.concat(frames, ignore_index=True)
        c = compare_one(df, "sim", "memcpy", "synthetic", "B", "A", resamples=1000, margin=0.0)
        adjust_family([c])
        proc_fp += c.verdict in ("faster", "slower")
        flat = compare_one(df.assign(process=0), "sim", "memcpy", "synthetic", "B", "A", resamples=1000, margin=0.0,
                           allow_single_process=True)
        adjust_family([flat])
        pooled_fp += flat.verdict in ("faster", "slower")
        assert c.across_processes and "processes" in c.estimand
    assert pooled_fp / sims > 0.5
    assert proc_fp / sims <= 0.12


def test_one_process_gives_no_verdict_unless_allowed():
    rng = np.random.default_rng(16)
    df = synthetic_rounds(rng, 200, 1.10, 0.01)  # clearly slower, one process
    c = compare_one(df, "sim", "memcpy", "synthetic", "B", "A", resamples=1000)
    adjust_family([c])
    assert c.verdict == "inconclusive" and any("one process" in n for n in c.notes)
    assert c.within_low <= c.ratio <= c.within_high
    allowed = compare_one(df, "sim", "memcpy", "synthetic", "B", "A", resamples=1000, allow_single_process=True)
    adjust_family([allowed])
    assert allowed.verdict == "slower"


def test_prediction_interval_is_wider_than_the_confidence_interval():
    rng = np.random.default_rng(17)
    frames = [synthetic_rounds(rng, 80, float(np.exp(rng.normal(0.02, 0.01))), 0.005).assign(process=p)
              for p in range(10)]
    c = compare_one(pd.concat(frames, ignore_index=True), "sim", "memcpy", "synthetic", "B", "A", resamples=1000)
    adjust_family([c])
    assert c.across_processes and c.processes == 10
    assert c.pi_low < c.ci_low < c.ratio < c.ci_high < c.pi_high
    # with as many processes in the re-run, the prediction interval is sqrt(2) times as wide (log scale)
    assert np.log(c.pi_high / c.pi_low) == pytest.approx(np.sqrt(2) * np.log(c.ci_high / c.ci_low), rel=1e-9)
    assert c.between_process_sd > 0.005 and c.processes_for_margin >= 2
    # the within-process interval (all rounds pooled) is the narrow one
    assert c.within_high - c.within_low < c.ci_high - c.ci_low


def test_prediction_interval_covers_re_runs():
    """Simulated studies of 10 processes with a 1 % layout effect: the mean of a fresh study falls
    in the 95 % prediction interval of the first about 95 % of the time."""
    rng = np.random.default_rng(18)
    hits, sims = 0, 400
    for _ in range(sims):
        first = rng.normal(0.03, 0.01, 10)
        second = rng.normal(0.03, 0.01, 10)
        pi = prediction_interval(first, 0.95)
        hits += pi.low <= second.mean() <= pi.high
    assert 0.92 <= hits / sims <= 0.98


def test_net_ratio_takes_the_harness_off_both_sides():
    """Per-call times h + w (baseline) and h + 1.2 w (variant): the gross ratio is below 1.2, the
    net one is 1.2 whatever the harness cost h of each process."""
    rng = np.random.default_rng(19)
    rows = []
    for p in range(6):
        h = 2.0 + 0.1 * p
        for r in range(50):
            w = 20 * np.exp(rng.normal(0, 0.05))
            rows += [(p, r, "A", h + w, 1, h), (p, r, "B", h + 1.2 * w, 1, h)]
    df = pd.DataFrame(rows, columns=["process", "round", "variant", "ns_per_call", "ticks", "harness_ns_per_call"])
    c = compare_one(df.assign(warmup=False), "sim", "memcpy", "synthetic", "B", "A", resamples=1000)
    assert c.ratio < 1.19
    assert c.net_ratio == pytest.approx(1.2, rel=1e-9)
    assert c.net_low <= c.net_ratio <= c.net_high


def test_process_estimate_averages_placement_blocks():
    """Rotating code placements: every block of 8 rounds runs each placement once, and which
    placements meet changes per block, so each round's log ratio carries the effect of its
    meeting. The median over all rounds picks a level out of that mix; the median over full blocks
    of each block's mean is the meetings' average, and a block cut short (warm-up, the end) is left
    out. One disturbed block moves it no more than one round moves a median."""
    rng = np.random.default_rng(3)
    effect = rng.choice([-0.02, -0.015, -0.01, 0.005, 0.01, 0.03, 0.045, 0.05], size=(400, 8))  # skewed
    d = (0.01 + effect + rng.normal(0, 0.0005, effect.shape)).ravel()
    blocks = np.repeat(np.arange(400), 8)
    d[:3] = 5.0  # a disturbed stretch, inside block 0
    est = process_estimate(d[3:], blocks[3:])  # block 0 is cut short: left out
    assert est == pytest.approx(0.01 + effect[1:].mean(), abs=2e-3)
    assert abs(np.median(d[3:]) - (0.01 + effect[1:].mean())) > 0.004
    # without rotation (no blocks) or without a full block it is the median, as before
    none = np.full(len(d), -1)
    assert process_estimate(d, none) == pytest.approx(float(np.median(d)))
    assert process_estimate(d[:5], blocks[:5]) == pytest.approx(float(np.median(d[:5])))

"""Statistics on per-batch samples. Pure functions on numpy arrays: robust location and spread,
confidence intervals, paired and unpaired tests, multiplicity corrections and power."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from . import nptests

DEFAULT_RESAMPLES = 10_000
# bootstrap_median_ci holds every draw at once (several arrays of `resamples` doubles); beyond a
# million the percentile interval no longer changes while memory and time keep growing.
MAX_RESAMPLES = 1_000_000
# The paired ratio-of-medians interval is a secondary estimate (the verdicts use the process-level
# t interval) and costs O(rounds) per resample: at 25,000 rounds, 2000 resamples took 8 of a
# default study's 10 s of analysis. With 400, each end's Monte-Carlo error (stated with the
# interval) was a tenth to a fifth of the interval's half-width on a default study.
ROM_RESAMPLES = 400
DEFAULT_SEED = 20261122


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    level: float
    method: str


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


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - i) for i in range(0, total, size)]


def bootstrap_median_ci(x: np.ndarray, level: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                        seed: int = DEFAULT_SEED) -> Interval:
    """Percentile bootstrap CI of the median, from the bootstrap distribution's exact law.

    The median of a resample of sorted x is an order statistic x_(J); J has the law
    P(J <= j) = P(Binomial(n, (j+1)/n) >= q+1) for the middle rank q. `resamples` seeded draws from
    that law give the same distribution as resampling and taking medians (exactly for odd n; for
    even n the two middle order statistics are drawn from one uniform), without O(n) work per draw.
    """
    xs = np.sort(np.asarray(x, dtype=float))
    n = len(xs)
    rng = np.random.default_rng(seed)
    u = rng.random(resamples)
    j = np.arange(1, n + 1) / n

    def draw(q: int) -> np.ndarray:
        cdf = nptests.binom_sf(q, n, j)  # P(J <= j-1) for j = 1..n
        return xs[np.minimum(np.searchsorted(cdf, u, side="left"), n - 1)]

    meds = draw((n - 1) // 2) if n % 2 else (draw(n // 2 - 1) + draw(n // 2)) / 2
    a = (1 - level) / 2
    lo, hi = np.quantile(meds, [a, 1 - a])
    return Interval(float(np.median(xs)), float(lo), float(hi), level,
                    f"percentile bootstrap, {resamples} draws from the exact law of the resampled median")


def _ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and each element's rank, in the narrowest integer type (partitions of small
    integers are several times faster than of gathered doubles)."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x), dtype=np.int16 if len(x) < 2 ** 15 else np.int32)
    r[order] = np.arange(len(x))
    return x[order], r


def _resampled_medians(sorted_x: np.ndarray, ranks: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Median of x over each row of resample indices idx, through the ranks."""
    n = idx.shape[1]
    rr = ranks[idx]
    lo, hi = (n - 1) // 2, n // 2
    # numpy sorts 16-bit integers by radix (kind="stable"): four times faster than partitioning
    # them here; wider ranks have no radix path and are partitioned.
    part = np.sort(rr, axis=1, kind="stable") if rr.dtype.itemsize <= 2 else \
        np.partition(rr, (lo, hi) if hi != lo else lo, axis=1)
    return (sorted_x[part[:, lo]] + sorted_x[part[:, hi]]) / 2


# Rounds in a block of code placements (bench/base/placement.h, MFB_CODE_PLACEMENTS).
CODE_PLACEMENTS = 8


def process_estimate(d: np.ndarray, blocks: np.ndarray, size: int = CODE_PLACEMENTS) -> float:
    """One process's estimate from its per-round log ratios d: the median over rounds; or, where the
    rounds rotated code placements (blocks: each round's block, -1 for none; --code-rotation round),
    the median over full blocks (size rounds, each running every placement once, the placements that
    meet drawn afresh per block) of each block's mean, so the estimate averages the placements and
    how they meet, and one disturbed block moves it no more than one round moves a median. Without a
    full block, the median over rounds."""
    if len(d) == 0 or (blocks < 0).all():
        return float(np.median(d))
    ids, counts = np.unique(blocks, return_counts=True)
    full = ids[(counts == size) & (ids >= 0)]
    if len(full) == 0:
        return float(np.median(d))
    return float(np.median([d[blocks == b].mean() for b in full]))


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
    k = max(0, int(n / 2 + nptests.norm_quantile(alpha / 2) * np.sqrt(n) / 2))
    while k > 0 and nptests.binom_cdf(k - 1, n, 0.5) > alpha / 2:
        k -= 1
    while nptests.binom_cdf(k, n, 0.5) <= alpha / 2:
        k += 1
    if k < 1:
        return Interval(med, float("-inf"), float("inf"), level, "sign test (too few pairs for this level)")
    achieved = 1 - 2 * nptests.binom_cdf(k - 1, n, 0.5)
    return Interval(med, float(d[k - 1]), float(d[n - k]), level, f"exact sign test (coverage {achieved:.4f})")


def sign_test_p(d: np.ndarray) -> float:
    """Two-sided exact sign test of median(d) = 0; zeros (ties) are dropped."""
    d = np.asarray(d, dtype=float)
    pos, neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    if pos + neg == 0:
        return 1.0
    return nptests.sign_test_p(pos, pos + neg)


def lag1_autocorrelation(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=float)
    if len(x) < 3 or np.std(x) == 0:
        return 0.0
    return float(np.corrcoef(x[:-1], x[1:])[0, 1])


def block_length(x: np.ndarray) -> int:
    """1 when lag-1 autocorrelation is negligible, else n^(1/3) (moving-block bootstrap rule of thumb)."""
    return 1 if abs(lag1_autocorrelation(x)) < 0.1 else max(2, int(round(len(x) ** (1 / 3))))


def _block_indices(rng: np.random.Generator, n: int, block: int, k: int) -> np.ndarray:
    """k resamples of n indices made of moving blocks of length `block`."""
    if block <= 1:
        return rng.integers(0, n, (k, n))
    nb = -(-n // block)
    starts = rng.integers(0, n - block + 1, (k, nb))
    idx = (starts[:, :, None] + np.arange(block)[None, None, :]).reshape(k, nb * block)
    return idx[:, :n]


def ratio_of_medians_ci(a: np.ndarray, b: np.ndarray, groups: np.ndarray | None = None, level: float = 0.95,
                        resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> tuple[Interval, int]:
    """median(a) / median(b) with a bootstrap CI; a[i], b[i] are one round (resampled together).

    Rounds are resampled in moving blocks when the paired log ratios are autocorrelated. With
    `groups` (process ids) holding more than one value, the bootstrap is hierarchical: processes
    first, then rounds within each chosen process. Returns the interval and the block length.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    rng = np.random.default_rng(seed)
    est = float(np.median(a) / np.median(b))
    block = block_length(np.log(a / b))
    alpha = (1 - level) / 2
    if groups is not None and len(np.unique(groups)) > 1:
        # Processes first, then rounds within each chosen process; every chosen process
        # contributes as many rounds as the median process has (runs share one time budget).
        ids = np.unique(groups)
        order = np.argsort(groups, kind="stable")
        lengths = np.array([np.sum(groups == g) for g in ids])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        per = int(np.median(lengths))
        sa, ra = _ranks(a[order])
        sb, rb = _ranks(b[order])
        parts = []
        for k in _chunks(resamples, 100):
            chosen = rng.integers(0, len(ids), (k, len(ids)))
            # float32 draws (half the cost of doubles): 24 bits place an index exactly in any
            # process of fewer than 2^24 rounds
            u = rng.random((k, len(ids), per), dtype=np.float32)
            idx = (starts[chosen][..., None] + (u * lengths[chosen][..., None]).astype(np.int64)).reshape(k, -1)
            parts.append(_resampled_medians(sa, ra, idx) / _resampled_medians(sb, rb, idx))
        ratios = np.concatenate(parts)
        method = f"hierarchical bootstrap (processes, then rounds), {resamples} resamples"
    else:
        sa, ra = _ranks(a)
        sb, rb = _ranks(b)
        parts = []
        for k in _chunks(resamples, 200):
            idx = _block_indices(rng, len(a), block, k)
            parts.append(_resampled_medians(sa, ra, idx) / _resampled_medians(sb, rb, idx))
        ratios = np.concatenate(parts)
        method = f"{'block' if block > 1 else 'paired'} bootstrap over rounds (block {block}), {resamples} resamples"
    lo, hi = np.quantile(ratios, [alpha, 1 - alpha])
    method += f" (Monte-Carlo error of each end about ±{percentile_mc_error(ratios, alpha):.2g})"
    return Interval(est, float(lo), float(hi), level, method), block


def percentile_mc_error(draws: np.ndarray, alpha: float) -> float:
    """Standard error of the percentile interval's ends from a finite number of bootstrap draws:
    an end's rank has binomial sd sqrt(B a (1 - a)); half the spread of the order statistics one
    such sd either side of each end, the larger of the two ends."""
    b = len(draws)
    s = np.sqrt(alpha * (1 - alpha) / b)
    errs = [(np.quantile(draws, min(q + s, 1)) - np.quantile(draws, max(q - s, 0))) / 2 for q in (alpha, 1 - alpha)]
    return float(max(errs))


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


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    return nptests.mann_whitney_p(a, b)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error)."""
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adj[i] = min(1.0, running)
    return adj


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate)."""
    p = np.asarray(p, float)
    m = len(p)
    order = np.argsort(p)[::-1]
    adj = np.empty(m)
    running = 1.0
    for rank, i in enumerate(order):
        running = min(running, p[i] * m / (m - rank))
        adj[i] = running
    return adj


ADJUSTERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {"holm": holm, "bh": benjamini_hochberg,
                                                            "none": lambda p: np.asarray(p, float)}

# Asymptotic efficiency of the sign test relative to the t-test for normal data (2/pi).
SIGN_TEST_EFFICIENCY = 2 / np.pi


def minimum_detectable_effect(d: np.ndarray, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest relative change (e.g. 0.01 = 1 %) the sign test on these n paired log ratios
    detects with the given power: (z_{1-a/2} + z_power) * sigma / sqrt(n * efficiency)."""
    d = np.asarray(d, float)
    if len(d) < 2:
        return float("inf")
    sigma = robust_sd(d)
    z = nptests.norm_quantile(1 - alpha / 2) + nptests.norm_quantile(power)
    return float(np.expm1(z * sigma / np.sqrt(len(d) * SIGN_TEST_EFFICIENCY)))


def rounds_needed(d: np.ndarray, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Rounds for the sign test to detect a relative change `effect` with the given power."""
    sigma = robust_sd(np.asarray(d, float))
    z = nptests.norm_quantile(1 - alpha / 2) + nptests.norm_quantile(power)
    return int(np.ceil((z * sigma / np.log1p(effect)) ** 2 / SIGN_TEST_EFFICIENCY))


def t_interval(x: np.ndarray, level: float = 0.95) -> Interval:
    """Student t interval of the mean (used across processes, where each value is one process)."""
    x = np.asarray(x, float)
    n = len(x)
    m = float(np.mean(x))
    if n < 2:
        return Interval(m, float("-inf"), float("inf"), level, "t interval (one value)")
    half = float(nptests.t_quantile(1 - (1 - level) / 2, n - 1) * np.std(x, ddof=1) / np.sqrt(n))
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
    half = float(nptests.t_quantile(1 - (1 - level) / 2, n - 1) * np.std(x, ddof=1) * np.sqrt(1 / n + 1 / k))
    return Interval(m, m - half, m + half, level, f"prediction interval of a re-run's mean of {k} values")


def processes_needed(x: np.ndarray, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Processes for a t test over per-process values with this spread to detect a relative change
    `effect` with the given power (normal approximation, at least 2)."""
    x = np.asarray(x, float)
    if len(x) < 2:
        return 0
    sigma = float(np.std(x, ddof=1))
    z = nptests.norm_quantile(1 - alpha / 2) + nptests.norm_quantile(power)
    return max(2, int(np.ceil((z * sigma / np.log1p(effect)) ** 2)))


@dataclass(frozen=True)
class DesignEstimate:
    """A mean over processes with the standard error the study's design gives it.

    Stratified (code placements balanced over the study, some stratum repeated): the mean of the
    strata's means, whose error comes from the spread within strata only: the placement effects
    that set the strata apart cancel in the balanced mean, so they are no part of its error, and
    a t interval over the processes as if they were exchangeable would count them (on the Zen 5
    VM, 3-5 times too wide). Otherwise the plain mean with the t interval over processes."""

    estimate: float
    se: float
    df: int
    processes: int
    strata: int
    stratified: bool
    within_sd: float     # per process: within strata (stratified), else the sd over processes
    between_sd: float    # sd over processes as they came (placement effects included)
    placement_sd: float  # sd of the strata's effects net of the noise in their means (nan: not stratified)
    replicates: float    # processes per stratum (the design's unit of "more processes": one per stratum)

    @property
    def method(self) -> str:
        if self.stratified:
            return (f"mean of {self.strata} code-placement strata's means over {self.processes} processes; "
                    f"t interval on the spread within strata ({self.df} degrees of freedom)")
        return f"t interval over {self.processes} processes"

    def interval(self, level: float) -> Interval:
        if self.df < 1 or not np.isfinite(self.se):
            return Interval(self.estimate, float("-inf"), float("inf"), level, self.method)
        half = nptests.t_quantile(1 - (1 - level) / 2, self.df) * self.se
        return Interval(self.estimate, self.estimate - half, self.estimate + half, level, self.method)

    def prediction(self, level: float) -> Interval:
        """Where a re-run of the same design (as many processes, fresh placements and seeds) puts
        its estimate: its own error on top of this one's, sqrt(2) times the interval's."""
        if self.df < 1 or not np.isfinite(self.se):
            return Interval(self.estimate, float("-inf"), float("inf"), level, "prediction interval (one value)")
        half = nptests.t_quantile(1 - (1 - level) / 2, self.df) * self.se * np.sqrt(2)
        return Interval(self.estimate, self.estimate - half, self.estimate + half, level,
                        f"prediction interval of a re-run with {self.processes} processes")

    def p_value(self) -> float:
        """Two-sided t test of a mean of 0."""
        if self.df < 1 or not np.isfinite(self.se):
            return 1.0
        if self.se == 0:
            return 1.0 if self.estimate == 0 else 0.0
        return float(min(1.0, 2 * nptests.t_sf(abs(self.estimate) / self.se, self.df)))

    def processes_needed(self, effect: float, alpha: float = 0.05, power: float = 0.8, unit: int = 1) -> int:
        """Processes for this design to detect a relative change `effect` with the given power
        (normal approximation): stratified, whole rounds of `unit` processes (one per stratum) and
        at least two rounds, so the strata have replicates."""
        if self.processes < 2 or not np.isfinite(self.within_sd):
            return 0
        z = nptests.norm_quantile(1 - alpha / 2) + nptests.norm_quantile(power)
        n = max(2, int(np.ceil((z * self.within_sd / np.log1p(effect)) ** 2)))
        if not self.stratified:
            return n
        return max(2 * unit, -(-n // unit) * unit)


def design_estimate(x: np.ndarray, strata: np.ndarray | None = None) -> DesignEstimate:
    """The mean of per-process values x and its standard error. With `strata` (one key per
    process; processes of one key ran the same code placements), the mean of the strata's means
    and an error from the pooled variance within strata, sum over strata of 1/n_s times that
    variance over the number of strata squared, with (processes - strata) degrees of freedom; the
    caller passes strata only where the placements were balanced over the study (each placement
    of each code in as many strata), which is what makes the mean of the strata's means free of
    them. Without strata, or without a stratum of two: the plain mean and the t interval."""
    x = np.asarray(x, float)
    n = len(x)
    between = float(np.std(x, ddof=1)) if n > 1 else float("nan")
    plain = DesignEstimate(float(np.mean(x)) if n else float("nan"),
                           between / np.sqrt(n) if n > 1 else float("inf"), n - 1, n, n, False, between, between,
                           float("nan"), 1.0)
    if strata is None or n < 3:
        return plain
    keys, inverse, counts = np.unique(strata, return_inverse=True, return_counts=True)
    t = len(keys)
    df = n - t
    if df < 1:
        return plain
    means = np.bincount(inverse, weights=x) / counts
    resid = x - means[inverse]
    within = float(np.sqrt(resid @ resid / df))
    se = within * float(np.sqrt(np.sum(1.0 / counts))) / t
    # the strata's own effects: the spread of their means less what their noise alone would give
    noise = within ** 2 * float(np.mean(1.0 / counts))
    placement = float(np.sqrt(max(0.0, float(np.var(means, ddof=1)) - noise))) if t > 1 else float("nan")
    return DesignEstimate(float(np.mean(means)), se, df, n, t, True, within, between, placement, n / t)


@dataclass(frozen=True)
class ShiftTest:
    """A shift over process order: the split that sets the processes before it furthest from those
    after it, and how often processes in a random order (within their strata) split as far."""

    at: int            # processes before the split (0: no split tested)
    before: float      # mean of the values before the split (strata effects removed, overall mean added back)
    after: float
    p: float
    permutations: int


# Fewest processes on either side of a split: with fewer, one odd process is a "change".
SHIFT_MIN_SIDE = 4
SHIFT_PERMUTATIONS = 2000


def _max_split_t(r: np.ndarray, lo: int) -> tuple[float, int]:
    """Largest |Welch-free two-sample t| of r[:c] against r[c:] over c in [lo, n - lo], on the pooled
    residual variance; rows of r are separate orders of the same values."""
    r = np.atleast_2d(r)
    n = r.shape[1]
    c = np.arange(lo, n - lo + 1)
    csum = np.cumsum(r, axis=1)[:, c - 1]
    total = r.sum(axis=1, keepdims=True)
    diff = csum / c - (total - csum) / (n - c)
    scale = np.sqrt((r * r).sum(axis=1, keepdims=True) / max(n - 1, 1)) * np.sqrt(1 / c + 1 / (n - c))
    t = np.abs(diff) / np.where(scale > 0, scale, np.inf)
    k = np.argmax(t, axis=1)
    return t[np.arange(len(t)), k], c[k]


def shift_over_order(x: np.ndarray, strata: np.ndarray | None = None, permutations: int = SHIFT_PERMUTATIONS,
                     seed: int = DEFAULT_SEED, min_side: int = SHIFT_MIN_SIDE) -> ShiftTest:
    """Whether per-process values x (in the order the processes ran) shift at some point: the largest
    standardized difference between the mean before and after a split, against the same statistic
    with the processes put in random orders. With strata (the code placements each process ran),
    each stratum's mean is taken off first and processes are only reordered within their stratum, so
    the placements' own effects are neither a shift nor hidden by one. A machine that changes state
    in the middle of a study (the host's load, a migration) moves every later process: a verdict
    over all of them then averages two states."""
    x = np.asarray(x, float)
    n = len(x)
    if n < 2 * min_side:
        return ShiftTest(0, float("nan"), float("nan"), 1.0, 0)
    if strata is None:
        strata = np.zeros(n, dtype=np.int64)
    keys, inverse = np.unique(strata, return_inverse=True)
    means = np.bincount(inverse, weights=x) / np.bincount(inverse)
    r = x - means[inverse]
    if not np.any(r):
        return ShiftTest(0, float(np.mean(x)), float(np.mean(x)), 1.0, 0)
    observed, at = _max_split_t(r, min_side)
    rng = np.random.default_rng(seed)
    # random orders within each stratum: the residuals of a stratum trade places among its processes
    members = [np.flatnonzero(inverse == k) for k in range(len(keys))]
    perm = np.tile(np.arange(n), (permutations, 1))
    for m in members:
        if len(m) > 1:
            perm[:, m] = m[np.argsort(rng.random((permutations, len(m))), axis=1)]
    null, _ = _max_split_t(r[perm], min_side)
    p = (1 + int(np.sum(null >= observed[0] - 1e-12))) / (permutations + 1)
    base = float(np.mean(means[inverse]))
    k = int(at[0])
    return ShiftTest(k, base + float(np.mean(r[:k])), base + float(np.mean(r[k:])), p, permutations)


def t_test_p(x: np.ndarray) -> float:
    x = np.asarray(x, float)
    if len(x) < 2 or np.std(x) == 0:
        return 1.0 if len(x) < 2 or np.mean(x) == 0 else 0.0
    return nptests.ttest_1samp_p(x)

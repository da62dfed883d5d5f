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

    Placements balanced over the study: the mean of the processes (with marginal balance, the
    intercept of an additive model of the code placements' effects, effect-coded: each code's
    placement effects sum to zero over its placements), its error from the model's residual spread.
    The placements' own effects cancel in the balanced mean, so they are no part of its error; a t
    interval over the processes as if they were exchangeable counts them (on the Zen 5 VM, 2 to 4
    times as wide as the re-runs' own 95 % spread). What the model leaves, the noise of a process
    and how two codes' placements meet (which pairings a block of processes drew), is the error.
    Otherwise the plain mean with the t interval over processes."""

    estimate: float
    se: float
    df: int
    processes: int
    parameters: int      # rank of the placement model (1: none, the plain mean)
    modelled: bool
    within_sd: float     # per process: the model's residual sd, else the sd over processes
    between_sd: float    # sd over processes as they came (placement effects included)
    placement_sd: float  # sd over processes of the placements' fitted effects, net of noise (nan: no model)
    factor_sd: tuple[float, ...] = ()  # per factor (loop, variant, baseline): its own placements' effects, net
                                       # of noise; nan where it is not told apart from the others

    @property
    def method(self) -> str:
        if self.modelled:
            return (f"mean of {self.processes} processes, its error from an additive model of the code placements' "
                    f"effects ({self.parameters} parameters, {self.df} degrees of freedom)")
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
        (normal approximation): with a placement model, whole blocks of `unit` processes (one per
        placement), and enough that the model keeps some degrees of freedom."""
        if self.processes < 2 or not np.isfinite(self.within_sd):
            return 0
        z = nptests.norm_quantile(1 - alpha / 2) + nptests.norm_quantile(power)
        n = max(2, int(np.ceil((z * self.within_sd / np.log1p(effect)) ** 2)))
        if not self.modelled:
            return n
        n = max(n, self.parameters + 2 * unit)
        return -(-n // unit) * unit


def placement_columns(levels: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The placement model's design matrix: the intercept, then for each factor (a column of
    levels, -1: no placement) that takes two or more levels, one effect-coded column per level but
    the first (+1 at the level, -1 at the first level). Also, per factor, the indices of its columns
    (empty for a factor that does not vary)."""
    levels = np.asarray(levels, np.int64)
    n = len(levels)
    cols, owner = [np.ones(n)], []
    for f in range(levels.shape[1]):
        values = np.unique(levels[:, f])
        if len(values) < 2 or (values < 0).any():
            owner.append(np.empty(0, np.int64))
            continue
        first = levels[:, f] == values[0]
        start = len(cols)
        cols += [(levels[:, f] == v).astype(float) - first for v in values[1:]]
        owner.append(np.arange(start, len(cols)))
    return np.column_stack(cols), owner


def design_estimate(x: np.ndarray, levels: np.ndarray | None = None) -> DesignEstimate:
    """The mean of per-process values x and its standard error. With `levels` (one row per process:
    the placement of each code the comparison depends on, -1 for none), from the additive model of
    the placements' effects; the caller passes levels only where the study balanced the placements
    (each placement of each code equally often), which makes the model's intercept the plain mean
    and that mean free of them. Without levels, or a model with no degree of freedom left: the plain
    mean and the t interval over processes."""
    x = np.asarray(x, float)
    n = len(x)
    between = float(np.std(x, ddof=1)) if n > 1 else float("nan")
    plain = DesignEstimate(float(np.mean(x)) if n else float("nan"),
                           between / np.sqrt(n) if n > 1 else float("inf"), n - 1, n, 1, False, between, between,
                           float("nan"))
    if levels is None or n < 3:
        return plain
    X, owner = placement_columns(levels)
    if X.shape[1] == 1:
        return plain
    beta, _, rank, _ = np.linalg.lstsq(X, x, rcond=None)
    df = n - int(rank)
    if df < 1:
        return plain
    fitted = X @ beta
    resid = x - fitted
    sigma2 = float(resid @ resid) / df
    var0 = sigma2 * float(np.linalg.pinv(X.T @ X)[0, 0])
    # how far the placements moved the values, less what noise alone puts into a fit of rank - 1 effects
    spread = float(np.var(fitted - beta[0], ddof=1)) - sigma2 * (rank - 1) / n
    factors = []
    for f, cols in enumerate(owner):
        others = np.delete(X, cols, axis=1)
        if len(cols) == 0 or int(rank) - np.linalg.matrix_rank(others) != len(cols):
            factors.append(float("nan"))  # does not vary, or aliased with the others (one repeated set)
            continue
        effects = np.concatenate([[-beta[cols].sum()], beta[cols]])
        # each effect rests on about n / levels processes
        factors.append(float(np.sqrt(max(0.0, float(np.var(effects, ddof=1)) - sigma2 * len(effects) / n))))
    return DesignEstimate(float(beta[0]), float(np.sqrt(var0)), df, n, int(rank), True, float(np.sqrt(sigma2)),
                          between, float(np.sqrt(max(0.0, spread))), tuple(factors))


@dataclass(frozen=True)
class ShiftTest:
    """A shift over process order: the split that sets the processes before it furthest from those
    after it, and how often values with no shift split as far (shift_over_order)."""

    at: int            # processes before the split (0: no split tested)
    before: float      # mean of the values before the split (the placement model's fit taken off, the mean added back)
    after: float
    p: float
    permutations: int  # draws of the statistic's law under no shift


# Fewest processes on either side of a split: with fewer, one odd process is a "change".
SHIFT_MIN_SIDE = 4
SHIFT_PERMUTATIONS = 2000


def _max_split_t(r: np.ndarray, lo: int) -> tuple[float, int]:
    """Largest |two-sample t| of r[:c] against r[c:] over c in [lo, n - lo], each on the variance of
    the whole row (the split's own variances would shrink where a shift sits); rows of r are separate
    orders or draws, and the split of the largest is returned with it."""
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


def shift_over_order(x: np.ndarray, levels: np.ndarray | None = None, permutations: int = SHIFT_PERMUTATIONS,
                     seed: int = DEFAULT_SEED, min_side: int = SHIFT_MIN_SIDE) -> ShiftTest:
    """Whether per-process values x (in the order the processes ran) shift at some point: the largest
    standardized difference between the mean before and after a split. A machine that changes state
    in the middle of a study (the host's load, a migration) moves every later process, and a verdict
    over all of them then averages two states.

    With levels (the code placements each process ran), the placement model's fit is taken off
    first, so that the placements' effects are no shift; the model's residuals are not exchangeable
    (each is part of the others' fit), so the statistic is set against its own law under no shift,
    drawn from the model: the residuals of Gaussian noise fitted the same way. Without levels: the
    same statistic with the processes in random orders (exact where they are exchangeable)."""
    x = np.asarray(x, float)
    n = len(x)
    if n < 2 * min_side:
        return ShiftTest(0, float("nan"), float("nan"), 1.0, 0)
    base = float(np.mean(x))
    rng = np.random.default_rng(seed)
    X = placement_columns(levels)[0] if levels is not None else np.ones((n, 1))
    # the residual maker I - H of the model (the centring alone without levels)
    resid_maker = np.eye(n) - X @ np.linalg.pinv(X)
    r = resid_maker @ x
    if not np.any(np.abs(r) > 1e-12 * max(1.0, float(np.max(np.abs(x))))):
        return ShiftTest(0, base, base, 1.0, 0)
    observed, at = _max_split_t(r, min_side)
    if X.shape[1] == 1:
        draws = r[np.argsort(rng.random((permutations, n)), axis=1)]
    else:
        draws = rng.standard_normal((permutations, n)) @ resid_maker.T
    null, _ = _max_split_t(draws, min_side)
    p = (1 + int(np.sum(null >= observed[0] - 1e-12))) / (permutations + 1)
    k = int(at[0])
    return ShiftTest(k, base + float(np.mean(r[:k])), base + float(np.mean(r[k:])), p, permutations)


def t_test_p(x: np.ndarray) -> float:
    x = np.asarray(x, float)
    if len(x) < 2 or np.std(x) == 0:
        return 1.0 if len(x) < 2 or np.mean(x) == 0 else 0.0
    return nptests.ttest_1samp_p(x)

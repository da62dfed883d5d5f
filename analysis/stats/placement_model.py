"""The code placement model: one process's estimate over its rounds (or blocks of code
placements), the mean over processes with the standard error the study's design gives it (an
additive model of the placements' effects, bench/base/placement_model.c's twin), the Welch
interval between two such means, and the test for a machine that changed state in the middle of a
study (a shift over process order)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import laws
from .bootstrap import DEFAULT_SEED
from .intervals import Interval


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
        half = laws.t_quantile(1 - (1 - level) / 2, self.df) * self.se
        return Interval(self.estimate, self.estimate - half, self.estimate + half, level, self.method)

    def prediction(self, level: float) -> Interval:
        """Where a re-run of the same design (as many processes, fresh placements and seeds) puts
        its estimate: its own error on top of this one's, sqrt(2) times the interval's."""
        if self.df < 1 or not np.isfinite(self.se):
            return Interval(self.estimate, float("-inf"), float("inf"), level, "prediction interval (one value)")
        half = laws.t_quantile(1 - (1 - level) / 2, self.df) * self.se * np.sqrt(2)
        return Interval(self.estimate, self.estimate - half, self.estimate + half, level,
                        f"prediction interval of a re-run with {self.processes} processes")

    def p_value(self) -> float:
        """Two-sided t test of a mean of 0."""
        if self.df < 1 or not np.isfinite(self.se):
            return 1.0
        if self.se == 0:
            return 1.0 if self.estimate == 0 else 0.0
        return float(min(1.0, 2 * laws.t_sf(abs(self.estimate) / self.se, self.df)))

    def processes_needed(self, effect: float, alpha: float = 0.05, power: float = 0.8, unit: int = 1) -> int:
        """Processes for this design to detect a relative change `effect` with the given power
        (normal approximation): with a placement model, whole blocks of `unit` processes (one per
        placement), and enough that the model keeps some degrees of freedom."""
        if self.processes < 2 or not np.isfinite(self.within_sd):
            return 0
        z = laws.norm_quantile(1 - alpha / 2) + laws.norm_quantile(power)
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


def welch(before: DesignEstimate, after: DesignEstimate, level: float, between: float = 0.0,
          between_df: float = float("inf")) -> tuple[float, float, float, float]:
    """Difference of two means (after - before: two sides of a before/after, two segments of a
    series) with a Welch t interval on their design errors (Satterthwaite's degrees of freedom
    from each side's) and its two-sided p. between: the sd of a study's mean from one study to the
    next (the host's drift: stats/pooling.py); two sides from two studies differ by it twice over,
    so 2 between^2 joins the variance, with between_df degrees of freedom (inf: a stated value)."""
    d = float(after.estimate - before.estimate)
    va, vb = after.se ** 2, before.se ** 2
    vt = 2 * between ** 2
    se = float(np.sqrt(va + vb + vt))
    if se == 0:
        return d, d, d, (1.0 if d == 0 else 0.0)
    dof = (va + vb + vt) ** 2 / (va ** 2 / max(after.df, 1) + vb ** 2 / max(before.df, 1)
                                 + (vt ** 2 / between_df if np.isfinite(between_df) else 0.0))
    q = laws.t_quantile(0.5 + level / 2, dof)
    p = min(1.0, 2 * laws.t_sf(abs(d) / se, dof))
    return d, d - q * se, d + q * se, p


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

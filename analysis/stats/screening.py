"""Which processes a verdict rests on: every process earns its weight.

A study's processes are its replicates, each weighing the same in the placement model's mean. A
process the machine starved (a competitor on the timed CPU took most of its time, so it got a few
rounds where the others got tens) or disturbed (one slow stretch moved its whole estimate, a 13x
spike) is no such replicate: on a busy host one or two of them moved an A/A verdict's interval to
±17 % and a headline from 1.0 to 0.675. Two rules, applied to each comparison's per-process
values (the log ratios the placement model is fitted to):

- **starved**: fewer paired rounds than a floor, the larger of MIN_ROUNDS and STARVED_SHARE of
  the median over the processes of its study, at most half that median (each process has the same
  time budget, so its rounds say how much of the CPU it got; rounds_floor);
- **disturbed**: its value is an outlier of the placement model. A Huber M-fit of the model
  (iteratively reweighted least squares, scale from the median absolute residual) names the
  candidates, those beyond CANDIDATE robust sd; each is then tested against the least-squares
  fit of the placement model to the processes not flagged: its studentized residual (deleted
  residual for a process in that fit, prediction residual for one outside it) against Student's t
  at DISTURBED_ALPHA / (2 n), a Bonferroni bound over the n processes, until the flagged set does
  not change (a process whose leaving would take a parameter's last support stays in the fit,
  where it is tested by its deleted residual). The robust fit keeps several disturbed processes from hiding each other (masking);
  the t test gives the rule a stated false-alarm rate: under Gaussian noise, a process of a clean
  study is flagged with probability at most DISTURBED_ALPHA / n, so a clean study loses any
  process at most DISTURBED_ALPHA of the time (tests/py/test_screening.py measures it).

A process dropped by either rule is named with why; the placement model is fitted to the others.
Dropping a process leaves its block with a placement missing; the model's effect-coded intercept
still weighs every placement of every code the same (its weights c satisfy c'X = e_0: each
placement's processes sum to the same weight), which is what the balance gave the plain mean, so
the estimate stays free of the placements' effects as long as every placement keeps a process
(levels_kept). Where the run itself marked a process dropped (a future C side re-runs a starved
process in its design slot and marks the first one), its mark is taken as it is."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import laws

# A process with fewer paired rounds than this never counts (one block of code placements with
# --code-rotation round; a median of fewer rounds is one batch's noise).
MIN_ROUNDS = 8
# ... nor one with fewer than this share of its study's median rounds per process: each process
# has the same time budget, so a quarter of the rounds is three quarters of its time taken away.
STARVED_SHARE = 0.25
# Huber's tuning constant: 95 % efficiency at the normal law.
HUBER_K = 1.345
# A process is a candidate for the disturbed test beyond this many robust sd of the Huber fit.
CANDIDATE = 2.5
# The disturbed test's false-alarm rate per clean study (Bonferroni over its processes).
DISTURBED_ALPHA = 0.01
# The rule never drops more than this share of a comparison's processes and still gives a verdict:
# where more were starved or disturbed, the study does not describe one state of the machine.
MAX_DROPPED_SHARE = 0.5
# The disturbed test runs on this many processes or more, as the placement model is fitted from two
# blocks of 8 on (compare.placement_levels): fewer give its scale too little to rest on, and a 1 %
# event of a handful of noisy processes (a test's synthetic file of 12 rounds over 8) would decide
# a verdict.
MIN_TESTED = 16


@dataclass(frozen=True)
class Screened:
    """The outcome of screen() for n processes, each array in their order."""

    kept: np.ndarray       # bool: counts in the verdict
    starved: np.ndarray    # bool: fewer rounds than its floor
    disturbed: np.ndarray  # bool: an outlier of the placement model
    marked: np.ndarray     # bool: dropped by the run itself (its file says so)
    floor: np.ndarray      # int: the rounds floor of each process's study
    residual: np.ndarray   # the studentized residual of the disturbed test (nan: not tested)
    fitted: np.ndarray     # what the model fitted to the kept processes expects of each (nan: not tested)

    @property
    def dropped(self) -> int:
        return int((~self.kept).sum())

    def too_many_dropped(self) -> bool:
        """More than MAX_DROPPED_SHARE of the processes dropped: no verdict from the rest."""
        n = len(self.kept)
        return n > 0 and self.dropped > MAX_DROPPED_SHARE * n


def rounds_floor(rounds: np.ndarray, studies: np.ndarray | None = None) -> np.ndarray:
    """Each process's floor of rounds, from the median m of the rounds of its study's processes
    (studies names each process's study; one study without): max(MIN_ROUNDS, STARVED_SHARE x m),
    but never above m / 2, so that a study whose processes all ran few rounds on purpose (--rounds
    3, a test's file) keeps them: only a process starved beside the others is left out."""
    rounds = np.asarray(rounds, float)
    studies = np.zeros(len(rounds), np.int64) if studies is None else np.asarray(studies)
    floor = np.empty(len(rounds), np.int64)
    for s in np.unique(studies):
        at = studies == s
        m = float(np.median(rounds[at]))
        floor[at] = min(max(MIN_ROUNDS, int(np.ceil(STARVED_SHARE * m))), int(np.ceil(m / 2)))
    return floor


def _median(a: np.ndarray) -> float:
    """np.median of a 1-D array of numbers, bit for bit (the middle value, or the mean of the two
    middle ones as np.mean takes it), without np.median's general-purpose wrapping: huber_fit takes
    some 70 medians of a few dozen values per fit, and that wrapping was a quarter of its time."""
    k = len(a) // 2
    if k == 0:
        return float(a[0]) if len(a) else float("nan")
    if len(a) % 2:
        return float(np.partition(a, k)[k])
    p = np.partition(a, (k - 1, k))
    return float((p[k - 1] + p[k]) / 2)


def _leverage(X: np.ndarray) -> np.ndarray:
    return np.clip(np.einsum("ij,jk,ik->i", X, np.linalg.pinv(X.T @ X), X), 0.0, 1.0 - 1e-9)


def _weighted_fit(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    sw = np.sqrt(w)
    return np.linalg.lstsq(X * sw[:, None], y * sw, rcond=None)[0]


def huber_fit(X: np.ndarray, y: np.ndarray, k: float = HUBER_K, iterations: int = 100) -> tuple[np.ndarray, float]:
    """Huber's M-estimate of y = X beta + e by iteratively reweighted least squares: the
    coefficients and the robust scale of the residuals (1.4826 times the median of |r_i| /
    sqrt(1 - h_ii), the leverages h of the design). It starts from least absolute deviations
    (reweighted, 30 steps) so that a few huge values do not steer where it starts; the design's
    leverages are bounded (every placement is drawn equally often), so the fit's breakdown is
    the M-estimator's own."""
    h = _leverage(X)
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    for _ in range(30):
        r = np.abs(y - X @ beta)
        typical = _median(r)
        if not typical > 0:
            break  # half the values fitted exactly: as far as least absolute deviations goes
        beta = _weighted_fit(X, y, typical / np.maximum(r, 1e-6 * typical))
    scale = 0.0
    for _ in range(iterations):
        r = y - X @ beta
        scale = 1.4826 * _median(np.abs(r) / np.sqrt(1 - h))
        if scale <= 0:
            break
        u = np.abs(r) / (scale * np.sqrt(1 - h))
        new = _weighted_fit(X, y, np.where(u <= k, 1.0, k / np.maximum(u, 1e-300)))
        done = np.max(np.abs(new - beta)) <= 1e-12 * (1 + np.max(np.abs(beta)))
        beta = new
        if done:
            break
    r = y - X @ beta
    return beta, 1.4826 * _median(np.abs(r) / np.sqrt(1 - h))


def _flag_keeping_rank(X: np.ndarray, wanted: np.ndarray, score: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The values of `wanted` to hold out of the least-squares fit, the largest |score| first (ties,
    which a fit that cannot tell two rows apart gives both, broken by the value's distance from the
    median), each only where the values left still determine every parameter of X (a balanced
    design can lose its rank with three rows taken out)."""
    full = int(np.linalg.matrix_rank(X))
    flagged = np.zeros(len(wanted), bool)
    far = np.abs(y - np.median(y))
    for i in sorted(np.flatnonzero(wanted), key=lambda j: (-round(float(abs(score[j])), 1), -far[j])):
        flagged[i] = True
        if int(np.linalg.matrix_rank(X[~flagged])) < full:
            flagged[i] = False
    return flagged


def outliers(X: np.ndarray, y: np.ndarray, alpha: float = DISTURBED_ALPHA,
             candidate: float = CANDIDATE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The disturbed test (the module's docstring): which values are outliers of the model X, each
    value's studentized residual against the least-squares fit to the values not flagged, and what
    that fit expects of each value."""
    n = len(y)
    nan = np.full(n, np.nan)
    beta, scale = huber_fit(X, y)
    if not scale > 0:
        return np.zeros(n, bool), nan, X @ beta
    u = (y - X @ beta) / (scale * np.sqrt(1 - _leverage(X)))
    flagged = _flag_keeping_rank(X, np.abs(u) > candidate, u, y)
    t, fitted = nan.copy(), X @ beta
    for _ in range(2 * n):
        clean = ~flagged
        Xc = X[clean]
        rank = int(np.linalg.matrix_rank(Xc)) if clean.any() else 0
        df = int(clean.sum()) - rank
        if df < 3:
            return np.zeros(n, bool), nan, X @ beta  # too few left to test against
        G = np.linalg.pinv(Xc.T @ Xc)
        b = G @ Xc.T @ y[clean]
        fitted = X @ b
        r = y - fitted
        q = np.einsum("ij,jk,ik->i", X, G, X)
        rss = float(r[clean] @ r[clean])
        hc = np.minimum(q[clean], 1 - 1e-9)
        t = np.empty(n)
        # in the fit: the deleted residual (externally studentized), df - 1 degrees of freedom
        s_del = np.sqrt(np.maximum((rss - r[clean] ** 2 / (1 - hc)) / (df - 1), 1e-300))
        t[clean] = r[clean] / (s_del * np.sqrt(1 - hc))
        # outside it: the prediction residual of a new value, df degrees of freedom
        t[~clean] = r[~clean] / (np.sqrt(max(rss / df, 1e-300)) * np.sqrt(1 + q[~clean]))
        crit = laws.t_quantile(1 - alpha / (2 * n), df - 1)
        new = _flag_keeping_rank(X, np.abs(t) > crit, t, y)
        if (new == flagged).all():
            break
        flagged = new
    return flagged, t, fitted


def screen(x: np.ndarray, rounds: np.ndarray, X: np.ndarray | None = None, studies: np.ndarray | None = None,
           marked: np.ndarray | None = None, alpha: float = DISTURBED_ALPHA) -> Screened:
    """The processes of one comparison screened: x their values (log ratios), rounds their paired
    rounds, X the placement model's design matrix (placement_columns; None: the mean alone),
    studies each one's study (its file), marked those the run itself dropped. A process is kept
    unless marked, starved or disturbed; the disturbed test runs on the processes neither marked
    nor starved, where there are at least MIN_TESTED."""
    x = np.asarray(x, float)
    n = len(x)
    marked = np.zeros(n, bool) if marked is None else np.asarray(marked, bool)
    floor = rounds_floor(rounds, studies) if n else np.zeros(0, np.int64)
    starved = (np.asarray(rounds) < floor) & ~marked
    disturbed = np.zeros(n, bool)
    residual, fitted = np.full(n, np.nan), np.full(n, np.nan)
    rest = ~marked & ~starved
    if X is None:
        X = np.ones((n, 1))
    if rest.sum() >= MIN_TESTED and rest.sum() > np.linalg.matrix_rank(X[rest]) + 3:
        flagged, t, f = outliers(X[rest], x[rest], alpha)
        disturbed[rest] = flagged
        residual[rest], fitted[rest] = t, f
    return Screened(rest & ~disturbed, starved, disturbed, marked, floor, residual, fitted)


def levels_kept(levels: np.ndarray, kept: np.ndarray) -> bool:
    """Whether the kept processes still hold every placement of every placed code (each column of
    levels that varies: a value it takes, -1 for none): the model's intercept then weighs every
    placement the same; a placement left without a process would drop out of that mean."""
    levels = np.asarray(levels)
    for f in range(levels.shape[1]):
        values = np.unique(levels[:, f])
        if len(values) < 2 or (values < 0).any():
            continue
        if not np.isin(values, levels[kept, f]).all():
            return False
    return True

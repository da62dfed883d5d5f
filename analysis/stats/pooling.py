"""Studies run at different times, pooled: one honest number.

One study's interval covers what varies inside it (each process's noise, how the placements met);
the host's state between studies (its load, the physical core under the vCPU) moves every process
of a study alike and is in no study's interval. Studies of the same code on the same host are
pooled with a between-study variance tau^2 (a random-effects model: study i's estimate y_i =
mu + u_i + e_i, u_i ~ N(0, tau^2) the study's drift, e_i ~ N(0, v_i) its own error, v_i its
interval's standard error squared):

- tau^2 by restricted maximum likelihood (REML; Viechtbauer, J. Educ. Behav. Stat. 2005, Fisher
  scoring), which is less biased downwards than DerSimonian-Laird's moment estimate for few
  studies; with fewer than MIN_STUDIES_TAU studies the data cannot tell tau at all, and a stated
  default is used (the caller's, from the host's history or stats/validated.py);
- mu with weights 1 / (v_i + tau^2), and its interval from Student's t with k - 1 degrees of
  freedom on the larger of the usual and the Hartung-Knapp-Sidik-Jonkman standard error (the
  "modified" HKSJ: Roever et al., BMC Med. Res. Methodol. 2015): the t law and the HKSJ scale keep
  the interval's coverage near its level for few studies, where the normal interval on a
  REML tau^2 is too narrow, and the max keeps it from being narrower than the fixed-effect one;
- a later study's prediction interval: where a study run later would put its estimate, mu's
  own error, tau^2 and that study's own v (the median of the v_i: a study of the same design),
  with Student's t at k - 1 degrees of freedom (Higgins, Thompson and Spiegelhalter, JRSS A 2009
  use k - 2 for the true effect of a new study; the study's own error, which is well known, is
  added here, and k - 1 keeps two studies usable).

tests/py/test_pooling.py checks on simulated series with a known tau that the prediction interval
holds a later study's estimate at least 90 % of the time, and the interval mu."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import laws

# With fewer studies than this, tau is not estimated from them (REML on two values is 0 or
# anything): the default the caller gives is used, and named.
MIN_STUDIES_TAU = 3


@dataclass(frozen=True)
class Pooled:
    """k studies pooled (log scale)."""

    k: int
    estimate: float       # mu
    se: float             # mu's standard error (modified HKSJ)
    df: int               # k - 1
    tau: float            # the between-study sd used
    tau_measured: float   # REML's estimate from these studies (nan with fewer than MIN_STUDIES_TAU)
    tau_source: str       # where tau comes from, in words
    study_se: float       # a later study's own standard error (the median of the studies')
    known_tau: bool = False  # tau a stated default, not estimated: mu's error from the normal law

    def _quantile(self, level: float) -> float:
        if self.known_tau:
            return laws.norm_quantile(0.5 + level / 2)
        return laws.t_quantile(0.5 + level / 2, self.df) if self.df >= 1 else float("inf")

    def interval(self, level: float) -> tuple[float, float]:
        q = self._quantile(level)
        return self.estimate - q * self.se, self.estimate + q * self.se

    def prediction(self, level: float) -> tuple[float, float]:
        """Where a later study's estimate falls, at `level`."""
        half = self._quantile(level) * float(np.sqrt(self.se ** 2 + self.tau ** 2 + self.study_se ** 2))
        return self.estimate - half, self.estimate + half

    def p_value(self) -> float:
        """Two-sided test of mu = 0 (t, or normal where tau is a stated default)."""
        if not self.se > 0 or (self.df < 1 and not self.known_tau):
            return 1.0
        z = abs(self.estimate) / self.se
        if self.known_tau:
            return float(min(1.0, 2 * laws.t_sf(z, 1e9)))
        return float(min(1.0, 2 * laws.t_sf(z, self.df)))


def reml_tau2(y: np.ndarray, v: np.ndarray, iterations: int = 200) -> float:
    """The REML estimate of the between-study variance of estimates y with within-study variances
    v (Fisher scoring from DerSimonian-Laird's moment estimate, truncated at 0)."""
    y, v = np.asarray(y, float), np.asarray(v, float)
    k = len(y)
    if k < 2:
        return 0.0
    w = 1 / v
    mu = float(np.sum(w * y) / np.sum(w))
    q = float(np.sum(w * (y - mu) ** 2))
    tau2 = max(0.0, (q - (k - 1)) / (np.sum(w) - np.sum(w ** 2) / np.sum(w)))  # DerSimonian-Laird
    for _ in range(iterations):
        w = 1 / (v + tau2)
        mu = float(np.sum(w * y) / np.sum(w))
        new = float(np.sum(w ** 2 * ((y - mu) ** 2 - v)) / np.sum(w ** 2) + 1 / np.sum(w))
        new = max(0.0, new)
        if abs(new - tau2) <= 1e-14 + 1e-10 * tau2:
            tau2 = new
            break
        tau2 = new
    return tau2


def pool(y: np.ndarray, se: np.ndarray, tau_default: float = float("nan"), default_source: str = "",
         tau_floor: float = 0.0, floor_source: str = "") -> Pooled:
    """Estimates y with standard errors se (one per study, log scale) pooled with a between-study
    sd: REML's from the studies where there are at least MIN_STUDIES_TAU, else tau_default (named
    by default_source); never below tau_floor (named by floor_source)."""
    y, se = np.asarray(y, float), np.asarray(se, float)
    k = len(y)
    v = np.maximum(se ** 2, 1e-30)
    measured = float(np.sqrt(reml_tau2(y, v))) if k >= MIN_STUDIES_TAU else float("nan")
    if np.isfinite(measured):
        tau, source = measured, f"REML over these {k} studies"
    elif np.isfinite(tau_default):
        tau, source = tau_default, default_source or "a stated default"
    else:
        tau, source = 0.0, "none: too few studies and no default"
    if tau < tau_floor:
        tau, source = tau_floor, (f"{source} ({tau:.2%}), raised to {tau_floor:.2%}, "
                                  f"{floor_source or 'the floor'}")
    w = 1 / (v + tau ** 2)
    mu = float(np.sum(w * y) / np.sum(w))
    fixed = 1 / float(np.sum(w))
    known = not np.isfinite(measured) and np.isfinite(tau_default)
    if known:  # tau stated, not estimated: the variances are known, mu's error is the fixed one
        return Pooled(k, mu, float(np.sqrt(fixed)), k - 1, tau, measured, source, float(np.sqrt(np.median(v))), True)
    hksj = float(np.sum(w * (y - mu) ** 2) / ((k - 1) * np.sum(w))) if k > 1 else float("inf")
    return Pooled(k, mu, float(np.sqrt(max(fixed, hksj))), k - 1, tau, measured, source,
                  float(np.sqrt(np.median(v))))


def between_sd(y: np.ndarray, se: np.ndarray) -> float:
    """The between-study sd of a series of studies of one code (REML), nan with fewer than
    MIN_STUDIES_TAU: what a host's own history says its drift is."""
    y, se = np.asarray(y, float), np.asarray(se, float)
    ok = np.isfinite(y) & np.isfinite(se) & (se > 0)
    if ok.sum() < MIN_STUDIES_TAU:
        return float("nan")
    return float(np.sqrt(reml_tau2(y[ok], se[ok] ** 2)))

"""Power: the smallest change a set of rounds or processes detects, and how many rounds or
processes a given change needs (normal approximations)."""
from __future__ import annotations

import numpy as np

from . import laws
from .robust import robust_sd


# Asymptotic efficiency of the sign test relative to the t-test for normal data (2/pi).
SIGN_TEST_EFFICIENCY = 2 / np.pi


def minimum_detectable_effect(d: np.ndarray, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest relative change (e.g. 0.01 = 1 %) the sign test on these n paired log ratios
    detects with the given power: (z_{1-a/2} + z_power) * sigma / sqrt(n * efficiency)."""
    d = np.asarray(d, float)
    if len(d) < 2:
        return float("inf")
    sigma = robust_sd(d)
    z = laws.norm_quantile(1 - alpha / 2) + laws.norm_quantile(power)
    return float(np.expm1(z * sigma / np.sqrt(len(d) * SIGN_TEST_EFFICIENCY)))


def rounds_needed(d: np.ndarray, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Rounds for the sign test to detect a relative change `effect` with the given power."""
    sigma = robust_sd(np.asarray(d, float))
    z = laws.norm_quantile(1 - alpha / 2) + laws.norm_quantile(power)
    return int(np.ceil((z * sigma / np.log1p(effect)) ** 2 / SIGN_TEST_EFFICIENCY))


def processes_needed(x: np.ndarray, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Processes for a t test over per-process values with this spread to detect a relative change
    `effect` with the given power (normal approximation, at least 2)."""
    x = np.asarray(x, float)
    if len(x) < 2:
        return 0
    sigma = float(np.std(x, ddof=1))
    z = laws.norm_quantile(1 - alpha / 2) + laws.norm_quantile(power)
    return max(2, int(np.ceil((z * sigma / np.log1p(effect)) ** 2)))

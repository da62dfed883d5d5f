"""Multiplicity adjustments of a family of p-values: Holm (family-wise error) and
Benjamini-Hochberg (false discovery rate), by the names --adjust takes."""
from __future__ import annotations

from typing import Callable

import numpy as np


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

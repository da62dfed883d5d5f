"""Run diagnostics: drift over time, autocorrelation, and position / carry-over effects of the
interleaved design. Each returns plain numbers a report or a test can check."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import nptests, stats
from .load import measured


@dataclass
class VariantDiagnostics:
    variant: str
    batches: int
    drift_rho: float          # Spearman correlation of per-call time with time
    drift_p: float
    drift_per_minute: float   # Theil-Sen slope, relative change per minute
    lag1: float               # autocorrelation of consecutive batches of this variant
    position_p: float         # Kruskal-Wallis: does the place in the round matter?
    position_effect: dict[int, float]  # median relative deviation from the round's median, by position
    carryover_p: float        # Kruskal-Wallis: does the previous variant in the round matter?

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _relative_to_round(df: pd.DataFrame) -> pd.Series:
    """log(per-call time / the variant's median per-call time): removes the variant's level, keeps
    round-to-round and position structure. The round's own draw of calls is removed by dividing by
    the round's median over variants of that ratio."""
    lvl = df.groupby("variant", observed=True)["ns_per_call"].transform("median")
    r = np.log(df["ns_per_call"] / lvl)
    return r - r.groupby([df["process"], df["round"]]).transform("median")


def diagnose(df: pd.DataFrame) -> list[VariantDiagnostics]:
    m = measured(df).copy()
    if m.empty:
        return []
    m["rel"] = _relative_to_round(m)
    m = m.sort_values(["process", "round", "position"])
    m["prev"] = m.groupby(["process", "round"])["variant"].shift(1).astype("string").fillna("(first)")
    out = []
    for v, g in m.groupby("variant", observed=True):
        t = g["t_start_s"].to_numpy()
        y = g["ns_per_call"].to_numpy()
        if len(g) >= 3 and np.ptp(t) > 0:
            rho, p = nptests.spearman(t, y)
            slope = nptests.theil_slope(np.log(y), t / 60.0) if len(g) <= 1000 else _theil_subsample(t, y)
        else:
            rho, p, slope = float("nan"), float("nan"), float("nan")
        pos_p = _kruskal_p([grp["rel"].to_numpy() for _, grp in g.groupby("position")])
        co_p = _kruskal_p([grp["rel"].to_numpy() for _, grp in g.groupby("prev")])
        out.append(VariantDiagnostics(
            variant=str(v), batches=len(g), drift_rho=float(rho), drift_p=float(p),
            drift_per_minute=float(np.expm1(slope)) if np.isfinite(slope) else float("nan"),
            lag1=stats.lag1_autocorrelation(y), position_p=pos_p,
            position_effect={int(k): float(np.expm1(np.median(grp["rel"]))) for k, grp in g.groupby("position")},
            carryover_p=co_p))
    return out


def _kruskal_p(groups: list[np.ndarray]) -> float:
    """Kruskal-Wallis p-value; nan where the test is undefined: fewer than two groups, an empty
    group, or every value the same (a clock too coarse to tell the batches apart), which scipy
    refuses with an error."""
    groups = [x[np.isfinite(x)] for x in groups]
    if len(groups) < 2 or any(len(x) == 0 for x in groups) or np.ptp(np.concatenate(groups)) == 0:
        return float("nan")
    return nptests.kruskal_p(groups)


def _theil_subsample(t: np.ndarray, y: np.ndarray, n: int = 500) -> float:
    """Theil-Sen is quadratic; on long runs estimate it from an evenly spaced subsample (500 points:
    124,750 pairs, a quarter of the cost of 1,000, for a slope the table prints to 3 digits)."""
    idx = np.linspace(0, len(t) - 1, n).astype(int)
    return nptests.theil_slope(np.log(y[idx]), t[idx] / 60.0)


def diagnostics_frame(diags: list[VariantDiagnostics]) -> pd.DataFrame:
    rows = []
    for d in diags:
        row = d.as_dict()
        row["position_effect"] = ", ".join(f"{k}:{v:+.2%}" for k, v in sorted(d.position_effect.items()))
        rows.append(row)
    return pd.DataFrame(rows)

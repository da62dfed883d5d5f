"""Run diagnostics a reader can act on: for each variant, the effects that could make its numbers
wrong, each as a relative size with its interval and a plain verdict.

- drift: how much the variant's time per call changed from the first to the last third of a
  process's rounds. Rounds pair the variants, so a drift the variants share leaves the ratios as
  they are; one variant's own drift does not.
- position: whether the variant is slower at one place in the round (first, say) than on average.
  Positions rotate over the rounds, so such an effect is spread evenly and the ratio is unaffected;
  it is worth knowing because it shows state carried between calls.
- carry-over: whether the variant is slower after one particular other variant than on average.
- autocorrelation: whether consecutive rounds' relative times move together, which makes an
  interval over rounds too narrow (the process-level intervals the verdicts use are not affected).

Position and carry-over are read on the variant's time relative to the other variants of the same
round (the round's draw of calls and the machine's state at that moment cancel); drift on its own
time (a variant that drifts alone pulls the others' relative times the other way by 1/(k-1) of
its drift, k variants in the round: read the largest first). A quantity is flagged only when its interval excludes no effect AND its size passes the
bound below, so a long run's tiny but significant effects stay quiet."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..io.load import measured
from .intervals import sign_test_ci, t_interval

# A change over a process, or an effect of position or predecessor, smaller than this is not
# flagged however significant: below the default equivalence margin (1 %) for drift, half of it
# for the rotating effects (they average out of the ratio, so only a larger one says much).
DRIFT_BOUND = 0.01
ROTATING_BOUND = 0.005
# |lag-1 autocorrelation| above this makes a rounds-level interval noticeably too narrow (the
# variance of a mean grows by about (1 + r) / (1 - r): 1.5x at 0.2).
LAG1_BOUND = 0.2
LEVEL = 0.95


@dataclass(frozen=True)
class Effect:
    """A relative effect (0.006: 0.6 % slower) with its interval; `where` names the position or the
    predecessor it is about ("" for drift)."""
    estimate: float
    low: float
    high: float
    where: str = ""

    def shown(self) -> str:
        if not np.isfinite(self.estimate):
            return "not measured"
        at = f"{self.where}: " if self.where else ""
        ci = f" [{100 * self.low:+.2f}, {100 * self.high:+.2f}]" if np.isfinite(self.low) and np.isfinite(self.high) else ""
        return f"{at}{100 * self.estimate:+.2f} %{ci}"

    def flagged(self, bound: float) -> bool:
        return (np.isfinite(self.estimate) and abs(self.estimate) >= bound
                and (self.low > 0 or self.high < 0))


@dataclass
class VariantDiagnostics:
    variant: str
    batches: int
    drift: Effect       # change from the first to the last third of a process's rounds
    own_drift: Effect   # the same change relative to the round's other variants (what moves a ratio)
    position: Effect    # the position with the largest effect
    carryover: Effect   # the predecessor with the largest effect
    lag1: float         # autocorrelation of consecutive relative times within a process

    @property
    def verdicts(self) -> list[str]:
        """One plain sentence per flagged quantity; empty: nothing found."""
        return verdicts(self)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "verdicts": self.verdicts}


def _relative(m: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """(z, rel): z = ln(time per call) less the variant's median (its level removed); rel = z less
    the mean z of the round's other variants (the round's calls and moment removed; with one
    variant, z)."""
    lt = np.log(m["ns_per_call"].astype(float))
    z = lt - lt.groupby(m["variant"], observed=True).transform("median")
    key = [m["process"], m["round"]]
    total = z.groupby(key).transform("sum")
    count = z.groupby(key).transform("count")
    others = (total - z) / (count - 1).where(count > 1)
    return z, (z - others.fillna(0.0))


def _largest(rel: np.ndarray, groups: np.ndarray, centre: float | None = None) -> Effect:
    """The group whose median relative time differs most from the variant's median, with the
    sign-test interval of that group's median (the overall median taken as known). The interval is
    Bonferroni's over the groups: the largest of several is picked, and at 95 % each, one of seven
    would exclude no effect by chance about a third of the time."""
    centre = float(np.median(rel)) if centre is None else centre
    best = Effect(float("nan"), float("nan"), float("nan"))
    names = pd.unique(groups)
    level = 1 - (1 - LEVEL) / max(1, len(names))
    for g in names:
        d = rel[groups == g] - centre
        if len(d) < 6:
            continue
        ci = sign_test_ci(d, level)
        e = Effect(float(np.expm1(ci.estimate)), float(np.expm1(ci.low)), float(np.expm1(ci.high)), str(g))
        if not np.isfinite(best.estimate) or abs(e.estimate) > abs(best.estimate):
            best = e
    return best


def _drift(g: pd.DataFrame, z: np.ndarray) -> Effect:
    """ln time's median in the last third of each process's measured rounds less the first third's:
    over processes a t interval when there are three or more, else the sign-test interval of the
    last third's values against the first third's median."""
    per_process, pooled = [], []
    for _, idx in g.groupby("process").indices.items():
        order = idx[np.argsort(g["t_start_s"].to_numpy()[idx], kind="stable")]
        k = len(order) // 3
        if k < 3:
            continue
        first, last = z[order[:k]], z[order[-k:]]
        per_process.append(float(np.median(last) - np.median(first)))
        pooled.append(last - np.median(first))
    if not per_process:
        return Effect(float("nan"), float("nan"), float("nan"))
    ci = t_interval(np.array(per_process), LEVEL) if len(per_process) >= 3 else \
        sign_test_ci(np.concatenate(pooled), LEVEL)
    return Effect(float(np.expm1(ci.estimate)), float(np.expm1(ci.low)), float(np.expm1(ci.high)))


def _lag1(g: pd.DataFrame, rel: np.ndarray) -> float:
    """Lag-1 autocorrelation of the relative times in round order, pooled over processes (each
    process's series centred on its own median, so process offsets do not read as correlation)."""
    xs, ys = [], []
    for _, idx in g.groupby("process").indices.items():
        order = idx[np.argsort(g["round"].to_numpy()[idx], kind="stable")]
        r = rel[order] - np.median(rel[order])
        xs.append(r[:-1])
        ys.append(r[1:])
    x, y = np.concatenate(xs), np.concatenate(ys)
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def _rotating(e: Effect, what: str, where: str, why: str) -> str:
    """A flagged position or carry-over effect in a sentence: where, how much, which way, and why
    the ratio is unaffected (what rotates over the rounds)."""
    way = "slower" if e.estimate > 0 else "faster"
    return f"{what}: {where} it is {abs(100 * e.estimate):.2f} % {way} than on average{why}"


def verdicts(d: VariantDiagnostics) -> list[str]:
    """Plain sentences for what is flagged, each with what it means for the ratios."""
    out = []
    if d.own_drift.flagged(DRIFT_BOUND):
        way = "rose" if d.own_drift.estimate > 0 else "fell"
        out.append(f"drift: relative to the round's other variants its times {way} "
                   f"{abs(100 * d.own_drift.estimate):.2f} % {d.own_drift.shown()} over a process, so its ratios "
                   f"depend on when in a process they were timed")
    elif d.drift.flagged(DRIFT_BOUND):
        way = "rose" if d.drift.estimate > 0 else "fell"
        out.append(f"drift: its times {way} {abs(100 * d.drift.estimate):.2f} % over a process, as the other "
                   f"variants' did (relative to them it held within ±{100 * DRIFT_BOUND:g} %): rounds pair them, so "
                   f"the ratios are unaffected")
    if d.position.flagged(ROTATING_BOUND):
        out.append(_rotating(d.position, "position", f"at position {d.position.where}",
                             "; positions rotate over the rounds, so the ratio is unaffected"))
    if d.carryover.flagged(ROTATING_BOUND):
        out.append(_rotating(d.carryover, "carry-over", f"after {d.carryover.where}",
                             " (state left by that variant); predecessors rotate too, so the ratio is unaffected"))
    if abs(d.lag1) > LAG1_BOUND:
        out.append(f"autocorrelation: consecutive rounds move together ({d.lag1:+.2f}), so an interval over one "
                   f"process's rounds is too narrow; the verdicts' intervals are over processes and unaffected")
    return out


def diagnose(df: pd.DataFrame) -> list[VariantDiagnostics]:
    m = measured(df)
    m = m[m["ns_per_call"] > 0].sort_values(["process", "round", "position"]).reset_index(drop=True)
    if m.empty:
        return []
    z, rel = _relative(m)
    # the first of a round has no predecessor in it: that is the position effect, not a carry-over
    prev = m.groupby(["process", "round"])["variant"].shift(1).astype("string").fillna("").to_numpy()
    out = []
    for v, idx in m.groupby("variant", observed=True).indices.items():
        g = m.iloc[idx]
        r = rel.to_numpy()[idx]
        after = prev[idx] != ""
        out.append(VariantDiagnostics(
            variant=str(v), batches=len(g), drift=_drift(g, z.to_numpy()[idx]), own_drift=_drift(g, r),
            position=_largest(r, g["position"].to_numpy()),
            carryover=_largest(r[after], prev[idx][after], centre=float(np.median(r))), lag1=_lag1(g, r)))
    return out


def diagnostics_frame(diags: list[VariantDiagnostics]) -> pd.DataFrame:
    """One row per variant: each quantity as a relative effect with its 95 % interval, and the
    verdict ("no effect found" when nothing is flagged)."""
    return pd.DataFrame([{
        "variant": d.variant,
        "batches": d.batches,
        "drift over a process": d.drift.shown(),
        "relative to the others": d.own_drift.shown(),
        "largest position effect": d.position.shown(),
        "largest carry-over": d.carryover.shown(),
        "lag-1 autocorrelation": f"{d.lag1:+.2f}",
        "verdict": "; ".join(d.verdicts) if d.verdicts else "no effect found",
    } for d in diags])


EXPLANATION = (
    "Each effect is relative (+0.60 %: 0.6 % slower) with its 95 % interval (position and "
    "carry-over: simultaneous over the positions or predecessors, the largest being shown). Drift: the change "
    "from the first to the last third of a process's rounds. Position and carry-over: the place in "
    "the round, or the variant before, at which this variant's time relative to the round's other "
    "variants differs most from its average. A quantity is named in the verdict only when its "
    f"interval excludes no effect and it is at least {100 * DRIFT_BOUND:g} % (drift) or "
    f"{100 * ROTATING_BOUND:g} % (position, carry-over); autocorrelation when beyond ±{LAG1_BOUND:g}.")

"""Where the time goes (`memfbench run --by-class`): per size class, each variant's ratio to the
baseline, and the whole distribution's difference decomposed into per-class contributions.

A class's batches replay only its sizes, in the same rounds as the whole distribution's batches,
so every class of every variant is paired with the baseline's batch of that class and round. Per
process (the replicate, as in every verdict) and per round:

- the whole difference  D = t_v - t_b  (ns per call, whole-distribution batches);
- class k's contribution  C_k = p_k (t_v,k - t_b,k), with p_k the whole distribution's share of
  calls in class k: if every call cost what it costs among calls of its own class, D would be the
  sum of the C_k;
- the residual  R = D - sum_k C_k: what timing the classes apart misses. In a class the sizes are
  alike, so branch predictors learn them and caches hold their working set; in the whole
  distribution calls of every class follow one another. R is that mixing effect, shown, not
  hidden.

Each term's per-process value is the median over the process's measured rounds of its per-round
paired difference (R is then D - sum C_k of those medians, so the terms add up exactly in every
process); over processes their mean with a t interval. One process: the rounds are the units
(mean and t interval over rounds, covering that process's layout only).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..io.load import Run, measured
from ..stats.intervals import t_interval
from .compare import Comparison, adjust_family, compare_one, marked_processes, paired_rounds


@dataclass
class SizeClass:
    index: int          # 1-based, as the file's size_class column
    lo: int
    hi: int
    p: float            # share of the whole distribution's calls
    mean_size: float

    @property
    def label(self) -> str:
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


@dataclass
class Term:
    """One term of the decomposition, in ns per call and as a share of the baseline's time."""
    name: str                      # "class 17-32", "residual", "whole"
    ns: float                      # mean over processes (or rounds) of the per-unit value
    low: float
    high: float
    pct_of_baseline: float         # ns / the baseline's whole-distribution ns per call, in percent


@dataclass
class ClassResult:
    size_class: SizeClass
    comparison: Comparison         # the class's ratio to the baseline (paired rounds, as any verdict)
    baseline_ns_per_call: float    # the baseline's median per call in this class
    baseline_share: float          # p_k t_b,k / sum_j p_j t_b,j: the class's share of the baseline's time
    contribution: Term


@dataclass
class Decomposition:
    variant: str
    baseline: str
    function: str
    distribution: str
    units: str                     # "processes" or "rounds (one process)"
    n_units: int
    baseline_ns_per_call: float    # whole distribution
    whole: Term
    classes: list[ClassResult]
    residual: Term
    notes: list[str] = field(default_factory=list)
    measure: str = "throughput"    # the run's: throughput or latency

    def rows(self) -> list[dict[str, Any]]:
        """One row per class, then the residual and the whole, for tables and CSV."""
        out = []
        for c in self.classes:
            k, cmp = c.size_class, c.comparison
            out.append({"variant": self.variant, "class": k.label, "calls_pct": 100 * k.p,
                        "baseline_time_pct": 100 * c.baseline_share, "baseline_ns": c.baseline_ns_per_call,
                        "ratio": cmp.ratio, "ci_low": cmp.ci_low, "ci_high": cmp.ci_high, "verdict": cmp.verdict,
                        "contribution_ns": c.contribution.ns, "contribution_low": c.contribution.low,
                        "contribution_high": c.contribution.high,
                        "contribution_pct": c.contribution.pct_of_baseline})
        for t in (self.residual, self.whole):
            out.append({"variant": self.variant, "class": t.name, "calls_pct": float("nan"),
                        "baseline_time_pct": float("nan"), "baseline_ns": float("nan"), "ratio": float("nan"),
                        "ci_low": float("nan"), "ci_high": float("nan"), "verdict": "",
                        "contribution_ns": t.ns, "contribution_low": t.low, "contribution_high": t.high,
                        "contribution_pct": t.pct_of_baseline})
        return out

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for c, cd in zip(self.classes, d["classes"]):
            cd["comparison"] = c.comparison.as_dict()
        return d


def size_classes(run: Run) -> list[SizeClass]:
    """The classes the run timed ([] without --by-class)."""
    block = run.doc.get("by_class")
    if not block:
        return []
    return [SizeClass(int(c["index"]), int(c["lo"]), int(c["hi"]), float(c["p"]), float(c["mean_size"]))
            for c in block["classes"]]


def _per_call(df: pd.DataFrame, variant: str, baseline: str) -> pd.DataFrame:
    """Paired rounds of one class (or the whole): per (process, round) both per-call times."""
    return paired_rounds(df, variant, baseline)[["process", "round", "ns_per_call_v", "ns_per_call_b"]]


def _term(name: str, values: np.ndarray, level: float, scale: float) -> Term:
    ci = t_interval(values, level)
    return Term(name, ci.estimate, ci.low, ci.high, 100 * ci.estimate / scale if scale > 0 else float("nan"))


def decompose(run: Run, variant: str, baseline: str | None = None, level: float = 0.95,
              margin: float = 0.01) -> Decomposition:
    """The decomposition of one variant's difference from the baseline (see the module's
    docstring). Raises ValueError when the run has no size classes or lacks the variant."""
    classes = size_classes(run)
    if not classes:
        raise ValueError(f"{run.path}: no size classes (run memfbench with --by-class)")
    base = baseline or run.baseline
    for name in (variant, base):
        if name not in run.variants:
            raise ValueError(f"variant '{name}' is not in {run.path} (have: {', '.join(run.variants)})")
    whole = _per_call(run.batches, variant, base)
    per_class = {k.index: _per_call(run.class_batches[run.class_batches["size_class"] == k.index], variant, base)
                 for k in classes}
    # the processes the run marked dropped (a starved one whose slot ran again) are left out, as
    # compare and ab's prediction leave them out: on a loaded machine the parts did not add up to
    # the prediction they split
    dropped = list(marked_processes([run]))
    if dropped:
        whole = whole[~whole["process"].isin(dropped)]
        per_class = {k: f[~f["process"].isin(dropped)] for k, f in per_class.items()}
    # A unit is a process (several) or a round (one process): the keys every table shares.
    procs = np.unique(whole["process"])
    by_process = len(procs) > 1
    key = ["process"] if by_process else ["process", "round"]

    def unit_values(frame: pd.DataFrame, weight: float) -> pd.Series:
        d = weight * (frame["ns_per_call_v"] - frame["ns_per_call_b"])
        return d.groupby([frame[k] for k in key]).median()

    d_whole = unit_values(whole, 1.0)
    contrib = {k.index: unit_values(per_class[k.index], k.p).reindex(d_whole.index) for k in classes}
    table = pd.DataFrame({"whole": d_whole, **{f"c{k}": v for k, v in contrib.items()}}).dropna()
    if len(table) < 2:
        raise ValueError(f"{run.path}: fewer than 2 {'processes' if by_process else 'rounds'} with every class "
                         f"measured for {variant} and {base}")
    residual = table["whole"] - table[[f"c{k.index}" for k in classes]].sum(axis=1)
    b_whole = float(measured(run.batches).query("variant == @base")["ns_per_call"].median())
    cm = measured(run.class_batches)
    b_class = {k.index: float(cm[(cm["size_class"] == k.index) & (cm["variant"] == base)]["ns_per_call"].median())
               for k in classes}
    total_b = sum(k.p * b_class[k.index] for k in classes)
    comps = []
    for k in classes:
        frame = run.class_batches[run.class_batches["size_class"] == k.index]
        comps.append(compare_one(frame, run.path, run.function, f"{run.distribution} [{k.label}]", variant, base,
                                 level, margin, allow_single_process=True))
    adjust_family(comps, level)
    results = [ClassResult(k, c, b_class[k.index], k.p * b_class[k.index] / total_b if total_b > 0 else float("nan"),
                           _term(f"class {k.label}", table[f"c{k.index}"].to_numpy(), level, b_whole))
               for k, c in zip(classes, comps)]
    units = "processes" if by_process else "rounds (one process: its layout only)"
    dec = Decomposition(variant, base, run.function, run.distribution, units, len(table), b_whole,
                        _term("whole", table["whole"].to_numpy(), level, b_whole), results,
                        _term("residual", residual.to_numpy(), level, b_whole), measure=run.measure)
    if not by_process:
        dec.notes.append("one process: intervals over rounds cover this process's layout only")
    return dec


def decompose_run(run: Run, baseline: str | None = None, level: float = 0.95,
                  margin: float = 0.01) -> list[Decomposition]:
    """Every compared variant (not the baseline, not the harness's noop)."""
    base = baseline or run.baseline
    return [decompose(run, v, base, level, margin) for v in run.variants
            if v != base and v not in run.harness_variants]


def decomposition_lines(dec: Decomposition) -> list[str]:
    """A terminal table: one line per class, then the residual and the whole."""
    head = (f"{dec.variant} vs {dec.baseline} on {dec.distribution} ({dec.measure}): whole difference "
            f"{dec.whole.ns:+.3f} ns/call ({dec.whole.pct_of_baseline:+.2f} % of {dec.baseline}'s "
            f"{dec.baseline_ns_per_call:.3g} ns), {round(100 * dec.classes[0].comparison.level)}% CI "
            f"[{dec.whole.low:+.3f}, {dec.whole.high:+.3f}] over {dec.n_units} {dec.units}")
    lines = [head, f"  {'class':>12} {'calls %':>8} {'base time %':>11} {'ratio':>7} {'ratio CI':>17} "
                   f"{'verdict':>12} {'contribution ns':>16} {'CI':>19} {'% of base':>9}"]
    for c in dec.classes:
        k, cmp, t = c.size_class, c.comparison, c.contribution
        lines.append(f"  {k.label:>12} {100 * k.p:8.2f} {100 * c.baseline_share:11.2f} {cmp.ratio:7.3f} "
                     f"[{cmp.ci_low:6.3f}, {cmp.ci_high:6.3f}] {cmp.verdict:>12} {t.ns:+16.3f} "
                     f"[{t.low:+7.3f}, {t.high:+7.3f}] {t.pct_of_baseline:+9.2f}")
    for t in (dec.residual, dec.whole):
        lines.append(f"  {t.name:>12} {'':8} {'':11} {'':7} {'':17} {'':>12} {t.ns:+16.3f} "
                     f"[{t.low:+7.3f}, {t.high:+7.3f}] {t.pct_of_baseline:+9.2f}")
    return lines

"""Size sweeps (`memfbench sweep SIZES`): time per call against size, each size its own batches,
every variant interleaved per size in every round.

Per point and variant: the time per call (each process's median over its measured rounds, then
the mean over processes in log space with a t interval, as a verdict's unit), bytes per ns at that
time, and the ratio to the baseline in the same rounds (compare.compare_one on the point's
batches: paired, over processes, Holm over the points of a variant).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.load import Run, measured
from ..stats.intervals import t_interval
from .compare import adjust_family, compare_one

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class SweepPoint:
    variant: str
    size_class: int      # the samples' size_class of this point
    size: int            # the point's nominal size
    lo: int              # sizes its calls draw (lo == hi == size when predictable)
    hi: int
    mean_size: float
    ns_per_call: float   # exp(mean over processes of ln(process median)); one process: its median
    ns_low: float
    ns_high: float
    bytes_per_ns: float  # mean_size / ns_per_call
    ratio: float         # to the baseline, paired by round (nan for the baseline itself)
    ratio_low: float
    ratio_high: float
    verdict: str
    processes: int


def is_sweep(run: Run) -> bool:
    return bool(run.doc.get("sweep"))


def describe(run: Run) -> str:
    """One line: how the sweep drew sizes, and what it measured."""
    s = run.doc["sweep"]
    how = {"predictable": "each point one size, every call (predictable)",
           "spread": f"each call's size drawn within ±{s.get('spread_percent')} % of the point (unpredictable)",
           "class": "each call's size drawn within the point's power-of-two class (unpredictable)"}[s["mode"]]
    align = ", ".join(f"{k.split('_')[1]} aligned to {s[k]}" for k in ("align_src", "align_dst") if s.get(k))
    return f"{how}; {run.measure}" + (f"; {align}" if align else "; any offsets")


def sweep_points(run: Run, baseline: str | None = None, level: float = 0.95,
                 margin: float = 0.01) -> list[SweepPoint]:
    """Every point of every variant, in size order."""
    if not is_sweep(run):
        raise ValueError(f"{run.path}: not a sweep (memfbench sweep SIZES makes one)")
    base = baseline or run.baseline
    if base not in run.variants:
        raise ValueError(f"baseline '{base}' is not a variant of {run.path} (have: {', '.join(run.variants)})")
    classes = run.doc["by_class"]["classes"]
    sizes = run.doc["sweep"]["sizes"]
    cb = run.class_batches
    m = measured(cb)
    out: list[SweepPoint] = []
    for v in run.variants:
        rows = []
        comps = []
        for c, size in zip(classes, sizes):
            k = int(c["index"])
            g = m[(m["size_class"] == k) & (m["variant"] == v) & (m["ns_per_call"] > 0)]
            per_process = np.log(g.groupby("process")["ns_per_call"].median().to_numpy())
            if len(per_process) > 1:
                ci = t_interval(per_process, level)
                ns, lo, hi = np.exp([ci.estimate, ci.low, ci.high])
            else:
                ns = float(np.exp(per_process[0])) if len(per_process) else float("nan")
                lo = hi = float("nan")
            cmp = None
            if v != base:
                cmp = compare_one(cb[cb["size_class"] == k], run.path, run.function, f"{run.distribution} [{size}]",
                                  v, base, level, margin, allow_single_process=True)
                comps.append(cmp)
            rows.append((c, size, float(ns), float(lo), float(hi), len(per_process), cmp))
        if comps:
            adjust_family(comps, level)
        for c, size, ns, lo, hi, nproc, cmp in rows:
            mean = float(c["mean_size"])
            out.append(SweepPoint(
                v, int(c["index"]), int(size), int(c["lo"]), int(c["hi"]), mean, ns, lo, hi,
                mean / ns if ns > 0 else float("nan"),
                cmp.ratio if cmp else float("nan"), cmp.ci_low if cmp else float("nan"),
                cmp.ci_high if cmp else float("nan"), cmp.verdict if cmp else "baseline", nproc))
    return out


def sweep_frame(points: list[SweepPoint]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame([p.__dict__ for p in points])


def evenly(sizes: list[Any], max_rows: int) -> tuple[list[Any], int]:
    """At most max_rows of the sizes, every step-th one from the first: (the rows, step)."""
    step = max(1, -(-len(sizes) // max_rows))
    return sizes[::step], step


def sweep_table(points: list[SweepPoint], max_rows: int = 40) -> str:
    """A terminal table: a row per size (at most max_rows, evenly spaced), per variant ns/call
    and the ratio to the baseline with its interval."""
    df = sweep_frame(points)
    variants = list(dict.fromkeys(df["variant"]))
    sizes = sorted(set(df["size"]))
    rows, step = evenly(sizes, max_rows)
    head = f"{'size':>10}" + "".join(f" {v[:26]:>34}" for v in variants)
    lines = [head]
    for size in rows:
        row = f"{size:>10}"
        for v in variants:
            p = df[(df["variant"] == v) & (df["size"] == size)].iloc[0]
            if p["verdict"] == "baseline":
                row += f" {p['ns_per_call']:>20.3f} ns {'':>10}"
            else:
                row += f" {p['ns_per_call']:>10.3f} ns x{p['ratio']:.3f} [{p['ratio_low']:.3f}, {p['ratio_high']:.3f}]"
        lines.append(row)
    if step > 1:
        lines.append(f"(every {step}th size of {len(sizes)}; --csv writes all)")
    return "\n".join(lines)


def sweep_rows(points: list[SweepPoint]) -> list[dict[str, Any]]:
    return [p.__dict__ for p in points]

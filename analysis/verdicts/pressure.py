"""Instruction-cache pressure (`memfbench run --icache-pressure SIZE`): the same comparison at
several pressure sizes, one run file each, against pressure size. A block of SIZE bytes of
generated jumps runs after every call inside the timed loop; its cost is in every variant's time
alike, so the ratio is diluted towards 1 as the block grows, while the paired difference in ns
per call (variant minus baseline, round by round) keeps exactly the variants' own difference: the
block cancels in it. Subtracting the noop's separately measured time (the net ratio) does not
work here: a block of hundreds of ns measured apart swamps a difference of a few. Each variant's
code size is shown beside: small code suffers least."""
from __future__ import annotations

from typing import Any

import pandas as pd


from ..io.load import Run
from ..stats.intervals import t_interval
from .compare import compare_runs, paired_rounds


def pressure_bytes(run: Run) -> int:
    """The run's pressure block in bytes; 0 without."""
    ip = (run.doc.get("config") or {}).get("icache_pressure")
    return int(ip["bytes"]) if ip else 0


def code_sizes(run: Run) -> dict[str, Any]:
    return {v["name"]: v.get("code_size") for v in run.doc["variants"]}


def paired_difference(run: Run, variant: str, baseline: str, level: float) -> tuple[float, float, float]:
    """ns per call of variant minus baseline: per process the median over its rounds of the
    paired difference, then the mean over processes with a t interval (one process: its median,
    no interval)."""
    j = paired_rounds(run.batches, variant, baseline)
    per = (j["ns_per_call_v"] - j["ns_per_call_b"]).groupby(j["process"]).median().to_numpy()
    if len(per) > 1:
        ci = t_interval(per, level)
        return float(ci.estimate), float(ci.low), float(ci.high)
    return (float(per[0]) if len(per) else float("nan")), float("nan"), float("nan")


def pressure_frame(runs: list[Run], baseline: str | None = None, level: float = 0.95,
                   margin: float = 0.01) -> pd.DataFrame:
    """A row per (run, variant), in pressure order: the ratio to the baseline with its interval
    and verdict (each file its own family, Holm over its variants), the paired difference in ns
    per call with its interval, the variant's code size and the block's own ns per run."""
    rows = []
    for run in sorted(runs, key=pressure_bytes):
        ip = (run.doc.get("config") or {}).get("icache_pressure")
        for c in compare_runs([run], baseline, level=level, margin=margin):
            d, d_low, d_high = paired_difference(run, c.variant, c.baseline, level)
            rows.append({"pressure_bytes": pressure_bytes(run), "variant": c.variant, "baseline": c.baseline,
                         "ratio": c.ratio, "ci_low": c.ci_low, "ci_high": c.ci_high, "diff_ns": d,
                         "diff_low": d_low, "diff_high": d_high, "verdict": c.verdict,
                         "code_size": code_sizes(run).get(c.variant),
                         "block_ns": float(ip["ns_per_run"]) if ip else 0.0, "file": str(run.path)})
    return pd.DataFrame(rows)

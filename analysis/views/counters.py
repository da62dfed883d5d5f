"""Hardware counters per batch (`memfbench run --counters`): per variant, cycles, instructions,
IPC, branch misses and L1d misses per call, each the median over the measured batches of the
batch's count divided by its calls. The counts include the timed loop and the clock reads, the
same for every variant: the noop variant, when the run has it (-v noop), shows that part on its own row."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..io.load import Run, measured

if TYPE_CHECKING:
    import pandas as pd

COUNTER_COLUMNS = ("cycles", "instructions", "branch_misses", "l1d_misses")


def has_counters(run: Run) -> bool:
    """Whether the run counted (its file has the counter columns with values)."""
    b = run.table
    return "cycles" in b and bool((b["cycles"] >= 0).any())


def counters_source(run: Run) -> str:
    return ((run.doc.get("config") or {}).get("counters") or {}).get("source", "none")


def counter_summary(run: Run) -> pd.DataFrame:
    """A row per variant: calls counted and the per-call medians; IPC is instructions / cycles of
    each batch, then the median. Columns a PMU did not give are NaN."""
    import pandas as pd
    m = measured(run.batches)
    rows = []
    for v in run.variants:
        g = m[m["variant"] == v]
        calls = g["calls"].to_numpy(dtype=np.float64)
        row: dict[str, object] = {"variant": v, "batches": len(g)}
        for c in COUNTER_COLUMNS:
            x = g[c].to_numpy(dtype=np.float64) if c in g.columns else np.full(len(g), -1.0)
            ok = x >= 0
            row[f"{c}_per_call"] = float(np.median(x[ok] / calls[ok])) if ok.any() else float("nan")
        row["ipc"] = float("nan")
        if "cycles" in g.columns and "instructions" in g.columns:  # a PMU may lack one of them
            cyc = g["cycles"].to_numpy(dtype=np.float64)
            ins = g["instructions"].to_numpy(dtype=np.float64)
            ok = (cyc > 0) & (ins >= 0)
            if ok.any():
                row["ipc"] = float(np.median(ins[ok] / cyc[ok]))
        rows.append(row)
    return pd.DataFrame(rows, columns=["variant", "batches", "ipc", *(f"{c}_per_call" for c in COUNTER_COLUMNS)])

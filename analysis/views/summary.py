"""Per-variant summaries of one run: location, spread, bootstrap CI of the median, outliers."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.load import Run
from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_median_ci
from ..stats.robust import iqr, mad, robust_sd, tukey_outliers

if TYPE_CHECKING:
    import pandas as pd


def _median(x: np.ndarray) -> float:
    """The median of the values that are not NaN (NaN when none is), as a pandas Series gives it."""
    x = x[~np.isnan(x)]
    return float(np.median(x)) if len(x) else float("nan")


def summary_rows(run: Run, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 level: float = 0.95) -> list[dict[str, Any]]:
    """summarize_run's rows, one dict per variant with measured batches, read from the run's numpy
    columns (no frame)."""
    t = run.table
    warm = t["warmup"].astype(bool)
    noop_names = run.harness_variants
    noop = np.zeros(len(t), dtype=bool)
    for name in noop_names:
        noop |= t.variant_is(name)
    overhead = _median(t["ns_per_call"][noop & ~warm])
    rows = []
    for v in run.variants:
        mine = t.variant_is(v)
        x = t["ns_per_call"][mine & ~warm]
        if len(x) == 0:
            continue
        ci = bootstrap_median_ci(x, level, resamples, seed)
        tk = tukey_outliers(x)
        rows.append({
            "variant": v,
            "batches": len(x),
            "median_ns_per_call": ci.estimate,
            "ci_low": ci.low,
            "ci_high": ci.high,
            "net_ns_per_call": ci.estimate - overhead if v not in noop_names else float("nan"),
            "bytes_per_ns": _median(t["bytes_per_ns"][mine & ~warm]),
            "iqr": iqr(x),
            "mad": mad(x),
            "robust_sd": robust_sd(x),
            "outliers_mild": tk.low_mild + tk.high_mild,
            "outliers_severe": tk.low_severe + tk.high_severe,
            "warmup_batches_excluded": int(np.count_nonzero(mine & warm)),
        })
    return rows


def summarize_run(run: Run, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  level: float = 0.95) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame(summary_rows(run, resamples, seed, level))

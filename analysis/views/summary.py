"""Per-variant summaries of one run: location, spread, bootstrap CI of the median, outliers."""
from __future__ import annotations

import pandas as pd

from ..io.load import Run, measured
from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_median_ci
from ..stats.robust import iqr, mad, robust_sd, tukey_outliers


def summarize_run(run: Run, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  level: float = 0.95) -> pd.DataFrame:
    m = measured(run.batches)
    noop_names = run.harness_variants
    noop = m[m["variant"].isin(noop_names)]["ns_per_call"]
    overhead = float(noop.median()) if len(noop) else float("nan")
    rows = []
    for v in run.variants:
        x = m[m["variant"] == v]["ns_per_call"].to_numpy()
        if len(x) == 0:
            continue
        ci = bootstrap_median_ci(x, level, resamples, seed)
        t = tukey_outliers(x)
        bpn = m[m["variant"] == v]["bytes_per_ns"].to_numpy()
        rows.append({
            "variant": v,
            "batches": len(x),
            "median_ns_per_call": ci.estimate,
            "ci_low": ci.low,
            "ci_high": ci.high,
            "net_ns_per_call": ci.estimate - overhead if v not in noop_names else float("nan"),
            "bytes_per_ns": float(pd.Series(bpn).median()),
            "iqr": iqr(x),
            "mad": mad(x),
            "robust_sd": robust_sd(x),
            "outliers_mild": t.low_mild + t.high_mild,
            "outliers_severe": t.low_severe + t.high_severe,
            "warmup_batches_excluded": int(run.batches[(run.batches["variant"] == v) & run.batches["warmup"]].shape[0]),
        })
    return pd.DataFrame(rows)

"""Figures of one run's batches: their times over the run and their distribution per variant."""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ...io.load import Run, measured
from .base import colors_for, new_figure, short_label, title_of


def timeseries(run: Run, bins: int = 150, colors: dict[str, str] | None = None) -> Figure:
    """Per-call batch time against time, per variant: the median of each time bin as a line and its
    10-90 % range as a band, in the variant's colour (the same in every figure). Bins, not points:
    a default study has 100,000 batches, which as dots merge into one band. The warm-up is the grey
    span at the start."""
    df = run.batches
    col = colors_for(run.variants, colors)
    fig, ax = new_figure(10, 4.5)
    m = df[~df["warmup"] & (df["ns_per_call"] > 0)]
    if len(m):
        edges = np.linspace(m["t_start_s"].min(), m["t_start_s"].max(), bins + 1)
        for v in run.variants:
            g = m[m["variant"] == v]
            if g.empty:
                continue
            which = np.clip(np.searchsorted(edges, g["t_start_s"].to_numpy(), side="right") - 1, 0, bins - 1)
            q = pd.DataFrame({"bin": which, "y": g["ns_per_call"].to_numpy()}).groupby("bin")["y"].quantile(
                [0.1, 0.5, 0.9]).unstack()
            x = (edges[q.index] + edges[q.index + 1]) / 2
            color = col[v]
            ax.fill_between(x, q[0.1], q[0.9], color=color, alpha=0.18, linewidth=0)
            ax.plot(x, q[0.5], color=color, lw=1.2, label=short_label(v))
    warm = df[df["warmup"]]["t_start_s"]
    if len(warm):
        ax.axvspan(0, warm.max(), color="0.9", zorder=0, label="warm-up")
    if not len(m):
        ax.text(0.5, 0.5, "no measured batches", transform=ax.transAxes, ha="center")
    else:
        ax.set_yscale("log")
    ax.set_xlabel("time since the first batch of its process (s)")
    ax.set_ylabel("ns per call (batch)")
    ax.set_title(f"{title_of(run)}: batch times over the run "
                 f"(median and 10-90 % range in {bins} time bins)")
    # A fixed place outside the axes: matplotlib's "best" search is slow on big plots, and a legend
    # inside covers data.
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return fig


def distributions(run: Run, colors: dict[str, str] | None = None) -> Figure:
    """Per-variant empirical CDF of per-call batch times (measured batches) on a log axis: each
    curve is exact at 1000 quantiles, whatever the number of batches; a variant whose batches all
    took the same time is a vertical step."""
    m = measured(run.batches)
    col = colors_for(run.variants, colors)
    fig, ax = new_figure(8, 4.5)
    probs = np.linspace(0, 1, 1001)
    drawn = 0
    for v in run.variants:
        d = m[m["variant"] == v]["ns_per_call"].to_numpy()
        d = d[d > 0]  # a log axis shows no 0
        if not len(d):
            continue
        ax.step(np.quantile(d, probs), probs, where="post", color=col[v], lw=1.2,
                label=f"{short_label(v)} (median {np.median(d):.3g} ns)")
        drawn += 1
    if not drawn:
        ax.text(0.5, 0.5, "no measured batches", transform=ax.transAxes, ha="center")
    else:
        ax.set_xscale("log")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.axhline(0.5, color="0.7", lw=0.6, ls=":")
    ax.set_xlabel("ns per call (batch)")
    ax.set_ylabel("fraction of batches at or below")
    ax.set_title(f"{title_of(run)}: per-batch times (ECDF)")
    return fig

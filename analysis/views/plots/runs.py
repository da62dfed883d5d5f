"""Figures of one run's batches: their times over the run and their distribution per variant."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ...io.load import Run, measured
from .base import bin_of, binned, colors_for, new_figure, plain_log_axis, short_label, time_edges, title_of


# The band of the time series: the processes' quartiles.
MIDDLE_HALF = (0.25, 0.75)


def timeseries(run: Run, bins: int = 150, colors: dict[str, str] | None = None) -> Figure:
    """Per-call batch time against time, per variant: the median of each time bin's batches (every
    process pooled) as a line and, with several processes, the middle half of the processes' own
    medians in the bin as a band, in the variant's colour (the same in every figure). Bins, not points: a
    default study has 100,000 batches, which as dots merge into one band; and one summary per
    variant, not a line per process, which with tens of processes is spaghetti. Up to `bins` bins,
    fewer when a process would have under base.BIN_LEAST batches of a variant per bin. The warm-up
    is the grey span at the start, as long as the median process's."""
    df = run.batches
    col = colors_for(run.variants, colors)
    fig, ax = new_figure(10, 4.5)
    m = df[~df["warmup"] & (df["ns_per_call"] > 0)]
    procs, used = int(m["process"].nunique()) if len(m) else 0, bins
    if len(m):
        # one set of bins for every variant: as many as the variant with the most batches allows
        edges = time_edges(m["t_start_s"].to_numpy(), m["variant"].value_counts().max() / procs, bins)
        used = len(edges) - 1
        for v in run.variants:
            g = m[m["variant"] == v]
            if g.empty:
                continue
            # the middle half of the processes, not their range: five variants' full ranges over 32
            # processes overlapped into one tangle (issue 54)
            q = binned(g["ns_per_call"].to_numpy(), bin_of(edges, g["t_start_s"].to_numpy()), g["process"].to_numpy(),
                       MIDDLE_HALF)
            x = (edges[q.index] + edges[q.index + 1]) / 2
            if procs >= 2:
                ax.fill_between(x, q["low"], q["high"], color=col[v], alpha=0.2, linewidth=0)
            ax.plot(x, q["median"], color=col[v], lw=1.2, label=short_label(v))
    # the warm-up as a typical process has it (the median over processes of its last warm-up batch):
    # the latest over all, one slow or starved process's, shaded most of the run (issue 54)
    warm = df[df["warmup"]].groupby("process")["t_start_s"].max()
    if len(warm):
        ax.axvspan(0, float(warm.median()), color="0.9", zorder=0, label="warm-up (median process)")
    if not len(m):
        ax.text(0.5, 0.5, "no measured batches", transform=ax.transAxes, ha="center")
        ax.set_yticks([])
    else:
        plain_log_axis(ax.yaxis)
        ax.grid(axis="y", color="0.92", lw=0.6)
    ax.set_xlabel("time since the first batch of its process (s)")
    ax.set_ylabel("ns per call (batch; log)")
    spread = (f"band: the middle half of the {procs} processes' own medians" if procs >= 2 else
              "one process: no spread between processes")
    ax.set_title(f"{title_of(run)}: batch times over the run\nmedian of the batches in each of {used} time bins, every "
                 f"process pooled; {spread}", fontsize=10)
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
        plain_log_axis(ax.xaxis)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.axhline(0.5, color="0.7", lw=0.6, ls=":")
    ax.set_xlabel("ns per call (batch; log)")
    ax.set_ylabel("fraction of batches at or below")
    ax.set_title(f"{title_of(run)}: per-batch times (ECDF)")
    return fig

"""The figure of a history: one variant's ratio over a series of files, its change points and
where the code changed."""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .base import new_figure, short_label


def history(points: pd.DataFrame, variant: str, changes: list, codes: pd.DataFrame, level: float = 0.95,
            color: str | None = None) -> Figure:
    """One variant's ratio to its baseline over a series (verdicts/history.py): each file's ratio with
    its interval over processes, each segment's mean between change points as a line, a change
    point as a dashed line before its first point, and where the variant's or the baseline's code
    changed as a tick on the top edge."""
    g = points[points["variant"] == variant].sort_values("position")
    fig, ax = new_figure(max(6.0, min(14.0, 0.32 * len(g) + 3)), 3.8)
    x = g["position"].to_numpy()
    y = g["ratio"].to_numpy()
    col = color or "C0"
    ax.errorbar(x, y, yerr=[y - g["ci_low"].to_numpy(), g["ci_high"].to_numpy() - y], fmt="o", ms=4, color=col,
                ecolor=col, elinewidth=1, capsize=2, label=f"ratio, {level:.0%} CI over processes")
    mine = [c for c in changes if c.variant == variant]
    edges = [int(x[0])] + [c.position for c in mine] + [int(x[-1]) + 1]
    for a, b in zip(edges[:-1], edges[1:]):
        seg = g[(g["position"] >= a) & (g["position"] < b)]
        mean = float(np.exp(np.log(seg["ratio"].to_numpy()).mean()))
        ax.hlines(mean, a - 0.4, b - 0.6, colors="0.3", linewidth=1.5,
                  label="segment mean (between change points)" if a == edges[0] else None)
    for c in mine:
        ax.axvline(c.position - 0.5, color="C3", linestyle="--", linewidth=1.2,
                   label="change point" if c is mine[0] else None)
        ax.annotate(f"{(c.change - 1) * 100:+.2f} %", (c.position - 0.5, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(3, -12), textcoords="offset points", color="C3", fontsize=8)
    mark = codes[codes["variant"] == variant] if not codes.empty else codes
    # a code change as a line through the plot behind the points (an arrow above the axes sat on the
    # title, issue 54); a change point at the same place is drawn over it, dashed
    for i, (_, r) in enumerate(mark.iterrows()):
        ax.axvline(r["position"] - 0.5, color="0.55", linestyle=":", linewidth=2.2, zorder=0,
                   label="code changed (variant or baseline)" if i == 0 else None)
    labels = [str(t) if t else "" for t in g["label"]]
    ax.set_xticks(x)
    ax.set_xticklabels([f"{p}" + (f" {short_label(t)}" if t else "") for p, t in zip(x, labels)], rotation=60, ha="right",
                       fontsize=7)
    ax.set_xlim(x[0] - 0.7, x[-1] + 0.7)
    ax.set_xlabel("result: its place in the series (and its label)", fontsize=8)
    base = str(g["baseline"].iloc[0])
    ax.set_ylabel(f"time ratio {short_label(variant)} / {short_label(base)}")
    ax.set_title(f"{short_label(variant)} over {len(g)} results: ratio to {short_label(base)}, change points by e-divisive "
                 "means", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    # outside: "best" still sat on points of a long series
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return fig

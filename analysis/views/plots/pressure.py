"""The figure of instruction-cache pressure: the ratio and the paired difference against the
pressure block's size."""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from .base import band, bytes_label, colors_for, log_ratio_axis, short_label, symlog_plain_axis


def pressure(df: pd.DataFrame, colors: dict[str, str] | None = None) -> Figure:
    """Against the pressure block's size, one line per variant: the ratio to the baseline with its
    interval (diluted by the block's own cost as it grows), and the paired difference in ns per
    call with its interval (the block cancels in it)."""
    variants = list(dict.fromkeys(df["variant"]))
    col = colors_for(variants, colors)
    fig = Figure(figsize=(8, 6.5))
    ax_r, ax_d = fig.subplots(2, 1, sharex=True)
    x0 = 32  # size 0 (no block) drawn left of the smallest block, on the log axis
    for v in variants:
        g = df[df["variant"] == v].sort_values("pressure_bytes")
        x = np.where(g["pressure_bytes"] > 0, g["pressure_bytes"], x0)
        ax_r.plot(x, g["ratio"], color=col[v], marker="o", ms=4, lw=1.2, label=short_label(v))
        band(ax_r, x, g["ratio"], g["ci_low"], g["ci_high"], col[v])
        ax_d.plot(x, g["diff_ns"], color=col[v], marker="o", ms=4, lw=1.2)
        band(ax_d, x, g["diff_ns"], g["diff_low"], g["diff_high"], col[v])
    ax_r.axhline(1, color="k", lw=0.8)
    ax_d.axhline(0, color="k", lw=0.8)
    ax_d.set_xscale("log", base=2)
    ticks = sorted(set(np.where(df["pressure_bytes"] > 0, df["pressure_bytes"], x0)))
    ax_d.xaxis.set_major_locator(FixedLocator(ticks))
    ax_d.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: "none" if v == x0 else bytes_label(v)))
    ax_d.xaxis.set_minor_formatter(NullFormatter())
    ax_d.set_xlim(min(ticks) / 1.5, max(ticks) * 1.5)  # one size too: the point mid-axis, labelled alone
    log_ratio_axis(ax_r.yaxis)
    base = short_label(str(df["baseline"].iloc[0]))
    ax_r.set_ylabel(f"ratio to {base} (log)")
    ax_d.set_ylabel(f"ns per call minus {base}\n(linear within ±10, log beyond)")
    # a large block's runs spread by hundreds of ns: symmetric log keeps the small sizes' few ns readable,
    # labelled within its linear stretch too (matplotlib's symlog ticks label only 0 and powers of ten)
    symlog_plain_axis(ax_d.yaxis, linthresh=10)
    ax_d.set_xlabel("instruction-cache pressure: bytes of generated jumps run after every call")
    ax_r.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax_r.set_title("against pressure size; bands: 95 % intervals over processes", fontsize=9)
    return fig

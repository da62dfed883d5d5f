"""The figure of a size sweep: time per call, bytes per ns and the ratio to the baseline against
size, with the caches (or the levels a probe file found) marked."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from ...io.load import Run
from .base import band, bytes_label, colors_for, log_ratio_axis, plain_log_axis, short_label

if TYPE_CHECKING:
    from ...verdicts.sweep import SweepPoint


def sweep(run: Run, points: list[SweepPoint], colors: dict[str, str] | None = None,
          probe_doc: dict | None = None) -> Figure:
    """Time per call, bytes per ns and the ratio to the baseline against size (log axes; size 0 on
    a linear stretch), one line per variant with its interval band; the caches and the placement's
    small/large threshold marked. With a probe file: the levels it found are marked instead of the
    reported sizes, and the bytes-per-ns panel shows the reference bandwidth where each point's
    data lives (views/probe.py roofline)."""
    df = pd.DataFrame([p.__dict__ for p in points])
    variants = list(dict.fromkeys(df["variant"]))
    col = colors_for(variants, colors)
    fig = Figure(figsize=(10, 9))
    ax_ns, ax_bw, ax_r = fig.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2, 2]})
    for v in variants:
        g = df[df["variant"] == v].sort_values("size")
        x = g["size"].to_numpy()
        ax_ns.plot(x, g["ns_per_call"], color=col[v], lw=1.2, marker=".", ms=3, label=short_label(v))
        band(ax_ns, x, g["ns_per_call"], g["ns_low"], g["ns_high"], col[v])
        ax_bw.plot(x, g["bytes_per_ns"], color=col[v], lw=1.2, marker=".", ms=3)
        if g["verdict"].iloc[0] != "baseline":
            ax_r.plot(x, g["ratio"], color=col[v], lw=1.2, marker=".", ms=3)
            band(ax_r, x, g["ratio"], g["ratio_low"], g["ratio_high"], col[v])
    ax_r.axhline(1, color="k", lw=0.8)
    caches = run.doc["host"].get("caches") or {}
    threshold = (run.doc.get("workset") or {}).get("small_window", {}) or {}
    # the placement's threshold: calls up to it in the L1 window, larger ones beyond the LLC
    marks = [(caches.get("l1d"), "L1d"), (caches.get("l2"), "L2"), (caches.get("llc"), "LLC")]
    if probe_doc is not None:
        from .. import probe as pr
        cf = probe_doc.get("caches_found")
        if cf:  # what --cache-from would use
            marks = [(cf["l1d"], "L1d (probe)"), (cf["l2"], "L2 (probe)"), (cf["llc"], "LLC (probe)")]
        roof = pr.roofline([p for p in points if p.variant == variants[0]], run.doc, run.function, probe_doc)
        if not roof.empty:
            ax_bw.step(roof["size"], roof["reference_gbps"], where="mid", color="k", lw=1, ls=":",
                       label=f"probe: best of {', '.join(pr.REFERENCE_KERNELS[run.function][0])}\nwhere the data lives")
            # outside, as every legend: inside it covered the roofline, drawn along the top
            ax_bw.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
            # L1 and memory rates differ by tens: a log axis keeps both readable against the roofline
            plain_log_axis(ax_bw.yaxis)
            ax_bw.set_ylabel("bytes per ns (log)")
    marks.append((threshold.get("max_call_size") if isinstance(threshold, dict) else None, "L1 window | beyond LLC"))
    top = df["size"].max()
    for value, name in marks:
        if isinstance(value, (int, float)) and 0 < value <= top:
            for ax in (ax_ns, ax_bw, ax_r):
                ax.axvline(value, color="0.6", lw=0.7, ls="--")
            ax_ns.text(value, 1.0, f" {name}", transform=ax_ns.get_xaxis_transform(), fontsize=7, color="0.4",
                       va="top")
    plain_log_axis(ax_ns.yaxis)
    ax_ns.set_ylabel("ns per call (log)")
    if not ax_bw.get_ylabel():
        ax_bw.set_ylabel("bytes per ns")
    log_ratio_axis(ax_r.yaxis)
    ax_r.set_ylabel(f"ratio to {short_label(run.baseline)} (log)")
    _sweep_size_axis(ax_r, df["size"].to_numpy())
    ax_r.set_xlabel("size (bytes; the point's nominal size)")
    ax_ns.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    s = run.doc["sweep"]
    mode = "predictable" if s["mode"] == "predictable" else "unpredictable"
    ax_ns.set_title(f"{run.function}: size sweep ({mode}, {run.measure}); bands: 95 % intervals over "
                    f"{int(df['processes'].max())} processes", fontsize=10)
    return fig


def _sweep_size_axis(ax, sizes: np.ndarray) -> None:
    """A log axis from the smallest size (a little margin each side), labelled in bytes, K, M;
    only a sweep that includes size 0 keeps a linear stretch from 0."""
    if (sizes == 0).any():
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlim(left=0, right=float(sizes.max()) * 1.3)
    else:
        ax.set_xscale("log", base=2)
        lo, hi = float(sizes.min()), float(sizes.max())
        ax.set_xlim(lo / 1.3, hi * 1.3)
    ax.xaxis.set_major_formatter(FuncFormatter(bytes_label))
    ax.xaxis.set_minor_formatter(NullFormatter())

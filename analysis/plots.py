"""Matplotlib figures of runs and comparisons. Each function returns a Figure; `save` writes it as
PNG and SVG. Figures are made without pyplot, so nothing depends on a GUI backend and a notebook
shows each returned figure once."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .compare import Comparison
from .load import Run, measured


# Names come from result files: a long one would widen a figure past what Agg can draw, and a
# "$" would start mathtext (an unpaired one fails at drawing).
LABEL_MAX = 60


def _label(text: str) -> str:
    short = text if len(text) <= LABEL_MAX else text[:LABEL_MAX - 1] + "…"
    return short.replace("$", r"\$")


def _figure(w: float, h: float):
    fig = Figure(figsize=(w, h))
    return fig, fig.subplots()


def save(fig: Figure, stem: Path) -> list[Path]:
    """Writes stem.png and stem.svg; returns both paths."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    fig.savefig(out[0], dpi=120, bbox_inches="tight")
    fig.savefig(out[1], bbox_inches="tight")
    return out


def timeseries(run: Run, bins: int = 150) -> Figure:
    """Per-call batch time against time, per variant: the median of each time bin as a line and its
    10-90 % range as a band, in the variant's colour (the same in every figure). Bins, not points:
    a default study has 100,000 batches, which as dots merge into one band. The warm-up is the grey
    span at the start."""
    df = run.batches
    fig, ax = _figure(10, 4.5)
    m = df[~df["warmup"] & (df["ns_per_call"] > 0)]
    if len(m):
        edges = np.linspace(m["t_start_s"].min(), m["t_start_s"].max(), bins + 1)
        for i, v in enumerate(run.variants):
            g = m[m["variant"] == v]
            if g.empty:
                continue
            which = np.clip(np.searchsorted(edges, g["t_start_s"].to_numpy(), side="right") - 1, 0, bins - 1)
            q = pd.DataFrame({"bin": which, "y": g["ns_per_call"].to_numpy()}).groupby("bin")["y"].quantile(
                [0.1, 0.5, 0.9]).unstack()
            x = (edges[q.index] + edges[q.index + 1]) / 2
            color = f"C{i % 10}"
            ax.fill_between(x, q[0.1], q[0.9], color=color, alpha=0.18, linewidth=0)
            ax.plot(x, q[0.5], color=color, lw=1.2, label=_label(v))
    warm = df[df["warmup"]]["t_start_s"]
    if len(warm):
        ax.axvspan(0, warm.max(), color="0.9", zorder=0, label="warm-up")
    if not len(m):
        ax.text(0.5, 0.5, "no measured batches", transform=ax.transAxes, ha="center")
    else:
        ax.set_yscale("log")
    ax.set_xlabel("time since the first batch of its process (s)")
    ax.set_ylabel("ns per call (batch)")
    ax.set_title(f"{run.function} on {_label(run.distribution)}: batch times over the run "
                 f"(median and 10-90 % range in {bins} time bins)")
    # A fixed place outside the axes: matplotlib's "best" search is slow on big plots, and a legend
    # inside covers data.
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    return fig


def distributions(run: Run) -> Figure:
    """Per-variant empirical CDF of per-call batch times (measured batches) on a log axis: each
    curve is exact at 1000 quantiles, whatever the number of batches; a variant whose batches all
    took the same time is a vertical step."""
    m = measured(run.batches)
    fig, ax = _figure(8, 4.5)
    probs = np.linspace(0, 1, 1001)
    drawn = 0
    for i, v in enumerate(run.variants):
        d = m[m["variant"] == v]["ns_per_call"].to_numpy()
        d = d[d > 0]  # a log axis shows no 0
        if not len(d):
            continue
        ax.step(np.quantile(d, probs), probs, where="post", color=f"C{i % 10}", lw=1.2,
                label=f"{_label(v)} (median {np.median(d):.3g} ns)")
        drawn += 1
    if not drawn:
        ax.text(0.5, 0.5, "no measured batches", transform=ax.transAxes, ha="center")
    else:
        ax.set_xscale("log")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.axhline(0.5, color="0.7", lw=0.6, ls=":")
    ax.set_xlabel("ns per call (batch)")
    ax.set_ylabel("fraction of batches at or below")
    ax.set_title(f"{run.function} on {_label(run.distribution)}: per-batch times (ECDF)")
    return fig


def forest(comps: list[Comparison], margin: float | None = None) -> Figure:
    """Ratio to the baseline with per-comparison (thick) and simultaneous (thin) intervals."""
    comps = [c for c in comps if np.isfinite(c.ratio)]
    fig, ax = _figure(8, 0.45 * len(comps) + 1.5)
    colors = {"faster": "tab:green", "slower": "tab:red", "equivalent": "tab:blue", "inconclusive": "0.5"}
    for i, c in enumerate(comps):
        y = len(comps) - 1 - i
        ax.plot([c.ci_adj_low, c.ci_adj_high], [y, y], color=colors[c.verdict], lw=1)
        ax.plot([c.ci_low, c.ci_high], [y, y], color=colors[c.verdict], lw=4, alpha=0.6)
        ax.plot([c.ratio], [y], "o", color=colors[c.verdict])
    m = margin if margin is not None else (comps[0].margin if comps else 0.01)
    ax.axvspan(1 / (1 + m), 1 + m, color="tab:blue", alpha=0.08, label=f"equivalence margin ±{m:.1%}")
    ax.axvline(1, color="k", lw=0.8)
    # The numbers beside each row: ratio [per-comparison interval], verdict.
    ax.set_yticks(range(len(comps)), [f"{_label(c.variant)} vs {_label(c.baseline)} ({_label(c.distribution)}) — "
                                      f"{c.verdict}\n{c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}]"
                                      for c in reversed(comps)], fontsize=8)
    ax.set_xscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:.3g}")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.tick_params(axis="x", which="minor", labelsize=7)
    ax.set_xlabel("time ratio variant / baseline (below 1: faster)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    across = any(c.across_processes for c in comps)
    ax.set_title("paired ratios with 95 % (thick) and simultaneous (thin) intervals, "
                 + ("t over processes" if across else "sign test within one process"))
    return fig


def speedup_by_distribution(comps: list[Comparison]) -> Figure:
    """Speed-up (baseline time / variant time) of each variant on each distribution, with intervals."""
    df = pd.DataFrame([{"variant": c.variant, "distribution": c.distribution, "speedup": 1 / c.ratio,
                        "lo": 1 / c.ci_high, "hi": 1 / c.ci_low} for c in comps if np.isfinite(c.ratio)])
    fig, ax = _figure(9, 4.5)
    if df.empty:
        return fig
    dists = list(dict.fromkeys(df["distribution"]))
    variants = list(dict.fromkeys(df["variant"]))
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        g = df[df["variant"] == v].set_index("distribution").reindex(dists)
        x = np.arange(len(dists)) + i * width
        ax.bar(x, g["speedup"], width, color=f"C{i % 10}", label=_label(v),
               yerr=[g["speedup"] - g["lo"], g["hi"] - g["speedup"]], capsize=2)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(dists)) + 0.4 - width / 2, [_label(d) for d in dists], rotation=20, fontsize=8)
    ax.set_ylabel(f"speed-up over {_label(comps[0].baseline)}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title("speed-up per distribution (above 1: faster than the baseline)")
    return fig

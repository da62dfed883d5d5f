"""Matplotlib figures of runs and comparisons. Each function returns a Figure; `save` writes it as
PNG and SVG. Figures are made without pyplot, so nothing depends on a GUI backend and a notebook
shows each returned figure once."""
from __future__ import annotations

from dataclasses import dataclass

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from .compare import Comparison, paired_rounds

if TYPE_CHECKING:
    from .classes import Decomposition
    from .diff import Shift
    from .sweep import SweepPoint
from .load import Run, measured


# Names come from result files: a long one would widen a figure past what Agg can draw, and a
# "$" would start mathtext (an unpaired one fails at drawing).
LABEL_MAX = 60


# One colour per variant in every figure of a report: the variant's place in the list of every
# variant name met (baseline first), through matplotlib's ten-colour cycle. Verdicts are shown by
# marker and text, never by colour, so a colour always means a variant.
VERDICT_MARKERS = {"faster": "v", "slower": "^", "equivalent": "D", "inconclusive": "o"}


def palette(names: list[str]) -> dict[str, str]:
    """Variant name -> colour, in the order given (duplicates ignored)."""
    return {n: f"C{i % 10}" for i, n in enumerate(dict.fromkeys(names))}


def _colors(names: list[str], colors: dict[str, str] | None) -> dict[str, str]:
    base = dict(colors or {})
    extra = [n for n in names if n not in base]
    for n, c in palette(list(base) + extra).items():
        base.setdefault(n, c)
    return base


def _what(run: Run) -> str:
    """The head of a run's figure title: function, distribution and what was measured."""
    return f"{run.function} on {_label(run.distribution)} ({run.measure})"


def _measures(comps: list[Comparison]) -> str:
    return ", ".join(dict.fromkeys(c.measure for c in comps)) or "throughput"


def _label(text: str) -> str:
    short = text if len(text) <= LABEL_MAX else text[:LABEL_MAX - 1] + "…"
    return short.replace("$", r"\$")


def _figure(w: float, h: float):
    fig = Figure(figsize=(w, h))
    return fig, fig.subplots()


def save(fig: Figure, stem: Path, svg: bool = False) -> list[Path]:
    """Writes stem.png (and stem.svg when asked: drawing it costs as much again); returns the paths,
    PNG first."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = [stem.with_suffix(".png")] + ([stem.with_suffix(".svg")] if svg else [])
    fig.savefig(out[0], dpi=120, bbox_inches="tight")
    if svg:
        fig.savefig(out[1], bbox_inches="tight")
    return out


def timeseries(run: Run, bins: int = 150, colors: dict[str, str] | None = None) -> Figure:
    """Per-call batch time against time, per variant: the median of each time bin as a line and its
    10-90 % range as a band, in the variant's colour (the same in every figure). Bins, not points:
    a default study has 100,000 batches, which as dots merge into one band. The warm-up is the grey
    span at the start."""
    df = run.batches
    col = _colors(run.variants, colors)
    fig, ax = _figure(10, 4.5)
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
    ax.set_title(f"{_what(run)}: batch times over the run "
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
    col = _colors(run.variants, colors)
    fig, ax = _figure(8, 4.5)
    probs = np.linspace(0, 1, 1001)
    drawn = 0
    for v in run.variants:
        d = m[m["variant"] == v]["ns_per_call"].to_numpy()
        d = d[d > 0]  # a log axis shows no 0
        if not len(d):
            continue
        ax.step(np.quantile(d, probs), probs, where="post", color=col[v], lw=1.2,
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
    ax.set_title(f"{_what(run)}: per-batch times (ECDF)")
    return fig


@dataclass(frozen=True)
class ForestRow:
    """One row of an interval plot: its label, colour key, estimate, per-row and simultaneous
    intervals, and verdict (which picks the marker)."""
    label: str
    key: str
    ratio: float
    low: float
    high: float
    adj_low: float
    adj_high: float
    verdict: str


def _forest(rows: list[ForestRow], margin: float, col: dict[str, str], title: str, xlabel: str) -> Figure:
    """Ratios with per-row (thick) and simultaneous (thin) intervals on a log axis, the equivalence
    margin as a band, the marker showing the verdict (legend), each row labelled with its numbers."""
    rows = [r for r in rows if np.isfinite(r.ratio)]
    fig, ax = _figure(8, 0.45 * len(rows) + 1.5)
    for i, r in enumerate(rows):
        y = len(rows) - 1 - i
        ax.plot([r.adj_low, r.adj_high], [y, y], color=col[r.key], lw=1)
        ax.plot([r.low, r.high], [y, y], color=col[r.key], lw=4, alpha=0.6)
        ax.plot([r.ratio], [y], VERDICT_MARKERS.get(r.verdict, "o"), color=col[r.key], markeredgecolor="k", ms=7)
    ax.axvspan(1 / (1 + margin), 1 + margin, color="0.85", alpha=0.5, label=f"equivalence margin ±{margin:.1%}")
    ax.axvline(1, color="k", lw=0.8)
    # every interval, the margin and 1 inside the axis, with room on both sides (log space), so no
    # marker sits on the frame
    ends = [v for r in rows for v in (r.adj_low, r.adj_high, r.ratio) if np.isfinite(v) and v > 0]
    lo, hi = np.log(min(ends + [1 / (1 + margin)])), np.log(max(ends + [1 + margin]))
    pad = 0.08 * (hi - lo)
    ax.set_xlim(np.exp(lo - pad), np.exp(hi + pad))
    for verdict in dict.fromkeys(r.verdict for r in rows):
        ax.plot([], [], VERDICT_MARKERS.get(verdict, "o"), color="w", markeredgecolor="k", label=verdict)
    ax.set_yticks(range(len(rows)), [r.label for r in reversed(rows)], fontsize=8)
    _log_ratio_axis(ax.xaxis)
    ax.set_xlabel(xlabel)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    return fig


def forest(comps: list[Comparison], margin: float | None = None, colors: dict[str, str] | None = None) -> Figure:
    """Ratio to the baseline with per-comparison (thick) and simultaneous (thin) intervals, in the
    variant's colour; the marker shows the verdict (legend), the row label its numbers."""
    comps = [c for c in comps if np.isfinite(c.ratio)]
    col = _colors([c.baseline for c in comps] + [c.variant for c in comps], colors)
    m = margin if margin is not None else (comps[0].margin if comps else 0.01)
    rows = [ForestRow(f"{_label(c.variant)} vs {_label(c.baseline)} ({_label(c.distribution)}) — {c.verdict}\n"
                      f"{c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}]", c.variant, c.ratio, c.ci_low, c.ci_high,
                      c.ci_adj_low, c.ci_adj_high, c.verdict) for c in comps]
    across = any(c.across_processes for c in comps)
    over = "the code placement model over processes" if any(c.placement_model for c in comps) else "t over processes"
    return _forest(rows, m, col, f"{_measures(comps)}: paired ratios with 95 % (thick) and simultaneous (thin) "
                   "intervals, " + (over if across else "sign test within one process"),
                   "time ratio variant / baseline (below 1: faster)")


def shifts(items: list[Shift], margin: float, colors: dict[str, str] | None = None) -> Figure:
    """diff: each variant's after / before ratio (analysis.diff.Shift) with its interval and
    simultaneous interval, as the forest of a comparison."""
    col = _colors([s.variant for s in items], colors)
    what = f"ratio to {items[0].normalized_by}" if items and items[0].normalized_by else "time per call"
    rows = [ForestRow(f"{_label(s.variant)} — {s.verdict}\n{s.ratio:.4f} [{s.ci_low:.4f}, {s.ci_high:.4f}]",
                      s.variant, s.ratio, s.ci_low, s.ci_high, s.ci_adj_low, s.ci_adj_high, s.verdict) for s in items]
    return _forest(rows, margin, col, f"after / before of each variant's {what}: 95 % (thick) and simultaneous "
                   "(thin) intervals, Welch t on each side's error", "after / before (below 1: after is faster)")




# Ratios worth a label on a log axis: dense near 1, where verdicts are decided, sparse far away.
RATIO_TICKS = (0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0)


def _log_ratio_axis(axis) -> None:
    """A log axis of ratios labelled with plain numbers (0.9, 1, 1.1): the RATIO_TICKS within the
    data's range (call it after drawing), 1 first, then outwards each one at least a seventh of the
    range (in log) from those kept, so labels never crowd."""
    getattr(axis.axes, f"set_{axis.axis_name}scale")("log")
    lo, hi = sorted(getattr(axis.axes, f"get_{axis.axis_name}lim")())
    gap = np.log(hi / lo) / 7 if hi > lo > 0 else 0.0
    kept = [1.0] if lo <= 1 <= hi else []
    outwards = sorted((t for t in RATIO_TICKS if lo <= t <= hi and t != 1.0), key=lambda t: abs(np.log(t)))
    for t in outwards:
        if all(abs(np.log(t / k)) >= gap for k in kept):
            kept.append(t)
    axis.set_major_locator(FixedLocator(sorted(kept) or [1.0]))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}"))
    axis.set_minor_formatter(NullFormatter())


def _round_ratios(run: Run, variant: str, baseline: str) -> pd.DataFrame:
    """Per measured round of each process: ln(t_variant / t_baseline) and the round's start time."""
    pr = paired_rounds(run.batches, variant, baseline)
    m = measured(run.batches)
    t = m[m["variant"] == baseline][["process", "round", "t_start_s"]]
    pr = pr.merge(t, on=["process", "round"], how="left")
    return pd.DataFrame({"process": pr["process"].to_numpy(), "t": pr["t_start_s"].to_numpy(),
                         "d": np.log(pr["ns_per_call_v"].to_numpy() / pr["ns_per_call_b"].to_numpy())})


def _comparisons_of(run: Run, comps: list[Comparison]) -> list[Comparison]:
    pressure = (run.doc["config"].get("icache_pressure") or {}).get("bytes", 0)
    return [c for c in comps if c.function == run.function and c.distribution == run.distribution
            and c.cpu_model in ("", run.cpu_model) and c.icache_pressure == pressure and c.neighbours == run.neighbours
            and c.variant in run.variants and c.baseline in run.variants and np.isfinite(c.ratio)]


Ratios = dict[tuple[str, str], pd.DataFrame]


def round_ratios(run: Run, comps: list[Comparison]) -> Ratios:
    """The per-round ratios of every comparison of this run, for log_ratios and ratio_over_time to
    share (pairing the rounds is most of their cost)."""
    return {(c.variant, c.baseline): _round_ratios(run, c.variant, c.baseline) for c in _comparisons_of(run, comps)}


def _ratios_for(run: Run, c: Comparison, ratios: Ratios | None) -> pd.DataFrame:
    key = (c.variant, c.baseline)
    return ratios[key] if ratios is not None and key in ratios else _round_ratios(run, c.variant, c.baseline)


# The share of rounds cut from each tail of a histogram's axis: the axis follows where the rounds
# are, not the rare round whose calls were all large (which would squash the rest into a spike).
ROBUST_TAIL = 0.005
# ...and no further than this many interquartile ranges beyond the quartiles (in log ratio): a
# comparison whose rounds sit within a few percent keeps its peak readable beside a sparse tail.
ROBUST_IQRS = 3.0


def log_ratios(run: Run, comps: list[Comparison], colors: dict[str, str] | None = None,
               ratios: Ratios | None = None) -> Figure:
    """Per comparison, how the per-round ratios variant / baseline are spread: a histogram on a log
    axis in the variant's colour, the median round (dashed) and the comparison's estimate with its
    interval (the shaded band: over processes when there are several) marked."""
    comps = _comparisons_of(run, comps)
    col = _colors(run.variants, colors)
    fig = Figure(figsize=(9, 1.7 * max(1, len(comps)) + 0.8))
    # each panel on its own axis: a comparison's rounds span a few percent where another's span a
    # factor of ten, and on one shared axis the narrow ones would be a line
    axes = fig.subplots(max(1, len(comps)), 1, squeeze=False)[:, 0]
    for ax, c in zip(axes, comps):
        d = _ratios_for(run, c, ratios)["d"].to_numpy()
        d = d[np.isfinite(d)]
        if not len(d):
            continue
        q_lo, q1, q3, q_hi = np.quantile(d, [ROBUST_TAIL, 0.25, 0.75, 1 - ROBUST_TAIL])
        lo, hi = max(q_lo, q1 - ROBUST_IQRS * (q3 - q1)), min(q_hi, q3 + ROBUST_IQRS * (q3 - q1))
        lo, hi = min(lo, np.log(c.ci_low)), max(hi, np.log(c.ci_high))
        edges = np.linspace(lo, hi, 81) if hi > lo else np.array([lo - 1e-6, lo + 1e-6])
        inside = (d >= edges[0]) & (d <= edges[-1])
        # counted by numpy and drawn as one filled outline: Axes.hist draws a patch per bar, and
        # 80 bars per comparison made this figure most of a report's drawing time
        counts, _ = np.histogram(d[inside], bins=edges)
        ax.stairs(counts, np.exp(edges), fill=True, color=col[c.variant], alpha=0.7)
        ax.axvspan(c.ci_low, c.ci_high, color="k", alpha=0.15, lw=0)
        ax.axvline(c.ratio, color="k", lw=1.2)
        ax.axvline(float(np.exp(np.median(d))), color="k", lw=0.8, ls="--")
        if np.exp(edges[0]) <= 1 <= np.exp(edges[-1]):
            ax.axvline(1, color="0.5", lw=0.6, ls=":")
        ax.set_xscale("log")
        ax.set_xlim(np.exp(edges[0]), np.exp(edges[-1]))
        _log_ratio_axis(ax.xaxis)
        ax.set_ylabel("rounds", fontsize=8)
        outside = 1 - inside.mean()
        ax.text(1.01, 0.5, f"{_label(c.variant)} / {_label(c.baseline)}\n{c.ratio:.4f} [{c.ci_low:.4f}, "
                f"{c.ci_high:.4f}]\n{c.verdict}\n{100 * outside:.1f} % of rounds off the axis", transform=ax.transAxes,
                fontsize=8, va="center")
    if not comps:
        axes[0].text(0.5, 0.5, "no comparisons", transform=axes[0].transAxes, ha="center")
    axes[-1].set_xlabel(f"per-round time ratio variant / baseline (each panel: its rounds' quartiles ± "
                        f"{ROBUST_IQRS:g} IQR within the {100 * ROBUST_TAIL:g}-{100 * (1 - ROBUST_TAIL):g} % range)")
    axes[0].set_title(f"{_what(run)}: per-round ratios\n"
                      "solid: the estimate, band: its 95 % interval, dashed: the median round", fontsize=10)
    fig.subplots_adjust(hspace=0.45)
    return fig


def ratio_over_time(run: Run, comps: list[Comparison], bins: int = 60, colors: dict[str, str] | None = None,
                    ratios: Ratios | None = None) -> Figure:
    """Drift: per comparison, the median per-round ratio in each of `bins` time bins (time since
    the first batch of its process, pooled over processes), against the comparison's estimate
    (dotted). A flat line means the ratio did not move while the run went on."""
    comps = _comparisons_of(run, comps)
    col = _colors(run.variants, colors)
    fig, ax = _figure(10, 4.5)
    for c in comps:
        r = _ratios_for(run, c, ratios).dropna()
        if len(r) < 2:
            continue
        edges = np.linspace(r["t"].min(), r["t"].max(), bins + 1)
        which = np.clip(np.searchsorted(edges, r["t"].to_numpy(), side="right") - 1, 0, bins - 1)
        med = pd.Series(r["d"].to_numpy()).groupby(which).median()
        x = (edges[med.index] + edges[med.index + 1]) / 2
        ax.plot(x, np.exp(med.to_numpy()), color=col[c.variant], lw=1.2, label=_label(c.variant))
        ax.axhline(c.ratio, color=col[c.variant], lw=0.8, ls=":")
    if comps:
        _log_ratio_axis(ax.yaxis)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    else:
        ax.text(0.5, 0.5, "no comparisons", transform=ax.transAxes, ha="center")
    ax.set_xlabel("time since the first batch of its process (s)")
    ax.set_ylabel(f"time ratio to {_label(comps[0].baseline) if comps else 'baseline'}")
    ax.set_title(f"{_what(run)}: ratio over the run (median round in {bins} time "
                 "bins; dotted: the estimate)")
    return fig


def ratio_by_distribution(comps: list[Comparison], colors: dict[str, str] | None = None) -> Figure:
    """Each variant's ratio to the baseline on each distribution, with its per-comparison
    interval: the forest's numbers arranged by distribution (log axis, below 1: faster), colour
    by variant, marker by verdict."""
    comps = [c for c in comps if np.isfinite(c.ratio)]
    col = _colors([c.baseline for c in comps] + [c.variant for c in comps], colors)
    fig, ax = _figure(9, 4.5)
    if not comps:
        return fig
    dists = list(dict.fromkeys(c.distribution for c in comps))
    variants = list(dict.fromkeys(c.variant for c in comps))
    width = 0.8 / max(1, len(variants))
    for i, v in enumerate(variants):
        for c in (c for c in comps if c.variant == v):
            x = dists.index(c.distribution) + (i - (len(variants) - 1) / 2) * width
            ax.plot([x, x], [c.ci_low, c.ci_high], color=col[v], lw=2)
            ax.plot([x], [c.ratio], VERDICT_MARKERS[c.verdict], color=col[v], markeredgecolor="k")
        ax.plot([], [], color=col[v], lw=2, label=_label(v))
    for verdict in dict.fromkeys(c.verdict for c in comps):
        ax.plot([], [], VERDICT_MARKERS[verdict], color="w", markeredgecolor="k", label=verdict)
    ax.axhline(1, color="k", lw=0.8)
    _log_ratio_axis(ax.yaxis)
    ax.set_xticks(range(len(dists)), [_label(d) for d in dists], rotation=20, fontsize=8)
    ax.set_ylabel(f"time ratio to {_label(comps[0].baseline)} (below 1: faster)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(f"{_measures(comps)}: ratio per distribution with 95 % intervals (marker: verdict, as in the "
                 "forest plot)")
    return fig


def contributions(dec: Decomposition, colors: dict[str, str] | None = None) -> Figure:
    """Where the difference comes from: per size class, its contribution to the whole
    distribution's difference (ns per call, with its interval), then the residual (mixing
    effects the classes timed apart miss) and the whole difference; the class's ratio and verdict
    (marker) on a second axis below."""
    col = _colors([dec.baseline, dec.variant], colors)
    terms = [c.contribution for c in dec.classes] + [dec.residual, dec.whole]
    labels = [c.size_class.label for c in dec.classes] + ["residual", "whole"]
    fig = Figure(figsize=(10, 6.5))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x = np.arange(len(terms))
    shades = [col[dec.variant]] * len(dec.classes) + ["0.55", "0.25"]
    top.bar(x, [t.ns for t in terms], color=shades, alpha=0.85,
            yerr=[[t.ns - t.low for t in terms], [t.high - t.ns for t in terms]], capsize=2)
    top.axhline(0, color="k", lw=0.8)
    top.axvline(len(dec.classes) - 0.5, color="0.6", lw=0.6, ls=":")
    top.set_ylabel(f"ns per call ({_label(dec.variant)} - {_label(dec.baseline)})")
    top.set_title(f"{dec.function} on {_label(dec.distribution)} ({dec.measure}): where {_label(dec.variant)}'s difference from "
                  f"{_label(dec.baseline)} comes from\n(class: call share x per-class difference; residual: what "
                  f"timing classes apart misses; {round(100 * dec.classes[0].comparison.level)} % intervals over "
                  f"{dec.n_units} {dec.units.split(' ')[0]})", fontsize=10)
    for c, xi in zip(dec.classes, x):
        cmp = c.comparison
        bottom.plot([xi, xi], [cmp.ci_low, cmp.ci_high], color=col[dec.variant], lw=2)
        bottom.plot([xi], [cmp.ratio], VERDICT_MARKERS[cmp.verdict], color=col[dec.variant], markeredgecolor="k")
    for verdict in dict.fromkeys(c.comparison.verdict for c in dec.classes):
        bottom.plot([], [], VERDICT_MARKERS[verdict], color="w", markeredgecolor="k", label=verdict)
    bottom.axhline(1, color="k", lw=0.8)
    _log_ratio_axis(bottom.yaxis)
    bottom.set_ylabel("ratio within the class")
    bottom.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    bottom.set_xticks(x, labels, rotation=35, fontsize=8)
    bottom.set_xlabel("size class (bytes)")
    return fig


def sweep(run: Run, points: list[SweepPoint], colors: dict[str, str] | None = None,
          probe_doc: dict | None = None) -> Figure:
    """Time per call, bytes per ns and the ratio to the baseline against size (log axes; size 0 on
    a linear stretch), one line per variant with its interval band; the caches and the placement's
    small/large threshold marked. With a probe file: the levels it found are marked instead of the
    reported sizes, and the bytes-per-ns panel shows the reference bandwidth where each point's
    data lives (analysis.probe.roofline)."""
    df = pd.DataFrame([p.__dict__ for p in points])
    variants = list(dict.fromkeys(df["variant"]))
    col = _colors(variants, colors)
    fig = Figure(figsize=(10, 9))
    ax_ns, ax_bw, ax_r = fig.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2, 2]})
    for v in variants:
        g = df[df["variant"] == v].sort_values("size")
        x = g["size"].to_numpy()
        ax_ns.plot(x, g["ns_per_call"], color=col[v], lw=1.2, marker=".", ms=3, label=_label(v))
        _band(ax_ns, x, g["ns_per_call"], g["ns_low"], g["ns_high"], col[v])
        ax_bw.plot(x, g["bytes_per_ns"], color=col[v], lw=1.2, marker=".", ms=3)
        if g["verdict"].iloc[0] != "baseline":
            ax_r.plot(x, g["ratio"], color=col[v], lw=1.2, marker=".", ms=3)
            _band(ax_r, x, g["ratio"], g["ratio_low"], g["ratio_high"], col[v])
    ax_r.axhline(1, color="k", lw=0.8)
    caches = run.doc["host"].get("caches") or {}
    threshold = (run.doc.get("workset") or {}).get("small_window", {}) or {}
    # the placement's threshold: calls up to it in the L1 window, larger ones beyond the LLC
    marks = [(caches.get("l1d"), "L1d"), (caches.get("l2"), "L2"), (caches.get("llc"), "LLC")]
    if probe_doc is not None:
        from . import probe as pr
        cf = probe_doc.get("caches_found")
        if cf:  # what --cache-from would use
            marks = [(cf["l1d"], "L1d (probe)"), (cf["l2"], "L2 (probe)"), (cf["llc"], "LLC (probe)")]
        roof = pr.roofline([p for p in points if p.variant == variants[0]], run.doc, run.function, probe_doc)
        if not roof.empty:
            ax_bw.step(roof["size"], roof["reference_gbps"], where="mid", color="k", lw=1, ls=":",
                       label=f"probe: best of {', '.join(pr.REFERENCE_KERNELS[run.function][0])} where the data lives")
            ax_bw.legend(fontsize=7, loc="upper left")
            # L1 and memory rates differ by tens: a log axis keeps both readable against the roofline
            ax_bw.set_yscale("log")
            ax_bw.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    marks.append((threshold.get("max_call_size") if isinstance(threshold, dict) else None, "L1 window | beyond LLC"))
    top = df["size"].max()
    for value, name in marks:
        if isinstance(value, (int, float)) and 0 < value <= top:
            for ax in (ax_ns, ax_bw, ax_r):
                ax.axvline(value, color="0.6", lw=0.7, ls="--")
            ax_ns.text(value, 1.0, f" {name}", transform=ax_ns.get_xaxis_transform(), fontsize=7, color="0.4",
                       va="top")
    ax_ns.set_yscale("log")
    ax_ns.set_ylabel("ns per call")
    ax_bw.set_ylabel("bytes per ns")
    _log_ratio_axis(ax_r.yaxis)
    ax_r.set_ylabel(f"ratio to {_label(run.baseline)}")
    _sweep_size_axis(ax_r, df["size"].to_numpy())
    ax_r.set_xlabel("size (bytes; the point's nominal size)")
    ax_ns.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    s = run.doc["sweep"]
    mode = "predictable" if s["mode"] == "predictable" else "unpredictable"
    ax_ns.set_title(f"{run.function}: size sweep ({mode}, {run.measure}); bands: 95 % intervals over "
                    f"{int(df['processes'].max())} processes", fontsize=10)
    return fig


def _band(ax, x, y, low, high, color: str) -> None:
    """An interval band along x; a single point (a sweep of one size, one pressure block) as an
    error bar, since a band over one x has no width to show."""
    x, y, low, high = (np.asarray(a, dtype=float) for a in (x, y, low, high))
    if len(x) == 1:
        ax.errorbar(x, y, yerr=[y - low, high - y], color=color, capsize=4, lw=1.2, fmt="none")
    else:
        ax.fill_between(x, low, high, color=color, alpha=0.2, lw=0)


def _bytes_label(v: float, _pos: int = 0) -> str:
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= f:
            return f"{v / f:g}{unit}"
    return f"{v:g}"


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
    ax.xaxis.set_major_formatter(FuncFormatter(_bytes_label))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _size_axis(ax) -> None:
    ax.set_xscale("log", base=2)
    ticks = [1 << k for k in range(10, 41, 2)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(_bytes_label))


def _level_marks(ax, doc: dict, text: bool) -> None:
    """Dashed: the sizes the system reports; solid: the capacities the probe found."""
    from . import probe as pr
    caches = doc["host"]["caches"]
    for key, name in (("l1d", "L1d"), ("l2", "L2"), ("llc", "LLC")):
        v = caches.get(key)
        if v:
            ax.axvline(v, color="0.65", lw=0.8, ls="--")
            if text:
                ax.text(v, 0.99, f" {name} reported", transform=ax.get_xaxis_transform(), fontsize=7,
                        color="0.45", va="top", rotation=90)
    cf = doc.get("caches_found")
    found = ([(cf["l1d"], "L1d"), (cf["l2"], "L2"), (cf["llc"], "LLC")] if cf else
             [(lv.estimate, lv.name) for lv in pr.levels(doc) if lv.estimate])
    for value, name in found:
        ax.axvline(value, color="0.3", lw=0.8)
        if text:
            ax.text(value, 0.01, f" {name} found", transform=ax.get_xaxis_transform(), fontsize=7,
                    color="0.2", va="bottom", rotation=90)


def _curve_axes(ax, doc: dict) -> None:
    """A probe curve's axes: log size with the cache sizes marked, log values in plain numbers."""
    _level_marks(ax, doc, text=True)
    _size_axis(ax)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))


def probe_latency(doc: dict) -> Figure:
    """ns per load against buffer size, one line per chain pattern and page kind, with the spread
    of the repeats as a band; the reported and the found cache sizes marked."""
    from . import probe as pr
    df = pr.latency_frame(doc)
    fig = Figure(figsize=(10, 5.5))
    ax = fig.subplots()
    styles = {("random", "4k"): ("C0", "-"), ("random", "thp"): ("C1", "-"), ("random", "hugetlb"): ("C1", "-"),
              ("stride1", "4k"): ("C2", "--"), ("stride2", "4k"): ("C3", "--")}
    names = {"random": "random chain", "stride1": "stride 1 line", "stride2": "stride 2 lines"}
    for (pattern, pages), g in df.groupby(["pattern", "pages"], sort=False):
        color, ls = styles.get((pattern, pages), ("C4", "-"))
        g = g.sort_values("size")
        ax.plot(g["size"], g["ns"], color=color, ls=ls, lw=1.3, marker=".", ms=3,
                label=f"{names[pattern]}, {pages} pages")
        ax.fill_between(g["size"], g["ns_min"], g["ns_max"], color=color, alpha=0.2, lw=0)
    _curve_axes(ax, doc)
    ax.set_xlabel("buffer size (bytes)")
    ax.set_ylabel("ns per dependent load")
    clk = doc["core_clock"]
    if clk["known"]:
        sec = ax.secondary_yaxis("right", functions=(lambda ns: ns * clk["ghz"], lambda c: c / clk["ghz"]))
        sec.set_ylabel(f"core cycles at {clk['ghz']:.2f} GHz")
        sec.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.legend(fontsize=8, loc="upper left")
    reps = int(df["repeats"].max()) if len(df) else 0
    ax.set_title(f"load latency; bands: smallest to largest of {reps} repeats; dashed: sizes sysfs reports, "
                 f"solid: {'caches found (--cache-from)' if doc.get('caches_found') else 'capacities found'}",
                 fontsize=9)
    return fig


def probe_bandwidth(doc: dict) -> Figure:
    """GB/s against footprint, one line per kernel with the spread of the repeats."""
    from . import probe as pr
    df = pr.bandwidth_frame(doc)
    fig = Figure(figsize=(10, 5.5))
    ax = fig.subplots()
    for i, (kernel, g) in enumerate(df.groupby("kernel", sort=False)):
        g = g.sort_values("size")
        ls = "--" if kernel.endswith("_nt") else ":" if kernel == "rep_movsb" else "-"
        ax.plot(g["size"], g["gbps"], color=f"C{i}", ls=ls, lw=1.3, marker=".", ms=3, label=kernel)
        ax.fill_between(g["size"], g["gbps_min"], g["gbps_max"], color=f"C{i}", alpha=0.2, lw=0)
    _curve_axes(ax, doc)
    ax.set_xlabel("footprint: all buffers of all threads (bytes; a copy's source and destination are half each)")
    ax.set_ylabel("GB/s (1e9 bytes/s, each byte moved counted once)")
    ax.legend(fontsize=8, loc="upper right")
    bw = doc["bandwidth"]
    ax.set_title(f"bandwidth: {bw['vector']} kernels, {bw['threads']} thread(s), {bw['pages']} pages; "
                 "bands: smallest to largest repeat", fontsize=9)
    return fig


def pressure(df: pd.DataFrame, colors: dict[str, str] | None = None) -> Figure:
    """Against the pressure block's size, one line per variant: the ratio to the baseline with its
    interval (diluted by the block's own cost as it grows), and the paired difference in ns per
    call with its interval (the block cancels in it)."""
    variants = list(dict.fromkeys(df["variant"]))
    col = _colors(variants, colors)
    fig = Figure(figsize=(8, 6.5))
    ax_r, ax_d = fig.subplots(2, 1, sharex=True)
    x0 = 32  # size 0 (no block) drawn left of the smallest block, on the log axis
    for v in variants:
        g = df[df["variant"] == v].sort_values("pressure_bytes")
        x = np.where(g["pressure_bytes"] > 0, g["pressure_bytes"], x0)
        ax_r.plot(x, g["ratio"], color=col[v], marker="o", ms=4, lw=1.2, label=_label(v))
        _band(ax_r, x, g["ratio"], g["ci_low"], g["ci_high"], col[v])
        ax_d.plot(x, g["diff_ns"], color=col[v], marker="o", ms=4, lw=1.2)
        _band(ax_d, x, g["diff_ns"], g["diff_low"], g["diff_high"], col[v])
    ax_r.axhline(1, color="k", lw=0.8)
    ax_d.axhline(0, color="k", lw=0.8)
    ax_d.set_xscale("log", base=2)
    ticks = sorted(set(np.where(df["pressure_bytes"] > 0, df["pressure_bytes"], x0)))
    ax_d.xaxis.set_major_locator(FixedLocator(ticks))
    ax_d.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: "none" if v == x0 else _bytes_label(v)))
    ax_d.xaxis.set_minor_formatter(NullFormatter())
    ax_d.set_xlim(min(ticks) / 1.5, max(ticks) * 1.5)  # one size too: the point mid-axis, labelled alone
    _log_ratio_axis(ax_r.yaxis)
    base = _label(str(df["baseline"].iloc[0]))
    ax_r.set_ylabel(f"ratio to {base}")
    ax_d.set_ylabel(f"ns per call minus {base}")
    # a large block's runs spread by hundreds of ns: symmetric log keeps the small sizes' few ns readable
    ax_d.set_yscale("symlog", linthresh=10)
    ax_d.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax_d.set_xlabel("instruction-cache pressure: bytes of generated jumps run after every call")
    ax_r.legend(fontsize=8)
    ax_r.set_title("against pressure size; bands: 95 % intervals over processes", fontsize=9)
    return fig


def threads(run: Run, level: float = 0.95, colors: dict[str, str] | None = None) -> Figure:
    """Per variant, thread 0's ns per call timed alone (hollow) and with every thread running
    (filled), each the median with its bootstrap interval, beside the other threads' medians
    (small; a triangle for thread 0's SMT sibling, which shares its core); below, thread 0's
    slowdown by the others with its interval (t over processes, or the sign test within one;
    analysis/threads.py). The upper axis is
    logarithmic, since variants differ tenfold; the lower one shows the few percent it hides."""
    from . import stats
    from .threads import core_mates, interference, thread_summary, threads_config

    col = _colors(run.variants, colors)
    summary = thread_summary(run, level)
    t0 = measured(run.thread_batches[run.thread_batches["thread"] == 0]) if len(run.thread_batches) else \
        measured(run.batches).assign(alone=False)
    try:
        slow = interference(run, level).set_index("variant")
    except ValueError:
        slow = None
    mates = set(core_mates(run, 0))
    variants = [v for v in run.variants if v in set(summary["variant"])]
    fig = Figure(figsize=(max(6.0, 1.3 * len(variants) + 3.5), 7))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    for i, v in enumerate(variants):
        for dx, alone in ((-0.22, True), (0.0, False)):
            x = t0[(t0["variant"] == v) & (t0["alone"] == alone)]["ns_per_call"].to_numpy()
            if not len(x):
                continue
            ci = stats.bootstrap_median_ci(x, level, stats.DEFAULT_RESAMPLES)
            top.errorbar([i + dx], [ci.estimate], yerr=[[ci.estimate - ci.low], [ci.high - ci.estimate]], fmt="o",
                         color=col[v], mfc="white" if alone else col[v], mec=col[v], ms=8, capsize=3, lw=1.5)
        others = summary[(summary["variant"] == v) & ~summary["thread"].isin(["0", "all"])]
        for j, (_, r) in enumerate(others.iterrows()):
            x = i + 0.2 + 0.15 * j / max(1, len(others) - 1)
            y = r["median_ns_per_call"]
            top.errorbar([x], [y], yerr=[[y - r["ci_low"]], [r["ci_high"] - y]],
                         fmt="^" if int(r["thread"]) in mates else "s", color=col[v], ms=4, lw=0.8, alpha=0.8)
            if len(others) <= 8:  # each one's number while they fit beside the variant
                top.annotate(r["thread"], (x, y), xytext=(3, 3), textcoords="offset points", fontsize=6, color="0.3")
        if slow is not None and v in slow.index and slow.loc[v, "rounds"] > 0:
            s = slow.loc[v]
            bottom.errorbar([i], [s["slowdown_pct"]], yerr=[[s["slowdown_pct"] - s["slowdown_low"]],
                                                            [s["slowdown_high"] - s["slowdown_pct"]]],
                            fmt="o", color=col[v], ms=7, capsize=3, lw=1.5)
            bottom.annotate(f"{s['slowdown_pct']:+.1f} %", (i, s["slowdown_pct"]), xytext=(9, 0),
                            textcoords="offset points", va="center", fontsize=8)
    # the legend names the roles in black, since colour always means the variant
    if t0["alone"].any():
        top.plot([], [], "o", color="k", mfc="white", ms=8, label="thread 0 alone (others wait)")
    top.plot([], [], "o", color="k", ms=8, label="thread 0 with every thread running")
    top.plot([], [], "s", color="k", ms=4, label="other threads, each (numbered; with every thread running)")
    if mates:
        top.plot([], [], "^", color="k", ms=4, label="thread 0's SMT sibling (same core)")
    top.set_yscale("log")
    top.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    top.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    top.yaxis.set_minor_formatter(NullFormatter())
    top.set_ylabel("ns per call (median of batches)")
    # below the panels: inside, it would hide a point whatever corner it took
    handles, labels = top.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=2, frameon=False)
    fig.subplots_adjust(bottom=0.13)
    n = int(threads_config(run)["count"])
    top.set_title(f"{_what(run)}: {n} threads, medians with {level:.0%} intervals", fontsize=10)
    bottom.axhline(0, color="k", lw=0.8)
    if slow is None:
        bottom.text(0.5, 0.5, "no alone batches: no interference to show", transform=bottom.transAxes, ha="center")
        bottom.set_yticks([])
    bottom.set_ylabel("thread 0 slowed by the others (%)")
    bottom.set_xticks(range(len(variants)), [_label(v) for v in variants], fontsize=9)
    bottom.set_xlim(-0.6, len(variants) - 0.4)
    across = run.thread_batches["process"].nunique() >= 2
    bottom.set_title(f"together / alone, paired by round: {level:.0%} interval, "
                     + ("t over processes" if across else "sign test within one process"), fontsize=9)
    return fig


def history(points: pd.DataFrame, variant: str, changes: list, codes: pd.DataFrame, level: float = 0.95,
            color: str | None = None) -> Figure:
    """One variant's ratio to its baseline over a series (analysis.history): each file's ratio with
    its interval over processes, each segment's mean between change points as a line, a change
    point as a dashed line before its first point, and where the variant's or the baseline's code
    changed as a tick on the top edge."""
    g = points[points["variant"] == variant].sort_values("position")
    fig, ax = _figure(max(6.0, min(14.0, 0.32 * len(g) + 3)), 3.8)
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
    for i, (_, r) in enumerate(mark.iterrows()):
        ax.annotate("", (r["position"] - 0.5, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 10),
                    textcoords="offset points", arrowprops={"arrowstyle": "-|>", "color": "0.4"})
    if len(mark):
        ax.plot([], [], marker="v", linestyle="", color="0.4", label="code changed (variant or baseline)")
    labels = [str(t) if t else "" for t in g["label"]]
    ax.set_xticks(x)
    ax.set_xticklabels([f"{p}" + (f" {_label(t)}" if t else "") for p, t in zip(x, labels)], rotation=60, ha="right",
                       fontsize=7)
    ax.set_xlim(x[0] - 0.7, x[-1] + 0.7)
    base = str(g["baseline"].iloc[0])
    ax.set_ylabel(f"time ratio {_label(variant)} / {_label(base)}")
    ax.set_title(f"{_label(variant)} over {len(g)} results: ratio to {_label(base)}, change points by e-divisive "
                 "means", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig

"""Figures of comparisons: each verdict's ratio with its interval and simultaneous interval (the
forest; a before/after's shifts the same way), the per-round ratios of a run and how they moved
over it, and the ratios per distribution."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ...io.load import Run, measured
from ...verdicts.compare import Comparison, paired_rounds, withheld
from .base import (VERDICT_MARKERS, bin_of, binned, colors_for, log_limits, log_ratio_axis, new_figure,
                   short_label, tiers, time_edges, title_of)

if TYPE_CHECKING:
    from ...verdicts.diff import Shift


def _measures(comps: list[Comparison]) -> str:
    return ", ".join(dict.fromkeys(c.measure for c in comps)) or "throughput"


def shown_verdict(c: Comparison) -> str:
    """The verdict as the headline says it: "withheld" where a rule held it back."""
    return "withheld" if withheld(c) else c.verdict


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


def _forest_panel(ax, rows: list[ForestRow], margin: float, col: dict[str, str], around_one: bool) -> None:
    """One panel of a forest: its rows top to bottom, the margin band and 1; its x range holds every
    interval (and 1 with the margin when around_one) with room on both sides (log space)."""
    for i, r in enumerate(rows):
        y = len(rows) - 1 - i
        ax.plot([r.adj_low, r.adj_high], [y, y], color=col[r.key], lw=1)
        ax.plot([r.low, r.high], [y, y], color=col[r.key], lw=4, alpha=0.6)
        ax.plot([r.ratio], [y], VERDICT_MARKERS.get(r.verdict, "o"), color=col[r.key], markeredgecolor="k", ms=6)
    ends = [v for r in rows for v in (r.adj_low, r.adj_high, r.low, r.high, r.ratio)]
    lo, hi = log_limits(ends + ([1 / (1 + margin), 1 + margin] if around_one else []))
    ax.axvspan(1 / (1 + margin), 1 + margin, color="0.8", alpha=0.6, lw=0, label=f"equivalence margin ±{margin:.1%}")
    if lo <= 1 <= hi:
        ax.axvline(1, color="k", lw=0.8)
    ax.set_xlim(lo, hi)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_yticks(range(len(rows)), [r.label for r in reversed(rows)], fontsize=8)
    log_ratio_axis(ax.xaxis)
    ax.grid(axis="x", color="0.9", lw=0.6)
    ax.set_axisbelow(True)


def _forest(rows: list[ForestRow], margin: float, col: dict[str, str], title: str, xlabel: str) -> Figure:
    """Ratios with per-row (thick) and simultaneous (thin) intervals on a log axis labelled with
    plain numbers, the equivalence margin as a band, the marker showing the verdict (legend), each
    row labelled with its numbers. Rows whose intervals reach far from 1 beside rows near it (the
    byte loop at 3x beside variants within a few %; base.tiers) get a panel below with an axis
    of their own: on one axis the near rows' intervals would shrink to a few pixels around 1.
    Panels, not a broken axis nor a wider log axis: each panel keeps a continuous, labelled scale
    that a reader reads a ratio off without minding where a break sits, and the near rows keep
    the resolution to show a 1 % margin."""
    rows = [r for r in rows if np.isfinite(r.ratio)]
    extents = [max((abs(np.log(v)) for v in (r.adj_low, r.adj_high, r.ratio) if np.isfinite(v) and v > 0),
                   default=0.0) for r in rows]
    groups = [[rows[i] for i in g] for g in tiers(extents, float(np.log1p(margin)))]
    fig = Figure(figsize=(8, 0.45 * len(rows) + 1.6 + 1.0 * (len(groups) - 1)))
    axes = fig.subplots(len(groups), 1, squeeze=False,
                        gridspec_kw={"height_ratios": [max(1, len(g)) for g in groups]})[:, 0]
    for k, (ax, group) in enumerate(zip(axes, groups)):
        if group:
            _forest_panel(ax, group, margin, col, around_one=k == 0)
        ax.set_xlabel(xlabel, fontsize=9)
        if k:
            ax.set_title("reaching farther from 1 than the rows above: on an axis of their own", fontsize=9,
                         loc="left")
    if not rows:
        axes[0].text(0.5, 0.5, "no comparisons", transform=axes[0].transAxes, ha="center")
        axes[0].set_yticks([])
    handles, labels = axes[0].get_legend_handles_labels()
    for verdict in dict.fromkeys(r.verdict for r in rows):
        handles.append(Line2D([], [], marker=VERDICT_MARKERS.get(verdict, "o"), ls="", color="w",
                              markeredgecolor="k"))
        labels.append(verdict)
    axes[0].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    axes[0].set_title(title, fontsize=10)
    if len(groups) > 1:
        # about 0.85 in between panels: the upper one's tick labels and x label, the lower one's title
        avg = (0.77 * fig.get_figheight() - 0.85 * (len(groups) - 1)) / len(groups)
        fig.subplots_adjust(hspace=0.85 / max(0.3, avg))
    return fig


def forest(comps: list[Comparison], margin: float | None = None, colors: dict[str, str] | None = None) -> Figure:
    """Ratio to the baseline with per-comparison (thick) and simultaneous (thin) intervals, in the
    variant's colour; the marker shows the verdict (legend), the row label its numbers."""
    comps = [c for c in comps if np.isfinite(c.ratio)]
    col = colors_for([c.baseline for c in comps] + [c.variant for c in comps], colors)
    m = margin if margin is not None else (comps[0].margin if comps else 0.01)
    rows = [ForestRow(f"{short_label(c.variant)} vs {short_label(c.baseline)} ({short_label(c.distribution)}) — {shown_verdict(c)}\n"
                      f"{c.ratio:.4f} [{c.ci_adj_low:.4f}, {c.ci_adj_high:.4f}]", c.variant, c.ratio, c.ci_low, c.ci_high,
                      c.ci_adj_low, c.ci_adj_high, shown_verdict(c)) for c in comps]
    across = any(c.across_processes for c in comps)
    over = "the code placement model over processes" if any(c.placement_model for c in comps) else "t over processes"
    return _forest(rows, m, col, f"{_measures(comps)}: paired ratios with 95 % (thick) and simultaneous (thin, "
                   "labelled) intervals,\n" + (over if across else "sign test within one process"),
                   "time ratio variant / baseline (below 1: faster)")


def shifts(items: list[Shift], margin: float, colors: dict[str, str] | None = None) -> Figure:
    """diff: each variant's after / before ratio (verdicts.diff.Shift) with its interval and
    simultaneous interval, as the forest of a comparison."""
    col = colors_for([s.variant for s in items], colors)
    what = f"ratio to {items[0].normalized_by}" if items and items[0].normalized_by else "time per call"
    rows = [ForestRow(f"{short_label(s.variant)} — {s.verdict}\n{s.ratio:.4f} [{s.ci_adj_low:.4f}, {s.ci_adj_high:.4f}]",
                      s.variant, s.ratio, s.ci_low, s.ci_high, s.ci_adj_low, s.ci_adj_high, s.verdict) for s in items]
    return _forest(rows, margin, col, f"after / before of each variant's {what}: 95 % (thick) and simultaneous "
                   "(thin,\nlabelled) intervals, Welch t on each side's error", "after / before (below 1: after is faster)")


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
    col = colors_for(run.variants, colors)
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
        if c.ci_low > 0 and np.isfinite(c.ci_low) and np.isfinite(c.ci_high):  # no interval (too few rounds): none drawn
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
        log_ratio_axis(ax.xaxis)
        ax.set_ylabel("rounds", fontsize=8)
        outside = 1 - inside.mean()
        ax.text(1.01, 0.5, f"{short_label(c.variant)} / {short_label(c.baseline)}\n{c.ratio:.4f} [{c.ci_low:.4f}, "
                f"{c.ci_high:.4f}]\n{shown_verdict(c)}\n{100 * outside:.1f} % of rounds off the axis", transform=ax.transAxes,
                fontsize=8, va="center")
    if not comps:
        axes[0].text(0.5, 0.5, "no comparisons", transform=axes[0].transAxes, ha="center")
    axes[-1].set_xlabel(f"per-round time ratio variant / baseline (each panel: its rounds' quartiles ± "
                        f"{ROBUST_IQRS:g} IQR within the {100 * ROBUST_TAIL:g}-{100 * (1 - ROBUST_TAIL):g} % range)")
    axes[0].set_title(f"{title_of(run)}: per-round ratios\n"
                      "solid: the estimate, band: its 95 % interval, dashed: the median round", fontsize=10)
    fig.subplots_adjust(hspace=0.45)
    return fig


def ratio_over_time(run: Run, comps: list[Comparison], bins: int = 60, colors: dict[str, str] | None = None,
                    ratios: Ratios | None = None) -> Figure:
    """Drift: per comparison, in a panel of its own (a ratio of 3 and one of 1.01 on one axis would
    flatten the second), the median per-round ratio in up to `bins` time bins (time since the first
    batch of its process, every process pooled), the range of the processes' own medians as a band
    (one line per process would be spaghetti), against the comparison's estimate (dotted). A flat
    line means the ratio did not move while the run went on."""
    comps = _comparisons_of(run, comps)
    col = colors_for(run.variants, colors)
    fig = Figure(figsize=(10, 1.5 * max(1, len(comps)) + 1.1))
    axes = fig.subplots(max(1, len(comps)), 1, sharex=True, squeeze=False)[:, 0]
    used, procs = bins, 1
    for ax, c in zip(axes, comps):
        r = _ratios_for(run, c, ratios).dropna()
        r = r[np.isfinite(r["d"])]
        if len(r) < 2:
            ax.text(0.5, 0.5, "too few rounds", transform=ax.transAxes, ha="center")
            ax.set_yticks([])
            continue
        procs = r["process"].nunique()
        edges = time_edges(r["t"].to_numpy(), len(r) / procs, bins)
        which, used = bin_of(edges, r["t"].to_numpy()), len(edges) - 1
        q = binned(r["d"].to_numpy(), which, r["process"].to_numpy())
        x = (edges[q.index] + edges[q.index + 1]) / 2
        if procs >= 2:
            ax.fill_between(x, np.exp(q["low"]), np.exp(q["high"]), color=col[c.variant], alpha=0.2, lw=0)
        ax.plot(x, np.exp(q["median"].to_numpy()), color=col[c.variant], lw=1.2)
        ax.axhline(c.ratio, color="k", lw=0.9, ls=":")
        log_ratio_axis(ax.yaxis)
        ax.grid(axis="y", color="0.9", lw=0.6)
        ax.text(1.01, 0.5, f"{short_label(c.variant)} / {short_label(c.baseline)}\nestimate {c.ratio:.4f}\n{shown_verdict(c)}",
                transform=ax.transAxes, fontsize=8, va="center")
    if not comps:
        axes[0].text(0.5, 0.5, "no comparisons", transform=axes[0].transAxes, ha="center")
        axes[0].set_yticks([])
    axes[-1].set_xlabel("time since the first batch of its process (s)")
    fig.supylabel("time ratio variant / baseline (log)", fontsize=9)
    spread = (f"band: the range of the {procs} processes' own medians" if procs >= 2 else
              "one process: no spread between processes")
    axes[0].set_title(f"{title_of(run)}: ratio over the run\nmedian round in each of {used} time bins, every process "
                      f"pooled; {spread}; dotted: the estimate", fontsize=10)
    fig.subplots_adjust(hspace=0.35)
    return fig


def ratio_by_distribution(comps: list[Comparison], colors: dict[str, str] | None = None) -> Figure:
    """Each variant's ratio to the baseline on each distribution, with its per-comparison
    interval: the forest's numbers arranged by distribution (log axis, below 1: faster), colour
    by variant, marker by verdict. Variants far from 1 beside others near it (base.tiers) are
    drawn in a panel below with an axis of their own, as in the forest."""
    comps = [c for c in comps if np.isfinite(c.ratio)]
    col = colors_for([c.baseline for c in comps] + [c.variant for c in comps], colors)
    if not comps:
        fig, ax = new_figure(9, 4.5)
        ax.text(0.5, 0.5, "no comparisons", transform=ax.transAxes, ha="center")
        return fig
    dists = list(dict.fromkeys(c.distribution for c in comps))
    variants = list(dict.fromkeys(c.variant for c in comps))
    margin = comps[0].margin
    extents = [max(abs(np.log(v)) for c in comps if c.variant == var for v in (c.ci_low, c.ci_high, c.ratio)
                   if np.isfinite(v) and v > 0) for var in variants]
    groups = [[variants[i] for i in g] for g in tiers(extents, float(np.log1p(margin)))]
    fig = Figure(figsize=(9, 4.5 + 2.5 * (len(groups) - 1)))
    axes = fig.subplots(len(groups), 1, sharex=True, squeeze=False)[:, 0]
    width = 0.8 / max(1, len(variants))
    for k, (ax, group) in enumerate(zip(axes, groups)):
        ends = [] if k else [1 / (1 + margin), 1 + margin]
        for v in group:
            i = variants.index(v)
            for c in (c for c in comps if c.variant == v):
                x = dists.index(c.distribution) + (i - (len(variants) - 1) / 2) * width
                ax.plot([x, x], [c.ci_low, c.ci_high], color=col[v], lw=2)
                ax.plot([x], [c.ratio], VERDICT_MARKERS.get(c.verdict, "o"), color=col[v], markeredgecolor="k")
                ends += [c.ci_low, c.ci_high, c.ratio]
        lo, hi = log_limits(ends)
        if lo <= 1 <= hi:
            ax.axhline(1, color="k", lw=0.8)
        ax.set_ylim(lo, hi)
        log_ratio_axis(ax.yaxis)
        ax.grid(axis="y", color="0.9", lw=0.6)
        ax.set_axisbelow(True)
        ax.set_ylabel(f"time ratio to {short_label(comps[0].baseline)}", fontsize=9)
    handles = [Line2D([], [], color=col[v], lw=2) for v in variants]
    labels = [short_label(v) for v in variants]
    for verdict in dict.fromkeys(c.verdict for c in comps):
        handles.append(Line2D([], [], marker=VERDICT_MARKERS.get(verdict, "o"), ls="", color="w", markeredgecolor="k"))
        labels.append(verdict)
    axes[0].legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    axes[-1].set_xticks(range(len(dists)), [short_label(d) for d in dists], rotation=20, ha="right", fontsize=8)
    axes[-1].set_xlim(-0.6, len(dists) - 0.4)
    axes[0].set_title(f"{_measures(comps)}: ratio per distribution with 95 % intervals (below 1: faster; marker: "
                      "verdict, as in the forest plot)", fontsize=10)
    for ax in axes[1:]:
        ax.set_title("reaching farther from 1 than the variants above: on an axis of their own", fontsize=9, loc="left")
    return fig

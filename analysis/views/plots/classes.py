"""The figure of a --by-class decomposition: where a variant's difference from the baseline comes
from, class by class, with the residual."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from .base import VERDICT_MARKERS, colors_for, log_ratio_axis, short_label

if TYPE_CHECKING:
    from ...verdicts.classes import Decomposition


def contributions(dec: Decomposition, colors: dict[str, str] | None = None) -> Figure:
    """Where the difference comes from: per size class, its contribution to the whole
    distribution's difference (ns per call, with its interval), then the residual (mixing
    effects the classes timed apart miss) and the whole difference; the class's ratio and verdict
    (marker) on a second axis below."""
    col = colors_for([dec.baseline, dec.variant], colors)
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
    top.set_ylabel(f"ns per call ({short_label(dec.variant)} - {short_label(dec.baseline)})")
    top.set_title(f"{dec.function} on {short_label(dec.distribution)} ({dec.measure}): where {short_label(dec.variant)}'s difference from "
                  f"{short_label(dec.baseline)} comes from\n(class: call share x per-class difference; residual: what "
                  f"timing classes apart misses; {round(100 * dec.classes[0].comparison.level)} % intervals over "
                  f"{dec.n_units} {dec.units.split(' ')[0]})", fontsize=10)
    for c, xi in zip(dec.classes, x):
        cmp = c.comparison
        bottom.plot([xi, xi], [cmp.ci_low, cmp.ci_high], color=col[dec.variant], lw=2)
        bottom.plot([xi], [cmp.ratio], VERDICT_MARKERS[cmp.verdict], color=col[dec.variant], markeredgecolor="k")
    for verdict in dict.fromkeys(c.comparison.verdict for c in dec.classes):
        bottom.plot([], [], VERDICT_MARKERS[verdict], color="w", markeredgecolor="k", label=verdict)
    bottom.axhline(1, color="k", lw=0.8)
    log_ratio_axis(bottom.yaxis)
    bottom.set_ylabel("ratio within the class (log)")
    bottom.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    bottom.set_xticks(x, labels, rotation=35, fontsize=8)
    bottom.set_xlabel("size class (bytes)")
    return fig

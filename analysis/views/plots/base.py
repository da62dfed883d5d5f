"""What every figure shares: one colour per variant (palette), a marker per verdict, labels safe
to draw, log axes of ratios and of bytes, interval bands, and `save`. Figures are made without
pyplot, so nothing depends on a GUI backend and a notebook shows each returned figure once; each
plot module (one per domain) returns a Figure."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

if TYPE_CHECKING:
    from ...io.load import Run


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


def colors_for(names: list[str], colors: dict[str, str] | None) -> dict[str, str]:
    base = dict(colors or {})
    extra = [n for n in names if n not in base]
    for n, c in palette(list(base) + extra).items():
        base.setdefault(n, c)
    return base


def title_of(run: Run) -> str:
    """The head of a run's figure title: function, distribution and what was measured."""
    return f"{run.function} on {short_label(run.distribution)} ({run.measure})"


def short_label(text: str) -> str:
    short = text if len(text) <= LABEL_MAX else text[:LABEL_MAX - 1] + "…"
    return short.replace("$", r"\$")


def new_figure(w: float, h: float):
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


# Ratios worth a label on a log axis: dense near 1, where verdicts are decided, sparse far away.
RATIO_TICKS = (0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0)


def log_ratio_axis(axis) -> None:
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


def band(ax, x, y, low, high, color: str) -> None:
    """An interval band along x; a single point (a sweep of one size, one pressure block) as an
    error bar, since a band over one x has no width to show."""
    x, y, low, high = (np.asarray(a, dtype=float) for a in (x, y, low, high))
    if len(x) == 1:
        ax.errorbar(x, y, yerr=[y - low, high - y], color=color, capsize=4, lw=1.2, fmt="none")
    else:
        ax.fill_between(x, low, high, color=color, alpha=0.2, lw=0)


def bytes_label(v: float, _pos: int = 0) -> str:
    for unit, f in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= f:
            return f"{v / f:g}{unit}"
    return f"{v:g}"

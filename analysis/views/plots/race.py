"""memfbench tune's race as a figure: each candidate's ratio to the baseline with its interval at
each step it ran, the dropped ones ending where they were dropped, the leader drawn over the rest."""
from __future__ import annotations

from matplotlib.figure import Figure

from matplotlib.ticker import MaxNLocator

from .base import log_ratio_axis, new_figure, short_label

# Only this many of the candidates left are named (the fastest, by their last ratio); the rest are
# thin grey lines.
NAMED_MAX = 8


def race_figure(race: dict) -> Figure:
    fig, ax = new_figure(8.0, 4.8)
    cands = race["candidates"]
    leader = race["leader"]
    last = {c["name"]: c["ratio"] for c in cands if c["history"]}
    named = set(sorted(race["alive"], key=lambda k: (last.get(k, float("inf")), k))[:NAMED_MAX]) | {leader}
    for c in sorted(cands, key=lambda c: c["name"] in named):
        h = c["history"]
        if not h:
            continue
        steps = [x["step"] for x in h]
        ratios = [x["ratio"] for x in h]
        if c["name"] in named:
            lows = [x["low"] or x["ratio"] for x in h]
            highs = [min(x["high"] or x["ratio"], 10 * x["ratio"]) for x in h]
            ax.errorbar(steps, ratios, yerr=[[r - lo for r, lo in zip(ratios, lows)],
                                             [hi - r for r, hi in zip(ratios, highs)]],
                        marker="o", capsize=3, lw=2 if c["name"] == leader else 1,
                        label=short_label(c["name"]) + (" (leader)" if c["name"] == leader else ""))
        else:
            ax.plot(steps, ratios, color="0.7", lw=0.8)
            if c["dropped_at"]:
                ax.plot(steps[-1:], ratios[-1:], color="0.5", marker="x", ms=4, ls="")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set_yscale("log")
    log_ratio_axis(ax.yaxis)
    ax.set_xlabel("race step (grey: candidates dropped on the way, x where dropped)")
    ax.set_ylabel(f"time / {short_label(race['baseline'])} (log)")
    steps_run = max(s["step"] for s in race["steps"])
    if steps_run <= 12:  # every step a tick (a locator on a short axis ticks between the steps)
        ax.set_xticks(range(1, steps_run + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
    ax.set_xlim(0.5, steps_run + 0.5)
    ax.set_title(f"race of {len(cands)} candidates: {len(race['alive'])} left, leader {short_label(leader)}",
                 fontsize=9)
    ax.legend(fontsize=6, loc="upper right", title=f"the {len(named)} fastest left", title_fontsize=6)
    return fig

"""The figure of several timing threads: thread 0 alone and with the others beside each other
thread, and thread 0's slowdown."""
from __future__ import annotations

from matplotlib.figure import Figure

from ...io.load import Run, measured
from ...stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_median_ci
from ...stats.threads import core_mates, interference, thread_summary, threads_config
from .base import colors_for, plain_log_axis, short_label, title_of


def threads(run: Run, level: float = 0.95, colors: dict[str, str] | None = None) -> Figure:
    """Per variant, thread 0's ns per call timed alone (hollow) and with every thread running
    (filled), each the median with its bootstrap interval, beside the other threads' medians
    (small; a triangle for thread 0's SMT sibling, which shares its core); below, thread 0's
    slowdown by the others with its interval (t over processes, or the sign test within one;
    stats/threads.py). The upper axis is logarithmic, since variants differ tenfold; the lower one
    shows the few percent it hides."""
    col = colors_for(run.variants, colors)
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
            ci = bootstrap_median_ci(x, level, DEFAULT_RESAMPLES)
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
    plain_log_axis(top.yaxis)
    top.set_ylabel("ns per call (median of batches; log)")
    # below the panels: inside, it would hide a point whatever corner it took
    handles, labels = top.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=2, frameon=False)
    fig.subplots_adjust(bottom=0.13)
    n = int(threads_config(run)["count"])
    top.set_title(f"{title_of(run)}: {n} threads, medians with {level:.0%} intervals", fontsize=10)
    bottom.axhline(0, color="k", lw=0.8)
    if slow is None:
        bottom.text(0.5, 0.5, "no alone batches: no interference to show", transform=bottom.transAxes, ha="center")
        bottom.set_yticks([])
    bottom.set_ylabel("thread 0 slowed by the others (%)")
    bottom.set_xticks(range(len(variants)), [short_label(v) for v in variants], fontsize=9)
    bottom.set_xlim(-0.6, len(variants) - 0.4)
    across = run.thread_batches["process"].nunique() >= 2
    bottom.set_title(f"together / alone, paired by round: {level:.0%} interval, "
                     + ("t over processes" if across else "sign test within one process"), fontsize=9)
    return fig

"""The figures of a probe file: load latency and bandwidth against size, with the cache sizes the
system reports and the capacities the probe found."""
from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from .. import probe as pr
from .base import PlainFormatter, PlainLogLocator, bytes_label, plain_log_axis


def _size_axis(ax) -> None:
    ax.set_xscale("log", base=2)
    ticks = [1 << k for k in range(10, 41, 2)]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(bytes_label))


def _level_marks(ax, doc: dict, text: bool) -> None:
    """Dashed: the sizes the system reports; solid: the capacities the probe found."""
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
    plain_log_axis(ax.yaxis)


def probe_latency(doc: dict) -> Figure:
    """ns per load against buffer size, one line per chain pattern and page kind, with the spread
    of the repeats as a band; the reported and the found cache sizes marked."""
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
    ax.set_ylabel("ns per dependent load (log)")
    clk = doc["core_clock"]
    if clk["known"]:
        sec = ax.secondary_yaxis("right", functions=(lambda ns: ns * clk["ghz"], lambda c: c / clk["ghz"]))
        sec.set_ylabel(f"core cycles at {clk['ghz']:.2f} GHz (log)")
        sec.yaxis.set_major_locator(PlainLogLocator())
        sec.yaxis.set_major_formatter(PlainFormatter())
        sec.yaxis.set_minor_formatter(NullFormatter())
    # below the axes: inside it covered the small sizes' bands, and the right holds the cycles axis
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, frameon=False)
    reps = int(df["repeats"].max()) if len(df) else 0
    ax.set_title(f"load latency; bands: smallest to largest of {reps} repeats; dashed: sizes sysfs reports, "
                 f"solid: {'caches found (--cache-from)' if doc.get('caches_found') else 'capacities found'}",
                 fontsize=9)
    return fig


def probe_bandwidth(doc: dict) -> Figure:
    """GB/s against footprint, one line per kernel with the spread of the repeats."""
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
    ax.set_ylabel("GB/s (1e9 bytes/s, each byte moved counted once; log)")
    # outside: inside it covered a curve or a cache size's label whichever corner it took
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    bw = doc["bandwidth"]
    ax.set_title(f"bandwidth: {bw['vector']} kernels, {bw['threads']} thread(s), {bw['pages']} pages; "
                 "bands: smallest to largest repeat", fontsize=9)
    return fig

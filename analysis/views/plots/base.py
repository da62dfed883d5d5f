"""What every figure shares: one colour per variant (palette), a marker per verdict, labels safe
to draw, log axes of ratios and of bytes, interval bands, and `save`. Figures are made without
pyplot, so nothing depends on a GUI backend and a notebook shows each returned figure once; each
plot module (one per domain) returns a Figure."""
from __future__ import annotations

import gc
import os
import pickle
import signal
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox
from matplotlib.ticker import Formatter, FuncFormatter, Locator, NullFormatter

if TYPE_CHECKING:
    from ...io.load import Run


# Names come from result files: a long one would widen a figure past what Agg can draw, and a
# "$" would start mathtext (an unpaired one fails at drawing).
LABEL_MAX = 60


# One colour per variant in every figure of a report: the variant's place in the list of every
# variant name met (baseline first), through matplotlib's ten-colour cycle. Verdicts are shown by
# marker and text, never by colour, so a colour always means a variant.
VERDICT_MARKERS = {"faster": "v", "slower": "^", "equivalent": "D", "inconclusive": "o", "withheld": "X"}


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


# The resolution of every PNG the analysis writes.
DPI = 120


def tight_box(fig: Figure, dpi: float = DPI) -> Bbox:
    """The part of the figure savefig(bbox_inches="tight") writes at dpi, in inches, padded as it
    pads: the extent of everything drawn (the legends outside the axes too), found with the renderer
    that savefig's own search makes (Agg's, at dpi), but without the whole draw it makes before
    searching, which laid every figure out twice (each draw lays out every tick and label, most of
    what a figure costs). The artists lay themselves out for the search (get_tightbbox), so the box
    is the same: tests/py/test_plots_readable.py checks the bytes written are."""
    from matplotlib import cbook, rcParams
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    before = fig.canvas
    canvas = FigureCanvasAgg(fig)  # the figure's canvas while it lives (savefig switches the same way)
    try:
        with cbook._setattr_cm(fig, dpi=dpi):
            box = fig.get_tightbbox(canvas.get_renderer())
    finally:
        fig.set_canvas(before)
    return box.padded(rcParams["savefig.pad_inches"])


def write_png(fig: Figure, target: str | Path | BinaryIO) -> None:
    """The figure as PNG at DPI, cropped as savefig(bbox_inches="tight") crops it, drawn once."""
    fig.savefig(target, format="png", dpi=DPI, bbox_inches=tight_box(fig, DPI))


def save(fig: Figure, stem: Path, svg: bool = False) -> list[Path]:
    """Writes stem.png (and stem.svg when asked: drawing it costs as much again); returns the paths,
    PNG first."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = [stem.with_suffix(".png")] + ([stem.with_suffix(".svg")] if svg else [])
    write_png(fig, out[0])
    if svg:
        fig.savefig(out[1], bbox_inches="tight")
    return out


# Processes that draw one report's figures at most: each figure is drawn whole by one of them, so
# the bytes are what one process draws; more than the figures or the CPUs this process may run on
# would only wait.
MAX_DRAWERS = 4
# A figure's number on the queue: 4 bytes, so the queue's pipe (64 KiB before a write waits for a
# reader) holds 16,384 figures; a longer list is drawn in this process alone.
QUEUE_RECORD = 4
QUEUE_MAX = (64 << 10) // QUEUE_RECORD


class Drawings:
    """The figures of one document, drawn into their files while the document's text is made.
    Drawing is most of what a report costs (laying out every tick and label twice: the tight box,
    then the PNG), and each figure is independent of the others and of the text, so forked
    processes (one fewer than the CPUs this process may run on, at most MAX_DRAWERS - 1) take
    figures from one queue while this process makes the text, and this process takes what is left
    after; each figure is drawn whole by one process. A drawer's error is raised here, as drawing
    the figure here would have raised it."""

    def __init__(self, svg: bool = False) -> None:
        self.svg = svg
        self.jobs: list[tuple[Callable[[], Figure], Path]] = []

    def add(self, make: Callable[[], Figure], stem: Path) -> Path:
        """Queues the figure make() returns, to be written as stem.png (and .svg); its PNG's path."""
        self.jobs.append((make, stem))
        return stem.with_suffix(".png")

    def _draw_from(self, queue: int) -> None:
        while (rec := os.read(queue, QUEUE_RECORD)):
            make, stem = self.jobs[int.from_bytes(rec, "little")]
            save(make(), stem, self.svg)

    @contextmanager
    def drawing(self) -> Iterator[None]:
        """Draws the figures queued so far while the block runs; when it ends, every one is written.
        A figure queued inside the block is not drawn."""
        drawers = min(MAX_DRAWERS, len(self.jobs), len(os.sched_getaffinity(0)))
        if drawers <= 1 or len(self.jobs) > QUEUE_MAX:
            yield
            for make, stem in self.jobs:
                save(make(), stem, self.svg)
            return
        queue, fill = os.pipe()
        errors_r, errors_w = os.pipe()
        pids: list[int] = []
        error = b""
        try:
            os.write(fill, b"".join(i.to_bytes(QUEUE_RECORD, "little") for i in range(len(self.jobs))))
            os.close(fill)
            fill = -1
            # the collector would visit (and so copy) every page of objects the drawers share
            gc.freeze()
            try:
                for _ in range(drawers - 1):
                    pid = os.fork()
                    if pid == 0:
                        _drawer(self, queue, errors_r, errors_w)
                    pids.append(pid)
            finally:
                gc.unfreeze()
            os.close(errors_w)
            errors_w = -1
            yield
            self._draw_from(queue)
        except BaseException:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            raise
        finally:
            failed = sum(os.waitpid(pid, 0)[1] != 0 for pid in pids)
            for fd in (queue, fill, errors_w):
                if fd >= 0:
                    os.close(fd)
            while (chunk := os.read(errors_r, 1 << 16)):
                error += chunk
            os.close(errors_r)
        if error:
            raise pickle.loads(error)
        if failed:
            raise RuntimeError(f"{failed} of the {len(pids)} processes drawing the figures ended without saying why")


# A drawer's error, pickled, in one write the pipe keeps whole (PIPE_BUF on Linux): two drawers
# failing at once cannot interleave their bytes.
ERROR_RECORD_MAX = 4096


def _drawer(d: Drawings, queue: int, errors_r: int, errors_w: int) -> None:
    """A forked drawer: its share of d's figures, then its error (pickled) or nothing; never returns."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt is the parent's to report
        os.close(errors_r)
        d._draw_from(queue)
    except BaseException as e:  # noqa: BLE001 - passed on whole to the parent, which raises it
        code = 1
        try:
            data = pickle.dumps(e)
        except Exception:  # noqa: BLE001 - an exception that cannot be pickled
            data = b""
        if not data or len(data) > ERROR_RECORD_MAX:
            data = pickle.dumps(RuntimeError(f"{type(e).__name__}: {str(e)[:1000]}"))
        os.write(errors_w, data)
    finally:
        os._exit(code)


# Plain-number ticks on log axes. matplotlib labels a log axis only at powers of ten (as 10^k), so
# an axis spanning less than a decade (a ratio of 0.98 to 1.02, ns per call from 13 to 20) shows no
# number at all. These ticks are plain numbers, at least LEAST_TICKS of them in view whatever the
# span: on a wide axis a 1-2-5 series (finer where it must be), on one narrower than a factor of 2
# evenly spaced round numbers (0.98, 1.00, 1.02), which a log axis that narrow draws almost evenly.
LEAST_TICKS = 3
MOST_TICKS = 8
# per decade, coarse to fine: the coarsest series with LEAST_TICKS in view is used
LOG_SUBS = ((1.0,), (1.0, 2.0, 5.0), (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
            (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0))


def _inside(t: float, lo: float, hi: float) -> bool:
    return lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9)


def linear_ticks(lo: float, hi: float, least: int = LEAST_TICKS) -> list[float]:
    """Multiples of the largest round step (1, 2 or 5 x 10^k) that puts at least `least` of them in
    [lo, hi]."""
    lo, hi = sorted((float(lo), float(hi)))
    span = hi - lo
    if not (np.isfinite(span) and span > 0):
        return [lo] if np.isfinite(lo) else []
    for e in range(int(np.floor(np.log10(span))), int(np.floor(np.log10(span))) - 4, -1):
        for m in (5, 2, 1):
            step = m * 10.0 ** e
            ks = np.arange(np.ceil(lo / step - 1e-9), np.floor(hi / step + 1e-9) + 1)
            if len(ks) >= least:
                return [float(f"{k * step:.12g}") + 0.0 for k in ks]  # + 0.0: no "-0"
    return [lo, hi]


def log_ticks(lo: float, hi: float, least: int = LEAST_TICKS, most: int = MOST_TICKS) -> list[float]:
    """Plain-number ticks for a log axis over [lo, hi] (both > 0): at least `least` whatever the span
    (see LOG_SUBS), at most about `most`, 1 among them whenever it is in range."""
    lo, hi = sorted((float(lo), float(hi)))
    if not (lo > 0 and np.isfinite(hi)):
        return []
    if hi / lo >= 2:
        e0, e1 = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
        for subs in LOG_SUBS:
            t = [float(f"{m * 10.0 ** e:.12g}") for e in range(e0, e1 + 1) for m in subs]
            t = [x for x in t if _inside(x, lo, hi)]
            if len(t) >= least:
                if len(t) > most:  # many decades: every k-th power of ten, 1 kept
                    k = int(np.ceil(len(t) / most))
                    t = [x for x in t if round(np.log10(x)) % k == 0] or t[::k]
                return t
    return linear_ticks(lo, hi, least)


class PlainLogLocator(Locator):
    """log_ticks of the axis's view, recomputed whenever the view changes (a shared or secondary
    axis included)."""

    def __init__(self, least: int = LEAST_TICKS) -> None:
        self.least = least

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin, vmax):
        return log_ticks(vmin, vmax, self.least)


def plain_labels(values) -> list[str]:
    """Tick labels as plain numbers: evenly spaced ticks with the same number of decimals (0.98,
    1.00, 1.02), others as short as they are (0.5, 1, 2, 5)."""
    v = np.asarray(values, dtype=float)
    if len(v) >= 3 and np.all(np.isfinite(v)):
        d = np.diff(v)
        if d[0] > 0 and np.allclose(d, d[0], rtol=1e-6):
            decimals = max(0, -int(np.floor(np.log10(d[0]) + 1e-9)))
            return [f"{x:.{decimals}f}" for x in v]
    return [f"{x:.6g}" for x in v]


class PlainFormatter(Formatter):
    """plain_labels for a tick set; one value (a cursor's position) in 4 significant digits."""

    def format_ticks(self, values):
        return plain_labels(values)

    def __call__(self, x, pos=None):
        return f"{x:.4g}"


class InViewLocator(Locator):
    """Another locator's ticks less those far outside the axis's view. matplotlib makes a tick (two
    lines and two labels, laid out) for every location its locator gives and draws those in view;
    a log axis's minor locator gives every decade's sub-ticks, mostly far outside a narrow ratio
    axis (155 made and 2 drawn in a default study's per-round ratios), whose making was most of a
    figure's cost. The view is widened by SLACK of its span (in the axis's scale), more than
    matplotlib's own tolerance, so every tick it would draw is kept: the figure is the same."""

    SLACK = 1e-6

    def __init__(self, inner: Locator) -> None:
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.inner(), dtype=float)
        if self.axis is None or not len(locs):
            return locs
        transform = self.axis.get_transform()
        lo, hi = sorted(transform.transform(np.asarray(self.axis.get_view_interval(), dtype=float)))
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.asarray(transform.transform(locs), dtype=float)
        slack = (hi - lo) * self.SLACK
        keep = ~((t < lo - slack) | (t > hi + slack))  # NaN (a location the scale cannot place) kept
        return locs[keep]

    def tick_values(self, vmin, vmax):
        return self.inner.tick_values(vmin, vmax)


def plain_log_axis(axis, least: int | None = None) -> None:
    """Makes `axis` (ax.xaxis or ax.yaxis) logarithmic, labelled with plain numbers at every span,
    at least `least` of them (PlainLogLocator; by default LEAST_TICKS, one more on an x axis, which
    is wider than a panel is high); minor ticks unlabelled, made only near the view (InViewLocator)."""
    getattr(axis.axes, f"set_{axis.axis_name}scale")("log")
    axis.set_major_locator(PlainLogLocator(least or LEAST_TICKS + (axis.axis_name == "x")))
    axis.set_major_formatter(PlainFormatter())
    axis.set_minor_locator(InViewLocator(axis.get_minor_locator()))
    axis.set_minor_formatter(NullFormatter())


def log_ratio_axis(axis, least: int | None = None) -> None:
    """A log axis of ratios labelled with plain numbers (0.98, 1.00, 1.02; 0.5, 1, 2), at least
    `least` in view however narrow or wide the ratios are; 1 is a tick whenever it is in view."""
    plain_log_axis(axis, least)


class SymlogPlainLocator(Locator):
    """Ticks of a symmetric log axis (linear within ±linthresh): round steps inside it, a 1-2-5
    series beyond, so that the linear stretch is labelled too."""

    def __init__(self, linthresh: float) -> None:
        self.linthresh = linthresh

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin, vmax):
        lo, hi = sorted((float(vmin), float(vmax)))
        lt = self.linthresh
        inner = linear_ticks(max(lo, -lt), min(hi, lt), 3) if max(lo, -lt) < min(hi, lt) else []
        # beyond it a 1-2-5 series, each tick at least a factor of 2 from the last (0.3 decade: no
        # label crowds the one at linthresh)
        top = max(abs(lo), abs(hi))
        decades = range(int(np.floor(np.log10(lt))), int(np.ceil(np.log10(top))) + 1) if top > lt else range(0)
        series = [float(f"{m * 10.0 ** e:.12g}") for e in decades for m in (1.0, 2.0, 5.0)]
        series = [t for t in series if 2 * lt * (1 - 1e-9) <= t <= top * (1 + 1e-9)]
        if len(series) > MOST_TICKS:
            series = [t for t in series if t == 10.0 ** round(np.log10(t))]
        outer = [t for t in series if t <= hi * (1 + 1e-9)] + [-t for t in series if -t >= lo * (1 + 1e-9)]
        return sorted(set(inner) | set(outer))


def symlog_plain_axis(axis, linthresh: float) -> None:
    """A symmetric log axis (linear within ±linthresh) labelled with plain numbers on both stretches."""
    getattr(axis.axes, f"set_{axis.axis_name}scale")("symlog", linthresh=linthresh)
    axis.set_major_locator(SymlogPlainLocator(linthresh))
    axis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    axis.set_minor_locator(InViewLocator(axis.get_minor_locator()))
    axis.set_minor_formatter(NullFormatter())


# Splitting an interval plot into panels: rows whose intervals reach at least FAR_SPLIT times
# farther from 1 (in log) than the next nearer row, and beyond NEAR_SPAN, get a panel of their own.
# On one axis the byte loop at 3.6x would squash rows within a few % of 1 into a few pixels; rows
# all within NEAR_SPAN (ratios 1/1.3 to 1.3) stay together, since an axis that wide still shows a
# 1 % margin some tens of pixels wide.
FAR_SPLIT = 3.0
NEAR_SPAN = float(np.log(1.3))


def tiers(extents: list[float], floor: float) -> list[list[int]]:
    """Rows grouped into panels, nearest to 1 first, each group's indices in the given order. A
    row's extent is how far (|log ratio|) its interval reaches from 1, taken as at least `floor`
    (the equivalence margin, drawn anyway). A new group starts at a row whose extent is at least
    FAR_SPLIT times the previous row's and beyond NEAR_SPAN."""
    ext = [max(float(e), floor, 1e-12) if np.isfinite(e) else max(floor, 1e-12) for e in extents]
    order = sorted(range(len(ext)), key=lambda i: ext[i])
    groups: list[list[int]] = []
    for k, i in enumerate(order):
        if not groups or (ext[i] >= FAR_SPLIT * ext[order[k - 1]] and ext[i] > NEAR_SPAN):
            groups.append([])
        groups[-1].append(i)
    return [sorted(g) for g in groups] or [[]]


def log_limits(values, pad: float = 0.08) -> tuple[float, float]:
    """Limits of a log axis holding every positive finite value, with `pad` of the span (in log)
    on each side (a single value: ±2 %), so no marker sits on the frame."""
    v = np.log([x for x in values if np.isfinite(x) and x > 0])
    lo, hi = float(v.min()), float(v.max())
    p = pad * (hi - lo) if hi > lo else 0.02
    return float(np.exp(lo - p)), float(np.exp(hi + p))


# Time bins of a series (batches, rounds): at least this many points of each process per bin, so
# that the spread of the processes' medians in a bin is the processes' (their code layouts), not
# the noise of a median of a few batches that each drew different calls.
BIN_LEAST = 20


def time_edges(t: np.ndarray, per_process: float, bins: int) -> np.ndarray:
    """Edges of equal time bins over t: `bins` of them, fewer where a process would have under
    BIN_LEAST of its `per_process` points in a bin (never under 10 unless bins is)."""
    n = int(np.clip(per_process // BIN_LEAST, min(10, bins), bins))
    return np.linspace(float(np.min(t)), float(np.max(t)), n + 1)


def bin_of(edges: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(edges) - 2)


# ...and a process's median in a bin counts towards the band only over at least this many of its
# points (a process that started late has one or two rounds in the first bin).
BAND_LEAST = 5


def binned(y: np.ndarray, which: np.ndarray, process: np.ndarray,
           spread: tuple[float, float] = (0.0, 1.0)) -> pd.DataFrame:
    """Per time bin: the median of its points (every process pooled) and, as low and high, the
    `spread` quantiles of the processes' own medians there (default the smallest and the largest),
    each over at least BAND_LEAST of its points (NaN with one process: no spread to show)."""
    df = pd.DataFrame({"bin": which, "process": process, "y": y})
    out = df.groupby("bin")["y"].median().to_frame("median")
    if df["process"].nunique() >= 2:
        per = df.groupby(["bin", "process"])["y"].agg(["median", "size"])
        per = per[per["size"] >= BAND_LEAST]["median"].groupby(level="bin")
        out["low"], out["high"] = per.quantile(spread[0]), per.quantile(spread[1])
    else:
        out["low"] = out["high"] = np.nan
    return out


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

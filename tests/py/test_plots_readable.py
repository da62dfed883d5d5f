"""Every figure can be read at a glance (issue 41): every numeric axis of every figure the report
and the plotting subcommands make shows at least two numbers, log axes over narrow ranges
included; no two tick labels of an axis overlap; no legend sits on its axes' data area; a forest
plot shows enough ticks to read a ratio whatever the number of variants and keeps variants within
a few % of 1 apart beside one at 3.6x; the time series summarize the processes (a few lines
whatever their number); a figure is drawn once, and written as savefig's tight crop writes it.
Structural properties only: nothing here depends on timing."""
from __future__ import annotations

import io
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator

from analysis import cli
from analysis.io.load import load_run
from analysis.verdicts.compare import Comparison, compare_runs
from analysis.views.plots import base
from analysis.views.plots.comparisons import forest, ratio_by_distribution, ratio_over_time, round_ratios
from analysis.views.plots.runs import timeseries
from conftest import GEOMETRY

# the module's studies include one of two timing threads, and a report's figures are drawn by
# forked drawers, one fewer than the CPUs it may run on
pytestmark = pytest.mark.all_cpus

SHORT = ["--warmup-rounds", "2", "-q", *GEOMETRY]


@pytest.fixture(scope="module")
def files(memfbench, tmp_path_factory) -> dict[str, Path]:
    """Short studies of every kind a report draws: several processes with the byte loop (a ratio
    of about 3) beside a near variant, one variant on another distribution, --by-class, --threads,
    a sweep, a probe, two pressure sizes and a short history series."""
    d = tmp_path_factory.mktemp("plots")
    runs = {
        "study": ["run", "-v", "libc", "-v", "sse2", "-v", "bytes", "--rounds", "60", "--processes", "4", *SHORT],
        "one": ["run", "-v", "libc", "-v", "sse2", "-d", "fleetbench/Memcpy_1", "--rounds", "40", "--processes", "3",
                *SHORT],
        "classes": ["run", "-v", "libc", "-v", "sse2", "--by-class", "--rounds", "30", "--processes", "2", *SHORT],
        "threads": ["run", "-v", "libc", "-v", "sse2", "--threads", "2", "--rounds", "20", "--processes", "2", *SHORT],
        "sweep": ["sweep", "16-64:16", "-v", "libc", "-v", "sse2", "--rounds", "8", "--processes", "2", "-q",
                  "--warmup-rounds", "2"],
        "probe": ["probe", "--quick", "-q"],
        "pressure0": ["run", "-v", "libc", "-v", "sse2", "--rounds", "20", "--processes", "2", *SHORT],
        "pressure4k": ["run", "-v", "libc", "-v", "sse2", "--icache-pressure", "4K", "--rounds", "20",
                       "--processes", "2", *SHORT],
        **{f"history{i}": ["run", "-v", "libc", "-v", "sse2", "--rounds", "16", "--processes", "2", *SHORT]
           for i in range(3)},
    }
    out = {}
    for name, args in runs.items():
        out[name] = d / f"{name}.json"
        p = subprocess.run([memfbench, *args, "-o", str(out[name])], capture_output=True, text=True, timeout=300)
        if name == "threads" and p.returncode != 0:
            out.pop(name)  # fewer than two CPUs: the threads figure is not drawn here
            continue
        assert p.returncode == 0, (name, p.stderr)
    return out


@pytest.fixture
def drawn(monkeypatch) -> list[Figure]:
    """Every figure saved while the test runs, all drawn in this process (a report's drawers are
    forked processes, whose figures this list would not see)."""
    monkeypatch.setattr(base, "MAX_DRAWERS", 1)
    figures: list[Figure] = []
    save = Figure.savefig

    def record(self, *args, **kwargs):
        figures.append(self)
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", record)
    return figures


def draw(fig: Figure):
    """Draws `fig` as a PNG would be, at 100 dpi (what pixel distances here are in); its renderer."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def axes_of(fig: Figure):
    for ax in fig.axes:
        yield ax
        yield from ax.child_axes  # a secondary axis (cycles beside ns)


def drawn_labels(axis) -> list:
    """The tick labels of `axis` a reader sees: major ticks within the view, label shown, with text."""
    locs = axis.get_majorticklocs()
    axis.get_majorticklabels()  # brings the labels up to date
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * max(abs(lo), abs(hi), 1e-300)
    return [label for loc, tick in zip(locs, axis.get_major_ticks(len(locs))) if lo - slack <= loc <= hi + slack
            for label in (tick.label1, tick.label2) if label.get_visible() and label.get_text().strip()]


NUMBER = re.compile(r"^(−|-)?[0-9.]+([eE][-+−]?[0-9]+)?[KMG]?$|^none$")


def numeric(axis) -> bool:
    """An axis of numbers with its labels switched on: not one of categories (forest rows, size
    classes, distributions: names at fixed places), not a shared axis whose labels the panel
    below carries, not a panel with nothing to show (its ticks removed)."""
    ticks = axis.get_major_ticks(1)
    if not axis.get_visible() or not ticks or not (ticks[0].label1.get_visible() or ticks[0].label2.get_visible()):
        return False
    if isinstance(axis.get_major_locator(), FixedLocator):
        texts = [t.get_text() for t in drawn_labels(axis)]
        if not texts or not all(NUMBER.match(t) for t in texts):
            return False
    return len(axis.get_majorticklocs()) > 0


def check_readable(fig: Figure, name: str) -> int:
    """Every numeric axis of `fig`: at least two labelled ticks, no two overlapping; every legend
    off its axes' data area. Returns how many numeric axes it checked."""
    renderer = draw(fig)
    checked = 0
    for ax in axes_of(fig):
        for axis in (ax.xaxis, ax.yaxis):
            if not numeric(axis):
                continue
            checked += 1
            labels = drawn_labels(axis)
            texts = [t.get_text() for t in labels]
            assert len(labels) >= 2, f"{name}: {axis.axis_name} axis of {ax.get_title()!r} shows {texts}"
            boxes = [t.get_window_extent(renderer) for t in labels]
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    assert not boxes[i].overlaps(boxes[j]), f"{name}: labels {texts[i]!r} and {texts[j]!r} overlap"
        legend = ax.get_legend()
        if legend is not None and ax.has_data():
            box, area = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
            inner = area.padded(-2)
            assert not box.overlaps(inner), f"{name}: the legend of {ax.get_title()!r} sits on the data"
    return checked


@pytest.fixture(scope="module")
def report(files, tmp_path_factory) -> tuple[Path, list[tuple[Figure, str, bool, int, int]]]:
    """One report of every kind (study, distributions, size classes, threads, sweep, probe), drawn
    in this process (MAX_DRAWERS 1, so the patch below sees every figure) with each figure written
    twice (written_twice_into); its folder and what that recorded. Both tests below read it: the
    report is drawn once for the module, not once per test."""
    folder = tmp_path_factory.mktemp("report") / "rep"
    out: list[tuple[Figure, str, bool, int, int]] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(base, "MAX_DRAWERS", 1)
        mp.setattr(base, "write_png", written_twice_into(out, base.write_png))
        assert cli.main(["report", str(files["study"]), str(files["one"]), str(files["classes"]),
                         str(files["sweep"]), *([str(files["threads"])] if "threads" in files else []),
                         "--probe", str(files["probe"]), "-o", str(folder)]) == 0
    return folder, out


def test_every_report_figure_is_numbered(report):
    folder, written = report
    names = sorted(p.stem for p in folder.glob("*.png"))
    assert len(written) == len(names) >= 15, names
    assert {"forest", "by_distribution", "probe_latency", "probe_bandwidth"} <= set(names)
    for fig, name, *_ in written:
        assert check_readable(fig, name) >= 1, name


def test_every_subcommand_figure_is_numbered(files, drawn, tmp_path):
    history = [str(files[f"history{i}"]) for i in range(3)]
    commands = [["pressure", str(files["pressure0"]), str(files["pressure4k"]), "--plot", str(tmp_path / "pressure")],
                ["history", *history, "--plot", str(tmp_path / "history")],
                ["probe", str(files["probe"]), "--plot", str(tmp_path / "probe")],
                ["sweep", str(files["sweep"]), "--plot", str(tmp_path / "sweep")]]
    if "threads" in files:
        commands.append(["threads", str(files["threads"]), "--plot", str(tmp_path / "threads.png")])
    for args in commands:
        before = len(drawn)
        assert cli.main(args) == 0, args
        assert len(drawn) > before, args
        for fig in drawn[before:]:
            assert check_readable(fig, args[0]) >= 1, args[0]


def written_twice_into(out: list[tuple[Figure, str, bool, int, int]], write):
    """A stand-in for base.write_png that writes each figure as `write` does (the box found without
    a draw, then one draw) and as savefig(bbox_inches="tight") writes it (a draw to find the box,
    then another), the first before the second on a figure not drawn yet, puts the first's bytes
    where the figure was to go, and appends to `out`: (the figure, its title, whether the PNG bytes
    are the same, its log axes' minor ticks made, and those in view)."""
    def twice(fig: Figure, target) -> None:
        once, tight = io.BytesIO(), io.BytesIO()
        write(fig, once)
        fig.savefig(tight, format="png", dpi=base.DPI, bbox_inches="tight")
        made = shown = 0
        for ax in axes_of(fig):
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_scale() == "log":
                    lo, hi = sorted(axis.get_view_interval())
                    made += len(axis.get_minorticklocs())
                    shown += sum(lo * (1 - 1e-6) <= x <= hi * (1 + 1e-6) for x in axis.get_minorticklocs())
        out.append((fig, fig.axes[0].get_title() or fig.axes[0].get_ylabel(), once.getvalue() == tight.getvalue(),
                    made, shown))
        if hasattr(target, "write"):
            target.write(once.getvalue())
        else:
            Path(target).write_bytes(once.getvalue())

    return twice


def test_every_figure_is_drawn_once_as_a_tight_savefig_draws_it_twice(files, report, monkeypatch, tmp_path):
    """A figure is laid out for its box and drawn once (base.tight_box), not drawn a first time to find
    the box, and its PNG is byte for byte what savefig's tight crop wrote; a log axis makes minor
    ticks only near its view (base.InViewLocator), not every decade's, which are never drawn: every
    figure of the module's report, and the pressure plot's."""
    written = list(report[1])
    monkeypatch.setattr(base, "write_png", written_twice_into(written, base.write_png))
    assert cli.main(["pressure", str(files["pressure0"]), str(files["pressure4k"]), "--plot",
                     str(tmp_path / "pressure")]) == 0
    assert len(written) >= 16
    for _, name, same, made, shown in written:
        assert same, name
        assert made <= shown + 2, (name, made, shown)  # a tick at each edge of the view, at most


def comparison(variant: str, ratio: float, half: float = 0.003, distribution: str = "fleetbench/Memcpy_Fleet",
               verdict: str = "inconclusive") -> Comparison:
    """A comparison with a per-comparison interval of ±half and a simultaneous one of ±2 half."""
    return Comparison(run="r", function="memcpy", distribution=distribution, variant=variant, baseline="libc",
                      rounds=400, ratio=ratio, ci_low=ratio * (1 - half), ci_high=ratio * (1 + half),
                      ci_adj_low=ratio * (1 - 2 * half), ci_adj_high=ratio * (1 + 2 * half), level=0.95, p_sign=0.5,
                      p_adjusted=0.5, ratio_of_medians=ratio, rom_low=ratio, rom_high=ratio, rom_method="",
                      mann_whitney_p=0.5, hodges_lehmann_ratio=ratio, hl_subsampled=False, tied_rounds=0, mde=0.01,
                      rounds_for_margin=0, margin=0.01, verdict=verdict)


def interval_pixels(fig: Figure, lo: float, hi: float):
    """The axes and display x of the line drawn from lo to hi (a row's interval)."""
    draw(fig)
    for ax in fig.axes:
        for line in ax.get_lines():
            x = np.asarray(line.get_xdata(), dtype=float)
            if len(x) == 2 and np.allclose(x, [lo, hi]):
                px = ax.transData.transform(np.column_stack([x, np.asarray(line.get_ydata(), dtype=float)]))[:, 0]
                return ax, px
    raise AssertionError(f"no interval from {lo} to {hi}")


def test_forest_keeps_near_variants_apart_beside_a_far_one():
    """0.99 and 1.01 beside 3.6: on one log axis from 0.98 to 3.7 the near intervals would sit a few
    pixels apart; the figure keeps them at least 30 pixels apart (at 100 dpi), the margin band
    visible between them, and still draws the far one, every axis numbered."""
    comps = [comparison("near_below", 0.99), comparison("near_above", 1.01), comparison("bytes", 3.6, 0.02)]
    fig = forest(comps)
    check_readable(fig, "forest")
    ax_a, below = interval_pixels(fig, comps[0].ci_low, comps[0].ci_high)
    ax_b, above = interval_pixels(fig, comps[1].ci_low, comps[1].ci_high)
    assert ax_a is ax_b  # read against one axis
    assert above[0] - below[1] >= 30, (below, above)
    ax_far, far = interval_pixels(fig, comps[2].ci_low, comps[2].ci_high)
    lo, hi = ax_far.get_xlim()
    assert lo < comps[2].ci_adj_low and comps[2].ci_adj_high < hi  # drawn whole, not clipped
    assert far[1] - far[0] >= 10  # its interval readable too


@pytest.mark.parametrize("ratio", [1.0015, 0.97, 1.31])
def test_one_variant_forest_has_ticks_to_read_a_ratio(ratio):
    """One variant: at least three labelled ticks, plain numbers, the estimate among them or within
    one tick spacing of the outer ones (before: a single tick, "1")."""
    fig = forest([comparison("sse2", ratio)])
    check_readable(fig, "forest")
    values = [float(t.get_text()) for t in drawn_labels(fig.axes[0].xaxis)]
    assert len(values) >= 3 and len(set(values)) == len(values)
    step = min(np.diff(sorted(values)))
    assert min(values) - step <= ratio <= max(values) + step


@pytest.mark.parametrize("lo,hi", [(0.98, 1.02), (0.9935, 1.0065), (1.31, 1.4), (13, 20), (0.6, 1.35),
                                   (1.05, 2.5), (0.65, 2.9), (5.5, 16.5), (1.7, 230), (1e-3, 1e6)])
def test_log_ticks_show_numbers_at_every_span(lo, hi):
    ticks = base.log_ticks(lo, hi)
    labels = base.plain_labels(ticks)
    assert len(ticks) >= 3 and all(lo * (1 - 1e-9) <= t <= hi * (1 + 1e-9) for t in ticks)
    assert ticks == sorted(ticks) and len(set(labels)) == len(labels)
    assert all("e" not in s or hi > 1e5 for s in labels)  # plain numbers, not 10^k
    if lo <= 1 <= hi:
        assert 1.0 in ticks


def test_tiers_split_only_what_would_squash():
    ext = [abs(np.log(x)) for x in (0.99, 1.01, 3.6)]
    assert base.tiers(ext, np.log1p(0.01)) == [[0, 1], [2]]
    # the default study's spread (0.65 to 2.8): one axis reads it well
    assert base.tiers([abs(np.log(x)) for x in (1.2, 1.31, 1.33, 0.65, 2.8)], np.log1p(0.01)) == [[0, 1, 2, 3, 4]]
    # within 1.3 of 1 nothing is split, however close to 1 the nearest is
    assert base.tiers([abs(np.log(x)) for x in (1.001, 1.2)], np.log1p(0.01)) == [[0, 1]]


def test_ratio_by_distribution_keeps_near_variants_readable():
    comps = [comparison(v, r * k, distribution=d) for d, k in (("a", 1.0), ("b", 1.01))
             for v, r in (("near_below", 0.99), ("near_above", 1.01), ("bytes", 3.6))]
    fig = ratio_by_distribution(comps)
    check_readable(fig, "by_distribution")
    ax = next(a for a in fig.axes if any(np.allclose(line.get_ydata(), [comps[0].ci_low, comps[0].ci_high])
                                         for line in a.get_lines() if len(line.get_ydata()) == 2))
    lo, hi = ax.get_ylim()
    assert hi / lo < 1.2  # the near variants' panel is not stretched to 3.6


def test_time_series_draw_a_few_lines_not_one_per_process(files):
    """Four processes, three variants: one median line per variant (and one band), not a line per
    process and variant; the ratio over time one line and the estimate per comparison."""
    run = load_run(files["study"])
    assert run.batches["process"].nunique() >= 4  # a starved process's slot may run again
    fig = timeseries(run)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == len(run.variants) == 3
    assert len(ax.collections) == len(run.variants)  # a band each: the processes' range
    check_readable(fig, "timeseries")
    cs = compare_runs([run])
    fig = ratio_over_time(run, cs, ratios=round_ratios(run, cs))
    assert len(fig.axes) == len(cs) == 2  # a panel per comparison
    for ax in fig.axes:
        assert len(ax.get_lines()) == 2 and len(ax.collections) == 1
    check_readable(fig, "ratio_over_time")


def test_one_process_time_series_has_no_band(files):
    run = load_run(files["one"])
    fig = timeseries(replace(run, table=run.table.take(run.table["process"] == 0)))
    assert len(fig.axes[0].collections) == 0 and "one process" in fig.axes[0].get_title()
    check_readable(fig, "timeseries")


def test_the_time_series_shades_a_typical_warm_up_and_the_middle_of_the_processes(files):
    """The warm-up span ends where the median process's warm-up does, not where the latest one's
    does (one late process shaded most of the axis), and the band is the processes' quartiles, not
    their range (issue 54)."""
    run = load_run(files["study"])
    b = run.batches
    late = b["process"] == b["process"].min()
    # one process's warm-up made to end late: the span must not follow it
    b.loc[late & b["warmup"], "t_start_s"] = b["t_start_s"].max()
    fig = timeseries(run)
    ax = fig.axes[0]
    span = next(p for p in ax.patches if p.get_label().startswith("warm-up"))
    xs = np.asarray(span.get_xy())[:, 0]
    expected = float(b[b["warmup"]].groupby("process")["t_start_s"].max().median())
    assert max(xs) == pytest.approx(expected) and max(xs) < b["t_start_s"].max()
    assert "middle half of the" in ax.get_title()
    q = base.binned(np.repeat([1.0, 2, 3, 4, 5], 5), np.zeros(25, int), np.repeat(np.arange(5), 5), (0.25, 0.75))
    assert (q["low"].iloc[0], q["high"].iloc[0]) == (2.0, 4.0)


def _tiny(n: int) -> Figure:
    fig = Figure(figsize=(3, 2))
    fig.subplots().plot([0, 1, 2], [0, n, 2 * n], label=f"line {n}")
    fig.axes[0].legend(loc="upper left", bbox_to_anchor=(1, 1))  # outside the axes: the tight box widens
    return fig


def test_drawers_write_what_one_process_writes(tmp_path, monkeypatch):
    """The figures drawn by forked drawers are byte for byte those drawn in one process, every one
    written once the block ends, whatever process drew it."""
    def draw_all(folder: Path, drawers: int) -> dict[str, bytes]:
        monkeypatch.setattr(base, "MAX_DRAWERS", drawers)
        folder.mkdir()
        d = base.Drawings()
        paths = [d.add(lambda n=n: _tiny(n), folder / f"f{n}") for n in range(6)]
        with d.drawing():
            assert True  # the text would be made here, the figures drawn meanwhile
        assert all(p.exists() for p in paths)
        return {p.name: p.read_bytes() for p in paths}

    assert draw_all(tmp_path / "many", 4) == draw_all(tmp_path / "one", 1)


def test_a_drawers_error_is_raised_where_drawing_was_asked(tmp_path, monkeypatch):
    """A figure that fails in a forked drawer raises its own error in the process that asked (as it
    would drawn there), after every drawer has ended."""
    monkeypatch.setattr(base, "MAX_DRAWERS", 4)

    def broken() -> Figure:
        raise ValueError("no such variant 'x'")

    d = base.Drawings()
    for n in range(8):
        d.add(broken if n == 5 else (lambda n=n: _tiny(n)), tmp_path / f"f{n}")
    with pytest.raises(ValueError, match="no such variant 'x'"):
        with d.drawing():
            pass

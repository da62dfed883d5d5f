"""Markdown and HTML reports of one or many runs, with the plots embedded."""
from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..io.files import write_folder_atomic
from ..io.load import Run
from ..io.tune_folder import TuneFolder
from ..stats.diagnostics import EXPLANATION as DIAGNOSTICS_EXPLANATION
from ..stats.diagnostics import diagnose, diagnostics_frame
from ..stats.threads import (RATIO_COLUMNS, SLOWDOWN_COLUMNS, interference, interval_method, is_threaded,
                             threads_line, topology_frame)
from ..verdicts.compare import Comparison, comparisons_frame
from ..verdicts.diff import Shift, shift_line
from ..verdicts.tune import TuneVerdicts
from ..verdicts.variants import VariantsTable, variants_table
from .counters import counter_summary, counters_source, has_counters
from .pgo import pgo_summary_lines
from .progress import Progress
from .summary import summarize_run
from .variants import how_lines, variants_frame
from .text import (CODE, DASH, READER_COLUMNS, STRONG, context_lines, fmt_interval, fmt_ratio, headline_groups, headline_markdown,
                   host_groups, interval_label, md_escape, ratio_verdict, verdict_lines)

if TYPE_CHECKING:  # matplotlib is imported only when a report is drawn
    from .plots.base import Drawings


# A column's name as a reader reads it in the report's tables (the data keep theirs: --json,
# exports, the notebooks' frames); a name not here is shown with its underscores as spaces.
HEADERS = {"ci_low": "95% CI low", "ci_high": "95% CI high", "ci_adj_low": "simultaneous low",
           "ci_adj_high": "simultaneous high", "p_adjusted": "adjusted p", "pi_low": "re-run low",
           "pi_high": "re-run high", "between_process_sd": "layout noise (sd)", "within_low": "within-process low",
           "within_high": "within-process high", "net_ratio": "net of the harness", "processes_for_margin":
           "processes to resolve the margin", "median_ns_per_call": "median ns/call", "net_ns_per_call":
           "net ns/call", "bytes_per_ns": "bytes/ns", "iqr": "IQR", "mad": "MAD", "robust_sd": "robust sd",
           "warmup_batches_excluded": "warm-up batches left out"}


def header(name: str) -> str:
    """A column's header in the report (HEADERS, else its underscores as spaces)."""
    return HEADERS.get(name, name.replace("_", " "))


def _md_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(md_escape(header(str(c))) for c in cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            # NaN and NA: not computable from this file (e.g. no harness noop for the net figures)
            cells.append(("—" if v != v else format(v, floatfmt)) if isinstance(v, float) else
                         "—" if v is pd.NA else md_escape(str(v)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _host_title(group: str, comps: list[Comparison]) -> str:
    hosts = max(c.hosts for c in comps)
    return f"{group} ({hosts} host{'s' if hosts != 1 else ''})"


def _text(lines: list[str]) -> list[str]:
    """Lines of names and figures as Markdown text: '<' and '>' as entities, so a name that holds
    a tag is shown, never taken as HTML (the report's own tags are written by _fold)."""
    return [x.replace("<", "&lt;").replace(">", "&gt;") for x in lines]


def _fold(summary: str, lines: list[str]) -> list[str]:
    """Lines folded under a one-line summary: an HTML <details> element, which both the report's
    page and Markdown viewers (GitHub's) show closed, the Markdown inside rendered."""
    return [f"<details><summary>{html.escape(summary, quote=False)}</summary>", "", *lines, "", "</details>", ""]


def write_report(runs: list[Run], comps: list[Comparison], out_dir: Path, label: str = "",
                 quiet: frozenset[str] = frozenset(), svg: bool = False,
                 probe_doc: dict[str, Any] | None = None, probe_path: str | Path | None = None,
                 notes: list[str] | None = None, tables: list[VariantsTable] | None = None,
                 baseline: str | None = None) -> tuple[Path, Path]:
    """Writes report.md (figures as files beside it) and report.html (figures embedded) into
    out_dir (created; its parent must exist), all at once: built in a temporary folder beside it,
    so a failure leaves no partial report. Never writes over an input file. Raises
    files.OutputError naming out_dir (with `label`, the option that gave it). tables: the seed-000
    table of each run of a distribution (verdicts/variants.py), made from the run alone where not
    given (its ratios to `baseline`, as the verdicts')."""
    inputs = [r.path for r in runs] + ([probe_path] if probe_path is not None else [])
    if tables is None:
        level = comps[0].level if comps else 0.95
        tables = [variants_table(r, level=level, baseline=baseline) for r in runs if not r.doc.get("sweep")]
    by_run = {t.run.path: t for t in tables}
    names = write_folder_atomic(out_dir, lambda tmp: _write_report_files(runs, comps, tmp, quiet, svg, probe_doc,
                                                                         notes or [], by_run), label, inputs)
    return out_dir / names[0], out_dir / names[1]


def write_diff_report(before: list[Run], after: list[Run], items: list[Shift], notes: list[str], out_dir: Path,
                      label: str = "", margin: float = 0.01, quiet: frozenset[str] = frozenset(),
                      svg: bool = False) -> tuple[Path, Path]:
    """diff --report: report.md and report.html of a before/after comparison, written as
    write_report writes a report: each variant's shift (the lines diff prints, a table, and the
    after/before intervals drawn), the notes (contexts that differ, why nothing resolved), and each
    side's context."""
    inputs = [r.path for r in before + after]
    names = write_folder_atomic(out_dir, lambda tmp: _write_diff_files(before, after, items, notes, tmp, margin,
                                                                       quiet, svg), label, inputs)
    return out_dir / names[0], out_dir / names[1]


def _write_diff_files(before: list[Run], after: list[Run], items: list[Shift], notes: list[str], out_dir: Path,
                      margin: float, quiet: frozenset[str], svg: bool) -> tuple[str, str]:
    from .plots.base import save
    from .plots.comparisons import shifts
    md = ["# memfbench before/after", "",
          f"{before[0].function} on {before[0].distribution}: {len(before)} file(s) before, {len(after)} after.", "",
          "## Verdicts", ""]
    figures: list[tuple[str, Path]] = []
    if items:
        # the headline's cells (views/text.py shift_headline_lines): after/before, its simultaneous
        # interval, the verdict in words, then the shifts drawn; every figure under a fold
        m = len(items)
        label = f"{items[0].level:.0%} interval" + (f", simultaneous over {m}" if m > 1 else "")
        md += [f"| variant | after/before | {label} | verdict | processes | flags |", "|---|---|---|---|---|---|"]
        md += [f"| {md_escape(s.variant)} | {fmt_ratio(s.ratio)} | {fmt_interval(s.ci_adj_low, s.ci_adj_high)} | "
               f"**{' '.join(x for x in ratio_verdict(s.verdict, s.ratio) if x)}** | "
               f"{s.before_processes} -> {s.after_processes} | {'[dropped]' if s.dropped else DASH} |"
               for s in items]
        md += ["", "after/before below 1: after is faster; the rows in the figure's order, the table's interval its "
                   "thin one.", ""]
        paths = save(shifts(items, margin), out_dir / "shifts", svg)
        figures += [("after / before", path) for path in paths]
        md += [f"![after / before]({paths[0].name})", ""]
    if notes:
        md += [f"- {n}" for n in notes] + [""]
    if items:
        rows = pd.DataFrame([{"variant": s.variant, "verdict": s.verdict, "after/before": s.ratio,
                              f"{s.level:.0%} CI low": s.ci_low, f"{s.level:.0%} CI high": s.ci_high,
                              "simultaneous low": s.ci_adj_low, "simultaneous high": s.ci_adj_high,
                              "processes": f"{s.before_processes} -> {s.after_processes}",
                              "median ns/call before": s.before_ns_per_call, "after": s.after_ns_per_call,
                              "adjusted p": s.p_adjusted} for s in items])
        md += _fold("Every figure of each shift", [*[f"- {shift_line(s)[2:]}" for s in items], "", _md_table(rows)])
    for side, runs in (("Before", before), ("After", after)):
        for run in runs:
            md += [f"## {side}: `{Path(run.path).name}`", "", *_text(context_lines(run, quiet)), ""]
    return _write_pages(md, figures, out_dir)


def write_tune_report(t: TuneFolder, v: TuneVerdicts, out_dir: Path, label: str = "", svg: bool = False
                      ) -> tuple[Path, Path]:
    """analyze tune --report: report.md and report.html of a tune folder, written as write_report
    writes a report: the summary (views/tune.py), the race drawn, the fresh study's and the checks'
    tables, every candidate's standing under a fold."""
    inputs = [t.final.path] + [run.path for _, run in t.checks]
    names = write_folder_atomic(out_dir, lambda tmp: _write_tune_files(t, v, tmp, svg), label, inputs)
    return out_dir / names[0], out_dir / names[1]


def _write_tune_files(t: TuneFolder, v: TuneVerdicts, out_dir: Path, svg: bool) -> tuple[str, str]:
    from .plots.base import save
    from .plots.race import race_figure
    from .tune import tune_cells, tune_lines
    md = ["# memfbench tune", "", *[f"- {x.strip()}" for x in _text(tune_lines(t.tune, t.race, v, t.final.cpu_model))],
          "", "## The race", ""]
    paths = save(race_figure(t.race), out_dir / "race", svg)
    figures = [("the race", p) for p in paths]
    md += [f"![the race]({paths[0].name})", "",
           "Each candidate's ratio to the baseline pooled over the steps it ran in, with its 95 % interval; the grey "
           "lines end where a candidate was dropped (docs/methodology.md, \"Racing a family\").", ""]
    rows = [{"variant": c.variant, **tune_cells(c), "processes": c.processes} for c in v.final]
    md += ["## The fresh study", "", f"Ratio to the baseline with its {interval_label(v.final)}.", "",
           _md_table(pd.DataFrame(rows)), ""]
    if v.checks:
        rows = [{"distribution": r.distribution, **tune_cells(r.comparison)} for r in v.checks]
        md += ["## The leader on the other distributions", "", _md_table(pd.DataFrame(rows)), ""]
    cands = pd.DataFrame([{"candidate": c["name"], "ratio": c["ratio"], "low": c["low"], "high": c["high"],
                           "processes": c["processes"], "dropped at step": c["dropped_at"] or DASH}
                          for c in t.race["candidates"]]).sort_values("ratio")
    md += _fold(f"Every candidate's last standing ({len(cands)})", [_md_table(cands)])
    return _write_pages(md, figures, out_dir)


def _class_section(run: Run, tag: str, out_dir: Path, colors: dict[str, str], svg: bool,
                   figures: list[tuple[str, Path]]) -> list[str]:
    """--by-class: per variant the decomposition table and its contribution plot."""
    from ..verdicts.classes import decompose_run
    from .plots.base import save
    from .plots.classes import contributions
    md = ["### Where the time goes (size classes)", ""]
    try:
        decs = decompose_run(run)
    except ValueError as e:
        return md + [f"No decomposition: {e}", ""]
    for dec in decs:
        md += [f"**{dec.variant}** vs {dec.baseline}: whole difference {dec.whole.ns:+.3f} ns/call "
               f"({dec.whole.pct_of_baseline:+.2f} %), of which the residual (mixing effects) "
               f"{dec.residual.ns:+.3f} ns/call; intervals over {dec.n_units} {dec.units}.", "",
               _md_table(pd.DataFrame(dec.rows()).drop(columns=["variant"])), ""]
        fig = save(contributions(dec, colors), out_dir / f"{tag}_classes_{len(figures)}", svg)[0]
        figures.append((f"{run.distribution}: where {dec.variant}'s difference comes from", fig))
        md += [f"![contributions]({fig.name})", ""]
    return md


def _threads_section(run: Run, tag: str, out_dir: Path, svg: bool, figures: list[tuple[str, Path]]) -> list[str]:
    """--threads N: where the threads ran, thread 0's slowdown by the others and whether the
    ratios to the baseline change under their load (stats/threads.py)."""
    from .plots.base import save
    from .plots.threads import threads as threads_figure
    md = ["### Threads", "", threads_line(run), "", _md_table(topology_frame(run)), ""]
    try:
        df = interference(run)
    except ValueError as e:
        return md + [f"No interference: {e}", ""]
    fig = save(threads_figure(run), out_dir / f"{tag}_threads", svg)[0]
    figures.append((f"{run.distribution}: thread 0 alone and with the other threads", fig))
    md += ["Interference: thread 0 timed with every thread running over its batch timed alone in the same round "
           f"(slowdown in %, 95 % {interval_method(run)}).", "",
           _md_table(df[SLOWDOWN_COLUMNS]), ""]
    compared = df[df["ratio_alone"].notna() | df["ratio_together"].notna()]
    if len(compared):
        md += [f"Ratio to {run.baseline} within a round, alone and together; `change_pct`: the paired change from "
               "alone to together (an interval excluding 0: the comparison is not the same under load).", "",
               _md_table(compared[RATIO_COLUMNS]), ""]
    return md + [f"![threads]({fig.name})", ""]


def _variants_section(t: VariantsTable) -> list[str]:
    """Each variant's time, code size and friendliness (llvm-libc's benchmarking notes, seed 000, ask
    for them), one line per variant, and how each column was measured."""
    return ["### Time, code size and friendliness, one line per variant", "",
            "Time ratio to the baseline, code size, i-cache pressure slope, slowdown beside a second thread and "
            "PGO gain; 'not measured' where no file given measured it.", "",
            _md_table(variants_frame(t).applymap(_unbroken)), "", *_text([f"- {x}" for x in how_lines(t)]), ""]


def _unbroken(cell: str) -> str:
    """A figure with its interval ("1.088 [0.889, 1.331]") kept on one line of a narrow column."""
    return re.sub(r"(\S+) (\[[^]]*\])", lambda m: (m.group(1) + " " + m.group(2)).replace(" ", "\u00a0"), cell)


def _sweep_section(run: Run, tag: str, out_dir: Path, colors: dict[str, str], svg: bool,
                   figures: list[tuple[str, Path]], quiet: frozenset[str],
                   probe_doc: dict[str, Any] | None = None) -> list[str]:
    """A sweep: context, the plot, and every point's numbers; with a probe file, each point's
    bytes/ns as a fraction of the bandwidth where its data lives."""
    from ..verdicts.sweep import describe, sweep_frame, sweep_points
    from .plots.base import save
    from .plots.sweep import sweep as sweep_figure
    points = sweep_points(run)
    fig = save(sweep_figure(run, points, colors, probe_doc), out_dir / f"{tag}_sweep", svg)[0]
    figures.append((f"{run.function}: size sweep", fig))
    cols = ["variant", "size", "lo", "hi", "ns_per_call", "ns_low", "ns_high", "bytes_per_ns", "ratio", "ratio_low",
            "ratio_high", "verdict"]
    md = [f"## {run.function}: size sweep (`{Path(run.path).name}`)", "", f"- {describe(run)}",
          *_text(context_lines(run, quiet)), "", f"![size sweep]({fig.name})", ""]
    if probe_doc is not None:
        from .probe import REFERENCE_KERNELS, roofline, roofline_sentences
        roof = roofline(points, run.doc, run.function, probe_doc)
        md += ["### Against the memory system (probe)", "", *[f"- {x}" for x in roofline_sentences(roof, run.function)],
               "", f"Reference: the best of {', '.join(REFERENCE_KERNELS[run.function][0])} in the probe at the "
               "footprint of the window the calls' data lives in.", "",
               _md_table(roof[["variant", "size", "window", "bytes_per_ns", "reference_kernel", "reference_gbps",
                               "fraction"]]), ""]
    return md + ["### Every point", "", _md_table(sweep_frame(points)[cols]), ""]


def _probe_section(doc: dict[str, Any], out_dir: Path, svg: bool, figures: list[tuple[str, Path]]) -> list[str]:
    """The memory system the runs ran on: levels found against those reported, and both curves."""
    from .plots.base import save
    from .plots.probe import probe_bandwidth, probe_latency
    from .probe import bandwidth_levels_line, bandwidth_points, caches_found_line, levels_frame
    from .probe import context_lines as probe_context
    md = ["## Memory system (memfbench probe)", "", *probe_context(doc), ""]
    if doc.get("latency"):
        fig = save(probe_latency(doc), out_dir / "probe_latency", svg)[0]
        figures.append(("Load latency against buffer size", fig))
        md += ["Levels found in the latency curve:", "", _md_table(levels_frame(doc, human=True)), "",
               f"- {bandwidth_levels_line(doc)}", f"- {caches_found_line(doc)}", "", f"![latency]({fig.name})", ""]
    if doc.get("bandwidth"):
        fig = save(probe_bandwidth(doc), out_dir / "probe_bandwidth", svg)[0]
        figures.append(("Bandwidth against footprint", fig))
        md += ["Bandwidth, GB/s (each byte moved once), at half of each level and the largest size:", "",
               _md_table(bandwidth_points(doc)), "", f"![bandwidth]({fig.name})", ""]
    return md


def _suite_section(comps: list[Comparison]) -> list[str]:
    """Comparisons of several studies: the suite's table, each variant's geometric mean over the
    studies it ran in (verdicts/suite.py)."""
    from ..verdicts.suite import suite_lines
    studies = {(c.function, c.distribution) for c in comps}
    lines = suite_lines(comps, comps[0].level, comps[0].margin) if len(studies) > 1 else []
    if not lines:
        return []
    rows = [{"variant": x.variant, "geometric mean": f"{x.geomean:.3f}", "interval": f"[{x.low:.3f}, {x.high:.3f}]",
             "verdict": x.verdict, "studies": len(x.studies)} for x in lines]
    return [f"## Suite: {len(studies)} studies", "",
            f"Each variant's geometric mean of its ratio to the baseline over the studies it ran in; "
            f"{comps[0].level * 100:g} % interval carrying the studies' own (below 1: faster).", "",
            _md_table(pd.DataFrame(rows)), ""]


def _write_report_files(runs: list[Run], comps: list[Comparison], out_dir: Path,
                        quiet: frozenset[str] = frozenset(), svg: bool = False,
                        probe_doc: dict[str, Any] | None = None, notes: list[str] | None = None,
                        metrics: dict[str, VariantsTable] | None = None) -> tuple[str, str]:
    # matplotlib only when a report is drawn: summarize/compare/gate start faster
    from .plots.base import Drawings, palette
    # one colour per variant in every figure: baselines first, then every variant in file order
    colors = palette([c.baseline for c in comps] + [v for r in runs for v in r.variants])
    groups = host_groups(comps)
    # the figures every report has are queued first and drawn while the text is made
    drawings = Drawings(svg)
    group_figures = _queue_group_figures(drawings, comps, groups, colors, out_dir)
    run_figures = _queue_run_figures(drawings, runs, comps, colors, out_dir)
    figures: list[tuple[str, Path]] = []
    with drawings.drawing():
        md = _report_text(runs, comps, groups, colors, group_figures, run_figures, out_dir, quiet, svg, probe_doc,
                          notes, metrics, figures)
    return _write_pages(md, figures, out_dir)


def _queue_group_figures(drawings: Drawings, comps: list[Comparison], groups: list[str], colors: dict[str, str],
                         out_dir: Path) -> list[tuple[list[Comparison], str, list[tuple[str, Path]]]]:
    """Per host group (CPU model; ratios of different machine types are not pooled, so they are not
    drawn on one axis either): its comparisons in the verdict table's order (headline_groups, so a
    row is found at the same place in both), its name's suffix, and its figures queued (title, PNG)."""
    from functools import partial

    from .plots.comparisons import forest, ratio_by_distribution
    out = []
    for gi, group in enumerate(groups):
        gc = [c for _, cs in headline_groups([c for c in comps if c.cpu_model == group]) for c in cs]
        suffix = f"_host{gi}" if len(groups) > 1 else ""
        on = f" on {group}" if suffix else ""
        figs = [(f"Paired ratios{on}", drawings.add(partial(forest, gc, colors=colors), out_dir / f"forest{suffix}"))]
        if len({c.distribution for c in gc}) > 1:
            figs.append((f"Ratio per distribution{on}", drawings.add(partial(ratio_by_distribution, gc, colors),
                                                                     out_dir / f"by_distribution{suffix}")))
        out.append((gc, suffix, figs))
    return out


# A run's figures: title, file name's tail
RUN_FIGURES = (("per-round ratios", "log_ratios"), ("ratio over the run", "ratio_over_time"),
               ("batch times over the run", "timeseries"), ("batch time distributions", "distributions"))


def _queue_run_figures(drawings: Drawings, runs: list[Run], comps: list[Comparison], colors: dict[str, str],
                       out_dir: Path) -> dict[int, list[tuple[str, Path]]]:
    """Each run's figures (a sweep's are its section's) queued: run index -> (title, PNG)."""
    from functools import partial

    from .plots.comparisons import log_ratios, ratio_over_time, round_ratios
    from .plots.runs import distributions, timeseries
    out = {}
    for i, run in enumerate(runs):
        if run.doc.get("sweep"):
            continue
        ratios = round_ratios(run, comps)
        makers = (partial(log_ratios, run, comps, colors, ratios),
                  partial(ratio_over_time, run, comps, colors=colors, ratios=ratios),
                  partial(timeseries, run, colors=colors), partial(distributions, run, colors))
        out[i] = [(title, drawings.add(make, out_dir / f"run{i}_{name}"))
                  for (title, name), make in zip(RUN_FIGURES, makers)]
    return out


def _report_text(runs: list[Run], comps: list[Comparison], groups: list[str], colors: dict[str, str],
                 group_figures: list[tuple[list[Comparison], str, list[tuple[str, Path]]]],
                 run_figures: dict[int, list[tuple[str, Path]]], out_dir: Path, quiet: frozenset[str], svg: bool,
                 probe_doc: dict[str, Any] | None, notes: list[str] | None,
                 metrics: dict[str, VariantsTable] | None, figures: list[tuple[str, Path]]) -> list[str]:
    """The report's Markdown, its figures named in `figures` (title, PNG) in the order shown; the
    sections' own figures (sweeps, classes, threads, the probe: in the files that have them) drawn
    here, in the report's colours."""
    md: list[str] = ["# memfbench report", ""]
    md += [f"- note: {n}" for n in notes or []] + ([""] if notes else [])
    # The first screen decides: the verdicts at a glance (a short table), then the forest plot; every
    # figure of each verdict and every column of the comparisons follow, folded.
    if comps:
        md += ["## Verdicts", "", *headline_markdown(comps), ""]
        md += _suite_section(comps)
    for gc, suffix, figs in group_figures:
        if suffix:
            md += [f"### {_host_title(gc[0].cpu_model, gc)}", ""]
        for (title, fig), alt in zip(figs, ("forest plot", "ratio per distribution")):
            figures.append((title, fig))
            md += [f"![{alt}]({fig.name})", ""]
    if comps:
        md += _fold("Every figure of each verdict (prediction, layout noise, within-process interval, net of "
                    "the harness, adjusted p, rounds)", _text(verdict_lines(comps)))
        tables: list[str] = []
        for group in groups:
            gc = [c for c in comps if c.cpu_model == group]
            if len(groups) > 1:
                tables += [f"**{_host_title(group, gc)}**", ""]
            tables += [_md_table(comparisons_frame(gc)[READER_COLUMNS]), ""]
        md += _fold("Every column of every comparison (verdict first)", tables)
    pgo = [x for x in pgo_summary_lines(runs, comps[0].level if comps else 0.95) if x]
    if pgo:  # each file's title line (less its "== PGO gain: "), then its pairs
        md += ["## PGO gain", "", *_text([x[len("== PGO gain: "):] if x.startswith("== ") else f"- {x}"
                                          for x in pgo]), ""]
    if probe_doc is not None:
        md += _probe_section(probe_doc, out_dir, svg, figures)
    progress = Progress("report", "study", len(runs))
    for i, run in enumerate(runs):
        progress.step(i, f"{run.function} on {run.distribution}")
        tag = f"run{i}"
        if run.doc.get("sweep"):
            md += _sweep_section(run, tag, out_dir, colors, svg, figures, quiet, probe_doc)
            continue
        md += [f"## {run.function} on {run.distribution} (`{Path(run.path).name}`)", "", *_text(context_lines(run, quiet)), ""]
        if metrics and run.path in metrics:
            md += _variants_section(metrics[run.path])
        md += ["### Per variant", "", _md_table(summarize_run(run)), "",
               "### Diagnostics", "", DIAGNOSTICS_EXPLANATION, "", _md_table(diagnostics_frame(diagnose(run.batches))),
               ""]
        if has_counters(run):
            md += [f"### Hardware counters ({counters_source(run)})", "",
                   "Per call, the median over measured batches; with `-v noop` in the run, its row is the loop's own share.", "",
                   _md_table(counter_summary(run)), ""]
        if is_threaded(run):
            md += _threads_section(run, tag, out_dir, svg, figures)
        if run.doc.get("by_class"):
            md += _class_section(run, tag, out_dir, colors, svg, figures)
        for title, fig in run_figures[i]:
            figures.append((f"{run.distribution}: {title}", fig))
            md += [f"![{title}]({fig.name})", ""]
    progress.end()
    return md


def _write_pages(md: list[str], figures: list[tuple[str, Path]], out_dir: Path) -> tuple[str, str]:
    """report.md (figures beside it) and report.html (figures embedded) of one report's Markdown;
    their names. backslashreplace: a file name with bytes that are not UTF-8 is shown escaped."""
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md), encoding="utf-8", errors="backslashreplace")
    html_path = out_dir / "report.html"
    html_path.write_text(_html(md, figures), encoding="utf-8", errors="backslashreplace")
    return md_path.name, html_path.name




def _inline(text: str) -> str:
    """Markdown's inline marks used by the report (**bold**, `code`) as HTML, the rest escaped."""
    return CODE.sub(r"<code>\1</code>", STRONG.sub(r"<strong>\1</strong>", html.escape(html.unescape(text), quote=False)))


def _html(md: list[str], figures: list[tuple[str, Path]]) -> str:
    """A self-contained page: the report's Markdown (headings, paragraphs, lists, tables, images,
    bold and code) in plain HTML, images inlined as base64 PNG."""
    inline = {p.name: base64.b64encode(p.read_bytes()).decode() for _, p in figures}
    body: list[str] = []
    block = ""  # the open block: "", "table" or "list"
    closers = {"table": "</table></div>", "list": "</ul>"}

    def open_block(kind: str) -> None:
        nonlocal block
        if block != kind:
            if block:
                body.append(closers[block])
            body.append({"table": "<div class='wide'><table>", "list": "<ul>"}.get(kind, ""))
            block = kind

    # An entry may hold several lines (a whole table): split them.
    for line in "\n".join(md).splitlines():
        if line.startswith("|"):
            if set(line) <= set("|-: "):
                continue  # the header rule
            # a cell's own '|' is escaped (md_escape): split on the others only
            cells = [_inline(c.strip().replace("\\|", "|"))
                     for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            tag = "th" if block != "table" else "td"
            open_block("table")
            body.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith(("<details><summary>", "</details>")):
            open_block("")
            body.append(line)  # _fold's own tags, its summary already escaped
        elif line.startswith("- "):
            open_block("list")
            body.append(f"<li>{_inline(line[2:])}</li>")
        else:
            open_block("")
            # a figure of this report; a line that only looks like one (text from a file) is text
            name = line[line.index("(") + 1:-1] if line.startswith("![") and "(" in line else ""
            if name in inline:
                body.append(f'<p><img alt="{html.escape(name)}" src="data:image/png;base64,{inline[name]}"></p>')
            elif line.startswith("#"):
                level = len(line) - len(line.lstrip("#"))
                body.append(f"<h{level}>{_inline(line[level:].strip())}</h{level}>")
            elif line:
                body.append(f"<p>{_inline(line)}</p>")
    open_block("")
    style = ("body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse;font-size:85%}"
             "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}.wide{overflow-x:auto}"
             "code{background:#f3f3f3;padding:0 2px}"
             "details{margin:1em 0}summary{cursor:pointer;font-weight:bold}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>memfbench report</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"

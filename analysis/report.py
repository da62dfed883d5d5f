"""Markdown and HTML reports of one or many runs, with the plots embedded."""
from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .counters import counter_summary, counters_source, has_counters
from .compare import Comparison, comparisons_frame
from .diagnostics import EXPLANATION as DIAGNOSTICS_EXPLANATION
from .diagnostics import diagnose, diagnostics_frame
from .diff import Shift, shift_line
from .files import write_folder_atomic
from . import placement
from .load import Run
from .summary import summarize_run
from .threads import (RATIO_COLUMNS, SLOWDOWN_COLUMNS, background_line, interference, interval_method,
                      is_threaded, threads_line, topology_frame)


def _md_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = []
        for c in cols:
            v = row[c]
            # NaN and NA: not computable from this file (e.g. no harness noop for the net figures)
            cells.append(("—" if v != v else format(v, floatfmt)) if isinstance(v, float) else
                         "—" if v is pd.NA else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def silenced_codes(run: Run, quiet: frozenset[str] = frozenset()) -> frozenset[str] | None:
    """Warning codes to hide: those the run silenced (config.quiet_warnings) and those given to the
    analysis; None means every code ("all")."""
    codes = set(quiet) | set(run.doc["config"].get("quiet_warnings", []))
    return None if "all" in codes else frozenset(codes)


def warning_lines(run: Run, quiet: frozenset[str] = frozenset()) -> list[str]:
    """The run's warnings and notes, each once, less the silenced codes, which one line names."""
    hidden = silenced_codes(run, quiet)
    shown, dropped = [], []
    for w in run.doc["status"]["warnings"]:
        if hidden is None or w["code"] in hidden:
            dropped.append(w["code"])
        else:
            # a study's file: how many of its processes had it (absent in one process's file)
            k = len(run.doc.get("processes") or [])
            where = f" [in {w['processes']} of {k} processes]" if isinstance(w.get("processes"), int) and k else ""
            shown.append(f"- {w.get('severity', 'warning')} ({w['code']}): {w['message']}{where}")
    if dropped:
        shown.append(f"- silenced (--quiet-warnings): {', '.join(sorted(set(dropped)))}")
    return shown


def context_lines(run: Run, quiet: frozenset[str] = frozenset()) -> list[str]:
    d = run.doc
    h, t = d["host"], d["timer"]
    c = h["caches"]
    return [
        f"- file: `{run.path}`, created {d['created_utc']}, memfbench {d['tool']['version']} "
        f"({d['tool']['build']['type']}, {d['tool']['build']['compiler']})",
        f"- host: {h.get('hostname', '?')}, {h['cpu']['model']}, kernel {h.get('kernel', '?')}, pinned CPU {h['pinned_cpu']}",
        f"- caches: L1d {c['l1d'] // 1024} KiB, L2 {c['l2'] // 1024} KiB, LLC {c['llc'] // 1024} KiB ({c['source']})",
        *placement.summary_lines(d),
        f"- clock: {t['name']} at {t['hz'] / 1e6:.2f} MHz, overhead {t['overhead_ns']:.1f} ns ({t['why']})",
        f"- distribution: {d['distribution']['name']} (mean {d['distribution']['selfcheck']['mean_size_realized']:.1f} B/call, "
        f"self-check {'passed' if d['distribution']['selfcheck']['passed'] else 'FAILED'})",
        rounds_line(d),
        "- measure: " + ("latency (each call waits for the previous call's result: one dependent chain)"
                         if run.measure == "latency" else "throughput (independent calls, which may overlap in the core)"),
        *([threads_line(run)] if is_threaded(run) else []),
        *[x for x in [background_line(run)] if x],
    ] + warning_lines(run, quiet)


def rounds_line(d: dict) -> str:
    """Rounds of the whole file: summed over its processes when it has several."""
    procs = d.get("processes") or [d]
    count = sum(p["rounds"]["count"] for p in procs)
    warm = sum(p["rounds"]["warmup"] for p in procs)
    secs = sum(p["rounds"]["duration_s"] for p in procs)
    over = f" over {len(procs)} processes" if len(procs) > 1 else " in one process"
    return (f"- rounds: {count} ({warm} warm-up) in {secs:.1f} s{over}, stop: {d['status']['stop_reason']}; "
            f"batch {d['batch']['calls']} calls; seed {d['seeds']['master']}")


def fmt_p(p: float) -> str:
    """p-values below double precision's reach print as a bound, not as 0."""
    return "< 1e-300" if p < 1e-300 else f"{p:.3g}"


def host_groups(comps: list[Comparison]) -> list[str]:
    """The CPU models of the comparisons, in order of appearance."""
    return list(dict.fromkeys(c.cpu_model for c in comps))


def layout_note(c: Comparison) -> str:
    """What a verdict about one code layout (a prebuilt plugin) holds for, and what the same files
    measured of how far identical code moves with its placement."""
    if not np.isfinite(c.layout_sensitivity):
        return (f"one code layout: {c.one_layout}; nothing in these files ran from several code placements to "
                f"measure what a layout adds: give the source (-v FILE.c:SYMBOL) to average over placements")
    return (f"one code layout: {c.one_layout}; identical code moved ±{c.layout_sensitivity:.1%} with its placement "
            f"here ({c.layout_sensitivity_from}): a difference under that may be this build's alignment; give the "
            f"source (-v FILE.c:SYMBOL) to average over placements")


def verdict_line(c: Comparison, with_host: bool = False) -> str:
    """One comparison as one line: the verdict and the interval it rests on first, then what a
    re-run would show and how much of the spread is layout noise. with_host names the host group
    (when the family spans several CPU models)."""
    where = f" [{c.cpu_model}, {c.hosts} host{'s' if c.hosts != 1 else ''}]" if with_host else ""
    where += " (latency)" if c.measure == "latency" else ""
    where += f" [icache pressure {c.icache_pressure} B]" if c.icache_pressure else ""
    where += f" [{c.neighbours}]" if c.neighbours else ""
    where += f" [placement check failed: {c.placement_failed}]" if c.placement_failed else ""
    where += f" [{layout_note(c)}]" if c.one_layout else ""
    where += (f" [the machine changed state: {c.state_before:.4f} before process {c.state_change_at + 1}, "
              f"{c.state_after:.4f} from it on; no verdict from this study]" if c.state_change_at else "")
    head = (f"- **{c.variant}** vs {c.baseline} on {c.distribution}{where}: **{c.verdict}**, ratio {c.ratio:.4f} "
            f"({(c.ratio - 1) * 100:+.2f} %)")
    margin = c.margin or 0.01
    if c.across_processes:
        return (f"{head}, {c.level:.0%} CI [{c.ci_low:.4f}, {c.ci_high:.4f}] over {c.processes} processes, "
                f"simultaneous [{c.ci_adj_low:.4f}, {c.ci_adj_high:.4f}]; a re-run would give "
                f"[{c.pi_low:.4f}, {c.pi_high:.4f}] ({c.level:.0%} prediction); layout noise "
                f"±{c.between_process_sd:.2%} per process; within-process interval [{c.within_low:.4f}, "
                f"{c.within_high:.4f}] (one layout's precision, not the implementation's); net of the harness "
                f"{c.net_ratio:.4f} [{c.net_low:.4f}, {c.net_high:.4f}]; adjusted p "
                f"{fmt_p(c.p_adjusted)}, {c.rounds} rounds; {c.processes_for_margin} processes would resolve "
                f"±{margin:.1%}")
    return (f"{head}, within-process {c.level:.0%} CI [{c.within_low:.4f}, {c.within_high:.4f}] "
            f"(one process: covers its own code and data layout only), simultaneous "
            f"[{c.ci_adj_low:.4f}, {c.ci_adj_high:.4f}], adjusted p {fmt_p(c.p_adjusted)}, {c.rounds} rounds"
            + ("" if c.single_process_allowed else "; no faster/slower verdict from one process "
               "(--processes K, or --allow-single-process)"))


def verdict_lines(comps: list[Comparison]) -> list[str]:
    """One line per comparison; the host group is named when there are several, or several hosts."""
    with_host = len(host_groups(comps)) > 1 or any(c.hosts > 1 for c in comps)
    return [verdict_line(c, with_host) for c in comps]


def plain(line: str) -> str:
    """A report line for a terminal: Markdown's emphasis and code marks removed."""
    return _CODE.sub(r"\1", _STRONG.sub(r"\1", line))


COMPARISON_COLUMNS = ["cpu_model", "hosts", "distribution", "variant", "baseline", "processes", "rounds", "ratio", "ci_low", "ci_high",
                      "ci_adj_low", "ci_adj_high", "pi_low", "pi_high", "between_process_sd", "within_low",
                      "within_high", "net_ratio", "net_low", "net_high", "p_adjusted", "verdict", "ratio_of_medians",
                      "rom_low", "rom_high", "mann_whitney_p", "hodges_lehmann_ratio", "mde", "rounds_for_margin",
                      "processes_for_margin", "placement_failed", "one_layout", "layout_sensitivity",
                      "state_change_at"]


def write_report(runs: list[Run], comps: list[Comparison], out_dir: Path, label: str = "",
                 quiet: frozenset[str] = frozenset(), svg: bool = False,
                 probe_doc: dict[str, Any] | None = None, probe_path: str | Path | None = None,
                 notes: list[str] | None = None) -> tuple[Path, Path]:
    """Writes report.md (figures as files beside it) and report.html (figures embedded) into
    out_dir (created; its parent must exist), all at once: built in a temporary folder beside it,
    so a failure leaves no partial report. Never writes over an input file. Raises
    files.OutputError naming out_dir (with `label`, the option that gave it)."""
    inputs = [r.path for r in runs] + ([probe_path] if probe_path is not None else [])
    names = write_folder_atomic(out_dir, lambda tmp: _write_report_files(runs, comps, tmp, quiet, svg, probe_doc,
                                                                         notes or []), label, inputs)
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
    from . import plots
    md = ["# memfbench before/after", "",
          f"{before[0].function} on {before[0].distribution}: {len(before)} file(s) before, {len(after)} after.", "",
          "## Verdicts", "", *[shift_line(s) for s in items], ""]
    if notes:
        md += [f"- {n}" for n in notes] + [""]
    figures: list[tuple[str, Path]] = []
    if items:
        rows = pd.DataFrame([{"variant": s.variant, "verdict": s.verdict, "after/before": s.ratio,
                              "ci_low": s.ci_low, "ci_high": s.ci_high, "simultaneous low": s.ci_adj_low,
                              "simultaneous high": s.ci_adj_high, "processes": f"{s.before_processes} -> "
                              f"{s.after_processes}", "median ns/call before": s.before_ns_per_call,
                              "after": s.after_ns_per_call, "adjusted p": s.p_adjusted} for s in items])
        md += ["## Shifts", "", _md_table(rows), ""]
        paths = plots.save(plots.shifts(items, margin), out_dir / "shifts", svg)
        figures += [("after / before", path) for path in paths]
        md += [f"![after / before]({paths[0].name})", ""]
    for side, runs in (("Before", before), ("After", after)):
        for run in runs:
            md += [f"## {side}: `{Path(run.path).name}`", "", *context_lines(run, quiet), ""]
    return _write_pages(md, figures, out_dir)


def _class_section(run: Run, tag: str, out_dir: Path, colors: dict[str, str], svg: bool,
                   figures: list[tuple[str, Path]], plots: Any) -> list[str]:
    """--by-class: per variant the decomposition table and its contribution plot."""
    from .classes import decompose_run
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
        fig = plots.save(plots.contributions(dec, colors), out_dir / f"{tag}_classes_{len(figures)}", svg)[0]
        figures.append((f"{run.distribution}: where {dec.variant}'s difference comes from", fig))
        md += [f"![contributions]({fig.name})", ""]
    return md


def _threads_section(run: Run, tag: str, out_dir: Path, svg: bool, figures: list[tuple[str, Path]],
                     plots: Any) -> list[str]:
    """--threads N: where the threads ran, thread 0's slowdown by the others and whether the
    ratios to the baseline change under their load (analysis/threads.py)."""
    md = ["### Threads", "", threads_line(run), "", _md_table(topology_frame(run)), ""]
    try:
        df = interference(run)
    except ValueError as e:
        return md + [f"No interference: {e}", ""]
    fig = plots.save(plots.threads(run), out_dir / f"{tag}_threads", svg)[0]
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


def _sweep_section(run: Run, tag: str, out_dir: Path, colors: dict[str, str], svg: bool,
                   figures: list[tuple[str, Path]], plots: Any, quiet: frozenset[str],
                   probe_doc: dict[str, Any] | None = None) -> list[str]:
    """A sweep: context, the plot, and every point's numbers; with a probe file, each point's
    bytes/ns as a fraction of the bandwidth where its data lives."""
    from .sweep import describe, sweep_frame, sweep_points
    points = sweep_points(run)
    fig = plots.save(plots.sweep(run, points, colors, probe_doc), out_dir / f"{tag}_sweep", svg)[0]
    figures.append((f"{run.function}: size sweep", fig))
    cols = ["variant", "size", "lo", "hi", "ns_per_call", "ns_low", "ns_high", "bytes_per_ns", "ratio", "ratio_low",
            "ratio_high", "verdict"]
    md = [f"## {run.function}: size sweep (`{Path(run.path).name}`)", "", f"- {describe(run)}",
          *context_lines(run, quiet), "", f"![size sweep]({fig.name})", ""]
    if probe_doc is not None:
        from .probe import REFERENCE_KERNELS, roofline, roofline_sentences
        roof = roofline(points, run.doc, run.function, probe_doc)
        md += ["### Against the memory system (probe)", "", *[f"- {x}" for x in roofline_sentences(roof, run.function)],
               "", f"Reference: the best of {', '.join(REFERENCE_KERNELS[run.function][0])} in the probe at the "
               "footprint of the window the calls' data lives in.", "",
               _md_table(roof[["variant", "size", "window", "bytes_per_ns", "reference_kernel", "reference_gbps",
                               "fraction"]]), ""]
    return md + ["### Every point", "", _md_table(sweep_frame(points)[cols]), ""]


def _probe_section(doc: dict[str, Any], out_dir: Path, svg: bool, figures: list[tuple[str, Path]],
                   plots: Any) -> list[str]:
    """The memory system the runs ran on: levels found against those reported, and both curves."""
    from .probe import bandwidth_levels_line, bandwidth_points, caches_found_line, levels_frame
    from .probe import context_lines as probe_context
    md = ["## Memory system (memfbench probe)", "", *probe_context(doc), ""]
    if doc.get("latency"):
        fig = plots.save(plots.probe_latency(doc), out_dir / "probe_latency", svg)[0]
        figures.append(("Load latency against buffer size", fig))
        md += ["Levels found in the latency curve:", "", _md_table(levels_frame(doc, human=True)), "",
               f"- {bandwidth_levels_line(doc)}", f"- {caches_found_line(doc)}", "", f"![latency]({fig.name})", ""]
    if doc.get("bandwidth"):
        fig = plots.save(plots.probe_bandwidth(doc), out_dir / "probe_bandwidth", svg)[0]
        figures.append(("Bandwidth against footprint", fig))
        md += ["Bandwidth, GB/s (each byte moved once), at half of each level and the largest size:", "",
               _md_table(bandwidth_points(doc)), "", f"![bandwidth]({fig.name})", ""]
    return md


def _write_report_files(runs: list[Run], comps: list[Comparison], out_dir: Path,
                        quiet: frozenset[str] = frozenset(), svg: bool = False,
                        probe_doc: dict[str, Any] | None = None, notes: list[str] | None = None) -> tuple[str, str]:
    from . import plots  # matplotlib only when a report is drawn: summarize/compare/gate start faster
    md: list[str] = ["# memfbench report", ""]
    md += [f"- note: {n}" for n in notes or []] + ([""] if notes else [])
    figures: list[tuple[str, Path]] = []
    # one colour per variant in every figure: baselines first, then every variant in file order
    colors = plots.palette([c.baseline for c in comps] + [v for r in runs for v in r.variants])
    groups = host_groups(comps)
    if comps:
        md += ["## Verdicts", "", *verdict_lines(comps), ""]
    # one table and one set of figures per host group (CPU model): ratios of different machine
    # types are not pooled, so they are not drawn on one axis either
    for gi, group in enumerate(groups):
        gc = [c for c in comps if c.cpu_model == group]
        suffix = f"_host{gi}" if len(groups) > 1 else ""
        if len(groups) > 1:
            hosts = max(c.hosts for c in gc)
            md += [f"### {group} ({hosts} host{'s' if hosts != 1 else ''})", ""]
        md += [_md_table(comparisons_frame(gc)[COMPARISON_COLUMNS]), ""]
        fig = plots.save(plots.forest(gc, colors=colors), out_dir / f"forest{suffix}", svg)[0]
        figures.append((f"Paired ratios{f' on {group}' if suffix else ''}", fig))
        md += [f"![forest plot]({fig.name})", ""]
        if len({c.distribution for c in gc}) > 1:
            fig = plots.save(plots.ratio_by_distribution(gc, colors), out_dir / f"by_distribution{suffix}", svg)[0]
            figures.append((f"Ratio per distribution{f' on {group}' if suffix else ''}", fig))
            md += [f"![ratio per distribution]({fig.name})", ""]
    if probe_doc is not None:
        md += _probe_section(probe_doc, out_dir, svg, figures, plots)
    for i, run in enumerate(runs):
        tag = f"run{i}"
        if run.doc.get("sweep"):
            md += _sweep_section(run, tag, out_dir, colors, svg, figures, plots, quiet, probe_doc)
            continue
        md += [f"## {run.function} on {run.distribution} (`{Path(run.path).name}`)", "", *context_lines(run, quiet), "",
               "### Per variant", "", _md_table(summarize_run(run)), "",
               "### Diagnostics", "", DIAGNOSTICS_EXPLANATION, "", _md_table(diagnostics_frame(diagnose(run.batches))),
               ""]
        if has_counters(run):
            md += [f"### Hardware counters ({counters_source(run)})", "",
                   "Per call, the median over measured batches; with `-v noop` in the run, its row is the loop's own share.", "",
                   _md_table(counter_summary(run)), ""]
        if is_threaded(run):
            md += _threads_section(run, tag, out_dir, svg, figures, plots)
        if run.doc.get("by_class"):
            md += _class_section(run, tag, out_dir, colors, svg, figures, plots)
        ratios = plots.round_ratios(run, comps)
        drawings = (("per-round ratios", "log_ratios", lambda r: plots.log_ratios(r, comps, colors, ratios)),
                    ("ratio over the run", "ratio_over_time",
                     lambda r: plots.ratio_over_time(r, comps, colors=colors, ratios=ratios)),
                    ("batch times over the run", "timeseries", lambda r: plots.timeseries(r, colors=colors)),
                    ("batch time distributions", "distributions", lambda r: plots.distributions(r, colors)))
        for title, name, fn in drawings:
            fig = plots.save(fn(run), out_dir / f"{tag}_{name}", svg)[0]
            figures.append((f"{run.distribution}: {title}", fig))
            md += [f"![{title}]({fig.name})", ""]
    return _write_pages(md, figures, out_dir)


def _write_pages(md: list[str], figures: list[tuple[str, Path]], out_dir: Path) -> tuple[str, str]:
    """report.md (figures beside it) and report.html (figures embedded) of one report's Markdown;
    their names. backslashreplace: a file name with bytes that are not UTF-8 is shown escaped."""
    md_path = out_dir / "report.md"
    md_path.write_text("\n".join(md), encoding="utf-8", errors="backslashreplace")
    html_path = out_dir / "report.html"
    html_path.write_text(_html(md, figures), encoding="utf-8", errors="backslashreplace")
    return md_path.name, html_path.name


_STRONG = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`]+)`")


def _inline(text: str) -> str:
    """Markdown's inline marks used by the report (**bold**, `code`) as HTML, the rest escaped."""
    return _CODE.sub(r"<code>\1</code>", _STRONG.sub(r"<strong>\1</strong>", html.escape(text, quote=False)))


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
            cells = [_inline(c.strip()) for c in line.strip().strip("|").split("|")]
            tag = "th" if block != "table" else "td"
            open_block("table")
            body.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("- "):
            open_block("list")
            body.append(f"<li>{_inline(line[2:])}</li>")
        else:
            open_block("")
            if line.startswith("!["):
                name = line[line.index("(") + 1:-1]
                body.append(f'<p><img alt="{html.escape(name)}" src="data:image/png;base64,{inline[name]}"></p>')
            elif line.startswith("#"):
                level = len(line) - len(line.lstrip("#"))
                body.append(f"<h{level}>{_inline(line[level:].strip())}</h{level}>")
            elif line:
                body.append(f"<p>{_inline(line)}</p>")
    open_block("")
    style = ("body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse;font-size:85%}"
             "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}.wide{overflow-x:auto}"
             "code{background:#f3f3f3;padding:0 2px}")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>memfbench report</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"

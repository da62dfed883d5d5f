"""Lines and tables for the terminal and for the report's Markdown: a run's context and warnings,
one line per verdict, thread 0's interference, a frame as a terminal table, and `plain`, which
drops the Markdown marks for a terminal. The commands print them; views/report.py writes them."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..io import placement_check
from ..io.load import Run
from ..stats.threads import (RATIO_COLUMNS, SLOWDOWN_COLUMNS, background_line, interference, interval_method,
                             is_threaded, threads_line)
from ..verdicts.compare import Comparison

# Markdown's inline marks the lines use: **bold** and `code`.
STRONG = re.compile(r"\*\*(.+?)\*\*")
CODE = re.compile(r"`([^`]+)`")


def table(df: pd.DataFrame) -> str:
    """A frame as a terminal table: no index, numbers to four significant digits."""
    return df.to_string(index=False, float_format=lambda v: f"{v:.4g}")


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
        *placement_check.summary_lines(d),
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
    return CODE.sub(r"\1", STRONG.sub(r"\1", line))


COMPARISON_COLUMNS = ["cpu_model", "hosts", "distribution", "variant", "baseline", "processes", "rounds", "ratio", "ci_low", "ci_high",
                      "ci_adj_low", "ci_adj_high", "pi_low", "pi_high", "between_process_sd", "within_low",
                      "within_high", "net_ratio", "net_low", "net_high", "p_adjusted", "verdict", "ratio_of_medians",
                      "rom_low", "rom_high", "mann_whitney_p", "hodges_lehmann_ratio", "mde", "rounds_for_margin",
                      "processes_for_margin", "placement_failed", "one_layout", "layout_sensitivity",
                      "state_change_at"]


def interference_lines(run: Run, level: float, ratios: bool = True) -> list[str]:
    """Thread 0's slowdown by the other threads and, with ratios, each variant's ratio to the
    baseline alone and together; one line saying why when the run timed nothing alone."""
    try:
        df = interference(run, level)
    except ValueError as e:
        return [f"interference: not measured ({e})"]
    lines = ["interference: thread 0 timed with every thread running / timed alone, paired by round; slowdown in %, "
             f"{level:.0%} {interval_method(run)}", table(df[SLOWDOWN_COLUMNS])]
    compared = df[df["ratio_alone"].notna() | df["ratio_together"].notna()]
    if not ratios or compared.empty:
        return lines
    base = str(compared["baseline"].iloc[0])
    return lines + ["", f"== ratio to {base} within a round, alone and together (below 1: faster); change_pct: "
                        f"the paired change from alone to together, in % (its interval excluding 0: the comparison "
                        f"with {base} is not the same under the other threads' load)",
                    table(compared[RATIO_COLUMNS])]

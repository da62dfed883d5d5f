"""Lines and tables for the terminal and for the report's Markdown: a run's context and warnings,
the verdicts at a glance (one short line per variant, the headline) and in full (one long line
each, the detail), thread 0's interference, a frame as a terminal table, and `plain`, which drops
the Markdown marks for a terminal. The commands print them; views/report.py writes them."""
from __future__ import annotations

import math
import re
import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from ..io import placement_check
from ..io.load import Run
from ..stats.threads import (RATIO_COLUMNS, SLOWDOWN_COLUMNS, background_line, interference, interval_method,
                             is_threaded, threads_line)
from ..verdicts.compare import Comparison, dropped_text, layout_source, process_label, verdict_of, withheld

if TYPE_CHECKING:
    import pandas as pd

    from ..verdicts.diff import Shift

# Markdown's inline marks the lines use: **bold** and `code`.
STRONG = re.compile(r"\*\*(.+?)\*\*")
CODE = re.compile(r"`([^`]+)`")

# What a table prints where a value does not exist (no noop ran: nothing to take the harness off;
# one process: no spread between processes), as the report's Markdown tables do.
DASH = "—"

# A "nan" that an f-string table printed for a value that does not exist (the sweep's and the size
# classes' tables): a word of its own, or after the "x" of a ratio or an interval's bracket.
NAN_WORD = re.compile(r"(?<![^\s\[(x,])[+-]?nan(?![\w.@/:-])", re.IGNORECASE)


def table(df: pd.DataFrame) -> str:
    """A frame as a terminal table: no index, numbers to four significant digits, a dash where a
    value does not exist (NaN, None, NA)."""
    import pandas as pd
    shown = df.copy()
    for col in shown.columns:
        s = shown[col]
        if not pd.api.types.is_float_dtype(s) and bool(s.isna().any()):
            shown[col] = s.astype(object).where(s.notna(), DASH)
    return shown.to_string(index=False, float_format=lambda v: f"{v:.4g}", na_rep=DASH)


def _cells(values: list[Any]) -> tuple[bool, list[str]] | None:
    """A column's cells as table() writes them, and whether it is numeric, for a column of text,
    of integers that fit 64 bits or of floats alone; None for any other (pandas decides those)."""
    if all(type(v) is str and not any(c in v for c in "\t\r\n") for v in values):
        return False, list(values)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and -2 ** 63 <= v < 2 ** 63
           for v in values):
        return True, [str(int(v)) for v in values]
    if all(isinstance(v, float) for v in values):  # np.float64 too
        return True, [DASH if v != v else f"{v:.4g}" for v in values]
    return None


def rows_table(rows: list[dict[str, Any]]) -> str:
    """table(pd.DataFrame(rows)) without pandas, for rows whose every column holds text, integers
    or floats alone (summarize's per-variant table): pandas' layout (each column right-aligned to its
    widest cell, a numeric column's name one space wider, one space between columns). Any other rows
    are given to pandas."""
    names = list(rows[0]) if rows else []
    columns = [_cells([r[k] for r in rows]) for k in names] if all(list(r) == names for r in rows) else [None]
    if not rows or any(c is None for c in columns):
        import pandas as pd
        return table(pd.DataFrame(rows))
    shown = []
    for name, (numeric, cells) in zip(names, columns):  # type: ignore[misc]
        head = (" " if numeric else "") + str(name)
        width = max(len(x) for x in [head, *cells])
        shown.append([x.rjust(width) for x in [head, *cells]])
    return "\n".join(" ".join(line) for line in zip(*shown))


def text_table(df: pd.DataFrame, gap: int = 2) -> str:
    """A frame of text cells (figures already written out, intervals and words) as a terminal
    table, every column left-aligned, so the cells' words and brackets line up."""
    cols = [str(c) for c in df.columns]
    rows = [[str(x) for x in row] for row in df.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    return "\n".join((" " * gap).join(x.ljust(w) for x, w in zip(line, widths)).rstrip() for line in [cols] + rows)


def dash_nan(line: str) -> str:
    """A table line formatted by f-strings with each "nan" replaced by a dash of the same width
    (the columns stay aligned)."""
    return NAN_WORD.sub(lambda m: DASH.rjust(len(m.group())), line)


def dashed(text: str, head: int = 1) -> str:
    """A table formatted by f-strings (verdicts/sweep.py's, verdicts/classes.py's) with a dash for
    each value that does not exist; its first `head` lines, which name the variants, as they are."""
    lines = text.split("\n")
    return "\n".join(lines[:head] + [dash_nan(x) for x in lines[head:]])


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
            # a study's file: how many of its processes had it (absent in one process's file); a file
            # written before memfbench counted each process once counted warnings, which can pass k
            k = len(run.doc.get("processes") or [])
            n = w.get("processes")
            others = ", of other variants too" if w.get("others") else ""
            where = ("" if not isinstance(n, int) or not k else f" [in {n} of {k} processes{others}]" if n <= k
                     else f" [{n} times over {k} processes]")
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
    return (f"one code layout: {c.one_layout}; identical code moves ±{c.layout_sensitivity:.1%} with its placement "
            f"({layout_source(c)}): a difference under that may be this build's alignment; give the "
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
    where += (f" [left out: {dropped_text(c)}" + ("; more than half of the processes: no verdict from this study]"
                                                   if c.too_many_dropped else "]") if c.dropped else "")
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


# ---- The headline: the verdicts at a glance, one short line per variant ------------------------
#
# Each line: the variant, its time ratio to the baseline with the interval the verdict rests on
# (over processes, simultaneous over the family of comparisons: compare.adjust_family's), the
# verdict in a word or two, the processes it rests on, and short tags for what the long line says
# at length. The lines are the detail's values, rounded, never others.

WIDTH = 80          # every headline line fits a terminal of 80 columns
INDENT = "  "
# The verdicts' order in the headline (compare.verdict_of's vocabulary), each group's lines
# sorted by the size of the change, the largest first.
VERDICT_ORDER = ("faster", "slower", "equivalent", "inconclusive")
# The word of a verdict the figures would give but the study's design holds back
# (compare.adjust_family): never printed as faster or slower.
WITHHELD = "withheld"
# The tags in the order they are printed and their legend is.
TAGS = ("[<2 rounds]", "[1 process]", "[state]", "[dropped]", "[placement]", "[1 layout]")


def _pct(x: float) -> str:
    return f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def ratio_verdict(verdict: str, ratio: float) -> tuple[str, str]:
    """A verdict on a time ratio in words as (number, words): ("32.3", "% faster"), ("",
    "equivalent"). The percentage is of the denominator's time: 1 - ratio faster, ratio - 1 slower."""
    if verdict == "faster":
        return _pct((1 - ratio) * 100), "% faster"
    if verdict == "slower":
        return _pct((ratio - 1) * 100), "% slower"
    return "", verdict or "inconclusive"


def verdict_parts(c: Comparison) -> tuple[str, str]:
    """A comparison's verdict in words (ratio_verdict), or ("", "withheld") where the study's design
    holds it back."""
    if withheld(c):
        return "", WITHHELD
    return ratio_verdict(c.verdict, c.ratio)


def verdict_word(c: Comparison) -> str:
    """The headline's verdict: "32.3 % faster", "180.3 % slower", "equivalent", "inconclusive" or
    "withheld"."""
    number, words = verdict_parts(c)
    return f"{number} {words}" if number else words


def headline_tags(c: Comparison) -> list[str]:
    """The long line's flags, a word each (their legend: legend_lines)."""
    tags = []
    if c.rounds < 2:
        tags.append("[<2 rounds]")
    elif not c.across_processes:
        tags.append("[1 process]")
    if c.state_change_at:
        tags.append("[state]")
    if c.dropped:
        tags.append("[dropped]")
    if c.placement_failed:
        tags.append("[placement]")
    if c.one_layout:
        tags.append("[1 layout]")
    return tags


def _tag_legend(tag: str, tagged: list[Comparison]) -> str:
    """One sentence for a tag, about the comparisons that carry it."""
    if tag == "[<2 rounds]":
        return "[<2 rounds] fewer than 2 measured rounds paired: no ratio"
    if tag == "[1 process]":
        if all(c.single_process_allowed for c in tagged):
            return "[1 process] the interval covers one process's code and data layout only, not a re-run"
        return ("[1 process] the interval covers one process's layout only: no verdict from it (--processes K, or "
                "--allow-single-process)")
    if tag == "[state]":
        return "[state] the machine changed state during the study: no verdict; re-run it"
    if tag == "[dropped]":
        return dropped_legend(tagged)
    if tag == "[placement]":
        where = {c.placement_failed for c in tagged}
        return ("[placement] the placement check failed (data not where planned): "
                + (where.pop() if len(where) == 1 else "--detail says where"))
    spreads = {(round(c.layout_sensitivity, 4), layout_source(c)) for c in tagged
               if np.isfinite(c.layout_sensitivity)}
    if not spreads:
        return ("[1 layout] prebuilt code, one layout, and what a layout adds not measured here: give the "
                "source (-v FILE.c:SYMBOL) to average over placements")
    if len(spreads) == 1:
        value, source = spreads.pop()
        under = f"±{value:.1%} ({source})"
    else:
        under = "the layout sensitivity (--detail)"
    return (f"[1 layout] prebuilt code, one layout: a difference under {under} may be its alignment; give the "
            "source (-v FILE.c:SYMBOL) to average over placements")


def dropped_legend(tagged: list[Comparison]) -> str:
    """The [dropped] legend: every process left out and why, each once: the starved with their
    rounds, the disturbed with the comparison and the ratio that set them apart, those the run
    dropped with its reason."""
    starved: dict[str, tuple[int, int]] = {}
    others: dict[str, list[str]] = {}
    for c in tagged:
        for d in c.dropped:
            who = process_label(d)
            if d["reason"] == "starved":
                starved[who] = (d["rounds"], d["min_rounds"])
            elif d["reason"] == "disturbed":
                others.setdefault(f"{who} disturbed", []).append(f"{c.variant} {d['ratio']:.3f}")
            else:
                others.setdefault(f"{who} dropped by the run" + (f" ({d['detail']})" if d.get("detail") else ""), [])
    parts = []
    if starved:
        floors = sorted({f for _, f in starved.values()})
        names = list(starved)
        if len(names) > 1 and all(n.startswith("process ") for n in names):
            names = ["processes " + ", ".join(n[len("process "):] for n in names)]
        parts.append(", ".join(names) + f" starved ({', '.join(str(r) for r, _ in starved.values())} rounds; "
                     f"under {'/'.join(map(str, floors))})")
    parts += [who + (f" (ratio {', '.join(at)})" if at else "") for who, at in others.items()]
    text = "[dropped] left out of the verdict, the model fitted to the rest: " + "; ".join(parts)
    if any(c.too_many_dropped for c in tagged):
        text += "; more than half of a comparison's processes: no verdict from it, re-run on a quieter CPU"
    return text


def legend_texts(comps: list[Comparison]) -> list[str]:
    """A sentence per tag the comparisons carry, each once, none when no tag is used."""
    tagged = {t: [c for c in comps if t in headline_tags(c)] for t in TAGS}
    return [_tag_legend(t, cs) for t, cs in tagged.items() if cs]


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=INDENT, break_on_hyphens=False)


def legend_lines(comps: list[Comparison]) -> list[str]:
    """legend_texts, each wrapped to WIDTH."""
    return [x for t in legend_texts(comps) for x in _wrap(t)]


def headline_key(c: Comparison) -> tuple:
    """What compare.compare_runs pools by: one headline group per key."""
    return (c.cpu_model, c.measure, c.function, c.distribution, c.icache_pressure, c.neighbours, c.baseline)


def group_title(c: Comparison, with_host: bool = False) -> str:
    """What a headline group compares: function, distribution and baseline, and what else sets the
    group apart (as the long line names it)."""
    title = f"{c.function} on {c.distribution} vs {c.baseline}"
    title += " (latency)" if c.measure == "latency" else ""
    title += f" [icache pressure {c.icache_pressure} B]" if c.icache_pressure else ""
    title += f" [{c.neighbours}]" if c.neighbours else ""
    title += f" [{c.cpu_model}, {c.hosts} host{'s' if c.hosts != 1 else ''}]" if with_host else ""
    return title


def _order(c: Comparison) -> tuple:
    """Faster, slower, equivalent, inconclusive; within each the largest change first (the greatest
    speed-up, the greatest slow-down), a comparison without a ratio last."""
    rank = VERDICT_ORDER.index(c.verdict) if c.verdict in VERDICT_ORDER else len(VERDICT_ORDER)
    r = c.ratio if np.isfinite(c.ratio) else math.inf
    return rank, (-r if c.verdict == "slower" and np.isfinite(r) else r)


def headline_groups(comps: list[Comparison]) -> list[tuple[str, list[Comparison]]]:
    """The comparisons as (title, comparisons sorted by verdict), one group per pooling key, in the
    order of first appearance."""
    with_host = len(host_groups(comps)) > 1 or any(c.hosts > 1 for c in comps)
    groups: dict[tuple, list[Comparison]] = {}
    for c in comps:
        groups.setdefault(headline_key(c), []).append(c)
    return [(group_title(cs[0], with_host), sorted(cs, key=_order)) for cs in groups.values()]


def fmt_ratio(x: float) -> str:
    """A ratio to three decimals (a tenth of a percent: a tenth of the default margin), a dash where
    there is none (an interval's unbounded end stays "inf")."""
    if math.isnan(x):
        return DASH
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.4g}"


def fmt_interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return DASH
    return f"[{fmt_ratio(low)}, {fmt_ratio(high)}]"


def interval_label(comps: list[Comparison]) -> str:
    """What the headline's interval is: the verdict's, simultaneous (Bonferroni over the family)
    where the family has several comparisons."""
    level = comps[0].level if comps else 0.95
    m = sum(c.rounds >= 2 for c in comps)
    return f"{level:.0%} interval" + (f", simultaneous over {m}" if m > 1 else "")


# The headline's title: what its ratio is.
HEADLINE_TITLE = "== verdicts at a glance: time / the baseline's (below 1: faster)"


def footer_text(comps: list[Comparison]) -> str:
    """The headline's key: what the interval is and what equivalent means."""
    margin = (comps[0].margin if comps else 0.01) * 100
    return f"[{interval_label(comps)}]; equivalent: within the ±{margin:g} % margin"


def _clip(text: str, width: int) -> str:
    """text cut in the middle to width characters (both ends kept: a NAME@ID's id is at its end)."""
    if len(text) <= width:
        return text
    keep = width - 1
    return text[:(keep + 1) // 2] + "…" + text[len(text) - keep // 2:]


# One headline row: the name, the ratio, its interval, the verdict as (number, words), what it
# rests on ("32 proc", "32->32 proc") and its tags.
Row = tuple[str, str, str, tuple[str, str], str, list[str]]


def aligned_rows(groups: list[tuple[str, list[Row]]]) -> list[str]:
    """Per group its title and one line per row of at most WIDTH characters, the columns aligned
    over every group. A name too long for its column is printed whole on a line of its own, its
    figures on the next (cut in the middle with "…" only beyond WIDTH); tags that would pass WIDTH
    go to a line of their own below their row's."""
    rows = [r for _, rs in groups for r in rs]
    if not rows:
        return [line for title, _ in groups for line in _wrap(title)]
    w_ratio = max(len(r[1]) for r in rows)
    w_interval = max(len(r[2]) for r in rows)
    w_number = max(len(r[3][0]) for r in rows)
    verdicts = [f"{n:>{w_number}} {w}" if n else w for _, _, _, (n, w), _, _ in rows]
    w_verdict = max(len(v) for v in verdicts)
    w_count = max(len(r[4]) for r in rows)
    rest = 2 + w_ratio + 1 + w_interval + 2 + w_verdict + 2 + w_count
    # the names that fit beside their figures set the column; a longer one gets a line of its own
    w_name = max((len(r[0]) for r in rows if len(r[0]) <= WIDTH - len(INDENT) - rest), default=0)
    out: list[str] = []
    k = 0
    for title, rs in groups:
        out += _wrap(title)
        for name, ratio, interval, _, count, tags in rs:
            verdict = verdicts[k]
            k += 1
            if len(name) > w_name:
                out.append(INDENT + _clip(name, WIDTH - len(INDENT)))
                name = ""
            line = (f"{INDENT}{name:<{w_name}}  {ratio:>{w_ratio}} {interval:<{w_interval}}  "
                    f"{verdict:<{w_verdict}}  {count:>{w_count}}")
            flags = " ".join(tags)
            if flags and len(line) + 2 + len(flags) <= WIDTH:
                out.append(f"{line}  {flags}")
            else:
                out.append(line.rstrip())
                if flags:
                    out += textwrap.wrap(flags, WIDTH, initial_indent=INDENT * 2, subsequent_indent=INDENT * 2)
    return out


def headline_lines(comps: list[Comparison], hint: str = "") -> list[str]:
    """The verdicts at a glance for a terminal: a title, per group its title and one line per
    variant of at most WIDTH characters (aligned_rows), e.g.

      rep_movsb  0.677 [0.668, 0.686]  32.3 % faster  32 proc

    then the tags' legend (only for tags used), the key, and `hint` (how to see every figure)."""
    out = [HEADLINE_TITLE]
    if not comps:
        return out + ["(no comparisons)"]
    groups = [(title, [(c.variant, fmt_ratio(c.ratio), fmt_interval(c.ci_adj_low, c.ci_adj_high), verdict_parts(c),
                        f"{c.processes} proc", headline_tags(c)) for c in cs])
              for title, cs in headline_groups(comps)]
    out += aligned_rows(groups)
    out += legend_lines(comps) + _wrap(footer_text(comps))
    return out + ([hint] if hint else [])


# The before/after headline's title: what its ratio is.
SHIFT_TITLE = "== before/after at a glance: after / before (below 1: after is faster)"
# Its last line without --detail: how to see every figure.
SHIFT_HINT = "every figure of each shift (both CIs, ns/call, adjusted p): --detail"


def shift_headline_lines(shifts: list[Shift], files: tuple[int, int], hint: str = "") -> list[str]:
    """diff's verdicts at a glance, as compare's headline is laid out (aligned_rows): per CPU model,
    function, distribution and estimand a title, then one line per variant, e.g.

      erms  0.973 [0.967, 0.978]  2.7 % faster  32->32 proc

    with the simultaneous interval; then the legend of [dropped] (the processes left out of a side)
    and the key."""
    out = [SHIFT_TITLE]
    if not shifts:
        return out + ["(no variant on both sides)"]
    groups: dict[tuple[str, str, str, str], list[Shift]] = {}
    for s in shifts:
        groups.setdefault((s.cpu_model, s.function, s.distribution, s.normalized_by), []).append(s)
    nb, na = files
    rows = []
    for (model, function, distribution, by), ss in groups.items():
        title = (f"{function} on {distribution}, {'ratio to ' + by if by else 'time per call'}; {nb} -> {na} "
                 f"file{'s' if na > 1 or nb > 1 else ''}" + (f" [{model}]" if model else ""))
        rows.append((title, [(s.variant, fmt_ratio(s.ratio), fmt_interval(s.ci_adj_low, s.ci_adj_high),
                              ratio_verdict(s.verdict, s.ratio), f"{s.before_processes}->{s.after_processes} proc",
                              ["[dropped]"] if s.dropped else []) for s in sorted(ss, key=_order)]))
    out += aligned_rows(rows)
    left = list(dict.fromkeys(d for s in shifts for d in s.dropped))
    if left:
        out += _wrap("[dropped] left out of a side, the rest compared: " + "; ".join(left))
    m = len(shifts)
    out += _wrap(f"[{shifts[0].level:.0%} interval" + (f", simultaneous over {m}" if m > 1 else "")
                 + f"]; equivalent: within the ±{shifts[0].margin * 100:g} % margin"
                 + ("; two studies: each interval holds the host's drift between them (note below)"
                    if any(s.between_sd > 0 for s in shifts) else ""))
    return out + ([hint] if hint else [])


def wrapped(text: str, indent: str = INDENT) -> list[str]:
    """A note or sentence wrapped to the headline's WIDTH, its continuation lines indented."""
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def md_escape(text: str) -> str:
    """Text inside a Markdown table or line: '|' escaped, '<' and '>' as entities (no tag)."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def headline_markdown(comps: list[Comparison]) -> list[str]:
    """The verdicts at a glance for the report and the notebooks: per group its title and a table
    of one row per variant (the terminal headline's cells), then the tags' legend and the key."""
    if not comps:
        return ["No comparisons."]
    out: list[str] = []
    label = interval_label(comps)
    for title, cs in headline_groups(comps):
        out += [f"**{md_escape(title)}**", "", f"| variant | ratio | {label} | verdict | processes | flags |",
                "|---|---|---|---|---|---|"]
        out += [f"| {md_escape(c.variant)} | {fmt_ratio(c.ratio)} | {fmt_interval(c.ci_adj_low, c.ci_adj_high)} | "
                f"**{verdict_word(c)}** | {c.processes} | {' '.join(headline_tags(c)) or DASH} |" for c in cs]
        out.append("")
    return (out + [f"- {x}" for x in legend_texts(comps)]
            + [f"- ratio: time / the baseline's (below 1: faster); {footer_text(comps)}"])


def plain(line: str) -> str:
    """A report line for a terminal: Markdown's emphasis and code marks removed."""
    return CODE.sub(r"\1", STRONG.sub(r"\1", line))


COMPARISON_COLUMNS = ["cpu_model", "hosts", "distribution", "variant", "baseline", "processes", "rounds", "ratio", "ci_low", "ci_high",
                      "ci_adj_low", "ci_adj_high", "pi_low", "pi_high", "between_process_sd", "within_low",
                      "within_high", "net_ratio", "net_low", "net_high", "p_adjusted", "verdict", "ratio_of_medians",
                      "rom_low", "rom_high", "mann_whitney_p", "hodges_lehmann_ratio", "mde", "rounds_for_margin",
                      "processes_for_margin", "placement_failed", "one_layout", "layout_sensitivity",
                      "state_change_at", "processes_dropped", "dropped_processes", "layout_source"]

# The same columns for a reader (the report's fold): what a verdict says first (the variant, the
# verdict, the ratio and the interval it rests on, the processes), then what qualifies it, then the
# secondary statistics, then what the comparison is of.
READER_COLUMNS = ["variant", "verdict", "ratio", "ci_adj_low", "ci_adj_high", "processes", "ci_low", "ci_high",
                  "p_adjusted", "pi_low", "pi_high", "between_process_sd", "within_low", "within_high", "net_ratio",
                  "net_low", "net_high", "rounds", "processes_for_margin", "processes_dropped", "dropped_processes",
                  "placement_failed", "one_layout", "layout_sensitivity", "layout_source", "state_change_at", "ratio_of_medians", "rom_low", "rom_high",
                  "mann_whitney_p", "hodges_lehmann_ratio", "mde", "rounds_for_margin", "baseline", "distribution",
                  "cpu_model", "hosts"]
assert sorted(READER_COLUMNS) == sorted(COMPARISON_COLUMNS)


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


# ---- Studies pooled over time (analyze pool) ----------------------------------------------------

def pooled_lines(pcs: list, detail: bool = False) -> list[str]:
    """analyze pool's text (verdicts/pool.py PooledComparison): per variant the pooled ratio, the
    simultaneous interval its verdict rests on, the verdict, the studies, and where a study run
    later would put its ratio; then the between-study sd of each and where it comes from; with
    detail one line per study."""
    if not pcs:
        return ["(nothing to pool: no variant was compared with the baseline in two files or more)"]
    first = pcs[0]
    out = ["== pooled over studies at different times: time / baseline's (below 1: faster)"]
    # the headline's layout (aligned_rows), where a study run later would put its ratio as a tag
    out += aligned_rows([(f"{first.function} on {first.distribution} vs {first.baseline} [{first.cpu_model}, host "
                          f"{first.host}]",
                          [(pc.variant, fmt_ratio(pc.ratio), fmt_interval(pc.ci_adj_low, pc.ci_adj_high),
                            ratio_verdict(pc.verdict, pc.ratio), f"{pc.studies} studies",
                            ["next " + fmt_interval(pc.pi_low, pc.pi_high)]) for pc in pcs])])
    level = first.level
    m = len(pcs)
    same: dict[tuple[float, str], list[str]] = {}
    for pc in pcs:
        same.setdefault((round(pc.between_sd, 6), pc.between_source), []).append(pc.variant)
    for (sd, source), names in same.items():
        out += _wrap(f"between studies: ±{sd:.2%} for {', '.join(names)} ({source})")
    for pc in pcs:
        if pc.withheld_studies:
            out += _wrap(f"{pc.variant}: {pc.withheld_studies} of its studies had their own verdict withheld (their "
                         "ratios are in the pool)")
    out += _wrap(f"[{level:.0%} interval" + (f", simultaneous over {m}" if m > 1 else "") + "; next: where a study "
                 f"run later puts its ratio, {level:.0%} prediction]; equivalent: within the ±{100 * first.margin:g} % "
                 "margin")
    if detail:
        for pc in pcs:
            out.append(f"- {pc.variant}: ratio {pc.ratio:.4f}, {level:.0%} CI [{pc.ci_low:.4f}, {pc.ci_high:.4f}], "
                       f"simultaneous [{pc.ci_adj_low:.4f}, {pc.ci_adj_high:.4f}], a later study [{pc.pi_low:.4f}, "
                       f"{pc.pi_high:.4f}], adjusted p {fmt_p(pc.p_adjusted)}; per study:")
            out += [f"    {s['file']} ({s['created_utc']}): {s['ratio']:.4f} [{s['ci_low']:.4f}, {s['ci_high']:.4f}], "
                    f"{s['processes']} processes" + (f", {s['dropped']} dropped" if s["dropped"] else "")
                    + (", its verdict withheld" if s["withheld"] else "") for s in pc.per_study]
    return out

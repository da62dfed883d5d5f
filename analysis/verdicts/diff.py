"""Before/after: each variant compared with itself across two sets of result files (two builds,
two libc versions, two kernels or hosts). Rounds cannot be paired across runs, so the unit is the
process: each process of each file gives one value, and the two sets of values are compared with
Welch's t interval on the log scale, the same replicate the within-run verdicts use.

Two estimands:
- absolute (default): ln of the process's median time per call of the variant. Simple, but it
  carries whatever changed on the machine between the two runs (frequency, other load).
- normalized by a baseline (`normalize=NAME`): the process's median over rounds of
  ln(t_variant / t_baseline), with the baseline timed in the same rounds. Machine drift cancels;
  use it when the baseline's code is the same on both sides (libc, when your plugin changed).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..io import placement_check
from ..io.load import Run, combine, measured
from ..stats.multiplicity import holm
from ..stats.placement_model import DesignEstimate, design_estimate, placement_columns, welch
from ..stats.pooling import MIN_STUDIES_TAU, between_sd
from ..stats.screening import screen
from ..stats.validated import drift_default
from .compare import (cpu_key, dropped_reason, kept_levels, marked_processes, paired_rounds, placement_levels,
                      process_label, screen_processes, verdict_of)


@dataclass
class Shift:
    variant: str
    function: str
    distribution: str
    normalized_by: str               # "" for absolute times
    before_processes: int
    after_processes: int
    ratio: float                     # after / before (below 1: after is faster)
    ci_low: float
    ci_high: float
    ci_adj_low: float                # simultaneous over the variants compared (Bonferroni)
    ci_adj_high: float
    p: float                         # Welch's t test of equal means of the log units
    p_adjusted: float
    verdict: str
    before_ns_per_call: float        # median over every measured batch of the side (gross), as summarize
    after_ns_per_call: float
    margin: float
    level: float
    notes: list[str] = field(default_factory=list)
    cpu_model: str = ""              # the host group: each CPU model is compared with itself
    # the sd of one study's value from one study to the next on this host (its drift), which a
    # before/after of two studies carries twice over: from the host's history, else a stated default
    between_sd: float = 0.0
    between_source: str = ""
    dropped: list[str] = field(default_factory=list)  # processes left out of each side (stats/screening.py)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["notes"] = "; ".join(self.notes)
        return d


def process_units(df: pd.DataFrame, variant: str, normalize: str = "", marked: dict[int, str] | None = None,
                  with_dropped: bool = False):
    """One value per process of the combined files (load.combine): ln(median ns per call of the
    variant), or with normalize the median over that process's rounds of ln(t_variant / t_normalize);
    as their mean with the error the design gives it (the placement model: design_estimate,
    with the placements of the loop, the variant and the baseline, where the files placed them).
    The processes a verdict would not accept (stats/screening.py: marked by the run, starved,
    disturbed) are left out; with with_dropped, (the estimate, the dropped processes' dicts)."""
    marked = marked or {}
    dropped: list[dict] = []
    if normalize:
        pr = paired_rounds(df, variant, normalize)
        all_levels = None
        if len(np.unique(pr["process"])) > 1:
            pr, dropped, all_levels, _ = screen_processes(pr, marked)
        d = np.log(pr["ns_per_call_v"].to_numpy() / pr["ns_per_call_b"].to_numpy())
        ids = np.unique(pr["process"])
        x = np.array([np.median(d[pr["process"].to_numpy() == g]) for g in ids])
        est = design_estimate(x, kept_levels(all_levels, ids))
        return (est, dropped) if with_dropped else est
    m = measured(df)
    m = m[(m["variant"] == variant) & (m["ns_per_call"] > 0)]
    per = m.groupby("process").agg(ns=("ns_per_call", "median"), kernel_placement=("kernel_placement", "first"),
                                   code_placement_v=("code_placement", "first"), rounds=("ns_per_call", "size"))
    per["code_placement_b"] = -1  # no baseline: absolute times
    ids = per.index.to_numpy()
    is_marked = np.array([int(g) in marked for g in ids], bool)
    # the design is the processes the run kept (a re-run in a dropped one's slot takes its placements)
    levels = placement_levels(per.reset_index(), ids) if not is_marked.any() else None
    if is_marked.any():
        kept_rows = placement_levels(per[~is_marked].reset_index(), ids[~is_marked])
        if kept_rows is not None:
            levels = np.empty((len(ids), kept_rows.shape[1]), np.int64)
            levels[~is_marked], levels[is_marked] = kept_rows, kept_rows[0]
    x = np.log(per["ns"].to_numpy())
    if len(x) > 1:
        s = screen(x, per["rounds"].to_numpy(), placement_columns(levels)[0] if levels is not None else None,
                   studies=ids // 1000, marked=is_marked)
        for i in np.flatnonzero(~s.kept):
            dropped.append({"process": int(ids[i]), "index": int(ids[i]) % 1000,
                            "reason": "dropped by the run" if s.marked[i] else "starved" if s.starved[i] else "disturbed",
                            "detail": marked.get(int(ids[i]), ""), "rounds": int(per["rounds"].iloc[i]),
                            "min_rounds": int(s.floor[i]), "ratio": float(np.exp(x[i] - np.median(x))),
                            "expected": 1.0, "residual": float(s.residual[i])})
        if dropped:
            all_levels = None if levels is None else {int(g): row for g, row in zip(ids, levels)}
            x, levels = x[s.kept], kept_levels(all_levels, ids[s.kept])
    est = design_estimate(x, levels)
    return (est, dropped) if with_dropped else est


def median_ns(df: pd.DataFrame, variant: str) -> float:
    """The variant's median time per call over every measured batch of the side: the statistic
    `summarize` and the run's own summary print, so the three agree on one file."""
    m = measured(df)
    x = m.loc[m["variant"] == variant, "ns_per_call"].to_numpy()
    return float(np.median(x)) if len(x) else float("nan")


def unresolved_hint(shifts: list[Shift], normalize: str, processes: int) -> list[str]:
    """Why no variant came out faster, slower or equivalent, and what would resolve one: absolute
    times carry the machine's state between the runs (a drift the same on every variant), which a
    ratio to a baseline timed in the same rounds cancels; and few processes give wide intervals."""
    if not shifts or any(s.verdict in ("faster", "slower", "equivalent") for s in shifts):
        return []
    spans = [s.ci_adj_high / s.ci_adj_low - 1 for s in shifts if s.ci_adj_low > 0]
    narrowest = min(spans) if spans else float("nan")
    lines = [f"no variant resolved: the narrowest simultaneous interval spans {100 * narrowest:.1f} %, more than "
             f"a verdict at the margin allows"]
    if not normalize:
        lines.append("absolute times between two runs carry the machine's state (the same drift on every variant); "
                     "--normalize BASELINE compares each variant's ratio to a baseline timed in the same rounds, "
                     "which cancels it")
    if processes < 20:
        lines.append(f"{processes} processes a side: more (--processes) narrow the intervals as 1/sqrt(processes)")
    return lines


# Context that decides whether two result sets measure the same thing, as (label, path in the doc).
CONTEXT_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("CPU model", ("host", "cpu", "model")),
    ("microcode", ("host", "cpu", "microcode")),
    ("kernel", ("host", "kernel")),
    ("clock", ("timer", "name")),
    ("compiler", ("tool", "build", "compiler")),
    ("build type", ("tool", "build", "type")),
    ("C flags", ("tool", "build", "c_args")),
    ("function", ("config", "function")),
    ("measure", ("config", "measure")),
    ("distribution", ("config", "distribution")),
    ("placement", ("config", "placement")),
    ("alignment mode", ("config", "alignment_mode")),
    ("icache pressure", ("config", "icache_pressure", "bytes")),
    ("timing threads", ("config", "threads", "count")),
    ("background stressor", ("config", "background", "stressor")),
)


# Context that says what was measured: two sides that differ in one of these do not measure the
# same thing, and a verdict between them would be about the difference in what was asked, not in
# the code. diff refuses them unless forced.
MEASURED_LABELS = ("function", "measure", "distribution", "placement")


def incomparable(differences: list[str]) -> list[str]:
    """The lines of context_differences that say the two sides measured different things."""
    return [line for line in differences if line.split(":", 1)[0] in MEASURED_LABELS]


# What a file from before an option holds where a later file writes the option's default: no
# difference to report between them.
CONTEXT_DEFAULTS: dict[tuple[str, ...], Any] = {
    ("config", "measure"): "throughput",
    ("config", "threads", "count"): 1,
}


def _get(doc: dict[str, Any], path: tuple[str, ...]) -> Any:
    for k in path:
        if not isinstance(doc, dict) or k not in doc:
            return None
        doc = doc[k]
    return doc


def _distribution_hashes(doc: dict[str, Any]) -> str:
    files = _get(doc, ("distribution", "files")) or []
    return ",".join(sorted(f"{f.get('role')}:{f.get('sha256', '')[:12]}" for f in files if isinstance(f, dict)))


def context_differences(before: list[Run], after: list[Run]) -> list[str]:
    """What differs between the two sets in the context that matters, one line per item:
    'kernel: 6.1.0 -> 6.6.0'. Values that differ within a set are listed with '|'."""
    def values(runs: list[Run], get) -> str:
        seen: list[str] = []
        for r in runs:
            v = str(get(r.doc))
            if v not in seen:
                seen.append(v)
        return " | ".join(seen)

    items = [(label, lambda d, p=path: _get(d, p) if _get(d, p) is not None else CONTEXT_DEFAULTS.get(p))
             for label, path in CONTEXT_KEYS]
    items.append(("distribution files (sha256)", _distribution_hashes))
    out = []
    for label, get in items:
        a, b = values(before, get), values(after, get)
        if a != b:
            out.append(f"{label}: {a} -> {b}")
    return out


def history_drift(history: list[Run], normalize: str = "") -> dict[str, tuple[float, int]]:
    """The between-study sd of each variant in a host's own history (earlier studies of it, one file
    each): REML over the files' per-study values (process_units: ln ns per call, or the ratio to
    normalize) and their standard errors, with how many studies it rests on; only variants in at
    least MIN_STUDIES_TAU files."""
    values: dict[str, list[tuple[float, float]]] = {}
    for r in history:
        if normalize and normalize not in r.variants:
            continue
        df = combine([r])
        for v in r.variants:
            if v in r.harness_variants or v == normalize:
                continue
            u = process_units(df, v, normalize)
            if u.processes >= 2 and np.isfinite(u.se):
                values.setdefault(v, []).append((u.estimate, u.se))
    out = {}
    for v, pts in values.items():
        if len(pts) >= MIN_STUDIES_TAU:
            y, se = np.array(pts).T
            out[v] = (between_sd(y, se), len(pts))
    return out


def diff_runs(before: list[Run], after: list[Run], normalize: str = "", variants: list[str] | None = None,
              level: float = 0.95, margin: float = 0.01, history: list[Run] | None = None,
              between: float | None = None) -> list[Shift]:
    """Each variant present on both sides (the harness noop and the normalizing baseline aside),
    after against before, separately for each CPU model found on both sides (several hosts of one
    model pool as replicates). Sides that share no model (host A before, host B after) are compared
    as they are, and context_differences says the CPU model differs. Holm-adjusted p-values
    and Bonferroni simultaneous intervals over every shift; verdicts as within a run
    (compare.verdict_of). Two sides from two studies carry the host's drift between them: each
    shift's interval holds a between-study sd twice over, from `between` where given (0: none, for
    sides of the same studies), else from the host's history (history_drift, per variant), else the
    validation's stated default for the CPU (stats/validated.py), named in each shift."""
    for side, runs in (("before", before), ("after", after)):
        sizes = sorted({(_get(r.doc, ("config", "icache_pressure", "bytes")) or 0) for r in runs})
        if len(sizes) > 1:
            raise ValueError(f"the {side} files mix --icache-pressure sizes ({', '.join(map(str, sizes))} bytes): "
                             "they measure different things; diff one size at a time")
        loads = sorted({r.neighbours or "one thread, no stressor" for r in runs})
        if len(loads) > 1:
            raise ValueError(f"the {side} files mix what thread 0 ran beside ({'; '.join(loads)}): they measure "
                             "different things; diff one kind at a time")
    drift = _drift(before, normalize, history, between)
    models = [m for m in dict.fromkeys(r.cpu_model for r in before) if m in {r.cpu_model for r in after}]
    if len({r.cpu_model for r in before + after}) <= 1 or not models:
        # one model, or two machines compared on purpose (host A before, host B after): one group;
        # context_differences warns that the CPU model changed
        return _adjust(_diff_group(before, after, normalize, variants, level, margin, drift=drift), margin, level)
    shifts = []
    for m in models:
        group = _diff_group([r for r in before if r.cpu_model == m], [r for r in after if r.cpu_model == m],
                            normalize, variants, level, margin, n_groups=len(models), drift=drift)
        for s in group:
            s.cpu_model = m
        shifts += group
    return _adjust(shifts, margin, level)


def _drift(before: list[Run], normalize: str, history: list[Run] | None,
           between: float | None) -> Callable[[str], tuple[float, float, str]]:
    """The between-study sd of each variant as diff_runs takes it: a function of the variant's name
    giving (sd, its degrees of freedom, its source in words)."""
    if between is not None:
        return lambda v: (between, float("inf"), "as given" if between else "none: both sides from the same studies")
    measured = history_drift(history, normalize) if history else {}
    default, source = drift_default(cpu_key(before[0]), absolute=not normalize)

    def of(v: str) -> tuple[float, float, str]:
        if v in measured and np.isfinite(measured[v][0]):
            sd, k = measured[v]
            return sd, float(k - 1), f"measured from this host's history, REML over {k} studies"
        return default, float("inf"), source + ("; the history had fewer than 3 studies of it" if history else "")
    return of


def unmatched_models(before: list[Run], after: list[Run]) -> list[str]:
    """CPU models found on one side only: their files are left out of the shifts."""
    b, a = {r.cpu_model for r in before}, {r.cpu_model for r in after}
    if len(b | a) <= 1 or not (b & a):
        return []
    return [f"{m} ({'before' if m in b else 'after'} only)" for m in sorted(b ^ a)]


def _diff_group(before: list[Run], after: list[Run], normalize: str, variants: list[str] | None, level: float,
                margin: float, n_groups: int = 1,
                drift: Callable[[str], tuple[float, float, str]] | None = None) -> list[Shift]:
    """The shifts of one host group, p-values unadjusted; the simultaneous intervals cover every
    variant of every group (n_groups of them alike)."""
    names_b = {n for r in before for n in r.variants}
    names_a = {n for r in after for n in r.variants}
    harness = {n for r in before + after for n in r.harness_variants}
    common = [n for n in before[0].variants if n in names_a and n not in harness and n != normalize]
    if variants:
        missing = [v for v in variants if v not in names_b or v not in names_a]
        if missing:
            raise ValueError(f"variant {', '.join(repr(v) for v in missing)} is not on both sides")
        common = [n for n in common if n in variants]
    if normalize and (normalize not in names_b or normalize not in names_a):
        raise ValueError(f"--normalize: '{normalize}' is not on both sides")
    if not common:
        raise ValueError("no variant is on both sides")
    k = len(common) * n_groups
    adj_level = 1 - (1 - level) / k
    fb, fa = combine(before), combine(after)
    # as compare names a failed placement check beside its verdict: a side whose calls were timed
    # from another level than planned may differ for that reason, not the code's
    misplaced = [f"placement check failed {side}: {text}" for side, runs in (("before", before), ("after", after))
                 if (text := placement_check.failures([r.doc for r in runs]))]
    shifts = []
    mb, ma = marked_processes(before), marked_processes(after)
    for v in common:
        (ub, db), (ua, da) = process_units(fb, v, normalize, mb, True), process_units(fa, v, normalize, ma, True)
        tau, tau_df, source = drift(v) if drift is not None else (0.0, float("inf"), "")
        notes = list(misplaced)
        left = [f"{side}: {_named(d, runs)} ({dropped_reason(d)})" for side, ds, runs in
                (("before", db, before), ("after", da, after)) for d in ds]
        if ub.processes < 2 or ua.processes < 2:
            nan = float("nan")
            shifts.append(Shift(v, before[0].function, before[0].distribution, normalize, ub.processes, ua.processes,
                                nan, nan,
                                nan, nan, nan, 1.0, 1.0, "inconclusive", median_ns(fb, v), median_ns(fa, v),
                                margin, level, ["fewer than 2 processes on a side: no interval over processes"]))
            continue
        d, lo, hi, p = welch(ub, ua, level, tau, tau_df)
        _, alo, ahi, _ = welch(ub, ua, adj_level, tau, tau_df)
        shifts.append(Shift(v, before[0].function, before[0].distribution, normalize, ub.processes, ua.processes,
                            float(np.exp(d)), float(np.exp(lo)), float(np.exp(hi)), float(np.exp(alo)),
                            float(np.exp(ahi)), p, p, "", median_ns(fb, v), median_ns(fa, v), margin, level,
                            notes, between_sd=tau, between_source=source, dropped=left))
    return shifts


def _named(d: dict, runs: list[Run]) -> str:
    """A dropped process of one side, by its file's index (and the file where the side has several)."""
    at = d["process"] // 1000
    return process_label({**d, "index": d["process"] % 1000, "file": runs[at].path if len(runs) > 1 else ""})


def _adjust(shifts: list[Shift], margin: float, level: float) -> list[Shift]:
    """Holm over every shift, then the verdicts."""
    ps = np.array([s.p for s in shifts])
    for s, pa in zip(shifts, holm(ps)):
        s.p_adjusted = float(pa)
        if not s.verdict:
            s.verdict = verdict_of(s.ci_adj_low, s.ci_adj_high, s.p_adjusted, s.ratio, margin, 1 - level)
    return shifts


def shift_line(s: Shift) -> str:
    what = f"ratio to {s.normalized_by}" if s.normalized_by else "time per call"
    where = f" [{s.cpu_model}]" if s.cpu_model else ""
    return (f"- {s.variant}{where}: {s.verdict}, after/before {s.ratio:.4f} ({100 * (s.ratio - 1):+.2f} %), "
            f"{round(100 * s.level)}% CI [{s.ci_low:.4f}, {s.ci_high:.4f}], simultaneous "
            f"[{s.ci_adj_low:.4f}, {s.ci_adj_high:.4f}]; {what}, {s.before_processes} -> {s.after_processes} "
            f"processes; median over every batch {s.before_ns_per_call:.2f} -> {s.after_ns_per_call:.2f} ns/call; adjusted p "
            f"{s.p_adjusted:.3g}" + (f"; between studies ±{s.between_sd:.2%} a side" if s.between_sd else "")
            + (f"; left out: {'; '.join(s.dropped)}" if s.dropped else "")
            + (f"; {'; '.join(s.notes)}" if s.notes else ""))


def drift_sentences(shifts: list[Shift]) -> list[str]:
    """What every shift of two studies carries: the host's drift between them, how much, from where
    (each source once)."""
    carried = [s for s in shifts if s.between_sd > 0]
    if not carried:
        return []
    sources: dict[tuple[float, str], list[str]] = {}
    for s in carried:
        sources.setdefault((round(s.between_sd, 6), s.between_source), []).append(s.variant)
    return ["before and after are two studies, so each shift includes the host's drift between them, which its "
            "interval holds: " + "; ".join(f"±{sd:.2%} a study for {', '.join(names)} ({source})"
                                           for (sd, source), names in sources.items())]


def _code_arg(v: dict[str, Any]) -> str | None:
    """How `memfbench run -v` names a variant's code: a source variant's FILE:SYMBOL, a plugin's
    OBJECT:SYMBOL; None for code no -v can name from another build (libc, built-ins)."""
    build = v.get("build") or {}
    if v.get("origin") == "source" and build.get("file") and build.get("symbol"):
        return f"{build['file']}:{build['symbol']}"
    if v.get("origin") == "plugin" and v.get("object") and v.get("symbol"):
        return f"{v['object']}:{v['symbol']}"
    return None


def one_study_command(before: list[Run], after: list[Run], shifts: list[Shift], normalize: str = "") -> str:
    """A ready `memfbench run` that times both builds as variants of one study (each code once per
    round, its processes shared, the host's drift cancelling in the ratio): every shifted variant
    whose code each side names as a source or plugin file, as NAME-before and NAME-after, beside the
    normalizing variant (else libc). "" when no shifted variant's code can be named so."""
    def by_name(runs: list[Run]) -> dict[str, dict[str, Any]]:
        return {v["name"]: v for r in runs for v in r.doc["variants"]}

    b, a = by_name(before), by_name(after)
    args: list[str] = []
    for s in shifts:
        name = s.variant
        old, new = _code_arg(b.get(name, {})), _code_arg(a.get(name, {}))
        if old and new:
            args += [f"-v {old}={name}-before", f"-v {new}={name}-after"]
    if not args:
        return ""
    base = normalize or "libc"
    config = before[0].doc["config"]
    cpu = config.get("cpu") if not str(config.get("cpu_source", "")).startswith("default") else None
    return " ".join(["memfbench run", f"-v {base}", *args] + ([f"--cpu {cpu}"] if isinstance(cpu, int) else []))

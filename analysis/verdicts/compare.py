"""A/B comparisons of variants within a run, paired by round, with verdicts.

The unit of a verdict is the process: code and data layout change from one exec to the next and
stay fixed within one, so rounds of one process are not independent evidence about the
implementation. With several processes the estimand is the mean over processes of each
process's median log ratio ln(t_variant / t_baseline), with a t interval; beside it stand the
between-process spread ("layout noise"), a prediction interval for a re-run with as many
processes, and the within-process interval (exact sign test over all rounds), labelled as such.
One process gives only the within-process interval and no faster/slower verdict unless the run
or the caller allows it. The ratio of medians with a bootstrap interval, a Mann-Whitney p-value
and the Hodges-Lehmann shift are reported beside it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Union

import numpy as np

from ..io import placement_check
from ..io.load import Batches, Run, combine_columns
from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, ROM_RESAMPLES, ratio_of_medians_ci
from ..stats.intervals import Interval, sign_test_ci, sign_test_p
from ..stats.laws import mann_whitney_p
from ..stats.multiplicity import ADJUSTERS
from ..stats.placement_model import CODE_PLACEMENTS, DesignEstimate, design_estimate, process_estimate, shift_over_order
from ..stats.placement_model import placement_columns
from ..stats.power import minimum_detectable_effect, rounds_needed
from ..stats.robust import hodges_lehmann
from ..stats.screening import levels_kept, screen
from ..stats.validated import layout_floor

if TYPE_CHECKING:
    import pandas as pd

# What the functions below read batches and paired rounds from: a DataFrame, the numpy columns of a
# file (load.Batches), or paired rounds as a dict of arrays (paired_columns); each gives a column's
# array by its name and says whether it has one (`name in t`).
Table = Union["pd.DataFrame", Batches, Mapping[str, np.ndarray]]


def column(t: Table, name: str) -> np.ndarray:
    """A column of t as a numpy array."""
    return np.asarray(t[name])


def rows_of(t: Table, keep: np.ndarray) -> Table:
    """The rows of t where keep is True, as the same kind of table (a frame renumbered from 0)."""
    if isinstance(t, Batches):
        return t.take(keep)
    if isinstance(t, dict):
        return {k: v[keep] for k, v in t.items()}
    return t[keep].reset_index(drop=True)


@dataclass
class Comparison:
    run: str
    function: str
    distribution: str
    variant: str
    baseline: str
    rounds: int
    ratio: float                 # median paired ratio t_variant / t_baseline (below 1: faster)
    ci_low: float                # per-comparison interval at `level`
    ci_high: float
    ci_adj_low: float            # simultaneous interval (Bonferroni over the family)
    ci_adj_high: float
    level: float
    p_sign: float
    p_adjusted: float
    ratio_of_medians: float
    rom_low: float
    rom_high: float
    rom_method: str
    mann_whitney_p: float
    hodges_lehmann_ratio: float  # exp(HL shift of log per-call times)
    hl_subsampled: bool
    tied_rounds: int             # rounds where both batches measured exactly the same ticks
    mde: float                   # minimum detectable relative change (80 % power)
    rounds_for_margin: int       # rounds the sign test needs to detect a change equal to the margin (1 % if 0)
    margin: float
    verdict: str = ""
    estimand: str = "median over rounds of ln(t_variant / t_baseline); exact sign-test interval"
    notes: list[str] = field(default_factory=list)
    # what the interval is computed from: per-round log ratios, or per-process medians of them
    units: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False)
    design: DesignEstimate | None = field(default=None, repr=False)
    across_processes: bool = False
    processes: int = 1
    between_process_sd: float = float("nan")  # sd of per-process log ratios (relative, ~ fraction)
    pi_low: float = float("nan")              # prediction interval of a re-run's ratio (same processes)
    pi_high: float = float("nan")
    within_low: float = float("nan")          # within-process interval (sign test over all rounds)
    within_high: float = float("nan")
    processes_for_margin: int = 0             # processes this design needs to resolve the margin
    # the design: a model of the code placements' effects (balanced over the study), or processes as they came
    placement_model: bool = False            # the interval's error from the placement model (design_estimate)
    model_parameters: int = 0
    dof: int = 0                              # degrees of freedom of the interval
    within_placement_sd: float = float("nan")  # per process, what the placement model leaves (the interval's noise)
    placement_sd: float = float("nan")        # sd of the placements' effects (cancelled by the balanced mean)
    variant_placement_sd: float = float("nan")  # sd of the variant's own placements' effects
    single_process_allowed: bool = False
    net_ratio: float = float("nan")           # the same estimand with each process's harness cost per
    net_low: float = float("nan")             # call subtracted from both sides (the verdict uses the
    net_high: float = float("nan")            # gross ratio: the harness is part of every call's cost)
    cpu_model: str = ""                       # the host group: files of one CPU model are pooled
    icache_pressure: int = 0                  # --icache-pressure bytes: runs of different sizes never pooled
    neighbours: str = ""                      # --threads/--background (Run.neighbours): never pooled across
    measure: str = "throughput"               # throughput or latency: never pooled together
    hosts: int = 1                            # distinct host names among the pooled files
    placement_failed: str = ""                # failed placement checks of the pooled processes (io/placement_check.py)
    # code with one layout (prebuilt plugins) among the two, and how far identical code moved with its
    # placement in the same files: a difference under it may be that layout's, not the code's
    one_layout: str = ""
    layout_sensitivity: float = float("nan")  # relative: 1.96 x the sd of one code's placement effects, at
                                              # least layout_floor where one_layout
    layout_sensitivity_from: str = ""         # the placed comparison it was measured on
    # a shift over process order (the machine changed state during the study): no verdict then
    state_change_at: int = 0                  # processes before the shift (0: none found)
    state_change_p: float = float("nan")
    state_before: float = float("nan")        # the ratio before and after it
    state_after: float = float("nan")
    # processes left out of the verdict (stats/screening.py): one dict each, with why (dropped_text)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    too_many_dropped: bool = False            # more than half dropped: no verdict
    layout_measured: float = float("nan")     # layout_sensitivity as these files measured it (before the floor)
    layout_floor: float = float("nan")        # the validation's floor of layout_sensitivity (stats/validated.py)
    layout_floor_from: str = ""
    cpu_key: str = ""                         # vendor, family and model: which validation section applies

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("units")
        d.pop("design")
        d["notes"] = "; ".join(self.notes)
        d["processes_dropped"] = len(self.dropped)
        d["dropped_processes"] = dropped_text(self)
        d["layout_source"] = layout_source(self)
        return d


def layout_source(c: Comparison) -> str:
    """Where a one-layout comparison's sensitivity comes from: measured in these files, or the
    validation's floor for the CPU (and what was measured beside it); "" without one layout."""
    if not c.one_layout or not np.isfinite(c.layout_sensitivity):
        return ""
    measured = (f"measured here ±{c.layout_measured:.1%} from {c.layout_sensitivity_from}"
                if np.isfinite(c.layout_measured) else "nothing placed here to measure it")
    if np.isfinite(c.layout_floor) and c.layout_sensitivity == c.layout_floor and \
            not (np.isfinite(c.layout_measured) and c.layout_measured >= c.layout_floor):
        return f"{c.layout_floor_from}; {measured}"
    return measured + (f"; its floor ±{c.layout_floor:.1%}, {c.layout_floor_from}" if np.isfinite(c.layout_floor) else "")


def process_label(d: dict[str, Any]) -> str:
    """A dropped process as the run named it on the terminal: counted from 1 ("process 3 of 32"),
    its index in the file's processes[] being one less (and the file where the comparison pools
    several)."""
    number = int(d.get("index", d["process"])) + 1
    return f"{d['file']} process {number}" if d.get("file") else f"process {number}"


def dropped_reason(d: dict[str, Any]) -> str:
    """Why a process was left out, in words."""
    if d["reason"] == "starved":
        return f"starved: {d['rounds']} rounds, fewer than {d['min_rounds']}"
    if d["reason"] == "disturbed":
        return (f"disturbed: ratio {d['ratio']:.3f} where the others' model expects {d['expected']:.3f}, "
                f"studentized residual {d['residual']:+.1f}")
    return "dropped by the run" + (f": {d['detail']}" if d.get("detail") else "")


def dropped_text(c: Comparison) -> str:
    """The processes left out of a comparison and why, one phrase each ("" for none)."""
    return "; ".join(f"{process_label(d)} ({dropped_reason(d)})" for d in c.dropped)


def paired_columns(df: Table, variant: str, baseline: str) -> dict[str, np.ndarray]:
    """Per (process, round), in that order: the two batches' per-call times, measured rounds only
    (a round's first batch of each where one repeats), as arrays by column name (paired_rounds's
    columns). Matched on one integer key by numpy, not by a pandas join on the two columns, which
    cost ten times as much; rows picked from the columns' arrays, not by indexing a frame (each a
    copy of every column: most of a small file's cost)."""
    is_v, is_b = ((df.variant_is(variant), df.variant_is(baseline)) if isinstance(df, Batches) else
                  (column(df, "variant") == variant, column(df, "variant") == baseline))
    measured_rows = ~column(df, "warmup").astype(bool)
    rows_v = np.flatnonzero(measured_rows & is_v)
    rows_b = np.flatnonzero(measured_rows & is_b)
    process, rnd = column(df, "process"), column(df, "round")
    # one integer per (process, round): rounds are below 2^32 (the file's round counter is 32-bit)
    keys = (process.astype(np.int64) << 32) | rnd.astype(np.int64)
    _, iv, ib = np.intersect1d(keys[rows_v], keys[rows_b], return_indices=True)
    rv, rb = rows_v[iv], rows_b[ib]
    cols = {"process": process[rv], "round": rnd[rv]}
    for side, r in (("_v", rv), ("_b", rb)):
        for c in ("ns_per_call", "ticks") + (("code_placement",) if "code_placement" in df else ()):
            cols[c + side] = column(df, c)[r]
    cols.update({c: column(df, c)[rv] for c in ("code_block", "harness_ns_per_call", "kernel_placement")
                 if c in df})
    timed = (cols["ns_per_call_v"] > 0) & (cols["ns_per_call_b"] > 0)
    return {c: v[timed] for c, v in cols.items()}


def paired_rounds(df: Table, variant: str, baseline: str) -> pd.DataFrame:
    """paired_columns as a DataFrame, one row per round."""
    import pandas as pd
    return pd.DataFrame(paired_columns(df, variant, baseline))


def verdict_of(low: float, high: float, p_adj: float, estimate: float, margin: float, alpha: float) -> str:
    """equivalent: the simultaneous interval lies inside [1/(1+m), 1+m]; faster/slower: significant
    after adjustment and not equivalent; otherwise inconclusive ("not resolved", never "no change")."""
    if low >= 1 / (1 + margin) and high <= 1 + margin:
        return "equivalent"
    if p_adj < alpha and high < 1 and estimate < 1:
        return "faster"
    if p_adj < alpha and low > 1 and estimate > 1:
        return "slower"
    return "inconclusive"


def withheld(c: Comparison) -> bool:
    """Whether the comparison is inconclusive by rule rather than for want of evidence: its figures
    give another verdict (compare.verdict_of, as adjust_family applies it), held back because the
    machine changed state during the study, or because one process gave it and one process was not
    allowed to (the long line says "no verdict ...")."""
    if c.verdict != "inconclusive" or c.rounds < 2:
        return False
    held = bool(c.state_change_at) or c.too_many_dropped or not (c.across_processes or c.single_process_allowed)
    return held and verdict_of(c.ci_adj_low, c.ci_adj_high, c.p_adjusted, c.ratio, c.margin,
                               1 - c.level) != "inconclusive"


# A shift over process order is called a change of the machine's state below this p-value
# (stats/placement_model.py shift_over_order): on 104 comparisons of 52 studies of the Zen 5 VM without one,
# none was under 0.01; a shift of 3.3 % at process 12 of 32, with 1 % of noise per process, is found
# 97 times in 100 in simulation (tests/py/test_design.py).
STATE_CHANGE_ALPHA = 0.01


# The offsets into a 64-byte line the code placements give a function (bench/base/code_placement.h,
# MFB_LINE_OFFSETS): placement k sits 16 k bytes into a line, modulo 64.
LINE_OFFSETS = 4


def placement_levels(pr: Table, processes: np.ndarray) -> np.ndarray | None:
    """Each process's levels of the placement model, in the order of `processes`: the offsets into a
    64-byte line of the timed loop, the variant and the baseline (placement mod LINE_OFFSETS; -1:
    code that has none), where the study balanced the placements (analysis/load.py marks the batches
    of any other design -1); None where nothing was placed. A placement's effect is mostly its line
    offset's (bench/base/code_placement.h says how much); what the page offset adds stays in the
    model's residual, so in the interval's error."""
    cols = [c for c in ("kernel_placement", "code_placement_v", "code_placement_b") if c in pr]
    # balanced only over whole blocks of 8 processes, and fitted only with two blocks or more, as
    # --target-ci's rule (bench/measure/stoprule.c): 6 processes, part of one block, left the model
    # one degree of freedom and an interval 30 times the t interval's
    n = len(processes)
    if len(cols) < 3 or n < 2 * CODE_PLACEMENTS or n % CODE_PLACEMENTS:
        return None
    processes = np.asarray(processes)
    ids, first = np.unique(column(pr, "process"), return_index=True)  # each process's first row
    at = np.searchsorted(ids, processes)
    if (at >= len(ids)).any() or (ids[np.minimum(at, len(ids) - 1)] != processes).any():
        raise KeyError(f"processes without paired rounds: {sorted(set(processes.tolist()) - set(ids.tolist()))}")
    levels = np.stack([column(pr, c)[first[at]] for c in cols], axis=1).astype(np.int64)
    if not (levels >= 0).any():
        return None
    return np.where(levels >= 0, levels % LINE_OFFSETS, -1)


def levels_by_process(pr: Table) -> dict[int, np.ndarray] | None:
    """placement_levels of every process of the paired rounds, by process id (None: no design)."""
    ids = np.unique(column(pr, "process"))
    levels = placement_levels(pr, ids)
    return None if levels is None else {int(g): row for g, row in zip(ids, levels)}


def kept_levels(all_levels: dict[int, np.ndarray] | None, ids: np.ndarray) -> np.ndarray | None:
    """The placement model's levels of the processes ids, out of the whole study's (levels_by_process):
    the model's rows where the kept processes still hold every placement of every placed code
    (screening.levels_kept), else None (the t interval over them)."""
    if all_levels is None or len(ids) == 0:
        return None
    full = np.array(list(all_levels.values()))
    rows = np.array([all_levels[int(g)] for g in ids if int(g) in all_levels])
    if len(rows) != len(ids):
        return None
    kept = np.isin(np.array(list(all_levels)), np.asarray(ids, np.int64))
    return rows if levels_kept(full, kept) else None


def screen_processes(pr: Table, marked: dict[int, str]
                     ) -> tuple[Table, list[dict[str, Any]], dict[int, np.ndarray] | None, bool]:
    """The paired rounds of the processes a verdict accepts (stats/screening.py: not marked dropped by
    the run, not starved of rounds, not disturbed), one dict per process left out (process id,
    reason, its rounds and its study's floor, its ratio, what the model fitted to the others expects
    and the test's studentized residual), the whole study's placement levels, and whether more than
    half were left out (no verdict then). The paired rounds are given back as the kind of table pr is."""
    procs = column(pr, "process")
    d = np.log(column(pr, "ns_per_call_v") / column(pr, "ns_per_call_b"))
    blocks = column(pr, "code_block") if "code_block" in pr else np.full(len(procs), -1)
    ids, counts = np.unique(procs, return_counts=True)
    units = np.array([process_estimate(d[procs == g], blocks[procs == g]) for g in ids])
    is_marked = np.array([int(g) in marked for g in ids])
    # the design is the processes the run kept: a re-run in a dropped process's slot (rerun_of) takes
    # its placements, so the blocks are whole again without the one it replaced
    all_levels = (levels_by_process(rows_of(pr, ~np.isin(procs, ids[is_marked]))) if is_marked.any()
                  else levels_by_process(pr))
    X = None
    if all_levels is not None:
        rows = [all_levels.get(int(g)) for g in ids]
        X = placement_columns(np.array([r if r is not None else rows[int(np.argmin(is_marked))] for r in rows]))[0]
    s = screen(units, counts, X, studies=ids // 1000, marked=is_marked)
    out: list[dict[str, Any]] = []
    for i, g in enumerate(ids):
        if s.kept[i]:
            continue
        reason = ("dropped by the run" if s.marked[i] else "starved" if s.starved[i] else "disturbed")
        out.append({"process": int(g), "reason": reason, "detail": marked.get(int(g), ""), "rounds": int(counts[i]),
                    "min_rounds": int(s.floor[i]), "ratio": float(np.exp(units[i])),
                    "expected": float(np.exp(s.fitted[i])) if np.isfinite(s.fitted[i]) else float("nan"),
                    "residual": float(s.residual[i])})
    if not out:
        return pr, out, all_levels, False
    keep = np.isin(procs, ids[s.kept])
    return rows_of(pr, keep), out, all_levels, s.too_many_dropped()


def interval(units: np.ndarray, across_processes: bool, level: float,
             design: DesignEstimate | None = None) -> Interval:
    if across_processes:
        return (design or design_estimate(units)).interval(level)
    return sign_test_ci(units, level)


def p_value(units: np.ndarray, across_processes: bool, design: DesignEstimate | None = None) -> float:
    if across_processes:
        return (design or design_estimate(units)).p_value()
    return sign_test_p(units)


def net_interval(pr: Table, level: float, all_levels: dict[int, np.ndarray] | None = None) -> Interval | None:
    """The ratio's interval with the harness's cost per call (each process's own noop measurement)
    taken off both sides: per round ln((t_v - h) / (t_b - h)), then as for the gross ratio. The
    harness estimate's own variation between processes is inside the interval over processes.
    None when the frame has no harness column or no round leaves both sides above it."""
    if "harness_ns_per_call" not in pr:
        return None
    h = column(pr, "harness_ns_per_call")
    v, b = column(pr, "ns_per_call_v") - h, column(pr, "ns_per_call_b") - h
    ok = (v > 0) & (b > 0)
    if ok.sum() < 2:
        return None
    d, procs = np.log(v[ok] / b[ok]), column(pr, "process")[ok]
    groups = np.unique(procs)
    across = len(groups) > 1
    units = np.array([np.median(d[procs == g]) for g in groups]) if across else d
    design = design_estimate(units, kept_levels(all_levels, groups)) if across else None
    return interval(units, across, level, design)


def compare_one(df: Table, run: str, function: str, distribution: str, variant: str, baseline: str,
                level: float = 0.95, margin: float = 0.01, resamples: int = DEFAULT_RESAMPLES,
                seed: int = DEFAULT_SEED, allow_single_process: bool = False,
                secondary: bool = True, marked: dict[int, str] | None = None, screen: bool = True) -> Comparison:
    """One variant against the baseline. secondary=False leaves out the statistics no verdict rests
    on (ratio of medians and its bootstrap, Mann-Whitney, Hodges-Lehmann: NaN), which are most of
    the cost; summarize and gate print none of them. With several processes, those the run marked
    dropped (marked: process id -> the file's reason) and those screen_processes drops are left
    out of every figure, and named in `dropped`. df: a DataFrame or numpy columns (load.Batches)."""
    pr: Table = paired_columns(df, variant, baseline)
    dropped: list[dict[str, Any]] = []
    all_levels: dict[int, np.ndarray] | None = None
    too_many = False
    if len(np.unique(pr["process"])) > 1 and screen:
        pr, dropped, all_levels, too_many = screen_processes(pr, marked or {})
    elif len(np.unique(pr["process"])) > 1 and marked:
        pr = rows_of(pr, ~np.isin(column(pr, "process"), list(marked)))
    n = len(pr["process"])
    nan = float("nan")
    if n < 2:
        c = Comparison(run, function, distribution, variant, baseline, n, nan, nan, nan, nan, nan, level, 1.0, 1.0,
                       nan, nan, nan, "", nan, nan, False, 0, float("inf"), 0, margin, "inconclusive",
                       notes=["fewer than 2 measured rounds"], dropped=dropped, too_many_dropped=too_many)
        return c
    d = np.log(pr["ns_per_call_v"] / pr["ns_per_call_b"])
    procs = pr["process"]
    # Several processes: code placement and address layout differ between them and stay fixed
    # within one, so rounds of one process are not independent evidence. The interval is then
    # over per-process medians (t interval), which carries the between-process variance.
    across = len(np.unique(procs)) > 1
    blocks = pr["code_block"] if "code_block" in pr else np.full(n, -1)
    rotating = bool((blocks >= 0).any())
    ids = np.unique(procs)
    units = np.array([process_estimate(d[procs == g], blocks[procs == g]) for g in ids]) if across else d
    levels = kept_levels(all_levels, ids) if across else None
    design = design_estimate(units, levels) if across else None
    ci = interval(units, across, level, design)
    p = p_value(units, across, design)
    tv, tb = pr["ns_per_call_v"], pr["ns_per_call_b"]
    if secondary:
        rom, _ = ratio_of_medians_ci(tv, tb, pr["process"], level,
                                           min(resamples, ROM_RESAMPLES), seed)
        hl, sub = hodges_lehmann(np.log(tv), np.log(tb), seed=seed)
        mw = mann_whitney_p(tv, tb)
    else:
        rom = Interval(nan, nan, nan, level, "not computed")
        hl, sub, mw = nan, False, nan
    within = sign_test_ci(d, level)
    shift = shift_over_order(units, levels, seed=seed) if across else None
    c = Comparison(
        run=run, function=function, distribution=distribution, variant=variant, baseline=baseline, rounds=n,
        ratio=float(np.exp(ci.estimate)), ci_low=float(np.exp(ci.low)), ci_high=float(np.exp(ci.high)),
        ci_adj_low=float(np.exp(ci.low)), ci_adj_high=float(np.exp(ci.high)), level=level,
        p_sign=p, p_adjusted=p,
        ratio_of_medians=rom.estimate, rom_low=rom.low, rom_high=rom.high, rom_method=rom.method,
        mann_whitney_p=mw,
        hodges_lehmann_ratio=float(np.exp(hl)), hl_subsampled=sub,
        tied_rounds=int(np.sum(pr["ticks_v"] == pr["ticks_b"])),
        mde=minimum_detectable_effect(d, 1 - level), rounds_for_margin=rounds_needed(d, margin or 0.01),
        margin=margin, units=units, design=design, across_processes=across, processes=len(ids),
        within_low=float(np.exp(within.low)), within_high=float(np.exp(within.high)),
        single_process_allowed=allow_single_process, dropped=dropped, too_many_dropped=too_many)
    net = net_interval(pr, level, all_levels)
    if net is not None:
        c.net_ratio, c.net_low, c.net_high = (float(np.exp(x)) for x in (net.estimate, net.low, net.high))
    if design is not None:
        c.estimand = (f"mean over {len(units)} processes"
                      + " of each process's median ln(t_variant / t_baseline)"
                      + (" (rotating code placements: the median over its full blocks of rounds of each block's "
                         "mean)" if rotating else "") + f"; {design.method}")
        pi = design.prediction(level)
        c.pi_low, c.pi_high = float(np.exp(pi.low)), float(np.exp(pi.high))
        c.between_process_sd = design.between_sd
        c.placement_model, c.model_parameters, c.dof = design.modelled, design.parameters, design.df
        c.within_placement_sd, c.placement_sd = design.within_sd, design.placement_sd
        # the variant's own placements (factor 1 of placement_levels), where the design tells them apart
        c.variant_placement_sd = design.factor_sd[1] if len(design.factor_sd) > 1 else float("nan")
        c.processes_for_margin = design.processes_needed(margin or 0.01, 1 - level, unit=CODE_PLACEMENTS)
    if shift is not None:
        c.state_change_p = shift.p
        if shift.p < STATE_CHANGE_ALPHA:
            c.state_change_at = shift.at
            c.state_before, c.state_after = float(np.exp(shift.before)), float(np.exp(shift.after))
    else:
        c.notes.append("one process: the interval covers this process's code and data layout only, not a re-run")
    if c.tied_rounds > n / 10 and not across:
        c.notes.append(f"{c.tied_rounds} of {n} rounds tied at the clock's resolution")
    return c


def baseline_of(run: Run, baseline: str | None) -> str:
    """The run's baseline: the one asked for (its NAME@ID where the files split that name by code,
    io/identity.py), else the run's own first variant."""
    if baseline is None:
        return run.baseline
    if baseline not in run.variants:
        split = [v for v in run.variants if v.startswith(baseline + "@")]
        if len(split) == 1:
            return split[0]
    return baseline


def compare_runs(runs: list[Run], baseline: str | None = None, variants: list[str] | None = None,
                 level: float = 0.95, margin: float = 0.01, adjust: str = "holm",
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 include_noop: bool = False, allow_single_process: bool = False,
                 secondary: bool = True, screen: bool = True) -> list[Comparison]:
    """Every variant against the baseline in every run, then multiplicity adjustment over the whole
    family (all runs, all variants) and verdicts. Files of the same CPU model, function and
    distribution (several hosts of one machine type, or several runs) are pooled into one
    comparison, each file's processes kept apart; different CPU models are compared separately
    (a ratio on one model says nothing about another).
    One-process comparisons get faster/slower verdicts only when allowed, here or by the run
    (memfbench run --allow-single-process). screen=False keeps every process the run did not mark
    dropped (as the analysis read a study before issue 52: the validation's before/after)."""
    groups: dict[tuple[str, str, str, str, int, str, str], list[Run]] = {}
    for r in runs:
        if r.doc.get("sweep"):
            continue  # a sweep has no whole-distribution batches: analysis/sweep.py compares its points
        # runs under different --icache-pressure measure different things: never pooled
        ip = (r.doc["config"].get("icache_pressure") or {}).get("bytes", 0)
        # nor are runs beside other threads or a stressor and runs without
        # nor are runs whose baseline ran different code (io/identity.py names it NAME@ID):
        # a ratio to one code is not a ratio to another
        groups.setdefault((r.cpu_model, r.measure, r.function, r.distribution, ip, r.neighbours,
                           baseline_of(r, baseline)), []).append(r)
    out: list[Comparison] = []
    for (cpu_model, measure, function, distribution, pressure, neighbours, base), rs in groups.items():
        df = combine_columns(rs)
        noop = set().union(*(r.harness_variants for r in rs))
        sentinels = set().union(*(r.layout_sentinels for r in rs))
        fixed = set().union(*(r.fixed_layout for r in rs))
        placed = set().union(*(r.placed for r in rs))
        run_name = ",".join(sorted({r.path for r in rs}))
        allowed = allow_single_process or any(r.doc["config"].get("allow_single_process", False) for r in rs)
        marked = marked_processes(rs)
        listed = set().union(*(r.variants for r in rs))
        # every file's variants: a name split by code (NAME@ID) is in some files of the group only
        names = ([x for v in variants for x in ([v] if v in listed else
                                                 [w for w in sorted(listed) if w.startswith(v + "@")] or [v])]
                 if variants else list(dict.fromkeys(v for r in rs for v in r.variants if v != base)))
        present = df.present()
        if base not in listed:
            raise ValueError(f"baseline '{base}' is not a variant of {run_name} (have: {', '.join(rs[0].variants)})")
        if base not in present:
            raise ValueError(f"baseline '{base}' has no samples in {run_name}")
        group: list[Comparison] = []
        # the sentinels' comparisons measure placement effects; asked for by name, they are verdicts too
        for v in names + [x for x in sorted(sentinels) if x not in names and x != base and x in present]:
            if v == base or (v in noop and not include_noop):
                continue
            if v not in listed:
                raise ValueError(f"variant '{v}' is not in {run_name}")
            if v not in present:
                raise ValueError(f"variant '{v}' has no samples in {run_name}")
            c = compare_one(df, run_name, function, distribution, v, base, level, margin, resamples, seed, allowed,
                            secondary, marked, screen)
            for d in c.dropped:  # named by its file's processes[] index (combine offsets each file's ids by 1000)
                d["index"], at = d["process"] % 1000, d["process"] // 1000
                d["file"] = rs[at].path if len(rs) > 1 else ""
            c.cpu_model, c.hosts, c.measure = cpu_model, len({r.hostname for r in rs}), measure
            c.cpu_key = cpu_key(rs[0])
            c.icache_pressure = int(pressure)
            c.neighbours = neighbours
            c.placement_failed = placement_check.failures([r.doc for r in rs])
            group.append(c)
        label_layouts(group, fixed, placed)
        out.extend(c for c in group if c.variant not in sentinels or (variants and c.variant in variants))
    return adjust_family(out, level, adjust)


def marked_processes(runs: list[Run]) -> dict[int, str]:
    """Processes a run marked dropped itself, by their id in combine(runs) (1000 per file): an entry
    of processes[] with a `dropped` member (its `reason`, or the member itself where it is text). A
    process that re-ran another's design slot (`rerun_of`) counts as any other."""
    out: dict[int, str] = {}
    for i, r in enumerate(runs):
        for k, p in enumerate(r.doc.get("processes") or []):
            mark = p.get("dropped") if isinstance(p, dict) else None
            if mark:
                why = mark.get("reason", "") if isinstance(mark, dict) else str(mark) if mark is not True else ""
                out[1000 * i + int(p.get("index", k))] = str(why)
    return out


def cpu_key(run: Run) -> str:
    """The run's CPU as docs/validation.md keys its sections: 'VENDOR family F model M'."""
    cpu = run.doc.get("host", {}).get("cpu", {})
    return f"{cpu.get('vendor', '?')} family {cpu.get('family', '?')} model {cpu.get('model_number', '?')}"


def placement_spread(c: Comparison, fixed_baseline: bool) -> float:
    """The sd of one code's placement effects on this comparison's ratio: the variant's own, where
    the design tells them apart (independent blocks); else the spread of all placements' effects,
    the variant's alone where the baseline's code does not move, else both sides', whose effects add
    as independent draws (sd times sqrt 2)."""
    if np.isfinite(c.variant_placement_sd):
        return c.variant_placement_sd
    if not c.placement_model or not np.isfinite(c.placement_sd):
        return float("nan")
    return c.placement_sd if fixed_baseline else c.placement_sd / np.sqrt(2)


def label_layouts(comps: list[Comparison], fixed: set[str], placed: set[str]) -> None:
    """Names the one-layout code (prebuilt plugins) of each comparison and the layout sensitivity the
    same files measured: 1.96 times the largest sd of one placed code's placement effects among
    their comparisons (the built-ins', a source variant's or the layout sentinel's), the range one
    layout's draw falls in 19 times in 20 on this machine; never below the floor the validation
    measured for the CPU (stats/validated.py), which is then named as its source."""
    spreads = [(placement_spread(c, c.baseline not in placed), c.variant) for c in comps if c.variant in placed]
    spreads = [(x, v) for x, v in spreads if np.isfinite(x)]
    widest = max(spreads, default=(float("nan"), ""))
    for c in comps:
        c.one_layout = ", ".join(x for x in (c.variant, c.baseline) if x in fixed)
        c.layout_sensitivity = 1.96 * widest[0] if np.isfinite(widest[0]) else float("nan")
        c.layout_sensitivity_from = widest[1]
        if not c.one_layout:
            continue
        # never below what the validation measured on this CPU: one study's estimate, net of its
        # noise, can read 0 beside a real alignment effect (stats/validated.py)
        c.layout_floor, c.layout_floor_from = layout_floor(c.cpu_key)
        c.layout_measured = c.layout_sensitivity
        if not np.isfinite(c.layout_sensitivity) or c.layout_sensitivity < c.layout_floor:
            c.layout_sensitivity = c.layout_floor


def adjust_family(comps: list[Comparison], level: float = 0.95, adjust: str = "holm") -> list[Comparison]:
    """Adjusted p-values (Holm or Benjamini-Hochberg), simultaneous (Bonferroni) intervals and verdicts."""
    alpha = 1 - level
    valid = [c for c in comps if c.rounds >= 2]
    if not valid:
        return comps
    adj = ADJUSTERS[adjust](np.array([c.p_sign for c in valid]))
    m = len(valid)
    for c, p in zip(valid, adj):
        c.p_adjusted = float(p)
        if m > 1:
            sim = interval(c.units, c.across_processes, 1 - alpha / m, c.design)
            c.ci_adj_low, c.ci_adj_high = float(np.exp(sim.low)), float(np.exp(sim.high))
            c.notes.append(f"simultaneous interval at {1 - alpha / m:.4f} (Bonferroni over {m} comparisons)")
        c.verdict = verdict_of(c.ci_adj_low, c.ci_adj_high, c.p_adjusted, c.ratio, c.margin, alpha)
        if c.state_change_at and c.verdict != "inconclusive":
            c.notes.append(f"no verdict (it would be '{c.verdict}'): the ratio shifted after process "
                           f"{c.state_change_at}, from {c.state_before:.4f} to {c.state_after:.4f} (p "
                           f"{c.state_change_p:.3g}); the machine changed state during the study: re-run it")
            c.verdict = "inconclusive"
        if c.too_many_dropped and c.verdict != "inconclusive":
            c.notes.append(f"no verdict (it would be '{c.verdict}'): {len(c.dropped)} of "
                           f"{len(c.dropped) + c.processes} processes were starved or disturbed; the machine was too "
                           "busy for this study: re-run it on a quieter CPU")
            c.verdict = "inconclusive"
        if not c.across_processes and not c.single_process_allowed and c.verdict != "inconclusive":
            c.notes.append(f"no verdict from one process (it would be '{c.verdict}'): sample processes "
                           "(memfbench run --processes K), or allow it with --allow-single-process")
            c.verdict = "inconclusive"
    return comps


def comparisons_frame(comps: list[Comparison]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame([c.as_dict() for c in comps])


def time_ratios(run: Run, baseline: str | None = None, level: float = 0.95,
                made: list[Comparison] | None = None) -> dict[str, tuple[float, float, float]]:
    """Each variant's time ratio to the baseline in one run with its per-comparison interval at
    `level` (compare --detail's ci; the baseline itself 1), as compare_runs gives them: what the
    tables that put a variant's time beside another figure (counts --beside, the variants table)
    show. made: comparisons compare_runs already made at this level; those of this run alone
    (not pooled with another file) against the same baseline serve, since the ratio and its
    per-comparison interval depend on nothing else (not the verdicts' options nor the secondary
    statistics), else the run is compared here."""
    base = baseline_of(run, baseline)
    comps = [c for c in made or [] if c.run == run.path and c.baseline == base and c.level == level]
    if not comps:
        comps = compare_runs([run], baseline, level=level, secondary=False, allow_single_process=True)
    out = {c.variant: (c.ratio, c.ci_low, c.ci_high) for c in comps}
    out[base] = (1.0, 1.0, 1.0)
    return out

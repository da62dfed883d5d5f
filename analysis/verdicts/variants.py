"""Seed 000's metrics in one row per variant: beside the time (the ratio to the baseline), code
size, instruction-cache pressure, hyperthreading friendliness and PGO friendliness, each from the
file that measured it, and None where none did:

- ratio: compare.time_ratios of the run (the per-comparison interval, as compare gives it);
- code size: a counts file's `code_bytes` (the function and every function it called during the
  counted calls) where it has one, else variants[].code_size (the function alone);
- i-cache pressure slope: the paired difference to the baseline in ns per call that pressure.py
  gives at each --icache-pressure size (analyze pressure's diff_ns), its least-squares slope per
  KiB of the block; the run itself is size 0 where no pressure file is;
- slowdown beside a second thread: stats/threads.interference's slowdown (thread 0 timed with the
  others running over its batch timed alone in the same round), whether the threads shared a core
  (SMT siblings) or not;
- PGO gain: pgo.py's gain of NAME-pgo over NAME, from the run's own pairs or another run's."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..io.identity import code_id
from ..io.load import Run
from ..stats.threads import core_mates, interference, interval_method, is_threaded, threads_config
from .compare import Comparison, baseline_of, time_ratios
from .pgo import Gain, pair_of, pgo_pairs, run_gains
from .pressure import pressure_bytes, pressure_frame

Interval3 = tuple[float, float, float]


@dataclass
class Slope:
    """The paired difference to the baseline (ns per call) against pressure size: ns per call per
    KiB of block, from the sizes and differences it was fitted to."""
    ns_per_kib: float
    sizes: list[int]
    diffs: list[float]


@dataclass
class VariantRow:
    variant: str
    baseline: bool
    ratio: Interval3 | None
    code_bytes: int | None
    code_with_callees: bool          # code_bytes is the function and what it called (a counts file)
    pressure: Slope | None
    slowdown: Interval3 | None       # in percent
    pgo: Gain | None                 # NAME-pgo / NAME where this variant is NAME
    profiled_build_of: str | None    # this variant is NAME-pgo: the NAME it is the profiled build of


@dataclass
class VariantsTable:
    run: Run
    baseline: str
    rows: list[VariantRow]
    # how each column was measured, or why it was not: column -> sentence
    how: dict[str, str] = field(default_factory=dict)


class InputError(ValueError):
    """An option's file that cannot give its column for this run; the message names the option and file."""


def other_code(run: Run, other: Run, only: set[str] | None = None) -> str:
    """The variants of both files whose code differs (io/identity.py's code id): a figure of the
    other file is about other code for them; said beside the column's sentence."""
    mine = {v["name"]: code_id(v) for v in run.doc["variants"]}
    names = [v["name"] for v in other.doc["variants"]
             if mine.get(v["name"]) and code_id(v) and code_id(v) != mine[v["name"]]
             and (only is None or v["name"] in only)]
    return f" (warning: {', '.join(names)} ran other code in {other.path} than in {run.path})" if names else ""


def _check_same(run: Run, other: Run, option: str, distribution: bool) -> None:
    if other.function != run.function or (distribution and other.distribution != run.distribution):
        raise InputError(f"{option} {other.path}: {other.function} on {other.distribution}, not {run.function}"
                         + (f" on {run.distribution}" if distribution else "") + f" as {run.path}")


def pressure_slopes(run: Run, files: list[Run], level: float, baseline: str) -> tuple[dict[str, Slope], str]:
    """Each variant's slope, and how it was measured. The run is the size-0 point unless a pressure
    file is of size 0 (or the run itself has a block)."""
    for f in files:
        _check_same(run, f, "--pressure", True)
    points = list(files)
    if not any(pressure_bytes(f) == 0 for f in files) and all(f.path != run.path for f in files):
        points.append(run)
    try:
        df = pressure_frame(points, baseline, level)
    except ValueError as e:
        raise InputError(f"--pressure: {e}") from e
    sizes = sorted({int(s) for s in df["pressure_bytes"]}) if len(df) else []
    if len(sizes) < 2:
        return {}, (f"not measured: the files give one --icache-pressure size ({', '.join(map(str, sizes)) or 'none'} "
                    "bytes); a slope needs two (a run without the block is size 0)")
    out = {}
    for v, g in df.groupby("variant", sort=False):
        g = g[np.isfinite(g["diff_ns"].to_numpy(dtype=float))]
        if g["pressure_bytes"].nunique() < 2:
            continue
        x, y = g["pressure_bytes"].to_numpy(dtype=float) / 1024, g["diff_ns"].to_numpy(dtype=float)
        out[str(v)] = Slope(float(np.polyfit(x, y, 1)[0]), [int(s) for s in g["pressure_bytes"]], [float(d) for d in y])
    names = ", ".join(f"{p.path} ({pressure_bytes(p)} B)" for p in sorted(points, key=pressure_bytes))
    return out, (f"analyze pressure's diff_ns (variant minus {baseline}, ns per call, paired round by round, the "
                 f"block cancelling) at each --icache-pressure size, its least-squares slope per KiB of block "
                 f"over {names}: above 0, the variant loses ground to {baseline} as the i-cache fills"
                 + "".join(other_code(run, f) for f in files))


def smt_sentence(threaded: Run) -> str:
    """Whether thread 0 shared its core with the other timing threads (SMT siblings), from the
    thread places the file recorded, and whether the machine has SMT at all."""
    mates = core_mates(threaded, 0)
    n = int(threads_config(threaded)["count"])
    others = "a second thread" if n == 2 else f"{n - 1} other threads"
    if mates:
        return (f"beside {others} on the same core: two hardware threads of one core (SMT siblings, "
                f"config.threads.topology shares_core_with {', '.join(map(str, mates))})")
    topo = threads_config(threaded).get("topology") or []
    machine_smt = any(len(_cpu_list(t.get("siblings"))) > 1 for t in topo) or \
        str((threaded.doc["host"].get("smt") or {}).get("active", "")) == "1"
    tail = ("; this machine has SMT siblings (config.threads.topology siblings): --cpus on two CPUs of one core "
            "measures two hardware threads" if machine_smt else
            "; this machine shows no SMT siblings (host.smt, topology siblings), so no figure for two hardware "
            "threads of one core can be made on it")
    return f"beside {others} on other cores: the figure is for two cores, not two hardware threads{tail}"


def _cpu_list(text: Any) -> list[int]:
    """A sysfs CPU list ("0,4", "0-1") as CPUs; [] where not known."""
    out: list[int] = []
    for part in str(text or "").split(","):
        part = part.strip()
        if "-" in part:
            a, _, b = part.partition("-")
            if a.isdigit() and b.isdigit():
                out += list(range(int(a), int(b) + 1))
        elif part.isdigit():
            out.append(int(part))
    return out


def slowdowns(run: Run, threaded: Run, level: float) -> tuple[dict[str, Interval3], str]:
    _check_same(run, threaded, "--threads", False)
    if not is_threaded(threaded):
        raise InputError(f"--threads {threaded.path}: not a threaded run (memfbench run --threads 2 --cpus A,B "
                         "makes one)")
    try:
        df = interference(threaded, level)
    except ValueError as e:
        raise InputError(f"--threads {e}") from e
    out = {str(r.variant): (float(r.slowdown_pct), float(r.slowdown_low), float(r.slowdown_high))
           for r in df.itertuples() if r.rounds > 0}
    other = ("" if threaded.distribution == run.distribution
             else f" (on {threaded.distribution}, not {run.distribution})")
    return out, (f"analyze threads' slowdown: thread 0 timed with every thread running over its batch timed alone "
                 f"in the same round, in %, {level:.0%} {interval_method(threaded)}, from {threaded.path}{other}, "
                 f"{smt_sentence(threaded)}{other_code(run, threaded)}")


def code_sizes(run: Run, counts: dict[str, Any] | None, counts_path: str | None
               ) -> tuple[dict[str, tuple[int, bool]], str]:
    sizes: dict[str, tuple[int, bool]] = {}
    for v in run.doc["variants"]:
        if isinstance(v.get("code_size"), int) and v["code_size"] > 0:
            sizes[v["name"]] = (int(v["code_size"]), False)
    how = "variants[].code_size of the run: the size of the variant's symbol, the function alone"
    if counts is not None:
        if counts["function"] != run.function:
            raise InputError(f"--counts {counts_path}: counts of {counts['function']}, not {run.function} as "
                             f"{run.path}")
        given = [v for v in counts["variants"] if isinstance(v.get("code_bytes"), int) and v["code_bytes"] > 0]
        for v in given:
            sizes[v["name"]] = (int(v["code_bytes"]), True)
        how = (f"code_bytes of {counts_path} (memfbench counts: the function and every function it called during "
               f"the counted calls) for {len(given)} variant(s), else " + how) if given else \
            (f"{counts_path} gives no code_bytes, so " + how)
    return sizes, how


def pgo_gains(run: Run, others: list[Run], level: float) -> tuple[dict[str, Gain], dict[str, str], str]:
    """Per variant NAME, its PGO gain (another run's pairs where given, else the run's own), and per
    NAME-pgo of the run the NAME it is the profiled build of. A pair compare cannot compare (a
    variant without samples) is left out, and said so."""
    # which of the run's variants is whose profiled build needs no comparison; the gains are computed
    # once, from the --pgo file where one is given (the last, as the option keeps it), else the run
    profiled = {p.variant: p.of for p in pgo_pairs(run)}
    source = others[-1] if others else run
    if source is not run:
        _check_same(run, source, "--pgo", False)
    found = run_gains(source, level)
    sources = [run.path] if found else []
    if source is not run:
        if not found:
            raise InputError(f"--pgo {source.path}: no NAME-pgo variant (variants[].build.pgo): memfbench run --pgo "
                             "makes one")
        sources = [source.path + other_code(run, source, {pair_of(x).of for x in found})]
    gains = {x.pairs[0].of: x for x in found if isinstance(x, Gain)}
    failed = "".join(f"; {p.variant} vs {p.of}: not computed ({why})" for p, why in
                     (x for x in found if not isinstance(x, Gain)))
    if not found:
        return {}, profiled, "not measured: the run has no NAME-pgo variant and no --pgo file was given"
    trained = sorted({f"trained on {g.pairs[0].trained_on}, tested on {g.pairs[0].tested_on}" for g in gains.values()})
    return gains, profiled, (f"the time ratio NAME-pgo / NAME of {', '.join(sources)} (memfbench run --pgo: the "
                             f"same source rebuilt with a profile, timed in the same rounds), {level:.0%} interval as "
                             f"analyze compare gives it ({'; '.join(trained)}){failed}")


def variants_table(run: Run, pressure: list[Run] | None = None, threaded: Run | None = None,
                   counts: dict[str, Any] | None = None, counts_path: str | None = None,
                   pgo: list[Run] | None = None, level: float = 0.95, baseline: str | None = None,
                   made: list[Comparison] | None = None) -> VariantsTable:
    """The table of one run (its variants but the harness's noop and the layout sentinels), its
    ratios and pressure slopes to `baseline` (default the run's first variant, as compare's);
    made: comparisons already made (compare.time_ratios). InputError names the option whose file
    cannot serve this run."""
    try:
        ratios = time_ratios(run, baseline, level, made)
    except ValueError as e:
        raise InputError(f"{run.path}: {e}") from e
    base = baseline_of(run, baseline)
    how: dict[str, str] = {"ns/call ratio": f"compare of {run.path}: median paired ratio of time per call to "
                                            f"{base}, {level:.0%} interval per comparison (below 1: faster)"}
    sizes, how["code size"] = code_sizes(run, counts, counts_path)
    slopes, how["i-cache pressure slope"] = (pressure_slopes(run, pressure, level, base) if pressure else
                                       ({}, "not measured: no --pressure file (memfbench run --icache-pressure "
                                            "SIZE makes one)"))
    slow, how["beside a second thread"] = (slowdowns(run, threaded, level) if threaded is not None else
                                           ({}, "not measured: no --threads file (memfbench run --threads 2 --cpus "
                                                "A,B makes one)"))
    gains, profiled, how["PGO gain"] = pgo_gains(run, pgo or [], level)
    skip = run.harness_variants | run.layout_sentinels
    rows = []
    for v in run.variants:
        if v in skip:
            continue
        size = sizes.get(v)
        rows.append(VariantRow(variant=v, baseline=v == base, ratio=ratios.get(v),
                               code_bytes=size[0] if size else None, code_with_callees=bool(size and size[1]),
                               pressure=slopes.get(v), slowdown=slow.get(v), pgo=gains.get(v),
                               profiled_build_of=profiled.get(v)))
    return VariantsTable(run, base, rows, how)

"""Several timing threads (`memfbench run --threads N --cpus LIST`): thread i pinned to cpus[i],
each replaying the distribution with its own buffers; every timed batch of every thread starts
together (a barrier), all threads on the same variant. With N > 1 thread 0 also times each
variant alone once per round while the others wait: its paired reference.

Three questions, one function each:
- how fast is each thread, and what do the N threads sustain together (`thread_summary`);
- how much do the other threads slow thread 0 (`interference`): per (process, round, variant)
  thread 0's batch timed together over its batch timed alone. Both replay the round's calls in
  the same process, so layout and the round's draw cancel in the ratio, and what is left is the
  other threads' doing;
- does a comparison change under load: the variant / baseline ratio within a round, alone and
  together, and the paired change between the two (`interference` too).

Every other statistic of a threaded file (summaries, verdicts, diff, classes) is about thread 0's
batches timed together (load.Run.batches); thread_batches holds the rest for this module."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..io.load import Run, measured
from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_median_ci
from .intervals import sign_test_ci, t_interval

if TYPE_CHECKING:
    import pandas as pd

# interference's columns, as the terminal and the report show them: the slowdown of thread 0 by
# the others, and each compared variant's ratio to the baseline alone and together
SLOWDOWN_COLUMNS = ["variant", "rounds", "alone_ns_per_call", "together_ns_per_call", "slowdown_pct",
                    "slowdown_low", "slowdown_high"]
RATIO_COLUMNS = ["variant", "baseline", "ratio_alone", "ratio_alone_low", "ratio_alone_high", "ratio_together",
                 "ratio_together_low", "ratio_together_high", "change_pct", "change_low", "change_high"]


def threads_config(run: Run) -> dict[str, Any]:
    """config.threads; a file before --threads timed one thread, on its pinned CPU."""
    t = run.doc["config"].get("threads")
    if t:
        return dict(t)
    return {"count": 1, "cpus": [int(run.doc["host"].get("pinned_cpu", -1))], "start": "batch",
            "alone_batches": False, "topology": []}


def is_threaded(run: Run) -> bool:
    return int(threads_config(run)["count"]) > 1


def background(run: Run) -> dict[str, Any] | None:
    """config.background: the stressor run on other CPUs while the rounds ran; None without one
    (and in files before --background). In a file of several processes, each ran its own: seconds
    and loops are their sums and bytes_per_ns their mean (from the `processes` entries)."""
    b = run.doc["config"].get("background")
    if not b:
        return None
    b = dict(b)
    each = [p["background"] for p in run.doc.get("processes", []) if isinstance(p.get("background"), dict)]
    if len(each) > 1:
        b["seconds"] = float(sum(e["seconds"] for e in each))
        b["loops"] = int(sum(e["loops"] for e in each))
        rates = [e["bytes_per_ns"] for e in each if e.get("bytes_per_ns") is not None]
        b["bytes_per_ns"] = float(np.mean(rates)) if rates else None
        b["processes"] = len(each)
    return b


def _topology(run: Run) -> dict[int, dict[str, Any]]:
    return {int(t["thread"]): t for t in threads_config(run).get("topology") or []}


def thread_cpu(run: Run, thread: int) -> int:
    """The CPU a thread was pinned to (-1: not pinned or not known)."""
    topo = _topology(run).get(thread)
    if topo is not None:
        return int(topo["cpu"])
    cpus = threads_config(run)["cpus"]
    return int(cpus[thread]) if thread < len(cpus) else -1


def core_mates(run: Run, thread: int) -> list[int]:
    """The other timing threads on this thread's core (SMT siblings): they share its L1, L2 and
    execution units, unlike threads on other cores, which share only the LLC and memory."""
    return sorted(int(t) for t in (_topology(run).get(thread) or {}).get("shares_core_with") or [])


def topology_frame(run: Run) -> pd.DataFrame:
    """A row per timing thread: its CPU, core and package (NA: not known), the CPUs of its core
    (sysfs thread_siblings_list) and the timing threads it shares the core with."""
    import pandas as pd
    topo = _topology(run)
    rows = []
    for t in range(int(threads_config(run)["count"])):
        x = topo.get(t) or {}
        mates = core_mates(run, t)
        rows.append({"thread": t, "cpu": thread_cpu(run, t), "core": x.get("core"), "package": x.get("package"),
                     "siblings": x.get("siblings") or "", "smt": bool(mates),
                     "shares_core_with": ", ".join(map(str, mates)) or "-"})
    df = pd.DataFrame(rows, columns=["thread", "cpu", "core", "package", "siblings", "smt", "shares_core_with"])
    return df.astype({"core": "Int64", "package": "Int64"})


def smt_groups(run: Run) -> list[list[int]]:
    """The sets of timing threads that share a core, each sorted, in thread order."""
    groups = {tuple(sorted({t, *core_mates(run, t)})) for t in range(int(threads_config(run)["count"]))}
    return [list(g) for g in sorted(groups) if len(g) > 1]


def threads_line(run: Run) -> str:
    """The context line of a threaded run: how many threads where, and whose batches the file's
    statistics are (a reader of a verdict must know it was measured under load)."""
    cfg = threads_config(run)
    n = int(cfg["count"])
    cpus = ", ".join(str(thread_cpu(run, t)) for t in range(n))
    smt = smt_groups(run)
    shared = ("; SMT: threads " + ", ".join("+".join(map(str, g)) for g in smt) + " share a core") if smt \
        else "; no two on one core"
    alone = ("; thread 0 also timed each variant alone, once per round (`analysis threads`: the interference)"
             if cfg.get("alone_batches") else "")
    return (f"- threads: {n} timing threads on CPUs {cpus}, every batch started together{shared}; the "
            f"statistics are thread 0's batches timed with all {n} running{alone}")


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n / 1024:g} KiB"


def background_line(run: Run) -> str | None:
    """The stressor as one context line; None without one."""
    b = background(run)
    if b is None:
        return None
    cpus = ", ".join(map(str, b["cpus"])) or "none"
    if b["stressor"] == "bandwidth":
        rate = "" if b["bytes_per_ns"] is None else f", copying {b['bytes_per_ns']:.3g} bytes/ns"
        what = f"bandwidth stressor (memcpy over {_size(int(b['buffer_bytes']))}){rate}"
    else:
        what = "spin stressor (dependent integer adds, no memory traffic)"
    over = f" in {b['processes']} processes" if b.get("processes") else ""
    return f"- background: {what} on CPUs {cpus} for {b['seconds']:.3g} s{over} ({b['loops']} loops)"


def _all_threads(run: Run) -> pd.DataFrame:
    """Every whole-distribution batch of every thread; a file without the thread columns has
    thread 0's only, never alone."""
    if not run.thread_batches.empty:
        return run.thread_batches
    return run.batches.assign(thread=0, alone=False)


def thread_summary(run: Run, level: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                   seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """A row per (variant, thread) over the measured batches timed with every thread running (the
    alone ones out): the thread's CPU, whether it shares its core with another timing thread (smt),
    its median ns per call with a bootstrap interval and its median bytes per ns. Then a row per
    variant with thread "all": the median over every thread's batches pooled, and as bytes_per_ns
    the sum of the threads' medians, what the N threads sustain together. `thread` is a string
    column ("0", "1", ..., "all"); cpu and smt are NA in the "all" rows."""
    import pandas as pd
    b = _all_threads(run)
    m = measured(b)
    m = m[~m["alone"].to_numpy(dtype=bool)]
    rows: list[dict[str, Any]] = []
    for v in run.variants:
        g = m[m["variant"] == v]
        if g.empty:
            continue
        per_thread = []
        for t in sorted(int(x) for x in g["thread"].unique()):
            x = g[g["thread"] == t]
            ci = bootstrap_median_ci(x["ns_per_call"].to_numpy(), level, resamples, seed)
            bpn = float(x["bytes_per_ns"].median())
            per_thread.append(bpn)
            rows.append({"variant": v, "thread": str(t), "cpu": thread_cpu(run, t), "smt": bool(core_mates(run, t)),
                         "batches": len(x), "median_ns_per_call": ci.estimate, "ci_low": ci.low, "ci_high": ci.high,
                         "bytes_per_ns": bpn})
        ci = bootstrap_median_ci(g["ns_per_call"].to_numpy(), level, resamples, seed)
        rows.append({"variant": v, "thread": "all", "cpu": pd.NA, "smt": pd.NA, "batches": len(g),
                     "median_ns_per_call": ci.estimate, "ci_low": ci.low, "ci_high": ci.high,
                     "bytes_per_ns": float(sum(per_thread))})
    cols = ["variant", "thread", "cpu", "smt", "batches", "median_ns_per_call", "ci_low", "ci_high", "bytes_per_ns"]
    return pd.DataFrame(rows, columns=cols).astype({"thread": "string", "cpu": "Int64", "smt": "boolean"})


def thread0_rounds(run: Run) -> pd.DataFrame:
    """Thread 0's measured ns per call per (process, round), one column per (variant, alone): the
    pairs of interference. A file has one batch per cell; should one have two, their median."""
    b = run.thread_batches
    if b.empty and is_threaded(run):
        raise ValueError(f"{run.path}: no batches of the whole distribution (a sweep times its sizes apart)")
    if b.empty:
        raise ValueError(f"{run.path}: not a threaded run (memfbench run --threads N --cpus LIST makes one)")
    m = measured(b[b["thread"] == 0])
    m = m[m["ns_per_call"] > 0]
    if m.empty:
        raise ValueError(f"{run.path}: thread 0 has no measured batches")
    keys = ["process", "round", "variant", "alone"]
    cells = m.assign(variant=m["variant"].astype(str)).groupby(keys)["ns_per_call"].median()
    return cells.unstack(["variant", "alone"])


def _log_ratios(w: pd.DataFrame, a: tuple[str, bool], b: tuple[str, bool]) -> pd.Series:
    """Per round ln(a / b), over the rounds that timed both."""
    import pandas as pd
    if a not in w.columns or b not in w.columns:
        return pd.Series(dtype=np.float64)
    return np.log(w[a] / w[b]).dropna()


def _interval(d: pd.Series, level: float) -> tuple[float, float, float]:
    """exp of the centre of d (per-round log ratios indexed by process and round) with its interval.
    Over several processes: each process's median, then a t interval over processes, as the
    verdicts (a process's code and data layout is fixed within it, so its rounds are not
    independent replicates of a re-run). From one process: the sign-test interval over its rounds,
    which covers that process only."""
    if not len(d):
        return float("nan"), float("nan"), float("nan")
    per_process = d.groupby(level="process").median().to_numpy(dtype=np.float64)
    if len(per_process) >= 2:
        ci = t_interval(per_process, level)
    else:
        ci = sign_test_ci(d.to_numpy(dtype=np.float64), level)
    return float(np.exp(ci.estimate)), float(np.exp(ci.low)), float(np.exp(ci.high))


def interval_method(run: Run) -> str:
    """What the interference intervals are over, for the tables' footers."""
    n = int(run.thread_batches["process"].nunique()) if not run.thread_batches.empty else 0
    if n >= 2:
        return f"t intervals over {n} processes (each process's median over its rounds)"
    return "sign-test intervals over the rounds of one process: they cover this process's layout only, not a re-run"


def interference(run: Run, level: float = 0.95) -> pd.DataFrame:
    """A row per variant, from thread 0's measured batches paired by (process, round): rounds
    paired, the median ns per call alone and together over those rounds, and the slowdown: the
    paired log ratio together / alone, its centre and interval exponentiated, less 1, in percent.
    Then, for every variant besides the baseline and the harness's noop, the ratio to the baseline
    within a round timed alone and timed together, and change_pct, the paired change of that ratio
    from alone to together (less 1, in percent): the variant's slowdown less the baseline's. Its interval excluding 0 means the
    comparison with the baseline is not the same under the other threads' load.

    The intervals are over processes when there are several (each process's median over its
    rounds, a t interval), else over the rounds of the one process (interval_method says which)."""
    import pandas as pd
    w = thread0_rounds(run)
    if not any(bool(alone) for _, alone in w.columns):
        raise ValueError(f"{run.path}: thread 0 timed no batch alone (config/threads/alone_batches is "
                         f"{str(bool(threads_config(run).get('alone_batches'))).lower()}): no reference for the "
                         "interference")
    base = run.baseline
    nan = float("nan")
    rows: list[dict[str, Any]] = []
    for v in run.variants:
        d = _log_ratios(w, (v, False), (v, True))
        paired = w.loc[d.index]
        slow, lo, hi = _interval(d, level)
        row: dict[str, Any] = {
            "variant": v, "rounds": len(d),
            "alone_ns_per_call": float(paired[(v, True)].median()) if len(d) else nan,
            "together_ns_per_call": float(paired[(v, False)].median()) if len(d) else nan,
            "slowdown_pct": 100 * (slow - 1), "slowdown_low": 100 * (lo - 1), "slowdown_high": 100 * (hi - 1),
            "baseline": base}
        compared = v != base and v not in run.harness_variants
        alone = _log_ratios(w, (v, True), (base, True)) if compared else pd.Series(dtype=np.float64)
        together = _log_ratios(w, (v, False), (base, False)) if compared else pd.Series(dtype=np.float64)
        change = (together - alone).dropna()
        for name, x in (("ratio_alone", alone), ("ratio_together", together)):
            row[name], row[f"{name}_low"], row[f"{name}_high"] = _interval(x, level)
        c, c_lo, c_hi = _interval(change, level)
        row.update({"change_pct": 100 * (c - 1), "change_low": 100 * (c_lo - 1), "change_high": 100 * (c_hi - 1)})
        rows.append(row)
    return pd.DataFrame(rows, columns=list(dict.fromkeys(SLOWDOWN_COLUMNS + RATIO_COLUMNS)))

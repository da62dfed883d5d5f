"""Exports for tools people already have: Google Benchmark's JSON format (so its compare.py and
similar tools read memfbench results) and a flat CSV of the raw samples."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .files import json_text, write_text_atomic
from .load import Run, batches_frame, measured
from .reading import result_stem

# A one-process file is cut into this many blocks of consecutive rounds, one repetition each.
GBENCH_REPETITIONS = 20


def _gbench_context(run: Run) -> dict[str, Any]:
    d = run.doc
    h = d["host"]
    caches = h["caches"]
    mhz = d["host"]["frequency"].get("cpuinfo_mhz") or d["timer"]["hz"] / 1e6
    scaling = h["frequency"].get("governor")
    return {
        "date": d["created_utc"],
        "host_name": h.get("hostname", ""),
        "executable": d["command_line"][0],
        "num_cpus": int(h["cpu"]["online"]),
        "mhz_per_cpu": int(round(mhz)),
        "cpu_scaling_enabled": bool(scaling and scaling != "performance"),
        "aslr_enabled": bool(h.get("aslr")),
        "caches": [
            {"type": "Data", "level": 1, "size": int(caches["l1d"]), "num_sharing": 1},
            {"type": "Unified", "level": 2, "size": int(caches["l2"]), "num_sharing": 1},
            {"type": "Unified", "level": 3, "size": int(caches["llc"]), "num_sharing": int(h["cpu"]["online"])},
        ],
        "load_avg": [float(x) for x in h.get("load_average", [])],
        "library_version": f"memfbench {d['tool']['version']}",
        "library_build_type": "release" if d["tool"]["build"]["optimized"] else "debug",
        "json_schema_version": 1,
        "memfbench_function": d["config"]["function"],
        "memfbench_distribution": d["config"]["distribution"],
        "memfbench_clock": d["timer"]["name"],
    }


def gbench_groups(g: pd.DataFrame, repetitions: int) -> list[np.ndarray]:
    """Row positions of each repetition: one per process (the replicate memfbench's verdicts use),
    or, in a one-process file, `repetitions` blocks of consecutive rounds."""
    procs = g["process"].to_numpy()
    if len(np.unique(procs)) > 1:
        return [np.flatnonzero(procs == p) for p in np.unique(procs)]
    return [x for x in np.array_split(np.arange(len(g)), min(repetitions, len(g))) if len(x)]


def thread_count(run: Run) -> int:
    """The run's timing threads (1 without --threads)."""
    return int((run.doc["config"].get("threads") or {}).get("count", 1))


def bench_name(run: Run, what: str) -> str:
    """A benchmark's name, "<function>/<distribution>/<what>": google/benchmark names a run of
    several threads ".../threads:N", and a stressor gets its own part, so that a loaded run never
    compares as a quiet one (every family of the export is named alike)."""
    threads = thread_count(run)
    stressor = (run.doc["config"].get("background") or {}).get("stressor")
    return (f"{run.function}/{run.distribution}/{what}" + (f"/threads:{threads}" if threads > 1 else "")
            + (f"/background:{stressor}" if stressor else ""))


def aggregates(name: str, family: int, threads: int, values: list[float]) -> list[dict[str, Any]]:
    """Google Benchmark's aggregate rows (mean, median, stddev, cv) over a benchmark's repetitions."""
    t = np.array(values)
    aggs = {"mean": float(t.mean()), "median": float(np.median(t)), "stddev": float(t.std(ddof=1)) if len(t) > 1 else 0.0}
    aggs["cv"] = aggs["stddev"] / aggs["mean"] if aggs["mean"] else 0.0
    return [{"name": f"{name}_{agg}", "family_index": family, "per_family_instance_index": 0, "run_name": name,
             "run_type": "aggregate", "repetitions": len(values), "threads": threads, "aggregate_name": agg,
             "aggregate_unit": "percentage" if agg == "cv" else "time", "iterations": len(values),
             "real_time": val, "cpu_time": val, "time_unit": "ns"} for agg, val in aggs.items()]


# The per-baseline family's scale: 1000 x the ratio, so its "time" reads as per mille of the
# baseline's (1023 = 2.3 % slower than the baseline in the same rounds).
PER_MILLE = 1000.0


def per_baseline_benchmarks(run: Run, m: pd.DataFrame, repetitions: int) -> list[dict[str, Any]]:
    """What memfbench's verdicts and `diff --normalize BASELINE` rest on, as benchmarks compare.py
    reads: per variant but the baseline, "<function>/<distribution>/<variant>/per:<baseline>", one
    repetition per process (gbench_groups) whose real_time is PER_MILLE x exp(the median over its
    rounds of ln(time / the baseline's time in the same round)). The machine's drift between two
    files cancels in it as in the paired design, so compare.py on two exports tests the change of
    the ratio, as diff --normalize does (its U test over the processes, with no drift term)."""
    base = run.baseline
    threads = thread_count(run)
    b = m[m["variant"] == base].set_index(["process", "round"])["ns_per_call"].rename("b")
    out: list[dict[str, Any]] = []
    family = len(run.variants)
    for v in run.variants:
        if v == base:
            continue
        a = m[m["variant"] == v].set_index(["process", "round"])["ns_per_call"].rename("v")
        j = pd.concat([a, b], axis=1, join="inner").reset_index().sort_values(["process", "round"])
        j = j[(j["v"] > 0) & (j["b"] > 0)]
        if j.empty:
            continue
        j["d"] = np.log(j["v"] / j["b"])
        name = bench_name(run, f"{v}/per:{base}")
        groups = gbench_groups(j, repetitions)
        reps = []
        for i, idx in enumerate(groups):
            part = j.iloc[idx]
            value = PER_MILLE * float(np.exp(np.median(part["d"])))
            reps.append(value)
            out.append({"name": name, "family_index": family, "per_family_instance_index": 0, "run_name": name,
                        "run_type": "iteration", "repetitions": len(groups), "repetition_index": i, "threads": threads,
                        "iterations": len(part), "real_time": value, "cpu_time": value, "time_unit": "ns",
                        "label": f"memfbench process {int(part['process'].iloc[0])}: {PER_MILLE:g} x the median over "
                                 f"{len(part)} rounds of time / {base}'s in the same round"})
        out += aggregates(name, family, threads, reps)
        family += 1
    return out


def to_gbench(run: Run, repetitions: int = GBENCH_REPETITIONS) -> dict[str, Any]:
    """One benchmark per variant ("<function>/<distribution>/<variant>"), one repetition row per
    process (see gbench_groups) with its calls as iterations and the median over its batches of the
    time per call (ns) as real_time and cpu_time: a median, so a preempted batch does not move it;
    then Google Benchmark's aggregate rows (mean, median, stddev, cv) over the repetitions. What is
    lost there: the pairing of variants round by round (compare.py's U test sees independent
    samples, and two files' absolute times carry the machine's drift between them); the
    per-baseline family (per_baseline_benchmarks) keeps it."""
    m = measured(run.batches)
    benches: list[dict[str, Any]] = []
    for family, v in enumerate(run.variants):
        g = m[m["variant"] == v].sort_values(["process", "round"])
        if g.empty:
            continue
        threads = thread_count(run)
        name = bench_name(run, v)
        groups = gbench_groups(g, repetitions)
        reps = []
        for i, idx in enumerate(groups):
            part = g.iloc[idx]
            # sums in floating point: an int64 sum of huge call counts would wrap around
            calls = int(part["calls"].to_numpy(dtype=np.float64).sum())
            ns = float(part["ns"].sum())
            row = {
                "name": name, "family_index": family, "per_family_instance_index": 0, "run_name": name,
                "run_type": "iteration", "repetitions": len(groups), "repetition_index": i, "threads": threads,
                "iterations": calls, "real_time": float(part["ns_per_call"].median()),
                "cpu_time": float(part["ns_per_call"].median()), "time_unit": "ns",
                # / ns * 1e9, not / (ns * 1e-9): the product underflows to 0 for tiny ns
                "bytes_per_second": float(part["bytes"].to_numpy(dtype=np.float64).sum()) / ns * 1e9 if ns > 0 else 0.0,
                "items_per_second": calls / ns * 1e9 if ns > 0 else 0.0,
                "label": f"memfbench process {int(part['process'].iloc[0])}, rounds {int(part['round'].min())}.."
                         f"{int(part['round'].max())}, median of {len(part)} batches",
            }
            reps.append(row)
            benches.append(row)
        benches += aggregates(name, family, threads, [r["real_time"] for r in reps])
    benches += per_baseline_benchmarks(run, m, repetitions)
    for b in benches:
        for k, x in b.items():
            if isinstance(x, float) and not math.isfinite(x):
                b[k] = 0.0
    return {"context": _gbench_context(run), "benchmarks": benches}


def csv_text(run: Run) -> str:
    """Every batch, warm-up included (flagged), one row each, with the variant's name; with
    --by-class the size classes' batches follow the whole distribution's (column size_class). A
    threaded file's rows are every thread's batches, alone or not (columns thread and alone), not
    only the thread 0 batches its statistics use."""
    if "thread" in run.doc["samples"]:
        df = batches_frame(run.doc, result_stem(run.path))
        df = df.iloc[np.argsort(df["size_class"].to_numpy() != 0, kind="stable")].reset_index(drop=True)
    else:
        df = pd.concat([run.batches, run.class_batches], ignore_index=True) if len(run.class_batches) \
            else run.batches.copy()
    df["variant"] = df["variant"].astype(str)
    return str(df.to_csv(index=False))


def to_csv(run: Run, path: str | Path, label: str = "") -> None:
    """csv_text written atomically, never over the run's own file; raises files.OutputError."""
    write_text_atomic(path, csv_text(run), label, [run.path])


def to_gbench_file(run: Run, path: str | Path, label: str = "") -> None:
    """to_gbench as strict JSON, written atomically, never over the run's own file; raises
    files.OutputError."""
    write_text_atomic(path, json_text(to_gbench(run)), label, [run.path])

"""The validation report: figures measured on this machine that show how far memfbench's numbers
can be trusted, each with the command that produced it. docs/validation.md keeps one section per
CPU model it was run on; a run replaces the section of the machine it runs on and keeps the others,
and the report's opening says which of our machine kinds have no section yet.

    python3 -m tools.validation --build build -o docs/validation.md [--cpu N] [--quick] [--keep DIR]   (over an hour)

It runs memfbench and a Google Benchmark harness of the same workload (tools/gbench_replay.cc, the
ninja target tools/gbench_replay), and uses the analysis package's statistics. It is a benchmark,
not a test: nothing here passes or fails. Section 12 re-runs the coverage study an hour after
its first run (the other sections run meanwhile), so the whole takes over an hour; --keep DIR keeps
the runs, and --stored DIR makes the report from them again. A failed build or command stops it with one error line
and leaves the output file as it was.
"""
from __future__ import annotations

import argparse
import json
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.io import placement_check
from analysis.io.files import write_text_atomic
from analysis.io.load import Run, load_run, read_result
from analysis.io.reading import ResultFileError
from analysis.verdicts.compare import Comparison, compare_runs
from analysis.verdicts.diff import diff_runs
from analysis.verdicts.pool import pool_runs
from analysis.views.summary import summarize_run
from tools import validation_runs as runs
from tools.lib.machine import describe_machine

ROOT = Path(__file__).resolve().parent.parent
PROG = "python3 -m tools.validation"
MEMFBENCH_TARGET = "bench/memfbench"
GBENCH_TARGET = "tools/gbench_replay"


class ToolError(Exception):
    """A step that failed; the message is one line for stderr."""


@dataclass
class Ctx:
    memfbench: Path | None
    gbench: Path | None
    tmp: Path          # where the runs go, or (stored) the folder they were run into
    commands: list[str]
    run_args: list[str] = field(default_factory=list)  # given to every memfbench run (--cpu)
    plugins: Path = ROOT / "build" / "examples"        # the prebuilt layout plugins (tools/validation_runs.py)
    stored: bool = False                               # the runs were made before (validation_runs.py)
    walls: dict[str, float] = field(default_factory=dict)
    cache: Path | None = None                          # MEMFBENCH_CACHE of the source variants built here
    keep: bool = False                                 # tmp is --keep's folder: walls.json goes there too


def failure_line(p: subprocess.CompletedProcess[str]) -> str:
    """The most telling line of a failed command's output: ninja's FAILED line, else the last line
    on stderr, else the last on stdout."""
    out = [line.strip() for line in p.stdout.splitlines() if line.strip()]
    err = [line.strip() for line in p.stderr.splitlines() if line.strip()]
    failed = [line for line in out if line.startswith("FAILED:")]
    return (failed or err[-1:] or out[-1:] or ["no output"])[0]


def sh(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs a command; raises ToolError naming it and its failure."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise ToolError(f"cannot run {cmd[0]}: {e.strerror}") from e
    if p.returncode != 0:
        raise ToolError(f"`{shlex.join(cmd)}` failed (exit {p.returncode}): {failure_line(p)}")
    return p


def has_target(build: Path, target: str) -> bool:
    """Whether the build defines `target` (the Google Benchmark harness only exists where Google
    Benchmark is installed)."""
    try:
        return subprocess.run(["ninja", "-C", str(build), "-t", "query", target],
                              capture_output=True, text=True).returncode == 0
    except OSError:
        return False


def build_tools(build: Path) -> Path | None:
    """Builds memfbench and, where the build defines it, the Google Benchmark harness; returns the
    harness or None."""
    sh(["ninja", "-C", str(build), MEMFBENCH_TARGET])
    if not has_target(build, GBENCH_TARGET):
        return None
    sh(["ninja", "-C", str(build), GBENCH_TARGET])
    return build / GBENCH_TARGET


def mfb(ctx: Ctx, run: runs.Run) -> Path:
    return invoke(ctx, run)[0]


def stored_run(ctx: Ctx, run: runs.Run) -> Path:
    """A run an earlier section of this report made (or found): its file, not a new run."""
    path = runs.stored(ctx.tmp, run.name)
    if path is None:
        raise ToolError(f"{ctx.tmp}: no run '{run.name}' yet")
    return path


def invoke(ctx: Ctx, run: runs.Run) -> tuple[Path, float]:
    """The run's file and wall time: made now, or (stored) found where validation_runs.py put it."""
    if ctx.stored:
        path = runs.stored(ctx.tmp, run.name)
        if path is None:
            raise ToolError(f"{ctx.tmp}: no run '{run.name}' (python3 -m tools.validation_runs makes them)")
        return path, float(ctx.walls.get(run.name, float("nan")))
    assert ctx.memfbench is not None and ctx.cache is not None
    made = runs.stored(ctx.tmp, run.name)
    if run.name in ctx.walls and made is not None:
        # made earlier in this invocation (a section's first study is read for the report's
        # opening, then by its section): once, not again (cov0 ran three times)
        return made, ctx.walls[run.name]
    try:
        wall = runs.run_one(ctx.memfbench, run, ctx.tmp, ctx.run_args, ctx.cache)
    except OSError as e:
        raise ToolError(f"cannot run {ctx.memfbench}: {e.strerror}") from e
    except RuntimeError as e:
        raise ToolError(str(e)) from e
    ctx.walls[run.name] = wall
    if ctx.keep:  # as validation_runs.py leaves its folder: --stored re-makes the report from it
        write_text_atomic(ctx.tmp / "walls.json", json.dumps(ctx.walls, indent=1))
    return ctx.tmp / f"{run.name}.json.gz", wall


def show(ctx: Ctx, args: list[str]) -> str:
    """A memfbench run's arguments as the report's command list shows them."""
    return shlex.join([*args, *ctx.run_args])


def pinning(cpu: int | None) -> list[str]:
    """The taskset prefix that pins a command to the CPU memfbench used (none if it was not pinned)."""
    return [] if cpu is None else ["taskset", "-c", str(cpu)]


def cv(x: list[float]) -> float:
    """Coefficient of variation; NaN (said, not warned about) with fewer than two values."""
    a = np.asarray(x, float)
    return float(np.std(a, ddof=1) / np.mean(a)) if len(a) > 1 else float("nan")


def spread(x: list[float]) -> str:
    return f"min {min(x):.3f}, max {max(x):.3f}, max/min {max(x) / min(x):.4f}, CV {100 * cv(x):.2f} %"


# The coverage study: every comparison the issue asks about in one default study, so one set of
# invocations gives the coverage of libc-copy, avx2 and rep_movsb against libc, and of the second
# A/A pair, avx2-copy against avx2 (the same code at another address).
COVERAGE_VARIANTS = runs.COVERAGE_VARIANTS
COVERAGE_PAIRS = [("libc-copy", "libc"), ("avx2", "libc"), ("rep_movsb", "libc"), ("avx2-copy", "avx2")]
AA_PAIRS = [("libc-copy", "libc"), ("avx2-copy", "avx2")]


@dataclass
class Invocation:
    """One default study: its comparisons by (variant, baseline), its wall time and fixed costs, and
    every process's placement check."""
    comps: dict[tuple[str, str], Comparison]
    wall_s: float
    rounds_s: float
    processes: int
    libc_ns: float
    checks: list[dict] = field(default_factory=list)
    budget_s: float = 0.0  # the study's --time as the file records it (the default's, here)


def shape(doc: dict) -> str:
    """A default study's shape as its file records it, e.g. "10 processes, 6 s of rounds"."""
    cfg = doc.get("config") or {}
    return f"{cfg.get('processes') or 1} processes, {cfg.get('time_budget_s') or 0:g} s of rounds"


def coverage_study(ctx: Ctx, plan: list[runs.Run]) -> list[Invocation]:
    ctx.commands.append(f"{len(plan)} x memfbench run {show(ctx, plan[0].args)} (the default study's processes and "
                        "time); python3 -m analysis compare (baseline libc, and avx2 for avx2-copy)")
    out = []
    for r in plan:
        path, wall = invoke(ctx, r)
        run = load_run(path)
        comps = {(c.variant, c.baseline): c for c in compare_runs([run], "libc", ["libc-copy", "avx2", "rep_movsb"],
                                                                 resamples=1000)}
        comps.update({(c.variant, c.baseline): c for c in compare_runs([run], "avx2", ["avx2-copy"], resamples=1000)})
        s = summarize_run(run, resamples=1000)
        procs = run.doc.get("processes") or [run.doc]  # a one-process file has no processes block
        rounds_s = sum(p["rounds"]["duration_s"] for p in procs)
        out.append(Invocation(comps, wall, rounds_s, len(procs),
                              float(s[s.variant == "libc"].median_ns_per_call.iloc[0]),
                              placement_check.process_checks(run.doc), float(run.doc["config"].get("time_budget_s") or 0)))
    return out


def placement_lines(inv: list[Invocation]) -> list[str]:
    """The placement check over every process of the coverage studies, per window."""
    rows = []
    checks = [c for x in inv for c in x.checks]
    for key, name in (("small_window", "small-call windows in L1d"), ("large_window", "large window beyond the LLC")):
        ws = [c[key] for c in checks if c.get(key) and c[key].get("verdict") in ("pass", "fail")]
        if not ws:
            rows.append(f"| {name} | not measured |")
            continue
        r = [w["ratio"] for w in ws]
        passed = sum(w["verdict"] == "pass" for w in ws)
        rows.append(f"| {name} | passed in {passed} of {len(ws)} processes; ratio median {np.median(r):.2f}, range "
                    f"{min(r):.2f} to {max(r):.2f} (limit {ws[0]['limit']:g}); median {np.median([w['ns_per_load'] for w in ws]):.2f} "
                    f"ns per load against {np.median([w['reference_ns'] for w in ws]):.2f} ns |")
    return rows


def lag1(x: list[float]) -> float:
    """Correlation of consecutive values (nan for fewer than three): how much of what moves a study
    is still there in the next one, minutes apart at most."""
    a = np.log(np.asarray(x, float))
    # both halves must vary: one constant half (three studies, two of them alike) has no correlation
    return float(np.corrcoef(a[:-1], a[1:])[0, 1]) if len(a) > 2 and np.std(a[:-1]) > 0 and np.std(a[1:]) > 0 \
        else float("nan")


def coverage_lines(inv: list[Invocation]) -> list[str]:
    rows = []
    for pair in COVERAGE_PAIRS:
        cs = [x.comps[pair] for x in inv]
        med = float(np.median([c.ratio for c in cs]))
        ci = sum(c.ci_low <= med <= c.ci_high for c in cs)
        pi = sum(c.pi_low <= med <= c.pi_high for c in cs)
        width = float(np.median([(c.ci_high - c.ci_low) / 2 / c.ratio for c in cs]))
        ratios = [c.ratio for c in cs]
        shifted = sum(bool(getattr(c, "state_change_at", 0)) for c in cs)
        rows.append(f"| {pair[0]}/{pair[1]} | {med:.4f} | {min(ratios):.4f} to {max(ratios):.4f} (CV "
                    f"{100 * cv(ratios):.2f} %) | ±{100 * width:.2f} % | {ci} of {len(cs)} ({100 * ci / len(cs):.0f} %) "
                    f"| {pi} of {len(cs)} ({100 * pi / len(cs):.0f} %) | {lag1(ratios):+.2f} | {shifted} |")
    return rows


def aa_lines(inv: list[Invocation]) -> list[str]:
    rows = []
    for pair in AA_PAIRS:
        v = [x.comps[pair].verdict for x in inv]
        diff = sum(x in ("faster", "slower") for x in v)
        counts = ", ".join(f"{k}: {v.count(k)}" for k in ("equivalent", "inconclusive", "faster", "slower"))
        rows.append(f"| {pair[0]} against {pair[1]} | {len(v)} | {diff} ({100 * diff / len(v):.1f} %) | {counts} |")
    return rows


def cost_lines(inv: list[Invocation]) -> list[str]:
    walls = [x.wall_s for x in inv]
    fixed = [(x.wall_s - x.rounds_s) / x.processes for x in inv]
    return [f"| default study, wall time (analysis not included) | median {np.median(walls):.1f} s, max "
            f"{max(walls):.1f} s |",
            f"| of which rounds (measurement), over all processes | median {np.median([x.rounds_s for x in inv]):.1f} s |",
            f"| fixed cost per process (exec, arena, self-check, verification, calibration, merge) | median "
            f"{np.median(fixed):.2f} s |"]


def invariance(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    """Each built-in's ratio to libc alone with libc, and in one study with all of them."""
    ctx.commands.append(f"memfbench run {show(ctx, plan[0].args)}; and for each built-in B: memfbench run -v libc -v B")
    many = {c.variant: c for c in compare_runs([load_run(mfb(ctx, plan[0]))], "libc", resamples=1000)}
    rows = []
    for r in plan[1:]:
        b = r.args[-1]
        two = compare_runs([load_run(mfb(ctx, r))], "libc", resamples=1000)[0]
        m = many[b]
        overlap = two.ci_low <= m.ci_high and m.ci_low <= two.ci_high
        within = m.pi_low <= two.ratio <= m.pi_high and two.pi_low <= m.ratio <= two.pi_high
        rows.append(f"| {b} | {two.ratio:.4f} [{two.ci_low:.4f}, {two.ci_high:.4f}] | {m.ratio:.4f} "
                    f"[{m.ci_low:.4f}, {m.ci_high:.4f}] | {100 * (m.ratio / two.ratio - 1):+.2f} % | "
                    f"{'yes' if overlap else 'no'} | {'yes' if within else 'no'} |")
    return rows


def gbench_medians(stdout: str) -> dict[str, float]:
    """Per variant, Google Benchmark's median real time per call from its JSON output."""
    try:
        rows = json.loads(stdout)["benchmarks"]
        return {b["run_name"].split("/")[1]: b["real_time"] / b.get("calls_per_iteration", 512)
                for b in rows if b.get("aggregate_name") == "median"}
    except (json.JSONDecodeError, KeyError, IndexError, TypeError) as e:
        raise ToolError(f"unexpected Google Benchmark output ({type(e).__name__}: {e})") from e


def gbench(ctx: Ctx, n: int, seconds: float, cpu: int | None) -> tuple[list[str], dict] | None:
    if ctx.gbench is None:
        return None
    reps = 3
    min_time = seconds / 2 / reps  # two benchmarks share the budget
    flags = [f"--benchmark_min_time={min_time:.3f}", f"--benchmark_repetitions={reps}"]
    cmd = [*pinning(cpu), str(ctx.gbench), str(ROOT / "distributions"), *flags, "--benchmark_format=json"]
    ctx.commands.append(f"{n} x {shlex.join([*pinning(cpu), str(ctx.gbench)])} distributions {' '.join(flags)}")
    libc, ratio = [], []
    for _ in range(n):
        per = gbench_medians(sh(cmd).stdout)
        if not {"libc", "avx2"} <= set(per):
            raise ToolError(f"Google Benchmark output lacks libc or avx2 (has: {', '.join(sorted(per))})")
        libc.append(per["libc"])
        ratio.append(per["avx2"] / per["libc"])
    lines = [f"| Google Benchmark, libc ns/call (median of {reps} repetitions) | {spread(libc)} |",
             f"| Google Benchmark, avx2/libc ratio of medians | {spread(ratio)} |"]
    return lines, {"libc": libc, "ratio": ratio}


def known_cost(run: Run, names: tuple[str, str, str], screen: bool = True) -> tuple[Comparison, float, float]:
    """The slow variant against its control in one study, and the range its ratio is expected in:
    a second copy costs the same after every call as after every 25th, so the expected effect is a
    25th of twice's, known to a 25th of twice's interval."""
    wrapped, slow, twice_name = names
    cs = {c.variant: c for c in compare_runs([run], wrapped, margin=0.0025, resamples=1000, screen=screen)}
    c, twice = cs[slow], cs[twice_name]
    return c, 1 + (twice.ci_low - 1) / KNOWN_PERIOD, 1 + (twice.ci_high - 1) / KNOWN_PERIOD


def sensitivity(ctx: Ctx, plan: list[runs.Run], names: tuple[str, str, str]) -> tuple[list[str], dict]:
    """The known cost in each study of the plan: names are the control, the slow variant and the one
    that copies twice (the built-ins, or the same code through the source path)."""
    ctx.commands.append(f"{len(plan)} x memfbench run {show(ctx, plan[0].args)}; python3 -m analysis compare "
                        "--margin 0.25")
    detected, covered, rows, study = 0, 0, [], ""
    for r in plan:
        run = load_run(mfb(ctx, r))
        study = shape(run.doc)
        c, low, high = known_cost(run, names)
        detected += c.verdict == "slower"
        covered += c.ci_low <= high and c.ci_high >= low
        rows.append((c.ratio, c.ci_low, c.ci_high, low, high, c.verdict))
    n = len(plan)
    lines = [f"| runs | {n} default studies ({study}) |",
             f"| detected as slower (adjusted, margin ±0.25 %) | {detected} of {n} |",
             f"| 95 % interval meets the expected range | {covered} of {n} |"]
    lines += [f"| run {i}: ratio {r:.4f} [{lo:.4f}, {hi:.4f}], expected {el:.4f} to {eh:.4f} | {v} |"
              for i, (r, lo, hi, el, eh, v) in enumerate(rows)]
    return lines, {"detected": detected, "covered": covered}


def as_before_screening(path: Path) -> Run:
    """A study as the analysis read it before issue 52: the processes the study ran again in a starved
    one's design slot (rerun_of) left out, and the ones they replaced kept and unmarked (then compared
    with screen=False, which keeps every process)."""
    doc = read_result(path)
    procs = [p for p in doc.get("processes") or [] if isinstance(p, dict)]
    reruns = {int(p.get("index", k)) for k, p in enumerate(procs) if "rerun_of" in p}
    doc["processes"] = [{k: v for k, v in p.items() if k != "dropped"}
                        for i, p in enumerate(procs) if int(p.get("index", i)) not in reruns]
    samples = doc["samples"]
    keep = [i for i, pid in enumerate(samples["process"]) if pid not in reruns]
    count = samples["count"]
    for k, col in samples.items():
        if isinstance(col, list) and len(col) == count:
            samples[k] = [col[i] for i in keep]
    samples["count"] = len(keep)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / Path(path).name.removesuffix(".gz")
        f.write_text(json.dumps(doc))
        return load_run(f)


def screening_lines(ctx: Ctx, quiet: list[runs.Run], busy: list[runs.Run]) -> list[str]:
    """Before/after issue 52 on the same files: the known cost (and, in the busy studies, the A/A pair)
    read as the analysis read a study before (every process, no re-run) and as it reads it now."""
    ctx.commands.append("the files of sections 5 and 11 again, each read as before issue 52 (every process the "
                        "study ran first, no re-run, no screening) and as now")
    names = ("libc-wrapped", "libc-slow1pct", "libc-twice")
    rows = []
    for what, plan in (("quiet (section 5)", quiet), ("busy (section 11)", busy)):
        for label, screen in (("before", False), ("now", True)):
            detected = covered = left = equivalent = called = 0
            widths: list[float] = []
            for r in plan:
                path = stored_run(ctx, r)
                run = load_run(path) if screen else as_before_screening(path)
                c, low, high = known_cost(run, names, screen)
                detected += c.verdict == "slower"
                covered += c.ci_low <= high and c.ci_high >= low
                left += len(c.dropped)
                if "libc-copy" in run.variants:
                    a = {x.variant: x for x in compare_runs([run], "libc", ["libc-copy"], margin=0.01,
                                                            resamples=1000, screen=screen)}["libc-copy"]
                    equivalent += a.verdict == "equivalent"
                    called += a.verdict in ("faster", "slower")
                    widths.append((a.ci_high - a.ci_low) / 2 / a.ratio)
            n = len(plan)
            aa = (f"{equivalent} of {n} equivalent, {called} called different, ±{100 * float(np.median(widths)):.2f} %"
                  if widths else "not in these studies")
            rows.append(f"| {what} | {label} | {detected} of {n} | {covered} of {n} | {aa} | {left} |")
    return rows


def layout_source(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    """The same code 0 and 32 bytes into a line, each through the source path (every placement):
    how often the two are called equivalent at the default margin."""
    ctx.commands.append(f"{len(plan)} x memfbench run {show(ctx, plan[0].args)}; python3 -m analysis compare "
                        "(baseline at0)")
    verdicts, rows = [], []
    for r in plan:
        c = compare_runs([load_run(mfb(ctx, r))], "at0", resamples=1000)[0]
        verdicts.append(c.verdict)
        rows.append(f"| {len(rows)} | {c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}] | "
                    f"±{100 * c.layout_sensitivity:.2f} % | {c.verdict} |")
    counts = ", ".join(f"{k}: {verdicts.count(k)}" for k in ("equivalent", "inconclusive", "faster", "slower"))
    return [f"Called equivalent (margin ±1 %) in **{verdicts.count('equivalent')} of {len(plan)}** studies ({counts}).",
            "", "| study | at32/at0 [95 % CI] | identical code moved (1.96 sd of one placement's effect) | verdict |",
            "| --- | --- | --- | --- |", *rows]


def layout_prebuilt(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    """The same code prebuilt 0, 16, 32 and 48 bytes into a line, one layout each: each against at0,
    with the label and the sensitivity the analysis prints beside it."""
    ctx.commands.append(f"{len(plan)} x memfbench run {show(ctx, plan[0].args)}; python3 -m analysis compare "
                        "(baseline at0)")
    rows = []
    for i, r in enumerate(plan):
        for c in compare_runs([load_run(mfb(ctx, r))], "at0", resamples=1000):
            rows.append(f"| {i} | {c.variant}/at0 | {c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}] | {c.verdict} | "
                        f"{c.one_layout or 'none'} | ±{100 * c.layout_sensitivity:.2f} % ({c.layout_sensitivity_from}) |")
    return ["| study | comparison | ratio [95 % CI] | verdict | labelled one code layout | identical code moved "
            "here (from) |", "| --- | --- | --- | --- | --- | --- |", *rows]


def probes(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    """The compare harness's store-forwarding bias: two probes that differ only in the width of their
    one load of the flipped byte, with the difference stored right before the call and as default."""
    rows = []
    for r in plan:
        ctx.commands.append(f"memfbench run {show(ctx, r.args)}; python3 -m analysis compare")
        run = load_run(mfb(ctx, r))
        c = compare_runs([run], "load1", ["load32"], resamples=1000)[0]
        s = summarize_run(run, resamples=1000).set_index("variant")
        default = "--flip-lead" not in r.args
        rows.append(f"| {run.doc['config']['flip_lead']}{' (default)' if default else ''} "
                    f"| {s.loc['load1', 'median_ns_per_call']:.2f} | {s.loc['load32', 'median_ns_per_call']:.2f} "
                    f"| {s.loc['noop', 'median_ns_per_call']:.2f} | {c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}] "
                    f"| {c.verdict} |")
    return rows


def clocks(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    lines = []
    for r in plan:
        ctx.commands.append(f"memfbench run {show(ctx, r.args)}")
        run = load_run(mfb(ctx, r))
        t = run.doc["timer"]
        s = summarize_run(run, resamples=1000)
        noop = float(s[s.variant == "noop"].median_ns_per_call.iloc[0])
        lines.append(f"| {t['name']} | {t['overhead_ns']:.1f} ns (min {t['overhead_min_ticks'] * t['ns_per_tick']:.1f}) "
                     f"| tick {t['tick_ns']:.3f} ns, smallest step {t['min_step_ns']:.1f} ns | {noop:.3f} ns/call "
                     f"| {run.doc['harness']['overhead_ns_per_call']:.3f} ns/call |")
    return lines


@dataclass
class Results:
    """Each section's lines, None where the section was not measured in this run."""
    commands: list[str]
    host: dict
    sections: list[str]
    inv: list[Invocation] | None = None
    inv_lines: list[str] | None = None
    gb_res: tuple[list[str], dict] | None = None
    sens_lines: list[str] | None = None
    sens_source_lines: list[str] | None = None
    layout_source_lines: list[str] | None = None
    layout_prebuilt_lines: list[str] | None = None
    probe_lines: list[str] | None = None
    clock_lines: list[str] | None = None
    busy_lines: list[str] | None = None
    busy_aa_lines: list[str] | None = None
    time_lines: list[str] | None = None
    pool_lines: list[str] | None = None
    screening_lines: list[str] | None = None
    drift: float = float("nan")  # the between-study sd this section's diffs carry (section 1's largest CV)
    study: str = ""  # a default study's shape, as the files record it
    revision: str = ""  # the memfbench that made the runs (tool.build.source_revision)


# libc-slow1pct copies a second time on every KNOWN_PERIOD-th call (bench/impl/known_cost.c)
KNOWN_PERIOD = 25

BUILTINS = runs.BUILTINS
COVERAGE_INVOCATIONS = runs.COVERAGE_INVOCATIONS


def measure(ctx: Ctx, q: bool, invocations: int = COVERAGE_INVOCATIONS,
            sections: list[str] | None = None) -> Results:
    """The sections' runs and figures; the Google Benchmark harness is pinned to the CPU memfbench used."""
    chosen = sections or runs.SECTIONS
    plans = {x: runs.plan(x, ctx.plugins, q, invocations) for x in chosen}
    first = load_run(mfb(ctx, plans[chosen[0]][0])).doc
    r = Results(ctx.commands, first["host"], chosen, study=shape(first),
                revision=str(((first.get("tool") or {}).get("build") or {}).get("source_revision") or "?"))
    if "coverage" in plans:
        r.inv = coverage_study(ctx, plans["coverage"])
        r.study = shape(load_run(mfb(ctx, plans["coverage"][0])).doc)
        if not ctx.stored or ctx.gbench is not None:  # stored: only on the host that made them (main)
            r.gb_res = gbench(ctx, 3 if q else 10, 1 if q else 3, first["config"]["cpu"])
    if "invariance" in plans:
        r.inv_lines = invariance(ctx, plans["invariance"])
    if "known-cost" in plans:
        p = plans["known-cost"]
        r.sens_lines, _ = sensitivity(ctx, [x for x in p if x.name.startswith("sens") and "src" not in x.name],
                                      ("libc-wrapped", "libc-slow1pct", "libc-twice"))
        r.sens_source_lines, _ = sensitivity(ctx, [x for x in p if x.name.startswith("senssrc")],
                                             ("wrapped", "slow1pct", "twice"))
    if "layout" in plans:
        p = plans["layout"]
        r.layout_source_lines = layout_source(ctx, [x for x in p if x.name.startswith("alignsrc")])
        r.layout_prebuilt_lines = layout_prebuilt(ctx, [x for x in p if x.name.startswith("alignso")])
    if "probes" in plans:
        r.probe_lines = probes(ctx, plans["probes"])
    if "clocks" in plans:
        r.clock_lines = clocks(ctx, plans["clocks"])
    if "busy" in plans:
        r.busy_lines, _ = sensitivity(ctx, plans["busy"], ("libc-wrapped", "libc-slow1pct", "libc-twice"))
        ctx.commands[-1] += f" (each beside `taskset -c CPU sh -c '{runs.COMPETITOR}'` on its timed CPU)"
        r.busy_aa_lines = busy_aa(ctx, plans["busy"])
        if "known-cost" in plans:
            r.screening_lines = screening_lines(ctx, [x for x in plans["known-cost"] if x.name.startswith("sens")
                                                      and "src" not in x.name], plans["busy"])
    if "over-time" in plans:
        cov = plans.get("coverage") or runs.plan("coverage", ctx.plugins, q, invocations)
        inv = r.inv if r.inv is not None else coverage_study(ctx, cov)
        # as section 1 prints it (two decimals of a percent), which is what stats/validated.py holds
        r.drift = round(100 * max(cv([x.comps[pair].ratio for x in inv]) for pair in COVERAGE_PAIRS), 2) / 100
        r.time_lines, r.pool_lines = over_time(ctx, cov, plans["over-time"], r.drift)
    return r


def diff_verdicts(pairs: list[tuple[Run, Run]], between: float) -> list[str]:
    """The verdict of `analyze diff BEFORE AFTER --normalize libc` on each pair of single studies,
    every variant but libc, with the given between-study sd (0: none, as diff was before issue 52)."""
    return [s.verdict for a, b in pairs for s in diff_runs([a], [b], "libc", between=between)]


def apart(pairs: list[tuple[Run, Run]]) -> str:
    """How far apart the two studies of each pair were made, from their files' created_utc."""
    gaps = [(runs.created(Path(b.path)) - runs.created(Path(a.path))) / 60 for a, b in pairs]
    return f"median {np.median(gaps):.1f} min (range {min(gaps):.1f} to {max(gaps):.1f})"


def over_time(ctx: Ctx, cov: list[runs.Run], later: list[runs.Run], drift: float) -> tuple[list[str], list[str]]:
    """Section 12: diff of unchanged code between studies minutes and an hour apart, and whether a
    pooled interval of the early studies holds the later studies' ratios."""
    ctx.commands.append(f"{len(later)} x memfbench run {show(ctx, later[0].args)}, the first of them "
                        f"{runs.LATER_AFTER_S / 60:.0f} min or more after section 1's first; python3 -m analysis "
                        "diff BEFORE AFTER --normalize libc --between-sd 0, and --between-sd D; python3 -m analysis "
                        "pool FILES --baseline libc")
    early = [load_run(stored_run(ctx, r)) for r in cov]
    late = [load_run(invoke(ctx, r)[0]) for r in later]
    kinds = [("back to back (section 1's studies 2k and 2k+1)", list(zip(early[0::2], early[1::2]))),
             ("an hour or more apart (section 1's study k and a later study k)", list(zip(early, late)))]
    rows = []
    for what, pairs in kinds:
        for between, how in ((0.0, "none (`--between-sd 0`: diff before issue 52)"),
                             (drift, f"{100 * drift:.2f} % (section 1's largest study-to-study CV of a ratio)")):
            v = diff_verdicts(pairs, between)
            called = sum(x in ("faster", "slower") for x in v)
            rows.append(f"| {what} | {len(pairs)}, {apart(pairs)} | {how} | {len(v)} | **{called} "
                        f"({100 * called / max(len(v), 1):.1f} %)** | {v.count('equivalent')} | "
                        f"{v.count('inconclusive')} |")
    later_ratio = [{c.variant: c.ratio for c in compare_runs([x], "libc", resamples=1000)} for x in late]
    pools = []
    for n in sorted({10, len(early)}):
        if n > len(early) or n < 3:
            continue
        for pc in pool_runs(early[:n], "libc"):
            inside = sum(pc.pi_low <= r[pc.variant] <= pc.pi_high for r in later_ratio if pc.variant in r)
            pools.append(f"| {n} | {pc.variant}/libc | {pc.ratio:.4f} [{pc.ci_low:.4f}, {pc.ci_high:.4f}] | "
                         f"±{100 * pc.between_sd:.2f} % | [{pc.pi_low:.4f}, {pc.pi_high:.4f}] | {inside} of "
                         f"{len(later_ratio)} |")
    return rows, pools


def busy_aa(ctx: Ctx, plan: list[runs.Run]) -> list[str]:
    """libc-copy against libc in each busy study: equivalent (±1 %), and the processes the analysis
    left out (starved or disturbed by the competitor) with those the run re-ran."""
    verdicts, rows = [], []
    for i, r in enumerate(plan):
        run = load_run(stored_run(ctx, r))
        c = {x.variant: x for x in compare_runs([run], "libc", margin=0.01, resamples=1000)}["libc-copy"]
        verdicts.append(c.verdict)
        reran = sum(1 for p in run.doc.get("processes") or [] if isinstance(p, dict) and "dropped" in p)
        rows.append(f"| run {i}: libc-copy/libc {c.ratio:.4f} [{c.ci_low:.4f}, {c.ci_high:.4f}], over {c.processes} "
                    f"processes, {len(c.dropped)} left out, {reran} re-run by the study | {c.verdict} |")
    n = len(plan)
    return [f"| A/A equivalent (±1 %) | {verdicts.count('equivalent')} of {n} |",
            f"| A/A called faster or slower | {sum(v in ('faster', 'slower') for v in verdicts)} of {n} |", *rows]


NOT_MEASURED = ("Not measured in this run of the report (it measured {what}); run `./bootstrap.sh validate` on this "
                "machine for every section.")


def render_section(r: Results, command: str, seconds: float) -> str:
    """This machine's section of the report; everything it says about the machine comes from the runs'
    host block."""
    missing = NOT_MEASURED.format(what=", ".join(r.sections))
    md = [f"## {machine_title(r.host)}", "",
          f"Generated by `{command}` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} in {seconds:.0f} s, "
          f"Python {platform.python_version()}. Workload everywhere: fleetbench/Memcpy_Fleet, auto placement "
          f"(small calls in L1, large ones from memory). Every memfbench study here is a default one "
          f"({r.study}), each batch primed; every comparison's interval is the analysis's: the mean over "
          "processes with its error from the model of the code placements' effects (docs/methodology.md).", "",
          f"Machine: {describe_machine(r.host)}", "",
          f"The studies were run by memfbench {r.revision} (its source revision, as every result file records "
          "it).", ""]
    md += ["### 1. Do the printed intervals cover a re-run?", ""]
    if r.inv:
        n = len(r.inv)
        md += [f"{n} invocations of the same default study, minutes apart. For each comparison: the median ratio "
               "over the invocations, the fraction of printed 95 % intervals (confidence interval of the ratio; "
               "prediction interval of a re-run's ratio) that hold it. A confidence interval that covers the "
               "implementation's ratio should hold that median in about 95 % of invocations; the prediction "
               "interval is wider by design (it carries the re-run's own sampling error).", "",
               "| comparison | median over invocations | range | printed CI half-width (median) | CI holds the "
               "median | prediction interval holds it | consecutive studies' correlation | shift found within "
               "(no verdict) |", "| --- | --- | --- | --- | --- | --- | --- | --- |",
               *coverage_lines(r.inv), "",
               "A study's interval covers what varies within it: each process's noise and the code placements' "
               "pairings. A ratio that moves with the machine's state from one study to the next (a shared host's "
               "load, the physical core it runs on) moves by more than that where the two sides use the machine "
               "differently (rep_movsb and an AVX2 loop against libc's large copies), and no interval made from "
               "one study can cover it: the range and the correlation of consecutive studies (0 for independent "
               "re-runs) show how much of the movement was shared by studies run close together. Studies with a "
               "shift inside them are counted in the last column (docs/analysis.md); the A/A pairs, whose two "
               "sides are the same code, hold their re-runs' median as a 95 % interval should.", "",
               f"libc's median ns/call across the same invocations: {spread([x.libc_ns for x in r.inv])}.", "",
               "### 2. A/A: the same code at another address", "",
               "`libc-copy` is the C library loaded a second time (dlmopen): the same machine code at another "
               "address, page-aligned like every address the loader picks. `avx2-copy` is memfbench's AVX2 copy run "
               "from another of its code placements than `avx2` in the same process (each process draws both, never "
               "the same one): any difference is code placement, and it changes from process to process. Verdicts at "
               "the default margin (±1 %), simultaneous over the study's comparisons:", "",
               "| pair | default studies | reported faster or slower | verdicts |", "| --- | --- | --- | --- |",
               *aa_lines(r.inv), ""]
    else:
        md += [missing, "", "### 2. A/A: the same code at another address", "", missing, ""]
    md += ["### 3. Does a ratio depend on the other variants in the study?", ""]
    md += (["Each built-in against libc, in a study with libc alone and in one study with all of them. Before the "
            "batch was primed and sized by the distribution, the two differed by more than their intervals "
            "(measured with 10 processes x 1 s, avx2/libc: 1.1153 alone, 1.1108 among six; with priming, "
            "1.1134 and 1.1137): a batch shape chosen by the fastest variant of the study and the state the "
            "previous variant of a round left (branch predictors, micro-op cache, L1) both depended on the "
            "neighbours.", "",
            "| built-in | with libc alone [95 % CI] | among all [95 % CI] | difference | intervals overlap | each "
            "within the other's prediction interval |", "| --- | --- | --- | --- | --- | --- |", *r.inv_lines, ""]
           if r.inv_lines else [missing, ""])
    md += ["### 4. Agreement with Google Benchmark, and its repeatability", ""]
    if r.gb_res and r.inv:
        gb_lines, gbd = r.gb_res
        libc = [x.libc_ns for x in r.inv]
        avx = [x.comps[("avx2", "libc")].ratio for x in r.inv]
        md += ["| figure | across invocations |", "| --- | --- |", *gb_lines,
               f"| memfbench, avx2/libc (default studies above) | {spread(avx)} |", "",
               f"Side by side (medians over invocations): libc **{np.median(libc):.2f} ns/call** (memfbench) "
               f"against **{np.median(gbd['libc']):.2f} ns/call** (Google Benchmark); avx2/libc "
               f"**{np.median(avx):.4f}** (memfbench) against **{np.median(gbd['ratio']):.4f}** (Google "
               "Benchmark, ratio of medians).", "",
               "The Google Benchmark harness (`tools/gbench_replay.cc`) replays the same distribution "
               "and working set through memfbench's own loop, one pass of one parameter array per iteration, "
               "cycling 64 arrays (so params stream from L2), and runs libc and then avx2 one after the other, "
               "as Google Benchmark does. memfbench times several passes of one L1-resident array per batch (each "
               "pass in its own order) and interleaves the variants round by round. The per-call levels and the "
               "ratio therefore need not agree; what the table shows is how much each one moves from one "
               "invocation to the next.", ""]
    elif r.inv:
        md += [f"The build has no Google Benchmark harness (ninja target `{GBENCH_TARGET}`, built where Debian "
               "`libbenchmark-dev` and `g++` are installed), or the studies were run elsewhere "
               "(tools/validation_runs.py): not measured.", ""]
    else:
        md += [missing, ""]
    md += ["### 5. Sensitivity: a known extra cost of about 1 %", ""]
    if r.sens_lines is not None:
        md += [f"`libc-slow1pct` calls libc's memcpy and, on every {KNOWN_PERIOD}th call, copies a second time; "
               "its baseline `libc-wrapped` is the same wrapper without the second copy, and `libc-twice` the same "
               "wrapper copying a second time on every call (compared with plain `libc`, the wrapper's extra call "
               "layer alone costs about 10 %). The three wrappers' common path is the same machine code (the rare "
               "step is an out-of-line call). How the size is established: a second copy costs the same whichever "
               f"call it follows, so the expected ratio is 1 + (twice/wrapped - 1) / {KNOWN_PERIOD}, measured in the "
               f"same study, its range being twice's 95 % interval scaled by 1/{KNOWN_PERIOD}. The second copy "
               "finds its data in cache, so it costs about a quarter of a first copy: the effect is about 1 %, "
               "not 4 %.", "", "| figure | value |", "| --- | --- |", *r.sens_lines, "",
               "The same three wrappers as user code through the source path "
               "(`examples/source/known_cost.c`, `-v FILE.c:SYMBOL=NAME`: memfbench builds the file at its 8 code "
               "placements and balances them over the study as it does its built-ins):", "",
               "| figure | value |", "| --- | --- |", *(r.sens_source_lines or []), ""]
    else:
        md += [missing, ""]
    md += ["### 6. Harness bias of compare calls: store forwarding", ""]
    md += (["Compare calls need a difference: the harness flips one byte of the right-hand buffer and restores it "
            "after the call. A function whose first load of that buffer is wider than the 1-byte store cannot take "
            "its data from the store buffer and waits until the store reaches L1; a byte loop does not wait. The "
            "probes `load1` and `load32` do nothing but one load of the flipped byte (1 byte broadcast, or 32 "
            "bytes) and the same vector mask; `probe/FlipFirst` makes every call differ at byte 0, 64-byte calls, "
            "32-byte aligned buffers. With the flip stored right before the call (`--flip-lead 0`, what the harness "
            "did before) the wide load pays; stored 4 calls ahead (the default) it does not.", "",
            "| flip lead (calls) | load1 ns/call | load32 ns/call | noop ns/call | load32/load1 [95 % CI] | verdict "
            "(±1 %) |", "| --- | --- | --- | --- | --- | --- |", *r.probe_lines, ""] if r.probe_lines else [missing, ""])
    md += ["### 7. What a default study costs", ""]
    md += (["| figure | value |", "| --- | --- |", *cost_lines(r.inv), ""] if r.inv else [missing, ""])
    md += ["### 8. Overhead and clocks", ""]
    md += (["| clock | overhead of a begin/end pair | resolution | noop variant | harness overhead (recorded) |",
            "| --- | --- | --- | --- | --- |", *r.clock_lines, ""] if r.clock_lines else [missing, ""])
    md += ["### 9. The placement check in every process", ""]
    md += (["After its rounds every process checks that its small-call windows load at this core's L1 latency and "
            "that lines of its large window load at about the latency of the same lines flushed from every cache "
            "(docs/methodology.md, \"The placement check\"). Over every process of the studies of section 1:", "",
            "| window | result |", "| --- | --- |", *placement_lines(r.inv), ""] if r.inv else [missing, ""])
    md += ["### 10. Code layout: the same code at another alignment", ""]
    if r.layout_source_lines is not None:
        md += ["One memcpy wrapper (`examples/source/copy_at.c`), its machine code the same, 0 and 32 bytes into a "
               "64-byte line. Through the source path (`--variant-cflags \"-O2 -fno-toplevel-reorder\" -v "
               "examples/source/copy_at.c:copy_at=at0 -v examples/source/copy_at32.c:copy_at=at32`) each runs from "
               "its 8 code placements, balanced over the study, so the verdict is about the code, which is the same:",
               "", *r.layout_source_lines, "",
               "The same code prebuilt as plugins 0, 16, 32 and 48 bytes into a line "
               "(`build/examples/libcopy_at{0,16,32,48}.so`), one layout each: a difference between them is their "
               "alignment's. Every verdict is labelled one code layout, with how far identical code moved with its "
               "placement in the same study (the layout sentinel memfbench adds, run from every placement):", "",
               *(r.layout_prebuilt_lines or []), ""]
    else:
        md += [missing, ""]
    md += ["### 11. On a busy CPU: one CPU-bound competitor on the timed CPU", ""]
    if r.busy_lines is not None:
        md += ["The known cost of section 5 and an A/A pair (`libc-copy` against `libc`) in one default study, "
               f"while `sh -c '{runs.COMPETITOR}'` runs on the CPU the study is pinned to, as a user's background "
               "build would. The study re-runs a starved process's slot; the analysis leaves out a starved or "
               "disturbed process and names it (docs/methodology.md).", "",
               "| figure | value |", "| --- | --- |", *r.busy_lines, *(r.busy_aa_lines or []), ""]
        if r.screening_lines:
            md += ["Before and after issue 52 on the same files: each study of section 5 (quiet) and of this "
                   "section read as the analysis read a study before (every process the study first ran, no "
                   "re-run of a starved one's slot, no process left out) and as it reads it now:", "",
                   "| studies | analysis | known cost detected (±0.25 %) | expected value inside | A/A libc-copy/libc "
                   "(±1 %), CI half-width median | processes left out |", "| --- | --- | --- | --- | --- | --- |",
                   *r.screening_lines, ""]
    else:
        md += [missing, ""]
    md += ["### 12. Across studies: `diff` of unchanged code, and pooled intervals", ""]
    if r.time_lines is not None:
        md += ["The same build, the same code: every verdict of `analyze diff BEFORE AFTER --normalize libc` that "
               "calls a variant faster or slower is a false one. A study's interval holds what varies within it; "
               "between two studies the host drifts, and diff carries that drift as a between-study sd twice over "
               "(docs/analysis.md). Here with none and with the one this section's own section 1 gives (the value "
               "analysis/stats/validated.py takes for this CPU once it holds this section):", "",
               "| pairs of studies | pairs, apart | between-study sd | variant-pairs | faster or slower | "
               "equivalent | inconclusive |", "| --- | --- | --- | --- | --- | --- | --- |", *r.time_lines, "",
               "`analyze pool` of the first studies of section 1 (its between-study sd measured by REML over them), "
               "and whether its prediction interval (where a study run later puts its ratio) holds each study "
               "run an hour or more later:", "",
               "| studies pooled | comparison | pooled ratio [95 % CI] | between-study sd | prediction interval | "
               "later studies inside |", "| --- | --- | --- | --- | --- | --- |", *(r.pool_lines or []), ""]
    else:
        md += [missing, ""]
    md += ["### Commands", "", *[f"- `{c}`" for c in r.commands], ""]
    return "\n".join(md)


# Where each machine's section starts and ends in docs/validation.md.
SECTION_START = "<!-- validation section: {key} -->"
SECTION_END = "<!-- end of validation section -->"
_SECTION = re.compile(r"<!-- validation section: (?P<key>[^>]*?) -->\n(?P<body>.*?)<!-- end of validation section -->",
                      re.S)

# The machine kinds this project's development machines and CI come in (DEVELOPERS.md, and the CPU
# a session landed on since): (vendor, family, what it is). Each should have a section.
KNOWN_KINDS = [("GenuineIntel", "6", "Intel Xeon VM (family 6: 48 KiB L1d, 2 MiB L2, AVX-512)"),
               ("AuthenticAMD", "25", "AMD EPYC Zen 3 VM (family 25: 32 KiB L1d, 512 KiB L2, 32 MiB L3 per CCD)"),
               ("AuthenticAMD", "26", "AMD EPYC Zen 5 VM (family 26: 48 KiB L1d, 1 MiB L2, 32 MiB L3 per CCD, "
                                      "AVX-512)"),
               # AArch64 hosts have no vendor/family: machine_key files them as ARM, family 8
               ("ARM", "8", "any AArch64 machine (Neoverse N1/V1/V2, Graviton, Ampere, Grace): no timing figure "
                            "exists for Arm until `./bootstrap.sh validate` runs on Arm hardware; `./bootstrap.sh "
                            "cross-test aarch64` checks correctness under qemu only")]


def machine_key(host: dict) -> str:
    """Which section a machine's report goes to: its CPU vendor, family and model number."""
    cpu = host["cpu"]
    if "vendor" not in cpu and "implementer" in cpu:  # AArch64: MIDR's implementer and part
        return f"ARM family 8 model {cpu['implementer']}:{cpu.get('part', '?')}"
    return f"{cpu.get('vendor', '?')} family {cpu.get('family', '?')} model {cpu.get('model_number', '?')}"


def machine_title(host: dict) -> str:
    cpu = host["cpu"]
    return f"{cpu.get('model', '?')} ({cpu.get('vendor', '?')}, family {cpu.get('family', '?')}, model {cpu.get('model_number', '?')})"


def split_report(text: str) -> dict[str, str]:
    """The sections of a report, by machine key, in the order they stand."""
    return {m["key"]: m["body"].strip("\n") for m in _SECTION.finditer(text)}


def report_opening(sections: dict[str, str]) -> list[str]:
    """The report's title, what it is, the machines it has and the machine kinds it lacks."""
    titles = [b.splitlines()[0].removeprefix("## ") for b in sections.values()]
    have = {(m[1], m[2]) for m in (re.match(r"(\S+) family (\S+) model", k) for k in sections) if m}
    missing = [what for vendor, family, what in KNOWN_KINDS if (vendor, family) not in have]
    return ["# Validation report", "",
            "How far memfbench's numbers can be trusted, measured: one section per CPU model it was run on, each "
            "written by `./bootstrap.sh validate` (`python3 -m tools.validation`) on that machine, which replaces "
            "its own section and keeps the others. A figure in one section holds for that machine only: cache "
            "geometry, code placement and the cost of `rep movsb` differ between CPU families.", "",
            "Sections: " + "; ".join(f"[{t}](#{anchor(t)})" for t in titles) + ".", "",
            ("Not yet validated on: " + "; ".join(missing) + ". Run `./bootstrap.sh validate` there and commit the "
             "new section." if missing else "Every machine kind we develop on has a section."), ""]


def anchor(title: str) -> str:
    """The Markdown heading anchor GitHub and most renderers give a title."""
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


def merge_report(existing: str | None, key: str, section: str) -> str:
    """The report with `section` as machine `key`'s (replaced in place, or added last)."""
    sections = split_report(existing or "")
    sections[key] = section.strip("\n")
    out = report_opening(sections)
    for k, body in sections.items():
        out += [SECTION_START.format(key=k), body, SECTION_END, ""]
    return "\n".join(out)


def command_line(args: argparse.Namespace) -> str:
    """How the report says it was made (the options that change what is measured)."""
    return " ".join([PROG, *(["--cpu", args.cpu] if args.cpu else []), *(["--quick"] if args.quick else []),
                     *(["--invocations", str(args.invocations)] if args.invocations != COVERAGE_INVOCATIONS else []),
                     *(["--sections", args.sections] if args.sections != ",".join(runs.SECTIONS) else []),
                     *(["--stored DIR (runs kept by --keep, or made by python3 -m tools.validation_runs, on the "
                        "machine above; the time below is the report's, the studies' own is in section 7)"]
                       if args.stored else [])])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="meson build folder (default build)")
    ap.add_argument("-o", "--output", default=str(ROOT / "docs" / "validation.md"))
    ap.add_argument("--cpu", help="CPU for every run (memfbench --cpu N, or 'none'; default: memfbench's choice); "
                                  "the Google Benchmark harness is pinned to the CPU memfbench used")
    ap.add_argument("--quick", action="store_true", help="fewer and shorter runs (a smoke test of the command)")
    ap.add_argument("--invocations", type=int, default=COVERAGE_INVOCATIONS, metavar="N",
                    help=f"default studies of the coverage section (default {COVERAGE_INVOCATIONS}; at least 3)")
    ap.add_argument("--sections", default=",".join(runs.SECTIONS),
                    help=f"the sections to measure, comma-separated, of {', '.join(runs.SECTIONS)} (default all); "
                         "the report says which it did not")
    ap.add_argument("--stored", metavar="DIR",
                    help="make the report from the runs python3 -m tools.validation_runs put in DIR (run on "
                         "another machine) instead of running memfbench")
    ap.add_argument("--keep", metavar="DIR",
                    help="put the runs in DIR (made if missing) with their wall times, and leave them there, so that "
                         "--stored DIR can make the report again; default: a temporary folder")
    args = ap.parse_args(argv)
    if args.invocations < 3:
        print(f"{PROG}: error: --invocations: at least 3 (got {args.invocations})", file=sys.stderr)
        return 2
    if args.keep and args.stored:
        print(f"{PROG}: error: --keep and --stored: give one (--stored reads the folder --keep wrote)", file=sys.stderr)
        return 2
    sections = args.sections.split(",")
    unknown = [x for x in sections if x not in runs.SECTIONS]
    if unknown:
        print(f"{PROG}: error: --sections: no section {unknown[0]!r} (have: {', '.join(runs.SECTIONS)})",
              file=sys.stderr)
        return 2
    build, output = Path(args.build), Path(args.output)
    t0 = time.time()
    try:
        if not output.parent.is_dir():
            raise ToolError(f"{output}: no such folder {output.parent}")
        if args.stored:
            folder = Path(args.stored)
            walls = folder / "walls.json"
            # the Google Benchmark harness runs now only where the runs were made (--keep on this
            # host): its figures are this machine's, and the section says whose the runs are
            first = runs.stored(folder, "cov0")
            here = first is not None and load_run(first).hostname == platform.node() and has_target(build, GBENCH_TARGET)
            ctx = Ctx(None, build_tools(build) if here else None, folder, [], ["--cpu", args.cpu] if args.cpu else [],
                      stored=True, walls=json.loads(walls.read_text()) if walls.exists() else {})
            results = measure(ctx, args.quick, args.invocations, sections)
        else:
            gb = build_tools(build)
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(args.keep) if args.keep else Path(tmp)
                folder.mkdir(parents=True, exist_ok=True)
                ctx = Ctx(build / MEMFBENCH_TARGET, gb, folder, [], ["--cpu", args.cpu] if args.cpu else [],
                          plugins=build / "examples", cache=Path(tmp) / "cache", keep=bool(args.keep))
                results = measure(ctx, args.quick, args.invocations, sections)
        existing = output.read_text(encoding="utf-8") if output.exists() else None
        section = render_section(results, command_line(args), time.time() - t0)
        write_text_atomic(output, merge_report(existing, machine_key(results.host), section))
    except (ToolError, ResultFileError, ValueError) as e:
        print(f"{PROG}: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{PROG}: error: {e.filename or output}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

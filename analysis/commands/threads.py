"""threads: several timing threads (run --threads N --cpus LIST): where they ran, each thread's
ns/call and bytes/ns, how much the others slow thread 0, and (--one-thread FILE...) thread 0
against the same study run with one thread."""
from __future__ import annotations

import argparse

from ..io.files import write_bytes_atomic
from ..io.load import Run
from ..stats.threads import background_line, is_threaded, thread_summary, threads_line, topology_frame
from ..verdicts.diff import context_differences, diff_runs, shift_line
from ..views.text import interference_lines, plain, table
from .common import UsageError, check_level, check_outputs, inputs_of, load, png


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("threads", help="several timing threads (run --threads N --cpus LIST): where they ran, "
                                       "each thread's ns/call and bytes/ns, and how much the others slow thread 0")
    p.add_argument("files", nargs="+")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--plot", metavar="PNG", help="also write the figure to this PNG file (one input file)")
    p.add_argument("--one-thread", nargs="+", metavar="FILE", default=[],
                   help="the same study run with one thread: thread 0's slowdown against it, per variant "
                        "(analysis diff's shift, Welch t over processes), beside the paired alone batches")
    return p


def _one_thread_lines(r: Run, solo: list[Run], level: float) -> list[str]:
    """Thread 0's time per call beside the other threads against the same study run with one
    thread: analysis diff's shift (per process the median, Welch t over processes), with what
    else differs between the files."""
    try:
        shifts = diff_runs(solo, [r], level=level)
    except ValueError as e:
        return [f"against one thread: not compared ({e})"]
    others = [d for d in context_differences(solo, [r]) if not d.startswith("timing threads")]
    return ([f"against the one-thread run ({', '.join(s.path for s in solo)}): thread 0 beside the others / one "
             f"thread alone in its process, {level:.0%} Welch t over processes (runs at different times: drift "
             "between them is in it)"] + [f"warning: the contexts also differ: {d}" for d in others] +
            [shift_line(s) for s in shifts])


def run(args: argparse.Namespace) -> int:
    check_level(args.level)
    if args.plot is not None:
        if len(args.files) != 1:
            raise UsageError(f"--plot: draws one file, {len(args.files)} given")
    check_outputs(args, [(args.plot, "--plot")] if args.plot is not None else [])
    runs, _ = load(args.files + args.one_thread)
    runs, solo = runs[:len(args.files)], runs[len(args.files):]
    for r in runs:  # every file checked before anything is printed
        if not is_threaded(r):
            raise UsageError(f"{r.path}: not a threaded run: it timed one thread (memfbench run --threads N "
                             "--cpus LIST makes one)")
    for r in solo:
        if is_threaded(r) or r.neighbours:
            raise UsageError(f"--one-thread: {r.path} is not a one-thread run without a stressor "
                             f"({r.neighbours})")
    for i, r in enumerate(runs):
        if i:
            print()
        print(f"== threads: {r.function} on {r.distribution} ({r.path})")
        print(plain(threads_line(r)))
        print(plain(background_line(r) or "- background: none"))
        print(table(topology_frame(r)))
        summary = thread_summary(r, args.level)
        print(f"\n== per thread: measured batches timed with every thread running, median ns/call with its "
              f"{args.level:.0%} bootstrap interval; all: every thread's batches pooled, bytes/ns summed (what the "
              "threads sustain together)")
        print(table(summary) if len(summary) else "(no batches of the whole distribution)")
        print("\n== " + "\n".join(interference_lines(r, args.level)))
        if solo:
            print("\n== " + "\n".join(_one_thread_lines(r, solo, args.level)))
    print("\nthe verdicts of compare/summarize are about thread 0's batches timed with every thread running")
    if args.plot is not None:
        from ..views.plots.threads import threads as threads_figure
        write_bytes_atomic(args.plot, png(threads_figure(runs[0], args.level)), "--plot", inputs_of(args))
    return 0

"""Command line: memfbench analyze (or python3 -m analysis) {summarize,compare,report,gate,export,diff,threads} FILE...

Every user error (a bad option, an unreadable or invalid result file, an output that cannot be
written) is one line on stderr, "analysis: ...", naming the file or option, and exit status 2;
outputs are written atomically, so a failure leaves no partial or temporary file."""
from __future__ import annotations

import argparse
import math
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

from . import stats
from .callsites import read_callsites, top
from .classes import decompose, decompose_run, decomposition_lines
from .counters import counter_summary, counters_source, has_counters
from .pressure import pressure_frame
from .sweep import describe, is_sweep, sweep_points, sweep_rows, sweep_table
from .threads import (RATIO_COLUMNS, SLOWDOWN_COLUMNS, background_line, interference, interval_method,
                      is_threaded, thread_summary, threads_line, topology_frame)
from .compare import comparisons_frame, compare_runs
from .diff import context_differences, diff_runs, incomparable, shift_line, unmatched_models, unresolved_hint
from .export import to_csv, to_gbench_file
from .files import (OutputError, check_output_file, check_output_folder, json_text, write_bytes_atomic,
                    write_text_atomic)
from .gate import default_verdict_path, status_of, verdict_document, write_atomic
from .history import ALPHA as HISTORY_ALPHA
from .history import MIN_SIZE as HISTORY_MIN_SIZE
from .history import ORDERS as HISTORY_ORDERS
from .history import PERMUTATIONS as HISTORY_PERMUTATIONS
from .identity import code_changes, separate
from .load import Run, load_run, load_runs
from .probe import bandwidth_frame, bandwidth_table, check_reference, latency_frame, levels_table, read_probe, roofline
from .probe import context_lines as probe_context_lines
from .probe import roofline_sentences, roofline_table
from .report import COMPARISON_COLUMNS, context_lines, plain, verdict_lines, write_diff_report, write_report
from .schema import ResultFileError
from .summary import summarize_run

PROG = "analysis"
# The longest error line: a path of thousands of characters is shown with its middle elided.
MESSAGE_MAX = 1000


class UsageError(Exception):
    """An option value the analysis cannot use; the message names the option."""


class _Parser(argparse.ArgumentParser):
    """argparse's errors as one line like every other error (it prints the usage and a second line)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def command_name() -> str:
    """How this command is invoked, for its usage line and the commands it suggests: `memfbench
    analyze` sets MEMFBENCH_ANALYZE_PROG when it runs the package; run directly, the interpreter."""
    return os.environ.get("MEMFBENCH_ANALYZE_PROG") or f"{sys.executable or 'python3'} -m analysis"


def one_line(message: str, limit: int = MESSAGE_MAX) -> str:
    """message as one printable line: control characters (a newline in a file name) and
    undecodable bytes escaped, the middle of an overlong message elided."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return text if len(text) <= limit else f"{text[:limit * 2 // 3]} ... {text[-(limit // 4):]}"


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", help="memfbench result files (JSON)")
    p.add_argument("--baseline", help="variant to compare against (default: each run's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--adjust", choices=["holm", "bh", "none"], default="holm",
                   help="multiplicity adjustment across all comparisons (default holm)")
    p.add_argument("--resamples", type=int, default=stats.DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples (default {stats.DEFAULT_RESAMPLES}, 1000 to {stats.MAX_RESAMPLES})")
    p.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="bootstrap seed (non-negative)")
    p.add_argument("--quiet-warnings", default=os.environ.get("MEMFBENCH_QUIET_WARNINGS", ""), metavar="CODES",
                   help="hide warnings and notes of these codes (comma-separated, or 'all'; default "
                        "$MEMFBENCH_QUIET_WARNINGS); codes the run silenced are hidden too, and one line names them")
    p.add_argument("--allow-single-process", action="store_true",
                   help="give faster/slower verdicts from one process (its interval covers that process only)")


def _verdict_options(p: argparse.ArgumentParser, each_run: bool = False, baseline: bool = True) -> None:
    """--baseline, --margin and --level, as every comparing subcommand takes them (ab's baseline is
    its libc arm, always: no --baseline there)."""
    if baseline:
        p.add_argument("--baseline", help="variant to compare against (default: "
                                          f"{'each' if each_run else 'the'} run's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")


def _fmt_table(df) -> str:
    return df.to_string(index=False, float_format=lambda v: f"{v:.4g}")


def _parser() -> argparse.ArgumentParser:
    # Help names the command as the user ran it: memfbench analyze, or the interpreter with -m.
    ap = _Parser(prog=command_name(), description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sm = sub.add_parser("summarize", help="context, per-variant statistics and verdicts")
    _common(sm)
    sm.add_argument("--report", metavar="DIR", help="also write the report (as `report -o DIR`)")
    c = sub.add_parser("compare", help="A/B verdicts against a baseline")
    _common(c)
    c.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    r = sub.add_parser("report", help="Markdown and HTML report with plots")
    _common(r)
    r.add_argument("-o", "--output", required=True, help="folder for report.md, report.html and figures "
                                                         "(created; its parent must exist)")
    r.add_argument("--svg", action="store_true", help="also write each figure as SVG (vector, for papers)")
    r.add_argument("--probe", metavar="FILE", help="a memfbench probe file of the same machine: its curves, the "
                                                  "cache levels it found on sweep plots, and sweep throughput as a "
                                                  "fraction of the measured bandwidth")
    g = sub.add_parser("gate", help="regression gate: exit 1 when a variant is slower than the baseline by "
                                    "more than P %% (multiplicity-adjusted)")
    _common(g)
    g.add_argument("--fail-if-slower", type=float, required=True, metavar="P", help="threshold in percent")
    g.add_argument("--json", dest="json_out", help="verdict file (default: FIRST_FILE.verdict.json beside it)")
    d = sub.add_parser("diff", help="before/after: each variant against itself in two sets of result files "
                                    "(two builds, libc versions, kernels, hosts)")
    d.add_argument("files", nargs="*", metavar="FILE", help="BEFORE AFTER (one file each), or use --before/--after")
    d.add_argument("--before", nargs="+", default=[], metavar="FILE", help="the 'before' result files")
    d.add_argument("--after", nargs="+", default=[], metavar="FILE", help="the 'after' result files")
    d.add_argument("--normalize", default="", metavar="V",
                   help="compare each variant's per-round ratio to V (timed in the same rounds) instead of its "
                        "absolute time: machine drift between the runs cancels; V's code must be the same on both "
                        "sides")
    d.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    d.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    d.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    d.add_argument("--fail-if-slower", type=float, metavar="P",
                   help="a gate against a saved baseline: exit 1 when a variant's after/before simultaneous "
                        "interval lies entirely above 1 + P %% (adjusted p below 1 - level)")
    d.add_argument("--json", dest="json_out", help="also write the shifts as JSON to this file")
    d.add_argument("--report", metavar="DIR", help="also write a before/after report (report.md and report.html "
                                                  "with the shifts drawn) into DIR")
    d.add_argument("--force", action="store_true",
                   help="compare sides that differ in function, measure, distribution or placement")
    k = sub.add_parser("classes", help="where the time goes: per size class ratios and the decomposition of "
                                       "each difference into class contributions and a residual (run --by-class)")
    k.add_argument("file")
    _verdict_options(k)
    k.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    k.add_argument("--csv", dest="csv_out", help="also write the table as CSV to this file")
    w = sub.add_parser("sweep", help="a size sweep (memfbench sweep SIZES): per size and variant ns/call, "
                                     "bytes/ns and the ratio to the baseline")
    w.add_argument("file")
    _verdict_options(w)
    w.add_argument("--csv", dest="csv_out", help="also write every point as CSV to this file")
    w.add_argument("--plot", metavar="STEM", help="also write the plot as STEM.png")
    w.add_argument("--probe", metavar="FILE", help="a memfbench probe file of the same machine: each point's "
                                                  "bytes/ns as a fraction of the bandwidth where its data lives")
    ip = sub.add_parser("pressure", help="instruction-cache pressure: ratio against --icache-pressure size, one "
                                         "run file per size (a file without the option is size 0)")
    ip.add_argument("files", nargs="+")
    _verdict_options(ip, each_run=True)
    ip.add_argument("--plot", metavar="STEM", help="also write STEM.png: ratio against pressure size")
    th = sub.add_parser("threads", help="several timing threads (run --threads N --cpus LIST): where they ran, "
                                        "each thread's ns/call and bytes/ns, and how much the others slow thread 0")
    th.add_argument("files", nargs="+")
    th.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    th.add_argument("--plot", metavar="PNG", help="also write the figure to this PNG file (one input file)")
    th.add_argument("--one-thread", nargs="+", metavar="FILE", default=[],
                    help="the same study run with one thread: thread 0's slowdown against it, per variant "
                         "(analysis diff's shift, Welch t over processes), beside the paired alone batches")
    pb = sub.add_parser("probe", help="a probe file (memfbench probe): cache levels found against those reported, "
                                      "latency and bandwidth per size")
    pb.add_argument("file")
    pb.add_argument("--plot", metavar="STEM", help="also write STEM_latency.png and STEM_bandwidth.png")
    pb.add_argument("--csv", dest="csv_out", metavar="STEM", help="also write STEM_latency.csv and "
                                                                   "STEM_bandwidth.csv")
    cs = sub.add_parser("callsites", help="the call sites of a recorded trace (memfbench record --trace), "
                                          "by bytes and by calls")
    cs.add_argument("folder", help="a recorded folder (or its callsites.csv)")
    cs.add_argument("--top", type=int, default=10, help="how many of each ranking (default 10)")
    hs = sub.add_parser("history", help="results across commits: each variant's ratio to the baseline over a "
                                        "series of files, and its change points (e-divisive means)")
    hs.add_argument("files", nargs="+", metavar="FILE|DIR",
                    help="result files, or folders of them (*.json, *.json.gz): one file per point of the series")
    hs.add_argument("--order", choices=list(HISTORY_ORDERS), default="",
                    help="label-time: by the commit time of each file's label (the default when every file has "
                         "one); created: by when each file was made (the default otherwise); given: as listed")
    hs.add_argument("--baseline", help="variant to compare against (default: each file's first variant)")
    hs.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    hs.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    hs.add_argument("--alpha", type=float, default=HISTORY_ALPHA,
                    help=f"significance of each split's permutation test (default {HISTORY_ALPHA:g})")
    hs.add_argument("--permutations", type=int, default=HISTORY_PERMUTATIONS,
                    help=f"permutations per tested split (default {HISTORY_PERMUTATIONS}, 99 to 99999)")
    hs.add_argument("--min-size", type=int, default=HISTORY_MIN_SIZE,
                    help=f"points needed on each side of a change (default {HISTORY_MIN_SIZE})")
    hs.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="permutation seed (non-negative)")
    hs.add_argument("--csv", dest="csv_out", help="also write the detected changes as CSV to this file")
    hs.add_argument("--json", dest="json_out", help="also write the series and the changes as JSON to this file")
    hs.add_argument("--plot", metavar="STEM", help="also write STEM-VARIANT.png, one per variant")
    ab = sub.add_parser("ab", help="a memfbench ab file: each variant's end-to-end time against libc's, and "
                                   "the shim's own cost")
    ab.add_argument("file")
    _verdict_options(ab, baseline=False)
    ab.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    e = sub.add_parser("export", help="export one result file")
    e.add_argument("file")
    e.add_argument("--format", choices=["gbench", "csv"], required=True,
                   help="gbench: Google Benchmark JSON (for its compare.py); csv: raw samples")
    e.add_argument("-o", "--output", required=True)
    return ap


def _check_options(args: argparse.Namespace) -> None:
    """Raises UsageError for option values the statistics cannot use (argparse reads "nan", "inf"
    and "1e999" as floats, and numpy refuses negative seeds deep inside a bootstrap)."""
    if args.cmd == "gate" and not (math.isfinite(args.fail_if_slower) and args.fail_if_slower >= 0):
        raise UsageError(f"--fail-if-slower {args.fail_if_slower:g}: must be a finite, non-negative percentage")
    _check_margin_level(args)
    if not 1000 <= args.resamples <= stats.MAX_RESAMPLES:
        raise UsageError(f"--resamples {args.resamples}: must be from 1000 to {stats.MAX_RESAMPLES}")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed}: must be non-negative")
    if args.baseline == "":
        raise UsageError("--baseline: empty variant name")
    codes = [c.strip() for c in args.quiet_warnings.split(",")] if args.quiet_warnings else []
    if any(not c for c in codes):
        raise UsageError(f"--quiet-warnings '{args.quiet_warnings}': an empty code (give CODE[,CODE...] or all)")
    args.quiet = frozenset(codes)


def _verdict_target(args: argparse.Namespace) -> tuple[str | Path, str]:
    if args.json_out is not None:
        return args.json_out, "--json"  # as given: Path("") would be the current folder
    return default_verdict_path(args.files[0]), "verdict file"


# The arguments that name what a subcommand reads. inputs_of gathers them: the one list every
# output of every subcommand is checked against, so none replaces a file it reads.
_INPUT_ARGUMENTS = ("files", "before", "after", "one_thread", "file", "folder", "probe")


def inputs_of(args: argparse.Namespace) -> list[str]:
    """Every file or folder the subcommand of `args` reads."""
    found: list[str] = []
    for name in _INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        if value is not None:
            found.extend(value if isinstance(value, list) else [value])
    return found


def _file_outputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every file the subcommand of `args` will write, with the option that names it."""
    cmd, outs = args.cmd, []
    if cmd in ("compare", "diff", "history", "ab") and args.json_out is not None:
        outs.append((args.json_out, "--json"))
    if cmd == "gate":
        path, label = _verdict_target(args)
        outs.append((str(path), label))
    if cmd in ("classes", "sweep", "history") and args.csv_out is not None:
        outs.append((args.csv_out, "--csv"))
    if cmd in ("sweep", "pressure") and args.plot is not None:
        outs.append((f"{args.plot}.png", "--plot"))
    if cmd == "threads" and args.plot is not None:
        outs.append((args.plot, "--plot"))
    if cmd == "history" and args.plot is not None:  # one file per variant: their folder is checked
        outs.append((f"{args.plot}-VARIANT.png", "--plot"))
    if cmd == "probe":
        outs += [(f"{args.plot}_{k}.png", "--plot") for k in ("latency", "bandwidth") if args.plot is not None]
        outs += [(f"{args.csv_out}_{k}.csv", "--csv") for k in ("latency", "bandwidth") if args.csv_out is not None]
    if cmd == "export":
        outs.append((args.output, "-o"))
    return outs


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output checked before the statistics run, so a mistyped path fails in a moment: none
    may be an input, and no two may be one file (the second would replace the first)."""
    inputs, seen = inputs_of(args), {}
    for path, label in _file_outputs(args):
        check_output_file(path, label, inputs)
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{label} {path}: the same file as {seen[key]}; give each output its own name")
        seen[key] = f"{label} {path}"
    if args.cmd == "report":
        check_output_folder(args.output, "-o")
    elif args.cmd in ("summarize", "diff") and args.report is not None:
        check_output_folder(args.report, "--report")


def main(argv: list[str] | None = None) -> int:
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # a file or variant name that is not UTF-8 is printed escaped, not a crash
        reconfigure(errors="backslashreplace")
    try:
        return _run(_parser().parse_args(argv))
    except (UsageError, ResultFileError, OutputError) as e:
        print(f"{PROG}: {one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:
        # The reader of stdout went away (| head): not an error of the analysis, and not 1, which
        # the gate uses for a regression; the shell's status for SIGPIPE. stdout now points to
        # /dev/null so that Python's flush at exit does not report the pipe a second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _load(files: list[str]) -> tuple[list[Run], list[str]]:
    """The files, with any variant name that ran different code in different files split into
    NAME@ID (analysis/identity.py), and a printed note per such name."""
    runs, notes = separate(load_runs(files))
    for n in notes:
        print(f"note: {n}")
    return runs, notes


def _run(args: argparse.Namespace) -> int:
    if args.cmd == "export":
        return _export(args)
    if args.cmd == "diff":
        return _diff(args)
    if args.cmd == "classes":
        return _classes(args)
    if args.cmd == "sweep":
        return _sweep(args)
    if args.cmd == "callsites":
        return _callsites(args)
    if args.cmd == "probe":
        return _probe(args)
    if args.cmd == "pressure":
        return _pressure(args)
    if args.cmd == "threads":
        return _threads(args)
    if args.cmd == "history":
        return _history(args)
    if args.cmd == "ab":
        return _ab(args)
    _check_options(args)
    _check_outputs(args)
    runs, code_notes = _load(args.files)
    try:
        # the secondary statistics only where a table shows them (compare, report)
        secondary = args.cmd in ("compare", "report") or (args.cmd == "summarize" and args.report is not None)
        comps = compare_runs(runs, args.baseline, level=args.level, margin=args.margin / 100, adjust=args.adjust,
                             resamples=args.resamples, seed=args.seed,
                             allow_single_process=args.allow_single_process, secondary=secondary)
    except ValueError as e:  # a baseline or variant the files do not have
        raise UsageError(str(e)) from e
    if args.cmd == "summarize":
        for run in (r for r in runs if is_sweep(r)):
            print(f"\n== size sweep: {run.function}, {describe(run)}")
            print("\n".join(plain(x) for x in context_lines(run, args.quiet)))
            print(sweep_table(sweep_points(run, args.baseline, args.level, args.margin / 100)))
        for run in (r for r in runs if not is_sweep(r)):
            print(f"\n== {run.function} on {run.distribution}")
            print("\n".join(plain(x) for x in context_lines(run, args.quiet)))
            print()
            print(_fmt_table(summarize_run(run, args.resamples, args.seed, args.level)))
            if has_counters(run):
                print(f"\nhardware counters ({counters_source(run)}), per call, median over batches "
                      "(with -v noop in the run, its row is the loop's own share):")
                print(_fmt_table(counter_summary(run)))
            if is_threaded(run):
                print(f"\nthreads (details: {command_name()} threads {run.path}); "
                      + "\n".join(_interference_lines(run, args.level, ratios=False)))
        rotating = any(r.doc["config"].get("code_rotation") == "round" for r in runs)
        print("\n== verdicts (ratio: per process, the median over rounds of variant time / baseline time"
              + (", the median over blocks of 8 rounds (every code placement once) of each block's mean" if rotating else "")
              + "; over processes, their mean in log space; below 1: faster)")
        print("\n".join(plain(x) for x in verdict_lines(comps)) or "(no comparisons)")
        print(f"\nmargin ±{args.margin:g} %, {args.adjust} adjustment over {len(comps)} comparisons, "
              f"intervals at {args.level:.0%} (simultaneous: Bonferroni)")
        for run in (r for r in runs if r.doc.get("by_class")):
            print(f"\n== where the time goes: {run.function} on {run.distribution} by size class "
                  f"(details: {command_name()} classes {run.path})")
            try:
                for dec in decompose_run(run, args.baseline, args.level, args.margin / 100):
                    print("\n".join(decomposition_lines(dec)))
            except ValueError as e:
                print(f"(no decomposition: {e})")
        if args.report is not None:
            md, html = write_report(runs, comps, Path(args.report), "--report", args.quiet, notes=code_notes)
            print(f"report: {html} (and {md.name})")
    elif args.cmd == "compare":
        if comps:
            print(_fmt_table(comparisons_frame(comps)[COMPARISON_COLUMNS]))
            print()
            print("\n".join(plain(x) for x in verdict_lines(comps)))
        else:
            print("(no comparisons: every variant besides the baseline is the harness's noop)")
        if args.json_out is not None:
            write_text_atomic(args.json_out, json_text([x.as_dict() for x in comps]), "--json", inputs_of(args))
    elif args.cmd == "gate":
        doc = verdict_document(comps, args.files, args.baseline, args.fail_if_slower / 100, args.level, args.adjust)
        path, label = _verdict_target(args)
        write_atomic(path, doc, label, inputs_of(args))
        for row in doc["comparisons"]:
            print(f"{row['gate']:>24}: {row['variant']} vs {row['baseline']} on {row['distribution']}: ratio "
                  f"{row['ratio']:.4f}, simultaneous CI [{row['ci_adj_low']:.4f}, {row['ci_adj_high']:.4f}]")
        print(f"gate {'FAILED' if doc['failed'] else 'passed'} (fail if slower by more than {args.fail_if_slower:g} %); "
              f"verdict: {path}")
        return 1 if doc["failed"] else 0
    else:
        probe_doc = read_probe(args.probe) if args.probe else None
        for run in (r for r in runs if probe_doc is not None and is_sweep(r)):
            try:
                check_reference(probe_doc, run.function, args.probe)
            except ValueError as e:
                raise UsageError(str(e)) from e
        md, html = write_report(runs, comps, Path(args.output), "-o", args.quiet, args.svg, probe_doc, args.probe,
                                code_notes)
        print(f"wrote {md} and {html}")
    return 0


def _diff(args: argparse.Namespace) -> int:
    if args.files and (args.before or args.after):
        raise UsageError("diff: give BEFORE AFTER, or --before and --after, not both")
    if args.files:
        if len(args.files) != 2:
            raise UsageError(f"diff: {len(args.files)} files given: BEFORE AFTER (or --before F... --after F...)")
        before, after = [args.files[0]], [args.files[1]]
    elif args.before and args.after:
        before, after = args.before, args.after
    else:
        raise UsageError("diff: needs BEFORE AFTER, or both --before and --after")
    _check_margin_level(args)
    gate = args.fail_if_slower
    if gate is not None and not (math.isfinite(gate) and gate >= 0):
        raise UsageError(f"--fail-if-slower {gate:g}: must be a finite, non-negative percentage")
    _check_outputs(args)
    runs = load_runs(before + after)
    rb, ra = runs[:len(before)], runs[len(before):]
    # a code change between the sides is what a diff measures; within a side, it is kept apart
    code = code_changes(rb, ra)
    (rb, notes_b), (ra, notes_a) = separate(rb), separate(ra)
    changed = context_differences(rb, ra)
    different = incomparable(changed)
    if different and not args.force:
        raise UsageError(f"diff: the two sides measure different things ({'; '.join(different)}): a verdict would "
                         f"be about what was asked, not about the code; --force compares them anyway")
    try:
        shifts = diff_runs(rb, ra, args.normalize, args.variant or None, args.level, args.margin / 100)
    except ValueError as e:  # a variant or baseline not on both sides
        raise UsageError(str(e)) from e
    print(f"== before/after: {rb[0].function} on {rb[0].distribution}; {len(rb)} -> {len(ra)} file(s)")
    for line in changed:
        print(f"{PROG}: warning: the contexts differ: {line}", file=sys.stderr)
    notes = [f"warning: the contexts differ: {line}" for line in changed]
    for side, lines in (("before", notes_b), ("after", notes_a)):
        for line in lines:
            print(f"note: {side}: {line}")
            notes.append(f"note: {side}: {line}")
    for line in code:
        print(f"note: code changed: {line}")
        notes.append(f"note: code changed: {line}")
    for model in unmatched_models(rb, ra):
        print(f"note: not compared, a CPU model on one side only: {model}")
        notes.append(f"note: not compared, a CPU model on one side only: {model}")
    print("\n".join(shift_line(s) for s in shifts))
    fewest = min((min(s.before_processes, s.after_processes) for s in shifts), default=0)
    for line in unresolved_hint(shifts, args.normalize, fewest):
        print(f"note: {line}")
        notes.append(f"note: {line}")
    print(f"\nmargin ±{args.margin:g} %, Holm adjustment over {len(shifts)} variants, intervals at {args.level:.0%} "
          f"(simultaneous: Bonferroni), Welch t on each side's error over its processes (the code placement model "
          f"where the files placed code)")
    rows = [s.as_dict() for s in shifts]
    if gate is not None:
        for row in rows:
            row["gate"] = status_of(row["verdict"], row["p_adjusted"], row["ci_adj_low"], gate / 100, 1 - args.level)
        failed = [r["variant"] for r in rows if r["gate"] == "regression"]
        print(f"gate {'FAILED' if failed else 'passed'} (fail if after is slower than before by more than {gate:g} %)"
              + (f": {', '.join(failed)}" if failed else ""))
    if args.json_out is not None:
        doc = {"schema": "memfbench-diff", "schema_version": 1, "before": before, "after": after,
               "normalized_by": args.normalize, "fail_if_slower_percent": gate, "level": args.level,
               "failed": gate is not None and any(r["gate"] == "regression" for r in rows),
               "context_differences": changed, "code_changes": code, "shifts": rows}
        write_text_atomic(args.json_out, json_text(doc), "--json", inputs_of(args))
    if args.report is not None:
        md, html = write_diff_report(rb, ra, shifts, notes, Path(args.report), "--report", args.margin / 100)
        print(f"wrote {md} and {html}")
    return 1 if gate is not None and any(r["gate"] == "regression" for r in rows) else 0


def _check_margin_level(args: argparse.Namespace) -> None:
    if not (math.isfinite(args.margin) and args.margin >= 0):
        raise UsageError(f"--margin {args.margin:g}: must be a finite, non-negative percentage")
    _check_level(args.level)


def _check_level(level: float) -> None:
    if not 0.5 <= level < 1:  # also refuses nan
        raise UsageError(f"--level {level:g}: must be in [0.5, 1)")


def _classes(args: argparse.Namespace) -> int:
    _check_margin_level(args)
    _check_outputs(args)
    run = load_run(args.file)
    try:
        decs = ([decompose(run, v, args.baseline, args.level, args.margin / 100) for v in args.variant]
                if args.variant else decompose_run(run, args.baseline, args.level, args.margin / 100))
    except ValueError as e:
        raise UsageError(str(e)) from e
    for dec in decs:
        print("\n".join(decomposition_lines(dec)) + "\n")
    print("class: the whole distribution's share of calls (calls %) x the per-call difference within the class; "
          "residual: the whole difference less the classes' sum (what timing the classes apart misses: "
          "predictors and caches mixing sizes); ratios paired by round, Holm over the classes")
    if args.csv_out is not None:
        import pandas as pd
        rows = [row for dec in decs for row in dec.rows()]
        write_text_atomic(args.csv_out, pd.DataFrame(rows).to_csv(index=False), "--csv", inputs_of(args))
    return 0


def _sweep(args: argparse.Namespace) -> int:
    _check_margin_level(args)
    _check_outputs(args)
    inputs = inputs_of(args)
    probe_doc = read_probe(args.probe) if args.probe else None
    run = load_run(args.file)
    try:
        points = sweep_points(run, args.baseline, args.level, args.margin / 100)
        if probe_doc is not None:
            check_reference(probe_doc, run.function, args.probe)
    except ValueError as e:
        raise UsageError(str(e)) from e
    print(f"== size sweep: {run.function}, {describe(run)}")
    print(sweep_table(points))
    print("ns: per process the median over its rounds, then the mean over processes (log scale); x ratio to "
          f"{points[0].variant} in the same rounds with its {args.level:.0%} interval, Holm over the sizes")
    if args.csv_out is not None:
        import pandas as pd
        write_text_atomic(args.csv_out, pd.DataFrame(sweep_rows(points)).to_csv(index=False), "--csv", inputs)
    if args.plot is not None:
        from . import plots
        fig = plots.sweep(run, points, probe_doc=probe_doc)
        write_bytes_atomic(f"{args.plot}.png", _png(fig), "--plot", inputs)
    if probe_doc is not None:
        roof = roofline(points, run.doc, run.function, probe_doc)
        print(f"\n== against the memory system (probe {args.probe})")
        print(roofline_table(roof, run.function))
        print("\n".join(roofline_sentences(roof, run.function)))
    return 0


def _pressure(args: argparse.Namespace) -> int:
    _check_margin_level(args)
    _check_outputs(args)
    runs, _ = _load(args.files)
    try:
        df = pressure_frame(runs, args.baseline, args.level, args.margin / 100)
    except ValueError as e:
        raise UsageError(str(e)) from e
    if df.empty:
        raise UsageError("no comparisons: each file needs a baseline and another variant besides the noop")
    print("== ratio to the baseline against instruction-cache pressure (one file per size; the block runs "
          "after every call, inside the timed loop)")
    cols = ["pressure_bytes", "variant", "code_size", "ratio", "ci_low", "ci_high", "diff_ns", "diff_low", "diff_high",
            "verdict", "block_ns"]
    print(_fmt_table(df[cols]))
    print("diff_ns: variant minus baseline in ns per call, paired round by round (the block cancels; the ratio "
          "is diluted by it); code_size: bytes of the variant's function (null: not known)")
    if args.plot is not None:
        from . import plots
        write_bytes_atomic(f"{args.plot}.png", _png(plots.pressure(df)), "--plot", inputs_of(args))
    return 0


def _interference_lines(run: Run, level: float, ratios: bool = True) -> list[str]:
    """Thread 0's slowdown by the other threads and, with ratios, each variant's ratio to the
    baseline alone and together; one line saying why when the run timed nothing alone."""
    try:
        df = interference(run, level)
    except ValueError as e:
        return [f"interference: not measured ({e})"]
    lines = ["interference: thread 0 timed with every thread running / timed alone, paired by round; slowdown in %, "
             f"{level:.0%} {interval_method(run)}", _fmt_table(df[SLOWDOWN_COLUMNS])]
    compared = df[df["ratio_alone"].notna() | df["ratio_together"].notna()]
    if not ratios or compared.empty:
        return lines
    base = str(compared["baseline"].iloc[0])
    return lines + ["", f"== ratio to {base} within a round, alone and together (below 1: faster); change_pct: "
                        f"the paired change from alone to together, in % (its interval excluding 0: the comparison "
                        f"with {base} is not the same under the other threads' load)",
                    _fmt_table(compared[RATIO_COLUMNS])]


def _one_thread_lines(run: Run, solo: list[Run], level: float) -> list[str]:
    """Thread 0's time per call beside the other threads against the same study run with one
    thread: analysis diff's shift (per process the median, Welch t over processes), with what
    else differs between the files."""
    try:
        shifts = diff_runs(solo, [run], level=level)
    except ValueError as e:
        return [f"against one thread: not compared ({e})"]
    others = [d for d in context_differences(solo, [run]) if not d.startswith("timing threads")]
    return ([f"against the one-thread run ({', '.join(r.path for r in solo)}): thread 0 beside the others / one "
             f"thread alone in its process, {level:.0%} Welch t over processes (runs at different times: drift "
             "between them is in it)"] + [f"warning: the contexts also differ: {d}" for d in others] +
            [shift_line(s) for s in shifts])


def _ab(args: argparse.Namespace) -> int:
    from .ab import ab_line, class_lines, compare_ab, predict_ab, prediction_line, read_ab
    _check_margin_level(args)
    _check_outputs(args)
    doc = read_ab(args.file)
    comps = compare_ab(doc, args.level, args.margin / 100)
    prog = doc["program"]
    print(f"== {' '.join(prog['argv'])}: {doc['config']['function']} routed by the shim; "
          f"{doc['config']['runs']} blocks of {len(doc['arms'])} runs (one per arm, order drawn per block), "
          f"pinned to CPU {doc['config']['cpu']}")
    print("\n".join(plain(ab_line(c, args.level, args.margin / 100)) for c in comps))
    print(f"\nratio: mean over blocks of ln(time / baseline's time in the same block), exponentiated; t interval; "
          f"margin ±{args.margin:g} %, Holm over each measure's comparisons")
    preds = predict_ab(doc, args.level)
    if preds:
        pr = doc["prediction"]
        replays = pr["replay"] + (f" and {pr['trace_replay']}" if pr.get("trace_replay") else "")
        print(f"\n== predicted from the replay of {pr['recording']} ({replays}) and measured, wall time:")
        for p in preds:
            print("\n".join([plain(prediction_line(p, args.level))] + class_lines(p)))
    if args.json_out is not None:
        write_text_atomic(args.json_out, json_text({"comparisons": [c.as_dict() for c in comps],
                                                    "predictions": [p.as_dict() for p in preds]}),
                          "--json", inputs_of(args))
    return 0


def _series_files(paths: list[str]) -> list[str]:
    """The files a history names: each file as given, each folder's *.json and *.json.gz (not the
    verdicts a gate writes beside them), sorted by name."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).iterdir() if f.is_file() and f.name.endswith((".json", ".json.gz"))
                           and not f.name.endswith((".verdict.json", ".verdict.json.gz")))
            if not found:
                raise UsageError(f"{p}: a folder with no result file (*.json, *.json.gz)")
            out += found
        else:
            out.append(p)
    return out


def _history(args: argparse.Namespace) -> int:
    from . import history as hist
    _check_level(args.level)
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha:g}: must be between 0 and 1")
    if not 99 <= args.permutations <= 99999:
        raise UsageError(f"--permutations {args.permutations}: must be from 99 to 99999")
    if args.min_size < 2:
        raise UsageError(f"--min-size {args.min_size}: must be at least 2")
    if args.seed < 0:
        raise UsageError(f"--seed {args.seed}: must be non-negative")
    files = _series_files(args.files)
    _check_outputs(args)
    runs = load_runs(files)  # by name: a code change along the series is what it is about
    groups: dict[tuple[str, str, str, str], list[Run]] = {}
    for r in runs:
        if r.doc.get("sweep"):
            raise UsageError(f"{r.path}: a size sweep; a history follows replays of one distribution")
        groups.setdefault(hist.series_key(r), []).append(r)
    docs: list[dict] = []
    all_changes: list = []
    for (cpu, measure, function, distribution), rs in groups.items():
        try:
            rs, how = hist.ordered(rs, args.order)
            points = hist.points_frame(rs, args.baseline, args.level)
        except ValueError as e:
            raise UsageError(str(e)) from e
        if args.variant:
            missing = [v for v in args.variant if v not in set(points["variant"])]
            if missing:
                raise UsageError(f"--variant {missing[0]}: not compared in the series of {function} on {distribution}")
            points = points[points["variant"].isin(args.variant)]
        changes = hist.detect(points, args.min_size, args.alpha, args.permutations, args.seed, args.level)
        codes = hist.code_changes(points)
        print(f"\n== history: {function} on {distribution} [{cpu}{', latency' if measure == 'latency' else ''}], "
              f"{len(rs)} files, ordered {how}")
        for variant, g in points.groupby("variant", sort=False, observed=True):
            print(f"\n{variant} vs {g['baseline'].iloc[0]}: ratio, {args.level:.0%} CI over each file's processes")
            shown = g[["position", "label", "ratio", "ci_low", "ci_high", "processes", "code"]].copy()
            shown["file"] = [Path(f).name for f in g["file"]]
            shown["code"] = shown["code"].str[:6]
            print(_fmt_table(shown))
        print(f"\nchange points (e-divisive means; permutation test at {args.alpha:g} per split, "
              f"{args.permutations} permutations, at least {args.min_size} files a side; change: the mean of the "
              f"segment after / before, Welch t):")
        print("\n".join(hist.change_line(c, args.level) for c in changes) or "(none)")
        for _, c in codes.iterrows():
            print(f"note: code changed at #{c['position']}: {c['whose']} {c['from']} -> {c['to']}")
        all_changes += [{**c.as_dict(), "cpu_model": cpu, "measure": measure, "function": function,
                         "distribution": distribution} for c in changes]
        docs.append({"cpu_model": cpu, "measure": measure, "function": function, "distribution": distribution,
                     "order": how, "points": points.to_dict("records"), "code_changes": codes.to_dict("records"),
                     "changes": [c.as_dict() for c in changes]})
        if args.plot is not None:
            from . import plots
            for variant in dict.fromkeys(points["variant"]):
                safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(variant))
                suffix = f"-{safe}" + (f"-{len(docs) - 1}" if len(groups) > 1 else "")
                fig = plots.history(points, str(variant), changes, codes, args.level)
                write_bytes_atomic(f"{args.plot}{suffix}.png", _png(fig), "--plot", inputs_of(args))
                print(f"plot: {args.plot}{suffix}.png")
    if args.csv_out is not None:
        import pandas as pd
        cols = ["cpu_model", "function", "distribution", "variant", "position", "before_label", "after_label",
                "before_file", "after_file", "before", "after", "change", "low", "high", "p_value", "points_before",
                "points_after", "code_changed"]
        write_text_atomic(args.csv_out, pd.DataFrame(all_changes, columns=cols).to_csv(index=False), "--csv",
                          inputs_of(args))
    if args.json_out is not None:
        doc = {"schema": "memfbench-history", "schema_version": 1, "method": "e-divisive means, permutation test",
               "alpha": args.alpha, "permutations": args.permutations, "min_size": args.min_size, "seed": args.seed,
               "level": args.level, "files": files, "series": docs}
        write_text_atomic(args.json_out, json_text(doc), "--json", inputs_of(args))
    return 0


def _threads(args: argparse.Namespace) -> int:
    _check_level(args.level)
    if args.plot is not None:
        if len(args.files) != 1:
            raise UsageError(f"--plot: draws one file, {len(args.files)} given")
    _check_outputs(args)
    runs, _ = _load(args.files + args.one_thread)
    runs, solo = runs[:len(args.files)], runs[len(args.files):]
    for run in runs:  # every file checked before anything is printed
        if not is_threaded(run):
            raise UsageError(f"{run.path}: not a threaded run: it timed one thread (memfbench run --threads N "
                             "--cpus LIST makes one)")
    for run in solo:
        if is_threaded(run) or run.neighbours:
            raise UsageError(f"--one-thread: {run.path} is not a one-thread run without a stressor "
                             f"({run.neighbours})")
    for i, run in enumerate(runs):
        if i:
            print()
        print(f"== threads: {run.function} on {run.distribution} ({run.path})")
        print(plain(threads_line(run)))
        print(plain(background_line(run) or "- background: none"))
        print(_fmt_table(topology_frame(run)))
        summary = thread_summary(run, args.level)
        print(f"\n== per thread: measured batches timed with every thread running, median ns/call with its "
              f"{args.level:.0%} bootstrap interval; all: every thread's batches pooled, bytes/ns summed (what the "
              "threads sustain together)")
        print(_fmt_table(summary) if len(summary) else "(no batches of the whole distribution)")
        print("\n== " + "\n".join(_interference_lines(run, args.level)))
        if solo:
            print("\n== " + "\n".join(_one_thread_lines(run, solo, args.level)))
    print("\nthe verdicts of compare/summarize are about thread 0's batches timed with every thread running")
    if args.plot is not None:
        from . import plots
        write_bytes_atomic(args.plot, _png(plots.threads(runs[0], args.level)), "--plot", inputs_of(args))
    return 0


def _probe(args: argparse.Namespace) -> int:
    _check_outputs(args)
    doc = read_probe(args.file)
    print(f"== memory system: {args.file}")
    print("\n".join(plain(x) for x in probe_context_lines(doc)))
    if doc.get("latency"):
        print("\n== cache levels found in the latency curve "
              f"({doc['latency']['levels']['pattern'] + ' chain, ' + doc['latency']['levels']['pages'] + ' pages' if doc['latency']['levels'] else 'none'})")
        print(levels_table(doc))
    if doc.get("bandwidth"):
        print(f"\n== bandwidth, GB/s ({doc['bandwidth']['unit']})")
        print(bandwidth_table(doc))
    if args.csv_out is not None:
        write_text_atomic(f"{args.csv_out}_latency.csv", latency_frame(doc).to_csv(index=False), "--csv", inputs_of(args))
        write_text_atomic(f"{args.csv_out}_bandwidth.csv", bandwidth_frame(doc).to_csv(index=False), "--csv",
                          inputs_of(args))
    if args.plot is not None:
        from . import plots
        if doc.get("latency"):
            write_bytes_atomic(f"{args.plot}_latency.png", _png(plots.probe_latency(doc)), "--plot", inputs_of(args))
        if doc.get("bandwidth"):
            write_bytes_atomic(f"{args.plot}_bandwidth.png", _png(plots.probe_bandwidth(doc)), "--plot", inputs_of(args))
    return 0


def _png(fig) -> bytes:
    import io
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, bbox_inches="tight")
    return buf.getvalue()


def _callsites(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise UsageError(f"--top {args.top}: must be at least 1")
    df = read_callsites(args.folder)
    cols = ["function", "caller", "calls", "calls_pct", "bytes", "bytes_pct"]
    for by in ("bytes", "calls"):
        print(f"== top {args.top} call sites by {by} (% of the function's traced {by})")
        print(_fmt_table(top(df, by, args.top)[cols]))
        print()
    print("callers as symbol+offset@object, or object+offset (addr2line -f -e OBJECT OFFSET names those when the "
          "object has debug information)")
    return 0


def _export(args: argparse.Namespace) -> int:
    _check_outputs(args)
    run = load_run(args.file)
    if args.format == "gbench":
        to_gbench_file(run, args.output, "-o")
    else:
        to_csv(run, args.output, "-o")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the subcommands share: the error a bad option raises, the options several of them take and
their checks, the rule that no output replaces an input or another output (checked before any
statistic runs), and result files loaded with each variant's code kept apart."""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Callable, Iterable

from ..io.files import check_output_file, check_output_folder
from ..io.identity import separate
from ..io.load import Run, load_run, load_runs
from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MAX_RESAMPLES
from ..verdicts.compare import Comparison, compare_runs


# What every error and warning line on stderr starts with: "analysis: ...".
PROG = "analysis"


class UsageError(Exception):
    """An option value the analysis cannot use; the message names the option."""


def command_name() -> str:
    """How this command is invoked, for its usage line and the commands it suggests: `memfbench
    analyze` sets MEMFBENCH_ANALYZE_PROG when it runs the package; run directly, the interpreter."""
    return os.environ.get("MEMFBENCH_ANALYZE_PROG") or f"{sys.executable or 'python3'} -m analysis"


def seed_arg(text: str) -> int:
    """A seed as memfbench writes and reads one (base/parse.h): decimal without a leading zero, or
    hexadecimal with 0x, below 2^64. A leading zero is refused, not read as decimal: a seed copied
    into a tool that reads 010 as octal would be another seed under the same text."""
    # the forms spelled out: int() would also take '0x_1', '1_0', ' 5 ' and other scripts' digits
    if not re.fullmatch(r"0[xX][0-9a-fA-F]+|0|[1-9][0-9]*", text) or int(text, 0) >= 2 ** 64:
        raise argparse.ArgumentTypeError(f"'{text}' is not a seed (decimal without a leading zero, or hex with 0x)")
    return int(text, 0)


def study_options(p: argparse.ArgumentParser) -> None:
    """The options of the subcommands that compare the variants of a study (summarize, compare,
    report, gate): its files, the verdicts' rule, the bootstrap and the warnings shown."""
    p.add_argument("files", nargs="+", help="memfbench result files (JSON)")
    p.add_argument("--baseline", help="variant to compare against (default: each run's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--adjust", choices=["holm", "bh", "none"], default="holm",
                   help="multiplicity adjustment across all comparisons (default holm)")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}, 1000 to {MAX_RESAMPLES})")
    p.add_argument("--seed", type=seed_arg, default=DEFAULT_SEED, help="bootstrap seed (non-negative)")
    p.add_argument("--quiet-warnings", default=os.environ.get("MEMFBENCH_QUIET_WARNINGS", ""), metavar="CODES",
                   help="hide warnings and notes of these codes (comma-separated, or 'all'; default "
                        "$MEMFBENCH_QUIET_WARNINGS); codes the run silenced are hidden too, and one line names them")
    p.add_argument("--allow-single-process", action="store_true",
                   help="give faster/slower verdicts from one process (its interval covers that process only)")


def detail_option(p: argparse.ArgumentParser,
                  figures: str = "intervals, prediction, layout noise, net of the harness, adjusted p, rounds, "
                                 "processes needed") -> None:
    """--detail: every figure of each verdict (the long lines) after the headline."""
    p.add_argument("--detail", action="store_true",
                   help=f"also print every figure of each verdict ({figures}), one long line per variant")


# The headline's last line without --detail: how to see every figure.
DETAIL_HINT = "all figures of each verdict (prediction, layout noise, net, p, rounds): --detail"


def verdict_options(p: argparse.ArgumentParser, each_run: bool = False, baseline: bool = True) -> None:
    """--baseline, --margin and --level, as every comparing subcommand takes them (ab's baseline is
    its libc arm, always: no --baseline there)."""
    if baseline:
        p.add_argument("--baseline", help="variant to compare against (default: "
                                          f"{'each' if each_run else 'the'} run's first variant)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")


def check_level(level: float) -> None:
    if not 0.5 <= level < 1:  # also refuses nan
        raise UsageError(f"--level {level:g}: must be in [0.5, 1)")


def check_margin_level(args: argparse.Namespace) -> None:
    if not (math.isfinite(args.margin) and args.margin >= 0):
        raise UsageError(f"--margin {args.margin:g}: must be a finite, non-negative percentage")
    check_level(args.level)


def check_threshold(value: float) -> None:
    """--fail-if-slower P: a finite, non-negative percentage."""
    if not (math.isfinite(value) and value >= 0):
        raise UsageError(f"--fail-if-slower {value:g}: must be a finite, non-negative percentage")


def check_study_options(args: argparse.Namespace) -> None:
    """Raises UsageError for study_options values the statistics cannot use (argparse reads "nan",
    "inf" and "1e999" as floats, and numpy refuses negative seeds deep inside a bootstrap); sets
    args.quiet, the warning codes to hide."""
    check_margin_level(args)
    if not 1000 <= args.resamples <= MAX_RESAMPLES:
        raise UsageError(f"--resamples {args.resamples}: must be from 1000 to {MAX_RESAMPLES}")
    if args.baseline == "":
        raise UsageError("--baseline: empty variant name")
    codes = [c.strip() for c in args.quiet_warnings.split(",")] if args.quiet_warnings else []
    if any(not c for c in codes):
        raise UsageError(f"--quiet-warnings '{args.quiet_warnings}': an empty code (give CODE[,CODE...] or all)")
    args.quiet = frozenset(codes)


# The arguments that name what a subcommand reads. inputs_of gathers them: the one list every
# output of every subcommand is checked against, so none replaces a file it reads.
INPUT_ARGUMENTS = ("files", "before", "after", "history", "one_thread", "file", "folder", "probe", "pressure", "threads_file",
                   "counts_file", "pgo_file")


def inputs_of(args: argparse.Namespace) -> list[str]:
    """Every file or folder the subcommand of `args` reads."""
    found: list[str] = []
    for name in INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        if value is not None:
            found.extend(value if isinstance(value, list) else [value])
    return found


def check_outputs(args: argparse.Namespace, files: Iterable[tuple[str, str]] = (),
                  folder: tuple[str, str] | None = None) -> None:
    """Every output checked before the statistics run, so a mistyped path fails in a moment: the
    files (path, the option that names it) and the folder a subcommand writes; none may be an
    input, and no two files may be one (the second would replace the first)."""
    inputs, seen = inputs_of(args), {}
    for path, label in files:
        check_output_file(path, label, inputs)
        key = os.path.realpath(path)
        if key in seen:
            raise UsageError(f"{label} {path}: the same file as {seen[key]}; give each output its own name")
        seen[key] = f"{label} {path}"
    if folder is not None:
        check_output_folder(*folder)


def load(files: list[str], expected: Callable[[str], bool] = lambda note: False) -> tuple[list[Run], list[str]]:
    """The files, with any variant name that ran different code in different files split into
    NAME@ID (io/identity.py), and a printed note per such name but those the caller expects."""
    runs, notes = separate(load_runs(files))
    for n in notes:
        if not expected(n):
            print(f"note: {n}")
    return runs, notes


def compare_study(args: argparse.Namespace, secondary: bool) -> tuple[list[Run], list[str], list[Comparison]]:
    """The runs of study_options' files, their notes and every comparison of their variants, the
    secondary statistics only where a table shows them."""
    runs, code_notes = load(args.files)
    try:
        comps = compare_runs(runs, args.baseline, level=args.level, margin=args.margin / 100, adjust=args.adjust,
                             resamples=args.resamples, seed=args.seed,
                             allow_single_process=args.allow_single_process, secondary=secondary)
    except ValueError as e:  # a baseline or variant the files do not have
        raise UsageError(str(e)) from e
    return runs, code_notes, comps


def png(fig) -> bytes:
    """A figure as PNG bytes, for the outputs written atomically (drawn once: plots.base.write_png)."""
    import io

    from ..views.plots.base import write_png
    buf = io.BytesIO()
    write_png(fig, buf)
    return buf.getvalue()


def suite_block(comps: list, level: float, margin: float) -> list[str]:
    """With comparisons of several studies (functions or tables): the suite's lines, each
    variant's geometric mean over the studies it ran in (verdicts/suite.py); none for one study."""
    from ..verdicts.suite import study_ratios, suite_headline, suite_lines
    studies = sorted({(c.function, c.distribution) for c in comps})
    lines = suite_lines(comps, level, margin) if len(studies) > 1 else []
    if not lines:
        return []
    order = {"faster": 0, "slower": 1, "equivalent": 2, "inconclusive": 3}
    return ["", f"== suite: geometric mean over {len(studies)} studies, {level * 100:g} % interval from theirs",
            *(y for x in sorted(lines, key=lambda x: (order[x.verdict], x.geomean))
              for y in [suite_headline(x), *study_ratios(x)])]


def metric_options(p: argparse.ArgumentParser) -> None:
    """The files the columns beyond the time come from (variants and report take them)."""
    p.add_argument("--pressure", action="append", metavar="FILE", default=[],
                   help="a run of the same study with --icache-pressure SIZE (repeat for more sizes): the i-cache "
                        "pressure slope (the run itself is size 0)")
    p.add_argument("--threads", dest="threads_file", metavar="FILE",
                   help="a run of the same function with --threads 2 --cpus A,B: the slowdown beside a second thread")
    p.add_argument("--counts", dest="counts_file", metavar="FILE",
                   help="a memfbench counts file: code size with callees (its code_bytes), where it has them")
    p.add_argument("--pgo", dest="pgo_file", metavar="FILE",
                   help="a run with --pgo: the PGO gain of its pairs (default: the run's own NAME-pgo pairs)")


def metric_tables(runs: list[Run], args: argparse.Namespace, level: float, match: bool = False,
                  made: list | None = None) -> list:
    """The seed-000 table (verdicts/variants.py) of each run of a distribution (a sweep has none),
    the option files of metric_options read once, each with its own names (a variant of them is
    matched to the run's by name; one that ran other code is said so beside its column). match
    (the report, of several runs): each run gets the option files of its function (and, for
    --pressure, its distribution), and a file that fits none of the runs is refused; without it a
    file that does not fit the run is refused. made: comparisons already made, whose ratios the
    tables reuse (compare.time_ratios)."""
    from ..io.counts_file import read_counts
    from ..verdicts.variants import InputError, variants_table
    counts = read_counts(args.counts_file) if args.counts_file else None
    pressure = load_runs(args.pressure) if args.pressure else []
    threaded = [load_run(args.threads_file)] if args.threads_file else []
    pgo = [load_run(args.pgo_file)] if args.pgo_file else []
    studies = [r for r in runs if not r.doc.get("sweep")]
    used: set[str] = set()

    def fits(r: Run, files: list[Run], distribution: bool = False) -> list[Run]:
        if not match:
            return files
        out = [f for f in files if f.function == r.function and (not distribution or f.distribution == r.distribution)]
        used.update(f.path for f in out)
        return out

    tables = []
    try:
        for r in studies:
            c = counts if counts is None or not match or counts["function"] == r.function else None
            if c is not None and match:
                used.add(str(args.counts_file))
            th = fits(r, threaded)
            tables.append(variants_table(r, fits(r, pressure, True), th[0] if th else None, c, args.counts_file,
                                         fits(r, pgo), level, getattr(args, "baseline", None), made))
    except InputError as e:
        raise UsageError(str(e)) from e
    if match:
        for option, files in (("--pressure", pressure), ("--threads", threaded), ("--pgo", pgo)):
            for f in files:
                if f.path not in used:
                    raise UsageError(f"{option} {f.path}: {f.function} on {f.distribution} fits none of the runs "
                                     "of the report (same function; --pressure: same distribution too)")
        if counts is not None and str(args.counts_file) not in used:
            raise UsageError(f"--counts {args.counts_file}: counts of {counts['function']} fit none of the runs")
    return tables

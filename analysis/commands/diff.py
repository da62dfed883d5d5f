"""diff: before/after. Each variant against itself in two sets of result files (two builds, libc
versions, kernels, hosts), with a gate against a saved baseline (--fail-if-slower) and a report."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from ..io.files import json_text, write_text_atomic
from ..io.identity import code_changes, separate
from ..io.load import load_run, load_runs
from ..verdicts.diff import (context_differences, diff_runs, drift_sentences, incomparable, one_study_command,
                             shift_line, unmatched_models, unresolved_hint)
from ..verdicts.gate import status_of
from ..views.report import write_diff_report
from ..views.text import SHIFT_HINT, shift_headline_lines, wrapped
from .common import PROG, UsageError, check_margin_level, check_outputs, check_threshold, detail_option, inputs_of

# The one-study form where the files do not name their code as source or plugin files.
ONE_STUDY_FORM = "memfbench run -v libc -v OLD.c:SYMBOL=before -v NEW.c:SYMBOL=after"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("diff", help="before/after: each variant against itself in two sets of result files "
                                    "(two builds, libc versions, kernels, hosts)")
    p.add_argument("files", nargs="*", metavar="FILE", help="BEFORE AFTER (one file each), or use --before/--after")
    p.add_argument("--before", nargs="+", default=[], metavar="FILE", help="the 'before' result files")
    p.add_argument("--after", nargs="+", default=[], metavar="FILE", help="the 'after' result files")
    p.add_argument("--normalize", default="", metavar="V",
                   help="compare each variant's per-round ratio to V (timed in the same rounds) instead of its "
                        "absolute time: machine drift between the runs cancels; V's code must be the same on both "
                        "sides")
    p.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    p.add_argument("--margin", type=float, default=1.0, help="equivalence margin in percent (default 1)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
    p.add_argument("--fail-if-slower", type=float, metavar="P",
                   help="a gate against a saved baseline: exit 1 when a variant's after/before simultaneous "
                        "interval lies entirely above 1 + P %% (adjusted p below 1 - level)")
    p.add_argument("--json", dest="json_out", help="also write the shifts as JSON to this file")
    p.add_argument("--report", metavar="DIR", help="also write a before/after report (report.md and report.html "
                                                  "with the shifts drawn) into DIR")
    p.add_argument("--history", nargs="+", default=[], metavar="FILE|DIR",
                   help="earlier studies of this host (result files, or folders of them): each variant's drift "
                        "between studies is measured from them (at least 3 studies of it), not taken from the "
                        "validation's stated default")
    p.add_argument("--between-sd", type=float, metavar="P",
                   help="the drift of one study's value between studies on this host, in percent (0: the two sides "
                        "are not two studies apart); default: measured from --history, else the validation's "
                        "stated default for the CPU")
    detail_option(p, "95% and simultaneous intervals, each side's ns/call and processes, adjusted p, the drift "
                     "carried")
    p.add_argument("--force", action="store_true",
                   help="compare sides that differ in function, measure, distribution or placement")
    return p


def _sides(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The before and the after files, as BEFORE AFTER or as --before/--after."""
    if args.files and (args.before or args.after):
        raise UsageError("diff: give BEFORE AFTER, or --before and --after, not both")
    if args.files:
        if len(args.files) != 2:
            raise UsageError(f"diff: {len(args.files)} files given: BEFORE AFTER (or --before F... --after F...)")
        return [args.files[0]], [args.files[1]]
    if args.before and args.after:
        return args.before, args.after
    raise UsageError("diff: needs BEFORE AFTER, or both --before and --after")


def _history_files(paths: list[str]) -> list[str]:
    """The files --history names: each file as given, each folder's result files (as history reads
    a folder)."""
    from .history import _series_files
    return _series_files(paths) if paths else []


def run(args: argparse.Namespace) -> int:
    before, after = _sides(args)
    check_margin_level(args)
    gate = args.fail_if_slower
    if gate is not None:
        check_threshold(gate)
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [],
                  (args.report, "--report") if args.report is not None else None)
    if args.between_sd is not None and not (math.isfinite(args.between_sd) and args.between_sd >= 0):
        raise UsageError(f"--between-sd {args.between_sd:g}: must be a finite, non-negative percentage")
    history_files = _history_files(args.history)
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
        history = [load_run(f) for f in history_files] if history_files else None
        shifts = diff_runs(rb, ra, args.normalize, args.variant or None, args.level, args.margin / 100, history,
                           None if args.between_sd is None else args.between_sd / 100)
    except ValueError as e:  # a variant or baseline not on both sides
        raise UsageError(str(e)) from e
    for line in changed:
        print(f"{PROG}: warning: the contexts differ: {line}", file=sys.stderr)
    print("\n".join(shift_headline_lines(shifts, (len(rb), len(ra)))))
    notes = [f"warning: the contexts differ: {line}" for line in changed]
    for side, lines in (("before", notes_b), ("after", notes_a)):
        notes += [f"note: {side}: {line}" for line in lines]
    notes += [f"note: code changed: {line}" for line in code]
    notes += [f"note: not compared, a CPU model on one side only: {model}" for model in unmatched_models(rb, ra)]
    fewest = min((min(s.before_processes, s.after_processes) for s in shifts), default=0)
    notes += [f"note: {line}" for line in unresolved_hint(shifts, args.normalize, fewest) + drift_sentences(shifts)]
    command = one_study_command(rb, ra, shifts, args.normalize)
    drifted = any(s.between_sd > 0 for s in shifts)
    if drifted:
        notes.append("note: to compare two builds without the drift, run both as variants of one study (each round "
                     "times both, so the host's state cancels in their ratio): " + (command or ONE_STUDY_FORM))
    # each note wrapped to the headline's width; a command stays whole on a line of its own, to copy
    for line in notes[len(changed):]:
        head, _, tail = line.partition(": memfbench run ") if drifted else (line, "", "")
        print("\n".join(wrapped(head + (":" if tail else ""))) + (f"\n    memfbench run {tail}" if tail else ""))
    if args.detail:
        print()
        print("\n".join(shift_line(s) for s in shifts))
        print(f"\nmargin ±{args.margin:g} %, Holm adjustment over {len(shifts)} variants, intervals at "
              f"{args.level:.0%} (simultaneous: Bonferroni), Welch t on each side's error over its processes (the "
              "code placement model where the files placed code) and the drift between two studies")
    else:
        print(SHIFT_HINT)
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
               "history": history_files, "one_study_command": command,
               "failed": gate is not None and any(r["gate"] == "regression" for r in rows),
               "context_differences": changed, "code_changes": code, "shifts": rows}
        write_text_atomic(args.json_out, json_text(doc), "--json", inputs_of(args))
    if args.report is not None:
        md, html = write_diff_report(rb, ra, shifts, notes, Path(args.report), "--report", args.margin / 100)
        print(f"wrote {md} and {html}")
    return 1 if gate is not None and any(r["gate"] == "regression" for r in rows) else 0

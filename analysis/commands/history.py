"""history: results across commits. Each variant's ratio to the baseline over a series of files
(one per commit or build), its change points (e-divisive means) and where the code changed."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..io.files import json_text, write_bytes_atomic, write_text_atomic
from ..io.load import check_distinct, load_run
from ..io.reading import ResultFileError
from ..stats.bootstrap import DEFAULT_SEED
from ..verdicts import history as hist
from ..views.progress import Progress
from ..views.text import INDENT, WIDTH, table, wrapped
from .common import UsageError, check_level, check_outputs, inputs_of, png, seed_arg


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("history", help="results across commits: each variant's ratio to the baseline over a "
                                       "series of files, and its change points (e-divisive means)")
    p.add_argument("files", nargs="+", metavar="FILE|DIR",
                   help="result files, or folders of them (*.json, *.json.gz): one file per point of the series")
    p.add_argument("--order", choices=list(hist.ORDERS), default="",
                   help="label-time: by the commit time of each file's label (the default when every file has "
                        "one); created: by when each file was made (the default otherwise); given: as listed")
    p.add_argument("--baseline", help="variant to compare against (default: each file's first variant)")
    p.add_argument("--variant", action="append", default=[], metavar="V", help="only these variants (repeatable)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals (default 0.95)")
    p.add_argument("--alpha", type=float, default=hist.ALPHA,
                   help=f"significance of each split's permutation test (default {hist.ALPHA:g})")
    p.add_argument("--permutations", type=int, default=hist.PERMUTATIONS,
                   help=f"permutations per tested split (default {hist.PERMUTATIONS}, 99 to 99999)")
    p.add_argument("--min-size", type=int, default=hist.MIN_SIZE,
                   help=f"points needed on each side of a change (default {hist.MIN_SIZE})")
    p.add_argument("--seed", type=seed_arg, default=DEFAULT_SEED, help="permutation seed (non-negative)")
    p.add_argument("--csv", dest="csv_out", help="also write the detected changes as CSV to this file")
    p.add_argument("--json", dest="json_out", help="also write the series and the changes as JSON to this file")
    p.add_argument("--plot", metavar="STEM", help="also write STEM-VARIANT.png, one per variant")
    return p


def _series_files(paths: list[str]) -> list[str]:
    """The files a history names: each file as given, each folder's *.json and *.json.gz (not the
    verdicts a gate writes beside them, nor a history's own --json), sorted by name."""
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                found = sorted(str(f) for f in Path(p).iterdir() if f.is_file()
                               and f.name.endswith((".json", ".json.gz"))
                               and not f.name.endswith((".verdict.json", ".verdict.json.gz"))
                               and not (f.name.endswith(".json") and _is_own_output(f)))
            except OSError as e:
                raise UsageError(f"{p}: cannot read the folder: {e.strerror or e}") from e
            if not found:
                raise UsageError(f"{p}: a folder with no result file (*.json, *.json.gz)")
            out += found
        else:
            out.append(p)
    return out


def _none_found(n: int, args: argparse.Namespace) -> str:
    """No change: whether the series could have shown one at all."""
    strongest = hist.strongest_step_p(n, args.min_size, args.permutations, args.seed)
    if strongest < args.alpha:
        return "(none)"
    need = hist.points_needed(args.alpha, args.min_size, args.permutations, args.seed, start=n + 1)
    more = f"at least {need} files are needed" if need <= 64 else "no series of up to 64 files can show one"
    return (f"(none found, and none could be: with {n} files the strongest step gets p = {strongest:.3g}, not below "
            f"{args.alpha:g}; {more})")


def _is_own_output(path: Path) -> bool:
    """A JSON file a history wrote (--json into the folder it scans): not a point of the series."""
    try:
        with open(path, "rb") as f:
            return b'"memfbench-history"' in f.read(256)
    except OSError:
        return False


def _check_options(args: argparse.Namespace) -> None:
    check_level(args.level)
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha {args.alpha:g}: must be between 0 and 1")
    if not 99 <= args.permutations <= 99999:
        raise UsageError(f"--permutations {args.permutations}: must be from 99 to 99999")
    if args.min_size < 2:
        raise UsageError(f"--min-size {args.min_size}: must be at least 2")


def _file_point(path: str, args: argparse.Namespace) -> hist.FilePoint:
    """One file of the series read, refused if it cannot be a point, and reduced to its point (the
    file's document and batches are let go on return)."""
    run = load_run(path)  # by name: a code change along the series is what it is about
    if run.doc.get("sweep"):
        raise UsageError(f"{path}: a size sweep; a history follows replays of one distribution")
    try:
        return hist.file_point(run, args.baseline, args.level)
    except ResultFileError:
        raise
    except ValueError as e:
        raise UsageError(str(e)) from e


# The history headline's title: what its rows are.
GLANCE_TITLE = "at a glance: ratio to the baseline, first -> last file (below 1: faster)"


def glance_lines(rows: list[tuple[str, str, str, str]]) -> list[str]:
    """The history's headline: the title, then a row per variant, columns aligned, each within the
    headline's width (a row that would pass it puts its drift on the next line)."""
    w = [max(len(r[k]) for r in rows) for k in range(3)] if rows else [0, 0, 0]
    out = [GLANCE_TITLE]
    for name, ratios, what, sd in rows:
        line = f"{INDENT}{name:<{w[0]}}  {ratios:<{w[1]}}  {what:<{w[2]}}"
        if sd and len(line) + 2 + len(sd) <= WIDTH:
            out.append(f"{line}  {sd}")
        else:
            out += [x for x in wrapped(line.rstrip())] + ([INDENT * 2 + sd] if sd else [])
    return out


def run(args: argparse.Namespace) -> int:
    _check_options(args)
    files = _series_files(args.files)
    plots = None if args.plot is None else f"{args.plot}-VARIANT.png"  # one file per variant: their folder is checked
    # the outputs against every file the folders hold, not only the folders: --json DIR/r03.json
    # would otherwise replace a point of the series
    check_outputs(argparse.Namespace(**{**vars(args), "files": [*args.files, *files]}),
                  [(path, label) for path, label in ((args.json_out, "--json"), (args.csv_out, "--csv"),
                                                     (plots, "--plot")) if path is not None])
    check_distinct(files)
    # one file at a time, keeping only its point: a series of 10,000 files never holds their batches
    groups: dict[tuple[str, str, str, str], list[hist.FilePoint]] = {}
    progress = Progress("history", "file", len(files))
    for i, path in enumerate(files):
        progress.step(i)
        point = _file_point(path, args)
        groups.setdefault(point.key, []).append(point)
    progress.end()
    docs: list[dict] = []
    all_changes: list = []
    for (cpu, measure, function, distribution), rs in groups.items():
        try:
            rs, how = hist.ordered(rs, args.order)
        except ValueError as e:
            raise UsageError(str(e)) from e
        points = hist.points_of(rs)
        if points.empty:  # every file holds its baseline alone: nothing to follow
            raise UsageError(f"{rs[0].path}: no variant is compared with the baseline in the series of {function} on "
                             f"{distribution} (its {len(rs)} files hold the baseline alone)")
        if args.variant:
            missing = [v for v in args.variant if v not in set(points["variant"])]
            if missing:
                raise UsageError(f"--variant {missing[0]}: not compared in the series of {function} on {distribution}")
            points = points[points["variant"].isin(args.variant)]
        changes = hist.detect(points, args.min_size, args.alpha, args.permutations, args.seed, args.level)
        codes = hist.code_changes(points)
        drifts = hist.drift(points, changes)
        print()
        print("\n".join(wrapped(f"== history: {function} on {distribution} [{cpu}"
                                f"{', latency' if measure == 'latency' else ''}], {len(rs)} files, ordered {how}")))
        print("\n".join(glance_lines(hist.glance_rows(points, changes, drifts))))
        for variant, g in points.groupby("variant", sort=False, observed=True):
            print(f"\n{variant} vs {g['baseline'].iloc[0]}: ratio, {args.level:.0%} CI over each file's processes")
            shown = g[["position", "label", "ratio", "ci_low", "ci_high", "processes", "code"]].copy()
            shown["file"] = [Path(f).name for f in g["file"]]
            shown["code"] = shown["code"].str[:6]
            print(table(shown))
        said = [f"change points (e-divisive means; permutation test at {args.alpha:g} per split, {args.permutations} "
                f"permutations, at least {args.min_size} files a side; change: the mean of the segment after / "
                f"before, Welch t):"]
        said += [hist.change_line(c, args.level) for c in changes] or [_none_found(len(rs), args)]
        said += [f"note: code changed at #{c['position']}: {c['whose']} {c['from']} -> {c['to']}"
                 for _, c in codes.iterrows()]
        print()
        print("\n".join(x for line in said for x in wrapped(line)))
        print("\nbetween studies (this host's drift, beyond each study's own interval):")
        print("\n".join(x for line in [*(hist.drift_line(d) for d in drifts), hist.DRIFT_MEANING]
                        for x in wrapped(line)))
        all_changes += [{**c.as_dict(), "cpu_model": cpu, "measure": measure, "function": function,
                         "distribution": distribution} for c in changes]
        docs.append({"cpu_model": cpu, "measure": measure, "function": function, "distribution": distribution,
                     "order": how, "points": points.to_dict("records"), "code_changes": codes.to_dict("records"),
                     "changes": [c.as_dict() for c in changes],
                     "between_studies": [{"variant": d.variant, "sd": d.sd, "studies": d.studies, "first": d.first,
                                          "last": d.last} for d in drifts]})
        if args.plot is not None:
            from ..views.plots.history import history as history_figure
            taken: set[str] = set()
            for variant in dict.fromkeys(points["variant"]):
                safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(variant))
                # two names one file name (a/b, a_b): the second gets a number, never the first's file
                base, k = safe, 2
                while safe in taken:
                    safe, k = f"{base}-{k}", k + 1
                taken.add(safe)
                suffix = f"-{safe}" + (f"-{len(docs) - 1}" if len(groups) > 1 else "")
                fig = history_figure(points, str(variant), changes, codes, args.level)
                write_bytes_atomic(f"{args.plot}{suffix}.png", png(fig), "--plot", inputs_of(args))
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

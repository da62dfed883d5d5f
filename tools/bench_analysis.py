"""How long the analysis takes on a result file, command by command, as a multiple of an interpreter's
start measured in the same invocation: the figures issues 11, 26 and 53 ask for. A benchmark that
reports, not a test: timing never decides pass or fail.

    python3 -m tools.bench_analysis FILE [--repeat 5] [--before COMMIT] [--tree NAME=DIR]...
    python3 -m tools.bench_analysis --run build/bench/memfbench [--time 10]   # makes the file first

Each command runs in a fresh interpreter (the user's cost includes the imports). Two yardsticks run
beside them, in the same rounds: `true` (what starting any process costs) and `PYTHON -c pass` (an
interpreter's start). A shared machine's load moves every wall time, so each command's median is
also given as a multiple of the interpreter's median start ("x start"), and its CPU time (user +
system of the process, which waiting for a CPU does not add to) beside it.

Every round runs each yardstick and each command of each tree once, the order rotated from one round
to the next, so a change of the machine's load is shared by all of them rather than charged to one.
A tree is a folder holding `analysis/` and `docs/schema/` (the checkout by default, named "this");
--before COMMIT adds that commit's, taken from git into a temporary folder, so a change is measured
against the code before it in one invocation. Before the rounds each command runs once unmeasured
in each tree, so every tree has its bytecode cache written (PYTHONDONTWRITEBYTECODE is dropped from
the commands' environment: a user's interpreter writes it) and the file is in the page cache.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THIS = "this"


def commands(result: Path, scratch: Path) -> dict[str, list[str]]:
    return {
        "summarize": ["summarize", str(result)],
        "compare": ["compare", str(result)],
        "gate": ["gate", str(result), "--fail-if-slower", "5", "--json", str(scratch / "verdict.json")],
        "report": ["report", str(result), "-o", str(scratch / "report")],
        "export gbench": ["export", str(result), "--format", "gbench", "-o", str(scratch / "gb.json")],
    }


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds, start to exit
    cpu: float   # user + system seconds of the process and its children


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], cwd: Path, check=None) -> Timing:
    """One run of argv in cwd: its wall and CPU time. check(proc) -> None or the reason it failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=_env())
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    why = check(p) if check else (None if p.returncode == 0 else f"exit status {p.returncode}")
    if why:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"bench_analysis: {' '.join(argv[:4])} in {cwd} failed: {why}: {last}")
    return Timing(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def answered(name: str):
    """The check of a command's run: only gate's exit 1 with its verdict printed is an answer (a
    regression); any other status is a failure, whose time is no time of the command."""
    def check(p: subprocess.CompletedProcess[str]) -> str | None:
        if p.returncode == 0 or (name == "gate" and p.returncode == 1 and "gate FAILED" in p.stdout):
            return None
        return f"exit status {p.returncode}"
    return check


def tree_of_commit(commit: str, into: Path) -> Path:
    """A folder with the commit's analysis/ and docs/schema/, what `python3 -m analysis` runs from."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "analysis", "docs/schema"],
                             capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"bench_analysis: --before {commit}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def measure(trees: dict[str, Path], cmds: dict[str, list[str]], repeat: int, scratch: Path
            ) -> tuple[dict[str, list[Timing]], dict[tuple[str, str], list[Timing]]]:
    """The yardsticks' and each (command, tree)'s timings over `repeat` rounds, the order rotated."""
    py = sys.executable
    yard = {"true": [shutil.which("true") or "/bin/true"], f"{py} -c pass": [py, "-c", "pass"]}
    jobs: list[tuple[str, str, list[str]]] = [("yardstick", k, argv) for k, argv in yard.items()]
    jobs += [(tree, name, [py, "-m", "analysis", *args]) for name, args in cmds.items() for tree in trees]

    def run(job: tuple[str, str, list[str]]) -> Timing:
        tree, name, argv = job
        for p in scratch.glob("report*"):  # report -o wants a new folder each time
            shutil.rmtree(p)
        cwd = trees.get(tree, ROOT)
        return timed(argv, cwd, None if tree == "yardstick" else answered(name))

    for job in jobs:  # unmeasured: bytecode caches written, the file read once
        run(job)
    out: dict[tuple[str, str], list[Timing]] = {}
    for r in range(repeat):
        k = r % len(jobs)
        for job in jobs[k:] + jobs[:k]:
            out.setdefault((job[0], job[1]), []).append(run(job))
    return ({name: t for (tree, name), t in out.items() if tree == "yardstick"},
            {(name, tree): t for (tree, name), t in out.items() if tree != "yardstick"})


def table(yard: dict[str, list[Timing]], runs: dict[tuple[str, str], list[Timing]], trees: dict[str, Path]) -> list[str]:
    """The figures as the page shows them: the yardsticks' medians, then a row per command and tree."""
    start_name = next(k for k in yard if k != "true")
    start = statistics.median(t.wall for t in yard[start_name])
    lines = ["yardsticks, median s: " + "; ".join(f"`{k}` {statistics.median(t.wall for t in v):.3f}"
                                                   for k, v in yard.items())]
    width = max(len(t) for t in trees)
    lines.append(f"{'command':<14} {'tree':<{width}} {'median s':>8} {'min s':>6} {'max s':>6} {'cpu s':>6} "
                 f"{'x start':>7}")
    for (name, tree), ts in runs.items():
        wall = sorted(t.wall for t in ts)
        med = statistics.median(wall)
        lines.append(f"{name:<14} {tree:<{width}} {med:8.2f} {wall[0]:6.2f} {wall[-1]:6.2f} "
                     f"{statistics.median(t.cpu for t in ts):6.2f} {med / start:7.1f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.bench_analysis", description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", help="a memfbench result file")
    ap.add_argument("--run", metavar="MEMFBENCH", help="make the file with this binary (a default study)")
    ap.add_argument("--time", type=float, default=10.0, help="with --run: seconds of rounds (default 10)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--before", metavar="COMMIT", help="also time the analysis of this commit (a tree named before)")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                    help="time the analysis in DIR (holding analysis/ and docs/schema/) as NAME; default: this checkout")
    ap.add_argument("--commands", help=f"comma-separated, of: {', '.join(commands(Path(), Path()))} (default all)")
    a = ap.parse_args(argv)
    if a.repeat < 1:
        ap.error("--repeat: at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        trees: dict[str, Path] = {}
        if a.before:
            trees["before"] = tree_of_commit(a.before, scratch / "before")
        for spec in a.tree:
            name, sep, folder = spec.partition("=")
            if not sep or not name or " " in name or name == "yardstick" or not (Path(folder) / "analysis").is_dir():
                ap.error(f"--tree {spec}: give NAME=DIR, DIR holding analysis/")
            trees[name] = Path(folder).resolve()
        if not a.tree:
            trees[THIS] = ROOT
        if a.run:
            result = scratch / "default.json.gz"
            subprocess.run([a.run, "run", "-q", "-t", str(a.time), "-o", str(result)], check=True)
        elif a.file:
            result = Path(a.file).resolve()
        else:
            ap.error("give a result FILE or --run MEMFBENCH")
        out = scratch / "out"
        out.mkdir()
        cmds = commands(result, out)
        if a.commands:
            wanted = [c.strip() for c in a.commands.split(",")]
            unknown = [c for c in wanted if c not in cmds]
            if unknown:
                ap.error(f"--commands: no command {', '.join(unknown)} (have: {', '.join(cmds)})")
            cmds = {c: cmds[c] for c in wanted}
        yard, runs = measure(trees, cmds, a.repeat, out)
        print(f"file: {result.name}, {result.stat().st_size / 1e6:.1f} MB; {a.repeat} rounds, each command in a "
              "fresh interpreter, the order rotated from round to round")
        if a.before:
            print(f"before: commit {a.before}'s analysis/ and docs/schema/")
        print("\n".join(table(yard, runs, trees)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

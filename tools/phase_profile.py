"""A study's fixed cost by phase: a benchmark that reports (not a test).

    python3 -m tools.phase_profile [--binary "LABEL=PATH"]... [--repeat 3] [--cpu 1] [--source FILE.c:SYMBOL]

Runs, for each binary, the default study (`run -q --cpu CPU`) and a study of libc against a source
variant (`run -q --cpu CPU -v libc -v FILE.c:SYMBOL`, its build cached by a first untimed run),
`--repeat` times, the binaries interleaved so that the host's drift hits them alike, each timed by
its wall clock; then reads every file's phases (analysis/io/cost.py: each process's own stages, and
what the parent saw of it) and prints, per study and binary, the median over the repeats of: the
wall time; the first process's phases; a later process's (the median process of each study); and
the whole study's (every process, and the parent's own part). Markdown, for docs/cost.md. A binary
must write `setup.lifetime_s` (commit 4e708f3 and later).
"""
from __future__ import annotations

import argparse
import json
import gzip
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.io.cost import PARENT, PHASES, ROUNDS, NoLifetime, StudyCost, study_cost  # noqa: E402

DEFAULT_SOURCE = "examples/source/memcpy_branchfree.c:branchfree_memcpy"


def timed_study(binary: list[str], extra: list[str], cpu: int, out: Path) -> StudyCost:
    cmd = [binary[0], "run", *binary[1:], "-q", "--cpu", str(cpu), *extra, "-o", str(out)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"phase_profile: {' '.join(cmd)} failed (exit {p.returncode}): {last}")
    with gzip.open(out, "rt") as f:
        doc = json.load(f)
    try:
        return study_cost(doc, wall)
    except NoLifetime as e:
        raise SystemExit(f"phase_profile: {binary[0]}: {e}") from None


def median_later(c: StudyCost, phase: str) -> float:
    """The median later process's figure (a re-run slot is a later process too)."""
    return statistics.median(p.phases[phase] for p in c.processes[1:]) if len(c.processes) > 1 else float("nan")


def table(runs: dict[str, list[StudyCost]]) -> list[str]:
    labels = list(runs)
    head = "| phase | " + " | ".join(f"{lb}: first | {lb}: later | {lb}: study" for lb in labels) + " |"
    rows = [head, "|" + " --- |" + " ---: |" * (3 * len(labels))]

    def med(label: str, f) -> float:
        return statistics.median(f(c) for c in runs[label])

    for phase in (*PHASES, PARENT):
        cells = []
        for lb in labels:
            first = "" if phase == PARENT else f"{med(lb, lambda c: c.processes[0].phases[phase]):.3f}"
            later = "" if phase == PARENT else f"{med(lb, lambda c: median_later(c, phase)):.3f}"
            cells += [first, later, f"{med(lb, lambda c: c.total(phase)):.2f}"]
        rows.append(f"| {phase} | " + " | ".join(cells) + " |")
    fixed = [(f"{med(lb, lambda c: c.processes[0].fixed_s):.3f}",
              f"{med(lb, lambda c: statistics.median(p.fixed_s for p in c.processes[1:])):.3f}",
              f"{med(lb, lambda c: c.wall_s - c.total(ROUNDS)):.2f}") for lb in labels]
    rows.append("| **fixed cost (all but the rounds)** | " + " | ".join(" | ".join(f) for f in fixed) + " |")
    walls = [("", "", f"{med(lb, lambda c: c.wall_s):.2f}") for lb in labels]
    rows.append("| **wall time** | " + " | ".join(" | ".join(w) for w in walls) + " |")
    procs = [("", "", f"{med(lb, lambda c: len(c.processes)):.0f}") for lb in labels]
    rows.append("| processes (a starved one's slot runs again) | " + " | ".join(" | ".join(p) for p in procs) + " |")
    each = "; ".join(f"{lb} " + ", ".join(f"{c.wall_s:.2f}" for c in runs[lb]) for lb in labels)
    return rows + ["", f"Wall time of each run, in the order they ran (interleaved): {each} s."]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.phase_profile", description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", action="append", default=[], metavar="LABEL=PATH",
                    help="a memfbench binary (repeatable; default: build/bench/memfbench as 'this')")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--source", default=DEFAULT_SOURCE, help=f"the source variant (default {DEFAULT_SOURCE})")
    a = ap.parse_args(argv)
    binaries = {label: shlex.split(rest) for label, rest in (b.split("=", 1) for b in a.binary)} or \
        {"this": [str(ROOT / "build" / "bench" / "memfbench")]}
    studies = {"default study": [], "with a source variant": ["-v", "libc", "-v", a.source]}
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "s.json.gz"
        for b in binaries.values():  # the source variant built and cached before anything is timed
            timed_study(b, ["-t", "0.5", "--processes", "2", *studies["with a source variant"]], a.cpu, f)
        for name, extra in studies.items():
            runs: dict[str, list[StudyCost]] = {lb: [] for lb in binaries}
            for _ in range(a.repeat):
                for lb, b in binaries.items():
                    runs[lb].append(timed_study(b, extra, a.cpu, f))
            out += [f"**{name}** (`memfbench run -q --cpu {a.cpu}{' ' + ' '.join(extra) if extra else ''}`), seconds, "
                    f"the median of {a.repeat}; first: process 0; later: the median later process; study: the "
                    "sum over the study's processes", "", *table(runs), ""]
    print("\n".join(out).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

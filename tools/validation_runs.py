"""The memfbench studies behind docs/validation.md, as data: each section of the report names the runs
it needs (a file name and memfbench's arguments), and this runs them, one after the other, or
finds them already run. It needs the Python standard library only, so the studies can be run on a
machine that has memfbench but not the analysis stack (the Intel host of docs/validation.md) and
analysed elsewhere:

    python3 -m tools.validation_runs --memfbench PATH --plugins DIR --out RUNS [--cpu N] [--sections a,b]

writes RUNS/<name>.json.gz for every run and RUNS/walls.json (each run's wall time), and
`python3 -m tools.validation --stored RUNS` makes the report's sections from them.
"""
from __future__ import annotations

import argparse
import calendar
import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROG = "python3 -m tools.validation_runs"

# The coverage study: every comparison section 1 asks about in one default study.
COVERAGE_VARIANTS = ["libc", "libc-copy", "avx2", "avx2-copy", "rep_movsb"]
# Invocations of the coverage study by default: enough that 90 % coverage means 36 of 40.
COVERAGE_INVOCATIONS = 40
BUILTINS = ["bytes", "rep_movsb", "sse2", "avx2", "sizeclass"]
KNOWN_COST_STUDIES = 10
# The busy machine (issue 52): the known cost and an A/A pair in one default study, with one
# CPU-bound competitor on the timed CPU the whole study, as a user's background build would be.
BUSY_STUDIES = 10
BUSY_VARIANTS = ["-v", "libc-wrapped", "-v", "libc-slow1pct", "-v", "libc-twice", "-v", "libc", "-v", "libc-copy"]
COMPETITOR = "while :; do :; done"
LAYOUT_SOURCE_STUDIES = 10
LAYOUT_PREBUILT_STUDIES = 3
# The known ~1 % cost as memfbench's built-ins and as user code through the source path.
KNOWN_BUILTIN = ["-v", "libc-wrapped", "-v", "libc-slow1pct", "-v", "libc-twice"]
KNOWN_SOURCE = [x for v, s in (("wrapped", "wrapped_memcpy"), ("slow1pct", "slow1pct_memcpy"), ("twice", "twice_memcpy"))
                for x in ("-v", f"examples/source/known_cost.c:{s}={v}")]
# One memcpy wrapper 0 and 32 bytes into a 64-byte line (examples/source/copy_at.c), through the
# source path; its pad needs -fno-toplevel-reorder.
LAYOUT_SOURCE = ["--variant-cflags", "-O2 -fno-toplevel-reorder", "-v", "examples/source/copy_at.c:copy_at=at0",
                 "-v", "examples/source/copy_at32.c:copy_at=at32"]
PREBUILT_OFFSETS = [0, 16, 32, 48]
# Section 12 (issue 52): the coverage study again, the first of them no sooner than an hour after
# section 1's first study, so that `diff` of unchanged code and a pooled interval are tried across
# the time a user's before and after lie apart, not only minutes.
LATER_STUDIES = 20
LATER_AFTER_S = 3600.0


@dataclass(frozen=True)
class Run:
    name: str
    args: list[str]
    busy: bool = False  # one CPU-bound competitor on the timed CPU while it runs
    after: str = ""     # a run that must exist first, and
    wait_s: float = 0   # how long after that run's file was made this one may start


def prebuilt(plugins: Path) -> list[str]:
    """The same wrapper prebuilt 0, 16, 32 and 48 bytes into a line: one layout each."""
    return [x for at in PREBUILT_OFFSETS for x in ("-v", f"{plugins / f'libcopy_at{at}.so'}:copy_at=at{at}")]


def plan(section: str, plugins: Path, quick: bool = False, invocations: int = COVERAGE_INVOCATIONS) -> list[Run]:
    """The runs of one section, in the order they run."""
    cov = [x for v in COVERAGE_VARIANTS for x in ("-v", v)]
    if section == "coverage":
        return [Run(f"cov{i}", cov) for i in range(3 if quick else invocations)]
    if section == "invariance":
        builtins = BUILTINS[:2] if quick else BUILTINS
        return [Run("inv_all", [x for v in ["libc", *builtins] for x in ("-v", v)])] + \
               [Run(f"inv_{b}", ["-v", "libc", "-v", b]) for b in builtins]
    if section == "known-cost":
        n = 2 if quick else KNOWN_COST_STUDIES
        return [Run(f"sens{i}", KNOWN_BUILTIN) for i in range(n)] + [Run(f"senssrc{i}", KNOWN_SOURCE) for i in range(n)]
    if section == "layout":
        return [Run(f"alignsrc{i}", LAYOUT_SOURCE) for i in range(2 if quick else LAYOUT_SOURCE_STUDIES)] + \
               [Run(f"alignso{i}", prebuilt(plugins)) for i in range(1 if quick else LAYOUT_PREBUILT_STUDIES)]
    if section == "probes":
        base = ["-f", "memcmp", "-d", "probe/FlipFirst", "-v", "load1", "-v", "load32", "-v", "noop"]
        return [Run("probe_0", [*base, "--flip-lead", "0"]), Run("probe_default", base)]
    if section == "over-time":
        return [Run(f"later{i}", cov, after="cov0", wait_s=0 if quick else LATER_AFTER_S)
                for i in range(3 if quick else LATER_STUDIES)]
    if section == "busy":
        return [Run(f"busy{i}", BUSY_VARIANTS, busy=True) for i in range(2 if quick else BUSY_STUDIES)]
    if section == "clocks":
        return [Run(f"clock_{c}", ["-d", "fixed:64", "-v", "libc", "-v", "noop", "--rounds", "50", "--processes", "1",
                                   "--clock", c]) for c in ("auto", "monotonic")]
    raise ValueError(f"no section {section!r}")


# over-time last: it waits for the hour to pass, and the others run meanwhile
SECTIONS = ["coverage", "invariance", "known-cost", "layout", "probes", "clocks", "busy", "over-time"]


def stored(folder: Path, name: str) -> Path | None:
    """A run's file in a folder of runs made earlier, if it is there."""
    for suffix in (".json.gz", ".json"):
        if (folder / f"{name}{suffix}").exists():
            return folder / f"{name}{suffix}"
    return None


def created(path: Path) -> float:
    """When a run's file says it was made (its created_utc), as Unix time."""
    with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as f:
        stamp = json.load(f)["created_utc"]
    return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")))


def wait_for(r: Run, out: Path) -> None:
    """Sleeps until r may start: wait_s after its `after` run's file was made."""
    if not r.wait_s:
        return
    first = stored(out, r.after)
    if first is None:
        raise RuntimeError(f"run {r.name}: needs run {r.after} first (its section, coverage, makes it)")
    left = created(first) + r.wait_s - time.time()
    if left > 0:
        print(f"{r.name}: waiting {left:.0f} s, until {r.wait_s:.0f} s after {r.after}", file=sys.stderr, flush=True)
        time.sleep(left)


def run_one(memfbench: Path, r: Run, out: Path, extra: list[str], cache: Path) -> float:
    """Runs r into out/<name>.json.gz (source variants built into cache), once it may start
    (wait_for); its wall time, the wait not included."""
    wait_for(r, out)
    cmd = [str(memfbench), "run", *r.args, *extra, "-q", "-o", str(out / f"{r.name}.json.gz")]
    rival = None
    if r.busy:
        if "--cpu" not in extra:
            raise RuntimeError(f"run {r.name}: a busy study needs --cpu N (its competitor runs on the timed CPU)")
        cpu = extra[extra.index("--cpu") + 1]
        rival = subprocess.Popen(["taskset", "-c", cpu, "sh", "-c", COMPETITOR], start_new_session=True)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "MEMFBENCH_CACHE": str(cache)})
    finally:
        if rival is not None:
            rival.kill()
            rival.wait()
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"`{shlex.join(cmd)}` failed (exit {p.returncode}): {last}")
    return time.time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memfbench", required=True, help="the memfbench binary")
    ap.add_argument("--plugins", default=str(ROOT / "build" / "examples"),
                    help="folder of the prebuilt layout plugins libcopy_at*.so (default build/examples)")
    ap.add_argument("--out", required=True, help="folder for the runs (made if missing)")
    ap.add_argument("--cpu", help="memfbench --cpu for every run")
    ap.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, of {', '.join(SECTIONS)}")
    ap.add_argument("--quick", action="store_true", help="fewer runs (a smoke test)")
    ap.add_argument("--invocations", type=int, default=COVERAGE_INVOCATIONS)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    walls_path = out / "walls.json"
    walls = json.loads(walls_path.read_text()) if walls_path.exists() else {}
    extra = ["--cpu", args.cpu] if args.cpu else []
    # a cache of its own: the first source study builds its variants (and its wall time shows it)
    cache = Path(tempfile.mkdtemp(prefix="memfbench-validation-cache-"))
    try:
        for section in args.sections.split(","):
            for r in plan(section, Path(args.plugins), args.quick, args.invocations):
                if stored(out, r.name) is None:
                    walls[r.name] = run_one(Path(args.memfbench), r, out, extra, cache)
                    walls_path.write_text(json.dumps(walls, indent=1))
                    print(f"{r.name} {walls[r.name]:.1f} s", flush=True)
    except (RuntimeError, ValueError, OSError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

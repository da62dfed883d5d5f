"""How `memfbench analyze history` scales with the number of files: a folder of N small result
files made from one real run, and the time and peak memory of one history over it. A benchmark
that reports, not a test (issue 42, case 12).

    python3 -m tools.bench_history_scale make DIR --files N [--from FILE] [--rounds R]
    python3 -m tools.bench_history_scale measure DIR [--repeat 2] [--timeout 900] [--tree T] [-- ARGS]
    python3 -m tools.bench_history_scale stages DIR [--files 200]

`make` runs `build/bench/memfbench run -q -v libc -v rep_movsb --rounds R --warmup-rounds 1
--processes 1 --cpu 1` once (or takes --from FILE), then writes N copies of it to DIR as
rNNNNN.json, each perturbed: created_utc one minute after the one before (the series' order),
rep_movsb's ticks and ns scaled by a factor drawn per file (sd 1 %), and by 1.05 from the middle
file on (a step for the change-point search to find). The run's own content is kept (its
distribution tables make its file 84 KB), written by Python's json, tab-indented with one entry a
line (114 KB a file).

`stages` times, in this process, each stage of a history's reading of the first --files files of
DIR, as CPU time per file: what dominates it.

`measure` runs `/usr/bin/time -v timeout -k 10 T /usr/bin/python3 -m analysis ARGS` --repeat times
(ARGS: `history DIR`, or what follows `--`, such as `summarize bomb.json.gz`) from --tree (a folder
holding an `analysis` package and `docs/schema`: this checkout by default, or an older commit's
`git archive`), and prints per run the wall and user CPU time, the peak resident set (of the
largest process) and the exit status, with the CPU model (lscpu). A run past --timeout seconds is
stopped (SIGTERM, then SIGKILL 10 s later) and reported as killed.
"""
from __future__ import annotations

import argparse
import copy
import json
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
STEP = 1.05
NOISE = 0.01


def _base(a: argparse.Namespace, tmp: Path) -> dict:
    if a.source is not None:
        return json.loads(Path(a.source).read_text(encoding="utf-8"))
    binary = ROOT / "build" / "bench" / "memfbench"
    if not binary.exists():
        raise SystemExit(f"bench_history_scale: {binary} not built (ninja -C build)")
    out = tmp / "base.json"
    cmd = [str(binary), "run", "-q", "-v", "libc", "-v", "rep_movsb", "--rounds", str(a.rounds),
           "--warmup-rounds", "1", "--processes", "1", "--cpu", str(a.cpu), "-o", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"bench_history_scale: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return json.loads(out.read_text(encoding="utf-8"))


def perturbed(base: dict, i: int, n: int, rng: np.random.Generator) -> dict:
    """File i of n: created one minute after file i - 1, the second variant's batches scaled."""
    doc = copy.deepcopy(base)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    doc["created_utc"] = (start + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    factor = float(np.exp(rng.normal(0, NOISE))) * (STEP if i >= n // 2 else 1.0)
    s = doc["samples"]
    for k, v in enumerate(s["variant"]):
        if v == 1:
            s["ticks"][k] = max(1, int(round(s["ticks"][k] * factor)))
            s["ns"][k] = round(s["ns"][k] * factor, 3)
    return doc


def make(a: argparse.Namespace) -> int:
    a.dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        base = _base(a, Path(tmp))
    rng = np.random.default_rng(a.seed)
    width = max(5, len(str(a.files)))
    for i in range(a.files):
        text = json.dumps(perturbed(base, i, a.files, rng), indent="\t")
        (a.dir / f"r{i:0{width}d}.json").write_text(text + "\n", encoding="utf-8")
    print(f"{a.files} files in {a.dir}")
    return 0


def cpu_model() -> str:
    p = subprocess.run(["lscpu"], capture_output=True, text=True)
    m = re.search(r"^Model name:\s*(.+)$", p.stdout, re.M)
    return m.group(1).strip() if m else "unknown CPU"


def _field(text: str, name: str) -> str:
    m = re.search(rf"^\s*{re.escape(name)}: (.+)$", text, re.M)
    return m.group(1).strip() if m else "?"


def measure(a: argparse.Namespace) -> int:
    args = a.args or ["history", str(a.dir)]
    files = sum(1 for f in a.dir.iterdir() if f.name.endswith((".json", ".json.gz"))) if a.dir.is_dir() else 1
    print(f"analyze {' '.join(args)} ({files} files) from {a.tree} on {cpu_model()}")
    print(f"{'run':>3} {'wall':>10} {'user':>10} {'peak RSS':>12} {'exit':>6}")
    for k in range(a.repeat):
        cmd = ["/usr/bin/time", "-v", "timeout", "-k", "10", str(a.timeout), "/usr/bin/python3", "-m", "analysis",
               *args]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=a.tree)
        wall = _field(p.stderr, "Elapsed (wall clock) time (h:mm:ss or m:ss)")
        parts = [float(x) for x in wall.split(":")] if wall != "?" else []
        seconds = sum(x * 60 ** j for j, x in enumerate(reversed(parts))) if parts else float("nan")
        rss = _field(p.stderr, "Maximum resident set size (kbytes)")
        mib = int(rss) / 1024 if rss.isdigit() else float("nan")
        user = _field(p.stderr, "User time (seconds)")
        status = "killed" if p.returncode in (124, 137) else str(p.returncode)
        print(f"{k + 1:>3} {seconds:>8.2f} s {user:>8} s {mib:>8.0f} MiB {status:>6}")
    return 0


def stages(a: argparse.Namespace) -> int:
    """CPU time per file of each stage of a history's reading, in this process, over the first
    --files files of DIR (in name order): reading and parsing the JSON, upgrading and validating it,
    its batches (load.batch_columns and split), and its point (compare on the file alone)."""
    from analysis.io import load, reading, schema
    from analysis.io.upgrade import upgrade
    from analysis.verdicts import history
    files = sorted(f for f in a.dir.iterdir() if f.name.endswith((".json", ".json.gz")))[:a.files]
    history.file_point(load.load_run(files[0]))  # imports, and the schema read once, outside the figures
    spent = dict.fromkeys(("read and parse", "validate", "batches", "point"), 0.0)
    for f in files:
        t0 = time.process_time()
        doc = upgrade(reading.read_json(f))
        t1 = time.process_time()
        schema.validate(doc, str(f))
        t2 = time.process_time()
        run = load.Run(str(f), doc, *load.split(load.batch_columns(doc, f.name)))
        t3 = time.process_time()
        history.file_point(run)
        t4 = time.process_time()
        for k, dt in zip(spent, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
            spent[k] += dt
    print(f"CPU per file over {len(files)} files of {a.dir} on {cpu_model()}")
    for k, total in spent.items():
        print(f"{k:<15} {total / len(files) * 1e3:6.2f} ms")
    print(f"{'all':<15} {sum(spent.values()) / len(files) * 1e3:6.2f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.bench_history_scale", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="a folder of N perturbed copies of one small result file")
    m.add_argument("dir", type=Path)
    m.add_argument("--files", type=int, required=True)
    m.add_argument("--from", dest="source", help="the result file to copy (default: a fresh short run)")
    m.add_argument("--rounds", type=int, default=5, help="measured rounds of the fresh run (default 5)")
    m.add_argument("--cpu", type=int, default=1)
    m.add_argument("--seed", type=int, default=1)
    r = sub.add_parser("measure", help="time and peak memory of `analyze history DIR` (or of ARGS after --)")
    r.add_argument("dir", type=Path)
    r.add_argument("--repeat", type=int, default=2)
    r.add_argument("--timeout", type=int, default=900)
    r.add_argument("--tree", type=Path, default=ROOT, help="where the analysis package runs from (default: here)")
    st = sub.add_parser("stages", help="CPU time per file of each stage of reading a history's files")
    st.add_argument("dir", type=Path)
    st.add_argument("--files", type=int, default=200)
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:  # measure DIR [options] -- ANALYSIS ARGS
        argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    a = ap.parse_args(argv)
    a.args = extra
    return {"make": make, "measure": measure, "stages": stages}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())

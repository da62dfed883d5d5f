"""How long the analysis takes on a result file, command by command: the figures issue 11 asks
for (summarize, compare, gate at most 2 s and report at most 5 s on a 10 s default run of a
2-core machine). A benchmark that reports, not a test: timing never decides pass or fail.

    python3 -m tools.bench_analysis FILE [--repeat 3]
    python3 -m tools.bench_analysis --run build/bench/memfbench [--time 10]   # makes the file first

Each command runs in a fresh interpreter (the user's cost includes the imports), `--repeat`
times; the table gives the median and the range of the wall times.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def commands(result: Path, scratch: Path) -> dict[str, list[str]]:
    return {
        "summarize": ["summarize", str(result)],
        "compare": ["compare", str(result)],
        "gate": ["gate", str(result), "--fail-if-slower", "5", "--json", str(scratch / "verdict.json")],
        "report": ["report", str(result), "-o", str(scratch / "report")],
        "export gbench": ["export", str(result), "--format", "gbench", "-o", str(scratch / "gb.json")],
    }


def wall_times(args: list[str], repeat: int, scratch: Path) -> list[float]:
    out = []
    for _ in range(repeat):
        for p in scratch.glob("report*"):  # report -o wants a new folder each time
            subprocess.run(["rm", "-rf", str(p)], check=True)
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "analysis", *args], capture_output=True, text=True)
        out.append(time.monotonic() - t0)
        # only gate's exit 1 with its verdict printed is an answer (a regression); any other status
        # is a failure, whose time is no time of the command
        answered = p.returncode == 0 or (args[0] == "gate" and p.returncode == 1 and "gate FAILED" in p.stdout)
        if not answered:
            last = (p.stderr.strip().splitlines() or ["no message"])[-1]
            raise SystemExit(f"bench_analysis: {args[0]} failed with exit status {p.returncode}: {last}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.bench_analysis", description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", help="a memfbench result file")
    ap.add_argument("--run", metavar="MEMFBENCH", help="make the file with this binary (a default study)")
    ap.add_argument("--time", type=float, default=10.0, help="with --run: seconds of rounds (default 10)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if a.run:
            result = scratch / "default.json.gz"
            subprocess.run([a.run, "run", "-q", "-t", str(a.time), "-o", str(result)], check=True)
        elif a.file:
            result = Path(a.file)
        else:
            ap.error("give a result FILE or --run MEMFBENCH")
        size = result.stat().st_size
        print(f"file: {result.name}, {size / 1e6:.1f} MB; {a.repeat} runs per command, fresh interpreter each")
        print(f"{'command':<14} {'median s':>9} {'min s':>7} {'max s':>7}")
        for name, args in commands(result, scratch).items():
            t = sorted(wall_times(args, a.repeat, scratch))
            print(f"{name:<14} {t[len(t) // 2]:9.2f} {t[0]:7.2f} {t[-1]:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

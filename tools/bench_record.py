"""The recorder's overhead: ns per intercepted call, a benchmark that reports (not a test).

    python3 -m tools.bench_record [--build build] [--cpu 1] [--calls 20000000] [--size 16] [--repeat 5]

Times tests/c/record_mix's loop of memcpy calls of one size (through a volatile pointer, so each
call reaches the dynamic C library) without the recorder, with it forwarding only, recording every
call, sampling 1/64 of them, and tracing a window of 100,000 calls in order; each configuration
`--repeat` times, pinned with taskset, and prints the median ns per call and the overhead over
the plain run.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def one(cmd: list[str], env: dict[str, str]) -> float:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return float(p.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.bench_record", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--calls", type=int, default=20_000_000)
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args(argv)
    build = Path(a.build)
    mix, lib = build / "tests/c/record_mix", build / "record/libmemfbench-record.so"
    for f in (mix, lib):
        if not f.exists():
            raise SystemExit(f"bench_record: {f} is missing: build with meson compile -C {a.build}")
    cmd = ["taskset", "-c", str(a.cpu), str(mix), "loop", str(a.calls), str(a.size)]
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMFBENCH_RECORD") and k != "LD_PRELOAD"}
    with tempfile.TemporaryDirectory() as tmp:
        configs = {
            "plain": base,
            "preloaded, not recording": {**base, "LD_PRELOAD": str(lib.resolve())},
            "recording every call": {**base, "LD_PRELOAD": str(lib.resolve()), "MEMFBENCH_RECORD_DIR": tmp},
            "recording 1/64": {**base, "LD_PRELOAD": str(lib.resolve()), "MEMFBENCH_RECORD_DIR": tmp,
                               "MEMFBENCH_RECORD_RATE": "1/64"},
            # as `memfbench record --trace 100000`: every call of the window written in order
            "recording, --trace 100000": {**base, "LD_PRELOAD": str(lib.resolve()), "MEMFBENCH_RECORD_DIR": tmp,
                                          "MEMFBENCH_RECORD_TRACE": "100000"},
        }
        # interleaved: one run of each configuration per repetition, so drift hits them alike
        times: dict[str, list[float]] = {k: [] for k in configs}
        for _ in range(a.repeat):
            for name, env in configs.items():
                times[name].append(one(cmd, env))
    plain = statistics.median(times["plain"])
    print(f"memcpy of {a.size} B, {a.calls} calls per run, {a.repeat} runs each, CPU {a.cpu}")
    print(f"{'configuration':30} {'ns/call':>9} {'overhead ns':>12} {'min':>8} {'max':>8}")
    for name, t in times.items():
        m = statistics.median(t)
        print(f"{name:30} {m:9.3f} {m - plain:12.3f} {min(t):8.3f} {max(t):8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

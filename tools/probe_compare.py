"""memfbench probe beside likwid-bench, mbw and lmbench's lat_mem_rd on this machine, at the same
sizes, one size inside each memory level: a benchmark that reports (not a test).

    /usr/bin/python3 -m tools.probe_compare [--build build] [--cpu 1] [--repeat 3]
        [--lat-mem-rd PATH] [--sizes 16K,512K,4M,256M] [--json OUT]

Every measurement is a fresh process pinned with taskset to --cpu, run one at a time; each is
repeated --repeat times, and the median and the range are printed. The external tools are not
part of memfbench: likwid-bench and mbw come from Debian (apt-get install likwid mbw);
lat_mem_rd is built from lmbench's public source outside the project (docs/probe.md). A tool
that is missing is skipped with a line saying so.

Pairs (memfbench kernel: theirs):
  read: likwid load_avx512 | write: store_avx512 | copy: copy_avx512 | write_nt: store_mem_avx512
  copy_nt: copy_mem_avx512 | rep_movsb, copy: mbw -t1 (glibc memcpy; Debian's mbw prints it as
  "DUMB") | random chain, 4 KiB pages: lat_mem_rd -t | stride 1 line: lat_mem_rd (stride 64).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.lib import external  # noqa: E402

LIKWID = {"read": ("load_avx512", False), "write": ("store_avx512", False), "copy": ("copy_avx512", True),
          "write_nt": ("store_mem_avx512", False), "copy_nt": ("copy_mem_avx512", True)}


def parse_size(s: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)


def sh(cmd: list[str], cpu: int) -> str:
    p = subprocess.run(["taskset", "-c", str(cpu), *cmd], capture_output=True, text=True, check=True)
    return p.stdout + p.stderr


def ours_bandwidth(mfb: str, cpu: int, size: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "p.json"
        subprocess.run([mfb, "probe", "--bandwidth", "--min-size", str(size), "--max-size", str(size), "--cpu",
                        str(cpu), "-q", "-o", str(out)], check=True)
        doc = json.loads(out.read_text())
    return {c["kernel"]: c["points"][0]["gbps_median"] for c in doc["bandwidth"]["curves"]}


def ours_latency(mfb: str, cpu: int, size: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "p.json"
        subprocess.run([mfb, "probe", "--latency", "--huge", "off", "--min-size", str(size), "--max-size", str(size),
                        "--cpu", str(cpu), "-q", "-o", str(out)], check=True)
        doc = json.loads(out.read_text())
    return {c["pattern"]: c["points"][0]["ns_median"] for c in doc["latency"]["curves"]}


def summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt(s: dict[str, float], digits: int = 2) -> str:
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}-{s['max']:.{digits}f}]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.probe_compare", description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="16K,512K,4M,256M", help="one footprint inside each level")
    ap.add_argument("--lat-mem-rd", default="", help="path of lmbench's lat_mem_rd (built outside the project)")
    ap.add_argument("--json", default="", help="also write every measurement here")
    a = ap.parse_args(argv)
    mfb = str(Path(a.build) / "bench" / "memfbench")
    if not Path(mfb).exists():
        raise SystemExit(f"probe_compare: {mfb} is missing: build with meson compile -C {a.build}")
    sizes = [parse_size(s) for s in a.sizes.split(",")]
    have_likwid, have_mbw = shutil.which("likwid-bench"), shutil.which("mbw")
    lmr = a.lat_mem_rd if a.lat_mem_rd and os.access(a.lat_mem_rd, os.X_OK) else ""
    for name, ok in (("likwid-bench", have_likwid), ("mbw", have_mbw), ("lat_mem_rd (--lat-mem-rd)", lmr)):
        if not ok:
            print(f"(skipped: {name} not found)")
    raw: dict[str, list[float]] = {}

    def add(key: str, v: float) -> None:
        raw.setdefault(key, []).append(v)

    lmr_top = max(sizes)
    for _ in range(a.repeat):
        for size in sizes:
            for k, v in ours_bandwidth(mfb, a.cpu, size).items():
                add(f"bw/{size}/memfbench/{k}", v)
            for k, v in ours_latency(mfb, a.cpu, size).items():
                add(f"lat/{size}/memfbench/{k}", v)
            if have_likwid:
                for k, (kernel, copies) in LIKWID.items():
                    text = sh(["likwid-bench", "-t", kernel, "-w", f"S0:{size}B:1"], a.cpu)
                    add(f"bw/{size}/likwid/{k}", external.likwid_gbps(text, copies))
            # mbw's arrays are whole MiB, at least 1: footprints of 2 MiB and more
            if have_mbw and size >= 2 * external.MIB:
                _, v = external.mbw_gbps(sh(["mbw", "-q", "-n", "10", "-t1", str(size // 2 // external.MIB)], a.cpu))
                add(f"bw/{size}/mbw/memcpy", v)
        if lmr:
            top_mb = str(max(1, lmr_top // external.MIB))
            rnd = external.lat_mem_rd_points(sh([lmr, "-P", "1", "-N", "1", "-t", top_mb, "64"], a.cpu))
            seq = external.lat_mem_rd_points(sh([lmr, "-P", "1", "-N", "1", top_mb, "64"], a.cpu))
            for size in sizes:
                add(f"lat/{size}/lat_mem_rd/random", external.nearest(rnd, size)[1])
                add(f"lat/{size}/lat_mem_rd/stride1", external.nearest(seq, size)[1])
    stats = {k: summary(v) for k, v in raw.items()}
    print(f"\nmedian [min-max] of {a.repeat} fresh processes each, pinned to CPU {a.cpu}; difference = memfbench / "
          "theirs - 1 of the medians")
    print("\n| size | memfbench | GB/s | theirs | GB/s | difference |\n|---|---|---|---|---|---|")
    pairs = [(k, "likwid", v[0]) for k, v in LIKWID.items()] + [("rep_movsb", "mbw", "memcpy"), ("copy", "mbw", "memcpy")]
    for size in sizes:
        for ours, tool, theirs in pairs:
            a_key, b_key = f"bw/{size}/memfbench/{ours}", f"bw/{size}/{tool}/{theirs if tool == 'mbw' else ours}"
            if a_key in stats and b_key in stats:
                d = external.difference_pct(stats[a_key]["median"], stats[b_key]["median"])
                label = f"{tool} {theirs}" if tool == "mbw" else f"likwid-bench {theirs}"
                print(f"| {size} | {ours} | {fmt(stats[a_key], 1)} | {label} | {fmt(stats[b_key], 1)} | {d:+.1f} % |")
    print("\n| size | memfbench chain | ns/load | lat_mem_rd | ns/load | difference |\n|---|---|---|---|---|---|")
    for size in sizes:
        for ours, theirs, label in (("random", "random", "-t (random pages)"), ("stride1", "stride1", "stride 64 B")):
            a_key, b_key = f"lat/{size}/memfbench/{ours}", f"lat/{size}/lat_mem_rd/{theirs}"
            if a_key in stats and b_key in stats:
                d = external.difference_pct(stats[a_key]["median"], stats[b_key]["median"])
                print(f"| {size} | {ours} | {fmt(stats[a_key])} | {label} | {fmt(stats[b_key])} | {d:+.1f} % |")
    if a.json:
        Path(a.json).write_text(json.dumps({"raw": raw, "stats": stats}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

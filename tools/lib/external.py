"""The outputs of established memory benchmarks, read into memfbench probe's units, so one
machine's figures can be set side by side at the same sizes (tools/probe_compare.py).

Units (each from the tool's own source or manual; docs/probe.md cites them):
- likwid-bench prints "MByte/s" = 1e6 bytes per second of all its streams: a copy kernel counts
  each element read and written (16 bytes per 8-byte element), so the bytes copied once are half;
  its `-w` size is the total of all streams, as the probe's footprint is.
- mbw prints "Copy: X MiB/s" = MiB (2^20 bytes) of one array copied per second; its size argument
  is MiB per array, and it has two.
- lmbench lat_mem_rd prints (on stderr) "SIZE_MiB NS" lines: the range in MiB (2^20) and ns per
  load, the best of its repetitions.
"""
from __future__ import annotations

import math
import re

MIB = 1 << 20

_LIKWID_RATE = re.compile(r"^MByte/s:\s+([0-9.eE+-]+)\s*$", re.M)
_MBW_AVG = re.compile(r"^AVG\s+Method:\s+(\S+)\s+Elapsed:\s+\S+\s+MiB:\s+\S+\s+Copy:\s+([0-9.]+) MiB/s", re.M)
_LMR_LINE = re.compile(r"^([0-9]+\.[0-9]+)\s+([0-9]+\.[0-9]+)\s*$", re.M)


def likwid_gbps(text: str, copies: bool) -> float:
    """GB/s (1e9 bytes per second, each byte moved once) from likwid-bench's output."""
    m = _LIKWID_RATE.findall(text)
    if len(m) != 1:
        raise ValueError(f"likwid-bench output: expected one 'MByte/s:' line, found {len(m)}")
    rate = float(m[0]) / 1000.0
    return rate / 2 if copies else rate


def mbw_gbps(text: str) -> tuple[str, float]:
    """(method as printed, GB/s of bytes copied once) from mbw -q output's AVG line."""
    m = _MBW_AVG.findall(text)
    if len(m) != 1:
        raise ValueError(f"mbw output: expected one AVG line, found {len(m)}")
    method, mib_s = m[0]
    return method, float(mib_s) * MIB / 1e9


def lat_mem_rd_points(text: str) -> dict[int, float]:
    """size in bytes -> ns per load, from lat_mem_rd's lines (the size printed to 5 decimals of
    a MiB is rounded to the nearest 64 bytes, the smallest range it walks in lines)."""
    out: dict[int, float] = {}
    for mib, ns in _LMR_LINE.findall(text):
        size = int(round(float(mib) * MIB / 64)) * 64
        out[size] = float(ns)
    if not out:
        raise ValueError("lat_mem_rd output: no 'SIZE NS' lines")
    return out


def nearest(points: dict[int, float], size: int) -> tuple[int, float]:
    """The point whose size is nearest (in log size) to size."""
    best = min(points, key=lambda s: abs(math.log2(s / size)))
    return best, points[best]


def difference_pct(ours: float, theirs: float) -> float:
    """(ours - theirs) / theirs, in percent."""
    return 100.0 * (ours - theirs) / theirs

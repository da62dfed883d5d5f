"""Probe files (`memfbench probe`): the memory system's latency and bandwidth per buffer size,
the cache levels found in the latency curve, and the roofline a size sweep is read against.

A probe file gives, per buffer size, ns per dependent load (random and strided chains, on 4 KiB
and huge pages) and GB/s of read, write and copy kernels (1e9 bytes per second, each byte moved
counted once: a copy of n bytes counts n, as a memcpy of n bytes does). `reference` finds the
bandwidth a call could at best reach where its data lives, so a sweep's bytes/ns become a
fraction of what the machine can move. Reading and validating a probe file is io/probe_file.py's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..verdicts.sweep import evenly

# The kernels a function is measured against: the best of them at the footprint is its roofline.
# memcmp and bcmp read both buffers, so their bytes count twice against the read bandwidth.
REFERENCE_KERNELS: dict[str, tuple[tuple[str, ...], int]] = {
    "memcpy": (("copy", "copy_nt", "rep_movsb"), 1),
    "memmove": (("copy", "copy_nt", "rep_movsb"), 1),
    "memset": (("write", "write_nt"), 1),
    "memcmp": (("read",), 2),
    "bcmp": (("read",), 2),
}
# Buffers a call touches, for its footprint in the run's window.
BUFFERS = {"memcpy": 2, "memmove": 2, "memset": 1, "memcmp": 2, "bcmp": 2}


def latency_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """A row per point: pattern, pages, size, ns_median/min/max, cycles, huge_fraction."""
    rows = []
    for c in (doc.get("latency") or {}).get("curves", []):
        for p in c["points"]:
            rows.append({"pattern": c["pattern"], "pages": c["pages"], "size": p["size"], "ns": p["ns_median"],
                         "ns_min": p["ns_min"], "ns_max": p["ns_max"], "cycles": p["cycles_median"],
                         "huge_fraction": p["huge_fraction"], "repeats": len(p["ns"])})
    return pd.DataFrame(rows, columns=["pattern", "pages", "size", "ns", "ns_min", "ns_max", "cycles",
                                       "huge_fraction", "repeats"])


def bandwidth_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """A row per point: kernel, size (footprint), gbps median/min/max."""
    rows = []
    for c in (doc.get("bandwidth") or {}).get("curves", []):
        for p in c["points"]:
            rows.append({"kernel": c["kernel"], "size": p["size"], "gbps": p["gbps_median"],
                         "gbps_min": p["gbps_min"], "gbps_max": p["gbps_max"], "repeats": len(p["gbps"])})
    return pd.DataFrame(rows, columns=["kernel", "size", "gbps", "gbps_min", "gbps_max", "repeats"])


@dataclass
class Level:
    name: str            # "L1d", "L2", then "level 3"...; the last plateau "memory" if past the reported LLC
    ns: float            # the plateau's median latency
    cycles: float | None
    reported: int | None  # the size the system reports for the level of that name (sysfs)
    estimate: float | None  # capacity found in the curve (None for the last plateau)
    below: int | None
    above: int | None


def levels(doc: dict[str, Any]) -> list[Level]:
    """The plateaus of the levels' curve, each with the boundary after it."""
    lv = (doc.get("latency") or {}).get("levels")
    if not lv:
        return []
    caches = doc["host"]["caches"]
    reported = [caches.get("l1d"), caches.get("l2"), caches.get("llc")]
    names = ["L1d", "L2", "LLC"]
    out = []
    n = len(lv["plateaus"])
    top = max((p["size"] for c in doc["latency"]["curves"] for p in c["points"]), default=0)
    for i, p in enumerate(lv["plateaus"]):
        b = lv["boundaries"][i] if i < len(lv["boundaries"]) else None
        last = i == n - 1 and b is None
        # the first two are the L1d and the L2; a third rise may be the LLC's or (in a VM) the
        # TLB's reach (docs/probe.md), so later levels are numbered, not named
        name = names[i] if i < 2 else f"level {i + 1}"
        if last and i > 0 and top > (caches.get("llc") or 0):
            name = "memory"
        out.append(Level(name, p["ns"], p["cycles"], reported[i] if i < 2 else None,
                         b["estimate"] if b else None, b["below"] if b else None, b["above"] if b else None))
    return out


def levels_frame(doc: dict[str, Any], human: bool = False) -> pd.DataFrame:
    """levels() as a frame; human=True writes the sizes as 45.2 KiB, 1.41 MiB (for reports)."""
    df = pd.DataFrame([lv.__dict__ for lv in levels(doc)],
                      columns=["name", "ns", "cycles", "reported", "estimate", "below", "above"])
    if human:
        for c in ("reported", "estimate", "below", "above"):
            df[c] = [human_bytes(v) if v is not None and not pd.isna(v) else "-" for v in df[c]]
    return df


def interpolate(sizes: np.ndarray, values: np.ndarray, at: float) -> tuple[float, bool]:
    """values at `at`, linear in log size between the points around it; outside the measured
    range the nearest end's value, and False (not measured there)."""
    if len(sizes) == 0:
        return float("nan"), False
    if at <= sizes[0]:
        return float(values[0]), at == sizes[0]
    if at >= sizes[-1]:  # inf: "memory", the largest footprint measured (call_footprint)
        return float(values[-1]), at == sizes[-1] or math.isinf(at)
    return float(np.interp(math.log2(at), np.log2(sizes.astype(float)), values)), True


@dataclass
class Reference:
    gbps: float          # the best reference kernel's median at the footprint
    kernel: str
    footprint: float     # bytes the calls' buffers span
    within: bool         # False: the footprint is beyond the probe's sizes; the largest's value


def reference(doc: dict[str, Any], function: str, footprint: float) -> Reference | None:
    """The best bandwidth the function's reference kernels reach at this footprint."""
    bw = bandwidth_frame(doc)
    kernels, _ = REFERENCE_KERNELS[function]
    best: Reference | None = None
    for k in kernels:
        g = bw[bw["kernel"] == k].sort_values("size")
        if g.empty:
            continue
        v, within = interpolate(g["size"].to_numpy(), g["gbps"].to_numpy(), footprint)
        if best is None or v > best.gbps:
            best = Reference(v, k, footprint, within)
    return best


# What each placement's large window is sized from (docs/methodology.md, "Placement").
_PLACED = {"l1": "L1 window", "l2": "L2 window (L2/2)", "llc": "LLC window (LLC/2)",
           "dram": "memory window (8x LLC, sized)"}


def call_footprint(run_doc: dict[str, Any], function: str, size: int) -> tuple[float, str]:
    """Where a call of this size keeps its data in the run (the placement's windows), as the
    bytes its buffers span, and the window's name."""
    ws = run_doc.get("workset") or {}
    small, large = ws.get("small_window") or {}, ws.get("large_window") or {}
    nbuf = BUFFERS[function]
    if small and size <= small.get("max_call_size", -1):
        return float(nbuf * small["bytes_per_buffer"]), "small (L1) window"
    if large and large.get("scheme") == "evicted":
        # every line flushed before its batch: the data comes from memory whatever the window's
        # size, so the reference is the probe's largest footprint, not one the size of the window
        return math.inf, "large window (flushed: memory)"
    if large:
        name = _PLACED.get(ws.get("placement", "auto"), "large window (beyond the LLC)")
        return float(nbuf * large["bytes_per_buffer"]), name
    return float(nbuf * max(size, 1)), "the call's own buffers"


def check_reference(doc: dict[str, Any], function: str, source: str) -> None:
    """Raises ValueError when the probe cannot be a sweep's roofline: no curve of the function's
    kernels, or bandwidth measured on several threads (a sweep's calls run on one)."""
    bw = doc.get("bandwidth")
    kernels = REFERENCE_KERNELS[function][0]
    if not bw or not any(c["kernel"] in kernels and c["points"] for c in bw["curves"]):
        raise ValueError(f"{source}: no bandwidth curve of {', '.join(kernels)} (probe with --bandwidth)")
    if bw["threads"] != 1:
        raise ValueError(f"{source}: its bandwidth is {bw['threads']} threads together; a sweep's calls run on "
                         "one thread: probe with --threads 1 for a roofline")


def roofline(points: list[Any], run_doc: dict[str, Any], function: str, probe: dict[str, Any]) -> pd.DataFrame:
    """Per sweep point: bytes/ns, the reference bandwidth where its data lives, and the fraction."""
    rows = []
    _, count = REFERENCE_KERNELS[function]
    for p in points:
        footprint, window = call_footprint(run_doc, function, p.size)
        ref = reference(probe, function, footprint)
        moved = p.bytes_per_ns * count
        rows.append({"variant": p.variant, "size": p.size, "bytes_per_ns": p.bytes_per_ns, "window": window,
                     "footprint": footprint, "reference_gbps": ref.gbps if ref else float("nan"),
                     "reference_kernel": ref.kernel if ref else "",
                     "reference_within_probe": ref.within if ref else False,
                     "fraction": moved / ref.gbps if ref and ref.gbps > 0 else float("nan")})
    return pd.DataFrame(rows)


def human_bytes(n: float | None) -> str:
    """A size in bytes as it reads: "48 KiB", "1 MiB", "508 MiB", "6.73 MiB"; "-" when unknown."""
    if n is None or not math.isfinite(n):
        return "-"
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            v = n / f
            return f"{v:.0f} {unit}" if abs(v - round(v)) < 0.005 else f"{v:.3g} {unit}"
    return f"{n:.0f} B"


def context_lines(doc: dict[str, Any]) -> list[str]:
    cfg, host, pages = doc["config"], doc["host"], doc["pages"]
    cpu = (host.get("cpu") or {}).get("model", "?") if isinstance(host.get("cpu"), dict) else "?"
    clk = doc["core_clock"]
    lines = [f"- CPU {cfg['cpu']} ({cpu}); core clock "
             + (f"{clk['ghz']:.2f} GHz ({clk['method']})" if clk["known"] else "unknown (cycles not given)"),
             f"- sizes {human_bytes(cfg['min_size'])} to {human_bytes(cfg['max_size'])} ({cfg['max_size_source']}), "
             f"{cfg['steps_per_octave']} per octave, {cfg['repeats']} repeats each; seed {cfg['seed']}",
             f"- huge pages: asked {pages['requested']}, had {pages['huge']}"
             + (f" ({pages['why']})" if pages["why"] else "")]
    if not doc["status"]["complete"]:
        lines.append("- INTERRUPTED: the curves hold the points measured before Ctrl-C")
    for w in doc["status"]["warnings"]:
        lines.append(f"- {w['severity']} [{w['code']}]: {w['message']}")
    return lines


def levels_table(doc: dict[str, Any]) -> str:
    lv = levels(doc)
    if not lv:
        return "(no levels: the file has no latency curve to find them in)"
    head = f"{'level':<8}{'reported':>12}{'found':>12}{'rises between':>26}{'ns/load':>10}{'cycles':>8}"
    lines = [head]
    for x in lv:
        rng = f"{human_bytes(x.below)} and {human_bytes(x.above)}" if x.below else "-"
        cyc = f"{x.cycles:.1f}" if x.cycles is not None else "-"
        lines.append(f"{x.name:<8}{human_bytes(x.reported):>12}{human_bytes(x.estimate):>12}{rng:>26}{x.ns:>10.2f}{cyc:>8}")
    lines.append(bandwidth_levels_line(doc))
    lines.extend(cross_check_lines(doc))
    lines.append(caches_found_line(doc))
    return "\n".join(lines)


def bandwidth_levels_line(doc: dict[str, Any]) -> str:
    """Where the read bandwidth drops (the levels found in it)."""
    bw = (doc.get("bandwidth") or {}).get("levels")
    if not bw or not bw["boundaries"]:
        return "read bandwidth drops: none found (no read curve, or a flat one)"
    return "read bandwidth drops past: " + ", ".join(human_bytes(b["estimate"]) for b in bw["boundaries"])


def caches_found_line(doc: dict[str, Any]) -> str:
    """What `run --cache-from` takes from this file."""
    f = doc.get("caches_found")
    if not f:
        why = ("a level beyond the curves, no latency curve, or interrupted" if doc.get("schema_version", 1) >= 2
               else "fewer than three levels, or interrupted")
        return f"caches found: none ({why}): --cache-from refuses this file"
    if "l1d_from" in f:  # version 2: each size as the cross-check kept it
        return (f"caches found (run --cache-from): L1d {human_bytes(f['l1d'])} ({f['l1d_from']}), "
                f"L2 {human_bytes(f['l2'])} ({f['l2_from']}), LLC {human_bytes(f['llc'])} ({f['llc_from']})")
    return (f"caches found (run --cache-from): L1d {human_bytes(f['l1d'])}, L2 {human_bytes(f['l2'])}, LLC {human_bytes(f['llc'])} "
            f"(LLC from {f['llc_from']})")


def cross_check_lines(doc: dict[str, Any]) -> list[str]:
    """Per level: the verdict of the cross-check against the reported sizes, and why (version 2)."""
    xc = doc.get("cross_check")
    if not xc:
        return []
    return [f"{x['level']}: {x['verdict']}, kept {human_bytes(x['kept'])} ({x['kept_from']}): {x['why']}"
            for x in xc["levels"]]


def bandwidth_points(doc: dict[str, Any], sizes: list[float] | None = None) -> pd.DataFrame:
    """GB/s per kernel (columns) at one measured size inside each level (nearest to half the
    found capacity, else the reported one) and at the largest size (rows)."""
    bw = bandwidth_frame(doc)
    if bw.empty:
        return pd.DataFrame()
    all_sizes = np.array(sorted(set(bw["size"])))
    if sizes is None:
        lv = levels(doc)
        caps = [x.estimate for x in lv if x.estimate] or [doc["host"]["caches"][k] for k in ("l1d", "l2", "llc")]
        sizes = [c / 2 for c in caps] + [float(all_sizes[-1])]
    picked = sorted({int(all_sizes[np.argmin(np.abs(np.log2(all_sizes / s)))]) for s in sizes})
    table = bw[bw["size"].isin(picked)].pivot_table(index="size", columns="kernel", values="gbps", sort=False)
    table = table[list(dict.fromkeys(bw["kernel"]))]
    table.insert(0, "footprint", [human_bytes(s) for s in table.index])
    return table.reset_index(drop=True)


def bandwidth_table(doc: dict[str, Any], sizes: list[float] | None = None) -> str:
    """bandwidth_points as terminal text."""
    t = bandwidth_points(doc, sizes)
    if t.empty:
        return "(no bandwidth curves)"
    kernels = [c for c in t.columns if c != "footprint"]
    lines = [f"{'size':>12}" + "".join(f"{k:>11}" for k in kernels)]
    for _, row in t.iterrows():
        lines.append(f"{row['footprint']:>12}" + "".join(f"{row[k]:>11.1f}" if pd.notna(row[k]) else f"{'-':>11}"
                                                         for k in kernels))
    return "\n".join(lines)


def roofline_table(roof: pd.DataFrame, function: str, max_rows: int = 24) -> str:
    """Per size: where the data lives, the reference bandwidth there, and each variant's bytes/ns
    as a fraction of it."""
    if roof.empty:
        return "(no points)"
    kernels, count = REFERENCE_KERNELS[function]
    variants = list(dict.fromkeys(roof["variant"]))
    sizes = sorted(set(roof["size"]))
    rows, step = evenly(sizes, max_rows)
    head = f"{'size':>10} {'data in':<30}{'reference GB/s':>22}" + "".join(f" {v[:22]:>24}" for v in variants)
    lines = [head]
    for s in rows:
        g = roof[roof["size"] == s]
        r0 = g.iloc[0]
        ref = f"{r0['reference_gbps']:.1f} {r0['reference_kernel']}" + ("" if r0["reference_within_probe"] else "*")
        row = f"{s:>10} {r0['window']:<30}{ref:>22}"
        for v in variants:
            p = g[g["variant"] == v].iloc[0]
            row += f" {p['bytes_per_ns']:>10.2f} B/ns {p['fraction']:>7.0%}"
        lines.append(row)
    lines.append(f"reference: the best of {', '.join(kernels)} in the probe at the footprint of the calls' window"
                 + (" (bytes compared count twice: both buffers are read)" if count == 2 else "")
                 + "; * beyond the probe's sizes: its largest point's value")
    if step > 1:
        lines.append(f"(every {step}th size of {len(sizes)})")
    return "\n".join(lines)


def roofline_sentences(roof: pd.DataFrame, function: str) -> list[str]:
    """One line per variant at the largest size: "libc memcpy at 1 MiB reaches 71 % of copy
    bandwidth (...)"."""
    out = []
    if roof.empty:
        return out
    top = roof["size"].max()
    for _, p in roof[roof["size"] == top].iterrows():
        out.append(f"{p['variant']} {function} at {human_bytes(top)} reaches {p['fraction']:.0%} of the measured "
                   f"{p['reference_kernel']} bandwidth ({p['bytes_per_ns']:.2f} of {p['reference_gbps']:.2f} GB/s; "
                   f"data in the {p['window']})")
    return out

"""The placement check (memfbench run's `placement_check`, docs/methodology.md): whether each
process's small-call windows stayed in L1d and its large window's lines came from beyond the LLC,
as measured after its rounds. A comparison resting on processes whose check failed measured
something other than what its placement names, so every verdict line says so."""
from __future__ import annotations

from typing import Any

# what a failed window means, by what the window was expected to be
FAILURE_TEXT = {
    "l1": "small-call windows not in L1d",
    "beyond_llc": "large-window lines still cached",
    "cached": "window not kept in its cache",
}


def process_checks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Each process's placement check: the processes entries of a merged file, else the file's own;
    [] for files written before the check, or where it was not measured."""
    procs = doc.get("processes")
    if isinstance(procs, list) and procs:
        return [p["placement_check"] for p in procs if p.get("placement_check")]
    own = doc.get("placement_check")
    return [own] if own else []


def failures(docs: list[dict[str, Any]]) -> str:
    """One phrase naming every failed window and in how many of the checked processes, e.g.
    "small-call windows not in L1d in 10 of 10 processes"; "" when every check passed or none ran."""
    checks = [c for d in docs for c in process_checks(d)]
    counts: dict[str, int] = {}
    for c in checks:
        for key in ("small_window", "large_window"):
            w = c.get(key)
            if w and w.get("verdict") == "fail":
                text = FAILURE_TEXT.get(str(w.get("expect")), f"{key} misplaced")
                counts[text] = counts.get(text, 0) + 1
    n = len(checks)
    return "; ".join(f"{text} in {k} of {n} process{'es' if n != 1 else ''}" for text, k in counts.items())


def summary_lines(doc: dict[str, Any]) -> list[str]:
    """The check per window for a summary, one line each: verdict, measured and reference latency,
    over processes."""
    checks = process_checks(doc)
    if not checks:
        return ["- placement check: not recorded (a file from before the check)"]
    lines = []
    for key, name in (("small_window", "small-call windows"), ("large_window", "large window")):
        ws = [c[key] for c in checks if c.get(key)]
        if not ws:
            continue
        measured = [w for w in ws if w.get("verdict") in ("pass", "fail")]
        passed = sum(w["verdict"] == "pass" for w in measured)
        if not measured:
            lines.append(f"- placement check, {name}: not measured ({ws[0].get('why', '')})")
            continue
        ratios = sorted(w["ratio"] for w in measured)
        ns = sorted(w["ns_per_load"] for w in measured)
        ref = sorted(w["reference_ns"] for w in measured)
        mid = len(measured) // 2
        expect = {"l1": "in L1d", "beyond_llc": "beyond the LLC", "cached": "cached"}[measured[0]["expect"]]
        cmp = ">=" if measured[0]["expect"] == "beyond_llc" else "<="
        lines.append(f"- placement check, {name} (expected {expect}): passed in {passed} of {len(measured)} processes; median "
                     f"{ns[mid]:.2f} ns per load against {ref[mid]:.2f} ns reference, ratio {ratios[mid]:.2f} "
                     f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}; pass {cmp} {measured[0]['limit']:g})")
    return lines

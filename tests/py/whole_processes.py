"""Synthetic result files made whole: a test that deals a template's batches over more processes
than the template ran must also give the file a processes[] entry for each of them, as memfbench
does (the analysis refuses a batch of a process the file does not have: docs/analysis.md)."""
from __future__ import annotations

import copy
from typing import Any


def _own_entry(doc: dict[str, Any]) -> dict[str, Any]:
    """A processes[] entry made of a one-process file's own blocks (what a merged file keeps of
    each process: docs/json-schema.md, `processes`)."""
    keys = ("seeds", "timer", "batch", "rounds", "harness", "status", "layout", "placement_check")
    return {k: copy.deepcopy(doc[k]) for k in keys if k in doc}


def whole_processes(doc: dict[str, Any]) -> dict[str, Any]:
    """doc (changed in place, and returned) with one processes[] entry for every process its
    samples name, each with its rounds counted from its batches. Entries the file has keep the
    rest of their content; a new one copies entry (i mod the entries there were), or the file's
    own blocks when it had none. A one-process file whose batches are all process 0's is left as it
    is (it has no processes block)."""
    samples = doc["samples"]
    named = sorted(set(samples["process"]))
    have = [p for p in doc.get("processes") or [] if isinstance(p, dict)]
    if not have and named in ([], [0]):
        return doc
    by_index = {p["index"]: p for p in have}
    templates = have or [_own_entry(doc)]
    rounds: dict[int, set[int]] = {i: set() for i in named}
    warm: dict[int, set[int]] = {i: set() for i in named}
    for proc, rnd, w in zip(samples["process"], samples["round"], samples["warmup"]):
        rounds[proc].add(rnd)
        if w:
            warm[proc].add(rnd)
    total_s = float(doc["rounds"].get("duration_s", 0.0))
    out = []
    for k, i in enumerate(named):
        entry = copy.deepcopy(by_index.get(i) or templates[k % len(templates)])
        entry["index"] = i
        count, warmup = len(rounds[i]), len(warm[i])
        entry["rounds"] = {**entry.get("rounds", doc["rounds"]), "count": count, "warmup": warmup,
                           "measured": count - warmup, "duration_s": total_s / len(named)}
        out.append(entry)
    doc["processes"] = out
    return doc


def synthetic_study(doc: dict[str, Any]) -> dict[str, Any]:
    """A synthetic study made whole (whole_processes) with the premises a test reads it for holding
    by construction: no placement check (the real template's measured the template's run, and a
    loaded machine fails it) and no process the template's run dropped or ran again."""
    doc.pop("placement_check", None)
    whole_processes(doc)
    for p in doc.get("processes") or []:
        if isinstance(p, dict):
            for key in ("placement_check", "dropped", "rerun_of"):
                p.pop(key, None)
    return doc

"""Whether a change to the code left its result files the same: every field and every sample column
of a run before the change against the same run after it, where "the same" is judged against the
same run repeated before the change (timings, dates and addresses differ between any two runs;
nothing else may).

A path names one value: ``config.function``, ``processes[1].batch.passes``, and one column of the
samples as a whole, ``samples.round``. Used by tools/golden_compare.py.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Set

MISSING = object()


def flatten(doc: Any, prefix: str = "") -> Dict[str, Any]:
    """Every leaf of doc by its path; the samples' columns stay whole, one path each."""
    out: Dict[str, Any] = {}
    if isinstance(doc, dict):
        if not doc:
            out[prefix] = {}
        for k, v in doc.items():
            path = f"{prefix}.{k}" if prefix else str(k)
            if path == "samples" and isinstance(v, dict):
                for col, values in v.items():
                    out[f"samples.{col}"] = values
            else:
                out.update(flatten(v, path))
    elif isinstance(doc, list):
        if not doc:
            out[prefix] = []
        # Warnings by their code: one more warning is not every later one changed.
        coded = all(isinstance(v, dict) and isinstance(v.get("code"), str) for v in doc)
        for i, v in enumerate(doc):
            out.update(flatten(v, f"{prefix}[{v['code'] if coded else i}]"))
    else:
        out[prefix] = doc
    return out


def differing(a: Dict[str, Any], b: Dict[str, Any]) -> Set[str]:
    """The paths whose values differ, or that only one side has."""
    return {p for p in set(a) | set(b) if a.get(p, MISSING) != b.get(p, MISSING)}


@dataclass(frozen=True)
class Verdict:
    paths: int                 # paths in the run before the change
    noise: Set[str]            # paths whose shape varies between runs before the change
    changed: Set[str]          # paths that differ between before and after
    unexplained: List[str]     # changed, but never between two runs before: what the change did

    @property
    def same(self) -> bool:
        return not self.unexplained


# Differ between any two runs a second apart, or with what else the machine does at the moment:
# the load, and the warnings a measured value raises when it crosses a bound (a timer overhead
# measured high makes batches short; a batch twice as long measured off its tolerance; the
# placement check's ratios): never a change's doing.
ALWAYS_NOISE = tuple(p.replace("[", "[[]") for p in (  # a path's "[" is a character, not a glob class
    "created_utc", "host.load_average*", "*warnings[load].*", "*warnings[batch].*", "*warnings[linearity].*",
    "*warnings[placement_check].*"))

_PROCESS = re.compile(r"^processes\[\d+\]\.")


_INDEX = re.compile(r"\[\d+\]")


def shape(path: str) -> str:
    """A path with its process and indices taken off: a field that varies in one process's entry
    may vary in any process's and in the top-level copy of process 0's (a process's background
    entry is its config.background), and one that varies for one variant may for any."""
    p = _PROCESS.sub("", path)
    p = "config." + p if p.startswith("background.") else p
    return _INDEX.sub("[*]", p)


def noise(before: Any, repeats: List[Any]) -> Set[str]:
    """What differs between before and any of its repeats: the shape of a path whose value
    differs, and the path itself where one side lacks it (one more process in a --target-ci study
    is not every process's fields varying)."""
    fb = flatten(before)
    out: Set[str] = set()
    for again in repeats:
        fa = flatten(again)
        out |= {shape(p) if p in fb and p in fa else p for p in differing(fb, fa)}
    return out


def compare(before: Any, after: Any, noise_shapes: Set[str]) -> Verdict:
    """before: a run with the code before the change; after: the same run with the code after it;
    noise_shapes: what varies between runs before the change (noise(), pooled over studies)."""
    fb, fa = flatten(before), flatten(after)
    changed = differing(fb, fa)
    unexplained = sorted(p for p in changed if shape(p) not in noise_shapes and p not in noise_shapes
                         and not any(fnmatch.fnmatchcase(p, pat) for pat in ALWAYS_NOISE))
    return Verdict(paths=len(fb), noise={p for p in fb if shape(p) in noise_shapes}, changed=changed,
                   unexplained=unexplained)


def describe(path: str, before: Dict[str, Any], after: Dict[str, Any]) -> str:
    """One line on a path that changed: its value before and after (columns by their length)."""
    def show(v: Any) -> str:
        if v is MISSING:
            return "(absent)"
        if isinstance(v, list) and len(v) > 4:
            return f"[{len(v)} values]"
        return repr(v)[:80]
    return f"{path}: {show(before.get(path, MISSING))} -> {show(after.get(path, MISSING))}"

"""Regression gate: fail only when a variant is slower than the baseline by more than P %, with
multiplicity-adjusted significance. Writes a JSON verdict beside the raw samples."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..io.files import json_text, write_text_atomic
from ..io.reading import result_stem
from .compare import Comparison


def status_of(verdict: str, p_adjusted: float, ci_adj_low: float, fail_if_slower: float, alpha: float) -> str:
    """regression: significant after adjustment and the whole simultaneous interval above 1 + P;
    slower-within-threshold: significant but the interval reaches below 1 + P; otherwise the
    verdict (faster, equivalent, inconclusive). Serves the within-run gate and the before/after
    gate (diff --fail-if-slower) alike."""
    if p_adjusted < alpha and ci_adj_low > 1 + fail_if_slower:
        return "regression"
    if p_adjusted < alpha and ci_adj_low > 1:
        return "slower-within-threshold"
    return verdict if verdict != "slower" else "slower-within-threshold"


def gate_status(c: Comparison, fail_if_slower: float, alpha: float) -> str:
    """The gate of a within-run comparison (status_of); one process gives no faster/slower claim."""
    if c.rounds < 2:
        return "inconclusive"
    if not c.across_processes and not c.single_process_allowed:
        return c.verdict  # one process: no faster/slower claim (compare.adjust_family)
    return status_of(c.verdict, c.p_adjusted, c.ci_adj_low, fail_if_slower, alpha)


def verdict_document(comps: list[Comparison], files: list[str], baseline: str | None, fail_if_slower: float,
                     level: float, adjust: str) -> dict[str, Any]:
    alpha = 1 - level
    rows = []
    for c in comps:
        d = c.as_dict()
        d["gate"] = gate_status(c, fail_if_slower, alpha)
        rows.append(d)
    return {
        "schema": "memfbench-gate", "schema_version": 1,
        "files": files, "baseline": baseline or (comps[0].baseline if comps else None),
        "fail_if_slower_percent": 100 * fail_if_slower, "level": level, "adjust": adjust,
        "rule": "fail when adjusted p < 1 - level and the simultaneous interval of time(variant)/time(baseline) "
                "lies entirely above 1 + fail_if_slower",
        "failed": any(r["gate"] == "regression" for r in rows),
        "comparisons": rows,
    }


def write_atomic(path: Path, doc: dict[str, Any], label: str = "", inputs: Iterable[str | Path] = ()) -> None:
    """The verdict as strict JSON (an interval that does not exist is null); raises files.OutputError."""
    write_text_atomic(path, json_text(doc), label, inputs)


def default_verdict_path(first_file: str) -> Path:
    p = Path(first_file)
    return p.with_name(result_stem(p) + ".verdict.json")

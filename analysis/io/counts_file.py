"""Counts files (`memfbench counts`): read and checked for the fields the table needs; what they
say is views/counts.py's to show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .reading import ResultFileError, read_json

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")


def read_counts(path: str | Path) -> dict[str, Any]:
    """Reads a counts file; ResultFileError names the first thing wrong with it."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-counts":
        raise ResultFileError(f"{path}: not a memfbench counts file (its \"schema\" is not \"memfbench-counts\")")
    variants = doc.get("variants")
    if not isinstance(variants, list) or not variants:
        raise ResultFileError(f"{path}: no variants")
    for i, v in enumerate(variants):
        per = v.get("per_call") if isinstance(v, dict) else None
        if not isinstance(per, dict) or any(not isinstance(per.get(e), (int, float)) for e in EVENTS):
            raise ResultFileError(f"{path}: variants/{i}: per_call lacks a count of {', '.join(EVENTS)}")
    return doc

"""Counts files (`memfbench counts`): read and checked against their JSON Schema
(docs/schema/memfbench-counts.schema.json) and the rules it cannot state; what they say is
views/counts.py's to show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .reading import ResultFileError
from .schema import first_error, read_small_document


EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")


def code_errors(doc: dict[str, Any]) -> list[str]:
    """A variant's code_bytes is the sum of its code's known sizes (null only when one of them, its own
    function's, is unknown), and code_bytes_complete says whether every size is known: the schema
    holds each field's type, not how they agree. Files written before the code was recorded have
    none of the three (the schema makes them come together)."""
    errors = []
    for i, v in enumerate(doc["variants"]):
        if "code" not in v:
            continue
        sizes = [f["bytes"] for f in v["code"]]
        known = sum(b for b in sizes if b is not None)
        if v["code_bytes"] is not None and v["code_bytes"] != known:
            errors.append(f"variants/{i}/code_bytes: {v['code_bytes']}, not the sum of its code's known sizes ({known})")
        elif v["code_bytes"] is None and None not in sizes:
            errors.append(f"variants/{i}/code_bytes: null, though every size in its code is known")
        elif v["code_bytes_complete"] and (None in sizes or v["code_bytes"] is None):
            errors.append(f"variants/{i}/code_bytes_complete: true, though a size in its code is unknown")
    return errors


def read_counts(path: str | Path) -> dict[str, Any]:
    """Reads a counts file; ResultFileError names the first thing wrong with it."""
    doc, errors = read_small_document(path, "memfbench-counts")
    if not errors:
        names = [v["name"] for v in doc["variants"]]
        if len(set(names)) != len(names) or doc["baseline"] not in names:
            errors.append("variants: names must differ, and the baseline must be one of them")
        errors += code_errors(doc)
    if errors:
        raise ResultFileError(first_error(path, "memfbench counts file", errors))
    return doc

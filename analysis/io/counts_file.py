"""Counts files (`memfbench counts`): read and checked against their JSON Schema
(docs/schema/memfbench-counts.schema.json) and the rules it cannot state; what they say is
views/counts.py's to show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .reading import ResultFileError
from .schema import first_error, read_small_document


EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")


def read_counts(path: str | Path) -> dict[str, Any]:
    """Reads a counts file; ResultFileError names the first thing wrong with it."""
    doc, errors = read_small_document(path, "memfbench-counts")
    if not errors:
        names = [v["name"] for v in doc["variants"]]
        if len(set(names)) != len(names) or doc["baseline"] not in names:
            errors.append("variants: names must differ, and the baseline must be one of them")
    if errors:
        raise ResultFileError(first_error(path, "memfbench counts file", errors))
    return doc

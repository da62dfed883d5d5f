"""Counts files (`memfbench counts`): read and checked against their JSON Schema
(docs/schema/memfbench-counts.schema.json) and the rules it cannot state; what they say is
views/counts.py's to show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .reading import ResultFileError, read_json
from .schema import SCHEMA_DIR, document_errors, first_error

COUNTS_SCHEMA_PATH = SCHEMA_DIR / "memfbench-counts.schema.json"

EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim")


def read_counts(path: str | Path) -> dict[str, Any]:
    """Reads a counts file; ResultFileError names the first thing wrong with it."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-counts":
        raise ResultFileError(f"{path}: not a memfbench counts file (its \"schema\" is not \"memfbench-counts\")")
    errors = document_errors(doc, COUNTS_SCHEMA_PATH)
    if not errors:
        names = [v["name"] for v in doc["variants"]]
        if len(set(names)) != len(names) or doc["baseline"] not in names:
            errors.append("variants: names must differ, and the baseline must be one of them")
    if errors:
        raise ResultFileError(first_error(path, "memfbench counts file", errors))
    return doc

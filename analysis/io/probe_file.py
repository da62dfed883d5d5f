"""Probe files (`memfbench probe`): their JSON Schema (docs/schema/memfbench-probe.schema.json)
and the rules it cannot state; what a probe file says is views/probe.py's to show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .reading import ResultFileError, read_json
from .schema import SCHEMA_DIR, checked_validator, load_schema_file

PROBE_SCHEMA_PATH = SCHEMA_DIR / "memfbench-probe.schema.json"


def load_probe_schema() -> dict[str, Any]:
    return load_schema_file(PROBE_SCHEMA_PATH)


def probe_errors(doc: Any) -> list[str]:
    """Schema violations and the cross-field rules, as 'path: message'."""
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-probe":
        return ["(top): not a memfbench probe file (its \"schema\" is not \"memfbench-probe\")"]
    v = checked_validator(load_probe_schema())
    errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
              for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))]
    if errors:
        return errors
    for kind, key in (("latency", "ns"), ("bandwidth", "gbps")):
        block = doc.get(kind)
        for i, c in enumerate(block["curves"] if block else []):
            sizes = [p["size"] for p in c["points"]]
            if sizes != sorted(set(sizes)):
                errors.append(f"{kind}/curves/{i}/points: sizes not ascending")
            for k, p in enumerate(c["points"]):
                if not p[f"{key}_min"] <= p[f"{key}_median"] <= p[f"{key}_max"]:
                    errors.append(f"{kind}/curves/{i}/points/{k}: median outside [min, max]")
    return errors


def read_probe(path: str | Path) -> dict[str, Any]:
    """Reads and validates a probe file (plain or .json.gz); ResultFileError names what is wrong."""
    doc = read_json(path)
    errors = probe_errors(doc)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultFileError(f"{path}: not a valid memfbench probe file: {errors[0][:300]}{more}")
    return doc

"""Older result files as the current schema version, so every reader sees one shape: version 1
(before --by-class), version 2 (code placements named without "code_")."""
from __future__ import annotations

from typing import Any


# Version 3 names code placement apart from data placement (`-p`, config.placement): these keys of
# a version 2 file, by the block that holds them, take "code_" in their name.
_CODE_PLACEMENT_KEYS = {
    "layout": {"kernel_placement": "kernel_code_placement", "kernel_placements": "kernel_code_placements",
               "placement_step": "code_placement_step", "placement_design": "code_placement_design"},
    "variant": {"placement": "code_placement", "placements": "code_placements"},
    "process": {"variant_placements": "variant_code_placements"},
}


def _renamed(block: Any, names: dict[str, str]) -> Any:
    return {names.get(k, k): v for k, v in block.items()} if isinstance(block, dict) else block


def _code_placement_names(doc: dict[str, Any]) -> dict[str, Any]:
    """A version 2 document's code-placement keys under their version 3 names."""
    out = {**doc, "schema_version": 3, "layout": _renamed(doc.get("layout"), _CODE_PLACEMENT_KEYS["layout"])}
    if isinstance(doc.get("variants"), list):
        out["variants"] = [_renamed(v, _CODE_PLACEMENT_KEYS["variant"]) for v in doc["variants"]]
    if isinstance(doc.get("processes"), list):
        out["processes"] = [
            {**_renamed(p, _CODE_PLACEMENT_KEYS["process"]), "layout": _renamed(p.get("layout"), _CODE_PLACEMENT_KEYS["layout"])}
            if isinstance(p, dict) and "layout" in p else _renamed(p, _CODE_PLACEMENT_KEYS["process"])
            for p in doc["processes"]]
    return out


def upgrade(doc: Any) -> Any:
    """An older result as the current version: version 1 (before --by-class) had every batch of the
    whole distribution, so its size_class column is all 0 and it has no by_class block; version 2
    named code placements without "code_". Anything else is returned as it is (validation then
    names what is wrong)."""
    if not (isinstance(doc, dict) and doc.get("schema") == "memfbench-run"):
        return doc
    if doc.get("schema_version") == 1:
        samples = doc.get("samples")
        if isinstance(samples, dict) and "size_class" not in samples and isinstance(samples.get("variant"), list):
            doc = {**doc, "schema_version": 2, "by_class": None,
                   "samples": {**samples, "size_class": [0] * len(samples["variant"])}}
    if doc.get("schema_version") == 2:
        doc = _code_placement_names(doc)
    return doc

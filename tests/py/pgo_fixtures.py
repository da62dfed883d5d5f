"""Result files with a NAME-pgo variant, made from a real file: memfbench run writes build.pgo
only with --pgo, so a test renames a second copy of a source variant (the same code, timed in the
same rounds) to NAME-pgo and gives it the build.pgo member and config.pgo that run --pgo writes
(docs/json-schema.md). Only the names and these members change: every sample is the run's own."""
from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any


def pgo_member(of: str, family: str = "gcc", train: str = "fleetbench/Memcpy_Fleet") -> dict[str, Any]:
    """A build.pgo member as memfbench run --pgo writes it."""
    digest = hashlib.sha256(f"{of}{family}{train}".encode()).hexdigest()
    return {"of": of, "compiler_family": family,
            "instrument_flags": "-O2 -fprofile-generate -fprofile-update=single" if family == "gcc"
            else "-O2 -fprofile-instr-generate",
            "use_flags": "-O2 -fprofile-use -Wno-missing-profile" if family == "gcc" else "-O2 -fprofile-instr-use=x",
            "train": {"distribution": train, "seed": "0x1234", "calls": 100000, "verified_calls": 1234,
                      "seconds": 0.4},
            "profile_sha256": digest, "profile_file": f"/cache/{digest[:8]}/default.profdata",
            "instrumented_key": hashlib.sha256(digest.encode()).hexdigest(),
            "merge_tool": None if family == "gcc" else "llvm-profdata-14 merge", "cached": True}


def add_pgo(doc: dict[str, Any], of: str, copy_name: str, family: str = "gcc", train: str | None = None,
            ) -> dict[str, Any]:
    """doc (a copy) with its variant copy_name renamed OF-pgo and made OF's profiled build, trained
    on `train` (None: the study's own distribution, config.pgo.train null)."""
    doc = copy.deepcopy(doc)
    base = next(v for v in doc["variants"] if v["name"] == of)
    name = f"{of}-pgo"
    for v in doc["variants"]:
        if v["name"] == copy_name:
            v["name"] = name
            v["build"] = copy.deepcopy(base["build"])
            v["build"]["pgo"] = pgo_member(of, family, train or doc["config"]["distribution"])
            # another profile is another code (io/identity.py keeps codes apart by this id)
            v["code_identity"] = {**v["code_identity"],
                                  "id": hashlib.sha256(json.dumps(v["build"]["pgo"]).encode()).hexdigest()[:12]}
    doc["config"]["variants"] = [name if n == copy_name else n for n in doc["config"]["variants"]]
    doc["config"]["pgo"] = {"train": train, "calls": 100000}
    return doc


def write(doc: dict[str, Any], path: Path) -> str:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)

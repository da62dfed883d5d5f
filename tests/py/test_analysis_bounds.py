"""What the analysis reads, bounded and whole (issue 42, cases 6, 12 and 14): a batch must be of a
process the file has; a gzip bomb is refused in one line with little memory; history streams its
files and keeps only each point; a recording's call count is a whole number from 1 to 2^53."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.io import schema, upgrade

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-run.json"


def analysis(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "analysis", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def golden() -> dict:
    """The golden run (2 processes) at the current schema version."""
    return upgrade.upgrade(json.loads(GOLDEN.read_text(encoding="utf-8")))


def one_line_refusal(p: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and all(w in lines[0] for w in words), lines[0]


# --- case 14: a batch of a process the file does not have ----------------------------------------

def test_a_batch_beyond_the_processes_is_refused_in_one_line(tmp_path: Path) -> None:
    """The golden run has processes 0 and 1: a batch of process 7 would be pooled as a third process
    and move the interval; the file is refused, named, and left as it was."""
    doc = golden()
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][3] = 7
    f = tmp_path / "beyond.json"
    f.write_text(json.dumps(doc))
    before = f.read_bytes()
    for command in ("summarize", "compare"):
        one_line_refusal(analysis(command, str(f)), str(f), "samples/process", "process 7",
                         "its 2 processes")
    assert f.read_bytes() == before


def test_a_one_process_file_has_process_0_only() -> None:
    """Without a processes block (a run of one process) every batch is process 0's."""
    doc = golden()
    del doc["processes"]
    doc["samples"]["process"] = [0] * doc["samples"]["count"]
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][-1] = 1
    errors = schema.validation_errors(doc)
    assert errors and errors[0].startswith("samples/process: 1 batches name process 1, not one of its one process")


def test_processes_numbered_with_a_gap_are_their_indices() -> None:
    """A processes block of indices 0 and 2 (not 0 and 1): process 2's batches are the file's, 1's
    are not."""
    doc = golden()
    doc["processes"][1]["index"] = 2
    doc["samples"]["process"] = [2 if p == 1 else p for p in doc["samples"]["process"]]
    assert schema.validation_errors(doc) == []
    bad = copy.deepcopy(doc)
    bad["samples"]["process"][0] = 1
    assert any(e.startswith("samples/process: 1 batches name process 1") for e in schema.validation_errors(bad))

"""--quiet-warnings: a known warning code is recorded in the file but not printed by the run (one
process or several), and the analysis hides it with one line naming it; unknown codes are refused
(the table itself: test_warnings.py)."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis

# --max-batches 200 stops the run early with warning 'max_batches' on any machine.
BOUNDED = ["-d", "fixed:64", "-v", "libc", "-v", "avx2", "-p", "l1", "--max-batches", "200", "--warmup-rounds", "2",
           "-t", "2"]


def memfbench_run(memfbench: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "run", *BOUNDED, *args, "-o", str(out)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_silenced_code_is_kept_in_the_file_but_not_printed(memfbench, tmp_path, processes):
    loud = memfbench_run(memfbench, tmp_path / "loud.json", "--processes", processes)
    assert loud.returncode == 0 and "warning: stopped after" in loud.stderr, loud.stderr
    out = tmp_path / "quiet.json"
    quiet = memfbench_run(memfbench, out, "--processes", processes, "--quiet-warnings", "max_batches,boost")
    assert quiet.returncode == 0, quiet.stderr
    assert "stopped after" not in quiet.stderr
    doc = json.loads(out.read_text())
    assert "max_batches" in {w["code"] for w in doc["status"]["warnings"]}
    assert doc["config"]["quiet_warnings"] == ["boost", "max_batches"]
    p = analysis("summarize", str(out), "--allow-single-process", timeout=120)
    assert p.returncode == 0, p.stderr
    assert "silenced (--quiet-warnings): max_batches" in p.stdout and "(max_batches):" not in p.stdout


def test_analysis_hides_codes_it_is_given(memfbench, tmp_path):
    out = tmp_path / "r.json"
    assert memfbench_run(memfbench, out, "--processes", "1", "-q").returncode == 0
    shown = analysis("summarize", str(out), timeout=120)
    assert "(max_batches):" in shown.stdout
    for args, env in ((["--quiet-warnings", "all"], {}), ([], {"MEMFBENCH_QUIET_WARNINGS": "max_batches"})):
        hidden = analysis("summarize", str(out), *args, timeout=120, env=env)
        assert hidden.returncode == 0 and "(max_batches):" not in hidden.stdout
        assert "silenced (--quiet-warnings):" in hidden.stdout and "max_batches" in hidden.stdout


@pytest.mark.parametrize("value,fragment", [("nope", "unknown code 'nope'"), ("boost,", "unknown code ''"),
                                            ("", "unknown code ''")])
def test_unknown_codes_are_refused(memfbench, tmp_path, value, fragment):
    p = memfbench_run(memfbench, tmp_path / "x.json", "--quiet-warnings", value)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0] and "governor" in lines[0], p.stderr
    assert not (tmp_path / "x.json").exists()

"""The tests' analysis runner (analysis_runner.py) gives what a fresh interpreter gives: the same
standard output, standard error and exit status for a command that succeeds, one a user gets wrong,
one that reads its standard input and one that writes a file in its working folder; an environment
variable reaches the command; a command past its time is killed and says so."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis, fresh_analysis
from conftest import ROOT

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"


@pytest.mark.parametrize("args", [["summarize", str(GOLDEN)], ["compare", str(GOLDEN), "--baseline", "nope"],
                                  ["summarize", "missing.json"], ["--help"], ["no-such-command"]])
def test_a_forked_command_is_the_fresh_one(args: list[str]) -> None:
    forked, fresh = analysis(*args), fresh_analysis(*args)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_standard_input_folder_and_environment_reach_the_command(tmp_path: Path) -> None:
    text = GOLDEN.read_text(encoding="utf-8")
    forked, fresh = analysis("summarize", "-", input=text), fresh_analysis("summarize", "-", input=text)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    for run, folder in ((analysis, tmp_path / "forked"), (fresh_analysis, tmp_path / "fresh")):
        folder.mkdir()
        p = run("export", str(GOLDEN), "--format", "csv", "-o", "out.csv", cwd=folder)
        assert p.returncode == 0, p.stderr
    assert (tmp_path / "forked" / "out.csv").read_bytes() == (tmp_path / "fresh" / "out.csv").read_bytes()
    shown = analysis("summarize", "nothing.json", env={"MEMFBENCH_ANALYZE_PROG": "my-analyze"})
    assert shown.returncode == 2 and shown.stderr.startswith("analysis: "), shown.stderr
    usage = analysis("--help", env={"MEMFBENCH_ANALYZE_PROG": "my-analyze"})
    assert usage.stdout.startswith("usage: my-analyze"), usage.stdout[:80]


def test_a_command_past_its_time_is_killed(tmp_path: Path) -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        analysis("report", str(GOLDEN), "-o", str(tmp_path / "r"), timeout=0.05)
    assert analysis("summarize", str(GOLDEN)).returncode == 0  # and the next one runs

"""analyze history on a series too short to show a change, and on a folder holding its own --json:
it says the test could not have found one (and how many files it would need), and it does not read
what it wrote as a point of the series."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.verdicts.history import ALPHA, points_needed, strongest_step_p
from analysis_runner import analysis

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["--rounds", "4", "--processes", "2", "--allow-single-process", "--cache", "32K:512K:32M", "-q"]


def test_the_strongest_step_of_a_short_series_cannot_reach_alpha() -> None:
    """Six points: 2 of the 20 ways to split them in halves look as split as a perfect step, so no
    permutation p-value goes below about 0.1; eight points can reach 0.05."""
    assert strongest_step_p(6) > ALPHA and strongest_step_p(8) < ALPHA
    assert points_needed(ALPHA, start=7) == 8
    assert strongest_step_p(5) == 1.0  # fewer than two sides of the least size: no split at all


@pytest.fixture(scope="module")
def six(tmp_path_factory, memfbench) -> Path:
    plugin = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build") / "tests" / "c" / "libknown_cost.so"
    if not plugin.exists():
        pytest.skip(f"{plugin} not built")
    d = tmp_path_factory.mktemp("six")
    for i in range(6):
        symbol = "mfb_memcpy_wrapped" if i < 3 else "mfb_memcpy_twice"
        subprocess.run([memfbench, "run", "-v", "libc", "-v", f"{plugin}:{symbol}=candidate", "--label", f"c{i + 1}",
                        *SHORT, "-o", str(d / f"s{i + 1}.json.gz")], check=True, timeout=120)
    return d


def test_six_files_say_why_no_change_is_found(six) -> None:
    p = analysis("history", str(six))
    assert p.returncode == 0, p.stderr
    text = p.stdout.split("(none", 1)[1].split("\n\n")[0]  # the sentence, wrapped to 80 columns
    line = "(none" + " ".join(text.split())
    assert "none could be: with 6 files" in line and "at least 8 files are needed" in line


def test_its_own_json_in_the_folder_is_not_a_point(six, tmp_path) -> None:
    d = tmp_path / "series"
    shutil.copytree(six, d)
    first = analysis("history", str(d), "--json", str(d / "history.json"))
    assert first.returncode == 0, first.stderr
    again = analysis("history", str(d), "--json", str(d / "history.json"))
    assert again.returncode == 0, again.stderr
    assert "6 files" in again.stdout

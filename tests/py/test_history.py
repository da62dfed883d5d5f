"""Results across commits (analysis/verdicts/history.py, memfbench analyze history): the detector's
statistics on series of known content, and the command on a real short series."""
from __future__ import annotations

import json
import re
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT

from analysis.io.load import load_runs
from analysis.verdicts import history

SHORT = ["--rounds", "30", "--warmup-rounds", "3", "--processes", "3", "-q", *GEOMETRY]


def brute_q(x: np.ndarray, tau: int) -> float:
    """E-divisive's statistic written out from its definition (Matteson and James 2014, alpha 1)."""
    a, b = x[:tau], x[tau:]
    m, k = len(a), len(b)
    cross = np.abs(a[:, None] - b[None, :]).mean()
    within_a = np.abs(a[:, None] - a[None, :]).sum() / (m * (m - 1))
    within_b = np.abs(b[:, None] - b[None, :]).sum() / (k * (k - 1))
    return m * k / (m + k) * (2 * cross - within_a - within_b)


def test_the_statistic_is_the_energy_distance_of_its_definition() -> None:
    x = np.random.default_rng(3).normal(size=17)
    q = history._energy_q(np.abs(x[:, None] - x[None, :]), 3)
    for tau in range(len(x) + 1):
        if 3 <= tau <= len(x) - 3:
            assert q[tau] == pytest.approx(brute_q(x, tau), rel=1e-9)
        else:
            assert q[tau] == -np.inf


def test_false_alarms_on_exchangeable_points_are_about_alpha() -> None:
    """Series without a change: the share flagged is the per-split significance, within what 200
    binomial draws allow (3 sd above)."""
    x = np.random.default_rng(5).standard_t(4, size=60)  # heavy tails: the test is distribution-free
    r = history.false_alarms(x, 12, 200, permutations=99, seed=11)
    assert r.flagged <= 200 * 0.05 + 3 * np.sqrt(200 * 0.05 * 0.95)


def test_a_step_of_four_spreads_is_found_where_it_is() -> None:
    rng = np.random.default_rng(7)
    before, after = rng.normal(0, 1, 40), rng.normal(4, 1, 40)
    r = history.detections(before, after, 6, 100, permutations=99, seed=13)
    assert r.at_step >= 90
    assert np.median(np.log(r.sizes)) == pytest.approx(4, abs=0.6)


def test_two_steps_are_both_found() -> None:
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.normal(0, 0.1, 8), rng.normal(1, 0.1, 8), rng.normal(0.3, 0.1, 8)])
    assert [c for c, _ in history.change_points(x, permutations=199)] == [8, 16]


def test_too_short_a_series_is_never_split() -> None:
    assert history.change_points(np.array([0.0, 0.0, 5.0, 5.0, 5.0]), min_size=3) == []


@pytest.fixture(scope="module")
def series(tmp_path_factory, memfbench) -> Path:
    """Eight short studies of one variant name, `candidate`: the counting wrapper, then from the
    fifth on the wrapper that copies twice (a step of tens of percent: the command's plumbing is
    tested here, its power on a 1 % step by tools/bench_history.py)."""
    plugin = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build") / "tests" / "c" / "libknown_cost.so"
    if not plugin.exists():
        pytest.skip(f"{plugin} not built")
    d = tmp_path_factory.mktemp("series")
    for i in range(8):
        symbol = "mfb_memcpy_wrapped" if i < 4 else "mfb_memcpy_twice"
        subprocess.run([memfbench, "run", "-v", "libc", "-v", f"{plugin}:{symbol}=candidate", "--label",
                        f"c{i + 1}", *SHORT, "-o", str(d / f"s{i + 1}.json.gz")], check=True, timeout=120)
    return d


def unwrapped(stdout: str) -> list[str]:
    """The output's lines with each sentence wrapped to 80 columns joined again: a line indented by
    two spaces that follows one of "- ", "note:" or "(none" continues it."""
    out: list[str] = []
    for line in stdout.splitlines():
        if line.startswith("  ") and not line.startswith("   ") and out and out[-1].startswith(("- ", "note:", "(none")):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def test_history_finds_the_step_and_names_the_code_change(series, tmp_path) -> None:
    p = analysis("history", str(series), "--csv", str(tmp_path / "c.csv"), "--json", str(tmp_path / "h.json"),
                 "--plot", str(tmp_path / "h"))
    assert p.returncode == 0, p.stderr
    lines = unwrapped(p.stdout)
    assert all(len(x) <= 80 for x in p.stdout.splitlines() if not x.startswith("plot: ")), p.stdout  # a path is whole
    glance = next(x for x in p.stdout.splitlines() if x.startswith("  candidate "))
    assert re.search(r"\+\d+\.\d % at #5\b", glance), glance  # the headline names the change
    found = [x for x in lines if x.startswith("- candidate: between #4 (c4) and #5 (c5)")]
    assert len(found) == 1 and "code changed there: candidate" in found[0]
    assert any(x.startswith("note: code changed at #5: candidate") for x in lines)
    csv = pd.read_csv(tmp_path / "c.csv")
    assert list(csv["position"]) == [5] and csv["change"][0] > 1.1 and csv["low"][0] > 1
    doc = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "memfbench-history" and len(doc["series"]) == 1
    s = doc["series"][0]
    assert [pt["label"] for pt in s["points"]] == [f"c{i}" for i in range(1, 9)]
    assert all(pt["ci_low"] <= pt["ratio"] <= pt["ci_high"] for pt in s["points"])
    assert (tmp_path / "h-candidate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_series_is_ordered_by_when_files_were_made_unless_told(series) -> None:
    files = sorted(series.glob("*.json.gz"), reverse=True)
    # created_utc has whole seconds, and short runs share them: each file gets its own here
    runs = [replace(r, doc={**r.doc, "created_utc": f"2026-01-01T00:00:{int(Path(r.path).name[1]):02d}Z"})
            for r in load_runs(files)]
    out, how = history.ordered(runs)
    assert "created_utc" in how and [Path(r.path).name for r in out] == [f"s{i}.json.gz" for i in range(1, 9)]
    out, how = history.ordered(runs, "given")
    assert out == runs
    # equal times keep the order given
    same = [replace(r, doc={**r.doc, "created_utc": "2026-01-01T00:00:00Z"}) for r in runs]
    assert history.ordered(same)[0] == same


def test_label_time_orders_by_commit_time(series) -> None:
    runs = load_runs(sorted(series.glob("*.json.gz")))
    # commit times in the reverse of the files' order
    dated = [replace(r, doc={**r.doc, "config": {**r.doc["config"], "label": {
        "text": f"c{i}", "source": "git", "folder": "/x", "commit_time": f"2026-01-{20 - i:02d}T00:00:00+00:00"}}})
        for i, r in enumerate(runs)]
    out, how = history.ordered(dated)
    assert "commit time" in how and out == dated[::-1]
    with pytest.raises(ValueError, match="no label with a commit time"):
        history.ordered(runs, "label-time")


@pytest.mark.parametrize("args,problem", [
    (["--alpha", "2"], "--alpha 2: must be between 0 and 1"),
    (["--permutations", "5"], "--permutations 5"),
    (["--min-size", "1"], "--min-size 1"),
    (["--order", "label-time"], "no label with a commit time"),
    (["--variant", "nosuch"], "--variant nosuch"),
])
def test_bad_options_are_one_line(series, args: list[str], problem: str) -> None:
    p = analysis("history", str(series), *args)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and problem in p.stderr


def test_a_folder_without_results_is_one_line(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    p = analysis("history", str(tmp_path))
    assert p.returncode == 2 and "a folder with no result file" in p.stderr and len(p.stderr.splitlines()) == 1


def test_the_power_table_finds_a_large_injected_step_and_not_a_null_one() -> None:
    x = np.random.default_rng(21).normal(0, 0.01, 30)
    big = history.injected(x, np.expm1(0.05), 12, 60, permutations=99, seed=3)  # five spreads
    assert big.at_step >= 54
    null = history.injected(x, 0.0, 12, 60, permutations=99, seed=3)
    assert null.flagged <= 60 * 0.05 + 3 * np.sqrt(60 * 0.05 * 0.95)

"""A study's cost by phase (issue 53): the parent's timings of each process, the phases that add up
to a process's life and to the study's wall time, and the clock rate a later process checks rather
than measures again. Structure and arithmetic only: no time is asserted."""
from __future__ import annotations

import json
import subprocess
import time

import pytest

from conftest import GEOMETRY, binary

from analysis.io.cost import EXEC, MERGE, PARENT, PHASES, ROUNDS, NoLifetime, process_cost, study_cost


def entry(lifetime: float, merge: float = 0.002, **stages: float) -> dict:
    setup = {"before_rounds_s": 0.1, "arena_map_s": 0.03, "arena_fill_s": 0.02, "workload_s": 0.001,
             "selfcheck_s": 0.005, "verification_s": 0.001, "calibration_s": 0.03, "classes_s": 0.0,
             "after_rounds_s": 0.02, "lifetime_s": lifetime, "merge_s": merge, **stages}
    return {"index": 1, "setup": setup, "rounds": {"duration_s": 0.15, "warmup_detail": {"seconds": 0.01}}}


def test_a_process_phases_add_up_to_its_life_and_its_merge() -> None:
    p = process_cost(entry(0.3))
    assert set(p.phases) == set(PHASES)
    assert sum(p.phases.values()) == pytest.approx(0.3 + 0.002)
    # the set-up the stages do not name is the rest of before_rounds; exec is what no stage covers
    assert p.phases[EXEC] == pytest.approx(0.3 - 0.1 - 0.15 - 0.02)
    assert p.fixed_s == pytest.approx(0.3 + 0.002 - 0.15) and p.phases[ROUNDS] == 0.15 and p.warmup_s == 0.01


def test_a_file_without_the_parents_timings_is_named() -> None:
    e = entry(0.3)
    del e["setup"]["lifetime_s"]
    with pytest.raises(NoLifetime, match="process 1: no setup.lifetime_s"):
        process_cost(e)


def test_the_study_is_its_processes_and_the_parents_part() -> None:
    doc = {"processes": [entry(0.5), entry(0.3), entry(0.31)]}
    c = study_cost(doc, 1.2)
    assert c.parent_s == pytest.approx(1.2 - (0.5 + 0.3 + 0.31) - 3 * 0.002)
    assert sum(c.total(ph) for ph in (*PHASES, PARENT)) == pytest.approx(1.2)


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> tuple[dict, float]:
    out = tmp_path_factory.mktemp("phases") / "s.json"
    t0 = time.monotonic()
    p = subprocess.run([binary(), "run", "-q", "--processes", "3", "-t", "0.6", "-v", "libc", "-v", "bytes",
                        *GEOMETRY, "-o", str(out)], capture_output=True, text=True, timeout=300)
    wall = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text()), wall


def test_a_real_study_adds_up(study) -> None:
    """Every process's stages lie inside the life the parent saw (so what no stage covers is
    positive), and the processes lie inside the invocation's wall time."""
    doc, wall = study
    c = study_cost(doc, wall)
    assert len(c.processes) == len(doc["processes"]) >= 3
    for p in c.processes:
        assert p.phases[EXEC] > 0 and p.phases[MERGE] > 0, p.phases
        assert sum(p.phases.values()) == pytest.approx(p.lifetime_s + p.phases[MERGE])
    assert c.parent_s > 0


def test_later_processes_check_the_first_ones_clock_rate(study) -> None:
    doc, _ = study
    first, *later = doc["processes"]
    assert "hz_check_ppm" not in first["timer"]
    if first["timer"]["name"] != "tsc":
        pytest.skip(f"the {first['timer']['name']} clock's rate is architected or nominal: nothing to check")
    for p in later:
        t = p["timer"]
        assert "hz_check_ppm" in t
        took = abs(t["hz_check_ppm"]) <= 100
        # within 100 ppm it reads the clock at the first process's rate, else it calibrated again
        assert (t["hz"] == first["timer"]["hz"]) == took, t
        assert ("first process's rate, checked" in t["hz_source"]) == took, t["hz_source"]


def test_a_rate_that_disagrees_is_calibrated_again(tmp_path) -> None:
    """--timer-hz (what a parent gives its later processes) far from the counter's rate: the process
    measures the rate in full and says why."""
    out = tmp_path / "p.json"
    p = subprocess.run([binary(), "run", "-q", "--processes", "4", "--process-index", "1", "--batch-passes", "1",
                        "--rounds", "4", "--warmup-rounds", "1", "-d", "fixed:64", "-v", "libc", "--timer-hz", "1000",
                        *GEOMETRY, "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    t = json.loads(out.read_text())["timer"]
    if t["name"] != "tsc":
        pytest.skip(f"the {t['name']} clock's rate is not calibrated")
    assert t["hz_check_ppm"] > 100 and t["hz"] > 1e6
    assert "off by more than 100 ppm here" in t["hz_source"]


def test_the_tools_table_has_a_row_per_phase_and_every_run() -> None:
    """tools/phase_profile.py's table: a row for every phase and the parent's part, the fixed cost
    and the wall time, a column of each kind per binary, and each run's wall time after it."""
    from tools.phase_profile import table
    runs = {lb: [study_cost({"processes": [entry(0.5), entry(0.3), entry(lt)]}, w) for lt, w in ((0.31, 1.3), (0.33, 1.4))]
            for lb in ("before", "this")}
    rows = table(runs)
    names = [r.split(" | ")[0].lstrip("| ") for r in rows if r.startswith("| ")][2:]
    assert names[:len(PHASES) + 1] == [*PHASES, PARENT]
    assert "**fixed cost (all but the rounds)**" in names and "**wall time**" in names
    assert all(r.count("|") == 1 + 1 + 3 * 2 for r in rows if r.startswith("|"))
    assert rows[-1] == "Wall time of each run, in the order they ran (interleaved): before 1.30, 1.40; this 1.30, 1.40 s."
    wall = next(r for r in rows if r.startswith("| **wall time**"))
    assert wall.endswith("| 1.35 |")

"""memfbench tune (issue 55): the racing rule's error rates (simulated, seeded), a small race end
to end (its folder, its history, the fresh study, a check, winner.c that builds), run --setting,
and every refusal in one line before anything is built or written."""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import GEOMETRY, ROOT, one_line_refusal

sys.path.insert(0, str(ROOT))
from analysis.verdicts.race import MIN_UNITS, run_race, step_alpha, stored_units  # noqa: E402

SOURCE = f"{ROOT / 'examples' / 'source' / 'memcpy_blocks.c'}:blocks_memcpy=blocks"


def simulate(means: dict[str, float], sd: float, per_step: int, steps: int, alpha: float, margin: float,
             rng: np.random.Generator):
    """A race over simulated studies: each step, per_step processes of every candidate still in it,
    each process's log ratio its mean plus normal noise."""
    studies, alive = [], list(means)
    race = None
    for t in range(1, steps + 1):
        studies.append((t, "base", {k: list(means[k] + sd * rng.standard_normal(per_step)) for k in alive}))
        race = run_race(studies, alpha, margin)
        alive = race.alive
        if race.done:
            break
    return race


def test_the_steps_spend_alpha_and_no_more() -> None:
    assert math.isclose(sum(step_alpha(0.05, t) for t in range(1, 200000)), 0.05, rel_tol=1e-4)


def test_a_planted_better_candidate_is_kept_and_leads() -> None:
    """Eight candidates, one 2 % faster, 0.5 % noise per process: in 200 seeded races the planted
    one is never dropped (the rule's bound is 5 %) and leads every race that ends by the rule."""
    rng = np.random.default_rng(55)
    means = {f"c{i}": 0.0 for i in range(8)} | {"best": math.log(0.98)}
    dropped = led = ended = 0
    for _ in range(200):
        race = simulate(means, 0.005, 4, 12, 0.05, 0.005, rng)
        dropped += race.candidates["best"].dropped_at is not None
        if race.done:
            ended += 1
            led += race.leader == "best"
    assert dropped <= 4 and ended >= 150 and led == ended, (dropped, ended, led)


def test_identical_candidates_lose_one_rarely() -> None:
    """Six identical candidates: each is a fastest one, so dropping any is the error the rule bounds
    by alpha; over 300 races the chance that a given one is dropped stays well under 5 %."""
    rng = np.random.default_rng(7)
    means = {f"c{i}": 0.0 for i in range(6)}
    drops = 0
    for _ in range(300):
        race = simulate(means, 0.01, 4, 6, 0.05, 0.0, rng)
        drops += race.candidates["c0"].dropped_at is not None
    assert drops / 300 <= 0.05, drops


def test_the_history_keeps_every_step_and_the_drop() -> None:
    rng = np.random.default_rng(3)
    race = simulate({"a": 0.0, "b": 0.1, "c": 0.001}, 0.005, 4, 5, 0.05, 0.005, rng)
    assert race.candidates["b"].dropped_at == 1 and len(race.candidates["b"].history) == 1
    assert race.steps[0].alive == 3 and race.steps[0].dropped == ["b"]
    doc = race.as_dict()
    assert doc["schema"] == "memfbench-race" and {c["name"] for c in doc["candidates"]} == {"a", "b", "c"}
    assert all(c["processes"] >= MIN_UNITS for c in doc["candidates"])


def raced(steps: list[dict[str, list[float]]], resume: bool) -> dict:
    """A race over simulated steps, each step's studies those of the candidates still in it: each
    step's analysis from the last race.json and that step alone (resume), or from every step."""
    doc: dict = {}
    ran: list = []
    for t, units in enumerate(steps, 1):
        step = (t, "base", {k: u for k, u in units.items() if not doc or k in doc["alive"]})
        ran.append(step)
        race = run_race(stored_units(doc) + [step] if resume and doc else ran, 0.05, 0.005)
        doc = json.loads(json.dumps(race.as_dict()))  # as race.json holds it
    return doc


def test_a_race_resumed_from_its_json_decides_as_the_whole_race() -> None:
    """memfbench tune gives each step's analysis the last race.json and that step's studies only:
    the units race.json keeps must make the same race as every study read again."""
    rng = np.random.default_rng(11)
    steps = [{f"c{i}": list(0.004 * i + 0.01 * rng.standard_normal(4)) for i in range(6)} for _ in range(6)]
    whole = raced(steps, resume=False)
    assert raced(steps, resume=True) == whole
    assert any(c["dropped_at"] for c in whole["candidates"]), "the race dropped nobody: no decision compared"


def test_resume_refuses_a_race_of_another_rule(memfbench, tmp_path: Path) -> None:
    doc = run_race([(1, "base", {"a": [0.0, 0.001, -0.001, 0.0], "b": [0.01, 0.011, 0.009, 0.01]})], 0.05, 0.005)
    race = tmp_path / "race.json"
    race.write_text(json.dumps(doc.as_dict()))
    p = subprocess.run([memfbench, "analyze", "race", "--resume", str(race), "--alpha", "0.1",
                        str(tmp_path / "step-002-01.json.gz")], capture_output=True, text=True, timeout=60)
    one_line_refusal(p, "--resume", "--alpha 0.05", "not 0.1 and 0.5")


def test_a_candidate_that_runs_after_its_drop_is_refused() -> None:
    studies = [(1, "base", {"a": [0.0, 0.001, -0.001, 0.0], "b": [0.2, 0.21, 0.19, 0.2]}),
               (2, "base", {"a": [0.0] * 4, "b": [0.2] * 4})]
    with pytest.raises(ValueError, match="b ran after it was dropped"):
        run_race(studies, 0.05, 0.005)
    with pytest.raises(ValueError, match="different baselines"):
        run_race([(1, "x", {"a": [0.0] * 4}), (1, "y", {"b": [0.0] * 4})], 0.05, 0.005)


def small_race(folder: Path, memfbench: str) -> Path:
    # a folder whose path holds a star before a slash: winner.c names it in a comment, which must not end there
    out = folder / "a*" / "t"
    out.parent.mkdir()
    p = subprocess.run([memfbench, "tune", "-q", "-o", str(out), "-v", SOURCE, "--param", "BLOCK=16,32,64",
                        "--budget", "3", "--step-processes", "3", "--step-time", "0.4", "--final-processes", "2",
                        "--final-time", "0.3", "--check-on", "fixed:64", "--check-processes", "2",
                        "--check-time", "0.2", "--", *GEOMETRY],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    (out.parent / "stdout.txt").write_text(p.stdout)
    return out


def test_a_small_race_end_to_end(tmp_path: Path, memfbench) -> None:
    """One race (one worker builds it): its folder, its summary, plot, report and notebook, and
    winner.c; each part a function below."""
    tuned = small_race(tmp_path, memfbench)
    folder_holds_the_race_the_fresh_study_and_the_checks(tuned)
    the_summary_names_the_winner_and_where_it_holds(tuned, memfbench)
    winner_c_builds_as_it_is(tuned, tmp_path)
    if os.environ.get("MEMFBENCH_NOTEBOOKS", "1") != "0":
        the_tune_notebook_executes_headless(tuned)


def folder_holds_the_race_the_fresh_study_and_the_checks(tuned: Path) -> None:
    tune = json.loads((tuned / "tune.json").read_text())
    race = json.loads((tuned / "race.json").read_text())
    assert tune["schema"] == "memfbench-tune" and tune["candidates"] == 3 and tune["steps"] >= 1
    names = {c["name"] for c in race["candidates"]}
    assert names == {f"blocks[BLOCK={b}]" for b in (16, 32, 64)} and race["leader"] == tune["leader"] in names
    assert set(race["alive"]) <= names and tune["ended_by"] in ("budget", "rule")
    for c in race["candidates"]:  # every step a candidate ran in is in its history, up to its drop
        steps = [h["step"] for h in c["history"]]
        assert steps == list(range(1, len(steps) + 1))
        assert c["dropped_at"] is None or c["dropped_at"] == steps[-1]
    steps = sorted(tuned.glob("race/step-*.json.gz"))
    assert len(steps) == tune["steps"]
    final = subprocess.run([sys.executable, "-c", "import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); "
                            "print(json.dumps([v['name'] for v in d['variants']]), d['config']['processes'])",
                            str(tuned / "final.json.gz")], capture_output=True, text=True, check=True).stdout
    variants, processes = final.rsplit(" ", 1)
    assert json.loads(variants)[:2] == ["libc", tune["leader"]] and int(processes) == 2
    dists = [c["distribution"] for c in tune["checks"]]
    assert "fixed:64" in dists and "fleetbench/Memcpy_Fleet" not in dists and "fleetbench/Memcpy_3" in dists
    assert all((tuned / c["file"]).exists() for c in tune["checks"])


def the_summary_names_the_winner_and_where_it_holds(tuned: Path, memfbench) -> None:
    text = (tuned.parent / "stdout.txt").read_text()
    assert text.startswith("tune: 3 candidates") and "fresh study (2 processes" in text
    assert re.search(r"^race: \d+ steps? in \d+ s (of the 3-s budget|\(budget 3 s: the first step always runs "
                     r"whole\)); ended by (the budget|the rule) \(.+\); \d left of 3; drop rule: ", text, re.M), text
    assert ("where the gain holds: " in text or "answer: no candidate of this family beats libc" in text)
    assert "winner: BLOCK=" in text
    png = tuned.parent / "race.png"
    p = subprocess.run([memfbench, "analyze", "tune", str(tuned), "--plot", str(png)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and p.stdout == text, p.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    report = tuned.parent / "report"
    p = subprocess.run([memfbench, "analyze", "tune", str(tuned), "--report", str(report)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and f"report: {report}/report.md and {report}/report.html" in p.stdout, p.stderr
    page = (report / "report.html").read_text()
    assert "<h2>The race</h2>" in page and "data:image/png;base64," in page and "winner: BLOCK=" in page
    p = subprocess.run([memfbench, "analyze", "tune", str(tuned.parent)], capture_output=True, text=True, timeout=60)
    one_line_refusal(p, "tune.json", "is this a folder memfbench tune wrote?")


def winner_c_builds_as_it_is(tuned: Path, tmp_path: Path) -> None:
    tune = json.loads((tuned / "tune.json").read_text())
    src = (tuned / "winner.c").read_text()
    for setting in tune["leader_setting"].split(","):
        name, value = setting.split("=")
        assert f"#define {name} {value}\n" in src
    obj = tmp_path / "w.o"  # tmp_path: the test's own folder
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-c", str(tuned / "winner.c"), "-o", str(obj)], check=True)
    syms = subprocess.run(["nm", str(obj)], capture_output=True, text=True, check=True).stdout
    assert " T blocks_memcpy" in syms


@pytest.mark.parametrize("args,words", [
    ([], ["no family"]),
    (["--family", "nope"], ["--family: 'nope' is not a built-in family"]),
    (["-v", SOURCE], ["no --param"]),
    (["--family", "memcpy", "-v", SOURCE], ["--family memcpy and -v"]),
    (["--family", "memcpy", "-f", "memset"], ["-f memset: the memcpy family is of memcpy"]),
    (["--family", "memcpy", "--budget", "10x"], ["--budget: '10x' is not a time"]),
    (["--family", "memcpy", "--group", "31"], ["--group: '31'"]),
    (["--family", "memcpy", "--margin", "-1"], ["--margin: '-1'"]),
    (["--family", "memcpy", "--", "-t", "3"], ["-t after --", "--step-time"]),
    (["--family", "memcpy", "--", "--setting=A=1"], ["--setting=A=1 after --"]),
    (["--family", "memcpy", "--", "--out=x"], ["--out=x after --", "--output"]),
    (["--family", "memcpy", "--", "-qvlibc"], ["-qvlibc after --", "--variant"]),
    (["-v", SOURCE, "--param", "BLOCK=16", "-b", "BLOCK=64"], ["--setting 'BLOCK=64'", "not one of --param BLOCK"]),
    (["-v", SOURCE, "--param", "BLOCK=16,32", "-b", "BLOCK=16"], ["1 candidate", "two or more"]),
    (["--family", "memcpy", "--step-processes", "8", "--step-time", "0.4"], ["--step-time over --step-processes",
                                                                             "0.05 s"]),
], ids=["none", "unknown-family", "no-param", "both", "function", "budget", "group", "margin", "run-time",
        "run-setting", "run-abbreviated", "run-grouped", "baseline-setting", "one-candidate", "shape"])
def test_a_bad_tune_is_one_line_and_writes_nothing(memfbench, tmp_path: Path, args, words) -> None:
    out = tmp_path / "t"
    p = subprocess.run([memfbench, "tune", "-o", str(out), *args], capture_output=True, text=True, timeout=60)
    one_line_refusal(p, *words)
    assert not out.exists() and not list(tmp_path.iterdir())


def test_tune_help_lists_the_families(memfbench) -> None:
    p = subprocess.run([memfbench, "tune", "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "usage: memfbench tune" in p.stdout and "\n  memcpy   120 memcpys" in p.stdout


def test_the_generated_family_builds_and_verifies(memfbench, tmp_path: Path) -> None:
    """Four corners of the generated memcpy (the smallest and largest choices of each macro) are
    built and verified on every call shape; the run names each by its setting."""
    src = f"{ROOT / 'families' / 'memcpy.c'}:family_memcpy=family"
    out = tmp_path / "f.json"
    p = subprocess.run([memfbench, "run", "-q", "--processes", "2", "-t", "0.2", "-v", "libc", "-v", src,
                        "--param", "SMALL_MAX=16,256", "--param", "BLOCK=16,64", "--param", "ALIGN=0,1",
                        "--param", "REP_FROM=0,1024", "--setting", "SMALL_MAX=16,BLOCK=16,ALIGN=0,REP_FROM=0",
                        "--setting", "REP_FROM=1024,ALIGN=1,BLOCK=64,SMALL_MAX=256", *GEOMETRY, "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    names = [v["name"] for v in doc["variants"]]
    assert names == ["libc", "family[SMALL_MAX=16,BLOCK=16,ALIGN=0,REP_FROM=0]",
                     "family[SMALL_MAX=256,BLOCK=64,ALIGN=1,REP_FROM=1024]"]
    assert all(v["verified_calls"] > 0 for v in doc["variants"][1:])
    assert doc["config"]["settings"] == ["[SMALL_MAX=16,BLOCK=16,ALIGN=0,REP_FROM=0]",
                                         "[SMALL_MAX=256,BLOCK=64,ALIGN=1,REP_FROM=1024]"]


@pytest.mark.parametrize("args,words", [
    (["--param", "BLOCK=16", "--setting", "BLOCK=8"], ["--setting 'BLOCK=8': 8 is not one of --param BLOCK's"]),
    (["--setting", "BLOCK=8"], ["--setting names values of --param macros"]),
    (["--param", "BLOCK=16,32", "--setting", "BLOCK=16", "--setting", "BLOCK=16"], ["the same setting as"]),
    (["--param", "BLOCK=16,32", "--setting", "X=16"], ["'X' is not a --param macro"]),
    (["--param", "BLOCK=16,32", "--param", "L=1,2", "--setting", "BLOCK=16"], ["no value of L"]),
    (["--param", "BLOCK=16,32", "--setting", "BLOCK=16,BLOCK=32"], ["BLOCK given twice"]),
    (["--param", "BLOCK=16,32", "--setting", "BLOCK"], ["expected NAME=VALUE"]),
], ids=["value", "no-param", "twice", "macro", "missing", "macro-twice", "no-equals"])
def test_a_bad_setting_is_one_line(memfbench, tmp_path: Path, args, words) -> None:
    out = tmp_path / "o.json"
    p = subprocess.run([memfbench, "run", "-v", "libc", "-v", SOURCE, *args, *GEOMETRY, "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    one_line_refusal(p, *words)
    assert not out.exists()


def the_tune_notebook_executes_headless(tuned: Path) -> None:
    import nbclient
    import nbformat
    nb_dir = ROOT / "analysis" / "notebooks"
    nb = nbformat.read(nb_dir / "tune.ipynb", as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed with outputs"
    saved = {k: os.environ.get(k) for k in ("MEMFBENCH_TUNE", "MPLBACKEND")}
    os.environ["MEMFBENCH_TUNE"], os.environ["MPLBACKEND"] = str(tuned), "module://matplotlib_inline.backend_inline"
    try:
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(nb_dir)}}).execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    text = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "image/png" in text and "winner: BLOCK=" in text and "dropped at step" in text

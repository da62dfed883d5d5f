"""The process is the sampling unit by default: a default run merges at least 10 fresh processes,
each with its own recorded layout; a one-process run says what its interval covers and gets no
faster/slower verdict unless allowed."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from analysis_runner import analysis
from conftest import AA_OF_LIBC, Result, kept_processes, run_in
from headline import headline_block, headline_rows

FAST = ["-d", "fixed:64", "-v", "libc", "-v", AA_OF_LIBC, "-p", "l1", "-t", "2", "-q"]


@pytest.fixture(scope="module")
def fast(memfbench, tmp_path_factory) -> Result:
    """One study of FAST, which the tests of a default study's processes read (each of its 2 s would
    be the same study again)."""
    return run_in(memfbench, tmp_path_factory.mktemp("fast"), *FAST)


def test_default_run_samples_whole_turns_of_processes(fast) -> None:
    """The default is 32 processes (every code placement's turn 4 times); a --time too short for 32
    shares of 0.1 s gets whole turns of 8 that fit (2 s: 16), and says so."""
    r = fast
    assert r.code == 0, r.stderr
    d = r.doc
    assert d["config"]["processes"] == 16 and d["config"]["processes_source"] == "default, fewer to fit --time"
    # every process the run started has its samples (on a loaded machine, also a starved one the
    # run dropped and the one that ran its slot again), and the run kept as many as it asked for
    assert sorted(set(d["samples"]["process"])) == sorted(p.get("index", i) for i, p in enumerate(d["processes"]))
    assert len(kept_processes(d)) == d["config"]["processes"] <= len(d["processes"])


def test_layout_choices_are_recorded_and_differ_between_processes(fast) -> None:
    d = fast.doc
    # the processes the run kept: a starved one that a loaded machine makes the run drop has its
    # design slot, and so its layout, run again by another (processes/processes.c), on purpose
    kept = kept_processes(d)
    layouts = [p["layout"] for p in kept]
    assert all({"stack_offset", "env_pad"} <= set(x) for x in layouts)
    assert all(0 <= x["stack_offset"] < 4096 and x["stack_offset"] % 16 == 0 for x in layouts)
    assert all(0 <= x["env_pad"] <= 4096 for x in layouts)
    assert len({(x["stack_offset"], x["env_pad"]) for x in layouts}) == len(layouts)
    seeds = {p["seeds"]["master"] for p in kept}
    assert len(seeds) == len(layouts)


def test_single_process_run_is_labelled_and_gives_no_verdict(run) -> None:
    r = run("-d", "fixed:64", "-v", "libc", "-v", "bytes", "--rounds", "30", "--processes", "1")
    assert r.code == 0, r.stderr
    assert "One process: these figures cover this process's code and data layout only" in r.stderr
    assert r.doc["config"]["processes"] == 1 and r.doc["config"]["allow_single_process"] is False
    p = analysis("summarize", str(r.out), "--detail")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("- bytes vs"))
    assert ": inconclusive," in line and "no faster/slower verdict from one process" in line
    # the headline: withheld, never slower, and tagged (among whatever tags the machine's state adds)
    row = headline_rows(headline_block(p.stdout))["bytes"]
    assert row["verdict"] == "withheld" and "[1 process]" in (row["tags"] or ""), row
    allowed = analysis("summarize", str(r.out), "--allow-single-process", "--detail")
    line = next(x for x in allowed.stdout.splitlines() if x.startswith("- bytes vs"))
    assert ": slower," in line  # a byte loop is several times slower than libc


def test_allow_single_process_is_recorded_and_honoured(run) -> None:
    r = run("-d", "fixed:64", "-v", "libc", "-v", "bytes", "--rounds", "30", "--processes", "1",
            "--allow-single-process", "-q")
    assert r.doc["config"]["allow_single_process"] is True
    p = analysis("summarize", str(r.out), "--detail")
    line = next(x for x in p.stdout.splitlines() if x.startswith("- bytes vs"))
    assert ": slower," in line


def test_multi_process_verdict_reports_prediction_and_layout_noise(fast) -> None:
    r = fast
    p = analysis("summarize", str(r.out), "--detail")
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith(f"- {AA_OF_LIBC} vs"))
    assert "a re-run would give" in line and "layout noise" in line
    # over every process of the file less those left out, each named in the line with its reason (a
    # loaded machine can starve or disturb one, and the run marks a starved one dropped and re-runs it)
    over = int(re.search(r" over (\d+) processes", line)[1])
    left_out = len(re.findall(r"process \d+ \((?:starved|disturbed|dropped by the run)", line))
    assert over + left_out == len(r.doc["processes"]) and len(kept_processes(r.doc)) == 16, line
    assert "within-process interval" in line


def batch_shape(doc: dict) -> tuple[int, int]:
    return doc["batch"]["calls_per_pass"], doc["batch"]["passes"]


def test_batch_shape_does_not_depend_on_the_other_variants(run) -> None:
    """The batch is sized on the distribution, not on the fastest variant of the study."""
    two = run("-d", "fleetbench/Memcpy_Fleet", "-v", "libc", "-v", "sizeclass", "--rounds", "4", "--processes", "1",
              "-q", out="two.json").doc
    many = run("-d", "fleetbench/Memcpy_Fleet", "-v", "libc", "-v", "sizeclass", "-v", "bytes", "-v", "noop",
               "--rounds", "4", "--processes", "1", "-q", out="many.json").doc
    assert batch_shape(two) == batch_shape(many)
    assert "256 KiB" in two["batch"]["rule"]


def test_every_process_times_the_first_processes_batch_shape(fast) -> None:
    d = fast.doc
    shapes = {(p["batch"]["calls_per_pass"], p["batch"]["passes"]) for p in d["processes"]}
    assert len(shapes) == 1
    assert "given" in d["processes"][1]["batch"]["rule"]


def test_priming_is_on_by_default_and_recorded(run) -> None:
    assert run("-d", "fixed:64", "-v", "libc", "--rounds", "3", "--processes", "1", "-q").doc["config"]["prime"] is True
    off = run("-d", "fixed:64", "-v", "libc", "--rounds", "3", "--processes", "1", "--no-prime", "-q", out="np.json")
    assert off.doc["config"]["prime"] is False


def test_code_placements_are_drawn_per_process_and_recorded(run) -> None:
    r = run("-d", "fixed:64", "-v", "libc", "-v", "sizeclass", "-v", "sizeclass-copy", "-p", "l1",
            "--processes", "6", "-t", "1.5", "-q")  # the default: one placement per process
    assert r.code == 0, r.stderr
    names = [v["name"] for v in r.doc["variants"]]
    drawn = []
    for p in r.doc["processes"]:
        lay = p["layout"]
        assert lay["code_placements"] == 8 and 0 <= lay["kernel_code_placement"] < 8
        assert int(lay["kernel_address"], 16) > 0
        place = dict(zip(names, p["variant_code_placements"]))
        assert place["libc"] is None  # libc's code is placed by the loader, not by memfbench
        assert 0 <= place["sizeclass"] < 8 and 0 <= place["sizeclass-copy"] < 8
        # an A/A copy never shares its original's placement within a process
        assert place["sizeclass"] != place["sizeclass-copy"]
        addr = dict(zip(names, p["variant_addresses"]))
        assert int(addr["sizeclass"], 16) % 4096 != int(addr["sizeclass-copy"], 16) % 4096
        drawn.append((lay["kernel_code_placement"], place["sizeclass"]))
    # balanced over the study: six processes take six different placements of the loop and of
    # each variant (each walks a permutation of the eight)
    assert len({k for k, _ in drawn}) == 6 and len({v for _, v in drawn}) == 6
    assert all(p["layout"]["code_placement_design"] == "balanced" for p in r.doc["processes"])
    assert r.doc["config"]["code_rotation"] == "process"
    assert all(x is None for p in r.doc["processes"] for x in p["variant_rotations"])


def test_code_placements_rotate_every_round_when_asked(run) -> None:
    """--code-rotation round: in every process the loop and each built-in run from all eight
    placements in each block of 8 rounds; where each starts, and so which placements meet in a
    round, is drawn per block; an A/A copy never meets its original's placement."""
    r = run("-d", "fixed:64", "-v", "libc", "-v", "sizeclass", "-v", "sizeclass-copy", "-p", "l1",
            "--processes", "4", "-t", "1.5", "-q", "--code-rotation", "round")
    assert r.code == 0, r.stderr
    assert r.doc["config"]["code_rotation"] == "round"
    names = [v["name"] for v in r.doc["variants"]]
    pairings = set()
    for p in r.doc["processes"]:
        lay = p["layout"]
        assert lay["code_rotation"] == "round" and sorted(lay["kernel_code_placements"]) == list(range(8))
        assert lay["kernel_code_placement"] == lay["kernel_code_placements"][0]
        rot = dict(zip(names, p["variant_rotations"]))
        assert rot["libc"] is None
        assert sorted(rot["sizeclass"]) == list(range(8)) and sorted(rot["sizeclass-copy"]) == list(range(8))
        assert all(a != b for a, b in zip(rot["sizeclass"], rot["sizeclass-copy"]))
        assert dict(zip(names, p["variant_code_placements"]))["sizeclass"] == rot["sizeclass"][0]
        # one step along the same permutation per round: the copy is the original shifted
        shift = rot["sizeclass"].index(rot["sizeclass-copy"][0])
        assert rot["sizeclass-copy"] == [rot["sizeclass"][(i + shift) % 8] for i in range(8)]
        pairings.add((tuple(lay["kernel_code_placements"]), shift))
    assert len(pairings) > 1  # drawn per process
    # the analysis groups rounds into blocks of 8 (every placement once in each)
    from analysis.io.load import load_run
    run0 = load_run(r.out)
    assert (run0.batches["code_block"] == run0.batches["round"] // 8).all()


def test_target_ci_adds_processes_until_the_process_level_interval_is_narrow(run, tmp_path) -> None:
    r = run("-d", "fixed:64", "-v", "libc", "-v", "bytes", "-p", "l1", "--processes", "2", "--target-ci", "50",
            "-t", "60", "-q")
    assert r.code == 0, r.stderr
    st = r.doc["status"]
    tc = st["target_ci"]
    assert tc["level"] == "processes" and tc["reached"] is True and st["stop_reason"] == "target_ci"
    assert tc["processes"] == len(kept_processes(r.doc)) == r.doc["config"]["processes"] >= 2  # a re-run slot: one
    # the C rule's half-width is the analysis's simultaneous interval (t over processes, Bonferroni)
    out = tmp_path / "cmp.json"
    p = analysis("compare", str(r.out), "--json", str(out))
    assert p.returncode == 0, p.stderr
    import json
    import math
    c = next(x for x in json.loads(out.read_text()) if x["variant"] == "bytes")
    half = math.exp((math.log(c["ci_adj_high"]) - math.log(c["ci_adj_low"])) / 2) - 1
    assert math.isclose(tc["half_widths"]["bytes"], half, rel_tol=0.02), (tc["half_widths"], half)


def test_target_ci_out_of_reach_stops_on_time_and_says_so(run) -> None:
    # libc against a byte loop: their per-process medians always differ (two A/A copies can give
    # the same median tick ratio in both processes, a zero-width interval that does reach the target)
    r = run("-d", "fixed:64", "-v", "libc", "-v", "bytes", "-p", "l1", "--processes", "2",
            "--target-ci", "0.0001", "-t", "2", "-q")
    assert r.code == 0, r.stderr
    st = r.doc["status"]
    assert st["stop_reason"] == "time" and st["target_ci"]["reached"] is False
    assert any(w["code"] == "target_ci" and "process-level" in w["message"] for w in st["warnings"])
    assert len(r.doc["processes"]) >= 2


def test_a_processes_run_prints_a_summary_that_matches_its_file(memfbench, tmp_path) -> None:
    """Not -q: the merged run ends with a table whose ratios are the medians over processes of each
    process's median paired ratio, recomputed here from the file."""
    import numpy as np

    out = tmp_path / "m.json"
    p = subprocess.run([memfbench, "run", "--rounds", "30", "--warmup-rounds", "2", "--processes", "3",
                        "-v", "libc", "-v", "avx2", "--code-rotation", "round", "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    s = {k: np.array(v) for k, v in d["samples"].items() if k != "count"}
    keep = ~s["warmup"].astype(bool)
    per_process = []
    from analysis.stats.placement_model import process_estimate
    assert d["config"]["code_rotation"] == "round"
    for proc in range(3):
        sel = keep & (s["process"] == proc)
        t = {v: s["ns"][sel & (s["variant"] == v)] for v in (0, 1)}
        blocks = s["round"][sel & (s["variant"] == 0)] // 8  # rows in round order for both variants
        # rotating placements: the median over full blocks of 8 rounds of each block's mean
        per_process.append(np.exp(process_estimate(np.log(t[1] / t[0]), blocks)))
    import re

    rows = {line.split()[0]: [float(x) for x in re.findall(r"-?\d+\.\d+", line)] for line in p.stderr.splitlines()
            if line.startswith("  ") and line.split()[0] in ("libc", "avx2")}
    assert "3 processes," in p.stderr and "Intervals and verdicts:" in p.stderr
    ratio, lo, hi = rows["avx2"][-3:]
    assert ratio == pytest.approx(np.median(per_process), abs=6e-4)
    assert lo == pytest.approx(min(per_process), abs=6e-4) and hi == pytest.approx(max(per_process), abs=6e-4)
    assert rows["libc"][-3:] == [1.0, 1.0, 1.0]

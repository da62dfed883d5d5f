"""memfbench sweep: sizes parsed into points, each point its own batches (no whole-distribution
batch), predictable or unpredictable sizes, alignments applied; the file validates against the
schema; the analysis tabulates and plots it; bad input is one line."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from analysis.io import schema
from analysis_runner import analysis

QUICK = ["--rounds", "6", "--warmup-rounds", "1", "-q", "-v", "libc", "-v", "sizeclass"]


def sweep(memfbench: str, out, sizes: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "sweep", sizes, *QUICK, *args, "-o", str(out)], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def predictable(memfbench, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("sw") / "sw.json"
    p = sweep(memfbench, out, "0-16:8,pow2:64-256,4K", "--processes", "2")
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


def test_points_are_the_sizes_each_its_own_batches(predictable):
    d = predictable
    assert schema.validation_errors(d) == []
    assert d["sweep"]["sizes"] == [0, 8, 16, 64, 128, 256, 4096] and d["sweep"]["mode"] == "predictable"
    classes = d["by_class"]["classes"]
    assert [(c["lo"], c["hi"]) for c in classes] == [(s, s) for s in d["sweep"]["sizes"]]
    s = {k: np.array(v) for k, v in d["samples"].items() if k != "count"}
    assert 0 not in set(s["size_class"])  # a sweep times its points only
    for c in classes:
        sel = s["size_class"] == c["index"]
        assert sel.any() and (s["bytes"][sel] == c["lo"] * s["calls"][sel]).all()
        assert c["selfcheck"]["passed"]
    # every round of every process times every point of every variant
    for (proc, rnd) in {(p, r) for p, r in zip(s["process"], s["round"])}:
        sel = (s["process"] == proc) & (s["round"] == rnd)
        assert len(s["size_class"][sel]) == len(classes) * len(d["variants"])


@pytest.mark.parametrize("mode,ranges", [("20", [(80, 120), (800, 1200)]), ("class", [(65, 128), (513, 1024)])])
def test_unpredictable_points_draw_around_their_size(memfbench, tmp_path, mode, ranges):
    out = tmp_path / "u.json"
    p = sweep(memfbench, out, "100,1000", "--unpredictable", mode, "--processes", "1")
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    assert [(c["lo"], c["hi"]) for c in d["by_class"]["classes"]] == ranges
    assert d["sweep"]["mode"] == ("spread" if mode == "20" else "class")
    assert schema.validation_errors(d) == []


def test_alignments_apply_to_every_point(memfbench, tmp_path):
    out = tmp_path / "a.json"
    p = sweep(memfbench, out, "64,256", "--align-src", "64", "--align-dst", "32", "--processes", "1")
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    assert (d["sweep"]["align_src"], d["sweep"]["align_dst"]) == (64, 32)
    t = d["distribution"]["tables"]
    assert t["src_alignment"]["lo"] == [64] and t["dst_alignment"]["lo"] == [32]


def test_analysis_tabulates_plots_and_summarizes(predictable, tmp_path):
    f = tmp_path / "sw.json"
    f.write_text(json.dumps(predictable))
    p = analysis("sweep", str(f), "--csv", str(tmp_path / "s.csv"), "--plot", str(tmp_path / "s"), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "size sweep" in p.stdout and "4096" in p.stdout
    assert len((tmp_path / "s.csv").read_text().splitlines()) == 1 + 7 * 2
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    for cmd in (["summarize", str(f)], ["report", str(f), "-o", str(tmp_path / "rep")]):
        p = analysis(*cmd, timeout=120)
        assert p.returncode == 0, (cmd, p.stderr)
    assert (tmp_path / "rep" / "run0_sweep.png").exists()


@pytest.mark.parametrize("args,fragment", [
    (["sweep", "0-x"], "'x' in '0-x' is not a size"),
    (["sweep", "pow2:8"], "expected LO-HI"),
    (["sweep", "9-3"], "HI is below LO"),
    (["sweep", "0-8:0"], "the step must be at least 1"),
    (["sweep", "8,,16"], "item 2"),
    (["sweep", "8", "--unpredictable", "100"], "--unpredictable: '100'"),
    (["sweep", "8", "--unpredictable", "often"], "--unpredictable: 'often'"),
    (["sweep", "8", "--align-src", "3"], "--align-src: '3' is not a power of two"),
    (["sweep", "8", "-d", "fixed:8"], "-d does not apply to a sweep"),
    (["sweep", "8", "--by-class"], "--by-class does not apply"),
    (["run", "--unpredictable", "20"], "--unpredictable applies to sweeps"),
    (["sweep", "0-100000:1"], "more than 4096 sizes"),
    (["sweep", "pow2:0-0"], "no power of two between LO and HI"),
    (["sweep"], "give the sizes first"),
])
def test_bad_sweeps_are_one_line(memfbench, tmp_path, args, fragment):
    out = tmp_path / "x.json"
    p = subprocess.run([memfbench, *args, "-o", str(out)] if len(args) > 1 else [memfbench, *args],
                       capture_output=True, text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], p.stderr
    assert not out.exists()


def test_analysis_sweep_refuses_a_replay(memfbench, tmp_path):
    out = tmp_path / "r.json"
    subprocess.run([memfbench, "run", *QUICK, "--processes", "1", "-o", str(out)], check=True, timeout=120)
    p = analysis("sweep", str(out))
    assert p.returncode == 2 and "not a sweep" in p.stderr and len(p.stderr.splitlines()) == 1

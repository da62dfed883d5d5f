"""--latency: each call waits for the previous call's result. The mode is recorded and labelled
by the analysis, every function runs in it, the harness noop is measured in the same mode, and
throughput and latency results are never pooled into one comparison. Speed is not asserted (a
timing test would fail on a noisy machine); the recorded figures are in docs/methodology.md."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from analysis.io.load import load_runs
from analysis.verdicts.compare import compare_runs
from analysis_runner import analysis

QUICK = ["--rounds", "20", "--warmup-rounds", "2", "-q"]


def run(memfbench: str, out, *args: str) -> dict:
    p = subprocess.run([memfbench, "run", *QUICK, *args, "-o", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("function", ["memcpy", "memmove", "memset", "memcmp", "bcmp"])
def test_every_function_runs_dependent_calls(memfbench, tmp_path, function):
    d = run(memfbench, tmp_path / "l.json", "-f", function, "--latency", "--processes", "1")
    assert d["config"]["measure"] == "latency"
    assert d["samples"]["count"] > 0 and d["harness"]["overhead_ns_per_call"] > 0


def test_mode_is_recorded_labelled_and_never_pooled(memfbench, tmp_path):
    common = ["-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", "--processes", "2"]
    thr = tmp_path / "thr.json"
    lat = tmp_path / "lat.json"
    assert run(memfbench, thr, *common)["config"]["measure"] == "throughput"
    assert run(memfbench, lat, *common, "--latency")["config"]["measure"] == "latency"
    comps = compare_runs(load_runs([thr, lat]))
    assert sorted(c.measure for c in comps) == ["latency", "throughput"]  # two comparisons, not one pooled
    assert all(c.processes + len(c.dropped) == 2 for c in comps)  # a process the load starved is named in dropped
    p = analysis("summarize", str(lat), "--detail", timeout=120)
    assert p.returncode == 0, p.stderr
    assert "- measure: latency" in p.stdout
    # the verdict's label names the mode; a failed placement check (a busy neighbour sharing L1d can
    # fail it on a VM) is flagged between the label and the verdict, never instead of it
    assert re.search(r"on fixed:64 \(latency\)( \[placement check failed: [^\]]+\])?: ", p.stdout), p.stdout
    # diff refuses to give a verdict between the two modes (it would be about the mode, not the code)
    d = analysis("diff", str(thr), str(lat), timeout=120)
    assert d.returncode == 2 and "measure: throughput -> latency" in d.stderr and "--force" in d.stderr, d.stderr

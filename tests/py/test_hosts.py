"""Many files, many hosts: files are grouped by CPU model; within a group, hosts pool as
replicates (each file's processes kept apart), different models get separate comparisons, lines,
tables and figures."""
from __future__ import annotations

import json
from pathlib import Path

from analysis.io.load import load_runs
from analysis.verdicts.compare import compare_runs
from analysis_runner import analysis
from test_interop import synthetic, template  # noqa: F401 (template is a fixture used by name)


def host_file(tmp: Path, template: dict, name: str, model: str, ratio: float, seed: int) -> str:
    d = synthetic(template, ratio, 0.01, 160, seed=seed)
    d["host"]["hostname"], d["host"]["cpu"]["model"] = name, model
    p = tmp / f"{name}.json"
    p.write_text(json.dumps(d))
    return str(p)


def test_files_group_by_cpu_model(template, tmp_path):
    files = [host_file(tmp_path, template, "a1", "Model A", 1.10, 1), host_file(tmp_path, template, "a2", "Model A",
                                                                                 1.10, 2),
             host_file(tmp_path, template, "b1", "Model B", 0.90, 3)]
    comps = compare_runs(load_runs(files))
    by_model = {c.cpu_model: c for c in comps}
    assert set(by_model) == {"Model A", "Model B"} and len(comps) == 2
    a, b = by_model["Model A"], by_model["Model B"]
    assert (a.hosts, a.processes) == (2, 16) and (b.hosts, b.processes) == (1, 8)
    assert a.ci_low <= 1.10 <= a.ci_high and b.ci_low <= 0.90 <= b.ci_high  # not pooled across models
    assert a.verdict == "slower" and b.verdict == "faster"


def test_terminal_and_report_show_each_group(template, tmp_path):
    files = [host_file(tmp_path, template, "a1", "Model A", 1.10, 1),
             host_file(tmp_path, template, "b1", "Model B", 0.90, 3)]
    p = analysis("summarize", *files, "--detail")
    assert p.returncode == 0, p.stderr
    assert "[Model A, 1 host]: slower" in p.stdout and "[Model B, 1 host]: faster" in p.stdout
    rep = tmp_path / "rep"
    p = analysis("report", *files, "-o", str(rep))
    assert p.returncode == 0, p.stderr
    names = {f.name for f in rep.iterdir()}
    assert {"forest_host0.png", "forest_host1.png"} <= names
    md = (rep / "report.md").read_text()
    assert "### Model A (1 host)" in md and "### Model B (1 host)" in md


def test_one_model_keeps_the_plain_layout(template, tmp_path):
    files = [host_file(tmp_path, template, "a1", "Model A", 1.10, 1)]
    p = analysis("compare", *files)
    assert p.returncode == 0 and "[Model A" not in p.stdout


def test_diff_compares_each_cpu_model_with_itself(template, tmp_path):
    b = [host_file(tmp_path, template, "a1", "Model A", 1.0, 1), host_file(tmp_path, template, "b1", "Model B", 1.0, 2),
         host_file(tmp_path, template, "c1", "Model C", 1.0, 5)]
    (tmp_path / "after").mkdir()
    a = [host_file(tmp_path / "after", template, "a1", "Model A", 1.10, 3),
         host_file(tmp_path / "after", template, "b1", "Model B", 0.92, 4)]
    p = analysis("diff", "--detail", "--before", *b, "--after", *a, "--normalize", "libc", "--json", str(tmp_path / "d.json"))
    assert p.returncode == 0, p.stderr
    shifts = {s["cpu_model"]: s for s in json.loads((tmp_path / "d.json").read_text())["shifts"]}
    assert set(shifts) == {"Model A", "Model B"}
    assert shifts["Model A"]["verdict"] == "slower" and shifts["Model B"]["verdict"] == "faster"
    assert "- sizeclass [Model A]: slower" in p.stdout
    assert "note: not compared, a CPU model on one side only: Model C (before only)" in p.stdout

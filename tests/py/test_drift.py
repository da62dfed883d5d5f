"""Studies run at different times: diff carries the host's drift between its two sides (the stated
default for the CPU, or measured from --history) and says how to avoid it; pool combines studies of
the same code on the same host and refuses any other in one line; history prints each variant's
drift; the export carries the headline's number; and a [1 layout] sensitivity never reads below
the validation's floor, which it names. Synthetic files; no test assumes an interval's width
beyond comparing the same interval with and without the drift."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from analysis.io.load import load_run, load_runs
from analysis.stats.validated import MEASURED, drift_default, layout_floor
from analysis.verdicts.compare import Comparison, compare_runs, cpu_key, label_layouts, layout_source
from analysis.verdicts.diff import diff_runs, history_drift
from analysis_runner import analysis
from test_interop import synthetic, template  # noqa: F401 (template is a fixture used by name)

ROOT = Path(__file__).resolve().parents[2]


def write(path: Path, doc: dict) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def studies(template: dict, tmp_path: Path, ratios: list[float], seed: int = 1) -> list[str]:
    return [write(tmp_path / f"s{i}.json", synthetic(template, r, 0.01, 400, seed=seed + i))
            for i, r in enumerate(ratios)]


def test_diff_of_two_studies_carries_the_stated_drift(template, tmp_path):
    before, after = studies(template, tmp_path, [1.0, 1.0])
    default, source = drift_default(cpu_key(load_run(before)))
    p = analysis("diff", "--detail", before, after, "--normalize", "libc", "--json", str(tmp_path / "d.json"))
    assert p.returncode == 0, p.stderr
    shift = json.loads((tmp_path / "d.json").read_text())["shifts"][0]
    assert shift["between_sd"] == pytest.approx(default) and shift["between_source"] == source
    text = " ".join(p.stdout.split())  # the notes are wrapped to 80 columns
    assert "includes the host's drift between them" in text and source in text
    assert "run both as variants of one study" in text and "\n    memfbench run -v" in p.stdout
    q = analysis("diff", "--detail", before, after, "--normalize", "libc", "--between-sd", "0", "--json", str(tmp_path / "e.json"))
    same = json.loads((tmp_path / "e.json").read_text())["shifts"][0]
    assert same["between_sd"] == 0 and "drift" not in q.stdout.split("margin")[0]
    # the drift widens the interval about the same ratio
    assert shift["ratio"] == pytest.approx(same["ratio"])
    assert shift["ci_high"] / shift["ci_low"] > same["ci_high"] / same["ci_low"]


def test_diff_measures_the_drift_from_the_host_s_history(template, tmp_path):
    rng = np.random.default_rng(3)
    (tmp_path / "history").mkdir()
    history = studies(template, tmp_path / "history", list(np.exp(rng.normal(0, 0.01, 5))), seed=10)
    before, after = studies(template, tmp_path, [1.0, 1.0], seed=30)
    measured = history_drift(load_runs(history), "libc")
    sd, k = measured["sizeclass"]
    assert k == 5 and np.isfinite(sd)
    shifts = diff_runs(load_runs([before]), load_runs([after]), "libc", history=load_runs(history))
    assert shifts[0].between_sd == pytest.approx(sd)
    assert shifts[0].between_source == "measured from this host's history, REML over 5 studies"
    p = analysis("diff", before, after, "--normalize", "libc", "--history", str(tmp_path / "history"))
    assert p.returncode == 0, p.stderr
    assert "measured from this host's history, REML over 5 studies" in " ".join(p.stdout.split())


def test_pool_gives_one_ratio_and_a_later_study_s_interval(template, tmp_path):
    files = studies(template, tmp_path, [1.05, 1.06, 1.05, 1.055])
    p = analysis("pool", *files, "--json", str(tmp_path / "p.json"), "--detail")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("  sizeclass"))
    line = " ".join(lines[at:at + 2])  # "next [..]" on the line, or below it where the name is long
    assert re.search(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] .* 4 studies +next \[\d\.\d{3}, \d\.\d{3}\]", line), line
    # every line but --detail's (a long line a variant and one per study)
    assert not [x for x in lines if len(x) > 80 and not x.startswith(("- ", "    "))], lines
    doc = json.loads((tmp_path / "p.json").read_text())
    assert doc["schema"] == "memfbench-pool"
    row = doc["pooled"][0]
    assert row["ci_low"] <= row["ratio"] <= row["ci_high"] and row["pi_low"] <= row["ci_low"]
    # REML's over the studies, or the validation's figure for the CPU where REML's is below it (studies
    # minutes apart do not see a host's drift over hours: docs/validation.md, section 12)
    default, source = drift_default(cpu_key(load_run(files[0])))
    assert row["between_sd"] == pytest.approx(max(row["between_sd_measured"], default))
    assert row["between_source"].startswith("REML over these 4 studies") and len(row["per_study"]) == 4
    if row["between_sd_measured"] < default:
        assert row["between_source"].endswith(f"the validation's figure for this CPU ({source})")
    assert "between studies: ±" in p.stdout


def test_pool_of_two_studies_names_its_default(template, tmp_path):
    files = studies(template, tmp_path, [1.0, 1.0])
    p = analysis("pool", *files)
    assert p.returncode == 0, p.stderr
    assert drift_default(cpu_key(load_run(files[0])))[1] in " ".join(p.stdout.split())


@pytest.mark.parametrize("change", ["host", "code"])
def test_pool_refuses_another_host_or_other_code(template, tmp_path, change):
    a = synthetic(template, 1.0, 0.01, 200, seed=1)
    b = copy.deepcopy(synthetic(template, 1.0, 0.01, 200, seed=2))
    if change == "host":
        b["host"]["hostname"] = "another-host"
    else:
        b["variants"][1]["code_identity"]["id"] = "0123456789ab"
    p = analysis("pool", write(tmp_path / "a.json", a), write(tmp_path / "b.json", b))
    assert p.returncode == 2 and p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("analysis: pool: ")
    assert ("host 'another-host'" in p.stderr) if change == "host" else ("other code" in p.stderr)


def test_history_prints_each_variant_s_drift(template, tmp_path):
    files = studies(template, tmp_path, [1.0, 1.01, 0.99, 1.0])
    p = analysis("history", *files, "--order", "given", "--json", str(tmp_path / "h.json"))
    assert p.returncode == 0, p.stderr
    assert "between studies (this host's drift" in p.stdout and "- sizeclass: ±" in p.stdout
    series = json.loads((tmp_path / "h.json").read_text())["series"][0]
    assert series["between_studies"][0]["studies"] == 4


def test_the_export_carries_the_headline_s_number(template, tmp_path):
    f = studies(template, tmp_path, [1.03])[0]
    p = analysis("export", f, "--format", "gbench", "-o", str(tmp_path / "g.json"))
    assert p.returncode == 0, p.stderr
    verdicts = json.loads((tmp_path / "g.json").read_text())["context"]["memfbench_verdicts"]
    c = compare_runs([load_run(f)], secondary=False)[0]
    assert verdicts[0]["ratio"] == pytest.approx(c.ratio) and verdicts[0]["ci_low"] == pytest.approx(c.ci_adj_low)


def comparison(variant: str, **kw) -> Comparison:
    c = Comparison("f.json", "memcpy", "d", variant, "at0", 1000, 1.0, 0.99, 1.01, 0.99, 1.01, 0.95, 0.5, 0.5, 1.0,
                   0.99, 1.01, "", 0.5, 1.0, False, 0, 0.01, 100, 0.01, across_processes=True, processes=32)
    for k, v in kw.items():
        setattr(c, k, v)
    return c


@pytest.mark.parametrize("key", [m.key for m in MEASURED] + ["AuthenticAMD family 25 model 17"])
def test_a_one_layout_sensitivity_never_reads_below_the_floor(key):
    """The issue's ±0.0 %: the layout sentinel's placement effects measured at 0 (noise hid them)."""
    sentinel = comparison("libc-wrapped", variant_placement_sd=0.0, cpu_key=key, placement_model=True)
    plugin = comparison("at32", cpu_key=key)
    label_layouts([sentinel, plugin], fixed={"at32", "at0"}, placed={"libc-wrapped"})
    floor, source = layout_floor(key)
    assert plugin.layout_sensitivity == floor > 0 and plugin.layout_measured == 0
    assert source in layout_source(plugin) and "measured here ±0.0%" in layout_source(plugin)
    big = comparison("libc-wrapped", variant_placement_sd=floor, cpu_key=key, placement_model=True)
    plugin = comparison("at32", cpu_key=key)
    label_layouts([big, plugin], fixed={"at32", "at0"}, placed={"libc-wrapped"})
    assert plugin.layout_sensitivity == pytest.approx(1.96 * floor)
    assert layout_source(plugin).startswith("measured here")


def validation_figures() -> dict[str, dict[str, float]]:
    """From docs/validation.md: per section, the median of section 10's source-path sensitivities,
    the largest ratio CV of section 1, libc's ns/call CV there."""
    text = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"<!-- validation section: (?P<key>[^>]*?) -->\n(?P<body>.*?)<!-- end of validation section -->",
                         text, re.S):
        body = m["body"]
        one = body[body.index("### 1."):body.index("### 2.")]
        cvs = [float(x) for x in re.findall(r"\| [\w-]+/[\w-]+ \| [^|]+ \| [^|]*\(CV (\d+\.\d+) %\)", one)]
        libc = float(re.search(r"libc's median ns/call across the same invocations:.*CV (\d+\.\d+) %", one)[1])
        ten = body[body.index("### 10."):]
        first = ten[:ten.index("The same code prebuilt")]
        layout = [float(x) for x in re.findall(r"\| ±(\d+\.\d+) % \|", first)]
        out[m["key"].strip()] = {"layout": float(np.median(layout)) / 100, "layout_studies": len(layout),
                                 "ratio": max(cvs) / 100, "time": libc / 100}
    return out


def test_the_validated_figures_are_docs_validation_md_s():
    """stats/validated.py holds what docs/validation.md measured: when the lead regenerates the
    report, this names the figure to update."""
    figures = validation_figures()
    assert {m.key for m in MEASURED} == set(figures)
    for m in MEASURED:
        f = figures[m.key]
        assert (m.layout, m.layout_studies, m.ratio_drift, m.time_drift) == pytest.approx(
            (round(f["layout"], 4), f["layout_studies"], f["ratio"], f["time"])), m.key

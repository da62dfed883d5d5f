"""Before/after (`python3 -m analysis diff`): each variant against itself across two result sets,
on synthetic files with a known shift, with none, and with contexts that differ."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from analysis_runner import analysis
from test_interop import synthetic, template  # noqa: F401 (template is a fixture used by name)


def write(path: Path, doc: dict) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def variant_line(stdout: str, name: str) -> str:
    return next(x for x in stdout.splitlines() if x.startswith(f"- {name}:"))


@pytest.mark.parametrize("after_ratio,verdict", [(1.10, "slower"), (0.92, "faster"), (1.0, "equivalent")])
def test_known_shift_of_the_ratio_to_the_baseline(template, tmp_path, after_ratio, verdict):
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, after_ratio, 0.01, 400, seed=2))
    # synthetic sides drawn alike: no drift between them (test_drift.py has the default's)
    p = analysis("diff", "--detail", before, after, "--normalize", "libc", "--json", str(tmp_path / "d.json"), "--between-sd", "0")
    assert p.returncode == 0, p.stderr
    line = variant_line(p.stdout, "sizeclass")
    assert f"sizeclass: {verdict}," in line and "ratio to libc, 8 -> 8 processes" in line, line
    shift = json.loads((tmp_path / "d.json").read_text())["shifts"][0]
    assert shift["ci_adj_low"] <= after_ratio <= shift["ci_adj_high"]  # layout sd 0.2 %: the truth is covered
    assert abs(shift["ratio"] / after_ratio - 1) < 0.01
    assert "warning" not in p.stdout


def test_known_shift_of_absolute_time(template, tmp_path):
    """Without --normalize, the variant's own time per call: the after set is 20 % slower."""
    doc = synthetic(template, 1.0, 0.01, 400, seed=2)
    slow = copy.deepcopy(doc)
    s = slow["samples"]
    for i, v in enumerate(s["variant"]):
        if v == 1:
            s["ticks"][i] = int(s["ticks"][i] * 1.2)
            s["ns"][i] = s["ns"][i] * 1.2
    p = analysis("diff", "--detail", write(tmp_path / "b.json", doc), write(tmp_path / "a.json", slow), "--between-sd", "0")
    assert p.returncode == 0, p.stderr
    assert "sizeclass: slower, after/before 1.2" in variant_line(p.stdout, "sizeclass")
    # libc's batches are the same on both sides: no shift (its time per call varies 20 % from round to
    # round here, so 8 processes cannot show equivalence within 1 %)
    libc = variant_line(p.stdout, "libc")
    assert "after/before 1.0000 (+0.00 %)" in libc and ("equivalent" in libc or "inconclusive" in libc)


def test_contexts_that_differ_are_shown(template, tmp_path):
    before = synthetic(template, 1.0, 0.01, 200, seed=1)
    after = copy.deepcopy(synthetic(template, 1.0, 0.01, 200, seed=2))
    after["host"]["cpu"]["model"] = "Another CPU"
    after["host"]["kernel"] = "9.9.9"
    p = analysis("diff", "--detail", write(tmp_path / "b.json", before), write(tmp_path / "a.json", after), "--normalize", "libc")
    assert p.returncode == 0, p.stderr
    warnings = [x for x in p.stderr.splitlines() if x.startswith("analysis: warning: the contexts differ")]
    assert any(f"CPU model: {before['host']['cpu']['model']} -> Another CPU" in w for w in warnings), warnings
    assert any("kernel: " in w and "-> 9.9.9" in w for w in warnings) and len(warnings) == 2
    assert "contexts differ" not in p.stdout  # the report on stdout stays the verdicts


@pytest.mark.parametrize("path,value", [(("config", "function"), "memset"), (("config", "placement"), "dram"),
                                        (("config", "distribution"), "other"), (("config", "measure"), "latency")])
def test_sides_that_measure_different_things_are_refused_unless_forced(template, tmp_path, path, value):
    before = synthetic(template, 1.0, 0.01, 200, seed=1)
    after = copy.deepcopy(synthetic(template, 1.0, 0.01, 200, seed=2))
    after[path[0]][path[1]] = value
    b, a = write(tmp_path / "b.json", before), write(tmp_path / "a.json", after)
    p = analysis("diff", "--detail", b, a)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and f"{path[1]}: " in lines[0] and "--force" in lines[0], p.stderr
    assert p.stdout == "" and "faster" not in p.stderr
    forced = analysis("diff", "--detail", b, a, "--force")
    assert forced.returncode == 0 and f"the contexts differ: {path[1]}" in forced.stderr, forced.stderr


def test_several_files_per_side(template, tmp_path):
    b = [write(tmp_path / f"b{i}.json", synthetic(template, 1.0, 0.01, 200, seed=i)) for i in range(2)]
    a = [write(tmp_path / f"a{i}.json", synthetic(template, 1.1, 0.01, 200, seed=10 + i)) for i in range(2)]
    p = analysis("diff", "--detail", "--before", *b, "--after", *a, "--normalize", "libc")
    assert p.returncode == 0, p.stderr
    assert "16 -> 16 processes" in variant_line(p.stdout, "sizeclass") and "; 2 -> 2 files" in p.stdout


@pytest.mark.parametrize("after_ratio,threshold,code,status", [
    (1.10, 3, 1, "regression"),                # 10 % slower, threshold 3 %: fails
    (1.10, 20, 0, "slower-within-threshold"),  # slower, but not by 20 %
    (0.92, 3, 0, "faster"),
    (1.00, 3, 0, "equivalent"),
])
def test_saved_baseline_gate(template, tmp_path, after_ratio, threshold, code, status):
    """The CI flow: a stored baseline result, a new result, `diff --fail-if-slower P`."""
    base = write(tmp_path / "baseline.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    new = write(tmp_path / "new.json", synthetic(template, after_ratio, 0.01, 400, seed=2))
    out = tmp_path / "gate.json"
    p = analysis("diff", "--detail", base, new, "--normalize", "libc", "--fail-if-slower", str(threshold), "--json", str(out),
                 "--between-sd", "0")
    assert p.returncode == code, p.stdout + p.stderr
    doc = json.loads(out.read_text())
    assert doc["failed"] is (code == 1) and doc["fail_if_slower_percent"] == threshold
    assert doc["before"] == [base] and doc["after"] == [new] and doc["normalized_by"] == "libc"
    row = next(r for r in doc["shifts"] if r["variant"] == "sizeclass")
    assert row["gate"] == status
    assert (f"gate {'FAILED' if code else 'passed'}") in p.stdout
    if code:
        assert p.stdout.rstrip().endswith(": sizeclass")


@pytest.mark.parametrize("args,fragment", [
    (["{b}", "{a}", "--fail-if-slower", "-1"], "--fail-if-slower"),
    (["{b}"], "1 files given"),
    (["{b}", "{a}", "--normalize", "turbo"], "--normalize: 'turbo'"),
    (["{b}", "{a}", "--variant", "turbo"], "'turbo' is not on both sides"),
    (["{b}", "--before", "{a}", "--after", "{a}"], "not both"),
    (["{b}", "{a}", "--margin", "nan"], "--margin"),
])
def test_bad_diff_arguments(template, tmp_path, args, fragment):
    files = {"{b}": write(tmp_path / "b.json", synthetic(template, 1.0, 0.01, 40, seed=1)),
             "{a}": write(tmp_path / "a.json", synthetic(template, 1.0, 0.01, 40, seed=2))}
    p = analysis("diff", "--detail", *[files.get(x, x) for x in args])
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], p.stderr


def test_welch_matches_scipy():
    import numpy as np
    from scipy import stats as sst

    from analysis.stats.placement_model import design_estimate, welch

    rng = np.random.default_rng(3)
    b, a = rng.normal(0, 0.01, 7), rng.normal(0.02, 0.03, 12)
    # without placements, each side's design estimate is its plain mean: Welch's test exactly
    db, da = design_estimate(b), design_estimate(a)
    d, lo, hi, p = welch(db, da, 0.95)
    ref = sst.ttest_ind(a, b, equal_var=False)
    assert abs(p - ref.pvalue) < 1e-12 and abs(d - (a.mean() - b.mean())) < 1e-15
    # the interval and the test agree: at level 1 - p, an end of the interval touches zero
    _, lo_p, hi_p, _ = welch(db, da, 1 - p)
    assert min(abs(lo_p), abs(hi_p)) < 1e-12 and lo < d < hi


@pytest.mark.parametrize("cmd", ["summarize", "compare", "diff"])
@pytest.mark.parametrize("spoil,fragment", [
    ("warmup", "no measured rounds: every one of its"),   # NaN ratios and "one process" before
    ("zero", "batches took no time"),                    # numpy RuntimeWarnings before
])
def test_files_that_cannot_support_a_verdict_are_refused(template, tmp_path, cmd, spoil, fragment):
    doc = synthetic(template, 1.0, 0.01, 200, seed=3)
    s = doc["samples"]
    if spoil == "warmup":
        s["warmup"] = [True] * s["count"]
    else:
        s["ns"] = [0.0] * s["count"]
        s["ticks"] = [0] * s["count"]
    bad = write(tmp_path / "bad.json", doc)
    args = [bad, write(tmp_path / "good.json", synthetic(template, 1.0, 0.01, 200, seed=4))] if cmd == "diff" else [bad]
    p = analysis(cmd, *args)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0] and "bad.json" in lines[0], p.stderr
    assert "Warning" not in p.stderr and "nan" not in p.stdout.lower()


def test_medians_are_the_ones_summarize_prints(template, tmp_path):
    """diff's per-side median is summarize's: over every measured batch of the file, not a median
    of process medians (the two differ where processes differ in size or spread)."""
    from analysis.io.load import load_run
    from analysis.verdicts.diff import median_ns
    from analysis.views.summary import summarize_run
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.05, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, 1.1, 0.05, 400, seed=2))
    p = analysis("diff", "--detail", before, after, "--normalize", "libc", "--json", str(tmp_path / "d.json"))
    assert p.returncode == 0, p.stderr
    shift = json.loads((tmp_path / "d.json").read_text())["shifts"][0]
    for path, key in ((before, "before_ns_per_call"), (after, "after_ns_per_call")):
        run = load_run(path)
        table = summarize_run(run).set_index("variant")
        assert shift[key] == pytest.approx(float(table.loc[shift["variant"], "median_ns_per_call"]), rel=1e-12)
        assert shift[key] == pytest.approx(median_ns(run.batches, shift["variant"]), rel=1e-12)
    assert f"median over every batch {shift['before_ns_per_call']:.2f} -> {shift['after_ns_per_call']:.2f} ns/call" \
        in variant_line(p.stdout, shift["variant"])


def test_an_unresolved_diff_says_why_and_what_would_resolve_it(template, tmp_path):
    """Two runs with between-run drift and wide layouts: absolute times resolve nothing, and the
    output names --normalize and more processes; a resolved diff prints no such note."""
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.05, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, 1.0, 0.05, 400, seed=2))
    p = analysis("diff", "--detail", before, after)
    assert p.returncode == 0, p.stderr
    if any(f": {v}," in p.stdout for v in ("faster", "slower", "equivalent")):
        pytest.skip("the synthetic drift resolved a variant; the note is for when none is")
    assert "note: no variant resolved" in p.stdout and "--normalize BASELINE" in p.stdout, p.stdout
    assert "8 processes a side" in p.stdout
    q = analysis("diff", "--detail", write(tmp_path / "b.json", synthetic(template, 1.0, 0.01, 400, seed=1)),
                 write(tmp_path / "a.json", synthetic(template, 1.10, 0.01, 400, seed=2)), "--normalize", "libc")
    assert q.returncode == 0 and "note: no variant resolved" not in q.stdout, q.stdout


def test_diff_report_is_written_with_its_shifts_and_each_sides_context(template, tmp_path):
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, 1.10, 0.01, 400, seed=2))
    out = tmp_path / "ba"
    p = analysis("diff", "--detail", before, after, "--normalize", "libc", "--report", str(out))
    assert p.returncode == 0 and f"wrote {out / 'report.md'}" in p.stdout, p.stderr
    md = (out / "report.md").read_text()
    # the verdict table first (the headline's cells), the shifts drawn, every figure folded below
    order = [md.index(x) for x in ("# memfbench before/after", "## Verdicts", "| variant | after/before |",
                                   "![after / before](shifts.png)", "<details><summary>Every figure of each shift",
                                   "- sizeclass: slower, after/before", "| variant | verdict | after/before | 95% CI low")]
    assert order == sorted(order), order
    assert re.search(r"\| sizeclass \| 1\.\d{3} \| \[1\.\d{3}, 1\.\d{3}\] \| \*\*\d+\.\d % slower\*\* \| 8 -> 8 \|", md), md
    assert "## Before: `before.json`" in md and "## After: `after.json`" in md
    assert (out / "shifts.png").stat().st_size > 0 and "data:image/png;base64," in (out / "report.html").read_text()


def test_diff_report_into_a_bad_folder_is_refused_before_anything(template, tmp_path):
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, 1.0, 0.01, 400, seed=2))
    p = analysis("diff", "--detail", before, after, "--report", str(tmp_path / "no" / "such" / "dir"))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--report" in p.stderr, p.stderr
    assert p.stdout == ""


def test_a_failed_placement_check_is_named_beside_each_shift(template, tmp_path):
    doc = synthetic(template, 1.0, 0.01, 400, seed=2)
    check = copy.deepcopy(template["placement_check"])  # the template run's own, measured block
    check["small_window"]["verdict"], check["passed"] = "fail", False
    doc["placement_check"] = check
    for entry in doc["processes"]:  # a file of several processes keeps each one's check there
        entry["placement_check"] = copy.deepcopy(check)
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    p = analysis("diff", "--detail", before, write(tmp_path / "after.json", doc), "--normalize", "libc")
    assert p.returncode == 0, p.stderr
    assert "placement check failed after:" in variant_line(p.stdout, "sizeclass"), p.stdout
    assert "placement check failed before" not in p.stdout


def test_the_headline_is_one_short_line_per_variant_and_the_long_lines_are_under_detail(template, tmp_path):
    """diff opens on compare's layout: a title saying which way the ratio reads, per group a title,
    one line per variant of at most 80 columns whose verdict word is the one its interval gives, the
    key; every note wrapped to 80 columns but a command, which stays whole on its own line; the
    long lines only with --detail."""
    before = write(tmp_path / "before.json", synthetic(template, 1.0, 0.01, 400, seed=1))
    after = write(tmp_path / "after.json", synthetic(template, 1.10, 0.01, 400, seed=2))
    p = analysis("diff", before, after, "--normalize", "libc", "--json", str(tmp_path / "d.json"))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "== before/after at a glance: after / before (below 1: after is faster)"
    assert lines[1].endswith(", ratio to libc; 1 -> 1 file")
    assert all(len(x) <= 80 for x in lines if not x.startswith("    memfbench run ")), lines
    assert not any(x.startswith("- ") for x in lines) and lines[-1].endswith(": --detail")
    shifts = {r["variant"]: r for r in json.loads((tmp_path / "d.json").read_text())["shifts"]}
    for name, r in shifts.items():
        row = next(x for x in lines if x.startswith(f"  {name} "))
        ratio, low, high = map(float, re.findall(r"\d+\.\d+", row)[:3])
        assert (ratio, low, high) == (round(r["ratio"], 3), round(r["ci_adj_low"], 3), round(r["ci_adj_high"], 3))
        assert r["verdict"] in row, row
        assert f"{r['before_processes']}->{r['after_processes']} proc" in row
    assert "sizeclass" in shifts and shifts["sizeclass"]["verdict"] == "slower"
    assert re.search(r"^  sizeclass +1\.\d{3} \[1\.\d{3}, 1\.\d{3}\] +\d+\.\d % slower", p.stdout, re.M)
    detail = analysis("diff", before, after, "--normalize", "libc", "--detail")
    assert detail.stdout.startswith(p.stdout.rsplit("\n", 2)[0])  # the same headline and notes first
    assert "- sizeclass: slower, after/before" in detail.stdout and ": --detail" not in detail.stdout

"""The drivers in tools/: they run as `python3 -m tools.NAME` from the repository root; the
validation report stops on a failed build or command with one error line and leaves its output
file alone, and says about the machine only what the result files' host block says."""
from __future__ import annotations

import gzip
import json
import math
from types import SimpleNamespace
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import QUICK, ROOT
from tools import validation
from tools import validation_runs as runs


def tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"tools.{name}", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "MPLBACKEND": "Agg"})


@pytest.mark.parametrize("name", ["validation", "bench", "probe_compare", "golden_compare"])
def test_help(name):
    p = tool(name, "--help")
    assert p.returncode == 0, p.stderr
    assert f"python3 -m tools.{name}" in p.stdout


def test_bench_analysis_reports_every_command():
    """The analysis benchmark's table (figures, not a pass/fail on time): the yardsticks' line, then
    one row per command and tree, each with its multiple of the interpreter's start."""
    p = tool("bench_analysis", str(ROOT / "tests" / "data" / "golden-run.json"), "--repeat", "1",
             "--tree", f"again={ROOT}")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("command "))
    assert lines[head - 1].startswith("yardsticks, median s: `true` ") and "-c pass` " in lines[head - 1]
    assert lines[head].split()[-2:] == ["x", "start"]
    rows = [x.split() for x in lines[head + 1:]]
    assert [r[0] for r in rows] == ["summarize", "compare", "gate", "report", "export"]
    assert all(r[-6] == "again" and all(math.isfinite(float(x)) for x in r[-5:]) for r in rows)


@pytest.mark.parametrize("existing", [False, True])
def test_validation_failed_build(tmp_path, existing):
    out = tmp_path / "validation.md"
    if existing:
        out.write_text("previous report\n")
    p = tool("validation", "--build", "/nonexistent", "-o", str(out))
    assert p.returncode != 0
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "tools.validation: error:" in lines[0] and "/nonexistent" in lines[0]
    assert out.read_text() == "previous report\n" if existing else not out.exists()
    assert [f.name for f in tmp_path.iterdir()] == (["validation.md"] if existing else [])


def test_validation_missing_output_folder(tmp_path):
    p = tool("validation", "--build", "/nonexistent", "-o", str(tmp_path / "no" / "v.md"))
    assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "no such folder" in p.stderr


def script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def fake_build(tmp_path: Path, memfbench_body: str) -> Path:
    build = tmp_path / "build"
    script(build / validation.MEMFBENCH_TARGET, memfbench_body)
    return build


def run_validation(monkeypatch, capsys, build: Path, out: Path, gbench: Path | None,
                   *extra: str) -> tuple[int, list[str]]:
    monkeypatch.setattr(validation, "build_tools", lambda _build: gbench)
    code = validation.main(["--build", str(build), "-o", str(out), "--quick", *extra])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    return code, err


def test_validation_failed_memfbench(tmp_path, monkeypatch, capsys):
    build = fake_build(tmp_path, "echo 'memfbench: --cpu: CPU 99 is not available' >&2\nexit 1\n")
    out = tmp_path / "v.md"
    out.write_text("previous report\n")
    code, err = run_validation(monkeypatch, capsys, build, out, None)
    assert code == 1 and len(err) == 1, err
    assert "failed (exit 1): memfbench: --cpu: CPU 99 is not available" in err[0]
    assert out.read_text() == "previous report\n"


def test_validation_passes_cpu_to_memfbench(tmp_path, monkeypatch, capsys):
    build = fake_build(tmp_path, 'echo "memfbench: got $*" >&2\nexit 2\n')
    code, err = run_validation(monkeypatch, capsys, build, tmp_path / "v.md", None, "--cpu", "0")
    assert code == 1 and len(err) == 1 and "--cpu 0 -q -o" in err[0], err


def fake_invocation(ratio: float, verdict: str = "equivalent") -> validation.Invocation:
    """An invocation whose every comparison has this ratio, a +-1 % CI and a +-2 % prediction interval."""
    c = SimpleNamespace(ratio=ratio, ci_low=ratio * 0.99, ci_high=ratio * 1.01, pi_low=ratio * 0.98,
                        pi_high=ratio * 1.02, verdict=verdict)
    return validation.Invocation({p: c for p in validation.COVERAGE_PAIRS}, 30.0, 15.0, 10, 20.0)


def test_coverage_aa_and_cost_rows():
    inv = [fake_invocation(1.0), fake_invocation(1.0), fake_invocation(1.015, "slower"), fake_invocation(1.0)]
    row = validation.coverage_lines(inv)[0]
    # the median over invocations is 1.0: three CIs hold it, the fourth (1.015 +- 1 %) does not;
    # the prediction intervals (+-2 %) all do
    assert row.startswith("| libc-copy/libc | 1.0000 |") and "| 3 of 4 (75 %) | 4 of 4 (100 %) |" in row
    assert row.endswith("| 0 |")  # no shift found inside any study
    assert validation.aa_lines(inv)[0] == ("| libc-copy against libc | 4 | 1 (25.0 %) | equivalent: 3, "
                                           "inconclusive: 0, faster: 0, slower: 1 |")
    assert "median 1.50 s" in validation.cost_lines(inv)[2]  # (30 s wall - 15 s rounds) / 10 processes


@pytest.fixture
def template(run) -> Path:
    """A real short run of the variants the report's first section compares."""
    r = run("-d", "fixed:64", *[x for v in validation.COVERAGE_VARIANTS for x in ("-v", v)], *QUICK)
    if r.code != 0:
        pytest.skip(f"no avx2 variant here: {r.stderr.strip()}")
    return r.out


def test_validation_failed_gbench_is_pinned_like_memfbench(tmp_path, monkeypatch, capsys, template):
    # a memfbench that writes the template wherever -o points
    build = fake_build(tmp_path, f'while [ $# -gt 1 ]; do [ "$1" = -o ] && cp "{template}" "$2"; shift; done\n'
                                 "exit 0\n")
    gbench = script(tmp_path / "gbench_replay", "echo 'gbench_replay: no distributions' >&2\nexit 3\n")
    out = tmp_path / "v.md"
    code, err = run_validation(monkeypatch, capsys, build, out, gbench)
    assert code == 1 and len(err) == 1, err
    assert "failed (exit 3): gbench_replay: no distributions" in err[0]
    cpu = json.loads(template.read_text())["config"]["cpu"]
    if cpu is not None and shutil.which("taskset"):
        assert f"`taskset -c {cpu} {gbench}" in err[0]
    assert not out.exists()


def stamped(template: Path, folder: Path, name: str, made: float) -> None:
    """The template as run NAME of a stored folder, its created_utc set to `made`."""
    doc = json.loads(template.read_text())
    doc["created_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(made))
    (folder / f"{name}.json").write_text(json.dumps(doc))


def test_later_studies_wait_an_hour_after_the_first_coverage_study(tmp_path, monkeypatch, template):
    later = runs.plan("over-time", tmp_path)
    assert [r.name for r in later] == [f"later{i}" for i in range(runs.LATER_STUDIES)]
    assert all(r.after == "cov0" and r.wait_s == runs.LATER_AFTER_S for r in later)
    assert all(r.wait_s == 0 for r in runs.plan("over-time", tmp_path, quick=True))
    assert runs.SECTIONS[-1] == "over-time"  # the other sections run while it waits
    with pytest.raises(RuntimeError, match="needs run cov0 first"):
        runs.wait_for(later[0], tmp_path)
    made = time.time() - 600
    stamped(template, tmp_path, "cov0", made)
    slept: list[float] = []
    monkeypatch.setattr(runs.time, "sleep", slept.append)
    runs.wait_for(later[0], tmp_path)
    assert len(slept) == 1 and abs(slept[0] - (made + runs.LATER_AFTER_S - time.time())) < 5
    stamped(template, tmp_path, "cov0", time.time() - 2 * runs.LATER_AFTER_S)
    runs.wait_for(later[0], tmp_path)
    assert len(slept) == 1  # the hour has passed: no wait


def test_over_time_section_from_stored_runs(tmp_path, monkeypatch, capsys, template):
    """Section 12 from a stored folder: diff of each pair of studies with and without the drift,
    the pairs' distance in time from their files, and each pooled comparison against every later study."""
    t0 = time.time() - 7200
    for i in range(3):
        stamped(template, tmp_path, f"cov{i}", t0 + 60 * i)
        stamped(template, tmp_path, f"later{i}", t0 + 3600 + 60 * i)
    out = tmp_path / "v.md"
    # no build folder: the runs are this host's, so with one that defines the Google Benchmark
    # harness the tool would build it and time it beside them, as a validation does (in CI's fresh
    # clone that cost this test 10-15 s); what is tested here is the stored runs' report
    assert validation.main(["--stored", str(tmp_path), "--build", str(tmp_path / "no-build"), "--quick",
                            "--sections", "coverage,over-time", "-o", str(out)]) == 0
    text = out.read_text()
    part = text[text.index("### 12."):text.index("### Commands")]
    rows = [r for r in part.splitlines() if r.startswith("| ") and not r.startswith("| ---")]
    diffs = [r.split(" | ") for r in rows if r.startswith(("| back to back", "| an hour"))]
    assert len(diffs) == 4, part
    assert [d[3] for d in diffs] == ["4", "4", "12", "12"]  # variant-pairs: 4 variants but libc, per pair
    assert "1, median 1.0 min" in diffs[0][1] and "3, median 60.0 min" in diffs[2][1]
    assert "none" in diffs[0][2] and diffs[1][2].endswith("(section 1's largest study-to-study CV of a ratio)")
    for d in diffs:
        called, eq, inc = int(d[4].strip("*").split()[0]), int(d[5]), int(d[6].rstrip(" |"))
        assert called + eq + inc <= int(d[3])
    pools = [r for r in rows if r.startswith("| 3 |")]
    assert sorted(p.split(" | ")[1] for p in pools) == sorted(f"{v}/libc" for v in validation.COVERAGE_VARIANTS
                                                           if v != "libc")
    assert all(p.rstrip(" |").endswith("of 3") for p in pools)


def test_before_issue_52_keeps_the_starved_process_and_not_its_rerun(tmp_path, run):
    """The validation's before/after of the screening (section 11): read as before, a study keeps the
    process the run marked dropped and leaves out the one that re-ran its slot; read as now, the other
    way round. Both give a verdict from the same file, each over three processes."""
    r = run("-d", "fixed:64", *runs.BUSY_VARIANTS, "--rounds", "8", "--warmup-rounds", "2", "--processes", "4", "-q")
    assert r.code == 0, r.stderr
    doc = json.loads(r.out.read_text())
    doc["processes"][0]["dropped"] = {"reason": "starved"}
    doc["processes"][3]["rerun_of"] = 0
    stored = tmp_path / "busy0.json"
    stored.write_text(json.dumps(doc))
    before = validation.as_before_screening(stored)
    assert [p["index"] for p in before.doc["processes"]] == [0, 1, 2]
    assert not any("dropped" in p for p in before.doc["processes"])
    assert 3 not in set(before.doc["samples"]["process"]) and before.doc["samples"]["count"] == len(
        before.doc["samples"]["process"])
    names = ("libc-wrapped", "libc-slow1pct", "libc-twice")
    was, _, _ = validation.known_cost(before, names, screen=False)
    now, low, high = validation.known_cost(validation.load_run(stored), names)
    assert was.processes == 3 and not was.dropped
    assert now.processes <= 3 and 0 in {d["process"] for d in now.dropped} and low <= high
    ctx = validation.Ctx(None, None, tmp_path, [], stored=True)
    rows = validation.screening_lines(ctx, [runs.Run("busy0", [])], [runs.Run("busy0", [])])
    assert [r.split(" | ")[1] for r in rows] == ["before", "now", "before", "now"]
    assert all(" of 1 equivalent" in r for r in rows)


def test_validation_keep_and_stored_are_one_or_the_other(tmp_path, capsys):
    assert validation.main(["--keep", str(tmp_path / "k"), "--stored", str(tmp_path), "-o", str(tmp_path / "v.md")]) == 2
    assert "--keep and --stored" in capsys.readouterr().err
    assert not (tmp_path / "k").exists() and not (tmp_path / "v.md").exists()


def test_validation_refuses_too_few_invocations(tmp_path, monkeypatch, capsys):
    out = tmp_path / "v.md"
    out.write_text("previous report\n")
    code, err = run_validation(monkeypatch, capsys, fake_build(tmp_path, "exit 0\n"), out, None, "--invocations", "2")
    assert code == 2 and err == ["python3 -m tools.validation: error: --invocations: at least 3 (got 2)"]
    assert out.read_text() == "previous report\n"


def test_gbench_output_parsing():
    rows = [{"run_name": "memcpy/libc", "aggregate_name": "median", "real_time": 5120.0},
            {"run_name": "memcpy/avx2", "aggregate_name": "median", "real_time": 1000.0, "calls_per_iteration": 100},
            {"run_name": "memcpy/avx2", "aggregate_name": "mean", "real_time": 9.0}]
    assert validation.gbench_medians(json.dumps({"benchmarks": rows})) == {"libc": 10.0, "avx2": 10.0}
    with pytest.raises(validation.ToolError, match="unexpected Google Benchmark output"):
        validation.gbench_medians("not json")


def test_failure_line_prefers_ninja_failed_line():
    p = subprocess.CompletedProcess(["ninja"], 1, "[1/2] cc x.c\nFAILED: bench/x.o\nx.c:1: error\n",
                                    "ninja: build stopped: subcommand failed.\n")
    assert validation.failure_line(p) == "FAILED: bench/x.o"
    p = subprocess.CompletedProcess(["m"], 1, "", "first\nlast line\n\n")
    assert validation.failure_line(p) == "last line"
    assert validation.failure_line(subprocess.CompletedProcess(["m"], 1, "", "")) == "no output"


def test_pinning_follows_the_cpu_used():
    assert validation.pinning(5) == ["taskset", "-c", "5"] and validation.pinning(None) == []


@pytest.mark.parametrize("virtual", [True, False])
def test_report_describes_the_measured_host(virtual):
    flags = ["avx2", "hypervisor"] if virtual else ["avx2"]
    host = {"kernel": "6.1", "cpu": {"model": "Test CPU", "vendor": "GenuineIntel", "family": "6", "model_number": "85",
                                     "flags": flags, "online": 12}, "pinned_cpu": 7,
            "caches": {"l1d": 32768, "l2": 1 << 20, "llc": 1 << 25}, "frequency": {"governor": "performance"},
            "smt": {"active": "0"}, "isolated_cpus": "7", "perf_counters": {"cycles_available": True}}
    r = validation.Results(["memfbench run -v libc"], host, ["coverage"], inv=[fake_invocation(1.0)])
    md = validation.render_section(r, "python3 -m tools.validation --quick", 1.0)
    assert md.startswith("## Test CPU (GenuineIntel, family 6, model 85)")
    assert "Generated by `python3 -m tools.validation --quick`" in md
    assert "12 CPUs online" in md and "pinned to CPU 7, which is isolated" in md
    assert ("virtual machine" in md) is virtual
    assert "2-CPU" not in md and "taskset -c 1" not in md
    assert "ninja target `tools/gbench_replay`" in md  # no harness: says so
    # what this run did not measure says so, section by section
    assert md.count("Not measured in this run of the report (it measured coverage)") == 7  # sections 3, 5, 6, 8, 10, 11 and 12


def test_report_keeps_one_section_per_machine():
    """A run replaces its own machine's section, keeps the others in place, and the opening names the
    machine kinds that have none yet."""
    intel = {"cpu": {"model": "Intel Xeon", "vendor": "GenuineIntel", "family": "6", "model_number": "207"}}
    zen5 = {"cpu": {"model": "AMD EPYC", "vendor": "AuthenticAMD", "family": "26", "model_number": "2"}}
    one = validation.merge_report(None, validation.machine_key(intel), "## Intel Xeon (x)\n\nfirst Intel run\n")
    assert "Not yet validated on: AMD EPYC Zen 3 VM" in one and "AMD EPYC Zen 5 VM" in one
    assert "Intel Xeon VM" not in one.split("Sections:")[1].split("\n")[2]
    two = validation.merge_report(one, validation.machine_key(zen5), "## AMD EPYC (y)\n\nZen 5 run\n")
    assert list(validation.split_report(two)) == [validation.machine_key(intel), validation.machine_key(zen5)]
    three = validation.merge_report(two, validation.machine_key(intel), "## Intel Xeon (x)\n\nsecond Intel run\n")
    sections = validation.split_report(three)
    assert list(sections) == [validation.machine_key(intel), validation.machine_key(zen5)]
    assert "second Intel run" in three and "first Intel run" not in three and "Zen 5 run" in three
    assert "Not yet validated on: AMD EPYC Zen 3 VM" in three and "Zen 5 VM (" not in three.split("Sections:")[1]
    assert "[Intel Xeon (x)](#intel-xeon-x); [AMD EPYC (y)](#amd-epyc-y)" in three
    # a report written by the tool reads back as the same sections
    assert validation.split_report(validation.merge_report(three, "k", "## K\n")) | {} == {**sections, "k": "## K"}


def test_testlog_summary(tmp_path):
    logs = tmp_path / "meson-logs"
    logs.mkdir()
    entries = [{"name": "variants-correctness", "result": "OK", "stdout": "ok 1 a\nok 2 b # SKIP no avx\nnot ok 3 c\n"},
               {"name": "sampler", "result": "OK", "stdout": ""},
               {"name": "pytest", "result": "OK", "stdout": ""}]
    (logs / "testlog.json").write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    (tmp_path / "pytest-junit.xml").write_text(
        '<testsuites><testsuite tests="10" failures="1" errors="0" skipped="2"></testsuite></testsuites>')
    p = tool("testlog_summary", str(tmp_path))
    assert p.stdout.strip() == "9 passed, 2 failed, 3 skipped" and p.returncode == 1
    p = tool("testlog_summary", str(tmp_path / "none"))
    assert p.returncode == 1 and "no meson test log" in p.stdout


def test_a_run_is_made_once_per_invocation(tmp_path, monkeypatch, template):
    """The report reads a section's first study for its opening and again in its section: the
    study is run once (the coverage section's first ran three times, and section 12's hour was
    counted from the last)."""
    made: list[str] = []

    def run_one(memfbench, r, out, extra, cache):
        made.append(r.name)
        (out / f"{r.name}.json.gz").write_bytes(gzip.compress(template.read_bytes()))
        return 1.0
    monkeypatch.setattr(runs, "run_one", run_one)
    ctx = validation.Ctx(tmp_path / "memfbench", None, tmp_path, [], cache=tmp_path / "cache")
    first = runs.Run("cov0", [])
    assert validation.invoke(ctx, first) == validation.invoke(ctx, first) == (tmp_path / "cov0.json.gz", 1.0)
    assert made == ["cov0"]

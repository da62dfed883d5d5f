"""analyze variants (and the report's table): one line per variant of a run with seed 000's metrics,
each cell the figure the command that measures it gives (compare's ratio, analyze pressure's
difference, analyze threads' slowdown, the PGO gain), "not measured" where no file measured it, a
line per column saying how, the SMT sentence from the thread places, and bad option files refused in
one line. Real short runs of memfbench; the PGO pair and the SMT places are the real files edited
where this build cannot make them (pgo_fixtures.py; a machine without SMT siblings)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT, one_line_refusal

# the module's studies include one of two timing threads (--threads 2 --cpus 0,1)
pytestmark = pytest.mark.all_cpus
from pgo_fixtures import add_pgo, write

SHORT = ["--rounds", "16", "--warmup-rounds", "2", "--processes", "2", "-q", *GEOMETRY]
VARIANTS = ["-v", "libc", "-v", "examples/source/copy_at.c:copy_at=at", "-v", "sse2", "-v", "noop"]
COLUMNS = ["ns/call ratio", "code size", "i-cache pressure slope", "beside a second thread", "PGO gain"]


@pytest.fixture(scope="module")
def files(tmp_path_factory, memfbench) -> dict[str, str]:
    """The study plain, under 16 KiB of i-cache pressure, and beside a second timing thread; a copy
    of the plain run with a copy of `at` as its profiled build."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("a second timing thread needs two CPUs")
    d = tmp_path_factory.mktemp("variants")
    out = {}
    extra = {"plain": [], "pressure": ["--icache-pressure", "16K"], "threads": ["--threads", "2", "--cpus", "0,1"]}
    for name, more in extra.items():
        out[name] = str(d / f"{name}.json")
        subprocess.run([memfbench, "run", *VARIANTS, *SHORT, *more, "-o", out[name]], check=True, timeout=300,
                       cwd=ROOT, capture_output=True)
    twin = d / "twin.json"
    subprocess.run([memfbench, "run", *VARIANTS, "-v", "examples/source/copy_at.c:copy_at=at2", *SHORT,
                    "-o", str(twin)], check=True, timeout=300, cwd=ROOT, capture_output=True)
    out["pgo"] = write(add_pgo(json.loads(twin.read_text()), "at", "at2"), d / "pgo.json")
    return out


def rows(stdout: str) -> dict[str, str]:
    """The table's lines by variant (the first word)."""
    lines = stdout.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("variant "))
    out = {}
    for x in lines[head + 1:]:
        if x.split(":", 1)[0] in COLUMNS:
            break
        out[x.split()[0]] = x
    return out


def test_the_run_alone_gives_ratio_and_code_size(files) -> None:
    from analysis.io.load import load_run
    from analysis.verdicts.compare import time_ratios
    p = analysis("variants", files["plain"])
    assert p.returncode == 0, p.stderr
    table = rows(p.stdout)
    assert list(table) == ["libc", "at", "sse2"]  # the harness's noop is no variant of the study
    ratios = time_ratios(load_run(files["plain"]))
    for v in ("at", "sse2"):
        x, lo, hi = ratios[v]
        assert f"{x:.3f} [{lo:.3f}, {hi:.3f}]" in table[v]
    doc = json.loads(Path(files["plain"]).read_text())
    size = {v["name"]: v["code_size"] for v in doc["variants"]}
    assert f"{size['sse2']} B (the function alone)" in table["sse2"]
    assert "1 (baseline)" in table["libc"]
    # nothing else measured: said so in every other cell, and why under the table
    for v in ("at", "sse2"):
        assert table[v].count("not measured") == 3
    how = {x.split(":", 1)[0]: x for x in p.stdout.splitlines() if x.split(":", 1)[0] in COLUMNS}
    assert list(how) == COLUMNS
    assert "--icache-pressure" in how["i-cache pressure slope"] and "--threads 2" in how["beside a second thread"]


def test_every_column_from_its_file(files, tmp_path: Path) -> None:
    from analysis.io.load import load_run
    from analysis.stats.threads import interference
    from analysis.verdicts.pressure import pressure_frame
    from analysis.verdicts.variants import variants_table
    plain, press, threaded = (load_run(files[k]) for k in ("plain", "pressure", "threads"))
    t = variants_table(plain, [press], threaded)
    by = {r.variant: r for r in t.rows}
    # the slope: analyze pressure's paired difference at 16 KiB less that at 0, per KiB
    df = pressure_frame([plain, press], "libc")
    for v in ("at", "sse2"):
        d = df[df["variant"] == v].set_index("pressure_bytes")["diff_ns"]
        assert by[v].pressure.ns_per_kib == pytest.approx((d[16384] - d[0]) / 16)
    # the slowdown: analyze threads' interference, variant by variant
    inter = interference(threaded).set_index("variant")
    for v in ("libc", "at", "sse2"):
        assert by[v].slowdown == pytest.approx(tuple(inter.loc[v, ["slowdown_pct", "slowdown_low", "slowdown_high"]]))
    p = analysis("variants", files["plain"], "--pressure", files["pressure"], "--threads", files["threads"])
    assert p.returncode == 0, p.stderr
    table = rows(p.stdout)
    # every column measured but the PGO gain (no pair in these runs)
    assert "ns/call per KiB" in table["at"] and table["sse2"].count("not measured") == 1
    x, lo, hi = by["sse2"].slowdown
    assert f"{x:+.1f} % [{lo:+.1f}, {hi:+.1f}]" in table["sse2"]
    # this machine's places: two cores (the thread places record no core shared)
    how = p.stdout.splitlines()[-2]
    assert how.startswith("beside a second thread:") and "two cores, not two hardware threads" in how


def test_smt_siblings_are_said_so(files, tmp_path: Path) -> None:
    """Thread places that share a core (as --cpus on two SMT siblings records them): the figure is
    of two hardware threads of one core."""
    doc = json.loads(Path(files["threads"]).read_text())
    topo = doc["config"]["threads"]["topology"]
    topo[0]["shares_core_with"], topo[1]["shares_core_with"] = [1], [0]
    topo[0]["siblings"] = topo[1]["siblings"] = "0-1"
    f = write(doc, tmp_path / "smt.json")
    p = analysis("variants", files["plain"], "--threads", f)
    assert p.returncode == 0, p.stderr
    assert "two hardware threads of one core" in p.stdout and "two cores, not" not in p.stdout


def test_pgo_gain_from_the_run_or_another(files, tmp_path: Path) -> None:
    from analysis.io.load import load_run
    from analysis.verdicts.pgo import run_gains
    (g,) = run_gains(load_run(files["pgo"]))
    p = analysis("variants", files["pgo"])
    assert p.returncode == 0, p.stderr
    table = rows(p.stdout)
    word = "faster" if g.ratio <= 1 else "slower"
    assert f"{abs(100 * (1 - g.ratio)):.1f} % {word}" in table["at"]
    assert "(the profiled build of at)" in table["at-pgo"]
    p = analysis("variants", files["plain"], "--pgo", files["pgo"])
    assert p.returncode == 0, p.stderr
    assert f"{abs(100 * (1 - g.ratio)):.1f} % {word}" in rows(p.stdout)["at"]
    assert "not measured" in rows(p.stdout)["sse2"].rsplit("  ", 1)[1]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed")
def test_code_size_with_callees_from_a_counts_file(files, memfbench, tmp_path: Path) -> None:
    counts = tmp_path / "c.json"
    subprocess.run([memfbench, "counts", "-v", "sse2", "--calls", "500", "-d", "fixed:64", "-q", "-o", str(counts)], check=True,
                   capture_output=True, timeout=300)
    doc = json.loads(counts.read_text())
    # code_bytes: the function and every function callgrind saw it call (sse2 calls none)
    sse2 = next(v for v in doc["variants"] if v["name"] == "sse2")
    assert sse2["code_bytes"] == sum(c["bytes"] for c in sse2["code"]) > 0
    p = analysis("variants", files["plain"], "--counts", str(counts))
    assert p.returncode == 0, p.stderr
    table = rows(p.stdout)
    assert f"{sse2['code_bytes']} B (with callees)" in table["sse2"] and "(the function alone)" in table["at"]


def test_bad_option_files_are_refused_in_one_line(files, tmp_path: Path) -> None:
    one_line_refusal(analysis("variants", files["plain"], "--threads", files["plain"]), "--threads", "not a threaded run")
    other = json.loads(Path(files["pressure"]).read_text())
    other["config"]["distribution"] = "spec2017/memcpy"
    f = write(other, tmp_path / "other.json")
    one_line_refusal(analysis("variants", files["plain"], "--pressure", f), "--pressure", "other.json", "spec2017/memcpy")
    one_line_refusal(analysis("variants", files["plain"], "--pgo", files["plain"]), "--pgo", "no NAME-pgo")
    one_line_refusal(analysis("variants", files["plain"], "--threads", str(tmp_path / "nosuch.json")), "nosuch.json")
    one_line_refusal(analysis("variants", files["plain"], "--level", "0.1"), "--level")


def test_the_report_has_the_table(files, tmp_path: Path) -> None:
    out = tmp_path / "r"
    p = analysis("report", files["plain"], "-o", str(out), "--threads", files["threads"])
    assert p.returncode == 0, p.stderr
    md = (out / "report.md").read_text()
    section = md.split("### Time, code size and friendliness, one line per variant", 1)[1].split("\n### ", 1)[0]
    head = next(x for x in section.splitlines() if x.startswith("| variant"))
    assert [c.strip() for c in head.strip("|").split("|")] == ["variant"] + COLUMNS
    assert "not measured" in section and "two cores, not two hardware threads" in section
    html = (out / "report.html").read_text()
    assert "Time, code size and friendliness, one line per variant" in html
    # an option file that fits none of the report's runs
    other = json.loads(Path(files["pressure"]).read_text())
    other["config"]["distribution"] = "spec2017/memcpy"
    f = write(other, tmp_path / "other.json")
    one_line_refusal(analysis("report", files["plain"], "-o", str(tmp_path / "r2"), "--pressure", f), "--pressure",
              "fits none")
    assert not (tmp_path / "r2").exists()


def test_the_table_takes_the_verdicts_baseline(files, tmp_path: Path) -> None:
    """report --baseline B: the table's ratios and pressure slopes are to B, as the verdicts are."""
    from analysis.io.load import load_run
    from analysis.verdicts.variants import variants_table

    run, pressure = load_run(files["plain"]), load_run(files["pressure"])
    other = next(v for v in run.variants if v != run.baseline and v not in run.harness_variants)
    t = variants_table(run, [pressure], baseline=other)
    rows = {r.variant: r for r in t.rows}
    assert t.baseline == other and rows[other].baseline and not rows[run.baseline].baseline
    assert rows[other].ratio == (1.0, 1.0, 1.0) and rows[run.baseline].ratio != (1.0, 1.0, 1.0)
    assert f"to {other}," in t.how["ns/call ratio"] and f"minus {other}," in t.how["i-cache pressure slope"]
    out = tmp_path / "rep"
    p = analysis("report", files["plain"], "--pressure", files["pressure"], "--baseline", other, "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert f"minus {other}," in (out / "report.md").read_text()

"""memfbench suite and analyze suite: one number across studies. The arithmetic on known answers
(the geometric mean, the propagated error, Welch-Satterthwaite's degrees of freedom), and the
command end to end on short studies: structure and agreement, never a timing verdict."""
from __future__ import annotations

import math
import json
import subprocess
from pathlib import Path

import pytest

from analysis.stats.laws import t_quantile
from analysis.verdicts.compare import Comparison
from analysis.verdicts.suite import combine, log_se, suite_lines
from analysis_runner import analysis

ROOT = Path(__file__).resolve().parents[2]


def comp(function: str, ratio: float, half: float, dof: int, variant: str = "v") -> Comparison:
    """A comparison whose interval is ratio * exp(+-half) at 95 %, from a t law with dof."""
    c = Comparison(run="r", function=function, distribution=f"{function}_Fleet", variant=variant, baseline="libc",
                   rounds=10, ratio=ratio, ci_low=ratio * math.exp(-half), ci_high=ratio * math.exp(half),
                   ci_adj_low=0, ci_adj_high=0, level=0.95, p_sign=0, p_adjusted=0, ratio_of_medians=0, rom_low=0,
                   rom_high=0, rom_method="", mann_whitney_p=0, hodges_lehmann_ratio=0, hl_subsampled=False,
                   tied_rounds=0, mde=0, rounds_for_margin=0, margin=0.01)
    c.dof, c.across_processes = dof, True
    return c


def test_a_studys_error_is_read_back_from_its_interval() -> None:
    se, dof = log_se(comp("memcpy", 1.1, 0.02, 22))
    assert dof == 22 and se == pytest.approx(0.02 / t_quantile(0.975, 22), rel=1e-12)


def test_the_suite_is_the_geometric_mean_with_the_errors_added() -> None:
    a, b = comp("memcpy", 1.10, 0.02, 22), comp("memset", 0.90, 0.04, 10)
    line = combine([a, b], level=0.95, margin=0.01)
    assert line.geomean == pytest.approx(math.sqrt(1.10 * 0.90), rel=1e-12)
    sa, sb = log_se(a)[0], log_se(b)[0]
    se = math.sqrt(sa ** 2 + sb ** 2) / 2
    dof = (sa ** 2 + sb ** 2) ** 2 / (sa ** 4 / 22 + sb ** 4 / 10)
    assert line.dof == pytest.approx(dof, rel=1e-12)
    q = t_quantile(0.975, dof)
    assert (line.low, line.high) == pytest.approx((line.geomean * math.exp(-q * se), line.geomean * math.exp(q * se)))
    assert line.verdict == "inconclusive" and line.studies == ["memcpy on memcpy_Fleet", "memset on memset_Fleet"]


def test_verdicts_and_which_variants_make_a_suite() -> None:
    fast = [comp(f, 0.8, 0.01, 20) for f in ("memcpy", "memset", "bcmp")]
    same = [comp(f, 1.0, 0.001, 20, variant="copy") for f in ("memcpy", "memset")]
    alone = [comp("memcpy", 1.5, 0.01, 20, variant="only")]
    lines = {x.variant: x for x in suite_lines(fast + same + alone, level=0.95, margin=0.01)}
    assert set(lines) == {"v", "copy"}  # one study is no suite
    assert lines["v"].verdict == "faster" and lines["copy"].verdict == "equivalent"


def test_memfbench_suite_runs_every_function_and_prints_the_suite(memfbench: str, tmp_path: Path) -> None:
    out = tmp_path / "s"
    p = subprocess.run([memfbench, "suite", "-q", "-o", str(out), "--", "-v", "libc", "-v", "bytes", "--rounds", "3",
                        "--processes", "2", "--allow-single-process", "--cache", "32K:512K:32M"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert sorted(f.name for f in out.iterdir()) == [f"{f}.json.gz" for f in
                                                     sorted(["memcpy", "memmove", "memset", "memcmp", "bcmp"])]
    lines = p.stdout.splitlines()
    assert lines[0].startswith("suite of 5 studies: bcmp, memcmp, memcpy, memmove, memset")
    bytes_line = next(x for x in lines if x.startswith("bytes "))
    assert "5 studies" in bytes_line and len(bytes_line) <= 80
    again = analysis("suite", *sorted(map(str, out.iterdir())))
    assert again.returncode == 0 and bytes_line in again.stdout


def test_memfbench_suite_refuses_what_it_sets_itself(memfbench: str, tmp_path: Path) -> None:
    for extra in (["-o", "x"], ["-f", "memset"], ["--distribution=fixed:8"]):
        p = subprocess.run([memfbench, "suite", "-o", str(tmp_path / "s"), "--", *extra], capture_output=True, text=True)
        assert p.returncode == 2 and "the suite sets" in p.stderr and not (tmp_path / "s").exists()
    # in every spelling run's parser takes: an abbreviation, a value joined to a short option
    for extra in (["--out=x"], ["-fmemset"], ["-qd", "fixed:8"]):
        p = subprocess.run([memfbench, "suite", "-o", str(tmp_path / "s"), "--", *extra], capture_output=True, text=True)
        assert p.returncode == 2 and "the suite sets" in p.stderr and not (tmp_path / "s").exists(), extra
    (tmp_path / "t").mkdir()
    p = subprocess.run([memfbench, "suite", "-o", str(tmp_path / "t"), "--", "--rounds", "1"], capture_output=True,
                       text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def test_a_single_study_is_no_suite(memfbench: str, tmp_path: Path) -> None:
    f = tmp_path / "one.json"
    subprocess.run([memfbench, "run", "-v", "libc", "-v", "bytes", "--rounds", "2", "--processes", "1", "-q", "--cache",
                    "32K:512K:32M", "-o", str(f)], check=True)
    p = analysis("suite", str(f))
    assert p.returncode == 2 and "a suite needs at least two" in p.stderr


def test_compare_summarize_and_report_give_the_same_suite_line(memfbench: str, tmp_path: Path) -> None:
    """Files of several studies given to compare, summarize or report: the suite's lines, the same
    as analyze suite's (the variants' code-identity names, libc@ID, are one name in a suite)."""
    out = tmp_path / "s"
    subprocess.run([memfbench, "suite", "-q", "-o", str(out), "--", "-v", "libc", "-v", "bytes", "-v", "libc-copy",
                    "--rounds", "3", "--processes", "2", "--allow-single-process", "--cache", "32K:512K:32M"],
                   capture_output=True, text=True, timeout=600, check=True)
    files = sorted(map(str, out.iterdir()))
    suite = analysis("suite", *files).stdout
    wanted = [x for x in suite.splitlines() if x.startswith(("bytes ", "libc-copy "))]
    assert len(wanted) == 2
    # under each line, the ratio of each study it averages, as that study's compare gives it
    lines = suite.splitlines()
    below = " ".join(lines[lines.index(wanted[0]) + 1:lines.index(wanted[0]) + 3])
    name = wanted[0].split()[0]
    for f in files:
        compared = analysis("compare", f, "--json", str(tmp_path / "c.json"))
        assert compared.returncode == 0, compared.stderr
        row = next(r for r in json.loads((tmp_path / "c.json").read_text()) if r["variant"].split("@")[0] == name)
        assert f"{row['function']} {row['ratio']:.3f}" in below, (row["function"], below)
    for command in ("compare", "summarize"):
        p = analysis(command, *files)
        assert p.returncode == 0, p.stderr
        block = p.stdout.split("== suite: geometric mean over 5 studies", 1)[1].splitlines()
        assert all(w in block for w in wanted), (command, block)
    # the report of two of them: a suite all the same, and two studies' figures to draw, not five
    p = analysis("report", *files[:2], "-o", str(tmp_path / "r"))
    assert p.returncode == 0, p.stderr
    assert "## Suite: 2 studies" in (tmp_path / "r" / "report.md").read_text()

"""memfbench ab: a program end to end under libc and each variant (bench/ab/ab.c,
analysis/verdicts/ab.py). Structure, routing and refusals; never a timing verdict."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import numpy as np
import pytest

from analysis_runner import analysis
from conftest import ROOT, needs_plain_preload

from analysis.io.ab_file import read_ab, recorded_calls
from analysis.io.reading import ResultFileError
from analysis.stats.intervals import t_interval
from analysis.stats.placement_model import design_estimate
from analysis.verdicts.ab import compare_ab

BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
PROGRAM = BUILD / "tests" / "c" / "ab_calls"
STATIC = BUILD / "tests" / "c" / "ab_static"

pytestmark = pytest.mark.skipif(not (PROGRAM.exists() and (BUILD / "bench" / "ab" / "shim" / "libmemfbench-ab.so").exists()),
                                reason="the ab shim or tests/c/ab_calls not built")
pytestmark = [pytestmark, needs_plain_preload]


def ab(memfbench: str, *args: str, env: dict[str, str] | None = None,
       cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([memfbench, "ab", *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={**os.environ, "MPLBACKEND": "Agg", **(env or {})})


@pytest.fixture(scope="module")
def result(tmp_path_factory, memfbench) -> tuple[Path, subprocess.CompletedProcess[str], Path]:
    d = tmp_path_factory.mktemp("ab")
    counts = d / "counts.txt"
    out = d / "ab.json"
    p = ab(memfbench, "-v", "sse2", "-v", f"{BUILD / 'examples' / 'libmemcpy_erms.so'}:erms_memcpy=erms",
           "--runs", "3", "--seed", "7", "-o", str(out), "--", str(PROGRAM), env={"MEMFBENCH_AB_COUNT": str(counts)})
    return out, p, counts


def test_ab_writes_a_valid_file_and_prints_a_verdict(result) -> None:
    out, p, _ = result
    assert p.returncode == 0, p.stderr
    doc = read_ab(out)
    assert [a["name"] for a in doc["arms"]] == ["plain", "libc", "sse2", "erms"]
    assert [a["kind"] for a in doc["arms"]] == ["plain", "libc", "variant", "variant"]
    assert doc["config"]["runs"] == 3 and doc["config"]["warmup_blocks"] == 1 and doc["config"]["seed"] == "7"
    assert len(doc["runs"]) == 4 * 4  # (1 warm-up + 3) blocks of 4 arms
    assert doc["program"]["path"] == str(PROGRAM.resolve()) and not doc["program"]["script"]
    # the headline: per measure a line per arm against libc and the shim's own cost, over 3 blocks
    for measure in ("wall time", "CPU time (user + sys)"):
        block = p.stdout.split(f"\n{measure}\n", 1)[1].splitlines()[:3]
        assert [x.split("  ")[1] for x in block] == ["sse2", "erms", "shim's cost"], p.stdout
        assert all(x.endswith("3 blocks") and len(x) <= 80 for x in block), block
    assert p.stdout.rstrip().endswith(": --detail")


def test_every_block_runs_every_arm_once_in_an_order_of_its_own(result) -> None:
    doc = json.loads(result[0].read_text(encoding="utf-8"))
    orders = []
    for b in range(4):
        runs = sorted((r for r in doc["runs"] if r["block"] == b), key=lambda r: r["order"])
        assert sorted(r["arm"] for r in runs) == sorted(["plain", "libc", "sse2", "erms"])
        assert all(r["warmup"] == (b == 0) for r in runs)
        orders.append(tuple(r["arm"] for r in runs))
    assert len(set(orders)) > 1  # seed 7 draws different orders


def test_each_arm_ran_with_its_routing(result) -> None:
    """The count file the shim appends at each process's exit: none from the plain runs, every
    memcpy to the C library under libc, every memcpy to the variant under sse2 and erms."""
    lines = [x.split() for x in result[2].read_text(encoding="utf-8").splitlines() if x.startswith("memcpy ")]
    routed = sum(1 for x in lines if x == ["memcpy", "7", "0"])
    to_libc = sum(1 for x in lines if x == ["memcpy", "0", "7"])
    assert (routed, to_libc, len(lines)) == (8, 4, 12)  # 4 blocks: sse2 and erms routed, libc not, plain none


def test_the_comparisons_follow_the_runs(result) -> None:
    comps = compare_ab(read_ab(result[0]))
    assert [(c.arm, c.baseline, c.measure) for c in comps] == [
        ("libc", "plain", "wall"), ("sse2", "libc", "wall"), ("erms", "libc", "wall"),
        ("libc", "plain", "cpu"), ("sse2", "libc", "cpu"), ("erms", "libc", "cpu")]
    assert all(c.blocks == 3 and c.ci_low <= c.ratio <= c.ci_high and c.pi_low <= c.ci_low for c in comps)


@pytest.mark.skipif(not STATIC.exists(), reason="no static build of ab_calls (sanitized build)")
def test_a_static_program_is_refused_before_it_runs(memfbench, tmp_path) -> None:
    p = ab(memfbench, "-v", "sse2", "-o", str(tmp_path / "x.json"), "--", str(STATIC))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    assert "statically linked" in p.stderr and str(STATIC) in p.stderr
    assert not list(tmp_path.iterdir())


def test_a_failing_program_is_an_error_naming_the_run(memfbench, tmp_path) -> None:
    p = ab(memfbench, "-v", "sse2", "--runs", "2", "-o", str(tmp_path / "x.json"), "--", "false")
    assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1
    assert "run 1 (block 1, arm " in p.stderr and "exited with status 1" in p.stderr
    assert not list(tmp_path.iterdir())


def test_a_program_that_fails_under_one_arm_only_names_that_arm(memfbench, tmp_path) -> None:
    """A plugin that drops a long copy's last byte in programs only (memfbench's check passes):
    ab_calls finds the wrong result and exits 1 under that arm only, whatever the order."""
    wrong = BUILD / "tests" / "c" / "libwrong_plugin.so"
    p = ab(memfbench, "-v", "sse2", "-v", f"{wrong}:dropping_in_program_memcpy=dropping", "--runs", "2", "-o",
           str(tmp_path / "x.json"), "--", str(PROGRAM))
    assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1
    assert "arm dropping)" in p.stderr and "exited with status 1" in p.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("setup,args,problem", [
    ("none", ["--", "no-such-program-anywhere"], "no such program"),
    ("noexec", [], "not executable"),
    ("setuid", [], "set-user-ID"),
    ("text", [], "neither an ELF executable nor a #! script"),
    ("none", ["-v", "nosuch", "--", "true"], "no such variant of memcpy"),
    ("none", ["-v", "noop", "--", "true"], "does not do the function's work"),
    ("none", ["-v", "libc", "--", "true"], "libc is the baseline"),
    ("none", ["-v", "sse2", "--runs", "1", "--", "true"], "--runs"),
    ("none", ["-v", "sse2", "--cpu", "999", "--", "true"], "--cpu"),
    ("none", ["-v", "sse2"], "no program"),
])
def test_bad_input_is_one_line(memfbench, tmp_path, setup, args, problem) -> None:
    prog = tmp_path / "prog"
    if setup != "none":
        if setup == "text":
            prog.write_text("just text\n", encoding="utf-8")
            prog.chmod(0o755)
        else:
            shutil.copy(PROGRAM, prog)
            prog.chmod({"noexec": 0o644, "setuid": 0o755 | stat.S_ISUID}[setup])
        args = ["-v", "sse2", "--", str(prog)]
    p = ab(memfbench, "-o", str(tmp_path / "x.json"), *args)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and problem in p.stderr
    assert not (tmp_path / "x.json").exists()


def test_a_broken_ab_file_is_one_line(result, tmp_path) -> None:
    doc = json.loads(result[0].read_text(encoding="utf-8"))
    doc["runs"] = [r for r in doc["runs"] if not (r["block"] == 2 and r["arm"] == "sse2")]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ResultFileError, match="block 2 does not run every arm once"):
        read_ab(bad)
    p = analysis("ab", str(bad))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "block 2" in p.stderr


@pytest.fixture(scope="module")
def predicted(tmp_path_factory, memfbench) -> tuple[Path, subprocess.CompletedProcess[str], Path]:
    """ab_calls recorded with its trace, then ab with --predict-from its recording and --by-class
    (short replays)."""
    d = tmp_path_factory.mktemp("predict")
    rec = d / "rec"
    subprocess.run([memfbench, "record", "--trace", "1000", "-o", str(rec), "--", str(PROGRAM)], check=True,
                   capture_output=True, timeout=120)
    p = ab(memfbench, "-v", "sse2", "--runs", "3", "--predict-from", str(rec), "--by-class", "--replay-time", "1",
           "-o", "ab.json", "--", str(PROGRAM), cwd=d)
    return d, p, rec


def test_predict_from_replays_the_recording_and_prints_both(predicted) -> None:
    d, p, rec = predicted
    assert p.returncode == 0, p.stderr
    doc = read_ab(d / "ab.json")
    assert doc["prediction"] == {"recording": str(rec), "replay": str(d / "ab.json.replay.json"),
                                 "trace_replay": str(d / "ab.json.trace-replay.json"), "by_class": True,
                                 "recorded_calls": recorded_calls(rec, "memcpy")}
    replay = json.loads((d / "ab.json.replay.json").read_text(encoding="utf-8"))
    assert replay["config"]["distribution"].endswith("rec/memcpy_size.csv") and replay["by_class"]
    assert replay["config"]["variants"] == ["libc", "sse2"]
    trace = json.loads((d / "ab.json.trace-replay.json").read_text(encoding="utf-8"))
    assert trace["config"]["trace"].endswith("rec/memcpy_trace.csv") and trace["config"]["variants"] == ["libc", "sse2"]
    # ab_calls makes 7 memcpy calls a run (and mempcpy, __memcpy_chk and __mempcpy_chk 7 each: all
    # counted as memcpy by the recorder); one line from each replay
    said: list[str] = []  # each prediction's sentence, wrapped to 80 columns, whole again
    for x in p.stdout.splitlines():
        if x.startswith("  ") and not x.startswith("   ") and said and said[-1].startswith("- "):
            said[-1] += " " + x.strip()
        else:
            said.append(x)
    for basis in ("the table drawn at random", "the trace in order"):
        lines = [x for x in said if x.startswith(f"- sse2 - libc per run, from {basis}: predicted")]
        assert len(lines) == 1 and " calls x " in lines[0]
        assert any(v in lines[0] for v in ("agree", "measured slower than predicted", "measured faster than predicted"))
    assert any(x.startswith("    sse2, size class ") for x in p.stdout.splitlines())


def test_the_prediction_is_calls_times_the_per_call_difference(predicted) -> None:
    from analysis.io.ab_file import recorded_calls
    from analysis.io.load import load_run
    from analysis.verdicts.ab import per_call_differences, predict_ab
    d, _, rec = predicted
    doc = read_ab(d / "ab.json")
    table, trace = predict_ab(doc)
    assert (table.basis, trace.basis) == ("table", "trace")
    calls = recorded_calls(rec, "memcpy")
    for pr, replay in ((table, "ab.json.replay.json"), (trace, "ab.json.trace-replay.json")):
        per = per_call_differences(load_run(d / replay), "sse2")
        assert pr.calls == calls > 0 and len(per) == 10
        assert pr.predicted_s == pytest.approx(calls * per.mean() * 1e-9)
        assert pr.predicted_low <= pr.predicted_s <= pr.predicted_high and pr.gap_low <= pr.gap_high
    # a trace's rounds are its successive windows, each its share of the calls: the mean over them
    from analysis.io.load import measured
    run = load_run(d / "ab.json.trace-replay.json")
    # the processes the replay kept: a starved one, whose slot ran again, is marked dropped in the file
    kept = [p["index"] for p in run.doc["processes"] if "dropped" not in p]
    b = measured(run.batches)
    t = b[b["process"].isin(kept)].pivot_table(index=["process", "round"], columns="variant", values="ns_per_call",
                                          observed=True)
    assert per_call_differences(run, "sse2") == pytest.approx(
        (t["sse2"] - t["libc"]).groupby(level="process").mean().to_numpy())
    # by class: the classes' parts and the residual add up to the whole prediction, per run
    assert table.classes[-1].size_class == "residual" and not trace.classes
    assert sum(c.predicted_s for c in table.classes) == pytest.approx(table.predicted_s, rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("args,problem", [
    (["--predict-from", "NOWHERE"], "--predict-from"),
    (["--predict-from", "EMPTY"], "no memcpy_size.csv"),
    (["--predict-from", "EMPTY", "-f", "memset"], "no memset_size.csv"),
    (["--replay-time", "0"], "--replay-time"),
    (["--by-class"], "--by-class needs --predict-from"),
    (["--predict-from", "BADTABLE"], "memcpy_size.csv:2: size_hi"),
    (["--predict-from", "BADTRACE"], "memcpy_trace.csv:1: header"),
])
def test_bad_prediction_options_are_one_line(memfbench, tmp_path, args, problem) -> None:
    (tmp_path / "empty").mkdir()
    # recordings that cannot be replayed: refused before the first run, not after them
    for name, table, trace in (("badtable", "size_lo,size_hi,weight\n5,3,1\n", None),
                               ("badtrace", "size_lo,size_hi,weight\n5,5,1\n", "garbage\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "memcpy_size.csv").write_text(table, encoding="utf-8")
        (tmp_path / name / "provenance.json").write_text(json.dumps(
            {"schema": "memfbench-recording", "command": [str(PROGRAM)], "calls": {"memcpy": {"calls": 7}}}),
            encoding="utf-8")
        if trace:
            (tmp_path / name / "memcpy_trace.csv").write_text(trace, encoding="utf-8")
    args = [x.replace("NOWHERE", str(tmp_path / "nowhere")).replace("EMPTY", str(tmp_path / "empty"))
            .replace("BADTABLE", str(tmp_path / "badtable")).replace("BADTRACE", str(tmp_path / "badtrace")) for x in args]
    p = ab(memfbench, "-v", "sse2" if "memset" not in args else "bytes", *args, "-o", str(tmp_path / "x.json"), "--",
           str(PROGRAM))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and problem in p.stderr
    assert not (tmp_path / "x.json").exists()


def test_the_gap_of_one_process_counts_the_replays_spread_of_one_process() -> None:
    """measured - predicted for a program that is one process: the replay's values enter with the
    spread of one new process, the measured blocks with the error of their mean."""
    from analysis.stats.placement_model import welch
    from analysis.verdicts.ab import one_process_gap
    rng = np.random.default_rng(7)
    predicted, measured = rng.normal(-5.0, 0.3, 10), rng.normal(-5.5, 0.5, 10)
    d, low, high = one_process_gap(predicted, measured, 0.95)
    wd, wlow, whigh, _ = welch(design_estimate(predicted), design_estimate(measured), 0.95)
    assert d == pytest.approx(wd) and low < d < high
    assert high - low > whigh - wlow  # one process spreads more than a mean of ten
    # a replay without spread leaves the measured side's t interval alone
    d0, low0, high0 = one_process_gap(np.full(10, -5.0), measured, 0.95)
    ci = t_interval(measured, 0.95)
    assert (low0, high0) == pytest.approx((ci.low + 5.0, ci.high + 5.0))
    # one value on a side has no spread to take: no interval (and predict_ab gives no verdict)
    assert np.isnan(one_process_gap(predicted[:1], measured, 0.95)[1])

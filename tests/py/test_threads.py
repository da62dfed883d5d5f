"""memfbench run --threads/--cpus and --background: the file's structure, the threads' placement,
and the refusals. No timing is asserted (that is docs/methodology.md's, with its commands)."""
from __future__ import annotations

import subprocess
from collections import Counter

import pytest

from analysis_runner import analysis
from conftest import ALL_CPUS, QUICK, binary
from analysis.io.load import read_result

# every test here places threads on CPUs, or names one
pytestmark = pytest.mark.all_cpus
ALLOWED = sorted(ALL_CPUS)
two_cpus = pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two CPUs this process may run on")
VARIANTS = ["-v", "libc", "-v", "rep_movsb", "-v", "noop"]
ROUNDS = 8


def cpus_arg(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


@two_cpus
def test_two_threads_on_two_cpus_have_a_thread_column_and_alone_pairs(run):
    cpus = [ALLOWED[-1], ALLOWED[0]]  # thread 0 on the default CPU
    r = run("--threads", "2", "--cpus", cpus_arg(cpus), *VARIANTS, *QUICK)
    assert r.code == 0, r.stderr
    doc = read_result(r.out)  # validates against the schema
    s = doc["samples"]
    th = doc["config"]["threads"]
    assert th["count"] == 2 and th["cpus"] == cpus and th["alone_batches"] is True
    assert [t["cpu"] for t in th["topology"]] == cpus and [t["thread"] for t in th["topology"]] == [0, 1]
    # every batch ran on its thread's CPU
    assert all(cpu == cpus[t] for t, cpu in zip(s["thread"], s["cpu"]))
    rows = list(zip(s["thread"], s["alone"], s["round"], s["variant"]))
    # only thread 0 times alone; each thread has every (round, variant) once beside the others,
    # and thread 0 has an alone batch for each of its own
    assert not any(a for t, a, _, _ in rows if t != 0)
    kinds = Counter((t, a) for t, a, _, _ in rows)
    assert kinds[(0, False)] == kinds[(1, False)] == kinds[(0, True)] > 0
    for key in [(0, False), (1, False), (0, True)]:
        seen = Counter((rnd, v) for t, a, rnd, v in rows if (t, a) == key)
        assert set(seen.values()) == {1}
        assert set(seen) == {(rnd, v) for t, a, rnd, v in rows if (t, a) == (0, False)}
    assert max(s["round"]) + 1 == doc["rounds"]["count"] and doc["rounds"]["measured"] == ROUNDS
    # thread 0's batches beside the others come first, as in a one-thread file
    n0 = kinds[(0, False)]
    assert set(zip(s["thread"][:n0], s["alone"][:n0])) == {(0, False)}
    # each thread replays calls of its own: the bytes of a measured round's batch differ between them
    measured = [i for i in range(s["count"]) if not s["warmup"][i]]
    by_key = {(s["thread"][i], s["alone"][i], s["round"][i], s["variant"][i]): s["bytes"][i] for i in measured}
    differ = sum(by_key[(0, False, rnd, v)] != by_key.get((1, False, rnd, v))
                 for (t, a, rnd, v) in by_key if (t, a) == (0, False))
    assert differ > 0


@two_cpus
def test_per_thread_summaries_from_the_analysis(run, tmp_path):
    cpus = [ALLOWED[-1], ALLOWED[0]]
    r = run("--threads", "2", "--cpus", cpus_arg(cpus), *VARIANTS, *QUICK)
    assert r.code == 0, r.stderr
    from analysis.io.load import load_run
    from analysis.stats import threads
    run_ = load_run(r.out)
    # every statistic of the file is thread 0's beside the others
    assert set(run_.batches["thread"]) == {0} and not run_.batches["alone"].any()
    table = threads.thread_summary(run_)
    per_thread = table[table["thread"].astype(str) != "all"]
    assert {(v, str(t)) for v, t in zip(per_thread["variant"], per_thread["thread"])} == \
        {(v, str(t)) for v in ["libc", "rep_movsb", "noop"] for t in (0, 1)}
    assert (per_thread["batches"] == ROUNDS).all()
    inter = threads.interference(run_)
    assert set(inter["variant"]) >= {"libc", "rep_movsb"}
    proc = analysis("threads", str(r.out), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "rep_movsb" in proc.stdout and str(cpus[1]) in proc.stdout


def test_one_thread_run_records_its_cpu_and_has_no_thread_columns(run):
    r = run("-v", "libc", "-v", "noop", *QUICK)
    assert r.code == 0, r.stderr
    doc = read_result(r.out)
    assert "thread" not in doc["samples"] and "alone" not in doc["samples"]
    th = doc["config"]["threads"]
    assert th["count"] == 1 and th["cpus"] == [doc["config"]["cpu"]] and th["alone_batches"] is False
    assert doc["config"]["background"] is None


@two_cpus
@pytest.mark.parametrize("stressor", ["spin", "bandwidth"])
def test_background_runs_on_the_other_cpu_and_records_its_work(run, stressor):
    r = run("--cpu", str(ALLOWED[-1]), "--background", stressor, "-v", "libc", "-v", "noop", *QUICK)
    assert r.code == 0, r.stderr
    bg = read_result(r.out)["config"]["background"]
    assert bg["stressor"] == stressor and bg["cpus"] == ALLOWED[:-1]
    assert bg["loops"] > 0 and bg["seconds"] > 0
    if stressor == "bandwidth":
        assert bg["buffer_bytes"] >= 64 << 20 and bg["bytes_per_ns"] > 0
    else:
        assert bg["bytes_per_ns"] is None


@two_cpus
def test_threads_in_several_processes_merge(run):
    r = run("--threads", "2", "-v", "libc", "-v", "noop", "--rounds", "4", "--warmup-rounds", "1",
            "--processes", "2", "-q")
    assert r.code == 0, r.stderr
    s = read_result(r.out)["samples"]
    assert set(zip(s["process"], s["thread"])) == {(0, 0), (0, 1), (1, 0), (1, 1)}


def refused(r, *words: str) -> None:
    assert r.code != 0
    assert len(r.stderr_lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, r.stderr
    assert not r.out.exists()


@pytest.mark.parametrize("args,words", [
    (["--cpus", "99999"], ["--cpus", "99999"]),
    (["--cpus", "1024"], ["--cpus", "1024", "does not exist"]),
    (["--cpus", "5000"], ["--cpus", "5000", "does not exist"]),
    (["--cpus", "70000"], ["--cpus", "beyond any machine"]),
    (["--cpu", "1000", "--threads", "2"], ["--cpu", "1000"]),
    (["--threads", "2", "--by-class", "--processes", "1", "--max-batches", "64"], ["--max-batches", "thread"]),
    (["--cpus", "0,0"], ["listed twice"]),
    (["--cpus", "0-"], ["not a CPU list"]),
    (["--cpus", ""], ["not a CPU list"]),
    (["--threads", "0"], ["--threads"]),
    (["--threads", "65"], ["--threads"]),
    (["--threads", str(len(ALLOWED) + 1)], ["--threads", "CPU"]),
    (["--threads", "2", "--cpus", "0"], ["--threads 2", "1 CPU"]),
    (["--background", "hog"], ["--background", "hog"]),
    (["--background-cpus", "0"], ["--background-cpus", "--background"]),
    (["--cpu", "none", "--threads", "2"], ["--cpu none"]),
])
def test_bad_thread_options_are_one_line(run, args, words):
    refused(run(*args, "-v", "libc", *QUICK), *words)


@two_cpus
def test_cpus_outside_the_affinity_are_refused(memfbench, tmp_path):
    out = tmp_path / "out.json"
    proc = subprocess.run(["taskset", "-c", str(ALLOWED[0]), memfbench, "run", "--cpus", str(ALLOWED[1]), "-v", "libc",
                           *QUICK, "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and not out.exists()
    assert f"CPU {ALLOWED[1]} is not one this process may run on" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@two_cpus
def test_cpu_and_cpus_disagreeing_and_a_stressor_without_a_cpu_are_refused(run):
    refused(run("--cpu", str(ALLOWED[0]), "--cpus", cpus_arg([ALLOWED[1], ALLOWED[0]]), "-v", "libc", *QUICK),
            "--cpu", "first CPU of --cpus")
    refused(run("--threads", str(len(ALLOWED)), "--background", "spin", "-v", "libc", *QUICK), "no CPU is left")
    refused(run("--cpu", str(ALLOWED[-1]), "--background", "spin", "--background-cpus", str(ALLOWED[-1]),
                "-v", "libc", *QUICK), "timing thread")


@two_cpus
def test_each_process_records_its_own_stressor(run):
    r = run("--cpu", str(ALLOWED[-1]), "--background", "spin", "-v", "libc", "-v", "noop", "--rounds", "4",
            "--warmup-rounds", "1", "--processes", "2", "-q")
    assert r.code == 0, r.stderr
    from analysis.io.load import load_run
    from analysis.stats.threads import background, background_line
    run_ = load_run(r.out)
    each = [p["background"] for p in run_.doc["processes"]]
    assert len(each) == 2 and all(e["stressor"] == "spin" and e["loops"] > 0 for e in each)
    total = background(run_)
    assert total["loops"] == sum(e["loops"] for e in each) and "in 2 processes" in background_line(run_)

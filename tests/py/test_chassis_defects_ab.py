"""Issue 51's defects of memfbench ab, its shim and the recorder, of --trace with large calls and of
the report: each test fails on 04cd578.

- #6: a program that makes the shim's count file (or the recorder's) a FIFO neither hangs the
  command nor leaves a process blocked in its exit; ab names the run in one line.
- #7: an exec wrapper that never runs memfbench (`/bin/true`) is refused: the variants' check
  needs memfbench run's reply, not an exit status.
- #8: a program that works for a given time passes ab on a loaded CPU (its calls follow its share
  of the CPU); a variant that calls exit inside a call is still refused, by the shim's own sight
  of it; a signal handler's exit while a variant ran is the program's and passes.
- #11: a SIGKILL during --predict-from's replays leaves no visible replay, only temporaries the
  next run sweeps, and a folder where a replay goes is refused before the runs; --program-output
  holds each run within its bound while the program writes (nothing of it goes to the disk
  first); a missing program whose name holds a newline is one line; `analyze report` on a distribution name holding a newline and Markdown; four 64 MiB
  calls of a trace in windows their size allows.

The programs are compiled here from PROGRAM_C (a C compiler is needed), each copied where its
path names its test only, so that what is left running is found by it."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import QUICK, ROOT, needs_plain_preload, wait_until
from test_ab_hardening import refused as one_line
from tools.lib.stopping import running_with

BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
SHIM = BUILD / "bench" / "ab" / "shim" / "libmemfbench-ab.so"
RECORDER = Path(os.environ.get("MEMFBENCH_RECORDER") or BUILD / "record" / "libmemfbench-record.so")
WRONG = BUILD / "tests" / "c" / "libwrong_plugin.so"
AB_CALLS = BUILD / "tests" / "c" / "ab_calls"
CC = shutil.which("cc") or shutil.which("gcc")

pytestmark = [pytest.mark.skipif(not SHIM.exists() or CC is None, reason="the ab shim or a C compiler is missing"),
              needs_plain_preload]

# What a hostile or merely busy program does, by its first argument:
#   fifo       makes $MEMFBENCH_AB_CALLS a FIFO (when set), then copies
#   recfifo    makes the recorder's temporary file of this process a FIFO, then copies
#   timed S    copies for S seconds of wall time (a program that works for a given time)
#   alarm S    copies 1 MiB blocks until a timer's signal handler calls exit after S seconds
#   write N S  copies, writes N bytes to stdout, then sleeps S seconds
#   lines N    copies, then prints N lines "%08d\n"
PROGRAM_C = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char a[1 << 20], b[1 << 20];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void copies(int n)
{
    for (int i = 0; i < n; i++)
        memcpy(a + (i & 63), b, 100 + (size_t)(i & 7));
}

static void leave(int sig)
{
    (void)sig;
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "fifo")) {
        const char *p = getenv("MEMFBENCH_AB_CALLS");
        if (p && *p) {
            unlink(p);
            mkfifo(p, 0600);
        }
        copies(1000);
    } else if (!strcmp(mode, "recfifo")) {
        char p[4096];
        snprintf(p, sizeof p, "%s/raw-%ld.tmp", getenv("MEMFBENCH_RECORD_DIR"), (long)getpid());
        mkfifo(p, 0600);
        copies(1000);
    } else if (!strcmp(mode, "timed") && argc > 2) {
        double end = now() + atof(argv[2]);
        while (now() < end)
            copies(64);
    } else if (!strcmp(mode, "alarm") && argc > 2) {
        signal(SIGALRM, leave);
        double s = atof(argv[2]);
        struct itimerval t = {{0, 0}, {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)}};
        setitimer(ITIMER_REAL, &t, NULL);
        for (;;)
            memcpy(a, b, sizeof a);
    } else if (!strcmp(mode, "write") && argc > 3) {
        copies(100);
        static char buf[65536];
        memset(buf, 'w', sizeof buf);
        for (long left = atol(argv[2]); left > 0; left -= (long)sizeof buf)
            if (fwrite(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, stdout) == 0)
                return 1;
        fflush(stdout);
        usleep((useconds_t)(atof(argv[3]) * 1e6));
    } else if (!strcmp(mode, "lines") && argc > 2) {
        copies(100);
        for (long i = 0; i < atol(argv[2]); i++)
            printf("%08ld\n", i);
    } else {
        fprintf(stderr, "prog: unknown mode\n");
        return 2;
    }
    return 0;
}
"""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("prog_c")
    (d / "prog.c").write_text(PROGRAM_C, encoding="utf-8")
    subprocess.run([str(CC), "-O1", "-fno-builtin", "-o", str(d / "prog"), str(d / "prog.c")], check=True,
                   capture_output=True, timeout=120)
    return d / "prog"


def own_copy(program: Path, tmp_path: Path) -> Path:
    """program copied into tmp_path/bin, where its path names this test only."""
    p = tmp_path / "bin" / program.name
    p.parent.mkdir()
    shutil.copy2(program, p)
    return p


@pytest.fixture()
def prog(built: Path, tmp_path: Path) -> Path:
    return own_copy(built, tmp_path)


def bounded(cmd: list[str], timeout: float, marker: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    """cmd run in a session of its own; past timeout it and every process whose command line holds
    marker are killed (the command hung: the test fails), so a failing run leaves nothing behind."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        for pid in running_with(marker):
            os.kill(pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"{cmd[:3]}... had not ended after {timeout} s")
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def visible(folder: Path) -> list[str]:
    return sorted(x.name for x in folder.iterdir() if not x.name.startswith("."))


# -- #6: the count file turned into a FIFO --

def test_a_fifo_for_the_count_file_is_one_line_and_leaves_nothing_running(memfbench: str, prog: Path,
                                                                           tmp_path: Path) -> None:
    p = bounded([memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "-o", str(tmp_path / "x.json"),
                 "--", str(prog), "fifo"], 180, str(prog))
    one_line(p, 1, "(block 1, arm ", "the shim could not count", "no longer a regular file")
    wait_until(lambda: running_with(str(prog)) == [], "the program's processes to end", timeout=5)
    assert visible(tmp_path) == ["bin"]


@pytest.mark.parametrize("var", ["MEMFBENCH_AB_CALLS", "MEMFBENCH_AB_COUNT"])
def test_the_shim_never_waits_in_the_exit_on_a_fifo(built: Path, tmp_path: Path, var: str) -> None:
    """Every process of the program runs the shim: none may wait for a reader of a FIFO at exit."""
    fifo = tmp_path / "calls"
    os.mkfifo(fifo)
    env = {**os.environ, "LD_PRELOAD": str(SHIM), "MEMFBENCH_AB_VARIANT": "libc", var: str(fifo)}
    p = bounded([str(built), "timed", "0"], 30, str(built), env=env)
    assert p.returncode == 0, p.stderr
    assert fifo.is_fifo()


@pytest.mark.skipif(not RECORDER.exists(), reason="the recorder is not built")
def test_the_recorder_never_waits_in_the_exit_on_a_fifo(prog: Path, tmp_path: Path) -> None:
    rec = tmp_path / "raw"
    rec.mkdir()
    env = {**os.environ, "LD_PRELOAD": str(RECORDER), "MEMFBENCH_RECORD_DIR": str(rec)}
    p = bounded([str(prog), "recfifo"], 30, str(prog), env=env)
    assert p.returncode == 0, p.stderr
    assert [x.name for x in rec.iterdir() if x.is_fifo()], "the program made its FIFO"
    assert not [x for x in rec.iterdir() if x.name.endswith(".txt")], "nothing written through the FIFO's name"


# -- #7: a wrapper that does not run memfbench --

def test_an_exec_wrapper_that_never_runs_memfbench_is_refused(memfbench: str, prog: Path, tmp_path: Path) -> None:
    env = {**os.environ, "MEMFBENCH_EXEC_WRAPPER": "/bin/true"}
    p = bounded([memfbench, "ab", "-q", "-v", "rep_movsb", "--runs", "2", "--warmup", "0", "-o",
                 str(tmp_path / "ab.json"), "--", str(prog), "lines", "0"], 300, str(prog), env=env)
    one_line(p, 1, "the variants' check", "before it answered", "MEMFBENCH_EXEC_WRAPPER")
    assert visible(tmp_path) == ["bin"]


# -- #8: runs are checked by what the shim saw, not by their count against libc's --

HOG = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:  # busy 0.2 s, idle 0.2 s, every hog in the same phase
    t = time.monotonic()
    if int(t / 0.2) % 2:
        time.sleep(0.2 - t % 0.2)
"""


def test_a_time_bounded_program_passes_on_a_loaded_cpu(memfbench: str, prog: Path, tmp_path: Path) -> None:
    """The program copies for 0.15 s; five processes on its CPU, busy and idle in turns of 0.2 s,
    give some runs a sixth of the CPU and others all of it: their counts differ by up to six times,
    which is the program's share of the CPU, not a run cut short."""
    cpu = max(os.sched_getaffinity(0))
    hogs = [subprocess.Popen([sys.executable, "-c", HOG, str(cpu), "120"]) for _ in range(5)]
    try:
        out = tmp_path / "x.json"
        p = bounded([memfbench, "ab", "-q", "-v", "sse2", "--cpu", str(cpu), "--runs", "10", "--warmup", "0",
                     "-o", str(out), "--", str(prog), "timed", "0.15"], 300, str(prog))
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert p.returncode == 0, p.stderr
    runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    # the counts stay in the file, every shim run's counted
    assert all(r["calls"] > 0 and r["processes"] == 1 for r in runs if r["arm"] != "plain"), runs


def test_a_variant_that_exits_inside_a_call_is_refused_by_name(memfbench: str, prog: Path, tmp_path: Path) -> None:
    p = bounded([memfbench, "ab", "-q", "-v", f"{WRONG}:exit_in_program_memcpy=quits", "--runs", "2", "--warmup", "0",
                 "-o", str(tmp_path / "x.json"), "--", str(prog), "timed", "0.3"], 300, str(prog))
    one_line(p, 1, "arm quits)", "exited inside the code of the variant quits (it called exit)")
    assert visible(tmp_path) == ["bin"]


def test_a_signal_handlers_exit_during_a_variants_call_is_the_programs(memfbench: str, prog: Path,
                                                                       tmp_path: Path) -> None:
    """The timer's handler calls exit, most often while a 1 MiB copy of the variant runs: that exit
    is the program's (its signal frame ends the shim's look), and the runs are samples."""
    out = tmp_path / "x.json"
    p = bounded([memfbench, "ab", "-q", "-v", "sse2", "--runs", "3", "--warmup", "0", "-o", str(out), "--",
                 str(prog), "alarm", "0.2"], 300, str(prog))
    assert p.returncode == 0, p.stderr


# -- #11: replays, program output, names, traces --

def test_a_killed_ab_leaves_no_visible_replay_and_the_next_run_sweeps_its_temporaries(memfbench: str,
                                                                                       tmp_path: Path) -> None:
    program = own_copy(AB_CALLS, tmp_path)
    rec = tmp_path / "rec"
    subprocess.run([memfbench, "record", "--trace", "100", "-o", str(rec), "--", str(program)], check=True,
                   capture_output=True, timeout=120)
    ab = subprocess.Popen([memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "--predict-from",
                           str(rec), "--replay-time", "2", "-o", "x.json", "--", str(program)], cwd=tmp_path,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # the table's replay is done once the trace's runs: then SIGKILL, which no handler sees.
        # Not before the trace's replay has made its own temporary (..x.json.trace-replay...): it
        # sweeps the temporaries of dead memfbench processes just before, and with ab already dead
        # it would remove the ones this test expects to find left.
        deadline = time.monotonic() + 240
        while not ([p for p in running_with(str(rec / "memcpy_trace.csv"))] and
                   any(x.name.startswith("..x.json.trace-replay.json") for x in tmp_path.iterdir())) \
                and ab.poll() is None:
            assert time.monotonic() < deadline, "the trace's replay never started"
            time.sleep(0.01)
        assert ab.poll() is None, ab.communicate()[1]
        ab.kill()
        ab.communicate()
    finally:
        if ab.poll() is None:
            os.killpg(ab.pid, signal.SIGKILL)
    # the replay gets its death signal, removes its own files and ends: an event, not a wait
    wait_until(lambda: visible(tmp_path) == ["bin", "rec"] and running_with(str(rec)) == [],
               "the replay to end and remove its files", timeout=5)
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(".x.json")], "the killed run's temporaries"
    assert running_with(str(rec)) == []
    p = subprocess.run([memfbench, "ab", "-v", "sse2", "--runs", "2", "--warmup", "0", "-o", "y.json", "--",
                        str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "removed" in p.stderr and "left by runs that were killed" in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bin", "rec", "y.json"]


def test_a_folder_where_a_replay_goes_is_one_line_before_the_runs(memfbench: str, tmp_path: Path) -> None:
    program = own_copy(AB_CALLS, tmp_path)
    rec = tmp_path / "rec"
    subprocess.run([memfbench, "record", "-o", str(rec), "--", str(program)], check=True, capture_output=True,
                   timeout=120)
    (tmp_path / "x.json.replay.json").mkdir()
    p = subprocess.run([memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "--predict-from",
                        str(rec), "--replay-time", "1", "-o", "x.json", "--", str(program)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    one_line(p, 2, "x.json.replay.json, where its replay goes, exists and is not a regular file")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bin", "rec", "x.json.replay.json"]


def folder_bytes(folder: Path, skip: Path) -> int:
    total = 0
    for d, _, files in os.walk(folder):
        for f in files:
            path = Path(d) / f
            if path != skip:
                try:
                    total += path.lstat().st_size
                except OSError:
                    pass  # removed while walked
    return total


def test_program_output_never_puts_more_than_its_bound_on_the_disk(memfbench: str, prog: Path,
                                                                  tmp_path: Path) -> None:
    """A run that writes 64 MiB and waits (0.3 s: about fifteen looks at the folder with the output
    written and the run alive): at no time does the folder (the result's, where ab's work folder
    is) hold more than what --program-output keeps of the runs so far."""
    log = tmp_path / "log.txt"
    size = 64 << 20
    p = subprocess.Popen([memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "--program-output",
                          str(log), "-o", str(tmp_path / "x.json"), "--", str(prog), "write", str(size), "0.3"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    most = 0
    while p.poll() is None:
        most = max(most, folder_bytes(tmp_path, prog))
        time.sleep(0.02)
    assert p.wait() == 0, p.stderr.read() if p.stderr else ""
    # six runs, each kept to 1 MiB and its lines
    assert most <= 6 * ((1 << 20) + 1024) + (64 << 10), f"{most} bytes on the disk while the runs wrote 6 x 64 MiB"
    heads = [x for x in log.read_bytes().split(b"\n") if x.startswith(b"== memfbench ab: run ")]
    assert len(heads) == 6 and all(f"{size} bytes of output ==".encode() in h for h in heads), heads


def test_program_output_keeps_the_first_and_the_last_half_mib_exactly(memfbench: str, prog: Path,
                                                                      tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    n = 300000
    p = subprocess.run([memfbench, "ab", "-q", "-v", "sse2", "--runs", "2", "--warmup", "0", "--program-output",
                        str(log), "-o", str(tmp_path / "x.json"), "--", str(prog), "lines", str(n)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    text = "".join(f"{i:08d}\n" for i in range(n))
    half = 1 << 19
    blocks = re.split(r"== memfbench ab: run (\d+) \(block \d, arm \w+\): exit status 0, (\d+) bytes of output ==\n",
                      log.read_text(encoding="ascii"))
    assert blocks[0] == "" and len(blocks) == 1 + 6 * 3, blocks[:1]
    for run, total, kept in zip(blocks[1::3], blocks[2::3], blocks[3::3]):
        assert int(total) == len(text)
        cut = f"\n== memfbench ab: {len(text) - 2 * half} bytes of run {run}'s output cut here ==\n"
        assert kept == text[:half] + cut + text[-half:], run


def test_a_missing_program_whose_name_holds_a_newline_is_one_line(memfbench: str, tmp_path: Path) -> None:
    p = subprocess.run([memfbench, "ab", "-q", "-v", "sse2", "-o", str(tmp_path / "x.json"), "--", "./no\nsuch"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    one_line(p, 2, "no\\nsuch")
    assert list(tmp_path.iterdir()) == []


def test_report_on_a_distribution_name_holding_a_newline_and_markdown(memfbench: str, tmp_path: Path) -> None:
    """The name's second line reads as a Markdown figure: it stays text, on the name's one line."""
    folder = tmp_path / "a\n![zz"
    folder.mkdir()
    table = folder / "x_size.csv"
    shutil.copy2(ROOT / "distributions" / "fleetbench" / "Memcpy_5_size.csv", table)
    out = tmp_path / "r.json"
    subprocess.run([memfbench, "run", "-f", "memcpy", "-d", str(table), "-v", "libc", "-v", "sse2", *QUICK, "-o",
                    str(out)], check=True, capture_output=True, timeout=300)
    # from the test's folder: python -m puts the current folder first on its path
    p = subprocess.run([memfbench, "analyze", "report", str(out), "-o", str(tmp_path / "rep")], capture_output=True,
                       text=True, timeout=600, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
    assert f"- distribution: {str(table).replace(chr(10), chr(92) + 'n')} (mean" in md
    assert not [x for x in md.splitlines() if x.startswith("![zz")]


def test_a_trace_of_four_64_mib_calls_runs_in_windows_of_one_call(memfbench: str, tmp_path: Path) -> None:
    """The issue's case: 20 rounds of four 64 MiB calls did not end in 150 s (windows of 512 calls,
    32 GiB a pass, and 16 of them verified per variant). The bound here is the issue's, doubled."""
    trace = tmp_path / "t.csv"
    trace.write_text("size,src_alignment,dst_alignment,caller\n" + "67108864,64,64,x\n" * 4, encoding="ascii")
    out = tmp_path / "o.json"
    p = bounded([memfbench, "run", "-f", "memcpy", "--trace", str(trace), "-v", "libc", "-v", "rep_movsb",
                 "--rounds", "20", "--processes", "1", "--allow-single-process", "-q", "-o", str(out)], 300, str(trace))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["batch"]["calls_per_pass"] == 1 and doc["rounds"]["measured"] == 20
    # the first array's large calls checked within 64 MiB, besides the one shape
    assert all(v["verified_calls"] <= 2 for v in doc["variants"]), [v["verified_calls"] for v in doc["variants"]]

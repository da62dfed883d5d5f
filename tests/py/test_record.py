"""memfbench record / merge: a program with a known call mix is recorded exactly (threads and
forks too); real programs give tables that load and replay; sampling keeps the shape; merging
adds call counts; a program that fails, is killed or does not exist leaves a whole folder or
none, and its exit status is passed through."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT, needs_plain_preload, wait_until

MIX = os.environ.get("MEMFBENCH_RECORD_MIX") or str(Path(os.environ.get("MEMFBENCH_BUILD", ROOT / "build"))
                                                    / "tests/c/record_mix")
pytestmark = pytest.mark.skipif(not Path(MIX).exists(), reason="tests/c/record_mix is not built")
pytestmark = [pytestmark, needs_plain_preload]


def record(memfbench: str, out: Path, *cmd: str, rate: str | None = None) -> subprocess.CompletedProcess[str]:
    args = [memfbench, "record", "-o", str(out)] + (["--rate", rate] if rate else []) + ["--", *cmd]
    # the program's output is its own (gzip's is binary): only memfbench's stderr is read
    return subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)


def table(path: Path) -> dict[str, float]:
    """A recorded table as {key: weight} (keys as written: '17,17', 'forward', '64')."""
    rows = [x for x in path.read_text().splitlines() if x and not x.startswith("#")][1:]
    return {r.rsplit(",", 1)[0]: float(r.rsplit(",", 1)[1]) for r in rows}


def test_a_known_mix_is_recorded_exactly(memfbench, tmp_path):
    out = tmp_path / "mix"
    p = record(memfbench, out, MIX, "mix")
    assert p.returncode == 0, p.stderr
    assert table(out / "memcpy_size.csv") == {"17,17": 1000}
    assert table(out / "memcpy_src_alignment.csv") == {"16": 1000} == table(out / "memcpy_dst_alignment.csv")
    assert table(out / "memset_size.csv") == {"4096,4096": 10, "64,64": 2}
    assert not (out / "memset_src_alignment.csv").exists()  # memset has one buffer
    assert table(out / "memmove_size.csv") == {"100,100": 5} and table(out / "memmove_overlap.csv") == {"forward": 5}
    assert table(out / "memcmp_mismatch.csv") == {"equal": 7, "5": 3}
    assert table(out / "bcmp_mismatch.csv") == {"last": 2} and table(out / "bcmp_size.csv") == {"8,8": 2}
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["calls"]["memcpy"] == {"calls": 1000, "sampled": 1000} and prov["processes"] == 1
    assert prov["command"] == [MIX, "mix"] and prov["exit_status"] == 0 and prov["sampling_rate"] == 1
    # no temporary left beside it
    assert [x.name for x in tmp_path.iterdir()] == ["mix"]


@pytest.mark.parametrize("args,factor,processes", [(["threads", "4"], 4, 1), (["threads", "16"], 16, 1), (["fork"], 2, 2)])
def test_threads_and_forks(memfbench, tmp_path, args, factor, processes):
    out = tmp_path / "r"
    p = record(memfbench, out, MIX, *args)
    assert p.returncode == 0, p.stderr
    assert table(out / "memcpy_size.csv") == {"17,17": 1000 * factor}
    assert table(out / "memcmp_mismatch.csv") == {"equal": 7 * factor, "5": 3 * factor}
    assert json.loads((out / "provenance.json").read_text())["processes"] == processes


def test_a_forked_childs_trace_is_its_own(memfbench, tmp_path):
    out = tmp_path / "f"
    p = subprocess.run([memfbench, "record", "--trace", "100000", "-o", str(out), "--", MIX, "fork"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [x for x in (out / "memcpy_trace.csv").read_text().splitlines() if not x.startswith("#")]
    assert len(rows) == 1 + 2 * 1000  # the parent's 1000 and the child's own 1000, not the parent's twice


def test_exit_status_is_passed_through(memfbench, tmp_path):
    out = tmp_path / "e"
    p = record(memfbench, out, MIX, "exit", "3")
    assert p.returncode == 3 and table(out / "memcpy_size.csv") == {"17,17": 1000}
    assert json.loads((out / "provenance.json").read_text())["exit_status"] == 3


def test_an_exit_status_over_128_is_not_called_a_signal(memfbench, tmp_path):
    """exit(130) is an exit, not SIGINT: the status passes through and no signal is named."""
    out = tmp_path / "e130"
    p = record(memfbench, out, MIX, "exit", "130")
    assert p.returncode == 130 and "signal" not in p.stderr, p.stderr
    assert json.loads((out / "provenance.json").read_text())["exit_status"] == 130


def test_killed_or_missing_programs_leave_no_folder(memfbench, tmp_path):
    p = record(memfbench, tmp_path / "k", MIX, "kill")
    assert p.returncode == 128 + 9 and not (tmp_path / "k").exists()
    assert "killed by signal 9" in p.stderr and "no calls recorded" in p.stderr
    p = record(memfbench, tmp_path / "n", "no-such-program-here")
    assert p.returncode == 127 and not (tmp_path / "n").exists()
    assert p.stderr.strip().splitlines() == ["memfbench record: no-such-program-here: not found on PATH"]
    assert sorted(x.name for x in tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,fragment", [
    (["-o", "{tmp}/exists", "--", MIX], "exists; give a new folder"),
    (["-o", "{tmp}/x", "--rate", "2/3", "--", MIX], "--rate: '2/3'"),
    (["-o", "{tmp}/x", "--rate", "1/0", "--", MIX], "--rate: '1/0'"),
    (["-o", "{tmp}/x"], "no program given"),
    (["--", MIX], "-o DIR is required"),
    (["-o", "{tmp}/no/such/x", "--", MIX], "does not exist"),
    (["-o", MIX, "--", MIX], "names an input, the program"),  # the one input rule, files/inputs.c
])
def test_bad_record_arguments(memfbench, tmp_path, args, fragment):
    (tmp_path / "exists").mkdir()
    p = subprocess.run([memfbench, "record", *[a.replace("{tmp}", str(tmp_path)) for a in args]],
                       capture_output=True, text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["exists"] and not any((tmp_path / "exists").iterdir())


WORKLOAD = "import json, zlib; d=[json.dumps({'k': i, 'v': 'x' * (i % 300)}) for i in range(20000)]; zlib.compress(''.join(d).encode())"


def sizes(folder: Path, function: str = "memcpy") -> dict[str, float]:
    t = table(folder / f"{function}_size.csv")
    total = sum(t.values())
    return {k: v / total for k, v in t.items()}


def test_real_programs_record_load_and_replay(memfbench, tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("\n".join(f"line {i * 7919 % 10007} {'y' * (i % 97)}" for i in range(20000)))
    programs = {"python": [sys.executable, "-c", WORKLOAD], "sort": ["sort", str(data)],
                "gzip": ["gzip", "-c", str(data)]}
    if shutil.which("sqlite3"):
        programs["sqlite3"] = ["sqlite3", ":memory:", "create table t(a); insert into t values (1),(2); "
                               "select sum(a) from t;"]
    for name, cmd in programs.items():
        if not shutil.which(cmd[0]):
            continue
        out = tmp_path / name
        p = record(memfbench, out, *cmd)
        assert p.returncode == 0, (name, p.stderr)
        for f in ("memcpy", "memset", "memmove", "memcmp", "bcmp"):
            if not (out / f"{f}_size.csv").exists():
                continue
            r = subprocess.run([memfbench, "run", "-q", "-f", f, "-d", str(out / f"{f}_size.csv"), "--processes", "1",
                                "--rounds", "4", "--warmup-rounds", "1", *GEOMETRY, "-o", str(tmp_path / "replay.json")],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, (name, f, r.stderr)


def test_sampling_keeps_the_shape(memfbench, tmp_path):
    full, sampled = tmp_path / "full", tmp_path / "sampled"
    assert record(memfbench, full, sys.executable, "-c", WORKLOAD).returncode == 0
    assert record(memfbench, sampled, sys.executable, "-c", WORKLOAD, rate="1/16").returncode == 0
    a, b = sizes(full), sizes(sampled)
    tv = 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))
    print(f"total variation distance between the memcpy size distributions, every call vs 1/16: {tv:.4f}")
    assert tv < 0.05
    prov = json.loads((sampled / "provenance.json").read_text())
    assert prov["sampling_rate"] == 16
    c = prov["calls"]["memcpy"]
    assert abs(c["sampled"] / (c["calls"] / 16) - 1) < 0.05  # about one call in 16, drawn at random
    # the table's weights stand for all calls (sampled counts scaled), so merges weigh by calls
    weights = table(sampled / "memcpy_size.csv")
    assert abs(sum(weights.values()) / c["calls"] - 1) < 0.01


def test_merge_adds_call_counts_and_bpftrace(memfbench, tmp_path):
    one, four = tmp_path / "one", tmp_path / "four"
    assert record(memfbench, one, MIX, "mix").returncode == 0
    assert record(memfbench, four, MIX, "threads", "4").returncode == 0
    bpf = tmp_path / "bpf.txt"
    bpf.write_text("Attaching 1 probe...\n\n@[17]: 500\n@[4096]: 20\n")
    out = tmp_path / "merged"
    p = subprocess.run([memfbench, "merge", "-o", str(out), str(one), str(four), "--bpftrace", f"memcpy:{bpf}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert table(out / "memcpy_size.csv") == {"17,17": 5500, "4096,4096": 20}
    assert table(out / "memcmp_mismatch.csv") == {"equal": 35, "5": 15}
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["calls"]["memcpy"]["calls"] == 5520 and len(prov["merged_from"]) == 3
    link = tmp_path / "link"
    link.symlink_to(one)
    cut = tmp_path / "cut"
    shutil.copytree(one, cut)
    text = (cut / "provenance.json").read_text()
    (cut / "provenance.json").write_text(text[:len(text) // 2])
    for args, fragment in ((["-o", str(tmp_path / "m2"), str(tmp_path / "nothing")], "no FUNCTION_size.csv"),
                           (["-o", str(tmp_path / "m3"), "--bpftrace", f"memzap:{bpf}"], "'memzap' is not"),
                           (["-o", str(out), str(one)], "exists; give a new folder"),
                           # a folder given twice, or once more through a link, would count its calls twice
                           (["-o", str(tmp_path / "m4"), str(one), str(four), str(one)], "the same recorded folder as"),
                           (["-o", str(tmp_path / "m5"), str(one), str(link)], "the same recorded folder as"),
                           (["-o", str(tmp_path / "m7"), "--bpftrace", f"memcpy:{bpf}", "--bpftrace",
                             f"memset:{bpf}"], "the same bpftrace histogram as"),
                           # the one input rule (files/inputs.c): -o never names what merge reads
                           (["-o", str(link), str(one)], "names an input, the recorded folder"),
                           # a recording cut short (killed, disk full): its provenance is not whole
                           (["-o", str(tmp_path / "m6"), str(cut)], "provenance.json: not JSON (cut short?")):
        p = subprocess.run([memfbench, "merge", *args], capture_output=True, text=True, timeout=60)
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        assert p.returncode in (1, 2) and len(lines) == 1 and fragment in lines[0], p.stderr
    assert not (tmp_path / "m6").exists() and not any(x.name.startswith(".") for x in tmp_path.iterdir())


def test_a_trace_keeps_the_order_and_the_call_sites_and_replays(memfbench, tmp_path):
    out = tmp_path / "t"
    p = subprocess.run([memfbench, "record", "--trace", "100000", "-o", str(out), "--", MIX, "mix"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [x for x in (out / "memcpy_trace.csv").read_text().splitlines() if not x.startswith("#")]
    assert rows[0] == "size,src_alignment,dst_alignment,caller" and len(rows) == 1 + 1000
    assert all(r.startswith("17,16,16,") for r in rows[1:]) and len({r.split(",")[3] for r in rows[1:]}) == 1
    sets = [x.split(",")[0] for x in (out / "memset_trace.csv").read_text().splitlines()[2:]]
    assert sets == ["4096"] * 10 + ["64"] * 2  # the program's order
    sites = [x.split(",") for x in (out / "callsites.csv").read_text().splitlines() if not x.startswith("#")][1:]
    assert sites[0][0] == "memset" and int(sites[0][3]) == 10 * 4096  # most bytes first
    assert sum(int(s[2]) for s in sites if s[0] == "memcpy") == 1000
    a = analysis("callsites", str(out), "--top", "3", timeout=60)
    assert a.returncode == 0, a.stderr
    by_bytes, by_calls = a.stdout.split("== top 3 call sites by calls")
    assert by_bytes.splitlines()[2].split()[0] == "memset" and by_calls.splitlines()[2].split()[0] == "memcpy"
    a = analysis("callsites", str(tmp_path), timeout=60)
    assert a.returncode == 2 and "callsites.csv" in a.stderr and len(a.stderr.splitlines()) == 1
    r = subprocess.run([memfbench, "run", "-q", "--trace", str(out / "memcpy_trace.csv"), "--processes", "1",
                        "--rounds", "4", "--warmup-rounds", "1", "-o", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["config"]["trace"] == str(out / "memcpy_trace.csv") and doc["config"]["batch_passes"] == 1
    assert doc["distribution"]["name"].startswith("trace:")
    s = doc["samples"]
    assert all(b == 17 * c for b, c in zip(s["bytes"], s["calls"]))


def test_a_trace_is_shared_between_the_processes(memfbench, tmp_path):
    """Process p of K replays windows p, p + K, p + 2K, ...: a trace whose windows alternate small
    and large calls has process 0 replay only the small ones and process 1 only the large ones,
    where every process starting at the beginning would replay both alike."""
    window = 512  # calls per pass of a trace (memfbench's parameter array)
    f = tmp_path / "memcpy_trace.csv"
    f.write_text("size,src_alignment,dst_alignment,caller\n" +
                 "".join(("8,8,8,a\n" if w % 2 == 0 else "1024,64,64,b\n") * window for w in range(16)),
                 encoding="utf-8")
    r = subprocess.run([memfbench, "run", "-q", "--trace", str(f), "-v", "libc", "--processes", "2", "--rounds", "6",
                        "--warmup-rounds", "1", *GEOMETRY, "-o", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    s = doc["samples"]
    assert set(s["calls"]) == {window}
    per_call = {}
    for p, b, c in zip(s["process"], s["bytes"], s["calls"]):
        per_call.setdefault(p, set()).add(b / c)
    assert per_call == {0: {8}, 1: {1024}}
    # the study's own processes and where they came from, not a child's
    assert (doc["config"]["processes"], doc["config"]["processes_source"]) == (2, "given")


@pytest.mark.parametrize("text,fragment", [
    ("size,weight\n1,2\n", "header: expected size,src_alignment,dst_alignment,caller"),
    ("size,src_alignment,dst_alignment,caller\n17,3,16,x\n", ":2: src_alignment: not a power of two"),
    ("size,src_alignment,dst_alignment,caller\n17;16\n", ":2: expected SIZE"),
    ("size,src_alignment,dst_alignment,caller\n", "no calls"),
    # A sign is not a size (the minus one wrapped to 1 before), nor is 2^64; -8 is not "above 64 MiB".
    ("size,src_alignment,dst_alignment,caller\n-18446744073709551615,1,1,x\n", ":2: size: '-1844"),
    ("size,src_alignment,dst_alignment,caller\n-8,1,1,x\n", ":2: size: '-8' is not a whole number"),
    ("size,src_alignment,dst_alignment,caller\n+8,1,1,x\n", ":2: size: '+8' is not a whole number"),
    ("size,src_alignment,dst_alignment,caller\n18446744073709551616,1,1,x\n", "below 2^64"),
    ("size,src_alignment,dst_alignment,caller\n67108865,1,1,x\n", ":2: size: above 64 MiB"),
    ("size,src_alignment,dst_alignment,caller\n8,1,-16,x\n", ":2: dst_alignment: '-16'"),
    # A NUL byte is named as one, not as a long line.
    ("size,src_alignment,dst_alignment,caller\n8,1,1,x\n8\x00,1,1,x\n", ":3: NUL byte"),
])
def test_bad_traces_are_one_line(memfbench, tmp_path, text, fragment):
    f = tmp_path / "memcpy_trace.csv"
    f.write_bytes(text.encode())
    p = subprocess.run([memfbench, "run", "--trace", str(f), "--processes", "1", "--rounds", "2", "-o",
                        str(tmp_path / "x.json")], capture_output=True, text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode != 0 and len(lines) == 1 and fragment in lines[0] and str(f) in lines[0], p.stderr
    assert not (tmp_path / "x.json").exists()
    p = subprocess.run([memfbench, "run", "--trace", str(f), "-d", "fixed:8", "-o", str(tmp_path / "x.json")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--trace replays a recorded sequence; -d does not apply" in p.stderr


def test_flush_keeps_the_counts_of_a_program_that_is_killed(memfbench, tmp_path):
    """--flush 1: the counts are rewritten every second, so a service killed without running its
    exit handlers still leaves its calls; memfbench record reports the signal in the exit status."""
    out = tmp_path / "f"
    proc = subprocess.Popen([memfbench, "record", "--flush", "1", "-o", str(out), "--", MIX, "loop", "4000000000", "16"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # the premise, an event: the program has flushed its counts once (its raw-PID.txt in record's
    # hidden folder holds calls)
    wait_until(lambda: any(f.stat().st_size > 0 for f in tmp_path.glob(".f.memfbench-*/**/raw-*.txt")) or
               proc.poll() is not None, "the first flush")
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    assert len(children) == 1
    os.kill(int(children[0]), 9)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 137, err
    assert "killed by signal 9" in err
    calls = table(out / "memcpy_size.csv")
    assert list(calls) == ["16,16"] and calls["16,16"] > 1000
    assert json.loads((out / "provenance.json").read_text())["exit_status"] == 137


def test_a_killed_recorder_leaves_nothing_the_next_run_keeps(memfbench, tmp_path):
    """memfbench record itself killed (-9): its hidden temporary folder is removed by the next
    record into the same place."""
    proc = subprocess.Popen([memfbench, "record", "-o", str(tmp_path / "x"), "--", MIX, "loop", "4000000000", "16"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the premise, an event: the program runs (record's child) and record's hidden folder exists
    children = wait_until(lambda: subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                                 text=True).stdout.split(), "record's program to start")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".x.memfbench-")]
    proc.kill()
    proc.wait()
    for c in children:
        os.kill(int(c), 9)
    assert record(memfbench, tmp_path / "x", MIX, "mix").returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]


@pytest.mark.parametrize("made", ["echo mine > '{out}/f'", ""])
def test_a_program_that_takes_the_output_folder_keeps_it_and_the_recording(memfbench, tmp_path, made):
    """The folder is created only when the recording is whole; a program that makes a folder of
    that name meanwhile keeps it as it made it (with a file in it, or empty: a rename used to put
    the recording over an empty one without a word), and the recording goes to the first free
    name beside it, said in one line, exit 1 (the folder a script would look in is not the
    recording). Before, a non-empty folder lost the whole recording: "cannot move the folder into
    place", status 1, nothing kept (issue 42, case 15)."""
    out = tmp_path / "rec"
    (tmp_path / "rec-2").mkdir()  # taken as well: the next free name is rec-3
    p = record(memfbench, out, "sh", "-c", f"mkdir '{out}' && {made.format(out=out) or 'true'} && '{MIX}' mix")
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 1, p.stderr
    assert lines[0] == (f"memfbench record: {out} appeared while the program ran (it made it?), so the recording "
                        f"is in {out}-3 beside it; {out} is left as it is"), lines[0]
    assert f"{out}-3/memcpy_size.csv" in p.stderr  # the replay commands name where it is
    assert sorted(f.name for f in out.iterdir()) == (["f"] if made else [])  # the program's own folder, untouched
    if made:
        assert (out / "f").read_text() == "mine\n"
    assert table(tmp_path / "rec-3" / "memcpy_size.csv") == {"17,17": 1000}
    assert json.loads((tmp_path / "rec-3" / "provenance.json").read_text())["calls"]["memcpy"]["calls"] == 1000
    assert list((tmp_path / "rec-2").iterdir()) == []
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".")]  # no temporary left behind


def test_counts_beyond_what_a_table_holds_are_refused(memfbench, tmp_path):
    """A bpftrace count past 2^64, or a table weight of 2^64 - 1, used to become weight 0 without a
    word (an out-of-range conversion): now one line naming the file and line, exit 1, no folder."""
    bpf = tmp_path / "bpf.txt"
    bpf.write_text("@[17]: 18446744073709551616\n")
    big = tmp_path / "big"
    big.mkdir()
    (big / "memcpy_size.csv").write_text("size_lo,size_hi,weight\n17,17,18446744073709551615\n")
    for name, args, where in (("b", ["--bpftrace", f"memcpy:{bpf}"], f"{bpf}:1"), ("t", [str(big)], "memcpy_size.csv:2")):
        out = tmp_path / name
        p = subprocess.run([memfbench, "merge", "-o", str(out), *args], capture_output=True, text=True, timeout=60)
        lines = [x for x in p.stderr.splitlines() if x.strip()]
        assert p.returncode == 1 and len(lines) == 1, p.stderr
        assert where in lines[0] and "at most 2^53" in lines[0], lines[0]
        assert not out.exists()

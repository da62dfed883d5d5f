"""What a reader sees on the terminal, issue 54's list: `memfbench list` keeps its columns whatever
the names' lengths (a 14-character name pushed its row's description out of line)."""
from __future__ import annotations

import re
from pathlib import Path
import subprocess
import sys

from analysis_runner import analysis
from conftest import binary


def test_list_keeps_its_columns_for_long_names() -> None:
    out = subprocess.run([binary(), "list"], capture_output=True, text=True, timeout=60).stdout
    rows = [line for line in out.splitlines() if re.match(r"^    [ *] \S", line)]
    assert any(len(r.split()[0 if r[4] == " " else 1]) > 10 for r in rows), "no name over 10 characters to test"
    # each row: marker, name, origin, description; the description starts in one column for all
    starts = set()
    for r in rows:
        m = re.match(r"^    [ *] (\S+)\s+(\S+)\s+", r)
        assert m, r
        starts.add(m.end())
    assert len(starts) == 1, starts


def test_hints_name_memfbench_as_the_user_ran_it(tmp_path) -> None:
    """Run through the checkout's ./memfbench, the command a study tells the user to run next is
    ./memfbench's, not the build folder's binary (issue 54: replay hints printed the absolute
    build path)."""
    from conftest import GEOMETRY, ROOT
    import os
    env = {**os.environ, "MEMFBENCH_BUILD": str(Path(binary()).resolve().parents[1])}
    p = subprocess.run(["./memfbench", "run", "-t", "0.2", "--processes", "1", "--allow-single-process", "-d", "fixed:64",
                        "-v", "libc", *GEOMETRY, "-o", str(tmp_path / "q.json")], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    hint = [x for x in p.stderr.splitlines() if "Intervals and verdicts:" in x]
    assert hint and hint[0].split("Intervals and verdicts: ")[1].startswith("./memfbench analyze summarize "), p.stderr


def test_a_studys_warning_counts_each_process_once(tmp_path) -> None:
    """Whatever a study warned of, a warning's count of processes is never more than the study's
    (issue 54: '[in 45 of 32 processes]'; tests/c/test_child.c checks the merge itself on a process
    that warned twice)."""
    import json
    from conftest import GEOMETRY
    out = tmp_path / "w.json"
    p = subprocess.run([binary(), "run", "-q", "--processes", "2", "--rounds", "6", "--warmup-rounds", "1", "-d",
                        "fixed:64", "-v", "libc", "-v", "bytes", "-v", "noop", "--batch-passes", "1", *GEOMETRY,
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    k = len(doc["processes"])
    assert doc["status"]["warnings"], "no warning to count"
    for w in doc["status"]["warnings"]:
        if "processes" in w:
            assert 1 <= w["processes"] <= k, w


def test_a_mistyped_distribution_gets_a_did_you_mean(tmp_path) -> None:
    """A shipped name a few slips away is suggested, with or without its group (issue 54:
    `-d fleetbench/Memcpy_Flet` got no suggestion); a name nowhere near gets none."""
    for spec in ("fleetbench/Memcpy_Flet", "Memcpy_Flet"):
        p = subprocess.run([binary(), "run", "-q", "-d", spec, "-o", str(tmp_path / "x.json")], capture_output=True,
                           text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and lines[0].endswith("did you mean 'fleetbench/Memcpy_Fleet'?"), \
            p.stderr
    p = subprocess.run([binary(), "run", "-q", "-d", "zzzzzzzzzz", "-o", str(tmp_path / "x.json")], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "did you mean" not in p.stderr


def on_a_terminal(cmd: list[str], cwd, timeout: float = 300) -> tuple[int, str]:
    """cmd run with its stderr (and stdout) on a pseudo-terminal: its exit status and what it wrote."""
    import os
    import pty
    import select
    import time
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execv(cmd[0], cmd)
    out = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.5)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the terminal closed with the program
                break
            if not chunk:
                break
            out += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def test_a_suite_says_how_far_it_is_on_a_terminal_only(tmp_path) -> None:
    """On a terminal, a suite rewrites one line with its study's number of all and the time left;
    in a pipe it prints a line per study, no terminal codes (issue 54: no time left, never 'of 5')."""
    from conftest import GEOMETRY
    args = ["--", "-t", "0.2", "--processes", "1", "--allow-single-process", *GEOMETRY]
    rc, text = on_a_terminal([binary(), "suite", "-o", "tty", *args], tmp_path)
    assert rc == 0, text
    assert "\r\x1b[K" in text and "study 5 of 5, about " in text and " left" in text, text
    p = subprocess.run([binary(), "suite", "-o", "pipe", *args], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and "\r" not in p.stderr and "study 5 of 5: bcmp" in p.stderr, p.stderr


def test_report_and_history_say_how_far_they_are_on_a_terminal_only(tmp_path) -> None:
    """analyze report (a step per study) and history (a step per file) rewrite one line with the
    step's number of all on a terminal; in a pipe, nothing of it (issue 54: report said nothing
    for its 8 s)."""
    import shutil
    from conftest import ROOT
    golden = ROOT / "tests" / "data" / "golden-run.json"
    files = []
    for i in range(3):
        files.append(tmp_path / f"r{i}.json")
        shutil.copy(golden, files[-1])
    for name, args, shown in (("report", [*map(str, files[:2]), "-o", str(tmp_path / "rep")], "report: study 2 of 2"),
                              ("history", [*map(str, files), "--order", "given"], "history: file 3 of 3")):
        rc, text = on_a_terminal([sys.executable, "-m", "analysis", name, *args], ROOT)
        assert rc == 0 and "\r\x1b[K" in text and shown in text, text
        if name == "report":
            shutil.rmtree(tmp_path / "rep")
        p = analysis(name, *args, timeout=300)
        assert p.returncode == 0 and "\r" not in p.stderr + p.stdout and shown not in p.stderr, p.stderr

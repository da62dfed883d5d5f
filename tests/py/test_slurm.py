"""docs/scaling.md, run where one machine can run it. A one-node Slurm cluster (Debian's munge,
slurmctld and slurmd on 127.0.0.1, configured in a temporary folder) takes the doc's own
`memfbench.sbatch` (read from the doc, not a copy) with short runs and a two-task array, and the
doc's "Reading the files" commands then run over the files it collected. The per-machine command
runs too. The Kubernetes Job and the ssh loop need more than one machine (and a cluster or an ssh
server) and are not run; the doc marks every section with what was run.

The cluster test skips, with the reason, where the daemons are not installed
(`apt-get install slurmctld slurmd slurm-client munge`; `./bootstrap.sh test` installs them) or
cannot start. Alone: `/usr/bin/python3 -m pytest -q tests/py/test_slurm.py` after a build."""
from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, binary

# the one-node cluster's node has the machine's CPUs (slurmd -C)
pytestmark = pytest.mark.all_cpus

DOC = ROOT / "docs" / "scaling.md"
THIS = "tests/py/test_slurm.py"
# The study options of every run here: short, two processes (the analysis wants two for a verdict).
SHORT = ["-t", "0.2", "--processes", "2"]
ARRAY = "0-1"            # two array tasks instead of the doc's 16
START_TIMEOUT = 30.0     # seconds for munged to answer and the node to register idle
JOB_TIMEOUT = 120.0      # seconds for the whole array (each task runs about a second)
COMMANDS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol", "scancel")
PACKAGES = "slurmctld slurmd slurm-client munge"  # what ./bootstrap.sh test installs for them
# What the test does with each section of the doc that shows a command (the doc says the same).
MARKS = {"What each machine runs": "Tested", "A Slurm job array": "Tested", "A Kubernetes Job": "Not run",
         "A plain ssh loop": "Not run", "Reading the files": "Tested"}


# ---------------------------------------------------------------------------------------------
# The doc's blocks

def sections() -> dict[str, str]:
    """docs/scaling.md's text by its `## ` headings (the text before the first: key "")."""
    out: dict[str, str] = {}
    name = ""
    for line in DOC.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("## "):
            name = line[3:].strip()
            out[name] = ""
        else:
            out[name] = out.get(name, "") + line
    return out


def fenced(text: str) -> list[str]:
    """The fenced code blocks of a markdown text, without their fences."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)


def sbatch_script() -> str:
    """The fenced block right after the "`memfbench.sbatch`:" line."""
    text = sections()["A Slurm job array"]
    _, sep, rest = text.partition("`memfbench.sbatch`:\n")
    assert sep, "docs/scaling.md: no \"`memfbench.sbatch`:\" line in \"A Slurm job array\""
    blocks = fenced(rest.lstrip("\n"))
    assert blocks and rest.lstrip("\n").startswith("```"), "no fenced block right after `memfbench.sbatch`:"
    return blocks[0]


def submit_line() -> str:
    """The doc's submit command (an inline code span of "A Slurm job array")."""
    m = re.search(r"`(mkdir -p logs results && sbatch memfbench\.sbatch)`", sections()["A Slurm job array"])
    assert m, "docs/scaling.md: the submit command `mkdir -p logs results && sbatch memfbench.sbatch` is gone"
    return m.group(1)


def submitted_line() -> str:
    """The submit line as the test runs it, varied as the doc says to vary it: sbatch's options
    before the script's name (a two-task array; --parsable prints the job's id), the study's after
    it (short runs, for every task)."""
    line = submit_line().replace("sbatch memfbench.sbatch", f"sbatch --parsable --array={ARRAY} memfbench.sbatch")
    return line + " " + " ".join(SHORT)


def reading_blocks() -> list[str]:
    """The two commands of "Reading the files": the summary, then the before/after diff."""
    blocks = fenced(sections()["Reading the files"])
    assert len(blocks) == 2 and "analyze summarize" in blocks[0] and "analyze diff" in blocks[1], blocks
    return blocks


def per_machine_command() -> str:
    blocks = fenced(sections()["What each machine runs"])
    assert len(blocks) == 1, blocks
    return blocks[0].strip()


def submit_dir(parent: Path) -> Path:
    """A folder laid out as the job script expects of the checkout: build/ is the build under test,
    ./memfbench the checkout's wrapper (a copy: it finds build/ beside itself)."""
    d = parent / "checkout"
    d.mkdir()
    (d / "build").symlink_to(Path(binary()).resolve().parents[1], target_is_directory=True)
    shutil.copy2(ROOT / "memfbench", d / "memfbench")
    return d


def sh(cmd: str, cwd: Path, env: dict[str, str] | None = None,
       timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A doc's shell lines, run by bash as a script with `set -euo pipefail`."""
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# Tests without a cluster

def test_every_section_with_a_command_says_whether_it_is_run() -> None:
    """Each section of docs/scaling.md that shows a command says what this file does with it:
    "**Tested**: ... tests/py/test_slurm.py ..." where it runs it, "**Not run**: (why)" where not."""
    shown = {name for name, text in sections().items() if fenced(text)}
    assert shown == set(MARKS), f"sections with commands {sorted(shown)}; MARKS here names {sorted(MARKS)}"
    for name, mark in MARKS.items():
        text = sections()[name]
        if mark == "Tested":
            assert re.search(r"^\*\*Tested\*\*:.*" + re.escape(THIS), text, re.M | re.S), \
                f"section {name!r}: no paragraph '**Tested**: ...{THIS}...'"
        else:
            assert re.search(r"^\*\*Not run\*\*: \S", text, re.M), f"section {name!r}: no '**Not run**: why'"
            assert "**Tested**" not in text, f"section {name!r} is not run here"
    said = " ".join(sections()["A Slurm job array"].split())
    assert f"`{submitted_line()}`" in said, "the doc names the submit line the test runs"


def test_the_job_script_passes_the_study_options_on() -> None:
    """What the cluster test relies on in the script, checked where there is no cluster too."""
    script = sbatch_script()
    assert script.startswith("#!/bin/bash\n")
    assert "#SBATCH --array=" in script and "#SBATCH --exclusive" in script
    assert '"$@"' in script, \
        "the script passes the options after its name (sbatch memfbench.sbatch -t 10) on to memfbench run"
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0


def test_what_each_machine_runs(tmp_path: Path) -> None:
    """The doc's per-machine command, with short-run options added as the doc says to add a study's."""
    d = submit_dir(tmp_path)
    (d / "results").mkdir()
    p = sh(per_machine_command() + " " + " ".join(SHORT), d)
    assert p.returncode == 0, p.stderr
    host = socket.gethostname()
    f = d / "results" / f"{host}.json.gz"
    assert f.is_file(), sorted(map(str, (d / "results").iterdir()))
    doc = json.load(gzip.open(f))
    assert doc["host"]["hostname"] == host and doc["status"]["complete"]


# ---------------------------------------------------------------------------------------------
# The cluster

class Cluster:
    def __init__(self, root: Path):
        self.root = root
        self.env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf"),
                    # every process of this cluster (daemons, job steps, jobs) carries it: teardown
                    # ends exactly those
                    "MEMFBENCH_SLURM_TEST": str(root)}
        self.procs: list[subprocess.Popen[bytes]] = []

    def run(self, *args: str, timeout: float = 30, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=timeout, cwd=cwd)

    def start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        out = open(self.root / f"{name}.stdout", "wb")
        p = subprocess.Popen(args, env=self.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def log_tail(self, name: str, lines: int = 8) -> str:
        """The last lines a daemon printed (in the foreground, each logs to its output too)."""
        f = self.root / f"{name}.stdout"
        text = f.read_text(errors="replace") if f.exists() else ""
        # not the plugins every daemon fails to load and does without (mpi/pmix, no PMIx library)
        tail = [l for l in text.splitlines() if l.strip() and "pmix" not in l.lower() and "MPI: " not in l][-lines:]
        return " | ".join(tail) or "(no output)"

    def ours(self) -> list[int]:
        """Every live process that carries this cluster's marker (daemons, slurmstepd, jobs)."""
        mark = f"MEMFBENCH_SLURM_TEST={self.root}".encode()
        pids = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                if mark in (d / "environ").read_bytes().split(b"\0"):
                    pids.append(int(d.name))
            except OSError:
                pass
        return pids

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        left = self.ours()  # job steps and jobs left behind by a failure
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_for(lambda: not any(alive(pid) for pid in left), 10, step=0.1)


def alive(pid: int) -> bool:
    """Whether a process still runs (a zombie waiting for init to reap it does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_line(name: str) -> str:
    """The node as slurmd detects it (`slurmd -C`), else the CPU count alone."""
    p = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, timeout=30)
    first = p.stdout.splitlines()[0] if p.returncode == 0 and p.stdout.startswith("NodeName=") else ""
    hw = " ".join(w for w in first.split()[1:] if not w.startswith("UpTime="))
    hw = hw or f"CPUs={os.cpu_count()}"
    return f"NodeName={name} NodeAddr=127.0.0.1 NodeHostname={name} {hw} State=UNKNOWN"


def write_config(root: Path, host: str, munge_socket: Path) -> None:
    (root / "state").mkdir()
    (root / "spool").mkdir()
    conf = f"""\
# a one-node cluster for tests/py/test_slurm.py: no accounting, no cgroups, everything here
ClusterName=memfbenchtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
KillWait=5
InactiveLimit=0
{node_line(host)}
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
    (root / "slurm.conf").write_text(conf, encoding="utf-8")


def wait_for(what, timeout: float, step: float = 0.2):
    deadline = time.monotonic() + timeout
    while True:
        got = what()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(step)


@pytest.fixture
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """munged, slurmctld and slurmd of a one-node cluster of this machine, all in a temporary folder;
    torn down (every process of it) after the test, whatever happened."""
    missing = [cmd for cmd in COMMANDS if shutil.which(cmd) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not on PATH: Slurm or munge not installed (apt-get install {PACKAGES}; "
                    "./bootstrap.sh test installs them)")
    if os.geteuid() != 0:
        pytest.skip("not root: slurmd runs jobs as their user and must be root to")
    root = tmp_path_factory.mktemp("slurm")
    if len(str(root)) > 80:  # a Unix socket's path has room for 107 bytes
        root = Path(tempfile.mkdtemp(prefix="slurm", dir="/tmp"))
    c = Cluster(root)
    try:
        yield from _started(c)
    finally:
        c.stop()


def _started(c: Cluster) -> Iterator[Cluster]:
    root = c.root
    munge = root / "munge"
    munge.mkdir(mode=0o700)
    key = munge / "munge.key"
    p = c.run("mungekey", "--create", "--keyfile", str(key))
    if p.returncode != 0:
        pytest.skip(f"mungekey could not make a key: {p.stderr.strip()}")
    sock = munge / "munge.socket"
    # --force: munged wants its socket reachable by every user, and the folders pytest makes are
    # private (root's jobs are the only clients); it warns instead of stopping
    munged = c.start("munged", ["munged", "--foreground", "--force", f"--socket={sock}", f"--key-file={key}",
                                f"--pid-file={munge}/munged.pid", f"--log-file={root}/munged.log",
                                f"--seed-file={munge}/munged.seed"])
    if not wait_for(lambda: sock.exists() or munged.poll() is not None, START_TIMEOUT) or munged.poll() is not None:
        pytest.skip(f"munged did not start: {c.log_tail('munged')}")

    host = socket.gethostname().split(".")[0]
    write_config(root, host, sock)
    ctld = c.start("slurmctld", ["slurmctld", "-D", "-i"])
    slurmd = c.start("slurmd", ["slurmd", "-D", "-N", host])

    def idle() -> bool:
        if ctld.poll() is not None or slurmd.poll() is not None:
            return True
        p = c.run("sinfo", "-h", "-N", "-o", "%N %T", timeout=10)
        return p.returncode == 0 and p.stdout.split() == [host, "idle"]

    wait_for(idle, START_TIMEOUT, step=0.3)
    if ctld.poll() is not None:
        pytest.skip(f"slurmctld did not start (exit {ctld.returncode}): {c.log_tail('slurmctld')}")
    if slurmd.poll() is not None:
        pytest.skip(f"slurmd did not start (exit {slurmd.returncode}): {c.log_tail('slurmd')}")
    state = c.run("sinfo", "-h", "-N", "-o", "%N %T", timeout=10)
    if state.stdout.split() != [host, "idle"]:
        pytest.skip(f"slurmd did not register idle within {START_TIMEOUT:.0f} s (sinfo: {state.stdout.strip()!r}"
                    f"{state.stderr.strip()}): {c.log_tail('slurmd', 4)} | {c.log_tail('slurmctld', 4)}")
    yield c


def job_states(c: Cluster, job: str) -> dict[str, tuple[str, str]]:
    """Each array task's state and exit code, by its id (JOB_TASK), from slurmctld's memory (no
    accounting database: finished jobs stay there MinJobAge seconds)."""
    p = c.run("scontrol", "-o", "show", "job", job, timeout=10)
    out = {}
    for line in p.stdout.splitlines():
        f = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "ArrayTaskId" in f:
            out[f"{f.get('ArrayJobId')}_{f['ArrayTaskId']}"] = (f.get("JobState", "?"), f.get("ExitCode", "?"))
    return out


TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
            "PREEMPTED"}


def test_the_job_array_on_a_one_node_cluster(cluster: Cluster, tmp_path: Path) -> None:
    c = cluster
    d = submit_dir(tmp_path)
    (d / "memfbench.sbatch").write_text(sbatch_script(), encoding="utf-8")
    line = submitted_line()
    p = sh(line, d, env=c.env, timeout=30)
    assert p.returncode == 0, f"{line}: {p.stderr}"
    job = p.stdout.strip().split(";")[0]
    assert job.isdigit(), p.stdout

    tasks = [f"{job}_{i}" for i in range(int(ARRAY.split("-")[0]), int(ARRAY.split("-")[1]) + 1)]

    def done() -> dict[str, tuple[str, str]] | None:
        s = job_states(c, job)
        return s if set(s) == set(tasks) and all(st in TERMINAL for st, _ in s.values()) else None

    states = wait_for(done, JOB_TIMEOUT, step=0.5)
    logs = {t: d / "logs" / f"memfbench-{t}.out" for t in tasks}
    log_text = "\n".join(f"{t}: {f.read_text(errors='replace') if f.exists() else '(no log)'}" for t, f in logs.items())
    if states is None:
        c.run("scancel", job, timeout=10)
        pytest.fail(f"the array did not finish within {JOB_TIMEOUT:.0f} s: {job_states(c, job)}\n{log_text}\n"
                    f"slurmd: {c.log_tail('slurmd')}")
    assert all(s == ("COMPLETED", "0:0") for s in states.values()), f"{states}\n{log_text}"

    # One result per task, named as the script names it, a complete run with the study's options.
    host = socket.gethostname()
    files = {t: d / "results" / f"{host}-{t}.json.gz" for t in tasks}
    assert sorted(p.name for p in (d / "results").iterdir()) == sorted(f.name for f in files.values()), log_text
    for t, f in files.items():
        run = json.load(gzip.open(f))
        assert run["status"]["complete"], (t, run["status"])
        assert run["command_line"][:2] == ["run", "-q"] and run["command_line"][2:2 + len(SHORT)] == SHORT, \
            run["command_line"]
        assert logs[t].exists(), f"{t}: no log at {logs[t]}"
    variants = [v for v in json.load(gzip.open(files[tasks[0]]))["config"]["variants"] if v not in ("libc", "noop")]

    # "Reading the files": the summary over every collected file, as the doc gives it.
    summarize, diff = reading_blocks()
    p = sh(summarize, d, timeout=300)
    assert p.returncode == 0, p.stderr
    for f in files.values():
        assert f"- file: results/{f.name}," in p.stdout, p.stdout
    processes = 2 * len(tasks)  # the files of one CPU model are pooled: every process of every file
    assert "memcpy on fleetbench/Memcpy_Fleet vs libc" in p.stdout, p.stdout
    for v in variants:  # the headline: one line per variant, with the processes it rests on
        m = re.search(rf"^  {re.escape(v)} .* (\d+) proc\b(.*)$", p.stdout, re.M)
        assert m, (v, p.stdout)
        # Every process of every file, or fewer with the [dropped] tag: a process the host's load
        # starved is screened out of the verdict (compare.screen_processes), and the line says so.
        kept = int(m.group(1))
        assert kept == processes or (2 <= kept < processes and "[dropped]" in m.group(2)), (v, p.stdout)
    assert (d / "results" / "report" / "report.md").is_file()

    # Before/after: the first task's file as before, the second's as after (one host, one build:
    # an A/A comparison, which is what the command's plumbing needs).
    for side, t in (("old", tasks[0]), ("new", tasks[1])):
        (d / "results" / side).mkdir()
        files[t].rename(d / "results" / side / files[t].name)
    p = sh(diff, d, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "memcpy on fleetbench/Memcpy_Fleet, ratio to libc; 1 -> 1 file" in p.stdout, p.stdout
    for v in variants:  # diff's headline: one line per variant, after/before and what it rests on
        assert re.search(rf"^  {re.escape(v)} .* \d+->\d+ proc\b", p.stdout, re.M), (v, p.stdout)

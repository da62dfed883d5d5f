"""The subcommand matrix (issue 51): every subcommand the dispatcher lists (`memfbench help
--commands`) is run through the cases that apply to it, from one table (COMMANDS) that says what
each reads, what it writes and which of its phases start a program:

- `--help` exits 0 with its usage on stdout;
- each phase that starts a program, held open by a recipe (a compiler that sleeps first, a slow
  training replay, enough calls under valgrind, a 30-s study, `sleep 30` as the program), is
  stopped by SIGINT to the command's process group (a terminal's Ctrl-C) and by SIGTERM to the
  command (a supervisor's kill) once the phase's process is seen: exit 128 + the signal, one
  line saying so, within STOP_BOUND_S, nothing left in its process group or session, no
  temporary left;
- `-o` onto each of its file inputs: refused, exit 2, one line, the input byte-identical, no
  program started;
- an output folder that cannot be written (under /proc, under a regular file): refused, exit 2,
  one line naming it, before any work (no compiler, wrapped memfbench or program started, and
  within REFUSAL_BOUND_S of a command whose work takes minutes);
- a FIFO nobody writes to, and /dev/zero, as each file input: one line and an end within
  INPUT_BOUND_S, never a hang or a crash.

tests/py/test_matrix.py asserts each case (one pytest case per subcommand and case);
tools/matrix.py prints the table of outcomes that docs/reliability.md quotes. Both run a case
with run_case, so the test and the table cannot disagree."""
from __future__ import annotations

import enum
import hashlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

GEOMETRY = "32K:512K:32M"  # the caches given, not detected: the same plan on every machine
TEMP_TAG = ".memfbench-"  # in every memfbench temporary's name (bench/files/temporaries.h)
STOP_CONTRACT_S = 1.0  # the promise: a stopped command ends within this of the signal
STOP_BOUND_S = 3.0  # what the cases assert: the promise with a margin for a loaded 2-vCPU machine
PHASE_WAIT_S = 90.0  # the longest a phase may take to be seen under way
END_WAIT_S = 30.0  # after a signal, then the command is killed and the case fails
INPUT_BOUND_S = 10.0  # a FIFO or /dev/zero as an input: refused or ended within this
REFUSAL_BOUND_S = 10.0  # an unwritable output folder is refused within this (its work takes minutes)
RUN_TIMEOUT_S = 120.0  # any other case
LEFTOVER_WAIT_S = 1.0  # processes of the command still seen this long after it ended are left over

# A source of every function's shape (suite's `{function}` names each study's)
SOURCE = """#include <string.h>
#include <strings.h>
void *mine_memcpy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }
void *mine_memmove(void *d, const void *s, size_t n) { return memmove(d, s, n); }
void *mine_memset(void *d, int c, size_t n) { return memset(d, c, n); }
int mine_memcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }
int mine_bcmp(const void *a, const void *b, size_t n) { return bcmp(a, b, n); }
"""
# --pgo's training held open: 200 us a call, and the training replays 200,000 calls
SLOW_SOURCE = """#include <string.h>
#include <time.h>
void *slow(void *d, const void *s, size_t n)
{
    struct timespec t = {0, 200000};
    nanosleep(&t, 0);
    return memcpy(d, s, n);
}
"""
TABLE = "size_lo,size_hi,weight\n64,64,3\n128,128,1\n"
PROBE = '{"schema": "memfbench-probe", "caches_found": {"l1d": 32768, "l2": 524288, "llc": 33554432}}\n'
BPFTRACE = "@[64]: 10\n@[128]: 5\n"
# The program record and ab run: it notes that it ran (MATRIX_MARK), then calls memcpy through
# the C library (ls does)
PROGRAM = '#!/bin/sh\nif [ -n "$MATRIX_MARK" ]; then echo program >> "$MATRIX_MARK"; fi\nexec ls / >/dev/null\n'
# CC for the compile phase: it sleeps before each compile (cc --version answers at once)
SLOW_CC = '#!/bin/sh\ncase "$1" in --version|-dumpversion) exec cc "$@";; esac\nsleep 60\nexec cc "$@"\n'
# CC, and MEMFBENCH_EXEC_WRAPPER, for the refusals: each notes that it ran, then does the work
MARK_CC = '#!/bin/sh\necho "cc $1" >> "$MATRIX_MARK"\nexec cc "$@"\n'
MARK_WRAPPER = '#!/bin/sh\necho "memfbench $2" >> "$MATRIX_MARK"\nexec "$@"\n'


class Output(enum.Enum):
    FILE = "-o FILE"
    DIR = "-o DIR"
    NONE = "none"


@dataclass(frozen=True)
class Input:
    """A file (or folder) a subcommand reads, and the option or operand that names it."""
    name: str
    shown: str  # how the command line names it, for the docs: "-d FILE.csv"
    fixture: str  # its valid copy's name in a case's folder
    needs: tuple[str, ...] = ()  # inputs it is given with (--pgo-train: a source to train)


@dataclass(frozen=True)
class Phase:
    """A phase that starts a program, the recipe that holds it open, and a word of the command
    line of the process that shows it is under way."""
    name: str
    recipe: str
    marker: str
    needs: tuple[str, ...] = ()  # inputs its recipe uses


@dataclass(frozen=True)
class Given:
    """What a case gives a command line: its folder, the inputs it names (name -> path), the
    output, the phase to hold open, and whether the command should have long or marked work."""
    work: Path
    inputs: Mapping[str, str]
    out: str | None
    phase: str | None = None
    busy: bool = False

    def has(self, name: str) -> bool:
        return name in self.inputs

    def __getitem__(self, name: str) -> str:
        return self.inputs[name]


@dataclass(frozen=True)
class Command:
    name: str
    output: Output
    inputs: tuple[Input, ...]
    phases: tuple[Phase, ...]
    line: Callable[[Given], list[str]]  # the words after `memfbench`
    required: tuple[str, ...] = ()  # inputs every command line of it names (a program, a folder)
    busy: tuple[str, ...] = ()  # inputs whose work the refusal cases watch for (a source: the compiler)
    out_name: str = "out.json"  # the output's name when a case does not choose it

    def input(self, name: str) -> Input:
        return next(i for i in self.inputs if i.name == name)


# --- the subcommands' command lines -----------------------------------------------------------

DISTRIBUTION = Input("distribution", "-d FILE.csv", "d_size.csv")
TRACE = Input("trace", "--trace FILE", "memcpy_trace.csv")
CACHE_FROM = Input("cache-from", "--cache-from FILE", "probe.json")
SOURCE_IN = Input("source", "-v FILE.c:SYMBOL=NAME", "v.c")
PLUGIN = Input("plugin", "-v LIB.so:SYMBOL=NAME", "libplugin.so")
PGO_TRAIN = Input("pgo-train", "--pgo --pgo-train FILE.csv", "t_size.csv", needs=("source",))
PROGRAM_IN = Input("program", "-- PROGRAM", "prog")
RECORDING = Input("recording", "--predict-from DIR", "rec")
FOLDER = Input("folder", "FOLDER (a recording)", "rec")
BPFTRACE_IN = Input("bpftrace", "--bpftrace memcpy:FILE", "bpf.txt")
RESULT = Input("result", "FILE (a result)", "r.json")
DIST_DIR = Input("dist-dir", "--dist-dir DIR", "dists")

COMPILE = Phase("compile", "-v FILE.c:SYMBOL with CC a script that sleeps 60 s before each compile", "slowcc",
                needs=("source",))
TRAINING = Phase("training", "--pgo -v SLOW.c:slow, 200 us a call over the training's 200,000", "--replay")
PROCESS = Phase("process", "--processes 2 -t 30", "--process-index")
VALGRIND = Phase("valgrind", "-v sse2 --calls 16777216", "callgrind")
USER_PROGRAM = Phase("program", "-- sleep 30", "sleep")
STUDY = Phase("study", "-- -t 30 (each study 30 s)", " run ")
REPLAY = Phase("replay", "--predict-from DIR --replay-time 30", " -v libc ", needs=("recording",))  # the check has no libc


def _source(g: Given, function: str = "memcpy") -> list[str]:
    return ["-v", f"{g['source']}:mine_{function}=mine"] if g.has("source") else []


def _study(g: Given, sweep: bool) -> list[str]:
    process = g.phase == "process"
    w = ["sweep", "64,4096"] if sweep else ["run"]
    w += ["-q", "-t", "30" if process else "0.3", "--processes", "2" if process else "1"]
    w += ["--cache-from", g["cache-from"]] if g.has("cache-from") else ["--cache", GEOMETRY]
    if g.has("distribution"):
        w += ["-d", g["distribution"]]
    elif g.has("trace"):
        w += ["--trace", g["trace"]]
    elif not sweep:
        w += ["-d", "fixed:64"]
    w += ["-v", "libc", *_source(g)]
    if g.has("plugin"):
        w += ["-v", f"{g['plugin']}:erms_memcpy=erms"]
    if g.has("pgo-train"):
        w += ["--pgo", "--pgo-train", g["pgo-train"]]
    if g.phase == "training":
        w += ["--pgo", "-v", f"{g.work / 'slow.c'}:slow=slow"]
    return w + (["-o", g.out] if g.out else [])


def run_line(g: Given) -> list[str]:
    return _study(g, sweep=False)


def sweep_line(g: Given) -> list[str]:
    return _study(g, sweep=True)


def suite_line(g: Given) -> list[str]:
    w = ["suite", "-q", *(["-o", g.out] if g.out else []), "--", "-q", "-t", "30" if g.phase == "study" else "0.3",
         "--processes", "1"]
    w += ["--cache-from", g["cache-from"]] if g.has("cache-from") else ["--cache", GEOMETRY]
    return w + _source(g, "{function}")


def tune_line(g: Given) -> list[str]:
    # a family of two settings of a macro the source ignores; the study phase held by 30-s steps
    w = ["tune", "-q", "--budget", "60", "--step-processes", "2", "--step-time", "30" if g.phase == "study" else "0.2",
         "--final-processes", "2", "--final-time", "0.2", "--no-checks",
         "-v", f"{g['source']}:mine_memcpy=mine", "--param", "MATRIX=1,2"]
    if g.has("distribution"):
        w += ["-d", g["distribution"]]
    return w + (["-o", g.out] if g.out else []) + ["--", "-q", "--cache", GEOMETRY]


def record_line(g: Given) -> list[str]:
    program = ["sleep", "30"] if g.phase == "program" else [g["program"]]
    return ["record", *(["-o", g.out] if g.out else []), "--", *program]


def merge_line(g: Given) -> list[str]:
    w = ["merge", *(["-o", g.out] if g.out else [])]
    if g.has("bpftrace"):
        w += ["--bpftrace", f"memcpy:{g['bpftrace']}"]
    return w + [g["folder"]]


def ab_line(g: Given) -> list[str]:
    w = ["ab", "-q", "--runs", "2", "--warmup", "0", "-v", "sse2"]
    if g.has("plugin"):
        w += ["-v", f"{g['plugin']}:erms_memcpy=erms"]
    if g.has("recording"):
        w += ["--predict-from", g["recording"], "--replay-time", "30" if g.phase == "replay" else "1"]
    program = ["sleep", "30"] if g.phase == "program" else [g["program"]]
    return w + (["-o", g.out] if g.out else []) + ["--", *program]


def probe_line(g: Given) -> list[str]:
    # busy: the full probe at its most repeats, minutes of work; else the quick one
    return ["probe", "-q", *(["--repeats", "32"] if g.busy else ["--quick"]), *(["-o", g.out] if g.out else [])]


def analyze_line(g: Given) -> list[str]:
    return ["analyze", "export", "--format", "csv", *(["-o", g.out] if g.out else []), g["result"]]


def counts_line(g: Given) -> list[str]:
    valgrind = g.phase == "valgrind"
    w = ["counts", "-q", "--calls", "16777216" if valgrind else "100", "--cache", GEOMETRY]
    w += ["-d", g["distribution"]] if g.has("distribution") else ["-d", "fixed:64"]
    w += _source(g) or ([] if g.has("plugin") else ["-v", "sse2"])
    if g.has("plugin"):
        w += ["-v", f"{g['plugin']}:erms_memcpy=erms"]
    return w + (["-o", g.out] if g.out else [])


def list_line(g: Given) -> list[str]:
    return ["list", *(["--dist-dir", g["dist-dir"]] if g.has("dist-dir") else [])]


COMMANDS: dict[str, Command] = {c.name: c for c in (
    Command("run", Output.FILE, (DISTRIBUTION, TRACE, CACHE_FROM, SOURCE_IN, PLUGIN, PGO_TRAIN),
            (COMPILE, TRAINING, PROCESS), run_line, busy=("source",)),
    Command("sweep", Output.FILE, (CACHE_FROM, SOURCE_IN, PLUGIN), (COMPILE, PROCESS), sweep_line, busy=("source",)),
    Command("suite", Output.DIR, (CACHE_FROM, SOURCE_IN), (STUDY,), suite_line, busy=("source",), out_name="out"),
    Command("tune", Output.DIR, (SOURCE_IN, DISTRIBUTION), (COMPILE, STUDY), tune_line, required=("source",),
            busy=("source",), out_name="out"),
    Command("record", Output.DIR, (PROGRAM_IN,), (USER_PROGRAM,), record_line, required=("program",),
            busy=("program",), out_name="out"),
    Command("merge", Output.DIR, (FOLDER, BPFTRACE_IN), (), merge_line, required=("folder",), out_name="out"),
    Command("ab", Output.FILE, (PROGRAM_IN, PLUGIN, RECORDING), (USER_PROGRAM, REPLAY), ab_line,
            required=("program",), busy=("program",)),
    Command("probe", Output.FILE, (), (), probe_line),
    Command("analyze", Output.FILE, (RESULT,), (), analyze_line, required=("result",), out_name="out.csv"),
    Command("counts", Output.FILE, (DISTRIBUTION, SOURCE_IN, PLUGIN), (COMPILE, VALGRIND), counts_line,
            busy=("source",)),
    Command("list", Output.NONE, (DIST_DIR,), (), list_line),
    Command("version", Output.NONE, (), (), lambda g: ["version"]),
    Command("help", Output.NONE, (), (), lambda g: ["help"]),
)}


# --- cases ---------------------------------------------------------------------------------------

class Kind(enum.Enum):
    UNLISTED = "in the matrix"  # a subcommand the dispatcher lists and COMMANDS lacks (or the reverse)
    HELP = "--help"
    STOP = "stop"
    ONTO = "-o onto"
    UNWRITABLE = "unwritable"
    FIFO = "FIFO"
    ZERO = "/dev/zero"


# where an unwritable output goes: a folder memfbench cannot create in even as root, and a
# path through a regular file (ENOTDIR)
UNWRITABLE = {"proc": "/proc/memfbench-matrix", "notdir": "plain.txt/memfbench-matrix"}
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}


@dataclass(frozen=True)
class Case:
    command: str
    kind: Kind
    item: str = ""  # the phase, the input, the unwritable place
    sig: str = ""  # STOP: SIGINT or SIGTERM

    @property
    def id(self) -> str:
        tag = {Kind.UNLISTED: "registered", Kind.HELP: "help", Kind.STOP: "stop", Kind.ONTO: "onto",
               Kind.UNWRITABLE: "unwritable", Kind.FIFO: "fifo", Kind.ZERO: "zero"}[self.kind]
        return "-".join(x for x in (self.command, tag, self.item, self.sig) if x)


def cases_of(name: str) -> list[Case]:
    """Every case of a subcommand of the table."""
    c = COMMANDS[name]
    out = [Case(name, Kind.HELP)]
    out += [Case(name, Kind.STOP, p.name, s) for p in c.phases for s in SIGNALS]
    if c.output != Output.NONE:
        out += [Case(name, Kind.ONTO, i.name) for i in c.inputs]
        out += [Case(name, Kind.UNWRITABLE, where) for where in UNWRITABLE]
    out += [Case(name, k, i.name) for k in (Kind.FIFO, Kind.ZERO) for i in c.inputs]
    return out


def all_cases(listed: list[str]) -> list[Case]:
    """The cases of every subcommand the dispatcher lists, in its order; one UNLISTED case (which
    fails) for each it lists that the table lacks, and for each row of the table it does not list."""
    out: list[Case] = []
    for name in listed:
        out += cases_of(name) if name in COMMANDS else [Case(name, Kind.UNLISTED)]
    return out + [Case(name, Kind.UNLISTED) for name in COMMANDS if name not in listed]


def listed_commands(memfbench: str) -> list[str]:
    """The subcommands as the dispatcher lists them."""
    p = subprocess.run([memfbench, "help", "--commands"], capture_output=True, text=True, timeout=30)
    names = p.stdout.splitlines()
    if p.returncode != 0 or not names or not all(re.fullmatch(r"[a-z][a-z0-9-]*", n) for n in names):
        raise RuntimeError(f"{memfbench} help --commands: exit {p.returncode}, not a name a line: "
                           f"{(p.stdout or p.stderr).strip()[:200]!r}")
    return names


# --- the inputs every case starts from ----------------------------------------------------------

@dataclass(frozen=True)
class Shared:
    """What a case's folder is made from: made once (prepare), copied into each case."""
    memfbench: str
    folder: Path
    plugin: Path


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _quiet(cmd: list[str], cwd: Path, what: str) -> None:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                       env=_clean_env({"TMPDIR": str(cwd), "MEMFBENCH_CACHE": str(cwd / "cache")}))
    if p.returncode != 0:
        raise RuntimeError(f"matrix: making {what} failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")


def prepare(folder: Path, memfbench: str) -> Shared:
    """The valid inputs of every case, in folder: tables, a probe file, sources, the plugin, the
    program and a recording of it (with its trace), a result file, a bpftrace histogram."""
    memfbench = str(Path(memfbench).resolve())
    plugin = Path(os.environ.get("MEMFBENCH_EXAMPLE_PLUGIN") or
                  Path(memfbench).parents[1] / "examples" / "libmemcpy_erms.so")
    if not plugin.is_file():
        raise RuntimeError(f"matrix: the example plugin {plugin} is not built (set MEMFBENCH_EXAMPLE_PLUGIN)")
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "d_size.csv", TABLE)
    _write(folder / "t_size.csv", TABLE)
    _write(folder / "probe.json", PROBE)
    _write(folder / "v.c", SOURCE)
    _write(folder / "slow.c", SLOW_SOURCE)
    _write(folder / "bpf.txt", BPFTRACE)
    _write(folder / "plain.txt", "a regular file, where an output's folder should be\n")
    _write(folder / "prog", PROGRAM, 0o755)
    shutil.copy2(plugin, folder / "libplugin.so")
    (folder / "dists").mkdir(exist_ok=True)
    # ab --predict-from takes a recording of a program of the same name: each case's own prog
    _quiet([memfbench, "record", "--trace", "50", "-o", "rec", "--", str(folder / "prog")], folder, "the recording")
    shutil.copy2(folder / "rec" / "memcpy_trace.csv", folder / "memcpy_trace.csv")
    _quiet([memfbench, "run", "-q", "-t", "0.3", "--processes", "1", "-d", "fixed:64", "--cache", GEOMETRY, "-v", "libc",
            "-v", "sse2", "-o", "r.json"], folder, "the result file")
    shutil.rmtree(folder / "cache", ignore_errors=True)
    return Shared(memfbench, folder, plugin)


FIXTURES = ("d_size.csv", "t_size.csv", "probe.json", "v.c", "slow.c", "bpf.txt", "plain.txt", "prog", "libplugin.so",
            "dists", "rec", "memcpy_trace.csv", "r.json")


@dataclass(frozen=True)
class Folders:
    """A case's folders: work (its cwd: the inputs, the output), tmp (TMPDIR), cache
    (MEMFBENCH_CACHE), tools (the scripts, and the mark they leave; not scanned) and logs."""
    root: Path
    work: Path = field(init=False)
    tmp: Path = field(init=False)
    cache: Path = field(init=False)
    tools: Path = field(init=False)

    def __post_init__(self) -> None:
        for name in ("work", "tmp", "cache", "tools"):
            object.__setattr__(self, name, self.root / name)

    @property
    def mark(self) -> Path:
        return self.tools / "ran.log"


def case_folders(root: Path, shared: Shared) -> Folders:
    f = Folders(root)
    for d in (f.work, f.tmp, f.cache, f.tools):
        d.mkdir(parents=True)
    for name in FIXTURES:
        src = shared.folder / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, f.work / name)
    _write(f.tools / "slowcc", SLOW_CC, 0o755)
    _write(f.tools / "markcc", MARK_CC, 0o755)
    _write(f.tools / "markwrap", MARK_WRAPPER, 0o755)
    return f


# --- what a case looks at ------------------------------------------------------------------------

# the environment a command must not inherit from the caller's: it changes what is built and how
# memfbench is started, or where temporaries go
_CALLERS = ("CC", "CFLAGS", "MEMFBENCH_EXEC_WRAPPER", "TMPDIR", "MEMFBENCH_CACHE", "MATRIX_MARK")


def _clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CALLERS}
    env.update(extra)
    return env


@dataclass(frozen=True)
class Proc:
    pid: int
    pgid: int
    sid: int
    state: str
    cmdline: str  # its words joined by spaces


def processes() -> list[Proc]:
    """Every process readable in /proc, zombies included (state Z)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            words = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out.append(Proc(int(d.name), int(fields[2]), int(fields[3]), fields[0],
                        " ".join(w.decode(errors="replace") for w in words if w)))
    return out


def of_command(pid: int) -> list[Proc]:
    """The live processes a command started with start_new_session=True left: in its process group
    or its session (the programs memfbench starts get groups of their own), itself excluded."""
    return [p for p in processes() if p.pid != pid and (p.pgid == pid or p.sid == pid) and p.state not in "ZX"]


def temporaries(*folders: Path) -> list[str]:
    """Every memfbench temporary under folders (relative to its folder's parent)."""
    found = []
    for top in folders:
        for dirpath, dirnames, filenames in os.walk(top):
            for n in dirnames + filenames:
                if TEMP_TAG in n:
                    found.append(str((Path(dirpath) / n).relative_to(top.parent)))
    return sorted(found)


def digest(path: Path) -> str:
    """A file's bytes, or a folder tree's names and bytes, as one hash (a FIFO or device by kind)."""
    h = hashlib.sha256()
    if path.is_symlink():
        h.update(b"link " + os.readlink(path).encode())
    elif path.is_dir():
        for dirpath, dirnames, filenames in sorted(os.walk(path)):
            dirnames.sort()
            for n in sorted(filenames):
                p = Path(dirpath) / n
                h.update(str(p.relative_to(path)).encode() + b"\0" + p.read_bytes())
    elif path.is_file():
        h.update(path.read_bytes())
    else:
        h.update(b"special " + str(path.stat().st_mode).encode())
    return h.hexdigest()


@dataclass(frozen=True)
class Outcome:
    case: Case
    problems: tuple[str, ...]  # empty: it passed
    seconds: float | None = None  # STOP: from the signal to the end; FIFO/ZERO/UNWRITABLE: the run
    command: str = ""  # the command line that reproduces it (the case's folder as $W)
    said: str = ""  # its stderr, for the failure message

    @property
    def passed(self) -> bool:
        return not self.problems

    def message(self) -> str:
        return (f"{self.case.id}: " + "; ".join(self.problems) + f"\n  {self.command}\n  stderr: "
                + (self.said.strip()[-1500:] or "(empty)"))


class _Run:
    """One command of a case: started in a session of its own, its output into files (a program
    it leaves running cannot hold a pipe open), its environment the case's."""

    def __init__(self, shared: Shared, f: Folders, argv: list[str], env: Mapping[str, str]):
        self.f = f
        self.argv = [shared.memfbench, *argv]
        self.env_shown = dict(env)
        self.env = _clean_env({"TMPDIR": str(f.tmp), "MEMFBENCH_CACHE": str(f.cache), **env})
        self.out_path, self.err_path = f.root / "stdout", f.root / "stderr"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.p = subprocess.Popen(self.argv, cwd=f.work, env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                      stderr=err, start_new_session=True)
        self.started = time.monotonic()

    def wait(self, timeout: float) -> bool:
        """Whether it ended within timeout; if not, it and everything it started is killed."""
        try:
            self.p.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            self.kill_all()
            self.p.wait()
            return False

    def kill_all(self) -> None:
        for q in [self.p.pid, *(q.pid for q in of_command(self.p.pid))]:
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass

    def leftovers(self) -> list[Proc]:
        """What it left running once it ended (given LEFTOVER_WAIT_S to go), then killed."""
        deadline = time.monotonic() + LEFTOVER_WAIT_S
        while (left := of_command(self.p.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.kill_all()
        return left

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(errors="replace")

    @property
    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace")

    @property
    def lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.strip()]

    def shown(self) -> str:
        """The command line to reproduce it, the case's folder as $W."""
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env_shown.items())
        words = ["memfbench", *self.argv[1:]]
        text = f"cd $W/work && {env + ' ' if env else ''}TMPDIR=$W/tmp MEMFBENCH_CACHE=$W/cache {shlex.join(words)}"
        return text.replace(str(self.f.root), "$W")


def _exit(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"


def _lines(r: _Run, want_words: tuple[str, ...] = ()) -> list[str]:
    """Problems with a refusal's message: exactly one line, naming each of want_words."""
    lines = r.lines
    if len(lines) != 1:
        return [f"{len(lines)} lines on stderr"]
    missing = [w for w in want_words if w not in lines[0]]
    return [f"its line does not name {', '.join(missing)}"] if missing else []


def _started_programs(f: Folders) -> list[str]:
    if not f.mark.exists():
        return []
    ran = [" ".join(ln.split()[:2]) for ln in f.mark.read_text().splitlines() if ln.strip()]
    return [f"started {', '.join(dict.fromkeys(ran))} before refusing"]


def _aftermath(r: _Run, folders: tuple[Path, ...]) -> list[str]:
    problems = []
    left = r.leftovers()
    if left:
        names = ", ".join(sorted({q.cmdline.split(" ")[0].rsplit("/", 1)[-1] or "?" for q in left}))
        problems.append(f"{len(left)} process{'es' if len(left) > 1 else ''} left ({names})")
    temps = temporaries(*folders)
    if temps:
        problems.append(f"temporaries left: {', '.join(temps[:3])}{' ...' if len(temps) > 3 else ''}")
    return problems


def _given(c: Command, f: Folders, names: tuple[str, ...], out: str | None, phase: str | None = None,
           busy: bool = False) -> Given:
    """The case's inputs (and those they need, and the command's required ones) in its folder."""
    wanted: list[str] = list(c.required)
    for n in names:
        wanted += [*c.input(n).needs, n]
    return Given(f.work, {n: str(f.work / c.input(n).fixture) for n in dict.fromkeys(wanted)}, out, phase, busy)


def _wait_for_phase(r: _Run, marker: str) -> bool:
    """Polls the command's processes until one holds the phase's marker: True, or False when the
    command ended first (or PHASE_WAIT_S passed)."""
    deadline = time.monotonic() + PHASE_WAIT_S
    while time.monotonic() < deadline:
        if r.p.poll() is not None:
            return False
        if any(marker in f" {q.cmdline} " for q in of_command(r.p.pid)):
            return True
        time.sleep(0.05)
    return False


def case_help(shared: Shared, f: Folders, c: Command) -> Outcome:
    r = _Run(shared, f, [c.name, "--help"], {})
    problems = [] if r.wait(RUN_TIMEOUT_S) else ["still running"]
    if r.p.returncode != 0:
        problems.append(_exit(r.p.returncode))
    if not r.stdout.lstrip().startswith("usage:"):
        problems.append("no usage on stdout")
    if r.lines:
        problems.append(f"{len(r.lines)} lines on stderr")
    return Outcome(Case(c.name, Kind.HELP), tuple(problems), None, r.shown(), r.stderr)


def case_stop(shared: Shared, f: Folders, c: Command, case: Case) -> Outcome:
    phase = next(p for p in c.phases if p.name == case.item)
    sig = SIGNALS[case.sig]
    env = {"CC": str(f.tools / "slowcc")} if phase.name == "compile" else {}
    g = _given(c, f, phase.needs, c.out_name if c.output != Output.NONE else None, phase=phase.name)
    r = _Run(shared, f, c.line(g), env)
    if not _wait_for_phase(r, phase.marker):
        ended = r.p.poll() is not None
        r.kill_all()
        r.p.wait()
        why = f"ended ({_exit(r.p.returncode)}) before its {phase.name} phase" if ended else \
            f"its {phase.name} phase not seen in {PHASE_WAIT_S:.0f} s"
        return Outcome(case, (why,), None, r.shown(), r.stderr)
    t0 = time.monotonic()
    if sig == signal.SIGINT:
        os.killpg(r.p.pid, sig)  # Ctrl-C: the terminal signals the foreground group
    else:
        r.p.send_signal(sig)  # kill(1), a batch system: the command itself
    ended = r.wait(END_WAIT_S)
    seconds = time.monotonic() - t0
    problems = []
    if not ended:
        problems.append(f"still running {END_WAIT_S:.0f} s after {case.sig}")
    elif r.p.returncode != 128 + sig:
        problems.append(f"{_exit(r.p.returncode)}, not {128 + sig}")
    lines = r.lines
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    elif not any(w in lines[0] for w in ("interrupt", "stopped", case.sig)):
        problems.append("its line does not say it was interrupted")
    if ended and seconds > STOP_BOUND_S:
        problems.append(f"ended {seconds:.2f} s after the signal")
    problems += _aftermath(r, (f.work, f.tmp, f.cache))
    return Outcome(case, tuple(problems), seconds, r.shown(), r.stderr)


def _marked_env(f: Folders) -> dict[str, str]:
    """A compiler and a wrapper of memfbench's own processes that note each start in the mark."""
    return {"CC": str(f.tools / "markcc"), "MEMFBENCH_EXEC_WRAPPER": str(f.tools / "markwrap"),
            "MATRIX_MARK": str(f.mark)}


def _listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def case_onto(shared: Shared, f: Folders, c: Command, case: Case) -> Outcome:
    target = f.work / c.input(case.item).fixture
    before, files = digest(target), _listing(f.work)
    r = _Run(shared, f, c.line(_given(c, f, (case.item,), str(target))), _marked_env(f))
    problems = [] if r.wait(RUN_TIMEOUT_S) else [f"still running after {RUN_TIMEOUT_S:.0f} s"]
    if r.p.returncode != 2:
        problems.append(f"{_exit(r.p.returncode)}, not 2")
    problems += _lines(r)
    if digest(target) != before:
        problems.append(f"the {case.item} input changed")
    if added := sorted(_listing(f.work) - files):
        problems.append(f"wrote {', '.join(added)}")
    problems += _started_programs(f) + _aftermath(r, (f.work, f.tmp, f.cache))
    return Outcome(case, tuple(problems), None, r.shown(), r.stderr)


def case_unwritable(shared: Shared, f: Folders, c: Command, case: Case) -> Outcome:
    where = UNWRITABLE[case.item]
    out = where + (Path(c.out_name).suffix if c.output == Output.FILE else "")
    plain = f.work / "plain.txt"
    before = digest(plain)
    r = _Run(shared, f, c.line(_given(c, f, c.busy, out, busy=True)), _marked_env(f))
    ended = r.wait(REFUSAL_BOUND_S)
    seconds = time.monotonic() - r.started
    problems = [] if ended else [f"still running after {REFUSAL_BOUND_S:.0f} s: not refused before its work"]
    if ended and r.p.returncode != 2:
        problems.append(f"{_exit(r.p.returncode)}, not 2")
    problems += _lines(r, (str(Path(where).parent) if case.item == "proc" else "plain.txt",))
    if digest(plain) != before:
        problems.append("the file under the output changed")
    problems += _started_programs(f) + _aftermath(r, (f.work, f.tmp, f.cache))
    return Outcome(case, tuple(problems), seconds, r.shown(), r.stderr)


def case_special(shared: Shared, f: Folders, c: Command, case: Case) -> Outcome:
    """A FIFO that nobody writes to, or a link to /dev/zero, where the input was."""
    target = f.work / c.input(case.item).fixture
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    if case.kind == Kind.FIFO:
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    out = c.out_name if c.output != Output.NONE else None
    r = _Run(shared, f, c.line(_given(c, f, (case.item,), out)), {})
    ended = r.wait(INPUT_BOUND_S)
    seconds = time.monotonic() - r.started
    problems = []
    if not ended:
        problems.append(f"hung: still running after {INPUT_BOUND_S:.0f} s")
    elif r.p.returncode < 0 or r.p.returncode >= 128:
        problems.append(f"crashed: {_exit(r.p.returncode)}")
    elif r.p.returncode == 0:
        problems.append("exit 0: accepted as an input")
    if ended:  # what a killed command leaves is the next command's to sweep
        problems += _lines(r) + _aftermath(r, (f.work, f.tmp, f.cache))
    return Outcome(case, tuple(problems), seconds, r.shown(), r.stderr)


def run_case(shared: Shared, root: Path, case: Case) -> Outcome:
    """Runs one case in a fresh folder root (made here; left for the caller to look at)."""
    if case.kind == Kind.UNLISTED:
        why = (f"memfbench help --commands lists '{case.command}' but the matrix has no row for it: add it to the "
               "matrix (tools/lib/matrix.py COMMANDS)" if case.command not in COMMANDS else
               f"the matrix has a row for '{case.command}', which memfbench help --commands does not list")
        return Outcome(case, (why,))
    f = case_folders(root, shared)
    c = COMMANDS[case.command]
    run: dict[Kind, Callable[[Shared, Folders, Command, Case], Outcome]] = {
        Kind.STOP: case_stop, Kind.ONTO: case_onto, Kind.UNWRITABLE: case_unwritable, Kind.FIFO: case_special,
        Kind.ZERO: case_special}
    return case_help(shared, f, c) if case.kind == Kind.HELP else run[case.kind](shared, f, c, case)


# --- the table -----------------------------------------------------------------------------------

COLUMNS = (("--help", (Kind.HELP,)), ("SIGINT / SIGTERM in each phase", (Kind.STOP,)),
           ("-o onto each input", (Kind.ONTO,)), ("unwritable output folder", (Kind.UNWRITABLE,)),
           ("FIFO as each input", (Kind.FIFO,)), ("/dev/zero as each input", (Kind.ZERO,)))


def _result(o: Outcome) -> str:
    text = "pass" if o.passed else "; ".join(o.problems)
    if o.case.kind == Kind.STOP and o.seconds is not None:
        text += f" ({o.seconds:.2f} s)"
    return text.replace("|", "\\|")


def _cell(outcomes: list[Outcome]) -> str:
    if not outcomes:
        return "–"
    if len(outcomes) == 1 and not outcomes[0].case.item:
        return _result(outcomes[0])
    if outcomes[0].case.kind == Kind.STOP:
        by_phase: dict[str, list[Outcome]] = {}
        for o in outcomes:
            by_phase.setdefault(o.case.item, []).append(o)
        return "<br>".join(f"{phase}: " + ", ".join(f"{o.case.sig} {_result(o)}" for o in os_)
                           for phase, os_ in by_phase.items())
    return "<br>".join(f"{o.case.item}: {_result(o)}" for o in outcomes)


def table(outcomes: list[Outcome]) -> str:
    """The Markdown table: a row per subcommand (in the order given), a column per kind of case."""
    names = list(dict.fromkeys(o.case.command for o in outcomes))
    rows = ["| subcommand | " + " | ".join(t for t, _ in COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for name in names:
        mine = [o for o in outcomes if o.case.command == name]
        if any(o.case.kind == Kind.UNLISTED for o in mine):
            rows.append(f"| {name} | " + " | ".join([_result(mine[0])] + ["–"] * (len(COLUMNS) - 1)) + " |")
            continue
        rows.append(f"| {name} | " + " | ".join(_cell([o for o in mine if o.case.kind in kinds])
                                                for _, kinds in COLUMNS) + " |")
    return "\n".join(rows) + "\n"


def summary(outcomes: list[Outcome]) -> str:
    """How many passed, and the stop cases' seconds."""
    stops = sorted(o.seconds for o in outcomes if o.case.kind == Kind.STOP and o.seconds is not None)
    failed = sum(not o.passed for o in outcomes)
    text = f"{len(outcomes) - failed} of {len(outcomes)} cases pass"
    if stops:
        text += (f"; the stop cases ended {stops[0]:.2f} to {stops[-1]:.2f} s after their signal (the promise: "
                 f"{STOP_CONTRACT_S:.0f} s; the test allows {STOP_BOUND_S:.0f} s on a loaded machine)")
    return text + ".\n"

"""The figures README and docs quote, made by commands rather than typed.

A figure lives in a block that names what made it:

    <!-- figure: NAME; machine: KEY -->
    ...the text the generator NAME wrote...
    <!-- end figure: NAME -->

KEY is `any` for a block every machine makes alike (a table printed by the binary, a summary of
docs/validation.md), else the CPU it was measured on ("AuthenticAMD family 26 model 2", the key
docs/validation.md uses): a measured block holds for that CPU only, ends with a line naming the
command, the machine, the date and the commit, and is re-made only on a machine of that key (a
block of another CPU stays as it was measured). `tests/py/test_docfigures.py` fails when a page
quotes a measured figure outside any block (see FIGURE), and when a block of KEY `any` differs from
what its generator prints now.

An experiment that decided a design, run once on a build that no longer exists (an earlier
scheme, a patch made for the experiment only) or on a CPU this machine is not, is a record:

    <!-- record: NAME; machine: KEY -->
    ...its figures...
    <sub>Recorded by `COMMAND` on MODEL (KEY), DATE, commit HASH; not re-made: WHY.</sub>
    <!-- end record: NAME -->

The driver never re-makes a record; the check requires its provenance line, with the marker's
KEY, a commit of this repository (the change the measurement was made for) and the reason it is
not re-made.

    /usr/bin/python3 -m tools.docfigures --check            # what the test checks
    /usr/bin/python3 -m tools.docfigures --refresh          # re-make every block of this machine and `any`
    /usr/bin/python3 -m tools.docfigures --refresh study    # only these generators
    /usr/bin/python3 -m tools.docfigures --lint             # figures outside blocks, page by page
    /usr/bin/python3 -m tools.docfigures --print test-time  # one generator's text, for a new block
"""
from __future__ import annotations

import argparse
import collections
import datetime
import functools
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tools import setup_cost

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ANY = "any"

_BLOCK = re.compile(r"<!-- figure: (?P<name>[a-z0-9-]+); machine: (?P<machine>[^>]*?) -->\n(?P<body>.*?)"
                    r"<!-- end figure: (?P=name) -->\n", re.S)
_RECORD = re.compile(r"<!-- record: (?P<name>[a-z0-9-]+); machine: (?P<machine>[^>]*?) -->\n(?P<body>.*?)"
                     r"<!-- end record: (?P=name) -->\n", re.S)
_RECORDED = re.compile(r"<sub>Recorded by `[^`]+`.* on [^\n]*\((?P<machine>[^()]+)\), (?P<date>\d{4}-\d{2}-\d{2}), "
                       r"commit (?P<commit>[0-9a-f]{7,40}); not re-made: [^\n]+\.</sub>\n\Z", re.S)
# docs/validation.md's sections are blocks of their own kind: tools/validation.py writes them
_VALIDATION = re.compile(r"<!-- validation section: [^>]*-->\n.*?<!-- end of validation section -->\n", re.S)

# A measured figure, as the lint sees it: a number with a fractional part and a unit of time,
# rate, share or ratio ("13.75 s", "1.92 ns", "4.4 %", "2.5x"), or a bare number of four or more
# decimals (a ratio such as 0.6311). Whole numbers are not flagged: they are counts and settings
# (10 processes, 5 s of rounds, a 64 MiB window), which the code states, not a measurement.
_UNIT = r"(?:ns/call|ns|us|µs|ms|s|min|GB/s|GiB/s|MB/s|bytes/ns|B/ns|%|x|×)"
FIGURE = re.compile(r"(?<![\w.\-/:])\d+\.\d+(?:\s?(?:-|–|to)\s?\d+(?:\.\d+)?)?\s?" + _UNIT + r"(?![\w/])"
                    r"|(?<![\w.\-/:])\d\.\d{4,}(?![\w.])")

@dataclass(frozen=True)
class Block:
    name: str
    machine: str
    body: str
    start: int  # offsets in the page's text, the markers included
    end: int


def blocks(text: str) -> list[Block]:
    return [Block(m["name"], m["machine"], m["body"], m.start(), m.end()) for m in _BLOCK.finditer(text)]


def records(text: str) -> list[Block]:
    return [Block(m["name"], m["machine"], m["body"], m.start(), m.end()) for m in _RECORD.finditer(text)]


def record_problem(r: Block, is_commit: Callable[[str], bool]) -> str | None:
    """Why a record does not name what produced it, or None."""
    m = _RECORDED.search(r.body)
    if r.machine == ANY or m is None:
        return (f"record '{r.name}' must name its machine and end with '<sub>Recorded by `COMMAND` on MODEL "
                f"(KEY), DATE, commit HASH; not re-made: WHY.</sub>'")
    if m["machine"] != r.machine:
        return f"record '{r.name}': marked {r.machine}, recorded on {m['machine']}"
    if not is_commit(m["commit"]):
        return f"record '{r.name}': commit {m['commit']} is not in this repository"
    return None


@functools.cache
def _full_history() -> bool:
    """The checkout holds its whole history (not a shallow clone, and git can say so)."""
    p = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"], capture_output=True, text=True)
    return p.returncode == 0 and p.stdout.strip() == "false"


def _is_commit(h: str) -> bool:
    """h names a commit of this checkout (always true of a shallow clone, which cannot tell)."""
    if not _full_history():
        return True
    return subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{h}^{{commit}}"],
                          capture_output=True).returncode == 0


def render(name: str, machine: str, body: str) -> str:
    body = body if body.endswith("\n") else body + "\n"
    return f"<!-- figure: {name}; machine: {machine} -->\n{body}<!-- end figure: {name} -->\n"


# Not figures: inline code (a setting, an option's value: `--watchdog 0.1`) and fenced blocks with
# a language (commands, code, data: ```sh, ```csv). A fence without one is a program's output, and
# is checked like prose.
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAGGED_FENCE = re.compile(r"^```[A-Za-z0-9_+-]+[^\n]*\n.*?^```[ \t]*$", re.S | re.M)


def unsourced(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside the blocks that quotes a measured figure."""
    def blank(m: re.Match[str]) -> str:
        return "\n" * m[0].count("\n")
    masked = _TAGGED_FENCE.sub(blank, _RECORD.sub(blank, _BLOCK.sub(blank, _VALIDATION.sub(blank, text))))
    lines = text.splitlines()
    return [(i, lines[i - 1]) for i, line in enumerate(masked.splitlines(), 1)
            if FIGURE.search(_INLINE_CODE.sub("", line))]


def replace_blocks(text: str, name: str, machine: str, body: str) -> tuple[str, int]:
    """text with every block NAME of this machine given body; the count replaced."""
    out, n, pos = [], 0, 0
    for b in blocks(text):
        if b.name == name and b.machine == machine:
            out += [text[pos:b.start], render(name, machine, body)]
            pos, n = b.end, n + 1
    out.append(text[pos:])
    return "".join(out), n


# --- the machine and the provenance line -------------------------------------------------------

def _cpuinfo() -> dict[str, str]:
    """The first CPU's fields of /proc/cpuinfo."""
    fields: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        k, _, v = line.partition(":")
        fields.setdefault(k.strip(), v.strip())
    return fields


def machine_key() -> str:
    """The CPU's key, as docs/validation.md's sections: "VENDOR family F model M"."""
    f = _cpuinfo()
    return f"{f.get('vendor_id', '?')} family {f.get('cpu family', '?')} model {f.get('model', '?')}"


def machine_name() -> str:
    return _cpuinfo().get("model name") or "unknown CPU"


def commit() -> str:
    p = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True, text=True)
    # the pages themselves change as blocks are written: only code makes a figure "uncommitted"
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":!docs", ":!README.md"], capture_output=True, text=True).stdout.strip()
    return (p.stdout.strip() or "unknown") + (" with uncommitted changes" if dirty else "")


def provenance(command: str) -> str:
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return (f"<sub>Generated by `{command}` on {machine_name()} ({machine_key()}), {today}, "
            f"commit {commit()}.</sub>\n")


# --- generators ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Generator:
    measured: bool  # True: of the machine it runs on; False: the same on every machine (KEY any)
    make: Callable[[argparse.Namespace], str]


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    """A generator's command; a failure ends the driver with one line naming it and its last words."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or p.stdout.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"docfigures: {' '.join(cmd)} failed (exit {p.returncode}): {last}")
    return p


def _analyze(a: argparse.Namespace, *args: str) -> list[str]:
    """The analysis command as the docs give it: `memfbench analyze`, the build's own interpreter."""
    return [a.memfbench, "analyze", *args]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def gen_warnings(a: argparse.Namespace) -> str:
    """The table of warnings and notes, as `memfbench list --warnings` prints it."""
    out = _run([a.memfbench, "list", "--warnings"]).stdout
    rows = ["| code | kind | what it does to the numbers | fix |", "| --- | --- | --- | --- |"]
    for line in out.splitlines():
        code, severity, consequence, fix = line.split("\t")
        rows.append(f"| `{code}` | {severity} | {_cell(consequence)} | {_cell(fix)} |")
    return "\n".join(rows) + "\n\n<sub>Generated from `memfbench list --warnings` (bench/base/warn.c).</sub>\n"


# A row of the kinds table in bench/programs/kinds.c: name, what, deadline, grace, memory (N * GIB or 0).
_KIND = re.compile(r'\[MFB_PROG_\w+\] = \{"(?P<name>\w+)", "[^"]*", (?P<deadline>[\d.]+), (?P<grace>[\d.]+), '
                   r'(?:(?P<gib>\d+) \* GIB|0)\}')
# What each kind covers, for the reader (the code's own comment on each row says why its numbers).
_KIND_WHAT = {
    "tool": "`cc --version`, `git describe`, `valgrind --version`",
    "build": "one step of a source variant's build (compiler, assembler, linker)",
    "training": "`--pgo`'s training replay, `llvm-profdata merge`",
    "valgrind": "one variant's replay under callgrind (`counts`)",
    "process": "memfbench's own processes (a study's, `ab`'s check and replays, a suite's studies)",
    "program": "the user's program (`ab`'s runs, bounded by `--watchdog`; `record`'s)",
}
_KIND_NONE = {"process": "none (their own watchdog and rounds bound them; a first word within 30 s)"}


def gen_program_kinds(a: argparse.Namespace) -> str:
    """The kinds of program memfbench starts with their bounds, from bench/programs/kinds.c."""
    del a
    text = (ROOT / "bench" / "programs" / "kinds.c").read_text(encoding="utf-8")
    rows = ["| kind | what | default deadline | grace after a stop | memory |", "| --- | --- | --- | --- | --- |"]
    for m in _KIND.finditer(text):
        name, deadline = m["name"], float(m["deadline"])
        limit = f"{deadline:g} s" if deadline > 0 else _KIND_NONE.get(name, "none")
        memory = f"{m['gib']} GiB" if m["gib"] else "the system's"
        rows.append(f"| `{name}` | {_KIND_WHAT.get(name, name)} | {limit} | {float(m['grace']):g} s | {memory} |")
    return "\n".join(rows) + "\n\n<sub>Generated from bench/programs/kinds.c's table.</sub>\n"


_SECTION = re.compile(r"<!-- validation section: (?P<key>[^>]*?) -->\n## (?P<title>[^\n]*)\n(?P<body>.*?)"
                      r"<!-- end of validation section -->", re.S)


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table row."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _fenced(text: str) -> str:
    """A program's output as the page shows it: a fence without a language (the lint reads it)."""
    return "```\n" + text.rstrip("\n") + "\n```\n\n"


def _row(body: str, first_cell: str) -> list[str] | None:
    for line in body.splitlines():
        cells = _cells(line)
        if cells and cells[0] == first_cell:
            return cells
    return None


def validation_summary(text: str) -> str:
    """One bullet per machine of docs/validation.md, from its own tables: how often the printed
    interval held the median over studies, the A/A pairs, the 1 % cost, what a study cost."""
    bullets = []
    for m in _SECTION.finditer(text):
        body = m["body"]
        made = re.search(r"Generated by `[^`]*` on (\d{4}-\d{2}-\d{2})", body)
        parts = []
        holds = []
        for comp in ("libc-copy/libc", "avx2/libc", "rep_movsb/libc", "avx2-copy/avx2"):
            r = _row(body, comp)
            if r and len(r) >= 5:
                holds.append(f"{comp} {r[1]} (CI held it in {r[4].split(' (')[0]})")
        if holds:
            parts.append("median ratio over the default studies and how often the printed 95 % interval held it: "
                         + "; ".join(holds))
        aa = [r for r in (_row(body, "libc-copy against libc"), _row(body, "avx2-copy against avx2")) if r]
        if aa:
            parts.append("A/A pairs called different " + " and ".join(f"{r[2].split(' (')[0]} times in {r[1]}"
                                                                       for r in aa))
        det = _row(body, "detected as slower (adjusted, margin ±0.25 %)")
        if det:
            parts.append(f"the known ~1 % cost detected in {det[1]} default studies")
        rows = [c for c in map(_cells, body.splitlines()) if len(c) >= 6]
        hour = [c for c in rows if c[0].startswith("an hour") and "largest" in c[2]]
        if hour:  # section 12, with the drift diff carries
            parts.append(f"`diff` of unchanged code an hour apart called faster or slower in "
                         f"{hour[0][4].strip('*').split(' (')[0]} of {hour[0][3]} variant-pairs")
        pooled = [c for c in rows if re.fullmatch(r"\d+", c[0]) and re.fullmatch(r"\d+ of \d+", c[-1])]
        if pooled:
            most = max(int(c[0]) for c in pooled)
            held = [tuple(map(int, c[-1].split(" of "))) for c in pooled if int(c[0]) == most]
            parts.append(f"the pooled interval of {most} studies held a study run an hour later in "
                         f"{sum(h for h, _ in held)} of {sum(n for _, n in held)}")
        cost = _row(body, "default study, wall time (analysis not included)")
        if cost:
            parts.append(f"a default study took {cost[1]} before the analysis")
        date = f", {made[1]}" if made else ""
        bullets.append(f"- **{m['title']}**{date}: " + "; ".join(parts) + ".")
    return ("\n".join(bullets) + "\n\n<sub>Generated from the sections of docs/validation.md (each made by "
            "`./bootstrap.sh validate` on its machine).</sub>\n")


def gen_validation_summary(a: argparse.Namespace) -> str:
    return validation_summary((ROOT / "docs" / "validation.md").read_text(encoding="utf-8"))


def _headline(stdout: str) -> str:
    """The verdicts at a glance an analysis command prints first: from its title to the first blank line."""
    lines = stdout.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("== verdicts at a glance")), None)
    if start is None:
        return ""
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(lines[start:end])


def gen_study(a: argparse.Namespace) -> str:
    """`./bootstrap.sh study` after the build, `--repeat` times (--force: each replaces the last's
    file, as the first study does): its wall time, and the last run's verdicts at a glance."""
    times, stdout = [], ""
    for _ in range(a.repeat):
        t0 = time.monotonic()
        p = _run(["./bootstrap.sh", "study", "--force"], cwd=ROOT)
        times.append(time.monotonic() - t0)
        stdout = p.stdout
    shown = ", ".join(f"{t:.1f}" for t in times)
    return (f"`./bootstrap.sh study`, once built: {shown} s over {len(times)} runs (median "
            f"{statistics.median(times):.1f} s), the analysis and its report included. The last run's verdicts:\n\n" +
            _fenced(_headline(stdout)) + provenance("./bootstrap.sh study --force"))


# The analysis before issue 53 (pandas, matplotlib and jsonschema on every command's path), which
# analysis-timings measures beside the checkout's: tools.bench_analysis --before.
ANALYSIS_BEFORE = "6a762b2"


def gen_analysis_timings(a: argparse.Namespace) -> str:
    """tools.bench_analysis on the default study's file: each command's wall time, CPU time and
    multiple of an interpreter's start, this checkout's and ANALYSIS_BEFORE's, in one invocation."""
    f = ROOT / "results" / "default.json.gz"
    if not f.is_file():
        raise SystemExit(f"docfigures: analysis-timings: {f} is missing; run ./bootstrap.sh study first")
    args = ["results/default.json.gz", "--repeat", str(max(a.repeat, 5)), "--before", ANALYSIS_BEFORE]
    p = _run([sys.executable, "-m", "tools.bench_analysis", *args], cwd=ROOT)
    table = [ln for ln in p.stdout.splitlines() if ln.strip()]
    load = os.getloadavg()[0]
    return (_fenced("\n".join(table)) + f"The load average when it ended: {load:.1f} on {os.cpu_count()} CPUs.\n\n" +
            provenance(f"{Path(sys.executable)} -m tools.bench_analysis {' '.join(args)}"))


def _shown_path(path: str) -> str:
    """A path as the page shows it: relative to the checkout when inside it."""
    p = Path(path).resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


# The guide's ab example: sort of this many numbers in random order, in the C locale (memcmp).
AB_EXAMPLE_LINES = 200_000


def gen_ab_example(a: argparse.Namespace) -> str:
    """docs/user-guide.md's `ab` walk-through as a user runs it: record sort of 200,000 shuffled
    numbers, then ab of the byte-loop memcmp against libc's with the recording's prediction; what
    record and ab printed (the temporary folder shown as DIR)."""
    import random
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        lines = list(range(1, AB_EXAMPLE_LINES + 1))
        random.Random(1).shuffle(lines)  # what `seq 1 200000 | shuf` makes, drawn the same each time
        (d / "lines.txt").write_text("".join(f"{n}\n" for n in lines))
        env = {**os.environ, "LC_ALL": "C"}
        rec = _run([a.memfbench, "record", "--trace", "100000", "-o", "rec", "--", "sort", "-o", "sorted.txt",
                    "lines.txt"], cwd=d, env=env)
        ab = _run([a.memfbench, "ab", "-f", "memcmp", "-v", "bytes", "--predict-from", "rec", "-o", "ab.json", "--",
                   "sort", "-o", "sorted.txt", "lines.txt"], cwd=d, env=env)
        shown = (rec.stdout + rec.stderr).splitlines()[:1] + ab.stdout.rstrip("\n").splitlines()
        text = "\n".join(shown).replace(str(d) + "/", "").replace(str(d), "DIR")
    cmd = (f"seq 1 {AB_EXAMPLE_LINES} | shuf > lines.txt; LC_ALL=C {_shown_path(a.memfbench)} record --trace 100000 "
           "-o rec -- sort -o sorted.txt lines.txt; LC_ALL=C ... ab -f memcmp -v bytes --predict-from rec -o ab.json "
           "-- sort -o sorted.txt lines.txt")
    return _fenced(text) + provenance(cmd)


def gen_diff_same_build(a: argparse.Namespace) -> str:
    """Two default studies of this build (seeds 101 and 102, pinned to the last CPU), then `diff` of
    the two as they are and with --normalize libc."""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for seed in (101, 102):
            f = str(Path(tmp) / f"st_{seed}.json.gz")
            _run([a.memfbench, "run", "-q", "-s", str(seed), "-o", f])
            files.append(f)
        shown = []
        for extra in ([], ["--normalize", "libc"]):
            p = _run(_analyze(a, "diff", *files, *extra))
            lines = p.stdout.rstrip("\n").splitlines()  # the headline and notes, as printed (80 columns)
            shown.append(f"$ memfbench analyze diff st_101.json.gz st_102.json.gz {' '.join(extra)}".rstrip())
            shown += lines
    cmd = (f"{_shown_path(a.memfbench)} run -q -s 101 -o st_101.json.gz (and -s 102); "
           f"{_shown_path(a.memfbench)} analyze diff st_101.json.gz st_102.json.gz [--normalize libc]")
    return _fenced("\n".join(shown)) + provenance(cmd)


def gen_history_detection(a: argparse.Namespace) -> str:
    """tools.bench_history: 24 A/A default studies and 12 after a known 1 % step (each pinned), its
    false alarms and detections, and `analyze history` over the step series as a user would run it,
    with the plot of it."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        _run([sys.executable, "-m", "tools.bench_history", "run", str(d)], cwd=ROOT)
        rates = _run([sys.executable, "-m", "tools.bench_history", "evaluate", str(d)], cwd=ROOT).stdout
        series = sorted(d.glob("aa-*.json.gz"))[-6:] + sorted(d.glob("step-*.json.gz"))[:6]
        stem = ROOT / "docs" / "img" / f"history-{machine_slug()}"
        shown = _run(_analyze(a, "history", *map(str, series), "--plot", str(stem)), cwd=tmp).stdout
    keep = [ln for ln in shown.splitlines() if not ln.startswith("plot: ")]
    cmd = ("/usr/bin/python3 -m tools.bench_history run DIR && ... evaluate DIR; "
           f"{_shown_path(a.memfbench)} analyze history aa-19..24 step-01..06 --plot docs/img/history-SLUG")
    return (_fenced(rates.strip()) + "\n" + _fenced("\n".join(keep).strip())
            + f"\n![history of the step series](img/{stem.name}-candidate.png)\n\n" + provenance(cmd))


# memfbench ab's programs. The known-answer program (tests/c/ab_known.c) in its four shapes, then
# programs from Debian's packages: an interpreter workload of large copies (slicing and joining
# bytes objects of 1 MiB), an interpreter workload of many small ones (JSON), a compressor and a
# text tool.
AB_SLICES = "b = bytes(range(256)) * 4096\nfor _ in range(600):\n    c = b[1:] + b[:1]\n"
AB_JSON = ("import json\nd = [{'id': i, 'name': 'item%d' % i, 'tags': ['a', 'b', str(i)]} for i in range(20000)]\n"
           "for _ in range(3):\n    json.loads(json.dumps(d))\n")


# the calls memfbench record --trace keeps of each program in the program-ab block, and the program
# whose prediction the block shows by size class
AB_TRACE_CALLS = 100000
AB_CLASSES_SHOWN = "ab_known replay"


def _ab_programs(tmp: Path) -> list[tuple[str, list[str]]]:
    data = tmp / "python-sources.txt"
    with open(data, "wb") as out:  # the standard library's sources: text of a known kind
        for f in sorted(Path("/usr/lib/python3.11").glob("*.py")):
            out.write(f.read_bytes())
    known = [str(ROOT / "build" / "tests" / "c" / "ab_known"), str(ROOT / "distributions" / "fleetbench" /
                                                                    "Memcpy_Fleet_size.csv")]
    return [("ab_known replay (the known answer: the replay's own loop)", known + ["replay"]),
            ("ab_known shuffled (a new order every pass, less work around each call)", known + ["shuffled"]),
            ("ab_known batched (the same order every pass)", known + ["batched"]),
            ("ab_known interleaved (each size drawn between the calls)", known + ["interleaved"]),
            ("python3 -c SLICES (1 MiB bytes objects)", ["/usr/bin/python3", "-c", AB_SLICES]),
            ("python3 -c JSON (dumps and loads of 20,000 small objects)", ["/usr/bin/python3", "-c", AB_JSON]),
            ("gzip -c -6 python-sources.txt", ["gzip", "-c", "-6", str(data)]),
            ("sort python-sources.txt", ["sort", str(data)])]


def gen_program_ab(a: argparse.Namespace) -> str:
    """memfbench ab --predict-from --by-class on the known-answer program and four programs from
    Debian's packages (each recorded first with memfbench record --trace), 10 blocks each, pinned:
    measured against predicted from the table and from the trace, per variant; the shim's own cost;
    then the known-answer program's prediction by size class."""
    rows = ["| program | variant | measured per run | predicted from the table (one process) | | predicted from the "
            "trace (one process) | | shim's cost (wall) |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    classes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for label, argv in _ab_programs(t):
            rec, out, js = t / "rec", t / "ab.json", t / "ab.verdict.json"
            # the program's own output (gzip's is binary) is not the record's to show
            r = subprocess.run([a.memfbench, "record", "--trace", str(AB_TRACE_CALLS), "-o", str(rec), "--", *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise SystemExit(f"docfigures: memfbench record of {label} failed: {r.stderr.strip()[-300:]}")
            _run([a.memfbench, "ab", "-q", "-v", "rep_movsb", "-v", "sse2", "--runs", "10", "--seed", "1",
                  "--predict-from", str(rec), "--by-class", "-o", str(out), "--", *argv])
            shown = _run(_analyze(a, "ab", str(out), "--json", str(js))).stdout
            res = json.loads(js.read_text(encoding="utf-8"))
            shim = next(c for c in res["comparisons"] if c["baseline"] == "plain" and c["measure"] == "wall")
            preds = res["predictions"]
            for i, arm in enumerate(dict.fromkeys(p["arm"] for p in preds)):
                by = {p["basis"]: p for p in preds if p["arm"] == arm}
                base = by["table"]["baseline_median_s"]

                def cell(x: float, lo: float, hi: float) -> str:
                    return f"{x * 1e3:+.2f} ms [{lo * 1e3:+.2f}, {hi * 1e3:+.2f}] ({x / base * 100:+.1f} %)"

                def pred(p: dict | None) -> str:
                    return (f"{cell(p['predicted_s'], p['process_low'], p['process_high'])} | {p['verdict']}"
                            if p else "no trace | ")
                m = by["table"]
                rows.append(f"| {label if i == 0 else ''} | {arm} | "
                            f"{cell(m['measured_s'], m['measured_low'], m['measured_high'])} | {pred(by['table'])} | "
                            f"{pred(by.get('trace'))} | "
                            + (f"{shim['ratio']:.4f} [{shim['ci_low']:.4f}, {shim['ci_high']:.4f}]" if i == 0 else "")
                            + " |")
            if label.startswith(AB_CLASSES_SHOWN):
                classes, taking = [], False
                for ln in shown.splitlines():  # each sentence with the lines it is wrapped onto
                    if ln.startswith(("- rep_movsb - libc per run, from the table", "    rep_movsb, size class")):
                        taking = True
                    elif not (ln.startswith("  ") and not ln.startswith("    ")):
                        taking = False
                    if taking:
                        classes.append(ln)
            for f in (rec, out, js, Path(f"{out}.replay.json"), Path(f"{out}.trace-replay.json")):
                if f.exists():
                    shutil.rmtree(f) if f.is_dir() else f.unlink()
    cmd = (f"{_shown_path(a.memfbench)} record --trace {AB_TRACE_CALLS} -o REC -- PROGRAM; {_shown_path(a.memfbench)} "
           "ab -v rep_movsb -v sse2 --runs 10 --seed 1 --predict-from REC --by-class -o ab.json -- PROGRAM; "
           "memfbench analyze ab ab.json (the programs: tools/docfigures.py _ab_programs)")
    return ("\n".join(rows) + f"\n\nBy size class, {AB_CLASSES_SHOWN} (from `memfbench analyze ab`):\n\n"
            + _fenced("\n".join(ln.replace("**", "") for ln in classes)) + provenance(cmd))


def gen_program_ab_known(a: argparse.Namespace) -> str:
    """tools.bench_ab_known: how often predicted and measured agree on the known-answer program, in
    its replay shape and its shuffled shape, five studies each."""
    out = []
    for shape in ("replay", "shuffled"):
        p = _run([sys.executable, "-m", "tools.bench_ab_known", "--shape", shape, "--studies", "5", "--memfbench",
                  a.memfbench], cwd=ROOT)
        out.append(p.stdout.strip())
    return _fenced("\n\n".join(out)) + provenance(
        f"{Path(sys.executable)} -m tools.bench_ab_known --shape replay|shuffled --studies 5")


def gen_ab_signals(a: argparse.Namespace) -> str:
    """tools.ab_signal_table: memfbench ab stopped by each signal, to its pid and its group, with a
    program that ignores them or leaves a daemon, and during the replay."""
    from tools import ab_signal_table
    return ab_signal_table.table(Path(a.memfbench).resolve().parents[1], "1") + "\n" + provenance(
        f"{Path(sys.executable)} -m tools.ab_signal_table --build build --cpu 1")


def gen_pgo_table(a: argparse.Namespace) -> str:
    """tools.pgo_table: the shipped examples' PGO gains (gcc, clang), the trained-on x tested-on
    table and callgrind's counts of each build beside its profiled one."""
    build = Path(a.memfbench).resolve().parents[1]
    p = _run([sys.executable, "-m", "tools.pgo_table", "--build", str(build), "--cpu", "1"], cwd=ROOT)
    return p.stdout.strip() + "\n\n" + provenance(f"{Path(sys.executable)} -m tools.pgo_table --build build --cpu 1")


def gen_counts_table(a: argparse.Namespace) -> str:
    """memfbench counts of libc, the built-ins and the known-cost wrappers, twice: each variant's
    counts per call, whether the second file's totals and code equal the first's, and the wrappers'
    extra instructions against the 1/25 their design gives in time."""
    from analysis.views.counts import code_cell
    names = "libc-wrapped,libc-slow1pct,libc-twice,sse2,avx2,rep_movsb,sizeclass,bytes"
    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        for i in range(2):
            out = Path(tmp) / f"c{i}.json"
            _run([a.memfbench, "counts", "-q", "-v", names, "-o", str(out)])
            docs.append({v["name"]: v for v in json.loads(out.read_text())["variants"]})
    first, second = docs
    rows = ["| variant | instructions/call | branches/call | mispredicted/call | code bytes | second run equal |",
            "|---|---|---|---|---|---|"]
    for name, v in first.items():
        w = second[name]
        same = all(v[k] == w[k] for k in ("totals", "per_call", "code", "code_bytes"))
        code = code_cell(v)
        rows.append(f"| {name} | {v['per_call']['Ir']:.2f} | {v['per_call']['Bc'] + v['per_call']['Bi']:.2f} | "
                    f"{v['per_call']['Bcm'] + v['per_call']['Bim']:.3f} | {code} | {'yes' if same else 'NO'} |")
    ir = {n: first[n]["per_call"]["Ir"] for n in ("libc-wrapped", "libc-slow1pct", "libc-twice")}
    extra = (ir["libc-slow1pct"] - ir["libc-wrapped"]) / (ir["libc-twice"] - ir["libc-wrapped"])
    return ("\n".join(rows) + "\n\n" +
            f"Known costs in instructions: (slow1pct - wrapped) / (twice - wrapped) = {extra:.4f}, against the "
            f"1/25 = 0.0400 of their design in time; twice / wrapped = {ir['libc-twice'] / ir['libc-wrapped']:.3f}, "
            f"slow1pct / wrapped = {ir['libc-slow1pct'] / ir['libc-wrapped']:.4f}.\n\n" +
            provenance(f"memfbench counts -v {names} -o FILE, twice"))


def gen_subcommand_matrix(a: argparse.Namespace) -> str:
    """tools.matrix: every subcommand the dispatcher lists through every case of the matrix
    (tools/lib/matrix.py), each cell its result and a stop's seconds from the signal to the end."""
    from tools import matrix
    return matrix.table_text(a.memfbench) + "\n" + provenance(f"{Path(sys.executable)} -m tools.matrix")


def gen_record_cost(a: argparse.Namespace) -> str:
    """tools.bench_record: the recorder's cost per call, each configuration 5 times interleaved."""
    p = _run([sys.executable, "-m", "tools.bench_record", "--cpu", "1"], cwd=ROOT)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    return (_fenced("\n".join(lines)) +
            provenance(f"{Path(sys.executable)} -m tools.bench_record --cpu 1"))


def _study(a: argparse.Namespace, out: Path, *args: str) -> tuple[float, dict[str, tuple[float, float, float, str]]]:
    """A default study of libc against the built-ins with these calls (args): glibc's median ns per
    call over every measured batch, and each built-in's ratio to it (estimate, interval, verdict)."""
    from analysis.io import load  # pandas only for the generators that need it
    from analysis.verdicts import compare, diff
    _run([a.memfbench, "run", "-q", "-v", "libc", "-v", "rep_movsb", "-v", "avx2", "-v", "sse2", "-v", "sizeclass",
          "-v", "bytes", *args, "-o", str(out)])
    run = load.load_run(out)
    libc = diff.median_ns(run.batches, "libc")
    comps = compare.compare_runs([run], baseline="libc", secondary=False)
    return libc, {c.variant: (c.ratio, c.ci_low, c.ci_high, c.verdict) for c in comps}


def _record_line(p: subprocess.CompletedProcess[str], tmp: str) -> str:
    """memfbench record's closing line, with the temporary folder taken out of its paths."""
    lines = [ln for ln in (p.stderr + p.stdout).splitlines() if ln.startswith("memfbench record:")]
    return (lines[-1] if lines else "").replace(tmp + "/", "").replace("`", "'")


def _ci(r: tuple[float, float, float, str], verdict: bool = False) -> str:
    return f"{r[0]:.4f} [{r[1]:.4f}, {r[2]:.4f}]" + (f", {r[3]}" if verdict else "")


# the Python workloads recording.md records (each a few seconds of calls)
TRACE_PROGRAM = "import json; [json.dumps({'a': i, 'b': 'x'*(i%50)}) for i in range(20000)]"
MIX_PROGRAM = ("import json, zlib; d=[json.dumps({'k': i, 'v': 'x' * (i % 300)}) for i in range(200000)]; "
               "zlib.compress(''.join(d).encode())")


def gen_trace_replay(a: argparse.Namespace) -> str:
    """record --trace of a Python program, then two default studies: its trace in order, and the
    same calls as a histogram drawn at random."""
    with tempfile.TemporaryDirectory() as tmp:
        rt = Path(tmp) / "rt"
        rec = _run([a.memfbench, "record", "--trace", "100000", "-o", str(rt), "--", sys.executable, "-c",
                    TRACE_PROGRAM])
        t_ns, t = _study(a, Path(tmp) / "t.json.gz", "--trace", str(rt / "memcpy_trace.csv"))
        h_ns, h = _study(a, Path(tmp) / "h.json.gz", "-d", str(rt / "memcpy_size.csv"))
    said = _record_line(rec, tmp)
    rows = ["| replay | glibc ns/call | rep_movsb / glibc | avx2 / glibc |", "| --- | --- | --- | --- |",
            f"| `--trace rt/memcpy_trace.csv` (the program's order) | {t_ns:.2f} | {_ci(t['rep_movsb'], True)} | "
            f"{_ci(t['avx2'], True)} |",
            f"| `-d rt/memcpy_size.csv` (the same calls as a histogram, random order) | {h_ns:.2f} | "
            f"{_ci(h['rep_movsb'], True)} | {_ci(h['avx2'], True)} |"]
    flip = ("The verdict on `rep movsb` differs between the two." if t["rep_movsb"][3] != h["rep_movsb"][3] else
            "The verdict on `rep movsb` is the same in both.")
    cmd = (f"memfbench record --trace 100000 -o rt -- python3 -c \"{TRACE_PROGRAM}\"; then memfbench run -q -v libc "
           "-v rep_movsb -v avx2 -v sse2 -v sizeclass -v bytes with --trace rt/memcpy_trace.csv, and with "
           "-d rt/memcpy_size.csv")
    return (f"The recorder said: `{said}`\n\n" + "\n".join(rows) + "\n\n"
            f"{flip} In the program's order glibc's calls cost {t_ns:.2f} ns each; drawn at random from the "
            f"same histogram, {h_ns:.2f} ns.\n\n" + provenance(cmd))


def gen_python_workload(a: argparse.Namespace) -> str:
    """record of a Python program's calls, its memcpy table described, and a default study of it
    beside one of the fleet table."""
    import pandas as pd
    with tempfile.TemporaryDirectory() as tmp:
        rec_dir = Path(tmp) / "pyrec"
        rec = _run([a.memfbench, "record", "-o", str(rec_dir), "--", sys.executable, "-c", MIX_PROGRAM])
        table = pd.read_csv(rec_dir / "memcpy_size.csv", comment="#")
        _, mine = _study(a, Path(tmp) / "p.json.gz", "-d", str(rec_dir / "memcpy_size.csv"))
        _, fleet = _study(a, Path(tmp) / "f.json.gz")
    said = _record_line(rec, tmp)
    w = table["weight"].to_numpy(dtype=float)
    mid = (table["size_lo"].to_numpy(dtype=float) + table["size_hi"].to_numpy(dtype=float)) / 2
    small = 100 * w[table["size_hi"].to_numpy() <= 64].sum() / w.sum()
    mean = float((w * mid).sum() / w.sum())
    rows = ["| variant vs glibc | Python workload, 95 % CI over 10 processes | fleet table, the same build |",
            "| --- | --- | --- |"]
    rows += [f"| {v} | {_ci(mine[v])} | {_ci(fleet[v])} |" for v in ("rep_movsb", "avx2", "sse2", "sizeclass", "bytes")
             if v in mine and v in fleet]
    cmd = (f"memfbench record -o pyrec -- python3 -c \"{MIX_PROGRAM}\"; memfbench run -q -v libc -v rep_movsb -v avx2 "
           "-v sse2 -v sizeclass -v bytes -d pyrec/memcpy_size.csv (and without -d: the fleet table)")
    return (f"The recorder said: `{said}`. The memcpy table has {len(table)} rows; "
            f"{small:.0f} % of its calls copy at most 64 bytes, and its mean is {mean:.0f} bytes.\n\n" +
            "\n".join(rows) + "\n\n" + provenance(cmd))


def cpu_ticks(stat: str) -> dict[str, tuple[int, int]]:
    """Each CPU's (all, idle) clock ticks from the text of /proc/stat (idle counts iowait too)."""
    out = {}
    for line in stat.splitlines():
        f = line.split()
        if f and f[0].startswith("cpu") and f[0][3:].isdigit() and len(f) >= 6:
            ticks = [int(x) for x in f[1:]]
            out[f[0]] = (sum(ticks), ticks[3] + ticks[4])
    return out


def cpu_busy(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[tuple[str, float]]:
    """Each CPU's busy share (percent) between two cpu_ticks readings, CPUs in their order."""
    rows = []
    for cpu in sorted(after, key=lambda c: int(c[3:])):
        if cpu in before:
            total, idle = after[cpu][0] - before[cpu][0], after[cpu][1] - before[cpu][1]
            rows.append((cpu, 100 * (total - idle) / total if total > 0 else 0.0))
    return rows


def pytest_workers(testlog: Path) -> int | None:
    """How many pytest-xdist workers meson started the Python suite with (its `-n` in the command
    meson's JSON test log records); None where the log or the option is missing."""
    try:
        lines = testlog.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        cmd = entry.get("command") if isinstance(entry, dict) else None
        if isinstance(cmd, list) and "pytest" in cmd and "-n" in cmd[:-1]:
            n = cmd[cmd.index("-n") + 1]
            return int(n) if str(n).isdigit() else None
    return None


def _ci_on_a_clone(a: argparse.Namespace, competitor: bool) -> str:
    """The README's test command on a fresh clone of this checkout's HEAD, as CI runs it
    (`CI=true bash .ci/run`), in an environment without this checkout's test variables: its wall
    time, exit status and counts, and the 20 slowest pytest cases. With `competitor`, a study runs
    on CPU 0 the whole time (a loop of short studies, as a second pytest worker or a neighbour
    would): the suite must pass as it does alone, only slower."""
    from tools.testlog_summary import slowest
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFBENCH") and k != "LD_LIBRARY_PATH"}
    env["CI"] = "true"
    with tempfile.TemporaryDirectory() as tmp:
        loop = (f"while :; do {a.memfbench} run -q --cpu 0 -v libc -v bytes --processes 8 -t 1.6 "
                f"{' '.join(COMPETITOR_GEOMETRY)} -o {tmp}/loop.json 2>/dev/null || sleep 0.1; done")
        clone = Path(tmp) / "clone"
        _run(["git", "clone", "-q", str(ROOT), str(clone)])
        rival = subprocess.Popen(["bash", "-c", loop], start_new_session=True) if competitor else None
        try:
            t0, ticks0 = time.monotonic(), cpu_ticks(Path("/proc/stat").read_text())
            p = subprocess.run(["bash", ".ci/run"], cwd=clone, env=env, capture_output=True, text=True)
            wall, busy = time.monotonic() - t0, cpu_busy(ticks0, cpu_ticks(Path("/proc/stat").read_text()))
        finally:
            if rival is not None:
                os.killpg(rival.pid, 15)
                rival.wait()
        log = clone / "build" / "meson-logs" / "testlog.txt"  # pytest's own summary is in meson's log
        out = p.stdout + p.stderr + (log.read_text(errors="replace") if log.is_file() else "")
        junit = clone / "build" / "pytest-junit.xml"
        slow = slowest(junit) if junit.is_file() else []
        workers = pytest_workers(clone / "build" / "meson-logs" / "testlog.json")
    failed = sorted(set(re.findall(r"^FAILED (\S+)", out, re.M)))
    py = re.findall(r"((?:\d+ failed, )?\d+ passed(?:, \d+ skipped)?) in ([\d.]+)s", out)
    oks = re.findall(r"^Ok:\s+(\d+)", out, re.M)
    fails = re.findall(r"^Fail:\s+(\d+)", out, re.M)
    parts = [f"exit {p.returncode} in {int(wall // 60)} min {round(wall % 60)} s"]
    if py:
        parts.append(f"pytest {py[-1][0]} in {float(py[-1][1]):.0f} s" +
                     (f" over {workers} workers" if workers else ""))
    if oks:
        parts.append("meson tests OK in each tree: " + " and ".join(oks) +
                     (f" (failed: {' and '.join(fails)})" if any(f != "0" for f in fails) else ""))
    if busy:  # how evenly the run kept the CPUs busy (the competitor's share included, with one)
        parts.append("CPUs busy " + ", ".join(f"{c} {b:.0f} %" for c, b in busy))
    if failed:  # a figure that says exit 1 says what failed
        parts.append("failed: " + ", ".join(f"`{t}`" for t in failed[:5]) + (" …" if len(failed) > 5 else ""))
    beside = " with a study running on CPU 0 the whole time" if competitor else ""
    text = f"`CI=true bash .ci/run` on a fresh clone{beside}: {'; '.join(parts)}.\n\n"
    if slow:
        text += ("The 20 slowest pytest cases (seconds, the set-up of the fixtures a case was first to need "
                 "included):\n\n| test | s |\n|---|---:|\n" +
                 "".join(f"| `{name}` | {secs:.1f} |\n" for name, secs in slow) + "\n")
    command = "git clone CHECKOUT clone && cd clone && CI=true bash .ci/run"
    if competitor:
        command += f" (beside: {loop.replace(a.memfbench, 'memfbench').replace(tmp, '/tmp')})"
    return text + provenance(command)


# The competitor's geometry: the test suite's own (tests/py/conftest.py GEOMETRY), so it neither
# fills a VM's claimed socket-wide LLC nor depends on this machine's.
COMPETITOR_GEOMETRY = ("--cache", "32K:512K:32M")


def gen_test_time(a: argparse.Namespace) -> str:
    """The README's test command on a fresh clone, alone."""
    return _ci_on_a_clone(a, competitor=False)


def gen_test_time_loaded(a: argparse.Namespace) -> str:
    """The same with a study on CPU 0 the whole time."""
    return _ci_on_a_clone(a, competitor=True)


def _summary_table(stderr: str, tmp: str) -> str:
    """A run's closing table as it printed it, from its first line to the analysis command."""
    lines = stderr.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(("memfbench: merged", "memfbench: memcpy"))), 0)
    end = next((i for i, ln in enumerate(lines) if "Intervals and verdicts" in ln or "One process:" in ln),
               len(lines) - 1)
    return "\n".join(lines[start:end + 1]).replace(tmp + "/", "")


def gen_summary_example(a: argparse.Namespace) -> str:
    """The table a run ends with: a 3-process run, then a one-process run."""
    with tempfile.TemporaryDirectory() as tmp:
        f = str(Path(tmp) / "m.json.gz")
        three = _run([a.memfbench, "run", "-t", "3", "--processes", "3", "--cpu", "1", "-o", f])
        one = _run([a.memfbench, "run", "--processes", "1", "-t", "10", "--cpu", "1", "-o",
                    str(Path(tmp) / "one.json.gz")])
        shown3, shown1 = _summary_table(three.stderr, tmp), _summary_table(one.stderr, tmp)
    rng = ""
    for ln in shown3.splitlines():
        if ln.strip().startswith("bytes "):
            lo, hi = ln.split()[-2:]  # the table's last two columns: the processes' lowest and highest ratio
            rng = f"The byte loop's ratio ranged from {float(lo):.2f} to {float(hi):.2f} over the three processes."
    return (_fenced(shown3) + (rng + "\n\n" if rng else "") +
            "A one-process run (`--processes 1 -t 10`):\n\n" + _fenced(shown1) +
            provenance("memfbench run -t 3 --processes 3 --cpu 1 -o m.json.gz; memfbench run --processes 1 -t 10 "
                       "--cpu 1 -o one.json.gz"))


def gen_by_class_example(a: argparse.Namespace) -> str:
    """--by-class of rep_movsb against libc, the classes table, and what it says, computed."""
    from analysis.io import load
    from analysis.verdicts import classes
    with tempfile.TemporaryDirectory() as tmp:
        f = str(Path(tmp) / "byclass.json.gz")
        _run([a.memfbench, "run", "-q", "--by-class", "-v", "libc", "-v", "rep_movsb", "--cpu", "1", "-o", f])
        p = _run(_analyze(a, "classes", f))
        dec = classes.decompose_run(load.load_run(f))[0]
    table = [ln for ln in p.stdout.splitlines() if ln.strip()]
    last = dec.classes[-1]
    summed = sum(c.contribution.ns for c in dec.classes)
    text = (f"The {100 * last.size_class.p:.2f} % of calls in the largest class ({last.size_class.label} bytes) take "
            f"{100 * last.baseline_share:.0f} % of libc's time when each class runs apart, and within it the ratio "
            f"is {last.comparison.ratio:.3f} ({last.comparison.verdict}). The classes' contributions sum to "
            f"{summed:+.2f} ns/call; the residual is {dec.residual.ns:+.2f} [{dec.residual.low:+.2f}, "
            f"{dec.residual.high:+.2f}] of the whole {dec.whole.ns:+.2f} ns/call.")
    return (_fenced("\n".join(table)) + text + "\n\n" +
            provenance("memfbench run --by-class -v libc -v rep_movsb --cpu 1 -o byclass.json.gz; "
                       "memfbench analyze classes byclass.json.gz"))


def gen_plugin_walkthrough(a: argparse.Namespace) -> str:
    """The walk-through of your own code: the example given as source (built at every placement, a
    second run finding the build, its copy as the A/A pair), two builds compared with diff (and the
    new one against itself), the saved-baseline gate the other way, and the same code prebuilt as a
    plugin (one layout, labelled)."""
    src = ROOT / "examples" / "plugin" / "memcpy_erms.c"
    spec = f"{src.relative_to(ROOT)}:erms_memcpy=erms"
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        env = {**os.environ, "MEMFBENCH_CACHE": str(t / "cache")}

        def study(name: str, *args: str) -> tuple[str, str]:
            out = str(t / f"{name}.json.gz")
            p = _run([a.memfbench, "run", "--cpu", "1", *args, "-o", out], cwd=ROOT, env=env)
            built = [ln.removeprefix("memfbench: ").replace(str(t), "CACHE") for ln in p.stderr.splitlines()
                     if ln.startswith("memfbench: erms:")]
            return out, "\n".join(built)
        before, build1 = study("before", "-v", "libc", "-v", spec, "-v", "erms-copy")
        again_src, build2 = study("before2", "-v", "libc", "-v", spec, "-v", "erms-copy")
        after, _ = study("after", "--variant-cflags", "-O2 -DERMS_THRESHOLD=64", "-v", "libc", "-v", spec)
        again, _ = study("again", "--variant-cflags", "-O2 -DERMS_THRESHOLD=64", "-v", "libc", "-v", spec)
        _run(["cc", "-O2", "-fPIC", "-shared", "-o", str(t / "libmemcpy_erms.so"), str(src)])
        prebuilt, _ = study("prebuilt", "-v", "libc", "-v", f"{t / 'libmemcpy_erms.so'}:erms_memcpy=erms")
        doc = json.loads(gzip.open(before).read())
        names = [v["name"] for v in doc["variants"]]
        placed = [p["variant_code_placements"] for p in doc["processes"]]
        counts = {n: sorted(collections.Counter(p[i] for p in placed).items()) for i, n in enumerate(names) if n != "libc"}
        apart = all(p[1] != p[2] for p in placed)

        def analysis(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(_analyze(a, *args), capture_output=True, text=True)
        summ = analysis("summarize", before)
        aa = analysis("compare", before, "--baseline", "erms")
        plug = analysis("summarize", prebuilt)
        diff1 = analysis("diff", before, after, "--normalize", "libc")
        diff2 = analysis("diff", after, again, "--normalize", "libc")
        gate = analysis("diff", after, before, "--normalize", "libc", "--fail-if-slower", "1")
    verdicts, copy, one_layout = _headline(summ.stdout), _headline(aa.stdout), _headline(plug.stdout)

    def shifts(p: subprocess.CompletedProcess[str]) -> str:
        return p.stdout.rstrip("\n")  # the headline and its notes, as printed
    gate_line = next((ln for ln in gate.stdout.splitlines() if ln.startswith("gate ")), "")
    spread = "; ".join(f"{n} at " + ", ".join(f"{k}: {c}" for k, c in cs) for n, cs in counts.items())
    return ("Step 2, the first run and the second (`memfbench run ... -v " + spec + " -v erms-copy`: what each "
            "printed of the build):\n\n" + _fenced(build1 + "\n" + build2) +
            f"The file's placements over its {len(placed)} processes (placement: processes): {spread}; erms-copy "
            f"{'never ran from' if apart else 'sometimes shared'} erms's placement in the same process.\n\n"
            "Step 3, the verdict (`summarize before.json.gz`):\n\n" + _fenced(verdicts) +
            "and the copy against the example, the same code at other placements (`compare before.json.gz "
            "--baseline erms`):\n\n" + _fenced(copy) +
            "Step 5, the two builds (`diff before.json.gz after.json.gz --normalize libc`):\n\n" +
            _fenced(shifts(diff1)) + "The new build against itself, a second run (`diff after.json.gz "
            "again.json.gz --normalize libc`):\n\n" + _fenced(shifts(diff2)) +
            f"The gate with the new build as the saved baseline and the old one as the change (`diff after.json.gz "
            f"before.json.gz --normalize libc --fail-if-slower 1`) printed `{gate_line}` and exited "
            f"{gate.returncode}.\n\n"
            "The same code prebuilt (`cc -O2 -fPIC -shared`, one layout: `summarize prebuilt.json.gz`):\n\n" +
            _fenced(one_layout) +
            provenance("memfbench run -q --cpu 1 -v libc -v examples/plugin/memcpy_erms.c:erms_memcpy=erms "
                       "[-v erms-copy] [--variant-cflags '-O2 -DERMS_THRESHOLD=64'] (before, before again, after, "
                       "after again), and -v LIB.so:erms_memcpy=erms (prebuilt); memfbench analyze summarize / "
                       "diff --normalize libc / diff --fail-if-slower 1"))


# The build before the fixed window (docs/cost.md's "before"): a 4 x LLC window per buffer, at most
# 1 GiB, filled at every start. Built once from its commit into build-docfigures/ (ignored by git).
BEFORE_COMMIT = "b7f3a2a"


def _old_binary(commit: str) -> Path:
    """memfbench as built at commit (release), made once beside the checkout's builds."""
    top = ROOT / "build-docfigures" / commit
    binary = top / "build" / "bench" / "memfbench"
    if binary.is_file():
        return binary
    src = top / "src"
    shutil.rmtree(top, ignore_errors=True)
    src.mkdir(parents=True)
    _run(["bash", "-c", f"git -C {ROOT} archive --format=tar {commit} | tar -x -C {src}"])
    _run(["meson", "setup", str(top / "build"), str(src), "--buildtype=release", f"-Dpython={sys.executable}"])
    _run(["ninja", "-C", str(top / "build"), "bench/memfbench"])
    return binary


def _md_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows (header and rule left out)."""
    rows = [_cells(ln) for ln in text.splitlines() if ln.startswith("|")]
    return rows[2:]


# A window under this many times the LLC is warned of (large_window): bench/measure/workset.h's
# MFB_LARGE_LLC_MULTIPLE.
LARGE_LLC_MULTIPLE = 2.0
LLC_PARTS = {"8M": "a desktop's L3", "32M": "one Zen 3 CCD", "96M": "one Zen 4 X3D CCD",
             "256M": "these VMs' reported L3", "1024M": "a Genoa-X socket's L3 as CPUID reports it"}


def gen_setup_cost(a: argparse.Namespace) -> str:
    """tools.setup_cost over five LLC sizes for the build before the fixed window, this build
    (evicted) and this build with --large-window sized; then the arena against the LLC from the
    same runs (a later process)."""
    old = _old_binary(BEFORE_COMMIT)
    cmd = [sys.executable, "-m", "tools.setup_cost", "--binary", f"before={old}", "--binary",
           f"evicted={a.memfbench}", "--binary", f"sized={a.memfbench} --large-window sized", "--repeat", "3",
           "--cpu", "1"]
    out = _run(cmd, cwd=ROOT).stdout
    table = "\n".join(ln for ln in out.splitlines() if ln.startswith("|"))
    rows = _md_rows(out)
    head = _cells(next(ln for ln in out.splitlines() if ln.startswith("| binary")))
    at = {name: i for i, name in enumerate(head)}
    later = {(r[0], r[1]): r for r in rows if r[2] == "1"}
    arena = ["| LLC | a part with it | evicted: arena MiB, memory MiB, map + fill s | sized: arena MiB, memory MiB, "
             "map + fill s | sized window / LLC |", "| --- | --- | --- | --- | --- |"]
    for llc, part in LLC_PARTS.items():
        e, z = later.get(("evicted", llc)), later.get(("sized", llc))
        if not e or not z:
            continue

        def cell(r: list[str]) -> str:
            return (f"{r[at['arena_mib']]}, {r[at['rss_mib']]}, "
                    f"{float(r[at['arena_map_s']]) + float(r[at['arena_fill_s']]):.2f}")
        llc_bytes = setup_cost.size_bytes(llc)
        ratio = float(z[at["arena_mib"]]) * 2**20 / 2 / llc_bytes
        shown_llc = f"{llc_bytes >> 30} GiB" if llc_bytes >= 1 << 30 else f"{llc_bytes >> 20} MiB"
        arena.append(f"| {shown_llc} | {part} | {cell(e)} | {cell(z)} | {ratio:.2g}{' (warned)' if ratio < LARGE_LLC_MULTIPLE else ''} |")
    shown = " ".join(c if " " not in c else f'"{c}"' for c in cmd[1:]).replace(str(old), f"OLD/{BEFORE_COMMIT}")
    shown = shown.replace(str(Path(a.memfbench)), _shown_path(a.memfbench))
    return (table + "\n\nThe arena against the LLC, from the same runs (a later process):\n\n" + "\n".join(arena) +
            "\n\n" + provenance(f"{Path(sys.executable)} {shown}"))


# The first commit whose files record what the parent saw of each process (setup.lifetime_s), before
# issue 53's cuts of a later process's clock calibration and linearity check.
PHASES_BEFORE_COMMIT = "93e1a7a"


def gen_phase_profile(a: argparse.Namespace) -> str:
    """tools.phase_profile: the default study and one with a source variant, by phase, the build
    before issue 53's cuts beside this one, three runs each, interleaved."""
    old = _old_binary(PHASES_BEFORE_COMMIT)
    cmd = [sys.executable, "-m", "tools.phase_profile", "--binary", f"before={old}", "--binary",
           f"this={a.memfbench}", "--repeat", "3", "--cpu", "1"]
    out = _run(cmd, cwd=ROOT).stdout.strip()
    shown = " ".join(cmd[1:]).replace(str(old), f"OLD/{PHASES_BEFORE_COMMIT}")
    shown = shown.replace(str(Path(a.memfbench)), _shown_path(a.memfbench))
    return out + "\n\n" + provenance(f"{Path(sys.executable)} {shown}")


def gen_study_cost(a: argparse.Namespace) -> str:
    """Two default studies of this build: wall time, rounds, the rounds' flushing, and what a
    process costs before its rounds (the first, and the later ones)."""
    from analysis.io import reading
    rows = ["| build | wall | rounds (all processes) | of which flushing | first process before its rounds | "
            "later ones |", "| --- | --- | --- | --- | --- | --- |"]
    builds = [(f"before ({BEFORE_COMMIT})", str(_old_binary(BEFORE_COMMIT))), ("this", a.memfbench)] * 2
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, binary) in enumerate(builds):  # interleaved, so drift hits both alike
            f = Path(tmp) / f"d{i}.json.gz"
            t0 = time.monotonic()
            _run([binary, "run", "-q", "--cpu", "1", "-o", str(f)])
            wall = time.monotonic() - t0
            doc = reading.read_json(f)
            procs = doc["processes"]
            rounds = sum(p["rounds"]["duration_s"] for p in procs)
            setup = [p["setup"] for p in procs]
            evict = sum(x.get("rounds_evict_s", 0.0) for x in setup)  # the build before flushed nothing
            before = [x["before_rounds_s"] for x in setup]
            rows.append(f"| {label} | {wall:.2f} s | {rounds:.2f} s | {evict:.2f} s | {before[0]:.2f} s | "
                        f"{min(before[1:]):.2f}-{max(before[1:]):.2f} s |")
    return "\n".join(rows) + "\n\n" + provenance(
        f"OLD/{BEFORE_COMMIT}/bench/memfbench and {_shown_path(a.memfbench)}: run -q --cpu 1 -o FILE, each twice, "
        "interleaved (each build's own default study)")


def gen_harness_cost(a: argparse.Namespace) -> str:
    """The noop through the timed loop (three one-process runs), and where the loop's cost goes
    (tools/harness_cost.c)."""
    from analysis.io import load
    from analysis.verdicts import diff
    noop = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(3):
            f = Path(tmp) / f"n{i}.json"
            _run([a.memfbench, "run", "-q", "-d", "fixed:64", "-v", "libc", "-v", "noop", "--rounds", "50",
                  "--processes", "1", "--allow-single-process", "--cpu", "1", "-o", str(f)])
            noop.append(diff.median_ns(load.load_run(f).batches, "noop"))
    build = Path(a.memfbench).resolve().parents[1]
    _run(["ninja", "-C", str(build), "tools/harness_cost"])
    # three runs side by side: on a shared VM a row moves between runs, and one run alone would
    # make that movement look like a cost
    runs = [_run([str(build / "tools" / "harness_cost"), "1"]).stdout.splitlines()[1:] for _ in range(3)]
    rows = ["| loop | run 1 | run 2 | run 3 |", "| --- | --- | --- | --- |"]
    for lines in zip(*runs):
        label = lines[0].rsplit(None, 1)[0].strip()
        rows.append(f"| {label} | " + " | ".join(ln.rsplit(None, 1)[1] for ln in lines) + " |")
    return (f"The noop through the timed loop, median ns per call of three runs: "
            f"{', '.join(f'{x:.2f}' for x in noop)}. The loop taken apart (`tools/harness_cost.c`: ns per call, "
            f"the least of 200 loops of 131072 calls, three runs):\n\n" + "\n".join(rows) + "\n\n" +
            provenance(f"{_shown_path(a.memfbench)} run -d fixed:64 -v libc -v noop --rounds 50 --processes 1 "
                       "--allow-single-process --cpu 1 (three runs); ninja -C build tools/harness_cost && "
                       "build/tools/harness_cost 1"))


def gen_compare_pages(a: argparse.Namespace) -> str:
    """memcmp and bcmp (arena of one constant byte) against memcpy (unique pages): the evicted
    placement check's walks over the large calls' lines, and libc's bytes per ns."""
    from analysis.io import load
    rows = ["| function | after the eviction step (ns per load) | after the check's flush | cached | "
            "libc bytes/ns |", "| --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        for fn in ("memcmp", "bcmp", "memcpy"):
            f = Path(tmp) / f"{fn}.json"
            _run([a.memfbench, "run", "-q", "-f", fn, "-d", "uniform:4096-65536", "-v", "libc", "-v", "noop",
                  "--processes", "2", "--rounds", "40", "--cpu", "1", "-o", str(f)])
            run = load.load_run(f)
            checks = [p["placement_check"]["large_window"] for p in run.doc["processes"]]
            m = load.measured(run.batches)
            bpn = float(m.loc[m["variant"] == "libc", "bytes_per_ns"].median())

            def span(key: str) -> str:
                xs = [c[key] for c in checks if isinstance(c.get(key), (int, float))]
                return f"{min(xs):.1f}-{max(xs):.1f}" if xs else "not measured"
            rows.append(f"| {fn} | {span('ns_per_load')} | {span('reference_ns')} | {span('cached_ns')} | {bpn:.1f} |")
    return "\n".join(rows) + "\n\n" + provenance(
        f"{_shown_path(a.memfbench)} run -f FUNCTION -d uniform:4096-65536 -v libc -v noop --processes 2 --rounds 40 "
        "--cpu 1, for memcmp, bcmp and memcpy")


# The fleet tables as the planner meets them: a 32 or 48 KiB L1d gives a 512-call parameter array
# (a quarter of L1d of 16-byte records), the default --small-max is 2 KiB, the evicted window 64 MiB
# per buffer, and a batch is the passes over the array that move 256 KiB at the mean size, rounded
# up to a power of two (measure/calibrate.c).
_ARRAY_CALLS = 512
_SMALL_MAX = 2048
_WINDOW_BYTES = 64 << 20
_BATCH_BYTES = 256 << 10


def fleet_shares(dist_dir: Path) -> str:
    """Per fleet function: how its calls and bytes split at the small-call limit, and what that
    means for one parameter array and one batch."""
    import math
    import pandas as pd
    rows = ["| fleet table | sizes | calls above 2 KiB | their share of the bytes | calls of at most 256 B | "
            "a 512-call array with no call above 2 KiB | a batch's bytes above 2 KiB over a buffer's 64 MiB window |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for fn in ("Memcpy", "Memmove", "Memset", "Memcmp", "Bcmp"):
        t = pd.read_csv(dist_dir / f"{fn}_Fleet_size.csv", comment="#")
        w = t["weight"] / t["weight"].sum()
        big = t["size"] > _SMALL_MAX
        mean = float((w * t["size"]).sum())
        p_big = float(w[big].sum())
        bytes_big = float((w * t["size"])[big].sum())
        passes = 2 ** math.ceil(math.log2(_BATCH_BYTES / (_ARRAY_CALLS * mean))) if mean > 0 else 1
        batch_calls = _ARRAY_CALLS * max(1, passes)
        rows.append(f"| {fn}_Fleet | {t['size'].min()} to {int(t['size'].max()):,} B | {100 * p_big:.2g} % | "
                    f"{100 * bytes_big / mean:.3g} % | {100 * float(w[t['size'] <= 256].sum()):.3g} % | "
                    f"{100 * (1 - p_big) ** _ARRAY_CALLS:.3g} % | {100 * batch_calls * bytes_big / _WINDOW_BYTES:.2g} % |")
    return "\n".join(rows) + ("\n\n<sub>Generated from the size tables in distributions/fleetbench/ "
                              "(`/usr/bin/python3 -m tools.docfigures --refresh fleet-shares`).</sub>\n")


def gen_fleet_shares(a: argparse.Namespace) -> str:
    return fleet_shares(ROOT / "distributions" / "fleetbench")


# Cache sizes to give the placement check, each a way the plan can be wrong about this machine.
_PLACEMENT_CASES = [
    ("the machine's own", []),
    ("`--cache 32K:512K:32M`", ["--cache", "32K:512K:32M"]),
    ("`--cache 16K:256K:8M`", ["--cache", "16K:256K:8M"]),
    ("`--cache 64K:1M:32M` (an L1d larger than most)", ["--cache", "64K:1M:32M"]),
    ("`--cache 512K:2M:32M` (no such L1d)", ["--cache", "512K:2M:32M"]),
    ("`--cache 48K:1M:2M` (an LLC far too small)", ["--cache", "48K:1M:2M"]),
    ("`-p llc` (the LLC as this machine reports it)", ["-p", "llc"]),
]


def _verdicts(checks: list[dict]) -> str:
    """Repeated checks of one window: the range of their ratios and how many passed."""
    done = [c for c in checks if c and isinstance(c.get("ratio"), (int, float))]
    if not done:
        return "-"
    lo, hi = min(c["ratio"] for c in done), max(c["ratio"] for c in done)
    span = f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}x"
    passed = sum(c["verdict"] == "pass" for c in done)
    return f"{span}, {passed} of {len(done)} pass"


def gen_placement_check(a: argparse.Namespace) -> str:
    """The placement check given true and false cache sizes: short runs per case and large-window
    scheme (--repeat each), the small windows' walk against the L1 reference, the large window's
    against flushed lines."""
    from analysis.io import reading
    from analysis.views.probe import human_bytes
    rows = ["| sizes the plan used | small windows against the L1 reference (pass: at most 1.25x) | "
            "large window, evicted, the default (pass: at least 0.75x) | large window, `--large-window sized` "
            "(pass: at least 0.75x) |", "| --- | --- | --- | --- |"]
    first: dict | None = None
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "pc.json.gz"

        def checks(extra: list[str]) -> list[dict]:
            out = []
            for _ in range(a.repeat):
                _run([a.memfbench, "run", "-q", "--cpu", "1", "--rounds", "20", "--processes", "1",
                      "--allow-single-process", *extra, "-o", str(f)])
                out.append(reading.read_json(f))
            return out
        for label, extra in _PLACEMENT_CASES:
            if "-p" in extra:  # one window for every call, meant to stay in the LLC: at most 0.6x
                docs = checks(extra)
                rows.append(f"| {label} | - | the LLC window (pass: at most 0.6x): "
                            f"{_verdicts([d['placement_check']['large_window'] for d in docs])} | - |")
                continue
            ev, sz = checks(extra), checks([*extra, "--large-window", "sized"])
            if not extra:
                c = ev[0]["host"]["caches"]
                label = f"the machine's own ({human_bytes(c['l1d'])}, {human_bytes(c['l2'])}, {human_bytes(c['llc'])}; {c['source']})"
                first = ev[0]["placement_check"]
            rows.append(f"| {label} | {_verdicts([d['placement_check']['small_window'] for d in ev + sz])} | "
                        f"{_verdicts([d['placement_check']['large_window'] for d in ev])} | "
                        f"{_verdicts([d['placement_check']['large_window'] for d in sz])} |")
    assert first is not None
    sw, lw = first["small_window"], first["large_window"]
    text = "\n".join(rows) + (
        f"\n\nThe walks of the first run of the first row: small windows {sw['ns_per_load']:.2f} ns per load against "
        f"{sw['reference_ns']:.2f} ns for the L1 reference (straight after the rounds: {sw['after_rounds_ns']:.2f} ns); "
        f"large window {lw['ns_per_load']:.1f} ns after the eviction step, {lw['reference_ns']:.1f} ns after the "
        f"check's own flush, {lw['cached_ns']:.1f} ns cached.\n\n")
    return text + provenance(f"{_shown_path(a.memfbench)} run -q --cpu 1 --rounds 20 --processes 1 "
                             f"--allow-single-process [--large-window sized] [CASE], {a.repeat} runs each")


def _runs(a: argparse.Namespace, tmp: str, cases: list[tuple[str, list[str]]], repeat: int = 1,
          command: str = "run") -> list[tuple[str, object]]:
    """Each case's memfbench command, `repeat` times interleaved (case by case within a repeat),
    each result loaded: [(case label, Run)] in the order they ran."""
    from analysis.io import load
    out = []
    for i in range(repeat):
        for label, args in cases:
            f = Path(tmp) / f"r{i}-{len(out)}.json.gz"
            _run([a.memfbench, command, *args, "-q", "--cpu", "1", "-o", str(f)])
            out.append((label, load.load_run(f)))
    return out


def _ratio(run: object, variant: str, baseline: str = "libc") -> str:
    """The variant's ratio to the baseline in one file: estimate [95 % interval], verdict."""
    from analysis.verdicts import compare
    c = next(c for c in compare.compare_runs([run], baseline=baseline, secondary=False) if c.variant == variant)
    return f"{c.ratio:.3f} [{c.ci_low:.3f}, {c.ci_high:.3f}], {c.verdict}"


def gen_window_schemes(a: argparse.Namespace) -> str:
    """Fleet memcpy with the large window evicted (64 MiB) and sized (4 x LLC, at most 1 GiB): the
    same lines from memory, page tables that do or do not stay cached."""
    from analysis.verdicts import diff
    rows = ["| large window | arena per process | libc ns/call | rep_movsb ns/call | rep_movsb / libc | placement check |",
            "| --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(s, ["--processes", "4", "--time", "8", "-v", "libc", "-v", "rep_movsb", "--large-window", s])
                 for s in ("evicted", "sized")]
        for label, run in _runs(a, tmp, cases, repeat=2):
            arena = run.doc["workset"]["arena_bytes"] >> 20
            checks = [p["placement_check"]["passed"] for p in run.doc["processes"]]
            rows.append(f"| {label} | {arena} MiB | {diff.median_ns(run.batches, 'libc'):.2f} | "
                        f"{diff.median_ns(run.batches, 'rep_movsb'):.2f} | {_ratio(run, 'rep_movsb')} | "
                        f"passed in {sum(checks)} of {len(checks)} processes |")
    return "\n".join(rows) + "\n\n" + provenance(
        f"{_shown_path(a.memfbench)} run -q --cpu 1 --processes 4 --time 8 -v libc -v rep_movsb "
        "--large-window evicted|sized, twice each, interleaved")


def gen_latency_mode(a: argparse.Namespace) -> str:
    """64-byte copies as a throughput (independent calls) and as a latency (a dependent chain)."""
    from analysis.verdicts import diff
    rows = ["| mode | libc ns/call | noop ns/call | rep_movsb ns/call | rep_movsb / libc (95 % CI over processes) |",
            "| --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        base = ["-d", "fixed:64", "-v", "libc", "-v", "rep_movsb", "-v", "noop"]
        for label, run in _runs(a, tmp, [("throughput", base), ("latency", [*base, "--latency"])]):
            ns = {v: diff.median_ns(run.batches, v) for v in ("libc", "noop", "rep_movsb")}
            rows.append(f"| {label} | {ns['libc']:.2f} | {ns['noop']:.2f} | {ns['rep_movsb']:.2f} | "
                        f"{_ratio(run, 'rep_movsb')} |")
    return "\n".join(rows) + "\n\n" + provenance(
        f"{_shown_path(a.memfbench)} run -q -d fixed:64 -v libc -v rep_movsb -v noop --cpu 1 [--latency]"
        " (default studies of 10 processes)")


_SWEEP_SHOWN = (8, 16, 64, 128, 256, 1024, 2048, 4096, 16384)


def gen_sweep_regimes(a: argparse.Namespace) -> str:
    """A sweep with every call of a point at its size (predictable) and drawn within its power-of-two
    class (unpredictable): what branch prediction is worth per size."""
    from analysis.verdicts import sweep
    with tempfile.TemporaryDirectory() as tmp:
        base = ["0-128:8,pow2:256-16K", "-v", "libc", "-v", "rep_movsb"]
        runs = _runs(a, tmp, [("predictable", base), ("class", [*base, "--unpredictable", "class"])],
                     command="sweep")
        pts = {label: {(p.variant, p.size): p for p in sweep.sweep_points(run, baseline="libc")} for label, run in runs}
    rows = ["| size | libc ns/call, predictable | libc, unpredictable | rep_movsb, predictable | rep_movsb, unpredictable "
            "| rep_movsb / libc, predictable | rep_movsb / libc, unpredictable |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for size in _SWEEP_SHOWN:
        p, u = pts["predictable"], pts["class"]
        if ("libc", size) not in p or ("libc", size) not in u:
            continue

        def r(x: sweep.SweepPoint) -> str:
            return f"{x.ratio:.2f} [{x.ratio_low:.2f}, {x.ratio_high:.2f}]"
        rows.append(f"| {size} | {p['libc', size].ns_per_call:.2f} | {u['libc', size].ns_per_call:.2f} | "
                    f"{p['rep_movsb', size].ns_per_call:.2f} | {u['rep_movsb', size].ns_per_call:.2f} | "
                    f"{r(p['rep_movsb', size])} | {r(u['rep_movsb', size])} |")
    return "\n".join(rows) + "\n\n" + provenance(
        f"{_shown_path(a.memfbench)} sweep -q 0-128:8,pow2:256-16K -v libc -v rep_movsb --cpu 1 "
        "[--unpredictable class] (10 processes each; the table shows some of the points)")


def machine_slug() -> str:
    """The machine key as a file name's part: "authenticamd-26-2"."""
    f = _cpuinfo()
    return f"{f.get('vendor_id', 'unknown').lower()}-{f.get('cpu family', 'x')}-{f.get('model', 'x')}"


_PRESSURES = ("", "4K", "16K", "64K", "256K", "1M")


def gen_icache_pressure(a: argparse.Namespace) -> str:
    """Default studies of libc, rep_movsb and avx2 at each --icache-pressure size; the ratio and the
    paired difference per size, and the plot `analysis pressure` draws (docs/img/, named by CPU)."""
    from analysis.verdicts import pressure
    from analysis.views.probe import human_bytes
    img = ROOT / "docs" / "img" / f"icache_pressure-{machine_slug()}"
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(size or "none", ["-v", "libc", "-v", "rep_movsb", "-v", "avx2"] +
                  (["--icache-pressure", size] if size else [])) for size in _PRESSURES]
        runs = [run for _, run in _runs(a, tmp, cases)]
        df = pressure.pressure_frame(runs, "libc")
        _run(_analyze(a, "pressure", *[str(r.path) for r in runs], "--plot", str(img)))
        sizes = pressure.code_sizes(runs[0])
    head = [f"{v} ({sizes.get(v) or '?'} bytes of code): ratio; ns/call minus libc" for v in ("rep_movsb", "avx2")]
    rows = ["| pressure | block alone | " + " | ".join(head) + " |", "|---|---|---|---|"]
    for nbytes, g in df.groupby("pressure_bytes", sort=True):
        cells = []
        for v in ("rep_movsb", "avx2"):
            r = g[g["variant"] == v].iloc[0]
            cells.append(f"{r['ratio']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]; "
                         f"{r['diff_ns']:+.2f} [{r['diff_low']:+.2f}, {r['diff_high']:+.2f}]")
        ns = float(g["block_ns"].iloc[0])
        block = "" if not nbytes else f"{ns:.3g} ns" if ns < 1000 else f"{ns / 1000:.3g} us"
        rows.append(f"| {human_bytes(nbytes) if nbytes else 'none'} | {block} | " + " | ".join(cells) + " |")
    return ("\n".join(rows) + f"\n\n![ratio and difference against pressure](img/{img.name}.png)\n\n" +
            provenance(f"{_shown_path(a.memfbench)} run -q -v libc -v rep_movsb -v avx2 --cpu 1 "
                       "[--icache-pressure S] for S in none, 4K, 16K, 64K, 256K, 1M; "
                       "memfbench analyze pressure FILES --plot STEM"))


def _pct(x: float, lo: float, hi: float) -> str:
    return f"{x:+.2f} % [{lo:+.2f}, {hi:+.2f}]"


def gen_threads(a: argparse.Namespace) -> str:
    """Fleet memcpy, libc against rep_movsb: one thread, two threads (thread 0 alone and beside
    thread 1, paired by round), and one thread beside each stressor; default studies, one after
    the other, with a one-thread study first and last (the comparison with one thread pools both,
    so a drift over the sequence is in its interval rather than its estimate); the plot `analysis
    threads` draws (docs/img/, named by CPU)."""
    from analysis.stats import threads
    from analysis.verdicts import diff
    v2 = ["-v", "libc", "-v", "rep_movsb"]
    img = ROOT / "docs" / "img" / f"threads-{machine_slug()}.png"
    with tempfile.TemporaryDirectory() as tmp:
        runs = dict(_runs(a, tmp, [("one", v2), ("two", [*v2, "--threads", "2", "--cpus", "1,0"]),
                                   ("spin", [*v2, "--background", "spin"]),
                                   ("bandwidth", [*v2, "--background", "bandwidth"]), ("one, last", v2)]))
        _run(_analyze(a, "threads", str(runs["two"].path), "--plot", str(img)))
        inter = threads.interference(runs["two"]).set_index("variant")
        shifts = {s.variant: s for s in diff.diff_runs([runs["one"], runs["one, last"]], [runs["two"]])}
        bg = threads.background(runs["bandwidth"]) or {}

        def row(label: str, run: object) -> str:
            return (f"| {label} | {diff.median_ns(run.batches, 'libc'):.2f} | "
                    f"{diff.median_ns(run.batches, 'rep_movsb'):.2f} | {_ratio(run, 'rep_movsb')} |")
        r = inter.loc["rep_movsb"]
        rows = ["| fleet memcpy | libc ns/call | rep_movsb ns/call | rep_movsb / libc (95 % CI over processes) |",
                "|---|---|---|---|", row("one thread, first", runs["one"]),
                f"| two threads, thread 0 alone | {inter.loc['libc', 'alone_ns_per_call']:.2f} | "
                f"{r['alone_ns_per_call']:.2f} | {r['ratio_alone']:.3f} [{r['ratio_alone_low']:.3f}, "
                f"{r['ratio_alone_high']:.3f}] |",
                f"| two threads, thread 0 beside thread 1 | {inter.loc['libc', 'together_ns_per_call']:.2f} | "
                f"{r['together_ns_per_call']:.2f} | {r['ratio_together']:.3f} [{r['ratio_together_low']:.3f}, "
                f"{r['ratio_together_high']:.3f}] |",
                row("one thread, `--background spin`", runs["spin"]),
                row(f"one thread, `--background bandwidth` ({(bg.get('bytes_per_ns') or float('nan')):.3g} bytes/ns)",
                    runs["bandwidth"]), row("one thread, last", runs["one, last"])]
    lines = ["- Thread 0's slowdown beside thread 1, paired by round: " + ", ".join(
        f"{v} {_pct(inter.loc[v, 'slowdown_pct'], inter.loc[v, 'slowdown_low'], inter.loc[v, 'slowdown_high'])}"
        for v in ("libc", "rep_movsb")) + f"; the ratio rep_movsb / libc moved by "
        f"{_pct(r['change_pct'], r['change_low'], r['change_high'])}.",
        "- Against the two one-thread runs (thread 0 beside thread 1 over one thread alone, Welch t over "
        "processes, drift between the runs included): " + ", ".join(
            f"{v} {_pct(100 * (shifts[v].ratio - 1), 100 * (shifts[v].ci_low - 1), 100 * (shifts[v].ci_high - 1))}"
            for v in ("libc", "rep_movsb") if v in shifts) + "."]
    return ("\n".join(rows) + "\n\n" + "\n".join(lines) +
            f"\n\n![thread 0 alone and beside the other thread](img/{img.name})\n\n" +
            provenance(f"{_shown_path(a.memfbench)} run -q -v libc -v rep_movsb --cpu 1 [--threads 2 --cpus 1,0 | "
                       "--background spin | --background bandwidth], one after the other between two one-thread runs; memfbench "
                       "analyze threads TWO --plot PNG"))


def gen_probe_full(a: argparse.Namespace) -> str:
    """A default (full) probe of this machine: its wall time, the levels it found against the
    reported sizes, its bandwidth table, and the two plots `analysis probe` draws (docs/img/, named
    by CPU)."""
    stem = ROOT / "docs" / "img" / f"probe-{machine_slug()}"
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "probe.json"
        t0 = time.monotonic()
        _run([a.memfbench, "probe", "--cpu", "1", "-o", str(f)])
        wall = time.monotonic() - t0
        out = _run(_analyze(a, "probe", str(f), "--plot", str(stem))).stdout
    keep, on = [], False
    for line in out.splitlines():
        if line.startswith("== "):
            on = line.startswith(("== cache levels", "== bandwidth"))
        if on:
            keep.append(line)
    return (f"A full probe took {wall / 60:.1f} min:\n\n" + _fenced("\n".join(keep)) +
            f"![latency](img/{stem.name}_latency.png)\n\n![bandwidth](img/{stem.name}_bandwidth.png)\n\n" +
            provenance(f"{_shown_path(a.memfbench)} probe --cpu 1 -o probe.json; memfbench analyze probe "
                       "probe.json --plot STEM"))


_FLOOR = """
import time
t0 = time.perf_counter()
import numpy, scipy.special
t1 = time.perf_counter()
from analysis.io import load, reading, schema, upgrade
t2 = time.perf_counter()
doc = upgrade.upgrade(reading.read_json("results/default.json.gz"))
t3 = time.perf_counter()
schema.validate(doc, "x")
t4 = time.perf_counter()
load.split(load.batch_columns(doc, "x"))
t5 = time.perf_counter()
import pandas
t6 = time.perf_counter()
load.batches_frame(doc, "x")
t7 = time.perf_counter()
schema.conforms = lambda d, s: False  # as for a file the fast check does not pass
schema.validate(doc, "x")
t8 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6, t8 - t7)
"""


def gen_analysis_floor(a: argparse.Namespace) -> str:
    """What any analysis command pays before its own work, on the default study's file: the
    interpreter, the libraries' imports, our modules, reading, validating the file and its numpy
    columns (what summarize, compare and gate pay); then what a command that makes frames adds
    (pandas, the DataFrame) and what a file the fast check does not pass adds (jsonschema: its
    import, the schema's check, the validation); each the least of five fresh interpreters, pinned,
    whose bytecode caches are written as a user's interpreter writes them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = []
    for _ in range(5):
        t0 = time.monotonic()
        _run(["taskset", "-c", "1", sys.executable, "-c", "pass"], env=env)
        bare = time.monotonic() - t0
        out = _run(["taskset", "-c", "1", sys.executable, "-c", _FLOOR], cwd=ROOT, env=env).stdout.split()
        runs.append([bare, *map(float, out)])
    best = [min(r[i] for r in runs) for i in range(9)]
    names = ["the interpreter alone", "numpy, scipy.special", "our modules (analysis.io: load, reading, schema, "
             "upgrade)", "reading the file (gunzip, JSON)",
             "validating it (the columns with numpy, the rest with the fast check)", "its numpy columns"]
    rows = ["| stage | s |", "| --- | --- |"] + [f"| {n} | {t:.3f} |" for n, t in zip(names, best)]
    rows.append(f"| in all (summarize, compare, gate) | {sum(best[:6]):.3f} |")
    rows += [f"| and with frames (report, export): pandas | {best[6]:.3f} |", f"| the file's DataFrame | {best[7]:.3f} |",
             f"| a file the fast check refuses: jsonschema's import and validation | {best[8]:.3f} |"]
    return "\n".join(rows) + "\n\n" + provenance(
        f"taskset -c 1 {Path(sys.executable)} -c ... (tools/docfigures.py _FLOOR) on results/default.json.gz, "
        "the least of five")


GENERATORS: dict[str, Generator] = {
    "analysis-floor": Generator(True, gen_analysis_floor),
    "fleet-shares": Generator(False, gen_fleet_shares),
    "placement-check": Generator(True, gen_placement_check),
    "window-schemes": Generator(True, gen_window_schemes),
    "latency-mode": Generator(True, gen_latency_mode),
    "sweep-regimes": Generator(True, gen_sweep_regimes),
    "icache-pressure": Generator(True, gen_icache_pressure),
    "threads": Generator(True, gen_threads),
    "probe-full": Generator(True, gen_probe_full),
    "setup-cost": Generator(True, gen_setup_cost),
    "study-cost": Generator(True, gen_study_cost),
    "phase-profile": Generator(True, gen_phase_profile),
    "harness-cost": Generator(True, gen_harness_cost),
    "compare-pages": Generator(True, gen_compare_pages),
    "summary-example": Generator(True, gen_summary_example),
    "by-class-example": Generator(True, gen_by_class_example),
    "plugin-walkthrough": Generator(True, gen_plugin_walkthrough),
    "ab-example": Generator(True, gen_ab_example),
    "test-time": Generator(True, gen_test_time),
    "test-time-loaded": Generator(True, gen_test_time_loaded),
    "trace-replay": Generator(True, gen_trace_replay),
    "python-workload": Generator(True, gen_python_workload),
    "record-cost": Generator(True, gen_record_cost),
    "diff-same-build": Generator(True, gen_diff_same_build),
    "history-detection": Generator(True, gen_history_detection),
    "program-ab": Generator(True, gen_program_ab),
    "program-ab-known": Generator(True, gen_program_ab_known),
    "ab-signals": Generator(True, gen_ab_signals),
    "pgo-table": Generator(True, gen_pgo_table),
    "counts-table": Generator(True, gen_counts_table),
    "subcommand-matrix": Generator(True, gen_subcommand_matrix),
    "warnings": Generator(False, gen_warnings),
    "program-kinds": Generator(False, gen_program_kinds),
    "validation-summary": Generator(False, gen_validation_summary),
    "study": Generator(True, gen_study),
    "analysis-timings": Generator(True, gen_analysis_timings),
}


# --- the driver ---------------------------------------------------------------------------------

def check(a: argparse.Namespace) -> list[str]:
    """Every problem the test looks for: figures outside blocks and records, unknown generators,
    stale `any` blocks, measured blocks and records without their provenance."""
    problems = []
    made: dict[str, str] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(ROOT)
        problems += [f"{rel}:{i}: a figure with no generating block or record: {line.strip()[:100]}"
                     for i, line in unsourced(text)]
        for b in blocks(text):
            g = GENERATORS.get(b.name)
            if g is None:
                problems.append(f"{rel}: block '{b.name}': no such generator")
            elif not g.measured:
                if b.machine != ANY:
                    problems.append(f"{rel}: block '{b.name}' is the same on every machine: machine: {ANY}")
                elif b.body != made.setdefault(b.name, g.make(a)):
                    problems.append(f"{rel}: block '{b.name}' is stale: /usr/bin/python3 -m tools.docfigures "
                                    f"--refresh {b.name}")
            elif b.machine == ANY or "<sub>Generated by `" not in b.body:
                problems.append(f"{rel}: measured block '{b.name}' must name its machine and end with its provenance")
        problems += [f"{rel}: {why}" for r in records(text) if (why := record_problem(r, _is_commit))]
    return problems


def refresh(a: argparse.Namespace, names: list[str]) -> None:
    """Re-make the blocks of these generators for this machine. A page is read again just before its
    block is replaced, so an edit made while a long generator ran is kept."""
    key = machine_key()
    for name in names:
        g = GENERATORS[name]
        machine = key if g.measured else ANY
        wanted = [p for p in PAGES if any(b.name == name and b.machine == machine
                                          for b in blocks(p.read_text(encoding="utf-8")))]
        if not wanted:
            print(f"docfigures: {name}: no block for {machine} on any page (add its markers where it belongs)",
                  file=sys.stderr)
            continue
        body = g.make(a)
        for p in wanted:
            text, n = replace_blocks(p.read_text(encoding="utf-8"), name, machine, body)
            p.write_text(text, encoding="utf-8")
            print(f"docfigures: {p.relative_to(ROOT)}: {name} ({machine}): {n} block{'s' if n != 1 else ''}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="/usr/bin/python3 -m tools.docfigures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="list every problem; exit 1 if any")
    ap.add_argument("--lint", action="store_true", help="every figure outside a block or record, page by page")
    ap.add_argument("--refresh", nargs="*", metavar="NAME", help="re-make these blocks (all when none named)")
    ap.add_argument("--print", dest="show", metavar="NAME", choices=list(GENERATORS),
                    help="run one generator and print what it would write (a block not placed yet)")
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    ap.add_argument("--repeat", type=int, default=3, help="runs of a timed generator (default 3)")
    a = ap.parse_args(argv)
    if a.refresh is not None:
        unknown = [n for n in a.refresh if n not in GENERATORS]
        if unknown:
            ap.error(f"--refresh: no generator {', '.join(unknown)} (have: {', '.join(GENERATORS)})")
        refresh(a, a.refresh or list(GENERATORS))
    if a.show:
        print(GENERATORS[a.show].make(a), end="")
    if a.lint:
        for page in PAGES:
            for i, line in unsourced(page.read_text(encoding="utf-8")):
                print(f"{page.relative_to(ROOT)}:{i}: {line.strip()[:120]}")
    if a.check:
        problems = check(a)
        print("\n".join(problems) if problems else "docfigures: every figure has its block")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

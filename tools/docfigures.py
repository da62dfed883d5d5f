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

    /usr/bin/python3 -m tools.docfigures --check            # what the test checks
    /usr/bin/python3 -m tools.docfigures --refresh          # re-make every block of this machine and `any`
    /usr/bin/python3 -m tools.docfigures --refresh study    # only these generators
    /usr/bin/python3 -m tools.docfigures --lint             # figures outside blocks, page by page
"""
from __future__ import annotations

import argparse
import datetime
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ANY = "any"

_BLOCK = re.compile(r"<!-- figure: (?P<name>[a-z0-9-]+); machine: (?P<machine>[^>]*?) -->\n(?P<body>.*?)"
                    r"<!-- end figure: (?P=name) -->\n", re.S)
# docs/validation.md's sections are blocks of their own kind: tools/validation.py writes them
_VALIDATION = re.compile(r"<!-- validation section: [^>]*-->\n.*?<!-- end of validation section -->\n", re.S)

# A measured figure, as the lint sees it: a number with a fractional part and a unit of time,
# rate, share or ratio ("13.75 s", "1.92 ns", "4.4 %", "2.5x"), or a bare number of four or more
# decimals (a ratio such as 0.6311). Whole numbers are not flagged: they are counts and settings
# (10 processes, 5 s of rounds, a 64 MiB window), which the code states, not a measurement.
_UNIT = r"(?:ns/call|ns|us|µs|ms|s|min|GB/s|GiB/s|MB/s|bytes/ns|B/ns|%|x|×)"
FIGURE = re.compile(r"(?<![\w.\-/:])\d+\.\d+(?:\s?(?:-|–|to)\s?\d+(?:\.\d+)?)?\s?" + _UNIT + r"(?![\w/])"
                    r"|(?<![\w.\-/:])\d\.\d{4,}(?![\w.])")

# Pages not yet converted (issue 27): the test requires each to still quote an unsourced figure,
# so a page leaves this list when it is converted and cannot silently rejoin it.
PENDING = {"cost.md", "methodology.md", "probe.md", "reliability.md", "recording.md", "user-guide.md",
           "distributions.md"}


@dataclass(frozen=True)
class Block:
    name: str
    machine: str
    body: str
    start: int  # offsets in the page's text, the markers included
    end: int


def blocks(text: str) -> list[Block]:
    return [Block(m["name"], m["machine"], m["body"], m.start(), m.end()) for m in _BLOCK.finditer(text)]


def render(name: str, machine: str, body: str) -> str:
    body = body if body.endswith("\n") else body + "\n"
    return f"<!-- figure: {name}; machine: {machine} -->\n{body}<!-- end figure: {name} -->\n"


def unsourced(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside the blocks that quotes a measured figure."""
    masked = _VALIDATION.sub(lambda m: "\n" * m[0].count("\n"), text)
    masked = _BLOCK.sub(lambda m: "\n" * m[0].count("\n"), masked)
    return [(i, line) for i, line in enumerate(masked.splitlines(), 1) if FIGURE.search(line)]


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

def machine_key() -> str:
    """The CPU's key, as docs/validation.md's sections: "VENDOR family F model M"."""
    fields = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        k, _, v = line.partition(":")
        fields.setdefault(k.strip(), v.strip())
    return f"{fields.get('vendor_id', '?')} family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"


def machine_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def commit() -> str:
    p = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
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


_SECTION = re.compile(r"<!-- validation section: (?P<key>[^>]*?) -->\n## (?P<title>[^\n]*)\n(?P<body>.*?)"
                      r"<!-- end of validation section -->", re.S)


def _row(body: str, first_cell: str) -> list[str] | None:
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
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
        cost = _row(body, "default study, wall time (analysis not included)")
        if cost:
            parts.append(f"a default study took {cost[1]} before the analysis")
        date = f", {made[1]}" if made else ""
        bullets.append(f"- **{m['title']}**{date}: " + "; ".join(parts) + ".")
    return ("\n".join(bullets) + "\n\n<sub>Generated from the sections of docs/validation.md (each made by "
            "`./bootstrap.sh validate` on its machine).</sub>\n")


def gen_validation_summary(a: argparse.Namespace) -> str:
    return validation_summary((ROOT / "docs" / "validation.md").read_text(encoding="utf-8"))


def _verdict_lines(stdout: str, variants: tuple[str, ...]) -> list[str]:
    out = []
    for line in stdout.splitlines():
        for v in variants:
            if line.startswith(f"- {v} vs libc on"):
                out.append(line if len(line) <= 420 else line[:417] + "...")
    return out


def gen_study(a: argparse.Namespace) -> str:
    """`./bootstrap.sh study` after the build, `--repeat` times: its wall time, and the verdict lines
    of the last run for rep_movsb and avx2."""
    times, stdout = [], ""
    for _ in range(a.repeat):
        t0 = time.monotonic()
        p = _run(["./bootstrap.sh", "study"], cwd=ROOT)
        times.append(time.monotonic() - t0)
        stdout = p.stdout
    head = next((ln for ln in stdout.splitlines() if ln.startswith("== verdicts")), "== verdicts")
    lines = _verdict_lines(stdout, ("rep_movsb", "avx2"))
    shown = ", ".join(f"{t:.1f}" for t in times)
    return (f"`./bootstrap.sh study`, once built: {shown} s over {len(times)} runs (median "
            f"{statistics.median(times):.1f} s), the analysis and its report included. The last run's verdicts:\n\n"
            "```\n" + "\n".join([head, *lines]) + "\n```\n\n" + provenance("./bootstrap.sh study") )


def gen_analysis_timings(a: argparse.Namespace) -> str:
    """tools.bench_analysis on the default study's file: each command's wall time."""
    f = ROOT / "results" / "default.json.gz"
    if not f.is_file():
        raise SystemExit(f"docfigures: analysis-timings: {f} is missing; run ./bootstrap.sh study first")
    p = _run([sys.executable, "-m", "tools.bench_analysis", str(f), "--repeat", "3"], cwd=ROOT)
    table = [ln for ln in p.stdout.splitlines() if ln.strip()]
    return ("```\n" + "\n".join(table) + "\n```\n\n" +
            provenance(f"{Path(sys.executable)} -m tools.bench_analysis results/default.json.gz --repeat 3"))


def _shown_path(path: str) -> str:
    """A path as the page shows it: relative to the checkout when inside it."""
    p = Path(path).resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def gen_diff_same_build(a: argparse.Namespace) -> str:
    """Two default studies of this build (seeds 101 and 102, pinned to the last CPU), then `diff` of
    the two as they are and with --normalize libc."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for seed in (101, 102):
            f = str(Path(tmp) / f"st_{seed}.json.gz")
            _run([a.memfbench, "run", "-q", "-s", str(seed), "-o", f])
            files.append(f)
        shown = []
        for extra in ([], ["--normalize", "libc"]):
            p = _run([sys.executable, "-m", "analysis", "diff", *files, *extra], cwd=ROOT)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith(("- ", "note: "))]
            shown.append(f"$ python3 -m analysis diff st_101.json.gz st_102.json.gz {' '.join(extra)}".rstrip())
            shown += lines
    cmd = (f"{_shown_path(a.memfbench)} run -q -s 101 -o st_101.json.gz (and -s 102); "
           f"{Path(sys.executable)} -m analysis diff st_101.json.gz st_102.json.gz [--normalize libc]")
    return "```\n" + "\n".join(shown) + "\n```\n\n" + provenance(cmd)


def gen_record_cost(a: argparse.Namespace) -> str:
    """tools.bench_record: the recorder's cost per call, each configuration 5 times interleaved."""
    p = _run([sys.executable, "-m", "tools.bench_record", "--cpu", "1"], cwd=ROOT)
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    return ("```\n" + "\n".join(lines) + "\n```\n\n" +
            provenance(f"{Path(sys.executable)} -m tools.bench_record --cpu 1"))


GENERATORS: dict[str, Generator] = {
    "record-cost": Generator(True, gen_record_cost),
    "diff-same-build": Generator(True, gen_diff_same_build),
    "warnings": Generator(False, gen_warnings),
    "validation-summary": Generator(False, gen_validation_summary),
    "study": Generator(True, gen_study),
    "analysis-timings": Generator(True, gen_analysis_timings),
}


# --- the driver ---------------------------------------------------------------------------------

def check(a: argparse.Namespace) -> list[str]:
    """Every problem the test looks for: unsourced figures on converted pages, pending pages with
    none left, unknown generators, stale `any` blocks, measured blocks without their provenance."""
    problems = []
    made: dict[str, str] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        rel = page.relative_to(ROOT)
        loose = unsourced(text)
        if page.name in PENDING and page.parent.name == "docs":
            if not loose:
                problems.append(f"{rel}: no unsourced figure left: take it off tools/docfigures.py PENDING")
        else:
            problems += [f"{rel}:{i}: a figure with no generating block: {line.strip()[:100]}" for i, line in loose]
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
    return problems


def refresh(a: argparse.Namespace, names: list[str]) -> None:
    key = machine_key()
    texts = {p: p.read_text(encoding="utf-8") for p in PAGES}
    for name in names:
        g = GENERATORS[name]
        machine = key if g.measured else ANY
        wanted = [p for p, t in texts.items() if any(b.name == name and b.machine == machine for b in blocks(t))]
        if not wanted:
            print(f"docfigures: {name}: no block for {machine} on any page (add its markers where it belongs)",
                  file=sys.stderr)
            continue
        body = g.make(a)
        for p in wanted:
            texts[p], n = replace_blocks(texts[p], name, machine, body)
            print(f"docfigures: {p.relative_to(ROOT)}: {name} ({machine}): {n} block{'s' if n != 1 else ''}")
    for p, t in texts.items():
        if t != p.read_text(encoding="utf-8"):
            p.write_text(t, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="/usr/bin/python3 -m tools.docfigures", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="list every problem; exit 1 if any")
    ap.add_argument("--lint", action="store_true", help="every figure outside a block, pending pages included")
    ap.add_argument("--refresh", nargs="*", metavar="NAME", help="re-make these blocks (all when none named)")
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    ap.add_argument("--repeat", type=int, default=3, help="runs of a timed generator (default 3)")
    a = ap.parse_args(argv)
    if a.refresh is not None:
        unknown = [n for n in a.refresh if n not in GENERATORS]
        if unknown:
            ap.error(f"--refresh: no generator {', '.join(unknown)} (have: {', '.join(GENERATORS)})")
        refresh(a, a.refresh or list(GENERATORS))
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

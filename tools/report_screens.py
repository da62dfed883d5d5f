"""Every report kind as a reader's browser shows it: short studies of two distributions (libc, sse2
and one source file at two names), then the report of one study, of both (a suite's shape), of one
with a PGO pair (the second name made the first's profiled build, as tests/py/pgo_fixtures.py
does) and diff's before/after report; each opened in headless Chromium (tools/lib/browser.py),
its first screen written as a PNG and what the browser measured printed.

    /usr/bin/python3 -m tools.report_screens [--memfbench build/bench/memfbench] [-o docs/img]

tests/py/test_browser.py asserts on the same reports (make_reports) what this prints.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROG = "python3 -m tools.report_screens"
SOURCE = "examples/source/copy_at.c:copy_at"
DISTRIBUTIONS = ("fleetbench/Memcpy_Fleet", "spec2017/memcpy")
# short studies: the reports' shape, not a measurement (the test suite's cache geometry, so the
# plan is the same on every machine)
SHORT = ["--rounds", "16", "--warmup-rounds", "2", "--processes", "2", "-q", "--cache", "32K:512K:32M"]
KINDS = ("study", "suite", "pgo", "diff")


def make_reports(memfbench: str, d: Path) -> dict[str, Path]:
    """The studies, then each report kind's page (report.html) in its own folder under d."""
    sys.path.insert(0, str(ROOT / "tests" / "py"))
    from pgo_fixtures import add_pgo  # the PGO pair as the tests make it: one place for its shape
    files = []
    for dist in DISTRIBUTIONS:
        out = d / f"{dist.replace('/', '_')}.json"
        p = subprocess.run([memfbench, "run", "-d", dist, "-v", "libc", "-v", "sse2", "-v", f"{SOURCE}=at",
                            "-v", f"{SOURCE}=at2", *SHORT, "-o", str(out)], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
        if p.returncode != 0:
            raise RuntimeError(f"memfbench run -d {dist} failed (exit {p.returncode}): "
                               f"{(p.stderr.strip().splitlines() or ['no message'])[-1]}")
        files.append(out)
    again = d / "again.json"
    again.write_bytes(files[0].read_bytes())  # the same study read as after: diff's plumbing, not a change
    pgo = d / "pgo.json"
    pgo.write_text(json.dumps(add_pgo(json.loads(files[0].read_text()), "at", "at2")))
    made = {"study": ["report", str(files[0]), "-o", str(d / "study")],
            "suite": ["report", *map(str, files), "-o", str(d / "suite")],
            "pgo": ["report", str(pgo), "-o", str(d / "pgo")],
            "diff": ["diff", str(files[0]), str(again), "--normalize", "libc", "--report", str(d / "diff")]}
    for kind, args in made.items():
        p = subprocess.run([sys.executable, "-m", "analysis", *args], cwd=ROOT, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"analysis {args[0]} ({kind}) failed (exit {p.returncode}): "
                               f"{(p.stderr.strip().splitlines() or ['no message'])[-1]}")
    return {kind: d / kind / "report.html" for kind in made}


def main(argv: list[str] | None = None) -> int:
    from tools.lib import browser
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    ap.add_argument("-o", "--out", default=str(ROOT / "docs" / "img"), help="folder of report-KIND.png")
    args = ap.parse_args(argv)
    why = browser.missing()
    if why:
        print(f"{PROG}: error: {why}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if not out.is_dir():
        print(f"{PROG}: error: -o {out}: no such folder", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        try:
            pages = make_reports(args.memfbench, Path(tmp))
        except (RuntimeError, OSError) as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 1
        print("| report | first screen | verdict table's first row ends at | page width / window | images "
              "(broken) | console errors | screenshot |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        with browser.Browser() as b:
            for kind, page in pages.items():
                shot = out / f"report-{kind}.png"
                c = b.check(page, shot)
                print(f"| {kind} | {'verdict table' if c.verdicts_on_first_screen else 'NO verdict table'} | "
                      f"{c.first_row_bottom:.0f} of {c.height} px | {c.scroll_width} / {c.width} px"
                      f"{'' if c.fits else ' (passes it: ' + '; '.join(c.wide[:3]) + ')'} | {c.images} "
                      f"({len(c.broken)}) | {len(c.console_errors)} | `{shot.relative_to(ROOT) if shot.is_relative_to(ROOT) else shot}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Prints one closing line for a `meson test` run: individual checks passed and failed, counting
TAP subtests of the C tests and pytest cases (from its JUnit file), not just meson's targets; then
one line per skipped pytest case with its reason (meson shows a passing test's output only in its
log, and a skip, such as the Slurm cluster's where its daemons cannot start, must say why where CI
prints).

    python3 -m tools.testlog_summary [BUILD]   (default build)
"""
from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def skip_reasons(junit: Path) -> list[str]:
    """"skipped: CLASS::NAME: REASON" for every skipped case of a pytest JUnit file."""
    out = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        skip = case.find("skipped")
        if skip is not None:
            out.append(f"skipped: {case.get('classname', '')}::{case.get('name', '')}: {skip.get('message', '')}")
    return out


def slowest(junit: Path, n: int = 20) -> list[tuple[str, float]]:
    """The n pytest cases that took longest, "FILE::NAME" and seconds, slowest first. A case's time
    includes the set-up of the fixtures it was first to need (a module's shared studies)."""
    cases = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        cases.append((f"{module}.py::{case.get('name', '')}", float(case.get("time", 0) or 0)))
    return sorted(cases, key=lambda c: (-c[1], c[0]))[:n]


def main(build: Path) -> int:
    passed = failed = skipped = 0
    reasons: list[str] = []
    log = build / "meson-logs" / "testlog.json"
    if not log.exists():
        print("0 passed, 1 failed: no meson test log")
        return 1
    for line in log.read_text(errors="replace").splitlines():
        try:
            t = json.loads(line)
        except json.JSONDecodeError:
            continue
        name, result = t.get("name", ""), t.get("result", "")
        if name.endswith("pytest"):
            junit = build / "pytest-junit.xml"
            if junit.exists():
                suite = ET.parse(junit).getroot()
                suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
                total = int(suite.get("tests", 0))
                bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
                skip = int(suite.get("skipped", 0))
                passed += total - bad - skip
                failed += bad
                skipped += skip
                reasons += skip_reasons(junit)
                continue
        out = t.get("stdout") or t.get("stdo") or ""
        oks = sum(1 for l in out.splitlines() if l.startswith("ok ") and "# SKIP" not in l)
        skips = sum(1 for l in out.splitlines() if l.startswith("ok ") and "# SKIP" in l)
        nots = sum(1 for l in out.splitlines() if l.startswith("not ok "))
        if oks or nots or skips:
            passed, failed, skipped = passed + oks, failed + nots, skipped + skips
            if result not in ("OK", "SKIP") and nots == 0:
                failed += 1
        elif result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    for r in reasons:
        print(r)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("build")))

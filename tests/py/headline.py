"""The headline that summarize and compare print first, parsed for the tests: its block of lines
and its rows by variant, whatever tags a row carries."""
from __future__ import annotations

import re

from analysis.views.text import HEADLINE_TITLE

# one headline row: the name (blank where it was too long and printed above), the ratio, the
# interval, the verdict, the processes, the tags
ROW = re.compile(r"^  (?P<name>\S.*?)?\s+(?P<ratio>—|\d[\d.e+]*) (?P<interval>—|\[[^\]]+\])\s+"
                 r"(?P<verdict>\d+\.\d+ % (?:faster|slower)|equivalent|inconclusive|withheld)\s+(?P<procs>\d+) proc"
                 r"(?:\s+(?P<tags>\[.*))?$")


def headline_block(stdout: str) -> list[str]:
    """The headline's lines: from its title to the first empty line."""
    lines = stdout.splitlines()
    start = lines.index(HEADLINE_TITLE)
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def headline_rows(block: list[str]) -> dict[str, dict[str, str]]:
    """The headline's rows by variant (a name printed on a line of its own joined to its row, and
    tags that would pass the width, printed on the lines below it, joined to its tags)."""
    rows, above, last = {}, "", None
    for line in block[1:]:
        m = ROW.match(line)
        if m:
            name = m["name"] or above
            assert name and name not in rows, (line, block)
            rows[name] = last = m.groupdict()
        elif last is not None and line.startswith("    [") and not line.startswith("     "):
            last["tags"] = " ".join(x for x in (last["tags"], line.strip()) if x)
            continue
        else:
            last = None
        above = line.strip()
    return rows


def interval_of(row: dict[str, str]) -> tuple[float, float]:
    """A row's interval as two numbers (any well-formed ratio: 0.996, 17.41, 1.2e+03)."""
    low, high = row["interval"].strip("[]").split(", ")
    return float(low), float(high)


def word_agrees_with_interval(row: dict[str, str]) -> bool:
    """The verdict's word is the one its interval gives: faster when the interval lies below 1,
    slower above it; a straddling or withheld row names no direction."""
    if row["interval"] == "—":
        return not row["verdict"].endswith(("faster", "slower"))
    low, high = interval_of(row)
    if row["verdict"].endswith("faster"):
        return high < 1
    if row["verdict"].endswith("slower"):
        return low > 1
    return True

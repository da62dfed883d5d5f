"""docs/reliability.md's table of the kinds of program memfbench starts says what
bench/programs/kinds.c holds: each kind's name, default deadline, grace and memory bound."""
from __future__ import annotations

import re

from conftest import ROOT

ROW = re.compile(r'\[MFB_PROG_\w+\] = \{"(\w+)", "[^"]*", ([\d.]+), ([\d.]+), (\d+) \* GIB\}|'
                 r'\[MFB_PROG_\w+\] = \{"(\w+)", "[^"]*", ([\d.]+), ([\d.]+), 0\}')


def kinds_in_code() -> dict[str, tuple[float, float, int]]:
    text = (ROOT / "bench" / "programs" / "kinds.c").read_text(encoding="utf-8")
    out = {}
    for m in ROW.finditer(text):
        if m.group(1):
            out[m.group(1)] = (float(m.group(2)), float(m.group(3)), int(m.group(4)))
        else:
            out[m.group(5)] = (float(m.group(6)), float(m.group(7)), 0)
    return out


def kinds_in_doc() -> dict[str, tuple[float, float, int]]:
    text = (ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not re.fullmatch(r"`\w+`", cells[0]):
            continue
        deadline = 0.0 if cells[2].startswith("none") else float(cells[2].removesuffix(" s"))
        grace = float(cells[3].removesuffix(" s"))
        memory = 0 if cells[4] == "the system's" else int(cells[4].removesuffix(" GiB"))
        out[cells[0].strip("`")] = (deadline, grace, memory)
    return out


def test_the_documented_kinds_are_the_codes() -> None:
    code = kinds_in_code()
    assert len(code) == 6, code
    assert kinds_in_doc() == code

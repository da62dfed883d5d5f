"""What a reader sees on the terminal, issue 54's list: `memfbench list` keeps its columns whatever
the names' lengths (a 14-character name pushed its row's description out of line)."""
from __future__ import annotations

import re
import subprocess

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

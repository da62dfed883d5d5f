"""A long analysis's progress on a terminal, as memfbench's own commands show theirs
(bench/base/progress.c): one line rewritten in place with the step's number of all and about how
long is left, from the time the finished steps took. Nothing where stderr is a file or a pipe (a
log, CI, a test's capture): its reader wants the outcome, not the rewrites."""
from __future__ import annotations

import sys
import time
from typing import TextIO

# The terminal's "return to the line's start, clear it": the line is rewritten, not added to.
REWRITE = "\r\x1b[K"


class Progress:
    """`who: what K of N, about S s left`, rewritten at each step, cleared by end()."""

    def __init__(self, who: str, what: str, total: int, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stderr
        self.who, self.what, self.total = who, what, total
        self.on = total > 1 and bool(getattr(self.out, "isatty", lambda: False)())
        self.t0 = time.monotonic()
        self.shown = False

    def step(self, done: int, detail: str = "") -> None:
        """Step `done` (from 0) starts."""
        if not self.on:
            return
        left = ""
        if done > 0:
            per = (time.monotonic() - self.t0) / done
            left = f", about {per * (self.total - done):.0f} s left"
        self.out.write(f"{REWRITE}{self.who}: {self.what} {done + 1} of {self.total}{left}"
                       + (f": {detail}" if detail else ""))
        self.out.flush()
        self.shown = True

    def end(self) -> None:
        """Clears the line, so what follows starts on a clean one."""
        if self.shown:
            self.out.write(REWRITE)
            self.out.flush()
            self.shown = False

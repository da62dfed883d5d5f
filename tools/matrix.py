"""The subcommand matrix as a table: every subcommand `memfbench help --commands` lists, through
every case tools/lib/matrix.py gives it (--help; SIGINT and SIGTERM in each phase that starts a
program; -o onto each input; an unwritable output folder; a FIFO and /dev/zero as each input),
each cell its result: pass (with the seconds from the signal to the end for a stop), or what
failed. tests/py/test_matrix.py asserts the same cases; docs/reliability.md quotes this table
(its block `subcommand-matrix`, made by tools/docfigures.py through table_text).

    /usr/bin/python3 -m tools.matrix                     # print the table (about 2 minutes)
    /usr/bin/python3 -m tools.matrix --only run-stop     # the cases whose id starts so
    /usr/bin/python3 -m tools.matrix --failures          # the table, then each failure's command line
    /usr/bin/python3 -m tools.matrix --write             # the page's block (tools.docfigures --refresh
                                                         # subcommand-matrix)
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.lib import matrix as mx

ROOT = Path(__file__).resolve().parents[1]


def run_all(memfbench: str, jobs: int, only: list[str] | None = None, inputs_from: str | None = None,
            listed: list[str] | None = None) -> list[mx.Outcome]:
    """Every case (or those whose id starts with one of only), jobs at a time, in the table's order;
    the shared inputs made by inputs_from's binary where given (a sanitized build cannot preload the
    recorder into the program whose recording the cases read); the subcommands as the binary's
    dispatcher lists them, or `listed` for a build older than `help --commands`."""
    names = listed if listed is not None else mx.listed_commands(memfbench)
    cases = [c for c in mx.all_cases(names) if not only or c.id.startswith(tuple(only))]
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        shared = dataclasses.replace(mx.prepare(Path(tmp) / "shared", inputs_from or memfbench), memfbench=memfbench)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(lambda c: mx.run_case(shared, Path(tmp) / "cases" / c.id, c), cases))


def table_text(memfbench: str, jobs: int = 2) -> str:
    """The table and its summary line, as the page shows them."""
    outcomes = run_all(memfbench, jobs)
    return mx.table(outcomes) + "\n" + mx.summary(outcomes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="/usr/bin/python3 -m tools.matrix", description=__doc__.split("\n\n")[0])
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    ap.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    ap.add_argument("--only", nargs="*", metavar="ID", help="only the cases whose id starts with one of these")
    ap.add_argument("--inputs-from", metavar="MEMFBENCH", help="the binary that makes the shared inputs (a "
                    "recording): a plain build, when the one under test is sanitized")
    ap.add_argument("--failures", action="store_true", help="after the table, each failing case's command line "
                    "and what it printed")
    ap.add_argument("--write", action="store_true", help="run the matrix into docs/reliability.md's block "
                    "instead (tools.docfigures --refresh subcommand-matrix)")
    a = ap.parse_args(argv)
    if a.write:
        from tools import docfigures
        return docfigures.main(["--refresh", "subcommand-matrix", "--memfbench", a.memfbench])
    outcomes = run_all(a.memfbench, a.jobs, a.only, a.inputs_from)
    print(mx.table(outcomes) + "\n" + mx.summary(outcomes), end="")
    if a.failures:
        for o in outcomes:
            if not o.passed:
                print("\n" + o.message())
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

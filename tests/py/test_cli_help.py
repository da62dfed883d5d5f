"""Every command's --help and its option table agree: each long option the table accepts is
described in the help (but those only a parent process passes to its children), each one the
help names is accepted, and a short form shown as "-x, --name" is the table's. Both come from one
declaration per option (bench/base/flags.h: getopt's table and the usage text are made from the
rows); the rows are read from the C sources, the help from the built binary, so this checks the
declarations and the generator together."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

CLI = ROOT / "bench" / "cli"
# command -> the file holding its option rows
COMMANDS = {"run": "options.c", "probe": "cmd_probe.c", "record": "cmd_record.c", "merge": "cmd_merge.c"}
# Options a --processes parent gives its children (orchestrate/processes.c); a user has no reason to.
INTERNAL = {"run": {"process-index", "code-placement-seed"}}
ROW = re.compile(r'\{"([a-z0-9-]+)",\s*(no_argument|required_argument|optional_argument),\s*'
                 r"('(.)'|[A-Z_0-9]+),\s*(true|false),")


def table(command: str) -> dict[str, str | None]:
    """Long option -> its short form (None when it has none) in the command's option rows."""
    src = (CLI / COMMANDS[command]).read_text(encoding="utf-8")
    start = src.index("static const struct mfb_flag ")
    block = src[start:src.index("\n};", start)]
    return {m.group(1): m.group(4) if m.group(5) == "true" else None for m in ROW.finditer(block)}


def help_text(memfbench: str, command: str) -> str:
    p = subprocess.run([memfbench, command, "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_and_option_table_agree(memfbench: str, command: str) -> None:
    opts = table(command)
    assert opts, f"no getopt table read from {COMMANDS[command]}"
    text = help_text(memfbench, command)
    described = set(re.findall(r"(?<![\w-])--([a-z0-9][a-z0-9-]*)", text))
    internal = INTERNAL.get(command, set())
    assert sorted(set(opts) - described - internal) == [], "accepted but not in --help"
    assert sorted(described - set(opts)) == [], "in --help but not accepted"
    assert sorted(internal & described) == [], "internal options are not for the help"
    for name, short in opts.items():
        shown = re.search(rf"(?m)^\s*-(\w), --{re.escape(name)}\b", text)
        if short and name not in internal:
            assert shown and shown.group(1) == short, f"--{name}: the table's short form is -{short}"
        elif shown:
            assert False, f"--help shows -{shown.group(1)} for --{name}, which the table does not accept"


def test_the_table_reader_sees_every_entry() -> None:
    """The reader is the test's weak point: it must find as many entries as the table has lines
    of the form {"name", ...}."""
    for command, file in COMMANDS.items():
        src = (CLI / file).read_text(encoding="utf-8")
        start = src.index("static const struct mfb_flag ")
        block = src[start:src.index("\n};", start)]
        assert len(table(command)) == block.count('{"'), command

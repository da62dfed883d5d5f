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

BENCH = ROOT / "bench"
# command -> the file holding its option rows
COMMANDS = {"run": "study/options.c", "probe": "cli/cmd_probe.c", "record": "cli/cmd_record.c",
            "merge": "cli/cmd_merge.c", "ab": "cli/cmd_ab.c", "counts": "cli/cmd_counts.c",
            "suite": "cli/cmd_suite.c", "tune": "cli/cmd_tune.c"}
# Options a --processes parent gives its children (processes/processes.c), and counts' replay that
# counts starts under valgrind; a user has no reason to.
INTERNAL = {"run": {"process-index", "code-placement-seed", "timer-hz"}, "counts": {"replay"}}
ROW = re.compile(r'(?:\{|MFB_ROW\()"([a-z0-9-]+)",\s*(no_argument|required_argument|optional_argument),\s*'
                 r"('(.)'|[A-Z_0-9]+),\s*(true|false),")
# The rows every command spells alike (base/flags.h): the macro -> its option and letter.
SHARED = {"MFB_ROW_HELP": ("help", "h"), "MFB_ROW_QUIET(": ("quiet", "q"), "MFB_ROW_OUTPUT(": ("output", "o"),
          "MFB_ROW_SEED(": ("seed", "s"), "MFB_ROW_CPU(": ("cpu", "c"), "MFB_ROW_CACHE(": ("cache", None),
          "MFB_ROW_DEADLINE(": ("deadline", None)}


def rows_block(command: str) -> str:
    src = (BENCH / COMMANDS[command]).read_text(encoding="utf-8")
    start = src.index("static const struct mfb_flag ")
    return src[start:src.index("\n};", start)]


def table(command: str) -> dict[str, str | None]:
    """Long option -> its short form (None when it has none) in the command's option rows."""
    block = rows_block(command)
    rows = {m.group(1): m.group(4) if m.group(5) == "true" else None for m in ROW.finditer(block)}
    rows.update(v for k, v in SHARED.items() if k in block)
    return rows


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
    for command in COMMANDS:
        block = rows_block(command)
        entries = block.count('{"') + block.count('MFB_ROW("') + sum(block.count(k) for k in SHARED)
        assert len(table(command)) == entries, command


def test_sweep_help_prints_its_form_and_the_run_options(memfbench: str) -> None:
    p = subprocess.run([memfbench, "sweep", "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage: memfbench sweep SIZES [run options] -o FILE")
    assert "--processes" in p.stdout and "--sweep" in p.stdout


def test_the_fuzz_dictionary_holds_every_option(memfbench: str) -> None:
    """The options' dictionary is written from the rows at build time (tests/fuzz/options_dict.c)."""
    build = Path(memfbench).resolve().parents[1]
    words = set(re.findall(r'^"(.*)"$', (build / "tests" / "fuzz" / "options.dict").read_text(), re.M))
    assert {f"--{name}" for name in table("run")} <= words
    assert {"auto", "l1", "monotonic", "process", "bandwidth", "at-least", "bcmp"} <= words

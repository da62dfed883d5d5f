"""Issue 51's numbered defects, before and after: each defect's tests (tests/py/test_chassis_defects_*.py
and the subcommand matrix's cases) run against two builds, one row per defect with the result on
each. A build is a meson build folder of a checkout (its bench/memfbench, plugins and shim); the
tests are this checkout's.

    git worktree add /tmp/old 04cd578 && (cd /tmp/old && meson setup build && meson compile -C build)
    /usr/bin/python3 -m tools.defects_table --before /tmp/old/build --after build

A row passes when every test of it passes; a cell that fails gives the first failing test's first
line of failure.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from tools import matrix
from tools.lib import matrix as mx

ROOT = Path(__file__).resolve().parents[1]
BUILD_TESTS = "tests/py/test_chassis_defects_build.py"
AB_TESTS = "tests/py/test_chassis_defects_ab.py"


@dataclass(frozen=True)
class Defect:
    number: int
    seen: str  # what the issue saw, shortened
    tests: tuple[str, ...]  # pytest node ids (FILE::NAME, every parameter) or "matrix:PREFIX"


DEFECTS = (
    Defect(1, "`counts ... -d D/x_size.csv -o D/x_size.csv`: rc 0, the table replaced by JSON",
           (f"{BUILD_TESTS}::test_counts_output_onto_any_of_its_inputs_is_refused", "matrix:counts-onto-")),
    Defect(2, "`counts` under SIGINT/SIGTERM: killed at once, valgrind orphaned, temporaries left",
           ("matrix:counts-stop-",)),
    Defect(3, "SIGINT/SIGTERM during a source variant's compile: build temporaries left, `cc1` running",
           ("matrix:run-stop-compile-", "matrix:sweep-stop-compile-")),
    Defect(4, "`run --pgo` of one source under two spellings: `-Werror=coverage-mismatch`",
           (f"{BUILD_TESTS}::test_pgo_finds_its_build_under_another_spelling_of_the_same_file",)),
    Defect(5, "SIGINT/SIGTERM during `--pgo` training: profile temporaries left, rc 2 'no message'",
           ("matrix:run-stop-training-",)),
    Defect(6, "no bound: `#include \"/dev/zero\"`; a FIFO as the shim's or recorder's count file",
           (f"{BUILD_TESTS}::test_an_include_of_dev_zero_ends_at_the_builds_bound",
            f"{AB_TESTS}::test_a_fifo_for_the_count_file_is_one_line_and_leaves_nothing_running",
            f"{AB_TESTS}::test_the_shim_never_waits_in_the_exit_on_a_fifo",
            f"{AB_TESTS}::test_the_recorder_never_waits_in_the_exit_on_a_fifo")),
    Defect(7, "`MEMFBENCH_EXEC_WRAPPER=/bin/true ... ab`: rc 0, the check taken as verified",
           (f"{AB_TESTS}::test_an_exec_wrapper_that_never_runs_memfbench_is_refused",)),
    Defect(8, "`ab` of a time-bounded program refused at random on a loaded machine (call counts)",
           (f"{AB_TESTS}::test_a_time_bounded_program_passes_on_a_loaded_cpu",
            f"{AB_TESTS}::test_a_variant_that_exits_inside_a_call_is_refused_by_name",
            f"{AB_TESTS}::test_a_signal_handlers_exit_during_a_variants_call_is_the_programs")),
    Defect(9, "`counts -v ',,'`, `LIB.so:` after 79 s of valgrind, `--replay` rc 0, checks after the build",
           (f"{BUILD_TESTS}::test_counts_refuses_a_bad_plugin_before_valgrind_runs",
            f"{BUILD_TESTS}::test_counts_replay_is_internal",
            f"{BUILD_TESTS}::test_a_bad_request_is_refused_before_anything_is_built")),
    Defect(10, "legal paths refused: `D/$(touch X);x.c`; a newline in a folder name gives two lines",
           (f"{BUILD_TESTS}::test_a_source_in_a_folder_named_like_shell_code_builds_runs_and_is_found_again",
            f"{BUILD_TESTS}::test_a_newline_in_a_folder_name_builds_and_keeps_every_message_one_line")),
    Defect(11, "SIGKILLed `ab`'s replay kept; newline names; replay path a folder; 64 MiB trace; "
               "`--program-output` unbounded; causeless messages; a plugin taking a built-in's name",
           (f"{AB_TESTS}::test_a_killed_ab_leaves_no_visible_replay_and_the_next_run_sweeps_its_temporaries",
            f"{AB_TESTS}::test_report_on_a_distribution_name_holding_a_newline_and_markdown",
            f"{AB_TESTS}::test_a_missing_program_whose_name_holds_a_newline_is_one_line",
            f"{AB_TESTS}::test_a_folder_where_a_replay_goes_is_one_line_before_the_runs",
            f"{BUILD_TESTS}::test_ab_refuses_a_folder_where_its_replay_file_goes",
            f"{AB_TESTS}::test_a_trace_of_four_64_mib_calls_runs_in_windows_of_one_call",
            f"{AB_TESTS}::test_program_output_never_puts_more_than_its_bound_on_the_disk",
            f"{AB_TESTS}::test_program_output_keeps_the_first_and_the_last_half_mib_exactly",
            f"{BUILD_TESTS}::test_a_binary_named_x_c_is_named_for_what_it_is",
            f"{BUILD_TESTS}::test_a_compiler_that_writes_no_object_is_named_without_a_temporary",
            f"{BUILD_TESTS}::test_a_plugin_may_not_take_a_builtins_name")),
)


def build_env(build: Path) -> dict[str, str]:
    """The environment this build's meson gives its pytest test (tests/meson.build), read back with
    `meson introspect --tests`, so the variables are declared in one place."""
    p = subprocess.run(["meson", "introspect", str(build), "--tests"], capture_output=True, text=True)
    tests = json.loads(p.stdout) if p.returncode == 0 else []
    env = next((t["env"] for t in tests if t["name"] == "pytest"), None)
    if env is None:
        raise SystemExit(f"defects_table: {build}: meson introspect lists no pytest test (exit {p.returncode})")
    return {**os.environ, **env}


def pytest_results(build: Path) -> dict[str, str]:
    """Each test's node id (its parameters included) and "" when it passed, else its first line of failure."""
    files = sorted({t.split("::")[0] for d in DEFECTS for t in d.tests if not t.startswith("matrix:")})
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                        *files], cwd=ROOT, env=build_env(build), capture_output=True, text=True)
        out = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            module = case.get("classname", "").replace(".", "/")
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            why = "" if bad is None else (bad.get("message") or "failed").splitlines()[0][:110]
            out[f"{module}.py::{case.get('name', '')}"] = why
    return out


def matrix_results(build: Path, prefixes: list[str]) -> dict[str, str]:
    """The matrix cases of these prefixes on this build's binary (tools/matrix.py's runner; the
    subcommands from the matrix's table, as a build before `help --commands` cannot list them):
    case id and "" or what failed."""
    memfbench = str((build / "bench" / "memfbench").resolve())
    outcomes = matrix.run_all(memfbench, jobs=2, only=prefixes, listed=list(mx.COMMANDS))
    return {f"matrix:{o.case.id}": "" if o.passed else o.problems[0][:110] for o in outcomes}


def cell(defect: Defect, results: dict[str, str]) -> str:
    """pass (N of N), or the first failure: the count and its message."""
    mine = {k: v for k, v in results.items()
            if any(k == t or k.startswith(t + "[") or (t.startswith("matrix:") and k.startswith(t))
                   for t in defect.tests)}
    if not mine:
        return "not run"
    bad = [(k, v) for k, v in mine.items() if v]
    if not bad:
        return f"pass ({len(mine)} of {len(mine)})"
    name, why = bad[0]
    return f"**fail** ({len(bad)} of {len(mine)}): `{name.split('::')[-1]}`: {why.replace('|', '/')}"


def table(before: dict[str, str], after: dict[str, str]) -> str:
    lines = ["| # | what the issue saw | before | after |", "|---|---|---|---|"]
    lines += [f"| {d.number} | {d.seen} | {cell(d, before)} | {cell(d, after)} |" for d in DEFECTS]
    return "\n".join(lines) + "\n"


def results(build: Path) -> dict[str, str]:
    prefixes = [t[len("matrix:"):] for d in DEFECTS for t in d.tests if t.startswith("matrix:")]
    return {**pytest_results(build), **matrix_results(build, prefixes)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="/usr/bin/python3 -m tools.defects_table", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the build folder of the checkout before the change")
    ap.add_argument("--after", type=Path, default=ROOT / "build", help="the build folder after (default: build)")
    a = ap.parse_args(argv)
    for b in (a.before, a.after):
        if not (b / "bench" / "memfbench").is_file():
            print(f"defects_table: {b}: no bench/memfbench in that build folder", file=sys.stderr)
            return 2
    print(table(results(a.before), results(a.after)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A catalogue of user errors for the analysis command line. Each must give exit status 2 and one
line on stderr, "analysis: ...", naming the file or option; no traceback; and leave its folder as it
was: no output file, no temporary file, input files byte for byte unchanged.

Every case gets its own folder (with a copy of one valid result file, and an empty folder the
command runs in); each command is a process of its own (analysis_runner)."""
from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

from analysis_runner import analysis
from conftest import GEOMETRY, ROOT, binary

GOLDEN = ROOT / "tests" / "data" / "golden-run.json"
# A path of more than PATH_MAX (4096) characters: refused even to root.
TOO_LONG = "/".join(["x" * 200] * 25)

Setup = Callable[[Path, dict[str, Any]], tuple[list[str], str]]
CASES: dict[str, Setup] = {}


def case(fn: Setup) -> Setup:
    CASES[fn.__name__] = fn
    return fn


def write(d: Path, name: str, content: str | bytes) -> str:
    p = d / name
    if isinstance(content, str):
        content = content.encode()
    p.write_bytes(content)
    return str(p)


def mutated(d: Path, doc: dict[str, Any], change: Callable[[dict[str, Any]], Any], name: str = "bad.json") -> str:
    """A copy of the valid document with one change, as a file."""
    doc = copy.deepcopy(doc)
    change(doc)
    return write(d, name, json.dumps(doc))


def good(d: Path) -> str:
    return str(d / "good.json")


def set_variant_names(doc: dict[str, Any], names: list[str]) -> None:
    for v, n in zip(doc["variants"], names):
        v["name"] = n
    doc["config"]["variants"] = names
    doc["config"]["baseline"] = names[0]


# --- outputs that cannot be written -------------------------------------------------------------

@case
def export_o_in_missing_folder(d, doc):
    out = str(d / "nodir" / "out.csv")
    return ["export", good(d), "--format", "csv", "-o", out], out


@case
def export_o_under_a_regular_file(d, doc):
    out = str(d / "good.json" / "out.json")
    return ["export", good(d), "--format", "gbench", "-o", out], out


@case
def export_o_is_a_folder(d, doc):
    (d / "existing").mkdir()
    return ["export", good(d), "--format", "csv", "-o", str(d / "existing")], f"-o {d / 'existing'}"


@case
def export_o_empty(d, doc):
    return ["export", good(d), "--format", "csv", "-o", ""], "-o ''"


@case
def export_o_too_long(d, doc):
    return ["export", good(d), "--format", "csv", "-o", str(d / TOO_LONG)], f"-o {d}"


@case
def export_o_trailing_slash(d, doc):
    return ["export", good(d), "--format", "csv", "-o", f"{d}/newdir/"], "-o"


@case
def export_o_is_the_input(d, doc):
    return ["export", good(d), "--format", "gbench", "-o", good(d)], f"-o {good(d)}"


@case
def diff_json_is_the_after_file(d, doc):
    after = write(d, "after.json", (d / "good.json").read_bytes())
    return ["diff", good(d), after, "--json", after], f"--json {after}"


@case
def probe_csv_is_the_input(d, doc):  # the input rule covers every subcommand's outputs (commands/common.py inputs_of)
    probe = write(d, "p_latency.csv", "{}")
    return ["probe", probe, "--csv", str(d / "p")], "is an input file"


@case
def sweep_csv_and_plot_are_one_file(d, doc):
    return ["sweep", good(d), "--csv", str(d / "s.png"), "--plot", str(d / "s")], "the same file as"


@case
def compare_json_in_missing_folder(d, doc):
    out = str(d / "nodir" / "c.json")
    return ["compare", good(d), "--json", out], f"--json {out}"


@case
def compare_json_under_a_regular_file(d, doc):
    out = str(d / "good.json" / "c.json")
    return ["compare", good(d), "--json", out], f"--json {out}"


@case
def compare_json_is_a_folder(d, doc):
    return ["compare", good(d), "--json", str(d)], f"--json {d}"


@case
def compare_json_empty(d, doc):
    return ["compare", good(d), "--json", ""], "--json"


@case
def gate_json_in_missing_folder(d, doc):
    out = str(d / "nodir" / "g.json")
    return ["gate", good(d), "--fail-if-slower", "5", "--json", out], f"--json {out}"


@case
def gate_json_too_long(d, doc):
    return ["gate", good(d), "--fail-if-slower", "5", "--json", str(d / TOO_LONG)], f"--json {d}"


@case
def gate_json_is_the_input(d, doc):
    return ["gate", good(d), "--fail-if-slower", "5", "--json", good(d)], f"--json {good(d)}"


@case
def gate_default_verdict_is_a_folder(d, doc):
    (d / "good.verdict.json").mkdir()  # where the verdict goes without --json
    return ["gate", good(d), "--fail-if-slower", "5"], str(d / "good.verdict.json")


@case
def report_o_under_a_regular_file(d, doc):
    out = str(d / "good.json" / "rep")
    return ["report", good(d), "-o", out], f"-o {out}"


@case
def report_o_is_a_regular_file(d, doc):
    return ["report", good(d), "-o", good(d)], f"-o {good(d)}"


@case
def report_o_empty(d, doc):
    return ["report", good(d), "-o", ""], "-o ''"


@case
def report_o_in_missing_folder(d, doc):
    out = str(d / "nodir" / "rep")
    return ["report", good(d), "-o", out], f"-o {out}"


@case
def summarize_report_under_a_regular_file(d, doc):
    out = str(d / "good.json" / "rep")
    return ["summarize", good(d), "--report", out], f"--report {out}"


# --- result files that cannot be used ----------------------------------------------------------

@case
def nested_100000_arrays(d, doc):
    return ["summarize", write(d, "deep.json", "[" * 100_000 + "]" * 100_000)], "deep.json"


@case
def nested_100000_objects(d, doc):
    return ["compare", write(d, "deep.json", '{"a":' * 100_000 + "1" + "}" * 100_000)], "deep.json"


@case
def nested_200_levels_inside_a_valid_file(d, doc):
    return ["gate", mutated(d, doc, lambda x: x.__setitem__("extensions", json.loads("[" * 200 + "]" * 200))),
            "--fail-if-slower", "5"], "bad.json"


@case
def integer_of_5000_digits(d, doc):
    return ["export", write(d, "big.json", "1" + "0" * 5000), "--format", "csv", "-o", str(d / "o.csv")], "big.json"


@case
def integer_of_5000_digits_in_the_samples(d, doc):
    text = json.dumps({**doc, "samples": {**doc["samples"], "ns": ["HUGE", *doc["samples"]["ns"][1:]]}})
    return ["summarize", write(d, "big.json", text.replace('"HUGE"', "1" + "0" * 5000))], "big.json"


@case
def integer_beyond_64_bits(d, doc):
    return ["compare", mutated(d, doc, lambda x: x["samples"]["ns"].__setitem__(0, 10 ** 30))], "bad.json"


@case
def ticks_beyond_int64(d, doc):
    return ["gate", mutated(d, doc, lambda x: x["samples"].__setitem__("ticks", [2 ** 63] * x["samples"]["count"])),
            "--fail-if-slower", "5"], "bad.json"


@case
def nan_in_the_samples(d, doc):
    return ["summarize", mutated(d, doc, lambda x: x["samples"]["ns"].__setitem__(0, float("nan")))], "bad.json"


@case
def infinite_number_in_the_context(d, doc):
    text = json.dumps({**doc, "timer": {**doc["timer"], "hz": "INF"}}).replace('"INF"', "1e999")
    return ["export", write(d, "inf.json", text), "--format", "gbench", "-o", str(d / "o.json")], "inf.json"


@case
def invalid_utf8(d, doc):
    raw = (d / "good.json").read_bytes()
    return ["summarize", write(d, "latin.json", raw[:200] + b"\xff\xfe" + raw[200:])], "latin.json"


@case
def lone_surrogate_in_a_name(d, doc):
    return ["compare", mutated(d, doc, lambda x: set_variant_names(x, ["libc", "\ud800"]))], "bad.json"


@case
def utf8_byte_order_mark(d, doc):
    return ["summarize", write(d, "bom.json", b"\xef\xbb\xbf" + (d / "good.json").read_bytes())], "bom.json"


@case
def truncated_file(d, doc):
    raw = (d / "good.json").read_bytes()
    return ["gate", write(d, "cut.json", raw[: len(raw) // 2]), "--fail-if-slower", "5"], "cut.json"


@case
def empty_file(d, doc):
    return ["export", write(d, "empty.json", ""), "--format", "csv", "-o", str(d / "o.csv")], "empty.json"


@case
def input_is_a_folder(d, doc):
    (d / "folder.json").mkdir()
    return ["summarize", str(d / "folder.json")], "folder.json"


@case
def missing_file(d, doc):
    return ["compare", str(d / "nope.json")], "nope.json"


@case
def json_array_not_object(d, doc):
    return ["summarize", write(d, "list.json", "[1, 2]")], "list.json"


@case
def zero_samples(d, doc):
    def empty(x: dict[str, Any]) -> None:
        x["samples"] = {k: (0 if k == "count" else []) for k in x["samples"]}
    return ["gate", mutated(d, doc, empty), "--fail-if-slower", "5"], "bad.json"


@case
def batch_of_zero_calls(d, doc):
    return ["summarize", mutated(d, doc, lambda x: x["samples"]["calls"].__setitem__(0, 0))], "bad.json"


@case
def processes_block_not_a_list(d, doc):
    return ["export", mutated(d, doc, lambda x: x.__setitem__("processes", 0)), "--format", "csv",
            "-o", str(d / "o.csv")], "bad.json"


@case
def duplicate_variant_names(d, doc):
    return ["compare", mutated(d, doc, lambda x: set_variant_names(x, ["same", "same"]))], "bad.json"


@case
def same_file_twice(d, doc):
    return ["compare", good(d), str(d / ".." / d.name / "good.json")], "good.json"


@case
def endless_device(d, doc):
    return ["summarize", "/dev/zero"], "/dev/zero"  # refused from its first bytes, not read to the end


@case
def file_name_with_a_newline(d, doc):
    return ["summarize", str(d / "new\nline.json")], "new\\nline.json"


# --- option values ------------------------------------------------------------------------------

@case
def fail_if_slower_nan(d, doc):
    return ["gate", good(d), "--fail-if-slower", "nan"], "--fail-if-slower"


@case
def fail_if_slower_inf(d, doc):
    return ["gate", good(d), "--fail-if-slower", "inf"], "--fail-if-slower"


@case
def fail_if_slower_negative(d, doc):
    return ["gate", good(d), "--fail-if-slower", "-1"], "--fail-if-slower"


@case
def margin_nan(d, doc):
    return ["compare", good(d), "--margin", "nan"], "--margin"


@case
def margin_negative(d, doc):
    return ["gate", good(d), "--fail-if-slower", "5", "--margin", "-2"], "--margin"


@case
def level_nan(d, doc):
    return ["summarize", good(d), "--level", "nan"], "--level"


@case
def resamples_huge(d, doc):
    return ["summarize", good(d), "--resamples", "1" + "0" * 30], "--resamples"


@case
def seed_negative(d, doc):
    return ["compare", good(d), "--seed", "-1"], "--seed"


@case
def baseline_not_in_the_file(d, doc):
    return ["compare", good(d), "--baseline", "turbo"], "'turbo'"


@case
def baseline_empty(d, doc):
    return ["gate", good(d), "--fail-if-slower", "5", "--baseline", ""], "--baseline"


@case
def margin_not_a_number(d, doc):
    return ["compare", good(d), "--margin", "wide"], "--margin"


@case
def missing_required_option(d, doc):
    return ["gate", good(d)], "--fail-if-slower"


# --- running the catalogue ---------------------------------------------------------------------

def tree(d: Path) -> dict[str, bytes | None]:
    """Every entry under d: a file's bytes, None for a folder."""
    out: dict[str, bytes | None] = {}
    for p in sorted(d.rglob("*")):
        out[str(p.relative_to(d))] = None if p.is_dir() else p.read_bytes()
    return out


def run_case(name: str, root: Path, valid: bytes, doc: dict[str, Any]) -> dict[str, Any]:
    d = root / name
    (d / "cwd").mkdir(parents=True)  # the command runs here: a relative or empty path writes nothing
    (d / "good.json").write_bytes(valid)
    args, fragment = CASES[name](d, doc)
    before = tree(d)
    p = analysis(*args, cwd=d / "cwd", timeout=120)
    return {"proc": p, "fragment": fragment, "before": before, "after": tree(d), "valid": valid,
            "good_after": (d / "good.json").read_bytes()}


@pytest.fixture(scope="module")
def valid_run(tmp_path_factory) -> Path:
    """A small fresh result file (3 processes, 2 variants); the golden file where no binary is built."""
    try:
        memfbench = binary()
    except pytest.skip.Exception:
        return GOLDEN
    out = tmp_path_factory.mktemp("valid") / "x.json"
    # the cache geometry given: a VM claiming a socket-wide LLC would fill a 2 GiB arena per process
    subprocess.run([memfbench, "run", "-d", "fixed:64", "-v", "libc", "-v", "bytes", "--rounds", "8",
                    "--warmup-rounds", "2", "--processes", "3", "-q", *GEOMETRY, "-o", str(out)], check=True,
                   timeout=120)
    return out


@pytest.fixture(scope="module")
def outcomes(valid_run, tmp_path_factory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("catalogue")
    valid = valid_run.read_bytes()
    doc = json.loads(valid)
    return {name: run_case(name, root, valid, doc) for name in CASES}


def test_catalogue_is_large():
    assert len(CASES) >= 25


@pytest.mark.parametrize("name", list(CASES))
def test_user_error(outcomes, name):
    o = outcomes[name]
    p = o["proc"]
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("analysis: "), lines[0]
    assert o["fragment"] in lines[0], (o["fragment"], lines[0])
    assert o["good_after"] == o["valid"], "the valid input file was modified"
    assert o["after"] == o["before"], (f"files changed: {sorted(set(o['after']) ^ set(o['before']))} or their "
                                       "contents (an output, a temporary file, or a modified input)")

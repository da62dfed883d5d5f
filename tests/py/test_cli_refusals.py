"""Command-line values that were taken without a word and did something else than they seem to
(issue 42, case 15): --by-class edges that cut nothing (0 alone, 64 MiB or above), a sweep size
given twice, and a seed with a leading zero (ten here, eight to C's base-0 parsers). Each is
refused before anything runs: exit 2, one line naming the option, no file. Beside each, the values
next to it that stay accepted, and what they mean in the result file."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

# If a case were wrongly accepted, it still ends quickly.
QUICK = ["--rounds", "2", "--warmup-rounds", "1", "--processes", "1", "--allow-single-process", "-q",
         "--cache", "32K:512K:32M"]


def refused(memfbench: str, tmp_path: Path, args: list[str], *fragments: str) -> None:
    out = tmp_path / "out.json"
    p = subprocess.run([memfbench, *args, *QUICK, "-o", str(out)], capture_output=True, text=True, timeout=120)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1 and p.stdout == "", p.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []


def accepted(memfbench: str, tmp_path: Path, args: list[str]) -> dict:
    out = tmp_path / "out.json"
    p = subprocess.run([memfbench, *args, *QUICK, "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("edges,fragment", [
    ("0", "an edge at 0 alone sets apart only the calls of size 0"),
    ("00", "an edge at 0 alone"),
    ("67108864", "edge 67108864 leaves no size above it"),
    ("64M", "edge 67108864 leaves no size above it"),
    ("0,16,67108864", "edge 67108864 leaves no size above it"),
])
def test_by_class_edges_that_cut_nothing(memfbench: str, tmp_path: Path, edges: str, fragment: str) -> None:
    """An edge is the largest size of its class; no call is larger than 64 MiB, so an edge there
    leaves its upper class empty in every study, and 0 alone sets apart only the calls that move
    no byte. Both used to run as if they were classes."""
    refused(memfbench, tmp_path, ["run", "-d", "fixed:64", f"--by-class={edges}"], "--by-class", fragment)


def test_by_class_edges_next_to_those_stay_accepted(memfbench: str, tmp_path: Path) -> None:
    """0 may open a list (as the default edges do), and the last edge may be one byte short of 64 MiB."""
    doc = accepted(memfbench, tmp_path, ["run", "-d", "uniform:0-100", "--by-class=0,16,67108863"])
    assert doc["by_class"]["edges"] == [0, 16, 67108863]
    # the classes with calls (the one above 67108863 has none): each edge its class's top
    assert [(c["lo"], c["hi"]) for c in doc["by_class"]["classes"]] == [(0, 0), (1, 16), (17, 67108863)]


@pytest.mark.parametrize("sizes,item,size", [
    ("1,1,1", "'1'", "size 1 again"),
    ("64,128,128,512", "'128'", "size 128 again"),
    ("1-16,pow2:1-64", "'pow2:1-64'", "size 1 again"),
    ("0-64:8,48", "'48'", "size 48 again"),
])
def test_a_sweep_size_given_twice(memfbench: str, tmp_path: Path, sizes: str, item: str, size: str) -> None:
    """Each size is one point: a size given twice (a typo for another point, or overlapping ranges)
    used to be dropped without a word, timing fewer points than were written."""
    refused(memfbench, tmp_path, ["sweep", sizes], item, size, "give it once")
    refused(memfbench, tmp_path, ["run", "--sweep", sizes], item, size)


def test_sweep_sizes_in_any_order_are_one_set(memfbench: str, tmp_path: Path) -> None:
    """The points are timed interleaved in every round, so their order is free: kept sorted."""
    doc = accepted(memfbench, tmp_path, ["sweep", "64,8,pow2:16-32"])
    assert doc["sweep"]["sizes"] == [8, 16, 32, 64]


@pytest.mark.parametrize("command", [["run", "-d", "fixed:64"], ["sweep", "64"], ["probe", "--quick"],
                                     ["ab", "-v", "libc"]])
@pytest.mark.parametrize("seed", ["08", "010", "00", "0018446744073709551615"])
def test_a_seed_with_a_leading_zero(memfbench: str, tmp_path: Path, command: list[str], seed: str) -> None:
    """'010' was ten here and is eight to strtoull(s, NULL, 0), printf's %i and the shell's
    $((010)); '08' was eight here and an error there. Every command that takes --seed reads it
    with the one parser, so each refuses them alike."""
    out = tmp_path / "out.json"
    args = [memfbench, *command, "--seed", seed, "-o", str(out)]
    if command[0] == "ab":
        args += ["--", "true"]
    elif command[0] != "probe":
        args[len(command) + 1:len(command) + 1] = QUICK
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert "--seed" in lines[0] and f"'{seed}'" in lines[0], lines[0]
    assert list(tmp_path.iterdir()) == []


def test_the_run_names_the_forms_a_seed_takes(memfbench: str, tmp_path: Path) -> None:
    refused(memfbench, tmp_path, ["run", "-d", "fixed:64", "--seed", "08"], "--seed: '08'",
            "decimal without a leading zero, or hex with 0x")
    refused(memfbench, tmp_path, ["run", "-d", "fixed:64", "--code-placement-seed", "010"],
            "--code-placement-seed: '010'", "decimal without a leading zero")


@pytest.mark.parametrize("seed,value", [("0", "0"), ("8", "8"), ("0x10", "16"), ("0x0010", "16"),
                                        ("18446744073709551615", "18446744073709551615")])
def test_seeds_that_read_one_way_only(memfbench: str, tmp_path: Path, seed: str, value: str) -> None:
    doc = accepted(memfbench, tmp_path, ["run", "-d", "fixed:64", "--seed", seed])
    assert doc["seeds"]["master"] == value

"""Regression tests of the defects issue 8 fixed on the way: seeds parsed as octal, the ASLR-free
perf warning about counters nothing records, a non-power-of-two call array, a fixed warm-up
longer than the detection buffer, unchecked allocation failures, dead copies in the binary."""
from __future__ import annotations

import resource
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import AA_OF_LIBC, QUICK, needs_plain_build

FAST = ["-d", "fixed:64", "-v", "libc", "-v", AA_OF_LIBC]


@pytest.mark.parametrize("given, recorded", [("10", "10"), ("0", "0"), ("0x10", "16"), ("0XFF", "255")])
def test_seeds_are_decimal_or_hex_never_octal(run, given: str, recorded: str) -> None:
    r = run(*FAST, *QUICK, "--seed", given)
    assert r.code == 0, r.stderr
    assert r.doc["seeds"]["master"] == recorded


# a leading zero is refused, not read as decimal: a seed copied into a tool that reads 010 as octal
# would be another seed under the same text (issue 42)
@pytest.mark.parametrize("bad", ["-1", "0x", "1e3", "0o7", "18446744073709551616", "010", "08"])
def test_bad_seeds_get_one_error_line(run, bad: str) -> None:
    r = run(*FAST, *QUICK, "--seed", bad)
    assert r.code == 2 and len(r.stderr_lines) == 1 and "--seed" in r.stderr and r.out is not None
    assert not r.out.exists()


def test_every_seed_stream_is_recorded_and_they_differ(run) -> None:
    seeds = run(*FAST, *QUICK, "--seed", "7").doc["seeds"]
    streams = {k: v for k, v in seeds.items() if k not in ("master", "source")}
    assert {"params", "order", "shift", "verify", "selfcheck", "calibrate", "overhead", "arena"} <= set(streams)
    assert len(set(streams.values())) == len(streams)


def test_no_warning_about_perf_counters_nothing_uses(run) -> None:
    doc = run(*FAST, *QUICK).doc
    assert "perf" not in [w["code"] for w in doc["status"]["warnings"]]
    assert isinstance(doc["host"]["perf_counters"]["cycles_available"], bool)  # still recorded


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def test_call_arrays_are_a_power_of_two_even_for_long_calls(run) -> None:
    doc = run("-d", "fixed:1048576", "-v", "libc", "--rounds", "2", "--warmup-rounds", "0", "--processes", "1", "-q").doc
    assert "long calls" in doc["batch"]["rule"]
    assert doc["batch"]["calls_per_pass"] < doc["workset"]["params_per_array"]
    assert is_pow2(doc["batch"]["calls_per_pass"]) and is_pow2(doc["workset"]["params_per_array"])


def test_fixed_warmup_beyond_the_detection_cap(run) -> None:
    """--warmup-rounds above the detected warm-up's 2000-round buffer once wrote past it."""
    r = run(*FAST, "-p", "l1", "--warmup-rounds", "2100", "--rounds", "2", "-q")
    assert r.code == 0, r.stderr
    assert r.doc["rounds"]["warmup"] == 2100 and r.doc["rounds"]["warmup_detail"]["mode"] == "fixed"


@needs_plain_build  # ASan reserves terabytes of shadow: it cannot start under a 100 MiB limit
def test_out_of_memory_is_one_error_line(memfbench: str, tmp_path: Path) -> None:
    """With 100 MiB of address space the buffers (2 x 64 MiB) cannot be mapped: one line, exit 1, no file."""
    out = tmp_path / "oom.json"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (100 << 20, 100 << 20))

    proc = subprocess.run([memfbench, "run", "-v", "libc", "-p", "dram", "-q", "-o", str(out)], capture_output=True,
                          text=True, preexec_fn=limit, timeout=60)
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "memfbench:" in lines[0] and ("cannot map" in lines[0] or "out of memory" in lines[0])
    assert not out.exists() and not list(tmp_path.glob(".oom.json*"))


def test_binary_holds_no_dead_copies(memfbench: str) -> None:
    """A/A copies exist of measured code only: no copy of noop or of the CPU probe."""
    nm = shutil.which("nm")
    if not nm:
        pytest.skip("nm not installed")
    symbols = subprocess.run([nm, memfbench], capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1] for line in symbols.splitlines() if line.strip()}
    assert "mfb_memcpy_bytes_copy" in names  # the copies that are used are there
    dead = [n for n in names if n.endswith("_copy") and ("noop" in n or "has_avx2" in n)]
    assert dead == []

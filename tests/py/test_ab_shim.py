"""The program-level A/B shim (bench/ab/shim/shim.c): every entry point it interposes goes where it should,
counted through a program that calls each a known number of times (tests/c/ab_calls.c)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, needs_plain_preload

BUILD = Path(os.environ.get("MEMFBENCH_BUILD") or ROOT / "build")
SHIM = BUILD / "bench" / "ab" / "shim" / "libmemfbench-ab.so"
BUILTINS = BUILD / "bench" / "ab" / "shim" / "libmemfbench-builtins.so"
PROGRAM = BUILD / "tests" / "c" / "ab_calls"

# ab_calls.c: each entry point 7 times, memcmp and bcmp twice per turn
CALLS = {"memcpy": 7, "memmove": 7, "mempcpy": 7, "__mempcpy": 7, "memset": 7, "memcmp": 14, "bcmp": 14,
         "__memcpy_chk": 7, "__memmove_chk": 7, "__mempcpy_chk": 7, "__memset_chk": 7, "wmemcpy": 7}
# the entry points of each function: mempcpy is memcpy returning the end; the fortified ones are
# their function after the bound check; wmemcpy is memcpy of the characters' bytes (the recorder
# counts it as one)
FAMILY = {"memcpy": {"memcpy", "mempcpy", "__mempcpy", "__memcpy_chk", "__mempcpy_chk", "wmemcpy"},
          "memmove": {"memmove", "__memmove_chk"}, "memset": {"memset", "__memset_chk"},
          "memcmp": {"memcmp"}, "bcmp": {"bcmp"}}
BUILTIN = {"memcpy": "mfb_memcpy_sse2", "memmove": "mfb_memmove_bytes", "memset": "mfb_memset_bytes",
           "memcmp": "mfb_memcmp_bytes", "bcmp": "mfb_bcmp_bytes"}

pytestmark = pytest.mark.skipif(not (SHIM.exists() and BUILTINS.exists() and PROGRAM.exists()),
                                reason="the ab shim, the built-ins library or ab_calls not built")
pytestmark = [pytestmark, needs_plain_preload]


def shimmed(tmp_path: Path, variant: str | None, function: str | None = None,
            program: list[str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict[str, tuple[int, int]]]:
    counts = tmp_path / "counts.txt"
    counts.unlink(missing_ok=True)
    env = {**os.environ, "LD_PRELOAD": str(SHIM), "MEMFBENCH_AB_COUNT": str(counts)}
    for k, v in (("MEMFBENCH_AB_VARIANT", variant), ("MEMFBENCH_AB_FUNCTION", function)):
        env.pop(k, None)
        if v is not None:
            env[k] = v
    p = subprocess.run(program or [str(PROGRAM)], capture_output=True, text=True, env=env, timeout=60)
    table = {}
    if counts.exists():
        for line in counts.read_text(encoding="utf-8").splitlines():
            name, routed, libc = line.split()
            table[name] = (int(routed), int(libc))
    return p, table


@pytest.mark.parametrize("variant", [None, "libc"])
def test_without_a_variant_every_call_goes_to_the_c_library(tmp_path, variant) -> None:
    p, table = shimmed(tmp_path, variant)
    assert p.returncode == 0, p.stderr
    assert table == {e: (0, n) for e, n in CALLS.items()}


@pytest.mark.parametrize("function", sorted(FAMILY))
def test_a_builtin_gets_every_entry_point_of_its_function_and_no_other(tmp_path, function) -> None:
    p, table = shimmed(tmp_path, f"{BUILTINS}:{BUILTIN[function]}", None if function == "memcpy" else function)
    assert p.returncode == 0, p.stderr  # and every result right (ab_calls checks them)
    assert table == {e: ((n, 0) if e in FAMILY[function] else (0, n)) for e, n in CALLS.items()}


def test_a_plugin_is_routed_as_a_builtin_is(tmp_path) -> None:
    plugin = BUILD / "examples" / "libmemcpy_erms.so"
    p, table = shimmed(tmp_path, f"{plugin}:erms_memcpy")
    assert p.returncode == 0, p.stderr
    assert all(table[e] == (CALLS[e], 0) for e in FAMILY["memcpy"])


def test_a_variant_that_calls_memcpy_itself_gets_the_c_library(tmp_path) -> None:
    """The known-cost wrapper calls memcpy inside: routed to itself it would never return."""
    p, table = shimmed(tmp_path, f"{BUILTINS}:mfb_memcpy_twice")
    assert p.returncode == 0, p.stderr
    assert table["memcpy"] == (7, 0)


def test_a_variant_library_the_program_already_holds_is_refused(tmp_path) -> None:
    """Already loaded (here preloaded beside the shim), the library keeps its bindings: a wrapper in
    it would call the shim, which calls it, for ever. One line and 127 instead."""
    env = {**os.environ, "LD_PRELOAD": f"{SHIM} {BUILTINS}", "MEMFBENCH_AB_VARIANT": f"{BUILTINS}:mfb_memcpy_twice"}
    p = subprocess.run([str(PROGRAM)], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 127 and len(p.stderr.strip().splitlines()) == 1 and "already loaded" in p.stderr


@pytest.mark.parametrize("variant,function,problem", [
    ("/nonexistent/libx.so:f", None, "cannot load the variant: /nonexistent/libx.so"),
    ("BUILTINS:no_such_symbol", None, "has no such symbol: no_such_symbol"),
    ("no-colon", None, "is not PATH:SYMBOL"),
    ("BUILTINS:mfb_memset_bytes", "memzero", "MEMFBENCH_AB_FUNCTION is not memcpy"),
])
def test_a_variant_that_cannot_be_routed_stops_the_program_before_it_runs(tmp_path, variant, function,
                                                                          problem) -> None:
    p, table = shimmed(tmp_path, variant.replace("BUILTINS", str(BUILTINS)), function)
    assert p.returncode == 127 and table == {}
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memfbench ab shim: ") and problem in lines[0]

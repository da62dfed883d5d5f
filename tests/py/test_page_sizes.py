"""16 and 64 KiB pages (common on Arm servers) simulated on this kernel through MEMFBENCH_PAGE_SIZE:
the file says which page was used and that it was simulated, every window starts on a page, the
large calls' shifts are whole pages inside their window, and every variant still verifies. The
cache geometry is given (--cache), so the plan does not depend on this machine's caches."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from analysis.io import schema
from conftest import GEOMETRY

# The shipped fleet tables: small and large calls, so both windows are in use; memset has one buffer.
CASES = [("memcpy", "fleetbench/Memcpy_Fleet"), ("memset", "fleetbench/Memset_Fleet")]
SHORT = ["--rounds", "2", "--warmup-rounds", "1", "--processes", "1", "-q"]


def run_with_page(memfbench: str, tmp_path: Path, page: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("MEMFBENCH_PAGE_SIZE", None)
    if page is not None:
        env["MEMFBENCH_PAGE_SIZE"] = page
    return subprocess.run([memfbench, "run", *args], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)


@pytest.mark.parametrize("page", [4096, 16384, 65536])
@pytest.mark.parametrize("func,dist", CASES)
def test_simulated_page_lays_out_whole_pages(memfbench, tmp_path, page, func, dist):
    out = tmp_path / "out.json"
    r = run_with_page(memfbench, tmp_path, str(page), "-f", func, "-d", dist, *SHORT, *GEOMETRY, "-o", str(out))
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert schema.validation_errors(d) == []
    ws = d["workset"]
    assert ws["page_size"]["bytes"] == page
    assert ws["page_size"]["source"] == "simulated (MEMFBENCH_PAGE_SIZE)"
    assert ws["page_size"]["kernel_bytes"] <= page
    small, large = ws["small_window"], ws["large_window"]
    assert small is not None and large is not None
    buffers = ws["buffers"]
    for w in (small, large):
        assert len(w["arena_offsets"]) == buffers
        assert all(o % page == 0 for o in w["arena_offsets"])
    assert large["bytes_per_buffer"] % page == 0 and large["slice_bytes"] % page == 0
    # every shift is a whole page below shift_places pages, and the slice stays inside its window
    assert large["shift_granularity"] == page
    places = large["shift_places"]
    assert places >= 2 and places & (places - 1) == 0
    assert (places - 1) * page + large["slice_bytes"] <= large["bytes_per_buffer"]
    # every variant verified on every call shape before it was timed
    assert d["verification"]["complete"] is True
    assert all(v["verified_calls"] > 0 for v in d["variants"])


def test_kernel_page_is_echoed_unsimulated(memfbench, tmp_path):
    out = tmp_path / "out.json"
    r = run_with_page(memfbench, tmp_path, None, "-d", "fixed:100000", *SHORT, *GEOMETRY, "-o", str(out))
    assert r.returncode == 0, r.stderr
    page = json.loads(out.read_text())["workset"]["page_size"]
    assert page["source"] == "sysconf" and page["bytes"] == page["kernel_bytes"] == os.sysconf("SC_PAGESIZE")


@pytest.mark.parametrize("bad", ["8192", "4k", "131072", "-1"])
def test_unsupported_page_is_refused_in_one_line(memfbench, tmp_path, bad):
    r = run_with_page(memfbench, tmp_path, bad, "-d", "fixed:64", *SHORT, *GEOMETRY, "-o", str(tmp_path / "o.json"))
    assert r.returncode != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "MEMFBENCH_PAGE_SIZE" in lines[0] and bad in lines[0], r.stderr
    assert not (tmp_path / "o.json").exists()

"""memfbench merge refuses what it would otherwise add wrongly or drop without a word (issue 42,
case 10): a table that is not the recording's own (another function's under this name, a sibling
the function cannot have, one without its size table), a weight that is not a whole number of
calls, a bpftrace line that is not bpftrace's map output, and a bpftrace size given twice. Each is
one line naming the file (and its line where there is one), exit 1, no folder and no temporary
written, every input byte-identical afterwards."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

MIX = os.environ.get("MEMFBENCH_RECORD_MIX") or str(Path(os.environ.get("MEMFBENCH_BUILD", ROOT / "build"))
                                                    / "tests/c/record_mix")
pytestmark = pytest.mark.skipif(not Path(MIX).exists(), reason="tests/c/record_mix is not built")


@pytest.fixture(scope="module")
def mix(memfbench: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recording of record_mix's mix: 1000 memcpy of 17 B, 5 memmove, 12 memset, 10 memcmp, 2 bcmp."""
    out = tmp_path_factory.mktemp("recorded") / "mix"
    p = subprocess.run([memfbench, "record", "-o", str(out), "--", MIX, "mix"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return out


def snapshot(d: Path) -> dict[str, str]:
    return {str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*"))
            if p.is_file()}


def refused(memfbench: str, tmp_path: Path, args: list[str], *fragments: str) -> str:
    """merge -o tmp_path/out ARGS must fail in one line holding every fragment, writing nothing."""
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    p = subprocess.run([memfbench, "merge", "-o", str(out), *args], capture_output=True, text=True, timeout=60)
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert p.returncode == 1 and len(lines) == 1 and p.stdout == "", p.stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    assert not out.exists()
    assert snapshot(tmp_path) == before  # no temporary left, every input as it was
    return lines[0]


def copy_of(mix: Path, tmp_path: Path, name: str = "rec") -> Path:
    d = tmp_path / name
    shutil.copytree(mix, d)
    return d


def test_the_recording_itself_merges(memfbench: str, mix: Path, tmp_path: Path) -> None:
    """The checks hold a real recording to its own provenance: it passes them."""
    rec = copy_of(mix, tmp_path)
    p = subprocess.run([memfbench, "merge", "-o", str(tmp_path / "out"), str(rec)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "memcpy_size.csv").read_text().splitlines()[-1] == "17,17,1000"


def test_another_functions_table_under_memcpys_name(memfbench: str, mix: Path, tmp_path: Path) -> None:
    """memset's size table copied over memcpy's: a valid table of valid keys, which merge used to add
    as 12 memcpy calls of 64 and 4096 bytes; its weights do not add up to the memcpy calls
    provenance.json records."""
    rec = copy_of(mix, tmp_path)
    shutil.copy(rec / "memset_size.csv", rec / "memcpy_size.csv")
    refused(memfbench, tmp_path, [str(rec)], "rec/memcpy_size.csv", "add up to 12 calls", "records 1000 memcpy calls")


def test_a_table_missing_or_of_a_function_the_recording_never_called(memfbench: str, mix: Path,
                                                                    tmp_path: Path) -> None:
    """Without bcmp's tables, the recording's bcmp calls would be dropped; with memset's size
    table put in their place, it is nobody's once provenance.json lists no bcmp calls either."""
    rec = copy_of(mix, tmp_path)
    for t in rec.glob("bcmp_*.csv"):
        t.unlink()
    refused(memfbench, tmp_path, [str(rec)], "rec/provenance.json", "records 2 bcmp calls",
            "no bcmp_size.csv")
    prov = json.loads((rec / "provenance.json").read_text())
    del prov["calls"]["bcmp"]
    (rec / "provenance.json").write_text(json.dumps(prov))
    shutil.copy(rec / "memset_size.csv", rec / "bcmp_size.csv")
    refused(memfbench, tmp_path, [str(rec)], "rec/bcmp_size.csv", "records no bcmp calls")


@pytest.mark.parametrize("source,target,fragment", [
    ("memmove_overlap.csv", "memcpy_overlap.csv", "memcpy has buffers that never overlap"),
    ("memcmp_mismatch.csv", "memmove_mismatch.csv", "memmove has no comparison"),
    ("memcpy_src_alignment.csv", "memset_src_alignment.csv", "memset has one buffer"),
    ("memcpy_src_alignment.csv", "memcpy_alignment.csv", "memcpy_src_alignment.csv and memcpy_dst_alignment.csv"),
    (None, "memmove_src_alignment.csv", "no memmove_size.csv beside it"),
])
def test_a_sibling_merge_would_drop(memfbench: str, mix: Path, tmp_path: Path, source: str | None, target: str,
                                    fragment: str) -> None:
    """A sibling table the recorder never writes there (another function's, or one whose size
    table is gone): merge used to read it and drop it, or not read it at all, without a word."""
    rec = copy_of(mix, tmp_path)
    if source:
        shutil.copy(rec / source, rec / target)
    else:
        (rec / "memmove_size.csv").unlink()
    refused(memfbench, tmp_path, [str(rec)], f"rec/{target}", fragment)


def test_weights_are_whole_numbers_of_calls(memfbench: str, mix: Path, tmp_path: Path) -> None:
    """A weight of 1.5 used to be rounded into 2 calls; a table of probabilities into zeros."""
    hand = tmp_path / "hand"
    hand.mkdir()
    (hand / "memcpy_size.csv").write_text("size,weight\n8,3\n16,1.5\n")
    refused(memfbench, tmp_path, [str(hand)], "hand/memcpy_size.csv:3:", "1.5 is not a whole number of calls")
    shutil.rmtree(hand)
    rec = copy_of(mix, tmp_path)
    (rec / "memset_dst_alignment.csv").write_text((rec / "memset_dst_alignment.csv").read_text()
                                                  .replace(",12\n", ",11.75\n"))
    refused(memfbench, tmp_path, [str(rec)], "rec/memset_dst_alignment.csv:3:", "11.75")


@pytest.mark.parametrize("bad", ["@[18]: x5", "@[-1]: 5", "@[18] 5", "18: 5", "@[18]: 5 6", "@[18]:",
                                 "@[ 18]: 5", "@[18]: +5", "Lost 12 events", "@[18]: 0x5"])
def test_a_bpftrace_line_that_is_not_the_maps_output(memfbench: str, tmp_path: Path, bad: str) -> None:
    """Lines other than "@[SIZE]: COUNT" (and bpftrace's own "Attaching N probes..." and blank
    lines) used to be skipped: their calls were dropped without a word."""
    bpf = tmp_path / "bpf.txt"
    bpf.write_text(f"Attaching 1 probe...\n\n@[17]: 500\n{bad}\n@[4096]: 20\n")
    refused(memfbench, tmp_path, ["--bpftrace", f"memcpy:{bpf}"], "bpf.txt:4:", "not an '@[SIZE]: COUNT' line")


def test_a_bpftrace_size_given_twice(memfbench: str, tmp_path: Path) -> None:
    """bpftrace prints each key of a map once: a size twice is two histograms in one file (or an
    edit), which merge used to add up."""
    bpf = tmp_path / "bpf.txt"
    bpf.write_text("Attaching 1 probe...\n\n@[17]: 500\n@[4096]: 20\n@[17]: 3\n")
    refused(memfbench, tmp_path, ["--bpftrace", f"memcpy:{bpf}"], "bpf.txt:5:", "size 17 again (line 3 has it)")


def test_bpftrace_files_that_never_end_or_are_not_text(memfbench: str, tmp_path: Path) -> None:
    long_line = tmp_path / "long.txt"
    long_line.write_text("@[17]: 500\n@[" + "1" * 300 + "]: 5\n")
    refused(memfbench, tmp_path, ["--bpftrace", f"memcpy:{long_line}"], "long.txt:2:", "longer than 256 bytes")
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"@[17]: 500\n@[18]: 5\x00\n")
    refused(memfbench, tmp_path, ["--bpftrace", f"memcpy:{nul}"], "nul.txt:2:", "NUL byte")
    refused(memfbench, tmp_path, ["--bpftrace", "memcpy:/dev/zero"], "/dev/zero", "not a regular file")


def test_bpftrace_output_as_bpftrace_prints_it(memfbench: str, tmp_path: Path) -> None:
    """What is accepted: the banner (probe or probes), blank lines, CRLF, spaces around a row."""
    bpf = tmp_path / "bpf.txt"
    bpf.write_bytes(b"Attaching 2 probes...\r\n\r\n\r\n@[17]: 500\r\n  @[4096]:   20  \n@[0]: 7\n\n")
    out = tmp_path / "out"
    p = subprocess.run([memfbench, "merge", "-o", str(out), "--bpftrace", f"memcpy:{bpf}"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [x for x in (out / "memcpy_size.csv").read_text().splitlines() if not x.startswith("#")]
    assert rows == ["size_lo,size_hi,weight", "0,0,7", "17,17,500", "4096,4096,20"]


def test_sources_that_sum_to_a_table_run_refuses_are_refused(memfbench: str, tmp_path: Path) -> None:
    """Each source is fine, but a bpftrace size inside a recorded size range (5000 in 4608-5119)
    would make a table run refuses: read back before the folder is written, refused in one line
    naming the table as it would have been named."""
    rec = tmp_path / "rec"
    p = subprocess.run([memfbench, "record", "-o", str(rec), "--", MIX, "loop", "100", "5000"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    (tmp_path / "b.txt").write_text("@[5000]: 3\n", encoding="utf-8")
    refused(memfbench, tmp_path, [str(rec), "--bpftrace", f"memcpy:{tmp_path / 'b.txt'}"],
            "the merged memcpy table would not replay", f"{tmp_path / 'out'}/memcpy_size.csv:", "overlaps")

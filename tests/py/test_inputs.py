"""Bad input gets one clear error line naming the file, line and field, a non-zero exit and no
output file; the quirks of real CSV files are accepted."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import QUICK, ROOT, needs_plain_build


def write(dir_: Path, name: str, text: str | bytes) -> Path:
    p = dir_ / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def assert_one_error(r, *fragments: str, code: int = 1) -> None:
    assert r.code == code, r.stderr
    lines = r.stderr_lines
    assert len(lines) == 1, lines
    for frag in fragments:
        assert frag in lines[0], lines[0]
    assert r.out is None or not r.out.exists()
    if r.out is not None:
        # no temporary file left beside the target either
        assert not any(p.name.startswith(".") for p in r.out.parent.iterdir())


# (file contents, fragments the error line must contain: line, field, what)
BAD_SIZE_TABLES = {
    "non_numeric_weight": ("size,weight\n8,1\n16,abc\n", [":3:", "weight", "'abc' is not a number"]),
    "non_numeric_size": ("size,weight\nx,1\n", [":2:", "size", "'x' is not a whole number"]),
    "fractional_size": ("size,weight\n8.5,1\n", [":2:", "size", "not a whole number"]),
    "negative_weight": ("size,weight\n8,-1\n", [":2:", "weight", "-1 is negative"]),
    "negative_size": ("size,weight\n-8,1\n", [":2:", "size", "-8 is negative"]),
    "nan_weight": ("size,weight\n8,1\n9,nan\n", [":3:", "weight", "NaN"]),
    "inf_weight": ("size,weight\n8,inf\n", [":2:", "weight", "not finite"]),
    "zero_total": ("size,weight\n8,0\n9,0\n", ["weight", "total weight is zero"]),
    "size_too_large": ("size,weight\n8,1\n70000000,1\n", [":3:", "size", "exceeds the supported maximum 67108864"]),
    "duplicate_size": ("size,weight\n8,1\n16,1\n8,2\n", [":4:", "size", "duplicates line 2"]),
    "overlapping_ranges": ("size_lo,size_hi,weight\n0,100,1\n50,200,1\n", [":3:", "size", "overlaps the range of line 2"]),
    "range_reversed": ("size_lo,size_hi,weight\n10,5,1\n", [":2:", "size_hi", "below size_lo"]),
    "missing_header": ("8,1\n16,1\n", [":1:", "header", "expected 'size,weight'"]),
    "wrong_header": ("bytes,count\n8,1\n", [":1:", "header", "got 'bytes,count'"]),
    "empty_file": ("", ["empty file"]),
    "only_comments": ("# nothing here\n\n", ["empty file"]),
    "header_only": ("size,weight\n", ["no data rows"]),
    "too_many_fields": ("size,weight\n8,1,2\n", [":2:", "row", "expected 2 fields, found 3"]),
    "empty_weight": ("size,weight\n8,\n", [":2:", "weight", "empty"]),
    "stray_quote": ('size,weight\n8,"1\n', [":2:", "field 2", "quote"]),
    "binary": (b"size,weight\n8,\x001\n", [":2:", "NUL"]),
}


@pytest.mark.parametrize("case", sorted(BAD_SIZE_TABLES))
def test_bad_size_table(run, tmp_path, case):
    text, fragments = BAD_SIZE_TABLES[case]
    p = write(tmp_path, f"{case}_size.csv", text)
    r = run("-d", str(p), *QUICK)
    assert_one_error(r, str(p), *fragments, code=2)


BAD_SIBLINGS = {
    "alignment_not_pow2": ("alignment", "alignment,weight\n1,1\n3,1\n", [":3:", "alignment", "3 is not a power of two"]),
    "alignment_zero": ("alignment", "alignment,weight\n0,1\n", [":2:", "alignment", "not a power of two"]),
    "alignment_too_big": ("alignment", "alignment,weight\n8192,1\n", [":2:", "alignment", "exceeds the supported maximum 4096"]),
    "alignment_duplicate": ("src_alignment", "alignment,weight\n8,1\n8,1\n", [":3:", "alignment", "duplicates line 2"]),
    "overlap_unknown": ("overlap", "overlap,weight\nsideways,1\n", [":2:", "overlap", "'sideways'"]),
    "mismatch_unknown": ("mismatch", "mismatch,weight\nsometimes,1\n", [":2:", "mismatch", "'sometimes'"]),
}


@pytest.mark.parametrize("case", sorted(BAD_SIBLINGS))
def test_bad_sibling_table(run, tmp_path, case):
    suffix, text, fragments = BAD_SIBLINGS[case]
    write(tmp_path, "d_size.csv", "size,weight\n8,1\n")
    p = write(tmp_path, f"d_{suffix}.csv", text)
    func = "memcmp" if suffix == "mismatch" else "memmove"
    r = run("-f", func, "-d", str(tmp_path / "d_size.csv"), *QUICK)
    assert_one_error(r, str(p), *fragments, code=2)


@pytest.mark.parametrize("kind", ["directory", "fifo", "dangling_link"])
def test_a_sibling_that_is_not_a_file_is_named(run, tmp_path, kind):
    """A sibling table's name taken by something that is not a table is refused (it used to be
    skipped without a word, or, for a FIFO, to block)."""
    write(tmp_path, "d_size.csv", "size,weight\n8,1\n")
    p = tmp_path / "d_alignment.csv"
    if kind == "directory":
        p.mkdir()
    elif kind == "fifo":
        os.mkfifo(p)
    else:
        p.symlink_to(tmp_path / "nowhere.csv")
    r = run("-d", str(tmp_path / "d_size.csv"), *QUICK, timeout=30)
    fragment = {"directory": "a directory", "fifo": "a FIFO", "dangling_link": "a symbolic link to nothing"}[kind]
    assert_one_error(r, str(p), "alignment table", fragment, code=2)


def test_alignment_forms_conflict(run, tmp_path):
    write(tmp_path, "d_size.csv", "size,weight\n8,1\n")
    write(tmp_path, "d_alignment.csv", "alignment,weight\n8,1\n")
    write(tmp_path, "d_src_alignment.csv", "alignment,weight\n8,1\n")
    r = run("-d", str(tmp_path / "d_size.csv"), *QUICK)
    assert_one_error(r, "d_alignment.csv", "conflicts", code=2)


def test_real_file_quirks_are_accepted(run, tmp_path):
    # BOM, CRLF, spaces around fields, quotes, comment lines, blank lines, trailing spaces
    text = ("\ufeff# recorded 2026-11-01\r\n size , weight \r\n\r\n"
            " 8 , 3 \r\n# a comment between rows\r\n\"16\",\"1\"\r\n  32,0.0e0\r\n")
    p = write(tmp_path, "q_size.csv", text.encode("utf-8"))
    write(tmp_path, "q_alignment.csv", "alignment,weight\n\n1, 1\n 64 ,1\n")
    r = run("-d", str(p), "-v", "libc", *QUICK)
    assert r.code == 0, r.stderr
    t = r.doc["distribution"]["tables"]
    assert t["size"]["lo"] == [8, 16, 32] and t["size"]["p"] == [0.75, 0.25, 0.0]
    assert t["src_alignment"]["lo"] == [1, 64] and t["dst_alignment"]["lo"] == [1, 64]
    roles = sorted(f["role"] for f in r.doc["distribution"]["files"])
    assert roles == ["alignment", "size"]


def test_ranges_and_counts(run, tmp_path):
    p = write(tmp_path, "r_size.csv", "size_lo,size_hi,weight\n0,15,300\n16,16,100\n17,4096,100\n")
    r = run("-d", str(p), "-v", "libc", *QUICK)
    assert r.code == 0, r.stderr
    t = r.doc["distribution"]["tables"]["size"]
    assert t["lo"] == [0, 16, 17] and t["hi"] == [15, 16, 4096] and t["p"] == [0.6, 0.2, 0.2]
    assert t["total_weight"] == 500


@needs_plain_build  # 256 MiB of verification and 2^20 self-check draws take minutes under ASan
def test_110000_equal_rows_pass_the_self_check(run, tmp_path):
    """Every row is rare (expected under 10 draws): their pooled probability, a sum of 110,000
    rounded shares, once exceeded 1 and failed the check with infinite standard errors."""
    p = write(tmp_path, "many_size.csv", "size,weight\n" + "".join(f"{i},1\n" for i in range(1, 110001)))
    r = run("-d", str(p), "-v", "libc", *QUICK)
    assert r.code == 0, r.stderr
    assert r.doc["distribution"]["selfcheck"]["passed"] is True
    v = r.doc["verification"]
    assert v["sizes_listed"] == 110000 and v["complete"] is False and 4096 < v["sizes"] < 110000


def fleetbench_text() -> str:
    """A fleetbench-format file made from our shipped tables (three lines of key:prob)."""
    lines = []
    for kind in ("size", "overlap", "alignment"):
        rows = (ROOT / "distributions" / "fleetbench" / f"Memmove_Fleet_{kind}.csv").read_text().splitlines()
        pairs = [r.replace(",", ":") for r in rows if r and not r.startswith("#")][1:]
        lines.append(",".join(pairs))
    return "\n".join(lines) + "\n"


def test_fleetbench_format_accepted(run, tmp_path):
    p = write(tmp_path, "Memmove_Fleet.csv", fleetbench_text())
    r = run("-f", "memmove", "-d", str(p), "-v", "libc", *QUICK)
    assert r.code == 0, r.stderr
    d = r.doc["distribution"]
    assert d["format"] == "fleetbench" and d["tables"]["size"]["rows"] == 1331
    assert d["tables"]["overlap"]["lo"] == ["none", "forward", "backward"]
    # Same tables as the shipped CSV set
    ref = run("-f", "memmove", "-v", "libc", *QUICK, out="ref.json")
    assert ref.doc["distribution"]["tables"]["size"]["p"] == d["tables"]["size"]["p"]
    assert ref.doc["distribution"]["tables"]["src_alignment"]["p"] == d["tables"]["src_alignment"]["p"]


def test_fleetbench_format_bad_pair(run, tmp_path):
    p = write(tmp_path, "fb.csv", "0:0.5,8:0.5\n0:1\n1:0.5,x\n")
    r = run("-f", "memmove", "-d", str(p), *QUICK)
    assert_one_error(r, f"{p}:3", "alignment pair 2", "'x' is not key:probability", code=2)


@pytest.mark.parametrize("args,fragments,code", [
    (["--time", "abc"], ["--time", "'abc'"], 2),
    (["--time", "-1"], ["--time"], 2),
    (["--rounds", "0"], ["--rounds", "below the minimum 1"], 2),
    (["--target-ci", "0"], ["--target-ci"], 2),
    (["--target-ci", "5", "-v", "libc"], ["--target-ci needs a baseline"], 2),
    (["--processes", "0"], ["--processes", "below the minimum 1"], 2),
    (["--processes", "65"], ["--processes: at most 64"], 2),
    (["--flip-lead", "65"], ["--flip-lead: at most 64"], 2),
    (["--flip-lead", "x"], ["--flip-lead", "'x'"], 2),
    (["--small-max", "0"], ["--small-max", "'0'"], 2),
    (["--small-max", "1G"], ["--small-max 1073741824 does not fit", "L1 window"], 1),
    (["--small-max", "1K", "-p", "l1"], ["--small-max applies to --placement auto only"], 1),
    (["--function", "strlen"], ["--function", "'strlen'"], 2),
    (["--placement", "l4"], ["--placement", "'l4'"], 2),
    (["--alignment-mode", "loose"], ["--alignment-mode"], 2),
    (["--bogus"], ["unknown option '--bogus'"], 2),
    (["--seed", "-3"], ["--seed"], 2),
    (["--cache", "48K:2M"], ["--cache"], 2),
    (["--variant", "turbo"], ["--variant", "'turbo'", "have:"], 2),
    (["--variant", "libc", "--variant", "libc"], ["named twice"], 2),
    (["--cpu", "4096"], ["--cpu", "at most 1023"], 2),
    (["--distribution", "no_such_table"], ["'no_such_table'", "no such file"], 2),
    (["--clock", "sundial"], ["--clock", "'sundial'"], 2),  # a closed set: refused while parsing
])
def test_bad_command_line(run, args, fragments, code):
    r = run(*QUICK, *args)
    assert_one_error(r, *fragments, code=code)


def test_missing_output_option(memfbench):
    import subprocess
    p = subprocess.run([memfbench, "run", "--rounds", "8"], capture_output=True, text=True)
    assert p.returncode == 2 and "-o FILE is required" in p.stderr


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_250_byte_output_name_is_written(memfbench, tmp_path, processes):
    """The longest names a file system takes (255 bytes) leave no room for the temporary's additions:
    the temporary then carries a cut of the name and a hash of all of it."""
    out = tmp_path / ("r" * 245 + ".json")
    p = subprocess.run([memfbench, "run", *QUICK[:-3], "--processes", processes, "--allow-single-process", "-q",
                        "-d", "fixed:64", "-v", "libc", "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["schema"] == "memfbench-run"
    assert [x.name for x in tmp_path.iterdir()] == [out.name]


def test_stdout_output_with_processes_leaves_the_current_folder_alone(memfbench, tmp_path):
    """-o - with --processes: the processes' files go to $TMPDIR, not into the current folder
    (which may be read-only); a TMPDIR that cannot take them is named as such."""
    here, tmp = tmp_path / "here", tmp_path / "tmp"
    here.mkdir()
    tmp.mkdir()
    # a file a killed study left (its pid cannot exist) goes; one of a live process stays
    stale = tmp / ".memfbench-stdout.json.memfbench-99999999-proc0.Ab12Cd"
    live = tmp / f".memfbench-stdout.json.memfbench-{os.getpid()}-proc0.Ab12Cd"
    stale.write_text("{")
    live.write_text("{")
    args = [memfbench, "run", *QUICK[:-3], "--processes", "2", "-q", "-d", "fixed:64", "-v", "libc", "-o", "-"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=here, env={**os.environ, "TMPDIR": str(tmp)})
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["config"]["processes"] == 2
    assert list(here.iterdir()) == [] and list(tmp.iterdir()) == [live]
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=here,
                       env={**os.environ, "TMPDIR": str(tmp_path / "missing")})
    lines = p.stderr.strip().splitlines()
    assert p.returncode != 0 and p.stdout == "" and len(lines) == 1, p.stderr
    assert "-o -" in lines[0] and "TMPDIR" in lines[0] and str(tmp_path / "missing") in lines[0]
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("target", ["missing_dir/out.json", "ro/out.json"])
def test_unwritable_output_path(memfbench, tmp_path, target):
    import subprocess
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    out = tmp_path / target
    p = subprocess.run([memfbench, "run", *QUICK, "-o", str(out)], capture_output=True, text=True)
    import os
    if target.startswith("ro") and os.geteuid() == 0:
        pytest.skip("root can write into read-only folders")
    # a missing folder is a usage error found before the run (2); a folder it cannot write, the run's (1)
    assert p.returncode == (2 if target.startswith("missing") else 1)
    assert len(p.stderr.strip().splitlines()) == 1 and str(out) in p.stderr
    assert not out.exists()

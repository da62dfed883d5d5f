"""What the analysis reads, bounded and whole (issue 42, cases 6, 12 and 14): a batch must be of a
process the file has; a gzip bomb is refused in one line with little memory; history streams its
files and keeps only each point; a recording's call count is a whole number from 1 to 2^53."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from analysis.io import reading, schema, upgrade
from analysis_runner import analysis
from conftest import one_line_refusal

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden-run.json"


def golden() -> dict:
    """The golden run (2 processes) at the current schema version."""
    return upgrade.upgrade(json.loads(GOLDEN.read_text(encoding="utf-8")))


# --- case 14: a batch of a process the file does not have ----------------------------------------

def test_a_batch_beyond_the_processes_is_refused_in_one_line(tmp_path: Path) -> None:
    """The golden run has processes 0 and 1: a batch of process 7 would be pooled as a third process
    and move the interval; the file is refused, named, and left as it was."""
    doc = golden()
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][3] = 7
    f = tmp_path / "beyond.json"
    f.write_text(json.dumps(doc))
    before = f.read_bytes()
    for command in ("summarize", "compare"):
        one_line_refusal(analysis(command, str(f)), str(f), "samples/process", "process 7",
                         "its 2 processes")
    assert f.read_bytes() == before


def test_a_one_process_file_has_process_0_only() -> None:
    """Without a processes block (a run of one process) every batch is process 0's."""
    doc = golden()
    del doc["processes"]
    doc["samples"]["process"] = [0] * doc["samples"]["count"]
    assert schema.validation_errors(doc) == []
    doc["samples"]["process"][-1] = 1
    errors = schema.validation_errors(doc)
    assert errors and errors[0].startswith("samples/process: 1 batch names process 1, not one of its one process")


def test_processes_numbered_with_a_gap_are_their_indices() -> None:
    """A processes block of indices 0 and 2 (not 0 and 1): process 2's batches are the file's, 1's
    are not."""
    doc = golden()
    doc["processes"][1]["index"] = 2
    doc["samples"]["process"] = [2 if p == 1 else p for p in doc["samples"]["process"]]
    assert schema.validation_errors(doc) == []
    bad = copy.deepcopy(doc)
    bad["samples"]["process"][0] = 1
    assert any(e.startswith("samples/process: 1 batch names process 1") for e in schema.validation_errors(bad))


# --- case 12: validating a file's long tables at once ---------------------------------------------

def long_tables(rows: int = 2000) -> dict:
    """The golden run with a size table of `rows` rows, as a fleetbench distribution's (thousands)."""
    doc = golden()
    size = doc["distribution"]["tables"]["size"]
    size["lo"], size["hi"] = list(range(rows)), list(range(rows))
    size["p"], size["rows"] = [1 / rows] * rows, rows
    return doc


def test_a_valid_long_table_is_shown_to_the_schema_by_its_prefix() -> None:
    doc = long_tables()
    assert schema.validation_errors(doc) == []
    errors, long = schema._scan(doc)
    assert errors == [] and sorted(long) == [("distribution", "tables", "size", k) for k in ("hi", "lo", "p")]
    probe = schema._probe(doc, long, [schema.load_schema(), schema.ANALYSIS_NEEDS])
    assert all(len(probe["distribution"]["tables"]["size"][k]) == 16 for k in ("lo", "hi", "p"))
    assert len(doc["distribution"]["tables"]["size"]["p"]) == 2000  # the document itself is not cut


@pytest.mark.parametrize("column,value,message", [
    ("p", 1.5, "distribution/tables/size/p/1500: 1.5 is greater than the maximum of 1"),
    ("p", -0.25, "distribution/tables/size/p/1500: -0.25 is less than the minimum of 0"),
    ("p", True, "distribution/tables/size/p/1500: True is not of type 'number'"),
    ("p", "x", "distribution/tables/size/p/1500: 'x' is not of type 'number'"),
    ("p", None, "distribution/tables/size/p/1500: None is not of type 'number'"),
    ("lo", 2 ** 70, "distribution/tables/size/lo/1500: integer out of range (more than 64 bits)"),
    ("hi", float("inf"), "distribution/tables/size/hi/1500: inf is not a finite number"),
    ("p", float("nan"), "distribution/tables/size/p/1500: nan is not a finite number"),
])
def test_an_entry_deep_in_a_long_table_is_refused_as_before(column, value, message) -> None:
    """An entry past the prefix the schema sees is still checked, with the message the validator
    gives when it sees the whole list."""
    doc = long_tables()
    doc["distribution"]["tables"]["size"][column][1500] = value
    assert schema.validation_errors(doc) == [message]


def test_a_list_the_schema_says_more_of_is_shown_whole() -> None:
    """A keyword about the whole list (here maxItems) or one not followed (here not) keeps the list
    whole for the validator: only type and bounds of its entries are checked at once."""
    values = list(range(100))
    for node in ({"type": "array", "maxItems": 50}, {"type": "array", "items": {"not": {"const": 7}}},
                 {"type": "array", "items": {"type": "integer", "multipleOf": 2}}):
        s = {"type": "object", "properties": {"a": node}}
        assert not schema._may_shorten(s, ("a",), values)
        assert list(jsonschema_errors(s, {"a": values}))  # each of them refuses this list
    assert schema._may_shorten({"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "integer", "minimum": 0, "maximum": 99}}}}, ("a",), values)
    assert not schema._may_shorten({"type": "object", "properties": {"a": {"type": "array", "items": {
        "type": "integer", "minimum": 0, "maximum": 98}}}}, ("a",), values)


def jsonschema_errors(s: dict, doc: dict) -> list:
    import jsonschema
    return list(jsonschema.Draft202012Validator(s).iter_errors(doc))


# --- case 12: a gzip bomb ----------------------------------------------------------------------

def gzip_bomb(path: Path, gib: int) -> None:
    """A gzip file of a few MB whose text is '{"pad": "' and `gib` GiB of spaces. Each 16 MiB of
    spaces is deflated after a full flush, so its compressed bytes are the same every time and are
    written once per 16 MiB instead of compressed again; the trailer's checksum is left zero, as a
    hostile file may: the reader must refuse it before it gets there."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = co.compress(b'{"pad": "') + co.flush(zlib.Z_FULL_FLUSH)
    piece = co.compress(b" " * (1 << 24)) + co.flush(zlib.Z_FULL_FLUSH)
    end = co.compress(b'"}') + co.flush()
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + head)
        for _ in range(gib * 64):
            f.write(piece)
        f.write(end + bytes(8))


def test_a_gzip_bomb_is_refused_in_one_line_with_little_memory(tmp_path: Path) -> None:
    """4 GiB of text from 4 MB: refused as a bomb after the first 64 MiB of text (before: after the
    whole bound of 1 GiB, 2.1 GB of memory), by a process whose peak memory is measured by its
    parent (resource's maximum resident set of its one child)."""
    bomb = tmp_path / "bomb.json.gz"
    gzip_bomb(bomb, 4)
    assert bomb.stat().st_size < 8 << 20
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run([sys.executable, '-m', 'analysis', 'summarize', sys.argv[1]], capture_output=True, "
             "text=True)\n"
             "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n' + p.stderr)\n"
             "sys.exit(p.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe, str(bomb)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    peak_kib, *lines = p.stdout.splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stdout, p.stdout
    assert str(bomb) in lines[0]
    if reading.text_limit() > getattr(reading, "_BOMB_FLOOR", 1 << 26):
        assert "a gzip file that expands more than 200 times" in lines[0] and "a gzip bomb?" in lines[0], lines[0]
    else:  # a machine whose memory bounds the text below the bomb's floor refuses it as too large first
        assert "more than this machine can parse" in lines[0], lines[0]
    assert int(peak_kib) < 512 * 1024, f"peak {int(peak_kib) >> 10} MiB"


def test_the_ratio_bound_leaves_real_results_alone(tmp_path: Path, monkeypatch) -> None:
    """A compressed result that expands less than the bound reads as the plain one does, even with
    the floor lowered to let the bound look at it from its first chunk."""
    import gzip
    text = GOLDEN.read_bytes()
    gz = tmp_path / "g.json.gz"
    gz.write_bytes(gzip.compress(text, 9))
    assert len(text) / gz.stat().st_size < reading._MAX_RATIO
    monkeypatch.setattr(reading, "_BOMB_FLOOR", 0)
    monkeypatch.setattr(reading, "_CHUNK", 4096)
    assert reading.read_json(gz) == json.loads(text)


# --- case 6: a recording's call count -------------------------------------------------------------

def recording(tmp_path: Path, calls_text: str) -> Path:
    """A recording folder whose provenance.json gives memcpy `calls_text` calls (JSON text as is)."""
    rec = tmp_path / "rec"
    rec.mkdir(exist_ok=True)
    (rec / "provenance.json").write_text('{"calls": {"memcpy": {"calls": ' + calls_text + '}}}')
    return rec


@pytest.mark.parametrize("text,expected", [("1", 1), ("123456", 123456), ("9007199254740992", 2 ** 53),
                                           ("1e3", 1000), ("2.0", 2)])
def test_a_whole_number_of_calls_is_read(tmp_path: Path, text: str, expected: int) -> None:
    """memfbench writes the count through a double (cJSON), so 1e3 and 2.0 are whole numbers too."""
    from analysis.io.ab_file import recorded_calls
    got = recorded_calls(recording(tmp_path, text), "memcpy")
    assert got == expected and type(got) is int


@pytest.mark.parametrize("text", ["-5", "0", "1e300", "Infinity", "-Infinity", "NaN", "1.5", "9007199254740993",
                                  '"12"', "true", "null", "[3]", '{"n": 3}'])
def test_a_call_count_that_is_not_a_whole_number_of_calls_is_one_line(tmp_path: Path, text: str) -> None:
    """-5 flipped the prediction's sign, 1e300 overflowed it, Infinity ended in an OverflowError:
    each is a ResultFileError naming the file and the field, on one line."""
    from analysis.io.ab_file import recorded_calls
    from analysis.io.reading import ResultFileError
    rec = recording(tmp_path, text)
    with pytest.raises(ResultFileError) as e:
        recorded_calls(rec, "memcpy")
    message = str(e.value)
    assert "\n" not in message and str(rec / "provenance.json") in message
    assert "calls.memcpy.calls is " in message and "not a whole number of calls from 1 to 2^53" in message


def test_a_prediction_from_a_negative_count_is_refused_before_anything_is_predicted(tmp_path: Path) -> None:
    from analysis.io.reading import ResultFileError
    from analysis.verdicts.ab import predict_ab
    doc = {"config": {"function": "memcpy"}, "prediction": {"recording": str(recording(tmp_path, "-5")),
                                                            "replay": str(tmp_path / "never-read.json")}}
    with pytest.raises(ResultFileError, match="calls.memcpy.calls is -5"):
        predict_ab(doc)


# --- case 12: history's change points on a long series ---------------------------------------------

def brute_q(x, tau: int) -> float:
    """E-divisive's statistic from its definition (Matteson and James 2014, alpha 1)."""
    import numpy as np
    a, b = x[:tau], x[tau:]
    m, k = len(a), len(b)
    cross = np.abs(a[:, None] - b[None, :]).mean()
    return m * k / (m + k) * (2 * cross - np.abs(a[:, None] - a[None, :]).sum() / (m * (m - 1))
                              - np.abs(b[:, None] - b[None, :]).sum() / (k * (k - 1)))


@pytest.mark.parametrize("n", [4, 5, 9, 64, 300])
def test_the_sorted_statistic_is_the_energy_distance_of_its_definition(n: int) -> None:
    """The O(n log^2 n) form, ties included (a third of the values repeat one value)."""
    import numpy as np
    from analysis.verdicts import history
    x = np.random.default_rng(n).normal(size=n)
    x[::3] = x[1]
    rank, to_all = history._distances_to_all(x)
    q = history._sorted_q(x, rank, to_all, 2)
    for tau in range(n + 1):
        if 2 <= tau <= n - 2:
            assert q[tau] == pytest.approx(brute_q(x, tau), rel=1e-9, abs=1e-12)
        else:
            assert q[tau] == -np.inf
    o = np.random.default_rng(1).permutation(n)  # a permutation's statistic from the same rank and sums
    assert history._sorted_q(x[o], rank[o], to_all[o], 2) == pytest.approx(
        history._sorted_q(x[o], *history._distances_to_all(x[o]), 2), rel=1e-9, abs=1e-12)


def test_a_long_series_gets_the_split_the_matrix_gets(monkeypatch) -> None:
    """300 points with a step: the sorted form (above MATRIX_MAX) and the matrix (as before it) find
    the same change with the same p-value."""
    import numpy as np
    from analysis.verdicts import history
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(0, 1, 150), rng.normal(0.6, 1, 150)])
    assert len(x) > history.MATRIX_MAX
    fast = history.change_points(x, permutations=199)
    monkeypatch.setattr(history, "MATRIX_MAX", 10 ** 6)
    assert fast == history.change_points(x, permutations=199) and len(fast) == 1 and abs(fast[0][0] - 150) <= 10


def test_stopping_at_alpha_decides_as_every_permutation_does() -> None:
    """A split whose p-value cannot end below alpha stops being scored, but every permutation is
    still drawn: the same decision, and the generator where it would be, so the next segment's
    test is the same."""
    import numpy as np
    from analysis.verdicts import history
    x = np.random.default_rng(8).normal(size=40)  # no change: p far above alpha
    full, early = np.random.default_rng(2), np.random.default_rng(2)
    tau, p = history.best_split(x, 3, 499, full)
    tau2, p2 = history.best_split(x, 3, 499, early, stop_at=0.05)
    assert tau2 == tau and p >= 0.05 and p2 >= 0.05 and p2 <= p
    assert full.integers(1 << 62) == early.integers(1 << 62)


def test_change_points_of_a_long_series_take_memory_linear_in_its_length() -> None:
    """2,000 points: the distance matrix alone took 32 MB, and its prefix sums and each
    permutation's copy as much again; the sorted form keeps a few arrays of 2,000."""
    import tracemalloc
    import numpy as np
    from analysis.verdicts import history
    x = np.random.default_rng(4).normal(0, 0.01, 2000)
    x[1000:] += 0.05
    tracemalloc.start()
    try:
        cuts = history.change_points(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [c for c, _ in cuts] == [1000]
    assert peak < 4 << 20, f"peak {peak >> 20} MiB"


# --- case 12: history keeps a point per file, not the file ---------------------------------------

def series_folder(folder: Path, n: int) -> Path:
    """n copies of the golden run with a 2,000-row size table (a file of about 60 KB), each made a
    minute after the one before."""
    folder.mkdir()
    doc = long_tables()
    for i in range(n):
        doc["created_utc"] = f"2026-01-01T{i // 60:02d}:{i % 60:02d}:00Z"
        (folder / f"r{i:04d}.json").write_text(json.dumps(doc))
    return folder


def peak_kib(*args: str) -> tuple[int, subprocess.CompletedProcess[str]]:
    """The peak resident memory of `analysis ARGS` (resource's maximum over the children of a
    process that runs nothing else) and its result."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run([sys.executable, '-m', 'analysis', *sys.argv[1:]], capture_output=True, text=True)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stderr)\n"
             "sys.exit(p.returncode)\n")
    p = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    return int(p.stdout.split()[0]), p


def test_history_memory_does_not_grow_with_its_files(tmp_path: Path) -> None:
    """Each file used to be kept whole (its document and frames, some 300 KB here) until the
    series was read; a point is kept instead, so 300 files take about what 30 do."""
    few, p = peak_kib("history", str(series_folder(tmp_path / "few", 30)))
    assert p.returncode == 0, p.stderr
    many, p = peak_kib("history", str(series_folder(tmp_path / "many", 300)))
    assert p.returncode == 0, p.stderr
    assert many - few < 30 * 1024, f"30 files: {few >> 10} MiB, 300 files: {many >> 10} MiB"


# --- case 12: what validating a series of files keeps between files --------------------------------

def test_a_block_seen_before_is_judged_by_its_content_not_its_name() -> None:
    """The validator's errors are kept per block content: a block changed between two files gets
    its own errors, and the same block again the same (none, here)."""
    doc = golden()
    assert schema.validation_errors(doc) == []
    bad = copy.deepcopy(doc)
    bad["timer"]["ns_per_tick"] = "fast"
    errors = schema.validation_errors(bad)
    assert errors and errors[0].startswith("timer/ns_per_tick: 'fast' is not of type")
    assert schema.validation_errors(doc) == []
    assert schema.validation_errors(bad) == errors
    assert len(schema._block_errors) <= schema._BLOCKS


@pytest.mark.parametrize("at,message", [
    (5, "samples/ticks/5: -1 is less than the minimum of 0"),      # in the prefix the schema sees
    (12, "samples/ticks/12: -1 is less than the minimum of 0"),
])
def test_a_bad_sample_entry_gets_the_schema_message_as_before(at: int, message: str) -> None:
    """Valid columns are shown to the schema by one entry; a column with a bad entry by sixteen, so
    an early entry's message is still the schema's (later ones get the column check's)."""
    doc = golden()
    doc["samples"]["ticks"][at] = -1
    assert schema.validation_errors(doc)[0] == message


def test_a_series_of_baselines_alone_is_one_line(tmp_path: Path) -> None:
    """Files that hold their baseline alone give no point: one line, not a KeyError traceback."""
    doc = golden()
    doc["variants"], doc["config"]["variants"] = doc["variants"][:1], doc["config"]["variants"][:1]
    keep = [i for i, v in enumerate(doc["samples"]["variant"]) if v == 0]
    doc["samples"] = {k: (v if k == "count" else [v[i] for i in keep]) for k, v in doc["samples"].items()}
    doc["samples"]["count"] = len(keep)
    folder = tmp_path / "alone"
    folder.mkdir()
    for i in range(3):
        doc["created_utc"] = f"2026-01-01T00:00:0{i}Z"
        (folder / f"r{i}.json").write_text(json.dumps(doc))
    one_line_refusal(analysis("history", str(folder)), "no variant is compared with the baseline", "r0.json")


@pytest.mark.parametrize("text,value", [("0", 0), ("12", 12), ("0x10", 16), ("0XFF", 255),
                                        ("18446744073709551615", 2 ** 64 - 1)])
def test_a_seed_is_read_as_memfbench_reads_it(text: str, value: int) -> None:
    from analysis.commands.common import seed_arg
    assert seed_arg(text) == value


@pytest.mark.parametrize("text", ["08", "010", "-1", "abc", "0x", "1e3", "18446744073709551616", ""])
def test_a_seed_memfbench_would_refuse_is_refused(text: str) -> None:
    import argparse
    from analysis.commands.common import seed_arg
    with pytest.raises(argparse.ArgumentTypeError, match="decimal without a leading zero"):
        seed_arg(text)

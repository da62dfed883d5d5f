"""Compressed result files (NAME.json.gz): written by memfbench when the name asks for it, every
sample kept; read by every analysis entry point, by content rather than by name; a damaged or
hostile compressed file refused with one line."""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from analysis.io import reading, schema
from analysis.io.load import load_run, read_result
from analysis_runner import analysis
from conftest import QUICK


@pytest.fixture(scope="module")
def pair(memfbench: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """One run written compressed, across two processes so the merger's output is covered."""
    d = tmp_path_factory.mktemp("gz")
    out = d / "r.json.gz"
    p = subprocess.run([memfbench, "run", "--rounds", "40", "--warmup-rounds", "2", "--processes", "2",
                        "-q", "-f", "memcpy", "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    with gzip.open(out, "rt", encoding="utf-8") as f:
        return out, json.load(f)


def test_written_compressed_and_complete(pair: tuple[Path, dict]) -> None:
    out, doc = pair
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert schema.validation_errors(doc) == []
    assert doc["samples"]["count"] == len(doc["samples"]["ticks"]) > 0
    assert set(doc["samples"]["process"]) == {0, 1}
    # no temporary left beside it
    assert sorted(p.name for p in out.parent.iterdir()) == ["r.json.gz"]


def test_every_sample_round_trips_through_the_loader(pair: tuple[Path, dict]) -> None:
    out, doc = pair
    frame = load_run(out).batches
    s = doc["samples"]
    names = [v["name"] for v in doc["variants"]]
    assert len(frame) == s["count"]
    assert list(frame["variant"].astype(str)) == [names[i] for i in s["variant"]]
    for column in ("round", "position", "calls", "bytes", "ticks", "ns", "cpu", "warmup", "process"):
        assert np.array_equal(frame[column].to_numpy(), np.array(s[column])), column
    assert np.array_equal(np.rint(frame["t_start_s"].to_numpy() * 1e9), np.array(s["t_start_ns"], dtype=float))


def test_named_by_content_not_by_name(pair: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = pair
    renamed = tmp_path / "renamed.json"
    shutil.copy(out, renamed)
    assert load_run(renamed).batches.shape == load_run(out).batches.shape
    assert reading.result_stem(out) == "r" and reading.result_stem(renamed) == "renamed"


def test_every_command_reads_it(pair: tuple[Path, dict], tmp_path: Path) -> None:
    out, _ = pair
    other = tmp_path / "other.json.gz"
    shutil.copy(out, other)
    for args in (["summarize", str(out)], ["compare", str(out)], ["diff", str(out), str(other)],
                 ["gate", str(out), "--fail-if-slower", "50"]):
        p = analysis(*args)
        # gate answers 1 when a variant (the byte loop) is slower than allowed: still an answer
        assert p.returncode in ((0, 1) if args[0] == "gate" else (0,)) and not p.stderr.strip(), (args, p.stderr)
    # gate's default verdict file is named after the result, without .json.gz
    assert (out.parent / "r.verdict.json").exists()


@pytest.mark.parametrize("damage,message", [
    (lambda raw: raw[: len(raw) // 2], "cut short"),
    (lambda raw: raw[:10] + bytes(b ^ 0x5A for b in raw[10:40]) + raw[40:], "cannot be decompressed"),
    (lambda raw: raw + b"junk", "bytes after the end"),
    (lambda raw: gzip.compress(b"[1, 2, 3]"), "one JSON object"),
    (lambda raw: gzip.compress(b"\x00\xff" * 10), "one JSON object"),
])
def test_damaged_compressed_files_refused(pair: tuple[Path, dict], tmp_path: Path, damage, message: str) -> None:
    out, _ = pair
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(damage(out.read_bytes()))
    p = analysis("summarize", str(bad))
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and message in lines[0], p.stderr
    assert "Traceback" not in p.stderr


def test_a_compression_bomb_is_refused_while_expanding_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound is checked a chunk at a time: a 64 MiB expansion against a 1 MiB bound allocates
    about the bound, not the expansion (the test lowers the bound so no memory is needed)."""
    monkeypatch.setattr(reading, "_MAX_TEXT", 1 << 20)
    bomb = tmp_path / "bomb.json.gz"
    c = zlib.compressobj(9, zlib.DEFLATED, 15 + 16)
    bomb.write_bytes(c.compress(b"{" + b" " * (64 << 20)) + c.flush())
    tracemalloc.start()
    try:
        with pytest.raises(reading.ResultFileError, match="more than 1 MiB of text"):
            read_result(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"peak {peak >> 20} MiB while refusing"


def test_a_plain_file_past_the_bound_is_refused_before_it_is_read(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "_MAX_TEXT", 1 << 20)
    big = tmp_path / "big.json"
    big.write_bytes(b"{" + b" " * (4 << 20) + b"}")
    with pytest.raises(reading.ResultFileError, match="more than 1 MiB of text"):
        read_result(big)


def test_the_bound_follows_the_memory_available() -> None:
    """1/8 of what is free (a parse takes several bytes per byte of text), never above the fixed
    bound, never below 1 MiB."""
    assert reading.text_limit(available=64 << 30) == reading._MAX_TEXT
    assert reading.text_limit(available=800 << 20) == 100 << 20
    assert reading.text_limit(available=1 << 20) == 1 << 20


def test_running_out_of_memory_while_parsing_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*_a: object, **_k: object) -> None:
        raise MemoryError
    monkeypatch.setattr(reading.json, "loads", no_memory)
    f = tmp_path / "x.json"
    f.write_text("{}")
    with pytest.raises(reading.ResultFileError, match="out of memory parsing"):
        reading.read_json(f)


def test_plain_output_is_unchanged(run) -> None:
    r = run(*QUICK, out="plain.json")
    assert r.code == 0, r.stderr
    assert r.out.read_bytes()[:1] == b"{"

"""Reading a memfbench file's JSON text, bounded: plain or gzip (told apart by content, not by
name), refused early when it cannot be one JSON object, and never expanded or parsed past what
this machine's memory holds (a gzip bomb, /dev/zero). Every problem is a ResultFileError naming
the file. What the text must say is the schema's to check (io/schema.py)."""
from __future__ import annotations

import json
import os
import stat
import zlib
from pathlib import Path
from typing import Any, BinaryIO


class ResultFileError(ValueError):
    """A result file that cannot be used; the message names the file and what is wrong."""


# How much of a file is read before deciding whether it can be a result at all, so that
# /dev/zero or a large binary file is refused at once instead of read to the end.
_HEAD = 1 << 16
_JSON_SPACE = b" \t\r\n"


# gzip's magic number: a result written as NAME.json.gz (docs/json-schema.md). Files are told
# apart by content, not by name, so a renamed file still loads.
_GZIP_MAGIC = b"\x1f\x8b"
# A bound on the text a file may hold, so a small hostile file (a gzip bomb) cannot fill memory:
# twice the text of a run that keeps the default --max-batches (4,194,304 batches of about 110
# bytes each: 460 MB), 100x a default study's. Lower where this machine's free memory would not hold the parse: Python
# keeps a result's numbers as objects of about 32 bytes each plus a list slot, some 6 times the
# text of a comma-separated column, and pandas copies them once more.
_MAX_TEXT = 1 << 30
_PARSE_BYTES_PER_TEXT_BYTE = 8
# Input is read, and compressed input expanded, this much at a time, so the bounds are checked
# while reading, never after, and no read asks for (and allocates) the whole bound at once.
_CHUNK = 1 << 22
# A gzip bomb (a small file that expands to gigabytes) is refused once its text passes _BOMB_FLOOR
# and has come from less than 1/_MAX_RATIO of its size in compressed bytes: memfbench's own .json.gz
# results expand 5 to 10 times (a 32-process study 4.8, a one-process file of 2.7 million batches
# 9.9), at most 28 times in their first 64 KiB; deflate's own limit is 1,032 times. So the bomb is
# refused after 64 MiB of text in a fraction of a second, not after the whole bound of _MAX_TEXT.
_MAX_RATIO = 200
_BOMB_FLOOR = 1 << 26


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def text_limit(available: int | None = None) -> int:
    """The most bytes of text a result file may hold on this machine (see _MAX_TEXT)."""
    available = _available_memory() if available is None else available
    return _MAX_TEXT if available is None else max(1 << 20, min(_MAX_TEXT, available // _PARSE_BYTES_PER_TEXT_BYTE))


def _too_large(p: Path, limit: int) -> ResultFileError:
    return ResultFileError(f"{p}: holds more than {limit >> 20} MiB of text, more than this machine can parse "
                           f"(at most 1 GiB, and 1/{_PARSE_BYTES_PER_TEXT_BYTE} of the memory available); "
                           f"not read")


def result_stem(path: str | Path) -> str:
    """The file's name without .json / .json.gz: "x" for both x.json and x.json.gz."""
    name = Path(path).name
    for ext in (".gz", ".json"):
        if name.endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    return name


def _bomb(p: Path, text: int, compressed: int) -> ResultFileError:
    return ResultFileError(f"{p}: a gzip file that expands more than {_MAX_RATIO} times ({text >> 20} MiB of text "
                           f"from {compressed >> 10} KiB), which no memfbench result does (they expand about 5 "
                           f"to 10 times): a gzip bomb? not read")


def _check_start(p: Path, text: bytes | bytearray) -> None:
    """Refuses text whose start cannot begin a result: a byte order mark, or a first character
    other than '{' (an empty text is json's to report)."""
    start = bytes(text[:_HEAD])
    if start.startswith(b"\xef\xbb\xbf"):
        raise ResultFileError(f"{p}: not a memfbench result: it starts with a UTF-8 byte order mark")
    first = start.lstrip(_JSON_SPACE)[:1]
    if first not in (b"{", b""):
        shown = f"'{first.decode('ascii')}'" if 0x20 < first[0] < 0x7f else f"byte 0x{first[0]:02x}"
        raise ResultFileError(f"{p}: not a memfbench result: a result is one JSON object, and this "
                              f"starts with {shown}")


def _gunzip(p: Path, f: BinaryIO, head: bytes, limit: int) -> bytearray:
    """The decompressed text of a gzip file whose first bytes are head, expanded _CHUNK at most at
    a time and refused as soon as it passes limit, or expands as no result does (_MAX_RATIO), or
    its start cannot begin a result (_check_start, on its first _HEAD bytes)."""
    d = zlib.decompressobj(wbits=15 + 16)
    out = bytearray()
    data = head
    consumed = 0  # compressed bytes the text so far came from
    started = False
    try:
        while True:
            while data:
                piece = d.decompress(data, min(_CHUNK, limit + 1 - len(out)))
                consumed += len(data) - len(d.unconsumed_tail)
                data = d.unconsumed_tail
                out += piece
                if not started and len(out) >= _HEAD:
                    _check_start(p, out)
                    started = True
                if len(out) > limit:
                    raise _too_large(p, limit)
                if len(out) > _BOMB_FLOOR and len(out) > _MAX_RATIO * consumed:
                    raise _bomb(p, len(out), consumed)
            if d.eof:
                break
            data = f.read(_CHUNK)
            if not data:
                raise ResultFileError(f"{p}: a gzip file cut short (the compressed stream does not end)")
    except zlib.error as e:
        raise ResultFileError(f"{p}: a gzip file that cannot be decompressed: {e}") from e
    if d.unused_data or f.read(1):
        raise ResultFileError(f"{p}: bytes after the end of the compressed stream; not one memfbench result")
    if not started:
        _check_start(p, out)
    return out  # a bytearray: a copy of up to the bound is not made


def _read_rest(p: Path, f: BinaryIO, head: bytes, limit: int) -> bytearray:
    """head and the rest of a plain file, read _CHUNK at a time and refused as soon as it passes
    limit (a regular file larger than limit before reading it)."""
    st = os.fstat(f.fileno())
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise _too_large(p, limit)
    out = bytearray(head)
    while len(out) <= limit:
        data = f.read(min(_CHUNK, limit + 1 - len(out)))
        if not data:
            return out
        out += data
    raise _too_large(p, limit)


def _open_regular(p: Path) -> BinaryIO:
    """p opened to read, never blocking (a FIFO no program writes to would hold open(2) forever) and
    only when it is a regular file, checked on the descriptor opened: a pipe or a device (/dev/zero)
    is refused as memfbench's own readers refuse it (bench/base/openin.c)."""
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "folder" if stat.S_ISDIR(st.st_mode) else "pipe" if stat.S_ISFIFO(st.st_mode) else "device or other"
            raise ResultFileError(f"{p}: not a regular file (a {kind}): give a result file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bytes(p: Path) -> bytes | bytearray:
    limit = text_limit()
    try:
        with _open_regular(p) as f:
            head = f.read(_HEAD)
            if head.startswith(_GZIP_MAGIC):
                return _gunzip(p, f, head, limit)
            _check_start(p, head)
            return _read_rest(p, f, head, limit)
    except OSError as e:
        raise ResultFileError(f"{p}: cannot read: {e.strerror or e}") from e


class DuplicateKeyError(ValueError):
    """A JSON object holding one key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json's object hook: an object as a dict, refused when a key comes twice (a second samples
    block would silently replace the first)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise DuplicateKeyError(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def read_json(path: str | Path) -> Any:
    """The JSON text of a memfbench file (plain or gzip), decoded but not validated."""
    p = Path(path)
    data = _read_bytes(p)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultFileError(f"{p}: not UTF-8 text (byte {e.start})") from e
    try:
        doc = json.loads(text, object_pairs_hook=_unique_keys)
    except DuplicateKeyError as e:
        raise ResultFileError(f"{p}: not a memfbench result: the key '{e}' is given twice in one object (which "
                              f"one counts is the reader's choice, so neither does)") from e
    except json.JSONDecodeError as e:
        raise ResultFileError(f"{p}:{e.lineno}: not JSON: {e.msg}") from e
    except RecursionError as e:
        raise ResultFileError(f"{p}: not a memfbench result: nested too deeply to read") from e
    except MemoryError as e:
        raise ResultFileError(f"{p}: out of memory parsing its {len(data) >> 20} MiB of text") from e
    except ValueError as e:  # Python's limit on the digits of an integer (4300)
        raise ResultFileError(f"{p}: not a memfbench result: an integer with too many digits") from e
    return doc

"""Output files written atomically: a temporary file (or folder) beside the target, renamed over it
only once it is complete, so a failure never leaves a partial, clobbered or stray file. Every
problem with an output is an OutputError whose message names the output and what is wrong."""
from __future__ import annotations

import errno
import json
import math
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

import numpy as np

T = TypeVar("T")

# Temporary names: hidden, recognisable, and short enough that a target name near NAME_MAX
# (255) still leaves room for them.
TMP_SUFFIX = ".analysis-tmp"
_NAME_KEEP = 64


class OutputError(OSError):
    """An output that cannot be written. An OSError (errno, strerror, filename), so callers that
    catch OSError keep working; str() is one line: "LABEL PATH: problem"."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _fail(path: str | Path, label: str, problem: str, code: int = errno.EINVAL) -> OutputError:
    name = f"{label} {path}" if label else str(path)
    return OutputError(code, problem, name)


def _from_os(e: OSError, path: str | Path, label: str) -> OutputError:
    if isinstance(e, OutputError):
        return e
    return _fail(path, label, f"cannot write: {e.strerror or e}", e.errno or errno.EIO)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # either missing (or a name the OS refuses): not the same file
        return False


def _existing(path: Path, raw: str, label: str) -> os.stat_result | None:
    """The target's status (through symlinks), None when there is nothing there yet."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise _fail(raw, label, "cannot write: a part of the path is a file, not a folder",
                    errno.ENOTDIR) from None


def _check_folder(folder: Path, raw: str, label: str) -> None:
    """The folder of a target that does not exist yet: it must exist (stat of the target would have
    said if a part of the path were a file)."""
    if not folder.is_dir():
        raise _fail(raw, label, f"cannot write: folder {folder} does not exist", errno.ENOENT)


def check_output_file(path: str | Path, label: str = "", inputs: Iterable[str | Path] = ()) -> Path:
    """The target of a file output, checked before any work so a bad path fails fast: not empty,
    not a folder, in an existing folder, not one of the inputs. Raises OutputError."""
    raw = str(path)
    if not raw:
        raise _fail("''", label, "empty file name")
    if raw.endswith(("/", os.sep)):
        raise _fail(raw, label, "names a folder; give a file name")
    p = Path(raw)
    try:
        st = _existing(p, raw, label)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise _fail(raw, label, "is a folder; give a file name", errno.EISDIR)
        if st is None:
            _check_folder(p.parent, raw, label)
    except OSError as e:
        raise _from_os(e, raw, label) from e
    for src in inputs:
        if _same_file(p, src):
            raise _fail(raw, label, "is an input file; refusing to overwrite it")
    return p


def write_text_atomic(path: str | Path, text: str, label: str = "", inputs: Iterable[str | Path] = ()) -> None:
    """Writes `text` (UTF-8; characters that cannot be encoded, such as undecodable bytes of a
    file name, backslash-escaped) as write_bytes_atomic does."""
    write_bytes_atomic(path, text.encode("utf-8", errors="backslashreplace"), label, inputs)


def write_bytes_atomic(path: str | Path, data: bytes, label: str = "", inputs: Iterable[str | Path] = ()) -> None:
    """Writes `data` to `path` with the permissions a plain write would give. A regular file is
    replaced atomically (through symlinks: the link stays, its target is replaced); a device or
    pipe (/dev/null, /dev/stdout) is written directly, since renaming over it would replace the
    device. Raises OutputError."""
    p = check_output_file(path, label, inputs)
    try:
        st = _existing(p, str(path), label)
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(p, "wb") as f:
                f.write(data)
            return
        target = Path(os.path.realpath(p)) if st is not None else p
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:_NAME_KEEP]}.", suffix=TMP_SUFFIX,
                                   dir=target.parent)
    except OSError as e:
        raise _from_os(e, path, label) from e
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise _from_os(e, path, label) from e
        raise


def check_output_folder(path: str | Path, label: str = "") -> Path:
    """The target of a folder output (a report): not empty, not a file, and its parent folder
    exists (the folder itself is created; a mistyped parent is not). Raises OutputError."""
    raw = str(path)
    if not raw:
        raise _fail("''", label, "empty folder name")
    p = Path(raw)
    try:
        st = _existing(p, raw, label)
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise _fail(raw, label, "is a file, not a folder", errno.ENOTDIR)
        if st is None:
            _check_folder(p.parent, raw, label)
    except OSError as e:
        raise _from_os(e, raw, label) from e
    return p


def write_folder_atomic(path: str | Path, fill: Callable[[Path], T], label: str = "",
                        inputs: Iterable[str | Path] = ()) -> T:
    """Calls fill(tmp) to write every file of a folder output into a fresh temporary folder beside
    `path`, then renames that folder to `path` or, when `path` exists, moves each file into it
    (over files of the same name; other files there stay). Returns fill's result. On any failure
    the temporary folder is removed and `path` is as it was. Raises OutputError."""
    p = check_output_folder(path, label)
    inputs = list(inputs)
    exists = p.is_dir()
    try:  # inside an existing folder, so the moves stay on its file system
        tmp = Path(tempfile.mkdtemp(prefix=f".{p.name[:_NAME_KEEP]}.", suffix=TMP_SUFFIX,
                                    dir=p if exists else p.parent))
    except OSError as e:
        raise _from_os(e, path, label) from e
    try:
        result = fill(tmp)
        os.chmod(tmp, 0o777 & ~_umask())
        if not exists:
            os.rename(tmp, p)
            return result
        names = sorted(f.name for f in tmp.iterdir())
        for name in names:  # every check before the first move, so a refusal changes nothing
            dest = p / name
            if dest.is_dir():
                raise _fail(path, label, f"cannot write: {dest} is a folder", errno.EISDIR)
            if any(_same_file(dest, src) for src in inputs):
                raise _fail(path, label, f"cannot write: {dest} is an input file; refusing to overwrite it")
        for name in names:
            os.replace(tmp / name, p / name)
        tmp.rmdir()
        return result
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise _from_os(e, path, label) from e
        raise


def _plain(x: Any) -> Any:
    """x with numpy scalars as Python numbers and non-finite floats as None."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def json_text(doc: Any) -> str:
    """Strict JSON for output files: NaN and infinities (an interval that does not exist) as null,
    since other tools' JSON readers refuse the non-standard NaN token."""
    return json.dumps(_plain(doc), indent=1, allow_nan=False, default=str) + "\n"

"""Result files as numpy columns and tidy pandas DataFrames: one row per batch, with its run's context
attached. The columns are what summarize and compare read; the frames are made from them on first
use, so a command that reads none imports no pandas."""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Union

import numpy as np

from . import schema
from .reading import ResultFileError, read_json, result_stem
from .upgrade import upgrade

if TYPE_CHECKING:
    import pandas as pd

# The frame's text columns, the same for every batch of a file, and where they stand in it (the
# columns of Batches fill the rest, `variant` after `distribution`).
TEXT_COLUMNS = ("run", "host", "function", "distribution")


@dataclass(frozen=True)
class Batches:
    """Batches as numpy columns, one entry per batch: what a Run's frame holds, without pandas.
    `columns` are the frame's columns but the text ones and the variant, in the frame's order
    (`process` first); `codes` each batch's variant as its index into `names` (the frame's
    categories); `text` the text columns (TEXT_COLUMNS), one value each for every batch (none in
    batches pooled from several files, which have no frame). b[name] is a column's array (the
    variant's names for "variant"), `name in b` whether it has it."""

    columns: dict[str, np.ndarray]
    codes: np.ndarray
    names: tuple[str, ...]
    text: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.codes)

    def __contains__(self, name: object) -> bool:
        return name in self.columns or name == "variant" or name in self.text

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "variant":
            return np.array(self.names, dtype=object)[self.codes]
        return self.columns[name]

    def variant_is(self, name: str) -> np.ndarray:
        """Which batches are of the variant `name` (all False for a name the batches do not have)."""
        return self.codes == (self.names.index(name) if name in self.names else -1)

    def present(self) -> set[str]:
        """The variants with at least one batch."""
        return {self.names[int(c)] for c in np.unique(self.codes)}

    def take(self, rows: np.ndarray) -> Batches:
        """The batches at rows (a boolean mask or indices), in their order."""
        return replace(self, columns={k: v[rows] for k, v in self.columns.items()}, codes=self.codes[rows])

    def renamed(self, mapping: dict[str, str]) -> Batches:
        """The batches with their variants renamed (old name -> new)."""
        return replace(self, names=tuple(mapping.get(n, n) for n in self.names))

    def frame(self) -> pd.DataFrame:
        """The batches as the frame Run.batches is: the text columns, process, the variant as a
        categorical of `names`, then the other columns."""
        import pandas as pd
        n = len(self)

        def text(key: str) -> Any:
            return pd.array([self.text[key]] * n, dtype="string")

        variant = pd.Categorical.from_codes(self.codes, categories=list(self.names))
        cols: dict[str, Any] = {"run": text("run"), "host": text("host"), "process": self.columns["process"],
                                "function": text("function"), "distribution": text("distribution"),
                                "variant": variant}
        cols.update((k, v) for k, v in self.columns.items() if k != "process")
        return pd.DataFrame(cols)


def stacked(parts: list[Batches]) -> Batches:
    """Batches of several files as one, without text columns (so without a frame): the variant names
    of all, in the order met, each part's codes taken to them."""
    names = tuple(dict.fromkeys(n for b in parts for n in b.names))
    codes = [np.array([names.index(n) for n in b.names], dtype=np.int64)[b.codes] for b in parts]
    keys = [k for k in parts[0].columns if all(k in b.columns for b in parts)]
    return Batches({k: np.concatenate([b.columns[k] for b in parts]) for k in keys}, np.concatenate(codes), names)


@dataclass(frozen=True)
class Run:
    """One result file: its document (context) and its batches. `batches` holds the whole
    distribution's batches, which every statistic of the file is about; with --by-class the size
    classes' batches are apart in `class_batches` (verdicts/classes.py reads them), so no
    comparison can pair a round's class batch with its whole-distribution batch.

    With --threads N (N > 1) both hold thread 0's batches timed while every thread ran, one per
    (process, round, variant) as in a one-thread file, so every statistic is about thread 0 under
    the others' load and none pairs a batch with another thread's or with thread 0's alone batch;
    `thread_batches` holds every whole-distribution batch of every thread, alone or not
    (stats/threads.py reads it). It is empty in a file without the thread columns.

    The three are pandas DataFrames made on first use from `table`, `class_table` and
    `thread_table`, the same batches as numpy columns (Batches; thread_table None for a file
    without the thread columns)."""

    path: str
    doc: dict[str, Any]
    table: Batches
    class_table: Batches
    thread_table: Batches | None = None

    @cached_property
    def batches(self) -> pd.DataFrame:
        return self.table.frame()

    @cached_property
    def class_batches(self) -> pd.DataFrame:
        return self.class_table.frame()

    @cached_property
    def thread_batches(self) -> pd.DataFrame:
        if self.thread_table is None:
            import pandas as pd
            return pd.DataFrame()
        return self.thread_table.frame()

    @property
    def variants(self) -> list[str]:
        return [v["name"] for v in self.doc["variants"]]

    @property
    def harness_variants(self) -> set[str]:
        """The harness-overhead probes (noop): what a call costs with no work. Probe variants
        (load1, load32) are also exempt from the result check but are not the harness's cost."""
        return {v["name"] for v in self.doc["variants"] if v["origin"] == "harness"}

    @property
    def layout_sentinels(self) -> set[str]:
        """Built-ins memfbench added to a study of prebuilt plugins to measure how far identical code
        moves with its code placement (variants[].layout_sentinel): no verdict is about them."""
        return {v["name"] for v in self.doc["variants"] if v.get("layout_sentinel")}

    @property
    def fixed_layout(self) -> set[str]:
        """Prebuilt plugins: code with the one layout its linker gave it (variants[].code_layout
        fixed, origin plugin), whose verdicts hold for that layout, not for its code."""
        return {v["name"] for v in self.doc["variants"] if v["origin"] == "plugin"}

    @property
    def placed(self) -> set[str]:
        """Variants whose code ran from several code placements (built-ins, source variants)."""
        return {v["name"] for v in self.doc["variants"] if v.get("code_placement") is not None}

    @property
    def baseline(self) -> str:
        return str(self.doc["config"]["baseline"])

    @property
    def function(self) -> str:
        return str(self.doc["config"]["function"])

    @property
    def cpu_model(self) -> str:
        """The host group of the file: comparisons pool files of one CPU model (their hosts are
        replicates of one machine type) and keep different models apart."""
        cpu = self.doc["host"].get("cpu") or {}
        return str(cpu.get("model") or "unknown CPU")

    @property
    def measure(self) -> str:
        """throughput (independent calls, the default) or latency (memfbench run --latency: each
        call waits for the previous one's result); files before the option are throughput."""
        return str(self.doc["config"].get("measure", "throughput"))

    @property
    def neighbours(self) -> str:
        """What thread 0's batches ran beside: "" alone on a quiet machine, else e.g. "2 threads,
        background bandwidth" (--threads, --background). Runs that differ in it measure different
        things, so no comparison pools them."""
        cfg = self.doc["config"]
        parts = []
        th = cfg.get("threads") or {}
        n = int(th.get("count", 1))
        if n > 1:
            smt = any(t.get("shares_core_with") for t in th.get("topology", []))
            parts.append(f"{n} threads" + (" (SMT siblings among them)" if smt else ""))
        if cfg.get("background"):
            k = len(cfg["background"]["cpus"])
            parts.append(f"background {cfg['background']['stressor']} on {k} CPU{'s' if k != 1 else ''}")
        return ", ".join(parts)

    @property
    def hostname(self) -> str:
        return str(self.doc["host"].get("hostname") or "")

    @property
    def distribution(self) -> str:
        return str(self.doc["config"]["distribution"])


# numpy type of each kind of sample column (schema.COLUMN_KINDS)
KIND_DTYPES: dict[str, type] = {"uint": np.int64, "int": np.int64, "number": np.float64, "bool": bool}
# sample columns the frame holds under another name (and unit)
FRAME_NAMES: dict[str, str] = {"t_start_ns": "t_start_s"}


def sample_arrays(samples: dict[str, Any]) -> dict[str, np.ndarray]:
    """Every sample column of the schema as a numpy array of its kind's type."""
    cols = {c: np.asarray(samples[c], dtype=KIND_DTYPES[schema.COLUMN_KINDS[c]]) for c in schema.SAMPLE_COLUMNS}
    # --counters: columns a file has only when it counted
    cols.update({c: np.asarray(samples[c], dtype=KIND_DTYPES[schema.OPTIONAL_KINDS[c]])
                 for c in schema.OPTIONAL_COLUMNS if c in samples})
    return cols


def batch_columns(doc: dict[str, Any], run_id: str) -> Batches:
    """The samples of one validated document as Batches (one entry per batch): the schema's sample
    columns, `t_start_ns` as `t_start_s` (seconds), then ns_per_call, bytes_per_ns,
    harness_ns_per_call, code_block, code_placement and kernel_placement; the run's context as its
    text (run_id, the host's name, the function and the distribution). Every column is made with
    numpy at once: adding them to a frame one at a time cost a small file's frame 1.5 ms, most of a
    history's reading of it."""
    names = [v["name"] for v in doc["variants"]]
    cols = sample_arrays(doc["samples"])
    codes, process = cols.pop("variant"), cols.pop("process")
    columns: dict[str, np.ndarray] = {"process": process}
    for name, values in cols.items():
        columns[FRAME_NAMES.get(name, name)] = values.astype(np.float64) / 1e9 if name == "t_start_ns" else values
    ns = cols["ns"]
    with np.errstate(divide="ignore", invalid="ignore"):  # as pandas divides: x / 0 is inf, 0 / 0 NaN
        columns["ns_per_call"] = ns / cols["calls"]
        columns["bytes_per_ns"] = np.where(ns > 0, cols["bytes"] / ns, np.nan)
    columns["harness_ns_per_call"] = harness_per_process(doc, process)
    columns["code_block"] = code_blocks(doc, cols["round"])
    columns["code_placement"], columns["kernel_placement"] = code_placements(doc, process, codes)
    # a name twice (a document no validation saw) is one category, as a categorical's names must be
    unique = tuple(dict.fromkeys(names))
    if len(unique) != len(names):
        codes = np.array([unique.index(n) for n in names], dtype=np.int64)[codes]
    text = {"run": run_id, "host": str(doc["host"].get("hostname", "")), "function": str(doc["config"]["function"]),
            "distribution": str(doc["config"]["distribution"])}
    return Batches(columns, np.asarray(codes, dtype=np.int64), unique, text)


def batches_frame(doc: dict[str, Any], run_id: str) -> pd.DataFrame:
    """The samples of one validated document as a DataFrame (one row per batch): the run's context,
    then the columns of batch_columns, with `variant` as the variant's name."""
    return batch_columns(doc, run_id).frame()


def code_blocks(doc: dict[str, Any], rounds: np.ndarray) -> np.ndarray:
    """Each batch's block of code placements: with --code-rotation round, rounds k*P to k*P + P - 1
    (P = code_placements) run the loop and every built-in from each of their P placements once,
    so block k = round // P; one placement per process (and files before the option): -1."""
    if doc["config"].get("code_rotation") != "round":
        return np.full(len(rounds), -1, dtype=np.int64)
    return rounds.astype(np.int64) // int(doc["layout"]["code_placements"])


def code_placements(doc: dict[str, Any], process: np.ndarray, variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each batch's code placements in its process: its variant's and the timed loop's
    (base/code_placement.h), -1 where the code has none (libc, a plugin) and for every batch of a
    file whose placements were not one per process balanced over the study (--code-rotation round,
    a one-process file, files before the design): only where they are balanced do their effects
    cancel in the mean the placement model's error is for (stats/placement_model.py design_estimate)."""
    none = np.full(len(process), -1, dtype=np.int64)
    layout = doc.get("layout")
    procs = doc.get("processes")
    if (doc["config"].get("code_rotation", "process") != "process" or not isinstance(layout, dict)
            or layout.get("code_placement_design") != "balanced" or not isinstance(procs, list) or not procs
            or not all(isinstance(p, dict) and isinstance(p.get("index"), int) and p["index"] >= 0 for p in procs)):
        return none, none.copy()

    def level(x: Any) -> int:
        return int(x) if isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 256 else -1

    nvars = len(doc["variants"])
    table = np.full((max(int(p["index"]) for p in procs) + 1, nvars + 1), -1, dtype=np.int64)
    for p in procs:
        placed = p.get("variant_code_placements")
        placed = placed if isinstance(placed, list) else []
        row = table[int(p["index"])]
        row[:min(len(placed), nvars)] = [level(x) for x in placed[:nvars]]
        own = p.get("layout")
        row[nvars] = level(own.get("kernel_code_placement")) if isinstance(own, dict) else -1
    rows = np.clip(process.astype(np.int64), 0, len(table) - 1)
    return table[rows, variant.astype(np.int64)], table[rows, nvars]


def harness_per_process(doc: dict[str, Any], process: np.ndarray) -> np.ndarray:
    """The harness overhead per call each batch's process measured (its noop through the same loop),
    from the `processes` block where there is one, else the file's `harness` block."""
    default = float(doc["harness"]["overhead_ns_per_call"])
    by_proc = {int(p["index"]): float(p["harness"]["overhead_ns_per_call"]) for p in doc.get("processes", [])
               if isinstance(p.get("harness"), dict)}
    out = np.full(len(process), default, dtype=np.float64)
    for index, overhead in by_proc.items():  # one pass per process, not one lookup per batch
        out[process == index] = overhead
    return out


def _parts(size_class: np.ndarray, thread: np.ndarray | None, alone: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The rows of batches, class_batches and thread_batches (see Run): boolean masks, the last None
    without the thread columns."""
    whole = size_class == 0
    if thread is None and alone is None:
        return whole, ~whole, None
    timed = np.ones(len(size_class), dtype=bool)
    if thread is not None:
        timed &= thread == 0
    if alone is not None:
        timed &= ~alone
    return whole & timed, ~whole & timed, whole


def split(b: Batches) -> tuple[Batches, Batches, Batches | None]:
    """A file's batches as (table, class_table, thread_table), see Run."""
    rows = _parts(b["size_class"], b.columns.get("thread"), b.columns.get("alone"))
    if rows[2] is None and rows[0].all():  # no class batches (no --by-class): the batches as they are
        return b, b.take(rows[1]), None
    return b.take(rows[0]), b.take(rows[1]), None if rows[2] is None else b.take(rows[2])


def split_batches(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A file's frame as (batches, class_batches, thread_batches), see Run. A frame without the
    thread columns gives its whole-distribution and class batches and an empty thread frame, as
    before the option."""
    import pandas as pd
    rows = _parts(df["size_class"].to_numpy(), df["thread"].to_numpy() if "thread" in df.columns else None,
                  df["alone"].to_numpy() if "alone" in df.columns else None)
    if rows[2] is None and rows[0].all():
        return df, df.iloc[:0].copy(), pd.DataFrame()
    return (df[rows[0]].reset_index(drop=True), df[rows[1]].reset_index(drop=True),
            pd.DataFrame() if rows[2] is None else df[rows[2]].reset_index(drop=True))


def shown_name(name: str) -> str:
    """Text as every view may print it: each character that is not printable (a newline, an
    escape sequence that would drive the terminal, the bidirectional overrides, which are format
    characters) written as its Python escape (\\n, \\x1b, \\u202e), so it is one line that shows
    what it holds."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


def _shown_names(doc: dict[str, Any]) -> None:
    """The document's variant and distribution names as views print them (shown_name), in every
    place that names them, so they still match each other."""
    for v in doc.get("variants", []):
        v["name"] = shown_name(v["name"])
    cfg = doc.get("config", {})
    if isinstance(cfg.get("variants"), list):
        cfg["variants"] = [shown_name(n) for n in cfg["variants"]]
    for key in ("baseline", "distribution"):
        if isinstance(cfg.get(key), str):
            cfg[key] = shown_name(cfg[key])
    # the warnings quote names too (a variant's, a file's): printed as the names are
    statuses = [doc.get("status")] + [p.get("status") for p in doc.get("processes") or [] if isinstance(p, dict)]
    for st in statuses:
        # a status the schema leaves open (a process's may be any value an older writer left)
        warns = st.get("warnings") if isinstance(st, dict) else None
        for w in warns if isinstance(warns, list) else []:
            if isinstance(w, dict) and isinstance(w.get("message"), str):
                w["message"] = shown_name(w["message"])
    # the distribution block's own copy of the name, which the context lines print
    dist = doc.get("distribution")
    if isinstance(dist, dict) and isinstance(dist.get("name"), str):
        dist["name"] = shown_name(dist["name"])


def read_result(path: str | Path) -> dict[str, Any]:
    """One result file's document: read (plain or gzip, bounded), brought to the current schema
    version, and validated; ResultFileError names the file and the first problem. Names are made
    printable (shown_name)."""
    doc = upgrade(read_json(path))
    schema.validate(doc, str(path))
    _shown_names(doc)
    return doc


def load_run(path: str | Path) -> Run:
    doc = read_result(path)
    if doc["samples"]["count"] == 0:  # valid (a run stopped before its first batch), but nothing to analyse
        raise ResultFileError(f"{path}: no samples: the run recorded no batches")
    b = batch_columns(doc, result_stem(path))
    measured = ~b["warmup"].astype(bool)
    if not measured.any():
        raise ResultFileError(f"{path}: no measured rounds: every one of its {len(b)} batches is warm-up, so "
                              f"there is nothing to compare (a run stopped during its warm-up)")
    # a warm-up batch too: the warm-up's plots and drift take logs of it, and no clock that
    # advances gives 0 (the property test of the reader found one that passed)
    zero = b["ns"] <= 0
    if zero.any():
        raise ResultFileError(f"{path}: {int(zero.sum())} of its {len(b)} batches took no time (ns 0; "
                              f"{int((zero & measured).sum())} of them measured): a clock that did not "
                              f"advance; not a measurement")
    return Run(str(path), doc, *split(b))


def files_matching(spec: str, parameter: str) -> list[str]:
    """The files a notebook's parameter names (paths or globs separated by os.pathsep), sorted;
    none matching is a ResultFileError that names the parameter, each pattern and the folder the
    relative ones were looked for in, instead of a bare "no result files given"."""
    import glob
    parts = [p for p in spec.split(os.pathsep) if p]
    found = sorted({f for p in parts for f in glob.glob(p)})
    if not found:
        raise ResultFileError(f"{parameter}: no result file matches {', '.join(repr(p) for p in parts) or '(empty)'}"
                              f" (relative to {os.getcwd()}); set {parameter} to your result files")
    return found


def _file_id(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # load_run names the problem
    return st.st_dev, st.st_ino


def check_distinct(paths: Iterable[str | Path]) -> None:
    """Refuses a file given twice (under any name: the same device and inode), since pooling it
    would count its processes twice and narrow every interval; from the names alone, before any
    file is read."""
    seen: dict[tuple[int, int], str | Path] = {}
    for p in paths:
        key = _file_id(p)
        if key is not None and key in seen:
            raise ResultFileError(f"{p}: given more than once (as {seen[key]})")
        if key is not None:
            seen[key] = p


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Several result files; one given twice is refused (check_distinct)."""
    paths = list(paths)
    check_distinct(paths)
    runs = [load_run(p) for p in paths]
    if not runs:
        raise ResultFileError("no result files given")
    return runs


def combine(runs: Iterable[Run]) -> pd.DataFrame:
    """All batches of several runs (hosts, processes, distributions) in one frame. Each file is
    its own set of processes (process ids offset by 1000 per file), so rounds pair within a file's
    process and never across files. A threaded file gives its `batches`: thread 0's, timed
    together, one per round and variant."""
    import pandas as pd
    frames = [r.batches.assign(variant=r.batches["variant"].astype("string"),
                               process=r.batches["process"] + 1000 * i)
              for i, r in enumerate(runs)]
    if len(frames) == 1 and isinstance(frames[0].index, pd.RangeIndex) and frames[0].index.start == 0 \
            and frames[0].index.step == 1:
        return frames[0]  # assign made it a new frame already; concat would copy it once more
    return pd.concat(frames, ignore_index=True)


def combine_columns(runs: Iterable[Run]) -> Batches:
    """combine's batches as numpy columns: each file's processes offset by 1000, the variants
    matched by name (one file's batches as they are)."""
    runs = list(runs)
    if len(runs) == 1:
        return runs[0].table
    parts = []
    for i, r in enumerate(runs):
        t = r.table
        parts.append(replace(t, columns={**t.columns, "process": t.columns["process"] + 1000 * i}))
    return stacked(parts)


Frame = Union["pd.DataFrame", Batches]


def measured(df: Frame) -> Frame:
    """Batches that count: warm-up batches are kept in the data but excluded from statistics."""
    if isinstance(df, Batches):
        return df.take(~df["warmup"].astype(bool))
    return df[~df["warmup"]]

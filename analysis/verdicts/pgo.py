"""PGO gain (`memfbench run --pgo`): each source variant NAME rebuilt with a profile trained on a
replay is the variant NAME-pgo of the same study (variants[].build.pgo), timed in the same rounds.
Its gain is the time ratio NAME-pgo / NAME with its interval, computed by compare.compare_runs
with NAME as the baseline (the same estimand, interval and pooling as every verdict). Several files
make the overfitting table: per source (file:symbol, compiler family) the gain trained on one
distribution (rows) and tested on another (columns: the study's distribution), each row labelled
by where the gain holds."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..io.load import Run
from ..io.reading import ResultFileError
from .compare import Comparison, compare_runs

SUFFIX = "-pgo"
# a code split by io/identity.py is NAME@ID: the name before the @ is the file's own
_AT = "@"


def _own(name: str) -> str:
    """The name the file gave a variant (io/identity.py may have made it NAME@ID)."""
    return name.split(_AT, 1)[0]


@dataclass(frozen=True)
class PgoPair:
    """A NAME-pgo variant of one run and the variant it is NAME's profiled build of."""
    run: Run
    variant: str          # the profiled build's name in the run (NAME-pgo, or NAME-pgo@ID)
    of: str               # the variant without the profile (NAME, or NAME@ID)
    source: str           # build.file:build.symbol
    family: str           # gcc or clang
    trained_on: str       # build.pgo.train.table (else .distribution), or the study's own
    tested_on: str        # the study's distribution
    own_distribution: bool  # trained on the study's own distribution (config.pgo.train null)
    pgo: dict[str, Any] = field(repr=False)


def _field(path: str, index: int, name: str, what: str) -> ResultFileError:
    return ResultFileError(f"{path}: variants[{index}] ({name}): {what}")


def pgo_pairs(run: Run) -> list[PgoPair]:
    """The run's (NAME, NAME-pgo) pairs, in file order. ResultFileError (one line naming the file
    and the field) for a NAME-pgo beside NAME without a build.pgo member, one whose member lacks
    what the gain needs (of, compiler_family, train.distribution), or whose `of` is not a variant
    of the file. The JSON Schema has checked every other field of the member where it is present."""
    variants = run.doc["variants"]
    own_names = {_own(v["name"]): v["name"] for v in variants}
    cfg = (run.doc["config"].get("pgo") or {})
    own_train = cfg.get("train") is None
    out = []
    for i, v in enumerate(variants):
        name = str(v["name"])
        build = v.get("build") if isinstance(v.get("build"), dict) else None
        pgo = build.get("pgo") if build is not None else None
        if pgo is None:
            own = _own(name)
            if own.endswith(SUFFIX) and own[:-len(SUFFIX)] in own_names:
                raise _field(run.path, i, name, f"build.pgo missing: a variant named {own} beside "
                             f"{own[:-len(SUFFIX)]} must be its profiled build (memfbench run --pgo writes build.pgo)")
            continue
        if not isinstance(pgo, dict):
            raise _field(run.path, i, name, "build.pgo is not an object")
        of = pgo.get("of")
        if not isinstance(of, str) or not of:
            raise _field(run.path, i, name, "build.pgo.of missing or not a variant name")
        if of not in own_names:
            raise _field(run.path, i, name, f"build.pgo.of '{of}' is not a variant of the file")
        family = pgo.get("compiler_family")
        if family not in ("gcc", "clang"):
            raise _field(run.path, i, name, f"build.pgo.compiler_family {family!r}: not gcc or clang")
        train = pgo.get("train")
        trained = train.get("distribution") if isinstance(train, dict) else None
        # a record folder trains on its FUNCTION_size.csv (train.table), the name a study tested on
        # it gives as -d
        table = train.get("table") if isinstance(train, dict) else None
        trained = table if isinstance(table, str) and table and isinstance(trained, str) else trained
        if not isinstance(trained, str) or not trained:
            raise _field(run.path, i, name, "build.pgo.train.distribution missing or not a string")
        out.append(PgoPair(run=run, variant=name, of=own_names[of],
                           source=f"{build.get('file', '?')}:{build.get('symbol', '?')}", family=str(family),
                           trained_on=run.distribution if own_train else trained, tested_on=run.distribution,
                           own_distribution=own_train, pgo=pgo))
    return out


@dataclass
class Gain:
    """NAME-pgo / NAME: the time ratio with its interval at `level`, from compare.compare_runs (the
    per-comparison interval, analyze compare --detail's `ci`), over the pooled files of one cell."""
    pairs: list[PgoPair]
    comparison: Comparison

    @property
    def ratio(self) -> float:
        return self.comparison.ratio

    @property
    def low(self) -> float:
        return self.comparison.ci_low

    @property
    def high(self) -> float:
        return self.comparison.ci_high

    @property
    def faster(self) -> bool:
        """The whole interval below 1: the profiled build is faster."""
        return self.high < 1

    @property
    def slower(self) -> bool:
        return self.low > 1

    def as_dict(self) -> dict[str, Any]:
        p = self.pairs[0]
        c = self.comparison
        return {"trained_on": p.trained_on, "tested_on": p.tested_on, "variant": p.variant, "of": p.of,
                "ratio": c.ratio, "ci_low": c.ci_low, "ci_high": c.ci_high, "level": c.level,
                "gain_pct": 100 * (c.ratio - 1), "gain_low_pct": 100 * (c.ci_low - 1),
                "gain_high_pct": 100 * (c.ci_high - 1), "processes": c.processes, "rounds": c.rounds,
                "interval": c.estimand, "files": sorted({x.run.path for x in self.pairs}),
                "profile_sha256": sorted({str(x.pgo.get("profile_sha256")) for x in self.pairs})}


def gain(pairs: list[PgoPair], level: float = 0.95) -> Gain:
    """The PGO gain of pairs of one source, training and study (one file's, or several files' of the
    same study, pooled as compare pools them). ValueError where compare keeps them apart (other
    CPU models, contexts, or a profiled code that differs between the files)."""
    names = {(p.of, p.variant) for p in pairs}
    files = ", ".join(sorted({p.run.path for p in pairs}))
    if len(names) > 1:
        raise ValueError(f"{files}: trained on {pairs[0].trained_on}, tested on {pairs[0].tested_on}: the files "
                         "hold different codes of the pair (" + "; ".join(f"{a}/{b}" for a, b in sorted(names))
                         + "); give one of them")
    of, variant = names.pop()
    comps = compare_runs([p.run for p in pairs], baseline=of, variants=[variant], level=level,
                         secondary=False, allow_single_process=True)
    if len(comps) != 1:
        raise ValueError(f"{files}: trained on {pairs[0].trained_on}, tested on {pairs[0].tested_on}: "
                         f"{len(comps)} comparisons, which compare keeps apart (CPU models, threads, pressure); "
                         "give the files of one study")
    return Gain(pairs, comps[0])


def pair_of(x: Gain | tuple[PgoPair, str]) -> PgoPair:
    """The pair of one of run_gains' entries."""
    return x.pairs[0] if isinstance(x, Gain) else x[0]


def run_gains(run: Run, level: float = 0.95) -> list[Gain | tuple[PgoPair, str]]:
    """Every pair of one file, each on its own: its gain, or the pair and why compare could not
    give one (a variant without samples: a run stopped early)."""
    out: list[Gain | tuple[PgoPair, str]] = []
    for p in pgo_pairs(run):
        try:
            out.append(gain([p], level))
        except ValueError as e:
            out.append((p, str(e)))
    return out


# Row labels of the overfitting table
HOLDS = "holds across distributions"
ONLY_OWN = "holds only on its training distribution"
NO_GAIN_OWN = "no gain on its own distribution"
SLOWER_OWN = "slower on its own distribution"
ONLY_TESTED = "faster on its training distribution (no other distribution tested)"
ELSEWHERE_ALL = "faster on every distribution tested (not tested on its training distribution)"
ELSEWHERE_SOME = "faster on some distributions (not tested on its training distribution)"
ELSEWHERE_NONE = "no gain on any distribution tested (not tested on its training distribution)"


def row_label(trained_on: str, cells: dict[str, Gain]) -> str:
    """Where a training row's gain holds: the gain interval below 1 (faster) in a column or not."""
    own = cells.get(trained_on)
    others = {t: g for t, g in cells.items() if t != trained_on}
    if own is None:
        faster = [g.faster for g in others.values()]
        return ELSEWHERE_ALL if all(faster) else ELSEWHERE_SOME if any(faster) else ELSEWHERE_NONE
    if not own.faster:
        base = SLOWER_OWN if own.slower else NO_GAIN_OWN
        elsewhere = [t for t, g in others.items() if g.faster]
        return base + (f" (faster on {', '.join(elsewhere)})" if elsewhere else "")
    if not others:
        return ONLY_TESTED
    lost = [t for t, g in others.items() if not g.faster]
    return HOLDS if not lost else f"{ONLY_OWN} (not faster on {', '.join(lost)})"


@dataclass
class PgoGroup:
    """One source's table: trained-on rows by tested-on columns."""
    function: str
    source: str
    family: str
    trained: list[str]
    tested: list[str]
    cells: dict[tuple[str, str], Gain]
    labels: dict[str, str]

    @property
    def title(self) -> str:
        return f"{self.source} ({self.family} profile), {self.function}"

    def verdict(self) -> str:
        """One line: each training row's label."""
        return "; ".join(f"trained on {t}: {self.labels[t]}" for t in self.trained)

    def as_dict(self) -> dict[str, Any]:
        return {"function": self.function, "source": self.source, "compiler_family": self.family,
                "verdict": self.verdict(), "trained_on": self.trained, "tested_on": self.tested,
                "rows": [{"trained_on": t, "label": self.labels[t]} for t in self.trained],
                "cells": [g.as_dict() for g in self.cells.values()]}


def pgo_table(runs: list[Run], level: float = 0.95) -> list[PgoGroup]:
    """Every source's trained-on x tested-on table over the runs' pairs; files of one cell (the same
    source, training and study) pooled. Rows and columns in the order the files name them, the
    training distributions that are also tested first, in the columns' order (the diagonal)."""
    keyed: dict[tuple[str, str, str], dict[tuple[str, str], list[PgoPair]]] = {}
    for r in (r for r in runs if not r.doc.get("sweep")):  # a sweep has no whole-distribution ratio
        for p in pgo_pairs(r):
            keyed.setdefault((r.function, p.source, p.family), {}).setdefault((p.trained_on, p.tested_on), []).append(p)
    groups = []
    for (function, source, family), by_cell in keyed.items():
        cells = {k: gain(v, level) for k, v in by_cell.items()}
        tested = list(dict.fromkeys(t for _, t in cells))
        trained_all = list(dict.fromkeys(t for t, _ in cells))
        trained = [t for t in tested if t in trained_all] + [t for t in trained_all if t not in tested]
        labels = {t: row_label(t, {c: g for (r, c), g in cells.items() if r == t}) for t in trained}
        groups.append(PgoGroup(function, source, family, trained, tested, cells, labels))
    return groups

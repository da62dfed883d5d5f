"""Results across commits: each variant's ratio to the baseline over a series of result files, and
the change points in it.

A series is one file per point (a commit, a nightly build), ordered by the commit time its label
carries (memfbench run --label, or git describe of the plugin's folder), by when the files were
made, or as given. Each point is the file's own comparison (compare.compare_runs on that file
alone): the ratio over its processes with its interval, so a point's interval is what a re-run at
that commit would be expected to vary by.

Change points: e-divisive means (Matteson and James, "A nonparametric approach for multiple change
point analysis of multivariate data", JASA 2014), the method MongoDB's performance CI and Hunter
(Apache Otava) use on noisy benchmark series, applied to the points' log ratios. It is a
distribution-free test of whether the values before and after a split come from one distribution:
the split maximizing the energy distance between the two sides is tested by permutation, and
accepted splits are searched again on each side (binary segmentation). Why this and not a t-test on
the points: a series of benchmark results is not normal (a host's bad hour is a burst, not a
spread), and the permutation test's false-alarm rate holds for any distribution of exchangeable
points. What it does not hold against is drift (points that are not exchangeable even without a
code change): docs/analysis.md gives the false-alarm rate measured on series of A/A studies."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..io.identity import code_id
from ..io.load import Run
from ..stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..stats.placement_model import design_estimate, welch

# A change needs this many points on each side: with fewer, one slow file looks like a step.
MIN_SIZE = 3
# The permutation test's significance per split; the search stops at the first split that fails,
# so on a series without a change it is also the chance of any false alarm (if points are
# exchangeable: measured on A/A series in docs/analysis.md).
ALPHA = 0.05
# Permutations per tested split: the smallest p-value they can show is 1/(R+1), 0.002 here, well
# below ALPHA; each costs O(n^2) for n points.
PERMUTATIONS = 499

ORDERS = ("label-time", "created", "given")
T = TypeVar("T")


@dataclass(frozen=True)
class FilePoint:
    """What a history keeps of one result file once it is read (file_point): its series, what it is
    ordered by, and its point for each variant compared in it; not its batches nor its document,
    so a series of 10,000 files holds 10,000 of these, not 10,000 files."""
    path: str
    key: tuple[str, str, str, str]       # series_key
    label: dict[str, Any]                # config.label ({} for none)
    created_utc: str | None
    rows: tuple[dict[str, Any], ...]     # points_of's columns but the position


def _label(item: Run | FilePoint) -> dict[str, Any]:
    if isinstance(item, FilePoint):
        return item.label
    return item.doc["config"].get("label") or {}


def _created(item: Run | FilePoint) -> str | None:
    return item.created_utc if isinstance(item, FilePoint) else item.doc.get("created_utc")


def label_text(run: Run | FilePoint) -> str:
    return str(_label(run).get("text") or "")


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def ordered(runs: list[T], order: str = "") -> tuple[list[T], str]:
    """The runs (or their FilePoints) in series order and a phrase saying which: by their labels'
    commit time when every file has one (order "" or "label-time"), else by when each file was made
    ("created"), or as given. Ties keep the given order."""
    if order not in ("",) + ORDERS:
        raise ValueError(f"--order {order}: one of {', '.join(ORDERS)}")
    times = [_parse_time(_label(r).get("commit_time")) for r in runs]
    if order == "given":
        return list(runs), "as given"
    if order in ("", "label-time") and all(t is not None for t in times):
        keyed = sorted(range(len(runs)), key=lambda i: (times[i], _parse_time(_created(runs[i])) or datetime.min, i))
        return [runs[i] for i in keyed], "by the commit time of each file's label"
    if order == "label-time":
        missing = next(r.path for r, t in zip(runs, times) if t is None)
        raise ValueError(f"--order label-time: {missing} has no label with a commit time (memfbench run --label "
                         f"gives text only; the git default adds the time); use --order created or given")
    created = [_parse_time(_created(r)) for r in runs]
    if any(c is None for c in created):
        missing = next(r.path for r, c in zip(runs, created) if c is None)
        raise ValueError(f"{missing}: no created_utc to order by; use --order given")
    keyed = sorted(range(len(runs)), key=lambda i: (created[i], i))
    return [runs[i] for i in keyed], "by when each file was made (created_utc)"


def series_key(run: Run) -> tuple[str, str, str, str]:
    """Files of one series measure one thing: a CPU model, a measure, a function, a distribution."""
    return run.cpu_model, run.measure, run.function, run.distribution


def file_point(run: Run, baseline: str | None = None, level: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
               seed: int = DEFAULT_SEED) -> FilePoint:
    """What a history needs of one file: its comparisons on its own (compare_runs on that file alone:
    the ratio over its processes with its interval) and the variant's and baseline's code ids (where
    the code changed along the series), with what the series is keyed and ordered by."""
    from .compare import compare_runs
    from .pool import study_se
    comps = compare_runs([run], baseline, level=level, adjust="none", resamples=resamples, seed=seed,
                         allow_single_process=True, secondary=False)
    ids = {v["name"]: code_id(v) for v in run.doc["variants"]}
    text = label_text(run)
    rows = tuple({"label": text, "file": run.path, "variant": c.variant, "baseline": c.baseline, "ratio": c.ratio,
                  "ci_low": c.ci_low, "ci_high": c.ci_high, "se": study_se(c), "processes": c.processes,
                  "dropped": len(c.dropped),
                  "code": ids.get(c.variant) or "", "baseline_code": ids.get(c.baseline) or ""} for c in comps)
    return FilePoint(run.path, series_key(run), dict(_label(run)), _created(run), rows)


def points_of(points: list[FilePoint]) -> pd.DataFrame:
    """One row per (file, variant) of files in series order: position in the series (from 1),
    label, file, variant, baseline, ratio and its interval over the file's processes, processes,
    and the variant's and baseline's code ids."""
    return pd.DataFrame([{"position": i + 1, **row} for i, fp in enumerate(points) for row in fp.rows])


def points_frame(runs: list[Run], baseline: str | None = None, level: float = 0.95,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """points_of the runs, in the order given. Every file must be one series (series_key); a
    one-process file's interval is over its rounds and covers its one layout only."""
    return points_of([file_point(r, baseline, level, resamples, seed) for r in runs])


def _energy_q(d: np.ndarray, min_size: int) -> np.ndarray:
    """E-divisive's statistic for every split tau (the first tau points against the rest) of the
    distance matrix d (n x n), -inf where a side has fewer than min_size points. With P the 2-D
    prefix sum of d, the left block's sum is P[t,t], the cross block's P[t,n] - P[t,t], the right
    block's P[n,n] - 2 P[t,n] + P[t,t] (d is symmetric)."""
    n = len(d)
    p = np.zeros((n + 1, n + 1))
    p[1:, 1:] = d.cumsum(0).cumsum(1)
    t = np.arange(n + 1)
    m, k = t.astype(float), (n - t).astype(float)
    ok = (m >= max(min_size, 2)) & (k >= max(min_size, 2))
    q = np.full(n + 1, -np.inf)
    mm, kk, tt = m[ok], k[ok], t[ok]
    left = p[tt, tt]
    cross = p[tt, n] - p[tt, tt]
    right = p[n, n] - 2 * p[tt, n] + p[tt, tt]
    q[ok] = mm * kk / (mm + kk) * (2 * cross / (mm * kk) - left / (mm * (mm - 1)) - right / (kk * (kk - 1)))
    return q


# Series longer than this are searched with the statistic's O(n log^2 n) form (_sorted_q), shorter
# ones with the distance matrix (_energy_q), as before it: the matrix takes O(n^2) memory and time for
# each permutation, which a history of 10,000 files cannot pay (800 MB a matrix, 10^8 entries summed
# 499 times per split tested).
MATRIX_MAX = 256


def _split_q(left: np.ndarray, right: np.ndarray, total: float, min_size: int) -> np.ndarray:
    """E-divisive's statistic for every split tau (the first tau of n points against the rest) from
    the sums of distances over ordered pairs within the first tau points (left[tau]), within the rest
    (right[tau]) and over all n (total): the cross sum is what is left of the total, halved."""
    n = len(left) - 1
    t = np.arange(n + 1)
    m, k = t.astype(float), (n - t).astype(float)
    ok = (m >= max(min_size, 2)) & (k >= max(min_size, 2))
    q = np.full(n + 1, -np.inf)
    mm, kk = m[ok], k[ok]
    cross = (total - left[ok] - right[ok]) / 2
    q[ok] = mm * kk / (mm + kk) * (2 * cross / (mm * kk) - left[ok] / (mm * (mm - 1)) - right[ok] / (kk * (kk - 1)))
    return q


@lru_cache(maxsize=8)
def _merge_levels(n: int) -> tuple[tuple[int, np.ndarray, np.ndarray], ...]:
    """For each level l of a bottom-up merge of n indices (blocks of 2^l, each left block paired with
    the right one after it), where in an order sorted by (pair, rank) each position's pair starts
    and ends."""
    pos = np.arange(n)
    out = []
    level = 0
    while (1 << level) < n:
        start = (pos >> (level + 1)) << (level + 1)
        out.append((level, start, np.minimum(start + (2 << level), n)))
        level += 1
    return tuple(out)


def _earlier_distances(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """a[s] = sum over i < s of |x[s] - x[i]|, for every s at once: each pair i < s is counted at the
    one level of a bottom-up merge where i's block and s's are siblings, from the count and sum of
    the left block's values below x[s] (the block in rank order: a stable sort, which finds the two
    sorted halves and merges them)."""
    n = len(x)
    a = np.zeros(n)
    order = np.arange(n)
    counts = np.zeros(n + 1, dtype=np.int64)
    sums = np.zeros(n + 1)
    for level, start, end in _merge_levels(n):
        order = order[np.argsort((order >> (level + 1)) * n + rank[order], kind="stable")]
        xo = x[order]
        left = ((order >> level) & 1) == 0
        np.cumsum(left, out=counts[1:])
        np.cumsum(np.where(left, xo, 0.0), out=sums[1:])
        below, below_sum = counts[1:] - counts[start], sums[1:] - sums[start]
        block_sum = sums[end] - sums[start]  # the whole left block: 2^level values
        # below: x - value, each of the rest of the left block: value - x
        a[order] += np.where(left, 0.0, xo * (2 * below - (1 << level)) - 2 * below_sum + block_sum)
    return a


def _sorted_q(x: np.ndarray, rank: np.ndarray, to_all: np.ndarray, min_size: int) -> np.ndarray:
    """_energy_q of the series x without its distance matrix: rank is each value's place in sorted
    order (ties broken by position) and to_all each value's summed distance to every value, which
    do not depend on the order of the series (so a permutation o of it passes rank[o], to_all[o])."""
    a = _earlier_distances(x, rank)
    left = np.zeros(len(x) + 1)
    left[1:] = 2 * np.cumsum(a)
    right = np.zeros(len(x) + 1)
    right[:-1] = 2 * np.cumsum((to_all - a)[::-1])[::-1]  # a value's distances to the values after it
    return _split_q(left, right, float(to_all.sum()), min_size)


def _distances_to_all(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each value's rank (stable) and summed distance to every value of x, from one sort."""
    n = len(x)
    by_value = np.argsort(x, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_value] = np.arange(n)
    below = np.zeros(n)
    below[by_value] = np.cumsum(x[by_value]) - x[by_value]  # the sum of the values ranked below
    return rank, x * (2 * rank - n + 1) - 2 * below + (x.sum() - x)


def best_split(x: np.ndarray, min_size: int, permutations: int, rng: np.random.Generator,
               stop_at: float | None = None) -> tuple[int, float]:
    """The split of x maximizing the energy statistic, and its permutation p-value: the share of
    permuted orders (and the observed one) whose best split is at least as large. (-1, 1.0) when x
    is too short to split with min_size points a side. With stop_at, the permutations stop being
    scored once the p-value cannot end below stop_at, and the share so far (at least stop_at) is
    returned; every permutation is still drawn, so the generator moves on as it would have."""
    n = len(x)
    if n < 2 * max(min_size, 2):
        return -1, 1.0
    if n <= MATRIX_MAX:
        d = np.abs(x[:, None] - x[None, :])
        q = _energy_q(d, min_size)

        def largest(o: np.ndarray) -> float:
            return float(_energy_q(d[np.ix_(o, o)], min_size).max())
    else:
        rank, to_all = _distances_to_all(x)
        q = _sorted_q(x, rank, to_all, min_size)

        def largest(o: np.ndarray) -> float:
            return float(_sorted_q(x[o], rank[o], to_all[o], min_size).max())
    tau = int(np.argmax(q))
    observed = q[tau]
    at_least = 1
    for _ in range(permutations):
        o = rng.permutation(n)
        if stop_at is not None and at_least / (permutations + 1) >= stop_at:
            continue  # decided: the p-value is at least stop_at
        if largest(o) >= observed - 1e-12 * abs(observed):
            at_least += 1
    return tau, at_least / (permutations + 1)


@dataclass
class Change:
    """A detected change: the first point after it (1-based position), the sides' values, the
    change as after/before with its interval (Welch t on the two adjacent segments' log values),
    and the permutation p-value."""
    variant: str
    position: int
    before_label: str
    after_label: str
    before_file: str
    after_file: str
    before: float
    after: float
    change: float
    low: float
    high: float
    p_value: float
    points_before: int
    points_after: int
    code_changed: str = ""
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "notes"}


def strongest_step_p(n: int, min_size: int = MIN_SIZE, permutations: int = PERMUTATIONS,
                     seed: int = DEFAULT_SEED) -> float:
    """The p-value the test gives the strongest change n points can show: a step between two
    halves far apart. A permutation test of n points cannot go below the share of orderings that
    look as split as the data (for 6 points, 2 of the 20 ways to choose a half: 0.1), so a series
    this short finds no change at an alpha below it, whatever the step."""
    if n < 2 * max(min_size, 2):
        return 1.0
    k = n // 2
    x = np.r_[np.arange(k) * 1e-9, 1.0 + np.arange(n - k) * 1e-9]  # a step, no ties
    return best_split(x, min_size, permutations, np.random.default_rng(seed))[1]


def points_needed(alpha: float, min_size: int = MIN_SIZE, permutations: int = PERMUTATIONS,
                  seed: int = DEFAULT_SEED, start: int = 2, limit: int = 64) -> int:
    """The fewest points from start on whose strongest step the test finds at alpha; limit + 1
    when none up to limit does (an alpha below what the permutations can show)."""
    for n in range(max(start, 2 * max(min_size, 2)), limit + 1):
        if strongest_step_p(n, min_size, permutations, seed) < alpha:
            return n
    return limit + 1


def change_points(x: np.ndarray, min_size: int = MIN_SIZE, alpha: float = ALPHA,
                  permutations: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> list[tuple[int, float]]:
    """E-divisive means with binary segmentation over x (log values in series order): the accepted
    splits as (index of the first point after, p-value), in series order. Segments are searched
    largest first; the first that does not split stops that branch."""
    rng = np.random.default_rng(seed)
    found: list[tuple[int, float]] = []
    todo = [(0, len(x))]
    while todo:
        a, b = todo.pop()
        tau, p = best_split(x[a:b], min_size, permutations, rng, stop_at=alpha)
        if tau < 0 or p >= alpha:
            continue
        found.append((a + tau, p))
        todo += [(a, a + tau), (a + tau, b)]
    return sorted(found)


def detect(points: pd.DataFrame, min_size: int = MIN_SIZE, alpha: float = ALPHA,
           permutations: int = PERMUTATIONS, seed: int = DEFAULT_SEED,
           level: float = 0.95) -> list[Change]:
    """The change points of every variant's series of ratios (points_frame), each with its size and
    interval between the segments on either side, and the code change at it, if any."""
    out: list[Change] = []
    for variant, g in points.groupby("variant", sort=False, observed=True):
        g = g.sort_values("position")
        x = np.log(g["ratio"].to_numpy(dtype=float))
        cuts = change_points(x, min_size, alpha, permutations, seed)
        edges = [0] + [c for c, _ in cuts] + [len(x)]
        for j, (c, p) in enumerate(cuts):
            before, after = x[edges[j]:c], x[c:edges[j + 2]]
            d, lo, hi, _ = welch(design_estimate(before), design_estimate(after), level)  # after - before, in logs
            change, low, high = float(np.exp(d)), float(np.exp(lo)), float(np.exp(hi))
            rb, ra = g.iloc[c - 1], g.iloc[c]
            codes = []
            for col, who in (("code", str(variant)), ("baseline_code", str(rb["baseline"]))):
                if rb[col] and ra[col] and rb[col] != ra[col]:
                    codes.append(f"{who} {rb[col][:6]} -> {ra[col][:6]}")
            out.append(Change(str(variant), int(ra["position"]), str(rb["label"]), str(ra["label"]), str(rb["file"]),
                              str(ra["file"]), float(np.exp(before.mean())), float(np.exp(after.mean())), change,
                              low, high, float(p), len(before), len(after), "; ".join(codes)))
    return out


@dataclass(frozen=True)
class Drift:
    """How far a variant's ratio moves from one study to the next on this host beyond each study's
    own interval: REML's between-study sd over the longest stretch of the series without a change
    point (stats/pooling.py), the studies it rests on, and where the stretch lies."""
    variant: str
    sd: float          # nan: no stretch of MIN_STUDIES_TAU studies
    studies: int
    first: int         # positions (from 1) of the stretch
    last: int


def drift(points: pd.DataFrame, changes: list[Change]) -> list[Drift]:
    """Each variant's between-study sd, from its longest stretch between change points."""
    from ..stats.pooling import between_sd
    out = []
    for variant, g in points.groupby("variant", sort=False, observed=True):
        g = g.sort_values("position")
        cuts = sorted(c.position for c in changes if c.variant == variant)
        pos = g["position"].to_numpy()
        edges = [int(pos[0])] + cuts + [int(pos[-1]) + 1]
        a, b = max(zip(edges[:-1], edges[1:]), key=lambda e: e[1] - e[0])
        seg = g[(g["position"] >= a) & (g["position"] < b)]
        se = seg["se"].to_numpy(dtype=float) if "se" in seg else np.full(len(seg), np.nan)
        sd = between_sd(np.log(seg["ratio"].to_numpy(dtype=float)), se)
        out.append(Drift(str(variant), sd, len(seg), a, b - 1))
    return out


def drift_line(d: Drift) -> str:
    if not np.isfinite(d.sd):
        return f"- {d.variant}: not measured (fewer than 3 studies without a change between them)"
    return f"- {d.variant}: ±{d.sd:.2%} a study (REML over the {d.studies} studies #{d.first} to #{d.last})"


# What every drift line's figure is, said once under them.
DRIFT_MEANING = ("a later study's ratio moves by this beyond its own interval, measured over the longest stretch "
                 "without a change; analyze pool and diff --history use it")


def glance_rows(points: pd.DataFrame, changes: list[Change], drifts: list[Drift]) -> list[tuple[str, str, str, str]]:
    """The history at a glance, a row per variant: its name, its ratio at the first and the last
    file, what the detector found ("no change", or each change as +P % at #K), and its drift."""
    rows = []
    drift = {d.variant: d for d in drifts}
    for variant, g in points.groupby("variant", sort=False, observed=True):
        g = g.sort_values("position")
        found = [c for c in changes if c.variant == variant]
        what = ", ".join(f"{(c.change - 1) * 100:+.1f} % at #{c.position}" for c in found) or "no change"
        d = drift.get(str(variant))
        sd = f"±{d.sd:.2%} drift" if d is not None and np.isfinite(d.sd) else ""
        rows.append((str(variant), f"{g['ratio'].iloc[0]:.3f} -> {g['ratio'].iloc[-1]:.3f}", what, sd))
    return rows


def code_changes(points: pd.DataFrame) -> pd.DataFrame:
    """Where a variant's code (or its baseline's) differs from the point before: position, variant,
    what changed. A change point near one is likely that code's doing; one without is the
    machine's, or the code around it."""
    rows = []
    for variant, g in points.groupby("variant", sort=False, observed=True):
        g = g.sort_values("position")
        for col in ("code", "baseline_code"):
            prev = None
            for _, r in g.iterrows():
                if prev is not None and r[col] and prev[col] and r[col] != prev[col]:
                    who = variant if col == "code" else r["baseline"]
                    rows.append({"position": int(r["position"]), "variant": variant, "whose": who,
                                 "from": prev[col][:6], "to": r[col][:6]})
                prev = r
    return pd.DataFrame(rows, columns=["position", "variant", "whose", "from", "to"])


def change_line(c: Change, level: float) -> str:
    where = (f"between #{c.position - 1}" + (f" ({c.before_label})" if c.before_label else "")
             + f" and #{c.position}" + (f" ({c.after_label})" if c.after_label else ""))
    return (f"- {c.variant}: {where}: ratio {c.before:.4f} -> {c.after:.4f}, change {(c.change - 1) * 100:+.2f} % "
            f"[{(c.low - 1) * 100:+.2f}, {(c.high - 1) * 100:+.2f}] ({level:.0%} CI, {c.points_before} and "
            f"{c.points_after} points), p {c.p_value:.3f}" + (f"; code changed there: {c.code_changed}"
                                                              if c.code_changed else ""))


@dataclass
class Rates:
    """How the detector fares on resampled series of known content (tools/bench_history.py)."""
    draws: int
    length: int
    flagged: int         # series with at least one change point
    at_step: int = 0     # step series: a change within one point of the true step
    sizes: list[float] = field(default_factory=list)  # step series: the change found at the step


def false_alarms(x: np.ndarray, length: int, draws: int, min_size: int = MIN_SIZE, alpha: float = ALPHA,
                 permutations: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> Rates:
    """Series of `length` points drawn without replacement, in random order, from the log ratios x
    of studies of one unchanged build (A/A): how many of `draws` series get a change point. Under
    exchangeable points this is the test's own rate (about alpha); drift between studies shows as
    more when x is also taken in its time order (the caller's series)."""
    rng = np.random.default_rng(seed)
    flagged = 0
    for k in range(draws):
        s = x[rng.choice(len(x), size=length, replace=False)]
        flagged += bool(change_points(s, min_size, alpha, permutations, seed + 1 + k))
    return Rates(draws, length, flagged)


def detections(before: np.ndarray, after: np.ndarray, half: int, draws: int, min_size: int = MIN_SIZE,
               alpha: float = ALPHA, permutations: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> Rates:
    """Series of `half` points drawn from `before` then `half` from `after` (log ratios of studies
    before and after a known code change): how many of `draws` series get any change point, how
    many one within a point of the true step, and the size (after / before) of each found there."""
    rng = np.random.default_rng(seed)
    r = Rates(draws, 2 * half, 0)
    for k in range(draws):
        s = np.concatenate([before[rng.choice(len(before), size=half, replace=False)],
                            after[rng.choice(len(after), size=half, replace=False)]])
        cuts = change_points(s, min_size, alpha, permutations, seed + 1 + k)
        r.flagged += bool(cuts)
        near = [c for c, _ in cuts if abs(c - half) <= 1]
        if near:
            r.at_step += 1
            edges = [0] + [c for c, _ in cuts] + [len(s)]
            j = [c for c, _ in cuts].index(near[0])
            r.sizes.append(float(np.exp(s[near[0]:edges[j + 2]].mean() - s[edges[j]:near[0]].mean())))
    return r


def injected(x: np.ndarray, step: float, length: int, draws: int, min_size: int = MIN_SIZE, alpha: float = ALPHA,
             permutations: int = PERMUTATIONS, seed: int = DEFAULT_SEED) -> Rates:
    """The power of the detector on this machine's own noise: series of `length` A/A log ratios x
    drawn at random, with log(1 + step) added to the second half (a known step of that size where
    nothing else differs), as `detections` counts them."""
    half = length // 2
    rng = np.random.default_rng(seed)
    r = Rates(draws, 2 * half, 0)
    for k in range(draws):
        s = x[rng.choice(len(x), size=2 * half, replace=False)].copy()
        s[half:] += np.log1p(step)
        cuts = [c for c, _ in change_points(s, min_size, alpha, permutations, seed + 1 + k)]
        r.flagged += bool(cuts)
        r.at_step += any(abs(c - half) <= 1 for c in cuts)
    return r

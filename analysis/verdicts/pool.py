"""Studies of the same code on the same host, run at different times, pooled into one number per
variant: each file's own comparison (compare.compare_runs on that file alone, the estimator every
verdict uses) gives its ratio and standard error, and stats/pooling.py combines them with a
between-study variance (the host's drift between studies), measured from the files where there
are at least three, else the validation's stated default for the CPU (stats/validated.py). The
interval is about the code on this host over time; the prediction interval says where a study run
later would put its ratio. Files of other code (a variant's code id differs), another host or
another study (function, distribution, measure, pressure, neighbours) are refused in one line."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..io.identity import code_id, describe
from ..io.load import Run
from ..stats import laws
from ..stats.multiplicity import holm
from ..stats.pooling import pool
from ..stats.validated import drift_default
from .compare import Comparison, baseline_of, compare_runs, cpu_key, verdict_of, withheld


@dataclass
class PooledComparison:
    variant: str
    baseline: str
    function: str
    distribution: str
    cpu_model: str
    host: str
    studies: int
    ratio: float            # exp(mu)
    ci_low: float           # at `level`
    ci_high: float
    ci_adj_low: float       # simultaneous over the variants (Bonferroni)
    ci_adj_high: float
    pi_low: float           # where a study run later puts its ratio (prediction, at `level`)
    pi_high: float
    between_sd: float       # the between-study sd used (relative, log scale)
    between_sd_measured: float
    between_source: str
    p: float
    p_adjusted: float
    verdict: str
    level: float
    margin: float
    withheld_studies: int   # studies whose own verdict was withheld (their ratios are in the pool)
    per_study: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["notes"] = "; ".join(self.notes)
        return d


# What must be the same in every pooled file, as (what it is, how to read it from a Run).
SAME = (("host", lambda r: str(r.hostname)), ("CPU model", lambda r: r.cpu_model),
        ("function", lambda r: r.function), ("distribution", lambda r: r.distribution),
        ("measure", lambda r: r.measure), ("neighbours", lambda r: r.neighbours or "none"),
        ("icache pressure", lambda r: str((r.doc["config"].get("icache_pressure") or {}).get("bytes", 0))))


def check_poolable(runs: list[Run]) -> None:
    """Raises ValueError, one line naming the file and what differs, where the files are not studies
    of the same code on the same host (a name's code id differing between two files: other code)."""
    first = runs[0]
    for r in runs[1:]:
        for what, get in SAME:
            if get(r) != get(first):
                raise ValueError(f"pool: {r.path}: {what} {get(r)!r}, not {get(first)!r} as in {first.path}: pool "
                                 "studies of the same code on the same host (compare keeps other studies apart)")
        if r.doc.get("sweep"):
            raise ValueError(f"pool: {r.path}: a size sweep; pool replays of one distribution")
    seen: dict[str, tuple[str, dict[str, Any]]] = {}
    for r in runs:
        for v in r.doc["variants"]:
            ident = code_id(v)
            if v["name"] in seen and ident and seen[v["name"]][1] and code_id(seen[v["name"]][1]) != ident:
                raise ValueError(f"pool: {v['name']} is other code in {r.path} ({describe(v)}) than in "
                                 f"{seen[v['name']][0]} ({describe(seen[v['name']][1])}): pool studies of the same "
                                 "code (diff compares two builds)")
            seen.setdefault(v["name"], (r.path, v))


def study_se(c: Comparison) -> float:
    """A study's standard error of its log ratio: the placement model's (or the t interval's), else
    read back from its interval (one process's sign-test interval, as the normal law's)."""
    if c.design is not None and np.isfinite(c.design.se):
        return float(c.design.se)
    if c.ci_low > 0 and np.isfinite(c.ci_high):
        return float((np.log(c.ci_high) - np.log(c.ci_low)) / (2 * laws.norm_quantile(0.5 + c.level / 2)))
    return float("nan")


def pool_runs(runs: list[Run], baseline: str | None = None, level: float = 0.95, margin: float = 0.01,
              tau_default: float | None = None, tau_source: str = "") -> list[PooledComparison]:
    """Each variant compared with the baseline in every file, pooled over the files (check_poolable
    first). The between-study sd is REML's over the files where they are at least three, else
    tau_default (default: the validation's for the CPU); Holm over the variants, Bonferroni
    simultaneous intervals, verdicts as within a study (compare.verdict_of)."""
    check_poolable(runs)
    base = baseline_of(runs[0], baseline)
    per_file = [compare_runs([r], baseline, level=level, margin=margin, adjust="none", secondary=False)
                for r in runs]
    floor, floor_source = 0.0, ""
    if tau_default is None:
        tau_default, tau_source = drift_default(cpu_key(runs[0]))
        # Studies run minutes apart do not see how far the host drifts over hours: pooled over
        # 40 such studies, avx2/libc's prediction held 12 of 20 studies run an hour later
        # (docs/validation.md, section 12). The validation's figure for the CPU is the floor.
        floor, floor_source = tau_default, "the validation's figure for this CPU (" + tau_source + ")"
    names = list(dict.fromkeys(c.variant for comps in per_file for c in comps))
    out: list[PooledComparison] = []
    fits: list = []
    for v in names:
        rows = [(r, c) for r, comps in zip(runs, per_file) for c in comps if c.variant == v and c.rounds >= 2]
        y = np.array([np.log(c.ratio) for _, c in rows])
        se = np.array([study_se(c) for _, c in rows])
        ok = np.isfinite(y) & np.isfinite(se) & (se > 0)
        studies = [{"file": r.path, "created_utc": r.doc.get("created_utc"), "ratio": c.ratio, "ci_low": c.ci_low,
                    "ci_high": c.ci_high, "processes": c.processes, "dropped": len(c.dropped),
                    "withheld": withheld(c)} for r, c in rows]
        if ok.sum() < 2:
            continue
        p = pool(y[ok], se[ok], tau_default, tau_source, floor, floor_source)
        lo, hi = p.interval(level)
        plo, phi = p.prediction(level)
        out.append(PooledComparison(v, base, runs[0].function, runs[0].distribution, runs[0].cpu_model,
                                    str(runs[0].hostname), int(ok.sum()), float(np.exp(p.estimate)),
                                    float(np.exp(lo)), float(np.exp(hi)), float(np.exp(lo)), float(np.exp(hi)),
                                    float(np.exp(plo)), float(np.exp(phi)), p.tau, p.tau_measured, p.tau_source,
                                    p.p_value(), p.p_value(), "", level, margin,
                                    sum(s["withheld"] for s in studies), studies))
        fits.append(p)
    m = len(out)
    for pc, p, pa in zip(out, fits, holm(np.array([pc.p for pc in out])) if out else []):
        pc.p_adjusted = float(pa)
        if m > 1:
            lo, hi = p.interval(1 - (1 - level) / m)
            pc.ci_adj_low, pc.ci_adj_high = float(np.exp(lo)), float(np.exp(hi))
        pc.verdict = verdict_of(pc.ci_adj_low, pc.ci_adj_high, pc.p_adjusted, pc.ratio, margin, 1 - level)
    return out

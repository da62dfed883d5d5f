"""Program-level A/B (memfbench ab): a program's end-to-end time under each variant against its time
under the C library's functions, and the shim's own cost.

Each block runs every arm once, in an order of its own, so a block is the replicate: per block the
log of time(variant) / time(libc behind the shim), then over the blocks the mean with a Student t
interval, a prediction interval for a re-run with as many blocks, and how many blocks would resolve
the margin, with the verdict rule of every other comparison (compare.verdict_of; Holm over the
variants). The same for CPU time (user + sys of the program and the children it waited for). The
shim's cost is libc behind the shim against the program as it is (arm "plain"), by the same rule."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd

from . import stats
from .compare import verdict_of
from .schema import ResultFileError, load_schema_file, read_json

AB_SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "schema" / "memfbench-ab.schema.json"
MEASURES = {"wall": "wall time", "cpu": "CPU time (user + sys)"}


def read_ab(path: str | Path) -> dict[str, Any]:
    """Reads and validates a memfbench ab file (plain or .json.gz); ResultFileError names what is
    wrong: the schema, and that every run names an arm of the file and every measured block holds
    each arm once."""
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != "memfbench-ab":
        raise ResultFileError(f"{path}: not a memfbench ab file (its \"schema\" is not \"memfbench-ab\")")
    errors = [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}" for e in
              sorted(jsonschema.Draft202012Validator(load_schema_file(AB_SCHEMA_PATH)).iter_errors(doc),
                     key=lambda e: list(e.absolute_path))]
    if not errors:
        arms = [a["name"] for a in doc["arms"]]
        kinds = [a["kind"] for a in doc["arms"]]
        if len(set(arms)) != len(arms) or kinds.count("plain") != 1 or kinds.count("libc") != 1:
            errors.append("arms: names must differ, with one plain and one libc arm")
        for i, r in enumerate(doc["runs"]):
            if r["arm"] not in arms:
                errors.append(f"runs/{i}/arm: '{r['arm']}' is not one of the arms")
                break
        if not errors:
            df = runs_frame(doc)
            counts = df.groupby("block")["arm"].agg(lambda a: sorted(a) == sorted(arms))
            if not counts.all():
                errors.append(f"runs: block {int(counts.index[~counts.to_numpy()][0])} does not run every arm once")
            elif df["block"].nunique() < 2:
                errors.append("runs: fewer than two measured blocks")
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ResultFileError(f"{path}: not a valid memfbench ab file: {errors[0][:300]}{more}")
    return doc


def runs_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """The measured runs (warm-up blocks left out): block, order, arm, wall_s, cpu_s."""
    df = pd.DataFrame(doc["runs"])
    df = df[~df["warmup"]].copy()
    df["cpu_s"] = df["user_s"] + df["sys_s"]
    return df


@dataclass
class AbComparison:
    arm: str
    baseline: str
    measure: str          # "wall" or "cpu"
    blocks: int
    ratio: float
    ci_low: float
    ci_high: float
    pi_low: float
    pi_high: float
    p: float
    p_adjusted: float
    verdict: str
    blocks_for_margin: int
    median_s: float
    baseline_median_s: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _one(df: pd.DataFrame, arm: str, baseline: str, measure: str, level: float, margin: float) -> AbComparison:
    col = "wall_s" if measure == "wall" else "cpu_s"
    t = df.pivot(index="block", columns="arm", values=col)
    t = t[(t[arm] > 0) & (t[baseline] > 0)]
    d = np.log(t[arm].to_numpy() / t[baseline].to_numpy())
    ci, pi = stats.t_interval(d, level), stats.prediction_interval(d, level)
    return AbComparison(arm, baseline, measure, len(d), float(np.exp(ci.estimate)), float(np.exp(ci.low)),
                        float(np.exp(ci.high)), float(np.exp(pi.low)), float(np.exp(pi.high)), stats.t_test_p(d),
                        1.0, "", stats.processes_needed(d, margin, 1 - level), float(t[arm].median()),
                        float(t[baseline].median()))


def compare_ab(doc: dict[str, Any], level: float = 0.95, margin: float = 0.01) -> list[AbComparison]:
    """Every variant against libc behind the shim, and libc behind the shim against the plain
    program (the shim's cost), in wall and CPU time; Holm over each measure's family."""
    df = runs_frame(doc)
    libc = next(a["name"] for a in doc["arms"] if a["kind"] == "libc")
    plain = next(a["name"] for a in doc["arms"] if a["kind"] == "plain")
    pairs = [(libc, plain)] + [(a["name"], libc) for a in doc["arms"] if a["kind"] == "variant"]
    out: list[AbComparison] = []
    for measure in MEASURES:
        comps = [_one(df, arm, base, measure, level, margin) for arm, base in pairs]
        adj = stats.holm(np.array([c.p for c in comps]))
        for c, p in zip(comps, adj):
            c.p_adjusted = float(p)
            c.verdict = verdict_of(c.ci_low, c.ci_high, c.p_adjusted, c.ratio, margin, 1 - level)
        out += comps
    return out


def ab_line(c: AbComparison, level: float, margin: float) -> str:
    what = "the shim's own cost: libc behind the shim" if c.baseline == "plain" else f"**{c.arm}**"
    return (f"- {what} vs {c.baseline}, {MEASURES[c.measure]}: **{c.verdict}**, ratio {c.ratio:.4f} "
            f"({(c.ratio - 1) * 100:+.2f} %), {level:.0%} CI [{c.ci_low:.4f}, {c.ci_high:.4f}] over {c.blocks} blocks; "
            f"a re-run would give [{c.pi_low:.4f}, {c.pi_high:.4f}]; median {c.median_s * 1e3:.2f} ms against "
            f"{c.baseline_median_s * 1e3:.2f} ms; adjusted p {c.p_adjusted:.3g}; {c.blocks_for_margin} blocks "
            f"would resolve ±{margin:.1%}")

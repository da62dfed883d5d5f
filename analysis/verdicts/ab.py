"""Program-level A/B (memfbench ab): a program's end-to-end time under each variant against its time
under the C library's functions, and the shim's own cost.

Each block runs every arm once, in an order of its own, so a block is the replicate: per block the
log of time(variant) / time(libc behind the shim), then over the blocks the mean with a Student t
interval, a prediction interval for a re-run with as many blocks, and how many blocks would resolve
the margin, with the verdict rule of every other comparison (compare.verdict_of; Holm over the
variants). The same for CPU time (user + sys of the program and the children it waited for). The
shim's cost is libc behind the shim against the program as it is (arm "plain"), by the same rule."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..io.ab_file import recorded_calls, runs_frame
from ..io.reading import ResultFileError
from ..stats.intervals import prediction_interval, t_interval
from ..stats.laws import t_quantile, t_test_p
from ..stats.multiplicity import holm
from ..stats.power import processes_needed
from .compare import verdict_of

MEASURES = {"wall": "wall time", "cpu": "CPU time (user + sys)"}


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
    ci, pi = t_interval(d, level), prediction_interval(d, level)
    return AbComparison(arm, baseline, measure, len(d), float(np.exp(ci.estimate)), float(np.exp(ci.low)),
                        float(np.exp(ci.high)), float(np.exp(pi.low)), float(np.exp(pi.high)), t_test_p(d),
                        1.0, "", processes_needed(d, margin, 1 - level), float(t[arm].median()),
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
        adj = holm(np.array([c.p for c in comps]))
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


@dataclass
class ClassPrediction:
    """One size class's part of a predicted difference per run (--by-class): the run's calls times
    the class's contribution per call (its share of calls x its per-call difference), in seconds;
    the residual (what timing the classes apart misses) is the row named "residual"."""
    size_class: str
    calls_pct: float
    predicted_s: float
    predicted_low: float
    predicted_high: float


@dataclass
class Prediction:
    """A variant's difference per program run (seconds, variant - libc) as a replay of the
    program's recording predicts it (calls x per-call difference) and as measured, and whether
    they agree: the interval of measured - predicted holds 0 (see one_process_gap). basis: which
    replay, "table" (the recorded size table drawn at random) or "trace" (the recorded calls in
    their order). predicted_low/high: the t interval of the replay's mean over its processes;
    process_low/high: where one process's difference falls (the program is one process)."""
    arm: str
    basis: str
    calls: int
    per_call_ns: float
    per_call_low: float
    per_call_high: float
    predicted_s: float
    predicted_low: float
    predicted_high: float
    process_low: float
    process_high: float
    measured_s: float
    measured_low: float
    measured_high: float
    gap_low: float
    gap_high: float
    baseline_median_s: float
    verdict: str          # "agree", "measured slower than predicted", "measured faster than predicted"
    classes: list[ClassPrediction] = field(default_factory=list)
    classes_note: str = ""  # why there are no classes where the replay timed them

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["classes"] = [asdict(c) for c in self.classes]
        return d


def per_call_differences(run, arm: str, baseline: str = "libc") -> np.ndarray:
    """Per process of the replay: ns/call(arm) - ns/call(baseline) in the same round, in ns, over
    the process's measured rounds: the median for a table's replay, whose rounds all draw from
    one distribution; the mean for a trace's, whose rounds are its successive windows. A trace's
    windows differ (start-up and work; a few windows of large copies among many of small ones),
    and each is its share of the program's calls: the median would keep the typical window and
    drop the rest."""
    from ..io.load import measured
    from .compare import marked_processes
    df = measured(run.batches)
    dropped = marked_processes([run])  # a starved process whose slot the replay ran again: as compare leaves it out
    if dropped:
        df = df[~df["process"].isin(list(dropped))]
    t = df.pivot_table(index=["process", "round"], columns="variant", values="ns_per_call", observed=True)
    if arm not in t.columns or baseline not in t.columns:
        raise ResultFileError(f"{run.path}: the replay has no '{arm}' or '{baseline}' to predict from")
    d = (t[arm] - t[baseline]).dropna().groupby(level="process")
    return (d.mean() if run.doc["config"].get("trace") else d.median()).to_numpy()


def _by_class(run, arm: str, calls: int, level: float, whole_s: float | None = None) -> list[ClassPrediction]:
    """The replay's decomposition by size class (classes.decompose), scaled to a run's calls; []
    when the replay did not time the classes. With whole_s (the prediction the parts split), the
    residual is whole_s less the classes' parts, its interval moved with it: the decomposition is
    over the processes that timed every class, the prediction over every process the replay kept,
    and on a loaded machine the two sets differed (the parts did not add up to the prediction)."""
    from .classes import decompose, size_classes
    if not size_classes(run):
        return []
    dec = decompose(run, arm, "libc", level)
    rows = [ClassPrediction(c.size_class.label, 100 * c.size_class.p, calls * c.contribution.ns * 1e-9,
                            calls * c.contribution.low * 1e-9, calls * c.contribution.high * 1e-9)
            for c in dec.classes]
    r = dec.residual
    res_s, shift = calls * r.ns * 1e-9, 0.0
    if whole_s is not None:
        shift = whole_s - sum(x.predicted_s for x in rows) - res_s
        res_s += shift
    return rows + [ClassPrediction("residual", float("nan"), res_s, calls * r.low * 1e-9 + shift,
                                   calls * r.high * 1e-9 + shift)]


def one_process_gap(predicted: np.ndarray, measured: np.ndarray, level: float) -> tuple[float, float, float]:
    """measured - predicted per run, with its interval, for a program that is one process.

    Every run of the program has the same layout within pages: its code (the program, the shim,
    the variant's library) and its static data sit at the same page offsets, and its calls are
    the ones it draws. So its difference is one draw of what a process sees, where each of the
    replay's processes is another draw (its own code placement, buffers and calls). The replay's
    side therefore enters with the spread of one new process, s^2 (1 + 1/n), not with the error
    of its mean alone; the measured side with the error of its mean over blocks, s^2 / n;
    Satterthwaite's degrees of freedom."""
    d = float(measured.mean() - predicted.mean())
    n_p, n_m = len(predicted), len(measured)
    if n_p < 2 or n_m < 2:  # no spread to take: no interval, and no verdict
        return d, float("nan"), float("nan")
    vp = predicted.var(ddof=1) * (1 + 1 / n_p)
    vm = measured.var(ddof=1) / n_m
    se = float(np.sqrt(vp + vm))
    if se == 0:
        return d, d, d
    dof = (vp + vm) ** 2 / (vp ** 2 / (n_p - 1) + vm ** 2 / (n_m - 1))
    q = t_quantile(0.5 + level / 2, dof)
    return d, d - q * se, d + q * se


def predict_ab(doc: dict[str, Any], level: float = 0.95) -> list[Prediction]:
    """Each variant's predicted and measured difference per run (see Prediction), from the table's
    replay, then from the trace's where the recording has one."""
    from ..io.load import load_run
    pred = doc.get("prediction")
    if not pred:
        return []
    function = doc["config"]["function"]
    calls = recorded_calls(pred["recording"], function)
    df = runs_frame(doc)
    libc = next(a["name"] for a in doc["arms"] if a["kind"] == "libc")
    wall = df.pivot(index="block", columns="arm", values="wall_s")
    out = []
    for basis, path in (("table", pred["replay"]), ("trace", pred.get("trace_replay"))):
        if not path:
            continue
        run = load_run(path)
        for a in (a for a in doc["arms"] if a["kind"] == "variant"):
            d = per_call_differences(run, a["name"])
            m = (wall[a["name"]] - wall[libc]).to_numpy()
            ci_d, ci_m = t_interval(d, level), t_interval(m, level)
            one = prediction_interval(d, level, k_new=1)
            p_s = calls * ci_d.estimate * 1e-9
            gap, gap_low, gap_high = one_process_gap(calls * 1e-9 * d, m, level)
            # which way they part, not "over" or "under": a prediction near 0 has no direction to exceed
            verdict = ("undetermined (fewer than two values on a side)" if np.isnan(gap_low) else
                       "agree" if gap_low <= 0 <= gap_high else
                       "measured slower than predicted" if gap > 0 else "measured faster than predicted")
            try:
                classes, note = _by_class(run, a["name"], calls, level, p_s), ""
            except ValueError as e:  # e.g. too few processes with every class measured: said, not raised
                classes, note = [], f"not given ({e})"
            out.append(Prediction(a["name"], basis, calls, ci_d.estimate, ci_d.low, ci_d.high, p_s,
                                  calls * ci_d.low * 1e-9, calls * ci_d.high * 1e-9, calls * one.low * 1e-9,
                                  calls * one.high * 1e-9, ci_m.estimate, ci_m.low,
                                  ci_m.high, gap_low, gap_high, float(wall[libc].median()), verdict,
                                  classes, note))
    return out


def prediction_line(p: Prediction, level: float) -> str:
    def ms(x: float) -> str:
        return f"{x * 1e3:+.3f}"
    rel = 100 / p.baseline_median_s if p.baseline_median_s > 0 else float("nan")
    what = "the table drawn at random" if p.basis == "table" else "the trace in order"
    return (f"- **{p.arm}** - libc per run, from {what}: predicted {ms(p.predicted_s)} ms [{ms(p.predicted_low)}, "
            f"{ms(p.predicted_high)}] ({p.predicted_s * rel:+.2f} % of libc's run; {p.calls} calls x "
            f"{p.per_call_ns:+.2f} ns [{p.per_call_low:+.2f}, {p.per_call_high:+.2f}] per call in the replay; "
            f"one process: [{ms(p.process_low)}, {ms(p.process_high)}]), "
            f"measured {ms(p.measured_s)} ms [{ms(p.measured_low)}, {ms(p.measured_high)}] "
            f"({p.measured_s * rel:+.2f} %); measured - predicted [{ms(p.gap_low)}, {ms(p.gap_high)}] ms: "
            f"**{p.verdict}** ({level:.0%} intervals)")


def class_lines(p: Prediction) -> list[str]:
    """The prediction's parts by size class (--by-class), a line each, then the residual."""
    if p.classes_note:
        return [f"    {p.arm}, by size class: {p.classes_note}"]
    return [f"    {p.arm}, size class {c.size_class}"
            + (f" ({c.calls_pct:.1f} % of calls)" if c.calls_pct == c.calls_pct else " (what the classes apart miss)")
            + f": {c.predicted_s * 1e3:+.3f} ms [{c.predicted_low * 1e3:+.3f}, {c.predicted_high * 1e3:+.3f}] per run"
            for c in p.classes]

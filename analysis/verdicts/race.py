"""memfbench tune's racing rule (issue 55; docs/methodology.md, "Racing a family").

Each candidate's evidence is its per-process mean log ratio to the baseline (the unit every
verdict of a study rests on), pooled over every race step it ran in: each step's studies are fresh
processes, so its units are independent of the earlier ones. The leader is the candidate of the
lowest mean. At step t, with n candidates still in the race, each other candidate's difference from
the leader (its mean log ratio minus the leader's) gets a Welch t interval at level 1 - alpha_t /
(n - 1), alpha_t = alpha * 6 / (pi^2 t^2), so that the alpha_t sum to alpha over any number of
steps. A candidate is dropped when the low end of its difference is above ln(1 + margin). The
truly fastest candidate b can be dropped only if one of the n - 1 intervals of b against another
fails to cover (b's true difference from any is at most 0): with chance at most alpha_t at step t
(Bonferroni over those n - 1), at most alpha over the whole race. The race is done when one
candidate is left, or when every other one's difference has its high end within ln(1 + margin):
more racing could not show any of them slower than the leader by more than the margin.
A candidate needs MIN_UNITS processes before it can be dropped or called within the margin.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..stats import laws
from ..stats.intervals import t_interval

STEP_FILE = re.compile(r"step-(\d+)-\d+\.json(\.gz)?$")
# A t interval of 2 values has 1 degree of freedom: at the race's levels it spans everything.
MIN_UNITS = 3
# The level each candidate's own interval is shown at (history, plot); the rule uses its own.
SHOW_LEVEL = 0.95


@dataclass
class Standing:
    """A candidate's interval after one step: the geometric mean ratio to the baseline."""
    step: int
    ratio: float
    low: float
    high: float
    processes: int
    units: list[float] = field(default_factory=list)  # the per-process log ratios this step added

    def as_dict(self) -> dict:
        return {"step": self.step, "ratio": self.ratio, "low": self.low, "high": self.high,
                "processes": self.processes, "units": self.units}


@dataclass
class Candidate:
    name: str
    units: list[float] = field(default_factory=list)   # per-process log ratios, every step so far
    history: list[Standing] = field(default_factory=list)
    dropped_at: int | None = None

    def as_dict(self) -> dict:
        last = self.history[-1] if self.history else None
        return {"name": self.name, "dropped_at": self.dropped_at,
                "ratio": last.ratio if last else None, "low": last.low if last else None,
                "high": last.high if last else None, "processes": len(self.units),
                "history": [h.as_dict() for h in self.history]}


@dataclass
class Step:
    step: int
    alive: int
    level: float
    leader: str
    dropped: list[str]

    def as_dict(self) -> dict:
        return {"step": self.step, "alive": self.alive, "level": self.level, "leader": self.leader,
                "dropped": self.dropped}


@dataclass
class Race:
    alpha: float
    margin: float                  # a fraction: 0.005 for 0.5 %
    baseline: str
    candidates: dict[str, Candidate]
    steps: list[Step]
    alive: list[str]
    leader: str
    runner_up: str | None
    done: bool
    why: str

    def as_dict(self) -> dict:
        return {"schema": "memfbench-race", "schema_version": 1, "alpha": self.alpha,
                "margin_percent": self.margin * 100, "baseline": self.baseline, "rule": RULE,
                "steps": [s.as_dict() for s in self.steps],
                "candidates": [c.as_dict() for c in self.candidates.values()],
                "alive": self.alive, "leader": self.leader, "runner_up": self.runner_up, "done": self.done,
                "why": self.why}


RULE = ("per step t, n candidates left: the Welch t interval of each one's mean per-process log ratio minus "
        "the leader's, at level 1 - alpha_t/(n-1), alpha_t = alpha*6/(pi^2 t^2); dropped when its low end exceeds "
        "ln(1+margin); done when one is left or every high end is within ln(1+margin)")


def difference(c: list[float], lead: list[float], level: float) -> tuple[float, float]:
    """Welch t interval of mean(c) - mean(lead), both lists of per-process log ratios."""
    a, b = np.asarray(c, float), np.asarray(lead, float)
    va, vb = float(np.var(a, ddof=1)) / len(a), float(np.var(b, ddof=1)) / len(b)
    d = float(np.mean(a) - np.mean(b))
    se2 = va + vb
    if se2 <= 0:
        return d, d
    df = se2 ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = float(laws.t_quantile(1 - (1 - level) / 2, df)) * math.sqrt(se2)
    return d - half, d + half


def step_alpha(alpha: float, step: int) -> float:
    """The error spent at step (1, 2, ...): the sum over every step is alpha."""
    return alpha * 6 / (math.pi ** 2 * step ** 2)


def standing(units: list[float], step: int, level: float) -> Standing:
    x = np.asarray(units, dtype=float)
    mean = float(np.mean(x))
    if len(x) < 2:
        return Standing(step, math.exp(mean), 0.0, math.inf, len(x))
    iv = t_interval(x, level)
    return Standing(step, math.exp(mean), math.exp(iv.low), math.exp(iv.high), len(x))


def file_step(path: str) -> int:
    """The race step of a race study's file (race/step-SSS-GG.json.gz, as memfbench tune names them)."""
    m = STEP_FILE.search(path)
    if not m:
        raise ValueError(f"{path}: not a race step's file (step-NNN-GG.json.gz)")
    return int(m.group(1))


def stored_units(doc: dict) -> list[tuple[int, str, dict[str, list[float]]]]:
    """The units a race.json holds (each candidate's history keeps what each step added), one
    entry per step: what run_race takes, so a step reads only its own studies (memfbench tune's
    --resume) and the earlier ones are never loaded again."""
    by_step: dict[int, dict[str, list[float]]] = {}
    for c in doc["candidates"]:
        for h in c["history"]:
            by_step.setdefault(int(h["step"]), {})[c["name"]] = [float(v) for v in h["units"]]
    return [(t, doc["baseline"], units) for t, units in sorted(by_step.items())]


def run_race(step_units: list[tuple[int, str, dict[str, list[float]]]], alpha: float, margin: float) -> Race:
    """The race over its studies: (step, baseline, {candidate: its per-process log ratios in that
    study}) for each study, in any order. Each step's rule applies to the candidates that ran in it."""
    if not step_units:
        raise ValueError("no race study")
    baselines = sorted({b for _, b, _ in step_units})
    if len(baselines) != 1:
        raise ValueError(f"the race's studies have different baselines: {', '.join(baselines)}")
    cands: dict[str, Candidate] = {}
    steps: list[Step] = []
    alive: list[str] = []
    done, why = False, ""
    for t in sorted({s for s, _, _ in step_units}):
        ran: list[str] = []
        added: dict[str, list[float]] = {}
        for s, _, units in step_units:
            if s != t:
                continue
            for name, u in units.items():
                c = cands.setdefault(name, Candidate(name))
                c.units.extend(float(v) for v in u)
                added.setdefault(name, []).extend(float(v) for v in u)
                ran.append(name)
        ran = sorted(set(ran))
        late = [n for n in ran if cands[n].dropped_at is not None]
        if late:
            raise ValueError(f"step {t}: {late[0]} ran after it was dropped")
        n = len(ran)
        level = 1 - step_alpha(alpha, t) / max(n - 1, 1)
        for name in ran:
            cands[name].history.append(standing(cands[name].units, t, SHOW_LEVEL))
            cands[name].history[-1].units = added[name]
        now = {name: cands[name].history[-1] for name in ran}
        leader = min(ran, key=lambda k: (now[k].ratio, k))
        edge = math.log1p(margin)
        ready = len(cands[leader].units) >= MIN_UNITS
        diffs = {k: difference(cands[k].units, cands[leader].units, level) for k in ran
                 if k != leader and ready and len(cands[k].units) >= MIN_UNITS}
        dropped = sorted(k for k, (lo, _) in diffs.items() if lo > edge)
        for k in dropped:
            cands[k].dropped_at = t
        alive = [k for k in ran if k not in dropped]
        steps.append(Step(t, n, level, leader, dropped))
        if len(alive) <= 1:
            done, why = True, "one candidate left"
        elif all(k in diffs and diffs[k][1] <= edge for k in alive if k != leader):
            done, why = True, f"the rest lie within {margin * 100:g} % of the leader"
        else:
            done, why = False, f"{len(alive)} candidates left"
    leader = steps[-1].leader
    last = {k: c.history[-1].ratio for k, c in cands.items() if c.history}
    others = sorted((k for k in last if k != leader), key=lambda k: (k not in alive, last[k], k))
    return Race(alpha, margin, baselines[0], cands, steps, alive, leader, others[0] if others else None, done, why)


def step_line(race: Race) -> str:
    s = race.steps[-1]
    lead = race.candidates[s.leader].history[-1]
    return (f"step {s.step}: {s.alive} candidates, {len(s.dropped)} dropped (slower than the leader by more than "
            f"{race.margin * 100:g} %, each at level 1 - {1 - s.level:.2g}); leader {s.leader} "
            f"{lead.ratio:.3f} [{lead.low:.3f}, {lead.high:.3f}] of {race.baseline}; {len(race.alive)} left"
            + ("" if not race.done else f"; done: {race.why}"))

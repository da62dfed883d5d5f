"""A study's fixed cost by phase, from its file (docs/cost.md, issue 53).

Every process's `setup` block has its own stages (seconds of CLOCK_MONOTONIC_RAW) and, written by
the parent of a --processes study, what the parent saw of it: `lifetime_s` (from starting it to its
end) and `merge_s` (reading its file). What a process's own clock cannot time (its exec and
start-up before the study's code, writing its file, its exit) is its lifetime less the parts it
timed; what the parent spent besides the processes is the study's wall time less every process's
lifetime and merge. The phases of one process add up to its lifetime, and with the parent's part
the study's add up to its wall time, by construction.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# (name in the file's setup block, what the phase is), in the order a process goes through them;
# "rest" and "exec" are differences, not fields (module docstring).
SETUP_PHASES: tuple[tuple[str, str], ...] = (
    ("arena_map_s", "arena: pages faulted in"),
    ("arena_fill_s", "arena: its content"),
    ("workload_s", "the distribution's tables"),
    ("selfcheck_s", "self-check of the draws"),
    ("verification_s", "verification of every variant"),
    ("calibration_s", "calibration: batch shape, linearity"),
    ("classes_s", "size classes (--by-class, --sweep)"),
)
REST = "rest of the set-up: clock, CPU plan, host"
ROUNDS = "rounds (warm-up included)"
AFTER = "after the rounds: placement check, noop"
EXEC = "exec, start-up, writing its file, exit"
MERGE = "the parent reading its file"
PARENT = "the parent: options, configuration, the merged file"
PHASES: tuple[str, ...] = (EXEC, *(label for _, label in SETUP_PHASES), REST, ROUNDS, AFTER, MERGE)


@dataclass(frozen=True)
class ProcessCost:
    index: int
    phases: dict[str, float]   # PHASES -> seconds; they add up to lifetime + merge
    lifetime_s: float
    warmup_s: float            # of the rounds

    @property
    def fixed_s(self) -> float:
        """What the process cost besides its rounds (warm-up included in the rounds)."""
        return sum(v for k, v in self.phases.items() if k != ROUNDS)


@dataclass(frozen=True)
class StudyCost:
    wall_s: float
    processes: list[ProcessCost]
    parent_s: float            # the wall less every process's lifetime and merge

    def total(self, phase: str) -> float:
        return self.parent_s if phase == PARENT else sum(p.phases[phase] for p in self.processes)


class NoLifetime(ValueError):
    """The file has no parent's timings (one process, or written before they were recorded)."""


def process_cost(entry: dict[str, Any]) -> ProcessCost:
    """One processes[] entry's phases. Raises NoLifetime where the parent's timings are missing."""
    s = entry.get("setup") or {}
    if "lifetime_s" not in s or "merge_s" not in s:
        raise NoLifetime(f"process {entry.get('index')}: no setup.lifetime_s (a file of one process, or one "
                         "written before the parent recorded it)")
    rounds = float(entry["rounds"]["duration_s"])
    staged = {label: float(s.get(key, 0.0)) for key, label in SETUP_PHASES}
    before = float(s["before_rounds_s"])
    phases = {EXEC: 0.0, **staged, REST: max(0.0, before - sum(staged.values())), ROUNDS: rounds,
              AFTER: float(s["after_rounds_s"]), MERGE: float(s["merge_s"])}
    # whatever the process's own stages do not cover of its lifetime
    phases[EXEC] = float(s["lifetime_s"]) - (sum(phases.values()) - phases[MERGE])
    warm = float(entry["rounds"].get("warmup_detail", {}).get("seconds", 0.0))
    return ProcessCost(int(entry["index"]), phases, float(s["lifetime_s"]), warm)


def study_cost(doc: dict[str, Any], wall_s: float) -> StudyCost:
    """A --processes study's cost by phase, given the wall time of its invocation."""
    procs = [process_cost(p) for p in doc["processes"]]
    spent = sum(p.lifetime_s + p.phases[MERGE] for p in procs)
    return StudyCost(wall_s, procs, wall_s - spent)

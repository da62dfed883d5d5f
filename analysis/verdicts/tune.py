"""memfbench tune's verdicts from its folder (io/tune_folder.py): the leader and the runner-up
against the baseline in the fresh study, the runner-up against the leader, and the leader against
the baseline on each other distribution, each as compare.py gives it."""
from __future__ import annotations

from dataclasses import dataclass

from ..io.tune_folder import TuneFolder
from .compare import Comparison, compare_runs


@dataclass
class CheckRow:
    distribution: str
    comparison: Comparison | None   # the leader against the baseline there (None: the file had no pair)


@dataclass
class TuneVerdicts:
    final: list[Comparison]             # every variant of the fresh study against its baseline
    leader: Comparison | None           # the leader's, among them
    runner_up_vs_leader: Comparison | None
    checks: list[CheckRow]


def tune_verdicts(t: TuneFolder) -> TuneVerdicts:
    leader, runner = t.tune["leader"], t.tune.get("runner_up")
    final = compare_runs([t.final], None, secondary=False)
    by_name = {c.variant: c for c in final}
    lvr = None
    if runner and leader in by_name and runner in by_name:
        lvr = next((c for c in compare_runs([t.final], leader, secondary=False) if c.variant == runner), None)
    rows = [CheckRow(d, next((c for c in compare_runs([run], None, secondary=False) if c.variant == leader), None))
            for d, run in t.checks]
    return TuneVerdicts(final, by_name.get(leader), lvr, rows)

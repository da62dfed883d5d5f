"""memfbench tune's summary (analyze tune): the race, the fresh study's verdicts and the table of
the leader on the function's other distributions, as text lines (pure: documents and comparisons in)."""
from __future__ import annotations

from typing import Any

from ..verdicts.compare import Comparison
from ..verdicts.pgo import ONLY_OWN
from ..verdicts.tune import CheckRow, TuneVerdicts
from .text import fmt_interval, fmt_ratio, headline_tags, interval_label, legend_texts, verdict_word


def verdict_text(c: Comparison) -> str:
    """A comparison as the headline gives it: the ratio, the interval the verdict rests on
    (simultaneous over its study's comparisons), the verdict in words and the headline's tags."""
    return " ".join([fmt_ratio(c.ratio), fmt_interval(c.ci_adj_low, c.ci_adj_high), "", verdict_word(c),
                     *headline_tags(c)])


def tune_cells(c: Comparison | None) -> dict[str, Any]:
    """A tune table's cells of one comparison, as the headline has them: the ratio, the interval the
    verdict rests on, the verdict in words and its tags."""
    if c is None:
        return {"ratio": None, "low": None, "high": None, "verdict": "no pair"}
    return {"ratio": c.ratio, "low": c.ci_adj_low, "high": c.ci_adj_high,
            "verdict": " ".join([verdict_word(c), *headline_tags(c)])}


def holds_label(final: Comparison | None, rows: list[CheckRow]) -> str:
    """Where the leader's gain holds, as the PGO table says it of a profile: on every other
    distribution, on some, or only on the one it was raced on."""
    if final is None or final.verdict != "faster":
        return "no gain on the race's distribution to carry elsewhere"
    faster = [r for r in rows if r.comparison is not None and r.comparison.verdict == "faster"]
    slower = [r for r in rows if r.comparison is not None and r.comparison.verdict == "slower"]
    if not rows:
        return "not checked on other distributions"
    if not faster:
        return ONLY_OWN + (f" (slower on {len(slower)} of {len(rows)})" if slower else "")
    if len(faster) == len(rows):
        return f"holds on every one of the {len(rows)} other distributions"
    return (f"holds on {len(faster)} of {len(rows)} other distributions"
            + (f", slower on {len(slower)}" if slower else ""))


def tune_lines(tune: dict, race: dict, v: TuneVerdicts, cpu: str) -> list[str]:
    final, leader_vs_runner, rows = v.final, v.runner_up_vs_leader, v.checks
    cfg = tune["config"]
    leader, runner = tune["leader"], tune.get("runner_up")
    base = final[0].baseline if final else cfg["baseline"]
    fam = f"family {cfg['family']}" if cfg.get("family") else cfg["source"]
    out = [f"tune: {tune['candidates']} candidates ({fam}) for {cfg['function']} on {cfg['distribution']} "
           f"against {base} | {cpu}",
           f"race: {tune['steps']} step{'s' if tune['steps'] != 1 else ''} in {tune['race_s']:.0f} s "
           + (f"of the {cfg['budget_s']:.0f}-s budget" if tune["race_s"] <= cfg["budget_s"] else
              f"(budget {cfg['budget_s']:.0f} s: the first step always runs whole)")
           + f"; ended by {'the budget' if tune['ended_by'] == 'budget' else 'the rule'}"
           f" ({tune['why']}); {len(race['alive'])} left of {len(race['candidates'])}; drop rule: slower than the "
           f"leader by more than {cfg['margin_percent']:g} %, chance of dropping the fastest at most "
           f"{cfg['alpha']:g}"]
    by_name = {c.variant: c for c in final}
    shape = (f"{final[0].processes} processes" if final else "no pair")
    out.append(f"fresh study ({shape}; not the race's data), ratio to {base} with its "
               f"{interval_label(final)} (below 1: faster):")
    shown = []
    for role, name in (("leader", leader), ("runner-up", runner)):
        c = by_name.get(name) if name else None
        if c is not None:
            out.append(f"  {role:<9} {name:<56} {verdict_text(c)}")
            shown.append(c)
    if leader_vs_runner is not None:
        out.append(f"  runner-up / leader: {verdict_text(leader_vs_runner)}")
        shown.append(leader_vs_runner)
    if rows:
        out.append(f"the leader against {base} on the function's other distributions (shorter studies: "
                   f"{cfg['check_processes']} processes, {cfg['check_time_s']:g} s):")
        for r in rows:
            out.append(f"  {r.distribution:<28} " + (verdict_text(r.comparison) if r.comparison else
                                                      "no pair in the file"))
        shown += [r.comparison for r in rows if r.comparison is not None]
    out += legend_texts(shown)  # a line each, unwrapped as the summary's other lines (the report lists them)
    lead = by_name.get(leader)
    if lead is not None and lead.verdict != "faster":
        # shown slower or equivalent, the answer is the family's; not resolved or withheld, this study's
        known = lead.verdict in ("slower", "equivalent")
        out.append(f"answer: no candidate of this family beats {base} here"
                   + ("" if known else " as far as this study shows")
                   + (f": the leader is {verdict_word(lead)}" if known else f": the verdict on the leader is {verdict_word(lead)}")
                   + (f" {' '.join(headline_tags(lead))}" if headline_tags(lead) else "")
                   + f", {fmt_ratio(lead.ratio)} {fmt_interval(lead.ci_adj_low, lead.ci_adj_high)}")
    else:
        out.append(f"where the gain holds: {holds_label(lead, rows)}")
    out.append(f"winner: {tune['leader_setting']} (winner.c: the family's source with these settings defined)")
    return out

"""The PGO gain as text: a cell of the overfitting table ("-3.1 % [-3.9, -2.3]"), the summary's
line per pair ("at-pgo vs at (gcc profile, trained on X): 2.1 % faster [1.2, 3.0]") and each
source's table (verdicts/pgo.py computes them)."""
from __future__ import annotations

from typing import TYPE_CHECKING


from ..io.load import Run
from ..verdicts.pgo import Gain, PgoGroup, PgoPair, pair_of, run_gains
from .text import text_table, wrapped

if TYPE_CHECKING:
    import pandas as pd

NOT_MEASURED = "not measured"


def cell_text(g: Gain | None) -> str:
    """The gain as a signed percent change of the time with its interval: below 0 is faster."""
    if g is None:
        return NOT_MEASURED
    return f"{100 * (g.ratio - 1):+.1f} % [{100 * (g.low - 1):+.1f}, {100 * (g.high - 1):+.1f}]"


def gain_words(ratio: float, low: float, high: float) -> str:
    """'2.1 % faster [1.2, 3.0]' (the interval of the same figure), '0.4 % slower [...]', with
    '(interval includes no change)' where it straddles 1."""
    if ratio != ratio:
        return "not computed (fewer than 2 rounds timed both)"
    if ratio <= 1:
        text = f"{100 * (1 - ratio):.1f} % faster [{100 * (1 - high):.1f}, {100 * (1 - low):.1f}]"
    else:
        text = f"{100 * (ratio - 1):.1f} % slower [{100 * (low - 1):.1f}, {100 * (high - 1):.1f}]"
    return text + (" (interval includes no change)" if low <= 1 <= high else "")


def pair_line(g: Gain | tuple[PgoPair, str]) -> str:
    """A pair's line: its gain, or why it has none."""
    p = pair_of(g)
    trained = f"{p.trained_on}, the study's own" if p.own_distribution else p.trained_on
    text = gain_words(g.ratio, g.low, g.high) if isinstance(g, Gain) else f"not computed ({g[1]})"
    return f"{p.variant} vs {p.of} ({p.family} profile, trained on {trained}): {text}"


def pgo_summary_lines(runs: list[Run], level: float = 0.95) -> list[str]:
    """The summary's PGO block: a title and one line per pair of each file with pairs; none without
    (the terminal wraps each to 80 columns: terminal_lines; the report keeps them whole)."""
    out: list[str] = []
    for r in (r for r in runs if not r.doc.get("sweep")):
        gains = run_gains(r, level)
        if gains:
            out += ["", f"== PGO gain: {r.function} on {r.distribution} ({r.path}): profiled build / the same "
                        f"source without a profile, time ratio, {level:.0%} interval as compare gives it"]
            out += [pair_line(g) for g in gains]
    return out


def terminal_lines(lines: list[str]) -> list[str]:
    """Lines for a terminal: each wrapped to 80 columns, an empty one kept."""
    return [x for line in lines for x in (wrapped(line) or [""])]


def group_frame(g: PgoGroup) -> pd.DataFrame:
    """The table of one source: a row per training distribution, a column per tested one, the
    row's label last."""
    import pandas as pd
    rows = []
    for t in g.trained:
        row = {"trained on \\ tested on": t}
        row.update({c: cell_text(g.cells.get((t, c))) for c in g.tested})
        row["where the gain holds"] = g.labels[t]
        rows.append(row)
    return pd.DataFrame(rows)


def group_lines(g: PgoGroup, level: float) -> list[str]:
    """One source's block: its title and verdict, the table, and what a cell is, each sentence
    wrapped to 80 columns (the table is as wide as its distributions' names)."""
    return [*wrapped(f"== {g.title}"), *wrapped(f"verdict: {g.verdict()}"),
            text_table(group_frame(g)),
            *wrapped(f"each cell: {g.source}'s profiled build over its build without a profile, time per call, in % "
                     f"(below 0: faster), {level:.0%} interval as analyze compare gives it; files: "
                     + ", ".join(sorted({p.run.path for c in g.cells.values() for p in c.pairs})))]

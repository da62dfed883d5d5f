"""The counts table: per variant, per call, each figure beside its ratio to the baseline's."""
from __future__ import annotations

from typing import Any

# (column, the events summed into it)
COLUMNS = (("instr", ("Ir",)), ("branches", ("Bc", "Bi")), ("mispred", ("Bcm", "Bim")), ("L1 miss", ("D1mr", "D1mw", "I1mr")))


def counts_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per variant: each column's count per call and its ratio to the baseline's (None where
    the baseline counts zero)."""
    per = {v["name"]: v["per_call"] for v in doc["variants"]}
    base = per.get(doc.get("baseline", "libc")) or doc["variants"][0]["per_call"]
    rows = []
    for name, p in per.items():
        row: dict[str, Any] = {"variant": name}
        for col, evs in COLUMNS:
            x, b = sum(p[e] for e in evs), sum(base[e] for e in evs)
            row[col] = x
            row[col + " ratio"] = x / b if b else None
        rows.append(row)
    return rows


def counts_table(doc: dict[str, Any], times: dict[str, tuple[float, float, float]] | None = None) -> str:
    """The table; with times (variant -> the time ratio to the baseline and its interval, from a run
    file), a last column puts each variant's time ratio beside its counts' ratios."""
    head = f"{'variant':<16}" + "".join(f"{c:>12} {'/base':>7}" for c, _ in COLUMNS)
    if times is not None:
        head += f"  {'time /base [interval]':>26}"
    lines = [head]
    for r in counts_rows(doc):
        cells = "".join(f"{r[c]:>12.2f} {('-' if r[c + ' ratio'] is None else format(r[c + ' ratio'], '.3f')):>7}"
                        for c, _ in COLUMNS)
        if times is not None:
            t = times.get(r["variant"])
            cells += f"  {(f'{t[0]:.4f} [{t[1]:.4f}, {t[2]:.4f}]' if t else 'not in the run'):>26}"
        lines.append(f"{r['variant']:<16}{cells}")
    return "\n".join(lines)

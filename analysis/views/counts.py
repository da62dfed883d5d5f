"""The counts table: per variant, per call, each figure beside its ratio to the baseline's, and the
bytes of code the variant ran."""
from __future__ import annotations

from typing import Any

# (column, the events summed into it)
COLUMNS = (("instr", ("Ir",)), ("branches", ("Bc", "Bi")), ("mispred", ("Bcm", "Bim")), ("L1 miss", ("D1mr", "D1mw", "I1mr")))


def code_cell(v: dict[str, Any]) -> str:
    """A variant's code bytes as the table shows them: N when every function's size is known, N+
    when some callee's is not (N is then a lower bound), '-' when its own function's size is
    unknown or the file predates the code list."""
    b = v.get("code_bytes")
    if b is None:
        return "-"
    return f"{b}" if v.get("code_bytes_complete") else f"{b}+"


def counts_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per variant: each column's count per call and its ratio to the baseline's (None where
    the baseline counts zero), and its code bytes (code_cell)."""
    per = {v["name"]: v["per_call"] for v in doc["variants"]}
    code = {v["name"]: code_cell(v) for v in doc["variants"]}
    base = per.get(doc.get("baseline", "libc")) or doc["variants"][0]["per_call"]
    rows = []
    for name, p in per.items():
        row: dict[str, Any] = {"variant": name}
        for col, evs in COLUMNS:
            x, b = sum(p[e] for e in evs), sum(base[e] for e in evs)
            row[col] = x
            row[col + " ratio"] = x / b if b else None
        row["code bytes"] = code[name]
        rows.append(row)
    return rows


def ratio_cell(r: float | None) -> str:
    """A count's ratio to the baseline's in five characters: 1.000, 16.73, 168.0, 1234."""
    if r is None:
        return "-"
    return f"{r:.3f}" if r < 10 else f"{r:.2f}" if r < 100 else f"{r:.1f}" if r < 1000 else f"{r:.0f}"


def counts_table(doc: dict[str, Any], times: dict[str, tuple[float, float, float]] | None = None) -> str:
    """The table, each column as wide as its widest cell (80 columns for the usual counts); with
    times (variant -> the time ratio to the baseline and its interval, from a run file), a last
    column puts each variant's time ratio beside its counts' ratios."""
    rows = counts_rows(doc)
    cells = [[r["variant"], *[x for c, _ in COLUMNS for x in (f"{r[c]:.2f}", ratio_cell(r[c + " ratio"]))],
              r["code bytes"]] for r in rows]
    head = ["variant", *[x for c, _ in COLUMNS for x in (c, "/base")], "code B"]
    if times is not None:
        head.append("time /base [interval]")
        for r, row in zip(rows, cells):
            t = times.get(r["variant"])
            row.append(f"{t[0]:.4f} [{t[1]:.4f}, {t[2]:.4f}]" if t else "not in the run")
    widths = [max(len(x[k]) for x in [head, *cells]) for k in range(len(head))]
    # a ratio one space after its count, each count two after the column before
    gaps = ["", *["  ", " "] * len(COLUMNS), *["  "] * (len(head) - 1 - 2 * len(COLUMNS))]
    return "\n".join(f"{x[0]:<{widths[0]}}" + "".join(f"{g}{v:>{w}}" for g, v, w in zip(gaps[1:], x[1:], widths[1:]))
                     for x in [head, *cells])


def code_lines(doc: dict[str, Any]) -> list[str]:
    """Per variant, the functions its code bytes add up: each with its size ('?' unknown) and, when
    it is not in the variant's own function's object, the object's file name."""
    out = []
    for v in doc["variants"]:
        if not v.get("code"):
            continue
        home = v["code"][0]["object"]
        parts = []
        for f in v["code"]:
            where = "" if f["object"] == home else f" ({f['object'].rsplit('/', 1)[-1]})"
            parts.append(f"{f['function']}{where} {'?' if f['bytes'] is None else f['bytes']}")
        out.append(f"  {v['name']}: " + ", ".join(parts))
    return out

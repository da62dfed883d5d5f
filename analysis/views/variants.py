"""The one-line-per-variant table of seed 000's metrics (verdicts/variants.py) as text cells, for
the terminal and the report alike, and the lines under it saying how each column was measured."""
from __future__ import annotations

import pandas as pd

from ..verdicts.variants import VariantRow, VariantsTable
from .pgo import NOT_MEASURED, gain_words

COLUMNS = ["variant", "ns/call ratio", "code size", "i-cache pressure slope", "beside a second thread", "PGO gain"]


def _ratio(r: VariantRow) -> str:
    if r.baseline:
        return "1 (baseline)"
    if r.ratio is None or r.ratio[0] != r.ratio[0]:
        return NOT_MEASURED
    x, lo, hi = r.ratio
    return f"{x:.3f} [{lo:.3f}, {hi:.3f}]"


def _size(r: VariantRow) -> str:
    if r.code_bytes is None:
        return NOT_MEASURED
    return f"{r.code_bytes} B" + (" (with callees)" if r.code_with_callees else " (the function alone)")


def _pressure(r: VariantRow) -> str:
    if r.baseline:
        return "(baseline)"
    if r.pressure is None:
        return NOT_MEASURED
    return f"{r.pressure.ns_per_kib:+.3g} ns/call per KiB"


def _slowdown(r: VariantRow) -> str:
    if r.slowdown is None or r.slowdown[0] != r.slowdown[0]:
        return NOT_MEASURED
    x, lo, hi = r.slowdown
    return f"{x:+.1f} % [{lo:+.1f}, {hi:+.1f}]"


def _pgo(r: VariantRow) -> str:
    if r.pgo is not None:
        return gain_words(r.pgo.ratio, r.pgo.low, r.pgo.high)
    if r.profiled_build_of is not None:
        return f"(the profiled build of {r.profiled_build_of})"
    return NOT_MEASURED


def variants_frame(t: VariantsTable) -> pd.DataFrame:
    return pd.DataFrame([[r.variant, _ratio(r), _size(r), _pressure(r), _slowdown(r), _pgo(r)] for r in t.rows],
                        columns=COLUMNS)


def how_lines(t: VariantsTable) -> list[str]:
    """One line per measured column: what it is and which file and command gave it."""
    return [f"{column}: {t.how[column]}" for column in COLUMNS[1:]]


def variants_title(t: VariantsTable) -> str:
    return (f"{t.run.function} on {t.run.distribution} ({t.run.path}): seed 000's metrics, one line per variant "
            f"(baseline {t.baseline})")

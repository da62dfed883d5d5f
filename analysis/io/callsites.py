"""Call sites of a recorded trace (`memfbench record --trace N` writes callsites.csv): the places
in the program that make the calls, ranked by bytes and by calls."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .reading import ResultFileError

COLUMNS = ["function", "caller", "calls", "bytes"]


def read_callsites(path: str | Path) -> pd.DataFrame:
    """callsites.csv as a frame with a share of calls and of bytes per function; raises
    ResultFileError naming the file."""
    p = Path(path)
    if p.is_dir():
        p = p / "callsites.csv"
    try:
        df = pd.read_csv(p, comment="#")
    except (OSError, ValueError) as e:
        raise ResultFileError(f"{p}: cannot read call sites: {e}") from e
    if list(df.columns) != COLUMNS or df.empty:
        raise ResultFileError(f"{p}: not a callsites.csv of memfbench record --trace (columns {', '.join(COLUMNS)})")
    if not (pd.api.types.is_integer_dtype(df["calls"]) and pd.api.types.is_integer_dtype(df["bytes"])):
        raise ResultFileError(f"{p}: calls and bytes must be whole numbers")
    for col in ("calls", "bytes"):
        df[f"{col}_pct"] = 100 * df[col] / df.groupby("function")[col].transform("sum").where(lambda s: s > 0)
    return df


def top(df: pd.DataFrame, by: str, n: int = 10) -> pd.DataFrame:
    """The n call sites with the most `by` (calls or bytes), over every function."""
    return df.sort_values([by, "caller"], ascending=[False, True]).head(n).reset_index(drop=True)

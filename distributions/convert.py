#!/usr/bin/env python3
"""Regenerates the shipped tables from the reference extracts in ../shared/distributions.

Only the figures are taken; each output file starts with a comment naming its source.
The tables keep the source's rows and values exactly (weights as written), so the checksums in
PROVENANCE.md change only when the source data does. Run from the repository root:

    python3 distributions/convert.py ../shared/distributions
"""
from __future__ import annotations

import sys
from pathlib import Path

FLEET_COMMIT = "703e5e5566a629d1849bc0e3f3e262d88d5977f4"
ARM_COMMIT = "e17e986041ac820069515b25b89919278a53bb82"

# (source file under the shared folder, shipped name, comment)
SPEC2017 = [
    ("optimized-routines/memcpy_size.csv", "spec2017/memcpy_size.csv", "size_freq[]"),
    ("optimized-routines/memcpy_src_alignment.csv", "spec2017/memcpy_src_alignment.csv", "src_align_freq[]"),
    ("optimized-routines/memcpy_dst_alignment.csv", "spec2017/memcpy_dst_alignment.csv", "dst_align_freq[]"),
    ("optimized-routines/memset_size.csv", "spec2017/memset_size.csv", "memset_len_freq[]"),
    ("optimized-routines/memset_alignment.csv", "spec2017/memset_alignment.csv", "memset_align_freq[]"),
]


def copy_table(src: Path, dst: Path, comment: str) -> None:
    lines = src.read_text(encoding="utf-8").splitlines()
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text("# " + comment + "\n" + "\n".join(lines) + "\n", encoding="utf-8")


def main(shared: Path, out: Path) -> int:
    count = 0
    for src in sorted((shared / "fleetbench").glob("*_*_*.csv")):
        op, wid, kind = src.stem.split("_", 2)
        comment = (f"fleetbench {op}_{wid} {kind} table, from google/fleetbench@{FLEET_COMMIT[:12]} "
                   f"libc/distributions/{op}_{wid}.csv; Apache-2.0; see PROVENANCE.md")
        copy_table(src, out / "fleetbench" / src.name, comment)
        count += 1
    for rel, name, table in SPEC2017:
        prog = "memset.c" if "memset" in name else "memcpy.c"
        comment = (f"SPEC2017-derived table {table} of ARM-software/optimized-routines@{ARM_COMMIT[:12]} "
                   f"string/bench/{prog} (same figures as glibc benchtests); MIT OR Apache-2.0 WITH "
                   f"LLVM-exception; see PROVENANCE.md")
        copy_table(shared / rel, out / name, comment)
        count += 1
    print(f"wrote {count} tables under {out}")
    return 0


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    shared_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent.parent / "shared" / "distributions"
    sys.exit(main(shared_dir, here))

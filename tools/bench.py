"""The body of memfbench's `meson test --benchmark` entries: one memfbench run into the build
folder, its analysis summary, and optionally the regression gate.

    python3 -m tools.bench --memfbench PATH --out DIR --name NAME [--fail-if-slower P] -- RUN ARGS
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from analysis import cli


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.bench")
    ap.add_argument("--memfbench", required=True)
    ap.add_argument("--out", required=True, help="folder for the result files")
    ap.add_argument("--name", required=True)
    ap.add_argument("--fail-if-slower", type=float, help="run the regression gate with this threshold (percent)")
    ap.add_argument("run_args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    result = out / f"{a.name}.json"
    args = [x for x in a.run_args if x != "--"]
    p = subprocess.run([a.memfbench, "run", *args, "-o", str(result)])
    if p.returncode != 0:
        return p.returncode
    code = cli.main(["summarize", str(result), "--resamples", "2000"])
    if code or a.fail_if_slower is None:
        return code
    return cli.main(["gate", str(result), "--fail-if-slower", str(a.fail_if_slower), "--resamples", "2000"])


if __name__ == "__main__":
    sys.exit(main())

"""memfbench tune's planted-family validation (issue 55; docs/validation.md, "Racing a family"):
races of examples/source/planted.c, N of each kind, one after another on one pinned CPU:

- planted: eight candidates, one (ID 5) about 2 % faster than the rest: found when the race's
  leader, confirmed by the fresh study, is ID 5;
- identical: eight identical candidates against a ninth setting of the same code as the baseline
  (`--baseline ID=0`): an error when the fresh study calls the leader faster than the baseline.

    /usr/bin/python3 -m tools.tune_validation --races 10 --cpu 1 --keep /tmp/tunes

It prints each race's line (leader, steps, seconds, fresh-study ratio and verdict) and the counts."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.io.tune_folder import read_tune_folder  # noqa: E402
from analysis.verdicts.tune import tune_verdicts  # noqa: E402

SOURCE = f"{ROOT / 'examples' / 'source' / 'planted.c'}:planted_memcpy=p"
IDS = "ID=" + ",".join(str(i) for i in range(8))
KINDS = {"planted": ["--variant-cflags", "-O2 -DBEST=5"],
         "identical": ["--variant-cflags", "-O2 -DSLOW_EVERY=0"]}


def race(memfbench: str, kind: str, out: Path, cpu: int, budget: float) -> dict:
    base = ["-b", "ID=0"] if kind == "identical" else ["-b", "libc"]
    cmd = [memfbench, "tune", "-q", "-o", str(out), "-v", SOURCE, "--param", IDS, *base, "--budget", str(budget),
           "--step-time", "1", "--no-checks", "--", "--cpu", str(cpu), *KINDS[kind]]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        return {"kind": kind, "error": p.stderr.strip().splitlines()[-1:] or [f"exit {p.returncode}"], "wall_s": wall}
    t = read_tune_folder(out)
    lead = tune_verdicts(t).leader  # the fresh study's verdict on the leader, as analyze tune gives it
    return {"kind": kind, "leader": t.tune["leader"], "steps": t.tune["steps"], "race_s": t.tune["race_s"],
            "ended_by": t.tune["ended_by"], "ratio": lead.ratio if lead else None,
            "low": lead.ci_low if lead else None, "high": lead.ci_high if lead else None,
            "verdict": lead.verdict if lead else "", "wall_s": wall}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="/usr/bin/python3 -m tools.tune_validation", description=__doc__.split("\n\n")[0])
    ap.add_argument("--memfbench", default=str(ROOT / "build" / "bench" / "memfbench"))
    ap.add_argument("--races", type=int, default=10, help="races of each kind (default 10)")
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--budget", type=float, default=60, help="each race's --budget in seconds (default 60)")
    ap.add_argument("--keep", metavar="DIR", help="keep the tune folders here")
    ap.add_argument("--json", metavar="FILE", help="write every race's outcome here")
    a = ap.parse_args(argv)
    keep = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="tune-validation-"))
    keep.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for i in range(a.races):
        for kind in KINDS:  # interleaved: the host's load falls on both kinds alike
            o = race(a.memfbench, kind, keep / f"{kind}-{i:02d}", a.cpu, a.budget)
            outcomes.append(o)
            print(json.dumps(o), flush=True)
    planted = [o for o in outcomes if o["kind"] == "planted"]
    identical = [o for o in outcomes if o["kind"] == "identical"]
    found = sum(o.get("leader") == "p[ID=5]" for o in planted)
    false_win = sum(o.get("verdict") == "faster" for o in identical)
    print(f"planted: leader ID=5 in {found} of {len(planted)} races; identical: the leader called faster than the "
          f"baseline in {false_win} of {len(identical)}")
    if a.json:
        Path(a.json).write_text(json.dumps(outcomes, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

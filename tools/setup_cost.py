"""A process's fixed cost, by stage and against the LLC: a benchmark that reports (not a test).

    python3 -m tools.setup_cost [--binary "LABEL=PATH [RUN OPTIONS]"]... [--llc 8M,32M,...] [--repeat 3] [--cpu 1]

Runs one process of a default-sized study (`memfbench run --processes 10 --process-index I`, the
internal option a --processes parent gives its children) for each binary, each LLC size given with
--cache (L1d 32K, L2 1M), as the first process (index 0: full self-check and verification) and as
a later one (index 1), `--repeat` times interleaved, pinned with --cpu. Prints, per case, the
median wall time of the process (exec to exit, with its 2 rounds), its peak resident memory, the
arena's size, and the stages its file records (`setup`; a file without it gives the arena's
`workset.prefault_ms` and `rounds.prepare_s` only). Markdown, for docs/cost.md.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The stages of the file's setup block, in the order a process goes through them.
STAGES = ("arena_map_s", "arena_fill_s", "workload_s", "selfcheck_s", "verification_s", "calibration_s",
          "classes_s", "after_rounds_s")


def size_bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def one(binary: list[str], llc: str, index: int, cpu: int, out: Path) -> dict[str, float]:
    """One process: its wall time, peak memory and recorded stages. binary: the path, then any run
    options of its own (e.g. --large-window sized)."""
    cmd = [binary[0], "run", *binary[1:], "-q", "--processes", "10", "--process-index", str(index), "--rounds", "2",
           "--warmup-rounds", "1", "--cache", f"32K:1M:{llc}", "--cpu", str(cpu), "-o", str(out)]
    with tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak memory, not the largest so far
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise SystemExit(f"setup_cost: {' '.join(cmd)} failed ({p.returncode}): {err.read().decode().strip()}")
    doc = json.loads(out.read_text())
    row = {"wall_s": wall, "rss_mib": usage.ru_maxrss / 1024, "arena_mib": doc["workset"]["arena_bytes"] / 2**20,
           "prefault_s": doc["workset"]["prefault_ms"] / 1e3, "prepare_s": doc["rounds"]["prepare_s"]}
    setup = doc.get("setup") or {}
    row.update({k: setup[k] for k in STAGES + ("before_rounds_s",) if k in setup})
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"{sys.executable} -m tools.setup_cost", description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", action="append", default=[], metavar="LABEL=PATH [OPTIONS]",
                    help="a memfbench binary, with run options of its own after the path (repeatable; "
                         "default: build/bench/memfbench as 'this')")
    ap.add_argument("--llc", default="8M,32M,96M,256M,1024M", help="LLC sizes given with --cache")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=1)
    a = ap.parse_args(argv)
    binaries = {label: shlex.split(rest) for label, rest in (b.split("=", 1) for b in a.binary)} or \
        {"this": ["build/bench/memfbench"]}
    llcs = a.llc.split(",")
    for llc in llcs:
        size_bytes(llc)  # a bad size fails here, before anything runs
    cases = [(label, llc, index) for label in binaries for llc in llcs for index in (0, 1)]
    rows: dict[tuple[str, str, int], list[dict[str, float]]] = {c: [] for c in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.repeat):  # interleaved, so drift between sittings hits every case alike
            for c in cases:
                rows[c].append(one(binaries[c[0]], c[1], c[2], a.cpu, Path(tmp) / f"r{r}.json"))
    cols = ["wall_s", "rss_mib", "arena_mib", "before_rounds_s", "prefault_s", "prepare_s", *STAGES]
    print(f"median of {a.repeat}, CPU {a.cpu}; process 0 checks in full, later processes (1) do not")
    print("| binary | LLC | process | " + " | ".join(cols) + " |")
    print("|" + " --- |" * (3 + len(cols)))
    for c in cases:
        med = {k: statistics.median(x[k] for x in rows[c]) for k in cols if all(k in x for x in rows[c])}
        cells = [f"{med[k]:.3f}" if k in med and k.endswith("_s") else f"{med[k]:.0f}" if k in med else "-"
                 for k in cols]
        print(f"| {c[0]} | {c[1]} | {c[2]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

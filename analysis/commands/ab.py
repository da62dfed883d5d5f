"""ab: a memfbench ab file. Each variant's end-to-end time against libc's behind the shim, the
shim's own cost, and what the replay of the program's recording predicted."""
from __future__ import annotations

import argparse

from ..io.ab_file import read_ab
from ..io.files import json_text, write_text_atomic
from ..verdicts.ab import MEASURES, AbComparison, ab_line, class_lines, compare_ab, predict_ab, prediction_line
from ..views.text import aligned_rows, fmt_interval, fmt_ratio, plain, ratio_verdict, wrapped
from .common import check_margin_level, check_outputs, detail_option, inputs_of, verdict_options

# The headline's last line without --detail: how to see every figure.
AB_HINT = "every figure (a re-run's interval, medians, adjusted p, blocks needed): --detail"
# The row of the shim's own cost (libc behind the shim against the program as it is).
SHIM_ROW = "shim's cost"


def ab_headline(comps: list[AbComparison], level: float, margin: float) -> list[str]:
    """ab at a glance, as compare's headline is laid out (aligned_rows): per measure, one line per
    arm against libc behind the shim, and the shim's own cost (libc behind the shim against the
    program as it is), then the key."""
    out = ["ab at a glance: run time / libc's behind the shim (below 1: faster)"]
    groups = []
    for measure, name in MEASURES.items():
        rows = [(SHIM_ROW if c.baseline == "plain" else c.arm, fmt_ratio(c.ratio), fmt_interval(c.ci_low, c.ci_high),
                 ratio_verdict(c.verdict, c.ratio), f"{c.blocks} blocks", []) for c in comps if c.measure == measure]
        if rows:
            groups.append((name, rows[1:] + rows[:1] if rows[0][0] == SHIM_ROW else rows))
    return (out + aligned_rows(groups)
            + wrapped(f"[{level:.0%} interval]; equivalent: within the ±{margin:g} % margin; {SHIM_ROW}: libc behind "
                      "the shim / the program as it is"))


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("ab", help="a memfbench ab file: each variant's end-to-end time against libc's, and "
                                  "the shim's own cost")
    p.add_argument("file")
    verdict_options(p, baseline=False)
    detail_option(p, "a re-run's interval, each side's median, adjusted p, blocks that would resolve the margin")
    p.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    doc = read_ab(args.file)
    comps = compare_ab(doc, args.level, args.margin / 100)
    prog = doc["program"]
    print("\n".join(wrapped(f"== {' '.join(prog['argv'])}: {doc['config']['function']} routed by the shim; "
                             f"{doc['config']['runs']} blocks of {len(doc['arms'])} runs (one per arm, order drawn "
                             f"per block), pinned to CPU {doc['config']['cpu']}")))
    print("\n".join(ab_headline(comps, args.level, args.margin)))
    if args.detail:
        print("\n".join(plain(ab_line(c, args.level, args.margin / 100)) for c in comps))
        print(f"\nratio: mean over blocks of ln(time / baseline's time in the same block), exponentiated; t "
              f"interval; margin ±{args.margin:g} %, Holm over each measure's comparisons")
    preds = predict_ab(doc, args.level)
    if preds:
        pr = doc["prediction"]
        replays = pr["replay"] + (f" and {pr['trace_replay']}" if pr.get("trace_replay") else "")
        print()
        print("\n".join(wrapped(f"== predicted from the replay of {pr['recording']} ({replays}) and measured, wall "
                                 "time:")))
        for p in preds:
            print("\n".join(x for line in [plain(prediction_line(p, args.level)), *class_lines(p)]
                            for x in wrapped(line)))
    if not args.detail:
        print(AB_HINT)
    if args.json_out is not None:
        write_text_atomic(args.json_out, json_text({"comparisons": [c.as_dict() for c in comps],
                                                    "predictions": [p.as_dict() for p in preds]}),
                          "--json", inputs_of(args))
    return 0

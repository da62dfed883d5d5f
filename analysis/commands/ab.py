"""ab: a memfbench ab file. Each variant's end-to-end time against libc's behind the shim, the
shim's own cost, and what the replay of the program's recording predicted."""
from __future__ import annotations

import argparse

from ..io.ab_file import read_ab
from ..io.files import json_text, write_text_atomic
from ..verdicts.ab import ab_line, class_lines, compare_ab, predict_ab, prediction_line
from ..views.text import plain
from .common import check_margin_level, check_outputs, inputs_of, verdict_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("ab", help="a memfbench ab file: each variant's end-to-end time against libc's, and "
                                  "the shim's own cost")
    p.add_argument("file")
    verdict_options(p, baseline=False)
    p.add_argument("--json", dest="json_out", help="also write the comparisons as JSON to this file")
    return p


def run(args: argparse.Namespace) -> int:
    check_margin_level(args)
    check_outputs(args, [(args.json_out, "--json")] if args.json_out is not None else [])
    doc = read_ab(args.file)
    comps = compare_ab(doc, args.level, args.margin / 100)
    prog = doc["program"]
    print(f"== {' '.join(prog['argv'])}: {doc['config']['function']} routed by the shim; "
          f"{doc['config']['runs']} blocks of {len(doc['arms'])} runs (one per arm, order drawn per block), "
          f"pinned to CPU {doc['config']['cpu']}")
    print("\n".join(plain(ab_line(c, args.level, args.margin / 100)) for c in comps))
    print(f"\nratio: mean over blocks of ln(time / baseline's time in the same block), exponentiated; t interval; "
          f"margin ±{args.margin:g} %, Holm over each measure's comparisons")
    preds = predict_ab(doc, args.level)
    if preds:
        pr = doc["prediction"]
        replays = pr["replay"] + (f" and {pr['trace_replay']}" if pr.get("trace_replay") else "")
        print(f"\n== predicted from the replay of {pr['recording']} ({replays}) and measured, wall time:")
        for p in preds:
            print("\n".join([plain(prediction_line(p, args.level))] + class_lines(p)))
    if args.json_out is not None:
        write_text_atomic(args.json_out, json_text({"comparisons": [c.as_dict() for c in comps],
                                                    "predictions": [p.as_dict() for p in preds]}),
                          "--json", inputs_of(args))
    return 0

"""memfbench analysis: load result files, summarize, compare variants, diagnose, plot, report.

Modules: schema (the result file's JSON Schema: validation, sample columns, closed sets of names),
load (DataFrames), stats (pure statistics), compare (A/B verdicts), diagnostics (drift,
autocorrelation, position effects), summary (per-variant statistics), plots, report (Markdown and
HTML), gate (regression gate verdicts), export (Google Benchmark JSON, CSV), machine (the host
block in sentences), files (atomic writes), cli (`python3 -m analysis`). Notebooks are in
notebooks/; the drivers that run memfbench (benchmark suite, validation report) are in tools/.
"""

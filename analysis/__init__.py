"""memfbench analysis: load result files, summarize, compare variants, diagnose, plot, report.

Modules: schema (validation), load (DataFrames), stats (pure statistics), compare (A/B verdicts),
diagnostics (drift, autocorrelation, position effects), summary, plots, report, cli.
"""

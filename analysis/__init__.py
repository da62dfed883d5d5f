"""memfbench analysis: load result files, summarize, compare variants, diagnose, plot, report.

Sub-packages, by role; each imports only those before it (io <- stats <- verdicts <- views <-
commands), and each one's __init__ names its modules:

- io/: files in and out: bounded reading (plain or gzip), upgrades of older versions, the JSON
  Schema and validation, result files as numpy columns and pandas frames (load), code identity,
  the placement check, the probe and ab files, call sites, atomic outputs, exports (Google
  Benchmark JSON, CSV)
- stats/: statistics, one home each: the laws and tests (scipy), intervals, bootstrap, robust
  spread, multiplicity, power, the code placement model, run diagnostics, threads
- verdicts/: comparisons and their verdicts: compare (A/B within a study), classes, sweep,
  pressure, diff (before/after), gate, history (across commits), ab (program-level)
- views/: text and tables, per-variant summaries and counters, probe tables, the Markdown and
  HTML reports, and plots/ (figures, one module per domain)
- commands/: one module per subcommand of `python3 -m analysis` (its sub-parser and what it
  does) and what they share (common)

cli.py is the front door (`python3 -m analysis`, memfbench analyze): it runs the subcommand asked
for and turns every user error into one line. Notebooks are in notebooks/; the drivers that run
memfbench (benchmark suite, validation report) and the libraries only they use are in tools/.
"""

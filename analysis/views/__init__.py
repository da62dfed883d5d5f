"""What the analysis shows: text for the terminal, tables, figures and the reports, above the
verdicts.

- counts: the counts table, per call with ratios to the baseline
- text: a run's context, verdict lines, terminal tables, thread interference lines
- summary: per-variant statistics of one run (the summarize table)
- counters: per-variant hardware counters per call (--counters)
- probe: a probe file's levels, tables and the roofline a sweep is read against
- pgo: the PGO gain as text: the overfitting table's cells, the summary's line per pair
- variants: the one-line-per-variant table of seed 000's metrics, with how each column was measured
- report: the Markdown and HTML reports (report, summarize --report, diff --report)
- tune: a memfbench tune folder as text: the race, the fresh study, where the leader's gain holds
- progress: a long analysis's progress line on a terminal (report, history), nothing in a pipe
- plots/: matplotlib figures, one module per domain (imported only where a figure is drawn)
"""

"""Verdicts: faster, slower, equivalent or inconclusive, and the numbers they rest on; each module
compares something, on the statistics of stats/ and the runs of io/.

- compare: variants of one study against a baseline, paired by round, the process as the unit
  (Comparison, the verdict rule, the multiplicity family)
- classes: where the time goes: a --by-class run's difference decomposed into size classes
- sweep: a size sweep, point by point
- pressure: the comparison against instruction-cache pressure size
- diff: before/after: each variant against itself in two sets of files
- gate: the regression gate and its verdict document
- history: a series of files across commits and its change points
- pool: studies of the same code on the same host run at different times, pooled with the drift
  between them (a between-study variance): one ratio, its interval, a later study's
- ab: program-level A/B (memfbench ab) and the prediction from a recording's replay
- suite: one number across studies: each variant's geometric mean with an interval carrying the studies' own
- pgo: the PGO gain of run --pgo (NAME-pgo / NAME) and the trained-on x tested-on table of several files
- variants: seed 000's metrics in one row per variant (ratio, code size, i-cache pressure slope, slowdown
  beside a second thread, PGO gain), each from the file that measured it
- race: memfbench tune's racing rule: candidates pooled over race steps, dropped when slower than
  the leader by more than the margin, the chance of dropping the fastest bounded by alpha
- tune: a tune folder's verdicts: the fresh study's leader and runner-up, the leader on the other
  distributions
"""

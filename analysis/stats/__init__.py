"""Statistics, one home for each: pure functions on numpy arrays (and, for the domains below, on
loaded runs), above io/ and below the verdicts.

- laws: the t, normal and binomial laws and the classical tests (binomial, one-sample t,
  Mann-Whitney), the one door to scipy
- intervals: Interval, the t interval and prediction interval of a mean, the exact sign test's
  interval and p-value of a median
- bootstrap: seeded resampling (intervals of a median and of a ratio of medians), the default
  seed and resample counts
- robust: IQR, MAD, robust sd, Tukey's outliers, the Hodges-Lehmann shift
- multiplicity: Holm and Benjamini-Hochberg
- power: detectable effects and the rounds or processes a change needs
- placement_model: one process's estimate, the mean over processes with its design error (the
  code placement model), Welch's interval of two such means, the shift over process order
- screening: which processes a verdict rests on: the starved (few rounds) and the disturbed (an
  outlier of the placement model: a Huber fit, then a Bonferroni t test), left out and named
- pooling: studies run at different times: random-effects pooling (REML) with a between-study
  variance, its interval and a later study's prediction interval
- validated: figures docs/validation.md measured per CPU family (the layout floor, the default
  between-study sd), with the words that name their source
- simulate: simulated studies and series with a known answer, for the tests and the drivers
- diagnostics: drift, position and autocorrelation effects of one run, each with its interval
- threads: several timing threads: their topology, per-thread summaries, thread 0's interference
"""

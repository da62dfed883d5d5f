"""Libraries of the drivers in tools/, used by nothing in analysis/: golden (golden_compare.py's
judge of whether two result files differ beyond run-to-run noise), external (probe_compare.py's
readers of other memory benchmarks' output), machine (validation.py's sentences about a result's
host block)."""

"""Matplotlib figures, one module per domain, each function returning a Figure: base (what they
share: colours, labels, log axes, save), runs (batch times), comparisons (verdict intervals,
per-round ratios), classes, sweep, probe, pressure, threads, history, race (memfbench tune's race by step). Importing one loads
matplotlib, so only the code that draws imports them."""

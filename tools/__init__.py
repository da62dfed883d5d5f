"""Drivers around memfbench and the analysis package, run from the repository root as `python3 -m tools.NAME`."""

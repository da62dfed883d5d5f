"""memfbench analysis: load result files, summarize, compare variants, plot, report."""

__all__ = ["schema"]

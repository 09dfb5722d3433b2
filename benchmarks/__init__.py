"""Benchmarks of calstats (``python -m benchmarks``); not part of the installed package."""

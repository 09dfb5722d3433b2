"""Metrics, diagnostics and tests: ECE and friends, scores, calibration tests, calibration
inference (SKCE, kernel test, bootstrap intervals), reliability diagrams, method comparison.

The public names are those of :mod:`calstats`; these modules hold them by family.
"""

"""Results and reports: the calibrator base class, R-style objects, summaries, coefficient
tables and the text/HTML/LaTeX tables built on statsmodels.

The public names are those of :mod:`calstats`; these modules hold them by family.
"""

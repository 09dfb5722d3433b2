"""Calibrators: the fitted maps (R's probcal scaling and binning families, Dirichlet and matrix
scaling, one-vs-rest, cross-validation, top-label, evidential and class-weight methods).

The public names are those of :mod:`calstats`; these modules hold them by family.
"""

"""Spiegelhalter's statistic from four sums over the rows.

``Z = sum (o - s)(1 - 2 s) / sqrt(sum (1 - 2 s)^2 s (1 - s))`` (Spiegelhalter 1986); the
Brier score and its expectation under calibration are ``sum (o - s)^2 / n`` and
``sum s (1 - s) / n``. The four sums are correctly rounded, so they merge exactly from
blocks of rows (the Dask path) and give the in-memory value.
"""

import math

import numpy as np
from scipy.special import ndtr

from ..numerics.passes import compiled_module
from .fsum import _certified, fsum

__all__ = ["spiegelhalter_terms", "spiegelhalter_sums", "normal_pvalue"]

#: The compiled core (None without a C compiler: each sum from its terms, the same sums).
_core = compiled_module("_core")


def spiegelhalter_terms(s, o):
    """The four vectors of terms, with the roundings of the sums' definitions:
    ``s (1 - s)``, ``((w w) s)(1 - s)`` with ``w = 1 - 2 s``, ``(o - s) w`` and ``(o - s)^2``."""
    one_minus = 1.0 - s
    w = 1.0 - s * 2.0
    d = np.subtract(o, s)
    return s * one_minus, w * w * s * one_minus, d * w, d * d


def spiegelhalter_sums(s, o):
    """The four sums of :func:`spiegelhalter_terms`, each correctly rounded (``math.fsum``'s
    value), from one pass of the C core: per sum an exact part and a rest within a known bound
    (the method of :mod:`calstats.kernels.fsum`); a sum whose rounding the bound could change
    is summed again exactly from its terms."""
    n = s.size
    s = np.ascontiguousarray(s, dtype=np.float64)
    o_int = o.dtype == np.int64
    o = np.ascontiguousarray(o, dtype=np.int64 if o_int else np.float64)
    k = math.frexp(2.0 * (n + 1))[1]  # 2^k > 2 (n + 1) >= 2 (n + 1) max |term|
    if _core is not None:
        parts = _core.spiegelhalter_sums(s, o, int(o_int), math.ldexp(1.0, k))
        bound = math.ldexp(2.0 * n * n, k - 106)
        sums = [_certified(parts[j], parts[4 + j], bound) for j in range(4)]
    else:  # no compiled core: each sum exactly from its terms (the same correctly rounded sums)
        sums = [None] * 4
    if any(x is None for x in sums):  # near a tie, a sum that cancels, zero, or NaN labels
        terms = spiegelhalter_terms(s, o)
        sums = [x if x is not None else fsum(terms[j], bound=1.0) for j, x in enumerate(sums)]
    return sums


def normal_pvalue(Z, alternative):
    """The standard normal p-value of ``Z`` for scipy's ``alternative`` names."""
    if alternative == "greater":
        return float(ndtr(-Z))
    if alternative == "less":
        return float(ndtr(Z))
    return float(min(1.0, 2.0 * ndtr(-abs(Z))))

"""One read of a probability matrix for its checks and its top label.

``check_prob_matrix`` proves its two conditions (entries in [0, 1], rows summing to 1 within
R's tolerance) from a maximum and from row sums, and every confidence-type statistic then
needs each row's first maximum (R ``max.col(ties.method = "first")``). NumPy spends two
reductions on the proof and, for a matrix of a few columns, far more on ``argmax(axis=1)``,
whose per-row reductions cost more than the calibration tests themselves.
The C core reads the matrix once for all of it (``_core.prob_scan``); the NumPy functions
here stay the reference the tests compare it with, bit for bit.
"""

from typing import Any

import numpy as np

from .passes import compiled_module

#: The compiled core, or None (an installation without a C compiler: the NumPy reference).
_core: Any = compiled_module("_core")

__all__ = ["prob_scan", "top_label_rows", "top_label_rows_numpy", "colbin_pass"]

_REAL = (np.dtype(np.float64), np.dtype(np.float32))


def _scannable(a):
    return type(a) is np.ndarray and a.ndim == 2 and a.dtype in _REAL and a.flags.c_contiguous and a.shape[1] >= 1


def _threads(threads):
    if threads is None:
        from .._options import inner_threads

        return inner_threads()
    return int(threads)


def prob_scan(a, threads=None):
    """``(unit, smin, smax, r, pred)`` of a C-ordered float64 or float32 matrix with rows,
    in one pass: whether every entry is in [+0, 1] (no NaN, no -0), the smallest and
    largest double row sums, and each row's first maximum ``r`` (as float64) with its
    1-based column ``pred``. A float32 matrix is read as its exact float64 widening, so
    it gives what its float64 copy gives. Large matrices are read by two threads, halves
    of the rows each (``threads``: the ``threads`` option by default); the results do not
    depend on it."""
    if _core is None:  # nothing proved: the callers' own checks decide, R's way
        return (False, np.nan, np.nan, *top_label_rows_numpy(a))
    threads = _threads(threads)
    n, k = a.shape
    r = np.empty(n, dtype=np.float64)
    pred = np.empty(n, dtype=np.int64)
    unit, smin, smax = _core.prob_scan(a, k, r, pred, int(threads))
    return unit, smin, smax, r, pred


def top_label_rows_numpy(p):
    """The reference: ``(r, pred)``, NumPy's argmax (first maximum, first NaN) made 1-based."""
    p = np.asarray(p)
    n, k = p.shape
    pred = np.argmax(p, axis=1)
    r = p[np.arange(n), pred].astype(np.float64, copy=False)
    return r, pred.astype(np.int64) + 1


def top_label_rows(p):
    """``(r, pred)`` of any matrix: the C scan for C-ordered float64 or float32 input, else
    the reference."""
    if _core is not None and _scannable(p) and p.shape[0]:
        return prob_scan(p)[3:]
    return top_label_rows_numpy(p)


def colbin_pass(P, mode, breaks, cnt, acc, codes=None, ysum=None, mean=None, threads=None):
    """One pass of the classwise bins of a C-ordered float64 or float32 matrix ``P`` (rows
    in order), accumulated into the caller's arrays of ``K * B`` entries, column-major by
    bin (entry ``j * B + b``: column j, bin b).

    ``mode``: 0 R's equal-width bins (``breaks`` from ``equal_width_breaks(B)``, the
    arithmetic of :func:`calstats.kernels.bins.find_unit_bins`), 1 left-closed and 2
    right-closed bins on any sorted ``breaks`` (:func:`calstats.kernels.bins.assign_bins`).
    ``cnt`` (int64) counts the scores, ``acc`` (long double) adds them, each bin in row
    order, its first score starting the sum; with ``mean`` (long double) it adds
    ``score - mean`` instead (R's second pass). With ``codes`` (1-based labels, int64)
    ``ysum`` (int64) counts the rows of each bin whose label is the column's class. Cut
    into consecutive blocks of rows, the passes give the same arrays as one pass.
    """
    _core.colbin_pass(P, P.shape[1], int(mode), breaks, codes, cnt, acc, ysum, mean, _threads(threads))

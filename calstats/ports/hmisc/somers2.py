"""Hmisc's rank discrimination helpers as rms' ``validate`` calls them (Hmisc 4.8-0):
``somers2(x, y)`` (the c index and Somers' Dxy from the mean rank of the events) and
``GiniMd(x)`` (Gini's mean difference).

R's arithmetic: ``rank`` gives tied values their average rank (half-integers, exact),
``mean`` is R's two-pass long-double mean and ``sum`` a long-double sum in index order
(:mod:`calstats.numerics.reductions`).
"""

import math

import numpy as np

from ...numerics.reductions import rmean, rsum

__all__ = ["somers2", "gini_md", "gini_md_pair", "gini_md_sorted", "sorted_image", "rank_average"]


def rank_average(x):
    """R's ``rank(x)`` (``ties.method = "average"``) as float64: a run of equal values
    ``i..j`` (0-based, in sorted order) gets ``(i + j + 2) / 2``."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    ranks = np.empty(n)
    if n == 0:
        return ranks
    order = np.argsort(x)  # any order of equal values: they share one average rank
    xs = x[order]
    if np.isnan(xs[-1]):  # NaN sorts last and each is a value of its own: keep their order
        order = np.argsort(x, kind="stable")
        xs = x[order]
    first = np.empty(n, dtype=bool)
    first[0] = True
    np.not_equal(xs[1:], xs[:-1], out=first[1:])  # NaN is a run of its own, as ``==`` says
    starts = np.flatnonzero(first)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1] = n - 1
    ranks[order] = np.repeat((starts + ends + 2) / 2.0, ends - starts + 1)
    return ranks


def somers2(x, y):
    """``Hmisc::somers2(x, y)`` without weights: ``(C, Dxy)``.

    ``C = (mean(rank(x)[y == 1]) - (n1 + 1)/2) / (n - n1)`` and ``Dxy = 2 (C - 0.5)``; NaN
    for both (R's NA) when ``y`` has a single class.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y)
    n = x.size
    ones = y == 1
    n1 = int(np.sum(ones))
    if n1 == 0 or n1 == n:
        return math.nan, math.nan
    mean_rank = rmean(rank_average(x)[ones])
    c = (mean_rank - (n1 + 1) / 2.0) / float(n - n1)
    return c, 2.0 * (c - 0.5)


def gini_md(x):
    """``Hmisc::GiniMd(x)``: ``sum(w * sort(x - mean(x)))`` with
    ``w = 4 * ((1:n) - (n - 1)/2)/n/(n - 1)`` (NaN for fewer than two values)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size < 2:
        return math.nan
    return gini_md_sorted(np.sort(x), rmean(x))


def gini_md_sorted(xs, center):
    """:func:`gini_md` of values already sorted (``xs``) whose R ``mean`` is ``center``:
    ``sort(x - m)`` is ``sort(x) - m`` term by term (subtracting a constant keeps the order
    after rounding), so the sum is the same to the last bit."""
    xs = np.asarray(xs, dtype=np.float64).ravel()
    n = xs.size
    if n < 2:
        return math.nan
    i = np.arange(1, n + 1, dtype=np.float64)
    w = 4.0 * (i - (n - 1) / 2.0) / float(n) / float(n - 1)
    return rsum(w * (xs - center))


def sorted_image(f, xs):
    """``np.sort(f(x))`` from ``xs = np.sort(x)`` for a non-decreasing ``f`` (``plogis``):
    ``f(xs)`` when it is in order (checked: the values are those of ``f(x)``, so the sorted
    sequence is the same), otherwise sorted."""
    v = np.asarray(f(xs), dtype=np.float64)
    if v.size > 1 and not np.all(v[1:] >= v[:-1]):
        v = np.sort(v)
    return v


def gini_md_pair(x, f, fx):
    """``(GiniMd(x), GiniMd(fx))`` for ``fx = f(x)`` with ``f`` non-decreasing (``plogis``),
    from one sort of ``x`` (:func:`gini_md_sorted`, :func:`sorted_image`); the same bits as
    two :func:`gini_md` calls. NaN for fewer than two values."""
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size < 2:
        return math.nan, math.nan
    xs = np.sort(x)
    return gini_md_sorted(xs, rmean(x)), gini_md_sorted(sorted_image(f, xs), rmean(fx))

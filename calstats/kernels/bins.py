"""Equal-width bins on [0, 1] and their statistics, as probcal's internal ``bin_stats``.

The binned metrics (``ece``, ``mce``, ``ace``, ``top_label_ece``), the reliability diagram
and the histogram calibrator all cut [0, 1] here: R's breaks ``seq(0, 1, length.out = B +
1)``, R's ``findInterval`` (left-closed bins, the last one closed), R's two-pass
long-double means per bin. The reducers at the end turn per-bin statistics into a metric;
the in-memory functions and the Dask blocks (which merge counts and sums) share them, so
both give R's value.
"""

import math
from collections import namedtuple

import numpy as np

from .._errors import warn
from .._validate import check_bins, check_prob_and_labels
from .._weights import check_weights
from ..numerics.interp import find_interval
from ..numerics.reductions import LD, rmean, rsum

__all__ = ["equal_width_breaks", "find_bins", "find_unit_bins", "fill_empty_bins", "BinStats", "group_rmean",
           "bin_stats", "weighted_bin_stats", "ece_of", "mce_of", "ace_of", "max_of", "debiased_of"]


def equal_width_breaks(bins):
    """R ``seq(0, 1, length.out = bins + 1)``: inner breaks are ``j * (1/bins)``, not ``j/bins``."""
    step = 1.0 / bins
    out = np.arange(bins + 1, dtype=np.float64) * step
    out[0], out[-1] = 0.0, 1.0
    return out


def find_bins(v, breaks):
    """R ``findInterval(v, breaks, rightmost.closed = TRUE, all.inside = TRUE)`` (1-based)."""
    return np.asarray(find_interval(np.asarray(v, dtype=np.float64), breaks), dtype=np.int64)


def find_unit_bins(v, breaks):
    """:func:`find_bins` for ``v`` in [0, 1] and ``breaks = equal_width_breaks(B)``, without
    a binary search.

    ``floor(v * B)`` is the bin up to one place either way (``v * B`` and the breaks
    ``j * (1/B)`` are each within a few ulps of the exact values, far less than the spacing
    ``1/B``); one exact comparison with each neighbouring break then gives R's bin.
    """
    nbins = breaks.size - 1
    g = (v * nbins).astype(np.int64)  # truncation is floor for v >= 0
    np.minimum(g, nbins - 1, out=g)
    g += 1
    g -= v < breaks.take(g - 1)  # breaks[0] = 0 <= v: bin 1 never moves down
    g += (v >= breaks.take(g)) & (g < nbins)
    return g


def fill_empty_bins(values, counts, fallback):
    """Give each empty bin the value of the nearest originally non-empty bin (lower on ties)."""
    values = np.array(values, dtype=np.float64)
    full = np.flatnonzero(np.asarray(counts) > 0)
    if full.size == 0:
        values[:] = fallback
        return values
    for i in np.flatnonzero(np.asarray(counts) == 0):
        values[i] = values[full[np.argmin(np.abs(full - i))]]
    return values




#: R's ``bin_stats`` result: ``bins`` (B), ``breaks`` (B + 1), ``bin`` (1-based bin of each
#: observation), and per bin (length B, NaN where R has NA): ``n`` (int64 counts),
#: ``confidence`` (R double mean of p), ``accuracy`` (R integer mean of y), ``gap``.
BinStats = namedtuple("BinStats", "bins breaks bin n confidence accuracy gap")


def group_rmean(xs, counts):
    """R ``mean()`` of each consecutive group of ``xs`` (``counts`` long); NaN when empty.

    A singleton's mean is the value itself (R's two passes are exact there), so only groups
    of two or more are summed, each sequentially in long double by :func:`rmean`.
    """
    out = np.full(counts.size, np.nan)
    ends = np.cumsum(counts)
    starts = ends - counts
    single = counts == 1
    out[single] = xs[starts[single]]
    many = np.flatnonzero(counts > 1)
    if many.size:
        # rmean's two long-double passes, widened once and accumulated in one reused buffer
        # (a fresh long-double array per pass cost more than the sums)
        xl = np.asarray(xs, dtype=np.float64).astype(LD)
        buf = np.empty(int(counts.max()), dtype=LD)
        for j in many.tolist():
            seg = xl[starts[j] : ends[j]]
            m = seg.size
            acc = buf[:m]
            s = np.cumsum(seg, out=acc)[-1] / LD(m)
            if np.isfinite(s):
                np.subtract(seg, s, out=acc)
                s = s + np.cumsum(acc, out=acc)[-1] / LD(m)
            out[j] = float(s)
    return out


def bin_stats(p, y, bins):
    """probcal's internal ``bin_stats(p, y, bins)`` (behind ``ece``, ``mce``, ``ace``), checks included.

    Checks in R's order: the probabilities ``p`` (numeric, finite, in [0, 1]), the labels ``y``
    (0/1; a single class is allowed), equal lengths, then ``bins``. Observations go to the
    equal-width bins of :func:`equal_width_breaks` by :func:`find_bins`. Per bin: the count,
    ``mean(p)`` (R's two-pass long-double mean, observations in index order), ``mean(y)`` (R's
    integer mean: exact total over the count, rounded once; a missing logical label, a pandas
    ``boolean`` NA, makes it NaN, as in R, where a logical NA passes the label check) and
    ``gap = |accuracy - confidence|``. Empty bins hold NaN.

    Returns
    -------
    BinStats
    """
    pv, yv = check_prob_and_labels(p, y)
    nbins = check_bins(bins)
    breaks = equal_width_breaks(nbins)
    idx = find_unit_bins(pv, breaks)
    counts = np.bincount(idx - 1, minlength=nbins).astype(np.int64)
    # keeps index order inside each bin; on 8- and 16-bit keys NumPy's stable sort is a
    # radix sort (the permutation of a stable sort does not depend on the key's type)
    key = idx.astype(np.uint8) if nbins < 256 else idx.astype(np.uint16) if nbins < 65536 else idx
    order = np.argsort(key, kind="stable")
    confidence = group_rmean(pv[order], counts)
    totals = np.bincount(idx - 1, weights=np.asarray(yv, dtype=np.float64), minlength=nbins)  # exact: 0/1 sums
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = (totals.astype(LD) / counts.astype(LD)).astype(np.float64)
    accuracy[counts == 0] = np.nan
    gap = np.abs(accuracy - confidence)
    return BinStats(nbins, breaks, idx, counts, confidence, accuracy, gap)


def weighted_bin_stats(p, y, bins, w):
    """Equal-width bin statistics with case weights (not R's): per bin the weight sum
    ``n`` (a float), the weighted mean probability and label, and their gap. Integer
    weights give the statistics of the replicated rows; a bin whose weights sum to 0 is
    empty."""
    pv, yv = check_prob_and_labels(p, y)
    nbins = check_bins(bins)
    w = check_weights(w, pv.size)
    breaks = equal_width_breaks(nbins)
    idx = find_bins(pv, breaks)
    wsum = np.bincount(idx - 1, weights=w, minlength=nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf = np.bincount(idx - 1, weights=w * pv, minlength=nbins) / wsum
        acc = np.bincount(idx - 1, weights=w * np.asarray(yv, dtype=np.float64), minlength=nbins) / wsum
    empty = wsum == 0
    conf[empty] = np.nan
    acc[empty] = np.nan
    return BinStats(nbins, breaks, idx, wsum, conf, acc, np.abs(acc - conf))


# --------------------------------------------------------------------------------------
# per-bin statistics -> a metric


def ece_of(stats):
    """``sum(n / N * gap, na.rm = TRUE)`` over the bins, in bin order, long double."""
    ok = ~np.isnan(stats.gap)
    weights = stats.n / float(stats.n.sum())  # R: integer / integer, one double division
    return rsum((weights * stats.gap)[ok])


def defined_gaps(stats):
    return stats.gap[(stats.n > 0) & ~np.isnan(stats.gap)]


def mce_of(stats):
    """``max(gap, na.rm = TRUE)`` over the non-empty bins (R's -Inf and warning when none)."""
    gaps = defined_gaps(stats)
    if gaps.size == 0:  # only reachable when every label is a logical NA (R lets those through)
        warn("no non-missing arguments to max; returning -Inf")
        return -math.inf
    return float(gaps.max())


def ace_of(stats):
    """``mean(gap, na.rm = TRUE)`` over the non-empty bins (R's mean; NaN when none)."""
    return rmean(defined_gaps(stats))


def max_of(values):
    return float(max(values))


def debiased_of(stats):
    """``sum_{b: n_b >= 2} (n_b/n) [(ybar_b - pbar_b)^2 - ybar_b (1 - ybar_b)/(n_b - 1)]``."""
    nb = stats.n.astype(np.float64)
    ok = (stats.n >= 2) & ~np.isnan(stats.accuracy)
    ybar, pbar = stats.accuracy[ok], stats.confidence[ok]
    terms = (nb[ok] / float(stats.n.sum())) * ((ybar - pbar) ** 2 - ybar * (1.0 - ybar) / (nb[ok] - 1.0))
    return rsum(terms)

"""probcal's shared internal computations (docs/spec/r-interface.md §2), with R's arithmetic.

Sums and means go through :mod:`calstats.numerics.reductions` and ``exp``/``log`` through
:mod:`calstats.numerics.libm`, so the results are R's to the last bit.
"""

from collections import namedtuple

import numpy as np
import pandas as pd

from .numerics import libm
from .numerics.reductions import LD, ld_sum_axis0, rmean, row_sums

__all__ = [
    "inv_logit",
    "softmax",
    "softmax_t",
    "one_hot",
    "pick",
    "multiclass_log_loss",
    "clip_loss_prob",
    "prob_frame",
    "renormalize_rows",
    "equal_width_breaks",
    "find_bins",
    "find_unit_bins",
    "fill_empty_bins",
    "binary_log_loss",
    "BinStats",
    "bin_stats",
    "group_rmean",
    "probs_to_logits",
    "logits_to_probs",
]

LOSS_EPS = 1e-15


def inv_logit(x):
    """``1 / (1 + exp(-x))`` (R ``plogis``), elementwise."""
    return 1.0 / (1.0 + libm.exp(-np.asarray(x, dtype=np.float64)))


def softmax(z):
    """Row-wise softmax: subtract the row maximum, exponentiate, divide by ``rowSums``."""
    return softmax_t(np.asarray(z, dtype=np.float64).T).T


def softmax_t(zt):
    """:func:`softmax` in class-major layout: ``zt`` is classes x observations."""
    zt = np.asarray(zt, dtype=np.float64)
    e = libm.exp(zt - zt.max(axis=0))
    return e / ld_sum_axis0(e)


def one_hot(codes, k):
    """n x k indicator matrix with a 1 at ``[i, codes[i] - 1]`` (codes 1-based)."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.zeros((codes.size, k))
    out[np.arange(codes.size), codes - 1] = 1.0
    return out


def pick(p, codes):
    """``p[cbind(1:n, codes)]``: the probability of each observation's class."""
    codes = np.asarray(codes, dtype=np.int64)
    return p[np.arange(codes.size), codes - 1]


def clip_loss_prob(v):
    """Clip probabilities entering a logarithm to ``[1e-15, 1 - 1e-15]``."""
    return np.minimum(np.maximum(v, LOSS_EPS), 1.0 - LOSS_EPS)


def multiclass_log_loss(p, codes):
    """Mean negative log-likelihood of the true classes (clipped at 1e-15)."""
    return -rmean(libm.log(clip_loss_prob(pick(p, codes))))


def prob_frame(values, levels, like=None):
    """Predictions as a DataFrame: columns are the class levels; the index is that of
    ``like`` when it is a pandas object, else a RangeIndex."""
    index = like.index if isinstance(like, (pd.DataFrame, pd.Series)) else None
    return pd.DataFrame(np.asarray(values, dtype=np.float64), columns=list(levels), index=index)


def renormalize_rows(m):
    """Divide each row by its sum; rows summing to 0 (or not finite) become uniform."""
    m = np.array(m, dtype=np.float64)
    s = row_sums(m)
    bad = ~np.isfinite(s) | (s == 0)
    if bad.any():
        m[bad] = 1.0 / m.shape[1]
        s = np.where(bad, 1.0, s)
    return m / s[:, None]


def equal_width_breaks(bins):
    """R ``seq(0, 1, length.out = bins + 1)``: inner breaks are ``j * (1/bins)``, not ``j/bins``."""
    step = 1.0 / bins
    out = np.arange(bins + 1, dtype=np.float64) * step
    out[0], out[-1] = 0.0, 1.0
    return out


def find_bins(v, breaks):
    """R ``findInterval(v, breaks, rightmost.closed = TRUE, all.inside = TRUE)`` (1-based)."""
    from .numerics.interp import find_interval

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


def binary_log_loss(p, y, w=None):
    """Summed negative log-likelihood of 0/1 labels (clipped at 1e-15): a **sum**, not a mean.

    ``-sum(y * log(p*) + (1 - y) * log1p(-p*))`` with ``p*`` clipped to
    ``[1e-15, 1 - 1e-15]``, R's long-double ``sum``; a missing label gives NaN.
    """
    from .numerics.reductions import rsum

    q = clip_loss_prob(np.asarray(p, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64)
    if w is not None:  # case weights: each term counted w_i times
        return -rsum(w * (y * libm.log(q) + (1.0 - y) * libm.log1p(-q)))
    return -rsum(y * libm.log(q) + (1.0 - y) * libm.log1p(-q))


# --------------------------------------------------------------------------------------
# equal-width bin statistics of the metrics and the reliability diagram (docs/spec/r-interface.md §7.1)



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
    """probcal's internal ``bin_stats(p, y, bins)`` (docs/spec/r-interface.md §7.1), checks included.

    Checks in R's order: V-PROB("p"), V-BY("y", require_both = FALSE), V-LEN("p", "y"),
    V-BINS("bins"). Observations go to the equal-width bins of :func:`equal_width_breaks`
    by :func:`find_bins`. Per bin: the count, ``mean(p)`` (R's two-pass long-double mean,
    observations in index order), ``mean(y)`` (R's integer mean: exact total over the count,
    rounded once; a missing logical label makes it NaN, quirk Q1) and
    ``gap = |accuracy - confidence|``. Empty bins hold NaN.

    Returns
    -------
    BinStats
    """
    from ._validate import check_bins, check_prob_and_labels

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


def probs_to_logits(x):
    """Logit-scale scores of probabilities, for calibrators fitted on logits: a vector gives
    ``log(q / (1 - q))`` and a matrix ``log(q)``, with ``q`` clipped at 1e-15."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        q = clip_loss_prob(x)
        return libm.log(q) - libm.log1p(-q)
    return libm.log(np.maximum(x, LOSS_EPS))


def logits_to_probs(z):
    """Probabilities of logit-scale scores: ``inv_logit`` for a vector, ``softmax`` by row."""
    z = np.asarray(z, dtype=np.float64)
    return inv_logit(z) if z.ndim == 1 else softmax(z)

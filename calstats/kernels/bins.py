"""Bins of the scores and their statistics, as probcal's internal ``bin_stats``.

The binned metrics (``ece``, ``mce``, ``ace``, ``top_label_ece``), the reliability diagram
and the histogram calibrator all cut the scores here. R's default: equal-width breaks
``seq(0, 1, length.out = B + 1)``, R's ``findInterval`` (left-closed bins, the last one
closed), R's two-pass long-double means per bin. The other choices (:class:`Binning`):
equal-mass bins at R's ``quantile(type = 7)`` of the scores, explicit breaks, right-closed
bins, and a number of bins given by a rule. The reducers at the end turn per-bin
statistics into a metric; the in-memory functions and the Dask blocks (which merge counts
and sums) share them, so both give R's value.
"""

import math
from collections import namedtuple

import numpy as np

from .. import _validate as v
from .._validate import check_prob_and_labels
from .._weights import check_weights
from ..numerics import fast
from ..numerics.interp import find_interval, quantile_type7
from ..numerics.reductions import LD, rmean, rsum
from .choices import BIN_RULES, BIN_STRATEGIES, QUANTILE_HAS_NO_WEIGHTS

__all__ = ["equal_width_breaks", "find_bins", "find_unit_bins", "fill_empty_bins", "BinStats", "group_rmean",
           "Binning", "binning", "equal_width_left", "rule_bins", "quantile_edges", "distinct_edges",
           "bin_edges", "assign_bins", "fixed_edges", "bin_mode", "bin_stats_from", "cells_bin_stats",
           "grouped_bin_stats",
           "bin_stats", "weighted_bin_stats", "ece_of", "mce_of", "ace_of", "max_of", "debiased_of", "rms_of", "norm_of"]


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
#: ``confidence`` (R double mean of p), ``accuracy`` (R integer mean of y), ``gap``; with
#: case weights ``n`` is the weight sum and ``n_eff`` Kish's effective size
#: ``(sum w)^2 / sum w^2`` (None without weights: the counts are the sizes).
BinStats = namedtuple("BinStats", "bins breaks bin n confidence accuracy gap n_eff", defaults=(None,))


# --------------------------------------------------------------------------------------
# the binning choices


#: How to cut the scores: ``bins`` (a count or a rule name; None with explicit breaks),
#: ``strategy`` (``"uniform"``, ``"quantile"``, or ``"breaks"`` for explicit edges),
#: ``breaks`` (the explicit edges or None) and ``right`` (right-closed bins).
Binning = namedtuple("Binning", "bins strategy breaks right")
def binning(bins=10, strategy="uniform", breaks=None, right=False):
    """The validated binning choices. ``breaks``, when given, replaces ``bins`` and
    ``strategy``; ``bins`` is a positive whole number or a rule of :data:`BIN_RULES`."""
    if breaks is not None:
        edges = v.check_breaks(breaks)
        v.match_arg(strategy, BIN_STRATEGIES)
        return Binning(None, "breaks", edges, v.check_flag(right, "right"))
    nb = v.check_bins_or_rule(bins, BIN_RULES)
    return Binning(nb, v.match_arg(strategy, BIN_STRATEGIES), None, v.check_flag(right, "right"))


def equal_width_left(spec):
    """Whether ``spec`` cuts R's way: equal-width bins on [0, 1], left-closed (the count
    may come from a rule), so that :func:`find_unit_bins` gives the bins."""
    return spec.breaks is None and spec.strategy == "uniform" and not spec.right


def rule_bins(rule, n):
    """The number of bins a rule gives for ``n`` scores, in exact integer arithmetic:
    ``"sqrt"`` ``ceil(sqrt(n))``; ``"sturges"`` ``ceil(log2(n)) + 1`` (R's
    ``nclass.Sturges``); ``"cube_root"`` ``ceil(n^(1/3))``; at least one bin."""
    n = max(int(n), 1)
    if rule == "sqrt":
        k = math.isqrt(n)
        return k + (k * k < n)
    if rule == "sturges":
        return (n - 1).bit_length() + 1
    k = round(n ** (1.0 / 3.0))
    while k ** 3 < n:
        k += 1
    while k > 1 and (k - 1) ** 3 >= n:
        k -= 1
    return k


def quantile_edges(scores, nbins, right=False):
    """Equal-mass edges: R's ``quantile(scores, seq(0, 1, length.out = nbins + 1), type = 7)``
    with duplicated edges (tied scores) merged by :func:`distinct_edges`."""
    return distinct_edges(quantile_type7(scores, equal_width_breaks(nbins)), right)


def distinct_edges(q, right=False):
    """Sorted quantiles with duplicated edges merged, except at the closed end: when the
    first two (right-closed bins) or the last two (left-closed bins) are equal, the
    closed end bin ``[e, e]`` stays and holds the tied extreme scores. So the non-empty
    bins are those of the unmerged edges (scikit-learn's ``calibration_curve``, which
    drops its empty bins); a constant score gives the single bin ``[s, s]``."""
    edges = np.unique(q)
    if edges.size == 1:
        return np.repeat(edges, 2)
    if right and q[0] == q[1]:
        return np.concatenate([edges[:1], edges])
    if not right and q[-1] == q[-2]:
        return np.concatenate([edges, edges[-1:]])
    return edges


def bin_edges(spec, scores):
    """The edges ``spec`` gives for ``scores`` (the explicit breaks after checking that every
    score lies within them)."""
    if spec.breaks is not None:
        v.check_within_breaks(scores, spec.breaks)
        return spec.breaks
    nb = rule_bins(spec.bins, scores.size) if isinstance(spec.bins, str) else spec.bins
    if spec.strategy == "quantile":
        return quantile_edges(scores, nb, spec.right)
    return equal_width_breaks(nb)


def assign_bins(scores, edges, right):
    """1-based bins: left-closed ``[a, b)`` with the last bin closed (R's ``findInterval(...,
    rightmost.closed = TRUE)``), or right-closed ``(a, b]`` with the first bin closed
    (R's ``cut(..., right = TRUE, include.lowest = TRUE)``, scikit-learn's
    ``calibration_curve``)."""
    idx = np.searchsorted(edges, scores, side="left" if right else "right")
    return np.clip(idx, 1, edges.size - 1).astype(np.int64)


def _cut(pv, spec):
    """``(edges, bin of each score)`` for validated scores."""
    edges = bin_edges(spec, pv)
    if equal_width_left(spec):
        return edges, find_unit_bins(pv, edges)
    return edges, assign_bins(pv, edges, spec.right)


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


def fixed_edges(spec):
    """The edges ``spec`` cuts at whatever the scores (a number of equal-width bins, or
    explicit breaks), or None when they depend on the scores (a rule for the number of
    bins, or equal-mass bins)."""
    if spec.strategy == "quantile" or isinstance(spec.bins, str):
        return None
    return spec.breaks if spec.breaks is not None else equal_width_breaks(spec.bins)


def bin_mode(spec):
    """The core's code for how ``spec`` assigns bins (its edges fixed): 0 R's equal-width
    bins (:func:`find_unit_bins`), 1 left-closed and 2 right-closed bins on any edges
    (:func:`assign_bins`); see :func:`calstats.numerics._scan.colbin_pass`."""
    if equal_width_left(spec):
        return 0
    return 2 if spec.right else 1


def bin_stats_from(counts, ysum, confidence, breaks):
    """:class:`BinStats` from per-bin counts, label totals and mean scores, as
    :func:`bin_stats` forms them (accuracy: R's integer mean, the exact total over the
    count rounded once; empty bins NaN). ``bin`` is None: the rows' bins are not kept."""
    counts = np.asarray(counts, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = (np.asarray(ysum).astype(LD) / counts.astype(LD)).astype(np.float64)
    confidence = np.array(confidence, dtype=np.float64)
    empty = counts == 0
    accuracy[empty] = np.nan
    confidence[empty] = np.nan
    return BinStats(breaks.size - 1, breaks, None, counts, confidence, accuracy, np.abs(accuracy - confidence))


def cells_bin_stats(counts, ysum, sums, breaks):
    """:func:`bin_stats_from` of the fast engine's cells: each bin's confidence is its sum
    over its count (one double division)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = sums / counts
    return bin_stats_from(counts, ysum, confidence, breaks)


def grouped_bin_stats(s, hit, group, ngroups, spec):
    """The fast engine's bins of each group's scores in one pass: ``{g: BinStats}`` for the
    non-empty groups (``group`` 0-based per score, ``hit`` 0/1 labels), as
    :func:`bin_stats` of ``s[group == g]`` gives them but for the means (double sums);
    None when the edges are not fixed (:func:`fixed_edges`) or a score lies outside
    explicit breaks (:func:`bin_stats` then gives the message)."""
    edges = fixed_edges(spec)
    if edges is None or (spec.breaks is not None and (s.min() < edges[0] or s.max() > edges[-1])):
        return None
    cnt, ysum, sums = fast.bin_cells(s, bin_mode(spec), edges, codes=hit, group=group, ngroups=ngroups)
    return {int(g): cells_bin_stats(cnt[g], ysum[g], sums[g], edges) for g in np.flatnonzero(cnt.sum(axis=1))}


def _fast_bin_stats(pv, yv, spec):
    """:func:`bin_stats`'s numbers from the fast engine's one pass (``bin`` None), or None
    when a label is missing (a logical NA: R's path carries it)."""
    yf = np.asarray(yv, dtype=np.float64)
    if np.isnan(yf).any():
        return None
    edges = bin_edges(spec, pv)
    cnt, ysum, sums = fast.bin_cells(pv, bin_mode(spec), edges, codes=yf.astype(np.int64))
    return cells_bin_stats(cnt[0], ysum[0], sums[0], edges)


def bin_stats(p, y, bins, strategy="uniform", breaks=None, right=False, engine="r"):
    """probcal's internal ``bin_stats(p, y, bins)`` (behind ``ece``, ``mce``, ``ace``), checks included.

    Checks in R's order: the probabilities ``p`` (numeric, finite, in [0, 1]), the labels ``y``
    (0/1; a single class is allowed), equal lengths, then ``bins`` (and the other binning
    choices, or a :class:`Binning` as ``bins``). By default observations go to the
    equal-width bins of :func:`equal_width_breaks` by :func:`find_bins`. Per bin: the count,
    ``mean(p)`` (R's two-pass long-double mean, observations in index order), ``mean(y)`` (R's
    integer mean: exact total over the count, rounded once; a missing logical label, a pandas
    ``boolean`` NA, makes it NaN, as in R, where a logical NA passes the label check) and
    ``gap = |accuracy - confidence|``. Empty bins hold NaN.

    ``engine="fast"``: the counts and accuracies are R's, each confidence the bin's double
    sum over its count (within a few ulps of R's mean), and ``bin`` is None.

    Returns
    -------
    BinStats
    """
    pv, yv = check_prob_and_labels(p, y)
    spec = bins if isinstance(bins, Binning) else binning(bins, strategy, breaks, right)
    if engine == "fast":
        stats = _fast_bin_stats(pv, yv, spec)
        if stats is not None:
            return stats
    breaks, idx = _cut(pv, spec)
    nbins = breaks.size - 1
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


def weighted_bin_stats(p, y, bins, w, strategy="uniform", breaks=None, right=False):
    """Bin statistics with case weights (not R's): per bin the weight sum ``n`` (a float),
    the weighted mean probability and label, their gap, and Kish's effective size
    ``n_eff``. Integer weights give the statistics of the replicated rows; a bin whose
    weights sum to 0 is empty. Quantile bins refuse weights."""
    pv, yv = check_prob_and_labels(p, y)
    spec = bins if isinstance(bins, Binning) else binning(bins, strategy, breaks, right)
    w = check_weights(w, pv.size)
    if spec.strategy == "quantile":
        v.refuse_weights(w, QUANTILE_HAS_NO_WEIGHTS)
    breaks, idx = _cut(pv, spec)
    nbins = breaks.size - 1
    wsum = np.bincount(idx - 1, weights=w, minlength=nbins)
    with np.errstate(invalid="ignore", divide="ignore"):
        conf = np.bincount(idx - 1, weights=w * pv, minlength=nbins) / wsum
        acc = np.bincount(idx - 1, weights=w * np.asarray(yv, dtype=np.float64), minlength=nbins) / wsum
        n_eff = wsum * wsum / np.bincount(idx - 1, weights=w * w, minlength=nbins)
    empty = wsum == 0
    conf[empty] = np.nan
    acc[empty] = np.nan
    n_eff[empty] = 0.0
    return BinStats(nbins, breaks, idx, wsum, conf, acc, np.abs(acc - conf), n_eff)


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
        v.warn_max_empty()
        return -math.inf
    return float(gaps.max())


def ace_of(stats):
    """``mean(gap, na.rm = TRUE)`` over the non-empty bins (R's mean; NaN when none)."""
    return rmean(defined_gaps(stats))


def max_of(values):
    return float(max(values))


def rms_of(stats):
    """``sqrt(sum(n / N * gap^2, na.rm = TRUE))`` over the bins (long-double sum in bin order):
    the l2 calibration error of one set of bins (torchmetrics' ``norm="l2"``)."""
    ok = ~np.isnan(stats.gap)
    weights = stats.n / float(stats.n.sum())
    return math.sqrt(rsum((weights * (stats.gap * stats.gap))[ok]))


def norm_of(norm):
    """The function of one set of bins that a checked ``norm`` names: :func:`ece_of` (l1),
    :func:`rms_of` (l2) or :func:`mce_of` (max, the largest gap of a non-empty bin)."""
    return {"l1": ece_of, "l2": rms_of, "max": mce_of}[norm]


def debiased_of(stats):
    """``sum_{b: n_b >= 2} (n_b/n) [(ybar_b - pbar_b)^2 - ybar_b (1 - ybar_b)/(n_b - 1)]``."""
    nb = stats.n.astype(np.float64)
    ok = (stats.n >= 2) & ~np.isnan(stats.accuracy)
    ybar, pbar = stats.accuracy[ok], stats.confidence[ok]
    terms = (nb[ok] / float(stats.n.sum())) * ((ybar - pbar) ** 2 - ybar * (1.0 - ybar) / (nb[ok] - 1.0))
    return rsum(terms)

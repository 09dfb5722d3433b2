"""Metrics, the reliability diagram's bins, Brier, log-loss, Spiegelhalter and SKCE_ul on Dask.

Every statistic here is a function of per-bin (or plain) counts and sums over rows. Each
block of rows gives its counts (exact integers) and the pieces of its sums
(:mod:`calstats.dask._exact`); the driver merges them exactly and returns them (a bin's
statistics, the four Spiegelhalter sums) or a metric finished by the kernels the in-memory
code uses (:mod:`calstats.kernels.bins`). A bin's mean is the correctly rounded mean of the
exact sum; in memory it is R's two-pass long-double mean, which rounds the same way except
within about 2^-64 of a rounding boundary, so results agree to the last bit or to an ulp
(tested to 1e-12 relative). The SKCE_ul terms are row-local and pair consecutive rows, so
the pairs that straddle two blocks are formed from each block's first and last rows.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as v
from ..kernels import pairwise as K
from ..kernels.bins import (
    bin_stats_from,
    binning,
    equal_width_breaks,
    equal_width_left,
    fixed_edges,
    norm_of,
    rule_bins,
)
from ..kernels.blocks import block_bins, block_counts
from ..kernels.choices import AVERAGES, BIN_NORMS, BIN_TYPES, CONVENTIONS, SKCE_TYPES, TEST_TYPES, alternative_choice
from ..kernels.probs import clip_loss_prob, one_hot, pick
from ..kernels.toplabel import top_label
from ..numerics import libm
from ..numerics.reductions import LD, rmean, row_sums
from . import _exact as X
from ._inputs import (
    NO_WEIGHTS,
    block_matrix,
    block_scores,
    block_vector,
    blocks,
    class_index,
    compute,
    expected_levels,
    merged_levels,
)


def _mean(hi, lo, n):
    """The mean of a sum held as the double-double ``hi + lo`` over ``n`` rows."""
    return float((LD(hi) + LD(lo)) / LD(n))


def _levels_of(results, bl):
    """The class-count checks of the labels over the blocks' levels (matrix problems)."""
    if bl.matrix:
        merged_levels([r[-1] for r in results], bl.ncol)


def _nonempty(results):
    out = [r for r in results if r is not None]
    if not out:
        v.fail_empty("p")
    return out


# --------------------------------------------------------------------------------------
# equal-width bins


def _bin_block(s, o, breaks, group=None, ngroups=1, right=None):
    """Counts, label totals and sum pieces of one block, per (group, bin). ``right`` None:
    R's equal-width bins; False/True: the bins of explicit or data-driven edges."""
    idx = block_bins(s, breaks, group, ngroups, right)
    size = ngroups * (breaks.size - 1)
    counts, ysum = block_counts(idx, o, size)
    return counts, ysum, X.binned_pieces(idx, s, size, 1.0)


def _edge(edges, j):
    return edges if isinstance(edges, np.ndarray) else edges[j]


def _binned_block(pb, yb, matrix, levels, edges, form, right=None):
    """Per column (classwise), or for the one binary/top-label column: bin statistics
    (``edges`` the edges of every column, or a list: ``edges[j]`` those of column j)."""
    if not matrix:
        got = block_vector(pb, yb, levels)
        if got is None:
            return None
        return [_bin_block(got[0], got[1], _edge(edges, 0), right=right)], None
    got = block_matrix(pb, yb, levels)
    if got is None:
        return None
    P, codes, block_levels = got
    if form == "confidence":
        r, c = top_label(P, codes)
        return [_bin_block(r, c, _edge(edges, 0), right=right)], block_levels
    if form == "toplabel":
        pred = np.argmax(P, axis=1)
        h = P[np.arange(P.shape[0]), pred]
        o = (codes == pred + 1).astype(np.int64)
        return [_bin_block(h, o, _edge(edges, 0), pred, P.shape[1], right=right)], block_levels
    cols = [_bin_block(np.ascontiguousarray(P[:, j]), (codes == j + 1).astype(np.int64), _edge(edges, j),
                       right=right)
            for j in range(P.shape[1])]
    return cols, block_levels


def _merge_bins(results, col, size):
    counts = sum(r[0][col][0] for r in results).astype(np.int64)
    ysum = sum(r[0][col][1] for r in results)
    hi, lo = X.binned_total([r[0][col][2] for r in results], size)
    return counts, ysum, hi, lo


def _stats(counts, ysum, hi, lo, breaks):
    """:class:`BinStats` as ``bin_stats`` gives them (``bin`` is not kept: rows stay on disk);
    a bin's mean is the correctly rounded mean of its exact sum ``hi + lo``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = ((hi.astype(LD) + lo.astype(LD)) / counts.astype(LD)).astype(np.float64)
    return bin_stats_from(counts, ysum, confidence, breaks)


def _edges(bl, spec, form):
    """The edges of every column binned: fixed ones, or from the data (a rule's count, the
    quantiles of the exact distributed sort)."""
    from . import _sorted

    ncols = bl.ncol if form == "classwise" else 1
    if spec.breaks is not None:
        return [spec.breaks] * ncols
    if spec.strategy == "uniform" and not isinstance(spec.bins, str):
        return [equal_width_breaks(spec.bins)] * ncols
    columns = range(ncols) if form == "classwise" else [None]
    if spec.strategy == "quantile":
        return [_sorted.quantile_edges(bl, j, spec.bins, spec.right) for j in columns]
    return [equal_width_breaks(rule_bins(spec.bins, _sorted.scores_count(bl, j))) for j in columns]


def bin_stats_list(p, y, bins, type="classwise", weights=None, strategy="uniform", breaks=None, right=False,
                   engine="r"):
    """``(stats, levels, form)``: the :class:`BinStats` of every column R's ``ece`` bins
    (one for a vector or ``"confidence"``, K for ``"classwise"``), as
    :func:`calstats.evaluation.metrics.binned` gives them in memory; quantile edges come
    from the exact distributed sort (:func:`calstats.dask._sorted.quantile_edges`).
    ``engine`` is not used: the blocks' exact merges give R's numbers."""
    bl = blocks(p, y, weights)
    form = "vector"
    if bl.matrix:
        form = v.match_arg(type, BIN_TYPES)
    spec = binning(bins, strategy, breaks, right)
    edges = _edges(bl, spec, form)
    right = None if equal_width_left(spec) else spec.right
    results = _nonempty(compute(_binned_block, bl, bl.matrix, bl.levels, edges, form, right))
    _levels_of(results, bl)
    ncols = len(results[0][0])
    stats = [_stats(*_merge_bins(results, j, edges[j].size - 1), edges[j]) for j in range(ncols)]
    return stats, (expected_levels(bl) if bl.matrix else None), form


def top_label_ece(p, y, bins, average, convention, weights, strategy="uniform", breaks=None, right=False,
                  engine=None, norm="l1"):
    """:func:`calstats.top_label_ece` of Dask inputs (the calstats convention, bins with
    fixed edges; ``engine`` not used: R's arithmetic)."""
    average = v.match_arg(average, AVERAGES)
    convention = v.match_arg(convention, CONVENTIONS)
    of = norm_of(v.match_arg(norm, BIN_NORMS, "norm"))
    if convention == "mapie":
        v.refuse_dask_mapie()
    bl = blocks(p, y, weights)
    if not bl.matrix:
        v.check_prob_matrix(np.zeros(2), "p")  # R's probability-matrix message for a vector
    spec = binning(bins, strategy, breaks, right)
    edges = fixed_edges(spec)
    if edges is None:
        v.fail_dask_top_label_bins()
    nbins = edges.size - 1
    right = None if equal_width_left(spec) else spec.right
    results = _nonempty(compute(_binned_block, bl, True, bl.levels, edges, "toplabel", right))
    _levels_of(results, bl)
    k = bl.ncol
    counts, ysum, hi, lo = _merge_bins(results, 0, k * nbins)
    n = int(counts.sum())
    eces, shares = [], []
    for j in range(k):
        sl = slice(j * nbins, (j + 1) * nbins)
        nj = int(counts[sl].sum())
        if nj == 0:
            continue
        eces.append(float(of(_stats(counts[sl], ysum[sl], hi[sl], lo[sl], edges))))
        shares.append(nj / n)
    if average == "weighted":
        return float(sum(sh * e for sh, e in zip(shares, eces)))
    return float(rmean(np.array(eces)))


# --------------------------------------------------------------------------------------
# Brier score and log-loss


def _score_block(pb, yb, matrix, levels, which):
    if matrix:
        got = block_matrix(pb, yb, levels)
        if got is None:
            return None
        P, codes, block_levels = got
        if which == "brier":
            d = P - one_hot(codes, P.shape[1])
            e, bound = row_sums(d * d), 2.0
        else:
            e, bound = libm.log(clip_loss_prob(pick(P, codes))), 35.0
    else:
        got = block_vector(pb, yb, levels)
        if got is None:
            return None
        pv, yv = got
        yy = np.asarray(yv, dtype=np.float64)
        block_levels = None
        if which == "brier":
            e, bound = (pv - yy) ** 2, 1.0
        else:
            q = clip_loss_prob(pv)
            e, bound = yy * libm.log(q) + (1.0 - yy) * libm.log1p(-q), 35.0
    return e.size, X.pieces(e, bound), block_levels


def _mean_score(p, y, weights, which):
    bl = blocks(p, y, weights)
    results = _nonempty(compute(_score_block, bl, bl.matrix, bl.levels, which))
    _levels_of(results, bl)
    n = sum(r[0] for r in results)
    hi, lo = X.binned_total([r[1].reshape(-1, 1) for r in results], 1)
    return _mean(hi[0], lo[0], n)


def brier_score(p, y, weights=None, engine=None, average=None):
    """:func:`calstats.brier_score` of Dask inputs (``engine`` not used: R's arithmetic)."""
    return _mean_score(p, y, weights, "brier")


def log_loss(p, y, weights=None, engine=None, average=None):
    """:func:`calstats.log_loss` of Dask inputs (``engine`` not used: R's arithmetic)."""
    return -_mean_score(p, y, weights, "log")


# --------------------------------------------------------------------------------------
# Spiegelhalter's test


def _spiegelhalter_block(pb, yb, matrix, levels, j):
    got = block_scores(pb, yb, matrix, levels, j)
    if got is None:
        return None
    s, o, block_levels = got
    # the in-memory terms, with the same association (hence the same roundings)
    one_minus = 1.0 - s
    t = s * one_minus
    w = 1.0 - s * 2.0
    var = w * w * s * one_minus
    d = o - s
    return (s.size, X.pieces(t, 1.0), X.pieces(var, 1.0), X.pieces(d * w, 1.0), X.pieces(d * d, 1.0),
            block_levels)


def spiegelhalter_sums(p, y, type="confidence", cls=None, alternative=None, convention="calstats", weights=None):
    """``(n, sum s(1-s), sum (1-2s)^2 s(1-s), sum (o-s)(1-2s), sum (o-s)^2, alternative, type)``
    of Dask inputs, from which :func:`calstats.cal_spiegelhalter_test` finishes the test."""
    type = v.match_arg(type, TEST_TYPES)
    alternative = alternative_choice(alternative)
    convention = v.match_arg(convention, CONVENTIONS)
    if convention == "mapie":
        v.refuse_dask_mapie(" (MAPIE sums in its own order)")
    v.refuse_weights(weights, NO_WEIGHTS)
    bl = blocks(p, y)
    j = class_index(bl, cls) if (bl.matrix and type == "class") else None
    results = _nonempty(compute(_spiegelhalter_block, bl, bl.matrix, bl.levels, j))
    _levels_of(results, bl)
    n = sum(r[0] for r in results)
    if n < 2:
        v.fail_two_observations()
    sums = [X.total([r[i] for r in results]) for i in (1, 2, 3, 4)]
    return (n, *sums, alternative or "two-sided", type)


# --------------------------------------------------------------------------------------
# SKCE, linear-time estimator


def _skce_rows(P, codes, form, levels_k):
    """The (r, e) columns (scalar forms) or (P, E) (canonical) of a block."""
    if form == "confidence":
        r, c = top_label(P, codes)
        return [(r, c - r)]
    if form == "canonical":
        return [(P, one_hot(codes, levels_k) - P)]
    return [(np.ascontiguousarray(P[:, j]), (codes == j + 1).astype(np.float64) - P[:, j]) for j in range(levels_k)]


def _pairs(x, e, nu, start, canonical):
    """Pieces and count of the terms h_{i, i+1} for i = start, start + 2, ... of a block."""
    first = np.arange(start, x.shape[0] - 1, 2)
    if first.size == 0:
        return np.zeros(X.LEVELS + 1), 0
    fn = K.pair_terms_canonical if canonical else K.pair_terms_scalar
    return X.pieces(fn(x, e, nu, first, first + 1), 2.0), first.size


def _skce_block(pb, yb, matrix, levels, form, nu):
    if matrix:
        got = block_matrix(pb, yb, levels)
        if got is None:
            return None
        P, codes, block_levels = got
        cols = _skce_rows(P, codes, form, P.shape[1])
    else:
        got = block_vector(pb, yb, levels)
        if got is None:
            return None
        r, c = got
        cols = [(r, np.asarray(c, dtype=np.float64) - r)]
        block_levels = None
    canonical = form == "canonical"
    out = []
    for (x, e), h in zip(cols, nu):
        even, odd = _pairs(x, e, h, 0, canonical), _pairs(x, e, h, 1, canonical)
        out.append((even, odd, (x[:1], e[:1]), (x[-1:], e[-1:])))
    return x.shape[0], out, block_levels


def skce(p, y, estimator, type, bandwidth, weights):
    """:func:`calstats.skce` of Dask inputs: the linear-time estimator ``"ul"`` only (the
    others need every pair of rows), with a numeric bandwidth."""
    v.refuse_dask_estimator(estimator, bandwidth)
    return skce_ul(p, y, type, bandwidth, weights)


def skce_ul(p, y, type, bandwidth, weights):
    """The SKCE_ul estimate of Dask inputs (consecutive rows paired across blocks too)."""
    v.refuse_weights(weights, NO_WEIGHTS)
    bl = blocks(p, y)
    form = "binary"
    if bl.matrix:
        form = v.match_arg(type, SKCE_TYPES)
    k = bl.ncol or 1
    nu = [bandwidth] * (k if form == "classwise" else 1)
    results = _nonempty(compute(_skce_block, bl, bl.matrix, bl.levels, form, nu))
    _levels_of(results, bl)
    n = sum(r[0] for r in results)
    if n < 2:
        v.fail_estimator_two_observations("ul")
    canonical = form == "canonical"
    fn = K.pair_terms_canonical if canonical else K.pair_terms_scalar
    values = []
    for col in range(len(nu)):
        parts, count, carry = [], 0, None
        for size, cols, _lv in results:
            even, odd, head, tail = cols[col]
            if carry is None:
                (pc, m), dangling = even, size % 2 == 1
            else:  # the previous block's last row pairs with this block's first
                x2 = np.concatenate([carry[0], head[0]])
                e2 = np.concatenate([carry[1], head[1]])
                parts.append(X.pieces(fn(x2, e2, nu[col], np.array([0]), np.array([1])), 2.0))
                count += 1
                (pc, m), dangling = odd, (size - 1) % 2 == 1
            parts.append(pc)
            count += m
            carry = tail if dangling else None
        hi, lo = X.binned_total([q.reshape(-1, 1) for q in parts], 1)
        values.append(_mean(hi[0], lo[0], count))
    return values[0] if len(values) == 1 else rmean(values)


# --------------------------------------------------------------------------------------
# the summary of `calstats assess`


def _summary_block(pb, yb, matrix, levels):
    got = block_scores(pb, yb, matrix, levels)
    if got is None:
        return None
    s, o, block_levels = got
    return s.size, X.pieces(s, 1.0), int(np.nansum(o)), block_levels


def confidence_summary(p, y):
    """``(n, mean confidence, accuracy)`` of the top label (binary: mean probability and
    event rate), from one pass over Dask inputs."""
    bl = blocks(p, y)
    results = _nonempty(compute(_summary_block, bl, bl.matrix, bl.levels))
    _levels_of(results, bl)
    n = sum(r[0] for r in results)
    return n, X.total([r[1] for r in results]) / n, sum(r[2] for r in results) / n


__all__ = ["bin_stats_list", "top_label_ece", "brier_score", "log_loss", "spiegelhalter_sums", "skce", "skce_ul",
           "confidence_summary"]

"""Bins of a probability matrix read in blocks of rows.

A classwise binned metric bins every column of an ``n x K`` matrix against ``1{y = class}``.
Column by column, that is K strided reads of the matrix (and K copies of a column); here
the rows are read in memory order instead, in blocks, and every bin keeps running counts
and sums. Two consumers share the pieces:

* Dask (:mod:`calstats.dask._metrics`) bins each block on its own (:func:`block_bins`,
  :func:`block_counts`) and merges the blocks' counts and exact sums in any order;
  :func:`~calstats.kernels.bins.bin_stats_from` turns the merged numbers into
  :class:`~calstats.kernels.bins.BinStats`.
* In memory, :func:`classwise_bin_stats` gives R's numbers bit for bit: R's mean of a bin is
  two long-double passes over its scores in index order, which no merge of block sums
  reproduces to the last bit (a correctly rounded mean differs from R's in about one bin
  in a thousand). So the blocks are visited in row order and each bin's long-double sum
  is carried from block to block (the C core's ``colbin_pass``): the sums are R's, the
  memory is that of the matrix itself (float32 stays float32, widened exactly as read).
  The fast engine (``engine="fast"``) counts the same bins in one pass and sums each bin in
  double (:func:`calstats.numerics.fast.bin_cells`).
"""

import numpy as np

from .. import _validate as v
from ..numerics import core, fast
from ..numerics._scan import colbin_pass
from ..numerics.reductions import LD
from .bins import (
    assign_bins,
    bin_mode,
    bin_stats_from,
    binning,
    cells_bin_stats,
    equal_width_breaks,
    find_unit_bins,
    rule_bins,
)

__all__ = ["BLOCK_ENTRIES", "block_bins", "block_counts", "classwise_bin_stats", "row_blocks"]

#: Entries (rows x columns) per block of rows: of the C passes of :func:`classwise_bin_stats`
#: (which need no temporaries) and of the float64 columns it copies when a column's bins
#: depend on its own scores (equal-mass bins) or on weights.
BLOCK_ENTRIES = 1 << 22


def row_blocks(n, k, entries=None):
    """``(start, stop)`` of consecutive blocks of rows of an ``n x k`` matrix, each of about
    ``entries`` (default :data:`BLOCK_ENTRIES`) entries and at least one row."""
    step = max(1, (BLOCK_ENTRIES if entries is None else int(entries)) // max(int(k), 1))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


# --------------------------------------------------------------------------------------
# one block on its own (Dask)


def block_bins(s, breaks, group=None, ngroups=1, right=None):
    """0-based bin of each score of a block; with ``group`` (0-based, per score) the bin in
    the ``ngroups`` consecutive runs of bins (``group * B + bin``). ``right`` None: R's
    equal-width bins (``breaks`` from :func:`~calstats.kernels.bins.equal_width_breaks`);
    False/True: left- or right-closed bins of any edges, every score within them (checked)."""
    nbins = breaks.size - 1
    if right is None:
        idx = find_unit_bins(s, breaks) - 1
    else:
        v.check_within_breaks(s, breaks)
        idx = assign_bins(s, breaks, right) - 1
    if group is not None:
        idx = group * nbins + idx
    return idx


def block_counts(idx, o, size):
    """Counts and label totals per bin (``size`` bins) of a block's bins ``idx`` and labels
    ``o`` (0/1, or NaN for a missing logical label: its bin's total is then NaN)."""
    counts = np.bincount(idx, minlength=size)
    ysum = np.bincount(idx, weights=np.asarray(o, dtype=np.float64), minlength=size)  # exact: 0/1 sums
    return counts, ysum


# --------------------------------------------------------------------------------------
# every column of a matrix, rows in order (in memory)


def _fixed_edges(spec, P):
    """``(mode, edges)`` of the C passes when every column is cut at the same edges, else
    None (equal-mass bins depend on each column's scores; explicit breaks that some score
    lies outside leave the message to the column-by-column path, which names the first
    such column's scores as R's order does)."""
    n = P.shape[0]
    if spec.strategy == "quantile":
        return None
    if spec.breaks is not None:
        edges = spec.breaks
        if (edges[0] > 0.0 and P.min() < edges[0]) or (edges[-1] < 1.0 and P.max() > edges[-1]):
            return None
        return bin_mode(spec), edges
    nb = rule_bins(spec.bins, n) if isinstance(spec.bins, str) else spec.bins
    return bin_mode(spec), equal_width_breaks(nb)


def _column_groups(P, start):
    """``(j, column as float64)`` for j >= ``start``, copied a few columns at a time (each
    row's few adjacent entries share a cache line, unlike one strided column)."""
    n, k = P.shape
    width = max(1, BLOCK_ENTRIES // max(n, 1))
    for j0 in range(start, k, width):
        j1 = min(k, j0 + width)
        cols = np.array(P[:, j0:j1].T, dtype=np.float64, order="C")
        for j in range(j0, j1):
            yield j, cols[j - j0]


def _labels(codes, j):
    return (codes == j + 1).astype(np.int64)


def classwise_bin_stats(P, codes, column_stats, bins=10, strategy="uniform", breaks=None, right=False,
                        weighted=False, engine="r"):
    """The bins of every column of a probability matrix against its class, as
    ``[column_stats(P[:, j], 1{codes == j + 1}) for j]`` gives them, without reading
    column by column (each :class:`~calstats.kernels.bins.BinStats` with ``bin`` None).

    ``P`` is a validated ``n x K`` float64 or float32 matrix (float32 is read as its exact
    float64 widening), ``codes`` the 1-based labels (int64), ``column_stats(p, y)`` the
    binning of one column (``bin_stats`` or ``weighted_bin_stats`` with the caller's
    choices ``bins``, ``strategy``, ``breaks``, ``right``). The first column goes through
    ``column_stats`` itself, so the checks of the labels, the lengths and the binning
    choices run in R's order with R's messages. Unweighted bins with edges common to all
    columns are then counted and averaged in two passes over the rows (R's long-double
    means, each bin's scores in index order; :func:`~calstats.numerics._scan.colbin_pass`);
    otherwise the remaining columns go through ``column_stats``, copied a few at a time.
    Either way the numbers are ``column_stats``'s to the last bit. With ``engine="fast"``
    those bins are counted in one pass and each bin's mean is its double sum over its count
    (:func:`calstats.numerics.fast.bin_cells`): the counts and accuracies are R's, the
    confidences within a few ulps of R's means.
    """
    n, k = P.shape
    first = column_stats(np.asarray(P[:, 0], dtype=np.float64), _labels(codes, 0))
    # without the compiled core (colbin_pass, bin_cells) every column goes through column_stats
    fixed = None if weighted or not core.COMPILED else _fixed_edges(binning(bins, strategy, breaks, right), P)
    if fixed is None:
        out = [first._replace(bin=None)]
        out += [column_stats(col, _labels(codes, j))._replace(bin=None) for j, col in _column_groups(P, 1)]
        return out
    mode, edges = fixed
    if engine == "fast":
        cnt, ysum, sums = fast.bin_cells(P, mode, edges, codes=codes)
        return [cells_bin_stats(cnt[j], ysum[j], sums[j], edges) for j in range(k)]
    nb = edges.size - 1
    size = k * nb
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    cnt, ysum = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    acc = np.zeros(size, dtype=LD)
    blocks = row_blocks(n, k)
    for i0, i1 in blocks:
        colbin_pass(np.ascontiguousarray(P[i0:i1]), mode, edges, cnt, acc, codes=codes[i0:i1], ysum=ysum)
    full = cnt > 0
    m = cnt[full].astype(LD)
    mean = np.zeros(size, dtype=LD)
    mean[full] = acc[full] / m
    # R's second pass: the sum of the deviations from the first pass's mean, same order
    cnt2, dev = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=LD)
    for i0, i1 in blocks:
        colbin_pass(np.ascontiguousarray(P[i0:i1]), mode, edges, cnt2, dev, mean=mean)
    confidence = np.full(size, np.nan)
    confidence[full] = (mean[full] + dev[full] / m).astype(np.float64)
    # a bin of one score has that score as its mean (group_rmean's shortcut; -0 stays -0)
    one = cnt == 1
    confidence[one] = acc[one].astype(np.float64)
    return [bin_stats_from(cnt[j * nb:(j + 1) * nb], ysum[j * nb:(j + 1) * nb], confidence[j * nb:(j + 1) * nb],
                           edges)
            for j in range(k)]

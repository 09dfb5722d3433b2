"""Kolmogorov-Smirnov and Kuiper calibration tests on Dask inputs: a distributed sort.

Both tests read the path ``C_k = (1/n) sum_{i<=k} (o_(i) - s_(i))`` of the rows sorted by
(score, outcome) at the last row of each block of equal scores (:func:`calstats.kernels.cumdiff
.cumdiff`), and only its maximum and minimum matter. The rows are range partitioned by
score (a sample sort), so no process holds more than one block or one range:

1. one pass over the blocks: the row count, the exact pieces of ``sum s (1 - s)`` (sigma,
   as the in-memory fsum), the blocks' levels, missing labels, and a sample of at most
   :data:`SAMPLE` scores per block, each standing for ``len(block) / len(sample)`` rows;
2. the driver cuts the weighted sample into score ranges of about ``RANGE_ROWS / 2``
   rows. Splitters are scores, so a tie block never straddles two ranges;
3. one task per block sorts it by the key ``2 bits(s) + o`` (:func:`calstats.kernels.cumdiff
   .sorted_pairs`), folds equal keys into runs (score, outcome, count) and cuts them at
   the splitters;
4. one task per range merges its runs from every block in key order (rows with equal keys
   have equal terms ``o - s``, so their order cannot matter) -- these run in parallel;
5. a chain of one small task per range, in score order, continues the cumulative sum from
   the previous range's last value, expanding the runs at most ``RANGE_ROWS`` rows at a
   time, and carries ``max C`` and ``min C`` over the tie-block ends.

Exactness: NumPy's ``cumsum`` is a sequential loop, and step 5 performs the very same
additions ``fl(C_(k-1) n + d_k)`` of the same terms ``d_k = fl(o_k - s_k)`` in the same
order, starting each range from the in-memory running sum to the bit. So ``max |C|``,
``max C`` and ``min C`` are the in-memory values bit for bit, and so are the statistics and
p-values whenever sigma is (sigma merges the exact pieces of the same sum; it is the
in-memory correctly rounded fsum except for a tie within about 2^-100). Missing logical
labels (a pandas ``boolean`` NA, which R lets through its label check) give the in-memory
NaN path (KS: ``G = NaN``; Kuiper: a range of 0) without steps 2-5.

Cost: two passes over the data (the blocks are read twice). Steps 3-4 are a shuffle:
``blocks x ranges`` small getitem tasks, and the split and merged runs live in the
workers' memory (spilled to disk by ``dask.distributed`` when needed) until the chain
consumes them; a range task holds the distinct keys of its range (about ``RANGE_ROWS / 2``
rows, fewer with ties; the sample bounds it statistically, not strictly). The chain of
step 5 is sequential but cheap (a cumulative sum, a few ns per row).

Not available on Dask (one-line errors): ``convention = "mapie"`` (a seeded jitter of all
rows in their order) and case weights.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as v
from ..kernels.bins import distinct_edges, equal_width_breaks, rule_bins
from ..kernels.choices import CONVENTIONS, TEST_TYPES
from ..kernels.cumdiff import sorted_pairs
from ..numerics.interp import type7_combine, type7_positions
from . import _exact as X
from ._inputs import NO_WEIGHTS, block_scores, blocks, class_index, merged_levels

#: Target bound on the rows of one score range (the ranges are cut at about half of it,
#: so that an unlucky sample stays under it; rows with equal scores are never split), and
#: the rows the walk of step 5 expands at a time.
RANGE_ROWS = 2**22
#: Scores sampled per block in the first pass (all of a smaller block).
SAMPLE = 512


# --------------------------------------------------------------------------------------
# pass 1: counts, sigma, levels, a sample of the scores


def _scan_block(pb, yb, matrix, levels, j, sample):
    got = block_scores(pb, yb, matrix, levels, j)
    if got is None:
        return None
    s, o, block_levels = got
    n = s.size
    missing = o.dtype.kind == "f" and bool(np.isnan(o).any())
    if n > sample:
        s_sample = s[np.random.default_rng(n).integers(0, n, sample)]
    else:
        s_sample = s
    return n, X.pieces(s * (1.0 - s), 1.0), missing, s_sample + 0.0, block_levels


def _splitters(scanned, target):
    """Distinct scores cutting the weighted sample into ranges of about ``target`` rows:
    range ``r`` holds the scores ``splitters[r - 1] <= s < splitters[r]``."""
    values = np.concatenate([r[3] for r in scanned])
    weights = np.concatenate([np.full(r[3].size, r[0] / r[3].size) for r in scanned])
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    step = np.floor(np.cumsum(weights) / max(float(target), 1.0))
    cut = np.flatnonzero(step[1:] > step[:-1]) + 1
    return np.unique(values[cut])


# --------------------------------------------------------------------------------------
# pass 2: the shuffle, the ranges' sorts, the walk


def _split_block(pb, yb, matrix, levels, j, splitters):
    """The block sorted by key, equal keys folded into runs, cut at the splitters: per
    range, ``(s, o, counts)`` of its runs (counts None when every key occurs once)."""
    nr = splitters.size + 1
    got = block_scores(pb, yb, matrix, levels, j)
    if got is None:
        return ((np.zeros(0), np.zeros(0, dtype=np.int64), None),) * nr
    s, o, _lv = got
    ss, os = sorted_pairs(s, np.asarray(o, dtype=np.int64))
    new = np.empty(ss.size, dtype=bool)
    new[:1] = True
    np.not_equal(ss[1:], ss[:-1], out=new[1:])
    new[1:] |= os[1:] != os[:-1]
    starts = np.flatnonzero(new)
    counts = None
    if starts.size < ss.size:
        counts = np.diff(np.append(starts, ss.size))
        ss, os = ss[starts], os[starts]
    cuts = np.concatenate([[0], np.searchsorted(ss, splitters, side="left"), [ss.size]])
    return tuple((ss[a:b].copy(), os[a:b].copy(), None if counts is None else counts[a:b].copy())
                 for a, b in zip(cuts[:-1], cuts[1:]))


def _range_runs(*parts):
    """One range's runs from every block, merged in key order: ``(d, counts, end)`` with
    the in-memory terms ``d = o - s`` of each run, its row count (None: all 1) and
    whether it ends a tie block; None for an empty range."""
    parts = [q for q in parts if q[0].size]
    if not parts:
        return None
    s = np.concatenate([q[0] for q in parts])
    o = np.concatenate([q[1] for q in parts])
    c = None
    if any(q[2] is not None for q in parts):
        c = np.concatenate([q[2] if q[2] is not None else np.ones(q[0].size, dtype=np.int64) for q in parts])
    if len(parts) > 1:
        key = s.view(np.int64) << 1  # the key of sorted_pairs (s is already +0.0)
        key |= o
        order = np.argsort(key, kind="stable")
        key = key[order]
        s, o = s[order], o[order]
        new = np.empty(key.size, dtype=bool)
        new[:1] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        if starts.size < key.size:
            c = np.add.reduceat(np.ones(key.size, dtype=np.int64) if c is None else c[order], starts)
            s, o = s[starts], o[starts]
        elif c is not None:
            c = c[order]
    end = np.append(s[1:] != s[:-1], True)
    return o - s, c, end


def _walk(state, runs, n, window):
    """Continue NumPy's sequential cumulative sum through one range.

    ``state = (carry, max C, min C)`` after the earlier ranges, ``carry`` being the
    in-memory running sum at this range's start to the bit; the rows are expanded
    ``window`` at a time, so memory stays bounded however heavy a tie.
    """
    if runs is None:
        return state
    carry, cmax, cmin = state
    d, c, end = runs
    stop = np.arange(1, d.size + 1) if c is None else np.cumsum(c)  # end (exclusive) of each run
    ends = stop[end] - 1  # row index of every tie-block end
    total = int(stop[-1])
    a, i = 0, 0
    while a < total:
        b = min(a + window, total)
        jj = int(np.searchsorted(stop, b, side="left"))  # the run holding row b - 1
        first = stop[i:jj + 1] - (1 if c is None else c[i:jj + 1])
        lengths = np.minimum(stop[i:jj + 1], b) - np.maximum(first, a)
        buf = np.empty(b - a + 1)
        buf[0] = carry
        buf[1:] = np.repeat(d[i:jj + 1], lengths)
        np.cumsum(buf, out=buf)
        carry = float(buf[-1])
        lo_e, hi_e = np.searchsorted(ends, [a, b], side="left")
        if hi_e > lo_e:
            C = buf[1 + ends[lo_e:hi_e] - a] / n
            cmax = max(cmax, float(C.max()))
            cmin = min(cmin, float(C.min()))
        a = b
        i = jj if stop[jj] > b else jj + 1
    return carry, cmax, cmin


# --------------------------------------------------------------------------------------
# the driver


def path_extremes(p, y, type="confidence", cls=None, convention="calstats", weights=None):
    """``(n, type, convention, max C, min C, sigma)`` of Dask inputs (see the module
    notes); max and min are over the tie-block ends, as in memory. The KS and Kuiper tests
    (:func:`calstats.cal_ks_test`, :func:`calstats.cal_kuiper_test`) are finished from them."""
    import dask

    type = v.match_arg(type, TEST_TYPES)
    convention = v.match_arg(convention, CONVENTIONS)
    if convention == "mapie":
        v.refuse_dask_mapie(" (MAPIE jitters all rows in their order)")
    v.refuse_weights(weights, NO_WEIGHTS)
    bl = blocks(p, y)
    j = class_index(bl, cls) if (bl.matrix and type == "class") else None
    scanned, keep = _scan(bl, j)
    if bl.matrix:
        merged_levels([r[-1] for r in scanned], bl.ncol)
    n = int(sum(r[0] for r in scanned))
    if n < 2:
        v.fail_two_observations()
    sigma = math.sqrt(X.total([r[1] for r in scanned])) / n
    if sigma == 0:
        v.fail_sigma_zero()
    if any(r[2] for r in scanned):  # a NaN term (logical NA label) makes the path NaN from there on
        return n, type, convention, math.nan, math.nan, sigma

    splitters = _splitters(scanned, RANGE_ROWS // 2)
    nr = splitters.size + 1
    split = _split(bl, keep, j, splitters)
    state = (0.0, -math.inf, math.inf)
    window = max(int(RANGE_ROWS), 1)
    for r in range(nr):
        runs = dask.delayed(_range_runs, pure=True)(*[b[r] for b in split])
        state = dask.delayed(_walk, pure=True)(state, runs, n, window)
    _carry, cmax, cmin = dask.compute(state)[0]
    return n, type, convention, cmax, cmin, sigma


# --------------------------------------------------------------------------------------
# order statistics: the quantile bins' edges


def _range_count(*parts):
    return int(sum(q[0].size if q[2] is None else int(q[2].sum()) for q in parts))


def _range_sorted(*parts):
    """One range's scores from every block, sorted, each run expanded to its rows."""
    parts = [q for q in parts if q[0].size]
    if not parts:
        return np.zeros(0)
    s = np.concatenate([q[0] if q[2] is None else np.repeat(q[0], q[2]) for q in parts])
    s.sort()
    return s


def _split(bl, keep, j, splitters):
    """Pass 2's tasks: every kept block split at the splitters (one output per range)."""
    import dask

    nr = splitters.size + 1
    return [tuple(dask.delayed(_split_block, pure=True, nout=nr)(bl.p[i], bl.y[i], bl.matrix, bl.levels, j,
                                                                  splitters))
            for i in keep]


def _scan(bl, j):
    """Pass 1 over the blocks: the non-empty blocks' scans and their indices."""
    import dask

    delayed = [dask.delayed(_scan_block, pure=True)(pb, yb, bl.matrix, bl.levels, j, SAMPLE)
               for pb, yb in zip(bl.p, bl.y)]
    scanned = list(dask.compute(*delayed))
    keep = [i for i, r in enumerate(scanned) if r is not None]
    if not keep:
        v.fail_empty("p")
    return [scanned[i] for i in keep], keep


def scores_count(bl, j=None):
    """The number of scores of Dask inputs (column ``j``, or the top label when None)."""
    scanned, _keep = _scan(bl, j)
    return int(sum(r[0] for r in scanned))


def quantile_edges(bl, j, bins, right=False):
    """The equal-mass edges of :func:`calstats.kernels.bins.quantile_edges` for the scores
    of Dask inputs (column ``j`` of a matrix, its top label when None, or the vector), from
    the exact order statistics of the distributed sort of :func:`path_extremes` (passes 1
    and 2; no walk): the edges are the in-memory ones bit for bit."""
    import dask

    scanned, keep = _scan(bl, j)
    n = int(sum(r[0] for r in scanned))
    nb = rule_bins(bins, n) if isinstance(bins, str) else bins
    index, lo, hi = type7_positions(n, equal_width_breaks(nb))
    splitters = _splitters(scanned, RANGE_ROWS // 2)
    nr = splitters.size + 1
    split = _split(bl, keep, j, splitters)
    counts = dask.compute(*[dask.delayed(_range_count, pure=True)(*[b[r] for b in split]) for r in range(nr)])
    ends = np.cumsum(counts)
    ranks = np.unique(np.concatenate([lo, hi]))
    where = np.searchsorted(ends, ranks, side="left")  # the range holding each 1-based rank
    ranges = {int(r): dask.delayed(_range_sorted, pure=True)(*[b[int(r)] for b in split]) for r in np.unique(where)}
    sorted_ranges = dict(zip(ranges, dask.compute(*ranges.values())))
    starts = np.concatenate([[0], ends[:-1]])
    value = {int(k): float(sorted_ranges[int(r)][int(k - starts[r]) - 1]) for k, r in zip(ranks, where)}
    xlo = np.array([value[int(k)] for k in lo])
    xhi = np.array([value[int(k)] for k in hi])
    return distinct_edges(type7_combine(index, lo, xlo, xhi), right)


__all__ = ["path_extremes", "quantile_edges", "scores_count", "RANGE_ROWS", "SAMPLE"]

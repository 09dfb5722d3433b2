"""Dask inputs as aligned blocks of rows, and the checks of one block.

A problem ``(p, y)`` becomes two equally long lists of Dask delayed objects, block ``i`` of
``p`` holding the same rows as block ``i`` of ``y``. Every block is checked with the
in-memory validators (R's checks and messages, one block at a time); what only the whole
data can decide (the class count of integer codes) is checked once the blocks' levels are
merged. Empty blocks are skipped.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _validate as v
from ..kernels.toplabel import top_label

#: Why Dask inputs refuse case weights (for :func:`calstats._validate.refuse_weights`).
NO_WEIGHTS = "with Dask inputs yet; compute the metric in memory"
_NOT_DASK = "internal: no Dask collection among the inputs"


class Blocks(NamedTuple):
    """Aligned row blocks of a problem (see the module notes)."""

    p: list
    y: list
    matrix: bool
    ncol: int | None
    levels: list | None  # a Dask categorical's categories (as they are, not str), else None


def _dd():
    import dask.dataframe as dd

    return dd


def _is_frame(x):
    dd = _dd()
    return isinstance(x, (dd.DataFrame, dd.Series))


def _is_array(x):
    import dask.array as da

    return isinstance(x, da.Array)


def _known_chunks(a):
    if any(np.isnan(c) for c in a.chunks[0]):
        a = a.compute_chunk_sizes()
    return a


def _split(x, lengths):
    """An in-memory array or pandas object cut into blocks of the given lengths."""
    import dask

    out, start = [], 0
    for n in lengths:
        part = x.iloc[start:start + n] if isinstance(x, (pd.Series, pd.DataFrame)) else np.asarray(x)[start:start + n]
        out.append(dask.delayed(part))
        start += n
    if start != (len(x) if hasattr(x, "__len__") else np.asarray(x).shape[0]):
        v.fail_nobs("p", "y")
    return out


_Y = "__calstats_y__"


def _take_p(part, matrix):
    return part.drop(columns=[_Y]) if matrix else part.iloc[:, 0]


def _take_y(part):
    return part[_Y]


def _joint_partitions(p, y):
    """Blocks of two Dask frames from one frame holding both, so that each partition of
    ``p`` and of ``y`` holds the same rows even when Dask partitions their columns apart
    (a Parquet read projected onto fewer columns may merge files into fewer partitions)."""
    import dask

    try:
        # string column names: Dask's P2P shuffle (an index join on a cluster) needs them
        frame = (p.rename(columns=dict(zip(p.columns, [f"__calstats_p{j}__" for j in range(len(p.columns))])))
                 if p.ndim == 2 else p.rename("__calstats_p__").to_frame()).assign(**{_Y: y.rename(_Y)})
        parts = frame.to_delayed()
    except Exception:
        v.fail_dask_partitions()
    matrix = p.ndim == 2
    return ([dask.delayed(_take_p, pure=True)(part, matrix) for part in parts],
            [dask.delayed(_take_y, pure=True)(part) for part in parts])


def _partition_categories(part):
    return list(part.cat.categories)


def _categorical_levels(y):
    """A Dask Series of category dtype: its categories (R's levels). Unknown categories
    (a Parquet read) are gathered from the partitions in order of appearance, one small
    task each: Dask's own ``cat.as_known()`` finds them by a shuffle."""
    import dask

    if not isinstance(y.dtype, pd.CategoricalDtype):
        return y, None
    if y.cat.known:
        return y, list(y.cat.categories)
    seen: dict = {}
    for cats in dask.compute(*[dask.delayed(_partition_categories, pure=True)(b) for b in y.to_delayed()]):
        for c in cats:
            seen.setdefault(c, None)
    return y, list(seen)


def blocks(p, y, weights=None) -> Blocks:
    """Aligned blocks of ``p`` (probabilities) and ``y`` (labels).

    ``p`` may be a Dask DataFrame (columns are classes), a Dask Series or 1-D array (a
    binary probability vector) or a 2-D Dask array; ``y`` a Dask Series (a categorical one
    is R's factor) or array; either may be in memory when the other is Dask.
    """
    v.refuse_weights(weights, NO_WEIGHTS)
    levels = None
    if _is_frame(y):
        y, levels = _categorical_levels(y)
    if _is_frame(p) and (_is_frame(y) or not _is_array(y)):
        matrix = p.ndim == 2
        ncol = len(p.columns) if matrix else None
        if _is_frame(y):
            pb, yb = _joint_partitions(p, y)
            return Blocks(pb, yb, matrix, ncol, levels)
        import dask

        pb = list(p.to_delayed())
        lengths = dask.compute(*[dask.delayed(len)(b) for b in pb])
        return Blocks(pb, _split(y, lengths), matrix, ncol, levels)
    # arrays: bring every Dask input to a Dask array with known row chunks
    if _is_frame(p):
        p = p.to_dask_array(lengths=True)
    if _is_frame(y):
        y = (y.cat.codes + 1 if levels is not None else y).to_dask_array(lengths=True)
    if _is_array(p):
        p = _known_chunks(p)
        if p.ndim == 2:
            p = p.rechunk({1: -1})
        elif p.ndim != 1:
            v.fail_vector_or_matrix_input()
        rows = p.chunks[0]
        if _is_array(y):
            y = _known_chunks(y)
            if y.shape[0] != p.shape[0]:
                v.fail_nobs("p", "y")
            yb = list(y.rechunk((rows,)).to_delayed(optimize_graph=False).ravel())
        else:
            yb = _split(y, rows)
        # unoptimised graphs: blocks of p and y made by one task (a generator, a file read) stay one
        # task when both are computed; fused, each list would hold its own copy of it
        pb = list(p.to_delayed(optimize_graph=False).ravel())
        matrix = p.ndim == 2
        return Blocks(pb, yb, matrix, p.shape[1] if matrix else None, levels)
    if _is_array(y):
        y = _known_chunks(y)
        pb = _split(p, y.chunks[0])
        yb = list(y.to_delayed(optimize_graph=False).ravel())
        matrix = v.is_matrix(p)
        return Blocks(pb, yb, matrix, np.shape(p)[1] if matrix else None, levels)
    raise TypeError(_NOT_DASK)


# --------------------------------------------------------------------------------------
# one block


def _length(x):
    return x.shape[0] if hasattr(x, "shape") else len(x)


def _recode(yb, levels):
    """A categorical block on the whole data's categories (a Parquet partition may hold
    its own subset, or another order)."""
    if levels is not None and isinstance(getattr(yb, "dtype", None), pd.CategoricalDtype) \
            and list(yb.cat.categories) != list(levels):
        yb = yb.cat.set_categories(levels)
    return yb


def block_matrix(pb, yb, levels):
    """A block of a matrix problem: ``(P, codes, block_levels)`` or None when empty.

    ``P`` passes the probability-matrix checks; ``codes`` (1-based) pass the class-label checks
    except the class count, and the row count of ``P`` matches the number of labels.
    ``block_levels`` are the factor's levels or ``1..max(codes)`` of this block.
    """
    if _length(pb) == 0 and _length(yb) == 0:
        return None
    P = v.check_prob_matrix(pb, "p", copy=False)
    yb = _recode(yb, levels)
    if levels is not None and not isinstance(getattr(yb, "dtype", None), pd.CategoricalDtype):
        # codes + 1 of a categorical (0 = missing) that travelled as integers
        yb = pd.Categorical.from_codes(np.asarray(yb, dtype=np.int64) - 1, categories=levels)
    codes, block_levels = v.multiclass_codes(yb, "y")
    v.check_nobs("p", "y", P.shape[0], codes.size)
    return P, codes, block_levels


def block_vector(pb, yb, levels=None):
    """A block of a binary problem: ``(p, labels)`` after the probability check, the 0/1 label
    check (one class allowed) and the equal-length check, or None when empty."""
    if _length(pb) == 0 and _length(yb) == 0:
        return None
    yb = _recode(yb, levels)
    if levels is not None and not isinstance(getattr(yb, "dtype", None), pd.CategoricalDtype):
        yb = pd.Categorical.from_codes(np.asarray(yb, dtype=np.int64) - 1, categories=levels)  # R refuses it
    return v.check_prob_and_labels(pb, yb, copy=False)


def merged_levels(block_levels, ncol):
    """The whole data's levels from the blocks' (the longest ``1..max`` for integer codes,
    the categories for a factor), then the class-count checks of the labels (at least two
    classes, one per column); returns ``(levels, k)``."""
    seen = [lv for lv in block_levels if lv is not None]
    if not seen:
        v.fail_empty("y")
    levels = max(seen, key=len)
    v.check_class_count(np.zeros(0, dtype=np.int64), levels, ncol, "y")
    return levels, len(levels)


def compute(fn, bl: Blocks, *args):
    """``fn(p_block, y_block, *args)`` for every block, computed in one Dask call (on the
    active scheduler: a ``dask.distributed`` client when one is running)."""
    import dask

    return list(dask.compute(*[dask.delayed(fn, pure=True)(pb, yb, *args) for pb, yb in zip(bl.p, bl.y)]))


def expected_levels(bl: Blocks):
    """The levels the whole data must have: a factor's categories, or ``1..ncol`` for
    integer codes (the class-count check, done by :func:`merged_levels`, enforces it)."""
    if bl.levels is not None:
        return [str(c) for c in bl.levels]
    return [str(i) for i in range(1, (bl.ncol or 0) + 1)]


def class_index(bl: Blocks, cls):
    """The 0-based column of ``cls`` (``type = "class"`` of the calibration tests)."""
    key = None
    if isinstance(cls, str):
        key = cls
    elif isinstance(cls, (int, np.integer)) and not isinstance(cls, (bool, np.bool_)):
        key = str(int(cls))
    levels = expected_levels(bl)
    if key not in levels:
        v.fail_level_of_y()
    return levels.index(key)


def block_scores(pb, yb, matrix, levels, j=None):
    """The (score, outcome) pairs of one block, as the calibration tests reduce them:
    ``(s, o, block_levels)``, or None for an empty block. A matrix gives the top-label
    confidence and correctness (``j`` None) or column ``j`` against ``1{y = j + 1}``."""
    if not matrix:
        got = block_vector(pb, yb, levels)
        return None if got is None else (got[0], got[1], None)
    got = block_matrix(pb, yb, levels)
    if got is None:
        return None
    P, codes, block_levels = got
    if j is None:
        s, o = top_label(P, codes)
    else:
        s, o = np.ascontiguousarray(P[:, j]), (codes == j + 1).astype(np.int64)
    return s, o, block_levels

"""Checks of a probability or logit matrix and its labels: one reader (:func:`read_matrix`)
behind probcal's three matrix checks, one proof that rows sum to one.
"""

import math
from typing import NoReturn

import numpy as np
import pandas as pd

from .._errors import fail
from .._frames import native
from ..numerics._scan import prob_scan, top_label_rows
from ..numerics.reductions import row_sums
from .core import (
    INT_MAX,
    _plain_float,
    _plain_int,
    _sums_proved,
    as_vec,
    fail_empty,
    fail_missing,
    fail_missing_or_infinite,
    fail_na_condition,
    fail_not_probabilities,
    fail_row_sums,
    is_matrix,
)
from .measures import fail_nobs

# --------------------------------------------------------------------------------------
# matrix validators


def _matrix_values(x, arg):
    if not is_matrix(x):
        fail_not_class_matrix(arg)
    v = as_vec(x)
    if v.kind != "numeric" or np.ndim(v.values) != 2:
        fail_not_class_matrix(arg)
    return v


def check_two_columns(ncol, arg):
    """A matrix of class columns has at least two of them."""
    if ncol < 2:
        fail(f"Argument `{arg}` must have at least two columns, one per class.")


def check_ncol(ncol, k, arg="newdata"):
    """``newdata`` of a fitted multiclass map has one column per class of the fit."""
    if ncol != k:
        fail(f"Argument `{arg}` must have {k} columns, one per class.")


#: Entries per block of rows when a float32 matrix is checked R's way (its float64 widening
#: is made one block at a time, never for the whole matrix).
CHECK_BLOCK_ENTRIES = 1 << 22


def _row_blocks(a):
    step = max(1, CHECK_BLOCK_ENTRIES // max(a.shape[1], 1))
    for i in range(0, a.shape[0], step):
        yield a[i:i + step]


def _float32_matrix(x):
    """``x`` as an ndarray when it is a plain 2-D float32 ndarray or a memory map of one
    (``np.load(mmap_mode="r")``: read where it lies, never copied), else None."""
    if type(x) in (np.ndarray, np.memmap) and x.ndim == 2 and x.dtype == np.float32:
        return np.asarray(x)
    return None


def _check_logit_shape_finite(a, arg):
    """R's checks of a numeric matrix after its type, in R's order: two columns, rows,
    finite entries (from its minimum and maximum, which NaN propagates to)."""
    check_two_columns(a.shape[1], arg)
    if a.shape[0] == 0:
        fail_empty(arg)
    if not (math.isfinite(a.min()) and math.isfinite(a.max())):
        fail_missing_or_infinite(arg)


def _proof(a):
    """``(proved, r, pred)`` for a C-ordered float64/float32 matrix with rows and at least
    two columns: ``proved`` when every entry is in [+0, 1] and every row sums to 1 within
    R's tolerance (see :func:`_sums_proved`), with each row's first maximum ``r`` and its
    1-based column ``pred``. The one proof of the matrix readers: the C scan reads the
    matrix once (an installation without the compiled core proves nothing, and R's checks
    then decide)."""
    unit, smin, smax, r, pred = prob_scan(a)
    return bool(unit) and _sums_proved(a.shape[1], smin, smax), r, pred


def read_matrix(x, arg, *, prob=True, top=False, copy=True, keep_float32=False):
    """The one reader of a probability or logit matrix (R ``check_prob_matrix`` and
    ``check_logit_matrix``).

    It tests the type of ``x`` once, decides once how the matrix is read (a float32 ndarray
    kept float32 in blocks of rows, a float64 ndarray or a float64 DataFrame proved valid by
    one C scan, anything else classified as R would see it), then runs R's checks in R's
    order where the proof did not settle them: numeric matrix, at least two columns, not
    empty, finite entries; for probabilities, entries in [0, 1], then rows summing to 1
    within 1e-6 (R's long-double row sums). The messages are R's either way.

    Returns the matrix (float64; C-ordered unless ``copy=False`` lets a float64 input come
    back itself; float32 C-ordered with ``keep_float32``), and with ``top`` also each row's
    first maximum and its 1-based column (R ``max.col(ties.method = "first")``):
    ``(P, r, pred)``.
    """
    x = native(x, arg)  # polars, pyarrow, torch, ...: as pandas or NumPy
    a = _float32_matrix(x) if keep_float32 else None
    if a is not None:
        if prob:
            out = _prob_matrix32(a, arg)
            return out if top else out[0]
        _check_logit_shape_finite(a, arg)
        return np.ascontiguousarray(a)
    a = _plain_float(x, 2)
    if a is None and isinstance(x, pd.DataFrame) and x.shape[1] and all(d == np.float64 for d in x.dtypes):
        a = x.to_numpy(dtype=np.float64)  # what the column-by-column classification gives
    if a is None:
        v = _matrix_values(x, arg)
        vals = np.array(v.values, dtype=np.float64, order="C")
        check_two_columns(vals.shape[1], arg)
        if vals.shape[0] == 0:
            fail_empty(arg)
        if v.na.any() or not np.isfinite(vals).all():
            fail_missing_or_infinite(arg)
    else:
        keep = not copy and a.dtype == np.float64
        if prob and a.shape[1] >= 2 and a.shape[0]:
            # the proof reads a C-ordered matrix: the input itself when it is one and may be
            # returned, else the copy that is returned anyway
            vals = a if keep and a.flags.c_contiguous else np.array(a, dtype=np.float64, order="C")
            proved, r, pred = _proof(vals)
            if proved:
                if keep and not a.flags.c_contiguous:
                    vals = a  # only read by the caller: the input itself, as the float64 it is
                return (vals, r, pred) if top else vals
        else:
            vals = np.array(a, dtype=np.float64, order="C")
        _check_logit_shape_finite(vals, arg)
    if not prob:
        return vals
    if ((vals < 0) | (vals > 1)).any():
        fail_not_probabilities(arg)
    if (np.abs(row_sums(vals) - 1.0) > 1e-6).any():
        fail_row_sums(arg)
    return (vals, *top_label_rows(vals)) if top else vals


def check_logit_matrix(x, arg, keep_float32=False):
    """A logit matrix (R ``check_logit_matrix``): numeric, at least two columns, not empty, finite;
    returns a float64 C-ordered copy (:func:`read_matrix` with ``prob=False``).

    With ``keep_float32`` a plain float32 ndarray is returned as a C-ordered float32 array
    instead (the input itself when it is one), for callers that only read it and widen it
    to float64 in blocks of rows or in C (exact: the numbers are those of its float64
    copy). The checks and messages are the same; they make no temporary the size of the
    matrix (finiteness from its minimum and maximum, which NaN propagates to).
    """
    return read_matrix(x, arg, prob=False, keep_float32=keep_float32)


def check_prob_matrix(x, arg, copy=True, keep_float32=False):
    """A probability matrix (R ``check_prob_matrix``): the checks of :func:`check_logit_matrix`,
    then entries in [0, 1], then rows summing to 1 within 1e-6 (R's long-double row sums).

    Returns a float64 matrix: a new C-ordered one, or with ``copy=False`` the input itself
    when it is already float64 (for callers that only read it). With ``keep_float32`` a
    plain float32 ndarray is returned as C-ordered float32 (as in
    :func:`check_logit_matrix`; the same checks and messages, in blocks of rows).
    """
    return read_matrix(x, arg, copy=copy, keep_float32=keep_float32)


def _prob_matrix32(a, arg):
    """``(P, r, pred)`` of :func:`read_matrix` for a float32 matrix, kept float32.

    The C scan reads the float32 entries widened to double (exact), so its proof and top
    label are those of the float64 copy; what it cannot settle is checked R's way in
    blocks of rows (the float64 widening of one block at a time): ``min < 0 or max > 1``
    is R's ``any(p < 0 | p > 1)`` once the entries are finite, and R's long-double row sums
    are per row.
    """
    if a.shape[1] >= 2 and a.shape[0]:
        a = np.ascontiguousarray(a)
        proved, r, pred = _proof(a)
        if proved:
            return a, r, pred
    P = read_matrix(a, arg, prob=False, keep_float32=True)
    if P.min() < 0 or P.max() > 1:
        fail_not_probabilities(arg)
    for block in _row_blocks(P):
        if (np.abs(row_sums(block) - 1.0) > 1e-6).any():
            fail_row_sums(arg)
    return (P, *top_label_rows(P))


def check_prob_matrix_top(x, arg, keep_float32=False):
    """:func:`check_prob_matrix` (``copy=False``) and each row's top label: ``(P, r, pred)``
    with ``r`` the row's first maximum and ``pred`` its 1-based column (R ``max.col(ties.method
    = "first")``); :func:`read_matrix` with ``top=True``.

    A C-ordered float64 matrix is read once by the C core for the proof and the top label
    together; anything the proof cannot settle is checked R's way, so the messages and their
    order are R's either way. With ``keep_float32`` a plain float32 ndarray stays float32
    (``P`` C-ordered float32; ``r`` float64, the same numbers as for its float64 copy), with
    no temporary the size of the matrix.
    """
    return read_matrix(x, arg, top=True, copy=False, keep_float32=keep_float32)


def check_multiclass_y(y, n_classes, arg="y"):
    """Multiclass labels, a factor or integer class codes (R ``check_multiclass_y``), with
    ``n_classes`` classes. Returns ``(codes, levels, k)``, codes 1-based."""
    return check_class_count(*multiclass_codes(y, arg), n_classes, arg)


def multiclass_codes(y, arg="y"):
    """R's ``check_multiclass_y`` without its closing class count: ``(codes, levels)``, codes 1-based.

    Integer codes give the levels ``1..max(codes)``; the count checks of
    :func:`check_multiclass_y` follow. Dask blocks are checked with this one block at a
    time, and the count once their levels are merged.
    """
    y = native(y, arg)
    a = _plain_int(y)
    if a is not None:
        # integer codes: no missing, infinite or fractional values to look for
        lo, hi = int(a.min()), int(a.max())
        if lo >= 1 and hi <= INT_MAX:
            return a.astype(np.int64), [str(i) for i in range(1, hi + 1)]
    v = as_vec(y)
    if v.kind in ("numeric", "logical", "factor", "other") and np.ndim(v.values) == 2 and np.shape(v.values)[1] == 1:
        v = v._replace(values=v.values[:, 0], na=v.na[:, 0])
    elif np.ndim(v.values) == 0 and v.kind != "null":
        v = v._replace(values=np.asarray(v.values).reshape(1), na=np.asarray(v.na).reshape(1))
    if v.kind != "null" and np.asarray(v.na).any():
        fail_missing(arg)
    if v.kind == "factor":
        levels = list(v.levels)
        codes = v.values.astype(np.int64)
    elif v.kind == "numeric":
        vals = v.values.astype(np.float64)
        if np.isinf(vals).any() or (vals != np.floor(vals)).any():
            fail(f"Argument `{arg}` must contain integer class codes or a factor.")
        if vals.size == 0:
            # R: max() of nothing is -Inf and seq_len(-Inf) fails.
            fail("argument must be coercible to non-negative integer")
        if (np.abs(vals) > INT_MAX).any():
            fail_na_condition()
        codes = vals.astype(np.int64)
        if codes.min() < 1:
            fail(f"Integer class codes in `{arg}` must start at `1`.")
        levels = [str(i) for i in range(1, int(codes.max()) + 1)]
    else:
        fail(f"Argument `{arg}` must be a factor or a vector of integer class codes.")
    return codes, levels


def check_class_count(codes, levels, n_classes, arg):
    """The class-count checks that end R's ``check_multiclass_y``."""
    k = len(levels)
    if k < 2:
        fail(f"Argument `{arg}` must have at least two classes.")
    if k != n_classes:
        word = "column" if n_classes == 1 else "columns"
        fail(f"Argument `{arg}` has {k} classes but the input has {n_classes} {word}.")
    if codes.size and codes.max() > k:
        fail_codes_exceed(arg)
    return codes, levels, k


def check_nobs(a, b, n_a, n_b):
    """The matrix named ``a`` has as many rows (``n_a``) as the labels named ``b`` have values (``n_b``)."""
    if n_a != n_b:
        fail_nobs(a, b)


def fail_not_class_matrix(arg) -> NoReturn:
    """Not a numeric matrix of class columns."""
    fail(f"Argument `{arg}` must be a numeric matrix with one column per class.")


def fail_codes_exceed(arg="y") -> NoReturn:
    """Class codes above the number of classes."""
    fail(f"Class codes in `{arg}` must not exceed the number of classes.")

"""Checks of a vector argument: numeric, probabilities, outcomes, lengths, scalars (probcal's
shared checks, R's messages).
"""

import math

import numpy as np

from .._errors import fail
from .._frames import native
from .core import (
    _in_unit_interval,
    _msg_arg,
    _plain_float,
    _plain_int,
    _vector_values,
    as_vec,
    fail_empty,
    fail_missing,
    fail_missing_or_infinite,
    fail_na_condition,
    fail_not_binary,
    fail_not_finite,
    fail_not_numeric_vector,
    fail_not_probabilities,
    fail_one_class_only,
)

# --------------------------------------------------------------------------------------
# vector validators


def check_numeric(x, arg):
    """A finite numeric vector without missing values; returns float64 1-D.

    Checks in R's order: numeric, not empty, no missing values, only finite values.
    """
    v = as_vec(native(x, arg))
    if v.kind != "numeric":
        fail_not_numeric_vector(arg)
    v = _vector_values(v, arg)
    vals = v.values.astype(np.float64)
    if vals.size == 0:
        fail_empty(arg)
    if v.na.any() or np.isnan(vals).any():
        fail_missing(arg)
    if np.isinf(vals).any():
        fail_not_finite(arg)
    return vals


def check_prob(x, arg, copy=True):
    """A probability vector: the numeric-vector checks of :func:`check_numeric`, then every
    value in [0, 1].

    Returns a float64 1-D array: a new one, or with ``copy=False`` the input itself when it
    is already a float64 vector (for callers that only read it).
    """
    x = native(x, arg)
    a = _plain_float(x, 1)
    if a is not None and a.size and _in_unit_interval(a):
        return np.array(a, dtype=np.float64) if copy else np.asarray(a, dtype=np.float64)
    vals = check_numeric(x, arg)
    if ((vals < 0) | (vals > 1)).any():
        fail_not_probabilities(arg)
    return vals


def scalar_number(x):
    """``x`` as a Python float if R would see a length-one numeric vector, else None."""
    if isinstance(x, (bool, np.bool_)) or x is None:
        return None
    v = as_vec(x)
    if v.kind != "numeric" or np.size(v.values) != 1:
        return None
    return float(np.asarray(v.values, dtype=np.float64).ravel()[0]) if not np.asarray(v.na).any() else math.nan


def _number_text(x):
    return f"{x:g}"


def check_interval(x, arg, lower=0.0, upper=1.0, *, closed_right=False):
    """A single number in the open interval ``(lower, upper)`` (``(lower, upper]`` with
    ``closed_right``); returns it as a float. The message is R's wording for ``eps``:
    ``Argument `arg` must be a single number in `(0, 1)`.``"""
    value = scalar_number(x)
    inside = value is not None and value > lower and (value <= upper if closed_right else value < upper)
    if not inside:
        bracket = "]" if closed_right else ")"
        fail(f"Argument `{arg}` must be a single number in `({_number_text(lower)}, {_number_text(upper)}{bracket}`.")
    return value


def check_eps(eps):
    """``eps`` of R's ``clip_prob``: a single number in (0, 0.5); returns it as float."""
    return check_interval(eps, "eps", 0.0, 0.5)


def clip_prob(v, eps):
    """R's ``clip_prob``: ``min(max(v, eps), 1 - eps)`` elementwise."""
    return np.minimum(np.maximum(v, eps), 1.0 - eps)


def check_binary_y(y, arg="y", require_both=True, copy=True):
    """Binary 0/1 labels (R ``check_binary_y``); with ``require_both`` both classes must occur.

    Returns an int64 0/1 array, or a float64 array with NaN where a logical label was
    missing (R lets a logical ``NA`` through: only numeric labels are checked for missing
    values); with ``copy=False`` an int64 input comes back itself (for callers that only read
    it).
    """
    y = native(y, arg)
    if type(y) is np.ndarray and y.ndim == 1 and y.size and (y.dtype == bool or _plain_int(y) is not None):
        # all 0/1 in one reduction: read as unsigned, negative labels are huge
        if int(y.view(f"u{y.dtype.itemsize}").max()) <= 1:
            if require_both and (y.all() or not y.any()):
                fail_one_class_only(arg)
            return y.astype(np.int64, copy=copy)
    v = as_vec(y)
    if v.kind == "logical":
        v = _vector_values(v, arg)
        vals = v.values
        out = vals.astype(np.int64) if not v.na.any() else np.where(v.na, np.nan, vals)
    elif v.kind == "numeric":
        v = _vector_values(v, arg)
        vals = v.values.astype(np.float64)
        if v.na.any() or not np.isfinite(vals).all():
            fail_missing_or_infinite(arg)
        if not ((vals == 0) | (vals == 1)).all():
            fail_not_binary(arg)
        out = vals.astype(np.int64)
    else:
        fail(f"Argument {_msg_arg(arg)} must contain binary labels `0` and `1`.")
    if out.size == 0:
        fail_empty(arg)
    if require_both:
        distinct = set(out[~np.isnan(out)].tolist()) if out.dtype.kind == "f" else set(out.tolist())
        n_distinct = len(distinct) + (1 if out.dtype.kind == "f" and np.isnan(out).any() else 0)
        if n_distinct < 2:
            fail_one_class_only(arg)
    return out


def check_same_length(a, b, len_a, len_b):
    """The vectors named ``a`` and ``b`` have the same length (``len_a == len_b``)."""
    if len_a != len_b:
        fail(f"Arguments `{a}` and `{b}` must have the same length.")


def check_bins(bins, arg="bins"):
    """A bin count (R ``check_bins``): a single positive whole number; returns int."""
    msg = f"Argument `{arg}` must be a single positive integer."
    b = scalar_number(bins)
    if b is None or math.isnan(b) or math.isinf(b):
        fail(msg)
    if b < 1:
        fail(msg)
    if b >= 2**31:
        # R: as.integer() gives NA with a warning (beyond R's integer range), then `if (NA)` stops.
        fail_na_condition()
    if b != math.floor(b):
        fail(msg)
    return int(b)


def check_folds(folds, labels):
    """The fold count (R ``check_folds``): a single positive integer (checked as ``bins``), at
    least 2 and at most the smallest count among the classes that occur; ``labels`` are 0/1 or
    class codes (missing: NaN or 0)."""
    f = check_bins(folds, "folds")
    if f < 2:
        fail("Argument `folds` must be at least `2`.")
    lab = np.asarray(labels)
    if lab.dtype.kind == "f":
        lab = lab[~np.isnan(lab)]
    _, counts = np.unique(lab, return_counts=True)
    if counts.size and f > counts.min():
        fail("Argument `folds` must not exceed the smallest class count.")
    return f

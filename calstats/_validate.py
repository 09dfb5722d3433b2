"""Argument checks shared by every calstats function, in R's order and with R's messages.

Every message the library's functions raise or warn is written here (or in the table of
:mod:`._messages` this module owns), once; the command line and the scikit-learn adapter
keep their own texts beside their code. probcal's shared checks keep their R helper's
name (such as ``check_binary_y``, named in the docstring) and raise
:class:`~calstats.CalstatsError` with probcal's message (the text of R's
``conditionMessage()``), so a Python user sees exactly what an R user would; the checks of
the functions that follow other R packages (rms, survival, CalibrationCurves, dcurves ...)
give their package's message where it has one. Every name here without a leading underscore
is for the package's modules (this module is private; there is no ``__all__``). Inputs are classified the way R's ``is.numeric``/``is.logical``/``is.factor``
would see them: only integer and floating dtypes are numeric; booleans are logical;
categoricals are factors.

Validators never modify their inputs; they return new arrays, except that callers which
only read the result may ask for the input itself (``copy=False``).
"""

import math
from collections import namedtuple
from typing import NoReturn

import numpy as np
import pandas as pd

from ._errors import CalstatsError, fail, warn
from ._factor import Factor
from ._frames import native
from ._frames import ndim as frame_ndim
from ._messages import (
    APPROX_TWO_VALUES,
    ARGUMENT_NUMERIC,
    FOREIGN_NONFINITE,
    MAX_EMPTY,
    NA_CONDITION,
    NANS_PRODUCED,
    PREDAB_INTERCEPTS,
)
from .numerics._scan import prob_scan, top_label_rows
from .numerics.reductions import row_sums

INT_MAX = 2147483647

#: A classified vector: ``kind`` is "numeric", "logical", "factor", "null" or "other";
#: ``values`` a float64 (numeric, logical: 1.0/0.0) or int64 array with NaN for missing
#: where the dtype allows; ``na`` the missing mask; ``integer`` whether R would hold an
#: integer vector; ``levels`` the factor levels (factors only, codes in ``values``, 0 = NA).
Vec = namedtuple("Vec", "kind values na integer levels")


def _msg_arg(arg):
    return f"`{arg}`"


#: Why a bootstrap percentile interval of a binned calibration error can exclude its estimate.
INTERVAL_EXCLUDES = ("the binned ECE is biased upward (the noise in each bin adds to it) and a resample, whose bins "
                     "repeat rows, more so, so a percentile interval can sit above the estimate; "
                     "calstats.cal_ci(..., interval=\"basic\") corrects for that, and ece(..., debiased=True) "
                     "estimates without the bias")


def fail_one_class(arg, r_function, r_message) -> NoReturn:
    """An outcome with one class where R's function needs both (its own error quoted)."""
    fail_quoting_r(f"Argument `{arg}` must contain both outcomes, 0 and 1", r_function, r_message)


def fail_quoting_r(message, r_function, r_message) -> NoReturn:
    """A clear message where R's own names nothing a user can act on, R's quoted at its end."""
    fail(f"{message} ({r_function} stops here: {r_message}).")


# --------------------------------------------------------------------------------------
# the messages every check shares (probcal's texts), one function each


def fail_empty(arg) -> NoReturn:
    """An argument without a value."""
    fail(f"Argument `{arg}` must not be empty.")


def fail_missing(arg) -> NoReturn:
    """An argument with a missing value."""
    fail(f"Argument `{arg}` must not contain missing values.")


def fail_missing_or_infinite(arg) -> NoReturn:
    """An argument with a missing or infinite value (where both are refused at once)."""
    fail(f"Argument `{arg}` must not contain missing or infinite values.")


def fail_not_finite(arg) -> NoReturn:
    """An argument with an infinite value."""
    fail(f"Argument `{arg}` must contain only finite values.")


def fail_not_numeric_vector(arg) -> NoReturn:
    """An argument that is not a numeric vector."""
    fail(f"Argument `{arg}` must be a numeric vector.")


def fail_not_probabilities(arg) -> NoReturn:
    """Values outside [0, 1] where probabilities belong."""
    fail(f"Argument `{arg}` must contain probabilities in `[0, 1]`.")


def fail_row_sums(arg) -> NoReturn:
    """A probability matrix with a row that does not sum to 1."""
    fail(f"Each row of `{arg}` must sum to `1`.")


def fail_not_binary(arg) -> NoReturn:
    """Numeric labels other than 0 and 1."""
    fail(f"Argument `{arg}` must contain only binary labels `0` and `1`.")


def fail_one_class_only(arg) -> NoReturn:
    """Binary labels of one class only where both are needed."""
    fail(f"Argument `{arg}` must contain at least one `0` and one `1`.")


def fail_na_condition() -> NoReturn:
    """R's ``if (NA)``: a comparison with a missing (or out-of-range integer) value."""
    fail(NA_CONDITION)


# --------------------------------------------------------------------------------------
# fast paths
#
# The validators below first try one vectorised pass over a plain float or integer NumPy
# array that proves the input valid; only when that proof fails (or the input is anything
# else) do they run R's checks one after another, which then also name the first failing
# check in R's order. The fast passes decide the same way R does, so results and messages
# are unchanged; they only avoid the copies and boolean temporaries of the general path.

#: A float64/float32 is in [0, 1] (and finite, not NaN) exactly when its bits, read as an
#: unsigned integer, are at most those of 1.0: NaN and inf lie above, and so does every
#: negative number, -0.0 included (which the general path then accepts as R does).
_ONE_BITS = {np.dtype(np.float64): (np.uint64, 0x3FF0000000000000),
             np.dtype(np.float32): (np.uint32, 0x3F800000)}


def _plain_float(x, ndim):
    """``x`` if it is a plain float64/float32 ndarray with ``ndim`` dimensions, else None."""
    if type(x) is np.ndarray and x.ndim == ndim and x.dtype in _ONE_BITS:
        return x
    return None


def _plain_int(x):
    """``x`` if it is a plain 1-D ndarray of integers that int64 holds exactly, else None."""
    if type(x) is np.ndarray and x.ndim == 1 and x.size and x.dtype.isnative and (
            x.dtype.kind == "i" or (x.dtype.kind == "u" and x.dtype.itemsize < 8)):
        return x
    return None


def _in_unit_interval(a):
    """True if every element of a float64/float32 array is in [+0, 1]; one reduction."""
    utype, one = _ONE_BITS[a.dtype]
    return int(a.view(utype).max()) <= one


def _sums_proved(k, smin, smax):
    """True if R's ``abs(rowSums(p) - 1) > 1e-6`` is FALSE for every row of a K-column matrix
    with entries in [0, 1], proved from its smallest and largest double row sums; False
    when that cannot be proved (the caller then asks R's way).

    A double row sum in any order and R's long-double ``rowSums`` rounded to double each lie
    within ``(K - 1) u S`` and ``K u S`` of the exact sum S, so they differ by less than
    ``8 (K + 1) u`` whenever S is near 1; sums within that margin of the tolerance are left
    to R's own computation.
    """
    tol = 1e-6 - 8.0 * (k + 1) * 2.0**-53
    return bool(smin >= 1.0 - tol) and bool(smax <= 1.0 + tol)


# --------------------------------------------------------------------------------------
# classification


def _from_pandas(x):
    """Classify a pandas Series/Index/ExtensionArray."""
    dtype = x.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cat = pd.Categorical(x)
        codes = cat.codes.astype(np.int64) + 1
        return Vec("factor", codes, codes == 0, True, [str(c) for c in cat.categories])
    if pd.api.types.is_bool_dtype(dtype):
        na = np.asarray(pd.isna(x), dtype=bool)
        vals = np.asarray(pd.array(x, dtype="boolean").to_numpy(dtype=np.float64, na_value=np.nan))
        return Vec("logical", vals, na, False, None)
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        na = np.asarray(pd.isna(x), dtype=bool)
        integer = pd.api.types.is_integer_dtype(dtype)
        if integer and not na.any():
            return Vec("numeric", np.asarray(x, dtype=np.int64), na, True, None)
        vals = np.asarray(pd.array(x).to_numpy(dtype=np.float64, na_value=np.nan))
        return Vec("numeric", vals, na | np.isnan(vals), integer, None)
    if dtype == np.dtype(object):
        return _from_object(np.asarray(x, dtype=object))
    return Vec("other", np.asarray(x), np.zeros(len(x), dtype=bool), False, None)


def _from_object(arr):
    """Classify an object array the way R would see the equivalent R vector."""
    flat = arr.ravel()
    missing = np.array([v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) for v in flat], dtype=bool)
    present = [v for v, m in zip(flat, missing) if not m]
    if present and all(isinstance(v, (bool, np.bool_)) for v in present):
        vals = np.array([np.nan if m else float(v) for v, m in zip(flat, missing)])
        return Vec("logical", vals, missing, False, None)
    if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in present):
        if not present and any(v is None or v is pd.NA for v in flat):
            # an all-missing object vector is R's logical NA
            return Vec("logical", np.full(flat.size, np.nan), missing, False, None)
        vals = np.array([np.nan if m else float(v) for v, m in zip(flat, missing)], dtype=np.float64)
        integer = all(isinstance(v, (int, np.integer)) for v in present)
        return Vec("numeric", vals, missing, integer, None)
    return Vec("other", flat, missing, False, None)


def as_vec(x):
    """Classify ``x`` as R would see it (see :data:`Vec`); 2-D inputs are not flattened."""
    if x is None:
        return Vec("null", np.zeros(0), np.zeros(0, dtype=bool), False, None)
    x = native(x)  # polars, pyarrow, torch, ...: as pandas or NumPy
    if isinstance(x, Factor):
        return Vec("factor", x.codes.copy(), x.codes == 0, True, list(x.levels))
    if isinstance(x, pd.Categorical):
        return _from_pandas(pd.Series(x))
    if isinstance(x, (pd.Series, pd.Index)) or isinstance(x, pd.api.extensions.ExtensionArray):
        return _from_pandas(pd.Series(x) if not isinstance(x, pd.Series) else x)
    if isinstance(x, pd.DataFrame):
        return _from_frame(x)
    arr = np.asarray(x)
    kind = arr.dtype.kind
    if kind == "b":
        return Vec("logical", arr.astype(np.float64), np.zeros(arr.shape, dtype=bool), False, None)
    if kind in "iu":
        return Vec("numeric", arr.astype(np.int64), np.zeros(arr.shape, dtype=bool), True, None)
    if kind == "f":
        vals = arr.astype(np.float64)
        return Vec("numeric", vals, np.isnan(vals), False, None)
    if kind == "O":
        v = _from_object(arr)
        return v._replace(values=v.values.reshape(arr.shape), na=v.na.reshape(arr.shape))
    return Vec("other", arr, np.zeros(arr.shape, dtype=bool), False, None)


def _from_frame(df):
    cols = [as_vec(df.iloc[:, j]) for j in range(df.shape[1])]
    if cols and all(c.kind == "numeric" for c in cols):
        vals = np.column_stack([c.values.astype(np.float64) for c in cols]) if df.shape[0] else np.zeros(df.shape)
        na = np.column_stack([c.na for c in cols]) if df.shape[0] else np.zeros(df.shape, dtype=bool)
        return Vec("numeric", vals, na, all(c.integer for c in cols), None)
    return Vec("other", df.to_numpy(), np.zeros(df.shape, dtype=bool), False, None)


def is_matrix(x):
    """R ``is.matrix``: two-dimensional after ``np.asarray`` (a DataFrame counts)."""
    if isinstance(x, pd.DataFrame):
        return True
    if x is None or isinstance(x, (Factor, pd.Categorical, pd.Series, pd.Index, dict)):
        return False
    d = frame_ndim(x)  # another library's frame or a tensor, without converting it
    if d is not None:
        return d == 2
    try:
        return np.ndim(x) == 2
    except Exception:
        return False


def _vector_values(v, arg):
    """Flatten a classified input to 1-D; a one-column matrix is a vector (R accepts one)."""
    vals = v.values
    if np.ndim(vals) == 0:
        return v._replace(values=vals.reshape(1), na=np.asarray(v.na).reshape(1))
    if np.ndim(vals) == 2 and vals.shape[1] == 1:
        return v._replace(values=vals[:, 0], na=v.na[:, 0])
    if np.ndim(vals) != 1:
        fail_not_numeric_vector(arg)
    return v


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
    return _class_count(*multiclass_codes(y, arg), n_classes, arg)


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


def _class_count(codes, levels, n_classes, arg):
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


# --------------------------------------------------------------------------------------
# match.arg and unused arguments


def match_arg(value, choices, arg=None):
    """R ``match.arg(arg)`` for a choice argument: ``None`` or the full choice list gives the first
    choice, otherwise an exact or unique partial match.

    A value that matches no choice is one line naming the argument, the choices and the
    nearest of them (or the choice that scikit-learn's or another library's name stands
    for): ``Argument `strategy` should be one of “uniform”, “quantile”, not “equal”; did you
    mean “uniform”?``. ``arg`` is the argument's name; by default it is the parameter of the
    calling function that holds ``value`` (as R's ``match.arg`` reads its caller's formals).

    probcal's own functions keep R's message, word for word (``'arg' should be one of
    “classwise”, “confidence”``; the R port's contract), with the argument and the
    suggestion attached as a note (shown under the message in a traceback).
    """
    choices = list(choices)
    if value is None:
        return choices[0]
    if isinstance(value, str):
        seq = [value]
    elif isinstance(value, (list, tuple, np.ndarray, pd.Series)) and all(isinstance(s, str) for s in list(value)):
        seq = list(value)
        if seq == choices:
            return choices[0]
    else:
        _choice_error("'arg' must be NULL or a character vector", value, choices, arg)
    if len(seq) != 1:
        _choice_error(_should_be(choices) if len(seq) == 0 else "'arg' must be of length 1", value, choices, arg)
    s = seq[0]
    if s in choices:
        return s
    hits = [c for c in choices if s and c.startswith(s)]
    if len(hits) == 1:
        return hits[0]
    _choice_error(_should_be(choices), value, choices, arg)


def _should_be(choices):
    return "'arg' should be one of " + ", ".join(f"\u201c{c}\u201d" for c in choices)


def _quoted(items):
    return ", ".join(f"\u201c{c}\u201d" for c in items)


#: Other names for a choice (scikit-learn's, other libraries', plain words): name -> the
#: choices it may stand for. Used only to suggest a choice in a message, never to accept a name.
CHOICE_SYNONYMS = {
    "sigmoid": ("platt",), "logistic": ("platt",), "platt_scaling": ("platt",),
    "isotonic_regression": ("isotonic",), "histogram_binning": ("histogram",), "binning": ("histogram",),
    "temperature_scaling": ("temperature",), "ts": ("temperature",), "vector_scaling": ("vector",),
    "one_vs_rest": ("ovr", "one_vs_rest"), "ovr": ("one_vs_rest",), "ovo": ("one_vs_one",),
    "one_vs_one": ("one_vs_one",), "venn_abers": ("venn_abers",), "vennabers": ("venn_abers",),
    "ivap": ("venn_abers", "inductive"), "cvap": ("venn_abers", "cross"),
    "top": ("confidence", "top"), "top_label": ("confidence", "top"), "toplabel": ("confidence", "top"),
    "max": ("confidence",), "maximum": ("confidence",), "marginal": ("classwise",), "class": ("classwise",),
    "class_wise": ("classwise",), "per_class": ("classwise",),
    "equal_width": ("uniform",), "width": ("uniform",), "fixed": ("uniform",), "uniform": ("equal_width",),
    "equal_freq": ("quantile",), "equal_frequency": ("quantile",), "equal_mass": ("quantile",),
    "quantiles": ("quantile",), "adaptive": ("quantile",), "quantile": ("equal_freq",),
    "bootstrap": ("boot", "resampling"), "boot": ("bootstrap", "resampling"), "resample": ("resampling",),
    "mc": ("montecarlo",), "monte_carlo": ("montecarlo",), "simulation": ("sim",), "pointwise": ("pw",), "loess": ("lowess",), "lowess": ("loess",),
    "spline": ("rcs", "gam"), "splines": ("rcs", "gam"), "natural": ("ns",),
    "probability": ("prob",), "probabilities": ("prob",), "two_sided": ("two-sided",),
}


def _nearest(s, choices):
    """The suggestion for a value ``s`` that matches none of ``choices``: ``(choice, why)``
    or None."""
    import difflib

    if not isinstance(s, str) or not s:
        return None
    low = s.lower().strip()
    for c in choices:
        if c.lower() == low:
            return c, ""
    key = low.replace("-", "_").replace(" ", "_")
    for syn in CHOICE_SYNONYMS.get(key, ()):
        if syn in choices:
            return syn, f" (\u201c{s}\u201d is scikit-learn's name for it)" if key == "sigmoid" else ""
    hits = [c for c in choices if c.lower().startswith(low)]
    if len(hits) > 1:
        return " or ".join(f"\u201c{c}\u201d" for c in hits[:3]), "ambiguous"
    close = difflib.get_close_matches(low, [c.lower() for c in choices], n=1, cutoff=0.75)
    if close:
        return next(c for c in choices if c.lower() == close[0]), ""
    return None


def _suggestion_text(value, choices):
    s = value if isinstance(value, str) else (value[0] if isinstance(value, (list, tuple)) and len(value) == 1
                                              and isinstance(value[0], str) else None)
    hit = _nearest(s, choices)
    if hit is None:
        return "."
    choice, why = hit
    if why == "ambiguous":
        return f" (\u201c{s}\u201d begins more than one: {choice})."
    return f"; did you mean \u201c{choice}\u201d{why}?"


#: probcal's functions and their choice arguments, whose messages are R's own (the R port's
#: contract); every other choice argument gets calstats' one-line message.
_R_CHOICES = {
    "ece": ("type",), "ece_debiased": ("type",), "mce": ("type",), "ace": ("type",), "mmce": ("type",),
    "reliability_diagram": ("type",), "cal_histogram": ("strategy",), "cal_cv": ("method",),
    "cal_ovr": ("method", "base_method"), "skce": ("estimator", "type"), "cal_test": ("method", "type"),
    "cal_ci": ("metric", "interval", "estimator", "type"),
}


def _frame_function(frame):
    name = frame.f_code.co_name
    fn = frame.f_locals.get("fn") if name == "wrapper" else None  # a decorator's wrapper
    return getattr(fn, "__name__", name) if callable(fn) else name


def _caller_arg(value, depth=3):
    """``(arg, r_text)``: the name of the calling function's parameter that holds ``value``
    (None when none does), and whether the call came through one of probcal's functions
    with R's choice argument of that name."""
    import sys

    frame = sys._getframe(depth)
    arg, first = None, True
    while frame is not None and arg is None and (first or frame.f_globals.get("__name__", "").startswith("calstats")):
        first = False
        code = frame.f_code
        params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        for name in params:
            held = frame.f_locals.get(name)
            if name not in ("value", "self") and (held is value or (
                    isinstance(held, (list, tuple, dict)) and any(h is value for h in held))):
                arg = name
                break
        else:
            frame = frame.f_back
    r_text = False
    while frame is not None and frame.f_globals.get("__name__", "").startswith("calstats"):
        if arg in _R_CHOICES.get(_frame_function(frame), ()):
            r_text = True
            break
        frame = frame.f_back
    return arg, r_text


def _choice_error(r_message, value, choices, arg):
    inferred, r_text = _caller_arg(value)
    arg = arg or inferred
    suggestion = _suggestion_text(value, choices)
    if r_text:
        err = CalstatsError(r_message)
        err.add_note(f"Argument `{arg}` takes one of {_quoted(choices)}{suggestion}".replace("; did", ": did"))
        raise err
    name = f"Argument `{arg}`" if arg else "The argument"
    if isinstance(value, str):
        fail(f"{name} should be one of {_quoted(choices)}, not \u201c{value}\u201d{suggestion}")
    fail(f"{name} should be one string among {_quoted(choices)}{suggestion}")


def deparse(value):
    """R's deparse of a simple value, as it appears in an ``unused argument`` message."""
    from .numerics.rformat import as_character

    if value is None:
        return "NULL"
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return as_character(float(value))
    if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
        items = list(value)
        if len(items) == 1:
            return deparse(items[0])
        return "c(" + ", ".join(deparse(v) for v in items) + ")"
    return repr(value)


def unused_arguments(kwargs):
    """Raise R's ``unused argument(s)`` error for keyword arguments a function lacks."""
    if not kwargs:
        return
    _fail_unused([f"{name} = {deparse(val)}" for name, val in kwargs.items()])


def _fail_unused(parts) -> NoReturn:
    """R's ``unused argument(s) (...)``."""
    word = "argument" if len(parts) == 1 else "arguments"
    fail(f"unused {word} ({', '.join(parts)})")


def check_flag(x, arg):
    """A single ``True``/``False`` (Python or NumPy bool; R ``isTRUE(x) || isFALSE(x)``).

    Used by ``ece(debiased=)`` (Kumar, Liang and Ma 2019) and ``cal_ci``: ``Argument `debiased`
    must be `True` or `False`.``
    """
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.ndarray) and x.dtype == bool and x.size == 1:
        return bool(x.reshape(-1)[0])
    fail(f"Argument `{arg}` must be `True` or `False`.")


def refuse_weights(weights, where):
    """Refuse case weights where a computation cannot honour them, saying where and why:
    ``Case weights are not supported <where>.`` (``where`` carries the reason)."""
    if weights is not None:
        fail(f"Case weights are not supported {where}.")


def check_null_or_nonnegative(x, arg):
    """``None``, or a single finite non-negative number (R ``lambda``-style arguments)."""
    if x is None:
        return None
    value = scalar_number(x)
    if value is None or not math.isfinite(value) or value < 0:
        fail(f"Argument `{arg}` must be `NULL` or a single non-negative number.")
    return value


def check_prob_and_labels(p, y, copy=True):
    """The probabilities ``p`` (numeric, finite, in [0, 1]), the labels ``y`` (0/1; a single class
    is allowed), then equal lengths: a probability vector and its 0/1 labels, as the metrics take
    them. Returns ``(p, labels)``; ``copy`` as in :func:`check_prob`."""
    pv = check_prob(p, "p", copy=copy)
    try:
        yv = check_binary_y(y, "y", require_both=False, copy=copy)
    except CalstatsError:
        example = swap_example(p, y)
        if example is not None:  # R's message would blame `y` alone
            fail_swap("p", "y", example, "(p, y)")
        raise
    check_same_length("p", "y", pv.size, yv.size)
    return pv, yv


def numeric_or_none(x):
    """A float64 1-D array of a numeric or logical vector (NaN for missing), or None."""
    try:
        v = as_vec(x)
    except Exception:
        return None
    if v.kind not in ("numeric", "logical") or np.ndim(v.values) != 1:
        return None
    return np.where(np.asarray(v.na, dtype=bool), np.nan, np.asarray(v.values, dtype=np.float64))


def swap_example(p, y):
    """When the outcome ``y`` holds probabilities (values in [0, 1], not all 0/1) and the
    probabilities ``p`` only 0 and 1 -- the two given in each other's place -- the first
    value of ``y`` that is no label (for the message); else None."""
    yv = numeric_or_none(y)
    if yv is None:
        return None
    yv = yv[~np.isnan(yv)]
    if not yv.size or ((yv == 0) | (yv == 1)).all() or (yv < 0).any() or (yv > 1).any():
        return None
    pv = numeric_or_none(p)
    if pv is None:
        return None
    pv = pv[~np.isnan(pv)]
    if pv.size and ((pv == 0) | (pv == 1)).all():
        return float(yv[(yv != 0) & (yv != 1)][0])
    return None


def fail_swap(p_arg, y_arg, example, order) -> NoReturn:
    """Probabilities given as the outcome and 0/1 outcomes as the probabilities."""
    fail(f"Arguments `{y_arg}` and `{p_arg}` look swapped: `{y_arg}` holds probabilities (such as {example:.4g}) and "
         f"`{p_arg}` only 0 and 1; the order is {order}.")


def check_matrix_labels(pm, y, arg="p"):
    """The class labels ``y`` (one class per column of ``pm``), then as many labels as rows, for an
    already validated matrix ``pm``.
    Returns ``(codes, levels, k)``."""
    codes, levels, k = check_multiclass_y(y, pm.shape[1])
    check_nobs(arg, "y", pm.shape[0], codes.size)
    return codes, levels, k


def check_bins_or_rule(bins, rules):
    """A bin count (as :func:`check_bins`) or the name of a rule for it (``rules``, with
    R's partial matching); returns an int or the full rule name. Any other string gets
    R's message for ``bins``."""
    if isinstance(bins, str):
        hits = [r for r in rules if bins and r.startswith(bins)]
        if bins in rules or len(hits) == 1:
            return bins if bins in rules else hits[0]
    return check_bins(bins)


def check_breaks(breaks):
    """Explicit bin edges: at least two finite numbers in non-decreasing order (R's
    ``findInterval``; equal edges make empty bins, or the closed end bin ``[e, e]``);
    returns float64."""
    msg = "Argument `breaks` must be at least two finite numbers in non-decreasing order."
    if isinstance(breaks, (str, bytes)) or np.ndim(breaks) != 1:
        fail(msg)
    try:
        b = np.array(breaks, dtype=np.float64)
    except (TypeError, ValueError):
        fail(msg)
    if b.size < 2 or not np.all(np.isfinite(b)) or np.any(np.diff(b) < 0):
        fail(msg)
    return b


def check_within_breaks(v, edges):
    """Every score inside the outer edges ``[edges[0], edges[-1]]``."""
    out = (v < edges[0]) | (v > edges[-1])
    if out.any():
        first = float(v[np.flatnonzero(out)[0]])
        fail(f"{int(out.sum())} score(s) outside the range of `breaks` [{edges[0]:g}, {edges[-1]:g}] "
             f"(the first: {first:g}); widen the breaks.")


def check_null_or_at_least(x, arg, lower):
    """``None``, or a single finite number ``>= lower``; returns ``None`` or a float. Used by
    ``smece(sigma=)``: ``Argument `sigma` must be `None` or a single finite number of at
    least 1e-05.``"""
    if x is None:
        return None
    value = scalar_number(x)
    if value is None or not math.isfinite(value) or value < lower:
        fail(f"Argument `{arg}` must be `None` or a single finite number of at least {_number_text(lower)}.")
    return value


def check_positive_number(x, arg):
    """A single finite number ``> 0``; returns it as a float (``hoslem_test(df=)``):
    ``Argument `df` must be a single positive finite number.``"""
    value = scalar_number(x)
    if value is None or not math.isfinite(value) or value <= 0:
        fail(f"Argument `{arg}` must be a single positive finite number.")
    return value


def refuse_continuous_band(chosen_by_default=False):
    """``corp(band = "continuous_asymptotics")`` (or ``"auto"`` choosing it): reliabilitydiag
    needs the beta kernel density of R's bde package for it, which calstats does not have."""
    how = 'R\'s default rule chose `band = "continuous_asymptotics"`' if chosen_by_default else \
        '`band = "continuous_asymptotics"`'
    fail(f"{how} is not available: it needs the beta kernel density estimate of R's bde package, which "
         'calstats does not reproduce; use `band = "resampling"` or `band = "discrete_asymptotics"`.')


def check_score_arg(score, names):
    """A score for a decomposition: one of the built-in ``names`` (exact) or a function of
    ``(y, x)``; returns the name or the function."""
    if callable(score):
        return score
    if isinstance(score, str) and score in names:
        return score
    choices = ", ".join(f'"{n}"' for n in names)
    fail(f"Argument `score` must be one of {choices} or a function of (y, x).")


def check_score_values(values, n):
    """What a user's score function returned: ``n`` numbers (float64 1-D)."""
    try:
        v = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        v = None
    if v is None or v.size != n:
        fail(f"The score function must return one number per observation ({n}).")
    return v


def check_forecast_name(name, arg="name"):
    """A forecast's name (R's ``reliabilitydiag(EMOS = p)``): ``None`` or one non-empty
    string: ``Argument `name` must be `None` or a single non-empty string.``"""
    if name is None or (isinstance(name, str) and name != ""):
        return name
    fail(f"Argument `{arg}` must be `None` or a single non-empty string.")


def refuse_forecast_name():
    """``corp(matrix, type = "classwise", name = ...)``: the classes name the forecasts."""
    fail("Argument `name` names one forecast; a classwise diagram names its forecasts by the class labels.")


def refuse_binning(strategy, breaks, right, where):
    """Refuse binning choices other than R's equal-width, left-closed bins where a
    computation has bins of its own: ``Binning choices (strategy, breaks, right) are not
    available <where>.``"""
    if breaks is not None or strategy != "uniform" or right is not False:
        fail(f"Binning choices (strategy, breaks, right) are not available {where}.")


def check_labels_complete(labels, arg="y"):
    """Labels from :func:`check_binary_y` hold no missing (logical NA) value, for computations
    that need every label (reliabilitydiag's ``all(y == 0 | y == 1)``)."""
    lab = np.asarray(labels)
    if lab.dtype.kind == "f" and np.isnan(lab).any():
        fail_missing(arg)
    return lab


def check_prediction_args(se_fit, interval, level):
    """``predict``'s uncertainty arguments: returns ``(se_fit, interval, level)`` checked
    (``interval`` None or ``"confidence"``, ``level`` in (0, 1))."""
    se_fit = check_flag(se_fit, "se_fit")
    if interval is not None:
        interval = match_arg(interval, ("confidence",))
    level = check_interval(level, "level")
    return se_fit, interval, level


def refuse_prediction_uncertainty(se_fit, interval, what):
    """Calibrators without a likelihood (isotonic, histogram, ...) have no delta-method
    standard error: one message naming the method."""
    if se_fit or interval is not None:
        fail(f"`se_fit` and `interval` need a likelihood fit; {what} has none.")


def check_every_class(codes, k, purpose="one-vs-rest calibration"):
    """Every one of the ``k`` classes occurs in the 1-based ``codes`` (R's cal_ovr check):
    ``Every class must appear in `y` for <purpose>.``"""
    if np.unique(codes).size != k:
        fail(f"Every class must appear in `y` for {purpose}.")


# --------------------------------------------------------------------------------------
# a time-to-event outcome (read by calstats._surv)


def fail_surv_form(arg) -> NoReturn:
    """An argument that should hold a time-to-event outcome holds something else."""
    fail(f"Argument `{arg}` must be a time-to-event outcome: a `(time, status)` pair, an n x 2 array or "
         "frame, or a `Surv(time, event)` object.")


def check_surv_lengths(arg, n_time, n_status, names=None):
    """The two parts of a time-to-event outcome have the same length: the pair form ``arg``
    (``A time-to-event `y` = (time, status) needs two arrays of the same length.``) or, with
    ``names``, two separate arguments (:func:`check_same_length`)."""
    if n_time == n_status:
        return
    if names is not None:
        check_same_length(names[0], names[1], n_time, n_status)
    fail(f"A time-to-event `{arg}` = (time, status) needs two arrays of the same length.")


def check_surv_time(x, arg, allow_missing=False):
    """Follow-up times: a numeric vector (not empty) of finite numbers; with
    ``allow_missing`` a missing time is NaN (for callers that drop such rows). Returns
    float64 1-D."""
    if not allow_missing:
        return check_numeric(x, arg)
    v = as_vec(x)
    if v.kind != "numeric":
        fail_not_numeric_vector(arg)
    v = _vector_values(v, arg)
    vals = np.where(v.na, np.nan, v.values.astype(np.float64))
    if vals.size == 0:
        fail_empty(arg)
    if np.isinf(vals).any():
        fail_not_finite(arg)
    return vals


def _status_message(arg, competing):
    if competing:
        return (f"Argument {_msg_arg(arg)} must contain event codes: `0` (censored) or a cause `1`, `2`, ... "
                "(whole numbers), or be a categorical whose first level is censoring.")
    return (f"Argument {_msg_arg(arg)} must contain only `0` (censored) and `1` (event), or R's `1` (censored) "
            "and `2` (event).")


def check_surv_status(x, arg, competing=False, allow_missing=False):
    """An event indicator: 0/1 (or booleans, or R's ``Surv`` coding 1 = censored, 2 = event
    when every value is 1 or 2, or a two-level categorical whose first level is censoring);
    with ``competing``, event codes: 0 censored, whole numbers 1..k the causes (or a
    categorical whose first level is censoring, the others the causes in order).

    Returns ``(status, levels)``: an int64 array (float64 with NaN for a missing value when
    ``allow_missing``) and the names of codes 1, 2, ... (``None`` for numbers).
    """
    v = as_vec(x)
    if v.kind not in ("numeric", "logical", "factor"):
        fail(_status_message(arg, competing))
    v = _vector_values(v, arg)
    na = np.asarray(v.na, dtype=bool)
    if na.any() and not allow_missing:
        fail_missing(arg)
    if v.values.size == 0:
        fail_empty(arg)
    levels = None
    if v.kind == "factor":
        levels = list(v.levels)[1:]
        if not competing and len(levels) > 1:
            fail(_status_message(arg, competing))
        vals = np.where(na, np.nan, v.values.astype(np.float64) - 1.0)
    else:
        vals = np.where(na, np.nan, v.values.astype(np.float64))
        present = vals[~na]
        if not np.isfinite(present).all():
            fail(_status_message(arg, competing))
        if competing:
            if ((present < 0) | (present != np.floor(present)) | (present > INT_MAX)).any():
                fail(_status_message(arg, competing))
        elif not ((present == 0) | (present == 1)).all():
            if present.size and ((present == 1) | (present == 2)).all() and present.max() == 2:
                vals = vals - 1.0  # R's Surv: 1 = censored, 2 = event
            else:
                fail(_status_message(arg, competing))
    out = vals if na.any() else vals.astype(np.int64)
    return out, levels


def check_cause(cause, causes, arg="cause"):
    """The cause of interest of a competing-risk outcome: one of ``causes`` (the codes or
    level names present in the outcome); returns its index in ``causes``."""
    names = [str(c) for c in causes]
    if isinstance(cause, (bool, np.bool_)):
        cause = None
    elif isinstance(cause, (int, np.integer)) or (isinstance(cause, (float, np.floating)) and math.isfinite(cause)
                                                     and cause == math.floor(cause)):
        cause = str(int(cause))
    if isinstance(cause, str) and cause in names:
        return names.index(cause)
    shown = ", ".join(f"`{c}`" for c in names) or "none (no event occurs)"
    fail(f"Argument `{arg}` must be one of the causes in the outcome: {shown}.")


# --------------------------------------------------------------------------------------
# values already read as floats (the clinical functions)


def check_binary_values(vals, arg):
    """Outcomes read as float64 (NaN for a missing one) are 0 or 1 where present."""
    present = vals[~np.isnan(vals)]
    if not ((present == 0) | (present == 1)).all():
        fail_not_binary(arg)


def check_unit_values(vals, arg):
    """Probabilities read as float64 (NaN for a missing one) are in [0, 1] where present."""
    present = vals[~np.isnan(vals)]
    if ((present < 0) | (present > 1)).any():
        fail_not_probabilities(arg)


def check_groups(g, arg, minimum):
    """A number of groups: a single whole number of at least ``minimum``; returns int."""
    value = scalar_number(g)
    if value is None or not math.isfinite(value) or value != math.floor(value) or value < minimum:
        fail(f"Argument `{arg}` must be a whole number of at least {minimum} (the number of groups).")
    return int(value)


def check_finite_number(x, arg):
    """A single finite number; returns it as a float."""
    value = scalar_number(x)
    if value is None or not math.isfinite(value):
        fail(f"Argument `{arg}` must be a single finite number.")
    return float(value)


def refuse_no_event(status, where="cuminc"):
    """A competing-risk outcome without any event (every code 0, censored): no curve to
    estimate, and R's ``cuminc`` stops in its Fortran; one line saying why."""
    if not np.any(np.asarray(status) != 0):
        fail(f"{where} needs at least one event (an event code other than 0): every time is censored "
             "(R's cuminc stops with 'NAs in foreign function call (arg 3)').")


def refuse_gray_variance(stats):
    """Gray's test whose score variance is not finite (a statistic of NaN): R's ``cuminc``
    stops in ``qr``; one line saying why."""
    if any(math.isnan(v) for v in stats):
        fail("Gray's test cannot be computed: the variance of its scores is not finite (a group's "
             "event-free survival reaches 0; R's cuminc stops with 'NA/NaN/Inf in foreign function call').")


def read_group(x, arg="group"):
    """A grouping vector as R's ``as.factor`` reads it: ``(codes, labels)``, codes 1..k in
    the order of the levels that occur (a categorical's own order; numbers sorted
    numerically and labelled as ``as.character`` writes them; strings sorted, which is R's
    C-locale order). Missing values are refused."""
    from .numerics.rformat import as_character

    v = _vector_values(as_vec(x), arg)
    if v.kind == "null" or v.values.size == 0:
        fail_empty(arg)
    if np.asarray(v.na).any():
        fail_missing(arg)
    if v.kind == "factor":
        used = np.unique(v.values.astype(np.int64))
        levels = [str(v.levels[c - 1]) for c in used]
        return np.searchsorted(used, v.values.astype(np.int64)) + 1, levels
    if v.kind == "logical":
        u, codes = np.unique(v.values.astype(np.float64), return_inverse=True)
        return codes.astype(np.int64) + 1, ["TRUE" if w else "FALSE" for w in u]
    if v.kind == "numeric":
        u, codes = np.unique(v.values.astype(np.float64), return_inverse=True)
        return codes.astype(np.int64) + 1, [as_character(w) for w in u]
    u, codes = np.unique(np.asarray([str(w) for w in v.values]), return_inverse=True)
    return codes.astype(np.int64) + 1, [str(w) for w in u]


def check_risk_columns(ncol, n_times, arg="risk"):
    """A matrix of predicted risks has one column per horizon."""
    if ncol != n_times:
        fail(f"Argument `{arg}` must have one column per horizon in `times` ({n_times}), not {ncol}; "
             "a vector gives the same risk at every horizon.")


def check_risk_columns_order(times, arg="risk"):
    """A matrix with a column per horizon pairs column j with the j-th horizon: the horizons
    must then be given increasing and distinct (sorting them would silently pair a column
    with another horizon, as riskRegression's Score does)."""
    t = np.asarray(times, dtype=np.float64).ravel()
    if t.size > 1 and not np.all(np.diff(t) > 0):
        fail(f"Argument `times` must be increasing and distinct when `{arg}` has a column per horizon "
             "(column j is the risk by the j-th time).")


def check_horizons(times, maxtime, arg="times"):
    """Horizons (riskRegression's ``Score(times = )``): finite numbers, sorted and made
    distinct; those beyond the last follow-up time ``maxtime`` are dropped with R's
    message as a warning, and none left is R's error. Returns ``(kept, dropped)``."""
    t = np.unique(check_numeric(times, arg))
    keep = t <= maxtime
    if not keep.any():
        _fail_no_evaluation_time(maxtime)
    return t[keep], t[~keep]


def _fail_no_evaluation_time(maxtime) -> NoReturn:
    """riskRegression's ``Score`` without a horizon within follow-up."""
    fail(f"No evaluation time before end of followup (the last follow-up time is {maxtime:g}).")


def warn_horizons_dropped(maxtime):
    """riskRegression's message when horizons beyond the follow-up are dropped (as a warning)."""
    warn(f"Upper limit of followup is {maxtime:g}; results at evaluation time(s) beyond this time point are not "
         "computed.")


def check_single_horizon(x, arg="horizon"):
    """One finite horizon; returns it as a float."""
    value = scalar_number(x)
    if value is None or not math.isfinite(value):
        fail(f"Argument `{arg}` must be a single finite time.")
    return value


def refuse_cause_for_pec(cause):
    """pec's integrated Brier score is ported for a right-censored outcome only."""
    if cause is not None:
        fail("`method = \"pec\"` is available for a right-censored outcome only; use `method = \"riskRegression\"` "
             "with `cause`.")


def fail_no_models(arg="risk") -> NoReturn:
    fail(f"Argument `{arg}` must hold the predicted risks of at least one model.")


def refuse_model_name(name, reserved):
    """A model name that the result uses for its reference model."""
    if name == reserved:
        fail(f"A model cannot be named '{reserved}' (the reference model's name).")


def check_open_unit(x, arg):
    """Probabilities strictly between 0 and 1 (for a transformation such as the
    complementary log-log); returns float64."""
    v = check_prob(x, arg)
    if ((v <= 0) | (v >= 1)).any():
        fail(f"Argument `{arg}` must hold risks strictly between 0 and 1.")
    return v


# --------------------------------------------------------------------------------------
# rms lrm, validate and calibrate


def check_lrm_data(data):
    """``lrm(data=)``: a DataFrame or a mapping of columns."""
    if not isinstance(data, (pd.DataFrame, dict)) and not hasattr(data, "keys"):
        fail("Argument `data` must be a DataFrame (or a dict of columns).")
    return data


def check_lrm_outcome(n, n_levels, has_missing, empty_levels=()):
    """The outcome of ``lrm``: no missing value, at least 3 observations (R's message) and
    two levels, every level observed."""
    if has_missing:
        fail("The outcome has missing values: lrm needs complete rows (drop them first).")
    if n < 3:
        fail_three_observations()
    if n_levels < 2:
        fail("The outcome has a single value: lrm needs at least two outcome levels.")
    if empty_levels:
        fail(f"The outcome has levels without observations ({', '.join(map(str, empty_levels))}): drop unused "
             "levels first.")


def check_case_weights(w, n, arg="weights"):
    """Case weights: ``n`` finite non-negative numbers, not all zero; returns float64."""
    v = check_numeric(w, arg)
    if v.size != n:
        fail(f"Argument `{arg}` must have one weight per row ({n}), not {v.size}.")
    if (v < 0).any():
        fail(f"Argument `{arg}` must not contain negative weights.")
    if not (v > 0).any():
        fail(f"Argument `{arg}` must contain a positive weight.")
    return v


def check_resamples(B, method):
    """``validate``/``calibrate``'s ``B``: a positive whole number; with
    ``method="crossvalidation"`` at most ``n/2`` groups (R's ``B > n/2``, checked later)."""
    return check_bins(B, "B")


def fail_resample_intercepts(ni, ns) -> NoReturn:
    """``predab.resample``'s refusal of a refit with another number of intercepts than the
    fit (R's text, shared with :mod:`calstats.ports.rms.predab`)."""
    fail(PREDAB_INTERCEPTS.format(ni=ni, ns=ns))


def fail_lrm_singular(rank, names) -> NoReturn:
    """R's ``lrm.fit`` message for a rank-deficient information matrix (one line)."""
    fail(f"singular information matrix in lrm.fit (rank= {rank} ).  Offending variable(s): {' '.join(names)}")


def fail_apparently_singular() -> NoReturn:
    """``rms::solvet``'s message."""
    fail("apparently singular matrix")


def fail_model_not_converged(what="validate") -> NoReturn:
    """A fit that did not converge cannot be validated."""
    fail(f"The model did not converge (R's fail = TRUE): nothing to {what}.")


def check_refit_model(model):
    """``validate``/``calibrate``'s model: an ``lrm`` fit, a scikit-learn classifier (with
    ``fit`` and ``predict_proba``) or a callable ``fit(X, y) -> predict``."""
    if callable(model) or (hasattr(model, "fit") and hasattr(model, "predict_proba")):
        return model
    fail("Argument `fit` must be an lrm fit, a scikit-learn classifier (fit/predict_proba) or a callable "
         "fit(X, y) returning a function of X that gives probabilities.")


def check_refit_xy(X, y):
    """``X`` (n x p numbers) and ``y`` (0/1, both present) for a refittable model; returns
    float64 ``X`` (2-D) and int ``y``."""
    if X is None or y is None:
        fail("Arguments `X` and `y` are needed to validate a model given as an estimator or a callable.")
    Xa = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    if Xa.ndim == 1:
        Xa = Xa[:, None]
    if Xa.ndim != 2 or Xa.dtype.kind not in "biuf":
        fail("Argument `X` must be a numeric matrix (n x p).")
    yv = check_binary_y(y, "y")
    check_same_length("X", "y", Xa.shape[0], yv.size)
    if Xa.shape[0] < 3:
        fail_three_observations()
    return Xa.astype(np.float64), np.asarray(yv, dtype=np.int64)


def check_predictions(p, n):
    """What a refitted model predicts: ``n`` probabilities in [0, 1]."""
    v = np.asarray(p, dtype=np.float64).ravel() if np.asarray(p).dtype.kind in "biuf" else None
    if v is None or v.size != n or np.isnan(v).any() or ((v < 0) | (v > 1)).any():
        fail(f"The model's predictions must be {n} probabilities in [0, 1].")
    return v


def check_predy(predy):
    """``calibrate(predy=)``: finite numbers in (0, 1)."""
    v = check_numeric(predy, "predy")
    if ((v <= 0) | (v >= 1)).any():
        fail("Argument `predy` must hold probabilities strictly between 0 and 1.")
    return v


def fail_calibrate_small(n) -> NoReturn:
    """``calibrate.default``'s refusal without ``predy``."""
    fail("must have n > 10 if do not specify predy")


def check_unique_breaks(breaks):
    """Group limits cut at quantiles must be distinct (R's ``cut``: ``'breaks' are not
    unique``)."""
    if np.unique(breaks).size != np.size(breaks):
        fail("'breaks' are not unique: the risks have too many ties for that many quantile groups; lower `q`.")


def refuse_horizon_beyond(horizon, maxtime):
    """A single horizon beyond the last follow-up time (riskRegression's ``Score``)."""
    if horizon > maxtime:
        _fail_no_evaluation_time(maxtime)


def refuse_cause_binary(cause):
    """``cause=`` given with a binary outcome."""
    if cause is not None:
        fail("Argument `cause` applies only to a competing-risk outcome `y = (time, event)`.")


def check_rows_left(n, what):
    """Rows remain after ``what`` were removed (R's removal of missing or extreme rows)."""
    if n == 0:
        fail(f"No rows are left to fit once {what} are removed.")


def check_both_classes(vals, arg):
    """Binary outcomes read as float64 hold both classes."""
    if np.unique(vals[~np.isnan(vals)]).size < 2:
        fail_one_class_only(arg)


def check_not_empty(vals, arg):
    """A vector read as float64 has at least one value."""
    if np.size(vals) == 0:
        fail_empty(arg)


def warn_empty_cell(group):
    """A Hosmer-Lemeshow group whose expected count of one outcome is 0, with none observed."""
    warn(f"The Hosmer-Lemeshow statistic is NaN (as in R): in group {group} every probability is 0 (or 1) and no "
         "such outcome occurs, a cell of 0 / 0; use fewer groups, or leave those rows out.")


def check_parameters_rows(q_matrix, q_flexible, n, k, df):
    """``val_multinomial``'s largest models have no more parameters than there are rows
    (checked from 100 parameters on: below, the fits are quick and VGAM's own errors
    speak)."""
    if max(q_matrix, q_flexible) > max(n, 100):
        fail(f"Too many classes for the rows: with {k} classes the recalibration matrix has {q_matrix} parameters "
             f"and the flexible curves (df = {df}) {q_flexible}, but `p` has {n} rows; merge rare classes or use "
             "more rows (VGAM refuses only beyond n (K - 1) parameters, and would fit for minutes).")


def check_min_rows(n, minimum, arg, why):
    """At least ``minimum`` rows (observations) where a statistic needs them."""
    if n < minimum:
        fail(f"Argument {_msg_arg(arg)} must have at least {minimum} rows ({why}).")


def check_slope_estimable(nevent, se):
    """A Cox calibration slope that the data can estimate: an event, and a finite positive
    standard error."""
    if nevent == 0:
        fail("The outcome has no event: no Cox model of it can be fitted, and no calibration slope.")
    if not (math.isfinite(se) and se > 0):
        fail(f"The calibration slope cannot be estimated from these rows: its standard error is {se:g} "
             "(too few rows or events, or a constant `lp`).")


# --------------------------------------------------------------------------------------
# Venn-Abers predictors


def check_null_or_count(value, arg):
    """``None`` or a single non-negative whole number (``value`` from :func:`scalar_number`,
    or None for a value that is not a number); returns None or an int."""
    if value is None or not math.isfinite(value) or value < 0 or value != math.floor(value):
        fail(f"Argument `{arg}` must be `None` or a single non-negative integer.")
    return int(value)


def fail_fold_ids(n=None, given=None) -> NoReturn:
    """Fold ids that are not one whole number from 1 per observation."""
    if n is not None:
        fail(f"Argument `folds` must have one fold id per observation ({n}), not {given}.")
    fail("Argument `folds` must be a number of folds or one fold id per observation (whole numbers from 1, every "
         "fold from 1 to the largest present, at least two folds).")


def fail_empty_fold() -> NoReturn:
    """A fold without an observation of positive weight."""
    fail("Every fold must hold at least one observation of positive weight (for a matrix with reduction = "
         "\"one_vs_one\": in every pair of classes).")


def fail_fold_number(k) -> NoReturn:
    """A fold number outside 1..k."""
    fail(f"Argument `fold` must be a whole number from 1 to {k}.")


def fail_by_fold() -> NoReturn:
    """``by_fold`` of a predictor that has no folds."""
    fail("`by_fold = True` needs a cross Venn-Abers fit (method = \"cross\").")


# --------------------------------------------------------------------------------------
# the readers at the boundary (calstats._inputs)


def fail_proba_columns(arg, k) -> NoReturn:
    """A matrix of more than two columns where a binary outcome's probability belongs."""
    fail(f"Argument `{arg}` has {k} columns; a binary outcome takes one probability per row (or scikit-learn's "
         "n x 2 `predict_proba` output, whose second column is the event's).")


def fail_proba_rows(arg, row, total) -> NoReturn:
    """An n x 2 matrix read as ``predict_proba`` output whose ``row`` (1-based) does not sum to 1."""
    fail(f"Argument `{arg}` has two columns, read as scikit-learn's `predict_proba` output, but row {row} sums "
         f"to {total:.6g}, not 1; pass the probability of the event (one column).")


def fail_columns_order(x, y, columns, levels, fix) -> NoReturn:
    """Columns and categories that name the same classes in another order."""
    fail(f"The columns of `{x}` ({columns}) and the classes of `{y}` ({levels}) name the same classes in another "
         f"order; the columns are read by position: reorder them, e.g. `{x}[{fix}]`.")


def fail_columns_codes(x, y, columns, fix) -> NoReturn:
    """Columns named by class codes in another order than the codes."""
    fail(f"The columns of `{x}` are named {columns}, but `{y}` holds class codes, which name the columns by "
         f"position (code 1 is the first column); reorder the columns, e.g. `{x}[{fix}]`, or pass `{y}` as a "
         "categorical.")


def check_input_choice(requested):
    """``input=``: how predictions are read."""
    if requested not in ("auto", "probabilities", "logits"):
        fail('Argument `input` must be one of "auto", "probabilities", "logits".')
    return requested


def refuse_input_reading(reading, arg):
    """The library's words for the two readings :func:`calstats._inputs.input_kind` refuses
    (a guessed reading only: given explicitly, the reading is obeyed and each method checks
    its input); returns ``reading.kind``."""
    if reading.problem == "rows" and reading.guessed:
        fail(f"Argument `{arg}` holds values in [0, 1] whose rows do not sum to 1 (row {reading.row + 1} sums to "
             f"{reading.total:.6g}; {reading.count} such row{'s' if reading.count > 1 else ''}): give probabilities "
             "whose rows sum to 1, or `input=\"logits\"` if the columns are scores.")
    if reading.problem == "scores":
        fail(f"Argument `{arg}` has values above 1 (the first: {reading.value:.6g} in row {reading.row + 1}) and "
             "none below 0: neither probabilities nor logits (percentages? counts?); fix it, or pass "
             "`input=\"logits\"` if it really holds scores.")
    return reading.kind


def warn_looks_like_probabilities(arg, fn, rows, how):
    """Probabilities given to a function that takes logits and reads them as logits."""
    warn(f"`{arg}` looks like probabilities (every value in [0, 1]{rows}) but {fn}() takes logits and reads it as "
         f"logits; for probabilities pass {how}.")


def fail_no_predictions() -> NoReturn:
    """Several models, none given."""
    fail("Argument `p` must hold the predictions of at least one model.")


def fail_model_twice(name) -> NoReturn:
    """Two models of one name."""
    fail(f"Every model needs its own name; `{name}` is used twice.")


def fail_models_of_dict() -> NoReturn:
    """``models=`` with a dict of models."""
    fail("Argument `models` names the models of a DataFrame `p`; a dict `p` names its models by its keys.")


def fail_models_type() -> NoReturn:
    """``models=`` that is neither a name nor a list of columns of a DataFrame."""
    fail("Argument `models` must be a model name, or a list of column names of a DataFrame `p`.")


def fail_models_columns(names) -> NoReturn:
    """``models=`` naming columns the DataFrame has not."""
    fail(f"Argument `models` names columns that `p` does not have: {names}.")


def fail_models_form() -> NoReturn:
    """Several models in a form that holds none."""
    fail("Argument `p` must be a 1-d array of risks, or a DataFrame or dict of them (one per model).")


# --------------------------------------------------------------------------------------
# calstats.report


def fail_report_missing(arg, row, label) -> NoReturn:
    """A missing value of the report's inputs, in ``row`` (1-based; ``label`` its index, if any)."""
    fail(f"Argument `{arg}` has a missing value in row {row}{label}; a calibration report needs complete rows: "
         "drop or impute that row first.")


def refuse_report_reserved():
    """A model named as a reference strategy of the decision curve."""
    fail("A model cannot be named 'all' or 'none' (the decision curve's reference strategies).")


def fail_report_length(name, n_p, n_y) -> NoReturn:
    """A model with another number of rows than the outcome."""
    fail(f"Every model and `y` must have the same number of rows; `{name}` has {n_p}, `y` has {n_y}.")


def fail_report_shape(name, first) -> NoReturn:
    """Models of different forms (vectors and matrices, or matrices of different widths)."""
    fail("The models must all be vectors (binary or time-to-event outcome) or all probability matrices with the "
         f"same number of columns (multiclass); `{name}` is not like `{first}`.")


def fail_report_time_needed() -> NoReturn:
    """A time-to-event outcome without its horizon."""
    fail("A time-to-event outcome `y = (time, status)` needs the horizon `time=`: the predictions are risks of the "
         "event by that time.")


def refuse_report_time(time):
    """A horizon given with an outcome that has no time."""
    if time is not None:
        fail("Argument `time` (the horizon) applies only to a time-to-event outcome `y = (time, status)`.")


def fail_report_time_value() -> NoReturn:
    """A horizon that is not one positive finite number or increasing ones."""
    fail("Argument `time` must be a single positive finite number, or increasing positive finite times (the "
         "models then give a column of risks per time).")


def fail_report_time_columns(k, name, cols) -> NoReturn:
    """A model whose risk matrix has not one column per horizon."""
    fail(f"With {k} times in `time`, every model gives its risks by each time: an n x {k} matrix, one column per "
         f"time in the order of `time`; `{name}` has {cols}.")


def refuse_report_time_beyond(h, last):
    """A horizon beyond the last follow-up time."""
    if h > last:
        fail(f"Argument `time` ({h:g}) is beyond the last follow-up time ({last:g}): no one is followed that long, "
             "so no risk by it can be checked; choose a horizon within follow-up.")


def check_seed(seed):
    """A seed of R's ``set.seed``: a single whole number in R's integer range; returns int."""
    s = scalar_number(seed)
    if s is None or not math.isfinite(s) or s != math.floor(s) or abs(s) >= 2**31:
        fail("Argument `seed` must be a single whole number (R's set.seed).")
    return int(s)


def fail_report_sections(names) -> NoReturn:
    """Sections that are not the report's."""
    fail(f"Argument `sections` must be a list of section names among {names}.")


def fail_report_section_kind(name, kind, names) -> NoReturn:
    """A section of another kind of outcome."""
    fail(f"Section `{name}` does not apply to a {kind} outcome; its sections are {names}.")


def check_report_source(source):
    """``source=``: None or the code that made the inputs."""
    if source is not None and not isinstance(source, str):
        fail("Argument `source` must be a string: the code that made `p` and `y`.")


# --------------------------------------------------------------------------------------
# case weights (calstats._weights)


def fail_weights_type(arg) -> NoReturn:
    """Case weights that are not a numeric vector."""
    fail(f"Argument `{arg}` must be a numeric vector of case weights.")


def check_weights_values(w, n, arg):
    """Case weights (a float64 vector): one per observation, finite, non-negative, not all zero."""
    if w.size != n:
        fail(f"Argument `{arg}` must have one value per observation ({n}), not {w.size}.")
    if not np.isfinite(w).all():
        fail_missing_or_infinite(arg)
    if (w < 0).any():
        fail_negative(arg)
    if not (w > 0).any():
        fail(f"Argument `{arg}` must not be all zero.")
    return w


# --------------------------------------------------------------------------------------
# decision curves (calstats.clinical.decision: dcurves' dca, net_intervention_avoided,
# test_consequences); dcurves' own texts where dcurves has one


def refuse_dca_reserved():
    """dcurves' refusal of a model named as a reference strategy."""
    fail("Variables cannot be named 'all' or 'none': they are reserved.")


def fail_dca_range(name) -> NoReturn:
    """dcurves' refusal of risks outside [0, 1]."""
    fail(f"Error in {name}. All covariates/risks must be between 0 and 1.")


def check_dca_time(time, survival):
    """The horizon of a decision curve: required (dcurves' text) and a single finite number
    for a time-to-event outcome, refused for a binary one; returns it (None when binary)."""
    if not survival:
        if time is not None:
            fail("Argument `time` applies only to a time-to-event outcome `y = (time, event)`.")
        return None
    if time is None:
        fail("`time=` must be specified for survival endpoints.")
    horizon = scalar_number(time)
    if horizon is None or not math.isfinite(horizon):
        fail("Argument `time` must be a single finite number.")
    return horizon


def fail_dca_no_prevalence() -> NoReturn:
    """dcurves' refusal when the Kaplan-Meier risk at the horizon is missing."""
    fail("Cannot calculate outcome prevalence at specified time, likely due to no observed data beyond selected "
         "time.")


def check_dca_plot_type(type, types, has_interventions):
    """``DecisionCurve.plot(type=)``: one of ``types``; the net interventions avoided only once
    computed (dcurves' text)."""
    if type not in types:
        fail("Argument `type` must be one of 'net_benefit', 'net_intervention_avoided', "
             "'standardized_net_benefit'.")
    if type == "net_intervention_avoided" and not has_interventions:
        fail("Cannot specify `type = 'net_intervention_avoided' without first running "
             "`net_intervention_avoided()`.")
    return type


def fail_dca_outcome() -> NoReturn:
    """An outcome that is neither a 0/1 vector nor a time-to-event one."""
    fail("Argument `y` must be a 0/1 vector, or `(time, event)` arrays or a two-column frame for a time-to-event "
         "outcome.")


def check_dca_thresholds(thresholds, closed=False):
    """Threshold probabilities: numbers in [0, 1) (a decision curve), or in [0, 1] with
    ``closed`` (``test_consequences``)."""
    t = check_numeric(thresholds, "thresholds")
    if closed and ((t < 0) | (t > 1)).any():
        fail("Argument `thresholds` must contain values in `[0, 1]`.")
    if not closed and ((t < 0) | (t >= 1)).any():
        fail("Argument `thresholds` must contain values in `[0, 1)`.")
    return t


def fail_dca_harm() -> NoReturn:
    """``harm=`` that is neither a number nor a mapping of names to numbers."""
    fail("Argument `harm` must be a finite number or a mapping of model names to finite numbers.")


def fail_dca_harm_name(name) -> NoReturn:
    """``harm=`` naming a model that is not there."""
    fail(f"Argument `harm` names a model that is not in `p`: {name}.")


def check_dca_prevalence(prevalence):
    """``prevalence=``: None or a number in [0, 1]; returns a float or None."""
    if prevalence is None:
        return None
    v = scalar_number(prevalence)
    if v is None or not (0.0 <= v <= 1.0):
        fail("Argument `prevalence` must be `None` or a single number in `[0, 1]`.")
    return v


def fail_dca_label() -> NoReturn:
    """``label=`` that is not a mapping."""
    fail("Argument `label` must be a mapping of model names to labels.")


def fail_dca_label_name(name) -> NoReturn:
    """``label=`` naming a model that is not there."""
    fail(f"Argument `label` names a model that is not in `p`: {name}.")


def fail_as_probability_type() -> NoReturn:
    """``as_probability=`` that is not a name or a list of names."""
    fail("Argument `as_probability` must be a model name or a list of model names.")


def fail_as_probability_name(name) -> NoReturn:
    """``as_probability=`` naming a model that is not there."""
    fail(f"Argument `as_probability` names a model that is not in `p`: {name}.")


def refuse_as_probability(competing, weighted):
    """``as_probability=`` with a competing-risk outcome or case weights."""
    if competing:
        fail("Argument `as_probability` is not available for a competing-risk outcome (dcurves' Cox model stops: "
             "an id statement is required for multi-state models).")
    if weighted:
        fail("Argument `as_probability` cannot be combined with `weights` (dcurves' models are unweighted).")


def fail_as_probability_risks(name) -> NoReturn:
    """A marker whose Cox model gives no risks."""
    fail(f"Error in {name}. Its Cox model gives no risks (fewer than two observations, no events or a constant "
         "marker).")


def fail_nia_x() -> NoReturn:
    """``net_intervention_avoided(x)`` of something else than a decision curve."""
    fail("Argument `x` must be a DecisionCurve from `decision_curve()` (dcurves: class 'dca').")


def check_nper(nper):
    """``nper=``: a single positive number; returns it."""
    k = scalar_number(nper)
    if k is None or not (math.isfinite(k) and k > 0):
        fail("Argument `nper` must be a single positive number.")
    return k


def fail_statistics_type() -> NoReturn:
    """``statistics=`` that is not a name or a list of names."""
    fail("Argument `statistics` must be a statistic's name or a list of them (`TEST_STATISTICS`).")


def fail_statistics_name(name) -> NoReturn:
    """``statistics=`` naming an unknown statistic."""
    fail(f"Argument `statistics` must name statistics of `TEST_STATISTICS`: '{name}' is not one.")


# --------------------------------------------------------------------------------------
# rms' val.prob (calstats.clinical.valprob) and CalibrationCurves' val.prob.ci.2
# (calstats.clinical.hierarchy): R's texts. The warnings that R also keeps in the result
# (val.prob.ci.2's warningMessages) return their text.


def _names_length(names, values):
    """R's error of ``names(x) <- value`` with a value of another length."""
    return f"'names' attribute [{names}] must be the same length as the vector [{values}]"


def fail_names_length(names, values) -> NoReturn:
    """R's error of ``names(x) <- value`` with a value of another length."""
    fail(_names_length(names, values))


def fail_val_prob_one_class() -> NoReturn:
    """rms' val.prob of an outcome with one class (R's error quoted)."""
    fail_one_class("y", "rms::val.prob", _names_length(3, 2))


def fail_val_prob_range() -> NoReturn:
    """rms' val.prob of probabilities outside [0, 1] (R's error quoted)."""
    fail_quoting_r("Argument `p` must contain probabilities in `[0, 1]`", "rms::val.prob",
                   FOREIGN_NONFINITE.format(arg=4))


def fail_foreign_nonfinite(arg) -> NoReturn:
    """R's refusal of a non-finite argument of compiled code (``arg``, 1-based)."""
    fail(FOREIGN_NONFINITE.format(arg=arg))


def fail_not_numeric(arg) -> NoReturn:
    """An argument that is not numeric (calstats' words for R's arithmetic)."""
    fail(ARGUMENT_NUMERIC.format(arg=arg))


def fail_not_vector(arg) -> NoReturn:
    """A matrix where a vector belongs."""
    fail(f"Argument `{arg}` must be a vector.")


def fail_missing_argument(name) -> NoReturn:
    """R's error for an argument without a value and without a default."""
    fail(f'argument "{name}" is missing, with no default')


def fail_lengths_p_logit() -> NoReturn:
    """val.prob's (and val.prob.ci.2's) refusal of ``p`` (or ``logit``) and ``y`` of different lengths."""
    fail("lengths of p or logit and y do not agree")


def fail_length_of_y(arg) -> NoReturn:
    """``weights`` or ``group`` of another length than ``y`` (R would recycle)."""
    fail(f"Argument `{arg}` must have the length of `y`.")


def fail_three_observations() -> NoReturn:
    """rms' ``lrm.fit`` with fewer than three observations."""
    fail("must have >=3 non-missing observations")


def warn_deleted_01(count):
    """val.prob's warning: rows with probabilities of 0 or 1 left out of the logistic calibration."""
    warn(f"{count} observations deleted from logistic calibration due to probs. of 0 or 1")


def warn_nans_produced():
    """R's warning of a function that returns NaN outside its domain (``sqrt`` of a negative)."""
    warn(NANS_PRODUCED)


def fail_approx_two_values() -> NoReturn:
    """R's ``approx`` with fewer than two values to interpolate."""
    fail(APPROX_TWO_VALUES)


def check_c_method(method):
    """``c_statistic(method=)``."""
    if method not in ("delong", "pepe"):
        fail('Argument `method` must be one of "delong", "pepe".')
    return method


def warn_three_roots():
    """CalibrationCurves' warning of three roots of the Newcombe interval (its text, its spaces)."""
    warn("There are three roots meet the requirement when computing\n                the confidence interval.")


def warn_bootstrap_c():
    """CalibrationCurves' bootstrap c-statistic methods, which it does not run; returns the text."""
    text = "Bootstrap-based methods are not supported by this package. Method will be set to 'pepe'. \n\n"
    warn(text)
    return text


def check_loess_degree(degree):
    """``degree=`` of a loess curve."""
    if degree not in (0, 1, 2):
        fail("Argument `degree` must be 0, 1 or 2.")
    return degree


def check_hierarchy_range(pv, allow):
    """val.prob.ci.2's checks of ``p``: in [0, 1] (in (0, 1) with ``allow_perfect_predictions =
    FALSE``), and not all 0 or 1 when 0 and 1 are allowed (nothing would be left to fit)."""
    with np.errstate(invalid="ignore"):
        if allow is False:
            if np.any((pv <= 0) | (pv >= 1)):
                fail("Probabilities can not be >= 1 or <= 0.")
        elif np.any((pv < 0) | (pv > 1)):
            fail("Probabilities can not be > 1 or < 0.")
    if allow is not False and pv.size and np.all(np.isin(pv[~np.isnan(pv)], (0.0, 1.0))):
        fail("All predicted values are equal to 0 or 1, implying that the underlying process is deterministic. "
             "Please check your model or the input.")


def warn_hierarchy_replaced():
    """val.prob.ci.2's warning when 0 and 1 are replaced by 1e-8 and 1 - 1e-8; returns the text."""
    text = ("There are predictions with value 0 or 1! These are replaced by values 1e-8 and 1 - 1e-8, respectively. "
            "Take this into account when interpreting the performance measures, as these are not calculated with "
            "the original values.\n\nPlease check your model, as this may be an indication of overfitting. "
            "Predictions of 0 or 1 imply that these predicted values are deterministic.\n\n"
            "We observe this in the following cases:\n - logistic regression: with quasi-complete separation, "
            "the coefficients tend to infinity;\n - tree-based methods: one of the leaf nodes contains only "
            "observations with either 0 or 1;\n - neural networks: the weights tend to infinity and this is known "
            "as weight/gradient explosion.")
    warn(text)
    return text


def fail_hierarchy_binary() -> NoReturn:
    """val.prob.ci.2's refusal of an outcome other than 0/1 (or of one class)."""
    fail("The vector with the binary outcome can only contain the values 0 and 1.")


def warn_hierarchy_missing():
    """val.prob.ci.2's warning when rows with missing values are removed; returns the text."""
    text = "There are observations with missing values. These are removed."
    warn(text)
    return text


def check_hierarchy_knots(nr_knots):
    """val.prob.ci.2's ``nr.knots``: a number from 3 to 5."""
    from .numerics.rformat import as_character

    if isinstance(nr_knots, bool) or not isinstance(nr_knots, (int, float, np.integer, np.floating)):
        fail("Nr.knots must be numeric.")
    if nr_knots > 5 or nr_knots < 3:
        fail(f"Number of knots = {as_character(float(nr_knots))}, only 3 <= nk <= 5 is allowed.")
    return nr_knots


def warn_over_5000():
    """val.prob.ci.2's warning before a loess curve of more than 5000 observations."""
    warn("Number of observations > 5000, RCS is recommended. Will perform a preliminary fit to see if any errors "
         "occur.")


def warn_loess_to_rcs():
    """val.prob.ci.2's warning when its loess curve fails and it turns to splines; returns the text."""
    text = ("Estimating the flexible calibration curve and its CI with loess resulted in errors. Smooth is set to "
            "RCS and the calibration curve is estimated using RCS.")
    warn(text)
    return text


def warn_large_data(n):
    """val.prob.ci.2's warning for more than 100 000 observations."""
    big = f"{n:,}".replace(",", " ")
    warn(f"Dataset contains {big} observations. Very large datasets (>100 000 rows) may cause integer overflow "
         "errors when using nonparametric methods (e.g., loess or restricted cubic splines). Consider using the "
         "logistic calibration framework instead, which is computationally more efficient and stable for large "
         "datasets. See the package vignette or documentation for guidance on logistic calibration methods.")


def fail_too_few_left(count) -> NoReturn:
    """No logistic calibration once the predictions of 0 or 1 are left out."""
    fail(f"After the {count} predictions of 0 or 1 are left out, the logistic calibration needs two distinct "
         "predictions and both outcomes among the rest (set allow_perfect_predictions=True to replace 0 and 1 by "
         "1e-8 and 1 - 1e-8, as R can).")


def fail_lrm_fit_singular() -> NoReturn:
    """rms' ``lrm.fit`` with a singular information matrix (val.prob.ci.2's short text)."""
    fail("singular information matrix in lrm.fit")


def warn_no_intercept():
    """val.prob.ci.2's warning when the calibration intercept's fit does not converge."""
    warn("The lrm function did not converge when computing the calibration intercept!")


def warn_fewer_knots(nk):
    """val.prob.ci.2's warning when a spline curve fails and one knot fewer is tried."""
    warn(f"The number of knots led to estimation problems, nk will be set to {nk}")


def fail_three_knots() -> NoReturn:
    """val.prob.ci.2's error when even three knots fail."""
    fail("Nk = 3 led to estimation problems.")


# --------------------------------------------------------------------------------------
# pmcalibration (calstats.clinical.pmcal, pmcal_smooth): R's texts. pmcalibration's
# message()s are given as warnings with R's text.


def fail_y_p_length() -> NoReturn:
    """pmcalibration's refusal of ``y`` and ``p`` of different lengths."""
    fail("y and p are not the same length")


def warn_rows_missing(count):
    """pmcalibration's message: rows with a missing value removed."""
    warn(f"{count} records with missing values were removed")


def warn_rows_01(count):
    """pmcalibration's warning: rows with ``p <= 0`` or ``p >= 1`` removed."""
    warn(f"{count} records with p <= 0 or p >= 1 were removed. This suggests a potential problem with the model fit. "
         "Excluding these observations (or replacing them with values close to 0 or 1) will affect results so "
         "interpret with caution!")


def check_p_pc_lengths(p, p_c):
    """``cal_metrics(p, p_c)``: R's ``stopifnot(length(p) == length(p_c))``."""
    if p.size != p_c.size:
        fail("length(p) == length(p_c) is not TRUE")


def warn_pc_missing():
    """pmcalibration's message when a calibration curve has missing or infinite values."""
    warn("some p_c's are missing or Inf")


def fail_sim_lowess() -> NoReturn:
    """pmcalibration's refusal of simulation intervals for lowess and loess curves."""
    fail("ci = 'sim' is not available for lowess or loess calibration curves (try ci = 'boot')")


def warn_rcs_default():
    """pmcalibration's message: an rcs curve without knots takes five."""
    warn("for smooth = 'rcs' either nk (number of knots) or knots must be provided. Defaulting to nk = 5. See "
         "?Hmisc::rcspline.eval")


def warn_spline_default():
    """pmcalibration's message: an ns or bs curve without df or knots takes df = 6."""
    warn("for smooth = ns or bs either df or knots must be provided. Defaulting to df = 6")


def warn_rank_deficient():
    """R's ``predict.lm`` warning for a rank-deficient fit."""
    warn("prediction from a rank-deficient fit may be misleading")


def fail_transf() -> NoReturn:
    """pmcalibration's refusal of an unknown ``transf``."""
    fail("invalid transf. Should be 'none', 'logit', 'cloglog' or a function")


def fail_eval_range() -> NoReturn:
    """pmcalibration's refusal of plotting points outside [0, 1]."""
    fail("When providing p for plotting directly via eval, all elements should be between 0 and 1")


def fail_unused_names(names) -> NoReturn:
    """R's ``unused argument(s)`` error naming the arguments (without their values)."""
    _fail_unused(sorted(names))


def check_pmcal_survival(ci, smooth, time):
    """pmcalibration's refusals for a time-to-event outcome, in R's order."""
    if ci == "sim":
        fail("Simulation based inference not available for time-to-event outcomes")
    if smooth in ("lowess", "loess"):
        fail("smooth = 'lowess' or 'loess' not available for time-to-event outcomes")
    if time is None:
        fail("time should be specified for a survival outcome")


def fail_pmcal_one_time() -> NoReturn:
    """pmcalibration's refusal of several horizons for a time-to-event outcome."""
    fail("if y is a Surv object a single time must be specified")


def warn_pw_eval():
    """pmcalibration's warning: pointwise intervals without plotting points."""
    warn("ci = 'pw' but eval = 0 or is.null. Will not calculate pointwise standard errors")


def warn_pw_lowess():
    """pmcalibration's warning: no pointwise intervals for lowess."""
    warn("ci = 'pw' is ignored for smooth = 'lowess'")


def warn_samples_na(metrics):
    """pmcalibration's warnings when the resampled metrics (or plotted curves) hold missing values."""
    what = "Metrics" if metrics else "Plot"
    warn(f"{what} samples contain NAs. This is probably due to a loess not extrapolating for to-be-plotted "
         "values...")


# --------------------------------------------------------------------------------------
# pmcalibration's logistic_cal (calstats.clinical.logcal), rms' lrm, validate and
# calibrate (calstats.clinical.rms_lrm, rms_validate), ResourceSelection's hoslem.test
# (calstats.clinical.hoslem), val_multinomial (calstats.clinical.multinomial)


def check_digits(digits):
    """R's ``format(digits =)`` check (``asInteger``, then 1..22); returns an int."""
    try:
        d = int(digits)
    except (TypeError, ValueError):
        d = None
    if d is None or isinstance(digits, bool) or not 1 <= d <= 22:
        fail(f"invalid value {digits} for 'digits' argument")
    return d


def warn_null_not_converged():
    """glm()'s warning when the intercept-only refit for the null deviance does not converge."""
    warn("fitting to calculate the null deviance did not converge -- increase 'maxit'?")


def fail_subscript() -> NoReturn:
    """R's ``x[i]`` out of bounds (logistic_cal's summary of a fit without a slope)."""
    fail("subscript out of bounds")


def fail_empty_mu() -> NoReturn:
    """R's ``binomial()$linkfun`` (or ``glm``) of an empty vector: no row left to fit."""
    fail("Argument mu must be a nonempty numeric vector")


def fail_not_a_column(what, name) -> NoReturn:
    """A column name that ``data`` does not have."""
    fail(f"The {what} `{name}` is not a column of `data`.")


def warn_lrm_weights():
    """rms' warning for a weighted lrm fit."""
    warn("currently weights are ignored in model validation and bootstrapping lrm fits")


def warn_lrm_unable():
    """rms' warning when lrm.fit fails."""
    warn("Unable to fit model using \u201clrm.fit\u201d")


def check_seed_or_none(seed):
    """``seed=`` of validate and calibrate: None or a single number."""
    if seed is not None and scalar_number(seed) is None:
        fail("Argument `seed` must be a single number or `None`.")
    return seed


def fail_bw_needs_lrm() -> NoReturn:
    """``bw=True`` (rms' fastbw) for a model that is not an lrm fit."""
    fail("Argument `bw` (backward step-down) needs an lrm fit.")


def warn_resamples_failed(failed, last_error=None):
    """The resamples in which the model could not be refitted (rms' words without an error to name)."""
    if last_error is not None:
        warn(f"The model could not be fitted in {failed} resamples (last error: {last_error}).")
    else:
        warn(f"Divergence or singularity in {failed} samples")


def fail_lengths_differ(name) -> NoReturn:
    """R's ``model.frame`` error for variables of different lengths."""
    fail(f"variable lengths differ (found for '{name}')")


def fail_na_rm() -> NoReturn:
    """R's refusal of missing values without ``na.rm = TRUE``."""
    fail("missing values and NaN's not allowed if 'na.rm' is FALSE")


def fail_intervals() -> NoReturn:
    """R's ``cut()`` with fewer than two distinct breaks."""
    fail("invalid number of intervals")


def check_spline_df(df):
    """val_multinomial's ``df``: a whole number of at least 1; returns an int."""
    if not (isinstance(df, (int, np.integer)) and not isinstance(df, bool) and df >= 1):
        fail("Argument `df` must be a single whole number of at least 1.")
    return int(df)


def fail_reference_class(k) -> NoReturn:
    """val_multinomial's ``ref``: a class number or a column name."""
    fail(f"Argument `ref` must be a class number from 1 to {k} or a column name of `p`.")


def fail_open_probabilities() -> NoReturn:
    """Probabilities of 0 where log ratios are taken."""
    fail("Argument `p` must contain probabilities greater than 0 (log(p_k / p_ref) must be finite).")


def fail_class_absent(name) -> NoReturn:
    """A class without observations."""
    fail(f"Every class must occur in `y`; class `{name}` does not.")


# --------------------------------------------------------------------------------------
# spline calibration (calstats.calibrators.spline)


def fail_spline_knots(basis) -> NoReturn:
    """``knots=`` that is neither a count nor positions the basis can take."""
    if basis == "rcs":
        fail("Argument `knots` must be a single whole number of at least 3 or a vector of at least 3 distinct "
             "finite knot positions.")
    fail("Argument `knots` must be a single whole number of at least 3 or a vector of finite knot positions inside "
         "the range of the transformed scores.")


def refuse_gam_knots():
    """Knot positions for the penalised basis."""
    fail("Knot positions apply to the \"rcs\" and \"ns\" bases; the \"gam\" basis takes its dimension from `df`.")


def fail_spline_df() -> NoReturn:
    """``df=`` that is not a whole number of at least 2."""
    fail("Argument `df` must be `None` or a single whole number of at least 2.")


def refuse_penalty(basis):
    """``penalty=`` for an unpenalised basis."""
    if basis != "gam":
        fail("Argument `penalty` applies to the penalised spline (`basis = \"gam\"`) only.")


def refuse_monotone_gam(monotone, basis):
    """``monotone=True`` for the penalised basis."""
    if monotone and basis == "gam":
        fail("`monotone = True` is available for the \"rcs\" and \"ns\" bases only.")


def refuse_monotone_se():
    """Standard errors of a monotone spline fit."""
    fail("`se_fit` and `interval` are not available for a monotone fit: the constrained estimate has no Wald "
         "covariance.")


def fail_monotone_fit(reason) -> NoReturn:
    """A monotone spline fit that did not converge (SciPy's reason)."""
    fail(f"The monotone fit did not converge: {reason}.")


def fail_spline_distinct(basis, m, need) -> NoReturn:
    """Too few distinct scores for the spline's knots."""
    fail(f"Too few distinct values of `p` for the {basis} with these knots: {m} distinct value{'' if m == 1 else 's'}, "
         f"at least {need} needed.")


def fail_spline_rank(basis, rank, p) -> NoReturn:
    """A spline design of deficient rank."""
    fail(f"Too few distinct values of `p` for the {basis} with these knots: the spline's columns are collinear "
         f"(rank {rank} of {p}).")


def fail_spline_table(what) -> NoReturn:
    """A spline fit without a coefficient table."""
    fail(f"A `cal_spline` fit with {what} has no coefficient table.")


def fail_vector_or_matrix(arg) -> NoReturn:
    """Neither a probability vector nor a class matrix."""
    fail(f"Argument `{arg}` must be a probability vector or a matrix with one column per class.")


def warn_not_monotone(parts):
    """A spline calibration map that decreases (``parts``: where)."""
    warn("The spline calibration map is not monotone: it decreases " + " and ".join(parts) + ".")


# --------------------------------------------------------------------------------------
# the calibrators (calstats.calibrators)


def fail_not_class_matrix(arg) -> NoReturn:
    """Not a numeric matrix of class columns."""
    fail(f"Argument `{arg}` must be a numeric matrix with one column per class.")


def fail_not_label_matrix(arg) -> NoReturn:
    """Not a numeric matrix of label columns (multilabel)."""
    fail(f"Argument `{arg}` must be a numeric matrix with one column per label.")


def check_optimizer(optimizer, optimizers):
    """``optimizer=`` of the multinomial calibrators (not an R argument); returns it in lower case."""
    if not isinstance(optimizer, str) or optimizer.lower() not in optimizers:
        fail(f"Argument `optimizer` must be one of {', '.join(map(repr, optimizers))}, not {optimizer!r}.")
    return optimizer.lower()


def refuse_dask_se():
    """Standard errors for a Dask ``newdata``."""
    fail("`se_fit` and `interval` need the rows of `newdata` in memory: call .compute() on the Dask input first.")


def fail_no_training_data() -> NoReturn:
    """Standard errors of a fit that kept no training data."""
    fail("This fit does not hold its training data (a fit on Dask inputs), which the standard errors of `se_fit` "
         "and `interval` need.")


def check_parameter_count(count, k, maximum):
    """A covariance of at most ``maximum`` parameters."""
    if count > maximum:
        fail(f"`se_fit` and `interval` need the {count} x {count} covariance of the parameters of this {k}-class "
             f"fit; more than {maximum} parameters are refused.")


def warn_singular_information():
    """A fit whose observed information cannot be inverted: NaN standard errors."""
    warn("The observed information of this fit is singular or not positive definite: the standard errors are NaN.")


def fail_not_dirichlet() -> NoReturn:
    """Canonical parameters of a map that has none."""
    fail("Canonical parameters are defined only for Dirichlet and matrix-scaling maps.")


def warn_top_label_unchanged(levels, statuses):
    """Top-label calibration that left some classes unchanged."""
    warn(f"Top-label calibration left {', '.join(levels)} unchanged ({', '.join(statuses)}).")


def fail_r_missing_not_allowed() -> NoReturn:
    """R's ``order()`` of a missing value (``na.last = NA`` not given)."""
    fail("missing values not allowed")


def refuse_weighted_quantiles(strategy):
    """Case weights with quantile bins."""
    if strategy == "equal_freq":
        fail('Case weights are supported with strategy = "equal_width" only: weighted quantile breaks have no '
             'single definition that equals replicated rows.')


def fail_r_nonfinite_x() -> NoReturn:
    """R's ``glm.fit`` (its QR) given a non-finite design."""
    fail("NA/NaN/Inf in 'x'")


def fail_r_length_zero() -> NoReturn:
    """R's ``if`` on a value of length zero (a binary fit given a matrix)."""
    fail("argument is of length zero")


def fail_matrix_method(method) -> NoReturn:
    """A multiclass method given a vector."""
    fail(f'Method "{method}" requires a matrix `x` with one column per class.')


def fail_vector_method(method) -> NoReturn:
    """A binary method given a matrix."""
    fail(f'Method "{method}" expects a vector `x`. Use "ovr" for multiclass binning.')


def fail_not_finite_matrix(arg) -> NoReturn:
    """Not a finite numeric matrix."""
    fail(f"Argument `{arg}` must be a finite numeric matrix.")


def fail_method_probabilities(arg, method) -> NoReturn:
    """Scores outside [0, 1] for a method that takes probabilities."""
    fail(f'Argument `{arg}` must contain probabilities in `[0, 1]` for "{method}".')


def fail_one_class_weighting() -> NoReturn:
    """Class weighting given none or several of its parameterisations."""
    fail("Supply exactly one of `beta`, `weights`, `delta`.")


def fail_delta() -> NoReturn:
    """``delta=`` that is not one positive number."""
    fail("Argument `delta` must be a single positive number.")


def fail_class_weights() -> NoReturn:
    """``weights=`` of class weighting that are not one positive weight per class."""
    fail("Argument `weights` must be a vector of positive finite weights, one per class.")


def fail_beta() -> NoReturn:
    """``beta=`` that is not a square matrix of positive weights, one row and column per class."""
    fail("Argument `beta` must be a square matrix of positive finite weights, one row and column per class.")


def fail_shape_mismatch(name, arg) -> NoReturn:
    """A parameter whose shape does not match its input's."""
    fail(f"Argument `{name}` does not match the shape of `{arg}`.")


def warn_power_iteration():
    """A power iteration that did not converge."""
    warn("Power iteration did not converge in 10000 iterations.")


def warn_not_loss_calibrated(count):
    """Score vectors without a loss-calibrated solution under the weights."""
    warn(f"{count} score vector(s) are not loss-calibrated under the given weights (spectral radius differs from 1); "
         "returning the nearest Perron solution.")


def check_grid(grid, minimum=16):
    """A grid size: a whole number of at least ``minimum``; returns an int."""
    g = scalar_number(grid)
    if g is None or not math.isfinite(g) or g != math.floor(g) or g < minimum:
        fail(f"Argument `grid` must be a single integer of at least {minimum}.")
    return int(g)


def fail_negative(arg) -> NoReturn:
    """Negative values where they cannot be."""
    fail(f"Argument `{arg}` must be non-negative.")


def warn_theta_zero():
    """An evidential calibration whose maximum-likelihood theta is 0."""
    warn("The maximum-likelihood theta is 0: the scores do not rank the labels better than chance.")


def fail_separation() -> NoReturn:
    """Scores that separate the classes: an infinite maximum-likelihood theta."""
    fail("The scores separate the classes perfectly: the maximum-likelihood theta is infinite. Use "
         "`targets = \"smoothed\"`.")


def fail_constant_scores() -> NoReturn:
    """Scores constant within every row."""
    fail("Argument `scores` must vary within at least one row.")


def fail_nothing_to_combine(what) -> NoReturn:
    """A combination of nothing."""
    fail(f"Supply at least one {what} to combine.")


def fail_combine_mismatch(what, how) -> NoReturn:
    """Inputs to combine that do not agree."""
    fail(f"The {what} to combine must have {how}.")


def fail_negative_values(arg) -> NoReturn:
    """An argument with negative values."""
    fail(f"Argument `{arg}` must contain non-negative values.")


def fail_newdata_needed() -> NoReturn:
    """Fitted calibrators combined without their new data."""
    fail("Argument `newdata` is required when combining fitted calibrators.")


def fail_newdata_per_source() -> NoReturn:
    """New data that does not give one input per source."""
    fail("Argument `newdata` must hold one input per source.")


def check_priors(vec, k, arg, tol):
    """Class priors (``vec`` the classified input, a :data:`Vec`): a numeric vector, one per
    class, positive and finite, summing to 1 within ``tol``; returns ``(values, sum)``."""
    if vec.kind != "numeric" or np.ndim(vec.values) != 1:
        fail(f"Argument `{arg}` must be a numeric vector of class priors.")
    vals = np.asarray(vec.values, dtype=np.float64)
    if vals.size != k:
        fail(f"Argument `{arg}` must have one prior per class ({k}).")
    if np.asarray(vec.na).any() or not np.isfinite(vals).all() or (vals <= 0).any():
        fail(f"Argument `{arg}` must contain positive finite priors.")
    total = math.fsum(vals.tolist())
    if abs(total - 1.0) > tol:
        fail(f"Argument `{arg}` must sum to `1`.")
    return vals, total


def fail_train_priors() -> NoReturn:
    """Prior shift without the training priors."""
    fail("Argument `train_priors` is required: give the class priors of the training data.")


def fail_no_replicates() -> NoReturn:
    """An interval of priors estimated without bootstrap replicates."""
    fail("No bootstrap replicates: call `estimate_priors()` with `n_boot`.")


def warn_em_not_converged(maxit, change):
    """The EM algorithm of prior estimation stopped at ``maxit``."""
    warn(f"The EM algorithm did not converge in {maxit} iterations (largest change of a prior {change:.3g}); "
         "increase `maxit` or `tol`.")


def warn_replicates_not_converged(failed, n_boot, maxit):
    """Bootstrap replicates of prior estimation that did not converge."""
    warn(f"{failed} of {n_boot} bootstrap replicates did not converge in {maxit} iterations.")


def warn_total_conflict(count):
    """Rows whose combined plausibility is undefined (total conflict)."""
    warn(f"Total conflict in {count} row(s): the combined plausibility is undefined.")


# --------------------------------------------------------------------------------------
# measures and tests (calstats.evaluation), kernels, Dask inputs (calstats.dask),
# results, scikit-learn displays


def fail_two_observations(arg="p") -> NoReturn:
    """A test or measure of fewer than two observations."""
    fail(f"Argument `{arg}` must contain at least two observations.")


def fail_estimator_two_observations(estimator) -> NoReturn:
    """An SKCE estimator of fewer than two observations."""
    fail(f'At least two observations are needed for estimator "{estimator}".')


def fail_level_of_y(arg="cls") -> NoReturn:
    """A class that is not a level of the outcome."""
    fail(f"Argument `{arg}` must be one of the levels of `y`.")


def fail_spiegelhalter_variance() -> NoReturn:
    """Spiegelhalter's test with a zero variance."""
    fail("The Spiegelhalter variance is zero: every score is 0, 1/2 or 1.")


def fail_sigma_zero() -> NoReturn:
    """The cumulative-difference tests with scores all 0 or 1."""
    fail("All scores are 0 or 1: the scale sigma is zero and the test is undefined.")


def check_bandwidth(bandwidth, median=True):
    """A kernel bandwidth: a single positive finite number, or (``median``) exactly
    ``"median"``; returns the float or ``"median"``."""
    if median and isinstance(bandwidth, str) and bandwidth == "median":
        return "median"
    h = None if isinstance(bandwidth, str) else scalar_number(bandwidth)
    if h is None or not math.isfinite(h) or h <= 0:
        if median:
            fail('Argument `bandwidth` must be a single positive number or "median".')
        fail("Argument `bandwidth` must be a single positive number.")
    return h


def check_median_bandwidth(value):
    """The median heuristic's bandwidth: defined (two observations) and positive."""
    if math.isnan(value):
        fail("The median heuristic needs at least two observations; supply a positive `bandwidth`.")
    if value == 0:
        fail("The median heuristic gives a zero bandwidth; supply a positive `bandwidth`.")
    return value


def refuse_weighted_median_bandwidth():
    """Case weights with the median heuristic."""
    fail("Case weights need a numeric `bandwidth`: the median heuristic is over unweighted pairs.")


def refuse_classwise_test():
    """A calibration test of the classwise average."""
    fail('The classwise average has no calibration test; use type = "confidence" or type = "canonical".')


def check_asymptotic_rows(n):
    """The asymptotic SKCE test needs four observations."""
    if n < 4:
        fail("At least four observations are needed for the asymptotic test.")


def fail_zero_variance_pairs() -> NoReturn:
    """The asymptotic SKCE test with pairwise terms of zero variance."""
    fail("The pairwise terms have zero variance; the asymptotic test is undefined.")


def fail_methods_element() -> NoReturn:
    """``methods=`` with an element that is neither a name nor a pair."""
    fail("Each element of `methods` must be a method name or a (name, function) pair.")


def fail_methods_names() -> NoReturn:
    """``methods=`` with repeated names or the reserved ``"uncalibrated"``."""
    fail("Method names in `methods` must be distinct and not \"uncalibrated\".")


def fail_binning_dict(keys) -> NoReturn:
    """``binning=`` that is not a dict of ece's binning arguments."""
    fail("Argument `binning` must be a dict of ece's binning arguments: " + ", ".join(f"`{k}`" for k in keys) + ".")


def warn_replicates_nan(count):
    """Bootstrap replicates that are NaN, dropped."""
    warn(f"{count} bootstrap replicates are NaN and were dropped.")


def fail_few_replicates() -> NoReturn:
    """Fewer than two bootstrap replicates."""
    fail("Fewer than two bootstrap replicates are available; no interval can be computed.")


def fail_label_matrix_empty(arg) -> NoReturn:
    """A multilabel score matrix that is empty or not a matrix."""
    fail(f"Argument `{arg}` must be a non-empty matrix with one column per label.")


def warn_max_empty():
    """R's ``max()`` of nothing (-Inf, with its warning)."""
    warn(MAX_EMPTY)


def fail_temperature() -> NoReturn:
    """A fitted temperature that is not positive and finite (unreachable, as in R)."""
    fail("The fitted temperature must be positive and finite.")


def fail_no_coef_table(r_class, likelihood_parameters=True) -> NoReturn:
    """A fit without a coefficient table."""
    if likelihood_parameters:
        fail(f"No coefficient table for a `{r_class}` fit (it has no likelihood parameters).")
    fail(f"A `{r_class}` fit has no coefficient table (it is not a likelihood fit).")


def fail_training_data_needed() -> NoReturn:
    """``coef_table()`` of a fit that kept no training data, without it."""
    fail("This fit does not hold its training data: pass the training `x` and `y` to coef_table().")


def fail_nobs(a, b) -> NoReturn:
    """A matrix and its labels of different numbers of observations."""
    fail(f"Arguments `{a}` and `{b}` must have the same number of observations.")


def fail_codes_exceed(arg="y") -> NoReturn:
    """Class codes above the number of classes."""
    fail(f"Class codes in `{arg}` must not exceed the number of classes.")


def fail_vector_or_matrix_input(arg="p") -> NoReturn:
    """An array of more than two dimensions."""
    fail(f"Argument `{arg}` must be a probability vector or a matrix.")


def fail_dask_partitions() -> NoReturn:
    """Dask inputs whose partitions do not align."""
    fail("Dask inputs `p` and `y` must have the same partitions (take both from one DataFrame, or repartition them "
         "alike).")


def refuse_dask_mapie(why=""):
    """MAPIE's convention on Dask inputs (``why``: a parenthesis saying why)."""
    fail(f'convention = "mapie" is not available for Dask inputs{why}; use the calstats convention.')


def fail_dask_top_label_bins() -> NoReturn:
    """The top-label ECE of Dask inputs with bins that are not fixed."""
    fail("The top-label ECE of Dask inputs takes bins with fixed edges (a number of equal-width bins or `breaks`): "
         "its bins are cut per predicted class.")


def refuse_dask_estimator(estimator, bandwidth):
    """SKCE estimators and bandwidths that need every pair of rows, on Dask inputs."""
    if estimator != "ul":
        fail(f'estimator = "{estimator}" needs every pair of rows; for Dask inputs use estimator = "ul" '
             "(linear time).")
    if bandwidth == "median":
        fail("The median heuristic needs every pair of rows; for Dask inputs supply a positive `bandwidth`.")


def refuse_dask_cal_ci():
    """``cal_ci`` of Dask inputs."""
    fail("cal_ci resamples the rows and needs them in memory; compute it on a sample, or use the calibration tests, "
         "which take Dask inputs.")


def refuse_dask_debiased():
    """The debiased ECE of Dask inputs."""
    fail("The debiased ECE is not available for Dask inputs yet; compute it in memory.")


def refuse_dask_mmce():
    """The MMCE of Dask inputs."""
    fail('mmce needs every pair of rows (it sorts them); for Dask inputs use skce(p, y, estimator = "ul"), its '
         "linear-time estimator.")


def refuse_dask_cal_test():
    """The SKCE test of Dask inputs."""
    fail("cal_test resamples every pair of rows and needs them in memory; for Dask inputs use cal_spiegelhalter_test, "
         "cal_ks_test or cal_kuiper_test.")


def refuse_dask_corp():
    """CORP reliability diagrams of Dask inputs."""
    fail("CORP reliability diagrams are not available for Dask inputs: PAV pools across the whole sample in one "
         "sorted order; compute them in memory.")


def refuse_dask_cumulative():
    """The cumulative differences of Dask inputs."""
    fail("cumulative_differences returns one value per row, so it needs the rows in memory; for Dask inputs use "
         "cal_ks_test or cal_kuiper_test, which reduce the same path on Dask.")


def refuse_dask_length_scale():
    """The length scale of Dask inputs."""
    fail("length_scale is not available for Dask inputs; compute it in memory, or read sigma from "
         "cal_ks_test(p, y).estimate, which is computed on Dask.")


def refuse_dask_smooth_ece():
    """The smooth ECE of Dask inputs."""
    fail("The smooth ECE searches its bandwidth with a pass over every row per step, on grids that depend on the "
         "bandwidth; compute the Dask inputs into memory first.")


def fail_display_labels_vector() -> NoReturn:
    """A display's labels that are not a vector for a probability vector."""
    fail("Argument `y_true` must be a vector of labels for a vector `y_prob`.")


def fail_display_pos_label(classes=None) -> NoReturn:
    """A display's positive label: needed for labels other than 0/1, -1/1 or booleans, and one of
    the estimator's ``classes``."""
    if classes is None:
        fail("Argument `pos_label` must be given when the labels are not 0/1, -1/1 or boolean.")
    fail(f"Argument `pos_label` must be one of the estimator's classes {classes}.")


def fail_display_classes(ncol, count) -> NoReturn:
    """A display's class names that do not name every column."""
    fail(f"Argument `classes` must name the {ncol} columns of `y_prob` (got {count} labels).")


def fail_display_unknown_labels(unknown) -> NoReturn:
    """A display's labels that are not among its classes."""
    fail(f"Argument `y_true` holds labels that are not among `classes`: {unknown}.")


# --------------------------------------------------------------------------------------
# the formula interface (calstats.formula)


def fail_formula_data() -> NoReturn:
    """``data=`` that is not a DataFrame or a dict of columns."""
    fail("Argument `data` must be a pandas DataFrame (or a dict of columns).")


def fail_formula_type() -> NoReturn:
    """``formula=`` that is not a string."""
    fail("Argument `formula` must be a string such as \"y ~ p1 + p2\".")


def fail_formula_parse(formula, exc) -> NoReturn:
    """A formula that cannot be parsed."""
    fail(f"Cannot parse the formula {formula!r}: {exc}")


def fail_formula_lhs(formula) -> NoReturn:
    """A left-hand side that is not one label column."""
    fail(f"The left-hand side of {formula!r} must be a single label column.")


def fail_formula_interaction(term) -> NoReturn:
    """An interaction among the score columns."""
    fail(f"Interaction terms ({term}) are not allowed: the right-hand side lists score columns.")


def fail_formula_no_scores(formula) -> NoReturn:
    """A formula without score columns."""
    fail(f"The right-hand side of {formula!r} names no score columns.")


def fail_formula_column(column, formula) -> NoReturn:
    """A column of the formula that ``data`` does not have."""
    fail(f"Column `{column}` of the formula {formula!r} is not in `data`.")


def fail_formula_duplicate(column) -> NoReturn:
    """A column name that ``data`` has twice."""
    fail(f"Column name `{column}` is not unique in `data`.")


def fail_formula_term(expr, formula, exc) -> NoReturn:
    """A term of the formula that cannot be evaluated."""
    fail(f"Cannot evaluate `{expr}` of the formula {formula!r}: {exc}")


def fail_formula_term_columns(expr, formula, count) -> NoReturn:
    """A term that gives more than one column."""
    fail(f"Term `{expr}` of the formula {formula!r} must give one numeric column (it gives {count}).")


def fail_formula_numeric(expr, formula, dtype) -> NoReturn:
    """A score column that is not numeric."""
    fail(f"Column `{expr}` of the formula {formula!r} must be numeric (it has dtype {dtype}).")


def fail_formula_classes(k, columns, label, levels_text=None, max_code=None) -> NoReturn:
    """A label whose classes do not match the score columns (its levels, or its class codes)."""
    has = f"class codes up to {max_code}" if max_code is not None else levels_text
    fail(f"The formula has {k} score columns ({columns}) but the label `{label}` has {has}.")


def fail_formula_binary_levels(label, count, levels) -> NoReturn:
    """A binary formula whose label has another number of levels than two."""
    fail(f"A formula with one score column is binary, but the label `{label}` has {count} levels ({levels}).")


def fail_formula_label_missing(label) -> NoReturn:
    """A label with missing values."""
    fail(f"The label `{label}` must not contain missing values.")


def refuse_formula_positive(label=None, levels=None, positive=None):
    """``positive=`` for a 0/1 label (``levels`` None), or not one of its ``levels``, or for a
    multiclass formula (``label`` None)."""
    if label is None:
        fail("`positive` applies to binary formulas (one score column).")
    if levels is None:
        fail(f"`positive` names a level of a label with two levels; the label `{label}` is already 0/1.")
    fail(f"`positive` must be one of the levels of `{label}` ({levels}), not {positive!r}.")


def warn_formula_positive(column, carried, label, positive):
    """A score column named for one level of the label, read for the other (``positive=``)."""
    warn(f"The score column `{column}` names level {carried!r} of `{label}`, but positive={positive!r} makes "
         f"{positive!r} the positive class: the scores are read as P({label} = {positive!r}).")


def warn_formula_second_level(label, levels, positive, column, first):
    """A binary label of two levels without ``positive=``: the second level is the event."""
    warn(f"The label `{label}` has levels {levels}; {positive!r} (the second, as R's glm codes a factor) is the "
         f"positive class, so `{column}` is read as P({label} = {positive!r}). Pass positive='{first}' if the "
         f"scores are for {first!r}.")


def fail_formula_no_label(formula) -> NoReturn:
    """A formula without a label."""
    fail(f"The formula {formula!r} has no label: write it as \"label ~ scores\".")


def fail_formula_one_column(what) -> NoReturn:
    """A function of one probability column given several."""
    fail(f"{what} takes one probability column (\"y ~ p\").")


def refuse_formula_survival(what):
    """A binary-outcome function given ``Surv(time, status)``."""
    fail(f"{what} takes a binary outcome, not Surv(time, status).")


def fail_formula_needs_survival(what) -> NoReturn:
    """A time-to-event function given another outcome."""
    fail(f"{what} takes a time-to-event outcome: write the formula as \"Surv(time, status) ~ risk\" or "
         "\"Event(time, event) ~ risk\".")


def fail_formula_cuminc() -> NoReturn:
    """cuminc's formula with groups."""
    fail("cuminc takes \"Event(time, event) ~ 1\" (groups are not ported).")


def fail_formula_multinomial() -> NoReturn:
    """val_multinomial's formula with fewer than three columns."""
    fail("val_multinomial takes three or more probability columns (\"y ~ p_a + p_b + p_c\").")


def check_dataset_model(model, models):
    """The model of a bundled data set (a ``ValueError``, as before: :class:`CalstatsError` is one)."""
    if model not in models:
        fail(f"model must be one of {', '.join(map(repr, models))}, not {model!r}")
    return model


def fail_model_fit(exc):
    """A model given as an estimator or a callable that cannot be fitted to the data (its own
    error, first line)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    fail(f"The model could not be fitted to `X` and `y` ({type(exc).__name__}: {first}).")

"""What every check shares: R's classification of a vector (``as_vec``, ``Vec``), the messages
several checks give (probcal's texts), and the one-pass proofs that let valid NumPy input skip
R's check ladder.
"""

import math
from collections import namedtuple
from typing import NoReturn

import numpy as np
import pandas as pd

from .._errors import fail
from .._factor import Factor
from .._frames import native
from .._frames import ndim as frame_ndim
from .._messages import NA_CONDITION

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


def fail_negative(arg) -> NoReturn:
    """Negative values where they cannot be."""
    fail(f"Argument `{arg}` must be non-negative.")


def fail_no_attribute(module, name) -> NoReturn:
    """A lazily loading package's ``__getattr__`` (``calstats``, ``calstats.clinical``,
    ``calstats.formula``, ``calstats.formula.api``) asked for a name it does not have: an
    ``AttributeError`` in Python's own words, as ``hasattr`` and ``from ... import`` expect."""
    raise AttributeError(f"module {module!r} has no attribute {name!r}") from None

"""A time-to-event outcome (read by :mod:`calstats._surv`): forms, times, statuses, causes,
horizons.
"""

import math
from typing import NoReturn

import numpy as np

from .._errors import fail
from .core import (
    INT_MAX,
    _msg_arg,
    _vector_values,
    as_vec,
    fail_empty,
    fail_missing,
    fail_not_finite,
    fail_not_numeric_vector,
)
from .vectors import check_numeric, check_same_length

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

"""Values already read as floats (the clinical functions): finite numbers, counts, ranges,
grids.
"""

import math
from typing import NoReturn

import numpy as np

from .._errors import fail, warn
from .core import _vector_values, as_vec, fail_empty, fail_missing, fail_not_binary, fail_not_probabilities
from .vectors import check_numeric, check_prob, scalar_number

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
    from ..numerics.rformat import as_character

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

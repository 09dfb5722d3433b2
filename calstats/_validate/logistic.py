"""Logistic models: rms' ``lrm``, ``validate`` and ``calibrate``; pmcalibration's
``logistic_cal``; ResourceSelection's ``hoslem.test``.
"""

import math
from typing import NoReturn

import numpy as np
import pandas as pd

from .._errors import fail, warn
from .._messages import FOREIGN_NONFINITE, PREDAB_INTERCEPTS
from .core import _msg_arg, fail_empty, fail_one_class_only, fail_quoting_r
from .numbers import _fail_no_evaluation_time
from .valprob import fail_three_observations
from .vectors import check_binary_y, check_bins, check_numeric, check_same_length, scalar_number

# --------------------------------------------------------------------------------------
# rms lrm, validate and calibrate


def check_lrm_data(data):
    """``lrm(data=)``: a DataFrame or a mapping of columns."""
    if not isinstance(data, (pd.DataFrame, dict)) and not hasattr(data, "keys"):
        fail("Argument `data` must be a DataFrame (or a dict of columns).")
    return data


def check_lrm_level_weights(codes, w, levels, arg="weights"):
    """``lrm(weights=)``: every outcome level needs a positive total weight (R's fitter
    stops on the zero-weight level with a foreign-call error that names nothing)."""
    totals = np.bincount(np.asarray(codes, dtype=np.int64), weights=w, minlength=len(levels))
    for level, total in zip(levels, totals):
        if not total > 0:
            fail_quoting_r(f"Argument `{arg}` gives the outcome level {level} a total weight of 0: lrm needs a "
                           "positive weight in every level", "rms::lrm", FOREIGN_NONFINITE.format(arg=1))


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

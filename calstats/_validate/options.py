"""Choices and unused arguments: R's ``match.arg`` (with the nearest valid value suggested),
option values, refusals of arguments a method does not take.
"""

import math
from typing import NoReturn

import numpy as np
import pandas as pd

from .._errors import CalstatsError, fail
from .core import as_vec, fail_missing
from .matrices import check_multiclass_y, check_nobs
from .vectors import (
    _number_text,
    check_binary_y,
    check_bins,
    check_interval,
    check_prob,
    check_same_length,
    scalar_number,
)

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
    from ..numerics.rformat import as_character

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

"""Decision curves (:mod:`calstats.clinical.decision`: dcurves' ``dca``,
``net_intervention_avoided``, ``test_consequences``); dcurves' own texts where it has one.
"""

import math
from typing import NoReturn

from .._errors import fail
from .numbers import check_finite_number
from .vectors import check_numeric, scalar_number

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
    return check_finite_number(time, "time")


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


def fail_dca_unknown_model(arg, name) -> NoReturn:
    """``harm=``, ``label=`` or ``as_probability=`` naming a model that is not in ``p``."""
    fail(f"Argument `{arg}` names a model that is not in `p`: {name}.")


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


def fail_as_probability_type() -> NoReturn:
    """``as_probability=`` that is not a name or a list of names."""
    fail("Argument `as_probability` must be a model name or a list of model names.")


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

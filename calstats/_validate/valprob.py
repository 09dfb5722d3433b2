"""rms' ``val.prob`` (:mod:`calstats.clinical.valprob`) and CalibrationCurves'
``val.prob.ci.2``.
"""

from typing import NoReturn

import numpy as np

from .._errors import fail, warn
from .._messages import APPROX_TWO_VALUES, ARGUMENT_NUMERIC, FOREIGN_NONFINITE, NANS_PRODUCED
from .core import fail_one_class, fail_quoting_r

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
    from ..numerics.rformat import as_character

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

"""Measures and tests (:mod:`calstats.evaluation`), kernels, Dask inputs
(:mod:`calstats.dask`), results, scikit-learn displays.
"""

import math
from typing import NoReturn

from .._errors import fail, warn
from .._messages import MAX_EMPTY
from .vectors import scalar_number

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


def fail_classwise_axes(k, got) -> NoReturn:
    """A classwise diagram drawn on fewer Matplotlib axes (``got``) than it has classes (``k``): a ``ValueError``."""
    raise ValueError(f"the classwise diagram needs {k} axes, got {got}") from None


def fail_cumulative_copy() -> NoReturn:
    """``np.asarray(result, dtype=..., copy=False)`` of cumulative differences in another dtype:
    the ``ValueError`` NumPy's array protocol asks for."""
    raise ValueError("Converting the cumulative differences to another dtype needs a copy.") from None


def fail_on_dask_arguments() -> NoReturn:
    """``calstats.dask.on_dask`` given other than exactly one of ``impl``, ``refuse``, ``rows``
    (a ``TypeError``, as a call with the wrong arguments)."""
    raise TypeError("on_dask: give exactly one of impl, refuse, rows") from None

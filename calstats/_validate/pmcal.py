"""pmcalibration (:mod:`calstats.clinical.pmcal`, ``pmcal_smooth``): R's texts;
pmcalibration's ``message()``s are given as warnings with R's text.
"""

from typing import NoReturn

from .._errors import fail, warn
from .options import _fail_unused

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

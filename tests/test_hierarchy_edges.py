"""val_prob_ci's refusals where nothing is left to fit (calstats' default keeps predictions
of 0 or 1 out of the logistic fits, so it must also say when none are left)."""

import warnings

import numpy as np
import pytest

from calstats import CalstatsError, CalstatsWarning
from calstats.clinical import val_prob_ci


@pytest.mark.parametrize("p", [np.zeros(10), np.r_[np.zeros(5), np.ones(5)], np.ones(10)])
def test_all_predictions_zero_or_one_are_refused_as_r_does(p):
    # R's val.prob.ci.2 stops with this message (allowPerfectPredictions = TRUE) or an earlier one
    with pytest.raises(CalstatsError, match="All predicted values are equal to 0 or 1"):
        val_prob_ci(p, [0, 1] * 5)


def test_one_prediction_left_after_the_zeros_and_ones_is_refused():
    with pytest.raises(CalstatsError, match=r"After the 9 predictions of 0 or 1 are left out"):
        val_prob_ci(np.r_[np.zeros(9), 0.5], [0, 1] * 5)


def test_allow_perfect_predictions_false_refuses_any_zero_or_one():
    with pytest.raises(CalstatsError, match=r"Probabilities can not be >= 1 or <= 0\."):
        val_prob_ci(np.r_[0.0, np.linspace(0.1, 0.9, 9)], [0, 1] * 5, allow_perfect_predictions=False)


def test_separated_data_give_r_numbers_with_nan_limits():
    """R's lrm.fit leaves a negative variance on separated data; val.prob.ci.2 goes on with
    sqrt's NaN (and R's 'NaNs produced'). It was a raw 'math domain error'."""
    p = np.array([9.97740609e-01, 2.70262175e-04, 3.96751849e-01, 9.39125883e-01, 5.78628676e-01,
                  3.19106727e-01, 8.57697579e-01, 1.30271170e-01])
    y = np.array([1, 0, 1, 1, 1, 0, 1, 0])
    with pytest.warns(CalstatsWarning, match="NaNs produced"):
        r = val_prob_ci(p, y)
    # R 4.2.2, CalibrationCurves 3.1.0 on rms 6.5-0 (printed to 8 digits)
    r_values = {"Intercept": 0.78955509, "Slope": 38.29106867, "Emax": 0.60549318, "Eavg": 0.13999243,
                "ECI": 4.56911702, "Brier": 0.08552783}
    for name, value in r_values.items():
        assert r.stats[name] == pytest.approx(value, abs=5e-9), name


def test_separated_data_table_shows_r_slope_not_an_unconverged_one():
    """Predictions that separate the outcomes have no maximum-likelihood slope: the exact fit
    stopped at 117.7 (3 rows) and 323.0 (8 rows), depending only on when it gave up. The
    table now shows R's lrm.fit slope (val.prob.ci.2's Slope, R 4.2.2 / CalibrationCurves
    3.1.0) with R's interval, as its docstring says."""
    cases = [(np.array([0.2, 0.7, 0.4]), [0, 1, 1], 13.93163467454174231),
             (np.array([9.97740609e-01, 2.70262175e-04, 3.96751849e-01, 9.39125883e-01, 5.78628676e-01,
                        3.19106727e-01, 8.57697579e-01, 1.30271170e-01]), [1, 0, 1, 1, 1, 0, 1, 0], 38.29106867)]
    for p, y, r_slope in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = val_prob_ci(p, y, pl=False)
        row = r.table.loc["Calibration slope"]
        assert row["estimate"] == pytest.approx(r_slope, rel=1e-8)
        assert (row["estimate"], row["lower"], row["upper"]) == pytest.approx(r.calibration["Slope"], nan_ok=True)


def test_three_rows_do_not_crash_the_loess():
    """R's ehg141 divides by zero when every point is in the neighbourhood (IEEE: inf, NaN);
    the fit goes on with R's numbers and loess' warnings."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = val_prob_ci(np.array([0.2, 0.7, 0.4]), [0, 1, 1])
    # R 4.2.2, CalibrationCurves 3.1.0's R files on rms 6.5-0:
    # val.prob.ci.2(c(0.2, 0.7, 0.4), c(0, 1, 1), pl = FALSE), printed to 17 digits
    r_stats = {"Dxy": 1.0, "C (ROC)": 1.0, "R2": 0.99942363478031504, "D": 0.93821388966532915,
               "D:Chi-sq": 3.81464166899598744, "D:p": 0.05080647139921135, "U": 0.32925837116043483,
               "U:Chi-sq": 2.98777511348130442, "U:p": 0.22449820738794191, "Q": 0.60895551850489427,
               "Brier": 0.16333333333333333, "Intercept": 1.15052663973447133, "Slope": 13.93163467454174231,
               "Emax": 0.62565663445929265, "Brier scaled": 0.26500000000000012, "Eavg": 0.36666666666666670,
               "ECI": 16.33333333333333215}
    assert list(r.r_stat_names) == list(r_stats)
    for name, value in r_stats.items():
        assert r.stats[name] == pytest.approx(value, rel=1e-13), name  # measured 4.3e-15 (D:p)
    assert r.calibration["Intercept"] == pytest.approx((1.1505266397344713, -1.4454972118475093, 3.7465504913164520),
                                                       rel=1e-13)
    assert r.calibration["Slope"] == pytest.approx((13.931634674541742, -73.525792266194955, 101.389061615278436),
                                                   rel=1e-13)
    assert r.cindex == (1.0, 1.0, 1.0)
    # R warns these after "glm.fit: fitted probabilities numerically 0 or 1 occurred", from the glm
    # val.prob.ci.2 fits and never uses (f.or); calstats does not fit it
    assert [str(w.message) for w in rec] == ["span too small.   fewer data values than degrees of freedom.",
                                             "pseudoinverse used at 0.1975", "neighborhood radius 0.2025",
                                             "reciprocal condition number  0",
                                             "There are other near singularities as well. 0.091506"]

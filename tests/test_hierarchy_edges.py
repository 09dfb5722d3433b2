"""val_prob_ci's refusals where nothing is left to fit (calstats' default keeps predictions
of 0 or 1 out of the logistic fits, so it must also say when none are left)."""

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


def test_three_rows_do_not_crash_the_loess():
    # R's ehg141 divides by zero when every point is in the neighbourhood (IEEE: inf, NaN)
    val_prob_ci(np.array([0.2, 0.7, 0.4]), [0, 1, 1])

"""val_prob_ci's refusals where nothing is left to fit (calstats' default keeps predictions
of 0 or 1 out of the logistic fits, so it must also say when none are left)."""

import numpy as np
import pytest

from calstats import CalstatsError
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

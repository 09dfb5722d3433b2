"""Binary string labels in the formula API (issue 13, case 1): the positive class is the
level the score column names, else ``positive=``, else R's second level with a warning."""

import warnings

import numpy as np
import pandas as pd
import pytest

import calstats
import calstats.formula.api as cf
from calstats.formula.api import _carried_level


@pytest.fixture()
def cancer():
    # scores are P(benign); "malignant" sorts second, so R's coding would read them backwards
    rs = np.random.default_rng(0)
    p_benign = rs.uniform(0.02, 0.98, 300)
    benign = rs.random(300) < p_benign
    return pd.DataFrame({"diagnosis": np.where(benign, "benign", "malignant"), "p_benign": p_benign})


def test_column_name_picks_the_positive_level(cancer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the name settles it
        fit = cf.cal_platt("diagnosis ~ p_benign", data=cancer)
    assert fit.label_levels == ["malignant", "benign"]
    y = (cancer["diagnosis"] == "benign").astype(int).to_numpy()
    ref = calstats.cal_platt(cancer["p_benign"].to_numpy(), y)
    assert np.array_equal(fit.coefficients.to_numpy(), ref.coefficients.to_numpy())
    assert ref.coefficients.iloc[1] > 0  # the scores predict the positive class: a sane slope
    table = cf.cal_compare("diagnosis ~ p_benign", data=cancer, methods=["platt", "isotonic"])
    assert table.table.loc["uncalibrated", "log_loss"] < 0.7  # not read backwards (it was 14.2)


def test_positive_argument_and_its_conflict_warning(cancer):
    with pytest.warns(calstats.CalstatsWarning, match="names level 'benign'.*positive='malignant'"):
        fit = cf.cal_platt("diagnosis ~ p_benign", data=cancer, positive="malignant")
    assert fit.label_levels == ["benign", "malignant"]
    with pytest.raises(calstats.CalstatsError, match="`positive` must be one of the levels"):
        cf.cal_platt("diagnosis ~ p_benign", data=cancer, positive="maybe")


def test_unnamed_scores_get_rs_coding_with_a_warning(cancer):
    df = cancer.rename(columns={"p_benign": "score"})
    with pytest.warns(calstats.CalstatsWarning, match="'malignant' \\(the second, as R's glm"):
        fit = cf.cal_platt("diagnosis ~ score", data=df)
    assert fit.label_levels == ["benign", "malignant"]
    yes = df.assign(diagnosis=np.where(df["diagnosis"] == "benign", "yes", "no"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no/yes: nobody doubts which is positive
        cf.cal_platt("diagnosis ~ score", data=yes)


@pytest.mark.parametrize("column,levels,want", [
    ("p_benign", ["benign", "malignant"], "benign"),
    ("prob.malignant", ["benign", "malignant"], "malignant"),
    ("pmalignant", ["benign", "malignant"], "malignant"),
    ("benign", ["benign", "malignant"], "benign"),
    ("score", ["benign", "malignant"], None),
    ("p_yes", ["no", "yes"], "yes"),
    ("p_class_1", ["class_0", "class_1"], "class_1"),
    ("p_1", ["0", "1"], "1"),
])
def test_carried_level(column, levels, want):
    assert _carried_level(column, levels) == want


def test_r_refusals_carry_the_python_fix_as_a_note():
    from sklearn.datasets import load_digits

    digits = load_digits()
    P = np.full((digits.target.size, 10), 0.1)
    with pytest.raises(calstats.CalstatsError) as err:
        calstats.ece(P, digits.target)
    assert str(err.value) == "Integer class codes in `y` must start at `1`."  # R's text, unchanged
    assert any("y + 1" in note for note in err.value.__notes__)
    assert calstats.ece(P, digits.target + 1) == calstats.ece(P, pd.Categorical(digits.target))
    with pytest.raises(calstats.CalstatsError) as err:
        calstats.ece(P[:3], pd.Series(["a", "b", "c"]))
    assert any("pd.Categorical" in note for note in err.value.__notes__)
    with pytest.raises(calstats.CalstatsError) as err:
        calstats.cal_platt(np.array([0.1, 0.9, 0.4]), pd.Categorical(["no", "yes", "no"]))
    assert "binary labels `0` and `1`" in str(err.value)
    assert any("positive" in note for note in err.value.__notes__)

"""cal_compare: out-of-fold comparison of calibration methods."""

import importlib

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats.evaluation.compare import DEFAULT_BINARY, DEFAULT_MULTICLASS


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(2)
    p = rs.uniform(0.02, 0.98, 240)
    y = (rs.uniform(size=240) < p**1.6).astype(int)
    return p, y


@pytest.fixture(scope="module")
def multi():
    rs = np.random.default_rng(4)
    P = rs.dirichlet([1.5, 1.5, 1.5], size=180)
    sharp = P**2 / (P**2).sum(axis=1, keepdims=True)
    return P, np.array([rs.choice(3, p=r) + 1 for r in sharp])


def _has(module):
    try:
        importlib.import_module("calstats.evaluation." + module)
        return True
    except ImportError:
        return False


def test_binary_table(binary):
    p, y = binary
    cmp = calstats.cal_compare(p, y)
    assert list(cmp.table.index) == ["uncalibrated", *DEFAULT_BINARY]
    assert list(cmp.table.columns[:4]) == ["log_loss", "brier", "confidence_ece", "classwise_ece"]
    assert ("spiegelhalter_p" in cmp.table.columns) == _has("caltests")
    assert ("cal_test_p" in cmp.table.columns) == _has("inference")
    # the uncalibrated row is the raw probabilities
    row = cmp.table.loc["uncalibrated"]
    np.testing.assert_allclose(row["log_loss"], -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p)), rtol=1e-12)
    np.testing.assert_allclose(row["brier"], np.mean((p - y) ** 2), rtol=1e-12)
    assert row["classwise_ece"] == calstats.ece(np.column_stack([1 - p, p]), y + 1, type="classwise")
    # out-of-fold predictions are cal_cv's with the same seed (same folds for every method)
    cv = calstats.cal_cv(p, y, method="beta", folds=5, seed=1)
    np.testing.assert_array_equal(cmp.predictions["beta"], cv.oof_predictions)
    np.testing.assert_array_equal(cmp.fold_id, cv.fold_id)
    oof = cv.oof_predictions
    np.testing.assert_allclose(cmp.table.loc["beta", "brier"], np.mean((oof - y) ** 2), rtol=1e-12)
    # temperature was fitted on logits of the probabilities
    z = np.log(p) - np.log1p(-p)
    cvt = calstats.cal_cv(z, y, method="temperature", folds=5, seed=1)
    np.testing.assert_allclose(cmp.predictions["temperature"], cvt.oof_predictions, rtol=1e-9)


def test_multiclass_table_and_renderings(multi):
    P, y = multi
    cmp = calstats.cal_compare(pd.DataFrame(P, columns=list("abc")), y, folds=3, seed=7)
    assert list(cmp.table.index) == ["uncalibrated", *DEFAULT_MULTICLASS]
    cv = calstats.cal_cv(P, y, method="dirichlet", folds=3, seed=7)
    np.testing.assert_array_equal(cmp.predictions["dirichlet"].to_numpy(), cv.oof_predictions.to_numpy())
    assert cmp.table.loc["uncalibrated", "confidence_ece"] == calstats.ece(P, y, type="confidence")
    assert cmp.table.notnull().all().all()
    text = str(cmp)
    assert text.startswith("Calibration comparison (3 classes, 3-fold") and "dirichlet" in text
    assert "<table" in cmp.as_html() and cmp._repr_html_() == cmp.as_html()
    assert r"\begin{tabular}" in cmp.as_latex()
    assert cmp.best("log_loss") in cmp.table.index


def test_logit_input_and_methods_argument(binary):
    p, y = binary
    z = np.log(p) - np.log1p(-p)
    cmp = calstats.cal_compare(z, y, methods=["plat", "iso"], folds=4, seed=3)
    assert cmp.input == "logits"
    assert list(cmp.table.index) == ["uncalibrated", "platt", "isotonic"]
    np.testing.assert_allclose(cmp.table.loc["uncalibrated", "brier"], np.mean((p - y) ** 2), rtol=1e-10)


def test_callable_method_uses_same_folds(binary):
    p, y = binary

    class Mean:
        def __init__(self, rate):
            self.rate = rate

        def predict(self, x):
            return np.full(len(x), self.rate)

    cmp = calstats.cal_compare(p, y, methods=[("base_rate", lambda x, yy: Mean(np.mean(yy))), "platt"])
    pred = cmp.predictions["base_rate"]
    for f in range(1, 6):
        np.testing.assert_allclose(pred[cmp.fold_id == f], np.mean(y[cmp.fold_id != f]))


def test_errors(binary, multi):
    p, y = binary
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        calstats.cal_compare(p, y, methods=["dirichlet"])
    with pytest.raises(calstats.CalstatsError, match="folds"):
        calstats.cal_compare(p, y, folds=1)
    P, yy = multi
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        calstats.cal_compare(P, yy, methods=["beta"])


def test_comparison_table_says_which_tests_are_one_or_two_sided():
    rs = np.random.default_rng(3)
    p = rs.uniform(0.05, 0.95, 300)
    y = (rs.random(300) < p).astype(int)
    cmp = calstats.cal_compare(p, y, methods=["platt"], folds=3)
    text = str(cmp)
    if "spiegelhalter_p" in cmp.table.columns:
        assert "spiegelhalter_p is two-sided" in text
        t = calstats.cal_spiegelhalter_test(cmp.predictions["platt"], y)
        assert cmp.table.loc["platt", "spiegelhalter_p"] == pytest.approx(t.p_value, rel=1e-12)
        assert t.alternative == "two-sided"
    if "cal_test_p" in cmp.table.columns:
        assert "cal_test_p is one-sided" in text

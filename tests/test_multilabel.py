"""Multi-label calibration and metrics: each label its own binary problem."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs
from calstats.calibrators.multilabel import CalMultilabel, cal_multilabel


def _problem(seed=1, n=300, L=3):
    rng = np.random.default_rng(seed)
    P = rng.uniform(0.01, 0.99, size=(n, L))
    Y = (rng.random((n, L)) < P ** 1.5).astype(np.int64)
    return P, Y


@pytest.mark.parametrize("method", ["platt", "beta", "isotonic", "histogram"])
def test_one_binary_calibrator_per_label(method):
    P, Y = _problem()
    fit = cal_multilabel(P, Y, method=method)
    assert isinstance(fit, CalMultilabel) and fit.inherits("cal_multilabel") and fit.k == 3
    single = {"platt": cs.cal_platt, "beta": cs.cal_beta, "isotonic": cs.cal_isotonic,
              "histogram": cs.cal_histogram}[method]
    Q = fit.predict(P)
    assert Q.shape == P.shape
    for j in range(P.shape[1]):
        ref = np.asarray(single(P[:, j], Y[:, j]).predict(P[:, j]), dtype=np.float64)
        np.testing.assert_array_equal(Q[:, j], ref)  # the same bits as the binary fit
    assert not np.allclose(Q.sum(axis=1), 1.0)  # no renormalisation across labels


def test_frames_names_weights_and_inputs_kept():
    P, Y = _problem(2)
    cols = ["cat", "dog", "bird"]
    Pf, Yf = pd.DataFrame(P, columns=cols), pd.DataFrame(Y.astype(bool), columns=cols)
    P0, Y0 = Pf.copy(), Yf.copy()
    w = np.linspace(0.5, 2.0, P.shape[0])
    fit = cal_multilabel(Pf, Yf, "platt", weights=w)
    pd.testing.assert_frame_equal(Pf, P0)
    pd.testing.assert_frame_equal(Yf, Y0)
    assert fit.levels == cols and fit.call["function"] == "cal_multilabel"
    new = pd.DataFrame(P[:5], columns=cols, index=list("abcde"))
    out = fit.predict(new)
    assert list(out.columns) == cols and list(out.index) == list("abcde")
    ref = cs.cal_platt(P[:, 1], Y[:, 1], weights=w).predict(P[:5, 1])
    np.testing.assert_array_equal(out["dog"].to_numpy(), np.asarray(ref))
    text = str(fit.summary())
    assert "multi-label Platt scaling" in text and "cat, dog, bird" in text


def test_messages():
    P, Y = _problem()
    with pytest.raises(cs.CalstatsError, match="Arguments `p` and `Y` must have the same number of observations"):
        cal_multilabel(P, Y[:-1])
    with pytest.raises(cs.CalstatsError, match="Argument `Y` must have 3 columns"):
        cal_multilabel(P, Y[:, :2])
    with pytest.raises(cs.CalstatsError, match="method"):
        cal_multilabel(P, Y, method="bogus")
    fit = cal_multilabel(P, Y)
    with pytest.raises(cs.CalstatsError, match="Argument `newdata` must have 3 columns"):
        fit.predict(P[:, :2])
    with pytest.raises(cs.CalstatsError, match="Argument `newdata` must be a numeric matrix"):
        fit.predict(P[:, 0])
    with pytest.raises(cs.CalstatsError, match="Argument `y` must have 3 columns"):
        cs.ece(P, Y[:, :2])
    with pytest.raises(cs.CalstatsError, match="average"):
        cs.brier_score(P, Y, average="weighted")


@pytest.mark.parametrize("metric", ["ece", "brier_score", "log_loss"])
def test_metric_averages(metric):
    f = getattr(cs, metric)
    P, Y = _problem(3, L=4)
    per_label = f(P, Y, average=None)
    assert isinstance(per_label, np.ndarray) and per_label.shape == (4,)
    for j in range(4):
        assert per_label[j] == f(P[:, j], Y[:, j])
    assert f(P, Y) == f(P, Y, average="macro") == pytest.approx(np.mean(per_label), rel=1e-15)
    assert f(P, Y, average="micro") == f(P.ravel(order="F"), Y.ravel(order="F"))
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=P.shape[0])
    assert f(P, Y, average="micro", weights=w) == f(P.ravel(order="F"), Y.ravel(order="F"), weights=np.tile(w, 4))
    assert f(P, Y, average=None, weights=w)[2] == f(P[:, 2], Y[:, 2], weights=w)


def test_ece_options_reach_each_label():
    P, Y = _problem(4)
    assert cs.ece(P, Y, 15, norm="l2", average=None)[1] == cs.ece(P[:, 1], Y[:, 1], 15, norm="l2")
    assert cs.ece(P, Y, strategy="quantile", average="micro") == cs.ece(P.ravel("F"), Y.ravel("F"),
                                                                        strategy="quantile")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(3, 5))
def test_one_hot_macro_is_classwise(seed, k):
    # exclusive classes written as a one-hot label matrix: macro ECE = R's classwise ECE
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=120)
    y = rng.integers(1, k + 1, size=120)
    y[:k] = np.arange(1, k + 1)
    onehot = (y[:, None] == np.arange(1, k + 1)).astype(int)
    assert cs.ece(P, onehot) == pytest.approx(cs.ece(P, y, type="classwise"), rel=1e-14)
    # the multiclass Brier score sums over classes; the multi-label one averages over labels
    assert cs.brier_score(P, onehot) * k == pytest.approx(cs.brier_score(P, y), rel=1e-12)

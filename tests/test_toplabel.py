"""cal_top_label and top_label_ece (seed-methods.md §C.1-C.2)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import FIXTURES

MAPIE = json.loads((FIXTURES / "mapie_values.json").read_text())


def _data(seed, n=600, k=4, temp=0.5):
    rs = np.random.RandomState(seed)
    z = rs.normal(scale=2.0, size=(n, k))
    truth = np.exp(z * temp) / np.exp(z * temp).sum(axis=1, keepdims=True)
    y = np.array([rs.choice(k, p=r) + 1 for r in truth])
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)  # over-confident
    return p, y


@pytest.mark.parametrize("case", MAPIE["top_label_ece"], ids=[c["id"] for c in MAPIE["top_label_ece"]])
def test_top_label_ece_mapie_convention(case):
    p, y = np.array(case["p"]), np.array(case["y0"]) + 1
    got = calstats.top_label_ece(p, y, bins=case["bins"], convention="mapie")
    assert got == pytest.approx(case["top_label_ece"], rel=1e-14, abs=1e-16)


def test_top_label_ece_calstats_convention_and_weighting():
    p, y = _data(1)
    pred, h = p.argmax(axis=1), p.max(axis=1)
    per = []
    for j in range(4):
        m = pred == j
        per.append((calstats.ece(h[m], (y[m] == j + 1).astype(int)), m.mean()))
    assert calstats.top_label_ece(p, y) == pytest.approx(np.mean([e for e, _ in per]), rel=1e-14)
    assert calstats.top_label_ece(p, y, average="weighted") == pytest.approx(sum(e * w for e, w in per), rel=1e-14)
    # a class never predicted does not enter the uniform mean
    q = p.copy()
    q[:, 3] *= 1e-3
    q /= q.sum(axis=1, keepdims=True)
    assert np.isfinite(calstats.top_label_ece(q, y))


def test_cal_top_label_improves_top_label_calibration():
    p, y = _data(2, n=2000)
    pt, yt = _data(3, n=2000)
    for method in ("platt", "isotonic", "histogram"):
        fit = calstats.cal_top_label(p, y, method=method)
        before = calstats.top_label_ece(pt, yt)
        after = calstats.top_label_ece(fit.predict(pt).to_numpy(), yt)
        top = fit.predict(pt, type="top")
        assert list(top.columns) == ["class", "prob"]
        assert (top["class"].cat.codes.to_numpy() == pt.argmax(axis=1)).all()
        assert calstats.top_label_ece(pt, yt, bins=10) > 0.05
        assert np.mean(np.abs(top["prob"].to_numpy() - pt.max(axis=1))) > 0.01
        assert after < before, method
        assert fit.method == {"platt": "top-label Platt scaling", "isotonic": "top-label isotonic regression",
                              "histogram": "top-label histogram binning"}[method]


def test_predict_prob_fills_the_rest_proportionally():
    p, y = _data(4, n=400, k=3)
    fit = calstats.cal_top_label(p, y)
    out = fit.predict(pd.DataFrame(p, index=range(10, 410)))
    assert list(out.columns) == ["1", "2", "3"] and out.index[0] == 10
    q = out.to_numpy()
    np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-14)
    top = fit.predict(p, type="top")["prob"].to_numpy()
    rows = np.arange(400)
    c = p.argmax(axis=1)
    np.testing.assert_array_equal(q[rows, c], top)
    other = np.ones_like(p, dtype=bool)
    other[rows, c] = False
    ratio = q[other].reshape(400, 2) / p[other].reshape(400, 2)
    np.testing.assert_allclose(ratio[:, 0], ratio[:, 1], rtol=1e-12)
    one_hot = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    z = fit.predict(one_hot).to_numpy()
    np.testing.assert_allclose(z.sum(axis=1), 1.0)
    assert z[0, 1] == z[0, 2]


def test_classes_left_unchanged_warn_once():
    rs = np.random.RandomState(5)
    p = rs.dirichlet([1, 1, 1], size=200)
    p[:, 2] *= 0.01
    p /= p.sum(axis=1, keepdims=True)
    y = rs.randint(1, 4, 200)
    y[p.argmax(axis=1) == 1] = 2  # class 2's rows all have outcome 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fit = calstats.cal_top_label(p, y)
    msgs = [str(x.message) for x in w if issubclass(x.category, calstats.CalstatsWarning)]
    assert msgs == ["Top-label calibration left 2, 3 unchanged (single outcome, never predicted)."]
    assert fit.calibrators[1] is None and fit.calibrators[2] is None and fit.calibrators[0] is not None
    assert list(fit.status["status"]) == ["calibrated", "single outcome", "never predicted"]
    new = np.array([[0.2, 0.7, 0.1]])
    np.testing.assert_allclose(fit.predict(new).to_numpy(), new)  # class 2 uncalibrated: identity
    with pytest.warns(calstats.CalstatsWarning, match=r"\(too few rows"):
        calstats.cal_top_label(p, rs.randint(1, 4, 200), method="hist", points_per_bin=150)


def test_object_protocol_and_summary():
    p, y = _data(6, n=300, k=3)
    fit = calstats.cal_top_label(p, y, method="iso")
    assert list(fit.r_class) == ["cal_top_label", "cal_multiclass", "calibrator"]
    assert fit.names() == ["method", "n", "input", "base_method", "points_per_bin", "calibrators", "status", "k",
                           "levels", "call"]
    assert fit.input == "probabilities (matrix)" and fit.call["args"]["method"] == "iso"
    text = fit.summary().as_text()
    assert "BaseMethod: isotonic\nCalibratedClasses: 3 of 3\n" in text and "thresholds" in text
    assert "thresholds" in fit.coef.columns
    assert "(Intercept)" in calstats.cal_top_label(p, y).coef.columns


def _err(fn, *a, **kw):
    with pytest.raises(calstats.CalstatsError) as e:
        fn(*a, **kw)
    return str(e.value)


def test_errors_in_order():
    p = np.array([[0.7, 0.3], [0.2, 0.8], [0.4, 0.6]])
    f = calstats.cal_top_label
    assert _err(f, p * 3, [1], method="bogus") == "Argument `method` should be one of “platt”, “isotonic”, “histogram”, not “bogus”."
    assert _err(f, p * 3, [1]) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(f, p, [1, 2, 3], points_per_bin=0) == "Argument `y` has 3 classes but the input has 2 columns."
    assert _err(f, p, [1, 2], points_per_bin=0) == "Arguments `p` and `y` must have the same number of observations."
    assert _err(f, p, [1, 2, 1], points_per_bin=0) == "Argument `points_per_bin` must be a single positive integer."
    with pytest.warns(calstats.CalstatsWarning, match="left 1 unchanged"):
        fit = calstats.cal_top_label(np.tile(p, (5, 1)), [1, 2, 1] * 5)
    assert _err(fit.predict, p[:, :1]) == "Argument `newdata` must have at least two columns, one per class."
    assert _err(fit.predict, np.hstack([p, p]) / 2) == "Argument `newdata` must have 2 columns, one per class."
    assert _err(fit.predict, p, type="x") == "Argument `type` should be one of “prob”, “top”, not “x”."
    g = calstats.top_label_ece
    assert _err(g, p * 3, [1], average="x") == "Argument `average` should be one of “uniform”, “weighted”, not “x”."
    assert _err(g, p * 3, [1], convention="x") == "Argument `convention` should be one of “calstats”, “mapie”, not “x”."
    assert _err(g, p, [1, 2, 1], bins=0) == "Argument `bins` must be a single positive integer."


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["platt", "isotonic", "histogram"]))
def test_properties(seed, method):
    p, y = _data(seed, n=150, k=3)
    p0, y0 = p.copy(), y.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", calstats.CalstatsWarning)
        fit = calstats.cal_top_label(p, y, method=method, points_per_bin=20)
    q = fit.predict(p).to_numpy()
    np.testing.assert_allclose(q.sum(axis=1), 1.0, atol=1e-12)
    assert ((q >= 0) & (q <= 1)).all()
    assert np.array_equal(p, p0) and np.array_equal(y, y0)
    perm = np.random.RandomState(seed).permutation(150)
    assert calstats.top_label_ece(p[perm], y[perm]) == pytest.approx(calstats.top_label_ece(p, y), rel=1e-12)

"""Case weights (issue 15): integer weights equal replicated rows, None is R's fit, bad
weights get one clear error."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from calstats._weights import check_weights, replicate_rows


def _binary(seed, n=240):
    rs = np.random.default_rng(seed)
    x = rs.normal(size=n) * 1.5
    y = (rs.random(n) < 1 / (1 + np.exp(-(0.7 * x - 0.2)))).astype(int)
    return x, 1 / (1 + np.exp(-x)), y


def _multi(seed, n=240, k=4):
    rs = np.random.default_rng(seed)
    z = rs.normal(size=(n, k)) * 1.5
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = (P.cumsum(axis=1) < rs.random(n)[:, None]).sum(axis=1) + 1
    return z, P, y


def _weights(seed, n):
    return np.random.default_rng(seed + 99).integers(0, 4, size=n)


def _pred(fit, x):
    out = fit.predict(x)
    return np.asarray(out.to_numpy() if hasattr(out, "to_numpy") else out, dtype=np.float64)


BINARY = [
    ("platt", lambda x, p, y, **kw: calstats.cal_platt(x, y, **kw), "x", 1e-7),
    ("beta", lambda x, p, y, **kw: calstats.cal_beta(p, y, **kw), "p", 1e-6),
    ("temperature", lambda x, p, y, **kw: calstats.cal_temperature(x, y, **kw), "x", 1e-9),
    ("isotonic", lambda x, p, y, **kw: calstats.cal_isotonic(p, y, **kw), "p", 1e-12),
    ("histogram", lambda x, p, y, **kw: calstats.cal_histogram(p, y, **kw), "p", 1e-12),
]


@pytest.mark.parametrize("name,fit,arg,tol", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("seed", [1, 2])
def test_binary_integer_weights_equal_replicated_rows(name, fit, arg, tol, seed):
    x, p, y = _binary(seed)
    w = _weights(seed, y.size)
    r = replicate_rows(w)
    a = fit(x, p, y, weights=w)
    b = fit(x[r], p[r], y[r])
    new = x if arg == "x" else p
    np.testing.assert_allclose(_pred(a, new), _pred(b, new), atol=tol, rtol=0)


MULTI = [
    ("temperature", lambda z, P, y, **kw: calstats.cal_temperature(z, y, **kw), "z", 1e-9),
    ("vector", lambda z, P, y, **kw: calstats.cal_vector_scaling(z, y, **kw), "z", 1e-9),
    ("dirichlet", lambda z, P, y, **kw: calstats.cal_dirichlet(P, y, lambda_=0.01, **kw), "P", 1e-9),
    ("dirichlet-l2", lambda z, P, y, **kw: calstats.cal_dirichlet_l2(P, y, lambda_=1e-3, **kw), "P", 1e-9),
    ("matrix", lambda z, P, y, **kw: calstats.cal_matrix_scaling(z, y, lambda_=0.01, mu=0.1, **kw), "z", 1e-9),
    ("ovr-platt", lambda z, P, y, **kw: calstats.cal_ovr(z, y, method="platt", **kw), "z", 1e-7),
    ("newton", lambda z, P, y, **kw: calstats.cal_dirichlet(P, y, lambda_=0.0, optimizer="newton", **kw), "P", 1e-8),
]


@pytest.mark.parametrize("name,fit,arg,tol", MULTI, ids=[m[0] for m in MULTI])
def test_multiclass_integer_weights_equal_replicated_rows(name, fit, arg, tol):
    z, P, y = _multi(3)
    w = _weights(3, y.size)
    r = replicate_rows(w)
    a = fit(z, P, y, weights=w)
    b = fit(z[r], P[r], y[r])
    new = z if arg == "z" else P
    np.testing.assert_allclose(_pred(a, new), _pred(b, new), atol=tol, rtol=0)


def test_weighted_multinomial_fit_takes_the_reference_path():
    from calstats.calibrators._multinomial import fit_multinomial

    z, P, y = _multi(4)
    w = np.random.default_rng(0).uniform(0, 3, y.size)
    U = np.log(P)
    a = fit_multinomial(U, y, 4, 0.01, weights=w, backend="c")
    b = fit_multinomial(U, y, 4, 0.01, weights=w, backend="numpy")
    assert np.array_equal(a.weight, b.weight) and a.value == b.value and a.counts == b.counts


def test_cv_passes_weights_to_every_fold():
    x, p, y = _binary(5)
    w = _weights(5, y.size)
    fit = calstats.cal_cv(x, y, method="platt", folds=3, seed=1, weights=w)
    fold_id = fit.fold_id
    for f, cal in enumerate(fit.fold_calibrators, start=1):
        train = fold_id != f
        ref = calstats.cal_platt(x[train], y[train], weights=w[train])
        assert np.array_equal(cal.coefficients.to_numpy(), ref.coefficients.to_numpy())
    ref = calstats.cal_platt(x, y, weights=w)
    assert np.array_equal(fit.final_calibrator.coefficients.to_numpy(), ref.coefficients.to_numpy())


def test_unit_weights_are_close_to_r_and_none_is_r():
    x, p, y = _binary(6)
    none = calstats.cal_platt(x, y)
    ones = calstats.cal_platt(x, y, weights=np.ones(y.size))
    np.testing.assert_allclose(ones.coefficients, none.coefficients, rtol=1e-12)
    assert calstats.cal_platt(x, y, weights=None).coefficients.equals(none.coefficients)


def test_weights_accept_pandas_float32_and_are_not_mutated():
    z, P, y = _multi(7)
    w = pd.Series(np.arange(y.size) % 3, dtype="float32")
    before = w.copy()
    a = calstats.cal_vector_scaling(z, y, weights=w)
    b = calstats.cal_vector_scaling(z, y, weights=w.to_numpy(dtype=np.float64))
    assert np.array_equal(a.scale, b.scale)
    assert w.equals(before)


@pytest.mark.parametrize("bad,msg", [
    (np.ones(5), "one value per observation \\(240\\), not 5"),
    (np.full(240, np.nan), "missing or infinite"),
    (-np.ones(240), "non-negative"),
    (np.zeros(240), "not be all zero"),
    (["a"] * 240, "numeric vector"),
    ("abc", "numeric vector"),
])
def test_bad_weights_get_one_clear_error(bad, msg):
    x, p, y = _binary(8)
    with pytest.raises(calstats.CalstatsError, match=msg):
        calstats.cal_platt(x, y, weights=bad)


def test_histogram_equal_freq_with_weights_says_why_not():
    x, p, y = _binary(9)
    with pytest.raises(calstats.CalstatsError, match="equal_width"):
        calstats.cal_histogram(p, y, strategy="equal_freq", weights=np.ones(y.size))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), min_size=60, max_size=60).filter(lambda w: sum(w) > 10))
def test_property_temperature_weights_replicate(wl):
    w = np.array(wl)
    x, p, y = _binary(10, n=60)
    r = replicate_rows(w)
    if len(set(y[r])) < 2:
        return
    a = calstats.cal_temperature(x, y, weights=w)
    b = calstats.cal_temperature(x[r], y[r])
    assert a.temperature == pytest.approx(b.temperature, rel=1e-7)
    assert check_weights(w, 60) is not w


# --------------------------------------------------------------------------------------
# R's weighted fits (tests/fixtures/weights.json, tools/r-reference/make_weights.R)

from _rcases import case_ids, load_cases  # noqa: E402

R_CASES = load_cases("weights")


def _a(v):
    return np.array(v, dtype=np.float64)


@pytest.mark.parametrize("case", R_CASES, ids=case_ids(R_CASES))
def test_weighted_fits_match_r(case):
    fn, w = case["fn"], _a(case["weights"])
    y = _a(case["y"]).astype(int)
    # glm warns "non-integer #successes" when some w * y is not a whole number, as R does
    warns = fn == "cal_beta" and bool(np.any(np.abs(w * y - np.round(w * y)) > 1e-3))
    with pytest.warns(calstats.CalstatsWarning, match="non-integer") if warns else _no_warning():
        if fn == "cal_platt":
            fit = calstats.cal_platt(_a(case["x"]), y, weights=w)
        elif fn == "cal_beta":
            fit = calstats.cal_beta(_a(case["p"]), y, weights=w)
        elif fn == "cal_temperature":
            fit = calstats.cal_temperature(_a(case["logits"]), y, weights=w)
        elif fn == "cal_isotonic":
            fit = calstats.cal_isotonic(_a(case["p"]), y, weights=w)
        elif fn == "cal_vector_scaling":
            fit = calstats.cal_vector_scaling(_a(case["logits"]), y, weights=w)
        else:
            fit = calstats.cal_dirichlet(_a(case["p"]), y, lambda_=case["lambda"], weights=w)
    if fn in ("cal_platt", "cal_beta"):
        np.testing.assert_allclose(fit.coefficients.to_numpy(), _a(case["coefficients"]), rtol=1e-10, atol=0)
        np.testing.assert_allclose(fit.predict(_a(case["newdata"])), _a(case["predict"]), rtol=0, atol=1e-12)
    elif fn == "cal_temperature":
        assert fit.temperature == pytest.approx(case["temperature"][0], rel=1e-12)
        assert fit.value == pytest.approx(case["value"][0], rel=1e-12)
    elif fn == "cal_isotonic":
        np.testing.assert_array_equal(fit.x_thresholds, _a(case["x_thresholds"]))
        np.testing.assert_allclose(fit.y_calibrated, _a(case["y_calibrated"]), rtol=0, atol=1e-14)
    elif fn == "cal_vector_scaling":
        np.testing.assert_allclose(fit.scale, _a(case["scale"]), rtol=1e-10, atol=0)
        np.testing.assert_allclose(fit.bias, _a(case["bias"]), rtol=0, atol=1e-10)
        assert list(fit.counts) == case["counts"] and fit.value == pytest.approx(case["value"][0], rel=1e-13)
    else:
        np.testing.assert_allclose(fit.weight, _a(case["weight"]), rtol=0, atol=1e-10)
        np.testing.assert_allclose(fit.bias, _a(case["bias"]), rtol=0, atol=1e-10)
        assert list(fit.counts) == case["counts"] and fit.value == pytest.approx(case["value"][0], rel=1e-13)


class _no_warning:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error", calstats.CalstatsWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_sklearn_adapter_takes_sample_weight_in_cross_val_score_and_pipeline():
    sklearn = pytest.importorskip("sklearn")  # noqa: F841
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from calstats.sklearn import CalibratedClassifier

    X, y = make_classification(n_samples=300, n_features=5, n_informative=3, n_classes=3, random_state=0)
    w = np.random.default_rng(0).integers(1, 4, size=y.size)
    est = LogisticRegression(max_iter=500).fit(X, y)
    weighted = CalibratedClassifier(est, method="temperature", cv="prefit").fit(X, y, sample_weight=w)
    r = replicate_rows(w)
    replicated = CalibratedClassifier(est, method="temperature", cv="prefit").fit(X[r], y[r])
    # the calibrator saw the weights: integer weights equal replicated rows
    assert weighted.calibrator_.temperature == pytest.approx(replicated.calibrator_.temperature, rel=1e-7)  # Brent tol
    unweighted = CalibratedClassifier(est, method="temperature", cv="prefit").fit(X, y)
    assert abs(unweighted.calibrator_.temperature - weighted.calibrator_.temperature) > 1e-6
    clf = CalibratedClassifier(LogisticRegression(max_iter=500), method="temperature", cv=3)
    clf.fit(X, y, sample_weight=w)
    assert np.isfinite(clf.predict_proba(X)).all()
    pipe = make_pipeline(StandardScaler(), CalibratedClassifier(LogisticRegression(max_iter=500), method="dirichlet",
                                                                 cv=3, method_params={"lambda_": 0.01}))
    scores = cross_val_score(pipe, X, y, cv=3, params={"calibratedclassifier__sample_weight": w})
    assert scores.shape == (3,) and np.all(scores > 0.4)
    with pytest.raises(ValueError, match="sample_weight has shape"):
        clf.fit(X, y, sample_weight=w[:10])


METRIC_FORMS = [(m, f) for m in ("ece", "mce", "ace") for f in ("binary", "classwise", "confidence")] + \
    [(m, f) for m in ("brier_score", "log_loss") for f in ("binary", "classwise")]


@pytest.mark.parametrize("metric,form", METRIC_FORMS)
def test_metrics_with_integer_weights_equal_replicated_rows(metric, form):
    fn = getattr(calstats, metric)
    if form == "binary":
        _, p, y = _binary(11)
        kw = {}
    else:
        _, p, y = _multi(11)
        kw = {"type": form} if metric in ("ece", "mce", "ace") else {}
    w = _weights(11, y.size)
    r = replicate_rows(w)
    assert fn(p, y, weights=w, **kw) == pytest.approx(fn(p[r], y[r], **kw), rel=1e-12, abs=1e-15)
    assert fn(p, y, weights=None, **kw) == fn(p, y, **kw)


def test_compare_with_weights_fits_and_scores_weighted():
    x, p, y = _binary(12)
    w = _weights(12, y.size).astype(float) + 0.5
    table = calstats.cal_compare(x, y, methods=["platt", "temperature"], folds=3, weights=w)
    assert table.table.loc["uncalibrated", "log_loss"] == pytest.approx(
        calstats.log_loss(p, y, weights=w), rel=1e-12)
    assert np.isnan(table.table["spiegelhalter_p"]).all()
    assert any("weighted" in n for n in table.notes)
    plain = calstats.cal_compare(x, y, methods=["platt"], folds=3)
    assert table.table.loc["platt", "log_loss"] != plain.table.loc["platt", "log_loss"]


def test_top_label_with_weights_and_evidential_refuses_them():
    z, P, y = _multi(13, n=400)
    w = _weights(13, y.size)
    r = replicate_rows(w)
    a = calstats.cal_top_label(P, y, method="isotonic", weights=w)
    b = calstats.cal_top_label(P[r], y[r], method="isotonic")
    np.testing.assert_allclose(a.predict(P).to_numpy(), b.predict(P).to_numpy(), atol=1e-12)
    with pytest.raises(calstats.CalstatsError, match="histogram"):
        calstats.cal_top_label(P, y, method="histogram", weights=w)
    with pytest.raises(calstats.CalstatsError, match="not supported by evidential calibration"):
        calstats.cal_evidential(z, y, weights=w)


@pytest.mark.parametrize("test", ["cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test"])
@pytest.mark.parametrize("form", ["binary", "confidence"])
def test_calibration_tests_with_frequency_weights_equal_replicated_rows(test, form):
    fn = getattr(calstats, test)
    if form == "binary":
        _, p, y = _binary(14)
    else:
        _, p, y = _multi(14)
    w = _weights(14, y.size)
    r = replicate_rows(w)
    a = fn(p, y, weights=w)
    b = fn(p[r], y[r])
    assert a.p_value == pytest.approx(b.p_value, rel=1e-10, abs=1e-14)
    assert next(iter(a.statistic.values())) == pytest.approx(next(iter(b.statistic.values())), rel=1e-10)
    with pytest.raises(calstats.CalstatsError, match="mapie"):
        fn(p, y, weights=w, convention="mapie")


@pytest.mark.parametrize("average", ["uniform", "weighted"])
def test_top_label_ece_with_weights_equals_replicated_rows(average):
    _, P, y = _multi(15, n=400)
    w = _weights(15, y.size)
    r = replicate_rows(w)
    a = calstats.top_label_ece(P, y, average=average, weights=w)
    b = calstats.top_label_ece(P[r], y[r], average=average)
    assert a == pytest.approx(b, rel=1e-12)
    with pytest.raises(calstats.CalstatsError, match="mapie"):
        calstats.top_label_ece(P, y, convention="mapie", weights=w)


@pytest.mark.parametrize("form", ["binary", "matrix"])
def test_mmce_with_weights_equals_replicated_rows(form):
    if form == "binary":
        _, p, y = _binary(16)
    else:
        _, p, y = _multi(16)
    w = _weights(16, y.size)
    r = replicate_rows(w)
    assert calstats.mmce(p, y, weights=w) == pytest.approx(calstats.mmce(p[r], y[r]), rel=1e-12)


@pytest.mark.parametrize("estimator", ["uq", "biased"])
@pytest.mark.parametrize("form", ["binary", "confidence", "canonical", "classwise"])
def test_skce_with_frequency_weights_equals_replicated_rows(estimator, form):
    if form == "binary":
        _, p, y = _binary(17, n=120)
        kw = {}
    else:
        _, p, y = _multi(17, n=120)
        kw = {"type": form}
    w = _weights(17, y.size)
    r = replicate_rows(w)
    a = calstats.skce(p, y, estimator=estimator, weights=w, **kw)
    b = calstats.skce(p[r], y[r], estimator=estimator, **kw)
    assert a == pytest.approx(b, rel=1e-10, abs=1e-15)
    with pytest.raises(calstats.CalstatsError, match="ul"):
        calstats.skce(p, y, estimator="ul", weights=w, **kw)
    with pytest.raises(calstats.CalstatsError, match="numeric `bandwidth`"):
        calstats.skce(p, y, bandwidth="median", weights=w, **kw)


def test_cal_test_refuses_weights_with_its_reason():
    _, p, y = _binary(18)
    with pytest.raises(calstats.CalstatsError, match="wild bootstrap gives each observation its own sign"):
        calstats.cal_test(p, y, weights=np.ones(y.size))

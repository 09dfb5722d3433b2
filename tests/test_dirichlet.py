"""cal_dirichlet against R (tests/fixtures/dirichlet.json, errors.json, printing.json)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import EXACT_PLATFORM, arr, case_ids, inputs, load_cases, run_call
from calstats.calibrators._multinomial import LAMBDA_GRID, stratified_cycle_folds

CASES = load_cases("dirichlet")
# 80-bit long double is what R accumulates in; without it only §10's tolerances apply.
EXTENDED = EXACT_PLATFORM


def _loose(case):
    notes = case.get("notes") or ""
    return "PATH-DEPENDENT" in notes or case["outputs"]["convergence"] != 0


def _fit(case):
    env, _ = run_call(case, calstats)
    return env


@pytest.fixture(scope="module")
def fitted():
    return {c["id"]: _fit(c) for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_matches_r_within_spec_tolerance(case, fitted):
    env = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    assert list(fit.r_class) == out["class"]
    assert fit.names() == ["method", "n", "input", "weight", "bias", "lambda", "eps", "value", "convergence",
                           "k", "levels", "call"]
    assert fit.method == out["method"] and fit.n == out["n"] and fit.input == out["input"]
    assert fit.k == out["k"] and fit.levels == out["levels"]
    assert fit["lambda"] == out["lambda"] and fit.eps == out["eps"]
    pred_fit, pred_new = env["pred_fit"], env["pred_new"]
    assert list(pred_fit.columns) == out["predict_colnames"]
    if _loose(case):
        # r-interface.md §10: separable fits are compared through their predictions only.
        np.testing.assert_allclose(pred_fit.to_numpy(), arr(out["predict_fit"]), atol=1e-3, rtol=0)
        np.testing.assert_allclose(pred_new.to_numpy(), arr(out["predict_new"]), atol=1e-3, rtol=0)
        return
    assert fit.convergence == out["convergence"]
    scale = max(1.0, np.abs(arr(out["weight"])).max())
    assert np.abs(fit.weight - arr(out["weight"])).max() <= 1e-10 * scale
    assert np.abs(fit.bias - arr(out["bias"])).max() <= 1e-10 * max(1.0, np.abs(arr(out["bias"])).max())
    assert fit.value == pytest.approx(out["value"], rel=1e-13)
    np.testing.assert_allclose(pred_fit.to_numpy(), arr(out["predict_fit"]), atol=1e-7, rtol=0)
    np.testing.assert_allclose(pred_new.to_numpy(), arr(out["predict_new"]), atol=1e-7, rtol=0)


@pytest.mark.skipif(not EXTENDED, reason="bit-exactness needs R's 80-bit long double accumulators")
@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bit_identical_to_r(case, fitted):
    """With R's arithmetic (numerics.md N1-N3) every fit, separable ones included, is R's."""
    env = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    assert np.array_equal(fit.weight, arr(out["weight"]))
    assert np.array_equal(fit.bias, arr(out["bias"]))
    assert fit.value == out["value"]
    assert fit.convergence == out["convergence"]
    assert np.array_equal(env["pred_fit"].to_numpy(), arr(out["predict_fit"]))
    assert np.array_equal(env["pred_new"].to_numpy(), arr(out["predict_new"]))


@pytest.mark.parametrize("case", [c for c in CASES if "diag_lambda_cv_scores" in c["outputs"]],
                         ids=lambda c: c["id"])
def test_lambda_search_scores(case, fitted):
    fit = fitted[case["id"]]["fit"]
    assert list(LAMBDA_GRID) == case["outputs"]["diag_lambda_grid"]
    np.testing.assert_allclose(fit.lambda_scores, arr(case["outputs"]["diag_lambda_cv_scores"]), rtol=1e-12)


def test_documented_example_with_r_rng():
    """The help page's example: set.seed(23); matrix(runif(600), ncol = 3); labels = max.col."""
    calstats.rng.set_seed(23)
    prob = calstats.rng.runif(200 * 3).reshape(3, 200).T
    prob = prob / prob.sum(axis=1, keepdims=True)
    labels = prob.argmax(axis=1) + 1
    case = next(c for c in CASES if c["id"] == "dirichlet_doc_example_set_seed_23")
    np.testing.assert_array_equal(prob, inputs(case)["p"])
    fit = calstats.cal_dirichlet(prob, labels)
    assert fit.lambda_ == 0.1
    head = fit.predict(prob).to_numpy()[:6]
    # The help page's printed head (computed on another machine; path-dependent fit): the
    # argmax and the orders of magnitude agree, the 4th-6th digits need not (README §BFGS).
    assert list(head.argmax(axis=1)) == [2, 1, 1, 1, 0, 1]
    assert head[1, 0] == pytest.approx(2.481962e-177, rel=1e-3)


# -- errors (R messages of every case: test_r_conditions.py) ----------------------


def test_lambda_checked_before_eps_and_bool_is_not_numeric():
    p = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    with pytest.raises(calstats.CalstatsError, match="`lambda` must be `NULL`"):
        calstats.cal_dirichlet(p, [1, 2, 1], lambda_=True, eps=0.7)
    with pytest.raises(calstats.CalstatsError, match="`eps` must be a single number"):
        calstats.cal_dirichlet(p, [1, 2, 1], lambda_=0.1, eps=True)


def test_nan_rejected_with_r_message():
    p = np.array([[0.2, 0.8], [np.nan, 0.4]])
    with pytest.raises(calstats.CalstatsError, match="must not contain missing or infinite values"):
        calstats.cal_dirichlet(p, [1, 2])


# -- reports (R print/summary text: test_r_conditions.py) -------------------------


def test_summary_renderings_for_reports():
    case = CASES[4]
    fit = run_call(case, calstats)[0]["fit"]
    s = fit.summary()
    frames = s.as_frames()
    assert frames["parameters"].loc["Lambda", "value"] == "0.01"
    assert frames["coefficients"].shape == (fit.k, fit.k + 1)
    np.testing.assert_array_equal(frames["coefficients"].iloc[:, 1:].to_numpy(), fit.weight)
    assert "<table" in s.as_html() and "Dirichlet calibration" in s.as_html()
    latex = s.as_latex()
    assert r"\begin{tabular}" in latex and "(Intercept)" in latex


# -- inputs: pandas, float32, mutation -------------------------------------------------


def _small_problem(seed=0, n=90, k=3):
    rs = np.random.default_rng(seed)
    logits = rs.normal(size=(n, k)) * 1.5
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rs.choice(k, p=row) for row in np.exp(logits / 2) / np.exp(logits / 2).sum(1, keepdims=True)]) + 1
    return p, y


def test_dataframe_and_categorical_inputs_keep_index_and_levels():
    p, y = _small_problem()
    levels = ["setosa", "versicolor", "virginica"]
    idx = pd.Index([f"r{i}" for i in range(len(y))], name="id")
    frame = pd.DataFrame(p, index=idx, columns=levels)
    lab = pd.Categorical.from_codes(y - 1, categories=levels)
    fit = calstats.cal_dirichlet(frame, pd.Series(lab, index=idx), lambda_=0.01)
    ref = calstats.cal_dirichlet(p, y, lambda_=0.01)
    assert fit.levels == levels
    np.testing.assert_array_equal(fit.weight, ref.weight)
    pred = fit.predict(frame)
    assert list(pred.columns) == levels and pred.index.equals(idx)


def test_float32_and_integer_inputs_accepted():
    p, y = _small_problem()
    fit32 = calstats.cal_dirichlet(p.astype(np.float32) / p.astype(np.float32).sum(1, keepdims=True), y.astype(np.int32),
                                   lambda_=0.001)
    assert fit32.convergence == 0
    onehot = np.eye(3, dtype=np.int64)[y - 1]
    assert calstats.cal_dirichlet(onehot, y, lambda_=0.1).k == 3


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), lam=st.sampled_from([0.0, 1e-3, 0.1]))
def test_predictions_are_probabilities_and_inputs_untouched(seed, lam):
    p, y = _small_problem(seed, n=60)
    p_before, y_before = p.copy(), y.copy()
    fit = calstats.cal_dirichlet(p, y, lambda_=lam)
    pred = fit.predict(p).to_numpy()
    assert np.all(pred >= 0) and np.all(pred <= 1)
    np.testing.assert_allclose(pred.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(p, p_before)
    np.testing.assert_array_equal(y, y_before)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_interleaving_classes_keeps_the_lambda_folds(seed):
    """probcal's folds follow each class's own order, so reordering rows while keeping the
    order within every class leaves every fold's membership unchanged: the lambda search
    sees the same problems. The fits use Newton's method, which converges to the optimum
    whatever the order of the sums; R's BFGS stops on a relative decrease, so reordered sums
    can end it at another point of its tolerance (2e-7 apart in the scores at seed 997)."""
    p, y = _small_problem(seed, n=60)
    rs = np.random.default_rng(seed + 1)
    keys = rs.random(len(y))
    for code in np.unique(y):  # sorted keys within a class keep that class's order
        pos = np.flatnonzero(y == code)
        keys[pos] = np.sort(keys[pos])
    perm = np.argsort(keys)
    folds = stratified_cycle_folds(y, 3)
    assert np.array_equal(stratified_cycle_folds(y[perm], 3), folds[perm])
    a = calstats.cal_dirichlet(p, y, optimizer="newton")
    b = calstats.cal_dirichlet(p[perm], y[perm], optimizer="newton")
    np.testing.assert_allclose(a.lambda_scores, b.lambda_scores, rtol=1e-7)
    np.testing.assert_allclose(b.predict(p).to_numpy(), a.predict(p).to_numpy(), atol=1e-5)

"""Venn-Abers calibration (cal_venn_abers) against venn-abers 1.5.4 and MAPIE 1.6.0
(tests/fixtures/venn_abers.json, from tools/peers/make_venn_abers.py), against the
definition (isotonic regression with the test point added), and its checks."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import isotonic_regression

from _fixtures import load_fixture
from calstats import CalstatsError
from calstats.calibrators.cv import stratified_folds
from calstats.calibrators.venn_abers import CalVennAbers, CalVennAbersMulticlass, cal_venn_abers
from calstats.kernels.venn_abers import ivap_lookup, ivap_table

TOL = 1e-12
CASES = load_fixture("venn_abers")["cases"]


def _fit_case(case, **extra):
    kw = {"method": case["method"], "precision": case["precision"]}
    if "folds" in case:
        kw["folds"] = case["folds"]
    if case["kind"] == "multiclass":
        kw["reduction"] = case["reduction"]
    kw.update(extra)
    return cal_venn_abers(np.array(case["p"]), np.array(case["y"]), **kw)



def _cases(pred):
    return [pytest.param(c, id=c["name"]) for c in CASES if pred(c)]


def _is_venn_abers(c):
    return c["reference"].startswith("venn-abers")


# --------------------------------------------------------------------------------------
# references


@pytest.mark.parametrize("case", _cases(lambda c: _is_venn_abers(c) and c["kind"] == "binary"))
def test_binary_matches_venn_abers(case):
    fit = _fit_case(case)
    nd = np.array(case["newdata"])
    assert np.max(np.abs(fit.predict(nd) - case["fit"])) <= TOL
    if case["method"] == "inductive":
        iv = fit.predict(nd, interval=True)
        assert np.max(np.abs(iv["p0"].to_numpy() - case["p0"])) <= TOL
        assert np.max(np.abs(iv["p1"].to_numpy() - case["p1"])) <= TOL
    else:
        k = len(case["p0_folds"][0])
        iv = fit.predict(nd, interval=True, by_fold=True)
        assert np.max(np.abs(iv[[f"p0.{f}" for f in range(1, k + 1)]].to_numpy() - case["p0_folds"])) <= TOL
        assert np.max(np.abs(iv[[f"p1.{f}" for f in range(1, k + 1)]].to_numpy() - case["p1_folds"])) <= TOL
        brier = _fit_case(case, merge="brier")
        assert np.max(np.abs(brier.predict(nd) - case["fit_brier"])) <= TOL


@pytest.mark.parametrize("case", _cases(lambda c: _is_venn_abers(c) and c["kind"] == "multiclass"))
def test_multiclass_matches_venn_abers(case):
    fit = _fit_case(case)
    nd = np.array(case["newdata"])
    pred = fit.predict(nd)
    assert list(pred.columns) == [str(j) for j in range(1, nd.shape[1] + 1)]
    assert np.max(np.abs(pred.to_numpy() - case["fit"])) <= TOL
    if "p0p1" in case:
        assert np.max(np.abs(fit.predict(nd, interval=True).to_numpy() - case["p0p1"])) <= TOL
    if "fit_brier" in case:
        assert np.max(np.abs(_fit_case(case, merge="brier").predict(nd).to_numpy() - case["fit_brier"])) <= TOL


def test_fixture_covers_every_variant():
    kinds = {(c["kind"], c["method"], c.get("reduction"), c["precision"] is not None) for c in CASES
             if _is_venn_abers(c)}
    assert ("binary", "inductive", None, True) in kinds and ("binary", "cross", None, True) in kinds
    assert {("multiclass", "inductive", "one_vs_one", False), ("multiclass", "inductive", "one_vs_rest", False),
            ("multiclass", "cross", "one_vs_one", False)} <= kinds


@pytest.mark.parametrize("case", _cases(lambda c: c["reference"].startswith("MAPIE") and c["kind"] == "binary"))
def test_binary_mapie_differs_only_above_the_largest_score(case):
    # MAPIE's copy of venn-abers lacks `p1[-1] = 1`: above every calibration score its p1
    # is that of a score equal to the largest one
    fit = _fit_case(case)
    nd = np.array(case["newdata"])
    iv = fit.predict(nd, interval=True)
    above = nd > np.max(case["p"])
    assert above.any()
    assert np.max(np.abs(iv["p0"].to_numpy() - case["p0"])) <= TOL
    p1 = iv["p1"].to_numpy()
    assert np.max(np.abs(p1[~above] - np.array(case["p1"])[~above])) <= TOL
    assert np.all(p1[above] == 1.0)
    at_max = fit.predict(np.array([np.max(case["p"])]), interval=True)["p1"].iloc[0]
    assert at_max < 1.0
    assert np.max(np.abs(np.array(case["p1"])[above] - at_max)) <= TOL
    mapie_fit = np.array(case["p1"]) / (1 - np.array(case["p0"]) + np.array(case["p1"]))
    assert np.max(np.abs(mapie_fit - case["fit"])) <= TOL


@pytest.mark.parametrize("case", _cases(lambda c: c["reference"].startswith("MAPIE") and c["kind"] == "multiclass"))
def test_multiclass_mapie(case):
    fit = _fit_case(case)
    nd = np.array(case["newdata"])
    assert np.max(np.abs(fit.predict(nd).to_numpy() - case["fit"])) <= TOL
    assert np.max(np.abs(fit.predict(nd, interval=True).to_numpy() - case["p0p1"])) <= TOL


# --------------------------------------------------------------------------------------
# the definition


def _brute(x, y, w, s, label):
    """The isotonic fit at ``s`` after adding ``(s, label)`` with weight 1 (ties share a value)."""
    xs, ys, ws = np.append(x, s), np.append(y, label).astype(float), np.append(w, 1.0)
    c, inv = np.unique(xs, return_inverse=True)
    gw = np.bincount(inv, weights=ws)
    gy = np.bincount(inv, weights=ws * ys)
    fit = isotonic_regression(gy / gw, weights=gw).x
    return fit[np.searchsorted(c, s)]


def _check_definition(x, y, w, tests):
    c, p0, p1 = ivap_table(np.asarray(x, float), np.asarray(y), None if w is None else np.asarray(w, float))
    a0, a1 = ivap_lookup(c, p0, p1, np.asarray(tests, float))
    ww = np.ones(len(x)) if w is None else np.asarray(w, float)
    for s, q0, q1 in zip(tests, a0, a1):
        assert abs(q0 - _brute(x, y, ww, s, 0)) <= 1e-12
        assert abs(q1 - _brute(x, y, ww, s, 1)) <= 1e-12


def test_ties_follow_the_definition():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 6, size=80) / 5
    y = (rng.uniform(size=80) < 0.2 + 0.6 * x).astype(int)
    _check_definition(x, y, None, np.concatenate([np.unique(x), [-0.1, 0.1, 0.5, 1.1]]))


def test_weights_follow_the_definition():
    rng = np.random.default_rng(4)
    x = np.round(rng.uniform(size=60), 1)
    y = (rng.uniform(size=60) < x).astype(int)
    w = rng.uniform(0.2, 3.0, size=60)
    _check_definition(x, y, w, np.concatenate([np.unique(x), [0.05, 0.55, 1.5]]))


def test_constant_scores():
    y = np.array([0, 1, 1, 0, 1, 1, 1])
    fit = cal_venn_abers(np.full(7, 0.4), y)
    iv = fit.predict([0.1, 0.4, 0.9], interval=True)
    assert iv["p0"].tolist() == [0.0, 5 / 8, 5 / 8]
    assert iv["p1"].tolist() == [6 / 8, 6 / 8, 1.0]
    assert fit.predict([0.4])[0] == (6 / 8) / (1 - 5 / 8 + 6 / 8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.booleans(), st.integers(1, 3)), min_size=1, max_size=25),
       st.lists(st.integers(-1, 9), min_size=1, max_size=6))
def test_hypothesis_definition_and_order(rows, tests):
    x = np.array([r[0] for r in rows]) / 8
    y = np.array([int(r[1]) for r in rows])
    w = np.array([float(r[2]) for r in rows])
    t = np.array(tests) / 8
    _check_definition(x, y, w, t)
    c, p0, p1 = ivap_table(x, y, w)
    a0, a1 = ivap_lookup(c, p0, p1, t)
    assert np.all((0 <= a0) & (a0 <= a1) & (a1 <= 1))
    assert np.all(np.diff(p0) >= 0) and np.all(np.diff(p1) >= 0)
    for merge in ("log", "brier"):
        if y.min() == y.max():
            continue
        fit = cal_venn_abers(x, y, weights=w, merge=merge).predict(t, interval=True)
        assert np.all((fit["p0"] <= fit["fit"] + 1e-15) & (fit["fit"] <= fit["p1"] + 1e-15))


# --------------------------------------------------------------------------------------
# options


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p**1.5).astype(int)


def test_integer_weights_equal_replicated_rows():
    p, y = _data()
    w = np.random.default_rng(9).integers(0, 4, size=p.size)
    rep = np.repeat(np.arange(p.size), w)
    t = np.linspace(-0.1, 1.1, 41)
    a = cal_venn_abers(p, y, weights=w).predict(t, interval=True)
    b = cal_venn_abers(p[rep], y[rep]).predict(t, interval=True)
    pd.testing.assert_frame_equal(a, b)
    folds = np.arange(p.size) % 3 + 1
    a = cal_venn_abers(p, y, weights=w, method="cross", folds=folds).predict(t)
    b = cal_venn_abers(p[rep], y[rep], method="cross", folds=folds[rep]).predict(t)
    np.testing.assert_array_equal(a, b)


def test_multiclass_weights_equal_replicated_rows():
    rng = np.random.default_rng(5)
    P = rng.dirichlet([1, 1, 1], size=90)
    y = np.tile([1, 2, 3], 30)
    w = rng.integers(1, 3, size=90)
    rep = np.repeat(np.arange(90), w)
    for reduction in ("one_vs_one", "one_vs_rest"):
        a = cal_venn_abers(P, y, weights=w, reduction=reduction).predict(P[:20])
        b = cal_venn_abers(P[rep], y[rep], reduction=reduction).predict(P[:20])
        pd.testing.assert_frame_equal(a, b)


def test_cross_folds_from_seed_and_a_fold_with_one_class():
    p, y = _data()
    fit = cal_venn_abers(p, y, method="cross", folds=4, seed=12)
    np.testing.assert_array_equal(fit.fold_id, stratified_folds(y, 4, 12))
    # a fold holding only label 0: its IVAP is still defined (p1 from the added 1)
    folds = np.where(y == 1, 1 + np.arange(y.size) % 2, 1 + np.arange(y.size) % 3)
    assert set(y[folds == 3]) == {0}
    fit = cal_venn_abers(p, y, method="cross", folds=folds)
    t = np.linspace(0, 1, 11)
    iv = fit.predict(t, interval=True, by_fold=True)
    single = [cal_venn_abers(p[folds == f], y[folds == f]) if f < 3 else None for f in (1, 2, 3)]
    for f in (1, 2):
        np.testing.assert_array_equal(iv[f"p1.{f}"], single[f - 1].predict(t, interval=True)["p1"])
    c, p0, p1 = ivap_table(p[folds == 3], y[folds == 3])
    np.testing.assert_array_equal(iv["p0.3"], ivap_lookup(c, p0, p1, t)[0])
    assert np.all(iv["p0.3"] == 0)
    g1 = iv[["p1.1", "p1.2", "p1.3"]].to_numpy().prod(axis=1) ** (1 / 3)
    g0 = (1 - iv[["p0.1", "p0.2", "p0.3"]].to_numpy()).prod(axis=1) ** (1 / 3)
    np.testing.assert_allclose(iv["fit"], g1 / (g0 + g1), rtol=0, atol=1e-15)
    np.testing.assert_allclose(iv["p1"], g1, rtol=0, atol=1e-15)


def test_multiclass_cross_one_vs_rest_is_binary_per_class():
    rng = np.random.default_rng(8)
    P = rng.dirichlet([2, 1, 1], size=150)
    y = 1 + np.arange(150) % 3
    fit = cal_venn_abers(P, y, method="cross", folds=3, seed=1, reduction="one_vs_rest")
    cols = [cal_venn_abers(P[:, j], (y == j + 1).astype(int), method="cross", folds=fit.fold_id).predict(P[:10, j])
            for j in range(3)]
    M = np.column_stack(cols)
    np.testing.assert_allclose(fit.predict(P[:10]).to_numpy(), M / M.sum(axis=1, keepdims=True), rtol=0, atol=1e-15)


def test_precision_rounds_calibration_scores_only():
    p, y = _data()
    a = cal_venn_abers(p, y, precision=1)
    b = cal_venn_abers(np.round(p, 1), y)
    t = np.array([0.05, 0.149, 0.15, 0.151, 0.5])
    np.testing.assert_array_equal(a.predict(t), b.predict(t))
    assert a.scores[0].size <= 11
    assert cal_venn_abers(p, y, precision=np.int64(2)).precision == 2


def test_pandas_input_and_index():
    p, y = _data()
    idx = pd.Index([f"r{i}" for i in range(p.size)])
    fit = cal_venn_abers(pd.Series(p, index=idx), pd.Series(y, index=idx))
    np.testing.assert_array_equal(fit.predict(pd.Series(p)), cal_venn_abers(p, y).predict(p))
    iv = fit.predict(pd.Series(p[:5], index=idx[:5]), interval=True)
    assert list(iv.index) == list(idx[:5]) and list(iv.columns) == ["p0", "p1", "fit"]
    rng = np.random.default_rng(2)
    P = pd.DataFrame(rng.dirichlet([1, 1, 1], size=60), columns=["a", "b", "c"])
    lab = pd.Categorical(np.array(["a", "b", "c"])[np.arange(60) % 3], categories=["a", "b", "c"])
    mfit = cal_venn_abers(P, lab, reduction="one_vs_one")
    out = mfit.predict(P.iloc[5:9])
    assert list(out.columns) == ["a", "b", "c"] and list(out.index) == [5, 6, 7, 8]
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert list(mfit.predict(P.iloc[:2], interval=True).columns) == ["p0.a.b", "p1.a.b", "p0.a.c", "p1.a.c",
                                                                      "p0.b.c", "p1.b.c"]
    ovr = cal_venn_abers(P, lab, reduction="one_vs_rest").predict(P.iloc[:2], interval=True)
    assert list(ovr.columns) == ["p0.a", "p1.a", "p0.b", "p1.b", "p0.c", "p1.c"]


def test_float32_input():
    p, y = _data()
    p32 = p.astype(np.float32)
    a = cal_venn_abers(p32, y, method="cross", folds=3, seed=4)
    b = cal_venn_abers(p32.astype(np.float64), y, method="cross", folds=3, seed=4)
    np.testing.assert_array_equal(a.predict(p32), b.predict(p32.astype(np.float64)))
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=60)
    yy = 1 + np.arange(60) % 3
    P32 = P.astype(np.float32)
    P32 /= P32.sum(axis=1, keepdims=True)
    pd.testing.assert_frame_equal(cal_venn_abers(P32, yy).predict(P32),
                                  cal_venn_abers(P32.astype(np.float64), yy).predict(P32.astype(np.float64)))


def test_inputs_not_mutated():
    p, y = _data()
    w = np.linspace(0.5, 2, p.size)
    folds = 1 + np.arange(p.size) % 3
    copies = [a.copy() for a in (p, y, w, folds)]
    fit = cal_venn_abers(p, y, weights=w, method="cross", folds=folds, precision=2)
    t = p[:10].copy()
    fit.predict(t, interval=True, by_fold=True)
    for a, b in zip((p, y, w, folds), copies):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(t, p[:10])
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=60)
    P0 = P.copy()
    cal_venn_abers(P, 1 + np.arange(60) % 3).predict(P)
    np.testing.assert_array_equal(P, P0)


def test_pickle_round_trip():
    p, y = _data()
    for fit in (cal_venn_abers(p, y), cal_venn_abers(p, y, method="cross", folds=3, seed=1, merge="brier")):
        back = pickle.loads(pickle.dumps(fit))
        pd.testing.assert_frame_equal(back.predict(p, interval=True), fit.predict(p, interval=True))
        assert str(back) == str(fit)
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=60)
    m = cal_venn_abers(P, 1 + np.arange(60) % 3, method="cross", folds=2, seed=3)
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(m)).predict(P), m.predict(P))


def test_result_protocol():
    p, y = _data()
    fit = cal_venn_abers(p, y, method="cross", folds=3, seed=2)
    assert isinstance(fit, CalVennAbers) and fit.inherits("cal_venn_abers") and fit.inherits("calibrator")
    assert fit.call["function"] == "cal_venn_abers"
    assert list(fit.call["args"]) == ["p", "y", "method", "folds", "seed"]
    text = str(fit.summary())
    assert "Method: cross Venn-Abers predictor" in text and "Folds: 3" in text
    assert "Merge: log loss (p1 / (1 - p0 + p1))" in text and "Precision: none" in text
    frame = fit.as_frame()
    assert list(frame.columns) == ["n", "events", "distinct_scores"] and frame["n"].sum() == p.size
    steps = fit.steps(2)
    assert list(steps.columns) == ["score", "p0", "p1", "fit"] and len(steps) == fit.scores[1].size
    assert fit.names()[:4] == ["method", "n", "input", "variant"] and fit["folds"] == 3
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=60)
    m = cal_venn_abers(P, 1 + np.arange(60) % 3, reduction="one_vs_one")
    assert isinstance(m, CalVennAbersMulticlass) and m.inherits("cal_multiclass")
    assert "Classes: 3" in str(m) and "Reduction: one_vs_one" in str(m.summary())
    assert list(m.as_frame().index) == ["1.2", "1.3", "2.3"]
    assert m._repr_html_().startswith("<h4>")


# --------------------------------------------------------------------------------------
# messages


def _raises(msg, fn, *args, **kwargs):
    with pytest.raises(CalstatsError) as err:
        fn(*args, **kwargs)
    assert str(err.value) == msg


def test_error_method():
    p, y = _data()
    _raises("Argument `method` should be one of “inductive”, “cross”, not “full”.", cal_venn_abers, p, y,
            method="full")


def test_error_reduction():
    p, y = _data()
    _raises("Argument `reduction` should be one of “top_label”, “one_vs_one”, “one_vs_rest”, not “pairs”.",
            cal_venn_abers, p, y,
            reduction="pairs")


def test_error_merge():
    p, y = _data()
    _raises("Argument `merge` should be one of “log”, “brier”, not “mean”.", cal_venn_abers, p, y, merge="mean")


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, np.nan])
def test_error_precision(bad):
    p, y = _data()
    _raises("Argument `precision` must be `None` or a single non-negative integer.", cal_venn_abers, p, y,
            precision=bad)


def test_error_scores():
    _, y = _data()
    _raises("Argument `p` must contain only finite values.", cal_venn_abers, np.r_[np.inf, np.zeros(119)], y)


def test_error_labels_one_class():
    p, _ = _data()
    _raises("Argument `y` must contain at least one `0` and one `1`.", cal_venn_abers, p, np.zeros(p.size))


def test_error_lengths():
    p, y = _data()
    _raises("Arguments `p` and `y` must have the same length.", cal_venn_abers, p[:-1], y)


def test_error_fold_count():
    p, y = _data()
    _raises("Argument `folds` must not exceed the smallest class count.", cal_venn_abers, p, y, method="cross",
            folds=10_000)


@pytest.mark.parametrize("bad", [lambda n: np.zeros(n), lambda n: np.full(n, 1), lambda n: 1 + 2 * (np.arange(n) % 2),
                                 lambda n: np.arange(n) % 2 + 1.5, "abc"])
def test_error_fold_ids(bad):
    p, y = _data()
    folds = bad if isinstance(bad, str) else bad(p.size)
    _raises("Argument `folds` must be a number of folds or one fold id per observation (whole numbers from 1, "
            "every fold from 1 to the largest present, at least two folds).", cal_venn_abers, p, y,
            method="cross", folds=folds)


def test_error_fold_id_length():
    p, y = _data()
    _raises("Argument `folds` must have one fold id per observation (120), not 3.", cal_venn_abers, p, y,
            method="cross", folds=[1, 2, 1])


def test_error_empty_fold():
    p, y = _data()
    folds = 1 + np.arange(p.size) % 2
    _raises('Every fold must hold at least one observation of positive weight (for a matrix with reduction = '
            '"one_vs_one": in every pair of classes).', cal_venn_abers, p, y, method="cross", folds=folds,
            weights=(folds == 1).astype(float))


def test_error_every_class():
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=30)
    y = pd.Categorical([1, 2] * 15, categories=[1, 2, 3])
    _raises("Every class must appear in `y` for Venn-Abers calibration of a matrix.", cal_venn_abers, P, y)


def test_error_matrix_rows():
    P = np.full((10, 3), 0.5)
    _raises("Each row of `p` must sum to `1`.", cal_venn_abers, P, 1 + np.arange(10) % 3)


def test_error_newdata_columns():
    P = np.random.default_rng(1).dirichlet([1, 1, 1], size=30)
    fit = cal_venn_abers(P, 1 + np.arange(30) % 3)
    _raises("Argument `newdata` must have 3 columns, one per class.", fit.predict, np.full((2, 2), 0.5))


def test_error_newdata_scores():
    p, y = _data()
    _raises("Argument `newdata` must not contain missing values.", cal_venn_abers(p, y).predict, [0.1, np.nan])


def test_error_by_fold():
    p, y = _data()
    _raises('`by_fold = True` needs a cross Venn-Abers fit (method = "cross").', cal_venn_abers(p, y).predict, p,
            interval=True, by_fold=True)


def test_error_interval_flag():
    p, y = _data()
    _raises("Argument `interval` must be `True` or `False`.", cal_venn_abers(p, y).predict, p, interval="yes")


def test_error_unused_predict_argument():
    p, y = _data()
    _raises("unused argument (loss = \"log\")", cal_venn_abers(p, y).predict, p, loss="log")


def test_error_steps_fold():
    p, y = _data()
    _raises("Argument `fold` must be a whole number from 1 to 1.", cal_venn_abers(p, y).steps, 2)

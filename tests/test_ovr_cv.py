"""cal_ovr and cal_cv against R (ovr.json, cv.json): fields, nested calibrators, fold ids,
out-of-fold predictions and the global random stream."""

import numpy as np
import pandas as pd
import pytest

import calstats
from _rcases import arr, assert_fields, case_ids, load_cases, run_call

OVR = load_cases("ovr")
CV = load_cases("cv")
_PRED_KEYS = ("predict_fit", "predict_new", "predict_colnames", "oof_colnames", "runif_after", "warnings")


@pytest.mark.parametrize("case", OVR + CV, ids=case_ids(OVR + CV))
def test_matches_r(case):
    env, _ = run_call(case, calstats)
    out = case["outputs"]
    fit = env["fit"]
    # every piece is R's own algorithm in R's arithmetic: GLM, Brent, BFGS, binning
    assert_fields(fit, out, rtol=1e-10, atol=1e-12, skip=_PRED_KEYS)
    for key, name in (("predict_fit", "pred_fit"), ("predict_new", "pred_new")):
        if key in out:
            got = env[name]
            np.testing.assert_allclose(np.asarray(got, dtype=float), arr(out[key]).reshape(np.shape(got)),
                                       rtol=0, atol=1e-10)
    if "predict_colnames" in out:
        assert list(env["pred_new"].columns) == out["predict_colnames"]
    if "oof_colnames" in out:
        assert list(fit.oof_predictions.columns) == out["oof_colnames"]
    if "runif_after" in out:
        np.testing.assert_array_equal(env["after"], arr(out["runif_after"]))


def test_seed_restores_the_global_stream_including_never_initialised():
    x = np.linspace(0.05, 0.95, 20)
    y = np.tile([0, 1], 10)
    calstats.rng.set_state(None)
    calstats.cal_cv(x, y, folds=2, seed=1)
    assert calstats.rng.get_state() is None
    calstats.rng.set_seed(5)
    before = calstats.rng.get_state()
    calstats.cal_cv(x, y, folds=2, seed=1)
    assert calstats.rng.get_state() == before


def test_unknown_argument_is_r_unused_argument_error_after_folds():
    x = np.linspace(0.05, 0.95, 20)
    y = np.tile([0, 1], 10)
    with pytest.raises(calstats.CalstatsError, match=r"^unused argument \(nbins = 3\)$"):
        calstats.cal_cv(x, y, method="histogram", folds=2, seed=1, nbins=3)
    p = np.full((20, 2), 0.5)
    with pytest.raises(calstats.CalstatsError, match=r"^unused argument \(foo = TRUE\)$"):
        calstats.cal_ovr(p, y + 1, method="beta", foo=True)


def test_ovr_zero_rows_become_uniform_and_pandas_index_kept():
    x = pd.DataFrame(np.eye(3)[[0, 1, 2, 0, 1, 2]], index=list("abcdef"))
    fit = calstats.cal_ovr(x, [1, 2, 3, 1, 2, 3], method="isotonic")
    pred = fit.predict(x)
    assert list(pred.index) == list("abcdef")
    np.testing.assert_allclose(pred.sum(axis=1), 1.0)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _mc_data(seed, n, k):
    rs = np.random.default_rng(seed)
    p = rs.dirichlet(np.ones(k), size=n)
    y = np.array([rs.choice(k, p=row) for row in p]) + 1
    y[:k] = np.arange(1, k + 1)  # every class occurs
    return p, y


@pytest.mark.filterwarnings("ignore:glm.fit:calstats.CalstatsWarning")  # R warns on separable columns
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(8, 80), k=st.integers(2, 5),
       method=st.sampled_from(["platt", "beta", "isotonic", "histogram"]))
def test_ovr_rows_sum_to_one_and_inputs_untouched(seed, n, k, method):
    p, y = _mc_data(seed, n, k)
    p0, y0 = p.copy(), y.copy()
    pred = calstats.cal_ovr(p, y, method=method).predict(p).to_numpy()
    np.testing.assert_allclose(pred.sum(axis=1), 1.0, atol=1e-12)
    assert np.all((pred >= 0) & (pred <= 1))
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(y, y0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(10, 120), folds=st.integers(2, 5), rseed=st.integers(-2**31 + 1, 2**31 - 1))
def test_cv_folds_are_stratified_and_reproducible(seed, n, folds, rseed):
    rs = np.random.default_rng(seed)
    x = rs.random(n)
    y = (rs.random(n) < x).astype(int)
    y[: 2 * folds] = np.tile([0, 1], folds)
    fit = calstats.cal_cv(x, y, method="histogram", folds=folds, seed=rseed, bins=3)
    for value in (0, 1):  # each class is dealt round-robin: fold sizes differ by at most one
        sizes = np.bincount(fit.fold_id[y == value], minlength=folds + 1)[1:]
        assert sizes.max() - sizes.min() <= 1
    again = calstats.cal_cv(x, y, method="histogram", folds=folds, seed=rseed, bins=3)
    np.testing.assert_array_equal(again.fold_id, fit.fold_id)
    np.testing.assert_array_equal(again.oof_predictions, fit.oof_predictions)
    assert np.all((fit.oof_predictions >= 0) & (fit.oof_predictions <= 1))

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


def test_seed_restores_never_initialised_state():
    calstats.rng.set_state(None) if hasattr(calstats.rng, "set_state") else None
    x = np.linspace(0.05, 0.95, 20)
    y = np.tile([0, 1], 10)
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

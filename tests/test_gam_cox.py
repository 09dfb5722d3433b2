"""calstats.ports.mgcv.cox_ph against mgcv 1.8-41 (tools/r-reference/make_gam_cox.R).

Tolerances (measured since gam.fit5's inner Newton iteration is replayed, in brackets):
survival and its standard error 1e-7 absolute (7.3e-9; were 1e-6), coefficients and
``Vp`` 2e-7 (2.3e-8; were 1e-5 and 1e-6), edf 3e-7 (2.7e-8)."""

import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats._errors import CalstatsError, CalstatsWarning
from calstats._messages import GAM_BS, GAM_COX_DATA, GAM_COX_NEWDATA, GAM_COX_STATUS, GAM_K, GAM_METHOD
from calstats.ports.mgcv.cox_ph import gam_coxph

FIX = load_fixture("gam_cox")
TOL = 1e-7


@functools.lru_cache(maxsize=None)
def _fit(name, method=None):
    c = FIX[name]
    return gam_coxph(c["time"], c["status"], c["x"], k=c["k"], bs=c["bs"], fx=c["fx"],
                     method=method or c["method"])


@pytest.mark.parametrize("name", sorted(FIX))
def test_survival_matches_mgcv(name):
    c = FIX[name]
    f = _fit(name)
    s, se = f.survival(c["t0"], c["xp"], se_fit=True)
    np.testing.assert_allclose(s, c["surv_xp"], rtol=0, atol=TOL)
    np.testing.assert_allclose(se, c["se_xp"], rtol=0, atol=TOL)
    sx, none = f.survival(c["t0"], c["x"])
    assert none is None
    np.testing.assert_allclose(sx, c["surv_x"], rtol=0, atol=TOL)
    xv = np.repeat(c["xp"][9], len(c["tv"]))
    st_, set_ = f.survival(c["tv"], xv, se_fit=True)
    np.testing.assert_allclose(st_, c["surv_tv"], rtol=0, atol=TOL)
    np.testing.assert_allclose(set_, c["se_tv"], rtol=0, atol=TOL)
    # before the first observed time mgcv's coxpred returns S = 1 with se 0
    assert st_[0] == 1.0 and set_[0] == 0.0


@pytest.mark.parametrize("name", sorted(FIX))
def test_record_has_mgcv_fields(name):
    """mgcv's field names in gamObject's order; ``fit$edf`` per coefficient within 3e-8 of
    mgcv's (measured 6.2e-9; tools/r-reference/make_gam_edf.R)."""
    r = load_fixture("gam_edf")["cox_ph"][name]
    f = _fit(name)
    assert f.names() == ["coefficients", "linear.predictors", "sp", "gcv.ubre", "method", "Vp", "edf"]
    assert f["Vp"] is f.vcov and f["method"] == r["method"] == "REML"
    np.testing.assert_allclose(f["edf"], r["edf"], rtol=0, atol=3e-8)
    assert f.edf_total == pytest.approx(float(np.sum(f.edf)), rel=1e-11)  # measured 2e-12


@pytest.mark.parametrize("name", sorted(FIX))
def test_fit_matches_mgcv(name):
    c = FIX[name]
    f = _fit(name)
    p = len(c["coefficients"])
    np.testing.assert_allclose(f.coefficients, c["coefficients"], rtol=0, atol=2e-7)
    np.testing.assert_allclose(f.vcov, np.array(c["vcov"]).reshape(p, p, order="F"),
                               rtol=0, atol=2e-7)
    assert f.edf_total == pytest.approx(c["edf"][0], abs=3e-7)
    assert f.iterations == c["iter"][0]
    assert f.method == c["fit_method"] == "REML"
    if c["fx"]:
        assert f.sp is None
    else:
        assert f.sp == pytest.approx(c["sp"][0], rel=1e-5)
        assert f.score == pytest.approx(c["score"][0], abs=1e-6)


def test_gcv_is_fitted_by_reml():
    name = "n100_c20_ties_tp_k5"
    a, b = _fit(name, "REML"), _fit(name, "GCV.Cp")
    assert a.sp == b.sp
    np.testing.assert_array_equal(a.coefficients, b.coefficients)


def test_inputs_float32_series_and_not_mutated():
    c = FIX["n100_c20_ties_tp_k5"]
    t = np.array(c["time"])
    d = pd.Series(c["status"])
    x = np.array(c["x"], dtype=np.float32)
    t0, d0, x0 = t.copy(), d.copy(), x.copy()
    f = gam_coxph(t, d, x, k=5)
    np.testing.assert_array_equal(t, t0)
    pd.testing.assert_series_equal(d, d0)
    np.testing.assert_array_equal(x, x0)
    ref = _fit("n100_c20_ties_tp_k5")
    s, _ = f.survival(c["t0"], c["xp"])
    s_ref, _ = ref.survival(c["t0"], c["xp"])
    # float32 rounding of x moves the curve, but only slightly
    np.testing.assert_allclose(s, s_ref, atol=1e-4)


def test_row_order_does_not_matter():
    c = FIX["n300_c80_ties_tp_default"]
    perm = np.random.default_rng(3).permutation(len(c["time"]))
    f = gam_coxph(np.array(c["time"])[perm], np.array(c["status"])[perm],
                  np.array(c["x"])[perm])
    s, se = f.survival(c["t0"], c["xp"], se_fit=True)
    np.testing.assert_allclose(s, c["surv_xp"], rtol=0, atol=TOL)
    np.testing.assert_allclose(se, c["se_xp"], rtol=0, atol=TOL)


@settings(max_examples=40, deadline=None)
@given(t1=st.floats(0, 20), dt=st.floats(0, 5), xv=st.floats(-6, 3))
def test_survival_is_a_survival_function(t1, dt, xv):
    f = _fit("n100_c80_tp_default")
    s, se = f.survival([t1, t1 + dt], [xv, xv], se_fit=True)
    assert np.all((s >= 0) & (s <= 1))
    assert s[1] <= s[0]
    assert np.all(se >= 0)


def test_t0_recycled_against_xnew():
    f = _fit("n100_c80_tp_default")
    c = FIX["n100_c80_tp_default"]
    a, _ = f.survival(c["t0"], c["xp"][:4])
    b, _ = f.survival([c["t0"]] * 2, c["xp"][:4])
    np.testing.assert_array_equal(a, b)


def test_small_k_warns():
    c = FIX["n100_c20_ties_tp_k5"]
    with pytest.warns(CalstatsWarning, match="increased to minimum possible"):
        f = gam_coxph(c["time"], c["status"], c["x"], k=2)
    assert f.basis.k == 3


@pytest.mark.parametrize("kwargs,message", [
    (dict(bs="ps"), GAM_BS),
    (dict(method="ML"), GAM_METHOD),
    (dict(k=4.5), GAM_K),
    (dict(time=[1.0, np.nan, 2.0, 3.0]), GAM_COX_DATA),
    (dict(x=[1.0, 2.0]), GAM_COX_DATA),
    (dict(status=[0, 2, 1, 1]), GAM_COX_STATUS),
    (dict(status=[0, 0, 0, 0]), GAM_COX_STATUS),
])
def test_errors(kwargs, message):
    args = dict(time=[1.0, 2.0, 3.0, 4.0], status=[1, 0, 1, 1], x=[0.1, 0.5, 0.2, 0.9])
    args.update({k: v for k, v in kwargs.items() if k in args})
    opts = {k: v for k, v in kwargs.items() if k not in args}
    with pytest.raises(CalstatsError) as err:
        gam_coxph(args["time"], args["status"], args["x"], **opts)
    assert str(err.value) == message


def test_newdata_errors():
    f = _fit("n100_c80_tp_default")
    with pytest.raises(CalstatsError, match="t0 and xnew"):
        f.survival([1.0, 2.0, 3.0], [0.1, 0.2])
    with pytest.raises(CalstatsError) as err:
        f.survival(1.0, [np.inf])
    assert str(err.value) == GAM_COX_NEWDATA

"""calstats.ports.mgcv.gam against mgcv 1.8-41 (tests/fixtures/gam.json, written by
tools/r-reference/make_gam.R on R 4.2.2). The tests read only the JSON, never R.

Tolerances (measured since mgcv's penalized IRLS is replayed, in brackets): fitted values
and predictions 1e-10 absolute (3e-12), linear predictors 1e-8 (1.6e-10), response-scale
standard errors 1e-9 (4.9e-11) and link-scale ones 1e-8 relative (2.7e-10); sp 5e-7
relative (5.9e-8 on a flat criterion, mostly below 1e-11), edf 1e-9 (4.7e-11), the
criterion 1e-11 (1.9e-13); the outer iteration count exactly. Coefficients, ``vcov`` and
the ``lpmatrix`` are compared where mgcv's basis is reproduced column for column
(coefficients and ``vcov`` 1e-10 relative to the largest entry: 1.8e-12, 5.9e-12); on an exactly symmetric grid the signs of some eigenvectors of mgcv's
Lanczos step depend on the last bits of its tridiagonal matrix, so there only
basis-invariant quantities are compared.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats import rng
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.ports.mgcv.gam import GamFit, gam_binomial

FIX = load_fixture("gam")
CASES = {c["name"]: c for c in FIX["cases"]}
FULL = [name for name, c in CASES.items() if "coefficients" in c]
# exactly symmetric covariate grids: basis reproduced up to the sign of some columns
SIGN_AMBIGUOUS = {"n200_symmetric", "n200_symmetric_fx_reml"}

_FITS = {}


def fit_case(name):
    if name not in _FITS:
        c = CASES[name]
        _FITS[name] = gam_binomial(c["x"], c["y"], k=c["k"], bs=c["bs"], fx=c["fx"],
                                   method=c["method"])
    return _FITS[name]


def arr(v):
    return np.asarray(v, dtype=float)


@pytest.mark.parametrize("name", list(CASES))
def test_fit_matches_mgcv(name):
    c = CASES[name]
    f = fit_case(name)
    assert isinstance(f, GamFit)
    np.testing.assert_allclose(f.fitted_values, arr(c["fitted"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(f.linear_predictors, arr(c["linear_predictors"]), rtol=0,
                               atol=1e-8)
    assert f.edf_total == pytest.approx(c["edf"], rel=1e-9)
    assert f.score == pytest.approx(c["score"], rel=1e-11, abs=1e-14)
    assert f.iterations == c["outer_iter"]
    if c["sp"] is None:
        assert f.sp is None
    else:
        assert f.sp == pytest.approx(c["sp"], rel=5e-7)


EDF = load_fixture("gam_edf")["binomial"]  # tools/r-reference/make_gam_edf.R


@pytest.mark.parametrize("name", list(CASES))
def test_record_has_mgcv_fields(name):
    """The fit record carries mgcv's field names in gamObject's order; ``fit$edf`` per
    coefficient within 1e-10 of mgcv's (measured 1.6e-11), ``fit$method`` as mgcv names it
    (``"UBRE"`` for ``GCV.Cp``)."""
    c, r = CASES[name], EDF[name]
    f = fit_case(name)
    assert f.names() == ["coefficients", "fitted.values", "linear.predictors", "deviance", "sp",
                         "gcv.ubre", "method", "Vp", "edf"]
    assert f["Vp"] is f.vcov and f["gcv.ubre"] == f.score and f["fitted.values"] is f.fitted_values
    np.testing.assert_allclose(f["edf"], arr(r["edf"]), rtol=0, atol=1e-10)
    assert f.method == r["method"]
    assert f.criterion == c["method"] == r["gcv_ubre_name"]
    assert f.edf_total == pytest.approx(float(np.sum(f.edf)), rel=1e-11)  # measured 2e-12


@pytest.mark.parametrize("name", list(CASES))
def test_predict_matches_mgcv(name):
    c = CASES[name]
    f = fit_case(name)
    p, se = f.predict(c["grid"], se_fit=True)
    np.testing.assert_allclose(p, arr(c["pred"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(se, arr(c["se"]), rtol=0, atol=1e-9)
    lp = f.lpmatrix(c["grid"])
    np.testing.assert_allclose(lp @ f.coefficients, arr(c["pred_link"]), rtol=0, atol=1e-8)
    se_link = np.sqrt(np.sum((lp @ f.vcov) * lp, axis=1))
    np.testing.assert_allclose(se_link, arr(c["se_link"]), rtol=1e-8)
    p_only, none = f.predict(c["grid"])
    assert none is None
    np.testing.assert_array_equal(p_only, p)


@pytest.mark.parametrize("name", [n for n in FULL if n not in SIGN_AMBIGUOUS])
def test_basis_coefficients_vcov_match_mgcv(name):
    c = CASES[name]
    f = fit_case(name)
    lp_r = arr(c["lpmatrix"])
    lp = f.lpmatrix(c["grid"])
    np.testing.assert_allclose(lp, lp_r, rtol=0, atol=1e-9 * np.max(np.abs(lp_r)))
    coef = arr(c["coefficients"])
    np.testing.assert_allclose(f.coefficients, coef, rtol=0, atol=1e-10 * np.max(np.abs(coef)))
    v = arr(c["vcov"])
    np.testing.assert_allclose(f.vcov, v, rtol=0, atol=1e-10 * np.max(np.abs(v)))
    if "S" in c:
        s = arr(c["S"])
        np.testing.assert_allclose(f.basis.S, s, rtol=0, atol=1e-9 * np.max(np.abs(s)))
        assert f.basis.S_scale == pytest.approx(c["S_scale"], rel=1e-9)


@pytest.mark.parametrize("name", sorted(SIGN_AMBIGUOUS))
def test_sign_ambiguous_basis_spans_mgcv(name):
    c = CASES[name]
    f = fit_case(name)
    lp_r = arr(c["lpmatrix"])
    lp = f.lpmatrix(c["grid"])
    # same column space: each of mgcv's columns is reproduced up to sign, or lies in the span
    resid = lp_r - lp @ np.linalg.lstsq(lp, lp_r, rcond=None)[0]
    assert np.max(np.abs(resid)) < 1e-8 * np.max(np.abs(lp_r))


def test_max_knots_subsample_keeps_user_random_stream():
    """More than 2000 unique values: mgcv draws its knots after set.seed(1) and then puts
    the user's stream back (or leaves it uninitialised)."""
    c = CASES["n2500_maxknots"]
    rng.set_seed(42)
    before = np.array(rng.get_state_r(), copy=True)
    f = gam_binomial(c["x"], c["y"], k=c["k"], bs=c["bs"], fx=c["fx"], method=c["method"])
    np.testing.assert_array_equal(rng.get_state_r(), before)
    assert f.basis.knots.shape[0] == 2000
    rng.set_state(None)
    gam_binomial(c["x"][:2100], c["y"][:2100])
    assert rng.get_state() is None


@pytest.mark.parametrize("name", ["n200_gcv", "n200_cr", "n2500_maxknots"])
def test_training_rows_without_newdata(name):
    c = CASES[name]
    f = fit_case(name)
    mm = f.lpmatrix()
    np.testing.assert_array_equal(mm, f.model_matrix)
    np.testing.assert_allclose(mm, f.lpmatrix(c["x"]), rtol=0, atol=1e-9 * np.max(np.abs(mm)))
    np.testing.assert_allclose(mm @ f.coefficients, f.linear_predictors, rtol=0, atol=1e-12)
    p, se = f.predict(se_fit=True)
    np.testing.assert_allclose(p, arr(c["fitted"]), rtol=0, atol=1e-6)
    assert se.shape == p.shape and np.all(se > 0)


def test_inputs_float32_pandas_not_mutated():
    c = CASES["n200_gcv"]
    x = pd.Series(np.asarray(c["x"], dtype=float))
    y = np.asarray(c["y"], dtype=np.int64)
    x_copy, y_copy = x.copy(), y.copy()
    f = gam_binomial(x, y)
    pd.testing.assert_series_equal(x, x_copy)
    np.testing.assert_array_equal(y, y_copy)
    np.testing.assert_allclose(f.fitted_values, arr(c["fitted"]), atol=1e-6)
    f32 = gam_binomial(np.asarray(c["x"], dtype=np.float32), y.astype(np.float32))
    ref = gam_binomial(np.asarray(c["x"], dtype=np.float32).astype(float), y)
    np.testing.assert_allclose(f32.fitted_values, ref.fitted_values, atol=1e-12)
    grid = pd.Series(c["grid"])
    np.testing.assert_allclose(f.predict(grid)[0], arr(c["pred"]), atol=1e-6)


def test_small_k_raised_with_mgcv_warning():
    c = CASES["n200_gcv"]
    with pytest.warns(CalstatsWarning, match="basis dimension, k, increased to minimum"):
        f2 = gam_binomial(c["x"], c["y"], k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f3 = gam_binomial(c["x"], c["y"], k=3)
    np.testing.assert_array_equal(f2.fitted_values, f3.fitted_values)
    assert f3.basis.k == 3


@pytest.mark.parametrize("kwargs, message", [
    (dict(bs="ps"), 'bs must be "tp" or "cr"'),
    (dict(method="ML"), 'method must be "GCV.Cp" or "REML"'),
    (dict(k=4.5), "k must be a whole number"),
    (dict(k=True), "k must be a whole number"),
])
def test_argument_errors(kwargs, message):
    c = CASES["n30_gcv"]
    with pytest.raises(CalstatsError, match=message.replace("(", r"\(")):
        gam_binomial(c["x"], c["y"], **kwargs)


def test_data_errors():
    c = CASES["n30_gcv"]
    msg = "x and y must be finite numeric vectors of the same length"
    with pytest.raises(CalstatsError, match=msg):
        gam_binomial(c["x"][:-1], c["y"])
    with pytest.raises(CalstatsError, match=msg):
        gam_binomial([np.nan] + c["x"][1:], c["y"])
    with pytest.raises(CalstatsError, match=msg):
        gam_binomial(["a"] * 30, c["y"])
    with pytest.raises(CalstatsError, match="y must contain only 0 and 1"):
        gam_binomial(c["x"], [0.5] * 30)


def test_too_few_unique_values():
    x = np.repeat(np.arange(6.0), 5)
    y = np.tile([0.0, 1.0, 1.0, 0.0, 1.0], 6)
    with pytest.raises(CalstatsError, match="fewer unique covariate combinations"):
        gam_binomial(x, y)
    with pytest.raises(CalstatsError, match="x has insufficient unique values to support 10 knots"):
        gam_binomial(x, y, bs="cr")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), bs=st.sampled_from(["tp", "cr"]))
def test_row_order_does_not_change_the_curve(seed, bs):
    """mgcv's fit depends on the data, not on their order (unique knots are sorted)."""
    c = CASES["n200_gcv"]
    x, y = arr(c["x"]), arr(c["y"])
    perm = np.random.default_rng(seed).permutation(x.shape[0])
    a = gam_binomial(x, y, bs=bs)
    b = gam_binomial(x[perm], y[perm], bs=bs)
    np.testing.assert_allclose(b.fitted_values, a.fitted_values[perm], atol=1e-8)
    np.testing.assert_allclose(b.predict(c["grid"])[0], a.predict(c["grid"])[0], atol=1e-8)
    assert b.sp == pytest.approx(a.sp, rel=1e-6)


WARN_FIX = load_fixture("gam_warnings")


@pytest.mark.parametrize("name", sorted(WARN_FIX))
def test_newton_warnings_as_mgcv(name):
    """mgcv's outer iteration ends with its warning (tools/r-reference/make_gam_warnings.R):
    the iteration limit (sp 4.5e-9 from mgcv's, fitted values 3.3e-10) and the step failure
    on separated data (fitted 0/1 to 1e-22; the criterion is flat there, sp 3.5 % apart)."""
    c = WARN_FIX[name]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f = gam_binomial(c["x"], c["y"], method=c["method"])
    expected = [c["warnings"]] if isinstance(c["warnings"], str) else c["warnings"]
    assert [str(w.message) for w in rec] == expected
    assert all(issubclass(w.category, CalstatsWarning) for w in rec)
    assert f.iterations == c["iter"]
    np.testing.assert_allclose(f.fitted_values, arr(c["fitted"]), rtol=0, atol=1e-8)
    if name == "iter":
        assert f.sp == pytest.approx(c["sp"][0], rel=1e-7)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), spread=st.sampled_from([0.3, 1.0, 5.0]))
def test_thin_plate_piecewise_cubic_equals_kernel_sum(seed, spread):
    """The thin plate basis at many points from its piecewise-cubic form equals the direct
    kernel sum ``[eta(|x - knot|), 1, x] UZ`` (relative to the largest entry of each row),
    inside the knots, at them and beyond them."""
    from calstats.ports.mgcv import smooth as sm

    rs = np.random.default_rng(seed)
    x = rs.standard_normal(300) * spread
    b = sm.smooth_basis(x, 10, "tp")
    lo, hi = b.knots[0], b.knots[-1]
    xs = np.concatenate([rs.uniform(lo, hi, 200), b.knots, [lo - 3 * spread, hi + 3 * spread]])
    direct = sm._tp_predict(xs, b.knots, b.UZ, None)
    poly = sm._tp_poly_eval(xs, b.knots, b.UZ, sm._tp_poly(b.knots, b.UZ))
    scale = np.max(np.abs(direct), axis=1, keepdims=True)
    assert np.max(np.abs(poly - direct) / scale) < 1e-10


def test_prediction_at_many_points_keeps_the_cubic_form():
    c = CASES["n200_gcv"]
    f = gam_binomial(c["x"], c["y"], k=c["k"], bs=c["bs"], fx=c["fx"], method=c["method"])
    assert f.basis.tp_poly is None
    grid = np.linspace(min(c["x"]) - 1, max(c["x"]) + 1, 5000)  # more than 4 x the knots
    lp = f.lpmatrix(grid)
    assert f.basis.tp_poly is not None
    fresh = gam_binomial(c["x"], c["y"], k=c["k"], bs=c["bs"], fx=c["fx"], method=c["method"])
    direct = fresh.lpmatrix(grid[:100])  # few points on a fit without the cubic form: direct
    assert fresh.basis.tp_poly is None
    np.testing.assert_allclose(lp[:100], direct, rtol=0, atol=1e-10 * np.max(np.abs(direct)))

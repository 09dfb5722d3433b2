"""pmcalibration's logistic_cal (fits, summary, print) and MASS's profile intervals against R.

Fixture: tools/r-reference/make_logcal.R (R 4.2.2, pmcalibration 0.2.0, MASS 7.3-58.2).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats._errors import CalstatsError, CalstatsWarning
from calstats._messages import PROFILE_BETTER_SOLUTION
from calstats.clinical.logcal import LogisticCal, LogisticCalSummary, logistic_cal
from calstats.ports.stats.glm import glm_binomial
from calstats.ports.stats.profile import (
    approx_linear,
    confint_glm,
    profile_glm,
    spline_fmm,
)

FIX = load_fixture("logcal")
CASES = FIX["cases"]
IDS = [c["name"] for c in CASES]
SUMMARIES = [(c, s) for c in CASES for s in c["summaries"]]
SUMMARY_IDS = [f"{c['name']}-{s['level']}" for c, s in SUMMARIES]

TOL_FIT = 1e-10  # estimates, SEs, z, p-values, LR statistics (relative)
TOL_CI = 1e-8  # profile intervals (relative)


def _arr(v):
    if v is None:
        return np.array([np.nan])
    v = v if isinstance(v, list) else [v]
    return np.array([np.nan if x is None else x for x in v], dtype=np.float64)


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    if a.size == 0:
        return 0.0
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    return float(np.max(np.abs(a[ok] - b[ok]) / np.maximum(np.abs(b[ok]), 1e-300), initial=0.0))


def _run(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in rec]


_FITTED: dict[str, tuple[LogisticCal, list[str]]] = {}


def _fit(case):
    if case["name"] not in _FITTED:
        _FITTED[case["name"]] = _run(logistic_cal, _arr(case["y"]), _arr(case["p"]))
    return _FITTED[case["name"]]


def _stats(s):
    return np.array([_arr(s["stats"][k]) for k in s["stats_cols"]]).T


# --------------------------------------------------------------------------------------
# the three glm fits


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fits_match_r(case):
    res, _ = _fit(case)
    for fit, ref in ((res.m_fixed, case["m_fixed"]), (res.calibration_intercept, case["m_int"]),
                     (res.calibration_slope, case["m_intslo"])):
        assert list(fit.coefficients.index) == ref["names"]
        assert _rel(fit.coefficients.to_numpy(), _arr(ref["coefficients"]) if ref["names"] else []) <= TOL_FIT
        for field in ("deviance", "aic", "null_deviance"):
            assert _rel(getattr(fit, field), _arr(ref[field])[0]) <= TOL_FIT, field
        assert _rel(float(fit.rank) - fit.aic / 2, _arr(ref["loglik"])[0]) <= TOL_FIT
        assert (fit.iter, fit.rank, fit.df_residual, fit.df_null, fit.converged) == (
            ref["iter"], ref["rank"], ref["df_residual"], ref["df_null"], ref["converged"])
        se = np.sqrt(np.diag(fit.cov_unscaled.to_numpy()))
        assert _rel(se, _arr(ref["se"]) if ref["names"] else []) <= TOL_FIT


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_messages_and_warnings_match_r(case):
    _, got = _fit(case)
    assert got == [m.rstrip("\n") for m in case["messages"]] + case["warnings"]


# --------------------------------------------------------------------------------------
# the summary and its print


@pytest.mark.parametrize(("case", "s"), SUMMARIES, ids=SUMMARY_IDS)
def test_summary_matches_r(case, s):
    res, _ = _fit(case)
    res.__dict__.pop("_summaries", None)  # R's warnings come with each summary computation
    summ, warns = _run(res.summary, s["level"])
    assert warns == s["warnings"]
    assert list(summ.stats.index) == s["stats_rows"]
    assert list(summ.stats.columns) == s["stats_cols"]
    ref = _stats(s)
    assert _rel(summ.stats.to_numpy()[:, :4], ref[:, :4]) <= TOL_FIT
    assert _rel(summ.stats.to_numpy()[:, 4:], ref[:, 4:]) <= TOL_CI
    assert list(summ.miller.index) == s["miller_rows"]
    assert list(summ.miller.columns) == s["miller_cols"]
    mref = np.array([_arr(s["miller"][k]) for k in s["miller_cols"]]).T
    assert _rel(summ.miller.to_numpy(), mref) <= TOL_FIT
    assert summ.level == summ.conf_level == s["level"]


@pytest.mark.parametrize(("case", "s"), SUMMARIES, ids=SUMMARY_IDS)
def test_print_matches_r(case, s):
    res, _ = _fit(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        summ = res.summary(s["level"])
        for pr in s["prints"]:
            assert summ.print_text(pr["digits"]) == pr["text"]
            assert res.print_text(pr["digits"], level=s["level"]) == pr["text"]


@pytest.mark.parametrize(("case", "s"), SUMMARIES, ids=SUMMARY_IDS)
def test_confint_and_profile_match_r(case, s):
    res, _ = _fit(case)
    n = res.lp.size
    X1, X2 = np.ones((n, 1)), np.column_stack([np.ones(n), res.lp])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        ci1 = confint_glm(res.calibration_intercept, X1, offset=res.lp, level=s["level"])
        ci2 = confint_glm(res.calibration_slope, X2, level=s["level"])
        profiles = {"profile_intercept": profile_glm(res.calibration_intercept, X1, offset=res.lp,
                                                     alpha=(1 - s["level"]) / 4),
                    "profile_slope": profile_glm(res.calibration_slope, X2, alpha=(1 - s["level"]) / 4)}
    assert list(ci1.columns) == s["confint_intercept_names"]
    assert _rel(ci1.to_numpy()[0], _arr(s["confint_intercept"])) <= TOL_CI
    assert [list(ci2.index), list(ci2.columns)] == s["confint_slope_dimnames"]
    assert _rel(ci2.to_numpy().ravel(order="F"), _arr(s["confint_slope"])) <= TOL_CI
    for key, prof in profiles.items():
        assert sorted(prof.names()) == sorted(s[key])
        for name in prof.names():
            frame = prof[name]
            ref = s[key][name]
            assert len(frame) == len(_arr(ref["z"]))  # the same number of profile steps
            assert np.max(np.abs(frame["z"].to_numpy() - _arr(ref["z"]))) <= 1e-9
            assert _rel(frame[name].to_numpy(), _arr(ref["par"])) <= 1e-12
            sx, sy = spline_fmm(frame[name].to_numpy(), frame["z"].to_numpy())
            assert _rel(sx, _arr(ref["spline_x"])) <= 1e-12
            assert np.max(np.abs(sy - _arr(ref["spline_y"]))) <= 1e-9


# --------------------------------------------------------------------------------------
# R's spline() and approx()


@pytest.mark.parametrize("s", FIX["splines"], ids=[f"spline{i}" for i in range(len(FIX["splines"]))])
def test_spline_and_approx_match_r(s):
    (sx, sy), warns = _run(spline_fmm, _arr(s["x"]), _arr(s["y"]))
    assert warns == s["warnings"]
    np.testing.assert_allclose(sx, _arr(s["spline_x"]), rtol=1e-15, atol=0)
    np.testing.assert_allclose(sy, _arr(s["spline_y"]), rtol=1e-14, atol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        ay = approx_linear(_arr(s["x"]), _arr(s["y"]), _arr(s["xout"]))
    np.testing.assert_allclose(ay, _arr(s["approx_y"]), rtol=1e-15, atol=0)


def test_spline_explicit_xout_and_n():
    x, y = np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0, 2.0])
    sx, sy = spline_fmm(x, y, xout=x)
    np.testing.assert_array_equal(sx, x)
    np.testing.assert_allclose(sy, y, atol=1e-15)  # interpolates the knots
    assert spline_fmm(x, y, n=5)[0].tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]


# --------------------------------------------------------------------------------------
# glm_binomial's offset, start values and empty model


def test_glm_zero_offset_is_no_offset_bit_for_bit():
    rng = np.random.default_rng(3)
    X = np.column_stack([np.ones(60), rng.normal(size=60)])
    y = (rng.uniform(size=60) < 0.4).astype(float)
    a = glm_binomial(X, y, ["(Intercept)", "x"])
    b = glm_binomial(X, y, ["(Intercept)", "x"], offset=np.zeros(60))
    np.testing.assert_array_equal(a.coefficients.to_numpy(), b.coefficients.to_numpy())
    assert (a.deviance, a.aic, a.iter) == (b.deviance, b.aic, b.iter)


def test_glm_offset_equals_shifted_design():
    """An offset o with a free slope on x is the same model as the design (1, x) with y
    unchanged and the coefficient of o fixed: the fitted values agree."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=80)
    o = 0.3 * rng.normal(size=80)
    y = (rng.uniform(size=80) < 1 / (1 + np.exp(-(x + o)))).astype(float)
    fit = glm_binomial(np.column_stack([np.ones(80), x]), y, ["(Intercept)", "x"], offset=o)
    np.testing.assert_allclose(fit.linear_predictors, fit.coefficients.iloc[0] + fit.coefficients.iloc[1] * x + o,
                               rtol=1e-12)
    started = glm_binomial(np.column_stack([np.ones(80), x]), y, ["(Intercept)", "x"], offset=o,
                           etastart=fit.linear_predictors)
    np.testing.assert_allclose(started.coefficients.to_numpy(), fit.coefficients.to_numpy(), rtol=1e-7)


def test_glm_empty_model():
    y = np.array([0.0, 1.0, 1.0, 0.0])
    o = np.array([-1.0, 0.5, 2.0, 0.0])
    fit = glm_binomial(np.zeros((4, 0)), y, [], offset=o, intercept=False)
    assert (fit.iter, fit.rank, fit.converged, fit.boundary, fit.df_residual, fit.df_null) == (0, 0, True, True, 4, 4)
    assert fit.coefficients.size == 0 and fit.cov_unscaled.shape == (0, 0)
    np.testing.assert_allclose(fit.fitted_values, 1 / (1 + np.exp(-o)), rtol=1e-15)
    assert fit.deviance == fit.null_deviance  # without an intercept the null model is the offset


# --------------------------------------------------------------------------------------
# the result objects


def test_result_protocol():
    res, _ = _fit(CASES[0])
    assert res.r_class == ("logistic_cal",) and res.inherits("logistic_cal")
    assert res.names() == ["calibration_intercept", "calibration_slope", "m_fixed"]
    assert res["m_fixed"] is res.m_fixed
    summ = res.summary()
    assert isinstance(summ, LogisticCalSummary) and summ.inherits("logistic_calsummary")
    assert summ.names() == ["stats", "conf_level", "miller"]
    assert res.summary() is summ  # computed once per level
    pd.testing.assert_frame_equal(res.as_frame(), summ.stats)
    assert res.as_frame() is not summ.stats
    assert str(res) == summ.print_text()[:-1] == str(summ)
    html = res._repr_html_()
    assert "Calibration Slope" in html and "Weak calibration" in html


def test_inputs_not_mutated_and_types_accepted():
    case = CASES[8]  # NA rows
    y, p = _arr(case["y"]), _arr(case["p"])
    y0, p0 = y.copy(), p.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        res = logistic_cal(y, p)
        from_series = logistic_cal(pd.Series(y), pd.Series(p))
        p32 = p.astype(np.float32)
        res32 = logistic_cal(y.astype(np.float32), p32)
        ref32 = logistic_cal(y, p32.astype(np.float64))
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(p, p0)
    pd.testing.assert_frame_equal(from_series.summary().stats, res.summary().stats)
    pd.testing.assert_frame_equal(res32.summary().stats, ref32.summary().stats)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(40, 90), shift=st.floats(-1, 1), scale=st.floats(0.5, 2))
def test_miller_statistics_add_up_and_intervals_cover_estimates(seed, n, shift, scale):
    """The nested models give stat1 = stat2 + stat3 (>= 0), and each profile interval
    contains its estimate."""
    rng = np.random.default_rng(seed)
    lp = rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-lp))).astype(float)
    p = 1 / (1 + np.exp(-(shift + scale * lp)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        summ = logistic_cal(y, p).summary()
    s1, s2, s3 = summ.miller["statistic"]
    assert s2 > -1e-9 and s3 > -1e-9
    assert s1 == pytest.approx(s2 + s3, rel=1e-9, abs=1e-9)
    for _, row in summ.stats.iterrows():
        assert row["lower"] < row["Estimate"] < row["upper"]


# --------------------------------------------------------------------------------------
# messages


def test_error_length():
    with pytest.raises(CalstatsError, match="^y and p are not the same length$"):
        logistic_cal([0, 1, 1], [0.2, 0.5])


def test_error_no_rows_left():
    with pytest.raises(CalstatsError, match="^Argument mu must be a nonempty numeric vector$"):
        logistic_cal([], [])
    with pytest.warns(CalstatsWarning, match="^2 records with missing values were removed$"):
        with pytest.raises(CalstatsError, match="^Argument mu must be a nonempty numeric vector$"):
            logistic_cal([1, 0], [np.nan, np.nan])


def test_error_y_outside_0_1():
    with pytest.raises(CalstatsError, match=r"^y values must be 0 <= y <= 1$"):
        logistic_cal([0, 1, 2, 1], [0.2, 0.5, 0.6, 0.7])


def test_error_non_numeric():
    with pytest.raises(CalstatsError, match="^Argument `p` must be numeric.$"):
        logistic_cal([0, 1], ["a", "b"])


def test_error_level():
    res, _ = _fit(CASES[0])
    with pytest.raises(CalstatsError, match=r"^Argument `level` must be a single number in `\(0, 1\)`.$"):
        res.summary(95)


@pytest.mark.parametrize("digits", [0, 23])
def test_error_digits(digits):
    res, _ = _fit(CASES[0])
    with pytest.raises(CalstatsError, match=f"^invalid value {digits} for 'digits' argument$"):
        res.summary().print_text(digits)


def test_error_aliased_slope():
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        res = logistic_cal(y, np.full(5, 0.4))
        with pytest.raises(CalstatsError, match="^subscript out of bounds$"):
            res.summary()


def test_error_profile_better_solution():
    res, _ = _fit(CASES[0])
    fit = res.calibration_slope
    worse = fit._replace(deviance=fit.deviance + 1.0)  # as if the fit had stopped early
    X = np.column_stack([np.ones(res.lp.size), res.lp])
    with pytest.raises(CalstatsError, match=f"^{PROFILE_BETTER_SOLUTION}$"):
        profile_glm(worse, X)


def test_error_spline_and_approx_inputs():
    with pytest.raises(CalstatsError, match="^zero non-NA points$"):
        spline_fmm([np.nan], [1.0])
    with pytest.raises(CalstatsError, match="^need at least two non-NA values to interpolate$"):
        approx_linear([1.0], [1.0], [1.0])

"""calstats.cal_spline against R (tests/fixtures/spline.json, written by
tools/r-reference/make_spline.R on R 4.2.2 with rms 6.5.0, Hmisc 4.8-0, mgcv 1.8-41).
The tests read only the JSON, never R.

Tolerances (measured maxima in brackets):

* ``"rcs"`` and ``"ns"`` against R's ``glm``: coefficients, fitted values, predictions at
  new scores and ``predict.glm(type = "link", se.fit = TRUE)`` 1e-10 [coefficients and
  predictions 8e-13, standard errors 1e-11]; Harrell's knots 1e-14 [0];
* ``"rcs"`` against ``rms::lrm(eps = 1e-12)``: coefficients 1e-8 relative to the largest
  [1.6e-9], ``predict(lrm, type = "fitted")`` 1e-8 [9e-11];
* ``"gam"`` against ``mgcv::gam(method = "REML")``: 1e-6 [coefficients 2e-9, predictions
  and standard errors 2e-9].
"""

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.calibrators import spline as spline_mod
from calstats.calibrators.ovr import CalOvr
from calstats.calibrators.spline import GRID_SIZE, CalSpline, cal_spline

FIX = load_fixture("spline")
CASES = {c["id"]: c for c in FIX["cases"]}


def arr(x):
    return np.array([np.nan if v is None else v for v in x], dtype=np.float64)


def case_kwargs(c):
    kw = {"basis": c["basis"], "transf": c["transf"]}
    if c["basis"] != "gam":
        kn = c["knots"]
        kw["knots"] = int(kn[0]) if len(kn) == 1 else arr(kn)
    if "df" in c:
        kw["df"] = int(c["df"][0])
    if "weights" in c:
        kw["weights"] = arr(c["weights"])
    return kw


_FITS: dict = {}


def fit_case(cid):
    """``(fit, warning texts)`` of a fixture case, fitted once."""
    if cid not in _FITS:
        c = CASES[cid]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = cal_spline(arr(c["p"]), arr(c["y"]), **case_kwargs(c))
        _FITS[cid] = (fit, [str(w.message) for w in caught])
    return _FITS[cid]


def data(cid):
    c = CASES[cid]
    return arr(c["p"]), arr(c["y"]).astype(int)


GLM_CASES = [cid for cid, c in CASES.items() if c["basis"] != "gam"]
RCS_CASES = [cid for cid, c in CASES.items() if c["basis"] == "rcs"]
GAM_CASES = [cid for cid, c in CASES.items() if c["basis"] == "gam"]


# --------------------------------------------------------------------------------------
# R references


@pytest.mark.parametrize("cid", GLM_CASES)
def test_glm_bases_match_r(cid):
    c = CASES[cid]
    fit, _ = fit_case(cid)
    np.testing.assert_allclose(fit.coefficients.to_numpy(), arr(c["coefficients"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.fit.fitted_values, arr(c["fitted"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.fit.deviance, arr(c["deviance"])[0], rtol=1e-12)
    np.testing.assert_allclose(fit.predict(arr(c["newp"])), arr(c["pred"]), rtol=0, atol=1e-10)
    frame = fit.predict(arr(c["newp"]), se_fit=True)
    np.testing.assert_allclose(frame["fit"], arr(c["pred"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(frame["link"], arr(c["pred_link"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(frame["se_link"], arr(c["se_link"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.knots, arr(c["knots_out"]), rtol=0, atol=1e-14)
    if c["basis"] == "ns":
        np.testing.assert_allclose(fit.boundary_knots, arr(c["boundary_knots"]), rtol=0, atol=1e-14)


@pytest.mark.parametrize("cid", RCS_CASES)
def test_rcs_matches_lrm(cid):
    c = CASES[cid]
    fit, _ = fit_case(cid)
    coef = fit.coefficients.to_numpy()
    lrm = arr(c["lrm_coefficients"])
    assert np.abs(coef - lrm).max() <= 1e-8 * max(1.0, np.abs(lrm).max())
    np.testing.assert_allclose(fit.predict(arr(c["newp"])), arr(c["lrm_pred"]), rtol=0, atol=1e-8)
    # lrm's default stopping rule is far looser: the reason the fixture iterates it further
    assert np.abs(arr(c["lrm_coefficients_default"]) - lrm).max() < 1e-3


@pytest.mark.parametrize("cid", GAM_CASES)
def test_gam_matches_mgcv(cid):
    c = CASES[cid]
    fit, _ = fit_case(cid)
    np.testing.assert_allclose(fit.coefficients.to_numpy(), arr(c["coefficients"]), rtol=0, atol=1e-6)
    np.testing.assert_allclose(fit.fit.fitted_values, arr(c["fitted"]), rtol=0, atol=1e-6)
    np.testing.assert_allclose(fit.fit.sp, arr(c["sp"])[0], rtol=1e-6)
    np.testing.assert_allclose(fit.predict(arr(c["newp"])), arr(c["pred"]), rtol=0, atol=1e-6)
    frame = fit.predict(arr(c["newp"]), se_fit=True)
    np.testing.assert_allclose(frame["link"], arr(c["pred_link"]), rtol=0, atol=1e-6)
    np.testing.assert_allclose(frame["se_link"], arr(c["se_link"]), rtol=0, atol=1e-6)


def test_hmisc_knot_warning_is_r_text():
    _, warns = fit_case("fewvalues_rcs5")
    assert CASES["fewvalues_rcs5"]["warnings"][0] in warns


def test_fit_fields_and_names():
    fit, _ = fit_case("random_rcs5")
    assert isinstance(fit, CalSpline) and fit.inherits("cal_spline") and fit.inherits("calibrator")
    assert list(fit.coefficients.index) == ["(Intercept)", "logit_p", "logit_p'", "logit_p''", "logit_p'''"]
    assert fit.df == 4 and fit.basis == "rcs" and not fit.monotone
    assert fit.names()[:3] == ["method", "n", "input"]
    assert np.isclose(fit.loglik, -fit.fit.deviance / 2, rtol=1e-12)
    ns_fit, _ = fit_case("random_ns4")
    assert list(ns_fit.coefficients.index)[1] == "ns(logit_p)1"
    gam_fit, _ = fit_case("random_gam")
    assert list(gam_fit.coefficients.index)[-1] == "s(logit_p).9" and gam_fit.df == 9
    assert fit.call["function"] == "cal_spline"


def test_coef_table_is_summary_glm():
    fit, _ = fit_case("random_rcs5")
    table = fit.coef_table()
    se = np.sqrt(np.diag(fit.fit.cov_unscaled.loc[fit.coefficients.index, fit.coefficients.index]))
    np.testing.assert_allclose(table["Std. Error"].to_numpy(), se)
    assert "Basis: restricted cubic spline, 4 df" in fit.summary().as_text()


def test_interval_and_index():
    fit, _ = fit_case("random_ns4")
    newp = pd.Series([0.1, 0.5, 0.9], index=["a", "b", "c"])
    frame = fit.predict(newp, interval="confidence", level=0.9)
    assert list(frame.index) == ["a", "b", "c"] and list(frame.columns) == ["fit", "lower", "upper"]
    assert ((frame["lower"] < frame["fit"]) & (frame["fit"] < frame["upper"])).all()


def test_linear_beyond_training_range():
    fit, _ = fit_case("random_rcs5")
    p, _ = data("random_rcs5")
    z = np.log(p / (1 - p))
    zz = z.max() + np.array([0.5, 1.0, 1.5, 2.0])
    eta = fit.predict(1 / (1 + np.exp(-zz)), se_fit=True)["link"].to_numpy()
    assert abs(np.diff(eta, 2)).max() < 1e-10


# --------------------------------------------------------------------------------------
# monotonicity


def test_not_monotone_warning_names_where():
    p, y = data("wiggly_rcs5")
    with pytest.warns(CalstatsWarning) as rec:
        cal_spline(p, y)
    msgs = [str(w.message) for w in rec]
    assert ("The spline calibration map is not monotone: it decreases between p = 0.048 and p = 0.271 "
            "and between p = 0.791 and p = 0.952.") in msgs


def test_monotone_fit_is_monotone_and_no_better():
    p, y = data("wiggly_rcs5")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        free = cal_spline(p, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalstatsWarning)  # the constrained map does not warn
        mono = cal_spline(p, y, monotone=True)
    assert mono.monotone and free.loglik > mono.loglik
    z = np.log(p / (1 - p))
    zg = np.linspace(z.min(), z.max(), 20001)
    eta = mono._design(zg) @ mono.coefficients.to_numpy()
    assert np.diff(eta).min() > -1e-8
    # a map that is already monotone is left as glm fitted it
    p2, y2 = data("random_rcs3")
    free2, _ = fit_case("random_rcs3")
    mono2 = cal_spline(p2, y2, knots=3, monotone=True)
    np.testing.assert_array_equal(mono2.coefficients.to_numpy(), free2.coefficients.to_numpy())


def test_monotone_ns_with_weights():
    p, y = data("weights_ns4")
    w = arr(CASES["weights_ns4"]["weights"])
    with pytest.warns(CalstatsWarning, match="not monotone"):
        free = cal_spline(p, y, basis="ns", df=4, weights=w)
    mono = cal_spline(p, y, basis="ns", df=4, weights=w, monotone=True)
    assert mono.loglik <= free.loglik
    assert "Monotone" in mono.summary().as_text()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), basis=st.sampled_from(["rcs", "ns"]), amp=st.floats(0.0, 2.0))
@example(seed=2**31 - 1, basis="ns", amp=0.8125)  # SLSQP's subproblem failed from the unconstrained start
def test_monotone_invariant(seed, basis, amp):
    rng = np.random.default_rng(seed)
    z = rng.normal(0, 1.3, 200)
    p = 1 / (1 + np.exp(-z))
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-(0.5 * z + amp * np.sin(2 * z))))).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        free = cal_spline(p, y, basis=basis, df=4)
        mono = cal_spline(p, y, basis=basis, df=4, monotone=True)
    zg = np.linspace(z.min(), z.max(), GRID_SIZE)
    eta = mono._design(zg) @ mono.coefficients.to_numpy()
    assert np.diff(eta).min() >= -1e-8 * max(1.0, np.ptp(eta))
    assert mono.loglik <= free.loglik + 1e-9
    pr = mono.predict(p)
    assert ((pr > 0) & (pr < 1)).all()


# --------------------------------------------------------------------------------------
# inputs


def test_ties_and_exact_zero_one():
    p, y = data("ties_rcs5")
    p = p.copy()
    p[:3] = [0.0, 1.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        fit = cal_spline(p, y)  # clipped to [eps, 1 - eps] before the logit
    assert np.isfinite(fit.coefficients).all()
    assert np.isfinite(fit.predict(np.array([0.0, 1.0]))).all()


def test_integer_weights_are_repeated_rows():
    p, y = data("random_rcs5")
    w = np.random.default_rng(3).integers(1, 5, p.size)  # no zero: ns's boundary knots span every row
    for kw in ({"knots": [-2.0, -1.0, 0.0, 0.5, 1.5]}, {"basis": "ns", "knots": [-1.0, 0.0, 1.0]}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CalstatsWarning)
            a = cal_spline(p, y, weights=w, **kw)
            b = cal_spline(np.repeat(p, w), np.repeat(y, w), **kw)
        # glm.fit starts weighted data at (w y + 0.5)/(w + 1), repeated rows at (y + 0.5)/2,
        # and stops at a relative deviance change of 1e-8: the two stopping points agree to
        # ~1e-6 (as in R), their likelihoods to rounding; the standard errors come from the
        # working weights of each fit's last iteration (summary.glm's QR), 1e-4 apart
        np.testing.assert_allclose(a.coefficients.to_numpy(), b.coefficients.to_numpy(), rtol=0, atol=1e-5)
        np.testing.assert_allclose(a.loglik, b.loglik, rtol=1e-11)
        fa, fb = a.predict(p, se_fit=True), b.predict(p, se_fit=True)
        np.testing.assert_allclose(fa[["fit", "link"]].to_numpy(), fb[["fit", "link"]].to_numpy(), rtol=0, atol=1e-5)
        np.testing.assert_allclose(fa["se_link"], fb["se_link"], rtol=1e-3)


def test_pandas_float32_and_not_mutated():
    p, y = data("random_ns4")
    base, _ = fit_case("random_ns4")
    ps, ys = pd.Series(p, index=np.arange(p.size) + 100), pd.Series(y, index=np.arange(p.size) + 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        f = cal_spline(ps, ys, basis="ns", df=4)
        np.testing.assert_array_equal(f.coefficients.to_numpy(), base.coefficients.to_numpy())
        p32 = p.astype(np.float32)
        f32 = cal_spline(p32, y, basis="ns", df=4)
        ref32 = cal_spline(p32.astype(np.float64), y, basis="ns", df=4)
    np.testing.assert_array_equal(f32.coefficients.to_numpy(), ref32.coefficients.to_numpy())
    assert f32.predict(p32).dtype == np.float64
    p0, y0 = p.copy(), y.copy()
    w = np.ones(p.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        fm = cal_spline(p, y, weights=w, monotone=True)
    fm.predict(p)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(w, np.ones(p.size))


def test_identity_transform_takes_scores():
    fit, _ = fit_case("identity_rcs4")
    assert fit.transf == "identity" and fit.input == "scores"
    x = np.array([-4.0, 0.0, 3.5])
    assert fit.predict(x).shape == (3,)
    p, y = data("identity_rcs4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        none = cal_spline(p, y, knots=4, transf="none")
    np.testing.assert_array_equal(none.coefficients.to_numpy(), fit.coefficients.to_numpy())


def test_penalty_chooses_gam():
    p, y = data("random_rcs5")
    a = cal_spline(p, y, penalty="REML")
    b, _ = fit_case("random_gam")
    assert a.basis == "gam"
    np.testing.assert_array_equal(a.coefficients.to_numpy(), b.coefficients.to_numpy())
    c = cal_spline(p, y, basis="gam", penalty="GCV.Cp", df=5)
    assert c.fit.criterion == "GCV.Cp" and c.fit.method == "UBRE" and c.df == 5


def test_df_sets_the_number_of_coefficients():
    p, y = data("random_rcs5")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        assert cal_spline(p, y, df=2).knots.size == 3
        assert cal_spline(p, y, basis="ns", df=3, knots=7).df == 3
        assert cal_spline(p, y, basis="ns", knots=6).df == 5


def test_pickle_round_trip():
    for cid in ("random_rcs5", "random_ns4", "random_gam"):
        fit, _ = fit_case(cid)
        back = pickle.loads(pickle.dumps(fit))
        newp = arr(CASES[cid]["newp"])
        np.testing.assert_array_equal(back.predict(newp), fit.predict(newp))
        pd.testing.assert_frame_equal(back.predict(newp, se_fit=True), fit.predict(newp, se_fit=True))


def test_one_vs_rest():
    rng = np.random.default_rng(7)
    P = rng.dirichlet([2, 2, 2], 300)
    codes = np.array([rng.choice(3, p=r) for r in P]) + 1
    P0 = P.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        fit = cal_spline(P, codes, basis="ns", df=3)
        one = cal_spline(P[:, 1], (codes == 2).astype(int), basis="ns", df=3)
    assert isinstance(fit, CalOvr) and fit.base_method == "spline" and fit.k == 3
    assert fit.call["function"] == "cal_spline"
    np.testing.assert_array_equal(fit.calibrators[1].coefficients.to_numpy(), one.coefficients.to_numpy())
    out = fit.predict(P)
    np.testing.assert_allclose(out.to_numpy().sum(axis=1), 1.0)
    np.testing.assert_array_equal(P, P0)
    frame = pd.DataFrame(P, columns=["a", "b", "c"])
    fit2 = cal_spline(frame, pd.Categorical.from_codes(codes - 1, ["a", "b", "c"]), basis="ns", df=3)
    assert fit2.levels == ["a", "b", "c"]
    assert copy.deepcopy(fit2).k == 3


# --------------------------------------------------------------------------------------
# messages (one test per message)


def _pyc():
    return data("random_rcs5")


def test_error_knots():
    p, y = _pyc()
    for bad in (2, 3.5, True, [0.0, 1.0], "five"):
        with pytest.raises(CalstatsError, match=r"^Argument `knots` must be a single whole number of at least 3 "
                                                r"or a vector of at least 3 distinct finite knot positions\.$"):
            cal_spline(p, y, knots=bad)


def test_error_ns_knots_outside():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Argument `knots` must be .* inside the range of the transformed "
                                            r"scores\.$"):
        cal_spline(p, y, basis="ns", knots=[-1.0, 40.0])


def test_error_df():
    p, y = _pyc()
    for bad in (1, 2.5, "4"):
        with pytest.raises(CalstatsError, match=r"^Argument `df` must be `None` or a single whole number of "
                                                r"at least 2\.$"):
            cal_spline(p, y, df=bad)


def test_error_gam_knot_positions():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Knot positions apply to the \"rcs\" and \"ns\" bases"):
        cal_spline(p, y, basis="gam", knots=[-1.0, 0.0, 1.0])


def test_error_penalty_with_unpenalised_basis():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Argument `penalty` applies to the penalised spline"):
        cal_spline(p, y, basis="ns", penalty="REML")


def test_error_monotone_gam():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^`monotone = True` is available for the \"rcs\" and \"ns\" bases"):
        cal_spline(p, y, basis="gam", monotone=True)


def test_error_monotone_flag():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Argument `monotone` must be `True` or `False`\.$"):
        cal_spline(p, y, monotone="yes")


def test_error_monotone_se():
    p, y = data("wiggly_rcs5")
    fit = cal_spline(p, y, monotone=True)
    with pytest.raises(CalstatsError, match=r"^`se_fit` and `interval` are not available for a monotone fit"):
        fit.predict([0.3], se_fit=True)


def test_error_monotone_solver(monkeypatch):
    class Failed:
        success = False
        message = "Iteration limit reached"
        x = None

    monkeypatch.setattr(spline_mod, "minimize", lambda *a, **k: Failed())
    p, y = data("wiggly_rcs5")
    with pytest.raises(CalstatsError, match=r"^The monotone fit did not converge: Iteration limit reached\.$"):
        cal_spline(p, y, monotone=True)


@pytest.mark.parametrize("kw, need", [({}, 5), ({"basis": "ns"}, 5), ({"basis": "gam"}, 10),
                                      ({"basis": "ns", "knots": [-1.0]}, 2)])
def test_error_constant_scores(kw, need):
    y = np.array([0, 1] * 20)
    p = np.full(40, 0.3)
    with pytest.raises(CalstatsError, match=rf"^Too few distinct values of `p` for the .* with these knots: "
                                            rf"1 distinct value, at least {need} needed\.$"):
        cal_spline(p, y, **kw)


def test_error_collinear_design():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Too few distinct values of `p` for the restricted cubic spline "
                                            r"with these knots: the spline's columns are collinear \(rank 2 of 4\)\.$"):
        cal_spline(p, y, knots=[-9.0, -8.5, -8.2, -8.0])


def test_error_no_coef_table():
    p, y = data("wiggly_rcs5")
    with pytest.raises(CalstatsError, match=r"^A `cal_spline` fit with `monotone = True` has no coefficient table"):
        cal_spline(p, y, monotone=True).coef_table()
    fit, _ = fit_case("random_gam")
    with pytest.raises(CalstatsError, match=r"^A `cal_spline` fit with the penalised basis .* no coefficient table"):
        fit.coef_table()


def test_error_gam_weights():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Case weights are not supported with `basis = \"gam\"`"):
        cal_spline(p, y, basis="gam", weights=np.ones(p.size))


def test_error_label_missing():
    p = np.linspace(0.05, 0.95, 12)
    y = pd.array([True, False] * 5 + [None, True], dtype="boolean")
    with pytest.raises(CalstatsError, match=r"^Argument `y` must not contain missing values\.$"):
        cal_spline(p, y)


def test_error_probabilities_and_labels():
    p, y = _pyc()
    with pytest.raises(CalstatsError, match=r"^Argument `p` must contain probabilities in `\[0, 1\]`\.$"):
        cal_spline(p * 2, y)
    with pytest.raises(CalstatsError, match=r"^Argument `y` must contain at least one `0` and one `1`\.$"):
        cal_spline(p, np.zeros(p.size, dtype=int))
    with pytest.raises(CalstatsError, match=r"^Arguments `p` and `y` must have the same length\.$"):
        cal_spline(p, y[:-1])
    with pytest.raises(CalstatsError, match=r"^Argument `transf` should be one of .*, not “probit”\.$"):
        cal_spline(p, y, transf="probit")
    fit, _ = fit_case("random_rcs5")
    with pytest.raises(CalstatsError, match=r"^Argument `newdata` must contain probabilities in `\[0, 1\]`\.$"):
        fit.predict([1.5])
    with pytest.raises(CalstatsError, match=r"^Argument `level` must be a single number in `\(0, 1\)`\.$"):
        fit.predict([0.5], level=2)


def test_error_multiclass_inputs():
    P = np.random.default_rng(1).dirichlet([1, 1, 1], 60)
    codes = np.tile([1, 2, 3], 20)
    with pytest.raises(CalstatsError, match=r"^Argument `p` must be a probability vector or a matrix with one "
                                            r"column per class\.$"):
        cal_spline(pd.DataFrame({"a": ["x"] * 60, "b": ["y"] * 60}), codes[:60])
    bad = P.copy()
    bad[0, 0] = np.nan
    with pytest.raises(CalstatsError, match=r"^Argument `p` must not contain missing or infinite values\.$"):
        cal_spline(bad, codes)
    with pytest.raises(CalstatsError, match=r"^Argument `p` must contain probabilities in `\[0, 1\]`\.$"):
        cal_spline(P * 3, codes)
    with pytest.raises(CalstatsError, match=r"^Every class must appear in `y` for one-vs-rest calibration\.$"):
        cal_spline(P, np.where(codes == 2, 1, codes))


def test_not_monotone_warning_near_one_shows_one_minus_p():
    # a decreasing stretch among probabilities that all print as 1 is named by 1 - p
    from calstats.calibrators.spline import _warn_not_monotone

    with pytest.warns(CalstatsWarning, match=r"between p = 0\.5 and p = 0\.731 and between p = 1 - 4\.54e-05 and "
                                             r"p = 1 - 2\.06e-09\."):
        _warn_not_monotone([(0.0, 1.0), (10.0, 20.0)], "logit")

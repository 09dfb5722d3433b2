"""calstats.clinical.lrm against rms::lrm (rms 6.5-0; tools/r-reference/make_rms_lrm.R)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from _rcases import EXACT_PLATFORM, arr
from calstats import CalstatsError, CalstatsWarning
from calstats.clinical import Lrm, lrm
from calstats.numerics.nmath import plogis
from calstats.ports.rms.design import rcs

FX = load_fixture("rms_lrm")
CASES = {c["id"]: c for c in FX["cases"]}
FITS = [c for c in FX["cases"] if not c["fail"]]


def frame(name):
    return pd.DataFrame(FX[name])


def same(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if EXACT_PLATFORM:
        np.testing.assert_array_equal(a, b)
    else:  # pragma: no cover - other platforms: R's arithmetic to rounding
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def fit_case(c, **extra):
    kw = {"tol": 1e-8, "maxit": 20} if c["id"] == "very_long" else {}
    kw.update(extra)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lrm(c["formula"], frame(c["data"]), weights=c.get("weights"), **kw)


@pytest.mark.parametrize("case", FITS, ids=[c["id"] for c in FITS])
def test_fit_matches_r(case):
    f = fit_case(case)
    assert list(f.coefficients.index) == case["coef_names"]
    same(f.coefficients, arr(case["coefficients"]))
    same(f.var.to_numpy().ravel(order="F"), arr(case["var"]))
    assert list(f.stats.index) == case["stats_names"]
    same(f.stats, arr(case["stats"]))
    same(f.deviance, arr(case["deviance"]))
    same(f.linear_predictors, arr(case["linear_predictors"]))
    assert list(f.freq) == [int(x) for x in case["freq"]]
    rparms = case.get("parms") or {}
    for name, parms in f.design.parms.items():  # knots of every spline, levels of every factor
        if isinstance(parms[0], str):
            assert parms == rparms[name]
        else:
            same(parms, arr(rparms[name]))


@pytest.mark.parametrize("case", FITS, ids=[c["id"] for c in FITS])
def test_print_matches_r(case):
    assert fit_case(case).print_text().split("\n")[:-1] == case["print"]


@pytest.mark.parametrize("case", [c for c in FITS if "predict_lp" in c],
                         ids=[c["id"] for c in FITS if "predict_lp" in c])
def test_predict_matches_r(case):
    f = fit_case(case)
    new = frame("newdata")
    same(f.predict(new, type="lp"), arr(case["predict_lp"]))
    fitted = np.asarray(f.predict(new, type="fitted"))
    same(fitted.ravel(order="F"), arr(case["predict_fitted"]))
    assert (fitted.shape if fitted.ndim == 2 else (fitted.size, 1)) == tuple(case["predict_fitted_dim"])


def test_weights_warn_as_r():
    c = CASES["weighted"]
    with pytest.warns(UserWarning, match="currently weights are ignored in model validation"):
        lrm(c["formula"], frame("data"), weights="wt")
    # weights as an array give the same fit and the call text R writes for a variable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = lrm(c["formula"], frame("data"), weights=frame("data")["wt"].to_numpy())
    same(f.coefficients, arr(c["coefficients"]))
    assert "weights = weights" in f.print_text()


def test_separation_fails_as_r():
    c = CASES["separation"]
    with pytest.warns(UserWarning, match="Unable to fit model using"):
        f = lrm(c["formula"], frame("sep"))
    assert f.fail
    assert f.print_text().split("\n")[:-1] == c["print"]
    same(f.coefficients, arr(c["coefficients"]))


def test_singular_message():
    data = frame("data")
    data["w2"] = data["w"] * 2
    with pytest.raises(CalstatsError) as e:
        lrm("y ~ w + w2 + age", data)
    r = CASES["singular"]["output"]
    assert str(e.value) == " ".join(s.strip() for s in r)


# --------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("formula, data_change, message", [
    ("y ~ age", lambda d: d.assign(y=1), "single value"),
    ("y ~ age", lambda d: d.iloc[:2], "must have >=3 non-missing observations"),
    ("y ~ age", lambda d: d.assign(y=np.where(np.arange(len(d)) == 3, np.nan, d["y"])), "outcome has missing"),
    ("y ~ age + nothere", lambda d: d, "not found"),
    ("y ~ age + age:sex", lambda d: d, "main effects"),
    ("y ~ lsp(age, 50)", lambda d: d, "lsp() is not supported"),
    ("y ~ age", lambda d: d.assign(age=np.where(np.arange(len(d)) == 3, np.nan, d["age"])), "missing values in `age`"),
    ("y ~ sex", lambda d: d.assign(sex=d["sex"].where(np.arange(len(d)) != 5)), "missing values in `sex`"),
    ("y age", lambda d: d, "must be a string with a response"),
    ("y ~ 1", lambda d: d, "at least one predictor"),
    ("y ~ pol(w, 1)", lambda d: d, "order for polynomial must be 2,3,..."),
    ("y ~ rcs(age, 2)", lambda d: d, "nk must be >= 3"),
    ("y ~ rcs(sex, 3)", lambda d: d, "is not numeric"),
    ("y ~ age", lambda d: d.assign(y=pd.Categorical(d["y"], categories=[0, 1, 2])), "levels without observations"),
])
def test_errors(formula, data_change, message):
    with pytest.raises(CalstatsError, match=message.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")):
        lrm(formula, data_change(frame("data")))


def test_weight_and_argument_errors():
    d = frame("data")
    with pytest.raises(CalstatsError, match="negative weights"):
        lrm("y ~ age", d, weights=-d["wt"])
    with pytest.raises(CalstatsError, match="one weight per row"):
        lrm("y ~ age", d, weights=[1.0, 2.0])
    with pytest.raises(CalstatsError, match="positive weight"):
        lrm("y ~ age", d, weights=np.zeros(len(d)))
    with pytest.raises(CalstatsError, match="not a column"):
        lrm("y ~ age", d, weights="nope")
    # an outcome level of total weight 0: R's fitter stops with a foreign-call error (found by
    # the fuzz: calstats raised Python's ZeroDivisionError in the c index)
    w0 = np.where(d["y"].to_numpy() == 0, 0.0, 1.0)
    with pytest.warns(CalstatsWarning), pytest.raises(
            CalstatsError, match=r"^Argument `weights` gives the outcome level 0 a total weight of 0: lrm needs a "
                                 r"positive weight in every level \(rms::lrm stops here: NA/NaN/Inf in foreign "
                                 r"function call \(arg 1\)\)\.$"):
        lrm("y ~ age", d, weights=w0)
    with pytest.raises(CalstatsError, match="must be a DataFrame"):
        lrm("y ~ age", [1, 2, 3])
    f = lrm("y ~ age + sex", d)
    with pytest.raises(CalstatsError, match="should be one of"):
        f.predict(d, type="response")
    with pytest.raises(CalstatsError, match="level not in the fit"):
        f.predict(d.assign(sex="other"))


# --------------------------------------------------------------------------------------
# invariants


def test_protocol_and_frame():
    f = fit_case(CASES["main"])
    assert isinstance(f, Lrm) and f.inherits("lrm") and f.inherits("glm")
    tab = f.as_frame()
    assert list(tab.columns) == ["Coef", "S.E.", "Wald Z", "Pr(>|Z|)"]
    np.testing.assert_array_equal(tab["Coef"], f.coefficients.to_numpy())
    assert "<table" in f._repr_html_()
    assert str(f) == f.print_text()[:-1]
    np.testing.assert_array_equal(f.predict(), f.linear_predictors)
    np.testing.assert_array_equal(f.predict(type="fitted"), plogis(f.linear_predictors))


def test_inputs_not_mutated_and_float32():
    d = frame("data")
    before = d.copy()
    f64 = lrm("y ~ w + z", d)
    pd.testing.assert_frame_equal(d, before)
    d32 = d.assign(w=d["w"].astype(np.float32), z=d["z"].astype(np.float32))
    f32 = lrm("y ~ w + z", d32)
    f64b = lrm("y ~ w + z", d.assign(w=d32["w"].astype(np.float64), z=d32["z"].astype(np.float64)))
    np.testing.assert_array_equal(f32.coefficients, f64b.coefficients)
    assert np.isfinite(f64.coefficients).all()
    # a dict of columns works as a DataFrame does
    g = lrm("y ~ w + z", {k: d[k].to_numpy() for k in ("y", "w", "z")})
    np.testing.assert_array_equal(g.coefficients, f64.coefficients)


def test_rcs_is_a_stateful_formulaic_transform():
    from formulaic import model_matrix

    d = frame("data")
    mm = model_matrix("rcs(age, 4)", d, context={"rcs": rcs})
    f = lrm("y ~ rcs(age, 4)", d)
    np.testing.assert_array_equal(np.asarray(mm)[:, 1:], f.x)
    new = frame("newdata")
    again = model_matrix(mm.model_spec, new)
    np.testing.assert_array_equal(np.asarray(again)[:, 1:], f.design.matrix(new))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_ordinal_probabilities_decrease(seed):
    f = fit_case(CASES["ordinal4"])
    rs = np.random.default_rng(seed)
    new = frame("data").sample(20, random_state=int(rs.integers(1 << 30)))
    P = f.predict(new, type="fitted").to_numpy()
    assert (np.diff(P, axis=1) <= 0).all() and ((P > 0) & (P < 1)).all()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_row_order_does_not_change_the_model(seed):
    d = frame("data")
    f = lrm("y ~ age + sex + w", d)
    perm = np.random.default_rng(seed).permutation(len(d))
    g = lrm("y ~ age + sex + w", d.iloc[perm].reset_index(drop=True))
    np.testing.assert_allclose(g.coefficients, f.coefficients, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(g.linear_predictors, f.linear_predictors[perm], rtol=1e-9, atol=1e-9)

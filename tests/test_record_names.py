"""The fit records of the survival, prodlim, cmprsk, loess and profile ports are RObjects with
R's field names in R's order (tools/r-reference/make_record_names.R ->
tests/fixtures/record_names.json: survival 3.5-3, prodlim 2019.11.13, cmprsk 2.2-11, MASS
7.3-58, R 4.2.2), and the fields the older fixtures do not hold have R's values."""

import json
import pathlib
import warnings

import numpy as np
import pytest

from calstats import CalstatsWarning
from calstats._robject import RObject
from calstats.ports.cmprsk.cuminc import cuminc_curves
from calstats.ports.prodlim.prodlim import ProdlimCompetingFit, ProdlimFit, prodlim_aj, prodlim_km
from calstats.ports.riskregression.score import score_data
from calstats.ports.stats.glm import glm_binomial
from calstats.ports.stats.loess import Loess
from calstats.ports.stats.profile import GlmProfile, confint_profile_glm, profile_glm
from calstats.ports.survival.concordance import concordancefit

FIX = json.loads((pathlib.Path(__file__).parent / "fixtures" / "record_names.json").read_text())
D = {k: np.array(v, dtype=np.float64) for k, v in FIX["data"].items()}


def _in_r_order(ours, r_names):
    """Every name of ours is R's, in R's order."""
    assert set(ours) <= set(r_names), sorted(set(ours) - set(r_names))
    assert sorted(ours, key=r_names.index) == list(ours)


def _arr(v):
    return np.array([np.nan if e is None else e for e in v], dtype=np.float64)


def test_concordancefit_is_r_concordancefit_with_influence_3():
    fit = concordancefit(D["time"], D["status"], D["x"], reverse=True)
    assert isinstance(fit, RObject)
    assert fit.names() == FIX["concordancefit"]["names"]
    np.testing.assert_allclose(fit["dfbeta"], _arr(FIX["concordancefit"]["dfbeta"]), rtol=1e-13, atol=1e-16)
    assert fit["influence"] is fit.influence and fit.timewt == "n"


@pytest.mark.parametrize("kind", ["km", "reverse", "competing"])
def test_prodlim_fits_have_r_names_and_values(kind):
    ref = FIX["prodlim"][kind]
    if kind == "competing":
        fit = prodlim_aj(D["time"], D["event"].astype(np.int64), 2)
        assert isinstance(fit, ProdlimCompetingFit)
        for j, cause in enumerate(("1", "2")):
            np.testing.assert_array_equal(fit["n.event"][j], _arr(ref["n.event"][cause]))
            np.testing.assert_allclose(fit["cuminc"][j], _arr(ref["cuminc"][cause]), rtol=1e-15)
    else:
        fit = prodlim_km(D["time"], D["status"], reverse=kind == "reverse")
        assert type(fit) is ProdlimFit
        np.testing.assert_array_equal(fit["n.event"], _arr(ref["n.event"]))
    _in_r_order(fit.names(), ref["names"])
    np.testing.assert_array_equal(fit["time"], _arr(ref["time"]))
    np.testing.assert_array_equal(fit["n.risk"], _arr(ref["n.risk"]))
    np.testing.assert_array_equal(fit["n.lost"], _arr(ref["n.lost"]))
    np.testing.assert_allclose(fit["surv"], _arr(ref["surv"]), rtol=1e-15)
    assert fit["maxtime"] == ref["maxtime"][0]
    assert (fit["model"], fit["reverse"], fit["type"]) == (ref["model"], ref["reverse"], ref["type"])


def test_cuminc_curves_are_r_list_components():
    curves = cuminc_curves(D["time"], D["event"])
    assert sorted(curves) == [1, 2]
    for curve in curves.values():
        assert curve.names() == FIX["cuminc"]["curve_names"]
        assert curve["est"] is curve.est and curve["time"][0] == 0.0


def test_score_data_names():
    data = score_data(D["time"], D["event"].astype(np.int64), [2.0, 5.0, 9.0])
    assert data.names() == ["time", "status", "event", "times", "maxtime", "cens.type"]
    assert data["cens.type"] == "rightCensored" and data.censored
    np.testing.assert_array_equal(data.times, [2.0, 5.0]) and np.testing.assert_array_equal(data.dropped, [9.0])
    assert not score_data(D["time"], np.ones(D["time"].size, dtype=np.int64), [2.0]).censored


@pytest.mark.parametrize("family", ["gaussian", "symmetric"])
def test_loess_fields_are_r_fields(family):
    ref = FIX["loess"][family]
    x = np.linspace(0, 1, 50)
    y = np.sin(6 * x) + np.cos(40 * x) / 4
    fit = Loess(x, y, family=family)
    _in_r_order(fit.names(), ref["names"])
    pars = {k: (v[0] if isinstance(v, list) else v) for k, v in ref["pars"].items()}
    assert list(fit["pars"]) == list(pars)
    for k, v in pars.items():
        assert fit["pars"][k] == v, k
    assert fit["divisor"] == ref["divisor"][0]
    assert fit["one.delta"] == fit.one_delta and fit["trace.hat"] == fit.trace_hat
    np.testing.assert_array_equal(fit["residuals"], y - fit.fitted)


def test_profile_glm_is_a_list_named_by_the_coefficients():
    ref = FIX["profile_glm"]
    X = np.column_stack([np.ones(D["x"].size), D["x"]])
    fit = glm_binomial(X, D["status"], ["(Intercept)", "x"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        prof = profile_glm(fit, X)
    assert isinstance(prof, GlmProfile)
    assert prof.names() == ref["names"]
    for name in prof.names():
        assert list(prof[name].columns) == ["z"] + ref["par_vals_colnames"]
    assert "x" in prof and "names" not in prof
    with pytest.raises(KeyError):
        prof["names"]
    only = profile_glm(fit, X, which=["x"], warn=False)
    assert only.names() == ["x"]
    ci = confint_profile_glm(only)  # no profile of the intercept: R's NA
    assert np.isnan(ci.loc["(Intercept)"]).all() and np.isfinite(ci.loc["x"]).all()


@pytest.mark.parametrize("case", FIX["loess"]["symmetric_one_iteration"], ids=lambda c: c["surface"])
def test_loess_symmetric_with_one_iteration_is_gaussian_as_r(case):
    """R's loess takes the pseudovalues (and predict the symmetric path) only after
    robustness iterations: with ``iterations = 1`` the fit, ``s`` and ``pars$family`` are
    the gaussian ones (R 4.2.2 on cars, speeds made distinct)."""
    cars = FIX["loess"]["cars"]
    x = _arr(cars["speed"]) + np.arange(1, 51) / 100
    fit = Loess(x, _arr(cars["dist"]), family="symmetric", iterations=1, surface=case["surface"])
    got, se = fit.predict([5.0, 10.0, 20.0], se=True)
    np.testing.assert_allclose([fit.s, fit.enp], [case["s"][0], case["enp"][0]], rtol=1e-12)
    np.testing.assert_allclose(got, _arr(case["fit"]), rtol=1e-12)
    np.testing.assert_allclose(se, _arr(case["se"]), rtol=1e-12)
    assert fit["pars"]["family"] == case["family"] == "gaussian"

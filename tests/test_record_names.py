"""Every fit record of the R ports is an RObject with R's field names in R's order, and the
fields the other fixtures do not hold have R's values.

The names and values come from R (tools/r-reference/make_record_names.R, R 4.2.2):
tests/fixtures/record_names.json (survival 3.5-3, prodlim 2019.11.13, cmprsk 2.2-11, MASS
7.3-58: ``concordancefit``, ``prodlim``, a ``cuminc`` curve, ``loess``, ``profile.glm``) and
tests/fixtures/fit_records.json (rms 6.5-0, VGAM 1.1-7, mgcv 1.8-41: ``names()`` of
``lrm.fit`` (also with weights, and with an offset only), ``fastbw``, the column names of
``predab.resample``'s matrix, ``slotNames("vglm")``, ``names(isoreg(.))``, the attributes of
``splines::bs``/``ns`` and the names and attributes of mgcv's smooth objects for ``bs = "tp"``
and ``"cr"``).
"""

import ast
import importlib
import pathlib
import warnings

import numpy as np
import pytest

import calstats
from _fixtures import load_fixture
from calstats import CalstatsWarning
from calstats._robject import RObject
from calstats.ports.cmprsk.cuminc import cuminc_curves
from calstats.ports.mgcv.smooth import CrBasis, SmoothBasis, TprsBasis, smooth_basis
from calstats.ports.prodlim.prodlim import ProdlimCompetingFit, ProdlimFit, prodlim_aj, prodlim_km
from calstats.ports.riskregression.score import score_data
from calstats.ports.rms.fastbw import FastBW, fastbw
from calstats.ports.rms.lrm_fit import LrmFit, lrm_fit
from calstats.ports.rms.lrm_offset import OffsetFit, lrm_fit_offset
from calstats.ports.rms.predab import PredabResult, predab_resample
from calstats.ports.stats.glm import glm_binomial
from calstats.ports.stats.isoreg import IsoregResult, isoreg
from calstats.ports.stats.loess import Loess
from calstats.ports.stats.profile import GlmProfile, confint_profile_glm, profile_glm
from calstats.ports.stats.splines import SplineBasis, bs, ns
from calstats.ports.survival.concordance import concordancefit
from calstats.ports.vgam.vglm import VglmFit, vglm_multinomial

FIX = load_fixture("record_names")
D = {k: np.array(v, dtype=np.float64) for k, v in FIX["data"].items()}
FR = load_fixture("fit_records")  # rms, VGAM, isoreg, splines, mgcv: data of their own
DR = {k: np.array(v, dtype=np.float64) for k, v in FR["data"].items()}


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


# --------------------------------------------------------------------------------------
# every record class of the ports; rms, VGAM, isoreg, splines and mgcv

PORTS = pathlib.Path(calstats.__file__).parent / "ports"
SUFFIXES = ("Fit", "Result", "Curve", "Basis", "Data", "Profile")


def _record_classes():
    """(module, class name) of every public class in calstats/ports whose name ends in a
    record suffix, found by reading the modules (not by importing what they export)."""
    found = []
    for path in sorted(PORTS.rglob("*.py")):
        module = "calstats." + ".".join(path.relative_to(PORTS.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name.endswith(SUFFIXES) and not node.name.startswith("_"):
                found.append((module.removesuffix(".__init__"), node.name))
    return found


RECORDS = _record_classes()


def test_the_scan_finds_the_records():
    names = {name for _, name in RECORDS}
    assert {"GlmFit", "KMFit", "LrmFit", "PredabResult", "OffsetFit", "VglmFit", "IsoregResult",
            "SmoothBasis", "TprsBasis", "CrBasis"} <= names
    assert len(RECORDS) >= 20


@pytest.mark.parametrize(("module", "name"), RECORDS, ids=[f"{m}.{n}" for m, n in RECORDS])
def test_every_port_record_is_an_robject(module, name):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, RObject), f"{module}.{name} is not an RObject"


@pytest.mark.parametrize("cls", [LrmFit, PredabResult, FastBW, OffsetFit, VglmFit, IsoregResult, TprsBasis,
                                 CrBasis, SplineBasis])
def test_converted_records_declare_r_fields(cls):
    # FastBW's name has no record suffix: listed here with the others
    assert issubclass(cls, RObject) and cls._r_fields
    attrs = [cls._aliases.get(n) or n.replace(".", "_") for n in cls._r_fields]
    assert len(set(attrs)) == len(attrs)


def test_lrm_fit_names_and_fields():
    ref = FR["lrm_fit"]
    X = np.column_stack([DR["x1"], DR["x2"]])
    y = DR["y"].astype(np.int64)
    fit = lrm_fit(X, y)
    assert fit.names() == ["freq", "sumwty", "stats", "fail", "coefficients", "var", "u", "deviance",
                           "non.slopes", "linear.predictors", "info.matrix"]
    _in_r_order(fit.names(), ref["names"])
    assert ref["weighted_names"] == ref["names"]  # sumwty is NULL, not absent, without weights
    assert fit["freq"].tolist() == ref["freq"] and fit["non.slopes"] == ref["non.slopes"] == fit.non_slopes
    assert fit["sumwty"] is None and fit["info.matrix"] is fit.info_matrix
    assert fit["linear.predictors"] is fit.linear_predictors
    np.testing.assert_allclose(fit["deviance"], ref["deviance"], rtol=1e-13)
    np.testing.assert_allclose(fit["coefficients"], ref["coefficients"], rtol=1e-12)
    w = lrm_fit(X, y, weights=DR["w"])
    np.testing.assert_allclose(w["sumwty"], ref["sumwty"], rtol=1e-15)
    bare = lrm_fit(X, y, summary=False)  # a refit that only predicts: the R fields it skips are None
    assert bare.names() == fit.names() and bare["var"] is None and bare.iterations == fit.iterations
    np.testing.assert_array_equal(bare["coefficients"], fit["coefficients"])


def test_lrm_fit_offset_names_and_fields():
    ref = FR["lrm_fit_offset"]
    fit = lrm_fit_offset(DR["x1"], DR["y"].astype(np.int64))
    assert isinstance(fit, OffsetFit)
    assert fit.names() == ["fail", "coefficients", "var", "deviance"]
    _in_r_order(fit.names(), ref["names"])
    assert fit["coefficients"] == fit.coefficient and not fit["fail"]
    assert fit["coefficients"] == pytest.approx(ref["coefficients"][0], rel=1e-12)
    assert fit["var"] == pytest.approx(ref["var"][0], rel=1e-12)
    np.testing.assert_allclose(fit["deviance"], ref["deviance"], rtol=1e-13)


def test_fastbw_names_and_fields():
    ref = FR["fastbw"]
    X = np.column_stack([DR["x1"], DR["x2"], DR["x3"]])
    f = lrm_fit(X, DR["y"].astype(np.int64))
    bw = fastbw(f.coefficients, f.var, 1, [1, 1, 1], ["x1", "x2", "x3"], ["Intercept", "x1", "x2", "x3"])
    assert bw.names() == ["result", "names.kept", "factors.kept", "factors.deleted", "parms.kept",
                          "coefficients", "var"]
    _in_r_order(bw.names(), ref["names"])
    kept = ref["names.kept"]
    assert bw["names.kept"] == ([kept] if isinstance(kept, str) else kept)
    # R's positions are 1-based, the port's 0-based
    assert [j + 1 for j in bw["factors.kept"]] == ref["factors.kept"]
    assert [j + 1 for j in bw["factors.deleted"]] == ref["factors.deleted"]
    assert [j + 1 for j in bw["parms.kept"]] == ref["parms.kept"]
    assert bw["var"] is bw.var and bw.coef_names == ["Intercept", "x1"]


def test_predab_result_names_and_fields():
    n = 12
    y = np.array([0, 1] * 6)

    def refit(xrows, yrows, i):
        return float(np.mean(y[yrows]))

    def measure(values, rows, fit, evalfit):
        return np.array([np.mean(values), 1.0])

    res = predab_resample(n, refit, lambda f: np.full(n, f), measure, np.array([0.5, 1.0]), "crossvalidation", 3)
    assert isinstance(res, PredabResult)
    assert res.names() == FR["predab"]["colnames"]
    assert res["index.corrected"] is res.index_corrected and res["index.orig"] is res.index_orig
    assert res["n"].tolist() == [3.0, 3.0] and (res.failed, res.B, res.method) == (0, 3, "crossvalidation")


def test_vglm_slots_and_fields():
    ref = FR["vglm"]
    codes = DR["y3"].astype(np.int64)
    x = np.column_stack([np.ones(codes.size), DR["x1"]])
    fit = vglm_multinomial(x, codes, 3, 0)
    assert fit.names() == ["iter", "predictors", "coefficients", "fitted.values"]
    _in_r_order(fit.names(), ref["slots"])
    assert fit["iter"] == ref["iter"] == fit.iter
    assert fit["predictors"] is fit.eta and list(fit["predictors"].shape) == ref["dim_predictors"]
    assert fit["fitted.values"] is fit.mu and list(fit["fitted.values"].shape) == ref["dim_fitted"]
    np.testing.assert_allclose(fit["coefficients"], ref["coefficients"], rtol=1e-8)
    assert fit["coefficients"] is fit.coef
    np.testing.assert_array_equal(fit.se, np.sqrt(np.diag(fit.cov)))
    assert "deviance" not in fit and np.isfinite(fit.deviance)


def test_isoreg_names_and_fields():
    ref = FR["isoreg"]
    r = isoreg([1, 0, 1, 0, 1, 1, 0, 1])
    assert r.names() == ["yf", "yc", "iKnots"]
    _in_r_order(r.names(), ref["names"])
    assert r["iKnots"].tolist() == ref["iKnots"] and r["iKnots"] is r.iKnots
    np.testing.assert_array_equal(r["yf"], ref["yf"])
    np.testing.assert_array_equal(r["yc"], ref["yc"])
    assert not isinstance(r, tuple)  # was a NamedTuple; nothing unpacked it or indexed it by position


@pytest.mark.parametrize("kind", ["bs", "ns"])
def test_spline_basis_names_are_r_attributes(kind):
    ref = FR["splines"][kind]
    b = bs(DR["x3"], df=5) if kind == "bs" else ns(DR["x3"], df=4, intercept=True)
    assert b.names() == ["degree", "knots", "Boundary.knots", "intercept"]
    _in_r_order(b.names(), ref["attributes"])
    assert b["degree"] == ref["degree"] and b["intercept"] == ref["intercept"]
    np.testing.assert_allclose(b["knots"], ref["knots"], rtol=1e-15)
    np.testing.assert_array_equal(b["Boundary.knots"], ref["Boundary.knots"])
    assert b["Boundary.knots"] is b.boundary_knots and b.kind == kind and b.r_class[0] == kind


@pytest.mark.parametrize("bs", ["tp", "cr"])
def test_smooth_basis_names_and_fields(bs):
    ref = FR["smooth"][bs]
    b = smooth_basis(DR["x3"], 6, bs)
    assert isinstance(b, SmoothBasis) and type(b) is (TprsBasis if bs == "tp" else CrBasis) and b.bs == bs
    names = b.names()
    assert names[-2:] == ["qrc", "indi"]
    _in_r_order(names[:-2], ref["names"])
    assert "qrc" in ref["attributes"]
    assert b["bs.dim"] == b.k == ref["bs.dim"] and b["null.space.dim"] == ref["null.space.dim"]
    assert b["S.scale"] == pytest.approx(ref["S.scale"][0], rel=1e-12)
    u = b["qrc"]
    np.testing.assert_allclose(u, np.r_[ref["qraux"], ref["qr"][1:]], rtol=1e-12, atol=1e-14)
    X = np.array(ref["X"]).reshape(ref["dimX"], order="F")
    np.testing.assert_allclose(np.abs(b["X"]), np.abs(X), atol=1e-12)
    if bs == "tp":
        assert names == ["bs.dim", "X", "S", "UZ", "Xu", "shift", "null.space.dim", "S.scale", "qrc", "indi"]
        np.testing.assert_array_equal(b["Xu"], ref["Xu"])
        assert b["Xu"] is b.knots and b["shift"] == ref["shift"][0] and b.cr_knots is None
    else:
        assert names == ["bs.dim", "X", "S", "null.space.dim", "xp", "F", "S.scale", "qrc", "indi"]
        assert not ref["F_is_matrix"]
        np.testing.assert_array_equal(b["xp"], ref["xp"])
        np.testing.assert_allclose(b["F"].ravel(), ref["F"], rtol=1e-12, atol=1e-12)
        assert b.knots is None and b.UZ is None and b.shift == 0.0 and b.tp_poly is None


def test_smooth_basis_caches_its_cubic_form_by_assignment():
    b = smooth_basis(DR["x3"], 6, "tp")
    assert b.tp_poly is None
    grid = np.linspace(0.0, 1.0, 4 * b.knots.shape[0] + 1)
    m = b.matrix(grid)
    assert b.tp_poly is not None and m.shape == (grid.size, 5)
    again = b._replace()
    assert again.tp_poly is b.tp_poly and type(again) is TprsBasis

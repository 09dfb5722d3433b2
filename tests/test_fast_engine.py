"""The fast engine (``engine="fast"``) of cal_temperature and cal_vector_scaling.

The fast engine evaluates the multiclass objectives with a vectorised ``exp`` and pairwise
sums (:mod:`calstats.numerics.fast`) under R's optimisers. Its promises, tested here: the
objective is R's to ~1e-13 relative at any point; vector scaling's BFGS follows R's path
(parameters R's to 1e-8 relative); temperature scaling's Brent reaches the same optimum
(R's objective takes the same value at both temperatures, and ``T`` agrees within a few
times ``optimize``'s tolerance). R's engine stays the default and R's bits.
"""

import math
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import arr, case_ids, exact_only, load_cases, run_call
from calstats import CalstatsError
from calstats.calibrators.scaling import (
    FAST_ENGINE_TEXT,
    FastVectorScalingObjective,
    VectorScalingObjective,
    _multiclass_temperature_objective,
)
from calstats.numerics import fast

SQRT_EPS = 1.4901161193847656e-08


def _problem(seed, n, k, sd=3.0, t=2.0, weighted=False):
    """Logits N(0, sd^2) and labels drawn from softmax(Z / t) (not separable)."""
    rs = np.random.default_rng(seed)
    Z = rs.normal(0.0, sd, size=(n, k))
    P = np.exp(Z / t - (Z / t).max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    codes = np.minimum((P.cumsum(axis=1) < rs.random(n)[:, None]).sum(axis=1), k - 1) + 1
    codes[:k] = np.arange(1, k + 1)
    w = rs.uniform(0.0, 3.0, size=n) if weighted else None
    return Z, codes, w


def _r_value(Z, codes, w, T):
    return _multiclass_temperature_objective(Z, codes, w, "r")(T)


def _fast_value(Z, codes, w, T):
    return _multiclass_temperature_objective(Z, codes, w, "fast")(T)


# -- the engine's exp and sum ----------------------------------------------------------


def test_exp_within_one_ulp_and_special_values():
    rs = np.random.default_rng(1)
    x = np.concatenate([rs.uniform(-745.0, 709.7, 200_000), rs.uniform(-1.0, 1.0, 50_000),
                        rs.uniform(-40.0, 0.0, 50_000)])
    got = fast.exp(x)
    exact = np.exp(x.astype(np.longdouble))
    normal = exact >= np.finfo(np.float64).tiny
    ulps = np.abs(got[normal].astype(np.longdouble) - exact[normal]) / np.spacing(exact[normal].astype(np.float64))
    assert float(ulps.max()) < 1.2
    sub = ~normal
    assert np.all(np.abs(got[sub] - exact[sub].astype(np.float64)) <= 5e-324)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 709.78, 709.79, -745.13, -745.14, -800.0, 800.0, 5e-324])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(fast.exp(special), np.exp(special))


def test_pairwise_sum_is_numpys():
    rs = np.random.default_rng(2)
    for n in [0, 1, 7, 8, 9, 127, 128, 129, 300, 1000, 4097]:
        x = rs.normal(size=n) * 1e3
        assert fast.pairwise_sum(x) == np.sum(x)


# -- the objectives against R's engine ---------------------------------------------------


@pytest.mark.parametrize("n,k,weighted", [(1, 2, False), (7, 2, True), (300, 3, False), (129, 40, True),
                                          (500, 130, False)])
def test_temperature_objective_is_rs_to_1e_13(n, k, weighted):
    Z, codes, w = _problem(n + k, n, k, weighted=weighted) if n >= k else (np.array([[0.5, -1.0]]), [2], None)
    for T in (1e-3, 0.05, 0.7, 1.0, 2.5, 1e3):
        a, b = _r_value(Z, codes, w, T), _fast_value(Z, codes, w, T)
        assert b == pytest.approx(a, rel=1e-13, abs=1e-15), T


@pytest.mark.parametrize("n,k,weighted", [(7, 2, False), (300, 3, True), (129, 40, False), (400, 65, True)])
def test_vector_scaling_value_and_gradient_are_rs(n, k, weighted):
    Z, codes, w = _problem(n * 3 + k, n, k, weighted=weighted)
    r, f = VectorScalingObjective(Z, codes, w), FastVectorScalingObjective(Z, codes, w)
    rs = np.random.default_rng(n)
    for _ in range(3):
        par = np.concatenate([rs.uniform(0.2, 2.0, k), rs.normal(0.0, 1.0, k)])
        assert f.value(par) == pytest.approx(r.value(par), rel=1e-13)
        gr, gf = r.gradient(par), f.gradient(par)
        assert np.abs(gf - gr).max() <= 1e-13 * max(1.0, np.abs(gr).max())


def test_extreme_logits_and_overflow_give_rs_values():
    rs = np.random.default_rng(4)
    Z = rs.choice([-700.0, 700.0, 0.0, -3.0], size=(60, 5))
    codes = rs.integers(1, 6, size=60)
    for T in (1e-3, 1.0, 1e3):
        assert _fast_value(Z, codes, None, T) == pytest.approx(_r_value(Z, codes, None, T), rel=1e-13)
    r, f = VectorScalingObjective(Z, codes), FastVectorScalingObjective(Z, codes)
    for par in (np.r_[np.ones(5), np.zeros(5)], np.r_[np.full(5, 3.0), np.arange(5.0)]):
        assert f.value(par) == pytest.approx(r.value(par), rel=1e-13)
        np.testing.assert_allclose(f.gradient(par), r.gradient(par), rtol=0, atol=1e-13)
    # eta overflows to infinity: inf - inf is NaN in both engines
    huge = np.r_[np.full(5, 1e308), np.zeros(5)]
    with np.errstate(all="ignore"):
        assert math.isnan(r.value(huge)) and math.isnan(f.value(huge))


def test_numbers_do_not_depend_on_the_threads():
    Z, codes, w = _problem(5, 3000, 100, weighted=True)
    data = fast.FastScalingData(Z, codes, w)
    assert fast.temperature_value(data, 1.7, threads=1) == fast.temperature_value(data, 1.7, threads=2)
    par = np.r_[np.linspace(0.5, 1.5, 100), np.linspace(-1, 1, 100)]
    g1, g2 = np.empty(200), np.empty(200)
    assert fast.vector_scaling_eval(data, par, g1, threads=1) == fast.vector_scaling_eval(data, par, g2, threads=2)
    assert np.array_equal(g1, g2)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 200), k=st.integers(2, 30),
       log_t=st.floats(-3.0, 3.0), weighted=st.booleans())
def test_fast_objective_within_1e_13_of_rs_at_random_points(seed, n, k, log_t, weighted):
    rs = np.random.default_rng(seed)
    Z = rs.normal(0.0, rs.uniform(0.1, 20.0), size=(n, k))
    codes = rs.integers(1, k + 1, size=n)
    w = rs.uniform(0.0, 3.0, size=n) if weighted else None
    if w is not None and w.sum() == 0:
        w = None
    T = 10.0**log_t
    assert _fast_value(Z, codes, w, T) == pytest.approx(_r_value(Z, codes, w, T), rel=1e-13, abs=1e-15)
    par = np.concatenate([rs.uniform(-2.0, 2.0, k), rs.normal(0.0, 2.0, k)])
    r, f = VectorScalingObjective(Z, codes, w), FastVectorScalingObjective(Z, codes, w)
    assert f.value(par) == pytest.approx(r.value(par), rel=1e-13, abs=1e-15)
    gr = r.gradient(par)
    assert np.abs(f.gradient(par) - gr).max() <= 1e-13 * max(1.0, np.abs(gr).max())


# -- the fits: the same optimum ----------------------------------------------------------

FITS = [(11, 40, 2, False), (12, 300, 3, True), (13, 800, 2, True), (14, 1500, 10, False), (15, 600, 25, True),
        (16, 2000, 40, False)]


@pytest.mark.parametrize("seed,n,k,weighted", FITS)
def test_temperature_reaches_rs_optimum(seed, n, k, weighted):
    Z, codes, w = _problem(seed, n, k, sd=2.0, t=1.6, weighted=weighted)
    a = calstats.cal_temperature(Z, codes, weights=w)
    b = calstats.cal_temperature(Z, codes, weights=w, engine="fast")
    assert a.engine == "r" and b.engine == "fast"
    # R's objective is as low at the fast engine's T as at R's (both are the minimum)
    assert _r_value(Z, codes, w, b.temperature) == pytest.approx(a.value, rel=1e-14)
    assert b.value == pytest.approx(a.value, rel=1e-14)
    # T agrees within a few times optimize's tolerance (R's own T is that far from the minimiser)
    tol1 = SQRT_EPS * a.temperature + SQRT_EPS / 3
    assert abs(b.temperature - a.temperature) <= 10 * tol1


@pytest.mark.parametrize("seed,n,k,weighted", FITS)
def test_vector_scaling_follows_rs_bfgs(seed, n, k, weighted):
    Z, codes, w = _problem(seed, n, k, sd=2.0, t=1.6, weighted=weighted)
    a = calstats.cal_vector_scaling(Z, codes, weights=w)
    b = calstats.cal_vector_scaling(Z, codes, weights=w, engine="fast")
    pa, pb = np.r_[a.scale, a.bias], np.r_[b.scale, b.bias]
    assert np.abs(pb - pa).max() <= 1e-8 * max(1.0, np.abs(pa).max())
    assert b.value == pytest.approx(a.value, rel=1e-12)
    assert b.convergence == a.convergence == 0
    assert (a.engine, b.engine) == ("r", "fast")


def test_vector_scaling_newton_with_the_fast_engine():
    Z, codes, _ = _problem(21, 500, 4, sd=2.0, t=1.6)
    a = calstats.cal_vector_scaling(Z, codes, optimizer="newton")
    b = calstats.cal_vector_scaling(Z, codes, optimizer="newton", engine="fast")
    assert b.engine == "fast" and b.grad_norm <= 1e-9
    # the softmax leaves a common shift of the biases free: compare the scales and the
    # differences of the biases
    np.testing.assert_allclose(np.r_[b.scale, b.bias - b.bias[0]], np.r_[a.scale, a.bias - a.bias[0]], rtol=0,
                               atol=1e-8)


def test_extreme_logits_fit():
    rs = np.random.default_rng(6)
    Z = rs.normal(0.0, 3.0, size=(300, 4))
    Z[::7] *= 233.0  # entries up to about +-700
    codes = np.minimum((np.cumsum(np.exp(Z / 3 - (Z / 3).max(1, keepdims=True)), 1).T
                        / np.exp(Z / 3 - (Z / 3).max(1, keepdims=True)).sum(1) < rs.random(300)).T.sum(1), 3) + 1
    a, b = calstats.cal_temperature(Z, codes), calstats.cal_temperature(Z, codes, engine="fast")
    assert _r_value(Z, codes, None, b.temperature) == pytest.approx(a.value, rel=1e-14)
    c, d = calstats.cal_vector_scaling(Z, codes), calstats.cal_vector_scaling(Z, codes, engine="fast")
    assert d.value == pytest.approx(c.value, rel=1e-10)


def test_float32_and_pandas_inputs():
    Z, codes, w = _problem(7, 400, 5, weighted=True)
    Z32 = Z.astype(np.float32)
    Z64 = Z32.astype(np.float64)
    before = Z32.copy()
    for fn in (calstats.cal_temperature, calstats.cal_vector_scaling):
        ref = fn(Z64, codes, weights=w, engine="fast")
        got32 = fn(Z32, codes, weights=w, engine="fast")
        frame = pd.DataFrame(Z64, columns=list("abcde"))
        gotdf = fn(frame, pd.Categorical.from_codes(codes - 1, list("abcde")), weights=w, engine="fast")
        for got in (got32, gotdf):
            assert got.engine == "fast"
            assert got.value == ref.value
            if fn is calstats.cal_temperature:
                assert got.temperature == ref.temperature
            else:
                assert np.array_equal(got.scale, ref.scale) and np.array_equal(got.bias, ref.bias)
        assert gotdf.levels == list("abcde")
    np.testing.assert_array_equal(Z32, before)


def test_inputs_are_not_modified():
    Z, codes, w = _problem(8, 200, 3, weighted=True)
    copies = (Z.copy(), codes.copy(), w.copy())
    calstats.cal_temperature(Z, codes, weights=w, engine="fast")
    calstats.cal_vector_scaling(Z, codes, weights=w, engine="fast")
    for a, b in zip((Z, codes, w), copies):
        np.testing.assert_array_equal(a, b)


# -- the option, the record, the summary --------------------------------------------------


def test_engine_option_sets_the_default():
    Z, codes, _ = _problem(9, 300, 4)
    explicit = calstats.cal_temperature(Z, codes, engine="fast")
    with calstats.option_context(engine="fast"):
        fit_t = calstats.cal_temperature(Z, codes)
        fit_v = calstats.cal_vector_scaling(Z, codes)
        forced_r = calstats.cal_temperature(Z, codes, engine="r")
    assert (fit_t.engine, fit_v.engine, forced_r.engine) == ("fast", "fast", "r")
    assert fit_t.temperature == explicit.temperature
    assert forced_r.temperature == calstats.cal_temperature(Z, codes).temperature
    assert calstats.cal_temperature(Z, codes).engine == "r"


def test_binary_fits_use_rs_arithmetic():
    rs = np.random.default_rng(10)
    z = rs.normal(size=100)
    y = (rs.random(100) < 1 / (1 + np.exp(-z))).astype(int)
    a, b = calstats.cal_temperature(z, y), calstats.cal_temperature(z, y, engine="fast")
    assert b.engine == "r" and b.temperature == a.temperature


def test_dask_inputs_use_rs_arithmetic():
    da = pytest.importorskip("dask.array")
    Z, codes, _ = _problem(4, 300, 3)
    fit = calstats.cal_temperature(da.from_array(Z, chunks=100), da.from_array(codes, chunks=100), engine="fast")
    assert fit.engine == "r" and fit.temperature == calstats.cal_temperature(Z, codes).temperature


def test_summary_says_which_engine_ran():
    Z, codes, _ = _problem(3, 200, 3)
    with calstats.option_context(emoji=False):
        for fn in (calstats.cal_temperature, calstats.cal_vector_scaling):
            r_text = fn(Z, codes).summary().as_text()
            fast_text = fn(Z, codes, engine="fast").summary().as_text()
            assert "Engine" not in r_text
            assert fast_text.endswith(f"Engine: {FAST_ENGINE_TEXT}\n")
            assert fast_text.count("Engine:") == 1


def test_pickle_round_trip_keeps_the_engine():
    Z, codes, _ = _problem(2, 150, 3)
    for fn in (calstats.cal_temperature, calstats.cal_vector_scaling):
        fit = fn(Z, codes, engine="fast")
        back = pickle.loads(pickle.dumps(fit))
        assert back.engine == "fast"
        pd.testing.assert_frame_equal(back.predict(Z), fit.predict(Z))
        assert back.summary().as_text() == fit.summary().as_text()


@pytest.mark.parametrize("fn", ["cal_temperature", "cal_vector_scaling"])
def test_bad_engine_message(fn):
    Z, codes, _ = _problem(1, 30, 3)
    with pytest.raises(CalstatsError, match=r"^option 'engine' must be one of 'r', 'fast', not 'R'$"):
        getattr(calstats, fn)(Z, codes, engine="R")


# -- R's fixtures: the default is R's bits; the fast engine reaches R's optimum -----------

TEMPERATURE = [c for c in load_cases("temperature") if "multiclass" in c["id"]]
VECTOR = load_cases("vector_scaling")


@exact_only
@pytest.mark.parametrize("case", TEMPERATURE + VECTOR, ids=case_ids(TEMPERATURE) + case_ids(VECTOR))
def test_default_engine_is_rs_bits(case):
    out = case["outputs"]
    for context in ({}, {"engine": "r"}):
        with calstats.option_context(**context):
            fit = run_call(case, calstats)[0]["fit"]
        assert fit.engine == "r"
        for key in ("temperature", "value", "scale", "bias"):
            if key in out:
                assert np.array_equal(np.asarray(fit[key], dtype=float), arr(out[key])), key


@pytest.mark.parametrize("case", TEMPERATURE + VECTOR, ids=case_ids(TEMPERATURE) + case_ids(VECTOR))
def test_fast_engine_on_rs_fixtures(case):
    out = case["outputs"]
    with calstats.option_context(engine="fast"):
        env = run_call(case, calstats)[0]
    fit = env["fit"]
    assert fit.engine == "fast"
    assert fit.value == pytest.approx(float(out["value"]), rel=1e-12)
    if "temperature" in out:
        t = float(out["temperature"])
        assert abs(fit.temperature - t) <= 10 * (SQRT_EPS * t + SQRT_EPS / 3)
    elif not (case.get("notes") or "").startswith("PATH-DEPENDENT") and out["convergence"] == 0:
        want = np.r_[arr(out["scale"]), arr(out["bias"])]
        assert np.abs(np.r_[fit.scale, fit.bias] - want).max() <= 1e-8 * max(1.0, np.abs(want).max())

"""The compiled scaling objectives against their NumPy reference: the same bits, or a defect.

``calstats.numerics._core`` evaluates the multiclass temperature-scaling objective and the
vector-scaling objective and gradient (and runs vector scaling's BFGS) in C; the NumPy code
in ``calstats.calibrators.scaling`` (``backend="numpy"``) is the reference. Every comparison
here is of the bits: values, gradients, probabilities, and a fit's ``par``, ``value``,
``counts`` and ``convergence``.
"""

import os
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import case_ids, exact_only, load_cases, run_call
from calstats.calibrators import scaling
from calstats.calibrators.scaling import VectorScalingObjective, _multiclass_temperature_objective
from calstats.numerics import core

pytestmark = exact_only  # bit identity needs the x87 long double the reference uses

TEMPERATURES = (1e-3, 0.05, 0.7, 1.0, 2.5, 1e3)


def bits(x):
    return np.asarray(x, dtype=np.float64).view(np.int64)


def same(a, b):
    """Bit identity (NaN included)."""
    return np.array_equal(bits(a), bits(b))


def _problem(seed, n, k, scale=3.0, weighted=False):
    rs = np.random.default_rng(seed)
    Z = rs.normal(0.0, scale, size=(n, k))
    codes = rs.integers(1, k + 1, size=n)
    w = rs.uniform(0.0, 3.0, size=n) if weighted else None
    return Z, codes, w


def _check_temperature(Z, codes, w, temperatures=TEMPERATURES):
    g_c = _multiclass_temperature_objective(Z, codes, w, backend="c")
    g_np = _multiclass_temperature_objective(Z, codes, w, backend="numpy")
    with np.errstate(all="ignore"):
        for t in temperatures:
            a, b = g_c(t), g_np(t)
            assert same(a, b), (t, a, b)


def _check_vector(Z, codes, w, pars):
    oc = VectorScalingObjective(Z, codes, w, backend="c")
    onp = VectorScalingObjective(Z, codes, w, backend="numpy")
    with np.errstate(all="ignore"):
        for par in pars:
            # gradient first at a new point (no value call before), then value
            assert same(oc.gradient(par), onp.gradient(par))
            assert same(oc.value(par), onp.value(par))
            assert same(oc.probs_t(par), onp.probs_t(par))


# (n, k, logit sd, weighted): K = 2, rows/classes on both sides of 64 (where the reference
# switches between its two ways of summing), weights
SHAPES = [(7, 2, 1.0, False), (64, 2, 3.0, True), (65, 5, 3.0, False), (300, 3, 10.0, True), (500, 64, 3.0, False),
          (400, 65, 3.0, True), (1200, 130, 5.0, False)]


@pytest.mark.parametrize("n,k,sd,weighted", SHAPES)
def test_temperature_objective_equals_reference(n, k, sd, weighted):
    Z, codes, w = _problem(n * 7 + k, n, k, sd, weighted)
    _check_temperature(Z, codes, w)


@pytest.mark.parametrize("n,k,sd,weighted", SHAPES)
def test_vector_objective_and_gradient_equal_reference(n, k, sd, weighted):
    Z, codes, w = _problem(n * 11 + k, n, k, sd, weighted)
    rs = np.random.default_rng(n + k)
    pars = [np.concatenate([np.ones(k), np.zeros(k)])]
    pars += [np.concatenate([rs.normal(1.0, 0.5, k), rs.normal(0.0, 2.0, k)]) for _ in range(3)]
    _check_vector(Z, codes, w, pars)


@pytest.mark.parametrize("n,k,sd,weighted", SHAPES[:6])
def test_vector_fit_equals_reference(n, k, sd, weighted):
    Z, codes, w = _problem(n * 13 + k, n, k, sd, weighted)
    a = VectorScalingObjective(Z, codes, w, backend="c").fit()
    b = VectorScalingObjective(Z, codes, w, backend="numpy").fit()
    assert same(a.par, b.par) and same(a.value, b.value)
    assert a.counts == b.counts and a.convergence == b.convergence and a.iterations == b.iterations


def test_separable_fit_to_the_iteration_limit_equals_reference():
    """Scales grow until maxit: the path is sensitive to every bit of every gradient."""
    rs = np.random.default_rng(5)
    Z = rs.normal(size=(90, 3))
    codes = Z.argmax(axis=1) + 1
    a = VectorScalingObjective(Z, codes, backend="c").fit(maxit=60)
    b = VectorScalingObjective(Z, codes, backend="numpy").fit(maxit=60)
    assert a.convergence == b.convergence == 1
    assert same(a.par, b.par) and same(a.value, b.value) and a.counts == b.counts


def test_extreme_logits():
    """Logits whose quotient by T overflows (inf - inf: NaN objective), rows with one huge
    logit (probabilities 0 and 1, clipped at 1e-15), underflowing exps."""
    rs = np.random.default_rng(2)
    Z = rs.normal(size=(40, 3))
    Z[0, 0], Z[1, 1], Z[2, :] = 1e306, -1e306, 1e306
    Z[3] = [800.0, -800.0, 0.0]
    codes = rs.integers(1, 4, size=40)
    _check_temperature(Z, codes, None)
    assert np.isnan(_multiclass_temperature_objective(Z, codes, backend="c")(1e-3))
    Z2 = Z.copy()
    Z2[0, 0] = Z2[2, 0] = 700.0
    Z2[1, 1] = Z2[2, 1] = Z2[2, 2] = -700.0
    _check_temperature(Z2, codes, None)
    par = np.array([3.0, 1.0, 0.5, 0.0, 1.0, -1.0])
    _check_vector(Z2, codes, None, [par, np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])])


@pytest.mark.parametrize("n", [30, 100])
def test_gradient_of_negative_zero_terms(n):
    """A column of -0 logits never the true class: every term of its scale sum is -0.
    R's colSums starts every sum at 0.0, so the sum is +0 at any number of rows; the
    reference and the core both."""
    rs = np.random.default_rng(n)
    Z = rs.normal(size=(n, 4))
    Z[:, 2] = -0.0
    codes = rs.choice([1, 2, 4], size=n)
    par = np.concatenate([np.ones(4), np.zeros(4)])
    g = VectorScalingObjective(Z, codes, backend="c").gradient(par)
    assert same(g, VectorScalingObjective(Z, codes, backend="numpy").gradient(par))
    assert not np.signbit(g[2])


@pytest.mark.parametrize("weighted", [False, True])
def test_two_threads_give_the_same_bits_as_one(weighted):
    Z, codes, w = _problem(3, 3001, 140, 3.0, weighted)  # n k above the core's threading threshold
    data = core.ScalingData(Z, codes, w)
    rs = np.random.default_rng(4)
    par = np.concatenate([rs.normal(1.0, 0.3, 140), rs.normal(0.0, 1.0, 140)])
    P1, P2 = np.empty((3001, 140)), np.empty((3001, 140))
    v1 = core.vector_scaling_value_c(data, par, P1, threads=1)
    v2 = core.vector_scaling_value_c(data, par, P2, threads=2)
    assert same(v1, v2) and same(P1, P2)
    assert same(core.vector_scaling_gradient_c(data, P1, threads=1), core.vector_scaling_gradient_c(data, P2, threads=2))
    onp = VectorScalingObjective(Z, codes, w, backend="numpy")
    assert same(v1, onp.value(par)) and same(core.vector_scaling_gradient_c(data, P1, threads=2), onp.gradient(par))
    for t in (0.4, 2.0):
        a = core.temperature_value_c(data, t, threads=1)
        assert same(a, core.temperature_value_c(data, t, threads=2))
        assert same(a, _multiclass_temperature_objective(Z, codes, w, backend="numpy")(t))
    a = core.vector_scaling_fit_c(data, onp.start(), maxit=3, threads=1)
    b = core.vector_scaling_fit_c(data, onp.start(), maxit=3, threads=2)
    assert same(a.par, b.par) and same(a.value, b.value) and a.counts == b.counts


def _fit_fields(fit):
    out = {"value": fit.value, "convergence": fit.convergence}
    if hasattr(fit, "temperature"):
        out["temperature"] = fit.temperature
    else:
        out.update(scale=fit.scale, bias=fit.bias, counts=fit.counts, iterations=fit.iterations)
    return out


def _same_fields(a, b):
    fa, fb = _fit_fields(a), _fit_fields(b)
    assert fa.keys() == fb.keys()
    for key in fa:
        if key in ("counts", "convergence", "iterations"):
            assert fa[key] == fb[key], key
        else:
            assert same(fa[key], fb[key]), key


TEMPERATURE = load_cases("temperature")
VECTOR = load_cases("vector_scaling")


@pytest.mark.parametrize("case", TEMPERATURE + VECTOR, ids=case_ids(TEMPERATURE) + case_ids(VECTOR))
def test_every_r_fixture_takes_the_same_path_in_both_engines(case, monkeypatch):
    env_c, _ = run_call(case, calstats)
    monkeypatch.setattr(scaling, "BACKEND", "numpy")
    env_np, _ = run_call(case, calstats)
    if "fit" in env_c:
        _same_fields(env_c["fit"], env_np["fit"])


@pytest.mark.parametrize("weighted", [False, True])
def test_front_ends_give_the_same_fit_in_both_engines(weighted, monkeypatch):
    Z, codes, w = _problem(8, 400, 6, 3.0, weighted)
    codes[:6] = np.arange(1, 7)
    fits_c = [calstats.cal_temperature(Z, codes, weights=w), calstats.cal_vector_scaling(Z, codes, weights=w)]
    monkeypatch.setattr(scaling, "BACKEND", "numpy")
    fits_np = [calstats.cal_temperature(Z, codes, weights=w), calstats.cal_vector_scaling(Z, codes, weights=w)]
    for a, b in zip(fits_c, fits_np):
        _same_fields(a, b)
    assert same(fits_c[1].grad_norm, fits_np[1].grad_norm)


def test_inputs_float32_pandas_and_not_mutated():
    Z, codes, w = _problem(9, 200, 4, 2.0, True)
    codes[:4] = np.arange(1, 5)
    Z32 = Z.astype(np.float32)
    keep = (Z32.copy(), codes.copy(), w.copy())
    ref = calstats.cal_vector_scaling(Z32.astype(np.float64), codes, weights=w)
    for logits in (Z32, pd.DataFrame(Z32, columns=list("abcd")), np.asfortranarray(Z32)):
        fit = calstats.cal_vector_scaling(logits, codes, weights=w)
        _same_fields(fit, ref)
        t = calstats.cal_temperature(logits, codes, weights=w)
        _same_fields(t, calstats.cal_temperature(Z32.astype(np.float64), codes, weights=w))
    assert np.array_equal(Z32, keep[0]) and np.array_equal(codes, keep[1]) and np.array_equal(w, keep[2])


def test_fit_pickles():
    Z, codes, _ = _problem(10, 150, 3)
    codes[:3] = [1, 2, 3]
    fit = calstats.cal_vector_scaling(Z, codes)
    back = pickle.loads(pickle.dumps(fit))
    _same_fields(fit, back)
    assert same(back.predict(Z[:5]).to_numpy(), fit.predict(Z[:5]).to_numpy())


def test_exp_of_the_c_library_gives_the_same_bits():
    """CALSTATS_EXP=libm makes the core call the C library's exp instead of its replica:
    the numbers must not change."""
    Z, codes, w = _problem(11, 300, 9, 4.0, True)
    par = np.concatenate([np.linspace(0.5, 1.5, 9), np.linspace(-1.0, 1.0, 9)])
    here = [_multiclass_temperature_objective(Z, codes, w, backend="c")(0.6),
            VectorScalingObjective(Z, codes, w, backend="c").value(par)]
    here += list(VectorScalingObjective(Z, codes, w, backend="c").gradient(par))
    code = (
        "import sys, numpy as np\n"
        "from calstats.numerics import _core\n"
        "from calstats.calibrators.scaling import VectorScalingObjective, _multiclass_temperature_objective\n"
        "assert _core.exp_mode() == 'libm'\n"
        "rs = np.random.default_rng(11)\n"
        "Z = rs.normal(0.0, 4.0, size=(300, 9)); codes = rs.integers(1, 10, size=300); w = rs.uniform(0, 3, 300)\n"
        "par = np.concatenate([np.linspace(0.5, 1.5, 9), np.linspace(-1.0, 1.0, 9)])\n"
        "out = [_multiclass_temperature_objective(Z, codes, w, backend='c')(0.6),\n"
        "       VectorScalingObjective(Z, codes, w, backend='c').value(par)]\n"
        "out += list(VectorScalingObjective(Z, codes, w, backend='c').gradient(par))\n"
        "print(' '.join(float(x).hex() for x in out))\n"
    )
    env = dict(os.environ, CALSTATS_EXP="libm")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert res.stdout.split() == [float(x).hex() for x in here]


def test_unknown_backend_or_engine_and_bad_data_are_refused():
    Z, codes, _ = _problem(12, 20, 3)
    with pytest.raises(ValueError, match="unknown backend"):
        VectorScalingObjective(Z, codes, backend="fortran")
    with pytest.raises(ValueError, match="unknown backend"):
        _multiclass_temperature_objective(Z, codes, backend="fortran")
    with pytest.raises(ValueError, match="unknown engine"):
        _multiclass_temperature_objective(Z, codes, engine="c")
    with pytest.raises(ValueError, match="class codes outside"):
        core.ScalingData(Z, codes + 3)
    with pytest.raises(ValueError, match="disagree"):
        core.ScalingData(Z, codes[:5])
    data = core.ScalingData(Z, codes)
    with pytest.raises(ValueError, match="par has the wrong length"):
        core.vector_scaling_value_c(data, np.ones(5))
    with pytest.raises(ValueError, match="probs must be"):
        core.vector_scaling_gradient_c(data, np.ones((20, 3), dtype=np.float32))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 90), k=st.integers(2, 9), seed=st.integers(0, 2**32 - 1),
       sd=st.sampled_from([0.1, 3.0, 40.0]), weighted=st.booleans(), t=st.floats(1e-3, 1e3))
def test_property_c_and_reference_agree_bit_for_bit(n, k, seed, sd, weighted, t):
    Z, codes, w = _problem(seed, n, k, sd, weighted)
    _check_temperature(Z, codes, w, (t,))
    rs = np.random.default_rng(seed + 1)
    _check_vector(Z, codes, w, [np.concatenate([rs.normal(1.0, 1.0, k), rs.normal(0.0, 1.0, k)])])

"""The compiled core against its executable reference: the same bits, or a defect.

``calstats.numerics._core`` runs R's vmmin and the multinomial objective in C; the NumPy
code (``calstats.numerics.vmmin.vmmin`` and ``MultinomialObjective``) is the reference.
Every comparison here is exact: ``par``, ``value``, ``counts`` and ``convergence`` equal.
"""

import math
import platform
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
import calstats.calibrators._multinomial as mn
from _rcases import case_ids, exact_only, load_cases, run_call
from calstats import CalstatsError
from calstats.calibrators._multinomial import MultinomialObjective, fit_multinomial
from calstats.numerics.core import multinomial_eval_c, vmmin_c
from calstats.numerics.vmmin import vmmin

pytestmark = exact_only  # bit identity needs the x87 long double the reference uses


def _problem(seed, k, n, separable=False, d=None):
    rs = np.random.default_rng(seed)
    d = k if d is None else d
    U = np.log(rs.dirichlet(np.ones(d) * 0.7, size=n))
    y = rs.integers(1, k + 1, size=n)
    if separable:
        y = U[:, :k].argmax(axis=1) + 1
    return U, y


def _same_fit(a, b):
    assert np.array_equal(a.weight, b.weight)
    assert np.array_equal(a.bias, b.bias)
    assert a.value == b.value or (math.isnan(a.value) and math.isnan(b.value))
    assert a.counts == b.counts
    assert a.convergence == b.convergence
    assert a.iterations == b.iterations


# K from 2 to 60; the large ones with a small maxit so that the reference stays quick
# (and "maxit hit" is covered on every size).
RANDOM_CASES = [
    # (seed, k, n, lam, penalty, mu, separable, maxit)
    (1, 2, 40, 0.0, "odir", None, False, 500),
    (2, 2, 30, 0.0, "odir", None, True, 500),
    (3, 3, 200, 1e-3, "odir", None, False, 500),
    (4, 3, 25, 0.0, "odir", None, True, 500),
    (5, 4, 150, 1e-2, "l2", None, False, 500),
    (6, 5, 120, 0.1, "odir", 0.0, False, 500),
    (7, 5, 80, 0.01, "odir", 0.3, True, 500),
    (8, 7, 300, 1e-4, "odir", None, False, 500),
    (9, 8, 60, 0.0, "l2", 0.05, False, 500),
    (10, 10, 400, 1e-3, "odir", None, False, 500),
    (11, 12, 90, 0.0, "odir", None, True, 60),
    (12, 20, 250, 1e-2, "odir", None, False, 40),
    (13, 33, 120, 1e-2, "odir", None, False, 12),
    (14, 45, 700, 1e-3, "l2", None, False, 6),  # n > crossprod's block: sums start at 0.0
    (15, 60, 80, 1e-2, "odir", None, True, 5),
]


@pytest.mark.parametrize("case", RANDOM_CASES, ids=[f"k{c[1]}-n{c[2]}-{c[4]}-sep{c[6]}" for c in RANDOM_CASES])
def test_c_fit_equals_reference_fit(case):
    seed, k, n, lam, penalty, mu, separable, maxit = case
    U, y = _problem(seed, k, n, separable)
    ref = fit_multinomial(U, y, k, lam, penalty, maxit=maxit, mu=mu, backend="numpy")
    got = fit_multinomial(U, y, k, lam, penalty, maxit=maxit, mu=mu, backend="c")
    _same_fit(got, ref)
    if maxit < 500 or separable:
        assert got.convergence == 1 or got.iterations < maxit


def test_maxit_reached_and_reported():
    U, y = _problem(2, 3, 40, separable=True)
    fit = fit_multinomial(U, y, 3, 0.0, maxit=25)
    assert fit.iterations == 25 and fit.convergence == 1


@pytest.mark.parametrize("seed", range(6))
def test_c_objective_equals_reference_objective(seed):
    rs = np.random.default_rng(100 + seed)
    k = int(rs.integers(2, 40))
    d = k if seed % 2 else int(rs.integers(1, 6))  # matrix scaling feeds any number of features
    n = int(rs.integers(1, 900))
    U, y = _problem(seed, k, n, d=d)
    lam = float(rs.choice([0.0, 1e-3, 0.5]))
    mu = None if seed < 3 else float(rs.choice([0.0, 0.2]))
    obj = MultinomialObjective(U, y, k, lam, "odir" if seed % 3 else "l2", mu)
    par = obj.start() + rs.normal(size=obj.start().size)
    value, grad = multinomial_eval_c(U, y, k, lam, obj._mask_f, par, mu)
    assert value == obj.value(par)
    assert np.array_equal(grad, obj.gradient(par))


def _rosenbrock():
    def fr(x):
        return 100 * (x[1] - x[0] * x[0]) ** 2 + (1 - x[0]) ** 2

    def grr(x):
        return np.array([-400 * x[0] * (x[1] - x[0] * x[0]) - 2 * (1 - x[0]), 200 * (x[1] - x[0] * x[0])])

    return fr, grr


def test_c_vmmin_reproduces_r_optim_rosenbrock():
    fr, grr = _rosenbrock()
    res = vmmin_c(fr, grr, np.array([-1.2, 1.0]), maxit=100)
    ref = vmmin(fr, grr, np.array([-1.2, 1.0]), maxit=100)
    assert res.value == ref.value and np.array_equal(res.par, ref.par)
    assert res.counts == (110, 43) == ref.counts  # R's optim() example prints these counts


def test_c_vmmin_errors_are_rs():
    with pytest.raises(CalstatsError, match="initial value in 'vmmin' is not finite"):
        vmmin_c(lambda x: math.inf, lambda x: x, np.zeros(2))
    with pytest.raises(CalstatsError, match="non-finite value supplied by optim"):
        vmmin_c(lambda x: 0.0, lambda x: x, np.array([np.nan, 0.0]))
    with pytest.raises(CalstatsError, match="gradient in optim evaluated to length 1 not 2"):
        vmmin_c(lambda x: 1.0, lambda x: np.zeros(1), np.zeros(2))
    with pytest.raises(ZeroDivisionError):  # a raising objective propagates unchanged
        vmmin_c(lambda x: 1 / 0, lambda x: x, np.zeros(2))


def test_c_vmmin_does_not_mutate_and_matches_on_a_quartic():
    start = np.zeros(3)
    f = lambda x: float(np.sum((x - 3) ** 4))  # noqa: E731
    g = lambda x: 4 * (x - 3) ** 3  # noqa: E731
    res = vmmin_c(f, g, start, maxit=5)
    ref = vmmin(f, g, start, maxit=5)
    assert np.array_equal(start, np.zeros(3))
    assert np.array_equal(res.par, ref.par) and res.counts == ref.counts and res.convergence == 1


DIRICHLET = load_cases("dirichlet")


@pytest.mark.parametrize("case", DIRICHLET, ids=case_ids(DIRICHLET))
def test_every_dirichlet_fixture_takes_the_same_path_in_both_engines(case, monkeypatch):
    env_c, _ = run_call(case, calstats)
    monkeypatch.setattr(mn, "BACKEND", "numpy")
    env_np, _ = run_call(case, calstats)
    if "fit" not in env_c:
        return
    a, b = env_c["fit"], env_np["fit"]
    assert np.array_equal(a.weight, b.weight) and np.array_equal(a.bias, b.bias)
    assert a.value == b.value and a.counts == b.counts and a.convergence == b.convergence
    assert a.lambda_ == b.lambda_


def test_lambda_search_in_threads_equals_sequential():
    U, y = _problem(21, 4, 240)
    with calstats.option_context(threads=1):
        seq = mn.select_lambda(U, y, 4)
    with calstats.option_context(threads=2):
        par = mn.select_lambda(U, y, 4)
    assert seq[0] == par[0] and np.array_equal(seq[1], par[1])


@pytest.mark.parametrize("k,n,d", [(40, 300, 40), (23, 2500, 23), (30, 90, 3)])
def test_two_threads_give_the_same_bits_as_one(k, n, d):
    """The triangle's passes and the objective split across two threads keep every sum's
    order, so one and two threads give the same fit (and the reference's)."""
    from calstats.numerics.core import multinomial_fit_c

    U, y = _problem(31 + k, k, n, d=d)
    obj = MultinomialObjective(U, y, k, 1e-3)
    one = multinomial_fit_c(U, y, k, 1e-3, obj._mask_f, obj.start(), maxit=8, threads=1)
    two = multinomial_fit_c(U, y, k, 1e-3, obj._mask_f, obj.start(), maxit=8, threads=2)
    assert np.array_equal(one[0], two[0]) and one[1:] == two[1:]
    par = obj.start() + 0.01
    v1, g1 = multinomial_eval_c(U, y, k, 1e-3, obj._mask_f, par, threads=1)
    v2, g2 = multinomial_eval_c(U, y, k, 1e-3, obj._mask_f, par, threads=2)
    assert v1 == v2 == obj.value(par) and np.array_equal(g1, g2) and np.array_equal(g1, obj.gradient(par))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(k=st.integers(2, 7), n=st.integers(1, 60), lam=st.sampled_from([0.0, 1e-4, 0.05]),
       mu=st.sampled_from([None, 0.0, 0.3]), seed=st.integers(0, 10_000), sep=st.booleans(),
       d_extra=st.integers(-1, 2), weighted=st.booleans())
def test_property_c_and_reference_agree_bit_for_bit(k, n, lam, mu, seed, sep, d_extra, weighted):
    d = max(1, k + d_extra)
    U, y = _problem(seed, k, n, sep and d >= k, d=d)
    w = np.random.default_rng(seed).uniform(0, 2, n) if weighted else None
    if w is not None and not (w > 0).any():
        return
    ref = fit_multinomial(U, y, k, lam, maxit=60, mu=mu, backend="numpy", weights=w)
    got = fit_multinomial(U, y, k, lam, maxit=60, mu=mu, backend="c", weights=w)
    _same_fit(got, ref)


def test_c_fit_rejects_nonfinite_features_like_r():
    U, y = _problem(3, 3, 30)
    U[0, 0] = np.inf
    with pytest.raises(CalstatsError, match="initial value in 'vmmin' is not finite|non-finite"):
        fit_multinomial(U, y, 3, 0.0)


# --------------------------------------------------------------------------------------
# the objective's exp: a vector replica of the C library's exp, or the C library itself


def _cpu_has(*flags):
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return False
    words = set(text.split())
    return all(f in words for f in flags)


def test_exp_replica_is_used_where_glibc_uses_its_fma_exp():
    from calstats.numerics import _core

    mode = _core.exp_mode()
    assert mode in ("replica", "libm")
    if sys.platform == "linux" and platform.machine() == "x86_64" and _cpu_has("avx2", "fma"):
        assert mode == "replica"


@pytest.mark.parametrize("seed", range(3))
def test_exp_replica_gives_the_c_library_bits(seed):
    from calstats.numerics import _core, libm

    rs = np.random.default_rng(seed)
    x = np.concatenate([
        -40.0 * rs.random(200_001),                       # softmax inputs
        (rs.random(50_000) - 0.5) * 1500.0,               # overflow, underflow, subnormal results
        (rs.random(20_000) - 0.5) * 2.0**-50,             # around the tiny threshold 2^-54
        np.ldexp(rs.random(2000), -rs.integers(40, 1074, 2000)),
        [0.0, -0.0, np.nan, np.inf, -np.inf, 709.78, 709.79, -708.4, -745.13, -745.14, 5e-324, -5e-324],
    ])
    for m in (0.0, 1.5, -3.25):
        z = x + m
        want = libm.exp(z - m)
        _core.exp_shifted(z, m)
        same = (z.view(np.int64) == want.view(np.int64)) | (np.isnan(z) & np.isnan(want))
        assert same.all(), x[~same][:5]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=13))
def test_exp_replica_property(values):
    from calstats.numerics import _core, libm

    z = np.array(values, dtype=np.float64)
    want = libm.exp(z)
    _core.exp_shifted(z, 0.0)
    assert ((z.view(np.int64) == want.view(np.int64)) | (np.isnan(z) & np.isnan(want))).all()

"""The compiled passes (``calstats.numerics._passes``) against their NumPy references.

Every public reduction, the Brier score and log-loss, and glm.fit's iterations run in C by
default (``passes.BACKEND = "c"``); the NumPy code is the reference (``"numpy"``). Both must
give the same bits on any input: NaN, infinities, signed zeros, values at the ends of the
double range, float32, any memory layout, weights. The R fixtures of the reductions, scores,
Platt, beta and glm are replayed by their own test files with the default engine.
"""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import calstats
from calstats.evaluation import scores
from calstats.numerics import _passes, linpack, passes
from calstats.numerics import reductions as R
from calstats.numerics.binomial import Irls
from calstats.ports.stats import glm as G

M = np.finfo(np.float64).max
TINY = np.finfo(np.float64).tiny


def _bits(v, nan_payload=True):
    a = np.ascontiguousarray(np.asarray(v, dtype=np.float64))
    if not nan_payload:
        a = np.where(np.isnan(a), np.nan, a)
    return a.shape, a.view(np.int64).tolist()


def _run(engine, f, *args, **kwargs):
    old = passes.BACKEND
    passes.BACKEND = engine
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return f(*args, **kwargs)
    finally:
        passes.BACKEND = old


def same(f, *args, nan_payload=True, **kwargs):
    """``f`` under both engines; asserts identical bits and returns the compiled result.

    ``nan_payload=False`` for double-precision products: where two different NaNs meet in
    a double sum, which one survives is the compiler's choice of operand order (in R's
    BLAS as in NumPy's loops), so only NaN-ness is compared there.
    """
    c = _run("c", f, *args, **kwargs)
    n = _run("numpy", f, *args, **kwargs)
    if isinstance(c, tuple):
        assert len(c) == len(n)
        for a, b in zip(c, n):
            assert _bits(a, nan_payload) == _bits(b, nan_payload)
    else:
        assert _bits(c, nan_payload) == _bits(n, nan_payload), (c, n)
    return c


def hostile(rs, n, dtype=np.float64):
    """Normal values over the whole exponent range with NaN, infinities, signed zeros,
    DBL_MAX and subnormals sprinkled in."""
    x = rs.normal(size=n) * 10.0 ** rs.integers(-300, 300, size=n)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, M, -M, TINY / 8, -TINY, 1e-310])
    if n:
        idx = rs.integers(0, n, size=max(1, n // 10))
        x[idx] = rs.choice(special, size=idx.size)
    return x.astype(dtype)


# --------------------------------------------------------------------------------------
# sum and mean


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rsum_and_rmean_match_reference_on_hostile_values(seed, dtype):
    rs = np.random.default_rng(seed)
    for n in (0, 1, 2, 7, 64, 1000):
        x = hostile(rs, n, dtype)
        for v in (x, x[::-1], x[::3], np.asfortranarray(x[: n - n % 4].reshape(-1, 4)) if n >= 4 else x):
            same(R.rsum, v)
            if v.size:
                same(R.rmean, v)
        finite = np.where(np.isfinite(x), x, 1.0) / 1e10
        same(R.rsum, finite)
        same(R.rmean, finite) if n else None
    assert math.isnan(R.rmean(np.zeros(0)))
    assert R.rsum(np.zeros(0)) == 0.0


# R 4.2.2: cat(sprintf("%a %a\n", sum(x), mean(x))) for each case
_R_OVERFLOW = [
    ([M, M], math.inf, M),
    ([M, M, -M], M, float.fromhex("0x1.5555555555555p+1022")),
    ([M, M * (1 - 2**-53), 0.0], math.inf, float.fromhex("0x1.5555555555554p+1023")),
    ([M, 2.0**970], math.inf, 2.0**1023),
    ([M, M, M], math.inf, math.inf),
    ([-M, -M], -math.inf, -M),
    ([M, 1e300, 1e300, 1e300, -M], float.fromhex("0x1.1eb2d66p+998"), float.fromhex("0x1.cab7bd6673333p+995")),
    ([M] * 7 + [-M], math.inf, float.fromhex("0x1.7ffffffffffffp+1023")),
    ([M, 2.0**969 + 2.0**960], math.inf, float.fromhex("0x1.fffffffffffffp+1022")),
    ([M / 3, M, M], math.inf, float.fromhex("0x1.8e38e38e38e38p+1023")),
]


@pytest.mark.parametrize("x, want_sum, want_mean", _R_OVERFLOW)
def test_sum_and_mean_leave_the_double_range_as_r_does(x, want_sum, want_mean):
    # R's rsum turns a long-double total beyond DBL_MAX into Inf (even where rounding would
    # give DBL_MAX); R's mean falls back to sum(x/n) when the total overflows a double
    assert same(R.rsum, np.array(x)) == want_sum
    assert same(R.rmean, np.array(x)) == want_mean


def test_sums_of_negative_zeros_are_positive_zero_as_in_r():
    # R 4.2.2: 1/sum(c(-0, -0)), 1/colSums(matrix(-0, 3, 2)), 1/rowSums(...), 1/crossprod(c(-0, -0), c(1, 1))
    # are all Inf: every accumulator starts at +0
    z = np.full(3, -0.0)
    m = np.full((3, 2), -0.0)
    for got in (same(R.rsum, z), same(R.rmean, z), same(R.dot, z, np.ones(3))):
        assert math.copysign(1.0, got) == 1.0
    for got in (same(R.row_sums, m), same(R.col_sums, m), same(R.crossprod, m, np.ones((3, 1)))):
        assert (np.copysign(1.0, got) == 1.0).all()
    big = np.full((100, 3), -0.0)  # the long-axis reference path
    assert (np.copysign(1.0, same(R.col_sums, big)) == 1.0).all()


def test_nan_payloads_propagate_identically():
    na = np.array([0x7FF00000000007A2], dtype=np.int64).view(np.float64)[0]  # R's NA_real_
    for x in ([1.0, na, np.nan], [np.nan, na], [na, 2.0, -np.nan], [np.inf, -np.inf, na]):
        same(R.rsum, np.array(x))
        same(R.rmean, np.array(x))
        same(R.row_sums, np.array([x, x[::-1]]))


def test_inputs_of_other_kinds_are_converted_as_the_reference():
    same(R.rsum, [1, 2, 3])
    same(R.rsum, 2.5)
    same(R.rmean, pd.Series([0.1, 0.2, 0.3]))
    same(R.rsum, np.array([True, False, True]))
    same(R.rsum, np.arange(24, dtype=np.float64).reshape(2, 3, 4))
    same(R.rmean, np.array([1.0, 2.0], dtype=">f8"))
    same(R.row_sums, pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]}))
    same(R.rsum, np.float16([0.1, 0.2]))


# --------------------------------------------------------------------------------------
# row and column sums


def _layouts(m):
    yield m
    yield np.asfortranarray(m)
    yield m.astype(np.float32)
    yield np.asfortranarray(m.astype(np.float32))
    yield m[::-1, ::2]
    yield np.asfortranarray(m)[::2, ::-1]


@pytest.mark.parametrize("shape", [(0, 4), (5, 0), (1, 1), (3, 5), (9, 2), (70, 3), (2000, 40), (3000, 20), (40, 2000)])
def test_row_and_col_sums_match_reference_in_every_layout(shape):
    rs = np.random.default_rng(shape[0] * 7 + shape[1])
    m = hostile(rs, shape[0] * shape[1]).reshape(shape) if shape[0] * shape[1] < 2000 else rs.normal(size=shape)
    for a in _layouts(m):
        same(R.row_sums, a)
        same(R.col_sums, a)
        same(R.ld_sum_axis0, a)


def test_lane_sums_do_not_depend_on_threads():
    rs = np.random.default_rng(3)
    m = rs.normal(size=(50000, 3)) * 10.0 ** rs.integers(-5, 5, size=(50000, 3))
    for a, axis in ((m, 1), (np.asfortranarray(m), 0), (m.T, 0), (m.T, 1)):
        one, two = np.empty(a.shape[0] if axis else a.shape[1]), np.empty(a.shape[0] if axis else a.shape[1])
        _passes.lane_sums(a, axis, one, 1)
        _passes.lane_sums(a, axis, two, 2)
        assert _bits(one) == _bits(two)
        ref = R.row_sums_numpy(a) if axis else R.ld_sum_axis0_numpy(a)
        assert _bits(one) == _bits(ref)


# --------------------------------------------------------------------------------------
# products


@pytest.mark.parametrize("n, ka, kb", [(0, 3, 2), (1, 1, 1), (17, 3, 1), (10, 5000, 1), (30, 70, 130), (200, 9, 4),
                                       (50, 3, 6), (3000, 20, 2)])
def test_dot_and_crossprod_match_reference(n, ka, kb):
    rs = np.random.default_rng(n + ka + kb)
    a = rs.normal(size=(n, ka)) * 10.0 ** rs.integers(-100, 100, size=(n, ka))
    b = rs.normal(size=(n, kb))
    if n > 3:
        a[1, 0], b[2, 0] = np.nan, np.inf
    for x, y in ((a, b), (np.asfortranarray(a), b), (a.astype(np.float32), b[::-1]), (a[:, ::-1], b.astype(np.float32))):
        same(R.crossprod, x, y, nan_payload=False)
    v = a[:, 0]
    same(R.dot, v, b[:, 0])
    same(R.dot, v.astype(np.float32), b[::-1, 0])


@pytest.mark.parametrize("kb", [2, 8])
@pytest.mark.parametrize("order", ["C", "F"])
def test_crossprod_does_not_depend_on_threads(kb, order):
    rs = np.random.default_rng(4)
    a, b = np.asarray(rs.normal(size=(40000, 6)), order=order), rs.normal(size=(40000, kb))
    one, two = np.empty((6, kb)), np.empty((6, kb))
    _passes.crossprod(a, b, one, 1)
    _passes.crossprod(a, b, two, 2)
    assert _bits(one) == _bits(two) == _bits(R.crossprod_numpy(a, b))


# --------------------------------------------------------------------------------------
# Brier score and log-loss


def _probs(rs, n, k):
    z = rs.normal(size=(n, k)) * 3
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    p[rs.integers(0, n, size=3)] = np.eye(k)[0]  # exact 0s and 1s (clipped by the log-loss)
    y = rs.integers(1, k + 1, size=n)
    y[:k] = np.arange(1, k + 1)
    return p, y


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_scores_match_reference(k, weighted):
    rs = np.random.default_rng(k + 10 * weighted)
    p, y = _probs(rs, 300, k)
    w = rs.uniform(size=300) if weighted else None
    before = p.copy()
    for a in (p, np.asfortranarray(p), p.astype(np.float32), pd.DataFrame(p)):
        same(scores.brier_score, a, y, weights=w)
        same(scores.log_loss, a, y, weights=w)
    np.testing.assert_array_equal(p, before)


def test_brier_tiles_of_a_wide_fortran_matrix_match_reference():
    # lanes (rows) are the fast axis and the rows long: the tiled accumulation
    rs = np.random.default_rng(9)
    p, y = _probs(rs, 2000, 40)
    same(scores.brier_score, np.asfortranarray(p), y)
    same(scores.brier_score, np.asfortranarray(p).astype(np.float32), y)


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_scores_match_reference(weighted):
    rs = np.random.default_rng(5 + weighted)
    p = rs.uniform(size=500)
    p[:4] = [0.0, 1.0, 1e-17, 1 - 1e-17]
    y = (rs.uniform(size=500) < p).astype(int)
    w = rs.integers(0, 4, size=500).astype(float) if weighted else None
    for a in (p, p[::-1], p.astype(np.float32), pd.Series(p)):
        same(scores.brier_score, a, y, weights=w)
        same(scores.log_loss, a, y, weights=w)
    same(scores.log_loss, p, np.zeros(500, dtype=int))  # one class
    same(scores.brier_score, np.full(500, 0.5), y)  # constant scores


def test_scores_on_many_rows_use_both_cores_with_the_same_bits():
    rs = np.random.default_rng(6)
    p, y = _probs(rs, 40000, 3)
    same(scores.brier_score, p, y)
    same(scores.log_loss, p, y)
    one = _passes.score(passes.BRIER_MATRIX, p, y.astype(np.int64), None, 1)
    two = _passes.score(passes.BRIER_MATRIX, p, y.astype(np.int64), None, 2)
    assert _bits(one) == _bits(two)
    q = p[:, 0].copy()
    yb = (y == 1).astype(np.float64)
    one = _passes.score(passes.LOGLIK_BINARY, q, yb, None, 1)
    two = _passes.score(passes.LOGLIK_BINARY, q, yb, None, 2)
    assert _bits(one) == _bits(two)


# --------------------------------------------------------------------------------------
# glm.fit


def _fit_fields(fit):
    return tuple(np.asarray(getattr(fit, f), dtype=np.float64) for f in (
        "coefficients", "fitted_values", "linear_predictors", "residuals", "weights", "deviance",
        "null_deviance", "aic", "iter", "rank", "pivot", "converged", "qr", "qraux"))


def _glm(*args, **kwargs):
    return _fit_fields(G.glm_binomial(*args, **kwargs))


@pytest.mark.parametrize("seed", range(8))
def test_glm_binomial_matches_reference(seed):
    rs = np.random.default_rng(100 + seed)
    n = int(rs.integers(2, 300))
    p = 1 + seed % 3
    X = np.column_stack([np.ones(n)] + [rs.normal(size=n) * 4 for _ in range(p - 1)])
    eta = X @ rs.normal(size=p)
    y = (rs.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    names = [f"c{j}" for j in range(p)]
    same(_glm, X, y, names)
    same(_glm, X, np.where(y == 1, 0.9, 0.1), names)  # Platt-like targets
    same(_glm, X, y, names, weights=rs.integers(0, 3, size=n).astype(float) + 0.5 * (seed % 2))
    same(_glm, X, y, names, offset=rs.normal(size=n))
    same(_glm, X, y, names, etastart=rs.normal(size=n))
    same(_glm, X, y, names, mustart=np.full(n, 0.3), intercept=False)
    if p >= 2:
        Xa = X.copy()
        Xa[:, -1] = 2 * Xa[:, 0]  # aliased: pivoted out
        same(_glm, Xa, y, names)
        sep = (X[:, 1] > 0).astype(float)  # separable: no convergence, mu at 0 and 1
        same(_glm, X, sep, names)
    same(_glm, X[:, :0], y, [])  # the empty model


def test_glm_does_not_depend_on_threads_or_mutate_its_input():
    rs = np.random.default_rng(7)
    n = 60000
    X = np.column_stack([np.ones(n), rs.normal(size=n), rs.normal(size=n)])
    y = (rs.uniform(size=n) < 0.4).astype(float)
    X0, y0 = X.copy(), y.copy()
    same(_glm, X, y, ["a", "b", "c"])
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    beta = np.array([0.1, -0.2, 0.3])
    outs = []
    for threads in (1, 2):
        eta, mu, ex = np.empty(n), np.empty(n), np.empty(n)
        dev = _passes.glm_update(X, beta, None, y, None, eta, mu, ex, threads)
        z, w, mev = np.empty(n), np.empty(n), np.empty(n)
        _passes.glm_working(eta, mu, ex, y, None, None, z, w, mev, threads)
        outs.append((dev, eta, mu, z, w, mev, _passes.glm_sum(1, y, mu, None, threads)))
    for a, b in zip(*outs):
        assert _bits(a) == _bits(b)


@pytest.mark.parametrize("seed", range(10))
def test_dqrdc2_and_qr_qty_match_reference(seed):
    rs = np.random.default_rng(200 + seed)
    n, p = int(rs.integers(1, 40)), int(rs.integers(1, 7))
    X = rs.normal(size=(n, p))
    if seed % 3 == 0 and p > 1:
        X[:, 1] = X[:, 0]  # rank deficient
    if seed % 4 == 1:
        X[:, 0] *= 1e-300  # dnrm2's small accumulator
    if seed % 4 == 2:
        X[:, -1] *= 1e300  # dnrm2's big accumulator
    if seed % 5 == 3:
        X[:, 0] = 0.0
    qr, rank, qraux, pivot = same(linpack.dqrdc2, X, 1e-7)
    Y = rs.normal(size=(n, 3))
    same(linpack.qr_qty, qr, qraux, rank, Y)
    same(lambda *a: Irls().qrls(*a), X, rs.uniform(0.1, 1, size=n), rs.normal(size=n), 1e-7)


def test_platt_and_beta_fit_the_same_bits():
    rs = np.random.default_rng(8)
    x = rs.normal(size=2000)
    y = (rs.uniform(size=2000) < 1 / (1 + np.exp(-2 * x))).astype(int)
    p = 1 / (1 + np.exp(-x))
    w = rs.uniform(0.5, 2, size=2000)

    def platt(**kw):
        return _fit_fields(calstats.cal_platt(x, y, **kw).fit)

    def beta(**kw):
        return _fit_fields(calstats.cal_beta(p, y, **kw).fit)

    same(platt)
    same(platt, weights=w)
    same(beta)
    same(beta, weights=w)
    fit = calstats.cal_platt(x, y)
    again = pickle.loads(pickle.dumps(fit))
    assert _bits(again.predict(x)) == _bits(_run("numpy", calstats.cal_platt, x, y).predict(x))


# --------------------------------------------------------------------------------------
# the engine switch and the module's own checks


def test_numpy_engine_never_calls_the_compiled_passes(monkeypatch):
    class Refuse:
        def __getattr__(self, name):
            raise AssertionError(f"compiled pass {name} called")

    monkeypatch.setattr(passes, "_passes", Refuse())
    monkeypatch.setattr(passes, "BACKEND", "numpy")
    x = np.arange(10.0)
    R.rsum(x), R.rmean(x), R.row_sums(x.reshape(2, 5)), R.col_sums(x.reshape(2, 5)), R.dot(x, x)
    R.crossprod(x.reshape(5, 2), x.reshape(5, 2))
    scores.brier_score(x / 10, (x > 4).astype(int))
    calstats.cal_platt(x, (x > 4).astype(int) ^ (x == 3))
    monkeypatch.setattr(passes, "BACKEND", "c")
    with pytest.raises(AssertionError, match="compiled pass rsum"):
        R.rsum(x)


def test_compiled_passes_refuse_other_arrays():
    with pytest.raises(TypeError, match="must be a 1-D or 2-D float64/float32 array"):
        _passes.rsum(np.arange(3))
    with pytest.raises(ValueError, match="dot needs two vectors of one length"):
        _passes.dot(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="crossprod needs two matrices with as many rows"):
        _passes.crossprod(np.ones((3, 2)), np.ones((4, 2)), np.empty((2, 2)), 1)
    with pytest.raises(ValueError, match="unknown score"):
        _passes.score(7, np.ones(3), np.ones(3), None, 1)
    with pytest.raises(ValueError, match="score shape"):
        _passes.score(passes.BRIER_MATRIX, np.ones(3), np.ones(3, dtype=np.int64), None, 1)
    with pytest.raises(ValueError, match="class codes must be in 1..k"):
        _passes.score(passes.LOGLIK_MATRIX, np.ones((3, 2)), np.array([1, 3, 1], dtype=np.int64), None, 1)
    with pytest.raises(ValueError, match="buffer out too small"):
        _passes.lane_sums(np.ones((3, 2)), 1, np.empty(2), 1)
    with pytest.raises(TypeError, match="X must be a float64 matrix"):
        _passes.glm_qrls(np.ones((3, 2), dtype=np.float32), np.ones(3), np.ones(3), 1e-7, np.empty(6), np.empty(2),
                         np.empty(2, dtype=np.int64), np.empty(2))


# --------------------------------------------------------------------------------------
# invariant: the compiled passes are the reference, for any array


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float64, np.float32]), hnp.array_shapes(min_dims=2, max_dims=2, max_side=12),
                  elements=st.floats(allow_nan=True, allow_infinity=True, width=32)),
       st.booleans())
def test_any_matrix_gives_the_reference_bits(m, fortran):
    if fortran:
        m = np.asfortranarray(m)
    same(R.rsum, m)
    if m.size:
        same(R.rmean, m)
    same(R.row_sums, m)
    same(R.col_sums, m)
    same(R.crossprod, m, m[:, :1] if m.shape[1] else m, nan_payload=False)

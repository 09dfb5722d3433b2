"""The R-arithmetic building blocks: reductions, libm, vmmin."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from calstats.numerics import libm
from calstats.numerics.reductions import (
    LD,
    col_sums,
    crossprod,
    dot,
    ld_sum_axis0,
    matmul,
    matmul_t,
    rmean,
    rmean_int,
    row_sums,
    rsum,
)
from calstats.numerics.vmmin import vmmin

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def _seq_ld_sum(values):
    s = LD(0)
    for v in values:
        s += LD(v)
    return float(s)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 7)), elements=finite))
def test_row_and_col_sums_are_sequential_long_double(m):
    assert np.array_equal(row_sums(m), [_seq_ld_sum(r) for r in m])
    assert np.array_equal(col_sums(m), [_seq_ld_sum(c) for c in m.T])
    assert rsum(m.ravel()) == _seq_ld_sum(m.ravel())


def test_long_axis_col_sums_sequential():
    rs = np.random.default_rng(3)
    m = rs.normal(size=(500, 70)) * np.exp(rs.uniform(-30, 30, (500, 70)))
    assert np.array_equal(ld_sum_axis0(m), [_seq_ld_sum(c) for c in m.T])


def test_r_mean_two_pass():
    x = np.array([1e16, 1.0, -1e16, 3.0, 0.1])
    s = sum(LD(v) for v in x) / LD(5)
    t = sum(LD(v) - s for v in x)
    assert rmean(x) == float(s + t / LD(5))
    assert rmean_int(np.array([1, 0, 1])) == float(LD(2) / LD(3))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 30), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**31))
def test_products_follow_reference_blas_order(n, k, d, seed):
    rs = np.random.default_rng(seed)
    a = rs.normal(size=(n, d)) * np.exp(rs.uniform(-10, 10, (n, d)))
    w = rs.normal(size=(k, d))
    want = np.zeros((n, k))
    for i in range(n):
        for j in range(k):
            s = 0.0
            for ell in range(d):
                s += w[j, ell] * a[i, ell]
            want[i, j] = s
    assert np.array_equal(matmul(a, w.T), want)
    assert np.array_equal(matmul_t(w, a.T), want.T)
    r = rs.normal(size=(n, k))
    cp = np.zeros((k, d))
    for j in range(k):
        for ell in range(d):
            s = 0.0
            for i in range(n):
                s += a[i, ell] * r[i, j]
            cp[j, ell] = s
    assert np.array_equal(crossprod(r, a), cp)
    assert np.array_equal(crossprod(r, a, block_elems=3), cp)
    assert dot(a[:, 0], r[:, 0]) == cp[0, 0]


def test_libm_matches_the_c_library():
    rs = np.random.default_rng(11)
    x = rs.uniform(-700, 700, 20000)
    assert np.array_equal(libm.exp(x), [math.exp(v) for v in x])
    y = rs.uniform(1e-300, 10, 20000)
    assert np.array_equal(libm.log(y), [math.log(v) for v in y])
    z = rs.uniform(-0.99, 5, 20000)
    assert np.array_equal(libm.log1p(z), [math.log1p(v) for v in z])
    assert libm.log(np.array([0.0]))[0] == -math.inf and libm.exp(np.array([1000.0]))[0] == math.inf


def test_vmmin_reproduces_r_optim_rosenbrock_example():
    """R: optim(c(-1.2, 1), fr, grr, method = "BFGS") -> value 9.594956e-18, counts 110 43."""
    def fr(x):
        return 100 * (x[1] - x[0] * x[0]) ** 2 + (1 - x[0]) ** 2

    def grr(x):
        return np.array([-400 * x[0] * (x[1] - x[0] * x[0]) - 2 * (1 - x[0]), 200 * (x[1] - x[0] * x[0])])
    res = vmmin(fr, grr, np.array([-1.2, 1.0]), maxit=100)
    assert res.counts == (110, 43) and res.convergence == 0
    assert res.value == pytest.approx(9.594956e-18, rel=1e-6)
    np.testing.assert_allclose(res.par, [1, 1], atol=1e-7)


def test_vmmin_maxit_and_errors():
    from calstats import CalstatsError

    res = vmmin(lambda x: float(np.sum((x - 3) ** 4)), lambda x: 4 * (x - 3) ** 3, np.zeros(3), maxit=5)
    assert res.convergence == 1 and res.iterations == 5
    with pytest.raises(CalstatsError, match="initial value in 'vmmin' is not finite"):
        vmmin(lambda x: math.inf, lambda x: x, np.zeros(2))
    with pytest.raises(CalstatsError, match="gradient in optim evaluated to length 1 not 2"):
        vmmin(lambda x: 1.0, lambda x: np.zeros(1), np.zeros(2))


def test_vmmin_blocked_matrix_work_takes_the_same_path(monkeypatch):
    """Large problems update the inverse Hessian in blocks; the iterates must not change."""
    import calstats.numerics.vmmin as vm
    from calstats.calibrators._multinomial import fit_multinomial

    rs = np.random.default_rng(4)
    logits = rs.normal(size=(300, 6)) * 2
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    y = np.array([rs.choice(6, p=row) for row in np.exp(logits / 2) / np.exp(logits / 2).sum(1, keepdims=True)]) + 1
    U = libm.log(p)
    full = fit_multinomial(U, y, 6, 1e-3)
    monkeypatch.setattr(vm, "BLOCK_ELEMS", 29)
    blocked = fit_multinomial(U, y, 6, 1e-3)
    assert np.array_equal(full.weight, blocked.weight) and np.array_equal(full.bias, blocked.bias)
    assert full.value == blocked.value and full.counts == blocked.counts


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 150), st.integers(1, 70), st.integers(0, 2**31))
def test_rank_two_update_is_vmmins_lower_triangle_mirrored(n, rows, seed):
    from calstats.numerics.vmmin import _rank_two_update

    rs = np.random.default_rng(seed)
    S = rs.normal(size=(n, n))
    S = S + S.T
    t, X = rs.normal(size=n), rs.normal(size=n)
    D1, D2 = rs.uniform(0.1, 2), rs.uniform(0.5, 3)
    want = S.copy()
    for i in range(n):  # vmmin, literally: B[i][j] += (D2*t[i]*t[j] - X[i]*t[j] - t[i]*X[j]) / D1
        for j in range(i + 1):
            want[i, j] += (D2 * t[i] * t[j] - X[i] * t[j] - t[i] * X[j]) / D1
            want[j, i] = want[i, j]
    _rank_two_update(S, D2, t, X, D1, rows=rows)
    assert np.array_equal(S, want)

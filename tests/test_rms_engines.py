"""The fast paths of rms' lrm.fit and Hmisc's rank statistics against their references,
bit for bit: the compiled LLOGIT sums (``calstats.numerics._loops.llogit_binary``) against
the NumPy port, ``solvet``/``ainvb`` solving every right-hand side at once against one
``dqrsl`` per column, R's average ranks without the Python loop, and the binned c index
from integer dot products. (R itself is the reference of ``tests/test_lrm.py`` and
``tests/test_rms_validate.py``.)"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calstats.numerics.linpack import dqrdc2, dqrsl_qty_b
from calstats.ports.hmisc.somers2 import rank_average, somers2
from calstats.ports.rms import lrm_fit as F


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.int64).tolist()


@pytest.mark.parametrize("seed", range(40))
def test_llogit_binary_backends_same_bits(seed):
    rs = np.random.default_rng(seed)
    n = int(rs.choice([1, 2, 7, 300, 4000]))
    p = int(rs.integers(1, 11))
    X = rs.normal(size=(n, p)) * rs.choice([1.0, 30.0])
    X[:, 0] = np.round(X[:, 0]) * rs.choice([1.0, -1.0])  # signed zeros too
    beta = rs.normal(size=p + 1) * rs.choice([0.01, 0.5, 8.0])  # 8: eta clamped at +-30
    y = (rs.random(n) < 0.4).astype(np.int64)
    w = np.ones(n) if seed % 2 else rs.uniform(0.1, 3.0, n)
    for calcc in (False, True):
        a = F._llogit_binary(beta, X, y, w, calcc, backend="numpy")
        b = F._llogit_binary(beta, X, y, w, calcc)
        assert bits([a[0]]) == bits([b[0]])
        assert bits(a[1]) == bits(b[1]) and bits(a[2]) == bits(b[2]) and a[3] == b[3]
        if calcc:
            assert np.array_equal(a[4], b[4])


def _solvet_per_column(a, tol, b=None):
    k = a.shape[0]
    qr, rank, qraux, _ = dqrdc2(a, tol)
    cols = np.eye(k) if b is None else np.asarray(b, dtype=np.float64).reshape(k, -1)
    out = np.empty(cols.shape)
    for j in range(cols.shape[1]):
        out[:, j], _ = dqrsl_qty_b(qr, k, qraux, cols[:, j].copy())
    return out.reshape(np.shape(b)) if b is not None else out


@pytest.mark.parametrize("seed", range(60))
def test_solvet_all_columns_at_once_same_bits(seed):
    rs = np.random.default_rng(seed)
    k = int(rs.integers(1, 13))
    A = rs.normal(size=(k, k))
    A = A @ A.T + (np.eye(k) if seed % 3 else 0.0)
    if seed % 5 == 0:
        A = np.round(A)
    if dqrdc2(A, 1e-9)[1] < k:
        with pytest.raises(F.LrmSingular, match="apparently singular matrix"):
            F.solvet(A, 1e-9)
        return
    for b in (None, rs.normal(size=k), rs.normal(size=(k, 3)), np.zeros(k)):
        assert bits(F.solvet(A, 1e-9, b)) == bits(_solvet_per_column(A, 1e-9, b))


def _rank_loop(x):
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    ranks = np.empty(x.size)
    i = 0
    while i < x.size:
        j = i
        while j + 1 < x.size and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j + 2) / 2.0
        i = j + 1
    return ranks


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([-1.5, -0.0, 0.0, 0.25, 0.5, 2.0, float("nan"), 7.0]), max_size=40))
def test_rank_average_is_r_rank(values):
    assert bits(rank_average(values)) == bits(_rank_loop(values))


def test_somers2_ties():
    # R: print(Hmisc::somers2(c(1, 2, 2, 3, 3, 3), c(0, 0, 1, 0, 1, 1)), digits = 17)
    c, dxy = somers2([1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 1])
    assert (c, dxy) == (0.72222222222222232, 0.44444444444444464)


def test_gcorr_counts_pairs():
    ft = np.zeros((5001, 2), dtype=np.int64)
    ft[[10, 20, 20, 40], [0, 0, 1, 1]] = [2, 1, 1, 3]  # level 0 at cells 10 (x2), 20; level 1 at 20, 40 (x3)
    c, dxy, gamma, taua = F._gcorr(ft, np.array([3, 4]))
    # concordant: 2*4 + 1*3 = 11; discordant 0; tied 1*1 = 1; 12 pairs
    assert (c, dxy, gamma) == ((11 + 0.5) / 12, 11 / 12, 1.0)
    assert taua == 11 / (7 * 6 / 2)


def _gini_reference(x):
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    i = np.arange(1, n + 1, dtype=np.float64)
    w = 4.0 * (i - (n - 1) / 2.0) / float(n) / float(n - 1)
    from calstats.numerics.reductions import rmean, rsum

    return rsum(w * np.sort(x - rmean(x)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-40, 40, allow_nan=False), min_size=2, max_size=60), st.floats(-3, 3))
def test_gini_md_one_sort_same_bits(values, shift):
    from calstats.numerics.nmath import plogis
    from calstats.numerics.reductions import rmean
    from calstats.ports.hmisc.somers2 import gini_md, gini_md_sorted, sorted_image

    x = np.array(values)
    assert bits([gini_md(x)]) == bits([_gini_reference(x)])
    xs = np.sort(x)
    p = plogis(shift + x)
    got = gini_md_sorted(sorted_image(lambda v: plogis(shift + v), xs), rmean(p))
    assert bits([got]) == bits([_gini_reference(p)])


def test_sorted_image_sorts_when_f_breaks_the_order():
    from calstats.ports.hmisc.somers2 import sorted_image

    assert sorted_image(lambda v: -v, np.array([1.0, 2.0, 3.0])).tolist() == [-3.0, -2.0, -1.0]

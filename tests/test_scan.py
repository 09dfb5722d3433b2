"""The C core's one-pass scan of a probability matrix against its NumPy reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from calstats import CalstatsError
from calstats import _validate as v
from calstats.numerics._scan import prob_scan, top_label_rows, top_label_rows_numpy

# entries that stress the comparisons: ties, signed zeros, the unit interval's ends, values
# outside it, NaN and infinities
_SPECIAL = [0.0, -0.0, 1.0, 0.5, 0.25, 1e-300, 5e-324, 1.0000000000000002, -1e-300, np.nan, -np.nan,
            np.inf, -np.inf, 2.0]


@st.composite
def _matrices(draw):
    n = draw(st.integers(1, 30))  # the four-row lanes and the scalar tail
    k = draw(st.integers(1, 12))
    vals = draw(st.lists(st.sampled_from(_SPECIAL) | st.floats(-2, 2), min_size=n * k, max_size=n * k))
    return np.array(vals, dtype=np.float64).reshape(n, k)


@settings(max_examples=300, deadline=None)
@given(_matrices())
def test_scan_is_numpy(a):
    unit, smin, smax, r, pred = prob_scan(a)
    r0, pred0 = top_label_rows_numpy(a)
    np.testing.assert_array_equal(pred, pred0)
    assert r.tobytes() == r0.tobytes()  # bit for bit, NaN and signed zeros included
    assert unit == (int(a.view(np.uint64).max()) <= 0x3FF0000000000000)
    with np.errstate(invalid="ignore"):
        s = a.sum(axis=1)
    if not np.isnan(s).any():
        # any order of a row's sum is allowed by the proof; the core adds in index order
        seq = np.zeros(a.shape[0])
        for j in range(a.shape[1]):
            seq += a[:, j]
        assert smin == seq.min() and smax == seq.max()


def test_scan_on_a_large_matrix():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(10), 50_000)
    p[::7, 3] = p[::7, 4]  # ties: the first column wins
    r, pred = top_label_rows(p)
    r0, pred0 = top_label_rows_numpy(p)
    assert r.tobytes() == r0.tobytes() and (pred == pred0).all()


def test_scan_leaves_other_layouts_to_numpy():
    rng = np.random.default_rng(4)
    p = np.asfortranarray(rng.dirichlet(np.ones(4), 100))
    r, pred = top_label_rows(p)
    r0, pred0 = top_label_rows_numpy(np.ascontiguousarray(p))
    assert r.tobytes() == r0.tobytes() and (pred == pred0).all()


@pytest.mark.parametrize("bad, msg", [
    (lambda p: p.__setitem__((3, 1), np.nan), "missing or infinite"),
    (lambda p: p.__setitem__(3, [0.5, -0.0, 0.5, 0.0, 0.0]), None),  # -0 is in [0, 1] for R
    (lambda p: p.__setitem__((3, 1), -1e-9), "probabilities in `[0, 1]`"),
    (lambda p: p.__setitem__((3, 1), p[3, 1] + 1e-5), "must sum to `1`"),
])
def test_fused_check_gives_the_same_verdict(bad, msg):
    rng = np.random.default_rng(5)
    p = rng.dirichlet(np.ones(5), 40)
    bad(p)
    if msg is None:
        P, r, pred = v.check_prob_matrix_top(p, "p")
        assert np.array_equal(P, p)  # -0 is settled R's way, on a copy
        r0, pred0 = top_label_rows_numpy(p)
        assert r.tobytes() == r0.tobytes() and (pred == pred0).all()
        return
    with pytest.raises(CalstatsError) as e1:
        v.check_prob_matrix(p, "p")
    with pytest.raises(CalstatsError) as e2:
        v.check_prob_matrix_top(p, "p")
    assert str(e1.value) == str(e2.value) and msg in str(e1.value)


def test_matrix_and_vector_forms_agree():
    rng = np.random.default_rng(6)
    p = rng.dirichlet(np.ones(6), 2000)
    y = rng.integers(1, 7, 2000)
    r, pred = top_label_rows_numpy(p)
    c = (pred == y).astype(np.int64)
    for f in (calstats.cal_ks_test, calstats.cal_kuiper_test, calstats.cal_spiegelhalter_test):
        a, b = f(p, y), f(r, c)
        assert a.statistic == b.statistic and a.p_value == b.p_value
    assert calstats.ece(p, y, type="confidence") == calstats.ece(r, c)
    assert calstats.mmce(p, y) == calstats.mmce(r, c)


@pytest.mark.parametrize("spoil", [None, (-1, 2, -0.5), (10, 0, np.nan), (-3, 1, 1.5)])
def test_two_threads_read_the_same(spoil):
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.ones(8), 60_001)  # above the split's threshold, odd row count
    if spoil is not None:
        p[spoil[0], spoil[1]] = spoil[2]
    one = prob_scan(p, threads=1)
    two = prob_scan(p, threads=2)
    assert one[:3] == two[:3]
    assert one[3].tobytes() == two[3].tobytes() and (one[4] == two[4]).all()
    r0, pred0 = top_label_rows_numpy(p)
    assert one[3].tobytes() == r0.tobytes() and (one[4] == pred0).all()

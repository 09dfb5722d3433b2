"""The vectorised fast paths of the checks, the calibration tests and the binned metrics
give exactly what the general (R-ordered, element-by-element) paths give."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calstats import CalstatsError
from calstats import _validate as v
from calstats.kernels.bins import equal_width_breaks, find_bins, find_unit_bins, group_rmean
from calstats.kernels.cumdiff import sorted_pairs
from calstats.kernels.fsum import fsum
from calstats.numerics.reductions import rmean


def _same(a, b):
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (math.isnan(a) and math.isnan(b))


def _random_vector(seed):
    rs = np.random.default_rng(seed)
    n = int(rs.choice([256, 257, 1000, 4099, 30_000]))
    kind = seed % 7
    if kind == 0:
        return rs.normal(size=n)
    if kind == 1:  # magnitudes spread over 400 decades
        return rs.normal(size=n) * 10.0 ** rs.integers(-200, 200, n)
    if kind == 2:  # decimal data: many equal terms
        return np.round(rs.normal(size=n), 2)
    if kind == 3:  # subnormals
        return rs.random(n) * 1e-310
    if kind == 4:  # massive cancellation around a tiny remainder
        return np.concatenate([[1e16, 1.0, -1e16], rs.integers(-3, 4, n) * 2.0**-60])
    if kind == 5:  # halfway cases: sums of dyadic numbers at the edge of double precision
        return rs.integers(-5, 6, n) * 0.5 + rs.integers(-1, 2, n) * 2.0**-53
    s = rs.random(n)
    return (rs.random(n) < s) - s  # the signed terms of the calibration tests


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_fsum_is_math_fsum(seed):
    x = _random_vector(seed)
    assert _same(fsum(x), math.fsum(x.tolist()))
    if np.abs(x).max() <= 1:
        assert _same(fsum(x, bound=1.0), math.fsum(x.tolist()))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([300, 5000, 100_000]))
def test_fsum_of_cancelling_sums(seed, n):
    """Sums far below the sum of magnitudes take the second (lane) estimate or math.fsum."""
    rs = np.random.default_rng(seed)
    s = rs.random(n)
    x = ((rs.random(n) < s) - s) * (1 - 2 * s)  # Spiegelhalter's numerator, calibrated
    y = np.concatenate([x, -x[::-1]])
    y[0] += rs.normal() * 1e-9
    for terms in (x, y):
        assert _same(fsum(terms, bound=1.0), math.fsum(terms.tolist()))


def test_fsum_special_values_and_small_inputs():
    ties = np.array([2.0**53, 1.0] + [0.0] * 300)  # exact tie: rounds to even
    assert fsum(ties) == math.fsum(ties.tolist()) == 2.0**53
    assert _same(fsum(np.zeros(300) * -1.0), math.fsum([-0.0] * 300))
    assert math.isnan(fsum(np.r_[np.ones(300), np.nan]))
    assert math.isnan(fsum(np.r_[np.ones(300), np.nan], bound=1.0))
    assert fsum(np.r_[np.ones(300), np.inf]) == math.inf
    with pytest.raises(ValueError):
        fsum(np.r_[np.ones(300), np.inf, -np.inf])
    assert fsum(np.array([0.1, 0.2, 0.3])) == math.fsum([0.1, 0.2, 0.3])


def test_sorted_pairs_is_lexsort():
    rs = np.random.default_rng(3)
    for n in (2, 10, 1000, 20_000):
        s = np.round(rs.random(n), 2)
        s[: n // 4] = 0.5
        s[::7] = -0.0
        s[1::11] = 1.0
        o = (rs.random(n) < 0.5).astype(np.int64)
        order = np.lexsort((o, s))
        ss, os = sorted_pairs(s, o)
        assert ((os - ss) == (o[order] - s[order])).all()
        assert ((ss[1:] != ss[:-1]) == (s[order][1:] != s[order][:-1])).all()


@pytest.mark.parametrize("bins", [1, 2, 3, 7, 10, 13, 100, 255, 256, 1000, 70_000])
def test_unit_bins_are_find_interval(bins):
    b = equal_width_breaks(bins)
    rs = np.random.default_rng(bins)
    edges = b if bins <= 1000 else b[rs.integers(0, bins + 1, 5000)]
    x = np.concatenate([edges, np.nextafter(edges, -1), np.nextafter(edges, 2), rs.random(5000), [-0.0, 5e-324]])
    x = np.clip(x, 0.0, 1.0)
    assert (find_unit_bins(x, b) == find_bins(x, b)).all()


def test_group_rmean_is_rmean_per_group():
    rs = np.random.default_rng(5)
    counts = np.array([0, 1, 5, 1000, 0, 3, 20_000])
    xs = rs.random(counts.sum())
    xs[1:6] = [0.1, 0.1, 0.1, 1e300, 1e300]
    out = group_rmean(xs, counts)
    ends = np.cumsum(counts)
    for j, (a, e) in enumerate(zip(ends - counts, ends)):
        expected = rmean(xs[a:e]) if e > a else math.nan
        assert _same(out[j], expected)


# -- the checks: the fast path and the general path agree on values and messages -------

def _outcome(check, *args, **kwargs):
    try:
        out = check(*args, **kwargs)
    except CalstatsError as err:
        return ("error", str(err))
    return ("ok", [np.asarray(o).tolist() if isinstance(o, np.ndarray) else o for o in (out if isinstance(out, tuple) else (out,))])


P = np.array([[0.2, 0.8], [0.5, 0.5], [0.9, 0.1]])
MATRICES = [P, P * 2, -P, P + 1e-5, P + 5e-7, P - 5e-7, np.where(P == 0.5, np.nan, P), np.where(P == 0.5, np.inf, P),
            P[:, :1], P[:0], np.array([[0.5, 0.5 + 1.0000001e-6]] * 3), np.array([[0.5, 0.5 + 0.9999999e-6]] * 3),
            np.array([[-0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]), np.full((4, 3), 1 / 3)]


@pytest.mark.parametrize("i", range(len(MATRICES)))
def test_prob_matrix_fast_path_agrees(i):
    m = MATRICES[i]
    fast = _outcome(v.check_prob_matrix, m, "p")
    if m.size:  # a nested list takes the general path (an empty one is no matrix)
        assert fast == _outcome(v.check_prob_matrix, m.tolist(), "p")
        f32 = m.astype(np.float32)
        assert _outcome(v.check_prob_matrix, f32, "p") == _outcome(v.check_prob_matrix, f32.astype(np.float64).tolist(), "p")
    assert _outcome(v.check_prob_matrix, m, "p", copy=False) == fast
    assert _outcome(v.check_prob_matrix, np.asfortranarray(m), "p") == fast
    assert _outcome(v.check_prob_matrix, pd.DataFrame(m), "p") == fast


def test_prob_matrix_copies_unless_asked_not_to():
    out = v.check_prob_matrix(P, "p")
    assert out is not P and not np.shares_memory(out, P) and out.flags.c_contiguous
    assert v.check_prob_matrix(P, "p", copy=False) is P
    assert v.check_prob_matrix(P.astype(np.float32), "p", copy=False).dtype == np.float64


@pytest.mark.parametrize("p,y", [
    (np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1])),
    (np.array([0.1, 0.5, 0.9]), np.array([True, False, True])),
    (np.array([0.1, 0.5, 0.9], dtype=np.float32), np.array([0, 1, 1], dtype=np.int8)),
    (np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1], dtype=np.uint32)),
    (np.array([0.1, 0.5, 0.9]), np.array([0, 1, 2])),
    (np.array([0.1, 0.5, 0.9]), np.array([-1, 0, 1])),
    (np.array([0.1, 0.5, 0.9]), np.array([1, 1, 1])),
    (np.array([0.1, 0.5, 1.5]), np.array([0, 1, 1])),
    (np.array([0.1, np.nan, np.inf]), np.array([0, 1, 1])),
    (np.array([-0.0, 0.5, 1.0]), np.array([0, 1, 1])),
    (np.array([0.1, 0.5]), np.array([0, 1, 1])),
    (np.array([], dtype=float), np.array([], dtype=int)),
])
def test_vector_fast_paths_agree(p, y):
    general = _outcome(v.check_prob_and_labels, p.tolist(), y.tolist())
    assert _outcome(v.check_prob_and_labels, p, y) == general
    assert _outcome(v.check_binary_y, y, "y") == _outcome(v.check_binary_y, y.tolist(), "y")


@pytest.mark.parametrize("y,k", [
    (np.array([1, 2, 3, 2]), 3), (np.array([1, 2, 2], dtype=np.int32), 3), (np.array([1, 2, 2], dtype=np.uint16), 2),
    (np.array([0, 1, 2]), 3), (np.array([1, 1, 1]), 1), (np.array([1, 1, 1]), 2), (np.array([3, 3]), 3),
    (np.array([1, 2, 2**40]), 2), (np.array([-2**40, 2, 1]), 2),
])
def test_class_codes_fast_path_agrees(y, k):
    assert _outcome(v.check_multiclass_y, y, k) == _outcome(v.check_multiclass_y, y.tolist(), k)
    out = v.check_multiclass_y(y, k) if _outcome(v.check_multiclass_y, y, k)[0] == "ok" else None
    if out is not None:
        assert out[0].dtype == np.int64 and not np.shares_memory(out[0], y)


def test_binary_labels_other_byte_order_and_copies():
    y = np.array([0, 1, 1], dtype=">i8")
    assert _outcome(v.check_binary_y, y, "y") == _outcome(v.check_binary_y, [0, 1, 1], "y")
    assert _outcome(v.check_binary_y, np.array([1, 1]), "y") == _outcome(v.check_binary_y, [1, 1], "y")
    assert _outcome(v.check_binary_y, np.array([False, False]), "y") == _outcome(v.check_binary_y, [False, False], "y")
    y = np.array([0, 1, 1])
    assert v.check_binary_y(y, "y") is not y
    assert v.check_binary_y(y, "y", copy=False) is y

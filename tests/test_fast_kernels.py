"""The smooth ECE's spread kept across the bandwidth search, and the two-stage sort of the
cumulative-difference path: the same numbers as the direct computations they replace."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calstats.evaluation.cumulative import cumulative_differences
from calstats.kernels import cumdiff as cd
from calstats.kernels import smooth as ks

SLOW = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------
# smooth ECE


def _literal_spread(f, v, m):
    scaled = f * (m - 1)
    left = np.clip(scaled.astype(np.int64), 0, m - 2)
    frac = scaled - left
    return (np.bincount(left, weights=(1 - frac) * v, minlength=m)
            + np.bincount(left + 1, weights=frac * v, minlength=m))


def _literal_smece_at(f, y, sigma, w=None):
    t = ks._eval_points(sigma)
    m = ks.grid_size(sigma)
    ker = ks._kernel(sigma, m)
    resid = f - y if w is None else w * (f - y)
    ones = np.ones_like(f) if w is None else w
    num, den = (ks._interpolate(ks._smooth_grid(_literal_spread(f, v, m), ker, sigma), t) for v in (resid, ones))
    den = den + ks.DENSITY_EPS
    return float(np.sum(np.abs(num / den) * den) / np.sum(den))


def _literal_search(f, y, w=None):
    def small_enough(s):
        return s < ks.SEARCH_EPS or s < _literal_smece_at(f, y, s, w)

    if small_enough(1.0):
        return 1.0
    hi, lo = 1.0, 0.0
    for _ in range(ks.SEARCH_STEPS):
        mid = (hi + lo) / 2
        if small_enough(mid):
            lo = mid
        else:
            hi = mid
    return hi


@pytest.mark.parametrize("seed, n, weighted", [(1, 500, False), (2, 3000, True), (3, 20000, False)])
def test_smece_with_kept_spreads_is_the_direct_computation(seed, n, weighted):
    r = np.random.default_rng(seed)
    f = r.beta(2, 3, n)
    y = (r.random(n) < np.clip(1.2 * f, 0, 1)).astype(np.float64)
    w = r.integers(1, 4, n).astype(np.float64) if weighted else None
    value, sigma = ks.smece_auto(f, y, w)
    want_sigma = _literal_search(f, y, w)
    assert sigma == want_sigma
    assert value == _literal_smece_at(f, y, want_sigma, w)  # the same bits
    for s in (0.5, 0.03, 0.004):
        assert ks.smece_at(f, y, s, w) == _literal_smece_at(f, y, s, w)


def test_spreads_are_kept_per_grid_size():
    r = np.random.default_rng(4)
    f = r.random(100)
    sp = ks._Spreads(f, [f, np.ones_like(f)])
    a = sp.on_grid(1001)
    assert sp.on_grid(1001) is a and sp.on_grid(2001) is not a
    assert np.array_equal(a[0], _literal_spread(f, f, 1001))


# --------------------------------------------------------------------------------------
# the two-stage sort


def _keys(s, o):
    return ((s + 0.0).view(np.int64) << 1) | o


@pytest.mark.parametrize("kind", ["uniform", "beta", "crowded", "ties", "constant"])
def test_two_stage_sort_is_the_sort(kind):
    r = np.random.default_rng(7)
    n = cd._BUCKET_MIN_ROWS + 1234
    s = {"uniform": r.random(n), "beta": r.beta(2, 5, n), "crowded": r.beta(0.02, 5, n),
         "ties": np.round(r.random(n), 2), "constant": np.full(n, 0.3)}[kind]
    o = (r.random(n) < s).astype(np.int64)
    key = _keys(s, o)
    got = key.copy()
    cd._sort_keys(got, s)
    assert np.array_equal(got, np.sort(key))


@SLOW
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=1, max_size=300))
def test_two_stage_sort_on_small_inputs(rows):
    s = np.array([a for a, _ in rows])
    o = np.array([b for _, b in rows], dtype=np.int64)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(cd, "_BUCKET_MIN_ROWS", 1)
        mp.setattr(cd, "_BUCKETS", 16)
        got = _keys(s, o)
        cd._sort_keys(got, s)
    finally:
        mp.undo()
    assert np.array_equal(got, np.sort(_keys(s, o)))


def test_path_of_a_large_sample_is_the_lexsorted_path():
    r = np.random.default_rng(8)
    n = cd._BUCKET_MIN_ROWS + 99
    p = r.random(n)
    y = (r.random(n) < p).astype(np.int64)
    res = cumulative_differences(p, y)
    order = np.lexsort((y, p))
    assert np.array_equal(res.scores, p[order])
    assert np.array_equal(np.asarray(res), np.cumsum(y[order] - p[order]) / n)
    assert not res.values.flags.writeable

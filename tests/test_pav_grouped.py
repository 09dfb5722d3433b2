"""PAV on tallies: the CORP resampling band, the miscalibration test's null and R's isoreg
knots computed from certified blocks, against the literal computations they replace.

The band and the test's null were R's sort-and-scan per resample (``order(x, -y)``, then
``isoreg`` on the sorted labels, then ``approx`` at the distinct scores); they now tally
each resample per distinct score and run PAV on the tallies. These tests keep the literal
route as the reference and demand the same bits, for the same draws of R's stream.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calstats import rng
from calstats.evaluation.corp import corp
from calstats.kernels import pav
from calstats.numerics.reductions import rmean
from calstats.ports.stats import isoreg as isoreg_mod
from calstats.ports.stats.isoreg import isoreg, isoreg_grouped
from calstats.rng import sample_int
from calstats.rng._draws import _rbinom1

SLOW = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])


def _bits_equal(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


# --------------------------------------------------------------------------------------
# the literal routes (what calstats computed before, R's own sequence of steps)


def _literal_curve(xb, yb, ux):
    o = np.lexsort((-yb, xb))  # R order(x, -y)
    xo = xb[o]
    fit = isoreg(yb[o].astype(np.float64)).yf
    first = np.concatenate(([True], xo[1:] != xo[:-1]))
    kx, ky = xo[first], fit[first]
    if kx.size == 1:
        return np.full(ux.size, ky[0])
    return pav._approx_rule1(kx, ky, ux)


def _literal_band(fit, level, position, n_boot, xs, x0):
    n = xs.size
    m = np.empty((fit.ux.size, n_boot))
    for b in range(n_boot):
        s = np.asarray(sample_int(n, n, replace=True), dtype=np.int64) - 1
        m[:, b] = _literal_curve(xs[s], _rbinom1(x0[s]), fit.ux)
    lower, upper = pav._row_quantiles(m, (0.5 - 0.5 * level, 0.5 + 0.5 * level))
    return (pav._bound_correction(lower, fit.ux, fit.ucep, position),
            pav._bound_correction(upper, fit.ux, fit.ucep, position))


def _literal_mcb_null(xs, n_boot):
    n = xs.size
    out = np.empty(n_boot)
    for b in range(n_boot):
        xb = xs[np.asarray(sample_int(n, n, replace=True), dtype=np.int64) - 1]
        yb = _rbinom1(xb)
        o = np.lexsort((-yb, xb))
        xo, yo = xb[o], yb[o].astype(np.float64)
        cep = isoreg(yo).yf
        d, e = xo - yo, cep - yo
        out[b] = rmean(d * d) - rmean(e * e)
    return out


def _data(seed, n, kind):
    r = np.random.default_rng(seed)
    if kind == "continuous":
        x = r.random(n)
    elif kind == "ties":
        x = np.round(r.random(n), 1)
    else:  # a few scores, some 0 and 1 (no draw for them in rbinom)
        x = r.choice([0.0, 0.1, 0.35, 0.5, 0.9, 1.0], n)
    y = (r.random(n) < x).astype(np.int64)
    return x, y


@pytest.mark.parametrize("kind", ["continuous", "ties", "few"])
@pytest.mark.parametrize("position", ["diagonal", "estimate"])
def test_band_is_the_literal_band(kind, position):
    x, y = _data(11, 400, kind)
    fit = pav.corp_fit(x, y)
    x0 = fit.x if position == "diagonal" else fit.cep
    with rng._seeded(7):
        got = pav.resampling_band(fit, 0.9, position, 40)
        after = rng.get_state_r()
    with rng._seeded(7):
        want = _literal_band(fit, 0.9, position, 40, fit.x, x0)
        assert np.array_equal(rng.get_state_r(), after)  # the same draws, no more, no fewer
    assert _bits_equal(got[0], want[0]) and _bits_equal(got[1], want[1])


def test_band_with_integer_weights_is_the_literal_band_of_the_replicated_rows():
    x, y = _data(3, 150, "ties")
    w = np.random.default_rng(4).integers(0, 4, x.size).astype(np.float64)
    d = corp(x, y, weights=w, n_resamples=30, seed=21)
    fit = d._fit
    xs = np.repeat(fit.x, fit.w.astype(np.int64))
    with rng._seeded(21):
        want = _literal_band(fit, 0.9, "diagonal", 30, xs, xs)
    assert _bits_equal(d.band["lower"], want[0]) and _bits_equal(d.band["upper"], want[1])


@pytest.mark.parametrize("kind", ["continuous", "ties", "few"])
def test_mcb_null_is_the_literal_null(kind):
    x, _ = _data(5, 300, kind)
    xs = np.sort(x)
    with rng._seeded(99):
        got = pav.mcb_null(xs, 25)
    with rng._seeded(99):
        want = _literal_mcb_null(xs, 25)
    assert _bits_equal(got, want)


def test_resampled_curve_reads_approx_at_the_points():
    # knots a subset of the points: R's approx (rule 1) at every point
    r = np.random.default_rng(8)
    for _ in range(200):
        u = int(r.integers(2, 40))
        ux = np.sort(r.choice(np.arange(1, 200) / 200.0, u, replace=False))
        counts = r.integers(0, 3, u)
        counts[r.integers(0, u)] = 1
        events = np.array([r.integers(0, c + 1) for c in counts])
        drawn = counts > 0
        ky = isoreg_grouped(counts[drawn], events[drawn])
        got = pav._resampled_curve(counts, events, ux)
        want = np.full(u, ky[0]) if ky.size == 1 else pav._approx_rule1(ux[drawn], ky, ux)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert _bits_equal(np.nan_to_num(got), np.nan_to_num(want))


# --------------------------------------------------------------------------------------
# isoreg on tallies and the certified knots


_TALLIES = st.lists(st.tuples(st.integers(1, 5), st.integers(0, 5)), min_size=1, max_size=60).map(
    lambda t: (np.array([c for c, _ in t]), np.array([min(e, c) for c, e in t])))


def _expanded(counts, events):
    return np.concatenate([np.r_[np.ones(e), np.zeros(c - e)] for c, e in zip(counts, events)])


def _check_grouped(counts, events):
    yf = isoreg(_expanded(counts, events)).yf
    got = isoreg_grouped(counts, events)
    assert _bits_equal(np.repeat(got, counts), yf)


@SLOW
@given(_TALLIES)
def test_isoreg_grouped_is_isoreg_of_the_rows(t):
    _check_grouped(*t)


@SLOW
@given(_TALLIES)
def test_isoreg_grouped_without_scipy_blocks_or_past_the_exact_range(t):
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(isoreg_mod, "_pav_blocks", lambda y, w: None)  # the exact stack
        _check_grouped(*t)
        mp.setattr(isoreg_mod, "_pav_blocks", lambda y, w: np.array([0, y.size], dtype=np.int64))  # refuted
        _check_grouped(*t)
        mp.undo()
        mp.setattr(isoreg_mod, "_INT_PATH_LIMIT", 1.0)  # R's own fit on the rows
        _check_grouped(*t)
    finally:
        mp.undo()


def test_isoreg_grouped_empty():
    assert isoreg_grouped(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)).size == 0


@SLOW
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=80))
def test_integer_knots_survive_wrong_blocks(y):
    # a block proposal that fails the certificate falls back to the exact stack
    y = np.asarray(y, dtype=np.float64)
    want = isoreg(y)
    mp = pytest.MonkeyPatch()
    try:
        for fake in (lambda v, w: None, lambda v, w: np.array([0, v.size], dtype=np.int64),
                     lambda v, w: np.arange(v.size + 1, dtype=np.int64)):
            mp.setattr(isoreg_mod, "_pav_blocks", fake)
            got = isoreg(y)
            assert np.array_equal(got.iKnots, want.iKnots) and _bits_equal(got.yf, want.yf)
    finally:
        mp.undo()


def test_certificate_rejects_a_non_convex_proposal():
    c = np.array([0, 1, 1, 2])  # y = 1, 0, 1: PAV pools the first two
    d = np.arange(4)
    assert isoreg_mod._certified(c, d, np.array([0, 1, 2, 3])) is None  # slopes 1, 0, 1
    assert isoreg_mod._certified(c, d, np.array([0, 3])) is None  # point 1 below the chord
    assert isoreg_mod._certified(c, d, np.array([0, 2, 3])) is not None

"""R's lowess (stats' clowess) bit for bit, by both backends: the compiled loop
(``calstats.numerics._loops``) and the vectorised NumPy reference; and ``_loops.rpow``
against the C library's ``pow`` as Python's ``math.pow`` calls it.

The fixture (``tools/r-reference/make_lowess.R``) reaches every branch of R's C code: the
delta skip with interpolation, ties, spans of 2 points to all, robustness iterations with
windows whose weights are all zero, constant x, n = 1, 2, 3."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats.ports.hmisc import rcspline
from calstats.ports.stats import lowess as L

FX = load_fixture("lowess_r")
CASES = FX["cases"]


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.int64).tolist()


def _args(case):
    x = np.array(case["x"], dtype=np.float64)
    y = np.array(case["y"], dtype=np.float64)
    kw = {"f": case["f"][0], "iter": int(case["iter"][0])}
    if case.get("delta") is not None:
        kw["delta"] = case["delta"][0]
    return x, y, kw


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_lowess_matches_r_bits(case):
    x, y, kw = _args(case)
    xs, fit = L.lowess(x, y, **kw)
    assert bits(xs) == bits(np.sort(x, kind="stable"))
    assert bits(fit) == bits(case["fit"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_numpy_backend_matches_r_bits(case):
    x, y, kw = _args(case)
    o = np.argsort(x, kind="stable")
    delta = kw.get("delta", 0.01 * (x.max() - x.min()))
    fit = L._clowess(np.ascontiguousarray(x[o]), np.ascontiguousarray(y[o]), kw["f"], kw["iter"], delta,
                     backend="numpy")
    assert bits(fit) == bits(case["fit"])


def test_fixture_reaches_zero_weight_windows():
    """The alternating block makes R keep y where a window's robustness weights are all 0."""
    case = next(c for c in CASES if c["id"] == "alternating_block")
    x, y, kw = _args(case)
    n = x.size
    ns = max(2, min(n, int(kw["f"] * n + 1e-7)))
    vis, _ = L._visits(x, n, 0.01 * (x.max() - x.min()))
    win = L._windows(x, n, ns, vis)
    ys = L._clowess_numpy(x, y, kw["f"], 0, 0.01 * (x.max() - x.min()))
    r = np.abs(y - ys)
    srt = np.sort(r)
    cmad = 3.0 * (srt[n // 2] + srt[n - n // 2 - 1])
    rw = np.where(r <= 0.001 * cmad, 1.0, np.where(r <= 0.999 * cmad, (1 - (r / cmad) ** 2) ** 2, 0.0))
    _, ok = L._local_fits(x, y, n, vis, ns, True, rw, win)
    assert not ok.all()


@st.composite
def smoothing_inputs(draw):
    n = draw(st.integers(1, 80))
    grid = draw(st.sampled_from([0, 4, 20, 1000]))
    raw = draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=n, max_size=n))
    x = np.array(raw)
    if grid:
        x = np.round(x * grid) / grid
    y = np.array(draw(st.lists(st.floats(-5, 5, allow_nan=False), min_size=n, max_size=n)))
    f = draw(st.sampled_from([0.01, 0.2, 2 / 3, 1.0, 1.5]))
    it = draw(st.integers(0, 3))
    delta = draw(st.sampled_from([None, 0.0, 0.05, 0.5]))
    return x, y, f, it, delta


@settings(max_examples=300, deadline=None)
@given(smoothing_inputs())
def test_backends_same_bits(args):
    x, y, f, it, delta = args
    xs = np.sort(x, kind="stable")
    yo = y[np.argsort(x, kind="stable")]
    d = 0.01 * (x.max() - x.min()) if delta is None else delta
    with np.errstate(all="ignore"):
        a = L._clowess(xs, yo, f, it, d)
        b = L._clowess(xs, yo, f, it, d, backend="numpy")
    assert bits(a) == bits(b)


def test_rpow_is_the_c_library_pow():
    from calstats.numerics import _loops  # compiled: not on an install without a C compiler

    rs = np.random.default_rng(7)
    x = np.concatenate([rs.uniform(0, 5, 5000), rs.uniform(0, 1e3, 500), [0.0, 1.0, 2.5, math.inf, math.nan]])
    for y in (3.0, 2.0 / 3.0, 0.5, 0.0, -1.5):
        out = np.empty(x.size)
        _loops.rpow(x, y, out)
        want = [1.0 if (v == 1.0 or y == 0.0) else (math.pow(v, y) if v != 0 or y > 0 else math.inf)
                for v in x.tolist()]
        assert bits(out) == bits(want)
    got = rcspline._r_pow(np.array([[0.5, 2.0], [1.0, 3.0]]), 3.0)
    assert got.shape == (2, 2) and bits(got.ravel()) == bits([0.125, 8.0, 1.0, 27.0])


def test_loops_refuse_wrong_buffers():
    from calstats.numerics import _loops

    out = np.empty(3)
    with pytest.raises(TypeError, match="contiguous 1-D float64"):
        _loops.clowess(np.arange(3), np.zeros(3), 0.5, 0, 0.0, out)
    with pytest.raises(ValueError, match="same length"):
        _loops.clowess(np.zeros(3), np.zeros(2), 0.5, 0, 0.0, out)
    with pytest.raises(ValueError, match="same length"):
        _loops.rpow(np.zeros(3), 3.0, np.empty(2))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([-1.0, -0.0, 0.0, 0.5, 2.0, float("nan")]) | st.floats(-5, 5), max_size=50))
def test_r_order_is_the_stable_order(values):
    x = np.array(values, dtype=np.float64)
    assert L.r_order(x).tolist() == np.argsort(x, kind="stable").tolist()

"""Smooth ECE against relplot 1.0.3 (tests/fixtures/make_relplot_values.py)."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from calstats import CalstatsError
from calstats._weights import replicate_rows
from calstats.evaluation.smooth import smece, smece_sigma, smooth_curve
from calstats.kernels import smooth as ks

FIXTURES = Path(__file__).parent / "fixtures"
RELPLOT = json.loads((FIXTURES / "relplot_values.json").read_text())
TOL = 1e-8  # the stated agreement with relplot; measured differences are below 1e-15

BINARY = {c["id"]: c for c in RELPLOT["binary"]}
WEIGHTED = {c["id"]: c for c in RELPLOT["weighted"]}
MULTICLASS = {c["id"]: c for c in RELPLOT["multiclass"]}


def _xy(case):
    return np.array(case["s"]), np.array(case["y"])


def _check_case(case, p, y, weights=None):
    """Every number of one relplot case: the bandwidth (a dyadic number: exactly), the
    value, the fixed-bandwidth values."""
    assert smece_sigma(p, y, weights=weights) == case["sigma"]
    assert smece(p, y, weights=weights) == pytest.approx(case["smece"], abs=TOL)
    for fixed in case["fixed"]:
        assert smece(p, y, sigma=fixed["sigma"], weights=weights) == pytest.approx(fixed["smece"], abs=TOL)


def _check_curve(case, p, y, weights=None):
    ref = case["curve"]
    cv = smooth_curve(p, y, weights=weights)
    np.testing.assert_array_equal(cv.t, ref["t"])
    np.testing.assert_allclose(cv.mu, ref["mu"], rtol=0, atol=TOL)
    # the density is on relplot's unnormalised scale (up to ~1e3): relative to its maximum
    scale = max(ref["density"])
    np.testing.assert_allclose(cv.density, ref["density"], rtol=0, atol=TOL * scale)
    assert cv.sigma == ref["sigma"]
    assert cv.smece == pytest.approx(ref["smece"], abs=TOL)
    fixed = case["curve_sigma005"]
    cv = smooth_curve(p, y, sigma=0.05, weights=weights)
    np.testing.assert_allclose(cv.mu, fixed["mu"], rtol=0, atol=TOL)
    np.testing.assert_allclose(cv.density, fixed["density"], rtol=0, atol=TOL * max(fixed["density"]))
    assert cv.sigma == 0.05
    assert cv.smece == pytest.approx(case["fixed"][0]["smece"], abs=TOL)  # FIXED_SIGMAS[0] is 0.05


# -- relplot's numbers ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_cases_equal_relplot(name):
    """Random problems (n = 50, 500, 5000; calibrated and not), ties, one distinct score,
    all y = 0, scores exactly 0 and 1, mass at both ends."""
    case = BINARY[name]
    _check_case(case, *_xy(case))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_smooth_curve_equals_relplot_diagram(name):
    case = BINARY[name]
    _check_curve(case, *_xy(case))


@pytest.mark.parametrize("name", sorted(WEIGHTED))
def test_integer_weights_equal_relplot_on_replicated_rows(name):
    case = WEIGHTED[name]
    p, y = _xy(case)
    _check_case(case, p, y, weights=case["w"])
    _check_curve(case, p, y, weights=case["w"])


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_matrix_is_the_top_label_confidence(name):
    case = MULTICLASS[name]
    _check_case(case, np.array(case["p"]), np.array(case["codes"]))


def test_pandas_inputs():
    case = BINARY["ties_300"]
    p, y = _xy(case)
    _check_case(case, pd.Series(p, index=np.arange(300) + 7), pd.Series(y.astype(bool)))
    mc = MULTICLASS["multiclass_n300_k3"]
    P, codes = np.array(mc["p"]), np.array(mc["codes"])
    labels = pd.Categorical.from_codes(codes - 1, ["a", "b", "c"])
    _check_case(mc, pd.DataFrame(P, columns=["a", "b", "c"]), pd.Series(labels))


def test_float32_scores_are_read_as_their_float64_values():
    case = BINARY["float32_200"]
    p, y = _xy(case)
    p32 = p.astype(np.float32)
    np.testing.assert_array_equal(p32.astype(np.float64), p)  # the fixture holds float32 values
    _check_case(case, p32, y)
    _check_curve(case, p32, y)


def test_grid_as_points():
    case = BINARY["calibrated_500"]
    p, y = _xy(case)
    full = smooth_curve(p, y)
    part = smooth_curve(p, y, grid=full.t[::7])
    np.testing.assert_array_equal(part.mu, full.mu[::7])
    np.testing.assert_array_equal(part.density, full.density[::7])
    assert smooth_curve(p, y, grid=11).t.tolist() == np.linspace(0, 1, 11).tolist()


# -- properties -----------------------------------------------------------------------------

_prob = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 1.0]))
_rows = st.lists(st.tuples(_prob, st.booleans(), st.integers(0, 3)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(rows=_rows)
def test_integer_weights_are_replicated_rows(rows):
    p = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    w = np.array([r[2] for r in rows])
    w[0] += 1  # not all zero
    idx = replicate_rows(w)
    sigma = smece_sigma(p, y, weights=w)
    assert sigma == smece_sigma(p[idx], y[idx])
    value = smece(p, y, weights=w)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(smece(p[idx], y[idx]), abs=1e-12)
    assert value == smece(p, y, sigma=sigma, weights=w)


def test_fft_convolution_below_the_direct_range(monkeypatch):
    """Bandwidths below 0.001 are convolved by FFT: the same value as the direct sum."""
    case = BINARY["calibrated_500"]
    p, y = _xy(case)
    fft = smece(p, y, sigma=5e-4)
    monkeypatch.setattr(ks, "DIRECT_MIN_SIGMA", 1e-4)
    assert smece(p, y, sigma=5e-4) == pytest.approx(fft, abs=1e-12)
    assert fft != smece(p, y, sigma=1e-3)


def test_inputs_are_not_modified():
    case = WEIGHTED["weighted_60"]
    p, y = _xy(case)
    w = np.array(case["w"], dtype=np.float64)
    copies = p.copy(), y.copy(), w.copy()
    smooth_curve(p, y, weights=w)
    smece(p, y, weights=w)
    for a, b in zip((p, y, w), copies):
        np.testing.assert_array_equal(a, b)


def test_missing_logical_label_gives_nan():
    y = pd.Series([True, False, None, True], dtype="boolean")
    p = [0.2, 0.4, 0.6, 0.8]
    assert math.isnan(smece(p, y))
    assert math.isnan(smece_sigma(p, y))
    cv = smooth_curve(p, y, sigma=0.1)
    assert np.isnan(cv.mu).all() and math.isnan(cv.smece)
    np.testing.assert_array_equal(cv.density, smooth_curve(p, [1, 0, 0, 1], sigma=0.1).density)


# -- messages -------------------------------------------------------------------------------

P, Y = [0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1]
SIGMA_MSG = "Argument `sigma` must be `None` or a single finite number of at least 1e-05."


@pytest.mark.parametrize("sigma", [0, -0.1, 1e-6, math.nan, math.inf, "0.1", [0.1, 0.2], True])
def test_sigma_message(sigma):
    with pytest.raises(CalstatsError) as err:
        smece(P, Y, sigma=sigma)
    assert str(err.value) == SIGMA_MSG
    with pytest.raises(CalstatsError) as err:
        smooth_curve(P, Y, sigma=sigma)
    assert str(err.value) == SIGMA_MSG


@pytest.mark.parametrize("grid,text", [
    (0, "Argument `grid` must be a single positive integer."),
    (2.5, "Argument `grid` must be a single positive integer."),
    ("a", "Argument `grid` must be a single positive integer."),
    ([0.0, 1.5], "Argument `grid` must contain probabilities in `[0, 1]`."),
])
def test_grid_message(grid, text):
    with pytest.raises(CalstatsError) as err:
        smooth_curve(P, Y, grid=grid)
    assert str(err.value) == text


@pytest.mark.parametrize("call,text", [
    (lambda: smece([0.2, 1.2], [0, 1]), "Argument `p` must contain probabilities in `[0, 1]`."),
    (lambda: smece(P, [0, 2, 0, 1]), "Argument `y` must contain only binary labels `0` and `1`."),
    (lambda: smece_sigma(P, Y, weights=[1, 2]), "Argument `weights` must have one value per observation (4), not 2."),
    (lambda: smece([[0.2, 0.8], [0.5, 0.5]], [1, 2, 1]), None),
])
def test_input_messages(call, text):
    with pytest.raises(CalstatsError) as err:
        call()
    assert "\n" not in str(err.value)
    if text is not None:
        assert str(err.value) == text


@pytest.mark.parametrize("fn", [smece, smece_sigma, smooth_curve])
def test_dask_is_refused_with_one_line(fn):
    da = pytest.importorskip("dask.array")
    p, y = _xy(BINARY["calibrated_50"])
    with pytest.raises(CalstatsError, match="smooth ECE searches its bandwidth") as err:
        fn(da.from_array(p, chunks=25), da.from_array(y, chunks=25))
    assert "\n" not in str(err.value)

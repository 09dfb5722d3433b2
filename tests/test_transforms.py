"""logit / inv_logit against R (tests/fixtures/utils.json, errors.json, quirks.json)."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import calstats
from _rcases import EXACT_PLATFORM, arr, case_ids, exact_only, load_cases, run_call
from calstats import CalstatsError

CASES = load_cases("utils")
EXTENDED = EXACT_PLATFORM
_FUNCS = re.compile(r"(?<![\w.])(logit|inv_logit)\(")


def _value(case):
    env, last = run_call(case, calstats)
    return env.get("value", last)


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_matches_r(case):
    got = _value(case)
    want = arr(case["outputs"]["value"])
    assert isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == want.shape
    # r-interface.md §10: elementwise transforms agree to 1e-13 relative
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert case["outputs"]["warnings"] == []


@exact_only
@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bit_identical_to_r(case):
    assert np.array_equal(_value(case), arr(case["outputs"]["value"]))


def test_default_eps_is_machine_epsilon():
    # quirk Q18: logit(0) = log(eps/(1 - eps)) ~ -36.04, logit(1) its negative
    out = calstats.logit([0.0, 1.0])
    eps = np.finfo(np.float64).eps
    assert out[0] == math.log(eps / (1 - eps))
    assert out[0] == pytest.approx(-36.04365338911715, rel=1e-15)
    assert out[1] == -out[0]


def test_tiny_eps_gives_inf_quirk():
    case = next(c for c in load_cases("quirks") if c["id"] == "quirk_logit_tiny_eps_gives_inf")
    got = run_call(case, calstats)[1]
    np.testing.assert_array_equal(got, arr(case["outputs"]["value"]))
    assert got[-1] == math.inf


# -- errors: every R error case is replayed in tests/test_r_conditions.py ---------------


@pytest.mark.parametrize("value, message", [
    (np.array([[0.1, np.nan], [0.2, 0.3]]), "Argument `p` must not contain missing values."),
    (np.zeros((0, 3)), "Argument `p` must not be empty."),
    (np.array([[0.1, 1.5]]), "Argument `p` must contain probabilities in `[0, 1]`."),
    (np.array([[True, False]]), "Argument `p` must be a numeric vector."),
    (pd.array([0.2, None], dtype="Float64"), "Argument `p` must not contain missing values."),
    (pd.Series(["a", "b"]), "Argument `p` must be a numeric vector."),
    (None, "Argument `p` must be a numeric vector."),
])
def test_logit_rejects_with_r_message(value, message):
    with pytest.raises(CalstatsError) as err:
        calstats.logit(value)
    assert str(err.value) == message


@pytest.mark.parametrize("eps", [True, 0.0, 0.5, -1.0, math.inf, math.nan, [0.1, 0.2], "0.1", None])
def test_logit_eps_rejected(eps):
    with pytest.raises(CalstatsError, match=r"^Argument `eps` must be a single number in `\(0, 0\.5\)`\.$"):
        calstats.logit([0.2, 0.3], eps=eps)


def test_p_checked_before_eps():
    with pytest.raises(CalstatsError, match="`p` must contain probabilities"):
        calstats.logit([2.0], eps=0.0)


@pytest.mark.parametrize("value, message", [
    (np.array([[1.0, np.inf]]), "Argument `x` must contain only finite values."),
    (np.array([True]), "Argument `x` must be a numeric vector."),
    (pd.array([1, None], dtype="Int64"), "Argument `x` must not contain missing values."),
])
def test_inv_logit_rejects_with_r_message(value, message):
    with pytest.raises(CalstatsError) as err:
        calstats.inv_logit(value)
    assert str(err.value) == message


# -- shapes and input types ---------------------------------------------------------------


def test_shape_is_kept_and_scalars_become_vectors():
    m = np.array([[0.1, 0.5, 0.9], [0.2, 0.3, 0.4]])
    out = calstats.logit(m)
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.ravel(), calstats.logit(m.ravel()))
    assert calstats.logit(0.5).shape == (1,) and calstats.logit(0.5)[0] == 0.0
    assert calstats.inv_logit(0).shape == (1,) and calstats.inv_logit(0)[0] == 0.5
    assert calstats.inv_logit(np.zeros((2, 2, 2))).shape == (2, 2, 2)
    one_col = calstats.inv_logit(np.array([[1.0], [2.0]]))
    assert one_col.shape == (2, 1)


def test_pandas_and_float32_inputs():
    s = pd.Series([0.25, 0.5, 0.75], index=["a", "b", "c"])
    out = calstats.logit(s)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    np.testing.assert_array_equal(out, calstats.logit(s.to_numpy()))
    frame = pd.DataFrame({"u": [0.1, 0.2], "v": [1, 0]})
    assert calstats.logit(frame).shape == (2, 2)
    x32 = np.array([-1.5, 0.0, 2.5], dtype=np.float32)
    got = calstats.inv_logit(x32)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, calstats.inv_logit(x32.astype(np.float64)))
    np.testing.assert_array_equal(calstats.inv_logit(np.array([1, 2], dtype=np.int8)), calstats.inv_logit([1.0, 2.0]))


def test_plogis_limits():
    out = calstats.inv_logit([-800.0, 800.0, -40.0])
    assert out[0] == 0.0 and out[1] == 1.0 and 0 < out[2] < 1e-17


# -- properties -------------------------------------------------------------------------

_probs = hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(1e-6, 1 - 1e-6))
_reals = hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(-30, 30))


@settings(max_examples=60, deadline=None)
@given(p=_probs)
def test_round_trip_and_inputs_untouched(p):
    before = p.copy()
    back = calstats.inv_logit(calstats.logit(p))
    np.testing.assert_allclose(back, p, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(p, before)


@settings(max_examples=60, deadline=None)
@given(x=_reals)
def test_inv_logit_is_monotone_and_in_unit_interval(x):
    before = x.copy()
    order = np.argsort(x, kind="stable")
    out = calstats.inv_logit(x)
    assert np.all((out >= 0) & (out <= 1))
    assert np.all(np.diff(out[order]) >= 0)
    np.testing.assert_array_equal(x, before)


@settings(max_examples=40, deadline=None)
@given(p=_probs, eps=st.sampled_from([1e-15, 1e-6, 0.01, 0.25]))
def test_logit_is_odd_symmetric_and_clipped(p, eps):
    a, b = calstats.logit(p, eps=eps), calstats.logit(1 - p, eps=eps)
    lim = math.log((1 - eps) / eps)
    assert np.all(np.abs(a) <= lim * (1 + 1e-12))
    np.testing.assert_allclose(a, -b, rtol=1e-6, atol=1e-9)

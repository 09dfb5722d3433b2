"""brier_score, log_loss, confidence_ece, classwise_ece (seed-methods.md §C.3)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import calstats

P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
Y = np.array([1, 3, 3, 2])


def test_hand_values():
    # rows: (0.3^2 + 0.2^2 + 0.1^2), (0.1^2 + 0.8^2 + 0.9^2), (0.3^2 + 0.3^2 + 0.6^2), (0.5^2 + 0.6^2 + 0.1^2)
    expected = (0.14 + 1.46 + 0.54 + 0.62) / 4
    assert calstats.brier_score(P, Y) == pytest.approx(expected, rel=1e-15)
    assert calstats.log_loss(P, Y) == pytest.approx(-np.mean(np.log([0.7, 0.1, 0.4, 0.4])), rel=1e-15)
    assert calstats.brier_score(np.array([0.2, 0.9]), [0, 1]) == pytest.approx((0.04 + 0.01) / 2)
    assert calstats.log_loss(np.array([0.2, 0.9]), [0, 1]) == pytest.approx(-(np.log(0.8) + np.log(0.9)) / 2)


def test_two_column_brier_is_twice_binary_and_sklearn_agrees():
    rs = np.random.RandomState(0)
    p = rs.uniform(size=50)
    y = (rs.uniform(size=50) < p).astype(int)
    m = np.column_stack([1 - p, p])
    assert calstats.brier_score(m, y + 1) == pytest.approx(2 * calstats.brier_score(p, y), rel=1e-14)
    assert calstats.brier_score(p, y) == pytest.approx(skm.brier_score_loss(y, p), rel=1e-14)
    assert calstats.log_loss(p, y) == pytest.approx(skm.log_loss(y, p), rel=1e-13)
    q = rs.dirichlet([1, 1, 1, 1], size=80)
    yy = rs.randint(1, 5, 80)
    assert calstats.log_loss(q, yy) == pytest.approx(skm.log_loss(yy, q, labels=[1, 2, 3, 4]), rel=1e-13)


def test_clipping_and_eces_are_the_r_port():
    assert calstats.log_loss(np.array([[1.0, 0.0], [0.5, 0.5]]), [2, 1]) == pytest.approx(
        -(np.log(1e-15) + np.log(0.5)) / 2)
    rs = np.random.RandomState(1)
    q = rs.dirichlet([1, 2, 3], size=100)
    yy = rs.randint(1, 4, 100)
    assert calstats.confidence_ece(q, yy) == calstats.ece(q, yy, type="confidence")
    assert calstats.classwise_ece(q, yy, bins=15) == calstats.ece(q, yy, bins=15, type="classwise")
    r, c = q.max(axis=1), (q.argmax(axis=1) + 1 == yy)
    assert calstats.confidence_ece(q, yy) == pytest.approx(
        sum(abs(c[m].mean() - r[m].mean()) * m.sum() / 100
            for b in range(10) for m in [(r >= b / 10) & ((r < (b + 1) / 10) | (b == 9))] if m.any()), abs=1e-15)


def test_pandas_float32_and_factor_inputs():
    df = pd.DataFrame(P.astype(np.float32))
    f = pd.Categorical(np.array(["a", "b", "c"])[Y - 1], categories=["a", "b", "c"])
    assert calstats.brier_score(df, f) == pytest.approx(calstats.brier_score(P, Y), rel=1e-6)
    assert calstats.log_loss(df, f) == pytest.approx(calstats.log_loss(P, Y), rel=1e-6)


def _err(fn, *a, **kw):
    with pytest.raises(calstats.CalstatsError) as e:
        fn(*a, **kw)
    return str(e.value)


@pytest.mark.parametrize("f", [calstats.brier_score, calstats.log_loss, calstats.confidence_ece,
                               calstats.classwise_ece], ids=lambda f: f.__name__)
def test_errors(f):
    assert _err(f, P * 2, Y) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(f, P * 0.5, Y) == "Each row of `p` must sum to `1`."
    assert _err(f, P, [1, 2, 2, 2, 1, 2, 1, 2, 4]) == "Argument `y` has 4 classes but the input has 3 columns."
    assert _err(f, np.array([0.2, np.nan]), [0, 1]) == "Argument `p` must not contain missing values."
    assert _err(f, np.array([0.2, 0.4]), [0, 3]) == "Argument `y` must contain only binary labels `0` and `1`."
    assert _err(f, np.array([0.2, 0.4]), [0, 1, 1]) == "Arguments `p` and `y` must have the same length."


def test_row_count_error():
    for f in (calstats.brier_score, calstats.log_loss, calstats.confidence_ece):
        assert _err(f, P, Y[:3]) == "Arguments `p` and `y` must have the same number of observations."


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5))
def test_properties(seed, k):
    rs = np.random.RandomState(seed)
    p = rs.dirichlet(np.ones(k), size=30)
    y = rs.randint(1, k + 1, 30)
    y[:k] = np.arange(1, k + 1)
    p0 = p.copy()
    b = calstats.brier_score(p, y)
    assert 0 <= b <= 2 and calstats.log_loss(p, y) >= 0
    perm = rs.permutation(30)
    assert calstats.brier_score(p[perm], y[perm]) == pytest.approx(b, rel=1e-14)
    assert calstats.log_loss(p[perm], y[perm]) == pytest.approx(calstats.log_loss(p, y), rel=1e-14)
    cperm = rs.permutation(k)
    inv = np.argsort(cperm)
    assert calstats.brier_score(p[:, cperm], inv[y - 1] + 1) == pytest.approx(b, rel=1e-14)
    assert 0 <= calstats.confidence_ece(p, y) <= 1 and 0 <= calstats.classwise_ece(p, y) <= 1
    assert np.array_equal(p, p0)

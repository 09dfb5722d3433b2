"""cal_isotonic and cal_histogram against R (isotonic.json, histogram.json) and invariants."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import arr, assert_fields, case_ids, load_cases, run_call

ISO = load_cases("isotonic")
HIST = load_cases("histogram")


@pytest.mark.parametrize("case", ISO, ids=case_ids(ISO))
def test_isotonic_matches_r_exactly(case):
    env, _ = run_call(case, calstats)
    out = case["outputs"]
    assert_fields(env["fit"], out, rtol=0, skip=("predict_fit", "predict_new", "warnings"))
    np.testing.assert_array_equal(env["fit"].fit.yf, arr(out["diag_isoreg_yf"]))
    np.testing.assert_array_equal(env["pred_fit"], arr(out["predict_fit"]))
    np.testing.assert_array_equal(env["pred_new"], arr(out["predict_new"]))


@pytest.mark.parametrize("case", HIST, ids=case_ids(HIST))
def test_histogram_matches_r_exactly(case):
    env, _ = run_call(case, calstats)
    out = case["outputs"]
    assert_fields(env["fit"], out, rtol=0, skip=("predict_fit", "predict_new", "warnings"))
    np.testing.assert_array_equal(env["pred_fit"], arr(out["predict_fit"]))
    np.testing.assert_array_equal(env["pred_new"], arr(out["predict_new"]))


def test_isotonic_record_and_ties():
    fit = calstats.cal_isotonic([0.2, 0.2, 0.5, 0.9], [0, 1, 0, 1])
    rec = fit["fit"]
    assert rec.names() == ["x", "y", "yf", "yc", "iKnots", "isOrd", "ord", "call"]
    assert rec["isOrd"] is False and list(rec["ord"]) == [1, 2, 3, 4]
    assert list(rec.y) == [1.0, 0.0, 0.0, 1.0]  # ties: positives first
    assert fit.x_thresholds.tolist() == [0.2, 0.5, 0.9]


def test_histogram_break_is_the_r_double():
    fit = calstats.cal_histogram([0.05, 0.3, 0.95, 0.5], [0, 1, 1, 0], bins=10)
    # 0.3 lies below the 4th break 3 * 0.1 = 0.30000000000000004, so it is in bin 3.
    assert fit.breaks[3] == 3 * 0.1 and fit.counts.tolist() == [1, 0, 1, 0, 0, 1, 0, 0, 0, 1]
    assert fit.predict([0.3, 3 * 0.1]).tolist() == [1.0, 1.0]


def test_pandas_and_float32_inputs():
    p = pd.Series(np.float32([0.1, 0.4, 0.35, 0.8]))
    y = pd.Series([0, 0, 1, 1])
    fit = calstats.cal_isotonic(p, y)
    assert fit.predict(p).dtype == np.float64
    assert calstats.cal_histogram(p, pd.array([False, False, True, True], dtype="boolean"), bins=2).global_rate == 0.5


def _binary_data(seed, n):
    rs = np.random.default_rng(seed)
    p = rs.uniform(size=n).round(rs.integers(1, 4))  # rounding makes ties
    y = (rs.uniform(size=n) < p).astype(int)
    y[:2] = [0, 1]
    return p, y


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 200))
def test_isotonic_is_monotone_in_unit_interval_and_pure(seed, n):
    p, y = _binary_data(seed, n)
    p0, y0 = p.copy(), y.copy()
    fit = calstats.cal_isotonic(p, y)
    grid = np.linspace(0, 1, 101)
    pred = fit.predict(grid)
    assert np.all(np.diff(pred) >= 0) and np.all((pred >= 0) & (pred <= 1))
    assert np.all(np.diff(fit.y_calibrated) >= 0)
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(y, y0)
    # invariant to the order of the observations (sorting is stable, ties broken by label)
    perm = np.random.default_rng(seed).permutation(n)
    np.testing.assert_array_equal(calstats.cal_isotonic(p[perm], y[perm]).y_calibrated, fit.y_calibrated)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 200), bins=st.integers(1, 15),
       strategy=st.sampled_from(["equal_width", "equal_freq"]))
def test_histogram_predicts_bin_rates(seed, n, bins, strategy):
    p, y = _binary_data(seed, n)
    fit = calstats.cal_histogram(p, y, bins=bins, strategy=strategy)
    assert fit.counts.sum() == n and fit.actual_bins == len(fit.counts) <= max(bins, 1)
    assert fit.breaks[0] == 0 and fit.breaks[-1] == 1 and np.all(np.diff(fit.breaks) > 0)
    pred = fit.predict(p)
    assert set(np.unique(pred)) <= set(fit.bin_values)
    assert np.all((fit.bin_values >= 0) & (fit.bin_values <= 1))
    perm = np.random.default_rng(seed).permutation(n)
    np.testing.assert_array_equal(calstats.cal_histogram(p[perm], y[perm], bins=bins, strategy=strategy).bin_values,
                                  fit.bin_values)

"""calstats.ports.survival.coxph against survival::coxph / predict.coxph(type = "expected")
(fixtures from tools/r-reference/make_coxph.R)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.ports.survival.coxph import CoxFit, coxph_fit

RTOL = 1e-8  # the contract; the port takes R's steps and in practice agrees to the last bit

FIX = load_fixture("coxph")
CASES = FIX["cases"]
IDS = [c["name"] for c in CASES]


_SPECIAL = {"NA": np.nan, "NaN": np.nan, "Inf": np.inf, "-Inf": -np.inf}


def _arr(v):
    return np.array([_SPECIAL[x] if isinstance(x, str) else x for x in v], dtype=np.float64)


def _mat(cols):
    return np.column_stack([_arr(c) for c in cols])


def _assert_close(actual, expected, what):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, what
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=what)
    inf = np.isinf(expected)
    np.testing.assert_array_equal(actual[inf], expected[inf], err_msg=what)
    ok = np.isfinite(expected)
    np.testing.assert_allclose(actual[ok], expected[ok], rtol=RTOL, atol=0, err_msg=what)


def _fit(case):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        fit = coxph_fit(_arr(case["time"]), _arr(case["status"]), _mat(case["X"]),
                        iter_max=case["iter_max"])
    return fit, [str(w.message) for w in rec if issubclass(w.category, CalstatsWarning)], rec


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fit_matches_r(case):
    fit, warns, rec = _fit(case)
    assert warns == case["warnings"]
    assert all(issubclass(w.category, CalstatsWarning) for w in rec)  # no stray numpy warnings
    _assert_close(fit.coefficients, _arr(case["coefficients"]), "coefficients")
    _assert_close(fit.vcov, _mat(case["var"]), "var")
    _assert_close(fit.loglik, _arr(case["loglik"]), "loglik")
    _assert_close(fit.means, _arr(case["means"]), "means")
    _assert_close(fit.linear_predictors, _arr(case["linear_predictors"]), "linear.predictors")
    assert fit.iter == case["iter"]
    assert fit.nevent == case["nevent"]
    ran_out = "Ran out of iterations and did not converge" in case["warnings"]
    if case["iter_max"] > 1 and case["nevent"] > 0:
        assert fit.converged == (not ran_out)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expected_matches_r(case):
    fit, _, _ = _fit(case)
    Xnew = _mat(case["Xnew"])
    for t0, ref in zip(_arr(case["t0"]), case["expected"]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pred, se = fit.expected(t0, Xnew, se_fit=True)
            pred0, none = fit.expected(t0, Xnew)
        _assert_close(pred, _arr(ref["fit"]), f"fit at {t0}")
        _assert_close(se, _arr(ref["se"]), f"se at {t0}")
        _assert_close(pred0, _arr(ref["fit_nose"]), f"fit (no se) at {t0}")
        assert none is None


def test_fixture_covers_the_brief():
    names = set(IDS)
    assert {"n20_p1", "n2000_p5", "n500_p2_many_ties", "n50_p2_all_events", "n30_p2_two_events",
            "transplant_rcs5", "lung_ns3", "no_events", "singular"} <= names
    # t0 before the first event (0), exactly at an event time and beyond the last time
    case = next(c for c in CASES if c["name"] == "n100_p3")
    t0 = _arr(case["t0"])
    ev = _arr(case["time"])[_arr(case["status"]) == 1]
    assert t0[0] < ev.min() and t0[1] == ev.min() and t0[-1] > _arr(case["time"]).max()
    assert np.all(_arr(case["expected"][0]["fit"]) == 0)


def _lookup(name):
    return next(c for c in CASES if c["name"] == name)


def test_times_before_first_event_and_after_last():
    case = _lookup("n100_p3")
    fit, _, _ = _fit(case)
    X = _mat(case["Xnew"])
    time = _arr(case["time"])
    p0, s0 = fit.expected(time.min() / 2, X, se_fit=True)
    assert np.all(p0 == 0) and np.all(s0 == 0)
    last, _ = fit.expected(time.max(), X)
    beyond, _ = fit.expected(time.max() * 10, X)
    np.testing.assert_array_equal(last, beyond)


def test_per_row_times_equal_single_time_calls():
    case = _lookup("n60_p3_ties")
    fit, _, _ = _fit(case)
    X = _mat(case["Xnew"])[:4]
    t0 = np.array([0.05, 0.3, 1.0, 50.0])
    pred, se = fit.expected(t0, X, se_fit=True)
    for k in range(4):
        p1, s1 = fit.expected(t0[k], X[k:k + 1], se_fit=True)
        assert pred[k] == p1[0] and se[k] == s1[0]


def test_pandas_float32_inputs_and_no_mutation():
    case = _lookup("n80_binary_column")
    time, status, X = _arr(case["time"]), _arr(case["status"]), _mat(case["X"])
    keep = (time.copy(), status.copy(), X.copy())
    ref = coxph_fit(time, status, X)
    np.testing.assert_array_equal(time, keep[0])
    np.testing.assert_array_equal(status, keep[1])
    np.testing.assert_array_equal(X, keep[2])
    df = pd.DataFrame(X, columns=["a", "b"])
    fit = coxph_fit(pd.Series(time), pd.Series(status.astype(bool)), df)
    assert fit.colnames == ["a", "b"]
    np.testing.assert_array_equal(fit.coefficients, ref.coefficients)
    p_df, _ = fit.expected(1.0, df.iloc[:5])
    p_np, _ = ref.expected(1.0, X[:5])
    np.testing.assert_array_equal(p_df, p_np)
    fit32 = coxph_fit(time.astype(np.float32), status, X.astype(np.float32))
    ref32 = coxph_fit(time.astype(np.float32).astype(float), status, X.astype(np.float32).astype(float))
    np.testing.assert_array_equal(fit32.coefficients, ref32.coefficients)
    one = coxph_fit(time, status, X[:, 0], colnames=["z"])
    assert one.coefficients.shape == (1,) and one.colnames == ["z"]


def test_r_object_fields():
    fit, _, _ = _fit(_lookup("n20_p1"))
    assert isinstance(fit, CoxFit)
    assert fit.names()[:3] == ["coefficients", "var", "loglik"]
    assert fit["var"] is fit.vcov
    assert fit["linear.predictors"] is fit.linear_predictors
    assert fit.method == "efron" and fit.n == 20
    assert "CoxFit(x1=" in repr(fit)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(15, 60), p=st.integers(1, 3),
       ties=st.booleans())
def test_expected_is_nondecreasing_in_time_and_row_order_free(seed, n, p, ties):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    time = rng.exponential(size=n)
    if ties:
        time = np.ceil(time * 3)
    status = (rng.uniform(size=n) < 0.7).astype(float)
    status[0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        fit = coxph_fit(time, status, X)
        perm = rng.permutation(n)
        fit_p = coxph_fit(time[perm], status[perm], X[perm])
    if not fit.converged:
        return
    grid = np.sort(np.concatenate((time, [0.0, time.max() * 2])))
    Xn = X[:3]
    cum = np.array([fit.expected(t, Xn)[0] for t in grid])
    assert np.all(np.diff(cum, axis=0) >= 0)
    assert np.all(cum[0] == 0)
    # the fit does not depend on the order of the observations (only through rounding)
    np.testing.assert_allclose(fit_p.coefficients, fit.coefficients, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(fit_p.expected(1.0, Xn)[0], fit.expected(1.0, Xn)[0],
                               rtol=1e-6, atol=1e-12)


# ---------------------------------------------------------------------------------------
# messages
# ---------------------------------------------------------------------------------------

T = np.array([1.0, 2.0, 3.0, 4.0])
S = np.array([1.0, 0.0, 1.0, 1.0])
X1 = np.array([0.5, -1.2, 0.3, 2.0])


@pytest.mark.parametrize("args, kwargs, message", [
    ((np.array([]), np.array([]), np.zeros((0, 1))), {}, "No (non-missing) observations"),
    ((T, S, np.array([1.0, np.inf, 0.0, 2.0])), {}, "data contains an infinite predictor"),
    ((["a", "b", "c", "d"], S, X1), {}, "time must be numeric"),
    ((T, S, np.array([1.0, np.nan, 0.0, 2.0])), {}, "X must not contain missing values"),
    ((T, np.array([1.0, np.nan, 0.0, 1.0]), X1), {}, "status must not contain missing values"),
    ((T, S, np.zeros((4, 1, 2))), {}, "X must be a vector or a matrix with one row per observation"),
    ((T, S, np.zeros((4, 0))), {}, "X must be a vector or a matrix with one row per observation"),
    ((T[:3], S, X1), {}, "time, status and X must have the same number of observations"),
    ((T, np.array([1.0, 2.0, 0.0, 1.0]), X1), {}, "status must contain only 0 (censored) and 1 (event)"),
    ((np.array([1.0, np.inf, 3.0, 4.0]), S, X1), {}, "time must be finite"),
    ((T, S, X1), {"colnames": ["a", "b"]}, "colnames must name every column of X"),
    ((T, S, X1), {"iter_max": -1}, "Invalid value for iterations"),
])
def test_fit_messages(args, kwargs, message):
    with pytest.raises(CalstatsError) as err:
        coxph_fit(*args, **kwargs)
    assert str(err.value) == message


def test_expected_messages():
    fit = coxph_fit(T, S, X1)
    with pytest.raises(CalstatsError) as err:
        fit.expected(1.0, np.zeros((2, 2)))
    assert str(err.value) == "Xnew must have 1 columns, one per coefficient"
    with pytest.raises(CalstatsError) as err:
        fit.expected([1.0, 2.0], np.zeros((3, 1)))
    assert str(err.value) == "t0 must be a single time or one time per row of Xnew"


def test_no_events_gives_na_predictions():
    fit = coxph_fit(T, np.zeros(4), X1)
    assert np.isnan(fit.coefficients).all() and not fit.converged
    pred, se = fit.expected(2.0, X1[:, None], se_fit=True)
    assert np.isnan(pred).all() and np.isnan(se).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=0, max_size=30), st.integers(0, 2**31 - 1), st.integers(1, 3))
def test_block_sums_are_the_sequential_loop(lengths, seed, width):
    """The planned block sums (one cumulative sum per length group) give the bits of the
    reference loop that adds each block's rows in order from 0.0: signed zeros, infinities,
    NaN and cancelling values included, rows gathered in any order (a NaN is a NaN: its
    sign bit depends on the operand order the compiler chose, in R's C as here)."""
    from calstats.ports.survival.coxph import _BlockSums, _segment_seq_sums

    rng = np.random.default_rng(seed)
    lens = np.array(lengths, dtype=np.int64)
    total = int(lens.sum())
    pool = np.array([0.0, -0.0, 1e300, -1e300, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-310])
    values = rng.normal(size=(total, width)) * 10.0 ** rng.integers(-20, 20, size=(total, 1))
    special = rng.random((total, width)) < 0.2
    values[special] = rng.choice(pool, size=int(special.sum()))
    rows = rng.permutation(total)
    starts = np.cumsum(lens) - lens
    with np.errstate(all="ignore"):
        want = _segment_seq_sums(values[rows], starts, lens)
        got = _BlockSums(rows, starts, lens, total).sums(values)
        got1 = _BlockSums(rows, starts, lens, total).sums(values[:, 0])
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert got[ok].tobytes() == want[ok].tobytes()
    assert np.array_equal(np.isnan(got1), np.isnan(want[:, 0]))
    assert got1[ok[:, 0]].tobytes() == want[ok[:, 0], 0].tobytes()


def test_block_sums_of_negative_zeros_are_positive_zero():
    """A block sum starts at +0.0, as the C loops' accumulators: -0.0 rows give +0.0."""
    from calstats.ports.survival.coxph import _BlockSums

    lens = np.array([1, 2, 3])
    got = _BlockSums(np.arange(6), np.cumsum(lens) - lens, lens, 6).sums(np.full(6, -0.0))
    assert not np.signbit(got).any() and (got == 0).all()


def _cox_backends():
    """The backend compared with the NumPy port: the C core; NumPy itself (a check that it
    repeats its bits) only on an install without the core."""
    from calstats.ports.survival import coxph as port

    return ["c"] if port._core is not None else ["numpy"]


@pytest.mark.parametrize("backend", _cox_backends())
def test_coxfit6_backends_give_the_same_bits(backend):
    """survival's coxfit6_iter in the C core and its NumPy port: the same coefficients,
    variance, log-likelihoods, score test, iterations and linear predictors (bits) on random
    tied data with 1-3 covariates ({-1, 0, 1} columns left unscaled), near-separation and
    out-of-iterations fits included."""
    rng = np.random.default_rng(5)
    fits = 0
    for trial in range(150):
        n = int(rng.integers(2, 150))
        time = np.round(rng.exponential(3.0, n), int(rng.integers(0, 2)))
        status = (rng.random(n) < 0.7).astype(float)
        p = int(rng.integers(1, 4))
        X = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-2, 2, size=p)
        if trial % 4 == 1:
            X[:, 0] = rng.integers(-1, 2, n)
        if trial % 7 == 3:  # a predictor that nearly separates: coefficients run away
            X[:, -1] = np.where(status == 1, -1.0, 1.0) * 30 * np.argsort(np.argsort(time)) / n
        kw = {"iter_max": int(rng.choice([1, 2, 20]))}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CalstatsWarning)
            a = coxph_fit(time, status, X, backend=backend, **kw)
            b = coxph_fit(time, status, X, backend="numpy", **kw)
        for f in ("coefficients", "vcov", "loglik", "linear_predictors", "means"):
            x, y = np.asarray(getattr(a, f)), np.asarray(getattr(b, f))
            assert np.array_equal(np.isnan(x), np.isnan(y)), (trial, f)
            assert x[~np.isnan(x)].tobytes() == y[~np.isnan(y)].tobytes(), (trial, f)
        assert (a.score == b.score or (np.isnan(a.score) and np.isnan(b.score))) and a.iter == b.iter
        assert a.flag == b.flag
        fits += 1
    assert fits == 150

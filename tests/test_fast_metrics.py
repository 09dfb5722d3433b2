"""The fast engine of the metrics (``engine="fast"`` on ece, mce, ace, top_label_ece,
brier_score, log_loss and the poster's ECEs).

Its promises, tested here: the bins and their counts are R's exactly (the bin of a score
is computed by the code R's engine uses); each bin's mean score differs from R's by rounding
only, so the metric agrees with R's engine to about 1e-15; its numbers do not depend on the
threads; R's engine stays the default and R's bits; anything the fast engine does not cover
(weights, bins that depend on each column's scores, missing logical labels, Dask) gives
R's engine's value exactly.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import case_ids, load_cases, run_call
from calstats import CalstatsError
from calstats.kernels.bins import equal_width_breaks, find_unit_bins
from calstats.numerics import _scan, fast, passes
from calstats.numerics.reductions import LD

#: the fast metrics' distance from R's engine (absolute, metrics in [0, 2])
TOL = 1e-13


@pytest.fixture
def fast_calls(monkeypatch):
    """Counts the calls of the fast engine's two passes, so that a test comparing the engines
    also proves the fast one ran (equal values alone would pass if ``engine`` were ignored)."""
    calls = {"n": 0}
    for name in ("bin_cells", "score"):
        real = getattr(fast, name)

        def counted(*args, _real=real, **kwargs):
            calls["n"] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(fast, name, counted)

    def ran(f, *args, **kwargs):
        before = calls["n"]
        out = f(*args, **kwargs)
        return out, calls["n"] > before

    return ran


def _probs(seed, n, k, sd=2.0, dtype=np.float64):
    rs = np.random.default_rng(seed)
    Z = rs.normal(0.0, sd, size=(n, k))
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    codes = rs.integers(1, k + 1, size=n)
    m = min(n, k)
    codes[:m] = np.arange(1, m + 1)
    return P.astype(dtype), codes


def _edge_values(nb):
    """Every break of B equal-width bins and its two neighbours, in [0, 1]."""
    br = equal_width_breaks(nb)
    v = np.concatenate([br, np.nextafter(br, 2.0), np.nextafter(br, -1.0), [0.0, 1.0, 5e-324]])
    return v[(v >= 0.0) & (v <= 1.0)]


# -- the one pass against R's engine's pass ---------------------------------------------


@pytest.mark.parametrize("nb", [1, 2, 3, 7, 10, 15, 49, 100, 1000])
def test_unit_bins_are_rs_at_every_break(nb):
    v = _edge_values(nb)
    rs = np.random.default_rng(nb)
    v = np.concatenate([v, rs.uniform(size=5000), rs.uniform(size=200) ** 30])
    cnt, _, sums = fast.bin_cells(v, 0, equal_width_breaks(nb))
    want = np.bincount(find_unit_bins(v, equal_width_breaks(nb)) - 1, minlength=nb)
    np.testing.assert_array_equal(cnt[0], want)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n, k", [(1, 2), (7, 3), (500, 4), (20_000, 50)])
def test_cells_are_colbin_pass_counts_and_sums(mode, dtype, n, k):
    P, codes = _probs(n + k, n, k, dtype=dtype)
    edges = equal_width_breaks(10) if mode == 0 else np.array([0.0, 0.05, 0.05, 0.3, 0.31, 0.9, 1.0])
    if mode == 0 and n > 100:
        edge = _edge_values(10)
        P[: edge.size, 0] = edge  # every break and its neighbours (rows need not sum to 1 here)
    nb = edges.size - 1
    cnt, ysum, sums = fast.bin_cells(P, mode, edges, codes=codes)
    c2, y2, a2 = np.zeros(k * nb, np.int64), np.zeros(k * nb, np.int64), np.zeros(k * nb, LD)
    _scan.colbin_pass(np.ascontiguousarray(P), mode, edges, c2, a2, codes=codes, ysum=y2)
    np.testing.assert_array_equal(cnt.ravel(), c2)
    np.testing.assert_array_equal(ysum.ravel(), y2)
    exact = a2.astype(np.float64)
    assert np.all(np.abs(sums.ravel() - exact) <= 4 * np.spacing(np.abs(exact)) + 1e-300)


def test_grouped_cells_are_each_groups_cells():
    rs = np.random.default_rng(3)
    n, groups = 30_000, 17
    v = rs.uniform(size=n) ** 3
    g = rs.integers(0, groups, size=n)
    hit = rs.integers(0, 2, size=n)
    edges = equal_width_breaks(12)
    cnt, ysum, sums = fast.bin_cells(v, 0, edges, codes=hit, group=g, ngroups=groups)
    for j in range(groups):
        cj, yj, sj = fast.bin_cells(v[g == j], 0, edges, codes=hit[g == j])
        np.testing.assert_array_equal(cnt[j], cj[0])
        np.testing.assert_array_equal(ysum[j], yj[0])
        np.testing.assert_allclose(sums[j], sj[0], rtol=1e-14)


def test_numbers_do_not_depend_on_the_threads():
    P, codes = _probs(5, 40_000, 30)
    one = fast.bin_cells(P, 0, equal_width_breaks(10), codes=codes, threads=1)
    two = fast.bin_cells(P, 0, equal_width_breaks(10), codes=codes, threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    for kind in (passes.BRIER_MATRIX, passes.LOGLIK_MATRIX):
        assert fast.score(kind, P, codes, threads=1) == fast.score(kind, P, codes, threads=2)


# -- the public metrics against R's engine -------------------------------------------------


BINNINGS = [
    {},
    {"bins": 15},
    {"bins": 1},
    {"bins": "sqrt"},
    {"bins": "sturges"},
    {"right": True},
    {"breaks": [0.0, 0.1, 0.5, 0.5, 0.9, 1.0]},
    {"breaks": [0.0, 0.2, 1.0], "right": True},
    {"strategy": "quantile"},
]


@pytest.mark.parametrize("binning", BINNINGS, ids=[str(b) for b in BINNINGS])
@pytest.mark.parametrize("type", ["classwise", "confidence"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binned_metrics_are_rs_to_rounding(binning, type, dtype, fast_calls):
    P, codes = _probs(11, 3000, 6, dtype=dtype)
    for f in (calstats.ece, calstats.mce, calstats.ace):
        r, used = fast_calls(f, P, codes, type=type, engine="r", **binning)
        assert not used
        got, used = fast_calls(f, P, codes, type=type, engine="fast", **binning)
        assert used
        assert abs(got - r) <= TOL, (f.__name__, got, r)


@pytest.mark.parametrize("binning", BINNINGS, ids=[str(b) for b in BINNINGS])
def test_binary_metrics_are_rs_to_rounding(binning, fast_calls):
    rs = np.random.default_rng(12)
    p = rs.uniform(size=5000) ** 2
    p[:5] = [0.0, 1.0, 0.1, 0.5, 0.9]
    y = (rs.uniform(size=5000) < p).astype(int)
    for f in (calstats.ece, calstats.mce, calstats.ace):
        got, used = fast_calls(f, p, y, engine="fast", **binning)
        assert used and abs(got - f(p, y, engine="r", **binning)) <= TOL


def test_poster_eces_take_the_engine(fast_calls):
    P, codes = _probs(13, 2000, 5)
    for f in (calstats.classwise_ece, calstats.confidence_ece):
        got, used = fast_calls(f, P, codes, engine="fast")
        assert used and abs(got - f(P, codes)) <= TOL
        assert f(P, codes, bins=7, engine="fast") == pytest.approx(f(P, codes, bins=7), abs=TOL)


@pytest.mark.parametrize("binning", [{}, {"bins": 15}, {"right": True}, {"breaks": [0.0, 0.3, 0.6, 1.0]},
                                     {"bins": "sqrt"}, {"strategy": "quantile"}],
                         ids=["default", "15", "right", "breaks", "sqrt", "quantile"])
@pytest.mark.parametrize("average", ["uniform", "weighted"])
def test_top_label_ece_is_rs_to_rounding(binning, average, fast_calls):
    P, codes = _probs(14, 4000, 8, sd=1.0)
    r = calstats.top_label_ece(P, codes, average=average, engine="r", **binning)
    got, used = fast_calls(calstats.top_label_ece, P, codes, average=average, engine="fast", **binning)
    assert used and abs(got - r) <= TOL
    P32 = P.astype(np.float32)
    r32 = calstats.top_label_ece(P32, codes, average=average, engine="r", **binning)
    assert abs(calstats.top_label_ece(P32, codes, average=average, engine="fast", **binning) - r32) <= TOL


def test_top_label_ece_fast_with_a_score_outside_breaks_gives_rs_message():
    P, codes = _probs(15, 300, 3, sd=0.3)
    breaks = [0.36, 0.5, 1.0]  # some top confidences lie below 0.36
    with pytest.raises(CalstatsError, match=r"outside the range of `breaks`") as r_err:
        calstats.top_label_ece(P, codes, breaks=breaks, engine="r")
    with pytest.raises(CalstatsError) as fast_err:
        calstats.top_label_ece(P, codes, breaks=breaks, engine="fast")
    assert str(fast_err.value) == str(r_err.value)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scores_are_rs_to_1e_13(weighted, dtype, fast_calls):
    P, codes = _probs(16, 5000, 12, dtype=dtype)
    w = np.random.default_rng(1).uniform(0.0, 3.0, size=5000) if weighted else None
    rs = np.random.default_rng(2)
    p = rs.uniform(size=5000).astype(dtype)
    p[:4] = [0.0, 1.0, 1e-20, 0.5]
    y = (rs.uniform(size=5000) < p).astype(int)
    for f in (calstats.brier_score, calstats.log_loss):
        for a, b in ((P, codes), (p, y), (pd.DataFrame(P), codes), (np.asfortranarray(P), codes)):
            want = f(a, b, weights=w, engine="r")
            got, used = fast_calls(f, a, b, weights=w, engine="fast")
            assert used and got == pytest.approx(want, rel=1e-13), f.__name__


def test_fast_brier_of_a_one_hot_row_is_zero():
    P = np.eye(4)[[0, 1, 2, 3, 0]]
    codes = np.array([1, 2, 3, 4, 1])
    assert calstats.brier_score(P, codes, engine="fast") == 0.0
    assert calstats.log_loss(P, codes, engine="fast") == pytest.approx(-np.log1p(-1e-15), rel=1e-15)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), k=st.integers(2, 9), bins=st.integers(1, 30),
       sd=st.floats(0.1, 8.0), type=st.sampled_from(["classwise", "confidence"]))
def test_fast_ece_within_rounding_of_rs_on_random_problems(seed, n, k, bins, sd, type):
    P, _ = _probs(seed, n, k, sd=sd)
    # a factor with all K levels: small n may leave classes out
    codes = pd.Categorical(np.random.default_rng(seed + 1).integers(1, k + 1, size=n), categories=range(1, k + 1))
    r = calstats.ece(P, codes, bins=bins, type=type, engine="r")
    assert abs(calstats.ece(P, codes, bins=bins, type=type, engine="fast") - r) <= TOL


# -- what the fast engine leaves to R's -------------------------------------------------------


def test_weighted_bins_are_rs_engine_exactly(fast_calls):
    P, codes = _probs(17, 1000, 4)
    w = np.random.default_rng(3).integers(0, 4, size=1000).astype(float)
    for f in (calstats.ece, calstats.mce, calstats.ace):
        got, used = fast_calls(f, P, codes, weights=w, engine="fast")
        assert not used and got == f(P, codes, weights=w, engine="r")
    assert (calstats.top_label_ece(P, codes, weights=w, engine="fast")
            == calstats.top_label_ece(P, codes, weights=w, engine="r"))


def test_missing_logical_label_is_rs_engine_exactly():
    p = np.array([0.1, 0.2, 0.7, 0.9, 0.95])
    y = pd.array([False, True, pd.NA, True, True], dtype="boolean")
    assert calstats.ece(p, y, engine="fast") == calstats.ece(p, y, engine="r")


def test_dask_inputs_use_rs_arithmetic():
    da = pytest.importorskip("dask.array")
    P, codes = _probs(18, 2000, 5)
    Pd, cd = da.from_array(P, chunks=(700, 5)), da.from_array(codes, chunks=700)
    assert calstats.ece(Pd, cd, engine="fast") == calstats.ece(P, codes, engine="r")
    assert calstats.brier_score(Pd, cd, engine="fast") == calstats.brier_score(P, codes, engine="r")
    assert calstats.log_loss(Pd, cd, engine="fast") == calstats.log_loss(P, codes, engine="r")
    assert calstats.top_label_ece(Pd, cd, engine="fast") == calstats.top_label_ece(P, codes, engine="r")


# -- options, messages, inputs ---------------------------------------------------------------


METRICS = ["ece", "mce", "ace", "top_label_ece", "brier_score", "log_loss", "classwise_ece", "confidence_ece"]


@pytest.mark.parametrize("fn", METRICS)
def test_engine_option_sets_the_default(fn, fast_calls):
    P, codes = _probs(19, 3000, 7)
    f = getattr(calstats, fn)
    r, fa = f(P, codes, engine="r"), f(P, codes, engine="fast")
    default, used = fast_calls(f, P, codes)
    assert default == r and not used
    with calstats.option_context(engine="fast"):
        default, used = fast_calls(f, P, codes)
        assert default == fa and used
        assert f(P, codes, engine="r") == r


@pytest.mark.parametrize("fn", METRICS)
def test_bad_engine_message(fn):
    P, codes = _probs(20, 30, 3)
    with pytest.raises(CalstatsError, match=r"^option 'engine' must be one of 'r', 'fast', not 'R'$"):
        getattr(calstats, fn)(P, codes, engine="R")


@pytest.mark.parametrize("fn", METRICS)
def test_inputs_are_not_modified(fn):
    P, codes = _probs(21, 500, 4)
    P32 = P.astype(np.float32)
    before, before32, cbefore = P.copy(), P32.copy(), codes.copy()
    getattr(calstats, fn)(P, codes, engine="fast")
    getattr(calstats, fn)(P32, codes, engine="fast")
    np.testing.assert_array_equal(P, before)
    np.testing.assert_array_equal(P32, before32)
    np.testing.assert_array_equal(codes, cbefore)


def test_checks_and_messages_are_rs_under_the_fast_engine():
    P, codes = _probs(22, 50, 3)
    bad = P.copy()
    bad[0, 0] = 1.5
    for engine in ("r", "fast"):
        with pytest.raises(CalstatsError) as err:
            calstats.ece(bad, codes, engine=engine)
        if engine == "r":
            want = str(err.value)
        assert str(err.value) == want
        with pytest.raises(CalstatsError, match="bins"):
            calstats.ece(P, codes, bins=0, engine=engine)


# -- R's fixtures ----------------------------------------------------------------------------

ECE_CASES = [c for c in load_cases("metrics") if c["id"].startswith("metrics_")]


@pytest.mark.parametrize("case", ECE_CASES, ids=case_ids(ECE_CASES))
def test_fast_engine_on_rs_fixtures(case):
    out = case["outputs"]
    with calstats.option_context(engine="fast"):
        env = run_call(case, calstats)[0]
    for name in ("v_ece", "v_mce", "v_ace"):
        if name in env:
            want = np.asarray(out[name[2:]], dtype=float)
            np.testing.assert_allclose(np.asarray(env[name], dtype=float), want, rtol=0, atol=TOL)

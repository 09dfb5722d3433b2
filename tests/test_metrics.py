"""ece, mce, ace and mmce against R (tests/fixtures/metrics.json, errors.json, quirks.json)."""

import math
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import EXACT_PLATFORM, arr, case_ids, load_cases, run_call
from calstats.evaluation import metrics
from calstats.kernels.bins import bin_stats, equal_width_breaks, find_bins
from calstats.kernels.toplabel import top_label

CASES = load_cases("metrics")
EXTENDED = EXACT_PLATFORM
OUTPUT_VARS = {"ece": "v_ece", "mce": "v_mce", "ace": "v_ace", "mmce": "v_mmce"}
METRIC_CALLS = ("ece(", "mce(", "ace(", "mmce(")


def _is_metric_case(case):
    return any(f in case["call"] for f in METRIC_CALLS) and "reliability_diagram(" not in case["call"]


@pytest.fixture(scope="module")
def results():
    return {c["id"]: run_call(c, calstats)[0] for c in CASES}


def _pairs(case, env):
    out = case["outputs"]
    for key, var in OUTPUT_VARS.items():
        if key in out:
            yield key, np.atleast_1d(np.asarray(env[var], dtype=float)), np.atleast_1d(arr(out[key]))
    if "default_args" in out:
        got = env["v_default"]
        assert list(got) == list(out["default_args"])  # names ece, mce, ace in R's order
        yield "default_args", np.array([got[k] for k in got]), arr(list(out["default_args"].values()))


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_matches_r_within_spec_tolerance(case, results):
    """r-interface.md §10: deterministic numbers within rtol 1e-13 (atol 1e-15)."""
    pairs = list(_pairs(case, results[case["id"]]))
    assert pairs
    for key, got, want in pairs:
        assert got.shape == want.shape, key
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15, err_msg=key)


@pytest.mark.skipif(not EXTENDED, reason="bit-exactness needs R's 80-bit long double accumulators")
@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_bit_identical_to_r(case, results):
    """With R's sums and means (numerics.md N1) every metric is R's double, bit for bit
    (mmce too: every fixture has n <= MMCE_EXACT_MAX_N, the R-order path)."""
    for key, got, want in _pairs(case, results[case["id"]]):
        assert np.array_equal(got, want), (key, got - want)


# -- errors and quirks of R ------------------------------------------------------------

# (every R error case is replayed in tests/test_r_conditions.py)
QUIRKS = [c for c in load_cases("quirks") if _is_metric_case(c)]


def test_fixture_selection_is_not_empty():
    assert len(QUIRKS) == 7


@pytest.mark.parametrize("case", QUIRKS, ids=case_ids(QUIRKS))
def test_quirks(case):
    out = case["outputs"]
    if "error" in out:
        with pytest.raises(calstats.CalstatsError) as err:
            run_call(case, calstats)
        assert str(err.value) == out["error"]
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # R gave no warnings in any of these
        value = run_call(case, calstats)[1]
    if out["value"] == "NA":
        assert math.isnan(value)
    else:
        assert value == out["value"]


def test_logical_na_label_skips_its_bin_but_counts_in_n():
    """Quirk Q1: the bin with the missing label has no gap; N still counts the observation."""
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    y = pd.array([False, None, False, True, True, True, False, True], dtype="boolean")
    # bin 1 (p < 0.5) has the NA: only bin 2 counts, weight 4/8, gap |0.75 - 0.75| = 0
    assert calstats.ece(p, y, bins=2) == 0.0
    stats = bin_stats(p, y, 2)
    assert list(stats.n) == [4, 4] and math.isnan(stats.gap[0])
    assert math.isnan(calstats.mmce(p, y))


def test_all_labels_missing_gives_r_results():
    """Every gap missing: R's sum(na.rm) is 0, max() is -Inf with a warning, mean() NaN."""
    p = np.array([0.2, 0.7])
    y = pd.array([None, None], dtype="boolean")
    assert calstats.ece(p, y) == 0.0
    assert math.isnan(calstats.ace(p, y))
    with pytest.warns(calstats.CalstatsWarning, match="no non-missing arguments to max; returning -Inf"):
        assert calstats.mce(p, y) == -math.inf


def test_type_is_ignored_for_vectors_and_validated_for_matrices():
    p, y = np.array([0.2, 0.9, 0.4]), np.array([0, 1, 1])
    assert calstats.ece(p, y, type=5) == calstats.ece(p, y)  # quirk Q10: never looked at
    pm = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    assert calstats.ece(pm, [2, 1, 1], type="conf") == calstats.ece(pm, [2, 1, 1], type="confidence")
    with pytest.raises(calstats.CalstatsError, match="'arg' must be NULL or a character vector"):
        calstats.mce(pm, [2, 1, 1], type=5)
    with pytest.raises(calstats.CalstatsError, match="'arg' should be one of"):
        calstats.ace(pm, [2, 1, 1], type="")


@pytest.mark.parametrize("fn", [calstats.ece, calstats.mce, calstats.ace, calstats.mmce])
def test_one_column_matrix_is_multiclass(fn):
    """Quirk Q5: a one-column matrix goes to the matrix branch and fails V-PMAT."""
    with pytest.raises(calstats.CalstatsError, match="must have at least two columns, one per class"):
        fn(np.array([[0.2], [0.7]]), [0, 1])


def test_check_order_and_messages():
    p = np.array([0.2, 0.7, 0.4])
    with pytest.raises(calstats.CalstatsError, match="^Argument `y` must not contain missing or infinite values.$"):
        calstats.ece(p, [0, np.nan, 1])
    with pytest.raises(calstats.CalstatsError, match="^Argument `p` must not contain missing values.$"):
        calstats.ace([0.1, np.nan], [0, 1], bins=0)  # p checked before bins
    with pytest.raises(calstats.CalstatsError) as err:  # R's text; the Python hint is a note
        calstats.mce(p, ["a", "b", "a"])
    assert str(err.value) == "Argument `y` must contain binary labels `0` and `1`."
    with pytest.raises(calstats.CalstatsError, match="^missing value where TRUE/FALSE needed$"):
        calstats.ece(p, [0, 1, 1], bins=2.0**31)  # quirk Q7
    pm = np.array([[0.2, 0.8], [0.6, 0.4]])
    with pytest.raises(calstats.CalstatsError, match="has 3 classes but the input has 2 columns"):
        calstats.ece(pm, [1, 3])
    with pytest.raises(calstats.CalstatsError, match="^Argument `bins` must be a single positive integer.$"):
        calstats.ece(pm, [1, 2], bins=True)  # classwise: bins checked last, inside bin_stats


@pytest.mark.parametrize("bw", [True, "0.2", [0.1, 0.2], np.nan, np.inf, -1.0, 0, None])
def test_mmce_bandwidth_checked_first(bw):
    with pytest.raises(calstats.CalstatsError, match="^Argument `bandwidth` must be a single positive number.$"):
        calstats.mmce(np.array([2.0]), "not even labels", bandwidth=bw)


def test_single_class_labels_accepted():
    """Quirk Q19: binary metrics do not require both classes."""
    p = np.array([0.9, 0.8, 0.95])
    assert calstats.ece(p, [1, 1, 1]) == pytest.approx(1 - (0.9 + 0.8 + 0.95) / 3, rel=1e-15)
    assert calstats.mmce(p, [True, True, True]) > 0


# -- §2 helpers -------------------------------------------------------------------------


def test_equal_width_breaks_and_find_bins():
    b = equal_width_breaks(10)
    assert b[3] == 3 * (1.0 / 10) == 0.30000000000000004 and b[0] == 0.0 and b[-1] == 1.0
    assert list(equal_width_breaks(1)) == [0.0, 1.0]
    v = np.array([0.0, 0.1, 0.3, 0.30000000000000004, 0.99, 1.0])
    assert list(find_bins(v, b)) == [1, 2, 3, 4, 10, 10]  # left-closed, last bin closed


def test_bin_stats_against_a_plain_loop():
    rs = np.random.default_rng(4)
    p = np.round(rs.random(300), 2)
    y = (rs.random(300) < p).astype(int)
    s = bin_stats(p, y, 7)
    breaks = equal_width_breaks(7)
    for j in range(1, 8):
        inside = [i for i in range(300) if min(max(np.searchsorted(breaks, p[i], "right"), 1), 7) == j]
        assert s.n[j - 1] == len(inside)
        if inside:
            assert s.confidence[j - 1] == pytest.approx(sum(p[inside]) / len(inside), rel=1e-14)
            assert s.accuracy[j - 1] == sum(y[inside]) / len(inside)
        else:
            assert math.isnan(s.gap[j - 1])


def test_top_label_ties_take_the_first_column():
    p = np.array([[0.4, 0.4, 0.2], [0.1, 0.45, 0.45], [1 / 3, 1 / 3, 1 / 3]])
    r, c = top_label(p, np.array([2, 2, 3]))
    assert list(r) == [0.4, 0.45, 1 / 3] and list(c) == [0, 1, 0]


# -- mmce: fast path against the direct O(n^2) formula ----------------------------------


def direct_mmce(r, c, h):
    """Reference: R's formula with the full n x n kernel (small n only)."""
    e = np.asarray(c, dtype=float) - r
    k = np.exp(-np.abs(r[:, None] - r[None, :]) / h)
    return math.sqrt(max(float(e @ k @ e) / len(r) ** 2, 0.0))


def r_order_mmce(r, c, h):
    """R's operations one by one: dgemv column by column, then a sequential dot."""
    e = (np.asarray(c, dtype=float) - r).tolist()
    n = len(e)
    v = [0.0] * n
    for j in range(n):
        for i in range(n):
            v[i] += e[j] * math.exp((-abs(r[i] - r[j])) / h)
    s = 0.0
    for i in range(n):
        s += e[i] * v[i]
    return math.sqrt(max(s / float(n) ** 2, 0.0))


def _mmce_problem(seed, n, ties):
    rs = np.random.default_rng(seed)
    p = rs.random(n)
    if ties:
        p = np.round(p, 1)  # heavy ties, exact zeros and ones included
    y = (rs.random(n) < p ** 1.3).astype(np.int64)
    return p, y


@pytest.mark.parametrize("n", [1, 2, 3, 57, 400])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("h", [0.2, 0.01, 3.0])
def test_mmce_sorted_recurrence_matches_direct_formula(n, ties, h):
    p, y = _mmce_problem(n * 7 + int(ties), n, ties)
    e = y - p
    fast = metrics._mmce_sum_sorted(p, e, h)
    direct = float(e @ np.exp(-np.abs(p[:, None] - p[None, :]) / h) @ e)
    assert fast == pytest.approx(direct, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("n", [1, 5, 60])
def test_mmce_r_order_path_is_bit_identical_to_rs_loop(n):
    p, y = _mmce_problem(n, n, ties=n == 60)
    assert calstats.mmce(p, y, bandwidth=0.3) == r_order_mmce(p, y, 0.3)


def test_mmce_large_n_switches_to_the_recurrence(monkeypatch):
    p, y = _mmce_problem(11, 3000, ties=True)
    exact = calstats.mmce(p, y)
    assert exact == pytest.approx(direct_mmce(p, y, 0.2), rel=1e-12)
    monkeypatch.setattr(metrics, "MMCE_EXACT_MAX_N", 100)
    calls = []
    orig = metrics._mmce_sum_sorted
    monkeypatch.setattr(metrics, "_mmce_sum_sorted", lambda *a: calls.append(1) or orig(*a))
    fast = calstats.mmce(p, y)
    assert calls == [1]
    assert fast == pytest.approx(exact, rel=1e-13)


def test_mmce_multiclass_uses_top_label():
    rs = np.random.default_rng(3)
    pm = rs.dirichlet([1, 1, 1], size=80)
    y = rs.integers(1, 4, size=80)
    r, c = top_label(pm, y)
    assert calstats.mmce(pm, y, bandwidth=0.1) == calstats.mmce(r, c, bandwidth=0.1)


def test_mmce_memory_stays_flat_for_large_n():
    """No n x n matrix: n = 100 000 would need 80 GB; the traced peak stays a few MB."""
    p, y = _mmce_problem(5, 100_000, ties=False)
    tracemalloc.start()
    value = calstats.mmce(p, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert 0 < value < 0.05
    assert peak < 40 * 2**20


# -- properties -------------------------------------------------------------------------

_prob = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.1, 0.3, 0.30000000000000004, 0.5, 0.7, 1.0]))
_binary = st.lists(st.tuples(_prob, st.booleans()), min_size=1, max_size=60)


def _split(pairs):
    return np.array([a for a, _ in pairs]), np.array([int(b) for _, b in pairs])


@settings(max_examples=150, deadline=None)
@given(pairs=_binary, bins=st.integers(1, 25))
def test_binary_metric_bounds_and_order(pairs, bins):
    """Values lie in [0, 1]; ace (a mean of gaps) and ece (a weighted mean) never exceed
    mce (their maximum). The weights n_j/N are rounded one by one, so their sum can exceed
    1 by a few ulps: ece <= mce is checked to 1e-15 relative."""
    p, y = _split(pairs)
    e, m, a = calstats.ece(p, y, bins), calstats.mce(p, y, bins), calstats.ace(p, y, bins)
    for v in (e, m, a):
        assert 0.0 <= v <= 1.0
    assert a <= m
    assert e <= m * (1 + 1e-15)


@settings(max_examples=100, deadline=None)
@given(pairs=_binary, bins=st.integers(1, 25), seed=st.integers(0, 2**32 - 1))
def test_binary_metrics_invariant_to_permutation(pairs, bins, seed):
    """Reordering observations changes only the order of R's long-double sums inside each
    bin (and of the mmce sums), so values agree to rounding, not necessarily bit for bit."""
    p, y = _split(pairs)
    perm = np.random.default_rng(seed).permutation(len(p))
    for fn in (calstats.ece, calstats.mce, calstats.ace):
        assert fn(p[perm], y[perm], bins) == pytest.approx(fn(p, y, bins), rel=1e-14, abs=1e-16)
    assert calstats.mmce(p[perm], y[perm]) == pytest.approx(calstats.mmce(p, y), rel=1e-12, abs=1e-15)


@st.composite
def _multiclass(draw):
    k = draw(st.integers(2, 5))
    n = draw(st.integers(1, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rs = np.random.default_rng(seed)
    p = rs.dirichlet(np.full(k, draw(st.sampled_from([0.3, 1.0, 5.0]))), size=n)
    if draw(st.booleans()):
        p = np.round(p * 4) / 4  # exact ties in the maxima, probabilities on bin edges
        p = p / p.sum(axis=1, keepdims=True)
    y = np.concatenate([np.arange(1, k + 1), rs.integers(1, k + 1, size=n)])[:n]
    if n < k:
        y = y.copy()
        y[-1] = k  # the largest code must equal the column count (V-MCY)
    return p, y, seed


@settings(max_examples=80, deadline=None)
@given(data=_multiclass(), bins=st.integers(1, 15), type=st.sampled_from(["classwise", "confidence"]))
def test_multiclass_bounds_order_and_permutation(data, bins, type):
    p, y, seed = data
    e, m, a = (fn(p, y, bins, type) for fn in (calstats.ece, calstats.mce, calstats.ace))
    for v in (e, m, a):
        assert 0.0 <= v <= 1.0
    assert a <= m * (1 + 1e-15) and e <= m * (1 + 1e-15)
    perm = np.random.default_rng(seed).permutation(len(y))
    assert calstats.ece(p[perm], y[perm], bins, type) == pytest.approx(e, rel=1e-14, abs=1e-16)


@settings(max_examples=40, deadline=None)
@given(data=_multiclass())
def test_inputs_are_not_modified(data):
    p, y, _ = data
    frame = pd.DataFrame(p.copy())
    lab = pd.Series(y.copy())
    before = (p.copy(), y.copy(), frame.copy(), lab.copy())
    for fn in (calstats.ece, calstats.mce, calstats.ace):
        fn(p, y)
        fn(frame, lab, type="confidence")
        fn(p[:, 0], (y == 1).astype(int))
    calstats.mmce(p, y)
    calstats.mmce(p[:, 1], (y == 2).astype(int))
    np.testing.assert_array_equal(p, before[0])
    np.testing.assert_array_equal(y, before[1])
    pd.testing.assert_frame_equal(frame, before[2])
    pd.testing.assert_series_equal(lab, before[3])


def test_pandas_float32_and_list_inputs():
    rs = np.random.default_rng(8)
    p = rs.random(50)
    y = (rs.random(50) < p).astype(int)
    ref = calstats.ece(p, y, bins=5)
    assert calstats.ece(pd.Series(p, index=np.arange(50)[::-1]), pd.Series(y), bins=5) == ref
    assert calstats.ece(list(p), list(y.astype(bool)), bins=5.0) == ref
    p32 = p.astype(np.float32)
    assert calstats.ece(p32, y, bins=5) == calstats.ece(p32.astype(np.float64), y, bins=5)
    pm = rs.dirichlet([1, 1, 1], size=50)
    codes = rs.integers(1, 4, size=50)
    lab = pd.Categorical.from_codes(codes - 1, categories=["a", "b", "c"])
    assert calstats.ece(pd.DataFrame(pm, columns=list("xyz")), lab) == calstats.ece(pm, codes)
    assert calstats.mce(pm, calstats.Factor(np.array(["a", "b", "c"])[codes - 1], levels=["a", "b", "c"]),
                        type="confidence") == calstats.mce(pm, codes, type="confidence")

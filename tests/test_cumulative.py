"""cumulative_differences and length_scale: MAPIE 1.6's values (tests/fixtures/
make_mapie_cumdiff.py), the tests' kernel, ties, weights, pandas, float32, the result
object and every message."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import FIXTURES
from calstats.evaluation.caltests import cal_ks_test, cal_kuiper_test
from calstats.evaluation.cumulative import CumulativeDifferences, cumulative_differences, length_scale
from calstats.kernels.cumdiff import cumdiff, weighted_cumdiff
from calstats.results._base import Result

REF = json.loads((FIXTURES / "mapie_cumdiff.json").read_text())
CASES = REF["cases"]


def _inputs(case):
    """The case's inputs as MAPIE got them (float32 scores, pandas Series)."""
    s, y = np.array(case["s"]), np.array(case["y"])
    if case.get("dtype") == "float32":
        s = s.astype(np.float32)
    if case.get("pandas"):
        s, y = pd.Series(s, index=np.arange(s.size)[::-1]), pd.Series(y)
    return s, y


def _err(fn, *args, **kw):
    with pytest.raises(calstats.CalstatsError) as e:
        fn(*args, **kw)
    return str(e.value)


# -- MAPIE's numbers ---------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_mapie_convention_is_mapie_to_the_bit(case):
    """Values, length scale and MAPIE's KS and Kuiper statistics, equal (not just close):
    ties, one distinct score, two rows, float32 (MAPIE's float32 length scale), pandas."""
    s, y = _inputs(case)
    res = cumulative_differences(s, y, convention="mapie")
    assert np.array_equal(np.asarray(res), np.array(case["cumdiff"]))
    assert res.length_scale == case["length_scale"]
    assert length_scale(s, convention="mapie") == case["length_scale"]
    assert res.ks == case["ks_statistic"]
    assert res.kuiper == case["kuiper_statistic"]
    assert res.block_end.all() and len(res) == len(case["y"])


def test_float32_length_scale_is_mapies_float32_arithmetic():
    """MAPIE sums float32 scores in float32: the reference is not the float64 value, and the
    mapie convention follows MAPIE, the calstats convention float64."""
    case = next(c for c in CASES if c.get("dtype") == "float32")
    s, y = _inputs(case)
    s64 = s.astype(np.float64)
    assert length_scale(s64, convention="mapie") != case["length_scale"]
    assert length_scale(s, convention="mapie") == case["length_scale"]
    assert length_scale(s) == length_scale(s64) == pytest.approx(case["length_scale"], rel=1e-7)
    # the path itself widens float32 to float64 in MAPIE too
    assert np.array_equal(np.asarray(cumulative_differences(s64, y, convention="mapie")), case["cumdiff"])


def test_matrix_is_mapie_on_the_top_label():
    m = REF["matrix"]
    P, y = np.array(m["p"]), np.array(m["y0"]) + 1
    res = cumulative_differences(P, y, convention="mapie")
    assert np.array_equal(np.asarray(res), m["cumdiff"])
    assert res.length_scale == m["length_scale"] == length_scale(P, convention="mapie")
    assert res.ks == m["ks_statistic"] and res.kuiper == m["kuiper_statistic"]
    # a DataFrame and a factor of the labels give the same path
    levels = np.array(["a", "b", "c", "d"])
    framed = cumulative_differences(pd.DataFrame(P), pd.Categorical(levels[y - 1], categories=levels),
                                    convention="mapie")
    assert np.array_equal(np.asarray(framed), m["cumdiff"])


def test_length_scale_values():
    for row in REF["length_scale"]:
        assert length_scale(row["s"], convention="mapie") == row["length_scale"]
        assert length_scale(row["s"]) == pytest.approx(row["length_scale"], rel=4e-16)
    assert round(length_scale([0, 0, 0.4, 0.3, 0.8]), 2) == 0.16  # MAPIE's docstring
    assert length_scale([0.0, 1.0, 1.0]) == 0.0


# -- the calstats convention: the tests' kernel --------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_calstats_convention_is_the_tests_path(case):
    """Read at the ends of the tie blocks, the path is the kernel's (the tests' path), and
    the statistics are cal_ks_test's G and cal_kuiper_test's H, bit for bit."""
    s, y = _inputs(case)
    res = cumulative_differences(s, y)
    C, sigma = cumdiff(np.asarray(s, dtype=np.float64), np.asarray(y, dtype=np.int64), "calstats")
    assert np.array_equal(np.asarray(res)[res.block_end], C)
    assert res.length_scale == sigma == length_scale(s)
    assert res.ks == cal_ks_test(s, y).statistic["G"]
    assert res.kuiper == cal_kuiper_test(s, y).statistic["H"]
    # at the block ends MAPIE's path has summed the same rows (its jitter only reorders
    # ties), so the two agree there to the size of the jitter
    ends = np.asarray(res)[res.block_end] - np.array(case["cumdiff"])[res.block_end]
    assert np.max(np.abs(ends)) < 1e-8


def test_ties_are_ordered_by_outcome():
    s, y = np.array([0.8, 0.3, 0.5, 0.5, 0.7, 0.1]), np.array([1, 0, 1, 0, 1, 0])
    res = cumulative_differences(s, y)
    assert res.scores.tolist() == [0.1, 0.3, 0.5, 0.5, 0.7, 0.8]
    assert res.outcomes.tolist() == [0, 0, 0, 1, 1, 1]
    assert res.block_end.tolist() == [True, True, False, True, True, True]
    expected = np.cumsum([-0.1, -0.3, -0.5, 0.5, 1 - 0.7, 1 - 0.8]) / 6
    assert np.allclose(np.asarray(res), expected, rtol=0, atol=1e-16)
    assert np.array_equal(res.fractions, np.arange(1, 7) / 6)
    # the row order does not matter
    rev = cumulative_differences(s[::-1], y[::-1])
    assert np.array_equal(np.asarray(rev), np.asarray(res))


def test_one_distinct_score():
    y = np.array([0, 1, 1, 0, 0, 1, 0])
    res = cumulative_differences(np.full(7, 0.3), y)
    assert res.block_end.tolist() == [False] * 6 + [True]
    assert res.outcomes.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert res[-1] == pytest.approx((3 - 7 * 0.3) / 7, abs=1e-16)
    assert res.ks == cal_ks_test(np.full(7, 0.3), y).statistic["G"]
    assert res.ks == pytest.approx(abs(3 - 2.1) / np.sqrt(7 * 0.21), rel=1e-14)
    assert res.kuiper == res.ks  # one point besides the start


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=2, max_size=60), st.randoms())
def test_invariants(rows, rnd):
    """Any row order gives the same path bit for bit; it ends at (sum y - sum s)/n; its block
    ends are the kernel's path; the first row's value is y_(1) - s_(1) over n."""
    s = np.array([k / 20 for k, _ in rows])
    y = np.array([int(b) for _, b in rows])
    if np.all((s == 0) | (s == 1)):
        return
    res = cumulative_differences(s, y)
    perm = list(range(s.size))
    rnd.shuffle(perm)
    assert np.array_equal(np.asarray(cumulative_differences(s[perm], y[perm])), np.asarray(res))
    n = s.size
    assert res[-1] == pytest.approx((y.sum() - s.sum()) / n, abs=1e-14)
    assert res[0] == (res.outcomes[0] - res.scores[0]) / n
    assert np.array_equal(np.asarray(res)[res.block_end], cumdiff(s, y, "calstats")[0])
    assert np.all(np.diff(res.scores) >= 0)


# -- weights ---------------------------------------------------------------------------------

def test_integer_weights_are_replicated_rows():
    rs = np.random.default_rng(3)
    s = np.round(rs.uniform(0.05, 0.95, 40), 1)
    y = (rs.uniform(size=40) < s).astype(int)
    w = rs.integers(1, 4, 40)
    res = cumulative_differences(s, y, weights=w)
    idx = np.repeat(np.arange(40), w)
    rep = cumulative_differences(s[idx], y[idx])
    # the weighted row's value is the replicated path at its last copy (same (score,
    # outcome) order, so positions are the cumulative weights)
    at = np.cumsum(res.weights).astype(int) - 1
    assert np.allclose(np.asarray(res), np.asarray(rep)[at], rtol=0, atol=1e-15)
    assert np.array_equal(res.fractions, np.asarray(rep.fractions)[at])
    assert res.length_scale == pytest.approx(rep.length_scale, rel=1e-15)
    assert res.ks == pytest.approx(rep.ks, rel=1e-13) and res.kuiper == pytest.approx(rep.kuiper, rel=1e-13)
    # and the weighted tests read this path
    C, sigma = weighted_cumdiff(s, y, w.astype(float))
    assert np.array_equal(np.asarray(res)[res.block_end], C) and res.length_scale == sigma
    assert res.ks == cal_ks_test(s, y, weights=w).statistic["G"]
    assert res.kuiper == cal_kuiper_test(s, y, weights=w).statistic["H"]
    assert length_scale(s, weights=w) == pytest.approx(res.length_scale, rel=1e-15)
    assert res.as_frame().columns.tolist() == ["score", "outcome", "weight", "fraction", "cumulative_difference",
                                               "block_end"]


def test_unit_weights_change_nothing():
    case = CASES[-3]  # ties_80
    s, y = _inputs(case)
    plain, ones = cumulative_differences(s, y), cumulative_differences(s, y, weights=np.ones(s.size))
    assert np.array_equal(np.asarray(plain), np.asarray(ones))
    assert plain.ks == ones.ks and plain.kuiper == ones.kuiper
    assert plain.length_scale == ones.length_scale == length_scale(s, weights=np.ones(s.size))


# -- inputs ----------------------------------------------------------------------------------

def test_pandas_float32_and_no_mutation():
    case = CASES[6]  # calibrated_250
    s, y = np.array(case["s"]), np.array(case["y"])
    s_copy, y_copy = s.copy(), y.copy()
    base = cumulative_differences(s, y)
    assert np.array_equal(s, s_copy) and np.array_equal(y, y_copy)
    series = cumulative_differences(pd.Series(s, index=np.arange(250)[::-1]), pd.Series(y.astype(bool)))
    assert np.array_equal(np.asarray(series), np.asarray(base))
    s32 = s.astype(np.float32)
    assert np.array_equal(np.asarray(cumulative_differences(s32, y)),
                          np.asarray(cumulative_differences(s32.astype(np.float64), y)))
    # type="class": a column against its indicator is the binary path of that column
    P = np.column_stack([s, 1 - s])
    cls2 = cumulative_differences(P, np.where(y == 1, 1, 2), type="class", cls=1)
    assert np.array_equal(np.asarray(cls2), np.asarray(base))


def test_mapie_jitter_leaves_the_global_stream_alone():
    np.random.seed(5)
    before = np.random.uniform(size=3)
    np.random.seed(5)
    cumulative_differences(np.array([0.2, 0.2, 0.6]), np.array([0, 1, 1]), convention="mapie")
    assert np.array_equal(np.random.uniform(size=3), before)


# -- the result object -----------------------------------------------------------------------

def test_result_behaves_like_the_array():
    s, y = np.array([0.7, 0.3, 0.6]), np.array([1, 0, 0])
    res = cumulative_differences(s, y)
    assert isinstance(res, CumulativeDifferences) and isinstance(res, Result)
    assert res.r_class == ("cumulative_differences",) and res.inherits("cumulative_differences")
    assert np.allclose(np.asarray(res), [-0.1, -0.3, -0.2], rtol=0, atol=1e-16)  # MAPIE's docstring
    assert len(res) == 3 and res[0] == res.values[0] and res[1:].tolist() == res.values[1:].tolist()
    assert list(res) == res.values.tolist()
    assert np.asarray(res, dtype=np.float32).dtype == np.float32
    assert np.max(np.abs(res)) == np.max(np.abs(res.values))  # numpy functions take it
    with pytest.raises(ValueError):
        np.asarray(res)[0] = 1.0  # a value: read-only
    copied = np.array(res, copy=True)
    copied[0] = 1.0
    assert res[0] != 1.0
    with pytest.raises(ValueError):
        res.__array__(np.float32, copy=False)
    text = res.print_text()
    assert text.endswith("\n") and str(res) == text[:-1]
    assert text.startswith("Cumulative differences (calstats convention)\nn = 3, length scale sigma = 0.2708013\n")
    assert "C: [-0.1, -0.3, -0.2]" in text
    long = cumulative_differences(np.linspace(0.1, 0.9, 9), np.arange(9) % 2)
    assert ", ..., " in long.print_text()
    frame = res.as_frame()
    assert frame.columns.tolist() == ["score", "outcome", "fraction", "cumulative_difference", "block_end"]
    assert frame.index.name == "k" and frame.index.tolist() == [1, 2, 3]
    assert frame["score"].tolist() == [0.3, 0.6, 0.7]
    html = long._repr_html_()
    assert html.startswith("<h4>Cumulative differences") and "<table" in html
    rebuilt = res._replace(convention="mapie")
    assert rebuilt.convention == "mapie" and np.array_equal(np.asarray(rebuilt), np.asarray(res))
    with pytest.raises(TypeError, match="ks"):
        CumulativeDifferences(values=[0.0], scores=[0.5], outcomes=[0.0], weights=None, fractions=[1.0],
                              block_end=[True], length_scale=0.5, kuiper=0.0, n=1, type="confidence",
                              convention="calstats")


def test_plot():
    plt = pytest.importorskip("matplotlib.pyplot")
    s, y = np.array([0.8, 0.3, 0.5, 0.5, 0.7, 0.1]), np.array([1, 0, 1, 0, 1, 0])
    res = cumulative_differences(s, y)
    fig = res.plot()
    ax = fig.axes[0]
    path, bar = ax.lines[1], ax.lines[2]
    # the path through (0, 0) and the tie-block ends; the bar from -sigma to +sigma at 0
    assert np.array_equal(path.get_xdata(), np.concatenate([[0.0], res.fractions[res.block_end]]))
    assert np.array_equal(path.get_ydata(), np.concatenate([[0.0], np.asarray(res)[res.block_end]]))
    assert list(bar.get_xdata()) == [0.0, 0.0]
    assert list(bar.get_ydata()) == [-res.length_scale, res.length_scale]
    assert ax.get_xlim() == (0.0, 1.0)
    _, own = plt.subplots()
    assert res.plot(ax=own) is own.figure
    plt.close("all")


def test_plot_without_matplotlib(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    res = cumulative_differences(np.array([0.2, 0.6]), np.array([0, 1]))
    with pytest.raises(ImportError, match=r"CumulativeDifferences.plot\(\) needs matplotlib"):
        res.plot()


# -- messages ----------------------------------------------------------------------------

def test_errors():
    s, y = np.array([0.2, 0.4, 0.7]), np.array([0, 1, 1])
    assert _err(cumulative_differences, s, y, convention="mapie", weights=[1, 2, 1]) == \
        'Case weights are not supported with convention = "mapie" (MAPIE has none).'
    assert _err(length_scale, s, convention="mapie", weights=[1, 2, 1]) == \
        'Case weights are not supported with convention = "mapie" (MAPIE has none).'
    assert _err(cumulative_differences, s, y, convention="bogus") == "Argument `convention` should be one of “calstats”, “mapie”, not “bogus”."
    assert _err(length_scale, s, convention="bogus") == "Argument `convention` should be one of “calstats”, “mapie”, not “bogus”."
    assert _err(cumulative_differences, np.array([0.2]), [0]) == "Argument `p` must contain at least two observations."
    assert _err(cumulative_differences, np.array([0.0, 1.0, 1.0]), [0, 1, 1]) == \
        "All scores are 0 or 1: the scale sigma is zero and the test is undefined."
    assert _err(cumulative_differences, s, y, weights=[1, 2]) == \
        "Argument `weights` must have one value per observation (3), not 2."
    assert _err(length_scale, np.array([0.2, 1.2])) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(cumulative_differences, np.array([0.2, 0.4]), [0, 2]) == \
        "Argument `y` must contain only binary labels `0` and `1`."
    P = np.array([[0.7, 0.3], [0.2, 0.8], [0.4, 0.6]])
    assert _err(cumulative_differences, P, [1, 2, 1], type="class", cls=3) == \
        "Argument `cls` must be one of the levels of `y`."
    assert _err(length_scale, P * 0.9) == "Each row of `p` must sum to `1`."


def test_dask_is_refused_in_one_line():
    da = pytest.importorskip("dask.array")
    s, y = np.array([0.2, 0.4, 0.7, 0.9]), np.array([0, 1, 1, 1])
    sd, yd = da.from_array(s, chunks=2), da.from_array(y, chunks=2)
    for call, text in [(lambda: cumulative_differences(sd, yd), "returns one value per row"),
                       (lambda: length_scale(sd), "length_scale is not available for Dask inputs")]:
        with pytest.raises(calstats.CalstatsError, match=text) as err:
            call()
        assert "\n" not in str(err.value)

"""Binning choices of the binned metrics and diagrams (strategy, breaks, right, rule names)
and the binomial intervals on the reliability diagram's bins.

References: scikit-learn's ``calibration_curve`` (``sklearn_bins.json``, written by
``make_sklearn_bins.py`` in the peers' environment) and R's ``binom.test``,
``Hmisc::binconf`` and ``qbeta`` (``binom_intervals.json``, written by
``tools/r-reference/make_binom.R``).
"""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs
from _fixtures import FIXTURES
from calstats import CalstatsError
from calstats.kernels.binom import binom_interval
from calstats.kernels.bins import rule_bins

SKLEARN = json.loads((FIXTURES / "sklearn_bins.json").read_text())["cases"]
BINOM = json.loads((FIXTURES / "binom_intervals.json").read_text())["cases"]
METHODS = {"clopper-pearson": "clopper_pearson", "wilson": "wilson", "jeffreys": "jeffreys"}


def _problem(n=400, seed=1):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p ** 1.3).astype(np.int64)


# --------------------------------------------------------------------------------------
# scikit-learn's calibration_curve: right-closed bins, uniform and quantile


@pytest.mark.parametrize("case", SKLEARN, ids=[c["id"] for c in SKLEARN])
def test_right_closed_bins_are_sklearns(case):
    p, y = np.array(case["p"]), np.array(case["y"])
    f = cs.reliability_diagram(p, y, bins=case["bins"], strategy=case["strategy"], right=True).as_frame()
    assert len(f) == len(case["prob_true"])
    np.testing.assert_allclose(f["observed"], case["prob_true"], rtol=1e-13, atol=0)
    np.testing.assert_allclose(f["mean_predicted"], case["prob_pred"], rtol=1e-13, atol=0)


def test_edge_scores_move_with_the_convention():
    # 0, 0.1, 0.3, 1 sit on edges of ten equal-width bins: left-closed (R's probcal) puts 0.1
    # in [0.1, 0.2), right-closed (scikit-learn) in (0, 0.1]; 0 and 1 stay in the end bins
    p = np.array([0.0, 0.1, 0.3, 1.0])
    y = np.array([1, 0, 1, 1])
    left = cs.reliability_diagram(p, y).as_frame()
    right = cs.reliability_diagram(p, y, right=True).as_frame()
    # 0.3 is below the edge 3 * (1/10) = 0.30000000000000004 (R's seq): bin 3 either way
    assert left["bin"].tolist() == [1, 2, 3, 10]
    assert right["bin"].tolist() == [1, 3, 10]
    assert right["n"].tolist() == [2, 1, 1]
    assert cs.ece(p, y) == pytest.approx(0.45, rel=1e-15)
    assert cs.ece(p, y, right=True) == pytest.approx(0.4, rel=1e-15)
    # a constant score: one bin either way, with quantile bins the single bin [0.5, 0.5]
    c = np.full(6, 0.5)
    yc = np.array([0, 1, 1, 0, 1, 1])
    assert cs.reliability_diagram(c, yc).as_frame()["bin"].tolist() == [6]
    assert cs.reliability_diagram(c, yc, right=True).as_frame()["bin"].tolist() == [5]
    q = cs.reliability_diagram(c, yc, strategy="quantile").as_frame()
    assert q[["lower_edge", "upper_edge", "n"]].values.tolist() == [[0.5, 0.5, 6]]
    assert cs.ece(c, yc, strategy="quantile") == pytest.approx(abs(4 / 6 - 0.5), rel=1e-15)


def test_quantile_bins_merge_tied_edges_and_report_them():
    p = np.array([0.0, 0.0, 0.0, 0.2, 0.5, 0.9, 1.0, 1.0, 1.0])
    y = np.array([0, 0, 1, 0, 1, 1, 1, 1, 0])
    # quantiles 0, 0, 0.5, 1, 1: the tied inner edges merge, the closed end bin [1, 1] stays
    np.testing.assert_array_equal(cs.bin_edges(p, 4, strategy="quantile"), [0.0, 0.5, 1.0, 1.0])
    np.testing.assert_array_equal(cs.bin_edges(p, 4, strategy="quantile", right=True), [0.0, 0.0, 0.5, 1.0])
    f = cs.reliability_diagram(p, y, bins=4, strategy="quantile").as_frame()
    assert f[["lower_edge", "upper_edge"]].values.tolist() == [[0.0, 0.5], [0.5, 1.0], [1.0, 1.0]]
    assert f["n"].tolist() == [4, 2, 3]
    # the metric is the one of the reported edges
    edges = cs.bin_edges(p, 4, strategy="quantile")
    assert cs.ece(p, y, 4, strategy="quantile") == cs.ece(p, y, breaks=edges)


def test_quantile_edges_are_r_type7_quantiles():
    p, y = _problem()
    probs = np.arange(11) * 0.1
    np.testing.assert_allclose(cs.bin_edges(p, strategy="quantile"), np.quantile(p, probs), rtol=1e-15)
    counts = cs.reliability_diagram(p, y, strategy="quantile").as_frame()["n"]
    assert counts.tolist() == [40] * 10


def test_rule_names():
    assert [rule_bins("sqrt", n) for n in (1, 99, 100, 101)] == [1, 10, 10, 11]
    assert [rule_bins("sturges", n) for n in (1, 2, 100, 128, 129)] == [1, 2, 8, 8, 9]  # R nclass.Sturges
    assert [rule_bins("cube_root", n) for n in (1, 27, 28, 1000, 1001)] == [1, 3, 4, 10, 11]
    p, y = _problem(n=400)
    assert cs.ece(p, y, bins="sqrt") == cs.ece(p, y, bins=20)
    assert cs.ece(p, y, bins="st") == cs.ece(p, y, bins=10)  # partial matching, as R's match.arg
    assert cs.ace(p, y, bins="cube_root", strategy="quantile") == cs.ace(p, y, bins=8, strategy="quantile")


def test_breaks_replace_bins():
    p, y = _problem()
    assert cs.ece(p, y, breaks=np.arange(11) / 10) == pytest.approx(cs.ece(p, y), abs=1e-15)
    f = cs.reliability_diagram(p, y, breaks=[0, 0.25, 0.5, 1]).as_frame()
    assert f["upper_edge"].tolist() == [0.25, 0.5, 1.0]
    assert cs.mce(p, y, breaks=[0, 1]) == cs.ece(p, y, breaks=[0, 1])


def test_multiclass_and_top_label_binning():
    rng = np.random.default_rng(4)
    P = rng.dirichlet([1, 1, 1], size=300)
    Y = rng.integers(1, 4, size=300)
    cw = np.mean([cs.ece(P[:, j], (Y == j + 1).astype(int), strategy="quantile") for j in range(3)])
    assert cs.ece(P, Y, strategy="quantile") == pytest.approx(cw, rel=1e-15)
    assert cs.classwise_ece(P, Y, strategy="quantile") == cs.ece(P, Y, strategy="quantile")
    assert cs.confidence_ece(P, Y, right=True) == cs.ece(P, Y, type="confidence", right=True)
    assert cs.top_label_ece(P, Y, breaks=[1 / 3, 0.5, 0.75, 1]) != cs.top_label_ece(P, Y)
    d = cs.reliability_diagram(P, Y, strategy="quantile", interval="wilson")
    assert set(d.as_frame()["class_label"].astype(str)) == {"1", "2", "3"}


def test_pandas_and_float32_inputs():
    p, y = _problem()
    ref = cs.ece(p, y, strategy="quantile", right=True)
    assert cs.ece(pd.Series(p), pd.Series(y), strategy="quantile", right=True) == ref
    p32 = p.astype(np.float32)
    assert cs.ece(p32, y, strategy="quantile") == cs.ece(p32.astype(np.float64), y, strategy="quantile")


def test_inputs_are_not_modified():
    p, y = _problem()
    p0, y0 = p.copy(), y.copy()
    breaks = np.array([0.0, 0.5, 1.0])
    cs.reliability_diagram(p, y, breaks=breaks, interval="jeffreys", weights=np.ones(p.size))
    np.testing.assert_array_equal(p, p0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(breaks, [0.0, 0.5, 1.0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=2, max_size=60), st.integers(1, 12), st.booleans())
def test_quantile_ece_is_the_ece_of_its_edges(ticks, bins, right):
    p = np.array(ticks, dtype=np.float64) / 20.0  # many ties, scores on edges
    y = (np.arange(p.size) % 3 == 0).astype(np.int64)
    edges = cs.bin_edges(p, bins, strategy="quantile", right=right)
    assert cs.ece(p, y, bins, strategy="quantile", right=right) == cs.ece(p, y, breaks=edges, right=right)
    f = cs.reliability_diagram(p, y, bins, strategy="quantile", right=right).as_frame()
    assert f["n"].sum() == p.size
    assert np.all(f["lower_edge"].to_numpy() <= f["mean_predicted"].to_numpy() + 1e-15)
    assert np.all(f["mean_predicted"].to_numpy() <= f["upper_edge"].to_numpy() + 1e-15)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=50), st.integers(1, 15))
def test_conventions_agree_off_the_edges(values, bins):
    p = np.array(values)
    y = (p > 0.5).astype(np.int64)
    inner = np.arange(1, bins) * (1.0 / bins)
    if np.isin(p, inner).any():
        return
    assert cs.ece(p, y, bins) == cs.ece(p, y, bins, right=True)


# --------------------------------------------------------------------------------------
# intervals on the bins


@pytest.mark.parametrize("method", list(METHODS))
def test_binomial_intervals_are_rs(method):
    worst = 0.0
    for c in BINOM:
        lo, hi = binom_interval(c["x"], c["n"], method, c["level"])
        want = np.array(c[METHODS[method]], dtype=np.float64)
        got = np.array([lo, hi], dtype=np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
        worst = max(worst, float(np.max(np.abs(got - want))))
    assert worst < 1e-14


def test_diagram_intervals_come_from_the_bin_counts():
    p, y = _problem()
    for method in METHODS:
        f = cs.reliability_diagram(p, y, interval=method, level=0.9).as_frame()
        x = np.rint(f["observed"] * f["n"])
        lo, hi = binom_interval(x, f["n"], method, 0.9)
        np.testing.assert_array_equal(f["lower"], lo)
        np.testing.assert_array_equal(f["upper"], hi)
    f = cs.reliability_diagram(p, y).as_frame()
    assert list(f.columns) == ["bin", "lower_edge", "upper_edge", "n", "mean_predicted", "observed", "lower",
                               "upper"]
    assert f["lower"].isna().all()


def test_weighted_intervals_use_the_effective_size():
    p, y = _problem()
    plain = cs.reliability_diagram(p, y, interval="wilson").as_frame()
    scaled = cs.reliability_diagram(p, y, interval="wilson", weights=np.full(p.size, 3.0)).as_frame()
    # equal weights: n_eff is the count, the interval is the unweighted one
    np.testing.assert_allclose(scaled["n_eff"], plain["n"], rtol=1e-14)
    np.testing.assert_allclose(scaled[["lower", "upper"]], plain[["lower", "upper"]], rtol=1e-12)
    w = np.random.default_rng(2).integers(1, 5, size=p.size).astype(float)
    f = cs.reliability_diagram(p, y, interval="clopper-pearson", weights=w).as_frame()
    d = cs.reliability_diagram(p, y, weights=w)
    bins = np.clip(np.floor(p * 10).astype(int), 0, 9)
    for _, row in f.iterrows():
        wb = w[bins == row["bin"] - 1]
        assert row["n_eff"] == pytest.approx(wb.sum() ** 2 / (wb ** 2).sum(), rel=1e-12)
    assert d.bounds is None and f["n"].sum() == pytest.approx(w.sum())


def test_interval_printed_and_drawn():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    p, y = _problem()
    d = cs.reliability_diagram(p, y, strategy="quantile", interval="jeffreys")
    assert "bins: quantile, left-closed [a, b)" in str(d)
    assert "intervals: jeffreys, 95%" in str(d)
    fig = d.plot()
    assert len(fig.axes[0].collections) >= 2  # the points and the error bars


# --------------------------------------------------------------------------------------
# messages


@pytest.mark.parametrize("kwargs, message", [
    (dict(breaks=[0.5]), "Argument `breaks` must be at least two finite numbers in non-decreasing order."),
    (dict(breaks=[0, 0.5, 0.4, 1]), "Argument `breaks` must be at least two finite numbers in non-decreasing order."),
    (dict(breaks="abc"), "Argument `breaks` must be at least two finite numbers in non-decreasing order."),
    (dict(breaks=[0.2, 0.5]), "score(s) outside the range of `breaks` [0.2, 0.5]"),
    (dict(bins="rice"), "Argument `bins` must be a single positive integer."),
    (dict(strategy="equal"), "Argument `strategy` should be one of “uniform”, “quantile”, not “equal”."),
    (dict(right="yes"), "Argument `right` must be `True` or `False`."),
    (dict(strategy="quantile", weights=np.ones(400)),
     'Case weights are not supported with strategy = "quantile": weighted quantile breaks'),
])
def test_binning_messages(kwargs, message):
    p, y = _problem()
    with pytest.raises(CalstatsError) as err:
        cs.ece(p, y, **kwargs)
    assert message in str(err.value)


def test_interval_messages():
    p, y = _problem()
    with pytest.raises(CalstatsError, match="should be one of"):
        cs.reliability_diagram(p, y, interval="agresti")
    with pytest.raises(CalstatsError, match=r"Argument `level` must be a single number in `\(0, 1\)`."):
        cs.reliability_diagram(p, y, interval="wilson", level=95)


def test_mapie_convention_refuses_binning_choices():
    rng = np.random.default_rng(4)
    P = rng.dirichlet([1, 1, 1], size=60)
    Y = rng.integers(1, 4, size=60)
    with pytest.raises(CalstatsError, match=r"Binning choices \(strategy, breaks, right\) are not available "
                                            r'with convention = "mapie"'):
        cs.top_label_ece(P, Y, convention="mapie", strategy="quantile")


def test_one_class_and_one_bin():
    p, _y = _problem()
    y = np.zeros(p.size, dtype=np.int64)
    f = cs.reliability_diagram(p, y, bins=1, strategy="quantile", interval="clopper-pearson").as_frame()
    assert f[["lower_edge", "upper_edge", "n", "observed", "lower"]].values.tolist() == \
        [[p.min(), p.max(), p.size, 0.0, 0.0]]
    # binom.test(0, n): the upper bound is 1 - (alpha/2)^(1/n)
    assert f["upper"].iloc[0] == pytest.approx(1 - 0.025 ** (1 / p.size), rel=1e-12)
    assert cs.ece(p, y, 1, strategy="quantile") == pytest.approx(p.mean(), rel=1e-14)

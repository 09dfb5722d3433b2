"""Binning choices on Dask inputs: fixed edges (equal-width, explicit breaks, right-closed,
a rule's count) bin block by block, quantile edges come from the exact distributed sort;
every number equals the in-memory one."""

import numpy as np
import pandas as pd
import pytest

import calstats as cs
from _dask import miscalibrated_problem
from calstats import CalstatsError

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
S = pytest.importorskip("calstats.dask._sorted")

CHOICES = [dict(strategy="quantile"), dict(bins="sqrt"), dict(right=True), dict(breaks=[0, 0.2, 0.7, 1]),
           dict(strategy="quantile", bins="sturges", right=True), dict(bins=7, strategy="quantile")]


@pytest.fixture
def small_ranges(monkeypatch):
    # many score ranges, so that the order statistics cross the sort's range boundaries
    monkeypatch.setattr(S, "RANGE_ROWS", 256)


def _binary(n=3000, seed=3):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 3)  # ties
    return p, (rng.uniform(size=n) < p).astype(np.int64)


@pytest.mark.parametrize("kwargs", CHOICES, ids=[str(c) for c in CHOICES])
def test_binary_metrics_equal_in_memory(kwargs, small_ranges):
    p, y = _binary()
    dp, dy = da.from_array(p, chunks=700), da.from_array(y, chunks=700)
    for metric in (cs.ece, cs.mce, cs.ace):
        assert metric(dp, dy, **kwargs) == metric(p, y, **kwargs)
    a = cs.reliability_diagram(p, y, interval="wilson", **kwargs).as_frame()
    b = cs.reliability_diagram(dp, dy, interval="wilson", **kwargs).as_frame()
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-15)


@pytest.mark.parametrize("type", ["classwise", "confidence"])
def test_matrix_quantile_bins_equal_in_memory(type, small_ranges):
    P, y = miscalibrated_problem(2000, k=3, seed=5)
    dP, dy = da.from_array(P, chunks=(450, 3)), da.from_array(y, chunks=450)
    assert cs.ece(dP, dy, type=type, strategy="quantile") == cs.ece(P, y, type=type, strategy="quantile")
    assert cs.mce(dP, dy, type=type, bins="cube_root", right=True) == cs.mce(P, y, type=type, bins="cube_root",
                                                                            right=True)


def test_dataframe_input_and_top_label(small_ranges):
    p, y = _binary()
    frame = dd.from_pandas(pd.DataFrame({"p": p, "y": y}), npartitions=4)
    assert cs.ece(frame["p"], frame["y"], strategy="quantile") == cs.ece(p, y, strategy="quantile")
    P, yy = miscalibrated_problem(1500, k=3, seed=2)
    dP, dy = da.from_array(P, chunks=(400, 3)), da.from_array(yy, chunks=400)
    for kw in (dict(right=True), dict(breaks=[0.3, 0.5, 0.8, 1.0])):
        assert cs.top_label_ece(dP, dy, **kw) == cs.top_label_ece(P, yy, **kw)
    with pytest.raises(CalstatsError, match="takes bins with fixed edges"):
        cs.top_label_ece(dP, dy, strategy="quantile")


def test_scores_outside_the_breaks_on_dask():
    p, y = _binary()
    with pytest.raises(CalstatsError, match="outside the range of `breaks`"):
        cs.ece(da.from_array(p, chunks=700), da.from_array(y, chunks=700), breaks=[0.1, 1.0])

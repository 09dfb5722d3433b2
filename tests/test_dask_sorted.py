"""The Kolmogorov-Smirnov and Kuiper calibration tests on Dask inputs (issue 16): a
distributed sort whose path is the in-memory one bit for bit, whatever the chunking, the
number of score ranges and the ties (calstats/dask/_sorted.py)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs
from _dask import local_client, miscalibrated_problem

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
S = pytest.importorskip("calstats.dask._sorted")

TESTS = (cs.cal_ks_test, cs.cal_kuiper_test)


@pytest.fixture(scope="module")
def client():
    yield from local_client(processes=False)


@pytest.fixture
def ranges(monkeypatch):
    """Force small score ranges (and walk windows); records how many ranges each call cut."""
    seen = []
    cut = S._splitters

    def spy(scanned, target):
        out = cut(scanned, target)
        seen.append(out.size + 1)
        return out

    monkeypatch.setattr(S, "_splitters", spy)

    def set_rows(rows):
        monkeypatch.setattr(S, "RANGE_ROWS", rows)
        seen.clear()
        return seen

    return set_rows


def _problem(n=3000, k=4, seed=0):
    return miscalibrated_problem(n, k, seed)


def _binary(n=3000, seed=1, decimals=None):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**1.3).astype(np.int64)
    if decimals is not None:
        p = np.round(p, decimals)
    return p, y


def _chunked(x, sizes):
    """A Dask array cut at the given row counts (zeros give empty blocks)."""
    assert sum(sizes) == x.shape[0]
    edges = np.concatenate([[0], np.cumsum(sizes)])
    return da.concatenate([da.from_array(x[a:b], chunks=(max(b - a, 1),) + x.shape[1:])
                           for a, b in zip(edges[:-1], edges[1:])])


UNEVEN = [1, 999, 0, 1200, 7, 0, 793]


def _same(a, b):
    """The Dask result is the in-memory HTest: same fields, and numbers equal bit for bit
    (the module promises that; the issue asks 1e-12 relative)."""
    assert (a.method, a.alternative, a.data_name, a.parameter, a.n, a.type, a.convention) == \
        (b.method, b.alternative, b.data_name, b.parameter, b.n, b.type, b.convention)
    assert type(b.parameter["n"]) is int
    assert a.statistic.keys() == b.statistic.keys() and a.estimate.keys() == b.estimate.keys()
    for d1, d2 in ((a.statistic, b.statistic), (a.estimate, b.estimate)):
        for key in d1:
            np.testing.assert_allclose(d2[key], d1[key], rtol=1e-12, atol=0)
            assert d2[key] == d1[key] or (np.isnan(d1[key]) and np.isnan(d2[key])), key
    assert a.p_value == b.p_value or (np.isnan(a.p_value) and np.isnan(b.p_value))
    assert str(a) == str(b)


def _both(p, y, pd_, yd, **kw):
    for test in TESTS:
        _same(test(p, y, **kw), test(pd_, yd, **kw))


def test_binary_vector_uneven_and_empty_chunks():
    p, y = _binary()
    p[:3] = [-0.0, 0.0, 1.0]  # -0.0 ties with 0.0, as in memory
    _both(p, y, _chunked(p, UNEVEN), _chunked(y, UNEVEN))


@pytest.mark.parametrize("rows", [40, 700])
def test_many_ranges_and_heavy_ties(ranges, rows):
    seen = ranges(rows)
    for decimals in (None, 2, 1):
        p, y = _binary(n=3000, seed=2, decimals=decimals)
        _both(p, y, _chunked(p, UNEVEN), _chunked(y, UNEVEN))
    assert min(seen) > 1 and max(seen) > (20 if rows == 40 else 3)


def test_matrix_confidence_and_class_with_integer_codes(ranges):
    P, y = _problem()
    Pd, yd = _chunked(P, UNEVEN), _chunked(y, UNEVEN)
    for kw in ({}, {"type": "class", "cls": 2}, {"type": "class", "cls": "4"}, {"type": "conf"}):
        _both(P, y, Pd, yd, **kw)
    seen = ranges(200)
    _both(P, y, Pd, yd)
    _both(P, y, Pd, yd, type="class", cls=1)
    assert min(seen) > 5


def test_one_class_chunks_on_a_distributed_cluster(client, ranges):
    seen = ranges(300)
    P, y = _problem(n=2400, k=3, seed=3)
    order = np.argsort(y, kind="stable")  # each block holds one class only
    P, y = P[order], y[order]
    sizes = np.bincount(y)[1:].tolist()
    Pd, yd = _chunked(P, sizes), _chunked(y, sizes)
    _both(P, y, Pd, yd)
    _both(P, y, Pd, yd, type="class", cls=3)
    p, yb = np.round(P[:, 0], 2), (y == 1).astype(np.int64)  # binary, ties, one-class blocks
    _both(p, yb, _chunked(p, sizes), _chunked(yb, sizes))
    assert min(seen) > 1


def test_dataframe_with_categorical_labels_and_an_empty_partition(client, ranges):
    seen = ranges(250)
    P, y = _problem(n=2000, k=3, seed=5)
    levels = ["cat", "dog", "emu"]
    df = pd.DataFrame(np.round(P, 3), columns=levels)
    df[levels] = df[levels].div(df[levels].sum(axis=1), axis=0)
    df["label"] = pd.Categorical(np.array(levels)[y - 1], categories=levels)
    parts = [df.iloc[:700], df.iloc[:0], df.iloc[700:701], df.iloc[701:]]
    ddf = dd.from_delayed([dask.delayed(x) for x in parts], meta=df.iloc[:0])
    _both(df[levels], df["label"], ddf[levels], ddf["label"])
    _both(df[levels], df["label"], ddf[levels], ddf["label"], type="class", cls="dog")
    # a binary Series of scores with a Dask Series of 0/1 labels
    s, lab = df["cat"], (df["label"] == "cat").astype(np.int64)
    _both(s, lab, ddf["cat"], (ddf["label"] == "cat").astype(np.int64))
    assert min(seen) > 1


def test_mixed_inputs_and_missing_logical_labels():
    p, y = _binary(n=1500, seed=6)
    want = [t(p, y) for t in TESTS]
    for got in ([t(da.from_array(p, chunks=400), y) for t in TESTS],
                [t(p, da.from_array(y, chunks=333)) for t in TESTS]):
        for a, b in zip(want, got):
            _same(a, b)
    labels = np.array([bool(v) for v in y], dtype=object)
    labels[[10, 700]] = None  # R's logical NA passes V-BY (quirk Q1): a NaN path
    _both(p, labels, da.from_array(p, chunks=400), da.from_array(labels, chunks=400))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 200), min_size=1, max_size=6), st.integers(2, 400), st.integers(0, 3),
       st.integers(0, 10**6))
def test_chunking_and_ranges_never_change_the_result(cuts, rows, decimals, seed):
    p, y = _binary(n=sum(cuts) + 2, seed=seed, decimals=decimals or None)
    sizes = cuts[:-1] + [cuts[-1] + 2]
    old = S.RANGE_ROWS
    S.RANGE_ROWS = rows
    try:
        with dask.config.set(scheduler="synchronous"):
            for test in TESTS:
                _same(test(p, y), test(_chunked(p, sizes), _chunked(y, sizes)))
    finally:
        S.RANGE_ROWS = old


def _message(fn):
    with pytest.raises(cs.CalstatsError) as err:
        fn()
    assert "\n" not in str(err.value)
    return str(err.value)


@pytest.mark.parametrize("test", TESTS, ids=["ks", "kuiper"])
def test_errors(test):
    p, y = _binary(n=600, seed=7)
    pd_, yd = da.from_array(p, chunks=200), da.from_array(y, chunks=200)
    assert 'convention = "mapie" is not available for Dask inputs' in _message(
        lambda: test(pd_, yd, convention="mapie"))
    assert "Case weights are not supported with Dask inputs" in _message(
        lambda: test(pd_, yd, weights=np.ones(600)))
    one = (p[:1], y[:1])
    assert _message(lambda: test(da.from_array(one[0]), da.from_array(one[1]))) == _message(lambda: test(*one)) \
        == "Argument `p` must contain at least two observations."
    two = (np.array([0.0, 1.0, 1.0]), np.array([0, 1, 0]))
    assert _message(lambda: test(*(da.from_array(x, chunks=2) for x in two))) == _message(lambda: test(*two))
    assert _message(lambda: test(pd_, yd, type="x")) == _message(lambda: test(p, y, type="x"))
    P, codes = _problem(n=600, k=3, seed=8)
    Pd, cd = _chunked(P, [0, 300, 300]), _chunked(codes, [0, 300, 300])
    assert _message(lambda: test(Pd, cd, type="class", cls=9)) == _message(lambda: test(P, codes, type="class", cls=9))
    bad = P.copy()
    bad[450, 0] = 1.5  # in the last block only
    assert _message(lambda: test(_chunked(bad, [300, 300]), cd)) == _message(lambda: test(bad, codes))
    assert _message(lambda: test(da.zeros(0, chunks=1), da.zeros(0, dtype=int, chunks=1))) == \
        _message(lambda: test(np.zeros(0), np.zeros(0, dtype=int)))

"""Metrics, the reliability diagram, Brier, log-loss, Spiegelhalter and SKCE_ul on Dask
inputs equal their in-memory results (issue 16), whatever the chunking."""

import subprocess
import sys

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

RTOL = 1e-12


@pytest.fixture(scope="module")
def client():
    yield from local_client(processes=True)


def _problem(n=4000, k=4, seed=0):
    return miscalibrated_problem(n, k, seed)


def _chunked(P, y, sizes):
    """Dask arrays cut at the given block sizes (zeros allowed: empty blocks)."""
    assert sum(sizes) == P.shape[0]
    edges = np.concatenate([[0], np.cumsum(sizes)])
    Pd = da.concatenate([da.from_array(P[a:b], chunks=(max(b - a, 1), P.shape[1]) if P.ndim == 2 else max(b - a, 1))
                         for a, b in zip(edges[:-1], edges[1:])])
    yd = da.concatenate([da.from_array(y[a:b], chunks=max(b - a, 1)) for a, b in zip(edges[:-1], edges[1:])])
    return Pd, yd


UNEVEN = [1, 999, 0, 1500, 7, 0, 1493]


def _close(a, b):
    np.testing.assert_allclose(b, a, rtol=RTOL, atol=0)


MATRIX_CASES = [
    ("ece classwise", lambda p, y: cs.ece(p, y, bins=10)),
    ("ece confidence", lambda p, y: cs.ece(p, y, bins=15, type="confidence")),
    ("mce classwise", lambda p, y: cs.mce(p, y)),
    ("mce confidence", lambda p, y: cs.mce(p, y, type="confidence")),
    ("ace classwise", lambda p, y: cs.ace(p, y, bins=7)),
    ("ace confidence", lambda p, y: cs.ace(p, y, type="confidence")),
    ("confidence_ece", lambda p, y: cs.confidence_ece(p, y)),
    ("classwise_ece", lambda p, y: cs.classwise_ece(p, y)),
    ("top_label_ece uniform", lambda p, y: cs.top_label_ece(p, y)),
    ("top_label_ece weighted", lambda p, y: cs.top_label_ece(p, y, average="weighted")),
    ("brier", lambda p, y: cs.brier_score(p, y)),
    ("log_loss", lambda p, y: cs.log_loss(p, y)),
    ("skce ul confidence", lambda p, y: cs.skce(p, y, "ul")),
    ("skce ul canonical", lambda p, y: cs.skce(p, y, "ul", type="canonical", bandwidth=0.5)),
    ("skce ul classwise", lambda p, y: cs.skce(p, y, "ul", type="classwise")),
]


@pytest.mark.parametrize("name,fn", MATRIX_CASES, ids=[c[0] for c in MATRIX_CASES])
def test_matrix_metrics_equal_in_memory(name, fn):
    P, y = _problem()
    Pd, yd = _chunked(P, y, UNEVEN)
    _close(fn(P, y), fn(Pd, yd))


VECTOR_CASES = [
    ("ece", lambda p, y: cs.ece(p, y)),
    ("mce", lambda p, y: cs.mce(p, y, bins=20)),
    ("ace", lambda p, y: cs.ace(p, y)),
    ("brier", lambda p, y: cs.brier_score(p, y)),
    ("log_loss", lambda p, y: cs.log_loss(p, y)),
    ("skce ul", lambda p, y: cs.skce(p, y, "ul", bandwidth=0.1)),
    ("spiegelhalter Z", lambda p, y: cs.cal_spiegelhalter_test(p, y).statistic["Z"]),
]


@pytest.mark.parametrize("name,fn", VECTOR_CASES, ids=[c[0] for c in VECTOR_CASES])
def test_vector_metrics_equal_in_memory(name, fn):
    P, y = _problem(seed=1)
    p, yb = P[:, 0], (y == 1).astype(np.int64)
    pd_, yd = _chunked(p, yb, UNEVEN)
    _close(fn(p, yb), fn(pd_, yd))


def test_one_class_chunks_and_the_distributed_scheduler(client):
    P, y = _problem(n=3000, k=3, seed=3)
    order = np.argsort(y, kind="stable")  # each block below holds one class only
    P, y = P[order], y[order]
    sizes = np.bincount(y)[1:].tolist()
    Pd, yd = _chunked(P, y, sizes)
    for name, fn in MATRIX_CASES:
        _close(fn(P, y), fn(Pd, yd))
    a, b = cs.cal_spiegelhalter_test(P, y), cs.cal_spiegelhalter_test(Pd, yd)
    _close(a.statistic["Z"], b.statistic["Z"])
    _close(a.p_value, b.p_value)
    assert a.estimate.keys() == b.estimate.keys()
    for key in a.estimate:
        _close(a.estimate[key], b.estimate[key])


def test_spiegelhalter_is_the_same_test():
    P, y = _problem(seed=4)
    Pd, yd = _chunked(P, y, UNEVEN)
    for kw in ({}, {"type": "class", "cls": 2}, {"alternative": "greater"}, {"alternative": "two.sided"}):
        a, b = cs.cal_spiegelhalter_test(P, y, **kw), cs.cal_spiegelhalter_test(Pd, yd, **kw)
        assert (a.method, a.alternative, a.n, a.type) == (b.method, b.alternative, b.n, b.type)
        _close(a.statistic["Z"], b.statistic["Z"])
        _close(a.p_value, b.p_value)
        assert str(a).splitlines()[:3] == str(b).splitlines()[:3]


def test_dataframe_with_categorical_labels_and_an_empty_partition(client):
    P, y = _problem(n=2500, k=3, seed=5)
    levels = ["cat", "dog", "emu"]
    df = pd.DataFrame(P, columns=levels)
    df["label"] = pd.Categorical(np.array(levels)[y - 1], categories=levels)
    parts = [df.iloc[:900], df.iloc[:0], df.iloc[900:901], df.iloc[901:]]
    ddf = dd.from_delayed([dask.delayed(x) for x in parts], meta=df.iloc[:0])
    mem = cs.reliability_diagram(df[levels], df["label"])
    got = cs.reliability_diagram(ddf[levels], ddf["label"])
    pd.testing.assert_frame_equal(mem.data, got.data, check_exact=False, rtol=RTOL)
    assert mem.subtitle == got.subtitle and list(got.data["class_label"].cat.categories) == levels
    for t in ("classwise", "confidence"):
        _close(cs.ece(df[levels], df["label"], type=t), cs.ece(ddf[levels], ddf["label"], type=t))
    conf = cs.reliability_diagram(ddf[levels], ddf["label"], type="confidence")
    pd.testing.assert_frame_equal(cs.reliability_diagram(df[levels], df["label"], type="confidence").data,
                                  conf.data, check_exact=False, rtol=RTOL)
    assert conf.layout == "confidence"
    _close(cs.cal_spiegelhalter_test(df[levels], df["label"], type="class", cls="dog").statistic["Z"],
           cs.cal_spiegelhalter_test(ddf[levels], ddf["label"], type="class", cls="dog").statistic["Z"])


def test_mixed_inputs_and_float32():
    P, y = _problem(n=1200, k=3, seed=6)
    Pd = da.from_array(P, chunks=(250, 3))
    want = cs.ece(P, y)
    _close(want, cs.ece(Pd, y))  # labels in memory, cut like p
    _close(want, cs.ece(P, da.from_array(y, chunks=333)))  # p in memory, cut like y
    _close(want, cs.ece(Pd, dd.from_pandas(pd.Series(y), npartitions=3)))  # array p, Dask Series y
    P32 = P.astype(np.float32)
    P32 /= P32.sum(axis=1, keepdims=True)
    _close(cs.ece(P32, y), cs.ece(da.from_array(P32, chunks=(400, 3)), y))
    p = P[:, 0]
    _close(cs.ece(p, y == 1), cs.ece(dd.from_pandas(pd.Series(p), npartitions=4),
                                    dd.from_pandas(pd.Series(y == 1), npartitions=4)))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=8), st.integers(0, 2**31 - 1))
def test_chunking_never_changes_the_result(cuts, seed):
    """Any cut of the rows into blocks gives the in-memory numbers (the sums merge exactly)."""
    P, y = _problem(n=sum(cuts) + 30, k=3, seed=seed % 1000)
    y[-1] = 3  # integer codes: the highest code names the class count
    sizes = cuts[:-1] + [cuts[-1] + 30]
    Pd, yd = _chunked(P, y, sizes)
    with dask.config.set(scheduler="synchronous"):
        got = (cs.ece(Pd, yd), cs.brier_score(Pd, yd), cs.skce(Pd, yd, "ul"))
    want = (cs.ece(P, y), cs.brier_score(P, y), cs.skce(P, y, "ul"))
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-300)


def _message(fn):
    with pytest.raises(cs.CalstatsError) as err:
        fn()
    return str(err.value)


def test_errors_are_the_in_memory_ones():
    P, y = _problem(n=600, k=3, seed=7)
    Pd, yd = _chunked(P, y, [200, 200, 200])
    bad = P.copy()
    bad[450, 0] = 1.5  # in the last block only
    for fn in (lambda a, b: cs.ece(a, b), lambda a, b: cs.brier_score(a, b),
               lambda a, b: cs.cal_spiegelhalter_test(a, b)):
        assert _message(lambda: fn(da.from_array(bad, chunks=(200, 3)), yd)) == _message(lambda: fn(bad, y))
        assert _message(lambda: fn(Pd[:, :2], yd)) == _message(lambda: fn(P[:, :2], y))
        assert _message(lambda: fn(Pd, yd - 1)) == _message(lambda: fn(P, y - 1))
    nan_p = P[:, 0].copy()
    nan_p[5] = np.nan
    assert _message(lambda: cs.ece(da.from_array(nan_p, chunks=100), y == 1)) == _message(lambda: cs.ece(nan_p, y == 1))
    assert _message(lambda: cs.ece(Pd, yd, type="x")) == _message(lambda: cs.ece(P, y, type="x"))
    assert _message(lambda: cs.ece(Pd, yd, bins=0)) == _message(lambda: cs.ece(P, y, bins=0))
    assert _message(lambda: cs.cal_spiegelhalter_test(Pd, yd, type="class", cls=9)) == \
        _message(lambda: cs.cal_spiegelhalter_test(P, y, type="class", cls=9))
    # codes 1..2 only, in a 3-column matrix: the class count, decided after all blocks
    y2 = np.where(y == 3, 1, y)
    assert _message(lambda: cs.ece(Pd, da.from_array(y2, chunks=200))) == _message(lambda: cs.ece(P, y2))


@pytest.mark.parametrize("call,text", [
    (lambda p, y: cs.ece(p, y, weights=np.ones(600)), "Case weights are not supported with Dask inputs"),
    (lambda p, y: cs.ece(p, y, debiased=True), "debiased ECE is not available for Dask inputs"),
    (lambda p, y: cs.mmce(p, y), "mmce needs every pair of rows"),
    (lambda p, y: cs.skce(p, y), 'estimator = "uq" needs every pair of rows'),
    (lambda p, y: cs.skce(p, y, "ul", bandwidth="median"), "median heuristic needs every pair of rows"),
    (lambda p, y: cs.cal_test(p, y), "cal_test resamples every pair of rows"),
    (lambda p, y: cs.cal_ci(p, y), "cal_ci resamples the rows"),
    (lambda p, y: cs.top_label_ece(p, y, convention="mapie"), 'convention = "mapie" is not available'),
    (lambda p, y: cs.cal_spiegelhalter_test(p, y, convention="mapie"), 'convention = "mapie" is not available'),
])
def test_what_dask_refuses_says_why(call, text):
    P, y = _problem(n=600, k=3, seed=8)
    Pd, yd = _chunked(P, y, [300, 300])
    with pytest.raises(cs.CalstatsError, match=text) as err:
        call(Pd, yd)
    assert "\n" not in str(err.value)


def test_frames_partitioned_apart_are_paired_by_index():
    """As pandas pairs a DataFrame and a Series: by index, whatever their partitions."""
    P, y = _problem(n=600, k=3, seed=9)
    p = dd.from_pandas(pd.DataFrame(P), npartitions=3)
    labels = dd.from_pandas(pd.Series(y), npartitions=2)
    _close(cs.ece(P, y), cs.ece(p, labels))
    _close(cs.ece(P, y), cs.ece(p.clear_divisions(), labels.clear_divisions()))
    wrong = dd.from_pandas(pd.Series(y, index=np.arange(600)[::-1].copy()), npartitions=2)  # label of row 599 - i
    assert cs.ece(p, wrong) == cs.ece(P, y[::-1])


def test_importing_calstats_does_not_import_dask():
    code = "import sys, calstats, calstats.evaluation.metrics, calstats.evaluation.caltests; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_one_task_making_p_and_y_runs_once_per_pass():
    """Blocks of p and y cut from one generated (or read) block must not make it twice."""
    calls = []

    def make(i):
        calls.append(i)
        rng = np.random.default_rng(i)
        return np.column_stack([rng.dirichlet(np.ones(4), 500), rng.integers(1, 5, 500)])

    whole = da.concatenate([da.from_delayed(dask.delayed(make)(i), shape=(500, 5), dtype=float) for i in range(6)])
    P, y = whole[:, :4], whole[:, 4].astype(np.int64)
    with dask.config.set(scheduler="synchronous"):
        value = cs.ece(P, y)
    assert sorted(calls) == list(range(6))
    _close(cs.ece(*(lambda a: (a[:, :4], a[:, 4].astype(np.int64)))(np.vstack([make(i) for i in range(6)]))), value)

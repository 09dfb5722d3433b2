"""The norms of the binned calibration error: ece(..., norm="l1"|"l2"|"max") against
torchmetrics 1.9 (tests/fixtures/peer_torch.json, tools/peer-reference/make_torch_fixtures.py)."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs

FIX = json.loads((Path(__file__).parent / "fixtures" / "peer_torch.json").read_text())
NORM_CASES = {c["name"]: c for c in FIX["norms"]}
NORMS = ("l1", "l2", "max")


def _inputs(case):
    p = np.array(case["p"])
    y = np.array(case["y"])
    return (p, y + 1) if p.ndim == 2 else (p, y)  # torchmetrics' classes are 0-based


@pytest.mark.parametrize("name", ["binary_15", "binary_10", "multiclass_15", "multiclass_8"])
@pytest.mark.parametrize("norm", NORMS)
def test_torchmetrics_values(name, norm):
    case = NORM_CASES[name]
    p, y = _inputs(case)
    got = cs.ece(p, y, bins=case["n_bins"], type="confidence", norm=norm)
    assert got == pytest.approx(case[norm], rel=1e-12, abs=1e-15)
    if p.ndim == 2:
        assert cs.confidence_ece(p, y, case["n_bins"], norm=norm) == got
        # torchmetrics' public multiclass function rounds the confidences to float32
        assert got == pytest.approx(case[f"{norm}_float32"], abs=1e-6)


@pytest.mark.parametrize("norm", NORMS)
def test_torchmetrics_bin_of_one(norm):
    # scores of exactly 1.0: torchmetrics bins them on their own; R's last bin holds them
    case = NORM_CASES["binary_ends"]
    p, y = _inputs(case)
    edges = np.r_[np.array(case["boundaries"]), 1.0]
    assert cs.ece(p, y, breaks=edges, norm=norm) == pytest.approx(case[norm], rel=1e-12, abs=1e-15)
    assert abs(cs.ece(p, y, bins=15, norm=norm) - case[norm]) > 1e-3


def test_default_is_r_ece():
    case = NORM_CASES["multiclass_15"]
    p, y = _inputs(case)
    for typ in ("classwise", "confidence"):
        assert cs.ece(p, y, type=typ) == cs.ece(p, y, type=typ, norm="l1")
    assert cs.ece(p, y, 15, "confidence", norm="max") == cs.mce(p, y, 15, "confidence")


def test_classwise_norm_is_mean_over_classes():
    case = NORM_CASES["multiclass_8"]
    p, y = _inputs(case)
    for norm in NORMS:
        per_class = [cs.ece(p[:, j], (y == j + 1).astype(int), norm=norm) for j in range(p.shape[1])]
        assert cs.classwise_ece(p, y, norm=norm) == pytest.approx(np.mean(per_class), rel=1e-15)
        assert cs.ece(p, y, norm=norm) == cs.classwise_ece(p, y, norm=norm)
    # mce keeps the maximum over classes; the max norm averages the classes
    per_class_max = [cs.mce(p[:, j], (y == j + 1).astype(int)) for j in range(p.shape[1])]
    assert cs.mce(p, y) == max(per_class_max)
    assert cs.ece(p, y, norm="max") == pytest.approx(np.mean(per_class_max), rel=1e-15)


def test_top_label_norms():
    case = NORM_CASES["multiclass_15"]
    p, y = _inputs(case)
    pred = p.argmax(axis=1) + 1
    h = p.max(axis=1)
    for norm in NORMS:
        per_class = [cs.ece(h[pred == j], (y[pred == j] == j).astype(int), norm=norm) for j in np.unique(pred)]
        assert cs.top_label_ece(p, y, norm=norm) == pytest.approx(np.mean(per_class), rel=1e-14)
        assert cs.top_label_ece(p, y, norm=norm, engine="fast") == pytest.approx(np.mean(per_class), rel=1e-12)
    assert cs.top_label_ece(p, y) == cs.top_label_ece(p, y, norm="l1")
    # MAPIE's bins: the l1 norm is its ECE; the others order as norms do
    m = [cs.top_label_ece(p, y, 20, convention="mapie", norm=n) for n in NORMS]
    assert m[0] == cs.top_label_ece(p, y, 20, convention="mapie")
    assert m[0] <= m[1] <= m[2]


def test_norm_message():
    p = np.array([0.2, 0.7, 0.9])
    y = np.array([0, 1, 1])
    for f in (cs.ece, cs.classwise_ece, cs.confidence_ece):
        with pytest.raises(cs.CalstatsError, match="norm"):
            f(p, y, norm="l3")
    with pytest.raises(cs.CalstatsError, match="norm"):
        cs.top_label_ece(np.array([[0.2, 0.8], [0.6, 0.4]]), [1, 2], norm="linf")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 20), st.integers(5, 200))
def test_power_mean_order(seed, bins, n):
    # sum w|g| <= sqrt(sum w g^2) <= max |g| (weights summing to one)
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p ** 2).astype(int)
    l1, l2, mx = (cs.ece(p, y, bins, norm=norm) for norm in NORMS)
    assert l1 <= l2 * (1 + 1e-12) + 1e-15
    assert l2 <= mx * (1 + 1e-12) + 1e-15
    assert mx == cs.mce(p, y, bins)


def test_dask_top_label_norm():
    import dask.array as da

    case = NORM_CASES["multiclass_8"]
    p, y = _inputs(case)
    P = da.from_array(p, chunks=(100, p.shape[1]))
    Y = da.from_array(y, chunks=100)
    for norm in NORMS:
        assert cs.top_label_ece(P, Y, norm=norm) == pytest.approx(cs.top_label_ece(p, y, norm=norm), rel=1e-12)

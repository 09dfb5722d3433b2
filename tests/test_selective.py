"""Selective prediction: AURC, AUGRC against torch-uncertainty 0.13 (tests/fixtures/peer_torch.json,
tools/peer-reference/make_torch_fixtures.py), E-AURC, the risk-coverage result."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats as cs
from calstats.evaluation.selective import RiskCoverage

FIX = json.loads((Path(__file__).parent / "fixtures" / "peer_torch.json").read_text())
CASES = {c["name"]: c for c in FIX["selective"]}


def _inputs(case):
    p = np.array(case["p"])
    y = np.array(case["y"])
    return (p, y + 1) if p.ndim == 2 else (p, y)  # torch's classes are 0-based


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_uncertainty_values(name):
    case = CASES[name]
    p, y = _inputs(case)
    assert cs.aurc(p, y) == pytest.approx(case["aurc"], rel=1e-12, abs=1e-15)
    assert cs.augrc(p, y) == pytest.approx(case["augrc"], rel=1e-12, abs=1e-15)
    res = cs.risk_coverage(p, y)
    np.testing.assert_allclose(res.risk, case["error_rates"], rtol=1e-15, atol=0)
    # torch's default float32 dtype makes its coverage grid float32: about 1e-9 away
    assert cs.aurc(p, y) == pytest.approx(case["aurc_default_dtype"], rel=1e-6)


def test_docstring_example_by_hand():
    # confidences 0.8, 0.7 right, 0.6 wrong: risks 0, 0, 1/3 at coverage 1/3, 2/3, 1
    p = np.array([[0.7, 0.3], [0.6, 0.4], [0.8, 0.2]])
    y = [1, 2, 1]
    assert cs.aurc(p, y) == pytest.approx((1 / 3) * (1 / 3) / 2 / (2 / 3), rel=1e-15)
    assert cs.aurc(p, y) != pytest.approx(np.mean([0, 0, 1 / 3]))  # not its docstring's mean
    assert cs.e_aurc(p, y) == 0.0  # a perfect ranking
    r = 1 / 3
    assert cs.e_aurc(p, y, oracle="analytic") == pytest.approx(cs.aurc(p, y) - (r + (1 - r) * math.log(1 - r)))


def test_binary_vector_is_two_columns():
    case = CASES["binary"]
    p, y = _inputs(case)
    P = np.column_stack([1 - p, p])
    assert cs.aurc(p, y) == cs.aurc(P, y + 1)
    assert cs.augrc(p, y) == cs.augrc(P, y + 1)


def test_factor_labels_and_float32():
    case = CASES["multiclass"]
    p, y = _inputs(case)
    labels = pd.Categorical.from_codes(y - 1, ["a", "b", "c", "d"])
    assert cs.aurc(p, labels) == cs.aurc(p, y)
    p32 = p.astype(np.float32)
    assert cs.aurc(p32, y) == cs.aurc(p32.astype(np.float64), y)


def test_result_protocol():
    case = CASES["ranked"]
    p, y = _inputs(case)
    res = cs.risk_coverage(p, y)
    assert isinstance(res, RiskCoverage) and res.inherits("risk_coverage")
    assert res.aurc == cs.aurc(p, y) and res.augrc == cs.augrc(p, y) and res.e_aurc == cs.e_aurc(p, y)
    assert res.e_aurc == pytest.approx(res.aurc - res.oracle_aurc)
    text = res.print_text()
    assert text.endswith("\n") and "AURC" in text and "AUGRC" in text and "E-AURC" in text
    frame = res.as_frame()
    assert list(frame.columns) == ["coverage", "threshold", "risk", "generalized_risk"]
    assert len(frame) == res.n == p.shape[0]
    assert frame["threshold"].is_monotonic_decreasing
    np.testing.assert_array_equal(frame["generalized_risk"], res.coverage * res.risk)
    assert "<h4>Risk-coverage curve</h4>" in res._repr_html_()
    with pytest.raises(ValueError):
        res.risk[0] = 1.0  # read-only


def test_inputs_not_mutated():
    case = CASES["multiclass"]
    p, y = _inputs(case)
    p0, y0 = p.copy(), y.copy()
    cs.risk_coverage(p, y)
    assert np.array_equal(p, p0) and np.array_equal(y, y0)


def test_small_and_error_messages():
    with pytest.raises(cs.CalstatsError, match=r"^Argument `p` must have at least 2 rows \(the area under the curve"):
        cs.aurc(np.array([0.6]), [1])  # torch-uncertainty's 0 / 0
    with pytest.raises(cs.CalstatsError, match="oracle"):
        cs.e_aurc(np.array([0.2, 0.8]), [0, 1], oracle="bogus")
    with pytest.raises(cs.CalstatsError):
        cs.aurc(np.array([0.2, 1.5]), [0, 1])
    with pytest.raises(cs.CalstatsError):
        cs.aurc(np.array([[0.2, 0.8], [0.5, 0.5]]), [1, 2, 1])


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(5, 80), st.integers(2, 5))
def test_invariants(seed, n, k):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    y = rng.integers(1, k + 1, size=n)
    y[:k] = np.arange(1, k + 1)  # every class occurs (as the metrics ask)
    res = cs.risk_coverage(P, y)
    assert -1e-15 <= res.augrc <= res.aurc + 1e-15
    assert 0.0 <= res.aurc <= 1.0 + 1e-12
    assert res.e_aurc >= -1e-15  # no ranking beats the oracle
    # every correct prediction more confident than every error: the oracle's ranking
    right = rng.random(n) < 0.7
    conf = np.where(right, rng.uniform(0.8, 1.0, size=n), rng.uniform(0.5, 0.79, size=n))
    yb = np.where(right, 1, 0)  # p = conf predicts class 1
    assert cs.e_aurc(conf, yb) == 0.0


def test_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    case = CASES["ranked"]
    p, y = _inputs(case)
    res = cs.risk_coverage(p, y)
    fig = res.plot()
    (line,) = fig.axes[0].lines
    np.testing.assert_array_equal(line.get_xdata(), res.coverage)
    np.testing.assert_array_equal(line.get_ydata(), res.risk)
    assert "AURC" in line.get_label()
    _, ax = plt.subplots()
    assert res.plot(ax, generalized=True, color="k") is ax.figure
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), res.generalized_risk)
    assert "AUGRC" in ax.lines[0].get_label()
    plt.close("all")

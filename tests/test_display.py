"""scikit-learn's Display convention: ReliabilityDisplay, CorpDisplay, RiskCoverageDisplay."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from sklearn.calibration import CalibrationDisplay  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

import calstats as cs  # noqa: E402
from calstats.display import CorpDisplay, ReliabilityDisplay, RiskCoverageDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _binary(seed=0, n=400):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, size=n)
    y = (rng.random(n) < p ** 1.2).astype(int)
    return p, y


def _multiclass(seed=1, n=300, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.array(["ant", "bee", "cat"])[np.argmax(X[:, :k] + rng.normal(size=(n, k)), axis=1)]
    return X, y


def test_reliability_from_predictions():
    p, y = _binary()
    disp = ReliabilityDisplay.from_predictions(y, p, name="model", color="C2")
    d = cs.reliability_diagram(p, y)
    np.testing.assert_array_equal(disp.line_.get_xdata(), d.data["confidence"])
    np.testing.assert_array_equal(disp.line_.get_ydata(), d.data["accuracy"])
    assert disp.ece == cs.ece(p, y)
    assert disp.line_.get_label() == f"model (ECE = {cs.ece(p, y):.4f})"
    assert disp.line_.get_color() == "C2"
    assert disp.ax_.figure is disp.figure_ and disp.ref_line_ is not None
    assert "Positive class: 1" in disp.ax_.get_xlabel()
    # on a given Axes, and drawn again elsewhere
    fig, (a1, a2) = plt.subplots(1, 2)
    disp2 = ReliabilityDisplay.from_predictions(y, p, ax=a1, ref_line=False)
    assert disp2.ax_ is a1 and disp2.figure_ is fig and disp2.ref_line_ is None and len(a1.lines) == 1
    assert disp2.plot(ax=a2).ax_ is a2 and len(a2.lines) == 2


def test_reliability_equals_sklearn_bins():
    # scikit-learn's calibration_curve: right-closed equal-width bins
    p, y = _binary(3)
    ours = ReliabilityDisplay.from_predictions(y, p, bins=5, right=True)
    theirs = CalibrationDisplay.from_predictions(y, p, n_bins=5)
    np.testing.assert_allclose(ours.prob_true, theirs.prob_true, rtol=1e-15)
    np.testing.assert_allclose(ours.prob_pred, theirs.prob_pred, rtol=1e-13)
    np.testing.assert_array_equal(ours.y_prob, p)


def test_reliability_from_estimator():
    X, y = _multiclass()
    yb = np.where(y == "bee", "yes", "no")
    est = LogisticRegression().fit(X, yb)
    disp = ReliabilityDisplay.from_estimator(est, X, yb)
    ref = ReliabilityDisplay.from_predictions(yb, est.predict_proba(X)[:, 1], pos_label="yes")
    np.testing.assert_array_equal(disp.prob_true, ref.prob_true)
    assert disp.pos_label == "yes" and disp.estimator_name == "LogisticRegression"
    assert disp.line_.get_label().startswith("LogisticRegression (ECE = ")
    # multiclass: the top-label confidence, columns labelled by classes_
    est3 = LogisticRegression().fit(X, y)
    disp3 = ReliabilityDisplay.from_estimator(est3, X, y, bins=8)
    P = est3.predict_proba(X)
    codes = np.searchsorted(est3.classes_, y) + 1
    d = cs.reliability_diagram(P, codes, 8, type="confidence")
    np.testing.assert_array_equal(disp3.prob_pred, d.data["confidence"])
    np.testing.assert_array_equal(disp3.y_prob, P.max(axis=1))
    assert disp3.ece == cs.ece(P, codes, 8, "confidence")
    by_pred = ReliabilityDisplay.from_predictions(y, P, bins=8)  # sorted labels = classes_
    np.testing.assert_array_equal(by_pred.prob_true, disp3.prob_true)


def test_messages():
    p, y = _binary()
    labels = np.where(y == 1, "yes", "no")
    with pytest.raises(cs.CalstatsError, match="Argument `pos_label` must be given"):
        ReliabilityDisplay.from_predictions(labels, p)
    X, ym = _multiclass()
    P = LogisticRegression().fit(X, ym).predict_proba(X)
    with pytest.raises(cs.CalstatsError, match="Argument `classes` must name the 3 columns"):
        ReliabilityDisplay.from_predictions(ym, P, classes=["ant", "bee"])
    with pytest.raises(cs.CalstatsError, match="not among `classes`"):
        ReliabilityDisplay.from_predictions(ym, P, classes=["ant", "bee", "cow"])
    est = LogisticRegression().fit(X, ym == "ant")
    with pytest.raises(cs.CalstatsError, match="must be one of the estimator's classes"):
        ReliabilityDisplay.from_estimator(est, X, ym == "ant", pos_label="x")
    with pytest.raises(cs.CalstatsError, match="must be a vector of labels"):
        ReliabilityDisplay.from_predictions(np.column_stack([y, y]), p)


def test_corp_display():
    p, y = _binary(5, n=300)
    disp = CorpDisplay.from_predictions(y, p, seed=1, n_resamples=50, name="m")
    d = cs.corp(p, y, seed=1, n_resamples=50)
    assert isinstance(disp.diagram, cs.CorpDiagram)
    np.testing.assert_array_equal(disp.diagram.bins["CEP_pav"], d.bins["CEP_pav"])
    np.testing.assert_array_equal(disp.line_.get_ydata(), np.repeat(d.bins["CEP_pav"].to_numpy(), 2))
    assert disp.band_ is not None and disp.ref_line_ is not None
    assert disp.line_.get_label().startswith("m (MCB = ")
    _, ax = plt.subplots()
    disp2 = CorpDisplay.from_predictions(y, p, band=None, ax=ax, ref_line=False)
    assert disp2.band_ is None and disp2.ax_ is ax and len(ax.lines) == 1
    # discrete forecasts: a point per value
    q = np.round(p, 1)
    disp3 = CorpDisplay.from_predictions(y, q, band=None)
    assert disp3.line_.get_marker() == "o"
    X, ym = _multiclass()
    est = LogisticRegression().fit(X, ym)
    disp4 = CorpDisplay.from_estimator(est, X, ym, band=None)
    assert disp4.diagram.forecast == "confidence"


def test_risk_coverage_display():
    X, y = _multiclass()
    est = LogisticRegression().fit(X, y)
    disp = RiskCoverageDisplay.from_estimator(est, X, y)
    P = est.predict_proba(X)
    res = cs.risk_coverage(P, np.searchsorted(est.classes_, y) + 1)
    assert disp.result.aurc == res.aurc
    np.testing.assert_array_equal(disp.line_.get_ydata(), res.risk)
    assert disp.line_.get_label() == f"LogisticRegression (AURC = {res.aurc:.4f})"
    by_pred = RiskCoverageDisplay.from_predictions(y, P)
    assert by_pred.result.aurc == res.aurc
    _, ax = plt.subplots()
    g = RiskCoverageDisplay.from_result(res, ax=ax, generalized=True, color="k")
    assert g.ax_ is ax and g.figure_ is ax.figure
    np.testing.assert_array_equal(g.line_.get_ydata(), res.generalized_risk)
    assert "AUGRC" in g.line_.get_label()
    p, yb = _binary()
    assert RiskCoverageDisplay.from_predictions(yb, p).result.aurc == cs.aurc(p, yb)

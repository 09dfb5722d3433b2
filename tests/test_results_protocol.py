"""Every result class follows the one protocol of ``calstats.results._base.Result``: R's
class vector and ``inherits``, R's printed text (``str`` is it without the final newline),
``as_frame()`` and a notebook table, and one constructor call with every R field."""

import re

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats.calibrators.classweights import LossCalibrationCurve
from calstats.clinical import val_prob, val_prob_ci
from calstats.clinical.hierarchy import CalibrationHierarchy
from calstats.clinical.valprob import STAT_NAMES, ValProb
from calstats.clinical.valprob_group import GROUP_STAT_NAMES, ValProbGroups
from calstats.evaluation.compare import CalCompare
from calstats.evaluation.diagnostics import ReliabilityDiagram
from calstats.evaluation.htest import HTest
from calstats.evaluation.intervals import CalCi
from calstats.results._base import Result


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(11)
    p = rs.uniform(0.03, 0.97, 300)
    y = (rs.uniform(size=300) < p ** 1.3).astype(int)
    return p, y


def _check_protocol(obj, cls, r_class, columns, index_name=None):
    """The checks every result shares; returns the frame for further checks."""
    assert isinstance(obj, cls) and isinstance(obj, Result)
    assert obj.r_class == r_class
    assert all(obj.inherits(name) for name in r_class) and not obj.inherits("lm")
    text = obj.print_text()
    assert text.endswith("\n") and len(text) > 1
    assert str(obj) == text[:-1] and repr(obj) == text[:-1]
    frame = obj.as_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    assert list(frame.columns) == list(columns)
    if index_name is not None:
        assert frame.index.name == index_name
    html = obj._repr_html_()
    assert html.startswith("<h4>") and "<table" in html
    return frame


def _check_one_call(obj, required=None, strict=True):
    """Rebuilding from the R fields (by their Python names) gives the same fields; leaving
    out a required field, or adding an unknown one (``strict``), is a TypeError naming it."""
    cls = type(obj)
    values = {obj._attr(name): obj[name] for name in obj.names()}
    rebuilt = cls(**values)
    assert rebuilt.names() == obj.names()
    assert all(rebuilt[name] is obj[name] or rebuilt[name] == obj[name] for name in obj.names()
               if not isinstance(obj[name], (pd.DataFrame, np.ndarray, dict)))
    for name in required if required is not None else values:
        partial = {k: v for k, v in values.items() if k != name}
        with pytest.raises(TypeError, match=name):
            cls(**partial)
    if strict:
        with pytest.raises(TypeError, match="no_such_field"):
            cls(**values, no_such_field=1)


def test_htest(binary):
    t = calstats.cal_spiegelhalter_test(*binary)
    frame = _check_protocol(t, HTest, ("htest",), ["method", "Z", "p_value", "alternative"])
    assert frame.loc[0, "p_value"] == t.p_value
    assert t.names() == ["statistic", "parameter", "p.value", "conf.int", "estimate", "null.value",
                         "alternative", "method", "data.name"]
    # the optional R fields default to NULL; other keywords are the test's own extras
    _check_one_call(t, required=["statistic", "p_value", "method", "alternative"], strict=False)
    # the class vector given at construction (cal_test's) is the one reported
    k = calstats.cal_test(*binary, method="asymptotic")
    assert k.r_class == ("cal_test", "htest") and k.inherits("cal_test") and k.inherits("htest")
    assert HTest.r_class == ("htest",)


def test_cal_ci(binary):
    ci = calstats.cal_ci(*binary, n_boot=40, seed=4)
    frame = _check_protocol(ci, CalCi, ("cal_ci",), ["metric", "estimate", "lower", "upper", "conf_level", "n_boot"])
    assert (frame.loc[0, "lower"], frame.loc[0, "upper"]) == tuple(ci.conf_int)
    assert str(ci).startswith("ece = ") and "95% percentile bootstrap CI" in ci._repr_html_()
    assert ci["conf.int"] == ci.conf_int and ci["n_boot"] == 40
    _check_one_call(ci)


def test_cal_ci_html_keeps_the_printed_note():
    rs = np.random.default_rng(0)
    P = rs.dirichlet(np.ones(5), size=300)
    y = np.array([rs.choice(5, p=row) for row in P]) + 1
    basic = calstats.cal_ci(P, y, n_boot=100, seed=1, interval="basic")
    assert "bias-corrected estimate" in str(basic) and "bias-corrected estimate" in basic._repr_html_()


def test_reliability_diagram(binary):
    d = calstats.reliability_diagram(*binary)
    frame = _check_protocol(d, ReliabilityDiagram, ("gg", "ggplot"),
                            ["bin", "lower_edge", "upper_edge", "n", "mean_predicted", "observed", "lower", "upper"])
    # the frame holds the numbers of R's ggplot data under descriptive names
    renamed = d.data.rename(columns={"lower": "lower_edge", "upper": "upper_edge", "confidence": "mean_predicted",
                                     "accuracy": "observed"})
    pd.testing.assert_frame_equal(frame.iloc[:, :6], renamed.drop(columns="gap"))
    assert frame[["lower", "upper"]].isna().all().all()
    assert str(d).startswith("<ReliabilityDiagram: binary, 10 non-empty bins, 300 observations>")
    assert d.names() == ["data", "title", "subtitle", "x_label", "y_label", "size_label", "show_counts", "layout",
                         "reference_line", "limits"]
    assert d["layout"] == "binary" and d["size_label"] == "Count" and d["limits"] == (0, 1)
    _check_one_call(d)


def test_reliability_diagrams_of_a_matrix_are_built_with_their_labels():
    digits = calstats.datasets.load_digits_probs()
    P = digits.filter(like="p_").to_numpy()
    y = pd.Categorical(digits["label"].astype(str))
    conf = calstats.reliability_diagram(P, y, type="confidence", show_counts=False)
    assert (conf.layout, conf.title, conf.x_label, conf.y_label, conf.size_label) == (
        "confidence", "Reliability diagram (confidence)", "Top-label confidence", "Observed accuracy", None)
    wise = calstats.reliability_diagram(P, y)
    frame = _check_protocol(wise, ReliabilityDiagram, ("gg", "ggplot"),
                            ["bin", "class_label", "lower_edge", "upper_edge", "n", "mean_predicted", "observed",
                             "lower", "upper"])
    assert wise.layout == "classwise" and frame["class_label"].cat.categories.size == 10


def test_cal_compare(binary):
    cmp = calstats.cal_compare(*binary, methods=["platt", "isotonic"], folds=3)
    frame = _check_protocol(cmp, CalCompare, ("cal_compare",),
                            ["log_loss", "brier", "confidence_ece", "classwise_ece", "spiegelhalter_p",
                             "cal_test_p"], index_name="method")
    assert list(frame.index) == ["uncalibrated", "platt", "isotonic"]
    assert cmp.print_text() == cmp.as_text() and cmp._repr_html_() == cmp.as_html()
    assert cmp.best() in frame.index and cmp.as_latex().startswith("% calibration comparison")


def test_calibration_hierarchy(binary):
    h = val_prob_ci(*binary, pl=False)
    frame = _check_protocol(h, CalibrationHierarchy, ("CalibrationCurve",), ["estimate", "se", "lower", "upper"],
                            index_name="statistic")
    assert list(frame.index) == ["Calibration-in-the-large", "Calibration slope", "C-statistic"]
    assert tuple(frame.loc["Calibration slope", ["estimate", "lower", "upper"]]) == h.slope
    assert "Wald" in frame.attrs["note"]
    assert h["C-statistic"] == h.c[0] and h["Brier"] == float(h.stats["Brier"])
    assert "Brier" in h and "no such statistic" not in h and h.names()[:3] == list(frame.index)
    assert h.summary().as_text().startswith(h.print_text())


@pytest.mark.parametrize("level", [95, 0, 1, -0.5, "0.95", [0.9, 0.95], None, np.nan])
def test_val_prob_ci_checks_level_first(binary, level):
    message = re.escape("Argument `level` must be a single number in `(0, 1)`.")
    with pytest.raises(calstats.CalstatsError, match=message):
        val_prob_ci(*binary, level=level, pl=False)
    # before any computation: even before the data are looked at
    with pytest.raises(calstats.CalstatsError, match=message):
        val_prob_ci([0.2, 1.3, 0.4], [0, 1, 1], level=level, pl=False)


def test_val_prob_ci_level_still_sets_the_intervals(binary):
    wide, narrow = val_prob_ci(*binary, level=0.99, pl=False), val_prob_ci(*binary, level=0.5, pl=False)
    assert np.isfinite(wide.table.to_numpy()).all() and wide.level == 0.99
    assert (wide.table["upper"] - wide.table["lower"] > narrow.table["upper"] - narrow.table["lower"]).all()


def test_val_prob(binary):
    res = val_prob(*binary, pl=False)
    frame = _check_protocol(res, ValProb, ("numeric",), ["value"], index_name="statistic")
    assert list(frame.index) == list(STAT_NAMES) == res.names() == res.keys()
    np.testing.assert_array_equal(frame["value"].to_numpy(), np.asarray(res))
    assert frame.loc["Emax", "value"] == res["Emax"]
    # R's NA (D:p) stays NaN in the frame and shows as NA in the notebook table
    assert np.isnan(frame.loc["D:p", "value"]) and ">NA<" in res._repr_html_()
    frame.loc["Emax", "value"] = -1.0
    assert res["Emax"] != -1.0


@pytest.mark.filterwarnings("ignore:NaNs produced")  # R's loess curve leaves [0, 1] here too
def test_val_prob_groups(binary):
    p, y = binary
    res = val_prob(p, y, group=np.where(np.arange(p.size) % 3 == 0, "high", "low"), pl=False)
    frame = _check_protocol(res, ValProbGroups, ("val.prob",), list(GROUP_STAT_NAMES), index_name="group")
    assert list(frame.index) == ["high", "low", "Overall"] and frame.loc["high", "n"] == 100
    assert frame.loc["Overall", "n"] == p.size and res.stats.index.name is None
    assert res.names() == ["stats", "cal.curves", "quantiles"] and res["cal.curves"] is res.cal_curves
    assert "Quantiles of Predicted Probabilities" in res._repr_html_()
    _check_one_call(res)


def test_loss_calibration_curve(binary):
    curve = calstats.loss_calibration_curve(*binary, beta=0.9)
    frame = _check_protocol(curve, LossCalibrationCurve, ("loss_calibration_curve",),
                            ["bin", "lower", "upper", "n", "score", "observed", "theory"])
    assert str(curve) == "<LossCalibrationCurve: binary, 10 bins (quantile), beta = 0.9>"
    pd.testing.assert_frame_equal(frame, curve.bins)
    assert frame is not curve.bins and "beta = 0.9" in curve._repr_html_()


# --------------------------------------------------------------------------------------
# clinical validation II


def _check_light(obj, r_class, columns):
    """Protocol for results whose fields are R list elements (no one-call rebuild check)."""
    assert isinstance(obj, Result) and obj.r_class == r_class
    text = obj.print_text()
    assert text.endswith("\n") and str(obj) == text[:-1]
    frame = obj.as_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0 and list(frame.columns) == list(columns)
    html = obj._repr_html_()
    assert "<table" in html
    return frame


def test_pmcalibration_protocol(binary):
    from calstats.clinical import pmcalibration

    p, y = binary
    fit = pmcalibration(y, p, smooth="rcs", nk=4, ci="boot", n=20, seed=1)
    frame = _check_light(fit, ("pmcalibration",), ["p", "p_c", "lower", "upper"])
    assert len(frame) == 100
    summ = fit.summary()
    assert summ.r_class == ("pmcalibrationsummary",) and summ.print_text() == fit.print_text()


def test_logistic_cal_protocol(binary):
    from calstats.clinical import logistic_cal

    p, y = binary
    fit = logistic_cal(y, p)
    _check_light(fit, ("logistic_cal",), ["Estimate", "Std. Error", "z value", "Pr(>|z|)", "lower", "upper"])
    assert fit.summary().r_class == ("logistic_calsummary",)


def test_decision_curve_protocol(binary):
    from calstats.clinical import decision_curve

    p, y = binary
    d = decision_curve(p, y, thresholds=[0.2, 0.4])
    frame = _check_light(d, ("dca",), ["model", "label", "n", "threshold", "pos_rate", "tp_rate", "fp_rate", "harm",
                                       "net_benefit", "standardized_net_benefit"])
    assert list(frame["model"].unique()) == ["all", "none", "model"]


def test_val_multinomial_protocol():
    from calstats.clinical import val_multinomial

    rs = np.random.default_rng(3)
    z = rs.normal(size=(200, 3))
    P = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    y = np.array([rs.choice(3, p=row) for row in P]) + 1
    frame = _check_light(val_multinomial(P, y), ("list",),
                         ["statistic", "equation", "estimate", "se", "lower", "upper", "df", "p_value"])
    assert frame["statistic"].tolist()[:4] == ["intercept", "intercept", "slope", "slope"]


def test_venn_abers_protocol(binary):
    p, y = binary
    fit = calstats.cal_venn_abers(p, y, method="cross", folds=3, seed=1)
    frame = _check_light(fit, ("cal_venn_abers", "calibrator"), ["n", "events", "distinct_scores"])
    assert len(frame) == 3 and int(frame["n"].sum()) == len(p)


def test_spline_protocol(binary):
    p, y = binary
    fit = calstats.cal_spline(p, y, knots=4)
    frame = _check_light(fit, ("cal_spline", "calibrator"), ["estimate"])
    assert list(frame.index) == list(fit.coefficients.index)


def test_prior_estimate_protocol(binary):
    p, _ = binary
    est = calstats.estimate_priors(np.column_stack([1 - p, p]), [0.6, 0.4], n_boot=20, seed=1)
    frame = _check_light(est, ("prior_estimate",), ["train_prior", "prior", "ratio", "lower", "upper"])
    assert frame["prior"].sum() == pytest.approx(1.0)


def test_latex_tables_escape_each_special_character_once():
    from calstats.results._tables import table_latex

    frame = pd.DataFrame({"a_b": ["x_y 5% & #1"]}, index=["r_1"])
    latex = table_latex(frame, title="T_1")
    assert r"a\_b" in latex and r"x\_y 5\% \& \#1" in latex and r"r\_1" in latex
    assert "\\\\_" not in latex and "\\\\%" not in latex  # never a line break before an escaped char
    fit = calstats.cal_platt(np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2]), np.array([0, 0, 1, 1, 1, 0]))
    latex = fit.summary(coef=True).as_latex()
    assert r"Pr(\textgreater{}\textbar{}z\textbar{})" in latex and "\\\\_" not in latex

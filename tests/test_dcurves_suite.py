"""dcurves' own test suite and man-page examples, replayed against calstats.

Every ``dca()`` call of dcurves' tests/testthat (test-dca.R, test-net_intervention_avoided.R,
test-standardize_net_benefit.R, test-as_tibble.R, test-test_consequences.R) and of its man
pages (dca.Rd, net_intervention_avoided.Rd, standardized_net_benefit.Rd, as_tibble.dca.Rd,
print.dca.Rd, test_consequences.Rd), plus probes of the same functions where calstats has
a branch, with dcurves 0.5.1.9000 on its own data (df_binary, df_surv, df_case_control).
R's whole ``as_tibble()`` (every threshold and column) is compared bit for bit; the values
the testthat files state are checked to their tolerance (1e-5) as well. R references:
tests/fixtures/dcurves_suite.json (tools/r-reference/make_dcurves_suite.R).

The one difference from dcurves is deliberate: ``as_probability`` on a time-to-event
outcome. dcurves takes ``exp(-H)`` (the Cox model's probability of being event-free by the
horizon) as the risk; calstats takes ``1 - exp(-H)``. Given dcurves' ``exp(-H)`` as ``p``,
calstats reproduces dcurves' curve bit for bit, and its own curve equals R's ``dca()`` of
``1 - exp(-H)`` bit for bit.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats import CalstatsError
from calstats.clinical import decision as dc
from calstats.clinical.decision import (
    TEST_STATISTICS,
    _convert_to_risk,
    _is_na,
    decision_curve,
    net_intervention_avoided,
)
from calstats.numerics import libm
from calstats.ports.survival.coxph import coxph_fit

FX = load_fixture("dcurves_suite")
CASES = {c["id"]: c for c in FX["cases"]}
TC = {c["id"]: c for c in FX["test_consequences"]}
NUMBER_COLUMNS = ("n", "threshold", "pos_rate", "tp_rate", "fp_rate", "harm", "net_benefit",
                  "net_intervention_avoided", "standardized_net_benefit")
_SPECIAL = {"NA": np.nan, "NaN": np.nan, "Inf": np.inf, "-Inf": -np.inf}


def _num(x):
    return np.array([_SPECIAL[v] if isinstance(v, str) else v for v in x], dtype=np.float64)


def _col(data, name):
    v = FX["data"][data][name]
    if isinstance(v, dict):  # a factor: R's levels and 0-based codes
        return pd.Categorical.from_codes(np.array(v["codes"], dtype=int), v["levels"])
    return _num(v)


def _outcome(spec):
    d = spec["data"]
    if "y" in spec:
        return _col(d, spec["y"]).astype(np.int64)
    status = _col(d, spec["status"])
    if not isinstance(status, pd.Categorical):
        status = status.astype(np.int64)
    return pd.DataFrame({"time": _col(d, spec["time_col"]), "status": status})


def _kwargs(spec, thresholds=True):
    kw = {}
    if thresholds:
        kw["thresholds"] = _num(spec["thresholds"]) if "thresholds" in spec else _num(FX["thresholds_default"])
    for key in ("time", "prevalence"):
        if key in spec:
            kw[key] = spec[key][0]
    for key in ("harm", "label", "as_probability"):
        if key in spec:
            kw[key] = spec[key]
    return kw


def _run(spec, models=None):
    """calstats' call for a case; ``nper`` and the standardized net benefit as R adds them."""
    p = models if models is not None else pd.DataFrame({m: _col(spec["data"], m) for m in spec["models"]})
    res = decision_curve(p, _outcome(spec), **_kwargs(spec))
    if "nper" in spec:
        res = net_intervention_avoided(res, spec["nper"][0])
    return res


def _same(a, b):
    """Bit for bit, NaN where R has NA/NaN, equal infinities."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True), np.nanmax(np.abs(a - b))


def _compare_table(frame, case, rename=None):
    table = case["table"]
    back = {r: name for name, r in (rename or {}).items()}  # R's column name -> the model's
    assert frame["model"].tolist() == [back.get(v, v) for v in table["variable"]]
    assert [str(v) for v in frame["label"]] == [back.get(v, v) for v in table["label"]]
    for col in NUMBER_COLUMNS:
        if col in table:
            _same(frame[col], _num(table[col]))
            assert np.array_equal(_is_na(frame[col].to_numpy(dtype=np.float64)),
                                  [v == "NA" for v in table[col]]), col  # R's NA, not NaN
    if "standardized_net_benefit" not in table:  # calstats computes it in any case
        _same(frame["standardized_net_benefit"], frame["net_benefit"] / frame["pos_rate"])


def _check_object(res, case):
    assert res.n == case["n"][0]
    _same([res.prevalence], case["prevalence"])
    if case["time"] is None:
        assert res.time is None
    else:
        _same([res.time], case["time"])
    assert res.names() == [k for k in case["names"] if k not in ("call", "y")]


# --------------------------------------------------------------------------------------
# every dca() case, the whole table bit for bit

_AS_R = [c["id"] for c in FX["cases"] if c["id"] != "surv2" and "rename" not in c["spec"]]


@pytest.mark.parametrize("cid", _AS_R)
def test_dca_table_matches_r(cid):
    case = CASES[cid]
    res = _run(case["spec"])
    _compare_table(res.as_frame(), case)
    _check_object(res, case)
    if "nper" in case["spec"]:
        assert res["net_interventions_nper"] == case["nper"][0]


def test_dca_surv_as_probability_dcurves_takes_survival_as_risk():
    """test-dca.R's ``dca(Surv(ttcancer, cancer) ~ age, df_surv, time = 1, as_probability =
    "age")``: dcurves' risk is exp(-H(1 | age)); fed those values, calstats gives R's table."""
    case = CASES["surv2"]
    surv_prob = _num(FX["converted"]["surv_age_dcurves"])
    res = _run(case["spec"] | {"as_probability": None}, models=pd.DataFrame({"age": surv_prob}))
    _compare_table(res.as_frame(), case)
    _check_object(res, case)


@pytest.mark.parametrize("cid", ["surv_age_risk", "surv_marker_risk"])
def test_dca_surv_as_probability_is_r_with_risk(cid):
    """calstats' as_probability on Surv: R's dca() of 1 - exp(-H), bit for bit."""
    case = CASES[cid]
    res = _run(case["spec"])
    _compare_table(res.as_frame(), case, rename=case["spec"]["rename"])
    _check_object(res, case)


def test_as_probability_differs_from_dcurves_only_in_the_risk_scale():
    """The finding, in numbers: test-dca.R states -0.1424773 for age at 0.25 (dcurves,
    exp(-H)); calstats gives the net benefit of the risk 1 - exp(-H)."""
    spec = CASES["surv2"]["spec"]
    frame = _run(spec).as_frame()
    at = frame.loc[frame["threshold"] == 0.25, "net_benefit"].to_numpy()
    assert abs(at[2] - FX["stated"]["surv2"][2]) > 0.1
    risk = _run(CASES["surv_age_risk"]["spec"]).as_frame()
    _same(frame["net_benefit"], risk["net_benefit"])


def test_converted_risks_bit_for_bit():
    b, s = FX["data"]["df_binary"], FX["data"]["df_surv"]
    y = _num(b["cancer"]).astype(np.int64)
    for v in ("age", "marker"):
        _same(_convert_to_risk("binary", _num(b[v]), y, None, None), _num(FX["converted"]["binary_" + v]))
    t, e = _num(s["ttcancer"]), _num(s["cancer"]).astype(np.int64)
    _same(_convert_to_risk("survival", _num(s["age"]), e, t, 1.0), _num(FX["converted"]["surv_age_risk"]))
    _same(_convert_to_risk("survival", _num(s["marker"]), e, t, 2.0), _num(FX["converted"]["surv_marker_risk"]))
    # dcurves' own value, exp(-H), from the same Cox fit
    fit = coxph_fit(t, e, _num(s["age"])[:, None], ["variable"])
    _same(libm.exp(-fit.expected(1.0, _num(s["age"])[:, None])[0]), _num(FX["converted"]["surv_age_dcurves"]))


def test_converted_risk_when_the_cox_log_likelihood_is_zero():
    """One event alone in its risk set: the log partial likelihood is exactly 0; R's coxph
    runs out of iterations with coefficient 0 (so every risk is 0 by time 1)."""
    with pytest.warns(Warning, match="Ran out of iterations"):
        r = _convert_to_risk("survival", np.array([0.36337365, 0.30257262]), np.array([1, 0]),
                             np.array([2.1, 1.2]), 1.0)
    assert r.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------------------
# the values the testthat files state (expect_equal(..., tolerance = 1e-5))

@pytest.mark.parametrize("cid", ["binary1", "binary2", "threshold_zero", "surv1", "case_control", "nia_binary"])
def test_testthat_stated_values(cid):
    spec = CASES[cid]["spec"]
    frame = _run(spec).as_frame()
    col = "net_intervention_avoided" if cid.startswith("nia") else "net_benefit"
    at = frame.loc[frame["threshold"] == (0 if cid == "threshold_zero" else 0.25), col].to_numpy()
    expected = _num(FX["stated"][cid])
    assert np.allclose(at, expected, rtol=1e-5, atol=1e-7)


def test_testthat_stated_surv2_from_dcurves_risks():
    frame = _run(CASES["surv2"]["spec"] | {"as_probability": None},
                 models=pd.DataFrame({"age": _num(FX["converted"]["surv_age_dcurves"])})).as_frame()
    at = frame.loc[frame["threshold"] == 0.25, "net_benefit"].to_numpy()
    assert np.allclose(at, _num(FX["stated"]["surv2"]), rtol=1e-5, atol=1e-7)


def test_as_tibble_example_and_column_order():
    """as_tibble.dca.Rd and test-as_tibble.R: R's columns, in R's order, then calstats'
    standardized net benefit (and net interventions avoided once added)."""
    frame = _run(CASES["binary1"]["spec"]).as_frame()
    r_cols = ["model" if c == "variable" else c for c in CASES["binary1"]["table"]]
    assert list(frame.columns) == r_cols + ["standardized_net_benefit"]
    nia = _run(CASES["nia_binary"]["spec"]).as_frame()
    assert list(nia.columns) == r_cols + ["standardized_net_benefit", "net_intervention_avoided"]
    assert frame["n"].tolist() == [750] * 300


# --------------------------------------------------------------------------------------
# test_consequences()

@pytest.mark.parametrize("cid", list(TC))
def test_test_consequences_matches_r(cid):
    case = TC[cid]
    spec = case["spec"]
    p = pd.DataFrame({m: _col(spec["data"], m) for m in spec["models"]})
    kw = {"thresholds": _num(spec["thresholds"])} if "thresholds" in spec else {}
    kw.update({k: v for k, v in _kwargs(spec, thresholds=False).items()})
    if "statistics" in spec:
        kw["statistics"] = spec["statistics"]
    res = dc.test_consequences(p, _outcome(spec), **kw)
    assert res.inherits("tbl_df") and res.print_text().splitlines() == case["printed_df"]
    frame = res.as_frame()
    table = case["table"]
    assert list(frame.columns) == ["model" if c == "variable" else c for c in table]
    assert frame["model"].tolist() == table["variable"]
    assert [str(v) for v in frame["label"]] == table["label"]
    for col in table:
        if col not in ("variable", "label"):
            _same(frame[col], _num(table[col]))
            assert np.array_equal(_is_na(frame[col].to_numpy(dtype=np.float64)), [v == "NA" for v in table[col]])


def test_test_consequences_testthat_two_by_two():
    """test-test_consequences.R: famhistory at 0.5 against its 2x2 table."""
    spec = TC["tc_test"]["spec"]
    p = pd.DataFrame({m: _col(spec["data"], m) for m in spec["models"]})
    frame = dc.test_consequences(p, _outcome(spec), thresholds=[0.5]).as_frame().set_index("model")
    a, b, c, d = (FX["tc_table"][k][0] for k in "abcd")
    n = a + b + c + d
    expected = {"n": n, "threshold": 0.5, "pos_rate": (a + c) / n, "neg_rate": (b + d) / n,
                "test_pos_rate": (a + b) / n, "test_neg_rate": (c + d) / n, "tp_rate": a / n, "fp_rate": b / n,
                "fn_rate": c / n, "tn_rate": d / n, "ppv": a / (a + b), "npv": d / (c + d), "sens": a / (a + c),
                "spec": d / (b + d), "lr_pos": (a / (a + c)) / (1 - (d / (b + d))),
                "lr_neg": (1 - (a / (a + c))) / (d / (b + d))}
    row = frame.loc["famhistory"]
    for key, value in expected.items():
        assert row[key] == pytest.approx(value, rel=1.5e-8), key  # testthat's tolerance


def test_test_consequences_result_protocol():
    res = dc.test_consequences(PRED, CANCER, [0.1, 0.5])
    assert res.r_class == ("tbl_df", "tbl", "data.frame")
    assert "<table" in res._repr_html_() and "| model" in res.as_markdown() and "tabular" in res.as_latex()
    assert str(res) == res.print_text()[:-1] and res.print_text().startswith("  variable label   n threshold")
    assert res.as_frame() is not res.table


def test_test_consequences_is_not_collected_as_a_test():
    assert dc.test_consequences.__test__ is False and dc.TestConsequences.__test__ is False


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 1), st.integers(0, 3)), min_size=3, max_size=25))
def test_test_consequences_weights_are_replicated_rows(rows):
    p = np.array([r[0] / 8 for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([float(r[2]) for r in rows])
    if w.sum() == 0:
        w[0] = 1.0
    rep = np.repeat(np.arange(len(rows)), w.astype(int))
    a = dc.test_consequences(p, y, weights=w).as_frame()
    b = dc.test_consequences(p[rep], y[rep]).as_frame()
    for col in TEST_STATISTICS:
        assert np.allclose(a[col], b[col], rtol=1e-12, atol=1e-15, equal_nan=True), col
    if 0 < y[rep].sum() < rep.size:  # the identities of the two-by-two table
        assert np.allclose(b["tp_rate"] + b["fp_rate"], b["test_pos_rate"], atol=1e-15)
        assert np.allclose(b["test_pos_rate"] + b["test_neg_rate"], 1, atol=1e-15)


def test_test_consequences_marker_and_threshold_one():
    """dcurves does not check that the risks lie in [0, 1], and 1 is a threshold like any
    other (a risk of 1 is test-positive at 1, without dca()'s shift)."""
    p = np.array([0.0, 0.5, 1.0, 1.0, 3.0])
    y = np.array([0, 1, 1, 0, 1])
    f = dc.test_consequences({"m": p}, y, [0.0, 1.0], statistics=["test_pos_rate", "tp_rate"]).as_frame()
    assert f["test_pos_rate"].tolist() == [1.0, 0.6]
    assert list(f.columns) == ["model", "label", "n", "threshold", "test_pos_rate", "tp_rate"]


# --------------------------------------------------------------------------------------
# net interventions avoided, labels, plots

def test_net_intervention_avoided_method_and_errors():
    res = _run(CASES["binary1"]["spec"])
    a = res.net_intervention_avoided(100).as_frame()
    b = net_intervention_avoided(res, 100).as_frame()
    _same(a["net_intervention_avoided"], b["net_intervention_avoided"])
    assert "net_intervention_avoided" not in res.as_frame()  # the input is unchanged
    again = net_intervention_avoided(net_intervention_avoided(res, 100), 1)
    _same(again.as_frame()["net_intervention_avoided"], _num(CASES["nia_binary"]["table"]["net_intervention_avoided"]))
    assert "Net interventions avoided per 1 patients:" in again.print_text()
    for bad in (0, -1, np.inf, "a", [1, 2]):
        with pytest.raises(CalstatsError, match="Argument `nper` must be a single positive number."):
            net_intervention_avoided(res, bad)
    with pytest.raises(CalstatsError, match="must be a DecisionCurve"):
        net_intervention_avoided(pd.DataFrame({"mpg": [21.0]}))  # test-net_intervention_avoided.R: mtcars


def test_label_example_and_legend():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    res = _run(CASES["dca_rd_binary"]["spec"])  # dca.Rd
    assert list(res.as_frame()["label"].cat.categories) == ["Treat All", "Treat None", "Prediction Model",
                                                             "Biomarker"]
    fig, ax = plt.subplots()
    res.plot(ax=ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Treat All", "Treat None", "Prediction Model",
                                                                 "Biomarker"]
    renamed = decision_curve({"m": _col("df_binary", "cancerpredmarker")}, _col("df_binary", "cancer").astype(int),
                             [0.1], label={"all": "Everyone", "none": "No one"})
    assert [str(v) for v in renamed.as_frame()["label"]] == ["Everyone", "No one", "m"]
    plt.close("all")


def test_plot_types_as_dcurves():
    """test-plot.R: plot() after net_intervention_avoided() draws the net interventions
    avoided, type = "net_benefit" still the net benefit; the net interventions avoided
    cannot be drawn before they are computed (R's message)."""
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    res = _run(CASES["binary1"]["spec"])
    with pytest.raises(CalstatsError) as err:
        res.plot(type="net_intervention_avoided")
    assert str(err.value) == FX["errors"]["plot_nia_not_computed"]
    with pytest.raises(CalstatsError, match="Argument `type` must be one of"):
        res.plot(type="nb")
    nia = net_intervention_avoided(res)
    fig, ax = plt.subplots()
    nia.plot(ax=ax)
    assert ax.get_ylabel() == "Net reduction in interventions" and ax.get_ylim() == (0, 1)
    y = nia.as_frame().query("model == 'cancerpredmarker'")["net_intervention_avoided"].to_numpy()
    assert np.array_equal(ax.lines[2].get_ydata(), y[~np.isnan(y)])
    fig, ax = plt.subplots()
    net_intervention_avoided(res, 100).plot(ax=ax)
    assert ax.get_ylabel() == "Net reduction in interventions \nper 100 patients" and ax.get_ylim() == (0, 100)
    fig, ax = plt.subplots()
    nia.plot(ax=ax, type="net_benefit")
    assert ax.get_ylabel() == "Net Benefit" and ax.get_ylim() == pytest.approx((-0.014, 0.14))
    fig, ax = plt.subplots()
    res.plot(ax=ax, type="standardized_net_benefit")  # dcurves needs standardized_net_benefit() first
    assert ax.get_ylabel() == "Standardized Net Benefit" and ax.get_ylim() == (-0.02, 1.02)
    plt.close("all")


def test_standardized_net_benefit_with_harm_is_computed():
    """dcurves' standardized_net_benefit() refuses a harm (R: "Cannot combine model harms
    with standardized net benefit."); calstats divides the net benefit, harm included."""
    b = FX["data"]["df_binary"]
    res = decision_curve({"cancerpredmarker": _num(b["cancerpredmarker"])}, _num(b["cancer"]).astype(int), [0.25],
                         harm={"cancerpredmarker": 0.5}).as_frame()
    _same(res["standardized_net_benefit"], res["net_benefit"] / res["pos_rate"])
    assert res["harm"].tolist() == [0, 0, 0.5]


# --------------------------------------------------------------------------------------
# test-dca.R's "dca() errors print with bad inputs" and the other files' error cases

B = FX["data"]["df_binary"]
S = FX["data"]["df_surv"]
PRED, CANCER = _num(B["cancerpredmarker"]), _num(B["cancer"]).astype(int)
SURV_Y = (_num(S["ttcancer"]), _num(S["cancer"]).astype(int))
SURV_P = _num(S["cancerpredmarker"])
R_ERR = FX["errors"]


@pytest.mark.parametrize("key, call", [
    ("reserved_all", lambda: decision_curve({"cancerpredmarker": PRED, "all": np.ones(750)}, CANCER)),
    ("age_not_probability", lambda: decision_curve({"age": _num(B["age"])}, CANCER)),
    ("surv_no_time", lambda: decision_curve(SURV_P, SURV_Y)),
    ("surv_time_1000", lambda: decision_curve(SURV_P, SURV_Y, time=1000)),
    ("plot_nia_not_computed", lambda: decision_curve(PRED, CANCER).plot(type="net_intervention_avoided")),
])
def test_errors_with_dcurves_messages(key, call):
    with pytest.raises(CalstatsError) as err:
        call()
    assert str(err.value) == R_ERR[key]


@pytest.mark.parametrize("key, call, message", [
    ("outcome_not_binary", lambda: decision_curve({"cancer": CANCER.astype(float)}, PRED), "binary labels"),
    ("label_letters", lambda: decision_curve(PRED, CANCER, label="abc"),
     "Argument `label` must be a mapping of model names to labels."),
    ("label_list_letters", lambda: decision_curve(PRED, CANCER, label=list("abc")),
     "Argument `label` must be a mapping of model names to labels."),
    ("label_unknown", lambda: decision_curve(PRED, CANCER, label={"zz": "a"}),
     "Argument `label` names a model that is not in `p`: zz."),
    ("harm_letters", lambda: decision_curve(PRED, CANCER, harm="abc"), "Argument `harm` must be a finite number"),
    ("harm_list_letters", lambda: decision_curve(PRED, CANCER, harm=list("abc")),
     "Argument `harm` must be a finite number"),
    ("as_probability_numbers", lambda: decision_curve(PRED, CANCER, as_probability=[1, 2, 3, 4, 5]),
     "Argument `as_probability` must be a model name or a list of model names."),
    ("as_probability_true", lambda: decision_curve(PRED, CANCER, as_probability=True),
     "Argument `as_probability` must be a model name or a list of model names."),
    ("as_probability_unknown", lambda: decision_curve({"a": PRED}, CANCER, as_probability="zz"),
     "Argument `as_probability` names a model that is not in `p`: zz."),
    ("competing_as_probability",
     lambda: decision_curve({"age": _num(S["age"])}, (_num(S["ttcancer"]), _col("df_surv", "cancer_cr")), time=1,
                            as_probability="age"),
     "Argument `as_probability` is not available for a competing-risk outcome"),
    ("as_probability_weights", lambda: decision_curve({"a": PRED}, CANCER, as_probability="a", weights=np.ones(750)),
     "Argument `as_probability` cannot be combined with `weights`"),
    ("as_probability_no_events",
     lambda: decision_curve({"a": SURV_P}, (SURV_Y[0], np.zeros(750, dtype=int)), time=1, as_probability="a"),
     "Error in a. Its Cox model gives no risks (fewer than two observations, no events or a constant marker)."),
    ("as_probability_one_row", lambda: decision_curve({"a": [0.5]}, ([1.0], [1]), time=1, as_probability="a"),
     "Error in a. Its Cox model gives no risks"),
    ("as_probability_constant", lambda: decision_curve({"a": [0.5] * 4}, ([1.0, 2, 3, 4], [1, 0, 1, 1]), time=3,
                                                       as_probability="a"), "Error in a. Its Cox model gives no risks"),
    ("tc_label_letters", lambda: dc.test_consequences(PRED, CANCER, label=list("abc")),
     "Argument `label` must be a mapping of model names to labels."),
    ("tc_statistics", lambda: dc.test_consequences(PRED, CANCER, statistics=["sens", "sensitivity"]),
     "Argument `statistics` must name statistics of `TEST_STATISTICS`: 'sensitivity' is not one."),
    ("tc_statistics_type", lambda: dc.test_consequences(PRED, CANCER, statistics=1),
     "Argument `statistics` must be a statistic's name or a list of them (`TEST_STATISTICS`)."),
    ("tc_thresholds", lambda: dc.test_consequences(PRED, CANCER, [0.5, 1.5]),
     "Argument `thresholds` must contain values in `[0, 1]`."),
    ("tc_time_binary", lambda: dc.test_consequences(PRED, CANCER, time=1), "applies only to a time-to-event"),
])
def test_errors_in_calstats_words(key, call, message):
    with pytest.raises(CalstatsError) as err:
        call()
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_formula_interface_errors():
    """test-dca.R's ``formula = letters`` and ``data = letters`` through calstats' formula
    interface: one line each."""
    import calstats.formula.api as cf

    df = pd.DataFrame({"cancer": CANCER, "cancerpredmarker": PRED})
    for call in (lambda: cf.decision_curve(list("abc"), df), lambda: cf.decision_curve("cancer ~ cancerpredmarker",
                                                                                        list("abc"))):
        with pytest.raises(CalstatsError) as err:
            call()
        assert "\n" not in str(err.value)
    res = cf.decision_curve("cancer ~ cancerpredmarker", df, thresholds=_num(FX["thresholds_default"]))
    _compare_table(res.as_frame(), CASES["binary1"])


def test_inputs_not_mutated_and_float32():
    age = _num(B["age"])
    keep = age.copy()
    a = decision_curve({"age": age}, CANCER, [0.1, 0.25], as_probability=["age"]).as_frame()
    assert np.array_equal(age, keep)
    b = decision_curve({"age": age.astype(np.float32)}, CANCER, [0.1, 0.25], as_probability="age").as_frame()
    # float32 ages move the converted risks by rounding only (~1e-7): no row may cross a threshold.
    # One row crossing moves a net benefit by 1/750 or 0.1/0.9/750 = 1.5e-4 at threshold 0.1, which
    # the earlier atol=1e-3 let through; 1e-5 does not (measured: equal)
    assert a.shape == b.shape and np.allclose(a["net_benefit"], b["net_benefit"], rtol=0, atol=1e-5)

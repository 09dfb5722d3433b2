"""Decision curve analysis (dcurves' dca) and the Kaplan-Meier estimate (survival's survfit).

Formulas checked here (dcurves 0.5.1): test-positive means ``p >= t`` (a risk of exactly 0
is never positive, exactly 1 always); ``NB = tp_rate - t / (1 - t) * fp_rate - harm``;
binary ``tp_rate = TP / n``, ``fp_rate = FP / n``; treat all ``NB = prev - (1 - prev) t /
(1 - t)``; treat none 0; ``standardized NB = NB / prev``; time to event ``tp_rate = P(p >= t)
(1 - S_KM(h | p >= t))``, ``fp_rate = P(p >= t) S_KM(h | p >= t)``, ``prev = 1 - S_KM(h)``.
R references: tests/fixtures/decision.json (tools/r-reference/make_decision.R).
"""

from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats._errors import CalstatsError
from calstats.clinical.decision import DEFAULT_THRESHOLDS, DecisionCurve, decision_curve
from calstats.ports.survival.km import km_fit, km_survival

FIX = load_fixture("decision")
TOL = 1e-12
RATE_COLUMNS = ("tp_rate", "fp_rate", "net_benefit", "standardized_net_benefit")


def _num(x):
    return np.array([np.nan if isinstance(v, str) else v for v in x], dtype=np.float64)


def _names(x):
    return [x] if isinstance(x, str) else list(x)


def _close(a, b, tol=TOL):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    with np.errstate(invalid="ignore"):
        diff = np.where(a[ok] == b[ok], 0.0, np.abs(a[ok] - b[ok]))  # equal infinities
    assert np.all(diff <= tol), np.max(diff)


def _run(case):
    models = {k: _num(case["models"][k]) for k in _names(case["model_names"])}
    if case["y"] is not None:
        y = _num(case["y"]).astype(np.int64)
    else:
        y = (_num(case["time"]), _num(case["event"]).astype(np.int64))
    harm = {k: v[0] for k, v in case["harm"].items()} if case["harm"] else 0
    return decision_curve(
        models, y, _num(case["thresholds"]), harm=harm,
        weights=None if case["weights"] is None else _num(case["weights"]),
        time=None if case["horizon"] is None else case["horizon"][0],
        prevalence=None if case["prevalence"] is None else case["prevalence"][0])


def _nb(res, model, t):
    f = res.as_frame()
    return f.loc[(f["model"] == model) & (f["threshold"] == t)].iloc[0]


# --------------------------------------------------------------------------------------
# Kaplan-Meier against survival 3.5-3


@pytest.mark.parametrize("case", FIX["km"], ids=[c["name"] for c in FIX["km"]])
def test_km_matches_survfit(case):
    w = None if case["weights"] is None else _num(case["weights"])
    t, e = _num(case["time"]), _num(case["event"])
    _close(km_survival(t, e, _num(case["at"]), weights=w), _num(case["surv"]))
    fit = km_fit(t, e, w)
    assert np.array_equal(fit.time, _num(case["fit_time"]))
    _close(fit.surv, _num(case["fit_surv"]))
    _close(fit.n_risk, _num(case["fit_n_risk"]))
    _close(fit.n_event, _num(case["fit_n_event"]))
    assert fit.names() == ["n", "time", "n.risk", "n.event", "surv", "type"]  # survfit's order
    assert fit["n"] == t.size and fit["type"] == "right" and fit["n.risk"] is fit.n_risk


def test_km_order_of_at_and_scalar():
    case = FIX["km"][0]
    t, e, at = _num(case["time"]), _num(case["event"]), _num(case["at"])
    perm = np.arange(at.size)[::-1]
    _close(km_survival(t, e, at[perm]), _num(case["surv"])[perm])
    assert km_survival(t, e, float(at[3])).shape == (1,)
    # a hand case: 5/6 after time 1, times 3/4 after time 3
    _close(km_survival([1, 2, 3, 4, 5, 6], [1, 0, 1, 1, 0, 1], [0.5, 1, 3.5]), [1, 5 / 6, 5 / 8], 1e-15)


def test_km_inputs_not_mutated_and_float32():
    t = np.array([3.0, 1.0, 2.0, 2.0], dtype=np.float32)
    e = np.array([1, 0, 1, 1])
    before = t.copy()
    out = km_survival(t, e, [2.5])
    assert np.array_equal(t, before)
    _close(out, [1 / 3], 1e-15)


@pytest.mark.parametrize("args, message", [
    (([1, np.nan], [1, 0], [1]), "finite survival times"),
    (([1, 2], [1, 2], [1]), "`0` (censored) and `1` (event)"),
    (([1, 2], [1], [1]), "must have the same length"),
    (([], [], [1]), "no non-missing observations"),
    (([1, 2], [1, 0], [np.inf]), "`at` must contain finite times"),
])
def test_km_errors(args, message):
    with pytest.raises(CalstatsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        km_survival(*args)
    with pytest.raises(CalstatsError, match="case weights"):
        km_survival([1, 2], [1, 0], [1], weights=[1, -1])


# --------------------------------------------------------------------------------------
# decision curves against the R computation of dcurves' formulas


def test_default_thresholds_are_r_seq():
    assert np.array_equal(DEFAULT_THRESHOLDS, _num(FIX["seq_default"])[1:])


@pytest.mark.parametrize("case", FIX["decision"], ids=[c["name"] for c in FIX["decision"]])
def test_decision_matches_r(case):
    res = _run(case)
    frame = res.as_frame()
    _close([res.prevalence], _num(case["pos_rate"]))
    models = ["all", "none"] + _names(case["model_names"])
    assert list(pd.unique(frame["model"])) == models
    for row in case["rows"]:
        sub = frame[frame["model"] == row["model"]]
        assert np.array_equal(sub["threshold"].to_numpy(), _num(case["thresholds"]))
        for col in RATE_COLUMNS:
            _close(sub[col].to_numpy(), _num(row[col]))


def test_dcurves_published_values():
    """dcurves' own tests (tests/testthat/test-dca.R) on its example data."""
    expected = FIX["dcurves_tests"]
    cases = {c["name"]: c for c in FIX["decision"]}
    binary = _run(cases["dcurves df_binary"]).as_frame()
    at = binary[(binary["threshold"] == 0.25) & binary["model"].isin(["all", "none", "cancerpredmarker"])]
    _close(at["net_benefit"], _num(expected["binary_025"]), 1e-7)
    zero = binary[(binary["threshold"] == 0) & binary["model"].isin(["all", "none", "famhistory"])]
    _close(zero["net_benefit"], _num(expected["famhistory_0"]), 1e-15)  # risk 0 is not positive at t = 0
    surv = _run(cases["dcurves df_surv"]).as_frame()
    _close(surv.loc[surv["threshold"] == 0.25, "net_benefit"], _num(expected["surv_025"]), 1e-8)
    cc = _run(cases["dcurves df_case_control"]).as_frame()
    _close(cc.loc[cc["threshold"] == 0.25, "net_benefit"], _num(expected["case_control_025"]), 1e-8)


# --------------------------------------------------------------------------------------
# hand-computed cases

P5 = np.array([0.1, 0.3, 0.3, 0.6, 0.8])
Y5 = np.array([0, 0, 1, 1, 0])


def test_binary_hand_fractions():
    res = decision_curve(P5, Y5, [0.25, 0.3, 0.5, 0.05, 0.9])
    prev = F(2, 5)
    assert res.prevalence == float(prev)
    # t = 0.3: p >= 0.3 holds for the two risks equal to 0.3 -> TP 2, FP 2
    odds = F(3, 7)
    row = _nb(res, "model", 0.3)
    # dcurves computes FP/n as (FP/n0) * (1 - prev) = 2/3 * 3/5, so not always exactly
    assert abs(row["tp_rate"] - float(F(2, 5))) < 1e-16 and abs(row["fp_rate"] - float(F(2, 5))) < 1e-16
    assert abs(row["net_benefit"] - float(F(2, 5) - F(2, 5) * odds)) < 1e-15  # 8/35
    assert abs(row["standardized_net_benefit"] - float((F(2, 5) - F(2, 5) * odds) / prev)) < 1e-15
    # treat all and treat none
    assert abs(_nb(res, "all", 0.3)["net_benefit"] - float(prev - (1 - prev) * odds)) < 1e-15  # 1/7
    assert _nb(res, "none", 0.3)["net_benefit"] == 0
    # t = 0.5: TP 1, FP 1 -> 1/5 - 1/5 * 1 = 0
    assert abs(_nb(res, "model", 0.5)["net_benefit"]) < 1e-16
    # nobody positive (t = 0.9 > max p): zero; everybody positive (t = 0.05): treat all
    nobody = _nb(res, "model", 0.9)
    assert nobody["tp_rate"] == 0 and nobody["fp_rate"] == 0 and nobody["net_benefit"] == 0
    assert _nb(res, "model", 0.05)["net_benefit"] == _nb(res, "all", 0.05)["net_benefit"]


def test_threshold_zero_and_exact_risks():
    p = np.array([0.0, 0.0, 0.4, 1.0])
    y = np.array([1, 0, 1, 0])
    res = decision_curve(p, y, [0.0, 0.5, 0.99])
    # at t = 0 the two risks of exactly 0 are not test-positive: TP 1, FP 1, NB = TP/n
    row = _nb(res, "model", 0.0)
    assert row["tp_rate"] == 0.25 and row["fp_rate"] == 0.25 and row["net_benefit"] == 0.25
    assert _nb(res, "all", 0.0)["net_benefit"] == 0.5 and _nb(res, "none", 0.0)["net_benefit"] == 0
    # a risk of exactly 1 stays positive at every threshold below 1
    assert _nb(res, "model", 0.99)["fp_rate"] == 0.25


@pytest.mark.parametrize("y", [np.zeros(5, dtype=int), np.ones(5, dtype=int)])
def test_one_class_outcome_gives_nan_as_dcurves(y):
    res = decision_curve(P5, y, [0.2, 0.5])
    assert res.prevalence == float(y[0])
    assert res.as_frame()["net_benefit"].isna().all()


def test_survival_hand_case():
    t = np.array([1.0, 2, 3, 4, 5, 6])
    e = np.array([1, 0, 1, 1, 0, 1])
    p = np.array([0.9, 0.2, 0.7, 0.4, 0.1, 0.6])
    res = decision_curve(p, (t, e), [0.5, 0.65, 0.95], time=3.5)
    assert abs(res.prevalence - 3 / 8) < 1e-15  # S(3.5) = 5/6 * 3/4
    # t = 0.5: positives at times 1, 3, 6 (all events): S(3.5) = 2/3 * 1/2 = 1/3; P(pos) = 1/2
    row = _nb(res, "model", 0.5)
    assert abs(row["tp_rate"] - 1 / 3) < 1e-15 and abs(row["fp_rate"] - 1 / 6) < 1e-15
    assert abs(row["net_benefit"] - 1 / 6) < 1e-15
    # t = 0.65: the positives' curve ends at time 3 < 3.5, so dcurves gives NA
    assert np.isnan(_nb(res, "model", 0.65)["net_benefit"])
    # t = 0.95: nobody positive -> risk 0, rates 0
    assert _nb(res, "model", 0.95)["net_benefit"] == 0
    # treat all: KM risk, test-positive rate 1
    assert abs(_nb(res, "all", 0.5)["net_benefit"] - (3 / 8 - 5 / 8)) < 1e-15


def test_survival_prevalence_given_changes_only_pos_rate():
    t = np.array([1.0, 2, 3, 4, 5, 6])
    e = np.array([1, 0, 1, 1, 0, 1])
    p = np.array([0.9, 0.2, 0.7, 0.4, 0.1, 0.6])
    a = decision_curve(p, (t, e), [0.3, 0.5], time=3.5).as_frame()
    b = decision_curve(p, (t, e), [0.3, 0.5], time=3.5, prevalence=0.5).as_frame()
    assert (b["pos_rate"] == 0.5).all()
    assert np.array_equal(a["net_benefit"], b["net_benefit"])
    _close(b["standardized_net_benefit"], a["net_benefit"] / 0.5, 1e-15)


def test_harm_number_and_mapping():
    base = decision_curve(P5, Y5, [0.3]).as_frame()
    h = decision_curve(P5, Y5, [0.3], harm=0.01).as_frame()
    assert np.array_equal(h["net_benefit"].to_numpy()[:2], base["net_benefit"].to_numpy()[:2])  # all, none
    assert h["net_benefit"].iloc[2] == base["net_benefit"].iloc[2] - 0.01
    m = decision_curve({"a": P5, "b": P5}, Y5, [0.3], harm={"b": 0.02, "all": 0.5}).as_frame()
    assert list(m["harm"]) == [0.5, 0.0, 0.0, 0.02]


# --------------------------------------------------------------------------------------
# invariants


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 1), st.integers(0, 3)), min_size=2, max_size=25))
def test_integer_weights_equal_replicated_rows(rows):
    p = np.array([r[0] / 10 for r in rows])
    y = np.array([r[1] for r in rows])
    w = np.array([float(r[2]) for r in rows])
    if w.sum() == 0:
        w[0] = 1.0
    rep = np.repeat(np.arange(len(rows)), w.astype(int))
    thr = [0.0, 0.15, 0.5, 0.85]
    a = decision_curve(p, y, thr, weights=w).as_frame()
    b = decision_curve(p[rep], y[rep], thr).as_frame()
    for col in RATE_COLUMNS:
        _close(a[col], b[col], 1e-12)
    # survival: positive weights only (a row of weight 0 still extends R's time grid)
    w = w + 1.0
    rep = np.repeat(np.arange(len(rows)), w.astype(int))
    times = np.array([1.0 + (i % 4) for i in range(len(rows))])
    a = decision_curve(p, (times, y), thr, weights=w, time=times.max()).as_frame()
    b = decision_curve(p[rep], (times[rep], y[rep]), thr, time=times.max()).as_frame()
    for col in RATE_COLUMNS:
        _close(a[col], b[col], 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=2, max_size=30),
       st.floats(0, 0.99))
def test_net_benefit_bounds(rows, t):
    p = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    f = decision_curve(p, y, [t]).as_frame()
    prev = y.mean()
    if 0 < prev < 1:
        nb = f.set_index("model")["net_benefit"]
        assert nb["model"] <= prev + 1e-15  # never more than perfect prediction
        assert abs(nb["all"] - (prev - (1 - prev) * t / (1 - t))) < 1e-12
        assert nb["none"] == 0


# --------------------------------------------------------------------------------------
# inputs and the result object


def test_input_forms_agree_and_inputs_not_mutated():
    t = np.array([1.0, 2, 3, 4, 5, 6])
    e = np.array([1, 0, 1, 1, 0, 1])
    p = np.array([0.9, 0.2, 0.7, 0.4, 0.1, 0.6])
    keep = p.copy(), t.copy()
    ref = decision_curve(p, (t, e), [0.3, 0.5], time=3.5).as_frame()
    for y in ([t, e], pd.DataFrame({"t": t, "e": e}), np.column_stack([t, e])):
        _close(decision_curve(p, y, [0.3, 0.5], time=3.5).as_frame()["net_benefit"], ref["net_benefit"], 0)
    f32 = decision_curve(p.astype(np.float32), (t, e.astype(bool)), [0.3, 0.5], time=3.5).as_frame()
    assert f32.shape == ref.shape
    assert np.array_equal(p, keep[0]) and np.array_equal(t, keep[1])
    frame = decision_curve(pd.DataFrame({"x": P5, "z": P5 / 2}), pd.Series(Y5), [0.3]).as_frame()
    assert list(frame["model"]) == ["all", "none", "x", "z"]
    named = decision_curve(pd.Series(P5, name="score"), Y5, [0.3])
    assert named.models == ["score"]
    assert decision_curve(P5, Y5, [0.3]).models == ["model"]


def test_result_protocol_and_plot():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    res = decision_curve({"a": P5, "b": P5 ** 2}, Y5)
    assert isinstance(res, DecisionCurve) and res.inherits("dca")
    assert res.names() == ["n", "prevalence", "dca"]
    assert res["n"] == 5 and res["prevalence"] == 0.4
    assert list(res.as_frame().columns) == ["model", "label", "n", "threshold", "pos_rate", "tp_rate", "fp_rate",
                                            "harm", "net_benefit", "standardized_net_benefit"]
    assert len(res.as_frame()) == 4 * 99
    text = res.print_text()
    assert "decision curve analysis" in text and "Treat All" in text and "0.4000" in text
    assert "<table" in res._repr_html_()
    fig, ax = plt.subplots()
    res.plot(ax=ax)
    assert len(ax.lines) == 4 and ax.get_ylim() == pytest.approx((-0.04, 0.4))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Treat All", "Treat None", "a", "b"]
    fig2, ax2 = plt.subplots()
    res.plot(ax=ax2, standardized=True)
    assert ax2.get_ylim() == pytest.approx((-0.02, 1.02))
    plt.close("all")
    surv = decision_curve(P5, (np.arange(1.0, 6), Y5), [0.3], time=2)
    assert surv.names() == ["n", "prevalence", "time", "dca"] and surv.time == 2.0


# --------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("call, message", [
    (lambda: decision_curve(P5 + 0.5, Y5), "Error in model. All covariates/risks must be between 0 and 1."),
    (lambda: decision_curve({"a": P5 - 0.2}, Y5), "Error in a. All covariates/risks must be between 0 and 1."),
    (lambda: decision_curve(np.array([0.1, np.nan]), [0, 1]), "must not contain missing values"),
    (lambda: decision_curve(np.ones((5, 2)) / 2, Y5), "must be a 1-d array of risks"),
    (lambda: decision_curve({"all": P5}, Y5), "Variables cannot be named 'all' or 'none': they are reserved."),
    (lambda: decision_curve(P5, Y5 + 1), "binary labels"),
    (lambda: decision_curve(P5, pd.DataFrame(np.zeros((5, 3)))), "must be a 0/1 vector"),
    (lambda: decision_curve(P5, np.array([True, False, None, True, False], dtype=object)), "missing"),
    (lambda: decision_curve(P5, Y5[:4]), "Arguments `p` and `y` must have the same length."),
    (lambda: decision_curve(P5, Y5, [0.1, 1.0]), "Argument `thresholds` must contain values in `[0, 1)`."),
    (lambda: decision_curve(P5, Y5, [-0.1]), "Argument `thresholds` must contain values in `[0, 1)`."),
    (lambda: decision_curve(P5, (np.arange(5.0), Y5)), "`time=` must be specified for survival endpoints."),
    (lambda: decision_curve(P5, (np.arange(5.0), Y5), time=np.inf), "Argument `time` must be a single finite number."),
    (lambda: decision_curve(P5, Y5, time=1), "applies only to a time-to-event outcome"),
    (lambda: decision_curve(P5, (np.arange(5.0), Y5), time=10),
     "Cannot calculate outcome prevalence at specified time, likely due to no observed data beyond selected time."),
    (lambda: decision_curve(P5, Y5, harm="x"), "Argument `harm` must be a finite number or a mapping"),
    (lambda: decision_curve(P5, Y5, harm={"zz": 1}), "Argument `harm` names a model that is not in `p`: zz."),
    (lambda: decision_curve(P5, Y5, prevalence=1.5), "Argument `prevalence` must be `None` or a single number"),
    (lambda: decision_curve(P5, Y5, weights=[1, 1]), "must have one value per observation"),
])
def test_errors(call, message):
    with pytest.raises(CalstatsError) as err:
        call()
    assert message in str(err.value)
    assert "\n" not in str(err.value)

"""Competing risks against R: cmprsk::cuminc and timepoints, riskRegression::Score with a
cause (AUC and Brier with their standard errors), plotCalibration's quantile groups
(observed risk by Aalen-Johansen), and dcurves' decision curve with a competing event
(its testthat case on df_surv's cancer_cr, with R's numbers). Fixtures:
tools/r-reference/make_survival_metrics.R (cmprsk 2.2-11, riskRegression 2022.11.28,
dcurves 0.5.1.9000 from its sources)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats import CalstatsError, Surv
from calstats.clinical import cr_calibration, cuminc, decision_curve, time_auc, time_brier

FX = load_fixture("competing_risks")
DATA = FX["data"]


def _num(v):
    if isinstance(v, list):
        return np.array([math.nan if x in (None, "NA", "NaN") else float(x) for x in v])
    return math.nan if v in (None, "NA", "NaN") else float(v)


def _list(v):
    return v if isinstance(v, list) else [v]


def _close(got, want, rtol):
    got = np.atleast_1d(np.asarray(got, dtype=float))
    want = np.atleast_1d(_num(want) if isinstance(want, list) else np.asarray(_num(want), dtype=float))
    assert got.shape == want.shape, (got, want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=0)


def _data(name):
    return {k: _num(v) for k, v in DATA[name].items()}


def _same_curves(fit, case):
    """cmprsk's curves of a cuminc case, exactly: their names, times, estimates and variances."""
    assert fit.names() == case["names"]
    for name in case["names"]:
        curve = case["curves"][name]
        _close(fit[name]["time"], curve["time"], 0)
        _close(fit[name]["est"], curve["est"], 0)
        _close(fit[name]["var"], curve["var"], 0)


# --------------------------------------------------------------------------------------
# cuminc


@pytest.mark.parametrize("case", FX["cuminc"], ids=[c["data"] for c in FX["cuminc"]])
def test_cuminc_matches_cmprsk(case):
    d = _data(case["data"])
    fit = cuminc(d["time"], d["event"].astype(int), _num(case["times"]))
    _same_curves(fit, case)
    _close(fit.times, case["tp_times"], 0)
    for i, name in enumerate(case["names"]):
        _close(fit.est.loc[name], case["tp_est"][i], 0)
        _close(fit.var.loc[name], case["tp_var"][i], 0)
    # print.cuminc at R's pretty grid
    default = cuminc(d["time"], d["event"].astype(int))
    assert default.print_text().splitlines() == case["print"]


def test_cuminc_one_cause_and_forms():
    d = _data("cr")
    t, e = d["time"], d["event"].astype(int)
    one = cuminc(t, e, [3, 8], cause=2)
    assert one.names() == ["1 2"]
    both = cuminc(Surv(t, e), None, [3, 8])
    assert np.array_equal(both.est.loc["1 2"], one.est.loc["1 2"])
    cat = pd.Categorical.from_codes(e, ["censored", "relapse", "death"])
    named = cuminc(t, cat, [3, 8])
    assert named.names() == ["1 relapse", "1 death"]
    assert np.array_equal(named.est.to_numpy(), both.est.to_numpy())
    assert list(both.as_frame().columns) == ["curve", "time", "est", "var"]
    with pytest.raises(CalstatsError, match=r"^Argument `cause` must be one of the causes in the outcome: `1`, `2`\.$"):
        cuminc(t, e, [3], cause=3)
    with pytest.raises(CalstatsError, match=r"^Argument `event` must contain event codes"):
        cuminc(t, e - 1, [3])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 10), st.sampled_from([0, 1, 2, 2])), min_size=2, max_size=30))
def test_cuminc_sums_to_one_minus_km(rows):
    """The cumulative incidences of all causes add up to 1 - Kaplan-Meier of any event."""
    from calstats.ports.survival.km import km_survival

    t = np.array([r[0] for r in rows], dtype=float)
    e = np.array([r[1] for r in rows])
    if not (e > 0).any():
        return
    fit = cuminc(t, e, [3, 6, 9])
    total = np.nansum(fit.est.to_numpy(), axis=0)
    km = km_survival(t, (e > 0).astype(int), [3, 6, 9])
    ok = ~np.isnan(fit.est.to_numpy()).any(axis=0)
    np.testing.assert_allclose(total[ok], 1 - km[ok], atol=1e-12)


# --------------------------------------------------------------------------------------
# Score with a cause


@pytest.mark.parametrize("case", FX["score"], ids=[c["id"] for c in FX["score"]])
def test_score_with_a_cause_matches_riskregression(case):
    d = _data(case["data"].replace("_cr", ""))
    cause = int(case["cause"])
    n = d["time"].size
    models = {k: _num(v).reshape(-1, n).T for k, v in case["models"].items()}
    times = _num(case["times"])
    auc = time_auc(d["time"], d["event"].astype(int), models, times, cause=cause)
    brier = time_brier(d["time"], d["event"].astype(int), models, times, cause=cause)
    assert list(brier.score["model"]) == _list(case["brier"]["model"])
    _close(auc.score["AUC"], case["auc"]["AUC"], 0)
    _close(auc.score["se"], case["auc"]["se"], 1e-15)
    _close(brier.score["Brier"], case["brier"]["Brier"], 0)
    _close(brier.score["se"], case["brier"]["se"], 1e-15)
    _close(brier.contrasts["p"], case["brier_contrasts"]["p"], 1e-10)
    assert brier.cause == str(cause)
    text = [s.rstrip() for s in (auc.print_text() + brier.print_text()).splitlines()
            if s.strip() and not s.startswith("NOTE")]
    assert text == [s.rstrip() for s in case["print"] if s.strip() and not s.startswith("NOTE")]


def test_cause_must_be_present():
    d = _data("cr")
    with pytest.raises(CalstatsError, match=r"^Argument `cause` must be one of the causes in the outcome"):
        time_brier(d["time"], d["event"].astype(int), d["risk"], [3], cause=7)
    # event codes without `cause` are not a right-censored status
    with pytest.raises(CalstatsError, match=r"^Argument `status` must contain only `0` \(censored\)"):
        time_brier(d["time"], d["event"].astype(int), d["risk"], [3])


# --------------------------------------------------------------------------------------
# calibration in risk groups


@pytest.mark.parametrize("case", FX["calibration"],
                         ids=[f'{c["data"]}-{c["cause"]}-{c["q"]}' for c in FX["calibration"]])
def test_cr_calibration_matches_plotcalibration(case):
    d = _data(case["data"])
    cause = case["cause"]
    status = d["event"].astype(int) if cause is not None else d["status"].astype(int)
    fit = cr_calibration(d["time"], status, d["risk"], case["horizon"], cause=cause, q=case["q"])
    _close(fit.quantiles, case["quantiles"], 0)
    assert list(fit.frame["group"]) == case["groups"]
    _close(fit.frame["Pred"], case["Pred"], 0)
    _close(fit.frame["Obs"], case["Obs"], 0)
    assert fit.frame["n"].sum() == d["time"].size
    assert "Pred" in fit.print_text()


def test_cr_calibration_messages():
    d = _data("codes")
    want = FX["calibration_errors"]["ties"]
    assert want == "'breaks' are not unique"
    with pytest.raises(CalstatsError, match=r"^'breaks' are not unique"):
        cr_calibration(d["time"], d["event"].astype(int), np.tile([0.1, 0.5], 6), 8, cause=5)
    with pytest.raises(CalstatsError, match=r"^No evaluation time before end of followup"):
        cr_calibration(d["time"], d["event"].astype(int), d["risk"], 100, cause=5)
    with pytest.raises(CalstatsError, match=r"^Argument `horizon` must be a single finite time\.$"):
        cr_calibration(d["time"], d["event"].astype(int), d["risk"], [1, 2], cause=5)


# --------------------------------------------------------------------------------------
# the decision curve with a competing event (dcurves)


@pytest.mark.parametrize("case", FX["dca"], ids=[c["id"] for c in FX["dca"]])
def test_competing_decision_curve_matches_dcurves(case):
    codes = _num(case["ev_codes"]).astype(int)
    cat = pd.Categorical.from_codes(codes, case["levels"])
    y = (_num(case["time"]), cat)
    thr = _num(case["thresholds"])
    res = decision_curve(pd.Series(_num(case["m"]), name="m"), y, thr, time=case["horizon"]).as_frame()
    # dcurves' rows: all, none, the model; survfit's Aalen-Johansen, R's bits
    _close(res["pos_rate"], case["pos_rate"], 0)
    _close(res["tp_rate"], case["tp_rate"], 0)
    _close(res["fp_rate"], case["fp_rate"], 0)
    _close(res["net_benefit"], case["net_benefit"], 0)
    # the same with event codes and cause = the first cause
    coded = decision_curve(pd.Series(_num(case["m"]), name="m"), (_num(case["time"]), codes), thr,
                           time=case["horizon"], cause=1).as_frame()
    pd.testing.assert_series_equal(coded["net_benefit"], res["net_benefit"])


def test_dcurves_testthat_competing_case():
    """dcurves' own test: dca(Surv(ttcancer, cancer_cr) ~ cancerpredmarker, df_surv, time = 1.5,
    thresholds = 1:50 / 100) runs without error."""
    case = FX["dca"][0]
    cat = pd.Categorical.from_codes(_num(case["ev_codes"]).astype(int), case["levels"])
    res = decision_curve(_num(case["m"]), (_num(case["time"]), cat), np.arange(1, 51) / 100, time=1.5)
    assert res.outcome == "competing" and res.cause == "diagnosed with cancer"
    assert "competing risks" in res.print_text()


def test_competing_decision_curve_choices():
    case = FX["dca"][2]
    t, codes, m = _num(case["time"]), _num(case["ev_codes"]).astype(int), _num(case["m"])
    death = decision_curve(m, (t, codes), [0.2, 0.4], time=6, cause=2)
    relapse = decision_curve(m, (t, codes), [0.2, 0.4], time=6, cause=1)
    assert death.prevalence != relapse.prevalence
    # the prevalence is the Aalen-Johansen cumulative incidence (cmprsk gives the same)
    ci = cuminc(t, codes, [6])
    assert abs(death.prevalence - ci.est.loc["1 2"].iloc[0]) < 1e-14
    # integer weights are repeated rows (a calstats extension: dcurves has no weights)
    w = (np.arange(t.size) % 3) + 1
    rep = np.repeat(np.arange(t.size), w)
    a = decision_curve(m, (t, codes), [0.2, 0.4], time=6, cause=2, weights=w).as_frame()
    b = decision_curve(m[rep], (t[rep], codes[rep]), [0.2, 0.4], time=6, cause=2).as_frame()
    np.testing.assert_allclose(a["net_benefit"], b["net_benefit"], rtol=1e-13)
    with pytest.raises(CalstatsError, match=r"^Argument `cause` applies only to a competing-risk outcome"):
        decision_curve(m, (codes > 0).astype(int), [0.2], cause=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        decision_curve(m, Surv(t, codes), [0.2], time=6)  # a Surv with several causes: competing


def test_formula_api_competing():
    import calstats.formula.api as cf

    d = _data("cr")
    df = pd.DataFrame({"time": d["time"], "event": d["event"].astype(int), "risk": d["risk"]})
    # riskRegression's Event(time, event): the first cause unless `cause` is given
    a = cf.time_brier("Event(time, event) ~ risk", df, times=[3, 5])
    b = time_brier(d["time"], d["event"].astype(int), d["risk"], [3, 5], cause=1)
    assert a.score["Brier"].tolist() == b.score["Brier"].tolist() and a.cause == "1"
    c = cf.time_auc("Event(time, event) ~ risk", df, times=[5], cause=2)
    assert c.cause == "2"
    ci = cf.cuminc("Event(time, event) ~ 1", df, times=[3, 8])
    assert ci.names() == ["1 1", "1 2"]
    cal = cf.cr_calibration("Event(time, event) ~ risk", df, horizon=8, cause=1)
    assert len(cal.frame) == 10
    dc = cf.decision_curve("Event(time, event) ~ risk", df, time=5)
    assert dc.cause == "1" and dc.outcome == "competing"
    with pytest.raises(CalstatsError, match=r"^cuminc takes \"Event\(time, event\) ~ 1\""):
        cf.cuminc("Event(time, event) ~ risk", df)


# --------------------------------------------------------------------------------------
# the result protocol and plots


def test_results_follow_the_protocol():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from calstats.clinical import concordance, cox_calibration_slope, integrated_brier
    from calstats.results._base import Result

    d = _data("cr")
    t, e, r = d["time"], d["event"].astype(int), d["risk"]
    s = (e > 0).astype(int)
    objs = {
        "concordance": concordance(t, s, r),
        "scoreAUC": time_auc(t, e, r, [3, 5], cause=1),
        "scoreBrier": time_brier(t, e, r, [3, 5], cause=1),
        "crps": integrated_brier(t, s, r, [3, 5]),
        "coxph": cox_calibration_slope(t, s, r),
        "cuminc": cuminc(t, e, [3, 5]),
        "calibrationPlot": cr_calibration(t, e, r, 5, cause=1, q=4),
        "dca": decision_curve(r, (t, e), [0.2, 0.4], time=5, cause=1),
    }
    for r_class, obj in objs.items():
        assert isinstance(obj, Result) and obj.inherits(r_class) and not obj.inherits("lm")
        text = obj.print_text()
        assert text.endswith("\n") and str(obj) == text[:-1] and repr(obj) == text[:-1]
        frame = obj.as_frame()
        assert isinstance(frame, pd.DataFrame) and len(frame) > 0
        html = obj._repr_html_()
        assert html.startswith("<h4>") and "<table" in html
        if r_class != "cuminc":  # cuminc's names are its curves', as R's
            values = {obj._attr(n): obj[n] for n in obj.names()}
            extras = {k: obj.__dict__[k] for k in obj._extra_names() if k in obj.__dict__}
            again = type(obj)(**values, **extras)
            assert again.print_text() == text
        if hasattr(obj, "plot"):
            fig, ax = plt.subplots()
            assert obj.plot(ax=ax) is ax
            plt.close(fig)


# --------------------------------------------------------------------------------------
# Gray's test (cuminc with groups and strata; tools/r-reference/make_gray_test.R)

GRAY = load_fixture("gray_test")


def _gray_data(name):
    d = GRAY["data"][name]
    out = {k: (v if k == "group" and isinstance(v[0], str) else _num(v)) for k, v in d.items()}
    return out


@pytest.mark.parametrize("case", GRAY["cases"], ids=[c["id"] for c in GRAY["cases"]])
def test_gray_test_matches_cmprsk(case):
    d = _gray_data(case["data"])
    group = d["group"] if isinstance(d["group"], list) else d["group"].astype(int)
    strata = d["strata"].astype(int) if case["strata"] else None
    fit = cuminc(d["time"], d["event"].astype(int), _num(case["times"]), group=group, strata=strata,
                 rho=case["rho"])
    _same_curves(fit, case)
    tests = case["tests"]
    assert list(fit.tests.index) == _list(tests["causes"])
    _close(fit.tests["stat"], tests["stat"], 0)
    _close(fit.tests["df"], tests["df"], 0)
    _close(fit.tests["pv"], tests["pv"], 1e-14)
    for i, name in enumerate(case["names"]):
        _close(fit.est.loc[name], case["tp_est"][i], 0)
        _close(fit.var.loc[name], case["tp_var"][i], 0)
    default = cuminc(d["time"], d["event"].astype(int), group=group, strata=strata, rho=case["rho"])
    assert default.print_text().splitlines() == case["print"]


def test_gray_test_forms_and_messages():
    d = _gray_data("two")
    t, e, g = d["time"], d["event"].astype(int), d["group"].astype(int)
    a = cuminc(t, e, [5], group=g)
    b = cuminc(Surv(t, e), None, [5], group=pd.Categorical.from_codes(g - 1, ["1", "2"]))
    c = cuminc(t, e, [5], group=pd.Series(g.astype(float)), cause=2)
    pd.testing.assert_frame_equal(a.tests, b.tests)
    assert c.names() == ["1 2", "2 2"] and list(c.tests.index) == ["2"]
    assert c.tests.loc["2", "stat"] == a.tests.loc["2", "stat"]
    # an unused level is dropped, as cmprsk does; one group has no test
    cat = pd.Categorical.from_codes(g - 1, ["1", "2", "3"])
    assert cuminc(t, e, [5], group=cat).tests.equals(a.tests)
    one = cuminc(t, e, [5], group=np.ones(t.size))
    assert one.tests is None and one.names() == ["1 1", "1 2"]
    assert np.array_equal(one.est.to_numpy(), cuminc(t, e, [5]).est.to_numpy())
    assert list(a.as_frame().columns) == ["curve", "time", "est", "var"]
    with pytest.raises(CalstatsError, match=r"^Argument `group` must not contain missing values\.$"):
        cuminc(t, e, [5], group=np.where(np.arange(t.size) == 3, np.nan, g))
    with pytest.raises(CalstatsError, match=r"^Arguments `group` and `time` must have the same length\.$"):
        cuminc(t, e, [5], group=g[:-1])
    with pytest.raises(CalstatsError, match=r"^Argument `rho` must be a single finite number\.$"):
        cuminc(t, e, [5], group=g, rho=np.inf)
    with pytest.raises(CalstatsError, match=r"^Argument `strata` must not be empty\.$"):
        cuminc(t, e, [5], group=g, strata=[])
    # R: cuminc(c(1, 1, 2, 3), rep(1, 4), c("z", "z", "y", "y")) stops in qr (a NaN variance)
    with pytest.raises(CalstatsError, match=r"^Gray's test cannot be computed: the variance of its scores is not "
                                            r"finite .*NA/NaN/Inf in foreign function call'\)\.$"):
        cuminc([1, 1, 2, 3], [1, 1, 1, 1], group=["z", "z", "y", "y"])
    assert cuminc([1, 1, 2, 3], [1, 1, 1, 1], group=[1, 1, 2, 2]).tests["stat"].iloc[0] == 2.9999999999999987  # R


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.sampled_from([0, 1, 2, 2]), st.sampled_from([1, 2, 3])),
                min_size=4, max_size=40))
def test_gray_test_invariants(rows):
    """Relabelling the groups changes neither the statistic nor the p-value, and a
    statistic is -1 (singular variance) or non-negative where the variance of the scores
    is positive semi-definite (R's Fortran variance can be indefinite when a group's
    survival reaches 0 at its last time: then R's statistic is negative too, see
    :func:`test_gray_statistic_negative_as_r`)."""
    t = np.array([r[0] for r in rows], dtype=float)
    e = np.array([r[1] for r in rows])
    g = np.array([r[2] for r in rows])
    if not (e > 0).any() or np.unique(g).size < 2:
        return
    try:
        a = cuminc(t, e, [5], group=g).tests
        b = cuminc(t, e, [5], group=np.array(["z", "y", "x"])[g - 1]).tests
    except CalstatsError as err:  # a group's survival reaches 0: R's cuminc stops too
        assert str(err).startswith("Gray's test cannot be computed")
        return
    from calstats.ports.cmprsk.crstm import crstm

    o = np.argsort(t, kind="stable")
    causes = np.unique(e[e > 0])
    ind = (e[o][None, :] == causes[:, None]).astype(np.int64)
    _, vs = crstm(t[o], 2 * (e[o] > 0)[None, :] - ind, g[o], np.ones(t.size, dtype=np.int64), 3, 1)
    for x in (a, b):
        psd = [np.linalg.eigvalsh(vs[list(causes).index(int(c))]).min() >= -1e-9 for c in x.index]
        assert ((x["stat"] >= -1e-9) | (x["stat"] == -1) | ~np.array(psd)).all()
        assert ((x["pv"] >= 0) & (x["pv"] <= 1)).all()
    np.testing.assert_allclose(a["stat"], b["stat"], rtol=1e-8, atol=1e-10)


def test_gray_statistic_negative_as_r():
    """Group 2's survival reaches 0 at its only time, and Gray's variance is indefinite:
    cmprsk 2.2-11 gives stat = -10.666666666666666 and pv = 1
    (``cuminc(c(1, 2, 2, 2), c(2, 2, 2, 2), c(1, 1, 2, 2))$Tests``)."""
    tests = cuminc([1, 2, 2, 2], [2, 2, 2, 2], [5], group=[1, 1, 2, 2]).tests
    assert tests.iloc[0].tolist() == [-10.666666666666666, 1.0, 1.0]


def _cmprsk_backends():
    """The backend compared with the NumPy reference: the C core; NumPy itself (a check that
    it repeats its bits) only on an install without the core."""
    from calstats.ports.cmprsk import cuminc as port

    return ["c"] if port._core is not None else ["numpy"]


def _same_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return (a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b))
            and a[~np.isnan(a)].tobytes() == b[~np.isnan(b)].tobytes())


@pytest.mark.parametrize("backend", _cmprsk_backends())
def test_cmprsk_backends_give_the_same_bits(backend):
    """cmprsk's Fortran cinc and crst in the C core and their NumPy reference: the same bits
    (curves, Gray's scores and variances, statistics) on random tied data with up to four
    groups, two strata, three causes and rho in {-1, 0, 0.5, 1, 2}."""
    from calstats.ports.cmprsk.crstm import crstm
    from calstats.ports.cmprsk.cuminc import cuminc_curves, cuminc_groups

    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(300):
        n = int(rng.integers(1, 60))
        t = rng.integers(1, int(rng.integers(2, 20)), n).astype(float) / 2
        e = rng.choice([0, 1, 2, 3], n, p=[0.3, 0.3, 0.3, 0.1])
        if not (e > 0).any():
            continue
        _, g = np.unique(rng.integers(1, int(rng.integers(1, 5)) + 1, n), return_inverse=True)
        _, s = np.unique(rng.integers(1, int(rng.integers(1, 3)) + 1, n), return_inverse=True)
        g, s = g + 1, s + 1
        ng, nst = int(g.max()), int(s.max())
        rho = float(rng.choice([0.0, 0.5, 1.0, -1.0, 2.0]))
        with np.errstate(all="ignore"):
            got = cuminc_groups(t, e, g, ng, s, nst, rho, backend=backend)
            want = cuminc_groups(t, e, g, ng, s, nst, rho, backend="numpy")
            one, ref = cuminc_curves(t, e, backend=backend), cuminc_curves(t, e, backend="numpy")
        assert [(c, j) for c, j, _ in got[0]] == [(c, j) for c, j, _ in want[0]]
        for (_, _, a), (_, _, b) in zip(got[0], want[0]):
            assert all(_same_bits(a[f], b[f]) for f in ("time", "est", "var"))
        assert list(got[1]) == list(want[1])
        assert all(_same_bits(got[1][c], want[1][c]) for c in got[1])
        assert list(one) == list(ref)
        assert all(_same_bits(one[c][f], ref[c][f]) for c in one for f in ("time", "est", "var"))
        if ng >= 2:
            o = np.argsort(t, kind="stable")
            causes = np.unique(e[e > 0])
            m = 2 * (e[o] > 0)[None, :] - (e[o][None, :] == causes[:, None]).astype(np.int64)
            with np.errstate(all="ignore"):
                sa, va = crstm(t[o], m, g[o], s[o], ng, nst, rho, backend=backend)
                sb, vb = crstm(t[o], m, g[o], s[o], ng, nst, rho, backend="numpy")
            assert _same_bits(sa, sb) and _same_bits(va, vb)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("group", [None, [1, 2, 1, 2]])
def test_cuminc_without_any_event_is_refused(group):
    """Every time censored: R's cuminc stops in its Fortran ('NAs in foreign function call
    (arg 3)', with or without groups); calstats says why in one line."""
    with pytest.raises(CalstatsError) as err:
        cuminc([1, 2, 3, 4], [0, 0, 0, 0], group=group)
    assert str(err.value) == ("cuminc needs at least one event (an event code other than 0): every time is "
                              "censored (R's cuminc stops with 'NAs in foreign function call (arg 3)').")

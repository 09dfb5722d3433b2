"""calstats.report: every number on the page is the number the function behind it returns.

The page marks each number with its exact value and its place (section, statistic, model,
part); these tests call the public functions directly and compare: every number shown
must be the function's, shown rounded as it says, and every key number must be shown.
"""

import math

import numpy as np
import pandas as pd
import pytest

import calstats
from _report_html import parse, same, shown_matches
from calstats.clinical import (
    concordance,
    cox_calibration_slope,
    cr_calibration,
    cuminc,
    decision_curve,
    hoslem_test,
    integrated_brier,
    pmcalibration,
    time_auc,
    time_brier,
    val_multinomial,
    val_prob_ci,
)
from calstats.numerics.reductions import rmean
from calstats.reporting import report


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(11)
    n = 500
    s = rs.normal(size=n) * 1.3
    y = (rs.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    models = {"A": 1 / (1 + np.exp(-s)), "B": 1 / (1 + np.exp(-1.8 * s + 0.3))}
    rep = report(models, y)
    return models, y, rep


@pytest.fixture(scope="module")
def multiclass():
    rs = np.random.default_rng(12)
    n, k = 450, 3
    z = rs.normal(size=(n, k)) * 1.4
    P = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    codes = np.array([rs.choice(k, p=r) for r in P]) + 1
    Q = np.exp(1.7 * z) / np.exp(1.7 * z).sum(1, keepdims=True)
    cols = ["x", "y", "z"]
    models = {"calibrated": pd.DataFrame(P, columns=cols), "sharp": pd.DataFrame(Q, columns=cols)}
    y = pd.Categorical.from_codes(codes - 1, cols)
    return models, y, report(models, y)


@pytest.fixture(scope="module")
def survival():
    rs = np.random.default_rng(13)
    n = 400
    lp = rs.normal(size=n)
    t = rs.exponential(1 / np.exp(lp - 1))
    c = rs.exponential(3, n)
    time, status = np.minimum(t, c), (t <= c).astype(int)
    models = {"true": 1 - np.exp(-np.exp(lp - 1)), "flat": 1 - np.exp(-np.exp(0.5 * lp - 1.2))}
    return models, (time, status), report(models, (time, status), time=1.0)


def _page_numbers(rep):
    return parse(rep.to_html())


def _check(rep, expected, details=None):
    """Every key number on the page is in ``expected`` (section, stat, model, part) with the
    same value and shown as it is rounded; every expected number is on the page."""
    page = _page_numbers(rep)
    seen = set()
    for num in page.numbers:
        if "data-stat" in num:
            key = (num["data-section"], num["data-stat"], num["data-model"], num["data-part"])
            seen.add(key)
            assert key in expected, key
            assert same(num["data-value"], expected[key]), (key, num["data-value"], expected[key])
        else:
            key = (num["data-section"], num["data-detail"], num["data-model"], num["data-row"], num["data-col"])
            if details is not None and key in details:
                assert same(num["data-value"], details[key]), key
                seen.add(key)
        assert shown_matches(num["text"], float(num["data-value"])), (num["text"], num["data-value"])
    missing = set(expected) - seen
    assert not missing, sorted(missing)[:5]
    if details is not None:
        assert not set(details) - seen, sorted(set(details) - seen)[:5]
    return page


def _decision_expected(wide, models):
    """The decision section's numbers from ``decision_curve(...).net_benefit_table()``: the net
    benefits at the page's thresholds and, per model, the thresholds where it beats both
    treat-all and treat-none."""
    ex = {}
    for t in (0.05, 0.1, 0.2, 0.3, 0.5):
        i = int(np.flatnonzero(np.isclose(wide.index, t))[0])
        ex[("decision", f"net_benefit[{t:g}]", "Treat all", "estimate")] = float(wide["Treat All"].iloc[i])
        for name in models:
            ex[("decision", f"net_benefit[{t:g}]", name, "estimate")] = float(wide[name].iloc[i])
    top = np.maximum(wide["Treat All"], wide["Treat None"])
    for name in models:
        ex[("decision", "best_thresholds", name, "estimate")] = int((wide[name] > top).sum())
    return ex


def _binary_expected(models, y):
    ex = {("data", "rows", "*", "estimate"): len(y), ("data", "events", "*", "estimate"): int(y.sum()),
          ("data", "event_rate", "*", "estimate"): float(rmean(y.astype(float)))}
    det = {}
    for name, p in models.items():
        ex[("data", "mean_risk", name, "estimate")] = float(rmean(p))  # R's mean(p)
        ex[("data", "extreme_risks", name, "estimate")] = int(np.sum((p <= 0) | (p >= 1)))
        h = val_prob_ci(p, y, pl=False)
        # the exact AUC with DeLong's interval under "C-statistic (AUC), DeLong"; R's val.prob.ci.2
        # C (rms' c index of the recalibration fit, Pepe's interval) under its own name
        for part, v in zip(("estimate", "lower", "upper"), h.auc):
            ex[("discrimination", "c_statistic", name, part)] = float(v)
        for part, v in zip(("estimate", "lower", "upper"), h.c):
            ex[("discrimination", "c_rms", name, part)] = float(v)
        for stat, row in (("citl", "Calibration-in-the-large"), ("slope", "Calibration slope")):
            for part in ("estimate", "lower", "upper"):
                ex[("hierarchy", stat, name, part)] = float(h.table.loc[row, part])
        ex[("hierarchy", "oe", name, "estimate")] = float(h.stats["O:E"])
        calstats.rng.set_seed(1)
        m = pmcalibration(y, p, smooth="gam", ci="sim", n=1000).summary().metrics
        for stat in m.index:
            ex[("curve", stat, name, "estimate")] = float(m.loc[stat, "Estimate"])
            ex[("curve", stat, name, "lower")] = float(m.loc[stat, "lower"])
            ex[("curve", stat, name, "upper")] = float(m.loc[stat, "upper"])
        d = calstats.corp(p, y, level=0.9, band="resampling", n_resamples=100, seed=1).decomposition()
        for stat, v in (("brier", d.mean_score), ("mcb", d.miscalibration), ("dsc", d.discrimination),
                        ("unc", d.uncertainty)):
            ex[("corp", stat, name, "estimate")] = float(v)
        ex[("binned", "ece", name, "estimate")] = calstats.ece(p, y, bins=10)
        bins = calstats.reliability_diagram(p, y, bins=10, interval="wilson").as_frame().set_index("bin")
        for b, row in bins.iterrows():
            for col, v in row.items():
                det[("binned", f"bins[{name}]", name, str(b), col)] = float(v)
        for stat, fn, s in (("ks", calstats.cal_ks_test, "G"), ("kuiper", calstats.cal_kuiper_test, "H"),
                            ("spiegelhalter", calstats.cal_spiegelhalter_test, "Z")):
            t = fn(p, y)
            ex[("tests", stat, name, "estimate")] = t.statistic[s]
            ex[("tests", stat, name, "p_value")] = t.p_value
        hl = hoslem_test(y, p, g=10, data_name="y, p")
        ex[("tests", "hosmer_lemeshow", name, "estimate")] = hl.statistic["X-squared"]
        ex[("tests", "hosmer_lemeshow", name, "df")] = hl.parameter["df"]
        ex[("tests", "hosmer_lemeshow", name, "p_value")] = hl.p_value
    dc = decision_curve(dict(models), y).net_benefit_table()
    ex.update(_decision_expected(dc, models))
    for t, row in dc.iterrows():
        for col, v in row.items():
            det[("decision", "net_benefit", "*", f"{t:g}", col)] = float(v)
    return ex, det


def test_every_number_of_a_binary_report_is_the_functions(binary):
    models, y, rep = binary
    ex, det = _binary_expected(models, y)
    page = _check(rep, ex, det)
    assert page.sections == ["data", "discrimination", "hierarchy", "curve", "corp", "binned", "tests", "decision",
                             "provenance"]
    # one figure per model per figure section, the decision curve once
    per_model = [s for s, m in page.figures if m != "*"]
    for sec in ("hierarchy", "curve", "corp", "binned"):
        assert per_model.count(sec) == 2
    assert ("decision", "*") in page.figures and page.svgs == len(page.figures) == 9
    # the data frame of key numbers holds the same numbers
    frame = rep.as_frame()
    for (sec, stat, model, part), v in ex.items():
        row = frame[(frame.section == sec) & (frame.statistic == stat) & (frame.model == model)]
        assert len(row) == 1 and same(row[part if part != "estimate" else "estimate"].iloc[0], v)


def test_every_number_of_a_multiclass_report_is_the_functions(multiclass):
    models, y, rep = multiclass
    ex, det = {}, {}
    codes = np.asarray(y.codes) + 1
    ex[("data", "rows", "*", "estimate")] = len(y)
    ex[("data", "classes", "*", "estimate")] = 3
    for name, P in models.items():
        Pv = P.to_numpy()
        top = Pv.argmax(axis=1) + 1
        ex[("data", "accuracy", name, "estimate")] = float(rmean((top == codes).astype(float)))
        ex[("data", "confidence", name, "estimate")] = float(rmean(Pv.max(axis=1)))
        vm = val_multinomial(P, y)
        ex[("discrimination", "pdi", name, "estimate")] = vm.pdi
        for k, v in vm.pdi_classes.items():
            det[("discrimination", "pdi_classes", "*", k, name)] = float(v)
        for k, r in vm.intercept_table.iterrows():
            for part in ("estimate", "lower", "upper"):
                ex[("hierarchy", f"intercept[{k}]", name, part)] = float(r[part])
        for k, r in vm.slope_table.iterrows():
            for part in ("estimate", "lower", "upper"):
                ex[("hierarchy", f"slope[{k}]", name, part)] = float(r[part])
        for k, r in vm.tests.iterrows():
            ex[("hierarchy", f"lr[{k}]", name, "estimate")] = float(r["statistic"])
            ex[("hierarchy", f"lr[{k}]", name, "df")] = float(r["df"])
            ex[("hierarchy", f"lr[{k}]", name, "p_value")] = float(r["p_value"])
        ex[("hierarchy", "eci", name, "estimate")] = vm.eci
        d = calstats.corp(Pv, codes, level=0.9, n_resamples=100, seed=1, type="confidence").decomposition()
        for stat, v in (("brier", d.mean_score), ("mcb", d.miscalibration), ("dsc", d.discrimination),
                        ("unc", d.uncertainty)):
            ex[("corp", stat, name, "estimate")] = float(v)
        ex[("binned", "ece", name, "estimate")] = calstats.ece(Pv, codes, type="confidence")
        ex[("binned", "ece_classwise", name, "estimate")] = calstats.ece(Pv, codes, type="classwise")
        for stat, fn, s in (("ks", calstats.cal_ks_test, "G"), ("kuiper", calstats.cal_kuiper_test, "H"),
                            ("spiegelhalter", calstats.cal_spiegelhalter_test, "Z")):
            t = fn(Pv, codes)
            ex[("tests", stat, name, "estimate")] = t.statistic[s]
            ex[("tests", stat, name, "p_value")] = t.p_value
    page = _check(rep, ex, det)
    assert page.sections == ["data", "discrimination", "hierarchy", "corp", "binned", "tests", "provenance"]
    assert [r.label for r in rep.section("hierarchy").rows][:2] == ["Intercept, y vs x", "Intercept, z vs x"]


Q975 = 1.959963984540054  # qnorm(0.975)


def _timed_expected(models, time, status, h, times=None, cause=None):
    """The discrimination, accuracy and slope numbers of a time-to-event (or competing-risk)
    page, from direct calls: ``models`` vectors (risks by ``h``) or matrices (a column per
    time of ``times``)."""
    ex, det = {}, {}
    several = times is not None and len(times) > 1
    auc_times = np.asarray(times) if several else h * np.array([0.25, 0.5, 0.75, 1.0])
    brier_times = np.asarray(times) if several else np.array([h])
    cz = {} if cause is None else {"cause": cause}
    null = "Null model (Aalen-Johansen)" if cause is not None else "Null model (Kaplan-Meier)"
    for name, P in models.items():
        p = P[:, -1] if np.ndim(P) == 2 else P
        if cause is None:
            for stat, wt in (("harrell", "n"), ("uno", "n/G2")):
                c = concordance(time, status, p, timewt=wt)
                ex[("discrimination", stat, name, "estimate")] = c.concordance
                ex[("discrimination", stat, name, "lower")] = c.concordance - Q975 * c.std_err
                ex[("discrimination", stat, name, "upper")] = c.concordance + Q975 * c.std_err
            cs = cox_calibration_slope(time, status, p, risk=True)
            for part, v in (("estimate", cs.slope), ("lower", cs.lower), ("upper", cs.upper)):
                ex[("hierarchy", "cox_slope", name, part)] = v
        auc = time_auc(time, status, P, auc_times, **cz).score.set_index("times")
        for part, col in (("estimate", "AUC"), ("lower", "lower"), ("upper", "upper")):
            ex[("discrimination", "auc_t", name, part)] = float(auc.loc[h, col])
        for t, r in auc.iterrows():
            for col in ("AUC", "se", "lower", "upper"):
                det[("discrimination", f"auc_t[{name}]", name, f"{t:g}", col)] = float(r[col])
        b = time_brier(time, status, P, brier_times, **cz).score
        own, nul = b[b.model == "model"].set_index("times"), b[b.model == "Null model"].set_index("times")
        for part, col in (("estimate", "Brier"), ("lower", "lower"), ("upper", "upper")):
            ex[("accuracy", "brier_t", name, part)] = float(own.loc[h, col])
            ex[("accuracy", "brier_t", null, part)] = float(nul.loc[h, col])
        ex[("accuracy", "ipa", name, "estimate")] = float(own.loc[h, "IPA"])
        if several:
            for frame, who in ((own, name), (nul, null)):
                for t, r in frame.iterrows():
                    for col in ("Brier", "se", "lower", "upper", "IPA"):
                        det[("accuracy", f"brier_t[{who}]", who, f"{t:g}", col)] = float(r[col])
            ibs = integrated_brier(time, status, P, times, **cz).table
            ex[("accuracy", "ibs", name, "estimate")] = float(ibs[(ibs.model == "model") & (ibs.times == h)].IBS.iloc[0])
            ex[("accuracy", "ibs", null, "estimate")] = float(
                ibs[(ibs.model == "Null model") & (ibs.times == h)].IBS.iloc[0])
    return ex, det


def test_every_number_of_a_time_to_event_report_is_the_functions(survival):
    models, yy, rep = survival
    time, status = yy
    ex = {("data", "rows", "*", "estimate"): len(time), ("data", "events", "*", "estimate"): int(status.sum()),
          ("data", "censored", "*", "estimate"): int((status == 0).sum()),
          ("data", "horizon", "*", "estimate"): 1.0,
          ("data", "beyond", "*", "estimate"): int((time > 1.0).sum())}
    dc = decision_curve(dict(models), yy, time=1.0)
    ex[("data", "km_risk", "*", "estimate")] = dc.prevalence
    wide = dc.net_benefit_table()
    for name, p in models.items():
        ex[("data", "mean_risk", name, "estimate")] = float(rmean(p))  # R's mean(p)
        calstats.rng.set_seed(1)
        m = pmcalibration(yy, p, smooth="rcs", time=1.0, ci="boot", n=200, nk=5).summary().metrics
        for stat in m.index:
            for part, col in (("estimate", "Estimate"), ("lower", "lower"), ("upper", "upper")):
                ex[("curve", stat, name, part)] = float(m.loc[stat, col])
    ex.update(_decision_expected(wide, models))
    timed, det = _timed_expected(models, time, status, 1.0)
    ex.update(timed)
    page = _check(rep, ex, det)
    assert page.sections == ["data", "discrimination", "accuracy", "hierarchy", "curve", "decision", "provenance"]
    assert not any("no concordance" in n for s in rep.sections for n in s.notes)
    assert [f for f in page.figures if f[0] in ("discrimination", "accuracy")] == [("discrimination", "*")]
    # the headline numbers: C, AUC(t), the Cox slope, ICI, the Brier score and IPA by the horizon
    glance = [row.key for _, row in rep.glance()]
    assert glance == ["harrell", "uno", "auc_t", "cox_slope", "Eavg", "brier_t", "ipa"]


@pytest.fixture(scope="module")
def survival_times():
    """Two Cox-type models that give their risks by four times (a column per time)."""
    rs = np.random.default_rng(14)
    n = 350
    x1, x2 = rs.normal(size=n), rs.normal(size=n)
    lp = 0.9 * x1 + 0.6 * x2
    t, c = rs.exponential(1 / np.exp(lp - 1)), rs.exponential(3, n)
    time, status = np.minimum(t, c), (t <= c).astype(int)
    times = [0.25, 0.5, 0.75, 1.0]
    models = {"full": np.column_stack([1 - np.exp(-np.exp(lp - 1) * g) for g in times]),
              "x1": np.column_stack([1 - np.exp(-np.exp(0.9 * x1 - 0.9) * g) for g in times])}
    return models, (time, status), times, report(models, (time, status), time=times, n_boot=20)


def test_every_number_of_a_report_over_several_times_is_the_functions(survival_times):
    models, (time, status), times, rep = survival_times
    ex, det = _timed_expected(models, time, status, 1.0, times)
    dc = decision_curve({k: v[:, -1] for k, v in models.items()}, (time, status), time=1.0)
    ex[("data", "km_risk", "*", "estimate")] = dc.prevalence
    page = _page_numbers(rep)
    got = {(n["data-section"], n["data-stat"], n["data-model"], n["data-part"]): n["data-value"]
           for n in page.numbers if "data-stat" in n}
    for key, v in ex.items():
        assert same(got[key], v), (key, got[key], v)
    dets = {(n["data-section"], n["data-detail"], n["data-model"], n["data-row"], n["data-col"]): n["data-value"]
            for n in page.numbers if "data-detail" in n}
    for key, v in det.items():
        assert same(dets[key], v), (key, dets[key], v)
    for name, P in models.items():  # the calibration and the decision curve read the horizon's column
        ex_mean = float(rmean(P[:, -1]))
        assert same(got[("data", "mean_risk", name, "estimate")], ex_mean)
    assert page.sections == ["data", "discrimination", "accuracy", "hierarchy", "curve", "decision", "provenance"]
    assert ("accuracy", "*") in page.figures and ("discrimination", "*") in page.figures
    assert "Time-to-event outcome (risks by times 0.25, 0.5, 0.75, 1)" in rep.description()
    assert "time=[0.25, 0.5, 0.75, 1]" in rep.call
    # the IBS integrates over the times of the report; the Brier score at each time has its row
    assert {k[3] for k in dets if k[1] == "brier_t[full]"} == {"0.25", "0.5", "0.75", "1"}


@pytest.fixture(scope="module")
def competing():
    rs = np.random.default_rng(15)
    n = 400
    x = rs.normal(size=n)
    t1, t2 = rs.exponential(1 / np.exp(0.8 * x - 1)), rs.exponential(1 / np.exp(-0.3 * x - 1.2))
    c = rs.exponential(4, n)
    time = np.minimum.reduce([t1, t2, c])
    event = np.select([t1 <= np.minimum(t2, c), t2 <= np.minimum(t1, c)], [1, 2], 0)
    models = {"A": 1 - np.exp(-np.exp(0.8 * x - 1)), "B": 1 - np.exp(-np.exp(0.4 * x - 1.1))}
    return models, (time, event), report(models, (time, event), time=1.0, cause=1)


def test_every_number_of_a_competing_risk_report_is_the_functions(competing):
    models, (time, event), rep = competing
    n = len(time)
    ex = {("data", "rows", "*", "estimate"): n, ("data", "censored", "*", "estimate"): int((event == 0).sum()),
          ("data", "horizon", "*", "estimate"): 1.0, ("data", "beyond", "*", "estimate"): int((time > 1.0).sum())}
    ci = cuminc(time, event, [1.0])
    for c in (1, 2):
        ex[("data", f"events[{c}]", "*", "estimate")] = int((event == c).sum())
        ex[("data", f"cuminc[{c}]", "*", "estimate")] = float(ci.est.loc[f"1 {c}"].iloc[0])
    det = {}
    for name, p in models.items():
        ex[("data", "mean_risk", name, "estimate")] = float(rmean(p))
        for g, r in cr_calibration(time, event, p, 1.0, cause=1, q=10).frame.iterrows():
            for col in ("n", "Pred", "Obs"):
                det[("binned", f"groups[{name}]", name, r["group"], col)] = float(r[col])
    timed, tdet = _timed_expected(models, time, event, 1.0, cause=1)
    ex.update(timed)
    det.update(tdet)
    dc = decision_curve(dict(models), (time, event), time=1.0, cause=1)
    # the same Aalen-Johansen risk (survival's survfitci in dcurves, cmprsk's Fortran in cuminc: last bits)
    assert math.isclose(dc.prevalence, ex[("data", "cuminc[1]", "*", "estimate")], rel_tol=1e-13)
    wide = dc.net_benefit_table()
    ex.update(_decision_expected(wide, models))
    page = _check(rep, ex, det)
    assert page.sections == ["data", "discrimination", "accuracy", "binned", "decision", "provenance"]
    assert page.figures == [("data", "*"), ("discrimination", "*"), ("binned", "A"), ("binned", "B"),
                            ("decision", "*")]
    assert rep.kind == "competing" and rep.cause == "1" and "cause=1" in rep.call
    # a categorical status of three levels is read as competing risks, its first cause by default
    lev = pd.Categorical.from_codes(event, ["censored", "relapse", "death"])
    again = report({"A": models["A"]}, (time, lev), time=1.0, sections=["accuracy"], figures=False)
    assert again.kind == "competing" and again.cause == "relapse" and "cause='relapse'" in again.call
    b = again.section("accuracy").row("brier_t").values["A"]
    assert same(b.estimate, ex[("accuracy", "brier_t", "A", "estimate")])
    # riskRegression's standard error of the AUC is valid for the first of two causes only: flagged otherwise
    assert not rep.section("discrimination").row("auc_t").values["A"].flags
    second = report({"A": models["A"]}, (time, event), time=1.0, cause=2, sections=["discrimination"], figures=False)
    auc2 = time_auc(time, event, models["A"], [0.25, 0.5, 0.75, 1.0], cause=2).score.iloc[-1]
    v = second.section("discrimination").row("auc_t").values["A"]
    assert same(v.estimate, auc2["AUC"]) and "not valid for this cause" in v.flags[0]


def test_event_codes_without_a_cause_and_columns_that_miss_a_time_are_refused(competing):
    from calstats import CalstatsError

    models, (time, event), _ = competing
    with pytest.raises(CalstatsError, match=r"must contain only `0` \(censored\) and `1` \(event\)"):
        report(models["A"], (time, event), time=1.0)
    with pytest.raises(CalstatsError, match="one column per time"):
        report(models["A"], (time, event), time=[0.5, 1.0], cause=1)
    with pytest.raises(CalstatsError, match="applies only to a competing-risk outcome"):
        report(models["A"], (event > 0).astype(int), cause=1)


def test_every_sentence_is_one_sentence_about_its_number(binary):
    _, _, rep = binary
    frame = rep.as_frame()
    assert frame["sentence"].str.len().gt(20).all()
    # one sentence: a capital, one final full stop (decimal points and "e.g." aside)
    for s in frame["sentence"]:
        assert (s[0].isupper() or s[0].isdigit()) and s.endswith("."), s
        assert len([c for c in s.replace("...", "").split(". ") if c]) == 1, s
    # written from the number: the mean-risk sentence of a model that predicts too high says so
    row = frame[(frame.statistic == "mean_risk")].set_index("model")
    for name, r in row.iterrows():
        side = "high" if r["estimate"] > frame.loc[frame.statistic == "event_rate", "estimate"].iloc[0] else "low"
        assert f"too {side}" in r["sentence"]


def test_the_report_leaves_the_random_stream_as_it_was(binary):
    models, y, _ = binary
    calstats.rng.set_seed(5)
    before = calstats.rng.runif(3)
    calstats.rng.set_seed(5)
    report(models["A"], y, sections=["curve", "corp"], figures=False)
    assert np.array_equal(calstats.rng.runif(3), before)


def test_markdown_and_latex_tables_show_the_same_cells(binary):
    _, _, rep = binary
    md = rep.to_markdown()
    tex = rep.to_latex()
    for sec in rep.sections:
        if sec.rows:
            assert f"## {sec.title}" in md
    c = rep.section("discrimination").rows[0].values["A"]
    cell = f"{c.estimate:.3f} ({c.lower:.3f} to {c.upper:.3f})"
    assert f"| {cell} |" in md and cell in tex
    assert "\\begin{tabular}" in tex and "\\toprule" in tex
    # every pipe table is rectangular
    for block in md.split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln.startswith("|")]
        if lines:
            assert len({ln.count(" | ") for ln in lines}) == 1, block
    # a test's cell: statistic, df, p
    hl = rep.section("tests").rows[-1].values["A"]
    assert f"X² = {hl.estimate:.2f}, 8 df" in md
    # LaTeX specials in names are escaped
    rep2 = report({"a_b & c": np.array([0.2, 0.7, 0.4, 0.9]), "d%": np.array([0.3, 0.6, 0.5, 0.8])},
                  np.array([0, 1, 0, 1]), sections=["binned"], figures=False)
    assert "a\\_b \\& c" in rep2.to_latex() and "d\\%" in rep2.to_latex()


def test_print_shows_the_headline_numbers(binary, capsys):
    _, _, rep = binary
    print(rep)
    out = capsys.readouterr().out
    c = rep.section("discrimination").rows[0].values["B"]
    assert out.startswith("Calibration report: A vs B\nBinary outcome; 500 rows; 2 models: A, B")
    assert f"{c.estimate:.3f} ({c.lower:.3f} to {c.upper:.3f})" in out
    assert "C-statistic" in out and "ECE" in out and ".to_html(path)" in out


def test_repr_html_is_the_page_body(binary):
    _, _, rep = binary
    frag = rep._repr_html_()
    assert frag.startswith("<style>") and '<div class="calstats-report">' in frag and "<html" not in frag
    assert "<script" not in rep.to_html().lower() and "http://" not in rep.to_html().replace(
        "http://www.w3.org", "")


def test_the_page_is_self_contained_and_written(binary, tmp_path):
    _, _, rep = binary
    path = tmp_path / "r.html"
    assert rep.to_html(path) == str(path)
    text = path.read_text(encoding="utf-8")
    assert text == rep.to_html()
    low = text.lower()
    # nothing fetched: no script, no external stylesheet, image or font, no link but anchors
    assert "<script" not in low and "<link" not in low and "<img" not in low and "@import" not in low
    assert "src=" not in low and "url(http" not in low
    hrefs = [h for h in low.split('href="')[1:]]
    assert all(h.startswith("#") for h in hrefs)
    # ids are unique across the inlined figures
    import re

    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
    # every glyph used is defined once
    uses = set(re.findall(r'xlink:href="#([^"]+)"', text))
    assert uses <= set(ids)


def test_weights_leave_out_what_takes_none_and_weight_the_rest(binary):
    models, y, _ = binary
    w = np.random.default_rng(3).integers(1, 4, size=len(y)).astype(float)
    rep = report({"A": models["A"]}, y, weights=w, figures=False, sections=["hierarchy", "binned", "tests"])
    assert "takes no case weights" in " ".join(rep.section("hierarchy").notes)
    assert rep.section("hierarchy").rows == []
    e = rep.section("binned").rows[0].values["A"].estimate
    assert e == calstats.ece(models["A"], y, weights=w)
    ks = rep.section("tests").rows[0].values["A"]
    assert ks.estimate == calstats.cal_ks_test(models["A"], y, weights=w).statistic["G"]
    assert "Hosmer-Lemeshow left out" in " ".join(rep.section("tests").notes)
    rate = rep.section("data").rows[3].values["*"].estimate
    assert math.isclose(rate, np.sum(w * y) / np.sum(w), rel_tol=1e-15)


def test_pandas_float32_and_unmutated_inputs(binary):
    models, y, rep = binary
    a = models["A"].copy()
    frame = pd.DataFrame({"A": a.astype(np.float32), "B": models["B"]})
    yy = pd.Series(y, index=np.arange(len(y)) + 100)
    before = frame.copy()
    r = report(frame, yy, models=["A", "B"], sections=["binned"], figures=False)
    pd.testing.assert_frame_equal(frame, before)
    assert r.models == ["A", "B"]
    assert r.section("binned").rows[0].values["A"].estimate == calstats.ece(a.astype(np.float32), y)
    one = report(pd.Series(a, name="risk"), y, sections=["binned"], figures=False)
    assert one.models == ["risk"]


def test_a_model_the_functions_refuse_is_noted_not_fatal():
    rs = np.random.default_rng(4)
    y = rs.integers(0, 2, 60)
    y[:2] = [0, 1]
    const = np.full(60, 0.5)  # every risk 1/2: Spiegelhalter's variance is zero, HL has one group
    rep = report({"constant": const, "noisy": rs.random(60)}, y, figures=False,
                 sections=["tests", "binned", "corp"])
    tests = rep.section("tests")
    notes = " ".join(tests.notes)
    assert "constant: not computed: The Spiegelhalter variance is zero" in notes
    assert "constant: not computed: invalid number of intervals" in notes
    assert tests.rows[2].values["constant"] is None and tests.rows[2].values["noisy"] is not None
    assert "not computed (see the notes)" in rep.to_html()
    assert rep.section("binned").rows[0].values["constant"].estimate == calstats.ece(const, y)


def test_tied_scores_give_the_functions_numbers():
    rs = np.random.default_rng(8)
    p = np.round(rs.random(300), 1).clip(0.05, 0.95)  # ten distinct scores
    y = (rs.random(300) < p).astype(int)
    rep = report(p, y, sections=["corp", "tests"], figures=False)
    d = calstats.corp(p, y, level=0.9, n_resamples=100, seed=1).decomposition()
    assert rep.section("corp").rows[1].values["model"].estimate == d.miscalibration
    assert rep.section("tests").rows[0].values["model"].estimate == calstats.cal_ks_test(p, y).statistic["G"]


def test_pickling_keeps_the_report(binary):
    import pickle

    _, _, rep = binary
    back = pickle.loads(pickle.dumps(rep))
    assert back.to_html() == rep.to_html()
    pd.testing.assert_frame_equal(back.as_frame(), rep.as_frame())


def test_the_rerun_call_and_the_seed_are_on_the_page(binary):
    _, _, rep = binary
    page = rep.to_html()
    assert "calstats.report(p, y, seed=1)" in page
    assert "set.seed(1); pmcalibration::pmcalibration(y, p, smooth = &#x27;gam&#x27;, ci = &#x27;sim&#x27;" in page
    assert "ResourceSelection::hoslem.test" in page and "dcurves::dca" in page
    assert f"calstats {rep.version}" in page
    r2 = report({"A": np.array([0.2, 0.7, 0.4, 0.9])}, np.array([0, 1, 0, 1]), seed=7, bins=5, figures=False,
                sections=["binned"])
    assert r2.call == "calstats.report(p, y, sections=['binned'], bins=5, figures=False, seed=7)"


def test_sections_keep_their_order_and_data_comes_first(binary):
    models, y, _ = binary
    rep = report(models, y, sections=["tests", "discrimination"], figures=False)
    assert [s.id for s in rep.sections] == ["data", "discrimination", "tests"]
    assert [s for s in parse(rep.to_html()).sections] == ["data", "discrimination", "tests", "provenance"]


def test_without_matplotlib_the_tables_come_alone(binary, monkeypatch):
    import builtins

    models, y, _ = binary
    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    rep = report(models["A"], y, sections=["binned"])
    sec = rep.section("binned")
    assert sec.figures == [] and any("Figures need matplotlib" in n for n in sec.notes)
    assert sec.rows[0].values["model"].estimate == calstats.ece(models["A"], y)


def test_the_bundled_data_report_fills_every_section():
    # its speed is measured in benchmarks/bench_report.py, not here
    b = calstats.datasets.load_digits_binary()
    f = calstats.datasets.load_digits_probs("forest")
    rep = report({"SVM": calstats.inv_logit(b["score"].to_numpy()), "forest": f["p_3"]}, b["label"])
    page = rep.to_html()
    parsed = parse(page)
    assert parsed.sections == ["data", "discrimination", "hierarchy", "curve", "corp", "binned", "tests", "decision",
                               "provenance"]
    # every section filled: key numbers for both models and the figures
    for sec in rep.sections[1:]:
        assert sec.rows and all(v is not None for r in sec.rows for c, v in r.values.items())
    assert len(parsed.figures) == 9
    # the forest's risks repeat (828 of 1797 are exactly 0 or 1): R's val.prob.ci.2 C has Pepe's interval
    # from a variance inflated by ties (lower limit ~4e-33, as CalibrationCurves computes it), flagged; the
    # "C-statistic (AUC), DeLong" row is the exact AUC with DeLong's interval
    disc = rep.section("discrimination")
    auc, rc = disc.row("c_statistic").values["forest"], disc.row("c_rms").values["forest"]
    assert disc.row("c_statistic").label == "C-statistic (AUC), DeLong"
    assert auc.lower > 0.99 and auc.upper <= 1 and not auc.flags
    assert rc.lower < 1e-20 and rc.flags and "inflated by ties" in rc.flags[0]
    assert not disc.row("c_rms").values["SVM"].flags

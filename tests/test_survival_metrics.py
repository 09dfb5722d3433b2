"""Survival discrimination and accuracy against R: survival::concordance (reverse = TRUE),
riskRegression::Score's IPCW AUC and Brier score (with their standard errors, comparisons
and IBS), pec::crps, and the Cox calibration slope. Fixtures:
tools/r-reference/make_survival_metrics.R (survival 3.5-3, riskRegression 2022.11.28,
pec 2022.05.04)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats import CalstatsError, CalstatsWarning, Surv
from calstats.clinical import (
    concordance,
    cox_calibration_slope,
    integrated_brier,
    time_auc,
    time_brier,
)
from calstats.ports.survival.concordance import btree

FX = load_fixture("survival_metrics")
DATA = FX["data"]


def _num(v):
    if isinstance(v, list):
        return np.array([math.nan if x in (None, "NA", "NaN") else float(x) for x in v])
    return math.nan if v in (None, "NA", "NaN") else float(v)


def _list(v):
    return v if isinstance(v, list) else [v]


def _close(got, want, rtol, atol=0.0):
    got, want = np.atleast_1d(np.asarray(got, dtype=float)), np.atleast_1d(_num(want) if isinstance(want, list)
                                                                         else np.asarray(want, dtype=float))
    assert got.shape == want.shape, (got, want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=atol)


def _data(name):
    d = DATA[name]
    return {k: _num(v) for k, v in d.items()}


# --------------------------------------------------------------------------------------
# concordance


@pytest.mark.parametrize("case", FX["concordance"], ids=lambda c: f'{c["data"]}-{c["timewt"]}-{c["weights"]}')
def test_concordance_matches_survival(case):
    d = _data(case["data"])
    w = None if case["weights"] == "none" else d[case["weights"]]
    fit = concordance(d["time"], d["status"], d["risk"], case["timewt"], weights=w)
    # unweighted: R's bits; fractional weights: sums in the C code's order, to 4 ulp
    exact = case["weights"] != "w"
    rtol = 0 if exact else 4e-15
    _close(fit.concordance, case["concordance"], rtol)
    _close(fit.var, case["var"], 0 if exact else 2e-14)
    _close(fit.cvar, case["cvar"], 0 if exact else 2e-14)
    _close(fit.count.to_numpy(), case["count"], rtol)
    if not math.isnan(fit.concordance):
        # R prints the call with its own variable names; the rest is the same text
        got = fit.print_text().splitlines()
        want = case["print"]
        assert got[got.index(f"n= {fit.n} "):] == want[want.index(f"n= {fit.n} "):]


def _backends():
    from calstats.ports.survival import concordance as conc

    return ["numpy", "c"] if conc._core is not None else ["numpy"]


@pytest.mark.parametrize("backend", _backends()[-1:])  # "c" against "numpy" (numpy alone without the core)
def test_concordance_backends_give_the_same_bits(backend):
    """survival's C routines in calstats' C core and their Python reference: the same bits on
    R's cases and on random tied, weighted data (every timewt, both directions)."""
    from calstats.ports.survival.concordance import TIMEWTS, concordancefit

    cases = []
    for case in FX["concordance"]:
        d = _data(case["data"])
        w = None if case["weights"] == "none" else d[case["weights"]]
        cases.append((d["time"], d["status"], d["risk"], w, case["timewt"], True))
    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(1, 120))
        t = rng.integers(1, int(rng.integers(2, 30)), n) / 3
        s = rng.integers(0, 2, n).astype(float)
        x = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        w = [None, rng.integers(1, 4, n).astype(float), rng.random(n) + 0.1][trial % 3]
        cases += [(t, s, x, w, tw, bool(trial % 2)) for tw in TIMEWTS]
    for t, s, x, w, tw, rev in cases:
        with np.errstate(all="ignore"):
            a = concordancefit(t, s, x, w, tw, rev, backend=backend)
            b = concordancefit(t, s, x, w, tw, rev, backend="numpy")
        for f in ("concordance", "count", "var", "cvar", "influence", "dfbeta"):
            assert np.array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f)), equal_nan=True), (tw, f)
    # the sort order is R's order(-time, status, x)
    from calstats.ports.survival.concordance import _order_stop

    for t, s, x in [c[:3] for c in cases[-12:]]:
        order, rank, nx = _order_stop(np.asarray(t, float), np.asarray(s, float), np.asarray(x, float))
        ux, want = np.unique(x, return_inverse=True)
        assert np.array_equal(order, np.lexsort((x, s, -np.asarray(t))))
        assert np.array_equal(rank, want) and nx == ux.size


def test_concordance_direction_and_ties():
    t = [1.0, 2, 3, 4]
    s = [1, 1, 1, 1]
    assert concordance(t, s, [4, 3, 2, 1]).concordance == 1.0  # higher risk, earlier event
    assert concordance(t, s, [1, 2, 3, 4]).concordance == 0.0
    assert concordance(t, s, [1, 1, 1, 1]).concordance == 0.5  # all tied on the risk
    out = concordance(Surv(t, s), None, [4, 3, 2, 1])
    assert out.count["concordant"] == 6 and out.n == 4


def test_concordance_event_of_weight_zero_is_left_out():
    """An event of weight 0 makes R's survival read past its time weights (undefined; R
    printed 0.6667 with a NaN SE here, calstats' C core another number on each call): it is
    left out, as its weight says. With timewt = "n", where R is defined, R's numbers:
    concordance(Surv(t, s) ~ p, weights = w, reverse = TRUE) (survival 3.5-3)."""
    from calstats.ports.survival.concordance import TIMEWTS, concordancefit

    t = np.array([-1.0, 421.18135253, 40.01116807, 307.016886, 32.26286579, 118.64138857, 70.97479223, 14.49717767])
    s = np.array([1, 0, 0, 0, 1, 1, 0, 1])
    p = np.array([0.63953043, 0.39057808, 0.05997811, 0.9117377, 0.81824449, 0.1151484, 0.58070162, 0.01639972])
    w = np.array([1.0, 1, 0, 2, 0, 0, 1, 2])
    r = concordance(t, s, p, weights=w)
    assert r.concordance == pytest.approx(0.285714285714286, rel=1e-14)
    assert math.sqrt(r.var) == pytest.approx(0.213555607514861, rel=1e-13)
    keep = ~((w == 0) & (s == 1))
    for tw in TIMEWTS:
        for backend in _backends():  # "c" only where the core is compiled (scripts/check_wheel.sh)
            with np.errstate(all="ignore"):
                runs = [concordancefit(t, s.astype(float), p, w, tw, True, backend=backend) for _ in range(3)]
                ref = concordancefit(t[keep], s[keep].astype(float), p[keep], w[keep], tw, True, backend=backend)
            for a in runs:
                assert a.concordance == ref.concordance and a.var == ref.var, (tw, backend)
                assert a.n == 8 and a.dfbeta.shape == (8,) and np.all(a.dfbeta[~keep] == 0)
                assert np.array_equal(a.dfbeta[keep], ref.dfbeta)


def test_concordance_conf_int_is_the_wald_interval_of_r_var():
    t = [1.0, 2, 3, 4, 5, 6]
    s = [1, 0, 1, 1, 0, 1]
    fit = concordance(t, s, [0.9, 0.2, 0.7, 0.1, 0.5, 0.3])
    ci = fit.conf_int(0.9)
    z = 1.6448536269514722  # qnorm(0.95)
    assert list(ci.columns) == ["lower", "upper"] and list(ci.index) == ["concordance"]
    assert ci.loc["concordance", "lower"] == pytest.approx(fit.concordance - z * math.sqrt(fit.var), rel=1e-15)
    assert ci.loc["concordance", "upper"] == pytest.approx(fit.concordance + z * math.sqrt(fit.var), rel=1e-15)
    with pytest.raises(CalstatsError, match="level"):
        fit.conf_int(1.5)


def test_btree_is_survivals():
    # survival::btree(n) for n = 1..10 (R 4.2.2, survival 3.5-3)
    r = {1: [0], 2: [1, 0], 3: [1, 0, 2], 4: [3, 1, 0, 2], 5: [3, 1, 4, 0, 2], 6: [3, 1, 4, 0, 5, 2],
         7: [3, 1, 4, 0, 5, 2, 6], 8: [7, 3, 1, 4, 0, 5, 2, 6], 9: [7, 3, 8, 1, 4, 0, 5, 2, 6],
         10: [7, 3, 8, 1, 9, 4, 0, 5, 2, 6]}
    for n, want in r.items():
        assert btree(n).tolist() == want


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), st.sampled_from([0, 1]), st.integers(0, 5)), min_size=2, max_size=25))
def test_concordance_invariants(rows):
    t = np.array([r[0] for r in rows], dtype=float)
    s = np.array([r[1] for r in rows])
    x = np.array([r[2] for r in rows], dtype=float)
    a = concordance(t, s, x)
    # a monotone transform of the risk changes nothing; reversing the risk reflects C
    b = concordance(t, s, np.exp(x / 3))
    c = concordance(t, s, -x)
    if not math.isnan(a.concordance):
        assert a.concordance == b.concordance
        assert abs(a.concordance + c.concordance - 1) < 1e-12
    # integer weights = repeated rows (counts and estimate)
    w = (np.arange(t.size) % 3) + 1
    rep = np.repeat(np.arange(t.size), w)
    aw = concordance(t, s, x, weights=w)
    ar = concordance(t[rep], s[rep], x[rep])
    if not math.isnan(ar.concordance):
        assert abs(aw.concordance - ar.concordance) < 1e-12


def test_concordance_messages():
    with pytest.raises(CalstatsError, match=r"^Arguments `risk` and `time` must have the same length\.$"):
        concordance([1, 2, 3], [1, 0, 1], [0.1, 0.2])
    with pytest.raises(CalstatsError, match=r"^Argument `timewt` should be one of “n”, “S”, “S/G”, “n/G2”, “I”"):
        concordance([1, 2, 3], [1, 0, 1], [0.1, 0.2, 0.3], timewt="uno")
    with pytest.raises(CalstatsError, match=r"^Argument `status` must contain only `0` \(censored\)"):
        concordance([1, 2, 3], [1, 2, 0], [0.1, 0.2, 0.3])
    with pytest.raises(CalstatsError, match=r"^Argument `weights` must be non-negative\.$"):
        concordance([1, 2, 3], [1, 0, 1], [0.1, 0.2, 0.3], weights=[1, -1, 1])


# --------------------------------------------------------------------------------------
# Score: AUC and Brier


def _score_inputs(case):
    d = _data(case["data"])
    n = d["time"].size
    kept = np.array(sorted({t for t in _num(case["times"]) if t <= d["time"].max()}))
    models = {name: _num(m).reshape(len(kept), n).T for name, m in case["models"].items()}
    return d, models


SCORES = FX["score"]


@pytest.mark.parametrize("case", SCORES, ids=[c["id"] for c in SCORES])
def test_score_matches_riskregression(case):
    d, models = _score_inputs(case)
    times = _num(case["times"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auc = time_auc(d["time"], d["status"], models, times)
        brier = time_brier(d["time"], d["status"], models, times)
    notes = [str(w.message) for w in caught if issubclass(w.category, CalstatsWarning)]
    assert bool(notes) == bool(case["messages"])
    a, b = auc.score, brier.score
    assert list(a["model"]) == _list(case["auc"]["model"]) and list(b["model"]) == _list(case["brier"]["model"])
    _close(a["times"], case["auc"]["times"], 0)
    _close(a["AUC"], case["auc"]["AUC"], 0)
    _close(a["se"], case["auc"]["se"], 1e-15)
    _close(a["lower"], case["auc"]["lower"], 1e-13)
    _close(a["upper"], case["auc"]["upper"], 1e-13)
    _close(b["Brier"], case["brier"]["Brier"], 0)
    _close(b["se"], case["brier"]["se"], 1e-15)
    _close(b["lower"], case["brier"]["lower"], 1e-13)
    _close(b["upper"], case["brier"]["upper"], 1e-13)
    if "brier_contrasts" in case:
        c, r = brier.contrasts, case["brier_contrasts"]
        assert list(c["model"]) == _list(r["model"]) and list(c["reference"]) == _list(r["reference"])
        _close(c["delta.Brier"], r["delta"], 1e-15)
        _close(c["se"], r["se"], 1e-12)
        _close(c["p"], r["p"], 1e-10)
    if "auc_contrasts" in case:
        c, r = auc.contrasts, case["auc_contrasts"]
        assert list(c["model"]) == _list(r["model"]) and list(c["reference"]) == _list(r["reference"])
        _close(c["delta.AUC"], r["delta"], 1e-15)
        _close(c["se"], r["se"], 1e-12)
    # the printed tables are R's (R's NOTE lines go to stderr there)
    text = [line for line in (auc.print_text() + brier.print_text()).splitlines() if not line.startswith("NOTE")]
    want = [line for line in case["print"] if not line.startswith("NOTE")]
    assert [s.rstrip() for s in text if s.strip()] == [s.rstrip() for s in want if s.strip()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        ibs = integrated_brier(d["time"], d["status"], models, times)
    _close(ibs.table["IBS"], case["brier"]["IBS"], 1e-15)


def test_score_refuses_horizons_beyond_followup():
    d = _data("ties")
    want = FX["score_errors"]["beyond"]
    assert want == "No evaluation time before end of followup."
    with pytest.raises(CalstatsError, match=r"^No evaluation time before end of followup \(the last follow-up"):
        time_brier(d["time"], d["status"], d["risk"], [1e6])


def test_score_messages():
    d = _data("ties")
    with pytest.raises(CalstatsError, match=r"^Argument `risk` must have one column per horizon in `times` \(2\)"):
        time_auc(d["time"], d["status"], np.column_stack([d["risk"]] * 3), [2, 4])
    with pytest.raises(CalstatsError, match=r"^Argument `risk` must contain probabilities in `\[0, 1\]`\.$"):
        time_brier(d["time"], d["status"], d["risk"] + 1, [2])
    with pytest.raises(CalstatsError, match=r"^Case weights are not supported in time_auc"):
        time_auc(d["time"], d["status"], d["risk"], [2], weights=np.ones(d["time"].size))
    with pytest.raises(CalstatsError, match=r"^A model cannot be named 'Null model'"):
        time_brier(d["time"], d["status"], {"Null model": d["risk"]}, [2])
    with pytest.raises(CalstatsError, match=r"^Argument `times` must contain only finite values\.$"):
        time_auc(d["time"], d["status"], d["risk"], [np.inf])
    with pytest.raises(CalstatsError, match=r"^Argument `level` must be a single number in `\(0, 1\)`\.$"):
        time_auc(d["time"], d["status"], d["risk"], [2], level=1.5)
    with pytest.raises(CalstatsError, match=r"^Argument `risk` must hold the predicted risks of at least one model\.$"):
        time_auc(d["time"], d["status"], {}, [2])
    with pytest.raises(CalstatsError, match=r"^Argument `time` must not be empty\.$"):
        time_auc([], [], [], [2])


def test_score_forms_and_no_mutation():
    d = _data("signal")
    t, s, r = d["time"], d["status"].astype(int), d["risk"]
    keep = t.copy(), r.copy()
    a = time_auc(t, s, r, [5]).score
    b = time_auc(Surv(t, s), None, pd.Series(r), [5]).score
    c = time_auc(pd.DataFrame({"t": t, "s": s}), None, r.astype(np.float32).astype(float), [5]).score
    pd.testing.assert_frame_equal(a, b)
    assert np.array_equal(a["AUC"], c["AUC"])
    assert np.array_equal(t, keep[0]) and np.array_equal(r, keep[1])
    frame = time_brier(t, s, r, [5]).as_frame()
    assert list(frame.columns) == ["model", "times", "Brier", "se", "lower", "upper", "IPA"]
    assert frame.loc[0, "IPA"] == 0.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.sampled_from([0, 1, 1]), st.integers(0, 10)), min_size=6,
                max_size=30), st.integers(2, 6))
def test_auc_invariants(rows, horizon):
    t = np.array([r[0] for r in rows], dtype=float)
    s = np.array([r[1] for r in rows])
    x = np.array([r[2] for r in rows], dtype=float) / 10
    if horizon > t.max():
        return
    a = time_auc(t, s, x, [horizon]).score["AUC"].iloc[0]
    b = time_auc(t, s, 1 - x, [horizon]).score["AUC"].iloc[0]
    if not math.isnan(a):
        assert 0 <= a <= 1 and abs(a + b - 1) < 1e-12  # reversing the marker reflects the AUC
    br = time_brier(t, s, x, [horizon]).score
    assert (br["Brier"] >= 0).all()


# --------------------------------------------------------------------------------------
# pec's integrated Brier score, the Cox calibration slope


@pytest.mark.parametrize("case", FX["pec"], ids=[c["id"] for c in FX["pec"]])
def test_pec_crps(case):
    d = _data(case["data"])
    times = _num(case["times"])
    out = integrated_brier(d["time"], d["status"], d["risk"], times, method="pec")
    curve = out.brier
    _close(curve[curve["model"] == "Reference"]["times"], case["grid"], 0)
    _close(curve[curve["model"] == "Reference"]["Brier"], case["ref"], 1e-15)
    _close(curve[curve["model"] == "model"]["Brier"], case["m"], 1e-15)
    tab = out.table
    _close(tab[tab["model"] == "Reference"]["IBS"], case["crps_ref"], 1e-15)
    _close(tab[tab["model"] == "model"]["IBS"], case["crps_m"], 1e-15)
    assert "IBS[0;time=" in out.print_text()


def test_integrated_brier_refuses_pec_with_a_cause():
    d = _data("ties")
    with pytest.raises(CalstatsError, match=r"^`method = \"pec\"` is available for a right-censored outcome only"):
        integrated_brier(d["time"], d["status"], d["risk"], [3], method="pec", cause=1)


@pytest.mark.parametrize("case", FX["slope"], ids=[c["data"] for c in FX["slope"]])
def test_cox_calibration_slope(case):
    d = _data(case["data"])
    fit = cox_calibration_slope(d["time"], d["status"], _num(case["lp"]))
    _close(fit.slope, case["coef"], 1e-13)
    _close(fit.se ** 2, case["var"], 1e-12)
    assert fit.lower < fit.slope < fit.upper
    assert abs(fit.z - (fit.slope - 1) / fit.se) < 1e-15
    text = fit.print_text()
    assert "slope =" in text and "test of slope = 1" in text


def test_cox_slope_from_risks():
    d = _data("ties")
    r = np.clip(d["risk"], 0.05, 0.95)
    a = cox_calibration_slope(d["time"], d["status"], r, risk=True)
    case = FX["slope"][1]
    _close(a.slope, case["coef"], 1e-13)
    with pytest.raises(CalstatsError, match=r"^Argument `lp` must hold risks strictly between 0 and 1\.$"):
        cox_calibration_slope(d["time"], d["status"], d["risk"], risk=True)


# --------------------------------------------------------------------------------------
# the formula API


def test_formula_api_survival():
    import calstats.formula.api as cf

    d = _data("signal")
    df = pd.DataFrame({"time": d["time"], "status": d["status"].astype(int), "risk": d["risk"], "lp": d["lp"],
                       "other": 1 - d["risk"]})
    a = cf.concordance("Surv(time, status) ~ risk", df, timewt="n/G2")
    assert a.concordance == concordance(d["time"], d["status"], d["risk"], "n/G2").concordance
    b = cf.time_auc("Surv(time, status) ~ risk + other", df, times=[2, 5])
    assert list(b.score["model"].unique()) == ["risk", "other"] and len(b.contrasts) == 2
    c = cf.time_brier("survival::Surv(time, status) ~ risk", df, times=[5])
    assert c.score["Brier"].iloc[1] == time_brier(d["time"], d["status"], d["risk"], [5]).score["Brier"].iloc[1]
    s = cf.cox_calibration_slope("Surv(time, status) ~ lp", df)
    assert s.slope == cox_calibration_slope(d["time"], d["status"], d["lp"]).slope
    ib = cf.integrated_brier("Hist(time, status) ~ risk", df, times=[2, 5])
    assert ib.table.shape == (4, 3)
    with pytest.raises(CalstatsError, match=r"^concordance takes a time-to-event outcome"):
        cf.concordance("status ~ risk", df)
    with pytest.raises(CalstatsError, match=r"^Column `when` of the formula"):
        cf.time_auc("Surv(when, status) ~ risk", df, times=[2])


def test_a_column_per_horizon_needs_the_horizons_in_order():
    """Column j of a risk matrix is the risk by the j-th horizon: unsorted horizons would pair
    columns with other horizons (riskRegression sorts them silently); calstats refuses."""
    rng = np.random.default_rng(7)
    t, c = rng.exponential(5, 200), rng.exponential(8, 200)
    time, status = np.minimum(t, c), (t <= c).astype(int)
    risk = np.column_stack([1 - np.exp(-1 / 5) + 0.01 * rng.random(200), 1 - np.exp(-3 / 5) + 0.01 * rng.random(200)])
    ordered = time_brier(time, status, risk, [1, 3])
    for fn in (time_brier, time_auc, integrated_brier):
        with pytest.raises(CalstatsError, match=r"`times` must be increasing and distinct when `risk` has a column"):
            fn(time, status, risk[:, ::-1], [3, 1])
    # a vector is the same risk at every horizon: any order of the horizons is the same call
    a = time_brier(time, status, risk[:, 0], [3, 1]).score
    b = time_brier(time, status, risk[:, 0], [1, 3]).score
    pd.testing.assert_frame_equal(a, b)
    assert ordered.score["Brier"].notna().all()

"""calstats.clinical against R (tests/fixtures/valprob.json, written by
tools/r-reference/make_valprob.R with rms 6.5-0 on R 4.2.2), against statsmodels, and by
simulation. The tests read only the JSON, never R.

Tolerance: 1e-10 relative for everything ported from R (val.prob, val.probg, loess,
lowess, hoslem.test). The hierarchy's glm comparison uses 1e-6: R's glm stops at a
relative deviance change of 1e-8, so its coefficients are that far from the exact
maximum-likelihood estimates calstats computes (statsmodels, iterated to convergence,
agrees with calstats to 1e-8).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import calstats
from _fixtures import load_fixture
from calstats import CalstatsError
from calstats.clinical import STAT_NAMES, hoslem_test, val_prob, val_prob_ci

FIX = load_fixture("valprob")
RTOL = 1e-10


def num(v):
    if isinstance(v, list):
        return [num(x) for x in v]
    if v in ("NA", "NaN") or v is None:
        return math.nan
    if v == "Inf":
        return math.inf
    if v == "-Inf":
        return -math.inf
    return float(v)


def arr(v):
    return np.array(num(v), dtype=np.float64)


def as_list(v):
    return v if isinstance(v, list) else [v]


def assert_rel(got, want, rtol=RTOL, what=""):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, what
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: NaN pattern {got} vs {want}"
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    with np.errstate(invalid="ignore"):  # Inf - Inf where both are Inf
        rel = np.where(g == w, 0.0, np.abs(g - w) / np.maximum(np.abs(w), 1e-300))
    assert np.all(rel <= rtol), f"{what}: max rel {rel.max():.2e}; got {g[rel > rtol]} want {w[rel > rtol]}"


def _group(gi):
    if gi is None:
        return None
    if gi["type"] == "factor":
        return pd.Categorical(as_list(gi["values"]), categories=as_list(gi["levels"]))
    if gi["type"] == "logical":
        vals = as_list(gi["values"])
        return True if vals == [True] else np.array(vals)
    if gi["type"] == "character":
        return np.array(as_list(gi["values"]), dtype=object)
    return arr(gi["values"])


def _call(case):
    inp = case["inputs"]
    y = inp["y"]
    kw = dict(y=np.array(y) if isinstance(y[0], bool) else arr(y), pl=False, normwt=inp["normwt"],
              smooth=inp["smooth"], logistic_cal=inp["logistic_cal"], g_group=inp["g_group"],
              evaluate=inp["evaluate"], nmin=inp["nmin"])
    for name in ("p", "logit", "weights"):
        if inp[name] is not None:
            kw[name] = arr(inp[name])
    if inp["group"] is not None:
        kw["group"] = _group(inp["group"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = val_prob(**kw)
        except CalstatsError as exc:
            res = exc
    return res, [str(w.message) for w in caught if issubclass(w.category, calstats.CalstatsWarning)]


UNGROUPED = [c for c in FIX["valprob"] if c["inputs"]["group"] is None]
GROUPED = [c for c in FIX["valprob"] if c["inputs"]["group"] is not None]


@pytest.mark.parametrize("case", UNGROUPED, ids=[c["id"] for c in UNGROUPED])
def test_val_prob_matches_r(case):
    res, warns = _call(case)
    if "error" in case:
        assert isinstance(res, CalstatsError), f"R: {case['error']}"
        # where R's own message names nothing a user can act on, calstats says what is wrong
        # and quotes R's message whole at the end
        assert str(res) == case["error"] or str(res).endswith(f"(rms::val.prob stops here: {case['error']}).")
        return
    assert not isinstance(res, Exception), str(res)
    names = [None if n == "NA" else n for n in case["stats"]["names"]]
    assert list(res.stats.index) == names
    assert_rel(res.stats.to_numpy(), arr(case["stats"]["values"]), what=case["id"])
    assert warns == as_list(case["warnings"])


@pytest.mark.parametrize("case", GROUPED, ids=[c["id"] for c in GROUPED])
def test_val_prob_groups_match_r(case):
    res, warns = _call(case)
    gs = case["group_stats"]
    assert list(res.stats.index) == as_list(gs["rownames"])
    assert list(res.stats.columns) == gs["colnames"]
    assert_rel(res.stats.to_numpy(), np.array([num(v) for v in gs["values"]]), what="stats")
    q = case["quantiles"]
    assert list(res.quantiles.columns) == q["colnames"]
    assert_rel(res.quantiles.to_numpy(), np.array([num(v) for v in q["values"]]), what="quantiles")
    assert list(res.cal_curves) == list(case["cal_curves"])
    for name, curve in case["cal_curves"].items():
        assert_rel(res.cal_curves[name][0], arr(curve["x"]), what=f"curve x {name}")
        assert_rel(res.cal_curves[name][1], arr(curve["y"]), what=f"curve y {name}")
    assert warns == as_list(case["warnings"])


@pytest.mark.parametrize("case", FIX["hoslem"], ids=[c["id"] for c in FIX["hoslem"]])
def test_hoslem_matches_r(case):
    inp = case["inputs"]
    if "error" in case:
        with pytest.raises(CalstatsError, match=case["error"]):
            hoslem_test(arr(inp["y"]), arr(inp["p"]), g=inp["g"])
        return
    h = hoslem_test(arr(inp["y"]), arr(inp["p"]), g=inp["g"])
    assert_rel([h.statistic["X-squared"]], arr(case["statistic"]))
    assert h.parameter == {"df": case["parameter"]}
    assert_rel([h.p_value], arr(case["p_value"]))
    assert list(h.observed.index) == case["observed"]["rownames"]
    assert_rel(h.observed.to_numpy(), np.array([num(v) for v in case["observed"]["values"]]))
    assert_rel(h.expected.to_numpy(), np.array([num(v) for v in case["expected"]["values"]]))
    assert str(h) == case["printed"]  # R's print.htest, captured line by line


# --------------------------------------------------------------------------------------
# R's smoothers and the hierarchy's fits


@pytest.mark.parametrize("case", FIX["hierarchy"], ids=[c["id"] for c in FIX["hierarchy"]])
def test_smoothers_match_r(case):
    from calstats.clinical.flexcurve import loess_curve
    from calstats.ports.stats.loess import loess_fit_1d
    from calstats.ports.stats.lowess import lowess

    p, y = arr(case["inputs"]["p"]), arr(case["inputs"]["y"])
    assert_rel(lowess(p, y, iter=0)[1], arr(case["lowess_fit"]), what="lowess iter=0")
    assert_rel(lowess(p, y)[1], arr(case["lowess_fit_iter3"]), what="lowess iter=3")
    assert_rel(loess_fit_1d(p, y, span=0.75, degree=2, cell=0.2), arr(case["loess_default_fitted"]),
               what="loess interpolate")
    lc = loess_curve(p, y, span=0.75, degree=2, xout=arr(case["grid"]), surface="direct", statistics="exact")
    assert_rel(lc["fit"], arr(case["loess_direct_fit"]), rtol=1e-9, what="loess direct fit")
    assert_rel(lc["se"], arr(case["loess_direct_se"]), rtol=1e-9, what="loess direct se")
    assert_rel([lc["s"]], arr(case["loess_direct_s"]), rtol=1e-9, what="loess s")


@pytest.mark.parametrize("case", FIX["hierarchy"], ids=[c["id"] for c in FIX["hierarchy"]])
def test_hierarchy_against_r_glm(case):
    """Estimates to 1e-6 (R's glm stops at a relative deviance change of 1e-8); standard
    errors and Wald limits to 5e-4: R's ``vcov`` uses the working weights of its last IRLS
    iteration, i.e. at the coefficients *before* the final step (up to ~1e-4 relative here),
    calstats the information at the estimate."""
    p, y = arr(case["inputs"]["p"]), arr(case["inputs"]["y"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = val_prob_ci(p, y, pl=False)
    t = h.table
    a, b = "Calibration-in-the-large", "Calibration slope"
    assert_rel([t.loc[a, "estimate"]], arr(case["intercept"]), rtol=1e-6)
    assert_rel([t.loc[b, "estimate"]], arr(case["slope_coef"])[1:], rtol=1e-6)
    assert_rel([h.stats["Calibration intercept (slope model)"]], arr(case["slope_coef"])[:1], rtol=1e-6)
    assert_rel([t.loc[a, "se"]], arr(case["intercept_se"]), rtol=5e-4)
    assert_rel([t.loc[b, "se"]], arr(case["slope_se"])[1:], rtol=5e-4)
    assert_rel(t.loc[a, ["lower", "upper"]].to_numpy(), arr(case["intercept_ci"]), rtol=5e-4)
    assert_rel(t.loc[b, ["lower", "upper"]].to_numpy(), arr(case["slope_ci"]), rtol=5e-4)


def test_hierarchy_against_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(20240614)
    lp = rng.normal(0, 1.5, 800)
    y = (rng.uniform(size=800) < 1 / (1 + np.exp(-lp))).astype(float)
    p = 1 / (1 + np.exp(-(1.4 * lp + 0.25)))
    h = val_prob_ci(p, y, pl=False)
    lg = np.log(p / (1 - p))
    m_int = sm.GLM(y, np.ones((y.size, 1)), family=sm.families.Binomial(), offset=lg).fit(tol=1e-14)
    m_slope = sm.GLM(y, sm.add_constant(lg), family=sm.families.Binomial()).fit(tol=1e-14)
    assert_rel([h.intercept[0]], [m_int.params[0]], rtol=1e-8)
    assert_rel(h.intercept[1:], m_int.conf_int()[0], rtol=1e-8)
    assert_rel([h.slope[0]], [m_slope.params[1]], rtol=1e-8)
    assert_rel(h.slope[1:], m_slope.conf_int()[1], rtol=1e-8)
    assert_rel([h.stats["Calibration intercept (slope model)"]], [m_slope.params[0]], rtol=1e-8)


def test_c_statistic_delong_and_ties():
    from calstats.clinical.hierarchy import c_statistic

    p = np.array([0.1, 0.2, 0.2, 0.4, 0.5, 0.5, 0.7, 0.9])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    auc, lo, hi, se = c_statistic(p, y)
    pos, neg = p[y == 1], p[y == 0]
    pairs = [(1.0 if a > b else 0.5 if a == b else 0.0) for a in pos for b in neg]
    assert auc == pytest.approx(np.mean(pairs), rel=1e-14)
    v10 = np.array([np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for b in neg]) for a in pos])
    v01 = np.array([np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a in pos]) for b in neg])
    want = math.sqrt(np.var(v10, ddof=1) / pos.size + np.var(v01, ddof=1) / neg.size)
    assert se == pytest.approx(want, rel=1e-12)
    assert lo <= auc <= hi
    auc2, lo2, hi2, _ = c_statistic(p, y, method="pepe")
    assert auc2 == auc and 0 < lo2 < auc < hi2 < 1


def test_hierarchy_rcs_and_summary_renderings():
    rng = np.random.default_rng(7)
    lp = rng.normal(0, 1.2, 400)
    y = (rng.uniform(size=400) < 1 / (1 + np.exp(-lp))).astype(int)
    p = 1 / (1 + np.exp(-lp))
    h = val_prob_ci(pd.Series(p.astype(np.float32)), pd.Series(y), smooth="rcs", nr_knots=4, pl=False)
    assert np.all(np.diff(h.curve["x"]) > 0)
    assert np.all(h.curve["lower"] <= h.curve["fit"] + 1e-12) and np.all(h.curve["fit"] <= h.curve["upper"] + 1e-12)
    s = h.summary()
    text = s.as_text()
    assert "Calibration slope" in text and "C-statistic" in text
    assert "<table" in s.as_html() and "\\begin{tabular}" in s.as_latex()
    frame = s.as_frame()  # DataFrame (or dict of them, depending on the Summary version)
    parts = frame.values() if isinstance(frame, dict) else [frame]
    assert any("Calibration slope" in f.to_string() for f in parts)
    assert list(h.table.index) == ["Calibration-in-the-large", "Calibration slope", "C-statistic"]
    # a calibrated model: intercept interval covers 0, slope interval covers 1
    assert h.intercept[1] < 0 < h.intercept[2] and h.slope[1] < 1 < h.slope[2]


def test_hierarchy_errors():
    with pytest.raises(CalstatsError, match="only contain the values 0 and 1"):
        val_prob_ci([0.2, 0.3, 0.4], [0, 2, 1], pl=False)
    with pytest.raises(CalstatsError, match="can not be > 1"):
        val_prob_ci([0.2, 1.3, 0.4], [0, 1, 1], pl=False)
    with pytest.raises(CalstatsError, match="smooth"):
        val_prob_ci([0.2, 0.3, 0.4, 0.6], [0, 1, 0, 1], smooth="spline", pl=False)


# --------------------------------------------------------------------------------------
# Hosmer-Lemeshow by simulation (fixed seeds)


def _sim(rng, n, slope=1.0, shift=0.0):
    """x ~ N(0, 1.5^2), y ~ Bernoulli(plogis(x)), and a fixed model p = plogis(slope * x +
    shift) (calibrated for slope 1, shift 0). Returns (x, y, p)."""
    x = rng.normal(0, 1.5, n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-x))).astype(float)
    return x, y, 1 / (1 + np.exp(-(slope * x + shift)))


def test_hoslem_uniform_under_calibration():
    """Hosmer and Lemeshow's g - 2 degrees of freedom hold for the fitted values of a
    logistic model estimated on the same data: there the p-values are uniform."""
    from scipy import stats

    from calstats.clinical.logistic import logistic_mle

    rng = np.random.default_rng(14)
    pv = []
    for _ in range(300):
        x, y, _ = _sim(rng, 500)
        X = np.column_stack([np.ones(x.size), x])
        fit = logistic_mle(X, y)
        pv.append(hoslem_test(y, 1 / (1 + np.exp(-(X @ fit.coef)))).p_value)
    pv = np.array(pv)
    assert stats.kstest(pv, "uniform").pvalue > 0.01
    assert abs(np.mean(pv < 0.05) - 0.05) < 0.035


def test_hoslem_known_probabilities_anticonservative():
    """With the true probabilities (nothing estimated) the statistic is ~chi-square on g,
    not g - 2, degrees of freedom, so the test rejects too often (a property of the
    definition, kept as in R)."""
    rng = np.random.default_rng(16)
    pv = np.array([hoslem_test(y, p).p_value for y, p in (_sim(rng, 500)[1:] for _ in range(200))])
    assert np.mean(pv < 0.05) > 0.08


@pytest.mark.parametrize("slope,shift", [(2.0, 0.0), (1.0, 0.6)])
def test_hoslem_power_when_miscalibrated(slope, shift):
    rng = np.random.default_rng(15)
    pv = np.array([hoslem_test(y, p).p_value for y, p in (_sim(rng, 500, slope, shift)[1:] for _ in range(100))])
    assert np.mean(pv < 0.05) > 0.9


# --------------------------------------------------------------------------------------
# API behaviour


def _data(n=150, seed=3):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    return p, y


def test_inputs_not_mutated_and_types_accepted():
    p, y = _data()
    p0, y0 = p.copy(), y.copy()
    res = val_prob(p, y, pl=False)
    assert np.array_equal(p, p0) and np.array_equal(y, y0)
    p32 = p.astype(np.float32)
    r32 = val_prob(p32, y, pl=False)
    r64 = val_prob(p32.astype(np.float64), y.astype(float), pl=False)
    assert_rel(r32.stats.to_numpy(), r64.stats.to_numpy())
    rs = val_prob(pd.Series(p), pd.Series(y.astype(bool)), pl=False)
    assert_rel(rs.stats.to_numpy(), res.stats.to_numpy())
    assert res["Emax"] == res.stats["Emax"]
    assert list(res.stats.index) == list(STAT_NAMES)
    assert math.isnan(res["D:p"]) and "D:p" in res
    assert "D:p" in str(res) and "NA" in str(res)


def test_val_prob_errors_and_nan_rows():
    p, y = _data(30)
    with pytest.raises(CalstatsError, match='argument "logit" is missing'):
        val_prob(y=y, pl=False)
    with pytest.raises(CalstatsError, match='argument "y" is missing'):
        val_prob(p, pl=False)
    with pytest.raises(CalstatsError, match="lengths of p or logit and y do not agree"):
        val_prob(p[:-1], y, pl=False)
    with pytest.raises(CalstatsError, match="numeric"):
        val_prob(["a"] * 30, y, pl=False)
    pn = p.copy()
    pn[[2, 5]] = np.nan
    keep = ~np.isnan(pn)
    assert_rel(val_prob(pn, y, pl=False).stats.to_numpy(), val_prob(p[keep], y[keep], pl=False).stats.to_numpy())


def test_logit_input_equals_p_input():
    p, y = _data()
    lg = np.log(p / (1 - p))
    a = val_prob(logit=lg, y=y, pl=False)
    b = val_prob(p=1 / (1 + np.exp(-lg)), y=y, pl=False)
    assert_rel(a.stats.to_numpy(), b.stats.to_numpy(), rtol=1e-9)


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=8, max_value=120))
def test_val_prob_properties(seed, n):
    rng = np.random.default_rng(seed)
    # rounded, but never to 0 or 1: those rows leave the logistic fit (as in R), and the two
    # rows given both outcomes below must stay in it
    p = np.clip(np.round(rng.uniform(0.01, 0.99, n), int(rng.integers(1, 6))), 0.01, 0.99)
    y = (rng.uniform(size=n) < p).astype(float)
    y[0], y[1] = 0.0, 1.0
    if np.unique(p).size == 1:
        p[0] = 0.5 if p[1] != 0.5 else 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = val_prob(p, y, pl=False).stats
    assert 0 <= s["C (ROC)"] <= 1
    assert s["Dxy"] == pytest.approx(2 * s["C (ROC)"] - 1, abs=1e-12)
    assert s["Brier"] == pytest.approx(np.mean((p - y) ** 2), rel=1e-12)
    # a mean can exceed a 90th percentile (one large error among 22 rows does it), so the
    # invariants are only that both lie between 0 and the maximum
    assert 0 <= s["Eavg"] <= s["Emax"] + 2e-15
    assert 0 <= s["E90"] <= s["Emax"] + 2e-15
    assert 0 <= s["U:p"] <= 1 and 0 <= s["S:p"] <= 1


# --------------------------------------------------------------------------------------
# plots (Agg backend) and the formula interface


def test_plots_draw():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    p, y = _data(300)
    fig, ax = plt.subplots()
    res = val_prob(p, y, g=8, pl=True, ax=ax)
    assert len(ax.lines) >= 4 and len(ax.texts) == 2 and ax.get_legend() is not None
    fig2, ax2 = plt.subplots()
    res.plot(ax=ax2, riskdist="calibrated", statloc=False, legendloc=False)
    assert len(ax2.texts) == 0 and ax2.get_legend() is None
    fig3, ax3 = plt.subplots()
    val_prob_ci(p, y, ax=ax3, pl=True)
    assert ax3.collections  # the band
    fig4, ax4 = plt.subplots()
    val_prob(p, y, group=np.where(p > 0.5, "hi", "lo"), pl=False).plot(ax=ax4)
    plt.close("all")


def test_formula_interface():
    import calstats.formula.api as cf

    p, y = _data(200)
    df = pd.DataFrame({"outcome": np.where(y == 1, "yes", "no"), "risk": p, "site": np.where(p > 0.4, "A", "B")})
    a = cf.val_prob("outcome ~ risk", data=df, pl=False)
    b = calstats.val_prob(p, y, pl=False)
    assert_rel(a.stats.to_numpy(), b.stats.to_numpy())
    h = cf.hoslem_test("outcome ~ risk", data=df, g=8)
    assert h.data_name == "outcome, risk" and h.parameter == {"df": 6}
    assert h.p_value == calstats.hoslem_test(y, p, g=8).p_value
    ci = cf.val_prob_ci("outcome ~ risk", data=df, pl=False)
    assert ci.slope == calstats.val_prob_ci(p, y, pl=False).slope
    g = cf.val_prob("outcome ~ risk", data=df, group=df["site"], pl=False)
    assert list(g.stats.index) == ["A", "B", "Overall"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(span=0), "Argument `span` must be a single number in `(0, 1]`."),
    (dict(span=1.5), "Argument `span` must be a single number in `(0, 1]`."),
    (dict(span="a"), "Argument `span` must be a single number in `(0, 1]`."),
    (dict(degree=3), "Argument `degree` must be 0, 1 or 2."),
])
def test_val_prob_ci_loess_arguments(kwargs, message):
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.95, 200)
    y = (rng.uniform(size=200) < p).astype(float)
    with pytest.raises(calstats.CalstatsError) as e:
        val_prob_ci(p, y, pl=False, **kwargs)
    assert str(e.value) == message
    assert val_prob_ci(p, y, pl=False, span=1.0, degree=1).table.shape[0] == 3  # the closed end is accepted


def test_hoslem_df_g_for_external_validation():
    """``df=g``: with the true probabilities (external validation, nothing estimated on
    these data) the statistic is ~chi-square on g degrees of freedom, so the p-values are
    uniform again; the statistic itself does not depend on ``df``."""
    from scipy import stats

    rng = np.random.default_rng(16)
    draws = [_sim(rng, 500)[1:] for _ in range(300)]
    pv = np.array([hoslem_test(y, p, df=10).p_value for y, p in draws])
    assert stats.kstest(pv, "uniform").pvalue > 0.01
    assert abs(np.mean(pv < 0.05) - 0.05) < 0.035
    y, p = draws[0]
    a, b = hoslem_test(y, p), hoslem_test(y, p, df=10)
    assert a.statistic == b.statistic and a.parameter == {"df": 8} and b.parameter == {"df": 10}
    assert b.p_value == pytest.approx(stats.chi2.sf(b.statistic["X-squared"], 10), rel=1e-12)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "10", [8, 10]])
def test_hoslem_df_refused(bad):
    with pytest.raises(CalstatsError, match=r"^Argument `df` must be a single positive finite number\.$"):
        hoslem_test([0, 1, 1, 0], [0.2, 0.6, 0.7, 0.4], df=bad)


def test_hierarchy_intercept_with_extreme_offsets_is_the_mle():
    """Offsets of -744 to 28 on the logit scale (the bundled naive-Bayes probabilities):
    at the start every fitted probability is 0 or 1 and the Newton step is astronomically
    long. The intercept is still the root of the score equation, with a finite standard
    error (the step was once accepted unchecked and the intercept read 4.6e181; R's glm
    stops at -4.4e15 and rms' lrm.fit fails)."""
    from scipy import optimize, special

    from calstats.datasets import load_digits_binary

    d = load_digits_binary()
    p, y = d["p"].to_numpy(), d["label"].to_numpy().astype(float)
    with pytest.warns(calstats.CalstatsWarning, match="664 observations deleted"):
        h = val_prob_ci(p, y)
    keep = (p > 0) & (p < 1)
    o, yk = special.logit(p[keep]), y[keep]
    root = optimize.brentq(lambda a: yk.sum() - special.expit(a + o).sum(), -100, 100, xtol=1e-14)
    citl = h.table.loc["Calibration-in-the-large"]
    assert citl["estimate"] == pytest.approx(root, rel=1e-10)
    info = np.sum(special.expit(root + o) * special.expit(-(root + o)))
    assert citl["se"] == pytest.approx(1 / np.sqrt(info), rel=1e-6)

"""cal_platt, cal_beta, cal_temperature, cal_vector_scaling against R.

Fixtures: tests/fixtures/{platt,beta,temperature,vector_scaling}.json (fits and predictions),
errors.json, quirks.json and printing.json (the cases of these four functions).
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import EXACT_PLATFORM, arr, case_ids, exact_only, load_cases, run_call
from calstats import CalstatsError, CalstatsWarning
from calstats.calibrators import scaling
from calstats.kernels.probs import binary_log_loss
from calstats.ports.stats.glm import GlmFit

EXTENDED = EXACT_PLATFORM

FAMILIES = ("platt", "beta", "temperature", "vector_scaling")
CASES = [(fam, c) for fam in FAMILIES for c in load_cases(fam)]
IDS = [c["id"] for _, c in CASES]
_FUNCS = re.compile(r"(?<![\w.])(cal_platt|cal_beta|cal_temperature|cal_vector_scaling)\(")
QUIRKS = {c["id"]: c for c in load_cases("quirks")}

FIELDS = {
    "cal_platt": ["method", "n", "input", "coefficients", "fit", "target_pos", "target_neg", "call"],
    "cal_beta": ["method", "n", "input", "coefficients", "a", "b", "c", "eps", "fit", "call"],
    "cal_temperature": ["method", "n", "input", "temperature", "value", "convergence", "call"],
    "cal_temperature_multi": ["method", "n", "input", "temperature", "value", "convergence", "k", "levels",
                              "call"],
    "cal_vector_scaling": ["method", "n", "input", "scale", "bias", "value", "convergence", "k", "levels", "call"],
}


def _run(case):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        env, last = run_call(case, calstats)
    return env, last, [str(w.message) for w in rec if issubclass(w.category, CalstatsWarning)]


@pytest.fixture(scope="module")
def fitted():
    return {c["id"]: _run(c) for _, c in CASES}


def _coef(named):
    return pd.Series({k: (math.nan if v == "NA" else float(v)) for k, v in named.items()}, dtype=np.float64)


def _clipped(case):
    p, eps = arr(case["inputs"]["p"]), float(np.ravel(case["inputs"].get("eps", 1e-15))[0])
    return bool(np.any((p <= eps) | (p >= 1 - eps)))


def _path_dependent(case):
    return (case.get("notes") or "").startswith("PATH-DEPENDENT")


def _pred(x):
    return x.to_numpy() if isinstance(x, pd.DataFrame) else np.asarray(x)


# -- fixtures: fields and numbers within r-interface.md §10 ---------------------------------


@pytest.mark.parametrize("fam, case", CASES, ids=IDS)
def test_fields_and_class(fam, case, fitted):
    env, _, messages = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    assert list(fit.r_class) == out["class"]
    key = out["class"][0] + ("_multi" if "k" in out and fam == "temperature" else "")
    assert fit.names() == FIELDS[key]
    assert fit.method == out["method"] and fit.input == out["input"]
    assert fit.n == out["n"] and isinstance(fit.n, int)
    if "k" in out:
        assert fit.k == out["k"] and fit.levels == out["levels"]
        assert list(env["pred_fit"].columns) == out["predict_colnames"]
        assert isinstance(env["pred_new"], pd.DataFrame)
    else:
        assert env["pred_fit"].ndim == 1 and env["pred_fit"].dtype == np.float64
    # warnings: R's texts in R's order (only the separable beta fit warns)
    assert messages == out["warnings"]
    assert fit.call["function"] == out["class"][0]


@pytest.mark.parametrize("fam, case", [fc for fc in CASES if fc[0] in ("platt", "beta")],
                         ids=[c["id"] for f, c in CASES if f in ("platt", "beta")])
def test_glm_fits(fam, case, fitted):
    env, _, _ = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    want = _coef(out["coefficients"])
    assert list(fit.coefficients.index) == list(want.index)
    assert fit.coef is fit.coefficients
    if _path_dependent(case):
        rtol, atol = 1e-8, 1e-6
    elif fam == "beta" and _clipped(case):
        rtol, atol = 1e-10, 1e-10
    else:
        rtol, atol = 1e-12, 1e-12
    scale = max(1.0, float(np.abs(want).max()))
    assert float(np.abs(fit.coefficients - want).max()) <= rtol * scale
    assert isinstance(fit.fit, GlmFit)
    assert fit.fit.iter == out["diag_glm_iter"] and fit.fit.converged is out["diag_glm_converged"]
    assert fit.fit.deviance == pytest.approx(out["diag_glm_deviance"], rel=1e-6 if _path_dependent(case) else 1e-12)
    if fam == "platt":
        assert fit.target_pos == out["target_pos"] and fit.target_neg == out["target_neg"]
    else:
        assert fit.eps == out["eps"]
        got = np.array([fit.a, fit.b, fit.c])
        assert np.abs(got - np.array([out["a"], out["b"], out["c"]])).max() <= rtol * scale
        assert fit.a == fit.coefficients["log_p"] and fit.b == -fit.coefficients["log_1mp"]
    np.testing.assert_allclose(env["pred_fit"], arr(out["predict_fit"]), rtol=0, atol=atol)
    np.testing.assert_allclose(env["pred_new"], arr(out["predict_new"]), rtol=0, atol=atol)


@pytest.mark.parametrize("case", load_cases("temperature"), ids=case_ids(load_cases("temperature")))
def test_temperature_fits(case, fitted):
    env, _, _ = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    assert abs(fit.temperature - out["temperature"]) <= 3e-8 * abs(out["temperature"]) + 1e-8
    assert fit.value == pytest.approx(out["value"], rel=1e-12)
    assert fit.convergence == 0 == out["convergence"] and isinstance(fit.convergence, int)
    assert 1e-3 < fit.temperature < 1e3
    assert list(fit.coef.index) == ["temperature"] and fit.coef["temperature"] == fit.temperature
    np.testing.assert_allclose(_pred(env["pred_fit"]), arr(out["predict_fit"]), rtol=0, atol=1e-7)
    np.testing.assert_allclose(_pred(env["pred_new"]), arr(out["predict_new"]), rtol=0, atol=1e-7)


@pytest.mark.parametrize("case", load_cases("vector_scaling"), ids=case_ids(load_cases("vector_scaling")))
def test_vector_scaling_fits(case, fitted):
    env, _, _ = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    loose = _path_dependent(case) or out["convergence"] != 0
    atol = 1e-3 if loose else 1e-7
    np.testing.assert_allclose(_pred(env["pred_fit"]), arr(out["predict_fit"]), rtol=0, atol=atol)
    np.testing.assert_allclose(_pred(env["pred_new"]), arr(out["predict_new"]), rtol=0, atol=atol)
    assert list(fit.coef.columns) == ["scale", "bias"] and list(fit.coef.index) == fit.levels
    if loose:
        return
    assert fit.convergence == out["convergence"]
    for key in ("scale", "bias"):
        want = arr(out[key])
        assert np.abs(fit[key] - want).max() <= 1e-10 * max(1.0, np.abs(want).max())
    assert fit.value == pytest.approx(out["value"], rel=1e-13)


@exact_only
@pytest.mark.parametrize("fam, case", CASES, ids=IDS)
def test_bit_identical_to_r(fam, case, fitted):
    """With R's arithmetic (numerics.md N1-N4) every fixture fit is R's to the last bit,
    the separable beta and vector-scaling fits included."""
    env, _, _ = fitted[case["id"]]
    fit, out = env["fit"], case["outputs"]
    for key in ("a", "b", "c", "temperature", "value", "scale", "bias", "target_pos", "target_neg"):
        if key in out:
            assert np.array_equal(np.asarray(fit[key], dtype=float), arr(out[key])), key
    if "coefficients" in out:
        assert np.array_equal(fit.coefficients.to_numpy(), _coef(out["coefficients"]).to_numpy())
        assert fit.fit.deviance == out["diag_glm_deviance"]
    if "convergence" in out:
        assert fit.convergence == out["convergence"]
    assert np.array_equal(_pred(env["pred_fit"]), arr(out["predict_fit"]))
    assert np.array_equal(_pred(env["pred_new"]), arr(out["predict_new"]))


# -- errors: every R error case is replayed in tests/test_r_conditions.py ---------------


def _xy(n=40, seed=0):
    rs = np.random.default_rng(seed)
    x = rs.normal(size=n)
    y = (rs.random(n) < 1 / (1 + np.exp(-1.5 * x))).astype(np.int64)
    y[:2] = [0, 1]
    return x, y


def test_platt_predict_overflow_names_x():
    x, y = _xy()
    fit = calstats.cal_platt(x, y)
    assert fit.coefficients["x"] > 1
    with pytest.raises(CalstatsError, match=r"^Argument `x` must contain only finite values\.$"):
        fit.predict([1.7e308])


def test_platt_constant_x_is_aliased_and_predict_fails():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])
    fit = calstats.cal_platt(np.full(10, 0.3), y)
    assert math.isnan(fit.coefficients["x"]) and fit.fit.rank == 1
    with calstats.option_context(emoji=False):
        assert "x: NA" in fit.summary().as_text()
    with pytest.raises(CalstatsError, match=r"^Argument `x` must not contain missing values\.$"):
        fit.predict([0.1, 0.2])


def test_beta_single_distinct_p_aliases_both_slopes():
    fit = calstats.cal_beta(np.full(12, 0.35), np.array([0, 1] * 6))
    assert math.isnan(fit.a) and math.isnan(fit.b) and math.isfinite(fit.c)
    with pytest.raises(CalstatsError, match="`x` must not contain missing values"):
        fit.predict([0.5])


def test_binary_temperature_predict_on_matrix_is_r_error():
    x, y = _xy()
    fit = calstats.cal_temperature(x, y)
    with pytest.raises(CalstatsError, match=r"^argument is of length zero$"):
        fit.predict(np.zeros((3, 2)))
    with pytest.raises(CalstatsError, match="must have at least two columns"):
        fit.predict(np.zeros((3, 1)))  # quirk Q9: V-LMAT comes first
    with pytest.raises(CalstatsError, match="`newdata` must not contain missing values"):
        fit.predict([np.nan])


def test_unreachable_temperature_check(monkeypatch):
    from calstats.kernels import temperature

    monkeypatch.setattr(temperature, "brent_min", lambda *a, **k: math.nan)
    x, y = _xy()
    with pytest.raises(CalstatsError, match=r"^The fitted temperature must be positive and finite\.$"):
        calstats.cal_temperature(x, y)


def test_check_order():
    # labels are checked before eps (beta); lengths after labels
    with pytest.raises(CalstatsError, match="`y` must contain only binary labels"):
        calstats.cal_beta([0.2, 0.4], [0, 2], eps=0.9)
    with pytest.raises(CalstatsError, match="must have the same length"):
        calstats.cal_beta([0.2, 0.4, 0.5], [0, 1], eps=0.9)
    with pytest.raises(CalstatsError, match="`eps` must be a single number"):
        calstats.cal_beta([0.2, 0.4], [0, 1], eps=True)
    with pytest.raises(CalstatsError, match="`x` must be a numeric vector"):
        calstats.cal_platt(np.zeros((4, 2)), [0, 1, 0, 1])  # port decision: 2-D, >1 column
    with pytest.raises(CalstatsError, match="`newdata` must have 3 columns"):
        calstats.cal_vector_scaling(np.random.default_rng(0).normal(size=(9, 3)), [1, 2, 3] * 3).predict(np.zeros((2, 2)))


# -- quirks --------------------------------------------------------------------------------

QUIRK_IDS = sorted(i for i, c in QUIRKS.items() if _FUNCS.search(c["call"]))


def test_quirk_cases_present():
    assert len(QUIRK_IDS) == 7


@pytest.mark.parametrize("qid", QUIRK_IDS)
def test_quirks(qid):
    case = QUIRKS[qid]
    out = case["outputs"]
    if "error" in out:
        with pytest.raises(CalstatsError) as err:
            run_call(case, calstats)
        assert str(err.value) == out["error"]
        return
    env, last, messages = _run(case)
    want = out["value"]
    if "values" in want:  # a prediction (one-column matrix input, quirk Q5)
        np.testing.assert_allclose(np.asarray(last), arr(want["values"])[:, 0], rtol=0, atol=1e-12)
        assert messages == out["warnings"]
        return
    fit = last
    assert list(fit.r_class) == want["class"] and fit.n == want["n"] and fit.method == want["method"]
    if "coefficients" in want:
        np.testing.assert_allclose(fit.coefficients, _coef(want["coefficients"]), rtol=1e-12, atol=1e-12)
        assert fit.fit.iter == want["diag_glm_iter"]
        assert messages == out["warnings"] == []
    else:
        # Q1 temperature: NA objective everywhere; Brent walks to the upper end, warning
        # at every evaluation (R 4.2.2 makes 37; compare the text, README).
        assert fit.temperature == pytest.approx(want["temperature"], rel=3e-8)
        assert math.isnan(fit.value) and want["value"] == "NA" and fit.convergence == 0
        assert set(messages) == set(out["warnings"]) == {"NA/Inf replaced by maximum positive value"}
        assert len(messages) == 37


def test_logical_na_labels_beta_counts_the_dropped_row():
    fit = run_call(QUIRKS["quirk_logical_na_labels_beta"], calstats)[1]
    assert fit.n == 8 and fit.fit.y.size == 7 and fit.fit.df_null == 6


@exact_only
def test_quirk_fits_bit_identical():
    beta = run_call(QUIRKS["quirk_logical_na_labels_beta"], calstats)[1]
    want = QUIRKS["quirk_logical_na_labels_beta"]["outputs"]["value"]
    assert np.array_equal(beta.coefficients.to_numpy(), _coef(want["coefficients"]).to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        temp = run_call(QUIRKS["quirk_logical_na_labels_temperature"], calstats)[1]
    assert temp.temperature == QUIRKS["quirk_logical_na_labels_temperature"]["outputs"]["value"]["temperature"]
    aliased = run_call(QUIRKS["quirk_beta_two_distinct_values_fit"], calstats)[1]
    want = QUIRKS["quirk_beta_two_distinct_values_fit"]["outputs"]["value"]
    assert np.array_equal(aliased.coefficients.to_numpy(), _coef(want["coefficients"]).to_numpy(), equal_nan=True)


# -- printing: every R print/summary case is replayed in tests/test_r_conditions.py ------


def test_summary_tables_for_reports():
    x, y = _xy()
    frames = calstats.cal_platt(x, y).summary().as_frames()
    assert list(frames["coefficients"].index) == ["(Intercept)", "x"]
    z = np.random.default_rng(3).normal(size=(30, 3))
    vs = calstats.cal_vector_scaling(z, [1, 2, 3] * 10)
    np.testing.assert_array_equal(vs.summary().as_frames()["coefficients"]["scale"].to_numpy(), vs.scale)


# -- internals -------------------------------------------------------------------------------


def test_binary_log_loss_is_a_clipped_sum():
    p = np.array([0.0, 1.0, 0.25, 0.9])
    y = np.array([1, 1, 0, 1])
    want = -(math.log(1e-15) + math.log(1 - 1e-15) + math.log1p(-0.25) + math.log(0.9))
    assert binary_log_loss(p, y) == pytest.approx(want, rel=1e-15)
    assert math.isnan(binary_log_loss(p, np.array([1, np.nan, 0, 1])))


def test_records_call():
    x, y = _xy()
    fit = calstats.cal_beta(x * 0 + 0.5 + x / 10, y, eps=1e-6)
    assert fit.call["function"] == "cal_beta" and list(fit.call["args"]) == ["p", "y", "eps"]
    assert list(calstats.cal_platt(x=x, y=y).call["args"]) == ["x", "y"]


def test_predict_ignores_extra_keywords():
    x, y = _xy()
    fit = calstats.cal_platt(x, y)
    np.testing.assert_array_equal(calstats.predict(fit, x, type="response"), fit.predict(x))


# -- inputs and properties -------------------------------------------------------------------


def test_pandas_float32_and_boolean_inputs():
    x, y = _xy()
    ref = calstats.cal_platt(x, y)
    idx = pd.Index([f"r{i}" for i in range(x.size)])
    same = calstats.cal_platt(pd.Series(x, index=idx), pd.Series(y.astype(bool), index=idx))
    np.testing.assert_array_equal(same.coefficients, ref.coefficients)
    f32 = calstats.cal_platt(x.astype(np.float32), y.astype(np.int8))
    np.testing.assert_array_equal(f32.coefficients, calstats.cal_platt(x.astype(np.float32).astype(float), y).coefficients)
    assert calstats.cal_temperature(pd.Series(x), pd.array(y.astype(bool), dtype="boolean")).temperature == \
        calstats.cal_temperature(x, y).temperature
    p = 1 / (1 + np.exp(-x))
    assert calstats.cal_beta(p.reshape(-1, 1), y).coefficients.equals(calstats.cal_beta(p, y).coefficients)
    z = np.random.default_rng(4).normal(size=(60, 3))
    codes = np.random.default_rng(5).integers(1, 4, size=60)
    frame = pd.DataFrame(z, index=[f"o{i}" for i in range(60)], columns=list("ABC"))
    lab = pd.Categorical.from_codes(codes - 1, categories=["lo", "mid", "hi"])
    for fn in (calstats.cal_vector_scaling, calstats.cal_temperature):
        fit = fn(frame, lab)
        assert fit.levels == ["lo", "mid", "hi"]
        pred = fit.predict(frame)
        assert list(pred.columns) == fit.levels and pred.index.equals(frame.index)
        np.testing.assert_array_equal(pred.to_numpy(), fn(z, codes).predict(z).to_numpy())
        fit32 = fn(z.astype(np.float32), codes)
        assert fit32.k == 3


@st.composite
def _binary_problem(draw, kind="scores"):
    n = draw(st.integers(4, 60))
    seed = draw(st.integers(0, 2**31 - 1))
    rs = np.random.default_rng(seed)
    x = rs.normal(size=n) * draw(st.sampled_from([0.5, 2.0, 5.0]))
    y = (rs.random(n) < 1 / (1 + np.exp(-x))).astype(np.int64)
    y[rs.choice(n, 2, replace=False)] = [0, 1]
    if kind == "probs":
        x = 1 / (1 + np.exp(-x))
    return x, y


def _grid(x):
    return np.linspace(x.min() - 1, x.max() + 1, 50)


@settings(max_examples=30, deadline=None)
@given(data=_binary_problem())
def test_platt_and_temperature_properties(data):
    x, y = data
    xb, yb = x.copy(), y.copy()
    platt = calstats.cal_platt(x, y)
    temp = calstats.cal_temperature(x, y)
    np.testing.assert_array_equal(x, xb)
    np.testing.assert_array_equal(y, yb)
    g = _grid(x)
    for fit, up in ((platt, platt.coefficients["x"] > 0), (temp, True)):
        pred = fit.predict(g)
        assert pred.shape == g.shape and np.all((pred >= 0) & (pred <= 1))
        if up:
            assert np.all(np.diff(pred) >= 0)
    assert temp.value >= 0 and 1e-3 < temp.temperature < 1e3


@settings(max_examples=30, deadline=None)
@given(data=_binary_problem("probs"), eps=st.sampled_from([1e-15, 1e-6, 0.01]))
def test_beta_properties(data, eps):
    p, y = data
    pb = p.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)  # separable draws warn as in R
        fit = calstats.cal_beta(p, y, eps=eps)
    np.testing.assert_array_equal(p, pb)
    if not (math.isfinite(fit.a) and math.isfinite(fit.b)):
        return
    g = np.linspace(0, 1, 41)
    pred = fit.predict(g)
    assert np.all((pred >= 0) & (pred <= 1))
    if fit.a > 0 and fit.b > 0:
        assert np.all(np.diff(pred) >= 0)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(6, 80), k=st.integers(2, 6), seed=st.integers(0, 2**31 - 1))
def test_vector_scaling_rows_are_distributions(n, k, seed):
    rs = np.random.default_rng(seed)
    z = rs.normal(size=(n, k)) * 2
    codes = rs.integers(1, k + 1, size=n)
    codes[:k] = np.arange(1, k + 1)  # every class present, so k is the largest code
    zb = z.copy()
    fit = calstats.cal_vector_scaling(z, codes)
    np.testing.assert_array_equal(z, zb)
    pred = fit.predict(rs.normal(size=(10, k)) * 3).to_numpy()
    assert np.all((pred >= 0) & (pred <= 1))
    np.testing.assert_allclose(pred.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert fit.convergence in (0, 1) and fit.scale.shape == fit.bias.shape == (k,)
    # the fit cannot be worse than the start (s = 1, b = 0)
    start = scaling.VectorScalingObjective(z, codes)
    assert fit.value <= start.value(start.start())

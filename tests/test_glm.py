"""calstats.ports.stats.glm against R's glm.fit (numerics.md N4, r-interface.md §3.3, §3.5, §3.8).

The fixtures are R's cal_platt / cal_beta fits (platt.json, beta.json) and the quirk cases
with aliased or dropped observations (quirks.json). The design matrices are built here the
way probcal builds them, so only the GLM itself is under test.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from _fixtures import load_fixture
from _rcases import exact_only
from _rcases import rnum as _num
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.numerics import libm
from calstats.numerics.reductions import rsum
from calstats.ports.stats.glm import GlmFit, glm_binomial

PLATT = load_fixture("platt")["cases"]
BETA = load_fixture("beta")["cases"]
QUIRKS = {c["id"]: c for c in load_fixture("quirks")["cases"]}

PLATT_NAMES = ["(Intercept)", "x"]
BETA_NAMES = ["(Intercept)", "log_p", "log_1mp"]



# --------------------------------------------------------------------------------------
# helpers




def _coef(named):
    return pd.Series({k: _num(v) for k, v in named.items()}, dtype=np.float64)


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    d = np.where(both_nan, 0.0, np.abs(a - b) / np.where(b == 0, 1.0, np.abs(b)))
    return float(np.max(d)) if d.size else 0.0


def _inv_logit(x):
    return 1.0 / (1.0 + libm.exp(-np.asarray(x, dtype=np.float64)))


def platt_design(x, y):
    """cal_platt's response and design (r-interface.md §3.3)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    n_pos = int(np.sum(y == 1))
    n_neg = int(np.sum(y == 0))
    target_pos = (n_pos + 1) / (n_pos + 2)
    target_neg = 1 / (n_neg + 2)
    t = np.where(y == 1, target_pos, target_neg)
    X = np.column_stack([np.ones_like(x), x])
    return X, t, target_pos, target_neg


def clip(p, eps):
    return np.minimum(np.maximum(p, eps), 1 - eps)


def beta_design(p, eps):
    """cal_beta's design: columns (Intercept), log(p*), log1p(-p*) (r-interface.md §3.5)."""
    ps = clip(np.asarray(p, dtype=np.float64), eps)
    return np.column_stack([np.ones_like(ps), libm.log(ps), libm.log1p(-ps)])


def platt_predict(coef, newdata):
    return _inv_logit(coef["(Intercept)"] + coef["x"] * np.asarray(newdata, dtype=np.float64))


def beta_predict(coef, newdata, eps):
    a, b, c = coef["log_p"], -coef["log_1mp"], coef["(Intercept)"]
    ps = clip(np.asarray(newdata, dtype=np.float64), eps)
    return _inv_logit(a * libm.log(ps) - b * libm.log1p(-ps) + c)


def _eps(case):
    e = case["inputs"].get("eps", 1e-15)
    return float(e[0] if isinstance(e, list) else e)


def fit_platt_case(case, warn=False):
    x, y = _num(case["inputs"]["x"]), _num(case["inputs"]["y"])
    X, t, tp, tn = platt_design(x, y)
    return glm_binomial(X, t, PLATT_NAMES, warn=warn), tp, tn


def fit_beta_case(case, warn=True):
    p, y = _num(case["inputs"]["p"]), _num(case["inputs"]["y"])
    return glm_binomial(beta_design(p, _eps(case)), y, BETA_NAMES, warn=warn)


def _separable(case):
    o = case["outputs"]
    return (case.get("notes") or "").startswith("PATH-DEPENDENT") or not o["diag_glm_converged"]


def _clipped(case):
    p, eps = _num(case["inputs"]["p"]), _eps(case)
    return bool(np.any((p <= eps) | (p >= 1 - eps)))


def _beta_coef_rtol(case):
    if _separable(case):
        return 1e-8
    return 1e-10 if _clipped(case) else 1e-12


def _recorded(fn):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in rec if issubclass(w.category, CalstatsWarning)], rec


# --------------------------------------------------------------------------------------
# Platt fixtures


@pytest.mark.parametrize("case", PLATT, ids=[c["id"] for c in PLATT])
def test_platt_fixture(case):
    o = case["outputs"]
    (fit, tp, tn), messages, rec = _recorded(lambda: fit_platt_case(case, warn=False))
    assert rec == [] and messages == []  # cal_platt suppresses every glm warning
    assert tp == o["target_pos"] and tn == o["target_neg"]
    assert list(fit.coefficients.index) == PLATT_NAMES
    assert _rel(fit.coefficients, _coef(o["coefficients"])[PLATT_NAMES]) <= 1e-12
    assert fit.iter == o["diag_glm_iter"]
    assert fit.converged is o["diag_glm_converged"]
    assert _rel(fit.deviance, o["diag_glm_deviance"]) <= 1e-12
    assert fit.rank == 2 and list(fit.pivot) == [1, 2] and fit.boundary is False
    x = _num(case["inputs"]["x"])
    np.testing.assert_allclose(platt_predict(fit.coefficients, x), _num(o["predict_fit"]), rtol=0, atol=1e-12)
    nd = _num(case["inputs"]["newdata"])
    np.testing.assert_allclose(platt_predict(fit.coefficients, nd), _num(o["predict_new"]), rtol=0, atol=1e-12)


@exact_only
@pytest.mark.parametrize("case", PLATT, ids=[c["id"] for c in PLATT])
def test_platt_fixture_bit_exact(case):
    o = case["outputs"]
    fit, _, _ = fit_platt_case(case)
    want = _coef(o["coefficients"])[PLATT_NAMES]
    assert np.array_equal(fit.coefficients.to_numpy(), want.to_numpy())
    assert fit.deviance == o["diag_glm_deviance"]
    x, nd = _num(case["inputs"]["x"]), _num(case["inputs"]["newdata"])
    assert np.array_equal(platt_predict(fit.coefficients, x), _num(o["predict_fit"]))
    assert np.array_equal(platt_predict(fit.coefficients, nd), _num(o["predict_new"]))


def test_platt_warn_true_gives_r_initialize_warning():
    # R's binomial()$initialize warns for the fractional Platt targets; probcal suppresses
    # it, but with warn=True the port reports it like R does.
    (fit, _, _), messages, _ = _recorded(lambda: fit_platt_case(PLATT[0], warn=True))
    assert messages == ["non-integer #successes in a binomial glm!"]
    assert fit.converged


# --------------------------------------------------------------------------------------
# beta fixtures


@pytest.mark.parametrize("case", BETA, ids=[c["id"] for c in BETA])
def test_beta_fixture(case):
    o = case["outputs"]
    fit, messages, _ = _recorded(lambda: fit_beta_case(case, warn=True))
    assert messages == o["warnings"]
    assert list(fit.coefficients.index) == BETA_NAMES
    rtol = _beta_coef_rtol(case)
    assert _rel(fit.coefficients, _coef(o["coefficients"])[BETA_NAMES]) <= rtol
    coef = fit.coefficients
    assert _rel([coef["log_p"], -coef["log_1mp"], coef["(Intercept)"]], [o["a"], o["b"], o["c"]]) <= rtol
    assert fit.iter == o["diag_glm_iter"]
    assert fit.converged is o["diag_glm_converged"]
    assert _rel(fit.deviance, o["diag_glm_deviance"]) <= (1e-6 if _separable(case) else 1e-12)
    assert fit.rank == 3 and list(fit.pivot) == [1, 2, 3]
    atol = 1e-6 if _separable(case) else 1e-12
    eps = _eps(case)
    p, nd = _num(case["inputs"]["p"]), _num(case["inputs"]["newdata"])
    np.testing.assert_allclose(beta_predict(coef, p, eps), _num(o["predict_fit"]), rtol=0, atol=atol)
    np.testing.assert_allclose(beta_predict(coef, nd, eps), _num(o["predict_new"]), rtol=0, atol=atol)


@exact_only
@pytest.mark.parametrize("case", BETA, ids=[c["id"] for c in BETA])
def test_beta_fixture_bit_exact(case):
    o = case["outputs"]
    fit = fit_beta_case(case, warn=False)
    want = _coef(o["coefficients"])[BETA_NAMES]
    assert np.array_equal(fit.coefficients.to_numpy(), want.to_numpy())
    assert fit.deviance == o["diag_glm_deviance"]
    eps = _eps(case)
    p, nd = _num(case["inputs"]["p"]), _num(case["inputs"]["newdata"])
    assert np.array_equal(beta_predict(fit.coefficients, p, eps), _num(o["predict_fit"]))
    assert np.array_equal(beta_predict(fit.coefficients, nd, eps), _num(o["predict_new"]))


def test_beta_warn_false_is_silent():
    case = next(c for c in BETA if c["outputs"]["warnings"])
    _, messages, rec = _recorded(lambda: fit_beta_case(case, warn=False))
    assert messages == [] and rec == []


def test_separable_beta_warning_order():
    case = next(c for c in BETA if c["id"] == "beta_separable_glm_warnings")
    fit, messages, _ = _recorded(lambda: fit_beta_case(case, warn=True))
    assert messages == [
        "glm.fit: algorithm did not converge",
        "glm.fit: fitted probabilities numerically 0 or 1 occurred",
    ]
    assert fit.iter == 25 and fit.converged is False and fit.boundary is False


# --------------------------------------------------------------------------------------
# quirk fixtures: aliased columns, dropped rows, one-column matrix


def test_beta_two_distinct_values_aliased_quirk():
    case = QUIRKS["quirk_beta_two_distinct_values_fit"]
    o = case["outputs"]["value"]
    fit, messages, _ = _recorded(lambda: fit_beta_case(case, warn=True))
    assert messages == case["outputs"]["warnings"] == []
    want = _coef(o["coefficients"])[BETA_NAMES]
    assert math.isnan(want["log_1mp"]) and math.isnan(fit.coefficients["log_1mp"])
    assert _rel(fit.coefficients, want) <= 1e-12
    assert fit.rank == 2 and fit.rank < 3
    assert list(fit.pivot) == [1, 2, 3]
    assert fit.df_residual == 8 - 2
    assert fit.iter == o["diag_glm_iter"] and fit.converged is o["diag_glm_converged"]
    assert _rel(fit.deviance, o["diag_glm_deviance"]) <= 1e-12
    assert list(fit.cov_unscaled.index) == ["(Intercept)", "log_p"]


def test_beta_logical_na_labels_rows_dropped_quirk():
    # glm() drops the observation with an NA label (na.omit); fit the complete rows.
    case = QUIRKS["quirk_logical_na_labels_beta"]
    o = case["outputs"]["value"]
    y = case["inputs"]["y"]
    keep = np.array([v != "NA" for v in y])
    p = _num(case["inputs"]["p"])[keep]
    yy = np.array([float(v) for v in y if v != "NA"])
    fit = glm_binomial(beta_design(p, 1e-15), yy, BETA_NAMES, warn=True)
    assert _rel(fit.coefficients, _coef(o["coefficients"])[BETA_NAMES]) <= 1e-12
    assert fit.iter == o["diag_glm_iter"]
    assert _rel(fit.deviance, o["diag_glm_deviance"]) <= 1e-12


def test_platt_one_column_matrix_quirk_predictions():
    case = QUIRKS["quirk_platt_accepts_one_column_matrix"]
    x = _num(case["inputs"]["x"])[:, 0]
    y = _num(case["inputs"]["y"])
    X, t, _, _ = platt_design(x, y)
    fit = glm_binomial(X, t, PLATT_NAMES)
    want = _num(case["outputs"]["value"]["values"])[:, 0]
    np.testing.assert_allclose(platt_predict(fit.coefficients, x), want, rtol=0, atol=1e-12)


def test_platt_constant_x_is_aliased():
    x = np.full(10, 0.3)
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 1], dtype=float)
    X, t, _, _ = platt_design(x, y)
    fit = glm_binomial(X, t, PLATT_NAMES)
    assert fit.rank == 1 and list(fit.pivot) == [1, 2]
    assert math.isnan(fit.coefficients["x"])
    only = glm_binomial(X[:, :1], t, ["(Intercept)"])
    # The intercept is that of the intercept-only fit (dqrdc2 moved x out before solving).
    assert fit.coefficients["(Intercept)"] == only.coefficients["(Intercept)"]
    mean_t = rsum(t) / t.size
    # IRLS stops on a 1e-8 relative deviance change, so only close to the exact logit(mean)
    assert fit.coefficients["(Intercept)"] == pytest.approx(math.log(mean_t / (1 - mean_t)), rel=1e-8)
    assert fit.df_residual == 9 and fit.df_null == 9
    assert list(fit.cov_unscaled.index) == ["(Intercept)"]
    assert np.all(np.isfinite(fit.fitted_values))


def test_beta_single_distinct_p_both_slopes_aliased():
    p = np.full(12, 0.35)
    y = np.array([0, 1] * 6, dtype=float)
    fit = glm_binomial(beta_design(p, 1e-15), y, BETA_NAMES, warn=True)
    assert fit.rank == 1 and list(fit.pivot) == [1, 2, 3]
    assert math.isnan(fit.coefficients["log_p"]) and math.isnan(fit.coefficients["log_1mp"])
    assert fit.coefficients["(Intercept)"] == pytest.approx(0.0, abs=1e-14)


def test_limited_pivoting_moves_aliased_middle_column_to_the_end():
    rs = np.random.RandomState(7)
    x = rs.normal(size=40)
    y = (rs.uniform(size=40) < 1 / (1 + np.exp(-x))).astype(float)
    X3 = np.column_stack([np.ones(40), np.full(40, 2.0), x])
    fit = glm_binomial(X3, y, ["(Intercept)", "two", "x"])
    assert fit.rank == 2 and list(fit.pivot) == [1, 3, 2]
    assert math.isnan(fit.coefficients["two"])
    ref = glm_binomial(X3[:, [0, 2]], y, ["(Intercept)", "x"])
    assert fit.coefficients["(Intercept)"] == ref.coefficients["(Intercept)"]
    assert fit.coefficients["x"] == ref.coefficients["x"]
    assert fit.iter == ref.iter and fit.deviance == ref.deviance
    assert list(fit.cov_unscaled.index) == ["(Intercept)", "x"]


# --------------------------------------------------------------------------------------
# the GlmFit record


def test_glmfit_fields_and_r_names():
    case = BETA[0]
    fit = fit_beta_case(case)
    assert isinstance(fit, GlmFit)
    assert fit.names() == [
        "coefficients", "fitted.values", "linear.predictors", "residuals", "weights",
        "prior.weights", "y", "deviance", "null.deviance", "aic", "iter", "converged",
        "boundary", "rank", "df.residual", "df.null", "pivot", "family", "link",
    ]
    assert fit["fitted.values"] is fit.fitted_values
    assert fit["df.residual"] == fit.df_residual == 120 - 3
    assert fit["df.null"] == 119
    assert "cov_unscaled" not in fit.names()
    assert fit.family == "binomial" and fit.link == "logit"
    assert isinstance(fit.coefficients, pd.Series) and fit.coefficients.dtype == np.float64
    assert isinstance(fit.iter, int) and isinstance(fit.rank, int)
    assert fit.pivot.dtype.kind == "i"

    y = _num(case["inputs"]["y"])
    X = beta_design(_num(case["inputs"]["p"]), _eps(case))
    mu, eta = fit.fitted_values, fit.linear_predictors
    np.testing.assert_array_equal(fit.prior_weights, np.ones(120))
    np.testing.assert_array_equal(fit.y, y)
    # fitted values are linkinv(eta); eta = X beta
    np.testing.assert_allclose(mu, _inv_logit(eta), rtol=1e-15)
    np.testing.assert_allclose(eta, X @ fit.coefficients.to_numpy(), rtol=1e-13, atol=1e-14)
    # working residuals (y - mu)/mu_eta(eta), mu_eta = mu(1 - mu) for |eta| <= 30
    np.testing.assert_allclose(fit.residuals, (y - mu) / (mu * (1 - mu)), rtol=1e-12)
    # working weights of the last iteration (computed from the previous mu): close to,
    # but not equal to, mu(1 - mu) of the final mu
    np.testing.assert_allclose(fit.weights, mu * (1 - mu), rtol=1e-3)
    # deviance / null deviance / aic
    dev = -2 * np.sum(y * np.log(mu) + (1 - y) * np.log1p(-mu))
    assert fit.deviance == pytest.approx(dev, rel=1e-13)
    ybar = y.mean()
    nulldev = -2 * np.sum(y * np.log(ybar) + (1 - y) * np.log1p(-ybar))
    assert fit.null_deviance == pytest.approx(nulldev, rel=1e-13)
    assert fit.aic == pytest.approx(dev + 2 * 3, rel=1e-13)
    # (X'WX)^-1 with the weights the final QR used (this also pins down that `weights`
    # are the last iteration's w^2, not mu(1 - mu) of the final mu: those differ by ~1e-4)
    Xw = X * np.sqrt(fit.weights)[:, None]
    cov = np.linalg.inv(Xw.T @ Xw)
    assert list(fit.cov_unscaled.index) == BETA_NAMES == list(fit.cov_unscaled.columns)
    np.testing.assert_allclose(fit.cov_unscaled.to_numpy(), cov, rtol=1e-9)


def test_platt_aic_uses_rounded_response():
    fit, _, _ = fit_platt_case(PLATT[0])
    t, mu = fit.y, fit.fitted_values
    yr = np.round(t)
    want = -2 * np.sum(yr * np.log(mu) + (1 - yr) * np.log1p(-mu)) + 2 * fit.rank
    assert fit.aic == pytest.approx(want, rel=1e-12)


def test_response_outside_unit_interval_is_an_error():
    with pytest.raises(CalstatsError, match=r"y values must be 0 <= y <= 1"):
        glm_binomial(np.ones((3, 1)), [0.0, 1.0, 2.0], ["(Intercept)"])

"""Coefficient tables (Calibrator.coef_table): R's summary.glm standard errors for Platt/beta,
observed-information standard errors checked against finite-difference Hessians."""

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import calstats
from calstats.calibrators._multinomial import MultinomialObjective, multinomial_hessian
from calstats.calibrators.scaling import VectorScalingObjective, vector_scaling_hessian
from calstats.results._coeftable import COLUMNS


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(3)
    x = rs.normal(size=250)
    y = (rs.uniform(size=250) < 1 / (1 + np.exp(-(0.4 + 1.3 * x)))).astype(int)
    return x, y


@pytest.fixture(scope="module")
def multi():
    rs = np.random.default_rng(5)
    P = rs.dirichlet([2, 2, 2], size=240)
    sharp = P**2 / (P**2).sum(axis=1, keepdims=True)
    y = np.array([rs.choice(3, p=r) + 1 for r in sharp])
    return P, y


def _statsmodels_se(X, t, params):
    """(X' W X)^-1 at the final coefficients via statsmodels. R's summary.glm uses the
    weights of the last IRLS iteration (one step behind the returned coefficients), so the
    two agree to the convergence tolerance of glm.fit, not to the last bit."""
    model = sm.GLM(t, X, family=sm.families.Binomial())
    return np.sqrt(np.diag(np.linalg.inv(-model.hessian(params))))


def test_platt_matches_summary_glm(binary):
    x, y = binary
    fit = calstats.cal_platt(x, y)
    tab = fit.coef_table()
    assert list(tab.columns) == COLUMNS
    assert list(tab.index) == ["(Intercept)", "x"]
    cov = fit.fit.cov_unscaled
    np.testing.assert_array_equal(tab["Std. Error"].to_numpy(), np.sqrt(np.diag(cov.loc[tab.index, tab.index])))
    t = np.where(y == 1, fit.target_pos, fit.target_neg)
    se = _statsmodels_se(np.column_stack([np.ones_like(x), x]), t, fit.coef.to_numpy())
    # R's cov.unscaled (checked exactly above) uses the weights of the last IRLS step, one
    # step behind the final coefficients statsmodels evaluates at: they agree to ~1e-4.
    np.testing.assert_allclose(tab["Std. Error"].to_numpy(), se, rtol=1e-3)
    z = tab["Estimate"] / tab["Std. Error"]
    np.testing.assert_allclose(tab["z value"], z, rtol=1e-15)
    np.testing.assert_allclose(tab["Pr(>|z|)"], 2 * __import__("scipy").stats.norm.sf(np.abs(z)), rtol=1e-9)


def test_beta_matches_summary_glm(binary):
    x, y = binary
    p = 1 / (1 + np.exp(-0.7 * x))
    fit = calstats.cal_beta(p, y)
    tab = calstats.summary(fit, coef=True).as_frames()["coef_table"]
    X = np.column_stack([np.ones_like(p), np.log(p), np.log1p(-p)])
    se = _statsmodels_se(X, y.astype(float), fit.coef.to_numpy())
    np.testing.assert_allclose(tab["Std. Error"].to_numpy(), se, rtol=1e-3)  # see the Platt test
    np.testing.assert_array_equal(tab["Estimate"].to_numpy(), fit.coef.to_numpy())


def test_beta_aliased_coefficient_is_nan():
    p = np.array([0.2, 0.8] * 10)
    y = np.array([0, 1, 1, 0] * 5)
    fit = calstats.cal_beta(p, y)
    tab = fit.coef_table()
    assert math.isnan(tab.loc["log_1mp", "Std. Error"])
    assert np.isfinite(tab.loc["log_p", "Std. Error"])


def _binary_nll(z, y, t):
    s = 1 / (1 + np.exp(-z / t))
    return -np.sum(y * np.log(s) + (1 - y) * np.log1p(-s))


def _multi_nll(Z, codes, t):
    u = Z / t
    m = u.max(axis=1, keepdims=True)
    lse = (m[:, 0] + np.log(np.exp(u - m).sum(axis=1)))
    return np.sum(lse - u[np.arange(len(codes)), codes - 1])


def _second_diff(f, t, h=1e-4):
    return (f(t + h) - 2 * f(t) + f(t - h)) / h**2


def test_temperature_binary_se_is_finite_difference_information(binary):
    x, y = binary
    fit = calstats.cal_temperature(2.5 * x, y)
    info = _second_diff(lambda t: _binary_nll(2.5 * x, y, t), fit.temperature)
    tab = fit.coef_table()
    np.testing.assert_allclose(tab.loc["temperature", "Std. Error"], 1 / math.sqrt(info), rtol=1e-5)
    # z tests T = 1
    np.testing.assert_allclose(tab.loc["temperature", "z value"],
                               (fit.temperature - 1) / tab.loc["temperature", "Std. Error"], rtol=1e-14)


def test_temperature_multiclass_se_is_finite_difference_information(multi):
    P, y = multi
    Z = np.log(P) * 1.7
    fit = calstats.cal_temperature(Z, y)
    info = _second_diff(lambda t: _multi_nll(Z, y, t), fit.temperature)
    np.testing.assert_allclose(fit.coef_table().loc["temperature", "Std. Error"], 1 / math.sqrt(info), rtol=1e-5)


def _fd_hessian(grad, par, n, h=1e-6):
    H = np.empty((par.size, par.size))
    for i in range(par.size):
        e = np.zeros(par.size)
        e[i] = h
        H[:, i] = (grad(par + e) - grad(par - e)) / (2 * h) * n
    return 0.5 * (H + H.T)


def test_dirichlet_penalised_se_matches_finite_difference(multi):
    P, y = multi
    fit = calstats.cal_dirichlet(P, y, lambda_=0.01)
    U = np.log(np.clip(P, 1e-12, 1 - 1e-12))
    obj = MultinomialObjective(U, y, 3, 0.01)
    par = np.concatenate([fit.weight.ravel(order="F"), fit.bias])
    H = _fd_hessian(obj.gradient, par, U.shape[0])
    se_fd = np.sqrt(np.diag(np.linalg.inv(H)))
    tab = fit.coef_table()
    # table rows: per class (Intercept), log(p[1..3]); par order: W column-major, then b
    k = 3
    order = [j + k * m for j in range(k) for m in (3, 0, 1, 2)]
    np.testing.assert_allclose(tab["Std. Error"].to_numpy(), se_fd[order], rtol=1e-4)
    assert "penalised" in tab.attrs["note"]
    np.testing.assert_allclose(tab.loc["2: log(p[2])", "Estimate"], fit.weight[1, 1], rtol=0)


def test_unpenalised_hessian_matches_finite_difference(multi):
    P, y = multi
    U = np.log(P)
    rs = np.random.default_rng(0)
    W, b = np.eye(3) + 0.1 * rs.normal(size=(3, 3)), 0.1 * rs.normal(size=3)
    obj = MultinomialObjective(U, y, 3, 0.0)
    par = np.concatenate([W.ravel(order="F"), b])
    np.testing.assert_allclose(multinomial_hessian(U, W, b), _fd_hessian(obj.gradient, par, U.shape[0]),
                               rtol=1e-5, atol=1e-5)


def test_dirichlet_lambda_zero_is_not_identified(multi):
    P, y = multi
    fit = calstats.cal_dirichlet(P, y, lambda_=0)
    tab = fit.coef_table()
    assert tab["Std. Error"].isna().all()
    assert "not identified" in tab.attrs["note"]


def test_vector_scaling_hessian_and_identification(multi):
    P, y = multi
    Z = np.log(P)
    fit = calstats.cal_vector_scaling(Z, y)
    obj = VectorScalingObjective(Z, y)
    par = np.concatenate([fit.scale, fit.bias])
    Hfd = _fd_hessian(obj.gradient, par, Z.shape[0])
    np.testing.assert_allclose(vector_scaling_hessian(Z, fit.scale, fit.bias), Hfd, rtol=1e-5, atol=1e-5)
    tab = fit.coef_table()
    scales = tab.loc[[f"{c}: scale" for c in fit.levels]]
    biases = tab.loc[[f"{c}: bias" for c in fit.levels]]
    assert biases["Std. Error"].isna().all()  # only differences of biases are identified
    # identified scales: pseudo-inverse equals the inverse of the model with the shift removed
    keep = [0, 1, 2, 4, 5]  # drop bias 1 (fix it): same scale variances
    se_fixed = np.sqrt(np.diag(np.linalg.inv(Hfd[np.ix_(keep, keep)])))[:3]
    np.testing.assert_allclose(scales["Std. Error"].to_numpy(), se_fixed, rtol=1e-4)


def test_summary_renderings_hold_the_table(binary):
    x, y = binary
    fit = calstats.cal_platt(x, y)
    s = fit.summary()
    # standard errors only when asked for: R's summary holds no coefficient table
    assert "coef_table" not in s.as_frames() and "Std. Error" not in s.as_html()
    assert "Std. Error" not in s.as_text()  # R's text is unchanged
    sc = fit.summary(coef=True)
    assert "coef_table" in sc.as_frames()
    assert "Std. Error" in sc.as_html() and "summary.glm" in sc.as_html()
    assert "Std. Error" in sc.as_latex() and "\\begin{tabular}" in sc.as_latex()
    # one call prints the table, after R's text, with what z tests
    full = sc.as_text()
    assert full.startswith(s.as_text())
    assert "Std. Error" in full and "z value" in full and "Note: Binomial GLM" in full
    assert calstats.summary(fit, coef=True).as_text() == full
    # as_frame is one DataFrame: the coefficient table when asked for, else the estimates
    assert sc.as_frame().equals(fit.coef_table())
    assert s.as_frame().equals(fit.coef.rename("estimate").to_frame())


def test_a_summary_computes_no_standard_error_unless_asked(monkeypatch, multi):
    # (the test counts calls, not seconds) a Dirichlet fit of K = 50 classes has 2 550
    # parameters: their information matrix
    # costs far more than the fit, so printing, rendering or framing a summary must not
    # form it; summary(coef=True), coef_table() and the statsmodels accessors do
    from calstats.calibrators import _multinomial

    P, y = multi
    fit = calstats.cal_dirichlet(P, y, lambda_=0.01)
    calls = []
    real = _multinomial.multinomial_hessian
    monkeypatch.setattr(_multinomial, "multinomial_hessian", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    s = fit.summary()
    s.as_text(), s.as_frame(), s.as_frames(), s.as_html(), s.as_latex(), fit._repr_html_(), str(fit)
    assert calls == []
    assert "coef_table" in fit.summary(coef=True).as_frames() and calls == [1]
    fit.bse
    assert calls == [1, 1]


def test_statsmodels_style_accessors(binary):
    x, y = binary
    fit = calstats.cal_platt(x, y)
    tab = fit.coef_table()
    assert fit.params.equals(tab["Estimate"]) and fit.bse.equals(tab["Std. Error"])
    assert fit.pvalues.equals(tab["Pr(>|z|)"]) and fit.zvalues.equals(tab["z value"])
    ci = fit.conf_int(0.1)
    z = 1.6448536269514722
    np.testing.assert_allclose(ci["lower"], tab["Estimate"] - z * tab["Std. Error"], rtol=1e-12)
    np.testing.assert_allclose(ci["upper"], tab["Estimate"] + z * tab["Std. Error"], rtol=1e-12)
    with pytest.raises(calstats.CalstatsError, match="alpha"):
        fit.conf_int(1.5)
    iso = calstats.cal_isotonic(1 / (1 + np.exp(-x)), y)
    with pytest.raises(calstats.CalstatsError, match="no coefficient table"):
        iso.bse


def test_no_table_without_likelihood(binary):
    x, y = binary
    fit = calstats.cal_isotonic(1 / (1 + np.exp(-x)), y)
    with pytest.raises(calstats.CalstatsError, match="No coefficient table"):
        fit.coef_table()
    assert "coef_table" not in fit.summary().as_frames()


def test_cv_gives_final_calibrator_table(binary):
    x, y = binary
    cv = calstats.cal_cv(x, y, method="platt", folds=3, seed=1)
    pd.testing.assert_frame_equal(cv.coef_table(), cv.final_calibrator.coef_table())

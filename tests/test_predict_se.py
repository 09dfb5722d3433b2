"""``predict(newdata, se_fit=True, interval="confidence")`` of the likelihood calibrators:
delta-method standard errors on the link scale and Wald intervals mapped through the
inverse logit. Platt and beta calibration against R's ``predict.glm(se.fit = TRUE)``
(tools/r-reference/make_predict_se.R); the multinomial fits and temperature scaling by
finite differences, by replicated-data weights and by simulated coverage."""

import hashlib
import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import calstats
from _fixtures import load_fixture
from calstats import CalstatsError
from calstats.calibrators import _multinomial
from calstats.calibrators._multinomial import MultinomialObjective
from calstats.calibrators.scaling import VectorScalingObjective, temperature_information
from calstats.kernels.probs import binary_log_loss, inv_logit, softmax

FIXTURE = load_fixture("predict_se")
QUANTITIES = ["fit", "link", "se_link", "lower", "upper"]


def _logit(p):
    return np.log(p) - np.log1p(-p)


def _glm_fit(case):
    w = None if case.get("weights") is None else np.array(case["weights"], dtype=np.float64)
    if case["method"] == "platt":
        return calstats.cal_platt(np.array(case["x"]), np.array(case["y"]), weights=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return calstats.cal_beta(np.array(case["p"]), np.array(case["y"]), eps=case["eps"][0], weights=w)


# --------------------------------------------------------------------------------------
# Platt and beta calibration: R's predict.glm(se.fit = TRUE, type = "link")


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=[c["name"] for c in FIXTURE["cases"]])
def test_glm_se_matches_r(case):
    fit = _glm_fit(case)
    newdata = np.array(case["newdata"])
    out = fit.predict(newdata, se_fit=True, interval="confidence")
    assert list(out.columns) == QUANTITIES
    np.testing.assert_allclose(fit.coefficients.to_numpy(), case["coefficients"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["se_link"], case["se_link"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(out["link"], case["link"], rtol=0, atol=1e-10)
    # the probability column is the default prediction, bit for bit
    np.testing.assert_array_equal(out["fit"].to_numpy(), fit.predict(newdata))
    z = norm.ppf(0.975)
    link, se = np.array(case["link"]), np.array(case["se_link"])
    np.testing.assert_allclose(out["lower"], inv_logit(link - z * se), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out["upper"], inv_logit(link + z * se), rtol=1e-12, atol=1e-15)


def test_glm_level_and_column_choice():
    case = FIXTURE["cases"][0]
    fit = _glm_fit(case)
    x = np.array(case["newdata"])
    assert list(fit.predict(x, se_fit=True).columns) == ["fit", "link", "se_link"]
    ci = fit.predict(x, interval="confidence", level=0.8)
    assert list(ci.columns) == ["fit", "lower", "upper"]
    z = norm.ppf(0.9)
    link, se = np.array(case["link"]), np.array(case["se_link"])
    np.testing.assert_allclose(ci["lower"], inv_logit(link - z * se), rtol=1e-12)


def test_platt_aliased_slope_fails_as_default_predict():
    y = np.array([0, 1, 0, 1, 1, 0])
    fit = calstats.cal_platt(np.ones(6), y)
    with pytest.raises(CalstatsError, match=re.escape("Argument `x` must not contain missing values.")):
        fit.predict(np.array([0.5, 1.0]), se_fit=True)


# --------------------------------------------------------------------------------------
# the default path is unchanged


def _digest_cases():
    rs = np.random.default_rng(20240611)
    n, k = 300, 3
    Z = rs.normal(size=(n, k)) * 2
    y = rs.integers(1, k + 1, size=n)
    P = np.exp(Z) / np.exp(Z).sum(1, keepdims=True)
    x = Z[:, 0]
    yb = (y == 1).astype(int)
    p = 1 / (1 + np.exp(-x))
    Znew = rs.normal(size=(40, k)) * 3
    Pnew = np.exp(Znew) / np.exp(Znew).sum(1, keepdims=True)
    xnew = Znew[:, 0]
    pnew = 1 / (1 + np.exp(-xnew))
    w = rs.integers(1, 4, size=n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield "platt", calstats.cal_platt(x, yb), xnew
        yield "platt_w", calstats.cal_platt(x, yb, weights=w), xnew
        yield "beta", calstats.cal_beta(p, yb), pnew
        yield "temp", calstats.cal_temperature(x, yb), xnew
        yield "temp_mc", calstats.cal_temperature(Z, y), Znew
        yield "vs", calstats.cal_vector_scaling(Z, y), Znew
        yield "vs_w", calstats.cal_vector_scaling(Z, y, weights=w), Znew
        yield "dir", calstats.cal_dirichlet(P, y), Pnew
        yield "dir0", calstats.cal_dirichlet(P, y, lambda_=0.0), Pnew
        yield "ms", calstats.cal_matrix_scaling(Z, y, lambda_=0.01), Znew
        yield "dl2", calstats.cal_dirichlet_l2(P, y, lambda_=0.001), Pnew


# sha256 of the default predictions (bytes and output type) computed by the code before
# predict() took se_fit/interval
PRE_CHANGE = {
    "platt": "ebcebfc95a1ee01e9ba519c84c1518f5",
    "platt_w": "da8b33680fc96bd68f2ecd27dee6ced3",
    "beta": "4e4ede815bcd1e83c19a953e1a1c50fc",
    "temp": "92925f10718873a83eb4c369ce0f2e97",
    "temp_mc": "ccade7d2bb5d7cbf4ebd91604a0c18d3",
    "vs": "50a2f92307d81d060d8e65efda0cc804",
    "vs_w": "99ce59c3c976b5151dd1f508b42b87fd",
    "dir": "5b3fc72fb93f0837d08dbb1d680154ab",
    "dir0": "3896b392e36db0f2b46e19c18f4fcf23",
    "ms": "68f737f3a0c4363bab102e4a1d352483",
    "dl2": "3c9bae7d4fe0605865996bf74a386ffa",
}


def test_default_predict_unchanged():
    for name, fit, new in _digest_cases():
        out = fit.predict(new)
        arr = np.ascontiguousarray(np.asarray(out, dtype=np.float64))
        kind = type(out).__name__ + ("" if not isinstance(out, pd.DataFrame) else ",".join(map(str, out.columns)))
        assert hashlib.sha256(arr.tobytes() + kind.encode()).hexdigest()[:32] == PRE_CHANGE[name], name
        # and with the defaults spelled out
        again = fit.predict(new, se_fit=False, interval=None, level=0.95)
        assert type(again) is type(out)
        np.testing.assert_array_equal(np.asarray(again), np.asarray(out))


# --------------------------------------------------------------------------------------
# multiclass problems


def _problem(n=400, k=3, seed=3):
    rs = np.random.default_rng(seed)
    Z = rs.normal(size=(n, k)) * 1.5
    W = np.eye(k) * 0.8 + 0.2 * rs.normal(size=(k, k))
    eta = Z @ W.T + rs.normal(size=k) * 0.3
    P = softmax(eta)
    y = (P.cumsum(1) < rs.random(n)[:, None]).sum(1) + 1
    return Z, softmax(Z), y, rs.integers(1, 4, size=n).astype(np.float64)


def _multiclass_fits(weights=False):
    Z, P, y, w = _problem()
    w = w if weights else None
    return {
        "temperature": (calstats.cal_temperature(Z, y, weights=w), Z[:6]),
        "vector": (calstats.cal_vector_scaling(Z, y, weights=w), Z[:6]),
        "dirichlet": (calstats.cal_dirichlet(P, y, lambda_=0.01, weights=w), P[:6]),
        "dirichlet0": (calstats.cal_dirichlet(P, y, lambda_=0.0, weights=w), P[:6]),
        "matrix": (calstats.cal_matrix_scaling(Z, y, lambda_=0.01, mu=0.0, weights=w), Z[:6]),
        "matrix_l2": (calstats.cal_matrix_scaling(Z, y, lambda_=0.003, mu=0.002, penalty="l2", weights=w), Z[:6]),
        "dirichlet_l2": (calstats.cal_dirichlet_l2(P, y, lambda_=0.001, weights=w), P[:6]),
    }


def _set_params(fit, name, theta):
    """The fit with its parameter vector (the layout of its Hessian) replaced."""
    k = fit.k
    if name == "temperature":
        return fit._replace(temperature=float(theta[0]))
    if name == "vector":
        return fit._replace(scale=theta[:k].copy(), bias=theta[k:].copy())
    return fit._replace(weight=theta[:k * k].reshape((k, k), order="F").copy(), bias=theta[k * k:].copy())


def _params(fit, name):
    if name == "temperature":
        return np.array([fit.temperature])
    if name == "vector":
        return np.concatenate([fit.scale, fit.bias])
    return np.concatenate([np.asarray(fit.weight).ravel(order="F"), fit.bias])


def _fd_link_gradient(fit, name, new, h=1e-6):
    """Central differences of logit(p_k) (of the default prediction) in every parameter:
    ``(rows, k, p)``."""
    theta = _params(fit, name)
    grads = []
    for j in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[j] += h
        down[j] -= h
        pu = _set_params(fit, name, up).predict(new).to_numpy()
        pd_ = _set_params(fit, name, down).predict(new).to_numpy()
        grads.append((_logit(pu) - _logit(pd_)) / (2 * h))
    return np.stack(grads, axis=2)


def _information(fit, name):
    if name == "temperature":
        z, codes = fit._coef_data
        return np.array([[temperature_information(z, codes, fit.temperature, True, fit._fit_weights)]])
    if name == "vector":
        from calstats.calibrators.scaling import vector_scaling_hessian

        Z, _ = fit._coef_data
        return vector_scaling_hessian(Z, fit.scale, fit.bias, weights=fit._fit_weights)
    return fit._information()


@pytest.mark.parametrize("weights", [False, True])
def test_link_se_equals_fd_gradient_through_pseudo_inverse(weights):
    """se_link^2 = g' H^+ g with g the finite-difference gradient of logit(p_k) in all the
    parameters and H the information: checks the analytic gradients, the choice of the
    free parameters (H^+ does not depend on it) and the information."""
    for name, (fit, new) in _multiclass_fits(weights).items():
        out = fit.predict(new, se_fit=True)
        g = _fd_link_gradient(fit, name, new)
        Hp = np.linalg.pinv(_information(fit, name), rcond=1e-10)
        se = np.sqrt(np.einsum("ikp,pq,ikq->ik", g, Hp, g))
        np.testing.assert_allclose(out["se_link"].to_numpy(), se, rtol=2e-5, err_msg=name)
        np.testing.assert_allclose(out["link"].to_numpy(), _logit(out["fit"].to_numpy()), rtol=1e-9, atol=1e-12)


def _objective(fit, name):
    Z, codes = fit._coef_data
    w = fit._fit_weights
    total = Z.shape[0] if w is None else w.sum()
    if name == "vector":
        obj = VectorScalingObjective(Z, codes, w)
        return lambda th: total * obj.gradient(th)
    lam, mu, penalty = _multinomial.penalties(fit)
    obj = MultinomialObjective(Z, codes, fit.k, lam, penalty, mu=mu, weights=w)
    return lambda th: total * obj.gradient(th)


@pytest.mark.parametrize("weights", [False, True])
def test_information_is_the_hessian_of_the_minimised_objective(weights):
    """n times the gradient of the (penalised, weighted) objective, differentiated
    numerically, is the information used for the covariance."""
    for name, (fit, _) in _multiclass_fits(weights).items():
        if name == "temperature":
            continue
        grad = _objective(fit, name)
        theta = _params(fit, name)
        h = 1e-6
        H = np.column_stack([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(theta.size)])
        np.testing.assert_allclose(_information(fit, name), H, rtol=1e-5, atol=1e-4 * np.abs(H).max(), err_msg=name)


@pytest.mark.parametrize("weights", [False, True])
def test_hessian_by_products_equals_its_definition(weights):
    # the definition sum_i w_i x_m x_n (p_j delta_jl - p_j p_l), summed term by term
    rs = np.random.default_rng(4)
    U, W, b = rs.normal(size=(5000, 4)), rs.normal(size=(3, 4)), rs.normal(size=3)
    w = rs.random(5000) * 3 if weights else None
    Xa = np.column_stack([U, np.ones(5000)])
    eta = U @ W.T + b
    p = np.exp(eta - eta.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    pw = p if w is None else p * w[:, None]
    H4 = np.einsum("mjn,jl->mjnl", np.einsum("ij,im,in->mjn", pw, Xa, Xa), np.eye(3))
    H4 -= np.einsum("ij,il,im,in->mjnl", pw, p, Xa, Xa, optimize=True)
    a = H4.reshape(15, 15)
    np.testing.assert_allclose(_multinomial.multinomial_hessian(U, W, b, weights=w), a, rtol=0,
                               atol=1e-13 * np.abs(a).max())


@pytest.mark.parametrize("weights", [False, True])
def test_temperature_information_is_the_second_derivative(weights):
    rs = np.random.default_rng(5)
    z = rs.normal(size=300) * 2
    y = (rs.random(300) < inv_logit(z / 1.4)).astype(np.float64)
    w = rs.integers(1, 4, 300).astype(np.float64) if weights else None
    t, h = 1.3, 1e-4

    def f(tt):
        return binary_log_loss(inv_logit(z / tt), y, w)

    second = (f(t + h) - 2 * f(t) + f(t - h)) / h**2
    assert temperature_information(z, y, t, False, w) == pytest.approx(second, rel=1e-5)
    Z = rs.normal(size=(300, 3))
    codes = rs.integers(1, 4, 300)

    def g(tt):
        lp = np.log(softmax(Z / tt)[np.arange(300), codes - 1])
        return -np.sum(lp if w is None else w * lp)

    second = (g(t + h) - 2 * g(t) + g(t - h)) / h**2
    assert temperature_information(Z, codes, t, True, w) == pytest.approx(second, rel=1e-5)


def test_binary_temperature_se_and_coef_table():
    rs = np.random.default_rng(8)
    z = rs.normal(size=500) * 3
    y = (rs.random(500) < inv_logit(z / 2.0)).astype(int)
    fit = calstats.cal_temperature(z, y)
    new = np.array([-5.0, -0.5, 0.0, 1.0, 7.0])
    out = fit.predict(new, se_fit=True, interval="confidence")
    t = fit.temperature
    np.testing.assert_allclose(out["se_link"], np.abs(new) / t**2 * fit.bse["temperature"], rtol=1e-12)
    np.testing.assert_array_equal(out["link"].to_numpy(), new / t)
    np.testing.assert_array_equal(out["fit"].to_numpy(), fit.predict(new))
    # by finite differences in T
    h = 1e-6
    g = (new / (t + h) - new / (t - h)) / (2 * h)
    np.testing.assert_allclose(out["se_link"], np.abs(g) * fit.bse["temperature"], rtol=1e-6)


def test_integer_weights_are_replicated_rows():
    """Case weights count as frequencies: the standard errors of a weighted fit are those
    of the fit of the replicated rows (exact optimiser on both, so the fits agree)."""
    Z, P, y, w = _problem(n=150, seed=11)
    rep = np.repeat(np.arange(150), w.astype(int))
    pairs = [
        (calstats.cal_vector_scaling(Z, y, weights=w, optimizer="newton"),
         calstats.cal_vector_scaling(Z[rep], y[rep], optimizer="newton"), Z[:5]),
        (calstats.cal_dirichlet(P, y, lambda_=0.01, weights=w, optimizer="newton"),
         calstats.cal_dirichlet(P[rep], y[rep], lambda_=0.01, optimizer="newton"), P[:5]),
        (calstats.cal_temperature(Z, y, weights=w), calstats.cal_temperature(Z[rep], y[rep]), Z[:5]),
        (calstats.cal_temperature(Z[:, 0], (y == 1).astype(int), weights=w),
         calstats.cal_temperature(Z[rep, 0], (y[rep] == 1).astype(int)), Z[:5, 0]),
    ]
    for weighted, replicated, new in pairs:
        a = weighted.predict(new, se_fit=True)["se_link"].to_numpy()
        b = replicated.predict(new, se_fit=True)["se_link"].to_numpy()
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_multiclass_frame_layout():
    fit, new = _multiclass_fits()["vector"]
    out = fit.predict(new, se_fit=True, interval="confidence", level=0.9)
    assert out.columns.names == ["quantity", "class"]
    assert list(out.columns.get_level_values(0).unique()) == QUANTITIES
    assert list(out["fit"].columns) == fit.levels
    pd.testing.assert_frame_equal(out["fit"], fit.predict(new), check_names=False)
    z = norm.ppf(0.95)
    np.testing.assert_allclose(out["lower"], inv_logit(out["link"] - z * out["se_link"]), rtol=1e-12)
    assert list(fit.predict(new, interval="confidence").columns.get_level_values(0).unique()) == ["fit", "lower",
                                                                                                  "upper"]


# --------------------------------------------------------------------------------------
# coverage of the true calibrated probability (well-specified models, nominal 95%)


def _draw(rs, eta):
    P = softmax(eta)
    return (P.cumsum(1) < rs.random(eta.shape[0])[:, None]).sum(1) + 1


ZNEW = np.array([[2.0, -1.0, 0.5], [-3.0, 1.0, 2.0], [1.0, 1.0, -2.0], [4.0, 0.0, -1.0], [0.3, -0.2, 0.0]])


def _coverage(kind, reps=200, n=2000, seed=1):
    rs = np.random.default_rng(seed)
    k = 3
    s, b = np.array([0.6, 0.9, 1.3]), np.array([0.3, -0.2, 0.0])
    W = np.array([[1.2, -0.3, 0.1], [0.2, 0.8, -0.4], [-0.1, 0.3, 1.0]])
    bw = np.array([0.2, -0.1, 0.0])
    cover = np.zeros((ZNEW.shape[0], k))
    for _ in range(reps):
        Z = rs.normal(size=(n, k)) * 1.5
        if kind == "vector":
            fit, new, truth = calstats.cal_vector_scaling(Z, _draw(rs, Z * s + b)), ZNEW, softmax(ZNEW * s + b)
        elif kind == "temperature":
            fit, new, truth = calstats.cal_temperature(Z, _draw(rs, Z / 1.7)), ZNEW, softmax(ZNEW / 1.7)
        else:
            y = _draw(rs, np.log(softmax(Z)) @ W.T + bw)
            fit, new = calstats.cal_dirichlet(softmax(Z), y, lambda_=0.0), softmax(ZNEW)
            truth = softmax(np.log(new) @ W.T + bw)
        out = fit.predict(new, interval="confidence")
        cover += (out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy())
    return cover / reps


# measured: vector scaling 0.9527, Dirichlet (lambda = 0) 0.9517, temperature 0.9627 (mean
# over 5 points x 3 classes; each point's coverage in 0.935..0.975)
@pytest.mark.parametrize("kind", ["vector", "dirichlet", "temperature"])
def test_coverage_multiclass(kind):
    cover = _coverage(kind)
    assert 0.92 <= cover.mean() <= 0.98, cover
    assert cover.min() >= 0.88, cover


def test_coverage_binary_temperature():
    rs = np.random.default_rng(2)
    xnew = np.array([-4.0, -1.0, 0.5, 2.0, 5.0])
    truth = inv_logit(xnew / 0.6)
    cover = np.zeros(5)
    for _ in range(200):
        z = rs.normal(size=2000) * 2
        y = (rs.random(2000) < inv_logit(z / 0.6)).astype(int)
        out = calstats.cal_temperature(z, y).predict(xnew, interval="confidence")
        cover += (out["lower"].to_numpy() <= truth) & (truth <= out["upper"].to_numpy())
    # one parameter: every point is covered exactly when T's interval covers the true T
    # (measured 0.95)
    assert 0.92 <= cover.mean() / 200 <= 0.98


# --------------------------------------------------------------------------------------
# inputs


def test_pandas_and_float32_inputs():
    case = FIXTURE["cases"][0]
    fit = _glm_fit(case)
    x = np.array(case["newdata"])
    s = pd.Series(x, index=[f"r{i}" for i in range(x.size)])
    out = fit.predict(s, se_fit=True)
    assert list(out.index) == list(s.index)
    np.testing.assert_array_equal(out["se_link"].to_numpy(), fit.predict(x, se_fit=True)["se_link"].to_numpy())
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(fit.predict(x32, interval="confidence").to_numpy(),
                                  fit.predict(x32.astype(np.float64), interval="confidence").to_numpy())
    for name, (mfit, new) in _multiclass_fits().items():
        frame = pd.DataFrame(new, index=np.arange(10, 10 + new.shape[0]))
        a = mfit.predict(frame, se_fit=True)
        assert list(a.index) == list(frame.index), name
        b = mfit.predict(new.astype(np.float32), se_fit=True)
        c = mfit.predict(new.astype(np.float32).astype(np.float64), se_fit=True)
        np.testing.assert_array_equal(b.to_numpy(), c.to_numpy())


def test_inputs_not_mutated():
    fits = _multiclass_fits()
    for fit, new in fits.values():
        before = new.copy()
        fit.predict(new, se_fit=True, interval="confidence")
        np.testing.assert_array_equal(new, before)
    case = FIXTURE["cases"][5]
    fit = _glm_fit(case)
    x = np.array(case["newdata"])
    before = x.copy()
    fit.predict(x, se_fit=True)
    np.testing.assert_array_equal(x, before)


def test_pickling_round_trip():
    for name, (fit, new) in _multiclass_fits().items():
        fresh = pickle.loads(pickle.dumps(fit))
        expected = fit.predict(new, se_fit=True, interval="confidence")
        pd.testing.assert_frame_equal(fresh.predict(new, se_fit=True, interval="confidence"), expected, obj=name)
        again = pickle.loads(pickle.dumps(fit))  # with the covariance kept
        pd.testing.assert_frame_equal(again.predict(new, se_fit=True, interval="confidence"), expected, obj=name)
    fit = _glm_fit(FIXTURE["cases"][3])
    x = np.array(FIXTURE["cases"][3]["newdata"])
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(fit)).predict(x, se_fit=True), fit.predict(x, se_fit=True))


# --------------------------------------------------------------------------------------
# messages


@pytest.fixture(scope="module")
def platt():
    return _glm_fit(FIXTURE["cases"][0])


def test_error_se_fit_not_a_flag(platt):
    with pytest.raises(CalstatsError, match=re.escape("Argument `se_fit` must be `True` or `False`.")):
        platt.predict(np.array([0.1]), se_fit="yes")


def test_error_interval_not_confidence(platt):
    with pytest.raises(CalstatsError, match="should be one of .confidence."):
        platt.predict(np.array([0.1]), interval="prediction")


def test_error_level_outside_unit_interval(platt):
    with pytest.raises(CalstatsError, match=re.escape("Argument `level` must be a single number in `(0, 1)`.")):
        platt.predict(np.array([0.1]), interval="confidence", level=1.5)


def test_error_dask_newdata_refused(platt):
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.linspace(-2, 2, 20), chunks=5)
    # the default path still maps over the blocks
    np.testing.assert_array_equal(platt.predict(x).compute(), platt.predict(np.linspace(-2, 2, 20)))
    msg = "`se_fit` and `interval` need the rows of `newdata` in memory: call .compute() on the Dask input first."
    with pytest.raises(CalstatsError, match=re.escape(msg)):
        platt.predict(x, se_fit=True)
    fit, new = _multiclass_fits()["temperature"]
    with pytest.raises(CalstatsError, match=re.escape(msg)):
        fit.predict(da.from_array(new, chunks=(3, 3)), interval="confidence")


def test_error_fit_without_training_data():
    fit, new = _multiclass_fits()["vector"]
    bare = fit._replace(_coef_data=None)
    msg = ("This fit does not hold its training data (a fit on Dask inputs), which the standard errors of "
           "`se_fit` and `interval` need.")
    with pytest.raises(CalstatsError, match=re.escape(msg)):
        bare.predict(new, se_fit=True)
    da = pytest.importorskip("dask.array")
    rs = np.random.default_rng(0)
    z = rs.normal(size=200)
    y = (rs.random(200) < inv_logit(z)).astype(int)
    dask_fit = calstats.cal_temperature(da.from_array(z, chunks=50), da.from_array(y, chunks=50))
    with pytest.raises(CalstatsError, match=re.escape(msg)):
        dask_fit.predict(z[:3], se_fit=True)


def test_error_too_many_parameters(monkeypatch):
    fit, new = _multiclass_fits()["dirichlet"]
    monkeypatch.setattr(_multinomial, "MAX_SE_PARAMETERS", 5)
    msg = ("`se_fit` and `interval` need the 12 x 12 covariance of the parameters of this 3-class fit; "
           "more than 5 parameters are refused.")
    with pytest.raises(CalstatsError, match=re.escape(msg)):
        fit._replace().predict(new, se_fit=True)


def test_warning_singular_information():
    fit, new = _multiclass_fits()["dirichlet"]
    saturated = fit._replace(weight=fit.weight * 1e6)
    msg = "The observed information of this fit is singular or not positive definite: the standard errors are NaN."
    with pytest.warns(calstats.CalstatsWarning, match=re.escape(msg)):
        out = saturated.predict(new, se_fit=True, interval="confidence")
    assert out["se_link"].isna().all().all() and out["lower"].isna().all().all()
    assert not out["fit"].isna().any().any()


def test_binary_temperature_refuses_matrix_as_before():
    rs = np.random.default_rng(1)
    z = rs.normal(size=50)
    fit = calstats.cal_temperature(z, (z > 0).astype(int) ^ (rs.random(50) < 0.3))
    with pytest.raises(CalstatsError, match="argument is of length zero"):
        fit.predict(np.ones((3, 2)), se_fit=True)


# --------------------------------------------------------------------------------------
# invariants


VS_FIT, VS_NEW = _multiclass_fits()["vector"]


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 0.99), st.floats(0.05, 0.99))
def test_intervals_nested_in_level(a, b):
    lo_level, hi_level = sorted((a, b))
    narrow = VS_FIT.predict(VS_NEW, interval="confidence", level=lo_level)
    wide = VS_FIT.predict(VS_NEW, interval="confidence", level=hi_level)
    fit = narrow["fit"].to_numpy()
    assert np.all(wide["lower"].to_numpy() <= narrow["lower"].to_numpy() + 1e-15)
    assert np.all(narrow["upper"].to_numpy() <= wide["upper"].to_numpy() + 1e-15)
    assert np.all(narrow["lower"].to_numpy() <= fit + 1e-12) and np.all(fit <= narrow["upper"].to_numpy() + 1e-12)


@pytest.mark.parametrize("fit_fn", ["temperature", "vector", "dirichlet", "matrix"])
def test_coef_table_of_weighted_fit_equals_replicated_rows(fit_fn):
    # integer case weights are repeated rows: the kept-data coefficient table must use them
    rs = np.random.default_rng(11)
    n, k = 120, 3
    Z = rs.normal(size=(n, k)) * 2
    y = np.array([rs.choice(k, p=np.exp(r) / np.exp(r).sum()) for r in Z / 1.5]) + 1
    w = rs.integers(1, 4, n).astype(float)
    rep = np.repeat(np.arange(n), w.astype(int))
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    fns = {"temperature": lambda x, yy, **kw: calstats.cal_temperature(x, yy, **kw),
           "vector": lambda x, yy, **kw: calstats.cal_vector_scaling(x, yy, **kw),
           "dirichlet": lambda x, yy, **kw: calstats.cal_dirichlet(x, yy, lambda_=0.01, **kw),
           "matrix": lambda x, yy, **kw: calstats.cal_matrix_scaling(x, yy, lambda_=0.01, **kw)}
    X = P if fit_fn == "dirichlet" else Z
    weighted = fns[fit_fn](X, y, weights=w).coef_table()
    replicated = fns[fit_fn](X[rep], y[rep]).coef_table()
    np.testing.assert_allclose(weighted.iloc[:, 1].to_numpy(), replicated.iloc[:, 1].to_numpy(), rtol=1e-5)

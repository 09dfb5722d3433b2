"""optimizer="newton": the same objective as R's BFGS, minimised to a gradient norm of 1e-9."""

import numpy as np
import pytest

import calstats
from calstats import CalstatsError
from calstats.calibrators._multinomial import MultinomialObjective


def _data(seed, n, k, sharp=2.0):
    rs = np.random.default_rng(seed)
    logits = rs.normal(size=(n, k)) * sharp
    true = np.exp(logits / 1.7)
    true /= true.sum(axis=1, keepdims=True)
    y = (true.cumsum(axis=1) < rs.random(n)[:, None]).sum(axis=1).clip(max=k - 1) + 1
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p, y


@pytest.mark.parametrize("fn,arg", [
    (calstats.cal_dirichlet, "p"), (calstats.cal_dirichlet_l2, "p"),
    (calstats.cal_matrix_scaling, "logits"), (calstats.cal_vector_scaling, "logits"),
])
@pytest.mark.parametrize("lam", [0.0, 1e-3])
def test_newton_reaches_a_zero_gradient_below_bfgs_objective(fn, arg, lam):
    p, y = _data(3, 400, 4)
    x = p if arg == "p" else np.log(p)
    kw = {} if fn is calstats.cal_vector_scaling else {"lambda_": lam}
    bfgs = fn(x, y, **kw)
    newton = fn(x, y, optimizer="newton", **kw)
    assert bfgs.optimizer.startswith("BFGS") and newton.optimizer.startswith("newton")
    assert newton.grad_norm < 1e-9 and newton.convergence == 0
    assert bfgs.grad_norm > newton.grad_norm
    assert newton.value <= bfgs.value + 1e-15
    # the default is R's fit, unchanged by the new argument
    assert np.array_equal(fn(x, y, optimizer="bfgs", **kw).predict(x).to_numpy(), bfgs.predict(x).to_numpy())


def test_newton_gradient_is_the_objectives_gradient():
    p, y = _data(4, 300, 3)
    fit = calstats.cal_dirichlet(p, y, lambda_=0.0, optimizer="newton")
    U = np.log(np.clip(p, 1e-12, 1 - 1e-12))
    obj = MultinomialObjective(U, y, 3, 0.0)
    par = np.concatenate([fit.weight.ravel(order="F"), fit.bias])
    assert np.linalg.norm(obj.gradient(par)) == pytest.approx(fit.grad_norm, abs=1e-12)


def test_newton_large_problem_uses_hessian_vector_products():
    p, y = _data(5, 600, 24)  # 600 parameters: beyond the full Hessian
    fit = calstats.cal_dirichlet(p, y, lambda_=1e-3, optimizer="newton")
    assert "trust-krylov" in fit.optimizer and fit.grad_norm < 1e-9


def test_newton_lambda_search_and_summary():
    p, y = _data(6, 300, 3)
    fit = calstats.cal_dirichlet(p, y, optimizer="newton")
    assert fit.lambda_ in (0.0, 1e-4, 1e-3, 1e-2, 1e-1)
    text = str(calstats.summary(fit))
    assert "Optimizer: newton (trust-exact), gradient norm" in text
    assert calstats.summary(fit).as_frames()["optimizer"].loc["optimizer", "value"].startswith("newton")
    # R's text for R's optimiser has no such line
    assert "Optimizer" not in str(calstats.summary(calstats.cal_dirichlet(p, y)))
    assert "optimizer" in calstats.summary(calstats.cal_dirichlet(p, y)).as_frames()


@pytest.mark.parametrize("bad", ["lbfgs", 1, None])
def test_bad_optimizer_is_one_clear_error(bad):
    p, y = _data(7, 50, 3)
    with pytest.raises(CalstatsError, match="Argument `optimizer` must be one of 'bfgs', 'newton'"):
        calstats.cal_dirichlet(p, y, lambda_=0.01, optimizer=bad)

"""Maximum-likelihood logistic regression with an offset, for the calibration hierarchy.

A plain Newton-Raphson iteration run to full convergence (relative change of the
deviance below 1e-12): the hierarchy's intercept and slope are the maximum-likelihood
estimates that R's ``glm(y ~ offset(logit(p)), binomial)`` and ``glm(y ~ logit(p),
binomial)`` approach (R's ``glm`` stops at a relative deviance change of 1e-8, so it
differs from the exact MLE by up to ~1e-8 relative; statsmodels' GLM agrees with this
routine to ~1e-10). The covariance is the inverse observed information at the estimate.
"""

import math

import numpy as np
from scipy import special as _sp

__all__ = ["logistic_mle", "LogisticFit"]

#: The longest Newton step taken on any coefficient (logit scale); ordinary fits take far
#: shorter steps, so only a start far from the estimate is affected.
MAX_STEP = 10.0


class LogisticFit:
    """``coef``, ``cov`` (inverse information), ``se``, ``deviance``, ``iterations``,
    ``converged``."""

    def __init__(self, coef, cov, deviance, iterations, converged):
        self.coef = coef
        self.cov = cov
        with np.errstate(invalid="ignore"):  # a negative variance (separation): NaN, said by the caller
            self.se = np.sqrt(np.diag(cov))
        self.deviance = deviance
        self.iterations = iterations
        self.converged = converged


def _deviance(y, eta):
    # -2 log-likelihood, stable: log(1 + exp(eta)) - y * eta
    return 2.0 * float(np.sum(np.logaddexp(0.0, eta) - y * eta))


def logistic_mle(X, y, offset=None, maxit=100, tol=1e-12):
    """Logistic regression of 0/1 ``y`` on the columns of ``X`` (include the intercept
    column yourself) with an optional ``offset``."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    off = np.zeros(y.size) if offset is None else np.asarray(offset, dtype=np.float64)
    k = X.shape[1]
    beta = np.zeros(k)
    ybar = float(np.clip(np.mean(y), 1e-8, 1 - 1e-8))
    if np.allclose(X[:, 0], 1.0):
        beta[0] = math.log(ybar / (1 - ybar)) - float(np.mean(off))
    eta = X @ beta + off
    dev = _deviance(y, eta)
    converged = False
    it = 0
    for it in range(1, maxit + 1):
        mu = _sp.expit(eta)
        w = mu * (1 - mu)
        info = X.T @ (X * w[:, None])
        score = X.T @ (y - mu)
        try:
            step = np.linalg.solve(info, score)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(info, score, rcond=None)[0]
        # Far from the estimate (offsets of several hundred on the logit scale), every
        # fitted probability is 0 or 1, the information underflows and the Newton step is
        # astronomically long: no step moves any coefficient by more than MAX_STEP.
        longest = float(np.max(np.abs(step))) if step.size else 0.0
        if longest > MAX_STEP:
            step = step * (MAX_STEP / longest)
        t = 1.0
        while True:
            nb = beta + t * step
            neta = X @ nb + off
            ndev = _deviance(y, neta)
            if ndev <= dev + 1e-12 * abs(dev) or t < 1e-8:
                break
            t /= 2
        if not ndev <= dev + 1e-12 * abs(dev):
            break  # no step lowers the deviance: keep the best point reached
        beta, eta = nb, neta
        change = abs(dev - ndev)
        dev = ndev
        if change <= tol * (abs(dev) + 0.1) and np.max(np.abs(t * step)) < 1e-8 * (1 + np.max(np.abs(beta))):
            converged = True
            break
    mu = _sp.expit(eta)
    w = mu * (1 - mu)
    info = X.T @ (X * w[:, None])
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov = np.full((k, k), np.nan)
    return LogisticFit(beta, cov, dev, it, converged)

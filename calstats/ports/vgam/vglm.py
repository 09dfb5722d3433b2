"""VGAM's ``vglm(y ~ ..., multinomial(refLevel))`` fitted by VGAM's own IRLS iteration.

VGAM (1.1-7) stops its iteratively reweighted least squares when
``sqrt(n) * |D_old - D_new| / (|D_old| + epsilon) <= epsilon`` (``epsilon = 1e-7``, the
deviance criterion, at most ``maxit = 31`` iterations for ``multinomial``), and it reports
the standard errors of the *last* weighted least-squares step, whose weights belong to the
previous iterate. Against the exact maximum-likelihood fit that moves coefficients by
~1e-9 and standard errors by ~1e-6 relative, so a port has to take the same steps:

* the start ``mu = 1/K`` for every row and class (``process.categorical.data.VGAM``:
  ``mustart = y + (1/K - y)/nvec`` with ``nvec = 1``), so ``eta = 0`` *without* the offset;
* the working weights of ``multinomial()@weight`` (``mu_j (1 - mu_j)`` on the diagonal,
  ``-mu_j mu_k`` off it; rows with a fitted value within ``sqrt(eps)`` of 0 or 1 get
  ``eps + w (1 + sqrt(eps))`` on the diagonal) and ``checkwz``'s floor ``eps^0.75``;
* the working response ``z = eta + W^-1 (y - mu) - offset`` and the weighted fit of
  ``vlm.wfit`` on the "big" model matrix ``X_vlm`` (rows observation by observation,
  columns ``kronecker`` of each term with its constraint matrix);
* the half-step rule from the second iteration on (deviance increased or not finite);
* the covariance ``(R'R)^-1`` of that last weighted fit (VGAM's ``vcov``, dispersion 1).

The weighted least-squares solve itself uses a Householder QR (LAPACK) rather than
LINPACK's ``dqrdc2``; both are backward stable, so the results agree to ~1e-14. One
deliberate shortcut: the new linear predictors are ``X_vlm b + offset``, where VGAM
back-substitutes the QR fitted values through the Cholesky factor of the weights. The two
are equal in exact arithmetic; when ``checkwz`` has floored weights at ``eps^0.75`` (fitted
probabilities ~1e-12 and below) the factor is ill-conditioned and VGAM's route moves the
deviance by ~1e-11 relative (the coefficients and standard errors still agree to ~1e-14).

Where the two solves' last bits matter: once VGAM is converged to rounding level, its
next deviance can *rise* by ~1e-13 through rounding alone. VGAM then halves the step down
to 1e-6, keeps (almost) the previous iterate and warns "iterations terminated because
half-step sizes are very small"; whether the rise happens depends on the last bits of the
QR solve, so calstats may take the full step instead. Seen once (an intercept-only fit,
n = 600, K = 3): the intercepts differ by 7e-9 (2.4e-7 relative to an intercept of
0.029), the standard errors agree to 1e-10. Reproducing it needs R's LINPACK QR, ``vchol``
and ``vbacksub`` bit for bit, which this port does not do.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..._errors import CalstatsError
from ..._errors import warn as _warn
from ...numerics import libm
from ...numerics.reductions import row_sums, rsum

__all__ = ["vglm_multinomial", "VglmFit", "multinomial_deviance"]

_EPS = np.finfo(float).eps
_SQRT_EPS = math.sqrt(_EPS)
_WZ_EPS = _EPS ** 0.75  # vglm.control(wzepsilon)
_SMALL_MU = math.sqrt(np.finfo(float).tiny)  # Deviance.categorical.data.vgam's double.eps

_E_RANK = "vglm() only handles full-rank models (currently)"
_W_NOT_CONVERGED = "convergence not obtained in {} IRLS iterations"
_W_WZ = ("{} diagonal elements of the working weights variable 'wz' have been replaced by "
         "1.819e-12")
_W_01 = "fitted probabilities numerically 0 or 1 occurred"
_W_HALF = "iterations terminated because half-step sizes are very small"


@dataclass
class VglmFit:
    """A multinomial ``vglm`` fit: ``coef`` (VGAM's order: for each term, its constraint
    columns), ``cov`` (``vcov``), ``deviance``, ``mu`` (n x K fitted probabilities),
    ``eta`` (n x M), ``iter`` (VGAM's ``iter``)."""

    coef: np.ndarray
    cov: np.ndarray
    deviance: float
    mu: np.ndarray
    eta: np.ndarray
    iter: int

    @property
    def se(self):
        return np.sqrt(np.diag(self.cov))


def _linkinv(eta, ref):
    """``multilogitlink(eta, refLevel, inverse = TRUE)``: ``care.exp2`` (the row's largest
    linear predictor subtracted before ``exp``), divided by R's ``rowSums``."""
    n, m = eta.shape
    full = np.empty((n, m + 1))
    full[:, ref] = 0.0
    full[:, [j for j in range(m + 1) if j != ref]] = eta
    e = libm.exp(full - full.max(axis=1, keepdims=True))
    mu = e / row_sums(e)[:, None]
    if mu.min() == 0 or mu.max() == 1:
        _warn(_W_01)
    return mu


def multinomial_deviance(mu, codes):
    """``multinomial()@deviance`` for 0/1 rows: ``-2 sum log mu[i, y_i]`` (VGAM floors a
    fitted value below ``sqrt(.Machine$double.xmin)`` there)."""
    # R: sum(w * 2 * (devy - y * log(mu))) over the n x K matrix, column by column in long
    # double; the zero cells add nothing, so the terms are the observed classes' cells, class
    # by class in row order. The C library's log, as R calls it: a deviance that rises by
    # rounding noise is what sends VGAM into its half-steps.
    order = np.lexsort((np.arange(codes.shape[0]), codes))
    m = mu[order, codes[order]]
    return float(rsum(-2.0 * libm.log(np.maximum(m, _SMALL_MU))))


def _weights(mu, ref):
    """``multinomial()@weight`` as full M x M matrices per row, then ``checkwz``."""
    keep = [j for j in range(mu.shape[1]) if j != ref]
    mk = mu[:, keep]
    wz = -mk[:, :, None] * mk[:, None, :]
    d = np.arange(mk.shape[1])
    wz[:, d, d] += mk
    tiny = ((mu < _SQRT_EPS) | (mu > 1 - _SQRT_EPS)).any(axis=1)
    if tiny.any():
        for j in d:
            wz[tiny, j, j] = _EPS + wz[tiny, j, j] * (1 + _SQRT_EPS)
    diag = wz[:, d, d]
    low = diag < _WZ_EPS
    if low.any():
        _warn(_W_WZ.format(int(low.sum())))
        wz[:, d, d] = np.maximum(diag, _WZ_EPS)
    return wz


def _design(x, constraints):
    """``lm2vlm.model.matrix``: the (n M) x sum(r_j) big model matrix."""
    n = x.shape[0]
    m = constraints[0].shape[0]
    blocks = [np.kron(x[:, [j]], np.asarray(h, dtype=float)) for j, h in enumerate(constraints)]
    big = np.hstack(blocks)
    assert big.shape[0] == n * m
    return big


def vglm_multinomial(x, codes, k, ref, offset=None, constraints=None, epsilon=1e-7, maxit=31, n_root=2):
    """Fit ``vglm(y ~ x - 1, multinomial(refLevel = ref + 1), offset, constraints)``.

    Parameters
    ----------
    x : ndarray (n, p)
        The LM model matrix (an intercept column included by the caller).
    codes : ndarray (n,)
        0-based class of each row; every class must occur.
    k : int
        Number of classes.
    ref : int
        0-based reference class.
    offset : ndarray (n, k - 1), optional
        Added to the linear predictors (VGAM's matrix offset).
    constraints : list of ndarray, optional
        One ``(k - 1) x r_j`` constraint matrix per column of ``x`` (default identity).
    epsilon, maxit : float, int
        ``vglm.control`` (``maxit`` 31 is ``vglm.multinomial.deviance.control``'s).
    n_root : {2, 4}
        The stopping rule scales the relative deviance change by ``n^(1/n_root)``: 2 is
        ``vglm``'s ``sqrt(eff.n)``; 4 is ``vgam``'s ``sqrt(sqrt(eff.n))``, which with no
        smooth terms makes this ``vgam()`` (Polcal fits its intercepts that way).

    Returns
    -------
    VglmFit
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    m = k - 1
    if constraints is None:
        constraints = [np.eye(m)] * x.shape[1]
    X = _design(x, constraints)
    ncol = X.shape[1]
    if X.shape[0] < ncol:
        raise CalstatsError(f"There are {ncol} parameters but only {X.shape[0]} observations")
    off = np.zeros((n, m)) if offset is None else np.asarray(offset, dtype=np.float64)
    y = np.zeros((n, k))
    y[np.arange(n), codes] = 1.0
    keep = [j for j in range(k) if j != ref]
    # mustart = y + (1/K - y)/nvec, evaluated as VGAM does
    mu = y + (1.0 / k - y)
    eta = np.log(mu[:, keep] / mu[:, [ref]])
    new_crit = multinomial_deviance(mu, codes)
    old_coef = None
    it = 1

    def working(mu_, eta_):
        wz = _weights(mu_, ref)
        deriv = (y - mu_)[:, keep]
        u = np.linalg.cholesky(wz)  # lower L with L L' = W, i.e. U = L'
        z = eta_ + np.linalg.solve(wz, deriv[:, :, None])[:, :, 0] - off
        return u, z

    L, z = working(mu, eta)
    sqrt_n = math.sqrt(n) if n_root == 2 else math.sqrt(math.sqrt(n))
    while True:
        # weighted least squares with W_i = L_i L_i': minimise ||L_i' (z_i - X_i b)||^2
        Xi = X.reshape(n, m, ncol)
        Xs = np.einsum("iba,ibc->iac", L, Xi).reshape(n * m, ncol)
        zs = np.einsum("iba,ib->ia", L, z).reshape(n * m)
        q, r = np.linalg.qr(Xs)
        dr = np.abs(np.diag(r))
        if dr.size and dr.min() <= 1e-7 * dr.max():
            raise CalstatsError(_E_RANK)
        coef = np.linalg.solve(r, q.T @ zs)
        r_last = r
        eta = (X @ coef).reshape(n, m) + off
        mu = _linkinv(eta, ref)
        old_crit = new_crit
        new_crit = multinomial_deviance(mu, codes)
        take_half = old_coef is not None and (not math.isfinite(new_crit) or new_crit > old_crit)
        if take_half:
            step = 1.0
            saved = coef
            too_small = False
            while True:
                step /= 2
                if step < 1e-6:
                    too_small = True
                    break
                coef = (1 - step) * old_coef + step * saved
                eta = (X @ coef).reshape(n, m) + off
                mu = _linkinv(eta, ref)
                new_crit = multinomial_deviance(mu, codes)
                if math.isfinite(new_crit) and new_crit < old_crit:
                    break
            if too_small:
                _warn(_W_HALF)
                one_more = False
            else:
                one_more = it < maxit and sqrt_n * abs(old_crit - new_crit) / (abs(old_crit) + epsilon) > epsilon
        else:
            one_more = it < maxit and sqrt_n * abs(old_crit - new_crit) / (abs(old_crit) + epsilon) > epsilon
        if one_more:
            it += 1
            L, z = working(mu, eta)
        old_coef = coef
        if not one_more:
            break
    if maxit > 1 and it >= maxit:
        _warn(_W_NOT_CONVERGED.format(maxit))
    rinv = np.linalg.inv(r_last)
    cov = rinv @ rinv.T
    return VglmFit(coef=coef, cov=cov, deviance=new_crit, mu=mu, eta=eta, iter=it)

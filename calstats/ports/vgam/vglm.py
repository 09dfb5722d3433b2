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
* the half-step rule from the second iteration on (deviance increased or not finite, or
  ``multinomial()@validparams`` failing: a fitted probability exactly 0 or 1, though the
  deviance fell -- on (quasi-)separated data this is what stops VGAM with "half-step sizes
  are very small"), with VGAM's warnings ("fitted values close to 0 or 1" from the
  deviance, "... convergence at a half-step");
* the covariance ``(R'R)^-1`` of that last weighted fit (VGAM's ``vcov``, dispersion 1).

The weighted least-squares step is solved on the structure of the big model matrix rather
than by LINPACK's ``dqrdc2`` on it: the normal equations are formed from the
per-observation M x M weight blocks (``n p^2 M^2 / 2`` multiply-adds instead of a QR's
``2 n M q^2`` for q coefficients, and no ``n M x q`` matrix), solved by Cholesky and refined
once from the residual (see :class:`_Wls`); steps whose Cholesky factor is far from well
conditioned, and the rank test near VGAM's threshold, use a Householder QR of the stacked
design (LAPACK). On random designs the structured step agrees with the dense QR to ~1e-14
in the coefficients and ~1e-12 in the standard errors, and VGAM's fits to the same
rounding level: on 150 random data sets x 4 fits (n = 60-3000, K = 3-5) 595 agree with R
to 1e-8 or better; the other 5 are the half-step case below (R saw a rounding-level rise
of the deviance at its last step, calstats did not; 4e-8 to 2.4e-6 relative).

One deliberate shortcut: the new linear predictors are ``X_vlm b + offset``, where VGAM
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

import numpy as np

from ..._errors import fail
from ..._errors import warn as _warn  # multinomial_deviance's argument `warn` takes the name
from ..._messages import (
    VGLM_FITTED_01,
    VGLM_FITTED_CLOSE,
    VGLM_HALF_STEP,
    VGLM_HALF_STEP_CONVERGED,
    VGLM_NOT_CONVERGED,
    VGLM_PARAMETERS,
    VGLM_RANK,
    VGLM_WZ,
)
from ..._robject import RObject
from ...numerics import blas, libm
from ...numerics.reductions import row_sums, rsum

__all__ = ["vglm_multinomial", "VglmFit", "multinomial_deviance"]

_EPS = np.finfo(float).eps
_SQRT_EPS = math.sqrt(_EPS)
_WZ_EPS = _EPS ** 0.75  # vglm.control(wzepsilon)
_SMALL_MU = math.sqrt(np.finfo(float).tiny)  # Deviance.categorical.data.vgam's double.eps
# below this ratio of the Cholesky factor's smallest to largest diagonal the step is the
# dense QR (the rank test at VGAM's 1e-7 and ill-conditioned steps)
_DENSE_BELOW = 1e-4


class VglmFit(RObject):
    """A multinomial ``vglm`` fit: the slots of VGAM's S4 ``vglm`` object the port computes,
    under their slot names in ``slotNames("vglm")``'s order (``fit["fitted.values"]``,
    ``fit.names()``; see :class:`calstats._robject.RObject`), with shorter Python attributes:

    ``iter`` (VGAM's ``iter``), ``predictors`` (Python ``eta``, n x M linear predictors),
    ``coefficients`` (Python ``coef``, VGAM's order: for each term, its constraint columns)
    and ``fitted.values`` (Python ``mu``, n x K fitted probabilities).

    Not slots (VGAM computes them from the object): ``cov`` (``vcov(fit)``), ``deviance``
    (``deviance(fit)``, VGAM's ``fit@criterion$deviance``) and the property ``se``.
    """

    _r_fields = ("iter", "predictors", "coefficients", "fitted.values")
    _aliases = {"predictors": "eta", "coefficients": "coef", "fitted.values": "mu"}
    _extras: tuple[str, ...] = ("cov", "deviance")
    # set by the constructor (declared for type checkers)
    iter: int
    eta: np.ndarray
    coef: np.ndarray
    mu: np.ndarray
    cov: np.ndarray
    deviance: float

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
        _warn(VGLM_FITTED_01)
    return mu


def _valid(mu):
    """``multinomial()@validparams``: every fitted probability finite and in (0, 1)."""
    return bool(np.all(np.isfinite(mu)) and np.all((mu > 0) & (mu < 1)))


def multinomial_deviance(mu, codes, warn=False):
    """``multinomial()@deviance`` for 0/1 rows: ``-2 sum log mu[i, y_i]`` (VGAM floors a
    fitted value below ``sqrt(.Machine$double.xmin)`` there). ``warn``: VGAM's "fitted
    values close to 0 or 1" when some ``mu (1 - mu)`` is below that value (inside the fit)."""
    if warn and np.any(mu * (1.0 - mu) < _SMALL_MU):
        _warn(VGLM_FITTED_CLOSE)
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
        _warn(VGLM_WZ.format(count=int(low.sum())))
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


def _constraint_map(constraints, m):
    """The (p M) x sum(r_j) block-diagonal matrix of the constraint matrices: it maps the
    coefficients to the unconstrained (term, equation) coefficients, row ``j M + a``."""
    p = len(constraints)
    ncol = sum(np.shape(h)[1] for h in constraints)
    out = np.zeros((p * m, ncol))
    c = 0
    for j, h in enumerate(constraints):
        h = np.asarray(h, dtype=np.float64)
        out[j * m:(j + 1) * m, c:c + h.shape[1]] = h
        c += h.shape[1]
    return out


def _gram(x, wz):
    """``X_vlm' W X_vlm`` of the unconstrained terms from the per-observation blocks:
    entry ``(j M + a, l M + b)`` is ``sum_i x_ij x_il W_i[a, b]`` (one p x p product per
    pair ``a <= b`` of equations; W is symmetric)."""
    n, p = x.shape
    m = wz.shape[1]
    g = np.empty((p, m, p, m))
    for a in range(m):
        for b in range(a, m):
            blk = x.T @ (x * wz[:, a, b][:, None])
            g[:, a, :, b] = blk
            if b != a:
                g[:, b, :, a] = blk
    return g.reshape(p * m, p * m)


def _cross(x, v):
    """``X_vlm' v`` for per-observation vectors ``v`` (n x M): ``sum_i x_ij v_ia`` at
    ``j M + a``."""
    return (x.T @ v).ravel()


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
    n, p = x.shape
    m = k - 1
    # every product here is small or medium (n p^2 M^2 multiply-adds per step): one thread
    with blas.for_size(float(n) * p * p * m * m):
        return _vglm(x, codes, k, ref, offset, constraints, epsilon, maxit, n_root)


def _vglm(x, codes, k, ref, offset, constraints, epsilon, maxit, n_root):
    n, p = x.shape
    m = k - 1
    if constraints is None:
        constraints = [np.eye(m)] * p
    hmap = _constraint_map(constraints, m)
    ncol = hmap.shape[1]
    if n * m < ncol:
        fail(VGLM_PARAMETERS.format(parameters=ncol, observations=n * m))
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
    wls = _Wls(x, hmap, constraints, off, y[:, keep])

    def predict(b):
        return x @ (hmap @ b).reshape(p, m) + off

    wls.weights(mu, eta, ref)
    sqrt_n = math.sqrt(n) if n_root == 2 else math.sqrt(math.sqrt(n))
    while True:
        coef = wls.solve()
        eta = predict(coef)
        mu = _linkinv(eta, ref)
        old_crit = new_crit
        new_crit = multinomial_deviance(mu, codes, warn=True)
        # vglm.fit halves the step when the deviance rose or is not finite, or when
        # multinomial()@validparams fails: a fitted probability exactly 0 or 1 (or not finite)
        take_half = old_coef is not None and (not math.isfinite(new_crit) or new_crit > old_crit
                                              or not _valid(mu))
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
                eta = predict(coef)
                mu = _linkinv(eta, ref)
                new_crit = multinomial_deviance(mu, codes, warn=True)
                if _valid(mu) and math.isfinite(new_crit) and new_crit < old_crit:
                    break
            if too_small:
                _warn(VGLM_HALF_STEP)
                one_more = False
            else:
                one_more = it < maxit and sqrt_n * abs(old_crit - new_crit) / (abs(old_crit) + epsilon) > epsilon
        else:
            one_more = it < maxit and sqrt_n * abs(old_crit - new_crit) / (abs(old_crit) + epsilon) > epsilon
        if one_more:
            it += 1
            wls.weights(mu, eta, ref)
        elif take_half:
            _warn(VGLM_HALF_STEP_CONVERGED)
        old_coef = coef
        if not one_more:
            break
    if maxit > 1 and it >= maxit:
        _warn(VGLM_NOT_CONVERGED.format(maxit=maxit))
    return VglmFit(coef=coef, cov=wls.cov(), deviance=new_crit, mu=mu, eta=eta, iter=it)


class _Wls:
    """VGAM's weighted least-squares step (``vlm.wfit``) on the structure of the big model
    matrix: with W_i the M x M working weights of row i, the step minimises
    ``sum_i (z_i - X_i b)' W_i (z_i - X_i b)`` with ``X_i = [x_i1 H_1, ..., x_ip H_p]``.

    The normal equations ``C b = X' W z`` are formed from the per-observation blocks
    (``C = H' (sum_i x_i x_i' (x) W_i) H``: one p x p product per pair of equations, about
    ``n p^2 M^2 / 2`` multiply-adds, where a QR of the stacked ``n M x sum(r_j)`` design
    takes ``2 n M sum(r_j)^2``), with ``W z = W (eta - offset) + (y - mu)`` (no inverse of
    W), solved by Cholesky and refined once from the residual (corrected semi-normal
    equations: the accuracy of the QR solve on a well-conditioned design). ``C``'s Cholesky
    factor is the R of VGAM's QR up to row signs, so the covariance ``(R'R)^-1`` and the
    rank test on R's diagonal (VGAM's ``1e-7``) read it directly. When the factor is far
    from well conditioned (smallest diagonal below ``_DENSE_BELOW`` times the largest) the
    step is the dense Householder QR of the stacked design instead, as before.
    """

    def __init__(self, x, hmap, constraints, off, ykeep):
        self.x, self.hmap, self.constraints, self.off, self.ykeep = x, hmap, constraints, off, ykeep
        self.n, self.p = x.shape
        self.m = off.shape[1]
        self.ncol = hmap.shape[1]
        self._dense_X = None

    def weights(self, mu, eta, ref):
        wz = _weights(mu, ref)
        self.wz = wz
        # W z with z = eta + W^-1 (y - mu) - offset
        self.wzz = np.einsum("iab,ib->ia", wz, eta - self.off) + (self.ykeep - mu[:, [j for j in range(mu.shape[1])
                                                                                        if j != ref]])
        c = self.hmap.T @ _gram(self.x, wz) @ self.hmap
        try:
            r = np.linalg.cholesky(c).T  # upper: R'R = C
        except np.linalg.LinAlgError:
            r = None
        d = None if r is None else np.abs(np.diag(r))
        if r is None or not np.all(np.isfinite(r)) or d.min() <= _DENSE_BELOW * d.max():
            self._dense(wz)
            return
        self.r = r
        self.c = c
        self.dense = None

    def _dense(self, wz):
        """The stacked design's Householder QR (ill-conditioned or rank-deficient steps)."""
        if self._dense_X is None:
            self._dense_X = _design(self.x, self.constraints)
        n, m, ncol = self.n, self.m, self.ncol
        L = np.linalg.cholesky(wz)  # lower L with L L' = W
        z = np.linalg.solve(wz, self.wzz[:, :, None])[:, :, 0]  # W^-1 (W z) = z
        Xi = self._dense_X.reshape(n, m, ncol)
        Xs = np.einsum("iba,ibc->iac", L, Xi).reshape(n * m, ncol)
        zs = np.einsum("iba,ib->ia", L, z).reshape(n * m)
        q, r = np.linalg.qr(Xs)
        dr = np.abs(np.diag(r))
        if dr.size and dr.min() <= 1e-7 * dr.max():
            fail(VGLM_RANK)
        self.r = r
        self.dense = (q, zs)

    def solve(self):
        if self.dense is not None:
            q, zs = self.dense
            return np.linalg.solve(self.r, q.T @ zs)
        hmap, r, x = self.hmap, self.r, self.x
        g = hmap.T @ _cross(x, self.wzz)
        b = _chol_solve(r, g)
        # one refinement: W (z - X b) = W (eta - offset - X b) + (y - mu) = W z - W X b
        fit = x @ (hmap @ b).reshape(self.p, self.m)
        resid = self.wzz - np.einsum("iab,ib->ia", self.wz, fit)
        return b + _chol_solve(r, hmap.T @ _cross(x, resid))

    def cov(self):
        rinv = np.linalg.inv(self.r)
        return rinv @ rinv.T


def _chol_solve(r, g):
    """``(R'R)^-1 g`` for an upper-triangular ``R``."""
    from scipy.linalg import solve_triangular

    return solve_triangular(r, solve_triangular(r, g, trans="T"))

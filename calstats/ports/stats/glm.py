"""R's ``glm.fit`` for ``binomial(link = "logit")`` by IRLS (iteratively reweighted least squares).

probcal fits two GLMs: ``cal_platt`` regresses the Platt targets on ``(Intercept), x`` and
``cal_beta`` regresses 0/1 labels on ``(Intercept), log_p, log_1mp``. R stops its iteratively
reweighted least squares when the *relative* change of the deviance falls below 1e-8, so the
coefficients it reports are still ~1e-8 away from the exact maximum-likelihood estimate:
the iteration itself is the answer, and a port has to take the same steps.

Why not statsmodels: ``sm.GLM(..., family=Binomial()).fit()`` starts from
``mu = (y + mean(y))/2`` instead of R's ``(y + 0.5)/2`` and stops on the *absolute* deviance
change, so it often performs a different number of iterations and then differs from R by
1e-9...1e-8 relative (9 % on separable data, as measured against R 4.2.2). It also has no
equivalent of R's limited-pivoting rank decision (aliased columns reported as ``NA``).

What is reproduced, statement by statement:

* R's start ``mu = (w*y + 0.5)/(w + 1)``, the C family functions of R's ``family.c``
  (``logit_link``, ``logit_linkinv``, ``logit_mu_eta`` with ``THRESH = 30`` and
  ``DBL_EPSILON`` clamps, ``binomial_dev_resids``), ``sum`` in long double in index order (as R
  sums) and ``exp``/``log`` of the C library (glibc), as R calls them;
* each weighted least-squares step with R's ``Cdqrls``: LINPACK ``dqrdc2`` (Householder QR
  with R's *limited pivoting* at tolerance ``min(1e-7, epsilon/1000)``, which decides the
  rank and the aliased columns) followed by ``dqrsl`` (``Q'y`` and back substitution),
  with the reference-BLAS kernels ``dnrm2`` (LAPACK >= 3.10 version), ``ddot`` (sequential
  double accumulation), ``daxpy`` and ``dscal``;
* ``eta = X %*% beta`` in the reference ``dgemv`` order;
* an ``offset`` (working response ``eta - offset + (y - mu)/mu.eta``, ``eta = X b + offset``),
  R's ``etastart``/``mustart`` start values, and the model without columns (R's ``EMPTY``
  branch: ``eta = offset``, no iterations), as pmcalibration's ``logistic_cal`` and MASS's
  profile refits need them;
* the convergence rule, ``maxit = 25``, the final warnings in R's order and text, and the
  fields R stores (``weights`` are the last iteration's working weights, ``aic`` through
  ``dbinom``'s saddle-point code of R 4.2).

Each iteration's passes over the observations (working response and weights, ``Cdqrls``,
``eta`` and ``mu``, the deviance; the AIC once) run in the compiled module of
:mod:`calstats.numerics.passes`, which reads the model matrix in place and keeps no
temporaries; the NumPy functions here are its reference (``passes.ENGINE = "numpy"``) and
give the same bits.
"""

import math

import numpy as np
import pandas as pd

from ..._errors import CalstatsError
from ..._errors import warn as _warn
from ..._robject import RObject
from ...numerics import libm, passes
from ...numerics.lapack import chol2inv
from ...numerics.reductions import matmul, rsum

__all__ = ["glm_binomial", "GlmFit", "dqrdc2", "qr_qty"]

DBL_EPSILON = 2.220446049250313e-16
_THRESH = 30.0
_MTHRESH = -30.0
_INVEPS = 1.0 / DBL_EPSILON
_EPSILON = 1e-8  # glm.control(epsilon)
_MAXIT = 25  # glm.control(maxit)
_QR_TOL = min(1e-7, _EPSILON / 1000)  # glm.fit's tolerance for Cdqrls

_W_NOT_CONVERGED = "glm.fit: algorithm did not converge"
_W_BOUNDARY = "glm.fit: algorithm stopped at boundary value"
_W_FITTED_01 = "glm.fit: fitted probabilities numerically 0 or 1 occurred"
_W_NON_INTEGER = "non-integer #successes in a binomial glm!"


# --------------------------------------------------------------------------------------
# Reference BLAS kernels (netlib BLAS / LAPACK 3.11, as R's reference build links them)
# --------------------------------------------------------------------------------------

# dnrm2.f90 (LAPACK >= 3.10): Blue's scaling constants for IEEE double.
_TSML = 2.0**-511
_TBIG = 2.0**486
_SSML = 2.0**537
_SBIG = 2.0**-538


def _dnrm2_loop(x):
    """``dnrm2`` of LAPACK >= 3.10 (Anderson's algorithm with three accumulators)."""
    asml = amed = abig = 0.0
    notbig = True
    for v in x:
        ax = abs(float(v))
        if ax > _TBIG:
            t = ax * _SBIG
            abig = abig + t * t
            notbig = False
        elif ax < _TSML:
            if notbig:
                t = ax * _SSML
                asml = asml + t * t
        else:
            amed = amed + ax * ax
    if abig > 0.0:
        if amed > 0.0 or amed != amed:
            abig = abig + (amed * _SBIG) * _SBIG
        scl, sumsq = 1.0 / _SBIG, abig
    elif asml > 0.0:
        if amed > 0.0 or amed != amed:
            amed = math.sqrt(amed)
            asml = math.sqrt(asml) / _SSML
            ymin, ymax = (amed, asml) if asml > amed else (asml, amed)
            scl = 1.0
            sumsq = ymax * ymax * (1.0 + (ymin / ymax) * (ymin / ymax))
        else:
            scl, sumsq = 1.0 / _SSML, asml
    else:
        scl, sumsq = 1.0, amed
    return scl * math.sqrt(sumsq)


def _dnrm2(x):
    """Euclidean norm as the reference ``dnrm2`` computes it.

    For entries that are zero or in the "medium" range ``[2^-511, 2^486]`` (always the case
    for the designs here) the routine reduces to ``sqrt`` of the sequential double sum of
    squares, which is evaluated vectorised; anything else takes the literal loop.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return 0.0
    ax = np.abs(x)
    if np.all(((ax >= _TSML) & (ax <= _TBIG)) | (ax == 0.0)):
        return math.sqrt(float(np.cumsum(ax * ax)[-1]))
    return _dnrm2_loop(x)


def _ddot(a, b):
    """Reference ``ddot``: sequential double accumulation of the products, from 0."""
    if a.size == 0:
        return 0.0
    return float(np.cumsum(a * b)[-1])


def _daxpy(t, x, y):
    """Reference ``daxpy``: ``y + t*x`` elementwise (returns ``y`` untouched when t == 0)."""
    if t == 0.0:
        return y
    return y + t * x


# --------------------------------------------------------------------------------------
# LINPACK dqrdc2 / dqrsl / dqrls (R's src/appl), i.e. R's C_Cdqrls
# --------------------------------------------------------------------------------------


def dqrdc2(x, tol):
    """R's ``dqrdc2``: Householder QR with limited column pivoting.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        Matrix to decompose (not modified).
    tol : float
        Columns whose running norm falls below ``tol`` times their original norm are moved
        to the right-hand edge and excluded from the rank.

    Returns
    -------
    qr : ndarray (n, p)
        LINPACK compact form: ``R`` in the upper triangle, Householder vectors below.
    rank : int
    qraux : ndarray (p,)
    pivot : ndarray (p,) of int
        1-based original column numbers in their final order.
    """
    if passes.ENGINE == "c" and np.ndim(x) == 2:
        return passes.dqrdc2(x, tol)
    return _dqrdc2_numpy(x, tol)


def _dqrdc2_numpy(x, tol):
    """The NumPy reference of :func:`dqrdc2`."""
    x = np.array(x, dtype=np.float64, order="F", copy=True)
    n, p = x.shape
    jpvt = np.arange(1, p + 1)
    qraux = np.zeros(p)
    work1 = np.zeros(p)
    work2 = np.zeros(p)
    if n > 0:
        for j in range(p):
            qraux[j] = _dnrm2(x[:, j])
            work1[j] = qraux[j]
            work2[j] = qraux[j] if qraux[j] != 0.0 else 1.0

    lup = min(n, p)
    k = p + 1  # Fortran's 1-based k: columns k..p have been moved to the end
    for l in range(1, lup + 1):
        L = l - 1
        # Cycle negligible columns to the right-hand edge (R's limited pivoting).
        while not (l >= k or qraux[L] >= work2[L] * tol):
            order = list(range(L + 1, p)) + [L]
            x[:, L:] = x[:, order]
            jpvt[L:] = jpvt[order]
            qraux[L:] = qraux[order]
            work1[L:] = work1[order]
            work2[L:] = work2[order]
            k -= 1
        if l == n:
            continue
        # Householder transformation for column l.
        nrmxl = _dnrm2(x[L:, L])
        if nrmxl == 0.0:
            continue
        if x[L, L] != 0.0:
            nrmxl = math.copysign(nrmxl, x[L, L])
        x[L:, L] = (1.0 / nrmxl) * x[L:, L]  # dscal
        x[L, L] = 1.0 + x[L, L]
        # Apply it to the remaining columns, updating the norms.
        for j in range(L + 1, p):
            t = -_ddot(x[L:, L], x[L:, j]) / x[L, L]
            x[L:, j] = _daxpy(t, x[L:, L], x[L:, j])
            if qraux[j] != 0.0:
                r = abs(x[L, j]) / qraux[j]
                tt = 1.0 - r * r
                tt = max(tt, 0.0)
                if abs(tt) >= 1e-6:
                    qraux[j] = qraux[j] * math.sqrt(tt)
                else:
                    qraux[j] = _dnrm2(x[L + 1:, j])
                    work1[j] = qraux[j]
        qraux[L] = x[L, L]
        x[L, L] = -nrmxl
    rank = min(k - 1, n)
    return x, rank, qraux, jpvt


def qr_qty(qr, qraux, rank, y):
    """LINPACK ``dqrsl``'s ``Q'y`` (R's ``qr.qty``) for every column of ``y`` at once: the
    first ``min(rank, n - 1)`` Householder reflections of a ``dqrdc2`` factorisation, each
    inner product a sequential double sum from 0 (reference ``ddot``), each update
    ``y + t x`` skipped for ``t == 0`` (``daxpy``)."""
    if passes.ENGINE == "c" and np.ndim(qr) == 2 and np.ndim(y) == 2:
        return passes.qr_qty(qr, qraux, rank, y)
    return _qr_qty_numpy(qr, qraux, rank, y)


def _qr_qty_numpy(qr, qraux, rank, y):
    """The NumPy reference of :func:`qr_qty`."""
    n = qr.shape[0]
    qty = np.array(y, dtype=np.float64, copy=True)
    for j in range(min(rank, n - 1)):
        if qraux[j] == 0.0:
            continue
        col = qr[j:, j].copy()
        col[0] = qraux[j]
        t = -np.cumsum(col[:, None] * qty[j:, :], axis=0)[-1] / col[0]
        nz = t != 0.0
        qty[j:, nz] = qty[j:, nz] + t[nz][None, :] * col[:, None]
    return qty


def _dqrsl_qty_b(qr, k, qraux, y):
    """LINPACK ``dqrsl`` with job 1110 as ``dqrls`` calls it: ``Q'y`` and the solution of
    the leading ``k x k`` triangular system (column-oriented back substitution)."""
    n = qr.shape[0]
    b = np.zeros(k)
    if min(k, n - 1) == 0:  # n == 1 (or k == 0)
        if k >= 1 and qr[0, 0] != 0.0:
            b[0] = y[0] / qr[0, 0]
        return b, np.array(y, dtype=np.float64, copy=True)
    qty = qr_qty(qr, qraux, k, np.asarray(y, dtype=np.float64)[:, None])[:, 0]
    b[:] = qty[:k]
    for jj in range(k):
        j = k - 1 - jj
        if qr[j, j] == 0.0:  # info = j: singular (cannot happen after dqrdc2's rank test)
            break
        b[j] = b[j] / qr[j, j]
        if j != 0:
            b[:j] = _daxpy(-b[j], qr[:j, j], b[:j])
    return b, qty


def _cdqrls_weighted(X, w, z, tol):
    """``_cdqrls(X * w, z * w, tol)``, in one compiled pass when ``passes.ENGINE == "c"``."""
    if passes.ENGINE == "c":
        return passes.glm_qrls(X, w, z, tol)
    return _cdqrls(X * w[:, None], z * w, tol)


def _cdqrls(x, y, tol):
    """R's ``.Call(C_Cdqrls, x, y, tol)`` (LINPACK ``dqrls``) for one right-hand side.

    Returns the coefficients in pivoted order (entries past the rank are 0, as ``dqrls``
    sets them), the rank, the 1-based pivot, and the compact QR with ``qraux``.
    """
    p = x.shape[1]
    qr, rank, qraux, pivot = dqrdc2(x, tol)
    coef = np.zeros(p)
    if rank > 0:
        coef[:rank], _ = _dqrsl_qty_b(qr, rank, qraux, y)
    return coef, rank, pivot, qr, qraux


# --------------------------------------------------------------------------------------
# binomial(link = "logit"): R's family.c and family$aic
# --------------------------------------------------------------------------------------


def _linkfun(mu):
    """``logit_link``: ``log(mu/(1 - mu))``."""
    return libm.log(mu / (1.0 - mu))


def _linkinv(eta):
    """``logit_linkinv``: ``t/(1 + t)`` with ``t = exp(eta)`` clamped for |eta| > 30."""
    t = libm.exp(eta)
    t = np.where(eta < _MTHRESH, DBL_EPSILON, np.where(eta > _THRESH, _INVEPS, t))
    return t / (1.0 + t)


def _mu_eta(eta):
    """``logit_mu_eta``: ``exp(eta)/((1 + exp(eta))^2)``, ``DBL_EPSILON`` for |eta| > 30."""
    e = libm.exp(eta)
    opexp = 1.0 + e
    with np.errstate(over="ignore", invalid="ignore"):
        val = e / (opexp * opexp)
    return np.where((eta > _THRESH) | (eta < _MTHRESH), DBL_EPSILON, val)


def _variance(mu):
    return mu * (1.0 - mu)


def _ylogy(y, mu):
    with np.errstate(divide="ignore", invalid="ignore"):
        v = y * libm.log(y / mu)
    return np.where(y != 0.0, v, 0.0)


def _dev_resids(y, mu, wt=None):
    """``binomial_dev_resids``: ``2*wt*(ylogy(y, mu) + ylogy(1-y, 1-mu))`` (R's C order;
    ``wt=None`` is prior weights 1)."""
    if wt is not None:
        return (2.0 * wt) * (_ylogy(y, mu) + _ylogy(1.0 - y, 1.0 - mu))
    return 2.0 * (_ylogy(y, mu) + _ylogy(1.0 - y, 1.0 - mu))


def _bd0(x, np_):
    """R 4.2's ``bd0(x, np)`` (nmath/bd0.c), vectorised; ``x*log(x/np) + np - x`` with
    the Taylor series of the saddle-point expansion when ``|x - np| < 0.1(x + np)``."""
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), np.shape(np_)).copy()
    np_ = np.asarray(np_, dtype=np.float64)
    out = np.empty_like(np_)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.abs(x - np_) < 0.1 * (x + np_)
        far = ~near
        out[far] = x[far] * libm.log(x[far] / np_[far]) + np_[far] - x[far]
        if np.any(near):
            xs, ns = x[near], np_[near]
            v = (xs - ns) / (xs + ns)
            s = (xs - ns) * v
            res = s.copy()
            active = ~(np.abs(s) < np.finfo(np.float64).tiny)
            ej = 2.0 * xs * v
            v = v * v
            for j in range(1, 1000):
                if not active.any():
                    break
                ej = np.where(active, ej * v, ej)
                s1 = s + ej / ((j << 1) + 1)
                done = active & (s1 == s)
                res[done] = s1[done]
                s = np.where(active, s1, s)
                active = active & ~done
            res[active] = s[active]
            out[near] = res
    return out


def _dbinom_log_size1(x, p):
    """``dbinom(x, 1, p, log = TRUE)`` for x in {0, 1} (R 4.2's ``dbinom_raw``)."""
    q = 1.0 - p
    zero = x == 0
    # x == 0: lc = p < 0.1 ? -bd0(n, n*q) - n*p : n*log(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p < 0.1, -_bd0(1.0, q) - p, libm.log(q))
        # x == n: lc = q < 0.1 ? -bd0(n, n*p) - n*q : n*log(p)
        b = np.where(q < 0.1, -_bd0(1.0, p) - q, libm.log(p))
    out = np.where(zero, a, b)
    out = np.where(p == 0.0, np.where(zero, 0.0, -np.inf), out)
    out = np.where(q == 0.0, np.where(zero, -np.inf, 0.0), out)
    return out


def _aic(y, mu, rank):
    """``binomial()$aic(y, n = 1, mu, wt = 1, dev) + 2*rank``."""
    if passes.ENGINE == "c":
        return -2.0 * passes.glm_sum(1, y, mu) + 2.0 * rank
    x = np.round(y)  # round(m*y) with m = 1 (R rounds half to even, as NumPy)
    return -2.0 * rsum(_dbinom_log_size1(x, mu)) + 2.0 * rank


def _working(eta, mu, ex, y, off, weights):
    """One IRLS step's ``(z, w, mu.eta)``: working response ``(eta - offset) + (y - mu)/mu.eta``
    and ``w = sqrt(weights mu.eta^2 / variance(mu))`` (``off``/``weights`` None: none, all 1;
    ``ex``: ``exp(eta)`` from :func:`_update`, or None)."""
    if passes.ENGINE == "c":
        return passes.glm_working(eta, mu, ex, y, off, weights)
    varmu = _variance(mu)
    mu_eta_val = _mu_eta(eta)
    z = ((eta - off) if off is not None else eta) + (y - mu) / mu_eta_val
    wt = np.ones(eta.size) if weights is None else weights
    w = np.sqrt((wt * (mu_eta_val * mu_eta_val)) / varmu)
    return z, w, mu_eta_val


def _update(X, beta, off, y, wt):
    """``(eta, mu, ex, dev)``: ``eta = X %*% beta (+ offset)`` in dgemv order, ``mu =
    linkinv(eta)``, ``exp(eta)`` for the next step (None from the reference) and the
    deviance."""
    if passes.ENGINE == "c":
        return passes.glm_update(X, beta, off, y, wt)
    eta = matmul(X, beta)
    if off is not None:
        eta = eta + off
    mu = _linkinv(eta)
    return eta, mu, None, rsum(_dev_resids(y, mu, wt))


def _deviance(y, mu, wt=None):
    """R's ``sum(dev.resids(y, mu, wt))`` (``wt=None``: prior weights 1)."""
    if passes.ENGINE == "c":
        return passes.glm_sum(0, y, mu, wt)
    return rsum(_dev_resids(y, mu, wt))


# --------------------------------------------------------------------------------------
# The fit record and glm.fit
# --------------------------------------------------------------------------------------


class GlmFit(RObject):
    """The ported fields of R's ``glm`` object (the fields calstats carries over).

    Attributes
    ----------
    coefficients : pandas.Series
        Final coefficients indexed by the model-matrix column names; NaN for columns that
        the pivoted QR found aliased.
    fitted_values, linear_predictors : ndarray
        ``mu`` and ``eta`` at the final iteration.
    residuals : ndarray
        Working residuals ``(y - mu)/mu_eta(eta)``.
    weights : ndarray
        Working weights ``w^2`` of the last iteration.
    prior_weights : ndarray
        All 1.
    y : ndarray
        The response that was fitted.
    deviance, null_deviance, aic : float
    iter : int
        IRLS iterations performed.
    converged, boundary : bool
    rank : int
    df_residual, df_null : int
    pivot : ndarray of int
        1-based column order after pivoting.
    family, link : str
        ``"binomial"``, ``"logit"``.

    Not R fields (for summaries): ``cov_unscaled`` (``(X'WX)^{-1}`` of the non-aliased
    columns from the final QR, a DataFrame in pivot order, like ``summary.glm``'s
    ``cov.unscaled``), ``qr`` (LINPACK compact QR of the last weighted model matrix),
    ``qraux``, ``colnames``.
    """

    _r_fields = (
        "coefficients", "fitted.values", "linear.predictors", "residuals", "weights",
        "prior.weights", "y", "deviance", "null.deviance", "aic", "iter", "converged",
        "boundary", "rank", "df.residual", "df.null", "pivot", "family", "link",
    )
    _extras: tuple[str, ...] = ("colnames", "qr", "qraux", "cov_unscaled")
    # set by the constructor (declared for type checkers)
    coefficients: pd.Series
    fitted_values: np.ndarray
    linear_predictors: np.ndarray
    residuals: np.ndarray
    weights: np.ndarray
    prior_weights: np.ndarray
    y: np.ndarray
    deviance: float
    null_deviance: float
    aic: float
    iter: int
    converged: bool
    boundary: bool
    rank: int
    df_residual: int
    df_null: int
    pivot: np.ndarray
    family: str
    link: str
    colnames: list[str]
    cov_unscaled: pd.DataFrame

    def __repr__(self):
        coefs = ", ".join(f"{k}={v!r}" for k, v in self.coefficients.items())
        return (f"GlmFit({coefs}; deviance={self.deviance!r}, iter={self.iter}, "
                f"converged={self.converged}, rank={self.rank})")


def _aic_weighted(y, mu, rank, weights):
    """binomial()$aic with prior weights: ``-2 sum (w>0) dbinom(round(w y), round(w), mu, log)``
    + 2 rank (SciPy's binomial log-density; R's own differs in the last bits)."""
    from scipy.stats import binom

    m = weights
    pos = m > 0
    ll = binom.logpmf(np.round(m * y)[pos], np.round(m)[pos], mu[pos])
    return float(-2.0 * np.sum(ll) + 2.0 * rank)


def _cov_unscaled(qr, rank, pivot, colnames):
    """``summary.glm``'s ``chol2inv(R)`` of the leading ``rank x rank`` triangle (R's
    ``dpotri``: its last bits decide ``MASS::mvrnorm``'s eigenvector signs), named in
    pivot order."""
    names = [colnames[j - 1] for j in pivot[:rank]]
    if rank == 0:
        return pd.DataFrame(np.zeros((0, 0)), index=names, columns=names)
    return pd.DataFrame(chol2inv(qr[:rank, :rank]), index=names, columns=names)


def glm_binomial(X, y, colnames, warn=False, weights=None, offset=None, etastart=None, mustart=None,
                 intercept=True):
    """Fit a logistic regression exactly as R's ``glm(y ~ ..., family = binomial())``.

    Reproduces R 4.2's ``glm.fit`` (IRLS with ``Cdqrls``) for the binomial family with logit
    link, ``epsilon = 1e-8``, ``maxit = 25`` (R's ``glm.control()`` defaults). statsmodels
    is not used: its GLM starts elsewhere and stops on a different rule, so it performs a
    different number of iterations and does not give R's numbers (module docstring).

    Parameters
    ----------
    X : array_like, shape (n, p)
        Model matrix (``p`` may be 0: R's empty model, e.g. ``y ~ 0 + offset(LP)``, which
        takes no iterations: ``eta = offset``, ``iter = 0``, ``converged = True``, rank 0).
    y : array_like, shape (n,)
        Response in [0, 1] (Platt targets or 0/1 labels).
    colnames : sequence of str
        Column names of ``X`` (e.g. ``["(Intercept)", "x"]``); index of ``coefficients``.
    warn : bool, default False
        Emit R's warnings (``CalstatsWarning``) in R's order and text: ``non-integer
        #successes in a binomial glm!`` (start), then ``glm.fit: algorithm did not
        converge``, ``glm.fit: algorithm stopped at boundary value``, ``glm.fit: fitted
        probabilities numerically 0 or 1 occurred``. ``cal_platt`` suppresses them
        (``False``), ``cal_beta`` emits them (``True``).
    weights : array_like, optional
        Prior weights, as ``glm(weights =)``: observations with weight 0 take no part in
        the iterations (R's ``good``), deviances are weighted, and the residual degrees of
        freedom count the positive weights. ``None`` is R's unweighted fit, bit for bit.
    offset : array_like, optional
        R's ``offset``: a known part of the linear predictor, ``eta = X b + offset``; the
        working response is ``eta - offset + (y - mu)/mu.eta``. ``None`` is no offset, bit
        for bit as before.
    etastart, mustart : array_like, optional
        R's starting values: ``etastart`` is the first ``eta`` itself, ``mustart`` replaces
        ``(w y + 0.5)/(w + 1)`` (``etastart`` wins, as in ``glm.fit``).
    intercept : bool, default True
        R's ``glm.fit(intercept =)``: only the null deviance depends on it (``mean(y)``
        with an intercept, ``linkinv(offset)`` without) and ``df.null`` (``n - 1`` or
        ``n``). R's ``glm()`` passes whether the formula has an intercept.

    Returns
    -------
    GlmFit

    Notes
    -----
    R's ``glm()`` (not ``glm.fit``) refits the intercept-only model to get the null
    deviance when there is an offset and an intercept; that refit is the caller's
    (``calstats.clinical.logcal`` does it).
    """
    X = np.array(X, dtype=np.float64)
    y = np.array(y, dtype=np.float64).ravel()
    if X.ndim != 2 or X.shape[0] != y.size:
        raise ValueError("X must be an n x p matrix with n = len(y)")
    n, p = X.shape
    colnames = [str(c) for c in colnames]
    if len(colnames) != p:
        raise ValueError("colnames must name every column of X")
    has_offset = offset is not None
    off = np.zeros(n) if offset is None else np.array(offset, dtype=np.float64).ravel()
    if off.size != n:
        raise ValueError("offset must have length len(y)")

    # binomial()$initialize (NCOL(y) == 1, weights 1)
    if np.any((y < 0) | (y > 1)):
        raise CalstatsError("y values must be 0 <= y <= 1")
    weighted = weights is not None
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    good = weights > 0
    if mustart is None:
        mustart = (weights * y + 0.5) / (weights + 1.0)
    else:
        mustart = np.array(mustart, dtype=np.float64).ravel()
    if warn and np.any(np.abs(weights * y - np.round(weights * y)) > 1e-3):
        _warn(_W_NON_INTEGER)
    wts = weights if weighted else None

    if p == 0:
        return _glm_empty(y, off, weights, weighted, intercept, colnames)

    eta = _linkfun(mustart) if etastart is None else np.array(etastart, dtype=np.float64).ravel()
    mu = _linkinv(eta)
    devold = _deviance(y, mu, wts)
    dev = devold
    boundary = conv = False

    start = np.zeros(p)
    coef = None
    w = None
    rank, pivot, qr, qraux = p, np.arange(1, p + 1), None, None
    ex = None
    it = 0
    for it in range(1, _MAXIT + 1):
        z, w, mu_eta_val = _working(eta, mu, ex, y, off if has_offset else None, weights if weighted else None)
        if weighted:  # R's glm.fit drops the rows with zero weight (and mu.eta == 0)
            good = (weights > 0) & (mu_eta_val != 0)
            fcoef, rank, pivot, qr, qraux = _cdqrls_weighted(X[good], w[good], z[good], _QR_TOL)
        else:
            fcoef, rank, pivot, qr, qraux = _cdqrls_weighted(X, w, z, _QR_TOL)
        if not np.all(np.isfinite(fcoef)):
            conv = False
            if warn:
                _warn(f"non-finite coefficients at iteration {it}")
            break
        start = start.copy()
        start[pivot - 1] = fcoef
        eta, mu, ex, dev = _update(X, start, off if has_offset else None, y, wts)
        if abs(dev - devold) / (abs(dev) + 0.1) < _EPSILON:
            conv = True
            coef = start
            break
        devold = dev
        coef = start

    if warn:
        if not conv:
            _warn(_W_NOT_CONVERGED)
        if boundary:
            _warn(_W_BOUNDARY)
        eps10 = 10 * DBL_EPSILON
        if np.any(mu > 1 - eps10) or np.any(mu < eps10):
            _warn(_W_FITTED_01)

    if coef is None:  # broke off at iteration 1 (non-finite coefficients)
        coef = np.full(p, np.nan)
    coef = np.array(coef, dtype=np.float64)
    if rank < p:
        coef[pivot[rank:] - 1] = np.nan

    residuals = (y - mu) / _mu_eta(eta)
    nulldev = _null_deviance(y, off, weights, weighted, intercept)
    aic = _aic(y, mu, rank) if not weighted else _aic_weighted(y, mu, rank, weights)
    n_ok = int(np.count_nonzero(weights > 0)) if weighted else n

    out = GlmFit(
        coefficients=pd.Series(coef, index=colnames, dtype=np.float64),
        fitted_values=np.asarray(mu, dtype=np.float64),
        linear_predictors=np.asarray(eta, dtype=np.float64),
        residuals=np.asarray(residuals, dtype=np.float64),
        weights=(w * w) if not weighted else np.where(good, w * w, 0.0),
        prior_weights=weights,
        y=y,
        deviance=float(dev),
        null_deviance=float(nulldev),
        aic=float(aic),
        iter=int(it),
        converged=bool(conv),
        boundary=bool(boundary),
        rank=int(rank),
        df_residual=int(n_ok - rank),
        df_null=int(n_ok - int(bool(intercept))),
        pivot=np.asarray(pivot, dtype=np.int64),
        family="binomial",
        link="logit",
        colnames=colnames,
        qr=qr,
        qraux=qraux,
        cov_unscaled=_cov_unscaled(qr, rank, pivot, colnames),
    )
    return out


def _null_deviance(y, off, weights, weighted, intercept):
    """``glm.fit``'s null deviance: the weighted mean with an intercept, else ``linkinv(offset)``."""
    if intercept:
        wtdmu = np.full(y.size, rsum(weights * y) / rsum(weights))
    else:
        wtdmu = _linkinv(off)
    return _deviance(y, wtdmu, weights if weighted else None)


def _glm_empty(y, off, weights, weighted, intercept, colnames):
    """``glm.fit``'s ``EMPTY`` branch (no columns): ``eta = 0 + offset``, no iterations."""
    n = y.size
    eta = 0.0 + off
    mu = _linkinv(eta)
    dev = rsum(_dev_resids(y, mu, weights if weighted else None))
    mu_eta_val = _mu_eta(eta)
    w = np.sqrt((weights * (mu_eta_val * mu_eta_val)) / _variance(mu))
    residuals = (y - mu) / mu_eta_val
    aic = _aic(y, mu, 0) if not weighted else _aic_weighted(y, mu, 0, weights)
    n_ok = int(np.count_nonzero(weights > 0)) if weighted else n
    return GlmFit(
        coefficients=pd.Series(np.zeros(0), index=pd.Index([], dtype=object), dtype=np.float64),
        fitted_values=np.asarray(mu, dtype=np.float64),
        linear_predictors=np.asarray(eta, dtype=np.float64),
        residuals=np.asarray(residuals, dtype=np.float64),
        weights=w * w,
        prior_weights=weights,
        y=y,
        deviance=float(dev),
        null_deviance=float(_null_deviance(y, off, weights, weighted, intercept)),
        aic=float(aic),
        iter=0,
        converged=True,
        boundary=True,
        rank=0,
        df_residual=int(n_ok),
        df_null=int(n_ok - int(bool(intercept))),
        pivot=np.zeros(0, dtype=np.int64),
        family="binomial",
        link="logit",
        colnames=list(colnames),
        qr=None,
        qraux=None,
        cov_unscaled=_cov_unscaled(None, 0, np.zeros(0, dtype=np.int64), list(colnames)),
    )

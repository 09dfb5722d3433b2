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

The family functions and LINPACK are R's arithmetic and live in
:mod:`calstats.numerics.binomial` and :mod:`calstats.numerics.linpack`; this module is
``glm.fit``'s algorithm. Each iteration's passes over the observations (working response and
weights, ``Cdqrls``, ``eta`` and ``mu``, the deviance; the AIC once) go through one
:class:`~calstats.numerics.binomial.Irls`, which decides once per fit whether they run in the
compiled passes or as their NumPy references (the same bits).
"""


import numpy as np
import pandas as pd

from ..._errors import fail
from ..._errors import warn as _warn  # glm_binomial's argument `warn` takes the name
from ..._messages import (
    COXPH_COLNAMES,
    GLM_BOUNDARY,
    GLM_FITTED_01,
    GLM_NON_INTEGER,
    GLM_NONFINITE_COEF,
    GLM_NOT_CONVERGED,
    GLM_OFFSET_LENGTH,
    GLM_X_SHAPE,
    GLM_Y_RANGE,
)
from ..._robject import RObject
from ...numerics.binomial import DBL_EPSILON, Irls, dev_resids, linkfun, linkinv, mu_eta, variance
from ...numerics.lapack import chol2inv
from ...numerics.reductions import rsum

__all__ = ["glm_binomial", "GlmFit"]

_EPSILON = 1e-8  # glm.control(epsilon)
_MAXIT = 25  # glm.control(maxit)
_QR_TOL = min(1e-7, _EPSILON / 1000)  # glm.fit's tolerance for Cdqrls


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
        raise ValueError(GLM_X_SHAPE)
    n, p = X.shape
    colnames = [str(c) for c in colnames]
    if len(colnames) != p:
        raise ValueError(COXPH_COLNAMES)
    has_offset = offset is not None
    off = np.zeros(n) if offset is None else np.array(offset, dtype=np.float64).ravel()
    if off.size != n:
        raise ValueError(GLM_OFFSET_LENGTH)

    # binomial()$initialize (NCOL(y) == 1, weights 1)
    if np.any((y < 0) | (y > 1)):
        fail(GLM_Y_RANGE)
    weighted = weights is not None
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    good = weights > 0
    if mustart is None:
        mustart = (weights * y + 0.5) / (weights + 1.0)
    else:
        mustart = np.array(mustart, dtype=np.float64).ravel()
    if warn and np.any(np.abs(weights * y - np.round(weights * y)) > 1e-3):
        _warn(GLM_NON_INTEGER)
    wts = weights if weighted else None

    irls = Irls()  # compiled or NumPy passes, decided once for the whole fit
    if p == 0:
        return _glm_empty(irls, y, off, weights, weighted, intercept, colnames)

    eta = linkfun(mustart) if etastart is None else np.array(etastart, dtype=np.float64).ravel()
    mu = linkinv(eta)
    devold = irls.deviance(y, mu, wts)
    dev = devold
    boundary = conv = False

    start = np.zeros(p)
    coef = None
    w = None
    rank, pivot, qr, qraux = p, np.arange(1, p + 1), None, None
    ex = None
    it = 0
    for it in range(1, _MAXIT + 1):
        z, w, mu_eta_val = irls.working(eta, mu, ex, y, off if has_offset else None, weights if weighted else None)
        if weighted:  # R's glm.fit drops the rows with zero weight (and mu.eta == 0)
            good = (weights > 0) & (mu_eta_val != 0)
            fcoef, rank, pivot, qr, qraux = irls.qrls(X[good], w[good], z[good], _QR_TOL)
        else:
            fcoef, rank, pivot, qr, qraux = irls.qrls(X, w, z, _QR_TOL)
        if not np.all(np.isfinite(fcoef)):
            conv = False
            if warn:
                _warn(GLM_NONFINITE_COEF.format(iteration=it))
            break
        start = start.copy()
        start[pivot - 1] = fcoef
        eta, mu, ex, dev = irls.update(X, start, off if has_offset else None, y, wts)
        if abs(dev - devold) / (abs(dev) + 0.1) < _EPSILON:
            conv = True
            coef = start
            break
        devold = dev
        coef = start

    if warn:
        if not conv:
            _warn(GLM_NOT_CONVERGED)
        if boundary:
            _warn(GLM_BOUNDARY)
        eps10 = 10 * DBL_EPSILON
        if np.any(mu > 1 - eps10) or np.any(mu < eps10):
            _warn(GLM_FITTED_01)

    if coef is None:  # broke off at iteration 1 (non-finite coefficients)
        coef = np.full(p, np.nan)
    coef = np.array(coef, dtype=np.float64)
    if rank < p:
        coef[pivot[rank:] - 1] = np.nan

    residuals = (y - mu) / mu_eta(eta)
    nulldev = _null_deviance(irls, y, off, weights, weighted, intercept)
    aic = irls.aic(y, mu, rank) if not weighted else _aic_weighted(y, mu, rank, weights)
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


def _null_deviance(irls, y, off, weights, weighted, intercept):
    """``glm.fit``'s null deviance: the weighted mean with an intercept, else ``linkinv(offset)``."""
    if intercept:
        wtdmu = np.full(y.size, rsum(weights * y) / rsum(weights))
    else:
        wtdmu = linkinv(off)
    return irls.deviance(y, wtdmu, weights if weighted else None)


def _glm_empty(irls, y, off, weights, weighted, intercept, colnames):
    """``glm.fit``'s ``EMPTY`` branch (no columns): ``eta = 0 + offset``, no iterations."""
    n = y.size
    eta = 0.0 + off
    mu = linkinv(eta)
    dev = rsum(dev_resids(y, mu, weights if weighted else None))
    mu_eta_val = mu_eta(eta)
    w = np.sqrt((weights * (mu_eta_val * mu_eta_val)) / variance(mu))
    residuals = (y - mu) / mu_eta_val
    aic = irls.aic(y, mu, 0) if not weighted else _aic_weighted(y, mu, 0, weights)
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
        null_deviance=float(_null_deviance(irls, y, off, weights, weighted, intercept)),
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

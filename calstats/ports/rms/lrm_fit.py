"""``rms::lrm.fit`` (rms 6.5-0): the logistic (binary or proportional-odds ordinal) model by
Newton-Raphson, as the Fortran routine ``LRMFIT`` of rms 6.5-0 (``src/lrmfit.f``) fits it and
``lrm.fit``'s R code completes it.

``val.prob`` calls ``lrm.fit`` twice with one covariate (the logits):
``lrm.fit(logit, y, initial = c(0, 1), maxit = 1)`` evaluates the log likelihood, Somers'
Dxy and the c index of the *unrecalibrated* model, and ``lrm.fit(logit, y)`` is the logistic
recalibration. ``lrm()`` calls it with the model matrix of its formula, and
``validate``/``calibrate`` refit it on every resample. Everything goes through the same
steps, ported statement by statement because they decide the digits:

* Newton-Raphson from ``initial = (logit of the cumulative outcome shares, 0, ...)``,
  ``maxit = 12``, stopping when the -2 log likelihood *before* a step changed by at most
  ``eps = 0.025`` (so the reported coefficients are one Newton step past that point, not the
  exact MLE), or earlier when the score is below 1e-9 and the likelihood changed by less than
  ``eps / 10``; step-halving when the likelihood worsens; when ``maxit`` is exhausted
  (separation) R sets ``fail`` and keeps the last coefficients, the likelihood of the step
  before and, as its information matrix, the QR factors the last step left in the Fortran's
  scratch matrix (so ``var`` is R's ``solvet`` of those, as R computes it);
* probabilities ``1/(1 + exp(-clamp(eta, -30, 30)))`` (the Fortran ``lprob``), ``eta``
  accumulated intercept first, then column by column;
* the score and information sums over observations in index order in double precision
  (``u(i) += (y - p) x_i w``; ``v(k) += p (1 - p) x_i x_j w``), the ordinal branch with the
  Fortran's own expressions;
* each Newton step solves ``V d = U`` with LINPACK ``dqrdc2``/``dqrsl`` at tolerance ``tol``
  (the ``ainvb`` routine), reusing :mod:`calstats.ports.stats.glm`'s ports; a rank below the
  number of parameters is R's "singular information matrix" (the offending columns are the
  ones ``dqrdc2`` moved to the end);
* the c index and Dxy from ``gcorr``: predicted probabilities binned into 5001 cells
  ``int(5000 p + 1)``, concordant/discordant/tied pairs counted between cells, so they are
  *not* the exact rank statistics (``Hmisc::somers2``) when two probabilities share a cell;
  a case weight counts ``int(w + 0.5)`` times there;
* the covariance matrix as ``solvet(info, tol)`` (``qr`` and ``qr.coef``), the linear
  predictor as ``matxv`` (``b[1] + X %*% b[-1]`` in the reference ``dgemv`` order), R's
  ``R2Measures`` (``R2(n)``, ``R2(p,n)`` and the same with the effective sample size
  ``n (1 - sum P^3)``), the Brier score and Gini's mean differences ``g``, ``gr``, ``gp``.

Sums the R code writes (``sum``, ``mean``) are long-double sums in index order
(:mod:`calstats.numerics.reductions`); the p-value ``1 - pchisq(LR, df)`` uses SciPy's
incomplete gamma for ``df != 2`` (about 1e-15 absolute from R's).

Speed without changing a bit: the binary ``LLOGIT`` runs in the C core
(``calstats.numerics._loops.llogit_binary``, the NumPy code here its reference), ``solvet``
solves every right-hand side with one pass of the reflections, and ``summary=False`` skips
the statistics of a refit that only predicts.
"""

import functools
import math
from typing import Any

import numpy as np

from ..._robject import RObject
from ...numerics import libm
from ...numerics.linpack import dqrdc2, qr_coef
from ...numerics.nmath import pchisq_upper, plogis
from ...numerics.passes import compiled_module, use_compiled
from ...numerics.reductions import matmul, rsum
from ..hmisc.somers2 import gini_md_pair

__all__ = ["LrmFit", "lrm_fit", "LrmSingular", "solvet", "r2_measures", "matxv"]

_loops = compiled_module("_loops")


class LrmSingular(Exception):
    """``lrm.fit`` could not go on: R's "singular information matrix" (``rank``,
    ``offending`` 0-based columns of ``x``) or ``solvet``'s "apparently singular matrix"
    (``rank`` None)."""

    def __init__(self, message, rank=None, offending=()):
        super().__init__(message)
        self.rank = rank
        self.offending = tuple(offending)


def _lprob(eta):
    return 1.0 / (1.0 + libm.exp(-np.clip(eta, -30.0, 30.0)))


def _seqsum(v):
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _colsums(m):
    """Sequential double sums down each column (the Fortran's ``DO n = 1, nobs`` loops):
    NumPy reduces axis 0 of a C-contiguous array row after row."""
    m = np.ascontiguousarray(m, dtype=np.float64)
    if m.shape[0] == 0:
        return np.zeros(m.shape[1])
    if m.shape[1] == 1:
        return np.cumsum(m[:, 0])[-1:].copy()
    return np.add.reduce(m, axis=0)


def _slopes_eta(beta_slopes, X):
    """``bx = 0; bx = bx + beta(kint + i) * x(n, i)`` for i = 1..p (the Fortran loop)."""
    bx = np.zeros(X.shape[0])
    for i in range(X.shape[1]):
        bx = bx + beta_slopes[i] * X[:, i]
    return bx


def _llogit_binary(beta, X, y, w, calcc, backend=None):
    """Fortran ``LLOGIT`` for ``kint = 1`` (no offset, no penalty).

    Returns ``(loglik, u, v, dvrg, ftable)``: -2 log likelihood, score, packed lower
    triangle of the information ((1,1), (2,1), (2,2), (3,1), ...), divergence flag, and the
    5001 x 2 table of binned probabilities by outcome (when ``calcc``). The compiled loop
    (``_loops.llogit_binary``) gives the bits of the NumPy code below (``backend="numpy"``).
    """
    if use_compiled(_loops, backend):
        return _llogit_binary_c(beta, X, y, w, calcc)
    n, p = X.shape
    nv = p + 1
    bx = np.zeros(n) + beta[0] * 1.0
    for i in range(p):
        bx = bx + beta[i + 1] * X[:, i]
    cp = _lprob(bx)
    ftable = None
    if calcc:
        ipp = (5000.0 * cp + 1.0).astype(np.int64)  # Fortran INT truncates
        ftable = np.zeros((5001, 2), dtype=np.int64)
        np.add.at(ftable, (ipp - 1, y), (w + 0.5).astype(np.int64))
    viy = cp * (1.0 - cp)
    one = y == 1
    # GO TO 74 (divergence) at y = 0 with cp >= 1 or y = 1 with cp <= 0: the clamp at +-30
    # makes it unreachable, kept for fidelity.
    if np.any(np.where(one, cp <= 0.0, cp >= 1.0)):
        return math.nan, np.zeros(nv), np.zeros(nv * (nv + 1) // 2), True, ftable
    loglik = _seqsum(np.where(one, libm.log(cp), libm.log(1.0 - cp)) * w)
    r = np.where(one, 1.0, 0.0) - cp
    C = np.empty((n, nv))
    C[:, 0] = 1.0
    C[:, 1:] = X
    u = _colsums((r[:, None] * C) * w[:, None])
    v = np.empty(nv * (nv + 1) // 2)
    pos = 0
    for i in range(nv):
        vi = viy * C[:, i]
        v[pos:pos + i + 1] = _colsums((vi[:, None] * C[:, :i + 1]) * w[:, None])
        pos += i + 1
    return -2.0 * loglik, u, v, False, ftable


def _llogit_binary_c(beta, X, y, w, calcc):
    n, p = X.shape
    nv = p + 1
    u = np.empty(nv)
    v = np.empty(nv * (nv + 1) // 2)
    ftable = np.zeros((5001, 2), dtype=np.int64) if calcc else None
    loglik, dvrg = _loops.llogit_binary(np.ascontiguousarray(X, dtype=np.float64),
                                        np.ascontiguousarray(beta, dtype=np.float64),
                                        np.ascontiguousarray(y, dtype=np.int64),
                                        np.ascontiguousarray(w, dtype=np.float64), u, v, ftable)
    if dvrg:
        return math.nan, np.zeros(nv), np.zeros(nv * (nv + 1) // 2), True, ftable
    return -2.0 * loglik, u, v, False, ftable


def _llogit_ordinal(beta, X, y, w, kint, calcc):
    """Fortran ``LLOGIT``, general branch (``kint >= 2``: an ordinal outcome with codes
    0..kint). Same returns as :func:`_llogit_binary`."""
    n, p = X.shape
    nv = kint + p
    bx = _slopes_eta(beta[kint:], X)
    ftable = None
    if calcc:
        mid = (kint + 1) // 2  # 1-based
        ipp = (5000.0 * _lprob(bx + beta[mid - 1]) + 1.0).astype(np.int64)
        ftable = np.zeros((5001, kint + 1), dtype=np.int64)
        np.add.at(ftable, (ipp - 1, y), (w + 0.5).astype(np.int64))
    b_ext = np.concatenate([[np.nan], beta[:kint], [np.nan]])  # b_ext[iy] = beta(iy), 1-based
    with np.errstate(invalid="ignore"):
        cpiy = np.where(y > 0, _lprob(bx + b_ext[y]), np.nan)
        cpiy1 = np.where(y < kint, _lprob(bx + b_ext[np.minimum(y + 1, kint + 1)]), np.nan)
    viy = cpiy * (1.0 - cpiy)
    viy1 = cpiy1 * (1.0 - cpiy1)
    low, top = y == 0, y == kint
    midc = ~low & ~top
    bad = (~top & (cpiy1 >= 1.0)) | (top & (cpiy == 0.0))
    if bad.any():
        return math.nan, np.zeros(nv), np.zeros(nv * (nv + 1) // 2), True, ftable
    piy = cpiy - cpiy1
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(low, libm.log(1.0 - cpiy1), np.where(top, libm.log(cpiy), libm.log(piy))) * w
    loglik = _seqsum(terms)
    active = midc & ((viy > 0) | (viy1 > 0))

    def d(i, shift):  # DIIY (shift 0) / DIIY1 (shift 1) for 0-based parameter i
        if i >= kint:
            return X[:, i - kint]
        return np.where(y + shift == i + 1, 1.0, 0.0)

    u = np.zeros(nv)
    v = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(nv):
            di, di1 = d(i, 0), d(i, 1)
            t = np.where(low, -((cpiy1 * di1) * w), np.where(top, ((1.0 - cpiy) * di) * w,
                         np.where(active, ((viy * di - viy1 * di1) / piy) * w, 0.0)))
            u[i] = _seqsum(t)
            for j in range(i + 1):
                dj, dj1 = d(j, 0), d(j, 1)
                mid_t = -(((piy * ((((viy * (1.0 - 2.0 * cpiy)) * di) * dj)
                                   - (((viy1 * (1.0 - 2.0 * cpiy1)) * di1) * dj1))
                            - (viy * di - viy1 * di1) * (viy * dj - viy1 * dj1)) / piy / piy) * w)
                t = np.where(low, ((viy1 * di1) * dj1) * w, np.where(top, ((viy * di) * dj) * w,
                             np.where(active, mid_t, 0.0)))
                v.append(_seqsum(t))
    return -2.0 * loglik, u, np.array(v), False, ftable


@functools.lru_cache(maxsize=64)
def _tril(k):
    return np.tril_indices(k)  # row by row, as the packed lower triangle


def _unpack(v, k):
    a = np.empty((k, k))
    r, c = _tril(k)
    a[r, c] = v
    a[c, r] = v
    return a


def _ainvb(v, u, tol):
    """``ainvb``: solve the packed symmetric system with dqrdc2/dqrsl.

    Returns ``(d, rank, pivot, qr)``: ``qr`` is the compact factorisation left in the
    Fortran's scratch matrix (what R reads as the information matrix of a fit that ran out
    of iterations).
    """
    k = u.size
    qr, rank, qraux, pivot = dqrdc2(_unpack(v, k), tol)
    if rank < k:
        return None, rank, pivot, qr
    b = qr_coef(qr, qraux, k, np.asarray(u, dtype=np.float64).reshape(k, 1))[:, 0]
    return b, rank, pivot, qr


def solvet(a, tol=1e-9, b=None):
    """``rms::solvet(a, b, tol)``: ``a^-1 b`` (the inverse of ``a`` without ``b``) by
    ``qr(a, tol)`` (LINPACK ``dqrdc2``) and ``qr.coef``; :class:`LrmSingular` ("apparently
    singular matrix") when the rank is deficient."""
    a = np.asarray(a, dtype=np.float64)
    k = a.shape[0]
    qr, rank, qraux, _ = dqrdc2(a, tol)
    if rank < k:
        raise LrmSingular("apparently singular matrix")
    if b is not None:
        bb = np.asarray(b, dtype=np.float64)
        return qr_coef(qr, qraux, k, bb.reshape(k, -1)).reshape(bb.shape)
    return qr_coef(qr, qraux, k, np.eye(k))


def _gcorr(ftable, numy):
    """Fortran ``gcorr``: c index, Dxy, gamma, tau-a from the binned table (exact integer
    counts of concordant, discordant and tied pairs between outcome levels)."""
    kint1 = ftable.shape[1]
    con = dis = tie = 0
    for i1 in range(kint1 - 1):
        f0 = ftable[:, i1]  # exact int64 products and sums (cells with f0 = 0 add nothing)
        for i2 in range(i1 + 1, kint1):
            f1 = ftable[:, i2]
            above = np.zeros_like(f1)
            above[:-1] = np.cumsum(f1[:0:-1])[::-1]  # ic: level i2 in higher cells
            con += int(np.dot(f0, above))
            dis += int(np.dot(f0, int(numy[i2]) - above - f1))
            tie += int(np.dot(f0, f1))
    nn = float(sum(int(v) for v in numy))
    fn = float(con + dis + tie)
    c = (con + tie * 0.5) / fn
    somer = (con - dis) / fn
    gamma = (con - dis) / (con + dis) if con + dis > 0 else 0.0
    taua = (con - dis) / (nn * (nn - 1.0) / 2.0)
    return c, somer, gamma, taua


@functools.lru_cache(maxsize=256)
def _round1_text(n):
    """``as.character(round(n, 1))`` for R2Measures' labels."""
    from ...numerics.rformat import round_text

    return round_text(n, 1)


def r2_measures(lr, p, n, ess=None):
    """``rms:::R2Measures(lr, p, n, ess)`` (``padj = 1``): ``{name: value}`` in R's order."""
    r2 = 1.0 - float(libm.exp(-lr / n))
    r2adj = 1.0 - float(libm.exp(-max(lr - p, 0.0) / n))

    def name(pp, nn):
        t = _round1_text(nn)
        return f"R2({t})" if pp == 0 else f"R2({pp},{t})"

    out = {name(0, n): r2, name(p, n): r2adj}
    if ess is not None:
        nr = n
        ess = np.asarray(ess, dtype=np.float64)
        if ess.size == 1:
            n = float(ess[0])
        else:
            P = ess / rsum(ess)
            n = n * (1.0 - rsum(_cube(P)))
        r2 = 1.0 - float(libm.exp(-lr / n))
        r2adj = 1.0 - float(libm.exp(-max(lr - p, 0.0) / n))
        if n == nr:
            r2 = r2adj = math.nan
        out[name(0, n)] = r2
        out[name(p, n)] = r2adj
    return out


def _cube(P):
    """R's ``P^3``: ``R_pow`` with a finite non-2 exponent is ``powl`` rounded to double."""
    return np.power(P.astype(np.longdouble), np.longdouble(3.0)).astype(np.float64)


def matxv(X, coef, kint=1):
    """``rms::matxv(X, coef, kint)``: ``coef[kint] + X %*% coef[-(1:nint)]`` (``X %*% b`` in
    the reference ``dgemv`` order, then the intercept added)."""
    coef = np.asarray(coef, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    p = X.shape[1]
    if p == 0:
        return np.full(X.shape[0], coef[kint - 1])
    return coef[kint - 1] + matmul(X, coef[coef.size - p:])


class LrmFit(RObject):
    """An ``lrm.fit`` result: the fields of R's list under their R names, in R's order
    (``fit["info.matrix"]``, ``fit.names()``; see :class:`calstats._robject.RObject`).

    R's list (rms 6.5-0) is ``call, freq, sumwty, stats, fail, coefficients, var, u, deviance,
    est, non.slopes, linear.predictors, penalty.matrix, info.matrix, weights``; the port keeps
    all but ``call``, ``est``, ``penalty.matrix`` and ``weights``.

    Attributes
    ----------
    freq : ndarray of int
        Counts of each outcome level (R's ``freq``).
    sumwty : ndarray or None
        Sum of weights by outcome level (weighted fits only).
    stats : dict
        R's ``stats`` vector: ``Obs``, ``Max Deriv``, ``Model L.R.``, ``d.f.``, ``P`` (NaN
        when ``initial`` was given, R's NA), ``C``, ``Dxy``, ``Gamma``, ``Tau-a``, ``R2``, the
        four ``R2(...)`` measures, ``Brier``, ``g``, ``gr``, ``gp`` (and ``Sum of Weights``).
    fail : bool
        R's ``fail`` (divergence or an exhausted ``maxit``).
    coefficients : ndarray
        Intercepts (``kint``), then slopes.
    var : ndarray or None
        ``solvet`` of the information matrix (None when that is singular: R stops there with
        "apparently singular matrix", see ``var_error``).
    u : ndarray or None
        The score at the final coefficients.
    deviance : ndarray (2,)
        -2 log likelihood of the intercept-only model (from the outcome frequencies) and of
        the fitted model.
    non_slopes : int
        Number of intercepts (R's ``non.slopes``).
    linear_predictors : ndarray or None
        ``matxv(x, coef)`` (first intercept).
    info_matrix : ndarray or None
        The information matrix (R's ``info.matrix``).

    Not R fields: ``iterations`` (Newton-Raphson iterations) and ``var_error`` (the message of
    a singular ``solvet``, or None). The fields a ``summary=False`` or failed fit does not
    compute are None.
    """

    _r_fields = ("freq", "sumwty", "stats", "fail", "coefficients", "var", "u", "deviance", "non.slopes",
                 "linear.predictors", "info.matrix")
    _extras: tuple[str, ...] = ("iterations", "var_error")
    # set by the constructor (declared for type checkers)
    freq: Any
    sumwty: Any
    stats: dict
    fail: bool
    coefficients: np.ndarray
    var: Any
    u: Any
    deviance: np.ndarray
    non_slopes: int
    linear_predictors: Any
    info_matrix: Any
    iterations: int
    var_error: Any


def _bare_fit(beta, deviance, fail, iterations, kint):
    """The ``LrmFit`` of a fit that stops before the statistics (no ``stats``, ``var``, ...)."""
    return LrmFit(freq=None, sumwty=None, stats={}, fail=fail, coefficients=beta, var=None, u=None,
                  deviance=deviance, non_slopes=kint, linear_predictors=None, info_matrix=None,
                  iterations=iterations, var_error=None)


def lrm_fit(x, y, initial=None, maxit=12, eps=0.025, tol=1e-7, weights=None, singular="none", summary=True):
    """``rms::lrm.fit(x, y, initial, maxit, eps, tol, weights)`` (rms 6.5-0).

    Parameters
    ----------
    x : ndarray (n,) or (n, p), or None
        Finite covariates (``val.prob``: the logits; ``lrm``: the model matrix without the
        intercept column); None or zero columns for the intercepts-only model.
    y : ndarray of int
        Outcome codes ``0..kint`` (the factor codes of R's ``as.factor(y)`` minus one); every
        level present.
    initial : sequence of float, optional
        Starting values (padded with zeros); default the logits of the cumulative outcome
        shares for the intercepts and 0 for the slopes.
    maxit, eps, tol : as in R (``tol`` is the QR tolerance of each Newton step and of the
        covariance matrix).
    weights : ndarray, optional
        Case weights (R's ``weights``, ``normwt = FALSE``).
    singular : {"none", "raise"}
        What R's "singular information matrix in lrm.fit" (a Newton step found the rank
        deficient; R prints the offending columns and returns ``list(fail = TRUE)``) gives:
        None, or :class:`LrmSingular` with the offending columns.
    summary : bool, default True
        False: only the coefficients, the deviances and ``fail`` (no ``stats``, ``var``,
        linear predictor; what a resample's refit needs when it only predicts). The
        coefficients are the same.

    Returns
    -------
    LrmFit, or None for a singular information matrix (``singular="none"``). When the first
    Newton step already worsened the likelihood (R's ``fail`` at the first iteration) the fit
    has empty ``stats``.
    """
    y = np.asarray(y, dtype=np.int64)
    n = y.size
    if x is None:
        X = np.zeros((n, 0))
    else:
        X = np.asarray(x, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        X = np.ascontiguousarray(X)
    p = X.shape[1]
    wtpres = weights is not None
    w = np.ones(n) if not wtpres else np.asarray(weights, dtype=np.float64)
    kint = int(y.max())
    nvi = kint + p
    numy = np.bincount(y, minlength=kint + 1).astype(np.int64)
    # tapply(weights, y, sum): R's sum per level, in index order
    sumwty = np.array([rsum(w[y == k]) for k in range(kint + 1)])
    sumwt = rsum(sumwty)
    sumw = numy if not wtpres else np.rint(sumwty).astype(np.int64)
    initial_there = initial is not None
    if initial is None:
        # rev(cumsum(rev(sumwty)))[2:(kint + 1)] / sumwt, on the logit scale
        ncum = np.cumsum(sumwty[::-1].astype(np.longdouble))[::-1].astype(np.float64)[1:]
        pp = ncum / sumwt
        beta = np.concatenate([libm.log(pp / (1.0 - pp)), np.zeros(p)])
    else:
        beta = np.zeros(nvi)
        init = np.asarray(initial, dtype=np.float64).ravel()
        beta[:min(init.size, nvi)] = init[:nvi]
    if kint == 1:
        def llogit(b, cc):
            return _llogit_binary(b, X, y, w, cc)
    else:
        def llogit(b, cc):
            return _llogit_ordinal(b, X, y, w, kint, cc)
    llnull = -2.0 * rsum(sumwty * libm.log(sumwty / rsum(sumwty)))

    if p == 0 and not summary:
        return _bare_fit(beta, np.array([llnull, llnull]), False, 0, kint)
    if p == 0:
        # nxin == 0 and no offset: R skips the Fortran (coefficients = initial)
        return _finish(beta, X, y, w, wtpres, kint, numy, sumwty, sumwt, llnull, llnull, np.zeros(kint),
                       None, (0.5, 0.0, 0.0, 0.0), False, 0, initial_there, tol)

    dvrg = False
    iterations = 0
    loglik = math.nan
    u = np.zeros(nvi)
    v = np.zeros(nvi * (nvi + 1) // 2)
    scratch = None  # the ainvb QR factors of the last step (R's VSQ when maxit runs out)
    final = True
    if maxit >= 2:
        oldl = 1e30
        deltab = np.zeros(nvi)
        curstp = 1.0
        converged = False
        for it in range(1, maxit):
            iterations = it
            loglik, u, v, dvrg, _ = llogit(beta, False)
            dmax = float(np.max(np.abs(u)))
            if dmax < 1e-9 and abs(loglik - oldl) < 0.1 * eps:
                converged = True
                break
            if loglik > oldl or dvrg:
                if it == 1:
                    return _bare_fit(beta, np.array([llnull, loglik]), True, it, kint)
                curstp = curstp / 2.0
                beta = beta - curstp * deltab
                continue
            curstp = 1.0
            deltab, rank, pivot, scratch = _ainvb(v, u, tol)
            if rank < nvi:
                if singular == "none":
                    return None
                moved = [int(j) - 1 - kint for j in pivot[rank:][::-1]]
                names = " ".join(f"x[{j + 1}]" for j in moved)
                raise LrmSingular(f"singular information matrix in lrm.fit (rank= {rank} ).  "
                                  f"Offending variable(s): {names}", rank=rank, offending=moved)
            beta = beta + deltab
            if abs(oldl - loglik) <= eps:
                converged = True
                break
            oldl = loglik
        if not converged and maxit > 2:
            final = False
    if not summary:
        fail = True
        if final:
            loglik, u, v, dvrg, _ = llogit(beta, False)
            fail = bool(dvrg)
        return _bare_fit(beta, np.array([llnull, loglik]), fail, iterations, kint)
    if final:
        loglik, u, v, dvrg, ftable = llogit(beta, True)
        corr = _gcorr(ftable, sumw)
        info = _unpack(v, nvi)
        fail = bool(dvrg)
    else:  # R's opts[8:11] keep their initial zeros; VSQ holds the last QR factors
        corr = (0.0, 0.0, 0.0, 0.0)
        info = np.zeros((nvi, nvi)) if scratch is None else np.array(scratch)
        fail = True
    return _finish(beta, X, y, w, wtpres, kint, numy, sumwty, sumwt, llnull, loglik, u, info, corr, fail,
                   iterations, initial_there, tol)


def _finish(beta, X, y, w, wtpres, kint, numy, sumwty, sumwt, llnull, loglik, u, info, corr, fail,
            iterations, initial_there, tol):
    """The R code of ``lrm.fit`` after the Fortran: covariance, linear predictor, stats."""
    n = y.size
    p = X.shape[1]
    nvi = kint + p
    var = None
    var_error = None
    if info is not None:
        try:
            var = solvet(info, tol=tol)
        except LrmSingular as e:
            var_error = str(e)
    lp = matxv(X, beta, 1) if p > 0 else np.full(n, beta[0])
    model_lr = llnull - loglik
    model_df = nvi - kint
    if initial_there:
        model_p = math.nan
    elif model_df > 0:
        model_p = pchisq_upper(model_lr, model_df)
    else:
        model_p = 1.0
    r2 = 1.0 - float(libm.exp(-model_lr / sumwt))
    r2_max = 1.0 - float(libm.exp(-llnull / sumwt))
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = r2 / r2_max
    r2m = r2_measures(model_lr, model_df, sumwt, sumwty)
    kmid = (kint + 1) // 2
    lpmid = (lp - beta[0]) + beta[kmid - 1]
    prob = plogis(lpmid)
    event = np.where(y > (kmid - 1), 1.0, 0.0)
    d = prob - event
    brier = rsum(w * (d * d)) / rsum(w)
    g, gp = gini_md_pair(lpmid, plogis, prob)  # GiniMd of lpmid and of plogis(lpmid)
    maxd = float(np.max(np.abs(u))) if u.size else 0.0
    c, somer, gamma, taua = corr
    stats = {"Obs": float(n), "Max Deriv": maxd, "Model L.R.": model_lr, "d.f.": float(model_df), "P": model_p,
             "C": c, "Dxy": somer, "Gamma": gamma, "Tau-a": taua, "R2": r2}
    stats.update(r2m)
    stats.update({"Brier": brier, "g": g, "gr": float(libm.exp(g)), "gp": gp})
    if wtpres:
        stats["Sum of Weights"] = sumwt
    return LrmFit(freq=numy, sumwty=sumwty if wtpres else None, stats=stats, fail=fail, coefficients=beta,
                  var=var, u=np.asarray(u), deviance=np.array([llnull, loglik]), non_slopes=kint,
                  linear_predictors=lp, info_matrix=info, iterations=iterations, var_error=var_error)

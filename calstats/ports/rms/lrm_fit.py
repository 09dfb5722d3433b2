"""``rms::lrm.fit`` (rms 6.5-0) for one covariate, as ``val.prob`` uses it (a binary outcome;
an outcome with more levels is fitted as R does, by the ordinal branch of the Fortran).

``val.prob`` calls ``lrm.fit`` twice: ``lrm.fit(logit, y, initial = c(0, 1), maxit = 1)``
evaluates the log likelihood, Somers' Dxy and the c index of the *unrecalibrated* model
(intercept 0, slope 1), and ``lrm.fit(logit, y)`` is the logistic recalibration whose
coefficients are the reported Intercept and Slope. Both go through the Fortran routine
``LRMFIT`` of rms 6.5-0 (``src/lrmfit.f``), ported here step by step because it decides
the digits:

* Newton-Raphson from ``initial = (logit(mean y), 0)``, ``maxit = 12``, stopping when the
  -2 log likelihood *before* a step changed by at most ``eps = 0.025`` (so the reported
  coefficients are one Newton step past that point, not the exact MLE), step-halving when
  the likelihood worsens, and, when ``maxit`` is exhausted (separation), returning the
  last coefficients with the likelihood of the step before (R sets ``fail``);
* probabilities ``1/(1 + exp(-clamp(eta, -30, 30)))`` (the Fortran ``lprob``);
* each Newton step solves ``V d = U`` with LINPACK ``dqrdc2``/``dqrsl`` at tolerance
  1e-7 (the ``ainvb`` routine), reusing :mod:`calstats.ports.stats.glm`'s ports;
* the c index and Dxy from ``gcorr``: predicted probabilities binned into 5001 cells
  ``int(5000 p + 1)``, concordant/discordant/tied pairs counted between cells, so they are
  *not* the exact rank statistics (``Hmisc::somers2``) when two probabilities share a cell.

Sums over observations run in index order in double precision as the Fortran loops do.
"""

import math

import numpy as np

from ...numerics import libm
from ...numerics.nmath import pchisq_upper
from ...numerics.reductions import rsum
from ..stats.glm import _dqrsl_qty_b, dqrdc2

__all__ = ["LrmFit", "lrm_fit"]


def _lprob(eta):
    return 1.0 / (1.0 + libm.exp(-np.clip(eta, -30.0, 30.0)))


def _seqsum(v):
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _llogit(beta, x, y, calcc):
    """Fortran ``LLOGIT`` for ``kint = 1``, no offset, unit weights, no penalty.

    Returns ``(loglik, u, v, dvrg, ftable)``: -2 log likelihood, score (2), packed lower
    triangle of the information (3: (1,1), (2,1), (2,2)), divergence flag, and the
    5001 x 2 table of binned probabilities by outcome (when ``calcc``).
    """
    bx = (0.0 + beta[0] * 1.0) + beta[1] * x
    cp = _lprob(bx)
    ftable = None
    if calcc:
        ipp = (5000.0 * cp + 1.0).astype(np.int64)  # Fortran INT truncates
        ftable = np.zeros((5001, 2), dtype=np.int64)
        np.add.at(ftable, (ipp - 1, y), 1)
    viy = cp * (1.0 - cp)
    one = y == 1
    # Fortran: GO TO 74 (divergence) at the first y = 0 with cp >= 1 or y = 1 with cp <= 0;
    # the clamp at +-30 makes it unreachable, kept for fidelity.
    bad = np.nonzero(np.where(one, cp <= 0.0, cp >= 1.0))[0]
    if bad.size:
        return math.nan, np.zeros(2), np.zeros(3), True, ftable
    terms = np.where(one, libm.log(cp), libm.log(1.0 - cp)) * 1.0
    loglik = _seqsum(terms)
    dy = np.where(one, 1.0, 0.0)
    r = dy - cp
    u = np.array([_seqsum((r * 1.0) * 1.0), _seqsum((r * x) * 1.0)])
    v = np.array([_seqsum(((viy * 1.0) * 1.0) * 1.0), _seqsum(((viy * x) * 1.0) * 1.0),
                  _seqsum(((viy * x) * x) * 1.0)])
    return -2.0 * loglik, u, v, False, ftable


def _llogit_ordinal(beta, x, y, kint, calcc):
    """Fortran ``LLOGIT``, general branch (``kint >= 2``: an ordinal outcome with codes
    0..kint), one covariate, unit weights. Same returns as :func:`_llogit` (``v`` packed
    row by row: (1,1), (2,1), (2,2), (3,1), ...)."""
    nv = kint + 1
    n = y.size
    bx = 0.0 + beta[kint] * x
    ftable = None
    if calcc:
        mid = (kint + 1) // 2  # 1-based
        cpm = _lprob(bx + beta[mid - 1])
        ipp = (5000.0 * cpm + 1.0).astype(np.int64)
        ftable = np.zeros((5001, kint + 1), dtype=np.int64)
        np.add.at(ftable, (ipp - 1, y), 1)
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
        terms = np.where(low, libm.log(1.0 - cpiy1), np.where(top, libm.log(cpiy), libm.log(piy))) * 1.0
    loglik = _seqsum(terms)
    xcol = [np.ones(n) if i < kint else x for i in range(nv)]
    iy = y
    active = midc & ((viy > 0) | (viy1 > 0))

    def d(i, shift):  # DIIY (shift 0) / DIIY1 (shift 1) for 0-based parameter i
        if i >= kint:
            return xcol[i]
        return np.where(iy + shift == i + 1, 1.0, 0.0)

    u = np.zeros(nv)
    v = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(nv):
            di, di1 = d(i, 0), d(i, 1)
            t = np.where(low, -((cpiy1 * di1) * 1.0), np.where(top, ((1.0 - cpiy) * di) * 1.0,
                         np.where(active, ((viy * di - viy1 * di1) / piy) * 1.0, 0.0)))
            u[i] = _seqsum(t)
            for j in range(i + 1):
                dj, dj1 = d(j, 0), d(j, 1)
                mid_t = -(((piy * ((((viy * (1.0 - 2.0 * cpiy)) * di) * dj)
                                   - (((viy1 * (1.0 - 2.0 * cpiy1)) * di1) * dj1))
                            - (viy * di - viy1 * di1) * (viy * dj - viy1 * dj1)) / piy / piy) * 1.0)
                t = np.where(low, ((viy1 * di1) * dj1) * 1.0, np.where(top, ((viy * di) * dj) * 1.0,
                             np.where(active, mid_t, 0.0)))
                v.append(_seqsum(t))
    return -2.0 * loglik, u, np.array(v), False, ftable


def _ainvb(v, u, tol):
    """``ainvb``: solve the packed symmetric system with dqrdc2/dqrsl. ``(d, rank)``."""
    k = u.size
    a = np.empty((k, k))
    pos = 0
    for i in range(k):
        for j in range(i + 1):
            a[i, j] = a[j, i] = v[pos]
            pos += 1
    qr, rank, qraux, _ = dqrdc2(a, tol)
    if rank < k:
        return None, rank
    b, _ = _dqrsl_qty_b(qr, k, qraux, np.asarray(u, dtype=np.float64))
    return b, rank


def _gcorr(ftable, numy):
    """Fortran ``gcorr``: c index, Dxy, gamma, tau-a from the binned table (exact integer
    counts of concordant, discordant and tied pairs between outcome levels)."""
    kint1 = ftable.shape[1]
    con = dis = tie = 0
    for i1 in range(kint1 - 1):
        f0 = ftable[:, i1]
        nz = f0 > 0
        for i2 in range(i1 + 1, kint1):
            f1 = ftable[:, i2]
            above = np.concatenate([np.cumsum(f1[::-1])[::-1][1:], [0]])  # ic: level i2 in higher cells
            con += int(np.sum(f0[nz] * above[nz]))
            dis += int(np.sum(f0[nz] * (int(numy[i2]) - above[nz] - f1[nz])))
            tie += int(np.sum(f0[nz] * f1[nz]))
    nn = float(sum(int(v) for v in numy))
    fn = float(con + dis + tie)
    c = (con + tie * 0.5) / fn
    somer = (con - dis) / fn
    gamma = (con - dis) / (con + dis) if con + dis > 0 else 0.0
    taua = (con - dis) / (nn * (nn - 1.0) / 2.0)
    return c, somer, gamma, taua


class LrmFit:
    """What ``val.prob`` reads from an ``lrm.fit`` result.

    Attributes
    ----------
    coefficients : ndarray (2,)
        Intercept and slope.
    deviance : ndarray (2,)
        -2 log likelihood of the intercept-only model (computed as R does, from the
        outcome frequencies) and of the fitted model.
    stats : dict
        ``Obs``, ``Model L.R.``, ``P`` (NaN when ``initial`` was given, as R's NA),
        ``C``, ``Dxy``, ``Gamma``, ``Tau-a``, ``R2`` (Nagelkerke).
    fail : bool
        R's ``fail`` (divergence or an exhausted ``maxit``).
    """

    def __init__(self, coefficients, deviance, stats, fail, iterations):
        self.coefficients = coefficients
        self.deviance = deviance
        self.stats = stats
        self.fail = fail
        self.iterations = iterations


def lrm_fit(x, y, initial=None, maxit=12, eps=0.025, tol=1e-7):
    """``rms::lrm.fit(x, y, initial, maxit)`` for 0/1 ``y`` and one covariate ``x``.

    Parameters
    ----------
    x : ndarray
        Finite covariate (``val.prob``: the logits).
    y : ndarray of int
        Outcome codes 0/1 (factor codes of R's ``as.factor(y)`` minus one); both present.
    initial : sequence of 2 floats, optional
        Starting values; default ``(log(pp/(1-pp)), 0)`` with ``pp`` the share of ones.
    maxit, eps, tol : as in R.

    Returns
    -------
    LrmFit, or None when the information matrix is singular (R prints "singular
    information matrix in lrm.fit" and returns ``list(fail = TRUE)``).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    n = y.size
    kint = int(y.max())
    nvi = kint + 1
    sumwty = np.array([float(np.sum(y == k)) for k in range(kint + 1)])
    sumwt = rsum(sumwty)
    initial_there = initial is not None
    if initial is None:
        # rev(cumsum(rev(sumwty)))[2:(kint + 1)] / sumwt, on the logit scale
        ncum = np.cumsum(sumwty[::-1].astype(np.longdouble))[::-1].astype(np.float64)[1:]
        pp = ncum / sumwt
        beta = np.concatenate([libm.log(pp / (1.0 - pp)), [0.0]])
    else:
        beta = np.zeros(nvi)
        beta[:min(len(initial), nvi)] = np.asarray(initial, dtype=np.float64)[:nvi]
    llogit = _llogit if kint == 1 else (lambda b, xx, yy, cc: _llogit_ordinal(b, xx, yy, kint, cc))
    llnull = -2.0 * rsum(sumwty * libm.log(sumwty / rsum(sumwty)))

    dvrg = False
    fail = False
    iterations = 0
    loglik = math.nan
    u = np.zeros(nvi)
    final = True
    if maxit >= 2:
        oldl = 1e30
        deltab = np.zeros(nvi)
        curstp = 1.0
        converged = False
        for it in range(1, maxit):
            iterations = it
            loglik, u, v, dvrg, _ = llogit(beta, x, y, False)
            dmax = float(np.max(np.abs(u)))
            if dmax < 1e-9 and abs(loglik - oldl) < 0.1 * eps:
                converged = True
                break
            if loglik > oldl or dvrg:
                if it == 1:
                    return LrmFit(beta, np.array([llnull, loglik]), {}, True, it)
                curstp = curstp / 2.0
                beta = beta - curstp * deltab
                continue
            curstp = 1.0
            deltab, rank = _ainvb(v, u, tol)
            if rank < nvi:
                return None
            beta = beta + deltab
            if abs(oldl - loglik) <= eps:
                converged = True
                break
            oldl = loglik
        if not converged and maxit > 2:
            fail = True
            final = False
    c = somer = gamma = taua = 0.5
    if final:
        loglik, u, v, dvrg, ftable = llogit(beta, x, y, True)
        c, somer, gamma, taua = _gcorr(ftable, sumwty.astype(np.int64))
        fail = fail or dvrg
    else:  # R's opts[8:11] keep their initial zeros
        c, somer, gamma, taua = 0.0, 0.0, 0.0, 0.0
    model_lr = llnull - loglik
    model_p = math.nan if initial_there else pchisq_upper(model_lr, 1)
    r2 = 1.0 - float(libm.exp(-model_lr / sumwt)) if not math.isnan(model_lr) else math.nan
    r2max = 1.0 - float(libm.exp(-llnull / sumwt))
    with np.errstate(invalid="ignore"):
        r2 = r2 / r2max
    stats = {"Obs": float(n), "Model L.R.": model_lr, "d.f.": 1.0, "P": model_p, "C": c, "Dxy": somer,
             "Gamma": gamma, "Tau-a": taua, "R2": r2}
    return LrmFit(beta, np.array([llnull, loglik]), stats, fail, iterations)


"""``rms::lrm.fit(offset = logit, y = y)`` (rms 6.5-0) for CalibrationCurves' ``val.prob.ci.2``:
the intercept alone with the logits as an offset (calibration-in-the-large), through the
Fortran ``LRMFIT`` as :func:`calstats.ports.rms.lrm_fit.lrm_fit` ports it (Newton-Raphson from
``log(pp / (1 - pp)) - mean(offset)``, ``maxit = 12``, stopping when -2 log L changed by at
most ``eps = 0.025``, step halving; R's ``fail`` when the first step worsens the likelihood,
the iterations run out or the information is singular), and the variance ``solvet`` gives.
"""

import math

import numpy as np

from ..._robject import RObject
from ...numerics import libm
from ...numerics.reductions import rmean, rsum
from .lrm_fit import LrmSingular, _ainvb, _lprob, _seqsum, solvet

__all__ = ["OffsetFit", "lrm_fit_offset"]


class OffsetFit(RObject):
    """``lrm.fit(offset = , y = )``: the fields of R's list the port computes, under their R
    names in R's order (``fit["coefficients"]``, ``fit.names()``; see
    :class:`calstats._robject.RObject`): ``fail`` (R's ``fail``: when true R returns nothing
    else), ``coefficients`` (the intercept, a float: Python attribute ``coefficient``),
    ``var`` (its variance, a float where R has a 1 x 1 matrix) and ``deviance`` (-2 log L of
    the null and the fitted model)."""

    _r_fields = ("fail", "coefficients", "var", "deviance")
    _aliases = {"coefficients": "coefficient"}
    # set by the constructor (declared for type checkers)
    fail: bool
    coefficient: float
    var: float
    deviance: np.ndarray


def _llogit_offset(beta, off, y):
    """Fortran ``LLOGIT`` for ``kint = 1`` and no covariate: -2 log L, score, information."""
    bx = 0.0 + beta * 1.0
    cp = _lprob(bx + off)
    one = y == 1
    if np.any(np.where(one, cp <= 0.0, cp >= 1.0)):
        return math.nan, 0.0, 0.0, True
    loglik = _seqsum(np.where(one, libm.log(cp), libm.log(1.0 - cp)) * 1.0)
    r = np.where(one, 1.0, 0.0) - cp
    u = _seqsum((r * 1.0) * 1.0)
    v = _seqsum(((cp * (1.0 - cp) * 1.0) * 1.0) * 1.0)
    return -2.0 * loglik, u, v, False


def lrm_fit_offset(offset, y, maxit=12, eps=0.025, tol=1e-7):
    """``rms::lrm.fit(offset = offset, y = y)`` for 0/1 ``y`` (both present).

    Returns
    -------
    OffsetFit
    """
    off = np.asarray(offset, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    sumwty = np.array([float(np.sum(y == 0)), float(np.sum(y == 1))])
    sumwt = rsum(sumwty)
    pp = sumwty[1] / sumwt
    beta = float(libm.log(pp / (1.0 - pp))) - rmean(off)
    llnull = -2.0 * rsum(sumwty * libm.log(sumwty / rsum(sumwty)))
    oldl = 1e30
    deltab = 0.0
    curstp = 1.0
    converged = False
    for it in range(1, maxit):
        loglik, u, v, dvrg = _llogit_offset(beta, off, y)
        if abs(u) < 1e-9 and abs(loglik - oldl) < 0.1 * eps:
            converged = True
            break
        if loglik > oldl or dvrg:
            if it == 1:
                return OffsetFit(fail=True, coefficient=math.nan, var=math.nan, deviance=np.array([llnull, loglik]))
            curstp = curstp / 2.0
            beta = beta - curstp * deltab
            continue
        curstp = 1.0
        d, rank, _, _ = _ainvb(np.array([v]), np.array([u]), tol)
        if rank < 1:
            return OffsetFit(fail=True, coefficient=math.nan, var=math.nan, deviance=np.array([llnull, loglik]))
        deltab = float(d[0])
        beta = beta + deltab
        if abs(oldl - loglik) <= eps:
            converged = True
            break
        oldl = loglik
    if not converged and maxit > 2:
        return OffsetFit(fail=True, coefficient=beta, var=math.nan, deviance=np.array([llnull, math.nan]))
    loglik, u, v, dvrg = _llogit_offset(beta, off, y)
    try:
        var = float(solvet(np.array([[v]]), tol)[0, 0])
    except LrmSingular:
        var = math.nan
    return OffsetFit(fail=bool(dvrg), coefficient=beta, var=var, deviance=np.array([llnull, loglik]))

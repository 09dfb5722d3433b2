"""``rms::fastbw`` (rms 6.5-0): fast backward step-down by Lawless and Singhal's
approximation, from a fit's coefficients and covariance matrix alone, as
``validate``/``calibrate(bw = TRUE)`` run it on the original fit and on every resample.

R's "slow but stable" method, statement by statement: at each step the Wald statistic
``b_q' solvet(V_qq, b_q)`` of every factor still in (its parameters ``q``), the factor with the
smallest criterion (``chisq - 2 df`` for ``rule = "aic"``, ``pchisq(chisq, df)`` for
``"p"``) is the candidate, the residual Wald statistic of all deleted parameters decides
whether it goes (``type = "residual"``: ``resid - 2 df <= aics`` or its p-value above
``sls``; ``"individual"``: the candidate's own criterion), and the kept coefficients and
covariance are updated as ``b_in - W b_out``, ``V_in,in - W V_in,out'`` with ``W = V_in,out
solvet(V_out,out)``. ``solvet`` is LINPACK's QR at tolerance ``eps`` and the products are the
reference BLAS's (:func:`calstats.numerics.reductions.matmul`).
"""

from typing import Any

import numpy as np

from ..._robject import RObject
from ...numerics.nmath import pchisq_upper
from ...numerics.reductions import matmul
from .lrm_fit import solvet

__all__ = ["fastbw", "FastBW"]


class FastBW(RObject):
    """``fastbw``'s result: the fields of R's list under their R names, in R's order
    (``bw["factors.deleted"]``, ``bw.names()``; see :class:`calstats._robject.RObject`).

    R's list (rms 6.5-0) is ``result, names.kept, factors.kept, factors.deleted, parms.kept,
    parms.deleted, coefficients, var, Coefficients, force``; the port keeps ``result`` to
    ``parms.kept``, ``coefficients`` and ``var``, with 0-based positions where R has 1-based.

    Attributes
    ----------
    result : list of tuple
        One row per deleted factor: ``(name, chisq, df, P, residual, residual df, residual P,
        AIC)`` (R's ``result`` matrix).
    names_kept : list of str
        R's ``names.kept``.
    factors_kept, factors_deleted : list of int
        0-based factor numbers.
    parms_kept : list of int
        0-based parameter positions kept (intercepts included).
    coefficients, var : ndarray or None
        The approximate estimates after deleting (None when every factor went).

    Not an R field: ``coef_names``, the names of the kept parameters.
    """

    _r_fields = ("result", "names.kept", "factors.kept", "factors.deleted", "parms.kept", "coefficients", "var")
    _extras: tuple[str, ...] = ("coef_names",)
    # set by the constructor (declared for type checkers)
    result: list
    names_kept: list
    factors_kept: list
    factors_deleted: list
    parms_kept: list
    coefficients: Any
    var: Any
    coef_names: list


def _pchisq(q, df):
    return 1.0 - pchisq_upper(q, df)


def _quad(b, V, eps):
    """``b %*% solvet(V, b, tol = eps)``: the reference dgemv dot product."""
    x = solvet(V, tol=eps, b=b)
    return float(matmul(np.asarray(b, dtype=np.float64)[None, :], x)[0])


def fastbw(coef, cov, ns, lengths, names, coef_names, rule="aic", type="residual", sls=0.05, aics=0.0,
           eps=1e-9, k_aic=2.0):
    """``rms::fastbw(fit, rule, type, sls, aics, eps, k.aic)`` without ``force``.

    Parameters
    ----------
    coef : ndarray (pt,)
        Intercepts then slopes.
    cov : ndarray (pt, pt)
        Their covariance (``vcov(fit, intercepts = "all")``).
    ns : int
        Number of intercepts.
    lengths : list of int
        Number of parameters of each factor (term), in the order of the coefficients.
    names : list of str
        rms' factor names (``Design$name``).
    coef_names : list of str
    """
    coef = np.asarray(coef, dtype=np.float64)
    Cov = np.asarray(cov, dtype=np.float64)
    pt = coef.size
    f = len(lengths)
    strt = [ns + sum(lengths[:j]) for j in range(f)]  # 0-based first parameter of each factor
    ed = [strt[j] + lengths[j] - 1 for j in range(f)]
    factors_in = list(range(f))
    parms_in = list(range(pt))
    beta = coef.copy()
    cov = Cov.copy()
    rows = []
    deleted = []
    for _ in range(f):
        ln = [lengths[j] for j in factors_in]
        st = [ns + sum(ln[:k]) for k in range(len(factors_in))]
        crit_min = 1e10
        chisq_crit_min = 1e10
        jmin = -1
        df_min = 0
        for k, j in enumerate(factors_in):
            q = list(range(st[k], st[k] + ln[k]))
            chisq = _quad(beta[q], cov[np.ix_(q, q)], eps)
            df = len(q)
            crit = chisq - k_aic * df if rule == "aic" else _pchisq(chisq, df)
            if crit < crit_min:
                jmin, crit_min, chisq_crit_min, df_min = j, crit, chisq, df
        factors_in = [j for j in factors_in if j != jmin]
        parms_in = [p for p in parms_in if p < strt[jmin] or p > ed[jmin]]
        out = [p for p in range(pt) if p not in set(parms_in)]
        resid = _quad(coef[out], Cov[np.ix_(out, out)], eps)
        resid_df = len(out)
        if type == "residual":
            delete = (resid - k_aic * resid_df <= aics) if rule == "aic" else (pchisq_upper(resid, resid_df) > sls)
        else:
            delete = (crit_min <= aics) if rule == "aic" else (1.0 - crit_min > sls)
        if not delete:
            break
        deleted.append(jmin)
        rows.append((names[jmin], chisq_crit_min, df_min, pchisq_upper(chisq_crit_min, df_min), resid, resid_df,
                     pchisq_upper(resid, resid_df), resid - k_aic * resid_df))
        if parms_in:
            inv = solvet(Cov[np.ix_(out, out)], tol=eps)
            cross = Cov[np.ix_(parms_in, out)]
            w = matmul(cross, inv)
            beta = coef[parms_in] - matmul(w, coef[out])
            cov = Cov[np.ix_(parms_in, parms_in)] - matmul(w, cross.T)
        else:
            beta = None
            cov = None
    kept = [j for j in range(f) if j not in deleted]
    pd_ = [p for j in deleted for p in range(strt[j], ed[j] + 1)]
    if len(pd_) == pt - ns:
        pk = list(range(ns))
    else:
        pk = [p for p in range(pt) if p not in set(pd_)]
    if not deleted:
        beta, cov = coef.copy(), Cov.copy()
    return FastBW(result=rows, names_kept=[names[j] for j in kept], factors_kept=kept, factors_deleted=deleted,
                  parms_kept=pk,
                  coefficients=None if beta is None or len(pd_) == pt - ns
                  else np.asarray(beta, dtype=np.float64).ravel(),
                  var=None if cov is None or len(pd_) == pt - ns else np.asarray(cov, dtype=np.float64),
                  coef_names=[coef_names[p] for p in pk])


"""Gray's test of equal cumulative incidence among groups: cmprsk's Fortran routines
``crstm`` and ``crst`` (cmprsk 2.2-11) and the statistic ``cuminc`` forms from them.

``crst`` walks the distinct times of one stratum (sorted increasingly); at each time with a
failure it updates, per group, the left-continuous Kaplan-Meier ``skmm`` and cumulative
incidence ``f1m`` of the cause, the score ``s`` of the first ``ng - 1`` groups and the
running sums ``c``, ``v2``, ``v3`` and ``v`` of the variance (Gray 1988, with the weight
``(1 - F(t-))^rho``). Here every running sum is a cumulative sum over the failure times in
the Fortran's order (the terms of one time in its loop order: the cause's block for each
group, then the other causes' block), which gives its bits; only the Kaplan-Meier product
``skm = skmm * (rs - d) / rs`` of each group is a scalar walk. ``crstm`` adds the strata's
scores and variances.

``cuminc`` then computes ``stat = s' V^-1 s`` with ``V^-1`` from ``qr.coef(qr(V),
diag(ng - 1))`` (LINPACK ``dqrdc2`` and ``dqrsl``, R's default ``qr``) and the two
products by the reference BLAS ``dgemv``; ``stat = -1`` when ``qr(V)`` is rank deficient.
The p-value is ``1 - pchisq(stat, ng - 1)``.
"""

import math
from typing import Any

import numpy as np

from ...numerics import libm
from ...numerics.linpack import dqrdc2, qr_coef
from ...numerics.passes import compiled_module, use_compiled

#: ``crst`` in calstats' C core (None without it: :func:`crst` here, the reference)
_core: Any = compiled_module("_core")

__all__ = ["crst", "crstm", "gray_statistic"]



def crst(y, m, ig, ng, rho=0.0):
    """The Fortran routine ``crst`` for one stratum: ``(s, v)`` with ``s`` the scores of
    groups 1..ng-1 and ``v`` the packed lower triangle of their covariance (row by row).

    ``y`` sorted times, ``m`` 0 censored / 1 the cause / 2 another cause, ``ig`` groups
    1..ng. ``m`` may be a matrix with a row per cause of interest (the same failures coded
    for each cause): then ``s`` and ``v`` have a row per cause, computed at once."""
    y = np.asarray(y, dtype=np.float64)
    m = np.asarray(m, dtype=np.int64)
    one_cause = m.ndim == 1
    m = np.atleast_2d(m)
    C = m.shape[0]
    ig = np.asarray(ig, dtype=np.int64) - 1
    n = y.size
    ng1 = ng - 1
    nv = ng * ng1 // 2
    s, v = np.zeros((C, ng1)), np.zeros((C, nv))
    first = np.concatenate(([True], y[1:] != y[:-1])) if n else np.zeros(0, dtype=bool)
    block = np.cumsum(first) - 1
    nb = int(block[-1]) + 1 if n else 0
    # d[cause, k, j, b]: the number censored (k = 0), failing from the cause (1) and from
    # another cause (2) in group j at time b
    d = np.stack([np.bincount((row * ng + ig) * nb + block, minlength=3 * ng * nb).reshape(3, ng, nb)
                  for row in m])
    # rs[j, b]: the risk set of group j at time b (the same for every cause)
    size = d[0].sum(axis=0)
    rs_all = size.sum(axis=1)[:, None] - np.concatenate((np.zeros((ng, 1), dtype=np.int64),
                                                         np.cumsum(size, axis=1)[:, :-1]), axis=1)
    nd1_all = d[:, 1].sum(axis=1)
    nd2_all = d[:, 2].sum(axis=1)
    ev = np.flatnonzero(((nd1_all != 0) | (nd2_all != 0))[0])
    E = ev.size
    if n == 0 or E == 0:
        return (s[0], v[0]) if one_cause else (s, v)
    rs = rs_all[:, ev]  # ng x E (integers)
    d1 = d[:, 1][:, :, ev]  # C x ng x E
    d2 = d[:, 2][:, :, ev]
    nd1 = nd1_all[:, ev][:, None, :]  # C x 1 x E
    nd2 = nd2_all[:, ev][:, None, :]
    at_risk = rs > 0
    rsf = rs.astype(np.float64)
    # the Kaplan-Meier walk of each group: skmm before each failure time, skm after it
    skmm, skm = _km_walk(rsf, (d1[0] + d2[0]).astype(np.float64), at_risk)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # the cumulative incidence of the cause in each group (f1m before, f1 after a time)
        f1 = np.cumsum(np.where(at_risk, skmm * d1 / rsf, 0.0), axis=2)
        f1m = np.concatenate((np.zeros((C, ng, 1)), f1[:, :, :-1]), axis=2)
        # tr and tq: sums over the groups at risk, in the groups' order
        tr = np.zeros(E)
        tq = np.zeros((C, E))
        for i in range(ng):
            tr = tr + np.where(at_risk[i], rsf[i] / skmm[i], 0.0)
            tq = tq + np.where(at_risk[i], rsf[i] * (1 - f1m[:, i]) / skmm[i], 0.0)
        # the pooled cumulative incidence F (fm before, f after a time)
        f = np.cumsum(nd1[:, 0] / tr, axis=1)
        fm = np.concatenate((np.zeros((C, 1)), f[:, :-1]), axis=1)
        fb = libm.pow(1 - fm, float(rho))  # Fortran's x**rho: the C library's pow
        # a (symmetric: the Fortran fills i <= j and copies) and its running sum c, each
        # [cause, i, j, time]
        t1 = rsf / skmm
        upper = np.triu(np.ones((ng, ng), dtype=bool))[:, :, None]
        diag = np.eye(ng, dtype=bool)[:, :, None]
        both = at_risk[:, None, :] & at_risk[None, :, :]
        fb4 = fb[:, None, None, :]
        off = -(fb4 * t1[:, None, :] * rsf[None, :, :] / (skmm[None, :, :] * tr))
        on = fb[:, None, :] * t1 * (1 - t1 / tr)
        a = np.where(both, np.where(diag, on[:, :, None, :], off), 0.0)
        a = np.where(upper, a, a.transpose(0, 2, 1, 3))
        scale = (tr * (1 - fm))[:, None, None, :]
        c = np.cumsum(np.where(both, a * nd1[:, :, None, :] / scale, 0.0), axis=3)
        c = np.where(upper, c, c.transpose(0, 2, 1, 3))
        # the scores of groups 1..ng-1
        term = fb[:, None, :] * (d1 - (nd1 * rs).astype(np.float64) * (1 - f1m) / (skmm * tq[:, None, :]))
        s = _sums(np.where(at_risk, term, 0.0), 2)[:, :ng1]
        # the cause's block (nd1 > 0, group k at risk) and the other causes' block
        # (nd2 > 0, skm > 0, d2 > 0) of each time, each [cause, k, time]
        f3 = f[:, None, :]
        one = (nd1 > 0) & at_risk
        t4a = np.where(skm > 0, 1 - (1 - f3) / skm, 1.0)
        t5a = np.where(nd1 > 1, 1 - (nd1 - 1) / (tr * skmm - 1), 1.0)
        t3a = t5a * skmm * nd1 / (tr * rsf)
        two = (nd2 > 0) & (skm > 0) & (d2 > 0)
        t4b = (1 - f3) / skm
        t5b = np.where(d2 > 1, 1 - (d2 - 1.0) / (rsf - 1.0), 1.0)
        t3b = t5b * ((skmm * skmm) * d2) / (rs * rs).astype(np.float64)
        # v3[k] and v2[i, k]: per time the cause's term, then the other causes'
        v3 = _sums(np.stack((np.where(one, t4a * t4a * t3a, 0.0), np.where(two, t4b * t4b * t3b, 0.0)), axis=-1),
                   2)
        t1a = a[:, :ng1] - t4a[:, None] * c[:, :ng1]  # [cause, i, k, time]
        t1b = t4b[:, None] * c[:, :ng1]
        v2 = _sums(np.stack((np.where(one[:, None], t1a * t4a[:, None] * t3a[:, None], 0.0),
                             np.where(two[:, None], -(t1b * t4b[:, None] * t3b[:, None]), 0.0)), axis=-1), 3)
        # v[l] for l = (i, j <= i): per time the cause's block for k = 1..ng, then the other's
        I, J = np.tril_indices(ng1)
        first_block = np.where(one[:, None], t1a[:, I] * t1a[:, J] * t3a[:, None], 0.0)  # [cause, l, k, time]
        second_block = np.where(two[:, None], t1b[:, I] * t1b[:, J] * t3b[:, None], 0.0)
        v = _sums(np.stack((first_block, second_block), axis=2).transpose(0, 1, 4, 2, 3), 2)  # [., l, time, block, k]
        cf = c[:, :, :, -1]
        for q in range(C):
            for l, (i, j) in enumerate(zip(I.tolist(), J.tolist())):
                total = float(v[q, l])
                for k in range(ng):
                    total = total + cf[q, i, k] * cf[q, j, k] * v3[q, k]
                    total = total + cf[q, i, k] * v2[q, j, k]
                    total = total + cf[q, j, k] * v2[q, i, k]
                v[q, l] = total
    return (s[0], v[0]) if one_cause else (s, v)


def _sums(terms, lead=1):
    """The Fortran's running sums from 0, one per index of the first ``lead`` axes of
    ``terms``, over the other axes in C order (a cumulative sum: its order)."""
    lead = terms.shape[:lead]
    flat = np.ascontiguousarray(terms).reshape(*lead, -1)
    zeros = np.zeros((*lead, 1))
    return np.cumsum(np.concatenate((zeros, flat), axis=-1), axis=-1)[..., -1]


def _km_walk(rsf, td, at_risk):
    """Each group's ``skm = skmm * (rs - td) / rs`` at the failure times where it has a
    risk set (a risk set, once empty, stays empty): ``(skmm, skm)``, before and after."""
    ng, E = rsf.shape
    skmm = np.ones((ng, E))
    skm = np.ones((ng, E))
    for i in range(ng):
        k = int(at_risk[i].sum())
        before, s_now = [], 1.0
        for r, t in zip(rsf[i, :k].tolist(), td[i, :k].tolist()):
            before.append(s_now)
            s_now = s_now * (r - t) / r
        before.append(s_now)
        skmm[i, :k] = before[:-1]
        skm[i, :k] = before[1:]
        skmm[i, k:] = s_now
        skm[i, k:] = s_now
    return skmm, skm


def _crst_c(y, m, ig, ng, rho):
    """:func:`crst` in calstats' C core (the Fortran's statements), one cause per row of
    ``m``: the same bits."""
    ng1 = ng - 1
    s = np.empty((m.shape[0], ng1))
    v = np.empty((m.shape[0], ng * ng1 // 2))
    for q in range(m.shape[0]):
        _core.cmprsk_crst(y, np.ascontiguousarray(m[q]), ig, ng, float(rho), s[q], v[q])
    return s, v


def crstm(y, m, ig, ist, ng, nst, rho=0.0, backend=None):
    """The Fortran routine ``crstm``: ``(s, vs)``, the scores of groups 1..ng-1 summed over
    the strata 1..nst and their (ng-1) x (ng-1) covariance matrix. ``y`` sorted times,
    ``m`` 0/1/2 (censored, the cause, another cause), ``ig`` groups and ``ist`` strata
    (1-based). With ``m`` a matrix (a row per cause of interest, as :func:`crst`), ``s`` and
    ``vs`` have a leading axis per cause. ``backend``: ``"c"`` (``crst``'s statements in
    calstats' C core; the default when it is built) or ``"numpy"`` (:func:`crst`, the
    reference); the same bits."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    m = np.asarray(m, dtype=np.int64)
    one_cause = m.ndim == 1
    m = np.atleast_2d(m)
    C = m.shape[0]
    ist = np.asarray(ist, dtype=np.int64)
    ig = np.asarray(ig)
    ng1 = ng - 1
    s = np.zeros((C, ng1))
    v = np.zeros((C, ng * ng1 // 2))
    compiled = use_compiled(_core, backend) and ng >= 2
    for ks in range(1, nst + 1):
        rows = ist == ks
        if compiled:
            st, vt = _crst_c(y[rows], m[:, rows], np.ascontiguousarray(ig[rows], dtype=np.int64), ng, rho)
        else:
            st, vt = crst(y[rows], m[:, rows], ig[rows], ng, rho)
        s = s + st
        v = v + vt
    vs = np.empty((C, ng1, ng1))
    r, c = np.tril_indices(ng1)  # the packed lower triangle, row by row
    vs[:, r, c] = v
    vs[:, c, r] = v
    return (s[0], vs[0]) if one_cause else (s, vs)


def _qr_inverse(vs):
    """``qr.coef(qr(vs), diag(p))`` (LINPACK ``dqrdc2`` with R's tolerance 1e-07, then
    ``dqrcf``: ``dqrsl``'s ``Q'y`` and back substitution for each column of the identity),
    or None when ``qr(vs)`` is rank deficient."""
    p = vs.shape[0]
    qr, rank, qraux, _ = dqrdc2(vs, 1e-07)
    if rank != p:
        return None
    return qr_coef(qr, qraux, rank, np.eye(p))


def gray_statistic(s, vs):
    """``s %*% qr.coef(qr(vs), diag(ng - 1)) %*% s`` as R computes it (the products by the
    reference ``dgemv``: each entry a sequential sum from 0), -1 when ``qr(vs)`` is rank
    deficient (``cuminc``'s value), NaN when ``vs`` is not finite (where R's ``qr`` stops)."""
    vs = np.asarray(vs, dtype=np.float64)
    if not np.isfinite(vs).all():
        return math.nan  # R: qr() stops ("NA/NaN/Inf in foreign function call")
    inv = _qr_inverse(vs)
    if inv is None:
        return -1.0
    p = inv.shape[0]
    r = [float(np.cumsum(np.concatenate(([0.0], inv[:, j] * s)))[-1]) for j in range(p)]
    total = 0.0
    for j in range(p):
        total = total + s[j] * r[j]
    return total

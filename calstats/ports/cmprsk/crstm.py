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

import numpy as np

from ...numerics.linpack import dqrdc2, dqrsl_qty_b

__all__ = ["crst", "crstm", "gray_statistic"]


def _pow(x, rho):
    """Fortran's ``x**rho`` for a double ``rho``: the C library's ``pow``."""
    if rho == 0.0:
        return np.ones_like(x)
    out = np.empty_like(x)
    for i, v in enumerate(x.tolist()):
        try:
            out[i] = math.pow(v, rho)
        except (ValueError, OverflowError):
            out[i] = math.nan if v < 0 else math.inf
    return out


def crst(y, m, ig, ng, rho=0.0):
    """The Fortran routine ``crst`` for one stratum: ``(s, v)`` with ``s`` the scores of
    groups 1..ng-1 and ``v`` the packed lower triangle of their covariance (row by row).

    ``y`` sorted times, ``m`` 0 censored / 1 the cause / 2 another cause, ``ig`` groups
    1..ng."""
    y = np.asarray(y, dtype=np.float64)
    m = np.asarray(m, dtype=np.int64)
    ig = np.asarray(ig, dtype=np.int64) - 1
    n = y.size
    ng1 = ng - 1
    nv = ng * ng1 // 2
    if n == 0:
        return np.zeros(ng1), np.zeros(nv)
    first = np.concatenate(([True], y[1:] != y[:-1]))
    block = np.cumsum(first) - 1
    nb = int(block[-1]) + 1
    # d[k, j, b]: the number censored (k = 0), failing from the cause (1) and from another
    # cause (2) in group j at time b
    d = np.bincount((m * ng + ig) * nb + block, minlength=3 * ng * nb).reshape(3, ng, nb)
    # rs[j, b]: the risk set of group j at time b
    size = d.sum(axis=0)
    rs_all = size.sum(axis=1)[:, None] - np.concatenate((np.zeros((ng, 1), dtype=np.int64),
                                                         np.cumsum(size, axis=1)[:, :-1]), axis=1)
    nd1_all = d[1].sum(axis=0)
    nd2_all = d[2].sum(axis=0)
    ev = np.flatnonzero((nd1_all != 0) | (nd2_all != 0))
    E = ev.size
    if E == 0:
        return np.zeros(ng1), np.zeros(nv)
    rs = rs_all[:, ev]  # ng x E (integers)
    d1 = d[1][:, ev]
    d2 = d[2][:, ev]
    nd1 = nd1_all[ev]
    nd2 = nd2_all[ev]
    at_risk = rs > 0
    rsf = rs.astype(np.float64)
    # the Kaplan-Meier walk of each group: skmm before each failure time, skm after it
    td = (d1 + d2).astype(np.float64)
    skmm = np.empty((ng, E))
    skm = np.empty((ng, E))
    for i in range(ng):
        s_now = 1.0
        before, after = [], []
        for r, t, ok in zip(rsf[i].tolist(), td[i].tolist(), at_risk[i].tolist()):
            before.append(s_now)
            if ok:
                s_now = s_now * (r - t) / r
            after.append(s_now)
        skmm[i] = before
        skm[i] = after
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # the cumulative incidence of the cause in each group (f1m before, f1 after a time)
        f1 = np.cumsum(np.where(at_risk, skmm * d1 / rsf, 0.0), axis=1)
        f1m = np.concatenate((np.zeros((ng, 1)), f1[:, :-1]), axis=1)
        # tr and tq: sums over the groups at risk, in the groups' order
        tr = np.zeros(E)
        tq = np.zeros(E)
        for i in range(ng):
            tr = tr + np.where(at_risk[i], rsf[i] / skmm[i], 0.0)
            tq = tq + np.where(at_risk[i], rsf[i] * (1 - f1m[i]) / skmm[i], 0.0)
        # the pooled cumulative incidence F (fm before, f after a time)
        f = np.cumsum(nd1 / tr)
        fm = np.concatenate(([0.0], f[:-1]))
        fb = _pow(1 - fm, float(rho))
        # a (symmetric: the Fortran fills i <= j and copies) and its running sum c
        t1 = rsf / skmm
        upper = np.triu(np.ones((ng, ng), dtype=bool))[:, :, None]
        diag = np.eye(ng, dtype=bool)[:, :, None]
        both = at_risk[:, None, :] & at_risk[None, :, :]
        off = -(fb * t1[:, None, :] * rsf[None, :, :] / (skmm[None, :, :] * tr))
        on = fb * t1 * (1 - t1 / tr)
        a = np.where(both, np.where(diag, on[:, None, :], off), 0.0)
        a = np.where(upper, a, a.transpose(1, 0, 2))
        c = np.cumsum(np.where(both, a * nd1 / (tr * (1 - fm)), 0.0), axis=2)
        c = np.where(upper, c, c.transpose(1, 0, 2))
        # the scores of groups 1..ng-1
        term = fb * (d1 - (nd1 * rs).astype(np.float64) * (1 - f1m) / (skmm * tq))
        s = _sums(np.where(at_risk, term, 0.0))[:ng1]
        # the cause's block (nd1 > 0, group k at risk) and the other causes' block
        # (nd2 > 0, skm > 0, d2 > 0) of each time
        one = (nd1 > 0)[None, :] & at_risk
        t4a = np.where(skm > 0, 1 - (1 - f) / skm, 1.0)
        t5a = np.where(nd1 > 1, 1 - (nd1 - 1) / (tr * skmm - 1), 1.0)
        t3a = t5a * skmm * nd1 / (tr * rsf)
        two = (nd2 > 0)[None, :] & (skm > 0) & (d2 > 0)
        t4b = (1 - f) / skm
        t5b = np.where(d2 > 1, 1 - (d2 - 1.0) / (rsf - 1.0), 1.0)
        t3b = t5b * ((skmm * skmm) * d2) / (rs * rs).astype(np.float64)
        # v3[k] and v2[i, k]: per time the cause's term, then the other causes'
        v3 = _sums(np.stack((np.where(one, t4a * t4a * t3a, 0.0), np.where(two, t4b * t4b * t3b, 0.0)), axis=-1))
        t1a = a[:ng1] - t4a * c[:ng1]  # [i, k, time]
        t1b = t4b * c[:ng1]
        v2 = _sums(np.stack((np.where(one, t1a * t4a * t3a, 0.0), np.where(two, -(t1b * t4b * t3b), 0.0)), axis=-1), 2)
        # v[l] for l = (i, j <= i): per time the cause's block for k = 1..ng, then the other's
        I, J = np.tril_indices(ng1)
        first = np.where(one, t1a[I] * t1a[J] * t3a, 0.0)  # [l, k, time]
        second = np.where(two, t1b[I] * t1b[J] * t3b, 0.0)
        v = _sums(np.stack((first, second), axis=1).transpose(0, 3, 1, 2))  # [l, time, block, k]
        cf = c[:, :, -1]
        for l, (i, j) in enumerate(zip(I.tolist(), J.tolist())):
            total = float(v[l])
            for k in range(ng):
                total = total + cf[i, k] * cf[j, k] * v3[k]
                total = total + cf[i, k] * v2[j, k]
                total = total + cf[j, k] * v2[i, k]
            v[l] = total
    return s, v


def _sums(terms, lead=1):
    """The Fortran's running sums from 0, one per index of the first ``lead`` axes of
    ``terms``, over the other axes in C order (a cumulative sum: its order)."""
    lead = terms.shape[:lead]
    flat = np.ascontiguousarray(terms).reshape(*lead, -1)
    zeros = np.zeros((*lead, 1))
    return np.cumsum(np.concatenate((zeros, flat), axis=-1), axis=-1)[..., -1]


def crstm(y, m, ig, ist, ng, nst, rho=0.0):
    """The Fortran routine ``crstm``: ``(s, vs)``, the scores of groups 1..ng-1 summed over
    the strata 1..nst and their (ng-1) x (ng-1) covariance matrix. ``y`` sorted times,
    ``m`` 0/1/2 (censored, the cause, another cause), ``ig`` groups and ``ist`` strata
    (1-based)."""
    y = np.asarray(y, dtype=np.float64)
    ist = np.asarray(ist, dtype=np.int64)
    ng1 = ng - 1
    s = np.zeros(ng1)
    v = np.zeros(ng * ng1 // 2)
    for ks in range(1, nst + 1):
        rows = ist == ks
        st, vt = crst(y[rows], np.asarray(m)[rows], np.asarray(ig)[rows], ng, rho)
        s = s + st
        v = v + vt
    vs = np.empty((ng1, ng1))
    l = 0
    for i in range(ng1):
        for j in range(i + 1):
            vs[i, j] = vs[j, i] = v[l]
            l += 1
    return s, vs


def _qr_inverse(vs):
    """``qr.coef(qr(vs), diag(p))`` (LINPACK ``dqrdc2`` with R's tolerance 1e-07, then
    ``dqrcf``: ``dqrsl``'s ``Q'y`` and back substitution for each column of the identity),
    or None when ``qr(vs)`` is rank deficient."""
    p = vs.shape[0]
    qr, rank, qraux, _ = dqrdc2(vs, 1e-07)
    if rank != p:
        return None
    eye = np.eye(p)
    return np.column_stack([dqrsl_qty_b(qr, rank, qraux, eye[:, j])[0] for j in range(p)])


def gray_statistic(s, vs):
    """``s %*% qr.coef(qr(vs), diag(ng - 1)) %*% s`` as R computes it (the products by the
    reference ``dgemv``: each entry a sequential sum from 0), or -1 when ``qr(vs)`` is rank
    deficient (``cuminc``'s value)."""
    inv = _qr_inverse(np.asarray(vs, dtype=np.float64))
    if inv is None:
        return -1.0
    p = inv.shape[0]
    r = [float(np.cumsum(np.concatenate(([0.0], inv[:, j] * s)))[-1]) for j in range(p)]
    total = 0.0
    for j in range(p):
        total = total + s[j] * r[j]
    return total

"""cmprsk's ``cuminc`` and ``timepoints`` (cmprsk 2.2-11).

``cuminc(ftime, fstatus, cencode = 0)`` sorts the rows by time (R's stable ``order``) and,
for each cause in increasing order of its code, runs the Fortran routine ``cinc``: the
Aalen-Johansen cumulative incidence ``F(t) = F(t-) + S(t-) d_cause / n`` and its variance
(Gray's delta-method formula with its tie correction ``1 - (d - 1) / (n - 1)``), stored as
the corners of a step function (``x`` starts at 0, two points per event time of the
cause, and the last point at the largest follow-up time). ``timepoints`` reads the step
function at given times with the Fortran routine ``tpoi`` (NA before 0 and beyond the
largest follow-up time). The arithmetic is the Fortran's, in its order.
"""

from typing import Any

import numpy as np

from ..._robject import RObject
from ...numerics.nmath import pchisq_upper
from ...numerics.passes import compiled_module, use_compiled

#: cmprsk's Fortran cinc and crst in calstats' C core (None without it: the NumPy ports
#: here and in :mod:`.crstm`, the reference, give the same bits)
_core: Any = compiled_module("_core")

__all__ = ["CumincCurve", "cinc", "cinc_many", "cuminc_curves", "cuminc_groups", "tpoi", "timepoints",
           "timepoints_at"]


class CumincCurve(RObject):
    """One curve of a ``cuminc`` object, R's list with components ``time``, ``est`` and
    ``var`` (``curve["est"]``, ``curve.names()``; see :class:`calstats._robject.RObject`):
    the corners of the step function (``time`` starts at 0), the cumulative incidence and
    its variance at each."""

    _r_fields = ("time", "est", "var")
    # set by the constructor (declared for type checkers)
    time: np.ndarray
    est: np.ndarray
    var: np.ndarray

    def __repr__(self):
        return f"CumincCurve(points={self.time.size}, est at the last time={float(self.est[-1])!r})"


def _compiled(backend):
    """Whether to run the C core (``backend`` None: when it is built; ``"c"``, ``"numpy"``)."""
    return use_compiled(_core, backend)


def cinc(y, ic, icc, backend=None) -> CumincCurve:
    """The Fortran routine ``cinc`` for sorted times ``y``, ``ic`` 1 for a failure of any
    cause and ``icc`` 1 for a failure of the cause of interest (see :func:`cinc_many`)."""
    return cinc_many(y, ic, np.asarray(icc)[None, :], backend=backend)[0]


def _cinc_c(y, ic, icc):
    """The Fortran ``cinc`` of one cause in the C core (statement by statement)."""
    n = y.size
    x, f, v = np.empty(2 * n + 2), np.empty(2 * n + 2), np.empty(2 * n + 2)
    k = _core.cmprsk_cinc(y, ic, np.ascontiguousarray(icc, dtype=np.int64), x, f, v)
    return CumincCurve(time=x[:k].copy(), est=f[:k].copy(), var=v[:k].copy())


def cinc_many(y, ic, iccs, backend=None) -> list[CumincCurve]:
    """The Fortran routine ``cinc`` for several causes of the same sorted times ``y`` and
    failures ``ic`` at once: one curve per row of ``iccs`` (1 for a failure of that cause).

    ``backend`` (where the arithmetic runs): ``"c"`` (the Fortran's statements in calstats'
    C core, one cause at a time; the default when it is built) or ``"numpy"`` (the
    reference below); the same bits.

    The Fortran walks the distinct times; here the event-free survival ``fk`` is that walk
    (a running ``fk * (rs - nd) / rs``, the same for every cause) over the times with a
    failure, and the cumulative incidence and the variance's three running sums (``v1``,
    ``v2``, ``v3``: the other causes' term, then the cause's, at each time) are cumulative
    sums in the Fortran's order, which are its bits."""
    n = y.size
    y = np.ascontiguousarray(y, dtype=np.float64)
    iccs = np.asarray(iccs, dtype=np.int64)
    if _compiled(backend) and n:
        ic = np.ascontiguousarray(ic, dtype=np.int64)
        return [_cinc_c(y, ic, row) for row in iccs]
    first = np.concatenate(([True], y[1:] != y[:-1]))
    starts = np.flatnonzero(first)
    nd = np.add.reduceat(np.asarray(ic, dtype=np.int64), starts)
    ev = np.flatnonzero(nd != 0)
    nd1 = np.add.reduceat(iccs, starts, axis=1)[:, ev]  # causes x failure times
    rs = (n - starts).astype(np.float64)
    ends = np.concatenate((starts[1:], [n])) - 1
    # the survival before and after each time with a failure (the Fortran's scalar walk)
    fk_list = []
    fk = 1.0
    for r, d in zip(rs[ev].tolist(), nd[ev].tolist()):
        fk_list.append(fk)
        fk = fk * (r - d) / r
    fk_before = np.array(fk_list)
    fk_after = np.concatenate((fk_before[1:], [fk])) if ev.size else fk_before
    r, d1 = rs[ev], nd1
    d2 = nd[ev] - d1
    has1 = d1 > 0
    # the cumulative incidence after each time (adds fk * nd1 / rs where the cause fails)
    F = np.cumsum(np.where(has1, fk_before * d1 / r, 0.0), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the other causes' term: when nd2 > 0 and fkn > 0
        other = (d2 > 0) & (fk_after > 0)
        t5 = np.where(d2 > 1, 1 - (d2 - 1.0) / (r - 1.0), 1.0)
        t6 = fk_before * fk_before * t5 * d2 / (r * r)
        t3 = 1.0 / fk_after
        t4 = F / fk_after
        a1 = np.where(other, t4 * t4 * t6, 0.0)
        a2 = np.where(other, t3 * t4 * t6, 0.0)
        a3 = np.where(other, t3 * t3 * t6, 0.0)
        # the cause's term: when nd1 > 0
        t5 = np.where(d1 > 1, 1 - (d1 - 1.0) / (r - 1.0), 1.0)
        t6 = fk_before * fk_before * t5 * d1 / (r * r)
        t3 = np.where(fk_after > 0, 1 / fk_after, 0.0)
        t4 = 1 + t3 * F
        b1 = np.where(has1, t4 * t4 * t6, 0.0)
        b2 = np.where(has1, t3 * t4 * t6, 0.0)
        b3 = np.where(has1, t3 * t3 * t6, 0.0)
    # the running sums, the other causes' term before the cause's at each time (adding 0.0
    # where a term is absent leaves the non-negative sums unchanged)
    k = iccs.shape[0]
    v1 = np.cumsum(np.stack((a1, b1), axis=-1).reshape(k, -1), axis=1)[:, 1::2]
    v2 = np.cumsum(np.stack((a2, b2), axis=-1).reshape(k, -1), axis=1)[:, 1::2]
    v3 = np.cumsum(np.stack((a3, b3), axis=-1).reshape(k, -1), axis=1)[:, 1::2]
    out = []
    for j in range(k):
        h = has1[j]
        t2 = F[j, h]
        vk = v1[j, h] + t2 * t2 * v3[j, h] - 2 * t2 * v2[j, h]
        m = t2.size
        size = 2 * m + 2
        x = np.zeros(size)
        f = np.zeros(size)
        v = np.zeros(size)
        xt = y[ends[ev[h]]]
        x[1:size - 1:2] = xt
        x[2:size - 1:2] = xt
        f[2:size - 1:2] = t2
        f[3:size - 1:2] = t2[:-1]
        v[2:size - 1:2] = vk
        v[3:size - 1:2] = vk[:-1]
        x[size - 1] = y[n - 1]
        f[size - 1] = f[size - 2]
        v[size - 1] = v[size - 2]
        out.append(CumincCurve(time=x, est=f, var=v))
    return out


def cuminc_curves(ftime, fstatus, cencode=0, backend=None):
    """``cuminc(ftime, fstatus, cencode = cencode)`` without groups: ``{cause: curve}`` for
    each cause code present, in increasing order (R names them ``"1 <cause>"``)."""
    ftime = np.asarray(ftime, dtype=np.float64)
    fstatus = np.asarray(fstatus)
    order = np.argsort(ftime, kind="stable")
    t = ftime[order]
    st = fstatus[order]
    censind = np.where(st == cencode, 0, 1)
    causes = np.unique(st[censind == 1])
    if not causes.size:
        return {}
    curves = cinc_many(t, censind, (st[None, :] == causes[:, None]).astype(np.int64), backend=backend)
    return {c.item(): curve for c, curve in zip(causes, curves)}


def cuminc_groups(ftime, fstatus, group, ng, strata, nst, rho=0.0, cencode=0, backend=None):
    """``cuminc(ftime, fstatus, group, strata, rho, cencode)``: ``(curves, tests)``.

    ``group`` and ``strata`` are codes 1..ng and 1..nst (R's ``as.integer`` of the
    factors). ``curves`` lists ``(cause, group code, curve)`` in R's order (every group of
    the first cause, then of the next); ``tests`` maps each cause to Gray's ``(stat, pv,
    df)`` (``crstm`` and ``cuminc``'s quadratic form; ``{}`` with one group)."""
    from .crstm import crstm, gray_statistic

    ftime = np.asarray(ftime, dtype=np.float64)
    fstatus = np.asarray(fstatus)
    order = np.argsort(ftime, kind="stable")  # d[order(d$time), ]
    t = ftime[order]
    st = fstatus[order]
    g = np.asarray(group, dtype=np.int64)[order]
    ss = np.asarray(strata, dtype=np.int64)[order]
    censind = np.where(st == cencode, 0, 1)
    causes = np.unique(st[censind == 1])
    curves, tests = [], {}
    indicators = (st[None, :] == causes[:, None]).astype(np.int64)  # cause x row
    by_group = []
    for j in range(1, ng + 1):
        rows = g == j
        by_group.append(cinc_many(t[rows], censind[rows], indicators[:, rows], backend=backend))
    for i, c in enumerate(causes):
        for j in range(ng):
            curves.append((c.item(), j + 1, by_group[j][i]))
    if ng > 1 and causes.size:
        s, vs = crstm(t, 2 * censind[None, :] - indicators, g, ss, ng, nst, rho, backend=backend)
        for i, c in enumerate(causes):
            stat = gray_statistic(s[i], vs[i])
            tests[c.item()] = (stat, pchisq_upper(stat, ng - 1), float(ng - 1))
    return curves, tests


def tpoi(x, tp):
    """The Fortran routine ``tpoi``: the 1-based index into the curve's corners read at each
    (sorted, distinct) time of ``tp``; 0 where there is none (NA). The Fortran scans the
    corners down from the last; the index it stops at is ``k + 1`` for the last ``k`` in
    1..n-1 with ``x[k] <= tp`` (1-based), ``n`` at the last corner's time and 0 beyond it
    or before the first corner."""
    x = np.asarray(x, dtype=np.float64)
    tp = np.asarray(tp, dtype=np.float64)
    n = x.size
    count = np.searchsorted(x[:n - 1], tp, side="right")
    ind = np.where(count >= 1, count + 1, 0)
    ind = np.where(tp == x[n - 1], n, ind)
    return np.where(tp > x[n - 1], 0, ind).astype(np.int64)


def timepoints(curve: CumincCurve, times):
    """``timepoints(w, times)`` for one curve: ``(times, est, var)`` at ``sort(unique(times))``,
    NaN where R gives NA."""
    tp = np.unique(np.asarray(times, dtype=np.float64))
    est, var = timepoints_at(curve, tp)
    return tp, est, var


def timepoints_at(curve: CumincCurve, tp):
    """:func:`timepoints` at times ``tp`` already sorted and distinct: ``(est, var)``."""
    ind = tpoi(curve.time, tp)
    at = np.maximum(ind, 1) - 1
    missing = ind == 0
    est = curve.est[at]
    var = curve.var[at]
    est[missing] = np.nan
    var[missing] = np.nan
    return est, var


def r_pretty(lo, up, n=5):
    """R's ``pretty(c(lo, up), n)`` (R 4.2: ``R_pretty`` with its defaults ``min.n = n %/% 3``,
    ``shrink.sml = 0.75``, ``high.u.bias = 1.5``, ``u5.bias = 2.75``)."""
    import math

    h, h5 = 1.5, 0.5 + 1.5 * 1.5
    eps = 2.220446049250313e-16
    rounding_eps = 1e-10
    min_n = n // 3
    dx = up - lo
    if dx == 0 and up == 0:
        cell, small = 1.0, True
    else:
        cell = max(abs(lo), abs(up))
        U = 1 + (1 / (1 + h) if h5 >= 1.5 * h + 0.5 else 1.5 / (1 + h5))
        U *= max(1, n) * eps
        small = dx < cell * U * 3
    if small:
        if cell > 10:
            cell = 9 + cell / 10
        cell *= 0.75
        if min_n > 1:
            cell /= min_n
    else:
        cell = dx
        if n > 1:
            cell /= n
    base = 10.0 ** math.floor(math.log10(cell))
    unit = base
    ns = 2 * base
    if ns - cell < h * (cell - unit):
        unit = ns
        ns = 5 * base
        if ns - cell < h5 * (cell - unit):
            unit = ns
            ns = 10 * base
            if ns - cell < h * (cell - unit):
                unit = ns
    ns = math.floor(lo / unit + rounding_eps)
    nu = math.ceil(up / unit - rounding_eps)
    while ns * unit > lo + rounding_eps * unit:
        ns -= 1
    while nu * unit < up - rounding_eps * unit:
        nu += 1
    k = int(0.5 + nu - ns)
    if k < min_n:
        k = min_n - k
        if ns >= 0:
            nu += k // 2
            ns -= k // 2 + k % 2
        else:
            ns -= k // 2
            nu += k // 2 + k % 2
        ndiv = min_n
    else:
        ndiv = k
    lo2, up2 = ns * unit, nu * unit
    if ndiv == 0:
        return np.array([lo2])
    s = lo2 + np.arange(ndiv + 1) * ((up2 - lo2) / ndiv)
    s[-1] = up2
    delta = (up2 - lo2) / ndiv
    s[np.abs(s) < 1e-14 * delta] = 0.0
    return s

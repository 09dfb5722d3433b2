"""cmprsk's ``cuminc`` and ``timepoints`` (cmprsk 2.2-11) without groups.

``cuminc(ftime, fstatus, cencode = 0)`` sorts the rows by time (R's stable ``order``) and,
for each cause in increasing order of its code, runs the Fortran routine ``cinc``: the
Aalen-Johansen cumulative incidence ``F(t) = F(t-) + S(t-) d_cause / n`` and its variance
(Gray's delta-method formula with its tie correction ``1 - (d - 1) / (n - 1)``), stored as
the corners of a step function (``x`` starts at 0, two points per event time of the
cause, and the last point at the largest follow-up time). ``timepoints`` reads the step
function at given times with the Fortran routine ``tpoi`` (NA before 0 and beyond the
largest follow-up time). The arithmetic is the Fortran's, in its order.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["CumincCurve", "cinc", "cuminc_curves", "tpoi", "timepoints"]


class CumincCurve(NamedTuple):
    """One curve of a ``cuminc`` object: ``time``, ``est``, ``var`` (R's list elements)."""

    time: np.ndarray
    est: np.ndarray
    var: np.ndarray


def cinc(y, ic, icc) -> CumincCurve:
    """The Fortran routine ``cinc`` for sorted times ``y``, ``ic`` 1 for a failure of any
    cause and ``icc`` 1 for a failure of the cause of interest."""
    n = y.size
    nuniq = np.unique(y[icc == 1]).size
    size = 2 * nuniq + 2
    x = np.zeros(size)
    f = np.zeros(size)
    v = np.zeros(size)
    fk = 1.0
    v1 = v2 = v3 = 0.0
    lcnt = 1  # 1-based as the Fortran
    rs = float(n)
    l = 1
    ll = 1
    ty = y[0]
    while True:
        l += 1
        while l <= n and y[l - 1] == ty:
            l += 1
        l -= 1
        nd1 = int(np.sum(icc[ll - 1:l]))
        nd2 = int(np.sum(ic[ll - 1:l])) - nd1
        nd = nd1 + nd2
        if nd != 0:
            fkn = fk * (rs - nd) / rs
            if nd1 > 0:
                lcnt += 2
                f[lcnt - 2] = f[lcnt - 3]
                f[lcnt - 1] = f[lcnt - 2] + fk * nd1 / rs
            if not (nd2 <= 0 or fkn <= 0):
                t5 = 1.0
                if nd2 > 1:
                    t5 = 1 - (nd2 - 1.0) / (rs - 1.0)
                t6 = fk * fk * t5 * nd2 / (rs * rs)
                t3 = 1.0 / fkn
                t4 = f[lcnt - 1] / fkn
                v1 = v1 + t4 * t4 * t6
                v2 = v2 + t3 * t4 * t6
                v3 = v3 + t3 * t3 * t6
            if nd1 > 0:
                t5 = 1.0
                if nd1 > 1:
                    t5 = 1 - (nd1 - 1.0) / (rs - 1.0)
                t6 = fk * fk * t5 * nd1 / (rs * rs)
                t3 = 0.0
                if fkn > 0:
                    t3 = 1 / fkn
                t4 = 1 + t3 * f[lcnt - 1]
                v1 = v1 + t4 * t4 * t6
                v2 = v2 + t3 * t4 * t6
                v3 = v3 + t3 * t3 * t6
                t2 = f[lcnt - 1]
                x[lcnt - 2] = y[l - 1]
                x[lcnt - 1] = y[l - 1]
                v[lcnt - 2] = v[lcnt - 3]
                v[lcnt - 1] = v1 + t2 * t2 * v3 - 2 * t2 * v2
            fk = fkn
        rs = float(n - l)
        l += 1
        if l > n:
            break
        ll = l
        ty = y[l - 1]
    lcnt += 1
    x[lcnt - 1] = y[n - 1]
    f[lcnt - 1] = f[lcnt - 2]
    v[lcnt - 1] = v[lcnt - 2]
    return CumincCurve(x, f, v)


def cuminc_curves(ftime, fstatus, cencode=0):
    """``cuminc(ftime, fstatus, cencode = cencode)`` without groups: ``{cause: curve}`` for
    each cause code present, in increasing order (R names them ``"1 <cause>"``)."""
    ftime = np.asarray(ftime, dtype=np.float64)
    fstatus = np.asarray(fstatus)
    order = np.argsort(ftime, kind="stable")
    t = ftime[order]
    st = fstatus[order]
    censind = np.where(st == cencode, 0, 1)
    causes = np.unique(st[censind == 1])
    return {c.item(): cinc(t, censind, np.where(st == c, 1, 0)) for c in causes}


def tpoi(x, tp):
    """The Fortran routine ``tpoi``: the 1-based index into the curve's corners read at each
    (sorted, distinct) time of ``tp``; 0 where there is none (NA)."""
    n = x.size
    ntp = tp.size
    ind = np.zeros(ntp, dtype=np.int64)
    l = ntp
    for i in range(ntp, 0, -1):
        if x[n - 1] >= tp[i - 1]:
            break
        ind[l - 1] = 0
        l -= 1
    if l <= 0:
        return ind
    if x[n - 1] == tp[l - 1]:
        ind[l - 1] = n
        l -= 1
    k = n - 1
    while l > 0:
        found = False
        while k >= 1:
            if x[k - 1] <= tp[l - 1]:
                ind[l - 1] = k + 1
                l -= 1
                found = True
                break
            k -= 1
        if not found:
            ind[:l] = 0
            break
    return ind


def timepoints(curve: CumincCurve, times):
    """``timepoints(w, times)`` for one curve: ``(times, est, var)`` at ``sort(unique(times))``,
    NaN where R gives NA."""
    tp = np.unique(np.asarray(times, dtype=np.float64))
    ind = tpoi(curve.time, tp)
    est = np.where(ind > 0, curve.est[np.maximum(ind, 1) - 1], np.nan)
    var = np.where(ind > 0, curve.var[np.maximum(ind, 1) - 1], np.nan)
    return tp, est, var


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

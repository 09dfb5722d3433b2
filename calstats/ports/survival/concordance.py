"""R's ``survival::concordance`` for a right-censored outcome and one predictor (survival 3.5-3).

:func:`concordancefit` is ``concordancefit(y, x, weights = w, timewt = timewt,
reverse = reverse)`` without strata, clusters, ``ymin`` or ``ymax``: the concordant,
discordant and tied pair counts, the concordance, its infinitesimal-jackknife variance
(``var``) and the variance under the Cox model (``cvar``). It follows survival's C code
statement by statement so that ties and weights give R's numbers:

* ``aeqSurv`` merges times that agree to ``all.equal``'s tolerance;
* the observations are visited in ``order(-time, status, x)`` (latest first, a censored
  time before an event at the same time);
* ``fastkm1`` gives the lagged Kaplan-Meier curves of the event (``S(t-)``) and of the
  censoring (``G(t-)``, censorings after events at a tie) and the weighted number at risk
  at each distinct event time, for the time weights ``S = n(w) S(t-) / n(t)``, ``S/G =
  n(w) S(t-) / (G(t-) n(t))``, ``n/G2 = 1 / G(t-)^2`` (``n`` is 1; with fewer than two events
  every option is ``n``);
* ``concordance3`` walks the observations through a balanced binary tree of the distinct
  predictor values (``btree``), adding each one after it has been compared with the risk
  set; pairs tied on the predictor count as ``tied.x``, pairs of events at the same time
  as ``tied.y`` (both: ``tied.xy``), and the influence of each observation on each count
  is kept for the variance.

The concordance is ``(concordant + tied.x / 2) / (concordant + discordant + tied.x)``;
``reverse = TRUE`` swaps concordant and discordant (a larger ``x`` predicts an earlier
event).
"""

from typing import Any

import numpy as np

from ..._robject import RObject
from ...numerics.passes import compiled_module, use_compiled
from ...numerics.reductions import LD, row_sums, rsum
from .aeqsurv import aeq_surv

#: survival's C routines fastkm1 and concordance3 in calstats' C core (None without it: the
#: Python functions here, the reference, give the same bits)
_core: Any = compiled_module("_core")

__all__ = ["ConcordanceFit", "concordancefit", "btree", "fastkm1", "TIMEWTS"]

TIMEWTS = ("n", "S", "S/G", "n/G2", "I")


class ConcordanceFit(RObject):
    """R's ``concordancefit(..., influence = 3)`` object, under R's names and in R's order
    (``fit["cvar"]``, ``fit.names()``; see :class:`calstats._robject.RObject`).

    Attributes
    ----------
    concordance : float
    count : ndarray
        Concordant, discordant, tied.x, tied.y and tied.xy pairs (R's named vector ``count``,
        in R's order after ``reverse``).
    n : int
    var, cvar : float
        The infinitesimal-jackknife variance of the concordance and its variance under the
        Cox model.
    dfbeta : ndarray
        Each observation's influence on the concordance (R's ``influence = 1``).
    influence : ndarray
        n x 5: each observation's influence on each count (R's ``influence = 2``; columns
        as ``count``).

    Not an R field: ``timewt``, the time weighting used (``"n"`` when there are fewer than
    two events, as R falls back).
    """

    _r_fields = ("concordance", "count", "n", "var", "cvar", "dfbeta", "influence")
    _extras = ("timewt",)
    # set by the constructor (declared for type checkers)
    concordance: float
    count: np.ndarray
    n: int
    var: float
    cvar: float
    dfbeta: np.ndarray
    influence: np.ndarray
    timewt: str

    def __repr__(self):
        return f"ConcordanceFit(concordance={self.concordance!r}, n={self.n}, var={self.var!r})"


def btree(n):
    """survival's ``btree(n)``: the position in a balanced binary tree (stored as an array,
    node ``i`` has children ``2i + 1`` and ``2i + 2``) of the ``n`` sorted values.

    survival's recursion (a subtree of ``n`` values under ``node`` puts ``nleft`` of them in
    its left subtree, ``power`` if ``n == 2 power`` else ``min(power - 1, n - power / 2)``,
    one or none for ``n <= 3``) run a level of the tree at a time."""
    n = int(n)
    if n <= 1:
        return np.zeros(max(n, 0), dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    size = np.array([n], dtype=np.int64)
    node = np.zeros(1, dtype=np.int64)
    power = np.array([1 << int(np.floor(np.log2(n - 1)))], dtype=np.int64)  # 2^floor(logb(n - 1, 2))
    offset = np.zeros(1, dtype=np.int64)
    while size.size:
        nleft = np.where(size <= 3, np.where(size == 1, 0, 1),
                         np.where(size == 2 * power, power, np.minimum(power - 1, size - power // 2)))
        out[offset + nleft] = node
        size = np.concatenate((nleft, size - nleft - 1))
        node = np.concatenate((2 * node + 1, 2 * node + 2))
        power = np.concatenate((power // 2, power // 2))
        offset = np.concatenate((offset, offset + nleft + 1))
        keep = size > 0
        size, node, power, offset = size[keep], node[keep], power[keep], offset[keep]
    return out


def fastkm1(time, status, wt, sort):
    """survival's C routine ``fastkm1``: at each distinct event time (increasing) the lagged
    survival ``S``, the lagged censoring survival ``G`` and the weighted number at risk.

    ``sort`` is ``order(-time, status, x)`` (0-based). This is the reference; the compiled
    core runs the same statements (:func:`_fastkm1_c`)."""
    n = time.size
    ncount = np.empty(n)
    dcount = np.empty(n)
    ccount = np.empty(n)
    dtime = time[sort[0]]
    nevent = 0
    ntemp = dtemp = ctemp = 0.0
    for i in range(n):
        p = sort[i]
        if dtime != time[p]:
            dtemp = 0.0
            ctemp = 0.0
            dtime = time[p]
            if dcount[i - 1] > 0:
                nevent += 1
        ntemp += wt[p]
        if status[p] == 0:
            ctemp += wt[p]
        else:
            dtemp += wt[p]
        ncount[i] = ntemp
        dcount[i] = dtemp
        ccount[i] = ctemp
    if dcount[n - 1] > 0:
        nevent += 1
    S = np.empty(nevent)
    G = np.empty(nevent)
    nrisk = np.empty(nevent)
    etime = np.empty(nevent)
    k = 0
    stemp = gtemp = 1.0
    dfirst = cfirst = True
    ctime = 0.0
    i = n - 1
    while k < nevent:
        p = sort[i]
        if status[p] == 1 and (dfirst or time[p] != dtime):
            dtime = time[p]
            dfirst = False
            nrisk[k] = ncount[i]
            S[k] = stemp
            G[k] = gtemp
            etime[k] = dtime
            k += 1
            stemp = stemp * (ncount[i] - dcount[i]) / ncount[i]
        if status[p] == 0 and (cfirst or time[p] != ctime):
            ctime = time[p]
            cfirst = False
            gtemp = gtemp * (ncount[i] - ccount[i]) / ncount[i]
        i -= 1
    return S, G, nrisk, etime


def _walkup(nwt, twt, index, ntree):
    """survival's ``walkup``: the weights above (``[0]``), below (``[1]``) and tied with
    (``[2]``) the node ``index``."""
    s0 = s1 = 0.0
    s2 = nwt[index]
    j = 2 * index + 2
    if j < ntree:
        s0 += twt[j]
    if j <= ntree:
        s1 += twt[j - 1]
    while index > 0:
        parent = (index - 1) // 2
        if index % 2 == 1:
            s0 += twt[parent] - twt[index]
        else:
            s1 += twt[parent] - twt[index]
        index = parent
    return s0, s1, s2


def _addin(nwt, twt, index, wt):
    nwt[index] += wt
    while index > 0:
        twt[index] += wt
        index = (index - 1) // 2
    twt[0] += wt


def _fastkm1_c(time, status, wt, sort):
    """:func:`fastkm1` in the C core, on the rows in walk order (the same values in the same
    order: the same bits, and the memory read in sequence)."""
    n = time.size
    out = [np.empty(n) for _ in range(4)]
    k = _core.fastkm1(time[sort], status[sort], wt[sort], np.arange(n, dtype=np.int64), *out)
    return tuple(a[:k].copy() for a in out)


def _concordance3_c(time, status, x, wt, timewt, sort2):
    """:func:`_concordance3` in the C core, on the rows in walk order (as
    :func:`_fastkm1_c`); the influence is put back in the caller's row order."""
    n = time.size
    count = np.zeros(6)
    walk = np.zeros((5, n))
    _core.concordance3(time[sort2], status[sort2], np.ascontiguousarray(x[sort2], dtype=np.int64), wt[sort2],
                       timewt, np.arange(n, dtype=np.int64), int(x.max()) + 1, count, walk)
    inverse = np.empty_like(sort2)
    inverse[sort2] = np.arange(n)
    return count, walk[:, inverse].T  # n x 5 (column-major)


def _concordance3(time, status, x, wt, timewt, sort2):
    """survival's C routine ``concordance3`` (no residuals): ``(count[6], imat n x 5)``.
    This is the reference; the compiled core runs the same statements
    (:func:`_concordance3_c`)."""
    n = time.size
    ntree = int(x.max()) + 1
    nwt = [0.0] * ntree
    twt = [0.0] * ntree
    dnwt = [0.0] * ntree
    dtwt = [0.0] * ntree
    count = [0.0] * 6
    imat = [[0.0] * n for _ in range(5)]
    t = time.tolist()
    st = status.tolist()
    xs = x.tolist()
    w = wt.tolist()
    tw = timewt.tolist()
    s2 = sort2.tolist()
    z2 = 0.0
    utime = 0
    i = 0
    while i < n:
        ii = s2[i]
        if st[ii] == 0:
            a0, a1, a2 = _walkup(dnwt, dtwt, xs[ii], ntree)
            imat[0][ii] -= a1
            imat[1][ii] -= a0
            imat[2][ii] -= a2
            a0, a1, a2 = _walkup(nwt, twt, xs[ii], ntree)
            wi = w[ii]
            z2 += wi * (a0 * (wi + 2 * (a1 + a2)) + a1 * (wi + 2 * (a0 + a2)) + (a0 - a1) * (a0 - a1))
            _addin(nwt, twt, xs[ii], wi)
            i += 1
            continue
        ndeath = 0
        dwt = dwt2 = 0.0
        xsave = xs[ii]
        j2 = i
        adj = tw[utime]
        utime += 1
        j = i
        while j < n and t[s2[j]] == t[ii]:
            jj = s2[j]
            ndeath += 1
            count[3] += w[jj] * dwt * adj
            dwt += w[jj]
            if xs[jj] != xsave:
                if w[s2[j2]] < dwt2:
                    while j2 < j:
                        kk = s2[j2]
                        imat[4][kk] += (dwt2 - w[kk]) * adj
                        imat[3][kk] -= (dwt2 - w[kk]) * adj
                        j2 += 1
                else:
                    j2 = j
                dwt2 = 0.0
                xsave = xs[jj]
            count[4] += w[jj] * dwt2 * adj
            dwt2 += w[jj]
            a = _walkup(nwt, twt, xs[jj], ntree)
            for k in range(3):
                count[k] += w[jj] * a[k] * adj
                imat[k][jj] += a[k] * adj
            _addin(dnwt, dtwt, xs[jj], adj * w[jj])
            j += 1
        if w[s2[j2]] < dwt2:
            while j2 < j:
                kk = s2[j2]
                imat[4][kk] += (dwt2 - w[kk]) * adj
                imat[3][kk] -= (dwt2 - w[kk]) * adj
                j2 += 1
        for j in range(i, i + ndeath):
            jj = s2[j]
            a0, a1, a2 = _walkup(dnwt, dtwt, xs[jj], ntree)
            imat[0][jj] -= a1
            imat[1][jj] -= a0
            imat[2][jj] -= a2
            imat[3][jj] += (dwt - w[jj]) * adj
            a0, a1, a2 = _walkup(nwt, twt, xs[jj], ntree)
            wj = w[jj]
            z2 += wj * (a0 * (wj + 2 * (a1 + a2)) + a1 * (wj + 2 * (a0 + a2)) + (a0 - a1) * (a0 - a1))
            _addin(nwt, twt, xs[jj], wj)
        count[5] += dwt * adj * z2 / twt[0]
        i += ndeath
    for i in range(n):
        ii = s2[i]
        a0, a1, a2 = _walkup(dnwt, dtwt, xs[ii], ntree)
        imat[0][ii] += a1
        imat[1][ii] += a0
        imat[2][ii] += a2
    count[3] -= count[4]
    return np.array(count), np.array(imat).T.copy()


def _order_stop(time, status, x):
    """R's ``order(-time, status, x)`` (stable: ties keep index order), 0-based, and
    ``match(x, sort(unique(x))) - 1`` with the number of distinct ``x``: a stable sort by
    ``x``, a stable partition by ``status``, a stable sort by ``-time`` (two sorts)."""
    px = np.argsort(x, kind="stable")
    xs = x[px]
    rank_sorted = np.cumsum(np.concatenate(([True], xs[1:] != xs[:-1]))) - 1
    xrank = np.empty(x.size, dtype=np.int64)
    xrank[px] = rank_sorted
    by_status = np.concatenate((px[status[px] == 0], px[status[px] != 0]))
    order = by_status[np.argsort(-time[by_status], kind="stable")]
    return order, xrank, int(rank_sorted[-1]) + 1


def concordancefit(time, status, x, weights=None, timewt="n", reverse=False, timefix=True, backend=None):
    """``survival:::concordancefit(Surv(time, status), x, weights = weights, timewt =
    timewt, reverse = reverse)`` for checked arrays (no strata, no cluster).

    Returns a :class:`ConcordanceFit` (R's ``influence = 3``: ``dfbeta`` and
    ``influence`` both kept). With no event the counts are 0 and the
    concordance, its variances NaN (as in R). ``backend`` (where survival's arithmetic
    runs): ``"c"`` (survival's two C routines in calstats' C core, the default when it is
    built) or ``"numpy"`` (the reference); the same bits.

    An event of weight 0 is left out (its ``dfbeta`` and ``influence`` rows are 0). In R
    such an event makes ``timewt = "S"``, ``"S/G"`` or ``"n/G2"`` undefined: survival's
    ``fastkm1`` skips it as an event time, ``concordance3`` does not, and reads past the
    end of the time weights (R then prints whatever memory holds, 0.6667 with a NaN
    standard error on an 8-row example; the reference here stopped on the index, the C
    core returned a different number on each call). Left out, the event has the effect
    its weight says, nothing; with ``timewt = "n"`` R's numbers are unchanged.
    """
    time = np.asarray(time, dtype=np.float64)
    status = np.ascontiguousarray(status, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    n = time.size
    wts = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    compiled = use_compiled(_core, backend)
    km = _fastkm1_c if compiled else fastkm1
    tree = _concordance3_c if compiled else _concordance3
    if timefix:
        time = aeq_surv(time)
    time = np.ascontiguousarray(time)
    void = (wts == 0) & (status > 0)
    if void.any():
        keep = ~void
        sub = concordancefit(time[keep], status[keep], x[keep], wts[keep], timewt, reverse, False, backend)
        dfbeta = np.zeros(n)
        dfbeta[keep] = sub.dfbeta
        influence = np.zeros((n, 5))
        influence[keep] = sub.influence
        return sub._replace(n=n, dfbeta=dfbeta, influence=influence)
    if rsum(status) == 0:
        count = np.zeros(6)
        imat = np.zeros((n, 5))
        used = "n"
    else:
        timeopt = timewt if rsum(status) >= 2 else "n"
        sort_stop, utemp, nx = _order_stop(time, status, x)  # utemp: match(x, sort(unique(x))) - 1
        if timeopt == "n":
            etime = np.unique(time[status > 0])
            tw = np.ones(etime.size)
        else:
            S, G, nrisk, etime = km(time, status, wts, sort_stop)
            total = rsum(wts)
            with np.errstate(divide="ignore", invalid="ignore"):
                if timeopt == "S":
                    tw = total * S / nrisk
                elif timeopt == "S/G":
                    tw = total * S / (G * nrisk)
                elif timeopt == "n/G2":
                    tw = 1.0 / G**2
                else:  # "I"
                    tw = 1.0 / nrisk
        used = timeopt
        bindex = btree(nx)[utemp]
        count, imat = tree(time, status, bindex, wts, tw[::-1].copy(), sort_stop)
    count2 = count[:5]
    vcox = count[5]
    npair = float(LD(count2[0]) + LD(count2[1]) + LD(count2[2]))  # sum(count2[1:3])
    with np.errstate(divide="ignore", invalid="ignore"):
        somer = (count2[0] - count2[1]) / npair
        dfbeta = wts * ((imat[:, 0] - imat[:, 1]) / npair - (somer / npair) * row_sums(imat[:, :3]))
        var_somer = rsum(dfbeta**2)
        concordance = (somer + 1) / 2
        var = var_somer / 4
        cvar = vcox / (4 * npair**2)
    cnt = count2.copy()
    influence = imat.copy()
    if reverse:
        concordance = 1 - concordance
        dfbeta = -dfbeta
        cnt = cnt[[1, 0, 2, 3, 4]]
        influence = influence[:, [1, 0, 2, 3, 4]]
    return ConcordanceFit(concordance=float(concordance), count=cnt, n=n, var=float(var), cvar=float(cvar),
                          dfbeta=dfbeta / 2, influence=influence, timewt=used)

"""R's ``survival::coxph`` for right-censored data with Efron ties, and the expected number of
events of ``predict.coxph(type = "expected", newdata = ...)`` (survival 3.5-3).

pmcalibration's time-to-event calibration curve is
``coxph(Surv(times, events) ~ ., data = data.frame(times, events, X), x = TRUE)`` on a spline
design ``X`` of the transformed predictions, followed by
``predict(mod, type = "expected", newdata = data.frame(times = t0, events = 1, Xnew))``.
R stops the Newton-Raphson iteration when the *relative* change of the partial log-likelihood
falls below ``eps = 1e-9``, so the coefficients it reports are the iterate at that point, not
the exact maximum: a port has to take the same steps, and it does so by following survival's C
code statement by statement:

* ``coxph``: ``aeqSurv`` (``coxph.control(timefix = TRUE)`` turns times that agree to
  ``all.equal``'s tolerance into ties), no-event and infinite-predictor rules, the coefficient
  names and the singular columns (``NA`` coefficients);
* ``coxph.fit``: the stable ``order(time)``, covariates with values only in ``{-1, 0, 1}``
  left unscaled (``nocenter``), ``lp = X %*% coef - sum(coef * means)`` and R's warnings;
* ``coxfit6.c``: centring and scaling of the covariates, the risk-set sums accumulated from
  the last time backwards with Efron's correction for tied deaths, the step-halving
  Newton-Raphson, and ``cholesky2``/``chsolve2``/``chinv2`` (the generalised Cholesky with
  tolerance ``toler.chol = .Machine$double.eps^0.75``);
* ``predict.coxph`` (``type = "expected"``, ``newdata``, ``se.fit``) with ``agsurv`` and
  ``agsurv5.c``: the Efron-adjusted Breslow cumulative hazard of the centred model, the
  constant interpolation of ``approx(f = 0)`` at the new times, and the standard error
  ``sqrt(varh + dt' V dt) * risk`` with ``dt = cumhaz * (x - means) - xbar``.

The sums are formed in R's order and width: coxfit6's running sums are sequential double
sums (reproduced with ``numpy.cumsum``, which adds in order), R's ``rowsum`` adds in data order
in double, and R's ``cumsum``/``rowSums`` accumulate in long double (see
:mod:`.reductions`).
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from ..._errors import fail, warn
from ..._messages import (
    COXPH_COLNAMES,
    COXPH_INFINITE_COEF,
    COXPH_INFINITE_X,
    COXPH_ITERATIONS,
    COXPH_LENGTH,
    COXPH_LOGLIK_CONVERGED,
    COXPH_MISSING,
    COXPH_NEWX,
    COXPH_NO_OBSERVATIONS,
    COXPH_NOT_CONVERGED,
    COXPH_NUMERIC,
    COXPH_SHAPE,
    COXPH_STATUS,
    COXPH_T0,
    COXPH_TIME,
)
from ..._robject import RObject
from ...numerics import libm
from ...numerics.passes import compiled_module, use_compiled
from ...numerics.reductions import LD, matmul, row_sums, rsum
from .aeqsurv import aeq_surv

#: survival's coxfit6_iter in calstats' C core (None without it: the NumPy port here, the
#: reference, gives the same bits)
_core: Any = compiled_module("_core")

__all__ = ["coxph_fit", "CoxFit"]

DBL_EPSILON = 2.220446049250313e-16
_EPS = 1e-9  # coxph.control(eps)
_TOLER_CHOL = DBL_EPSILON**0.75  # coxph.control(toler.chol)
_TOLER_INF = math.sqrt(_EPS)  # coxph.control(toler.inf)
_ITER_MAX = 20  # coxph.control(iter.max)
_NOCENTER = (-1.0, 0.0, 1.0)  # coxph(nocenter = c(-1, 0, 1))
_LOG_DBL_MAX = math.log(np.finfo(np.float64).max)


# --------------------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------------------


def _as_float(x, what):
    arr = np.asarray(x)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError):
            fail(COXPH_NUMERIC.format(what=what))
    if np.iscomplexobj(arr):
        fail(COXPH_NUMERIC.format(what=what))
    return np.array(arr, dtype=np.float64)  # a copy: inputs are never modified


def _as_matrix(X, what="X"):
    names = None
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
    elif isinstance(X, pd.Series) and X.name is not None:
        names = [str(X.name)]
    arr = _as_float(X, what)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] == 0:
        fail(COXPH_SHAPE)
    return arr, names


# --------------------------------------------------------------------------------------
# the tied-time structure
# --------------------------------------------------------------------------------------


def _segment_seq_sums(values, starts, lengths):
    """Sums of consecutive row blocks, each added in row order from 0.0 in double.

    The reference: the blocks are reduced together, one row position at a time, so each
    block is summed sequentially as R's C loops (and ``rowsum``) do. :class:`_BlockSums`
    gives the same bits with a fixed number of array operations.
    """
    out = np.zeros((starts.size,) + values.shape[1:])
    maxlen = int(lengths.max()) if lengths.size else 0
    for k in range(maxlen):
        sel = lengths > k
        out[sel] += values[starts[sel] + k]
    return out


class _BlockSums:
    """Sums of blocks of rows of a fixed layout, each block's rows added in order from 0.0
    in double (as :func:`_segment_seq_sums`, the same bits), planned once per layout.

    The blocks are grouped by length (lengths in ``(2^(b-1), 2^b]`` together); each group's
    rows are gathered into a matrix, one block per row, led by a 0.0 and padded with 0.0
    after its last row, and summed by a cumulative sum along the row (sequential, so the
    loop's order). A running sum that starts at +0.0 never becomes -0.0, and ``x + 0.0`` is
    ``x`` for every other ``x`` (NaN and infinities included): the padding changes no bit.
    The work is at most about twice the number of rows, in one gather and one cumulative sum
    per group (at most ``log2(longest block) + 1`` groups), whatever the number of blocks.

    ``rows[i]`` are the positions (into the values passed to :meth:`sums`) of the rows of
    the blocks laid end to end; ``starts`` and ``lengths`` cut them into blocks.
    """

    def __init__(self, rows, starts, lengths, nrows):
        self.size = int(starts.size)
        self.nrows = int(nrows)  # the position of the 0.0 row appended by sums()
        self.parts = []
        if not self.size:
            return
        key = np.zeros(self.size, dtype=np.int64)
        big = lengths > 1
        key[big] = np.ceil(np.log2(lengths[big])).astype(np.int64)
        for b in np.unique(key).tolist():
            sel = np.flatnonzero(key == b)
            lens = lengths[sel]
            width = int(lens.max())
            pos = np.arange(width)
            at = starts[sel, None] + pos[None, :]
            inside = pos[None, :] < lens[:, None]
            idx = np.full((sel.size, width + 1), self.nrows, dtype=np.intp)
            idx[:, 1:][inside] = rows[at[inside]]
            self.parts.append((sel, idx))

    def sums(self, values):
        """The block sums of ``values`` (rows by position; any trailing shape)."""
        values = np.asarray(values, dtype=np.float64)
        tail = values.shape[1:]
        padded = np.concatenate((values, np.zeros((1,) + tail)))
        out = np.zeros((self.size,) + tail)
        for sel, idx in self.parts:
            out[sel] = np.cumsum(padded[idx], axis=1)[:, -1]
        return out


class _RiskSets:
    """The order in which coxfit6 visits the sorted data, fixed once per fit.

    coxfit6 walks from the last sorted observation to the first. At each distinct time it
    first adds the censored observations' risk to the running sums (``denom``, ``a``,
    ``cmat``) one by one, collects the deaths' risks in ``denom2``/``a2``/``cmat2``, and
    then adds ``1/ndead`` of those ``ndead`` times (Efron), evaluating the score and the
    information after each addition. Both running sums are therefore single sequences of
    increments: the "risk" sequence (censored observations, then the Efron steps) and the
    "score" sequence (deaths' ``zbeta``/``x``, then the steps' subtractions).
    """

    def __init__(self, stime, sstat):
        n = stime.size
        proc = np.arange(n - 1, -1, -1)  # visiting order
        t = stime[proc]
        d = sstat[proc] == 1
        new = np.concatenate(([True], t[1:] != t[:-1]))
        gid = np.cumsum(new) - 1
        ngroup = int(gid[-1]) + 1
        ndead = np.bincount(gid, weights=d, minlength=ngroup).astype(np.int64)
        has_dead = ndead > 0
        # deaths' blocks (visiting order), for denom2/a2/cmat2
        dead_pos = np.flatnonzero(d)
        self.dead_idx = proc[dead_pos]
        dgid = gid[dead_pos]
        dgroups = np.flatnonzero(has_dead)
        self.dead_groups = dgroups
        self.dead_len = ndead[dgroups]
        self.dead_start = np.concatenate(([0], np.cumsum(self.dead_len)[:-1])).astype(np.int64)
        # denom2/a2/cmat2 of each time: the deaths' rows of the data, in visiting order
        self.dead_sums = _BlockSums(self.dead_idx, self.dead_start, self.dead_len, n)
        # risk sequence: per group, censored observations then ndead step slots
        ncens = np.bincount(gid, weights=~d, minlength=ngroup).astype(np.int64)
        cens_pos = np.flatnonzero(~d)
        cgid = gid[cens_pos]
        grp_len = ncens + ndead
        grp_start = np.concatenate(([0], np.cumsum(grp_len)[:-1])).astype(np.int64)
        rank_in_cens = np.arange(cens_pos.size) - np.concatenate(([0], np.cumsum(ncens)[:-1]))[cgid]
        self.risk_len = int(grp_len.sum())
        self.risk_cens_slot = grp_start[cgid] + rank_in_cens
        self.risk_cens_idx = proc[cens_pos]
        step_group = np.repeat(dgroups, self.dead_len)  # group of each Efron step
        step_k = np.arange(step_group.size) - np.repeat(self.dead_start, self.dead_len)
        self.step_dgroup = np.repeat(np.arange(dgroups.size), self.dead_len)
        self.step_nd = np.repeat(self.dead_len, self.dead_len).astype(np.float64)
        self.risk_step_slot = grp_start[step_group] + ncens[step_group] + step_k
        # score sequence: per group with deaths, the deaths then the steps
        sgrp_len = 2 * self.dead_len
        sgrp_start = np.concatenate(([0], np.cumsum(sgrp_len)[:-1])).astype(np.int64)
        dg_index = np.searchsorted(dgroups, dgid)
        rank_in_dead = np.arange(dead_pos.size) - self.dead_start[dg_index]
        self.score_len = int(sgrp_len.sum())
        self.score_dead_slot = sgrp_start[dg_index] + rank_in_dead
        self.score_step_slot = sgrp_start[self.step_dgroup] + self.dead_len[self.step_dgroup] + step_k
        # deadwt is a sequential sum of unit case weights: exactly ndead, so wtave = 1
        self.wtave = np.ones(step_group.size)


# --------------------------------------------------------------------------------------
# coxfit6.c
# --------------------------------------------------------------------------------------


def _coxfit6_iter_c(beta, covar, stime, sstat):
    """``coxfit6_iter`` in calstats' C core (survival's statements): the same bits as
    :func:`_coxfit6_iter_numpy`."""
    nvar = covar.shape[1]
    u = np.empty(nvar)
    imat = np.empty((nvar, nvar))
    loglik = _core.cox_fit6_iter(stime, sstat, covar, np.ascontiguousarray(beta, dtype=np.float64), u, imat)
    return loglik, u, imat


def _coxfit6_iter_numpy(beta, covar, rs, tri_i, tri_j):
    """``coxfit6_iter``: log partial likelihood, score ``u`` and information (lower triangle
    in ``imat[i, j]``, i >= j) at ``beta`` for centred and scaled covariates ``covar``.

    This is the reference (the NumPy backend); the C core runs survival's statements
    (:func:`_coxfit6_iter_c`)."""
    n, nvar = covar.shape
    # zbeta = offset (0) + sum_i beta[i] * covar[i][person], added in column order
    zbeta = np.zeros(n)
    for i in range(nvar):
        zbeta = zbeta + beta[i] * covar[:, i]
    risk = libm.exp(zbeta) * 1.0  # case weights are 1
    rx = risk[:, None] * covar
    rxx = rx[:, tri_i] * covar[:, tri_j]  # risk*covar[i]*covar[j], left to right
    chan = np.concatenate((risk[:, None], rx, rxx), axis=1)  # denom | a | cmat channels

    # denom2, a2, cmat2: the deaths of each time, summed in visiting order
    dead_sums = rs.dead_sums.sums(chan)
    seq = np.zeros((rs.risk_len, chan.shape[1]))
    seq[rs.risk_cens_slot] = chan[rs.risk_cens_idx]
    seq[rs.risk_step_slot] = dead_sums[rs.step_dgroup] / rs.step_nd[:, None]
    run = np.cumsum(seq, axis=0)[rs.risk_step_slot]  # sequential: coxfit6's running sums
    denom = run[:, 0]
    a = run[:, 1:1 + nvar]
    cmat = run[:, 1 + nvar:]
    wt = rs.wtave
    temp2 = a / denom[:, None]
    imat_terms = wt[:, None] * (cmat - temp2[:, tri_i] * a[:, tri_j]) / denom[:, None]
    imat_tri = np.cumsum(imat_terms, axis=0)[-1] if imat_terms.shape[0] else np.zeros(tri_i.size)

    # loglik and u: += weights*zbeta, += weights*covar for each death; -= at each Efron step
    sc = np.zeros((rs.score_len, 1 + nvar))
    sc[rs.score_dead_slot, 0] = zbeta[rs.dead_idx]
    sc[rs.score_dead_slot, 1:] = covar[rs.dead_idx]
    sc[rs.score_step_slot, 0] = -(wt * libm.log(denom))
    sc[rs.score_step_slot, 1:] = -(wt[:, None] * temp2)
    tot = np.cumsum(sc, axis=0)[-1] if sc.shape[0] else np.zeros(1 + nvar)
    imat = np.zeros((nvar, nvar))
    imat[tri_i, tri_j] = imat_tri
    imat[tri_j, tri_i] = imat_tri
    return float(tot[0]), tot[1:].copy(), imat


def _cholesky2(m, toler):
    """``cholesky2``: m = F D F' in the lower triangle (D on the diagonal); returns the rank
    (negated when the matrix is not non-negative definite). ``m`` is overwritten."""
    n = m.shape[0]
    nonneg = 1
    eps = 0.0
    for i in range(n):
        if m[i, i] > eps:
            eps = m[i, i]
        for j in range(i + 1, n):
            m[j, i] = m[i, j]
    eps = toler if eps == 0 else eps * toler
    rank = 0
    for i in range(n):
        pivot = m[i, i]
        if not math.isfinite(pivot) or pivot < eps:
            m[i, i] = 0.0
            if pivot < -8 * eps:
                nonneg = -1
        else:
            rank += 1
            for j in range(i + 1, n):
                temp = m[j, i] / pivot
                m[j, i] = temp
                m[j, j] -= temp * temp * pivot
                for k in range(j + 1, n):
                    m[k, j] -= temp * m[k, i]
    return rank * nonneg


def _chsolve2(m, y):
    """``chsolve2``: solves (F D F') b = y in place."""
    n = m.shape[0]
    for i in range(n):
        temp = y[i]
        for j in range(i):
            temp -= y[j] * m[i, j]
        y[i] = temp
    for i in range(n - 1, -1, -1):
        if m[i, i] == 0:
            y[i] = 0.0
        else:
            temp = y[i] / m[i, i]
            for j in range(i + 1, n):
                temp -= y[j] * m[j, i]
            y[i] = temp


def _chinv2(m):
    """``chinv2``: the inverse of F D F' into the upper triangle and diagonal of ``m``."""
    n = m.shape[0]
    for i in range(n):
        if m[i, i] > 0:
            m[i, i] = 1 / m[i, i]
            for j in range(i + 1, n):
                m[j, i] = -m[j, i]
                for k in range(i):
                    m[j, k] += m[j, i] * m[i, k]
    for i in range(n):
        if m[i, i] == 0:
            for j in range(i):
                m[j, i] = 0.0
            for j in range(i, n):
                m[i, j] = 0.0
        else:
            for j in range(i + 1, n):
                temp = m[j, i] * m[j, j]
                m[i, j] = temp
                for k in range(i, j):
                    m[i, k] += temp * m[j, k]


def _unscale(beta, u, imat, scale):
    """coxfit6's return to the original scale; the upper triangle is mirrored."""
    nvar = beta.size
    beta = beta * scale
    u = u / scale
    for i in range(nvar):
        imat[i, i] *= scale[i] * scale[i]
        for j in range(i):
            imat[j, i] *= scale[i] * scale[j]
            imat[i, j] = imat[j, i]
    return beta, u, imat


def _coxfit6(stime, sstat, covar, maxiter, doscale, backend=None):
    """``coxfit6`` (no strata, offset 0, case weights 1, initial values 0, Efron).
    ``backend``: ``"c"`` (``coxfit6_iter`` in calstats' C core, the default when it is
    built) or ``"numpy"`` (the reference); the same bits."""
    n, nvar = covar.shape
    covar = covar.copy()
    means = np.zeros(nvar)
    scale = np.ones(nvar)
    temp2 = float(n)  # sum of the unit weights, exact
    for i in range(nvar):
        if not doscale[i]:
            continue
        # double accumulators in observation order, as the C loop
        mean = float(np.cumsum(covar[:, i])[-1]) / temp2
        means[i] = mean
        covar[:, i] = covar[:, i] - mean
        tot = float(np.cumsum(np.abs(covar[:, i]))[-1])
        s = temp2 / tot if tot > 0 else 1.0
        scale[i] = s
        covar[:, i] = covar[:, i] * s
    beta = np.zeros(nvar) / scale
    if use_compiled(_core, backend):
        stime_c = np.ascontiguousarray(stime, dtype=np.float64)
        sstat_c = np.ascontiguousarray(sstat, dtype=np.float64)
        covar_c = np.ascontiguousarray(covar)

        def iterate(b):
            return _coxfit6_iter_c(b, covar_c, stime_c, sstat_c)
    else:
        rs = _RiskSets(stime, sstat)
        tri_i, tri_j = np.tril_indices(nvar)

        def iterate(b):
            return _coxfit6_iter_numpy(b, covar, rs, tri_i, tri_j)

    loglik0, u, imat = iterate(beta)
    loglik1 = loglik0
    a = u.copy()
    flag = _cholesky2(imat, _TOLER_CHOL)
    _chsolve2(imat, a)
    sctest = 0.0
    for i in range(nvar):
        sctest += u[i] * a[i]
    it = 0
    if maxiter == 0 or not math.isfinite(loglik0):
        _chinv2(imat)
        beta, u, imat = _unscale(beta, u, imat, scale)
        return beta, means, u, imat, (loglik0, loglik1), sctest, it, flag

    newbeta = beta + a
    halving = 0
    it = 1
    while it <= maxiter:
        newlk, u, imat = iterate(newbeta)
        flag = _cholesky2(imat, _TOLER_CHOL)
        notfinite = not (np.all(np.isfinite(u)) and np.all(np.isfinite(imat))
                         and math.isfinite(newlk))
        # C's division: 0/0 is NaN and x/0 infinite (a log-likelihood of exactly 0), never converged
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.float64(loglik1) / np.float64(newlk)
        if not notfinite and abs(1 - ratio) <= _EPS:
            loglik1 = newlk
            _chinv2(imat)
            beta, u, imat = _unscale(newbeta, u, imat, scale)
            if halving:
                flag = -2
            return beta, means, u, imat, (loglik0, loglik1), sctest, it, flag
        if notfinite or newlk < loglik1:
            halving += 1  # not converging: step back towards the last good beta
            newbeta = (newbeta + halving * beta) / (halving + 1.0)
        else:
            halving = 0
            loglik1 = newlk
            _chsolve2(imat, u)
            beta = newbeta
            newbeta = newbeta + u
        it += 1

    # out of iterations: the score and information at the last good beta. Note that coxfit6
    # then calls chinv2 on the *unfactored* information (its lower triangle zeroed), which
    # yields diag(1/imat) as the variance; R reports exactly that, and so do we.
    if maxiter > 1:
        loglik1, u, imat_full = iterate(beta)
        imat = np.triu(imat_full)
    _chinv2(imat)
    beta, u, imat = _unscale(beta, u, imat, scale)
    return beta, means, u, imat, (loglik0, loglik1), sctest, it, 1000


# --------------------------------------------------------------------------------------
# The fit object and predict(type = "expected")
# --------------------------------------------------------------------------------------


def _rowsum_plan(order, starts, lengths):
    """R ``rowsum(values, time)`` planned: per distinct time (ascending), the values added in
    data order in double (``order`` sorts the data by time, stably; ``starts``/``lengths``
    cut the sorted rows into the times)."""
    return _BlockSums(order, starts, lengths, order.size)


# Long double appears only where R itself accumulates in long double (``cumsum``, ``sum``,
# ``rowSums``, ``colMeans``, ``mean`` are R's C code, not survival's): the risk-set totals
# of agsurv and the cumulative hazard are such cumsums, and a double cumsum would move them
# by an ulp or more over thousands of times. survival's own C code (coxfit6, agsurv5)
# accumulates in double throughout, so it is reproduced in double.


def _rcumsum(x):
    """``rev(cumsum(rev(x)))`` with R's long-double ``cumsum``, column by column."""
    return np.cumsum(x[::-1].astype(LD), axis=0)[::-1].astype(np.float64)


def _ldcumsum(x):
    """R's ``cumsum`` (long-double accumulator), column by column."""
    return np.cumsum(np.asarray(x, dtype=np.float64).astype(LD), axis=0).astype(np.float64)


class CoxFit(RObject):
    """The fields of R's ``coxph`` object that calstats carries over (right-censored data,
    Efron ties).

    Attributes
    ----------
    coefficients : ndarray
        Coefficients; NaN where R reports ``NA`` (a column found singular, or no events).
    vcov : ndarray
        R's ``var``: the inverse information matrix (all zeros when there are no events).
        ``fit["var"]`` gives the same array.
    loglik : ndarray
        Log partial likelihood at the initial values (0) and at the final coefficients.
    score : float
        Score test at the initial values.
    iter : int
        Newton-Raphson iterations (``iter_max + 1`` when R ran out of iterations).
    linear_predictors : ndarray
        ``X %*% coef - sum(coef * means)`` in the order of the data.
    means : ndarray
        Column means used for centring (0 for columns with values only in {-1, 0, 1}).
    method : str
        ``"efron"``.
    n, nevent : int

    Not R fields: ``converged`` (coxfit6's convergence test was met), ``colnames``, ``flag``
    (coxfit6's rank/convergence flag), ``y_time`` (the times after ``aeqSurv``), ``y_status``
    and ``x`` (the design, as ``coxph(x = TRUE)`` keeps it), used by :meth:`expected`.
    """

    _r_fields = ("coefficients", "var", "loglik", "score", "iter", "linear.predictors",
                 "means", "method", "n", "nevent")
    _aliases = {"var": "vcov"}
    _extras: tuple[str, ...] = ("converged", "colnames", "flag", "y_time", "y_status", "x")

    def __repr__(self):
        coefs = ", ".join(f"{k}={v!r}" for k, v in zip(self.colnames, self.coefficients.tolist()))
        return (f"CoxFit({coefs}; loglik={self.loglik[1]!r}, iter={self.iter}, "
                f"converged={self.converged})")

    def expected(self, t0, Xnew, se_fit=False):
        """``predict(fit, type = "expected", newdata = data.frame(time = t0, status = 1, Xnew),
        se.fit = se_fit)``: the cumulative hazard at ``t0`` for each row of ``Xnew``.

        The baseline is the Efron-adjusted Breslow estimate of ``agsurv(survtype = 3,
        vartype = 3)`` at the mean covariate; times before the first event give 0 (and se 0),
        times beyond the last observed time the final value.

        Parameters
        ----------
        t0 : float or array_like
            One time, or one time per row of ``Xnew`` (``data.frame`` recycling of a single
            time, as pmcalibration passes it).
        Xnew : array_like, shape (m, p)
            New design rows (the columns of the fitted ``X``).
        se_fit : bool, default False
            Also return R's ``se.fit``.

        Returns
        -------
        (ndarray, ndarray or None)
            The expected values and, with ``se_fit``, their standard errors. NaN where R
            gives ``NA`` (``NA`` coefficients: singular design or no events).
        """
        nvar = self.coefficients.size
        newx, _ = _as_matrix(Xnew, "Xnew")
        if newx.shape[1] != nvar:
            fail(COXPH_NEWX.format(p=nvar))
        m = newx.shape[0]
        t = _as_float(t0, "t0").ravel()
        if t.size == 1:
            t = np.full(m, t[0])
        elif t.size != m:
            fail(COXPH_T0)
        with np.errstate(all="ignore"):  # R computes with Inf/NaN silently (separation, NA coefs)
            return self._expected(t, newx, se_fit)

    def _expected(self, t, newx, se_fit):
        nvar = self.coefficients.size
        coef = self.coefficients
        means = self.means
        xc = self.x - means[None, :]
        newxc = newx - means[None, :]
        risk = libm.exp(self.linear_predictors)
        newrisk = libm.exp(matmul(newxc, coef)) + 0.0  # + newoffset (0)

        # agsurv(y, x, wt = 1, risk, survtype = 3, vartype = 3)
        dtime = self.y_time
        death = self.y_status == 1
        order = np.argsort(dtime, kind="stable")
        st = dtime[order]
        new = np.concatenate(([True], st[1:] != st[:-1]))
        starts = np.flatnonzero(new)
        lengths = np.diff(np.append(starts, st.size))
        time = st[starts]
        dd = death.astype(np.float64)
        rowsum = _rowsum_plan(order, starts, lengths).sums
        nevent = rowsum(dd)
        ndeath = nevent.astype(np.int64)
        nrisk = _rcumsum(rowsum(risk))
        xsum = _rcumsum(rowsum(risk[:, None] * xc))
        rd = risk * dd
        xsum2 = rowsum(rd[:, None] * xc)
        erisk = rowsum(rd)

        # agsurv5.c
        ntime = time.size
        sum1 = np.zeros(ntime)
        sum2 = np.zeros(ntime)
        xbar = np.zeros((ntime, nvar))
        d = ndeath.astype(np.float64)
        one = ndeath == 1
        tmp = 1 / nrisk[one]
        sum1[one] = tmp
        sum2[one] = tmp * tmp
        xbar[one] = xsum[one] * tmp[:, None] * tmp[:, None]
        many = ndeath > 1
        for j in range(int(ndeath.max()) if ntime else 0):
            sel = many & (ndeath > j)
            if not sel.any():
                continue
            dj = d[sel]
            tmp = 1 / (nrisk[sel] - erisk[sel] * j / dj)
            sum1[sel] += tmp / dj
            sum2[sel] += tmp * tmp / dj
            xbar[sel] += ((xsum[sel] - xsum2[sel] * j / dj[:, None])
                          * tmp[:, None] * tmp[:, None]) / dj[:, None]
        haz = nevent * sum1
        varhaz = nevent * sum2
        cumhaz = _ldcumsum(haz)
        xbarc = _ldcumsum(nevent[:, None] * xbar)
        cumvar = _ldcumsum(varhaz)

        # approx(time, 1:n, t0, method = "constant", f = 0, yleft = 0, yright = n)
        j1 = np.searchsorted(time, t, side="right")
        nan_t = np.isnan(t)
        j1[nan_t] = 0
        chaz = np.concatenate(([0.0], cumhaz))[j1]
        chaz[nan_t] = np.nan
        pred = chaz * newrisk
        if not se_fit:
            return pred, None
        varh = np.concatenate(([0.0], cumvar))[j1]
        xb = np.vstack((np.zeros((1, nvar)), xbarc))[j1]
        dt = chaz[:, None] * newxc - xb
        se = np.sqrt(varh + row_sums(matmul(dt, self.vcov) * dt)) * newrisk
        return pred, se


def coxph_fit(time, status, X, colnames=None, *, iter_max=_ITER_MAX, backend=None):
    """Fit a Cox model exactly as ``survival::coxph(Surv(time, status) ~ X, ties = "efron")``.

    Reproduces survival 3.5-3 with ``coxph.control()``'s defaults (``eps = 1e-9``,
    ``toler.chol = .Machine$double.eps^0.75``, ``toler.inf = sqrt(eps)``, ``timefix =
    TRUE``), initial values 0, no strata, offset or weights: ``aeqSurv``, then
    ``coxph.fit``/``coxfit6`` (centred and scaled covariates, Efron's approximation, the
    step-halving Newton-Raphson) and R's warnings (module docstring).

    Parameters
    ----------
    time : array_like, shape (n,)
        Follow-up times.
    status : array_like, shape (n,)
        1 for an event, 0 for censoring (booleans accepted).
    X : array_like, shape (n,) or (n, p)
        Covariates (no intercept column).
    colnames : sequence of str, optional
        Names of the columns of ``X`` (default: a DataFrame's columns, else ``x1, ..., xp``).
    iter_max : int, default 20
        ``coxph.control(iter.max)``.
    backend : {None, "c", "numpy"}
        Where ``coxfit6``'s iterations run: survival's C statements in calstats' C core
        (the default when it is built) or their NumPy port (the reference); the same bits.

    Returns
    -------
    CoxFit

    Warns
    -----
    CalstatsWarning
        With R's texts: ``Ran out of iterations and did not converge`` (and ``one or more
        coefficients may be infinite``), ``Loglik converged before variable  k ; coefficient
        may be infinite. ``.

    Notes
    -----
    Deliberate differences: missing values are refused instead of being dropped by
    ``na.omit``; ``status`` must be 0/1 (``Surv``'s 1/2 coding is not recognised). With no
    events R returns ``NA`` coefficients and a zero variance; so does this port (NaN), and
    :meth:`CoxFit.expected` then gives NaN, as ``predict`` gives ``NA``.
    """
    t = _as_float(time, "time").ravel()
    s = _as_float(status, "status").ravel()
    x, df_names = _as_matrix(X)
    if not (isinstance(iter_max, (int, np.integer)) and not isinstance(iter_max, bool)) or iter_max < 0:
        fail(COXPH_ITERATIONS)
    iter_max = int(iter_max)
    if not (t.size == s.size == x.shape[0]):
        fail(COXPH_LENGTH)
    for what, arr in (("time", t), ("status", s), ("X", x)):
        if np.isnan(arr).any():
            fail(COXPH_MISSING.format(what=what))
    if not np.isin(s, (0.0, 1.0)).all():
        fail(COXPH_STATUS)
    if not np.isfinite(t).all():
        fail(COXPH_TIME)
    n, nvar = x.shape
    if colnames is None:
        colnames = df_names or [f"x{j + 1}" for j in range(nvar)]
    colnames = [str(c) for c in colnames]
    if len(colnames) != nvar:
        fail(COXPH_COLNAMES)
    if n == 0:
        fail(COXPH_NO_OBSERVATIONS)
    t = aeq_surv(t)
    nevent = int(s.sum())
    if nevent == 0:  # coxph's early return: NA coefficients, zero variance
        return CoxFit(
            coefficients=np.full(nvar, np.nan), vcov=np.zeros((nvar, nvar)),
            loglik=np.zeros(2), score=0.0, iter=0, linear_predictors=np.zeros(n),
            means=(np.cumsum(x.astype(LD), axis=0)[-1] / LD(n)).astype(np.float64),  # colMeans
            method="efron", n=n, nevent=0, converged=False, colnames=colnames, flag=0,
            y_time=t, y_status=s, x=x)
    if not np.isfinite(x).all():
        fail(COXPH_INFINITE_X)

    sorted_ = np.argsort(t, kind="stable")  # order(time): stable
    doscale = np.array([not np.isin(x[:, j], _NOCENTER).all() for j in range(nvar)])
    with np.errstate(all="ignore"):  # overflow near infinite coefficients is R's too
        beta, means, u, imat, loglik, sctest, it, flag = _coxfit6(
            t[sorted_], s[sorted_], x[sorted_], iter_max, doscale, backend)
        return _finish(x, s, t, n, nvar, nevent, colnames, iter_max,
                       beta, means, u, imat, loglik, sctest, it, flag)


def _finish(x, s, t, n, nvar, nevent, colnames, iter_max, beta, means, u, imat, loglik,
            sctest, it, flag):
    """The rest of ``coxph.fit``: linear predictors, singular columns and R's warnings."""

    # coxph.fit
    coef = beta
    lp = (matmul(x, coef) + 0.0) - rsum(coef * means)
    var = imat
    which_sing = np.diag(var) == 0 if flag < nvar else np.zeros(nvar, dtype=bool)
    infs = np.abs(matmul(u[None, :], var)[0])
    if iter_max > 1:
        if flag == 1000:
            warn(COXPH_NOT_CONVERGED)
            if np.max(lp) > 500 or not np.isfinite(infs).all():
                warn(COXPH_INFINITE_COEF)
        else:
            bad = ~np.isfinite(u) | ((infs > _EPS) & (infs > _TOLER_INF * np.abs(coef)))
            if bad.any():
                idx = ",".join(str(k + 1) for k in np.flatnonzero(bad))
                warn(COXPH_LOGLIK_CONVERGED.format(vars=idx))
    coef = coef.copy()
    if iter_max > 0:
        coef[which_sing] = np.nan
    return CoxFit(
        coefficients=coef, vcov=var, loglik=np.array(loglik, dtype=np.float64), score=sctest,
        iter=it, linear_predictors=lp, means=means, method="efron", n=n, nevent=nevent,
        converged=(flag != 1000 and iter_max > 0), colnames=colnames, flag=flag,
        y_time=t, y_status=s, x=x)

"""The Kaplan-Meier estimate as R's survival package computes it (survival 3.5-3).

:func:`km_fit` is ``survfit(Surv(time, event) ~ 1, weights = weights)``: the time grid and
survival of the fitted curve. :func:`km_survival` is ``summary(fit, times = at, extend =
TRUE)$surv``, the curve read at given times. Both follow R's steps, so that ties and weights
give R's numbers:

* ``survfit`` first merges times closer than ``sqrt(.Machine$double.eps)`` (absolutely, or
  relative to the mean absolute time) onto the first of each run (``aeqSurv``, on by
  default as ``timefix = TRUE``);
* the grid is every distinct time, censoring times included; an event weighted 0 leaves the
  curve unchanged;
* the weighted number at risk is summed from the last time backwards in double, as the C
  routine ``survfitkm`` does, and the curve is the running product of ``(n - d) / n`` (of
  ``1 - d / n`` when a weight is not a whole number: R then takes its robust-variance
  branch, which updates the curve that way);
* ``summary(times =)`` reads the step function at each time, ``1`` before the curve starts
  (``survfit0`` puts its start at ``min(0, first time)``) and the last value beyond its end
  (``extend = TRUE``).
"""

import numpy as np

from ..._errors import fail
from ..._messages import KM_AT, KM_EMPTY, KM_EVENT, KM_LENGTH, KM_TIME, KM_WEIGHTS
from ..._robject import RObject
from .aeqsurv import aeq_surv

__all__ = ["KMFit", "km_fit", "km_survival"]


class KMFit(RObject):
    """The fields of R's ``survfit`` object that calstats computes, under R's names and in
    R's order (``fit["n.risk"]``, ``fit.names()``; see :class:`calstats._robject.RObject`).

    Attributes
    ----------
    n : int
        ``fit$n``: the number of observations.
    time : ndarray
        The distinct times (censoring times included), after ``aeqSurv``.
    n_risk, n_event : ndarray
        ``fit$n.risk`` and ``fit$n.event``: the (weighted) number at risk and of events at
        each time.
    surv : ndarray
        The survival just after each time.
    type : str
        ``"right"``.
    """

    _r_fields = ("n", "time", "n.risk", "n.event", "surv", "type")
    # set by the constructor (declared for type checkers)
    n: int
    time: np.ndarray
    n_risk: np.ndarray
    n_event: np.ndarray
    surv: np.ndarray
    type: str

    def __repr__(self):
        return f"KMFit(n={self.n}, times={self.time.size}, surv at the last time={float(self.surv[-1])!r})"


def _vector(x, message):
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        fail(message)
    if a.ndim != 1:
        fail(message)
    return a


def _check(time, event, weights):
    t = _vector(time, KM_TIME)
    if not np.isfinite(t).all():
        fail(KM_TIME)
    e = _vector(event, KM_EVENT)
    if not ((e == 0) | (e == 1)).all():
        fail(KM_EVENT)
    if e.size != t.size:
        fail(KM_LENGTH)
    if t.size == 0:
        fail(KM_EMPTY)
    if weights is None:
        w = np.ones(t.size)
    else:
        w = _vector(weights, KM_WEIGHTS)
        if w.size != t.size:
            fail(KM_LENGTH)
        if not (np.isfinite(w).all() and (w >= 0).all()):
            fail(KM_WEIGHTS)
    return t, e, w


def _fit(t, e, w, robust):
    """The C routine ``survfitkm`` for right-censored data, KM type, on checked arrays."""
    t = aeq_surv(t)
    order = np.argsort(t, kind="stable")  # R's order(): ties keep their index order
    ts, es, ws = t[order], e[order], w[order]
    n = ts.size
    starts = np.flatnonzero(np.concatenate(([True], ts[1:] != ts[:-1])))
    ends = np.concatenate((starts[1:], [n]))
    # weighted number at risk: one running double sum from the last observation backwards
    at_risk_rev = np.cumsum(ws[::-1])
    n_risk = at_risk_rev[n - 1 - starts]
    ew = ws * es
    d1 = ew[starts].copy()
    multi = np.flatnonzero(ends - starts > 1)
    for g in multi:
        s = 0.0
        for v in ew[starts[g]:ends[g]][::-1]:  # the C loop walks each time's rows backwards
            s += v
        d1[g] = s
    d0 = np.add.reduceat(es, starts)
    step = (d0 > 0) & (d1 > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = 1.0 - d1 / n_risk if robust else (n_risk - d1) / n_risk
    surv = np.multiply.accumulate(np.where(step, factor, 1.0))
    return KMFit(n=int(n), time=ts[starts], n_risk=n_risk, n_event=d1, surv=surv, type="right")


def km_fit(time, event, weights=None) -> KMFit:
    """The Kaplan-Meier curve, R ``survfit(Surv(time, event) ~ 1, weights = weights)``.

    Parameters
    ----------
    time : array_like
        Finite follow-up times.
    event : array_like
        1 for an event, 0 for censoring.
    weights : array_like, optional
        Non-negative case weights (R's ``weights``).

    Returns
    -------
    KMFit
        R's ``n``, ``time``, ``n.risk``, ``n.event`` (the weighted counts), ``surv`` and
        ``type``, as ``fit["n.risk"]`` or ``fit.n_risk``.

    Notes
    -----
    Times are first merged as R's ``aeqSurv`` does (``timefix = TRUE``); see the module
    notes for the order of R's arithmetic that is reproduced.
    """
    t, e, w = _check(time, event, weights)
    robust = weights is not None and bool((w != np.floor(w)).any())
    return _fit(t, e, w, robust)


def _read(fit, at):
    """``summary.survfit(times = at, extend = TRUE)$surv`` from a fit, in the order of ``at``."""
    idx = np.searchsorted(fit.time, at, side="right")  # findInterval(at, time)
    if fit.time[0] <= 0:
        # survfit0 adds no start row: before the first time R reads the first value
        return fit.surv[np.maximum(idx, 1) - 1]
    return np.where(idx == 0, 1.0, fit.surv[np.maximum(idx, 1) - 1])


def km_survival(time, event, at, weights=None) -> np.ndarray:
    """Kaplan-Meier survival at given times.

    R: ``summary(survfit(Surv(time, event) ~ 1, weights = weights), times = at,
    extend = TRUE)$surv`` (survival 3.5-3).

    Parameters
    ----------
    time : array_like
        Finite follow-up times.
    event : array_like
        1 for an event, 0 for censoring.
    at : float or array_like
        Finite times at which to read the curve.
    weights : array_like, optional
        Non-negative case weights.

    Returns
    -------
    numpy.ndarray
        The survival at each of ``at``, in the order given (R returns them for
        ``sort(at)``; the values are the same). Before the first time the survival is 1
        (when the curve starts at a time <= 0, R reads the value at that first time); past
        the last time it stays at the last value.

    Raises
    ------
    CalstatsError
        For non-finite or mismatched inputs, events other than 0/1, negative weights.
    """
    fit = km_fit(time, event, weights)
    a = _vector(np.atleast_1d(np.asarray(at, dtype=object)), KM_AT)
    if not np.isfinite(a).all():
        fail(KM_AT)
    return _read(fit, a)

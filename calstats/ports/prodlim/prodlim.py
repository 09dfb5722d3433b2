"""prodlim's product-limit estimators (prodlim 2019.11.13) for right-censored data without
covariates: the Kaplan-Meier curve of the event (``prodlim(Hist(time, status) ~ 1)``), of
the censoring (``reverse = TRUE``) and the Aalen-Johansen cumulative incidence of each cause
(``prodlim(Hist(time, event) ~ 1)`` for competing risks), with ``predict`` and
``predictSurvIndividual``.

riskRegression's ``Score`` weights by these curves and takes its null model from them, so
their arithmetic is prodlim's C code (``prodlim_surv``, ``prodlim_comprisk``, ``pl_step``):
the survival is the running product of ``1 - d / n`` (reverse: ``1 - c / (n - d)``, the
censorings at a time after its events); the cumulative incidence of cause j adds ``S(t-)
d_j / n`` at each time. The grid is every distinct time, censoring times included.
"""

import math

import numpy as np

from ..._robject import RObject

__all__ = ["ProdlimFit", "ProdlimCompetingFit", "prodlim_km", "prodlim_aj", "predict_step", "predict_individual"]


class ProdlimFit(RObject):
    """The fields of prodlim's ``prodlim`` object (a survival model: ``Hist(time, status) ~
    1``) that calstats computes, under R's names and in R's order (``fit["n.risk"]``,
    ``fit.names()``; see :class:`calstats._robject.RObject`).

    Attributes
    ----------
    time : ndarray
        The distinct times, censoring times included.
    n_risk, n_event, n_lost : ndarray
        ``fit$n.risk``, ``fit$n.event`` and ``fit$n.lost``: the number at risk, of events and
        of censored observations at each time (with ``reverse = TRUE`` too: R keeps the
        event's counts).
    surv : ndarray
        The event-free survival just after each time, or with ``reverse`` the censoring
        survival.
    model : str
        ``"survival"``.
    maxtime : float
        The largest time.
    reverse : bool
    type : str
        ``"surv"``, or ``"risk"`` with ``reverse`` (R's values).
    """

    _r_fields: tuple[str, ...] = ("time", "n.risk", "n.event", "n.lost", "surv", "model", "maxtime", "reverse",
                                  "type")
    # set by the constructor (declared for type checkers)
    time: np.ndarray
    n_risk: np.ndarray
    n_event: np.ndarray
    n_lost: np.ndarray
    surv: np.ndarray
    model: str
    maxtime: float
    reverse: bool
    type: str

    def __repr__(self):
        return f"{type(self).__name__}(model={self.model!r}, times={self.time.size}, reverse={self.reverse})"


class ProdlimCompetingFit(ProdlimFit):
    """prodlim's ``prodlim`` object of a competing-risks model (``Hist(time, event) ~ 1``):
    the fields of :class:`ProdlimFit` (``model`` ``"competing.risks"``, ``type``
    ``"risk"``), with ``n_event`` and ``cuminc`` one row per cause (R: lists named by the
    causes) and ``surv`` the event-free survival."""

    _r_fields = ("time", "n.risk", "n.event", "n.lost", "cuminc", "surv", "model", "maxtime", "reverse", "type")
    cuminc: np.ndarray


def _groups(time):
    order = np.argsort(time, kind="stable")
    ts = time[order]
    starts = np.flatnonzero(np.concatenate(([True], ts[1:] != ts[:-1])))
    return order, ts, starts


def prodlim_km(time, status, reverse=False) -> ProdlimFit:
    """``prodlim(Hist(time, status) ~ 1, reverse = reverse)`` (unweighted): the
    Kaplan-Meier curve of the event, or with ``reverse`` of the censoring."""
    time = np.asarray(time, dtype=np.float64)
    status = (np.asarray(status) != 0).astype(np.float64)
    order, ts, starts = _groups(time)
    ss = status[order]
    n = ts.size
    event = np.add.reduceat(ss, starts)
    loss = np.add.reduceat(1.0 - ss, starts)
    atrisk = n - np.concatenate(([0.0], np.cumsum(event + loss)[:-1]))
    d, rev = (loss, event) if reverse else (event, np.zeros_like(event))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(d > 0, 1 - d / (atrisk - rev), 1.0)
    surv = np.cumprod(factor)  # the running product in order (a factor 1 leaves it unchanged)
    return ProdlimFit(time=ts[starts], n_risk=atrisk, n_event=event, n_lost=loss, surv=surv, model="survival",
                      maxtime=float(ts[-1]) if n else math.nan, reverse=bool(reverse), type="risk" if reverse else "surv")


def prodlim_aj(time, cause, n_causes) -> ProdlimCompetingFit:
    """``prodlim(Hist(time, event) ~ 1)`` for competing risks: ``cause`` is 0 for a
    censored time and 1..``n_causes`` for the causes (their positions among the states).
    Returns the event-free survival and the cumulative incidence of each cause."""
    time = np.asarray(time, dtype=np.float64)
    cause = np.asarray(cause, dtype=np.int64)
    order, ts, starts = _groups(time)
    cs = cause[order]
    T = starts.size
    group = np.repeat(np.arange(T), np.diff(np.concatenate((starts, [ts.size]))))
    counts = np.bincount(cs * T + group, minlength=(n_causes + 1) * T).reshape(n_causes + 1, T).astype(np.float64)
    ev, loss = counts[1:], counts[0]
    d = np.zeros(T)
    for j in range(n_causes):  # d += ev[j] in the causes' order (integers: exact)
        d = d + ev[j]
    nrisk = float(ts.size) - np.concatenate(([0.0], np.cumsum(d + loss)[:-1]))
    factor = np.where(d > 0, 1 - d / nrisk, 1.0)
    surv = np.cumprod(factor)
    before = np.concatenate(([1.0], surv[:-1]))  # S(t-)
    risk = np.cumsum(before * (ev / nrisk), axis=1)  # inc[j] += S(t-) * (d_j / n), in time order
    return ProdlimCompetingFit(time=ts[starts], n_risk=nrisk, n_event=ev, n_lost=loss, cuminc=risk, surv=surv,
                               model="competing.risks", maxtime=float(ts[-1]) if ts.size else math.nan, reverse=False, type="risk")


def predict_step(fit_time, values, at, before=1.0):
    """``predict.prodlim(times = at)``: the value at the last time of the fit at or before
    each of ``at`` (``before`` ahead of the first time: 1 for a survival, 0 for a
    cumulative incidence), NaN beyond the last time."""
    at = np.asarray(at, dtype=np.float64)
    idx = np.searchsorted(fit_time, at, side="right")
    out = np.where(idx == 0, before, np.asarray(values)[np.maximum(idx, 1) - 1])
    return np.where(at > fit_time[-1], np.nan, out)


def predict_individual(fit, time, lag=1):
    """``predictSurvIndividual(fit, lag)``: the survival ``lag`` distinct times before each
    observation's own time (``lag = 1``: just before it; 1 before the first)."""
    loc = np.searchsorted(fit.time, np.asarray(time, dtype=np.float64))
    padded = np.concatenate((np.ones(lag), fit.surv))
    return padded[loc]

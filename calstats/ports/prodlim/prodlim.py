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

from typing import NamedTuple

import numpy as np

__all__ = ["ProdlimFit", "prodlim_km", "prodlim_aj", "predict_step", "predict_individual"]


class ProdlimFit(NamedTuple):
    """``time`` (distinct times), ``n_risk``, ``surv`` (the event-free or censoring
    survival), ``cuminc`` (competing risks: one row per cause, else None)."""

    time: np.ndarray
    n_risk: np.ndarray
    surv: np.ndarray
    cuminc: np.ndarray | None


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
    surv = np.empty(starts.size)
    s = 1.0
    for k in range(starts.size):
        d, rev = (loss[k], event[k]) if reverse else (event[k], 0.0)
        if d > 0:
            s *= 1 - d / (atrisk[k] - rev)
        surv[k] = s
    return ProdlimFit(ts[starts], atrisk, surv, None)


def prodlim_aj(time, cause, n_causes) -> ProdlimFit:
    """``prodlim(Hist(time, event) ~ 1)`` for competing risks: ``cause`` is 0 for a
    censored time and 1..``n_causes`` for the causes (their positions among the states).
    Returns the event-free survival and the cumulative incidence of each cause."""
    time = np.asarray(time, dtype=np.float64)
    cause = np.asarray(cause, dtype=np.int64)
    order, ts, starts = _groups(time)
    cs = cause[order]
    ends = np.concatenate((starts[1:], [ts.size]))
    T = starts.size
    surv = np.empty(T)
    risk = np.zeros((n_causes, T))
    nrisk = np.empty(T)
    inc = np.zeros(n_causes)
    S = 1.0
    n = float(ts.size)
    for k in range(T):
        block = cs[starts[k]:ends[k]]
        ev = np.array([float(np.count_nonzero(block == j + 1)) for j in range(n_causes)])
        loss = float(np.count_nonzero(block == 0))
        nrisk[k] = n
        d = 0.0
        for j in range(n_causes):
            inc[j] += S * (ev[j] / n)
            risk[j, k] = inc[j]
            d += ev[j]
        if d > 0:
            S *= 1 - d / n
        surv[k] = S
        n -= d + loss
    return ProdlimFit(ts[starts], nrisk, surv, risk)


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

"""riskRegression's ``Score`` for a time-to-event outcome (riskRegression 2022.11.28): the
time-dependent AUC and Brier score of predicted risks at given horizons, with inverse
probability of censoring weights from the Kaplan-Meier estimate of the censoring
distribution and standard errors from the influence function (``conservative = FALSE``,
``cens.model = "KaplanMeier"``, ``split.method = "none"``).

The steps are Score's:

* the rows are sorted by ``(time, -status)`` (an event before a censoring at the same time);
  horizons are sorted, and those beyond the last follow-up time are dropped (R's message);
* the weights are prodlim's reverse Kaplan-Meier curve ``G``: ``WTi = G(T_i-)``
  (``predictSurvIndividual(lag = 1)``) for a subject with an event by the horizon, ``Wt =
  G(t)`` for those still event-free after it; a subject censored by the horizon weighs 0.
  With no censored time at all every weight is 1 and the standard error is the
  "conservative" one (R's ``cens.type = "uncensored"``);
* **AUC** (``AUC.survival``, ``AUC.competing.risks``): cases have the event (the cause)
  by ``t``, controls are event-free after ``t`` (competing risks: also those with another
  cause by ``t``); sorted by decreasing risk, the weighted true- and false-positive rates
  are cumulated (R's long-double ``cumsum``) and read at the last row of each run of tied
  risks, and the area is the trapezoidal sum (so tied risks count one half);
* **Brier** (``Brier.survival``, ``Brier.competing.risks``): the mean over all subjects of
  ``(1 - risk)^2 / WTi`` (event, the cause, by ``t``), ``risk^2 / WTi`` (another cause by
  ``t``), ``risk^2 / Wt`` (event-free after ``t``) and 0 (censored by ``t``);
* standard errors: ``sd(IF) / sqrt(n)`` with the influence function of the estimate with
  known weights (``getIC0AUC``; ``residuals - mean(residuals)`` for the Brier score) plus
  the term of the Kaplan-Meier censoring estimate (riskRegression's C++
  ``getInfluenceFunctionAUCKMCensoringTerm``, ``getInfluenceFunctionBrierKMCensoringTerm``),
  ported statement by statement.

Two things riskRegression does that a port keeps: the AUC's influence function (for its
standard error) codes cases as event code 1 and controls as code 2, whatever the cause of
interest; and its C++ forms ``n * n`` in a 32-bit integer, which overflows from n = 46 341
on (calstats computes ``n * n`` exactly there, so R's standard errors are wrong and
calstats' are not).
"""

import math
from typing import NamedTuple

import numpy as np

from ...numerics.reductions import LD, rmean, rsum
from ..prodlim.prodlim import predict_individual, predict_step, prodlim_aj, prodlim_km

__all__ = ["ScoreData", "score_data", "censoring_weights", "auc_ipcw", "brier_ipcw", "null_risk", "dint_ibs",
           "r_sd", "r_cumsum"]


class ScoreData(NamedTuple):
    """The outcome as Score holds it: sorted by ``(time, -status)``; ``order`` maps sorted
    rows to the caller's rows; ``event`` is 0 (censored) or the position of the cause
    among the causes (1..K); ``times`` are the horizons kept, ``dropped`` those beyond the
    last follow-up time."""

    time: np.ndarray
    status: np.ndarray
    event: np.ndarray
    order: np.ndarray
    times: np.ndarray
    dropped: np.ndarray
    maxtime: float
    censored: bool


def score_data(time, event, times) -> ScoreData:
    """Sort as Score does and keep the horizons up to the last follow-up time."""
    time = np.asarray(time, dtype=np.float64)
    event = np.asarray(event, dtype=np.int64)
    status = (event != 0).astype(np.int64)
    order = np.lexsort((-status, time))  # setorder(data, time, -status): stable
    ts = time[order]
    maxtime = float(ts[-1])
    u = np.unique(np.asarray(times, dtype=np.float64))
    keep = u <= maxtime
    return ScoreData(ts, status[order], event[order], order, u[keep], u[~keep], maxtime, bool((status == 0).any()))


def censoring_weights(data: ScoreData):
    """``(WTi, Wt)``: ``G(T_i-)`` per (sorted) subject and ``G(t)`` per horizon, from
    prodlim's reverse Kaplan-Meier curve; all 1 without censoring."""
    if not data.censored:
        return np.ones(data.time.size), np.ones(data.times.size)
    fit = prodlim_km(data.time, data.status, reverse=True)
    return predict_individual(fit, data.time, lag=1), predict_step(fit.time, fit.surv, data.times)


def null_risk(data: ScoreData, cause_index=None):
    """The null model's risk at each horizon: 1 - Kaplan-Meier, or the Aalen-Johansen
    cumulative incidence of the cause (prodlim, as ``getNullModel``)."""
    if cause_index is None:
        fit = prodlim_km(data.time, data.status)
        return 1.0 - predict_step(fit.time, fit.surv, data.times)
    k = int(data.event.max())
    fit = prodlim_aj(data.time, data.event, k)
    assert fit.cuminc is not None
    return predict_step(fit.time, fit.cuminc[cause_index - 1], data.times, before=0.0)


def r_cumsum(x):
    """R's ``cumsum`` of doubles: a long-double running sum, each value rounded to double."""
    return np.cumsum(np.asarray(x, dtype=np.float64).astype(LD)).astype(np.float64)


def r_sd(x):
    """R's ``sd``: ``sqrt(var(x))``, the mean and the sum of squares in long double
    (``cov.c``, with its second pass for the mean)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n < 2:
        return math.nan
    xl = x.astype(LD)
    m = np.cumsum(xl)[-1] / LD(n)
    if math.isfinite(float(m)):
        m = m + np.cumsum(xl - m)[-1] / LD(n)
    d = x - float(m)  # R's cov.c: the deviations and their squares in double
    return math.sqrt(float(np.cumsum((d * d).astype(LD))[-1] / LD(n - 1)))


def _km_influence(time, status):
    """riskRegression's ``getInfluenceFunctionKM``: ``(atrisk, MC_term2, sindex, utime)``
    for times sorted increasingly."""
    n = time.size
    utime = np.unique(time)
    nu = utime.size
    atrisk = np.zeros(nu)
    mc = np.zeros(nu)
    cens = np.zeros(nu)
    sindex = np.zeros(n, dtype=np.int64)
    t = 0
    Y = float(n)
    atrisk[0] = Y
    cens[0] = 1.0 if status[0] == 0 else 0.0
    mc[0] += cens[0] / Y
    for i in range(1, n + 1):
        if i < n and time[i] == time[i - 1]:
            cens[t] += 1.0 if status[i] == 0 else 0.0
            Y -= 1
            sindex[i] = t
        else:
            utime[t] = time[i - 1]
            hazard = cens[t] / atrisk[t]
            mc[t] = hazard * n / atrisk[t]
            if i < n:
                t += 1
                sindex[i] = t
                Y -= 1
                atrisk[t] = Y
                cens[t] = 1.0 if status[i] == 0 else 0.0
    return atrisk, np.cumsum(mc), sindex, utime


def _firsthit(time, tau):
    return int(np.searchsorted(time, tau, side="right")) - 1


def _fihattau(i, j, time, status, n, atrisk, mc, sindex, utime):
    if utime[sindex[j]] < time[i]:
        return -mc[sindex[j]]
    return (0.0 if status[i] != 0 else 1.0) * n / atrisk[sindex[i]] - mc[sindex[i]]


def _ic0_auc(time, status, tau, risk, gti, gtau, auc):
    """riskRegression's C++ ``getIC0AUC``."""
    n = time.size
    nn = float(n) * float(n)
    ic0Case = np.zeros(n)
    ic0Control = np.zeros(n)
    weights = np.zeros(n)
    muCase = muControls = 0.0
    firsthit = _firsthit(time, tau)
    if firsthit == -1:
        firsthit = 0
    for i in range(firsthit + 1):
        if status[i] == 1:
            weights[i] = 1.0 / gti[i]
            muCase += weights[i]
        elif status[i] == 2:
            weights[i] = 1.0 / gti[i]
            muControls += weights[i]
    for i in range(firsthit + 1, n):
        weights[i] = 1.0 / gtau[i]
        muControls += weights[i]
    mu = muCase * muControls / nn
    nu = auc * mu
    ordering = np.argsort(risk, kind="stable")
    case = (time <= tau) & (status == 1)
    control = ((time <= tau) & (status == 2)) | (time > tau)
    valCurr = valPrev = 0.0
    i = n - 1
    while i >= 0:
        tie = i
        while tie >= 0 and risk[ordering[tie]] == risk[ordering[i]]:
            if case[ordering[tie]]:
                valCurr += weights[ordering[tie]]
            tie -= 1
        for l in range(i, tie, -1):
            o = ordering[l]
            ic0Control[o] = 0.5 * (valPrev + valCurr - weights[o]) if case[o] else 0.5 * (valPrev + valCurr)
        i = tie
        valPrev = valCurr
    valCurr = valPrev = 0.0
    i = 0
    while i < n:
        tie = i
        while tie < n and risk[ordering[tie]] == risk[ordering[i]]:
            if control[ordering[tie]]:
                valCurr += weights[ordering[tie]]
            tie += 1
        for l in range(i, tie):
            o = ordering[l]
            ic0Case[o] = 0.5 * (valPrev + valCurr - weights[o]) if control[o] else 0.5 * (valPrev + valCurr)
        i = tie
        valPrev = valCurr
    ic0 = np.zeros(n)
    for i in range(n):
        if case[i]:
            num = weights[i] / n * ic0Case[i]
            den = weights[i] / n * muControls
        elif control[i]:
            num = weights[i] / n * ic0Control[i]
            den = weights[i] / n * muCase
        else:
            num = den = 0.0
        ic0[i] = (num * mu - den * nu) / (mu * mu)
    return ic0, ic0Case, ic0Control, weights, muCase, muControls, nu, firsthit


def _auc_km_term(time, status, tau, ic0Case, ic0Controls, weights, firsthit, muCase, muControls, nu1, gtau):
    """riskRegression's C++ ``getInfluenceFunctionAUCKMCensoringTerm``."""
    n = time.size
    nn = float(n) * float(n)
    atrisk, mc, sindex, utime = _km_influence(time, status)
    icpart = np.zeros(n)
    t2np1 = t2dp1 = t3np1 = t3dp1 = 0.0
    t2np2 = nu1 * nn
    t2dp2 = muCase
    sumPartNum = 0.0
    for i in range(firsthit + 1, n):
        sumPartNum += ic0Controls[i]
    sumPartNum /= gtau
    sumPartDen = float(n - (firsthit + 1)) / gtau
    t3np2 = nu1 * nn - sumPartNum
    t3dp2 = muControls - sumPartDen
    mu = muCase * muControls / nn
    tie = 0
    while tie < n and time[tie] == time[0]:
        if time[tie] <= tau and status[tie] == 1:
            t2np2 -= ic0Case[tie] * weights[tie]
            t2dp2 -= weights[tie]
        elif time[tie] <= tau and status[tie] == 2:
            t3np2 -= ic0Controls[tie] * weights[tie]
            t3dp2 -= weights[tie]
        tie += 1
    upper = tie - 1
    for i in range(n):
        j = firsthit if i > firsthit else i
        f = _fihattau(i, j, time, status, n, atrisk, mc, sindex, utime)
        term2num = 1.0 / nn * (t2np1 + f * t2np2)
        term2den = 1.0 / nn * (t2dp1 + f * t2dp2) * muControls
        term3num = 1.0 / nn * (t3np1 + f * t3np2 + f * sumPartNum)
        term3den = 1.0 / nn * (t3dp1 + f * t3dp2 + f * sumPartDen) * muCase
        if upper == i:
            tie = i + 1
            while tie < n and time[tie] == time[i + 1]:
                m = mc[sindex[i]]
                if time[tie] <= tau and status[tie] == 1:
                    t2np1 -= ic0Case[tie] * m * weights[tie]
                    t2dp1 -= m * weights[tie]
                    t2np2 -= ic0Case[tie] * weights[tie]
                    t2dp2 -= weights[tie]
                elif time[tie] <= tau and status[tie] == 2:
                    t3np1 -= ic0Controls[tie] * m * weights[tie]
                    t3dp1 -= weights[tie] * m
                    t3np2 -= ic0Controls[tie] * weights[tie]
                    t3dp2 -= weights[tie]
                tie += 1
            upper = tie - 1
        icpart[i] = ((term2num + term3num) * mu - (term2den + term3den) * nu1) / (mu * mu)
    return icpart


def _brier_km_term(tau, time, residuals, status):
    """riskRegression's C++ ``getInfluenceFunctionBrierKMCensoringTerm``."""
    n = time.size
    atrisk, mc, sindex, utime = _km_influence(time, status)
    firsthit = _firsthit(time, tau)
    icpart1 = icpart2 = icpart = 0.0
    for i in range(n):
        if status[i] != 0 and time[i] <= tau:
            icpart2 += residuals[i]
        elif time[i] > tau:
            icpart += residuals[i]
    icpart = icpart / float(n)
    tie = 0
    while tie < n and time[tie] == time[0]:
        if time[tie] <= tau and status[tie] != 0:
            icpart2 -= residuals[tie]
        tie += 1
    upper = tie - 1
    out = np.zeros(n)
    for i in range(n):
        j = firsthit if i > firsthit else i
        if j == -1:
            f = 0.0
        else:
            f = _fihattau(i, j, time, status, n, atrisk, mc, sindex, utime)
        icterm = 1.0 / n * (icpart1 + f * icpart2)
        icterm2 = icpart * f
        if upper == i:
            tie = i + 1
            while tie < n and time[tie] == time[i + 1]:
                if time[tie] <= tau and status[tie] != 0:
                    icpart1 -= residuals[tie] * mc[sindex[i]]
                    icpart2 -= residuals[tie]
                tie += 1
            upper = tie - 1
        out[i] = icterm + icterm2
    return out


def auc_ipcw(data: ScoreData, risk, t, wti, wt, cause_index=None, se=True):
    """``(AUC, se, influence)`` of one model at horizon ``t`` (``risk`` and the influence
    function in sorted order), as ``AUC.survival`` (``cause_index`` None) or
    ``AUC.competing.risks``."""
    n = data.time.size
    time, status, event = data.time, data.status, data.event
    order = np.argsort(-risk, kind="stable")  # setorder(model, times, -risk)
    r = risk[order]
    if cause_index is None:
        cases = (time <= t) & (status == 1)
    else:
        cases = (time <= t) & (event == cause_index)
    with np.errstate(divide="ignore", invalid="ignore"):
        ipcw_cases = np.where(cases, 1.0 / (wti * n), 0.0)[order]
        c1 = np.where(time > t, 1.0 / (wt * n), 0.0)[order]
        tpr = r_cumsum(ipcw_cases) / rsum(ipcw_cases)
        if cause_index is None:
            fpr = r_cumsum(c1) / rsum(c1)
        else:
            c2 = np.where((time <= t) & (event != cause_index) & (status != 0), 1.0 / (wti * n), 0.0)[order]
            fpr = (r_cumsum(c1) + r_cumsum(c2)) / (rsum(c2) + rsum(c1))
    last = np.concatenate((r[1:] != r[:-1], [True]))
    fp, tp = fpr[last], tpr[last]
    fp0 = np.concatenate(([0.0], fp[:-1]))
    tp0 = np.concatenate(([0.0], tp[:-1]))
    auc = rsum((fp - fp0) * ((tp0 + tp) / 2))
    if not se:
        return auc, math.nan, None
    codes = status if cause_index is None else status * event
    gtau = np.full(n, wt)
    ic0, ic0Case, ic0Control, weights, muCase, muControls, nu, firsthit = _ic0_auc(time, codes, t, risk, wti, gtau,
                                                                                    auc)
    if data.censored:
        ic = ic0 + _auc_km_term(time, codes, t, ic0Case, ic0Control, weights, firsthit, muCase, muControls, nu, wt)
    else:
        ic = ic0
    return auc, r_sd(ic) / math.sqrt(n), ic


def brier_ipcw(data: ScoreData, risk, t, wti, wt, cause_index=None, se=True):
    """``(Brier, se, residuals, influence)`` of one model at horizon ``t`` (``risk``, the
    residuals and the influence function in sorted order), as ``Brier.survival``
    (``cause_index`` None) or ``Brier.competing.risks``."""
    n = data.time.size
    time, status, event = data.time, data.status, data.event
    res = np.zeros(n)
    by = time <= t
    if cause_index is None:
        hit = by & (status == 1)
        res[hit] = (1 - risk[hit]) ** 2 / wti[hit]
    else:
        hit = by & (status == 1) & (event == cause_index)
        other = by & (status == 1) & (event != cause_index)
        res[hit] = (1 - risk[hit]) ** 2 / wti[hit]
        res[other] = risk[other] ** 2 / wti[other]
    after = time > t
    res[after] = risk[after] ** 2 / wt
    brier = rsum(res) / n
    if not se:
        return brier, math.nan, res, None
    ic = res - rmean(res)
    if data.censored:
        ic = ic + _brier_km_term(t, time, res, status if cause_index is None else status * event)
    return brier, r_sd(ic) / math.sqrt(n), res, ic


def dint_ibs(times, brier, upper):
    """riskRegression's integrated Brier score (``summary = "ibs"``): ``Dint(c(0, times),
    c(0, brier), range = c(0, upper))``, the step function that holds each horizon's Brier
    score until the next horizon, integrated from 0 to ``upper`` and divided by ``upper``."""
    x = np.concatenate(([0.0], np.asarray(times, dtype=np.float64)))
    y = np.concatenate(([0.0], np.asarray(brier, dtype=np.float64)))
    start = max(0.0, float(x.min()))
    stop = min(float(upper), float(x.max()))
    if stop - start <= 0:
        return 0.0
    keep = (x >= start) & (x < stop)
    X, Y = x[keep], y[keep]
    if np.isnan(Y).any() or np.isnan(X).any():
        return math.nan
    return 1 / (stop - start) * rsum(Y * np.diff(np.concatenate((X, [stop]))))

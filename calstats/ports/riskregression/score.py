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

import numpy as np

from ..._robject import RObject
from ...numerics.reductions import LD, rmean, rsum
from ..prodlim.prodlim import predict_individual, predict_step, prodlim_aj, prodlim_km

__all__ = ["ScoreData", "score_data", "censoring_weights", "auc_ipcw", "brier_ipcw", "null_risk", "dint_ibs",
           "r_sd", "r_cumsum"]


class ScoreData(RObject):
    """The outcome as ``Score`` holds it, under the names of Score's variables (``data$time``,
    ``data$status``, ``data$event``, ``times``, ``maxtime``, ``cens.type``; see
    :class:`calstats._robject.RObject`).

    Attributes
    ----------
    time, status, event : ndarray
        The rows sorted by ``(time, -status)`` (``setorder(data, time, -status)``);
        ``event`` is 0 (censored) or the position of the cause among the causes (1..K).
    times : ndarray
        The horizons kept (sorted, distinct, at most ``maxtime``).
    maxtime : float
        The last follow-up time.
    cens_type : str
        ``fit["cens.type"]``: ``"rightCensored"``, or ``"uncensored"`` when no time is
        censored.

    Not R fields: ``order`` (maps the sorted rows to the caller's rows), ``dropped`` (the
    horizons beyond ``maxtime``, R's ``times[!include.times]``) and ``censored`` (whether
    ``cens.type`` is ``"rightCensored"``).
    """

    _r_fields = ("time", "status", "event", "times", "maxtime", "cens.type")
    _extras = ("order", "dropped")
    # set by the constructor (declared for type checkers)
    time: np.ndarray
    status: np.ndarray
    event: np.ndarray
    times: np.ndarray
    maxtime: float
    cens_type: str
    order: np.ndarray
    dropped: np.ndarray

    @property
    def censored(self) -> bool:
        """Whether some time is censored (``cens.type == "rightCensored"``)."""
        return self.cens_type == "rightCensored"

    def __repr__(self):
        return f"ScoreData(n={self.time.size}, times={self.times.tolist()!r}, cens.type={self.cens_type!r})"


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
    return ScoreData(time=ts, status=status[order], event=event[order], times=u[keep], maxtime=maxtime,
                     cens_type="rightCensored" if (status == 0).any() else "uncensored", order=order,
                     dropped=u[~keep])


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


def _seq_sum(x):
    """A double sum from 0 in index order, as the C++ loops' ``+=`` (``np.cumsum``
    accumulates in order; ``np.sum`` is pairwise)."""
    return float(np.cumsum(np.concatenate(([0.0], np.asarray(x, dtype=np.float64))))[-1])


def _running(init, terms, take, upto):
    """The C++ loops' running ``s -= term`` from ``init`` over the rows where ``take`` is
    true, in row order: ``s`` once the rows ``0..upto[k]`` have been taken, for each ``k``
    (``upto[k] = -1``: none yet). ``s - t`` is ``s + (-t)`` exactly, so a cumulative sum
    gives the loop's bits."""
    seq = np.cumsum(np.concatenate(([init], -np.asarray(terms, dtype=np.float64)[take])))
    count = np.concatenate(([0], np.cumsum(take)))
    return seq[count[np.asarray(upto) + 1]]


def _time_groups(time):
    """Runs of equal (sorted) times: the first and the last row of each, each row's run."""
    first = np.concatenate(([True], time[1:] != time[:-1]))
    starts = np.flatnonzero(first)
    ends = np.concatenate((starts[1:] - 1, [time.size - 1]))
    return starts, ends, np.cumsum(first) - 1


def _km_influence(time, status):
    """riskRegression's ``getInfluenceFunctionKM``: ``(atrisk, MC_term2, sindex, utime)``
    for times sorted increasingly: per run of tied times its number at risk and the
    cumulated ``hazard * n / atrisk``, each row's run, the distinct times."""
    n = time.size
    starts, _, sindex = _time_groups(time)
    atrisk = (n - starts).astype(np.float64)
    cens = np.add.reduceat((status == 0).astype(np.float64), starts)
    hazard = cens / atrisk
    mc = hazard * n / atrisk
    return atrisk, np.cumsum(mc), sindex, time[starts]


def _firsthit(time, tau):
    return int(np.searchsorted(time, tau, side="right")) - 1


def _fihattau(time, status, firsthit, atrisk, mc, sindex, utime):
    """The C++ ``fihattau(i, j)`` for every row ``i``, with ``j = i`` up to ``firsthit`` and
    ``firsthit`` after it (0 everywhere when ``firsthit`` is -1, the Brier term's rule)."""
    n = time.size
    i = np.arange(n)
    if firsthit < 0:
        return np.zeros(n)
    sj = sindex[np.where(i > firsthit, firsthit, i)]
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.where(status != 0, 0.0, 1.0) * n / atrisk[sindex] - mc[sindex]
    return np.where(utime[sj] < time, -mc[sj], own)


def _tied_running(weights, take, ordered_risk):
    """``(valPrev, valCurr)`` of getIC0AUC's walk over rows sorted by risk: the running sum
    of the ``take`` rows' weights at the end of the run of tied risks before each row's
    own and at the end of its own run."""
    run = np.cumsum(np.where(take, weights, 0.0))  # adding 0.0 leaves a (non-negative) sum unchanged
    last = np.concatenate((ordered_risk[1:] != ordered_risk[:-1], [True]))
    ends = np.flatnonzero(last)
    group = np.concatenate(([0], np.cumsum(last)[:-1]))
    curr = run[ends]
    prev = np.concatenate(([0.0], curr[:-1]))
    return prev[group], curr[group]


def _ic0_auc(time, status, tau, risk, gti, gtau, auc):
    """riskRegression's C++ ``getIC0AUC`` (its loops as running sums in their order)."""
    n = time.size
    nn = float(n) * float(n)
    firsthit = _firsthit(time, tau)
    if firsthit == -1:
        firsthit = 0
    early = np.arange(n) <= firsthit
    m1 = early & (status == 1)
    m2 = early & (status == 2)
    weights = np.zeros(n)
    with np.errstate(divide="ignore"):
        weights[m1 | m2] = 1.0 / gti[m1 | m2]
        weights[~early] = 1.0 / gtau[~early]
    muCase = _seq_sum(weights[m1])
    muControls = _seq_sum(np.concatenate((weights[m2], weights[~early])))
    mu = muCase * muControls / nn
    nu = auc * mu
    ordering = np.argsort(risk, kind="stable")
    case = (time <= tau) & (status == 1)
    control = ((time <= tau) & (status == 2)) | (time > tau)
    ic0Case = np.zeros(n)
    ic0Control = np.zeros(n)
    with np.errstate(invalid="ignore"):
        # from the highest risk down: the cases' weights
        down = ordering[::-1]
        prev, curr = _tied_running(weights[down], case[down], risk[down])
        ic0Control[down] = np.where(case[down], 0.5 * (prev + curr - weights[down]), 0.5 * (prev + curr))
        # from the lowest risk up: the controls' weights
        prev, curr = _tied_running(weights[ordering], control[ordering], risk[ordering])
        ic0Case[ordering] = np.where(control[ordering], 0.5 * (prev + curr - weights[ordering]),
                                     0.5 * (prev + curr))
    with np.errstate(divide="ignore", invalid="ignore"):
        wn = weights / n
        num = np.where(case, wn * ic0Case, np.where(control, wn * ic0Control, 0.0))
        den = np.where(case, wn * muControls, np.where(control, wn * muCase, 0.0))
        ic0 = (num * mu - den * nu) / (mu * mu)
    return ic0, ic0Case, ic0Control, weights, muCase, muControls, nu, firsthit


def _auc_km_term(time, status, tau, ic0Case, ic0Controls, weights, firsthit, muCase, muControls, nu1, gtau):
    """riskRegression's C++ ``getInfluenceFunctionAUCKMCensoringTerm``: its running sums,
    updated after the last row of each run of tied times by the next run's rows, as
    cumulative sums read at each row's run."""
    n = time.size
    nn = float(n) * float(n)
    atrisk, mc, sindex, utime = _km_influence(time, status)
    _, ends, group = _time_groups(time)
    with np.errstate(divide="ignore", invalid="ignore"):
        sumPartNum = _seq_sum(ic0Controls[firsthit + 1:]) / gtau
        sumPartDen = float(n - (firsthit + 1)) / gtau
        mu = muCase * muControls / nn
        cases = (time <= tau) & (status == 1)
        controls = (time <= tau) & (status == 2)
        later = group > 0  # the first run is taken before the loop, without the martingale term
        m = mc[np.maximum(group - 1, 0)]  # mc at the last row of the run before
        upto = ends[group]  # each row sees the runs up to its own taken
        t2np2 = _running(nu1 * nn, ic0Case * weights, cases, upto)
        t2dp2 = _running(muCase, weights, cases, upto)
        t3np2 = _running(nu1 * nn - sumPartNum, ic0Controls * weights, controls, upto)
        t3dp2 = _running(muControls - sumPartDen, weights, controls, upto)
        t2np1 = _running(0.0, ic0Case * m * weights, cases & later, upto)
        t2dp1 = _running(0.0, m * weights, cases & later, upto)
        t3np1 = _running(0.0, ic0Controls * m * weights, controls & later, upto)
        t3dp1 = _running(0.0, weights * m, controls & later, upto)
        f = _fihattau(time, status, firsthit, atrisk, mc, sindex, utime)
        term2num = 1.0 / nn * (t2np1 + f * t2np2)
        term2den = 1.0 / nn * (t2dp1 + f * t2dp2) * muControls
        term3num = 1.0 / nn * (t3np1 + f * t3np2 + f * sumPartNum)
        term3den = 1.0 / nn * (t3dp1 + f * t3dp2 + f * sumPartDen) * muCase
        return ((term2num + term3num) * mu - (term2den + term3den) * nu1) / (mu * mu)


def _brier_km_term(tau, time, residuals, status):
    """riskRegression's C++ ``getInfluenceFunctionBrierKMCensoringTerm`` (running sums as
    cumulative sums, as :func:`_auc_km_term`)."""
    n = time.size
    atrisk, mc, sindex, utime = _km_influence(time, status)
    _, ends, group = _time_groups(time)
    firsthit = _firsthit(time, tau)
    hits = (status != 0) & (time <= tau)
    icpart = _seq_sum(residuals[time > tau]) / float(n)
    upto = ends[group]
    icpart2 = _running(_seq_sum(residuals[hits]), residuals, hits, upto)
    m = mc[np.maximum(group - 1, 0)]
    icpart1 = _running(0.0, residuals * m, hits & (group > 0), upto)
    f = _fihattau(time, status, firsthit, atrisk, mc, sindex, utime)
    icterm = 1.0 / n * (icpart1 + f * icpart2)
    icterm2 = icpart * f
    return icterm + icterm2


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

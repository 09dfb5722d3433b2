"""Discrimination and accuracy of predicted risks of a time-to-event outcome, as R computes them.

* :func:`concordance` -- Harrell's and Uno's C (``survival::concordance(..., reverse =
  TRUE)``, every ``timewt``), with the infinitesimal-jackknife standard error;
* :func:`time_auc` -- the time-dependent AUC with inverse probability of censoring weights
  (``riskRegression::Score(metrics = "auc")``);
* :func:`time_brier` -- the time-dependent Brier score beside the null model's
  (``Score(metrics = "brier")``), for a right-censored or a competing-risk outcome;
* :func:`integrated_brier` -- the integrated Brier score (``Score(summary = "ibs")`` and
  ``pec::crps``);
* :func:`cox_calibration_slope` -- van Houwelingen's calibration slope (``coxph(Surv(time,
  status) ~ lp)``).

Every function reads its outcome with calstats' one reader of a time-to-event outcome
(:mod:`calstats._surv`): ``time`` and ``status`` as two vectors, or a whole outcome
(``calstats.Surv``, a pair, an n x 2 array or frame) as ``time`` with ``status=None``.
"""

import html as _html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._frames import native
from .._plotting import pyplot
from .._surv import SurvOutcome, read_surv_args
from .._typing import ArrayLike
from .._validate import (
    check_horizons,
    check_interval,
    check_numeric,
    check_open_unit,
    check_prob,
    check_risk_columns,
    check_risk_columns_order,
    check_same_length,
    check_slope_estimable,
    fail_no_models,
    match_arg,
    refuse_cause_for_pec,
    refuse_model_name,
    refuse_weights,
    warn_horizons_dropped,
)
from .._weights import check_weights
from ..numerics.nmath import pchisq_upper, pnorm_lower
from ..numerics.rformat import format_named_vector, format_real, print_data_frame
from ..ports.riskregression.score import (
    auc_ipcw,
    brier_ipcw,
    censoring_weights,
    dint_ibs,
    null_risk,
    r_sd,
    score_data,
)
from ..ports.survival.concordance import TIMEWTS, concordancefit
from ..ports.survival.coxph import coxph_fit
from ..results._base import Result
from ..results._tables import table_html

__all__ = ["concordance", "Concordance", "time_auc", "TimeAUC", "time_brier", "TimeBrier", "integrated_brier",
           "IntegratedBrier", "cox_calibration_slope", "CoxCalibrationSlope"]

NULL_MODEL = "Null model"


def _qnorm(p):
    from scipy.special import ndtri

    return float(ndtri(p))


# --------------------------------------------------------------------------------------
# inputs


def outcome(time, status, cause=None) -> SurvOutcome:
    """The checked outcome: right-censored, or competing risks when ``cause`` is given."""
    return read_surv_args(time, status, ("time", "status"), competing=cause is not None)


def _models(risk, n, times, prob):
    """``[(name, n x len(times) matrix)]``: one model (a vector, the same risk at every
    horizon, or a matrix with a column per horizon) or several (a dict, or the columns of
    a DataFrame: pandas, or any frame :func:`calstats._frames.native` reads)."""
    risk = native(risk, "risk")
    if isinstance(risk, Mapping):
        items = [(str(k), v, f'risk["{k}"]') for k, v in risk.items()]
    elif isinstance(risk, pd.DataFrame):
        items = [(str(c), risk[c], f'risk["{c}"]') for c in risk.columns]
    else:
        name = str(risk.name) if isinstance(risk, pd.Series) and risk.name is not None else "model"
        items = [(name, risk, "risk")]
    if not items:
        fail_no_models("risk")
    for name, _, _ in items:
        refuse_model_name(name, NULL_MODEL)
        refuse_model_name(name, "Reference")
    n_times = np.unique(times).size
    out = []
    for name, values, arg in items:
        a = values.to_numpy() if hasattr(values, "to_numpy") else values
        if np.ndim(a) == 2 and np.shape(a)[1] != 1:
            check_risk_columns(np.shape(a)[1], n_times, arg)
            check_risk_columns_order(times, arg)
            cols = [(check_prob if prob else check_numeric)(np.asarray(a)[:, j], arg) for j in range(np.shape(a)[1])]
            m = np.column_stack(cols)
        else:
            v = (check_prob if prob else check_numeric)(a, arg)
            m = np.repeat(v[:, None], n_times, axis=1)
        check_same_length(arg, "time", m.shape[0], n)
        out.append((name, m))
    return out


def _setup(time, status, risk, times, cause, prob):
    """The outcome, Score's data (sorted, horizons kept), the models and the cause."""
    out = outcome(time, status, cause)
    code = label = None
    event = np.asarray(out.status, dtype=np.int64)
    if cause is not None:
        label = out.cause_label(out.cause_code(cause))
        codes = np.unique(event[event != 0])
        positions = {int(c): k + 1 for k, c in enumerate(codes)}
        code = positions.get(out.cause_code(cause), 0)
        event = np.where(event == 0, 0, np.searchsorted(codes, event) + 1).astype(np.int64)
    kept, dropped = check_horizons(times, float(out.time.max()))
    if dropped.size:
        warn_horizons_dropped(float(out.time.max()))
    data = score_data(out.time, event, kept)
    given = check_numeric(times, "times")
    models = _models(risk, out.n, given, prob)
    columns = np.isin(np.unique(given), kept)  # the kept horizons among the given ones, sorted
    models = [(name, m[:, columns][data.order]) for name, m in models]
    return out, data, models, (code, label)


# --------------------------------------------------------------------------------------
# printing as R's data.table does


def _dt_text(columns):
    """``print(<data.table>)``: row numbers ``1:``, ``2:``, ... right-aligned; columns as given
    (``(header, cells)``)."""
    n = len(columns[0][1])
    rows = [f"{i + 1}:" for i in range(n)]
    w = max(len(r) for r in rows)
    return print_data_frame([r.rjust(w) for r in rows], columns)


def _pct(values, digits=1):
    return [("%1." + str(digits) + "f") % (100 * v) if not math.isnan(v) else "NaN" for v in values]


def _num(values, digits=7):
    vals = [float(v) for v in values]
    fin = [v for v in vals if not math.isnan(v)]
    it = iter([s.strip() for s in format_real(fin, digits)]) if fin else iter(())
    return [next(it) if not math.isnan(v) else "NA" for v in vals]


# --------------------------------------------------------------------------------------
# concordance


class Concordance(Result):
    """The result of :func:`concordance` (R: the ``concordance`` object of
    ``survival::concordance(Surv(time, status) ~ risk, reverse = TRUE)``).

    R's fields: ``concordance``, ``count`` (concordant, discordant, tied.x, tied.y,
    tied.xy; a Series), ``n``, ``var`` (its square root is the standard error) and
    ``cvar`` (the variance under the Cox model). Not R fields: ``std_err``, ``timewt``
    (the time weight R used: ``"n"`` when fewer than two events), ``weighted``,
    ``influence`` (n x 5, R's ``influence = 2``) and ``dfbeta``.
    """

    r_class = ("concordance",)
    _r_fields = ("concordance", "count", "n", "var", "cvar")
    _extras = ("std_err", "timewt", "weighted", "influence", "dfbeta", "call")
    method = "Concordance (survival::concordance, reverse = TRUE)"
    concordance: float
    count: pd.Series
    n: int
    var: float
    cvar: float
    std_err: float
    timewt: str
    weighted: bool
    influence: np.ndarray
    dfbeta: np.ndarray
    call: str

    def print_text(self) -> str:
        """R's ``print.concordance``: the call, ``n``, the concordance and its standard
        error (4 significant digits), and the pair counts."""
        conc = format_real([self.concordance], 4)[0].strip() if not math.isnan(self.concordance) else "NaN"
        se = format_real([self.std_err], 4)[0].strip() if not math.isnan(self.std_err) else "NaN"
        counts = {k: float(np.round(v, 2)) for k, v in self.count.items()}
        return ("Call:\n" + self.call + "\n\n" + f"n= {self.n} \n" + f"Concordance= {conc} se= {se}\n"
                + format_named_vector(counts) + "\n")

    def conf_int(self, level: float = 0.95) -> pd.DataFrame:
        """The Wald interval ``concordance -/+ qnorm(1 - (1 - level) / 2) * sqrt(var)`` (R
        prints none; this is what a user computes from R's ``var``): one row
        (``concordance``), columns ``lower`` and ``upper`` (NaN without a standard error)."""
        q = _qnorm(1 - (1 - _level(level)) / 2)
        c, se = self.concordance, self.std_err
        return pd.DataFrame({"lower": [c - q * se], "upper": [c + q * se]}, index=["concordance"])

    def as_frame(self) -> pd.DataFrame:
        """One row: ``concordance``, ``se``, ``n``, the five counts and ``timewt``."""
        row = {"concordance": self.concordance, "se": self.std_err, "n": self.n, **self.count.to_dict(),
               "timewt": self.timewt}
        return pd.DataFrame([row])


def concordance(time: Any, status: Any, risk: ArrayLike, timewt: str = "n", *,
                weights: ArrayLike | None = None) -> Concordance:
    """Concordance of predicted risks with a right-censored outcome: Harrell's C, or Uno's
    C with ``timewt="n/G2"``.

    R: ``survival::concordance(Surv(time, status) ~ risk, timewt = timewt, weights =
    weights, reverse = TRUE)`` (survival 3.5-3): the estimate, its infinitesimal-jackknife
    standard error (``sqrt(var)``) and the pair counts, to R's last bit (the C code's sums
    in its order).

    A pair is comparable when the shorter time is an event; it is concordant when the
    higher risk has the earlier event (``reverse = TRUE``: a useful model has C > 0.5).
    Pairs tied on the risk count one half (``tied.x``); pairs of events at the same time
    (``tied.y``) are not comparable. Times that agree to ``all.equal``'s tolerance are one
    time (survival's ``timefix``).

    Parameters
    ----------
    time, status : array_like
        Follow-up times and 0/1 event indicators (any form of a time-to-event outcome may
        be given as ``time`` with ``status=None``: ``calstats.Surv(time, event)``, a pair,
        an n x 2 array or frame).
    risk : array_like
        Predicted risks, or any score that is higher for an earlier event (a linear
        predictor).
    timewt : {"n", "S", "S/G", "n/G2", "I"}, default "n"
        Weight of each event time: ``"n"`` Harrell's C; ``"S"`` Peto-Wilcoxon (the
        Kaplan-Meier survival ``S(t-)`` times n over the number at risk), ``"S/G"`` that
        divided by the censoring survival ``G(t-)``, ``"n/G2"`` Uno's C (``1 / G(t-)^2``),
        ``"I"`` one over the number at risk. With fewer than two events R uses ``"n"``.
    weights : array_like, optional
        Case weights (R's ``weights``). An event of weight 0 is left out: in survival
        3.5-3 it makes ``timewt`` other than ``"n"`` read past the end of R's time
        weights (an undefined result); with ``"n"`` R's numbers are unchanged.

    Returns
    -------
    Concordance
        ``concordance``, ``std_err``, ``count``, ``var``, ``cvar``, ``n``.

    Notes
    -----
    With no event the counts are 0 and the concordance and its variance are NaN, as in R.
    A missing value in ``time``, ``status``, ``risk`` or ``weights`` is refused in one line
    naming the argument (R's ``concordance`` leaves such rows out: ``na.action = na.omit``).
    """
    out = outcome(time, status)
    x = check_numeric(risk, "risk")
    check_same_length("risk", "time", x.size, out.n)
    timewt = match_arg(timewt, TIMEWTS, "timewt")
    w = check_weights(weights, out.n)
    fit = concordancefit(out.time, out.status, x, w, timewt, reverse=True)
    names = ["concordant", "discordant", "tied.x", "tied.y", "tied.xy"]
    args = ["object = Surv(time, status) ~ risk"]
    if w is not None:
        args.append("weights = weights")
    if timewt != "n":
        args.append(f'timewt = "{timewt}"')
    args.append("reverse = TRUE")
    call = "concordance.formula(" + ", ".join(args) + ")"
    return Concordance(concordance=fit.concordance, count=pd.Series(fit.count, index=names), n=out.n,
                       var=fit.var, cvar=fit.cvar, std_err=math.sqrt(fit.var) if fit.var >= 0 else math.nan,
                       timewt=fit.timewt, weighted=w is not None, influence=fit.influence, dfbeta=fit.dfbeta,
                       call=call)


# --------------------------------------------------------------------------------------
# time-dependent AUC and Brier score


def _pmax0(x):
    """R's ``pmax(0, x)`` (NaN stays NaN)."""
    return x if math.isnan(x) else max(0.0, x)


def _pmin1(x):
    return x if math.isnan(x) else min(1.0, x)


def _level(level):
    return check_interval(level, "level")


def _contrasts(table, ifs, metric, n, q, models):
    """riskRegression's ``getComparisons``: every later model against every earlier one."""
    rows = []
    for t in table["times"].unique():
        at = table[table["times"] == t].set_index("model")
        for i, ref in enumerate(models):
            for m in models[i + 1:]:
                delta = float(at.loc[m, metric] - at.loc[ref, metric])
                se = r_sd(ifs[(ref, t)] - ifs[(m, t)]) / math.sqrt(n)
                p = 2 * pnorm_lower(-abs(delta) / se) if se > 0 else math.nan
                rows.append({"times": t, "model": m, "reference": ref, f"delta.{metric}": delta, "se": se,
                             "lower": delta - q * se, "upper": delta + q * se, "p": p})
    return pd.DataFrame(rows, columns=["times", "model", "reference", f"delta.{metric}", "se", "lower", "upper",
                                       "p"])


class _ScoreResult(Result):
    """Shared printing of :class:`TimeAUC` and :class:`TimeBrier`."""

    metric = ""
    better = ""
    method = ""
    score: pd.DataFrame
    contrasts: pd.DataFrame
    cause: Any
    level: float

    def _score_text(self, digits_times):
        s = self.score
        cols = [("model", [str(m) for m in s["model"]]), ("times", _num(s["times"], digits_times)),
                (self.metric, _pct(s[self.metric])), ("lower", _pct(s["lower"])), ("upper", _pct(s["upper"]))]
        return _dt_text(cols)

    def _contrast_text(self, digits_times):
        c = self.contrasts
        cols = [("times", _num(c["times"], digits_times)), ("model", [str(m) for m in c["model"]]),
                ("reference", [str(m) for m in c["reference"]]),
                (f"delta.{self.metric}", _pct(c[f"delta.{self.metric}"])), ("lower", _pct(c["lower"])),
                ("upper", _pct(c["upper"]))]
        if self.metric == "Brier":
            cols.append(("p", [s.strip() for s in format_real(list(c["p"]), 7)] if len(c) else []))
        else:
            cols.append(("p", _num(c["p"], 1)))
        return _dt_text(cols)

    def print_text(self) -> str:
        """riskRegression's print of the metric (``print(Score(...))``): the estimates and
        confidence limits by model and horizon in percent (one decimal), the model
        comparisons, and R's notes."""
        digits_times = 1 if self.metric == "AUC" else 7
        text = f"\nMetric {self.metric}:\n\nResults by model:\n\n" + self._score_text(digits_times)
        if len(self.contrasts):
            text += "\nResults of model comparisons:\n\n" + self._contrast_text(digits_times)
        text += "\nNOTE: Values are multiplied by 100 and given in %.\n" + f"NOTE: The {self.better}\n"
        return text

    def as_frame(self) -> pd.DataFrame:
        """The score table: ``model``, ``times``, the estimate, ``se``, ``lower``, ``upper``
        (R's ``x$<metric>$score``)."""
        return self.score.copy()

    def _repr_html_(self) -> str:
        return f"<h4>{_html.escape(self.method)}</h4>\n" + table_html(self.score)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """The estimate against the horizon, one line per model with its pointwise
        confidence band (riskRegression's ``plotAUC``/``plotBrier``). Returns the axes."""
        plt = pyplot(f"{type(self).__name__}.plot()")

        if ax is None:
            ax = plt.gca()
        for model, rows in self.score.groupby("model", sort=False):
            line, = ax.plot(rows["times"], rows[self.metric], marker="o", label=str(model), **kwargs)
            ax.fill_between(rows["times"], rows["lower"], rows["upper"], color=line.get_color(), alpha=0.15)
        ax.set_xlabel("Time")
        ax.set_ylabel(self.metric)
        ax.legend(frameon=False)
        return ax


class TimeAUC(_ScoreResult):
    """The result of :func:`time_auc` (R: ``Score(...)$AUC``, class ``scoreAUC``).

    ``score``: one row per model and horizon with ``AUC``, ``se``, ``lower``, ``upper``;
    ``contrasts``: differences between models (``delta.AUC``, ``se``, ``lower``,
    ``upper``, ``p``; empty for one model); ``times`` the horizons used; ``cause`` (None
    for a right-censored outcome); ``level``; ``n``; ``influence`` (model, horizon) -> the
    influence function.
    """

    r_class = ("scoreAUC",)
    _r_fields = ("score", "contrasts")
    _extras = ("times", "cause", "level", "n", "influence")
    method = "Time-dependent AUC (riskRegression::Score)"
    metric = "AUC"
    better = "higher AUC the better."


class TimeBrier(_ScoreResult):
    """The result of :func:`time_brier` (R: ``Score(...)$Brier``, class ``scoreBrier``).

    ``score``: one row per model and horizon (the null model first) with ``Brier``,
    ``se``, ``lower``, ``upper`` (and ``IPA``, the index of prediction accuracy ``1 -
    Brier / Brier(null)``, as ``summary = "ipa"`` adds it); ``contrasts``: differences
    between models (``delta.Brier``, ``se``, ``lower``, ``upper``, ``p``); ``times``,
    ``cause``, ``level``, ``n``, ``influence``, ``residuals`` (model, horizon) -> the
    weighted squared errors of the subjects (in the order of the data).
    """

    r_class = ("scoreBrier",)
    _r_fields = ("score", "contrasts")
    _extras = ("times", "cause", "level", "n", "influence", "residuals")
    method = "Time-dependent Brier score (riskRegression::Score)"
    metric = "Brier"
    better = "lower Brier the better."

    def _score_text(self, digits_times):
        s = self.score
        cols = [("model", [str(m) for m in s["model"]]), ("times", _num(s["times"], digits_times)),
                ("Brier", _pct(s["Brier"])), ("lower", _pct(s["lower"])), ("upper", _pct(s["upper"]))]
        return _dt_text(cols)


def time_auc(time: Any, status: Any, risk: Any, times: ArrayLike, *, cause: Any = None,
             level: float = 0.95, weights: ArrayLike | None = None) -> TimeAUC:
    """Time-dependent AUC of predicted risks with inverse probability of censoring weights.

    R: ``riskRegression::Score(list(model = risk), formula = Hist(time, status) ~ 1, data,
    times = times, metrics = "auc")`` (riskRegression 2022.11.28; ``cause =`` for a
    competing-risk outcome): the estimate and its standard error (influence function with
    the Kaplan-Meier censoring term), confidence limits clipped to [0, 1], and the
    differences between models with their tests.

    At horizon t the cases are the subjects with the event by t (weighted by ``1 /
    G(T_i-)``), the controls those still event-free after t (weighted by ``1 / G(t)``),
    with ``G`` the Kaplan-Meier estimate of the censoring distribution; subjects censored
    by t weigh nothing. With a competing-risk outcome the cases have the cause by t and
    the controls are everyone else not censored by t. Tied risks count one half. The
    rows are first sorted by time, events before censorings at the same time.

    Parameters
    ----------
    time, status : array_like
        Follow-up times and the status: 0/1 (or, with ``cause``, event codes: 0 censored,
        1, 2, ... the causes). A whole outcome may be given as ``time`` with
        ``status=None``.
    risk : array_like, dict or DataFrame
        Predicted risks by each horizon: a vector (the same risk at every horizon, as a
        marker), an n x len(times) matrix (a column per sorted horizon), or several
        models as a dict or the columns of a DataFrame.
    times : array_like
        Horizons; sorted, duplicates dropped; those beyond the last follow-up time are
        dropped with R's message (as a warning).
    cause : optional
        The cause of interest of a competing-risk outcome (a code or a categorical's
        level).
    level : float, default 0.95
        Confidence level (R's ``conf.int``).
    weights : None
        Refused: riskRegression's ``Score`` takes no case weights.

    Returns
    -------
    TimeAUC

    Notes
    -----
    A missing value in ``time``, ``status`` or ``risk`` is refused in one line naming the
    argument, as riskRegression's ``Score`` stops ("Missing values in predicted risk
    detected.", "Missing values in response.").

    The standard error follows riskRegression's C++ code, which codes cases as event code 1
    and controls as code 2: for a cause other than the first, or a third cause, it is R's
    number, not a correct standard error. From n = 46 341 on riskRegression's ``n * n``
    overflows a 32-bit integer; calstats computes it exactly, so its standard errors are
    right where R's are not.
    """
    refuse_weights(weights, "in time_auc (riskRegression's Score takes none)")
    q = _qnorm(1 - (1 - _level(level)) / 2)
    out, data, models, (code, label) = _setup(time, status, risk, times, cause, prob=False)
    wti, wt = censoring_weights(data)
    rows, ifs = [], {}
    for name, m in models:
        for k, t in enumerate(data.times):
            auc, se, ic = auc_ipcw(data, m[:, k], t, wti, wt[k], code)
            ifs[(name, t)] = ic
            rows.append({"model": name, "times": t, "AUC": auc, "se": se, "lower": _pmax0(auc - q * se),
                         "upper": _pmin1(auc + q * se)})
    score = pd.DataFrame(rows, columns=["model", "times", "AUC", "se", "lower", "upper"])
    contrasts = _contrasts(score, ifs, "AUC", out.n, q, [name for name, _ in models])
    return TimeAUC(score=score, contrasts=contrasts, times=data.times, cause=label,
                   level=level, n=out.n, influence=ifs)


def time_brier(time: Any, status: Any, risk: Any, times: ArrayLike, *, cause: Any = None,
               level: float = 0.95, weights: ArrayLike | None = None) -> TimeBrier:
    """Time-dependent Brier score of predicted risks, beside the null model's, with
    inverse probability of censoring weights.

    R: ``riskRegression::Score(list(model = risk), formula = Hist(time, status) ~ 1, data,
    times = times, metrics = "brier")`` (``cause =`` for a competing-risk outcome:
    ``Hist(time, event)``).

    At horizon t the score is the mean over all subjects of ``(1 - risk)^2 / G(T_i-)`` for
    an event (of the cause) by t, ``risk^2 / G(T_i-)`` for another cause by t, ``risk^2 /
    G(t)`` for those event-free after t, and 0 for those censored by t; ``G`` is the
    Kaplan-Meier estimate of the censoring distribution. The null model predicts
    everyone the marginal risk: 1 minus the Kaplan-Meier estimate, or the Aalen-Johansen
    cumulative incidence of the cause (prodlim's, as ``Score``'s null model). Standard
    errors from the influence function (with the Kaplan-Meier censoring term); the
    comparisons are every model against the null model and each other.

    Parameters
    ----------
    time, status, risk, times, cause, level, weights
        As :func:`time_auc`; the risks must be probabilities in [0, 1].

    Returns
    -------
    TimeBrier

    Notes
    -----
    A missing value in ``time``, ``status`` or ``risk`` is refused in one line naming the
    argument, as riskRegression's ``Score`` stops ("Missing values in predicted risk
    detected.", "Missing values in response.").
    Deliberate difference: a risk outside [0, 1] is an error (Score warns and computes).
    The ``IPA`` column is ``1 - Brier / Brier(null)`` (Score's ``summary = "ipa"``).
    """
    refuse_weights(weights, "in time_brier (riskRegression's Score takes none)")
    q = _qnorm(1 - (1 - _level(level)) / 2)
    out, data, models, (code, label) = _setup(time, status, risk, times, cause, prob=True)
    wti, wt = censoring_weights(data)
    null = null_risk(data, code)
    all_models = [(NULL_MODEL, np.repeat(null[None, :], data.time.size, axis=0))] + models
    rows, ifs, residuals = [], {}, {}
    inverse = np.empty_like(data.order)
    inverse[data.order] = np.arange(data.order.size)
    for name, m in all_models:
        for k, t in enumerate(data.times):
            b, se, res, ic = brier_ipcw(data, m[:, k], t, wti, wt[k], code)
            ifs[(name, t)] = ic
            residuals[(name, t)] = res[inverse]
            rows.append({"model": name, "times": t, "Brier": b, "se": se, "lower": _pmax0(b - q * se),
                         "upper": _pmin1(b + q * se)})
    score = pd.DataFrame(rows, columns=["model", "times", "Brier", "se", "lower", "upper"])
    ref = score[score["model"] == NULL_MODEL].set_index("times")["Brier"]
    score["IPA"] = 1 - score["Brier"] / score["times"].map(ref)
    contrasts = _contrasts(score, ifs, "Brier", out.n, q, [name for name, _ in all_models])
    return TimeBrier(score=score, contrasts=contrasts, times=data.times, cause=label,
                     level=level, n=out.n, influence=ifs, residuals=residuals)


# --------------------------------------------------------------------------------------
# integrated Brier score


class IntegratedBrier(Result):
    """The result of :func:`integrated_brier`.

    ``table``: one row per model (the null or reference model first) and upper limit
    ``times`` with ``IBS``; ``brier`` the Brier scores on the grid they integrate
    (``model``, ``times``, ``Brier``); ``method`` (``"riskRegression"`` or ``"pec"``);
    ``start``.
    """

    r_class = ("crps",)
    _r_fields = ("table",)
    _extras = ("brier", "method_name", "start", "grid")
    method = "Integrated Brier score"
    table: pd.DataFrame
    brier: pd.DataFrame
    method_name: str
    start: float
    grid: np.ndarray

    def print_text(self) -> str:
        """The integrated Brier score of each model up to each horizon (R's ``crps`` matrix
        for pec; ``Score``'s ``IBS`` column for riskRegression)."""
        wide = self.table.pivot(index="model", columns="times", values="IBS")
        wide = wide.reindex(index=pd.unique(self.table["model"]))
        cols = []
        for t in wide.columns:
            cols.append((f"IBS[{self.start:g};time={t:g})", [s.strip() for s in format_real(list(wide[t]), 7)]))
        rows = [str(r) for r in wide.index]
        head = ("Integrated Brier score (" + ("pec::crps" if self.method_name == "pec" else
                                            "riskRegression::Score, summary = \"ibs\"") + ")\n")
        return head + print_data_frame(rows, cols)

    def as_frame(self) -> pd.DataFrame:
        """``model``, ``times`` (the upper limit), ``IBS``."""
        return self.table.copy()

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """The Brier score curves on the integration grid (step functions). Returns the axes."""
        plt = pyplot("IntegratedBrier.plot()")

        if ax is None:
            ax = plt.gca()
        for model, rows in self.brier.groupby("model", sort=False):
            ax.step(rows["times"], rows["Brier"], where="post", label=str(model), **kwargs)
        ax.set_xlabel("Time")
        ax.set_ylabel("Brier score")
        ax.legend(frameon=False)
        return ax


def _pec_brier(data, risk, t, wti, wt):
    """pec's C routine ``pecSRC`` at one time: with the predicted survival ``p = 1 - risk``,
    ``status * p^2 / G(T_i-)`` by t and ``(1 - p)^2 / G(t)`` after it, each term divided by n
    and added in order (a cumulative sum, which is that order)."""
    n = float(data.time.size)
    p = 1.0 - risk
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(data.time <= t, data.status * p * p / wti, (1 - p) * (1 - p) / wt)
    return float(np.cumsum(np.concatenate(([0.0], b / n)))[-1])


def integrated_brier(time: Any, status: Any, risk: Any, times: ArrayLike, *, cause: Any = None,
                     method: str = "riskRegression", start: float = 0.0) -> IntegratedBrier:
    """Integrated Brier score: the time-dependent Brier score averaged over time.

    Both R versions integrate a step function of the Brier score on a grid of times from
    ``start`` to each upper limit ``T`` and divide by ``T - start``: the score at a grid
    time holds until the next grid time (a left-endpoint sum), so the number depends on
    the grid; pass the horizons you want it evaluated on (e.g. every distinct event time
    up to T).

    * ``method="riskRegression"``: ``Score(..., times = times, summary = "ibs")``'s ``IBS``
      column; the grid is ``c(0, times)`` with the score 0 at time 0 (``Dint``).
    * ``method="pec"``: ``crps(pec(list(model = cbind(1, 1 - risk)), Surv(time, status) ~
      1, data, times = times, exact = FALSE, start = start))``: pec's grid is ``start``
      and the horizons, and its Brier score at ``start`` is that of a survival of 1 (0 when
      nobody is censored or has the event by ``start``); pec's sums add each subject's term
      divided by n in turn (riskRegression sums, then divides), and its reference model is
      the Kaplan-Meier (``Reference``).

    Parameters
    ----------
    time, status, risk, times, cause
        As :func:`time_brier`; ``risk`` has a column per horizon (or one vector).
    method : {"riskRegression", "pec"}
        Whose numbers.
    start : float, default 0
        pec's ``start`` (riskRegression integrates from 0).

    Returns
    -------
    IntegratedBrier
        The integrated score of each model (and the null/reference model) up to each
        horizon.

    Notes
    -----
    A missing value in ``time``, ``status`` or ``risk`` is refused in one line naming the
    argument, as riskRegression's ``Score`` stops ("Missing values in predicted risk
    detected.", "Missing values in response.").
    """
    method = match_arg(method, ("riskRegression", "pec"), "method")
    if method == "pec":
        refuse_cause_for_pec(cause)
    out, data, models, (code, label) = _setup(time, status, risk, times, cause, prob=True)
    wti, wt = censoring_weights(data)
    null = null_risk(data, code)
    ref_name = NULL_MODEL if method == "riskRegression" else "Reference"
    all_models = [(ref_name, np.repeat(null[None, :], data.time.size, axis=0))] + models
    rows, curves = [], []
    pec_grid: np.ndarray | None = None
    pec_weights = np.zeros(0)
    for name, m in all_models:
        if method == "riskRegression":
            b = np.array([brier_ipcw(data, m[:, k], t, wti, wt[k], code, se=False)[0]
                          for k, t in enumerate(data.times)])
            grid, values = data.times, b
            for t in data.times:
                rows.append({"model": name, "times": t, "IBS": dint_ibs(data.times, b, t)})
        else:
            if pec_grid is None:
                pec_grid = np.unique(np.concatenate(([float(start)], data.times)))
                pec_weights = censoring_weights(data._replace(times=pec_grid))[1]
            grid, g_w = pec_grid, pec_weights
            values = np.empty(grid.size)
            for k, g in enumerate(grid):
                hit = np.flatnonzero(data.times == g)
                r = m[:, hit[0]] if hit.size else np.zeros(m.shape[0])  # pec's survival 1 at `start`
                values[k] = _pec_brier(data, r, g, wti, g_w[k])
            for t in data.times:
                rows.append({"model": name, "times": t, "IBS": _dint(grid, values, float(start), t)})
        curves.append(pd.DataFrame({"model": name, "times": grid, "Brier": values}))
    return IntegratedBrier(table=pd.DataFrame(rows, columns=["model", "times", "IBS"]),
                           brier=pd.concat(curves, ignore_index=True), method_name=method, start=float(start),
                           grid=data.times)


def _dint(x, y, start, upper):
    """pec's ``Dint(x, y, range = c(start, upper))``."""
    from ..numerics.reductions import rsum

    s = max(start, float(np.min(x)))
    stop = min(upper, float(np.max(x)))
    if stop - s <= 0:
        return 0.0
    keep = (x >= s) & (x < stop)
    X, Y = x[keep], y[keep]
    if np.isnan(Y).any():
        return math.nan
    return 1 / (stop - s) * rsum(Y * np.diff(np.concatenate((X, [stop]))))


# --------------------------------------------------------------------------------------
# Cox calibration slope


class CoxCalibrationSlope(Result):
    """The result of :func:`cox_calibration_slope`.

    ``slope`` (the coefficient of the linear predictor), ``se``, ``lower``, ``upper``
    (Wald limits at ``level``), ``z`` and ``p`` (the Wald test of slope 1), ``lr`` and
    ``lr_p`` (R's likelihood-ratio test of slope 0), ``n``, ``nevent``, and ``fit`` (the
    ``coxph`` fit).
    """

    r_class = ("coxph",)
    _r_fields = ("slope", "se", "lower", "upper", "z", "p", "n", "nevent")
    _extras = ("lr", "lr_p", "level", "fit")
    method = "Cox calibration slope (van Houwelingen)"
    slope: float
    se: float
    lower: float
    upper: float
    z: float
    p: float
    n: int
    nevent: int
    lr: float
    lr_p: float
    level: float
    fit: Any

    def print_text(self) -> str:
        """The slope, its standard error and interval, and the test of slope 1."""
        pct = f"{100 * self.level:g}%"
        v = [s.strip() for s in format_real([self.slope, self.se, self.lower, self.upper], 4)]
        return ("\nCox calibration slope (van Houwelingen)\n"
                "coxph(formula = Surv(time, status) ~ lp)\n\n"
                f"slope = {v[0]}, se = {v[1]}, {pct} CI {v[2]} to {v[3]}\n"
                f"test of slope = 1: z = {format_real([self.z], 4)[0].strip()}, "
                f"p = {format_real([self.p], 4)[0].strip()}\n"
                f"n= {self.n}, number of events= {self.nevent} \n")

    def as_frame(self) -> pd.DataFrame:
        """One row: ``slope``, ``se``, ``lower``, ``upper``, ``z``, ``p``, ``n``, ``nevent``."""
        return pd.DataFrame([{k: getattr(self, k) for k in self._r_fields}])


def cox_calibration_slope(time: Any, status: Any, lp: ArrayLike, *, level: float = 0.95,
                          risk: bool = False) -> CoxCalibrationSlope:
    """van Houwelingen's calibration slope of a survival model on validation data: the
    coefficient of its linear predictor in a Cox model.

    R: ``coef(coxph(Surv(time, status) ~ lp))`` (survival 3.5-3, Efron ties), its standard
    error ``sqrt(vcov)``, Wald limits and the Wald test of slope 1. A slope below 1 means
    the predictions are too extreme (overfitting), above 1 too modest.

    Parameters
    ----------
    time, status : array_like
        The outcome (any form of a time-to-event outcome as ``time`` with ``status=None``).
    lp : array_like
        The linear predictor of the validated model; with ``risk=True``, predicted risks
        by a horizon, turned into ``log(-log(1 - risk))`` (which differs from the linear
        predictor of a proportional-hazards model by a constant, so the slope is the same).
    level : float, default 0.95
        Level of the Wald interval.
    risk : bool, default False
        Whether ``lp`` holds risks in (0, 1).

    Returns
    -------
    CoxCalibrationSlope

    Notes
    -----
    A missing value in ``time``, ``status`` or ``lp`` is refused in one line naming the
    argument (R's ``coxph`` leaves such rows out: ``na.action = na.omit``).
    """
    out = outcome(time, status)
    if risk:
        x = np.log(-np.log1p(-check_open_unit(lp, "lp")))
    else:
        x = check_numeric(lp, "lp")
    check_same_length("lp", "time", x.size, out.n)
    lev = _level(level)
    fit = coxph_fit(out.time, out.status, x, colnames=["lp"])
    b = float(fit.coefficients[0])
    se = math.sqrt(float(fit.vcov[0, 0]))
    check_slope_estimable(int(fit.nevent), se)
    q = _qnorm(1 - (1 - lev) / 2)
    z = (b - 1) / se
    lr = 2 * (float(fit.loglik[1]) - float(fit.loglik[0]))
    return CoxCalibrationSlope(slope=b, se=se, lower=b - q * se, upper=b + q * se, z=z, p=2 * pnorm_lower(-abs(z)),
                               n=int(fit.n), nevent=int(fit.nevent), lr=lr, lr_p=pchisq_upper(lr, 1), level=lev,
                               fit=fit)

"""Decision curve analysis (Vickers and Elkin 2006) as R's dcurves package computes it.

Vickers AJ, Elkin EB (2006). Decision curve analysis: a novel method for evaluating
prediction models. Medical Decision Making 26(6):565-574. Vickers AJ, Cronin AM, Elkin EB,
Gonen M (2008). Extensions to decision curve analysis, a novel method for evaluating
diagnostic tests, prediction models and molecular markers. BMC Medical Informatics and
Decision Making 8:53 (the time-to-event version).

:func:`decision_curve` reproduces ``dcurves::dca()`` (dcurves 0.5.1) for risks that are
already probabilities, and :class:`DecisionCurve` its ``as_tibble()`` (plus
``standardized_net_benefit()``) and ``plot()``.
"""

import html as _html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._surv import is_multistate, is_surv, read_surv
from .._typing import ArrayLike
from .._validate import check_binary_y, check_numeric, check_same_length, fail, refuse_cause_binary, scalar_number
from .._weights import check_weights
from ..numerics.reductions import LD, rsum
from ..ports.survival.aeqsurv import aeq_surv
from ..ports.survival.km import km_fit
from ..results._base import Result
from ..results._tables import table_html
from ..results._text import h1, wrap_item

__all__ = ["decision_curve", "DecisionCurve", "DEFAULT_THRESHOLDS"]

#: dcurves' default ``seq(0, 0.99, by = 0.01)`` without 0, bit for bit (R computes
#: ``0 + i * 0.01``; ``np.arange(0.01, 1, 0.01)`` differs in the last bit at some points,
#: which changes who is test-positive when a risk equals a threshold).
DEFAULT_THRESHOLDS = np.arange(1, 100) * 0.01

_DBL_EPS = 2.220446049250313e-16

# dcurves' own messages
_MSG_RESERVED = "Variables cannot be named 'all' or 'none': they are reserved."
_MSG_RANGE = "Error in {}. All covariates/risks must be between 0 and 1."
_MSG_NO_TIME = "`time=` must be specified for survival endpoints."
_MSG_NO_PREV = ("Cannot calculate outcome prevalence at specified time, likely due to no observed data "
                "beyond selected time.")
# calstats' own
_MSG_P = "Argument `p` must be a 1-d array of risks, or a DataFrame or dict of them (one per model)."
_MSG_P_NAMES = "Argument `p` must name each model once."
_MSG_Y = "Argument `y` must be a 0/1 vector, or `(time, event)` arrays or a two-column frame for a time-to-event outcome."
_MSG_Y_NA = "Argument `y` must not contain missing values."
_MSG_THRESHOLDS = "Argument `thresholds` must contain values in `[0, 1)`."
_MSG_TIME = "Argument `time` must be a single finite number."
_MSG_TIME_BINARY = "Argument `time` applies only to a time-to-event outcome `y = (time, event)`."
_MSG_HARM = "Argument `harm` must be a finite number or a mapping of model names to finite numbers."
_MSG_HARM_NAME = "Argument `harm` names a model that is not in `p`: {}."
_MSG_PREVALENCE = "Argument `prevalence` must be `None` or a single number in `[0, 1]`."



# --------------------------------------------------------------------------------------
# the result


class DecisionCurve(Result):
    """The result of :func:`decision_curve` (R: the ``dca`` object of ``dcurves::dca()``).

    ``r_class`` is ``("dca",)``. R's fields: ``n`` (observations), ``prevalence`` (the
    outcome prevalence: the given one, the share of events, or the Kaplan-Meier risk at the
    horizon), ``time`` (the horizon; ``None`` for a binary outcome, which R drops) and
    ``dca`` (the table, :meth:`as_frame`).

    Attributes
    ----------
    models : list of str
        The models given in ``p``, in order (without ``"all"`` and ``"none"``).
    thresholds : numpy.ndarray
        The threshold probabilities.
    outcome : {"binary", "survival"}
        The outcome type.
    harm : dict
        The harm subtracted from each row's net benefit, by model (``"all"`` and ``"none"``
        included).
    """

    r_class = ("dca",)
    _r_fields = ("n", "prevalence", "time", "dca")
    _extras = ("models", "thresholds", "outcome", "harm", "cause")
    method = "Decision curve analysis"
    n: int
    prevalence: float
    time: float | None
    dca: pd.DataFrame
    models: list[str]
    thresholds: np.ndarray
    outcome: str
    harm: dict[str, float]

    def names(self) -> list[str]:
        """R ``names(x)``: ``time`` only for a time-to-event outcome (R compacts NULL away)."""
        return [k for k in self._r_fields if k != "time" or self.time is not None]

    def as_frame(self) -> pd.DataFrame:
        """The table of ``as_tibble(standardized_net_benefit(x))`` (a copy).

        Returns
        -------
        pandas.DataFrame
            One row per model and threshold, models in dcurves' order (``"all"``,
            ``"none"``, then the given models), thresholds as given. Columns (dcurves'
            names; ``model`` is its ``variable``): ``model``, ``label`` (``"Treat All"``,
            ``"Treat None"``, the model's name), ``n``, ``threshold``, ``pos_rate`` (the
            prevalence), ``tp_rate``, ``fp_rate``, ``harm``, ``net_benefit``,
            ``standardized_net_benefit``.
        """
        return self.dca.copy()

    def net_benefit_table(self, standardized: bool = False) -> pd.DataFrame:
        """Net benefit (or standardized net benefit) as a wide table: one row per
        threshold, one column per model label."""
        col = "standardized_net_benefit" if standardized else "net_benefit"
        wide = self.dca.pivot(index="threshold", columns="label", values=col)
        wide = wide.reindex(index=pd.unique(self.dca["threshold"]), columns=pd.unique(self.dca["label"]))
        wide.columns.name = None
        return wide

    def _header_lines(self):
        lines = [f"Observations: {self.n}"]
        if self.time is None:
            lines.append("Outcome: binary")
        elif getattr(self, "cause", None) is not None:
            lines.append(f"Outcome: competing risks, risk of cause {self.cause} by time {self.time:g} "
                         "(Aalen-Johansen)")
        else:
            lines.append(f"Outcome: time to event, risk by time {self.time:g} (Kaplan-Meier)")
        lines.append(f"Prevalence: {self.prevalence:.4f}")
        lines.append("Models: " + ", ".join(self.models))
        return lines

    def print_text(self) -> str:
        """The header lines and the net benefit of every model at each threshold (four
        decimals), with its final newline. dcurves prints a plot instead.

        Returns
        -------
        str
        """
        lines = ["", h1("decision curve analysis")]
        for item in self._header_lines():
            lines.extend(wrap_item(item))
        lines += ["", "Net benefit:"]
        lines.append(self.net_benefit_table().to_string(float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        head = "".join(f"<br>{_html.escape(x)}" for x in self._header_lines())
        return (f"<h4>{_html.escape(self.method)}</h4>\n<p>{head[4:]}</p>\n"
                + table_html(self.net_benefit_table().reset_index()))

    def plot(self, ax: Any = None, standardized: bool = False, **kwargs: Any) -> Any:
        """Net benefit (or standardized net benefit) against the threshold, one line per
        model, as dcurves' ``plot.dca()`` draws it: y limits ``(-0.1, 1) * prevalence``
        (standardized: ``(-0.02, 1.02)``), thresholds as percentages, missing values left
        out. Extra keyword arguments go to ``ax.plot``. Returns the axes."""
        import matplotlib.pyplot as plt
        from matplotlib.ticker import PercentFormatter

        if ax is None:
            ax = plt.gca()
        col = "standardized_net_benefit" if standardized else "net_benefit"
        for label, rows in self.dca.groupby("label", sort=False):
            ok = rows[col].notna()
            ax.plot(rows["threshold"][ok], rows[col][ok], label=str(label), **kwargs)
        if standardized:
            ax.set_ylim(-0.02, 1.02)
        elif math.isfinite(self.prevalence) and self.prevalence > 0:
            ax.set_ylim(-0.1 * self.prevalence, self.prevalence)
        ax.xaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        ax.set_xlabel("Threshold Probability")
        ax.set_ylabel("Standardized Net Benefit" if standardized else "Net Benefit")
        ax.legend(frameon=False)
        return ax


# --------------------------------------------------------------------------------------
# checks


def _models(p):
    """``[(name, values)]`` of the models in ``p``, values checked."""
    if isinstance(p, pd.DataFrame):
        items, single = [(str(c), p[c]) for c in p.columns], False
    elif isinstance(p, Mapping):
        items, single = [(str(k), v) for k, v in p.items()], False
    elif isinstance(p, pd.Series):
        items, single = [("model" if p.name is None else str(p.name), p)], True
    else:
        if np.ndim(p) != 1:
            fail(_MSG_P)
        items, single = [("model", p)], True
    names = [k for k, _ in items]
    if not items or len(set(names)) != len(names):
        fail(_MSG_P if not items else _MSG_P_NAMES)
    if "all" in names or "none" in names:
        fail(_MSG_RESERVED)
    out = []
    for name, values in items:
        v = check_numeric(values, "p" if single else f'p["{name}"]')
        if ((v < 0) | (v > 1)).any():
            fail(_MSG_RANGE.format(name))
        out.append((name, v))
    return out


def _is_survival(y):
    if is_surv(y):
        return True
    if isinstance(y, pd.DataFrame):
        if y.shape[1] == 1:
            return False
        fail(_MSG_Y)
    if np.ndim(y) != 1:
        fail(_MSG_Y)
    return False


def _binary(y, arg):
    out = check_binary_y(y, arg, require_both=False)
    if out.dtype.kind == "f":
        fail(_MSG_Y_NA)
    return out


def _outcome(y, cause=None):
    """``(kind, labels, times, cause)``: the checked 0/1 labels (events; the event codes of a
    competing-risk outcome), the times (or None) and the code of the cause of interest
    (None unless competing risks: ``cause`` given, or a status that is a categorical with
    more than two levels, as dcurves reads ``Surv(time, factor)``)."""
    if not _is_survival(y):
        if isinstance(y, pd.DataFrame):
            y = y.iloc[:, 0]
        refuse_cause_binary(cause)
        return "binary", _binary(y, "y"), None, None
    if cause is not None or is_multistate(y):
        outcome = read_surv(y, "y", competing=True)
        return "competing", np.asarray(outcome.status, dtype=np.int64), outcome.time, (
            outcome.cause_code(cause), outcome.cause_label(outcome.cause_code(cause)))
    outcome = read_surv(y, "y")
    return "survival", outcome.status, outcome.time, None


def check_thresholds(thresholds):
    """The threshold probabilities of a decision curve, checked (numbers in [0, 1))."""
    t = check_numeric(thresholds, "thresholds")
    if ((t < 0) | (t >= 1)).any():
        fail(_MSG_THRESHOLDS)
    return t


_thresholds = check_thresholds


def _harm(harm, names):
    """The harm of every row's model: ``{name: float}`` for all, none and the models."""
    out = {"all": 0.0, "none": 0.0}
    if isinstance(harm, Mapping):
        for key, value in harm.items():
            if str(key) not in names and str(key) not in ("all", "none"):
                fail(_MSG_HARM_NAME.format(key))
            h = scalar_number(value)
            if h is None or not math.isfinite(h):
                fail(_MSG_HARM)
            out[str(key)] = h
        for name in names:
            out.setdefault(name, 0.0)
        return out
    h = scalar_number(harm)
    if h is None or not math.isfinite(h):
        fail(_MSG_HARM)
    out.update({name: h for name in names})
    return out


def _prevalence(prevalence):
    if prevalence is None:
        return None
    v = scalar_number(prevalence)
    if v is None or not (0.0 <= v <= 1.0):
        fail(_MSG_PREVALENCE)
    return v


# --------------------------------------------------------------------------------------
# the computation


def _dcurves_risk(r):
    """dcurves moves risks of exactly 0 and 1 by machine epsilon outward, so that a risk of 0
    is never test-positive (not even at threshold 0) and a risk of 1 always is."""
    return np.where(r == 0, -_DBL_EPS, np.where(r == 1, 1.0 + _DBL_EPS, r))


def _count_at_least(sorted_r, t):
    return sorted_r.size - np.searchsorted(sorted_r, t, side="left")


def _ratio(k, m):
    """R's ``mean()`` of a logical vector with ``k`` TRUE of ``m``: a long-double quotient
    rounded once (NaN for m = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.asarray(k).astype(LD) / LD(m)).astype(np.float64)


def _binary_rates(r, y, t, w, pos_rate):
    """``(tp_rate, fp_rate)`` of one model: the share of events (non-events) with
    ``r >= t`` times the prevalence (1 - prevalence), as dcurves writes it."""
    ev = y == 1
    if w is None:
        r1, r0 = np.sort(r[ev]), np.sort(r[~ev])
        f1 = _ratio(_count_at_least(r1, t), r1.size)
        f0 = _ratio(_count_at_least(r0, t), r0.size)
    else:
        w1, w0 = rsum(w[ev]), rsum(w[~ev])
        with np.errstate(divide="ignore", invalid="ignore"):
            f1 = np.array([rsum(w[ev & (r >= s)]) / np.float64(w1) for s in t])
            f0 = np.array([rsum(w[~ev & (r >= s)]) / np.float64(w0) for s in t])
    return f1 * pos_rate, f0 * (1.0 - pos_rate)


def _aj_curve(times, codes, w, cause):
    """``survfit(Surv(time, factor(code)) ~ 1, weights = w)``'s probability of being in the
    state ``cause`` (survival's C routine ``survfitci`` for competing risks): at each
    distinct time (after ``aeqSurv``) with events, ``p_cause += p0 d_cause / n`` and ``p0 *=
    1 - d / n``, with ``n`` the weighted number still in the initial state (the weights
    added at the start and taken out after each time, in the data's order). Returns
    ``(time, p_cause)``."""
    t = aeq_surv(np.asarray(times, dtype=np.float64))
    wt = np.ones(t.size) if w is None else np.asarray(w, dtype=np.float64)
    order = np.argsort(t, kind="stable")
    ts, cs, ws_ = t[order], np.asarray(codes)[order], wt[order]
    starts = np.flatnonzero(np.concatenate(([True], ts[1:] != ts[:-1])))
    ends = np.concatenate((starts[1:], [ts.size]))
    n = 0.0
    for v in wt:
        n += v
    p0, pc = 1.0, 0.0
    out = np.empty(starts.size)
    for k, (a, b) in enumerate(zip(starts, ends)):
        d_cause = d_all = 0.0
        for j in range(a, b):
            if cs[j] > 0:
                d_all += ws_[j]
                if cs[j] == cause:
                    d_cause += ws_[j]
        if d_all > 0:
            pc = pc + p0 * (d_cause / n)
            p0 = p0 * (1 - d_all / n)
        out[k] = pc
        for j in range(a, b):
            n -= ws_[j]
    return ts[starts], out


def _km_risk(times, events, w, horizon, cause=None):
    """dcurves' ``.surv_to_risk()``: 1 minus the Kaplan-Meier survival at the last time of
    the curve at or before the horizon (competing risks: the Aalen-Johansen probability of
    the cause); NaN when the curve ends before the horizon or starts after it."""
    if cause is not None:
        grid, risk = _aj_curve(times, events, w, cause)
        if grid[-1] < horizon:
            return math.nan
        k = int(np.searchsorted(grid, horizon, side="right"))
        return math.nan if k == 0 else float(risk[k - 1])
    fit = km_fit(times, events, w)
    if fit.time[-1] < horizon:
        return math.nan
    k = int(np.searchsorted(fit.time, horizon, side="right"))
    if k == 0:
        return math.nan
    return 1.0 - float(fit.surv[k - 1])


def _survival_rates(r, times, events, t, w, horizon, n, cause=None):
    """``(tp_rate, fp_rate)`` of one model: among the test-positive (``r >= t``), the
    Kaplan-Meier risk by the horizon, times (and one minus it, times) the share
    test-positive; an empty test-positive group has risk 0."""
    order = np.sort(r)
    counts = _count_at_least(order, t)
    total = None if w is None else rsum(w)
    cache = {}  # keyed by the number test-positive
    tp, fp = np.empty(t.size), np.empty(t.size)
    for i, (s, m) in enumerate(zip(t, counts)):
        m = int(m)
        if m not in cache:
            pos = np.flatnonzero(r >= s)  # the test-positive set depends only on its size
            if m == 0:
                risk = 0.0
            else:
                risk = _km_risk(times[pos], events[pos], None if w is None else w[pos], horizon, cause)
            rate = m / n if w is None else rsum(w[pos]) / total
            cache[m] = (risk, rate)
        risk, rate = cache[m]
        tp[i] = risk * rate
        fp[i] = (1.0 - risk) * rate
    return tp, fp


def decision_curve(p: Any, y: Any, thresholds: ArrayLike = DEFAULT_THRESHOLDS, *, harm: Any = 0,
                   weights: ArrayLike | None = None, time: float | None = None,
                   prevalence: float | None = None, cause: Any = None) -> DecisionCurve:
    """Decision curve analysis: the net benefit of treating by a model's risk, against
    treating everyone and no one.

    R: ``dcurves::dca(y ~ model1 + model2, data, thresholds, harm, time, prevalence)``
    followed by ``standardized_net_benefit()`` and ``as_tibble()`` (dcurves 0.5.1).

    A patient is *test-positive* at threshold ``t`` when the risk is ``p >= t`` (dcurves'
    ``>=``; a risk of exactly 0 is never test-positive, even at ``t = 0``, and exactly 1
    always is, as dcurves moves them by machine epsilon). With ``tp_rate`` and ``fp_rate``
    the true and false positives as shares of all patients::

        net_benefit = tp_rate - t / (1 - t) * fp_rate - harm
        standardized_net_benefit = net_benefit / prevalence

    *Binary outcome*: ``prevalence`` = events / n (or the given ``prevalence``),
    ``tp_rate = P(p >= t | event) * prevalence``, ``fp_rate = P(p >= t | no event) *
    (1 - prevalence)``, i.e. TP/n and FP/n. "Treat all" (``"all"``) has ``tp_rate =
    prevalence``, ``fp_rate = 1 - prevalence``, so its net benefit is ``prevalence -
    (1 - prevalence) t / (1 - t)``; "treat none" (``"none"``) has 0.

    *Time-to-event outcome* at the horizon ``time``: ``prevalence = 1 - S(time)`` with
    ``S`` the Kaplan-Meier curve of everyone (R's ``survfit``,
    :func:`calstats.ports.survival.km.km_fit`), ``tp_rate = P(p >= t) (1 - S(time | p >= t))``,
    ``fp_rate = P(p >= t) S(time | p >= t)``, the conditional curve fitted on the
    test-positive patients alone. As dcurves, ``S(time)`` is read at the last time of the
    curve at or before the horizon, and a curve that ends before the horizon, or starts
    after it, gives NaN rates for that group (for everyone: an error), an empty group a
    risk of 0.

    Parameters
    ----------
    p : array_like, pandas.DataFrame or dict
        Predicted risks in [0, 1]: one vector (the model ``"model"``, or a named Series'
        name), or several models as the columns of a DataFrame or the values of a dict
        (named by the column names / keys; ``"all"`` and ``"none"`` are reserved).
    y : array_like, tuple or pandas.DataFrame
        0/1 outcomes; or, for a time-to-event outcome, ``(time, event)`` arrays or a
        two-column frame (event 1, censored 0).
    thresholds : array_like, default ``DEFAULT_THRESHOLDS``
        Threshold probabilities in [0, 1), kept in the given order. The default is dcurves'
        ``seq(0, 0.99, by = 0.01)`` without 0, bit for bit. 0 is allowed (net benefit =
        ``tp_rate``); 1 is not (``t / (1 - t)`` is infinite; dcurves returns NaN there).
    harm : float or dict, default 0
        Subtracted from the net benefit: a number for every given model, or a mapping of
        model names (``"all"`` and ``"none"`` allowed) to numbers (dcurves' ``harm``).
    weights : array_like, optional
        Case weights (a calstats extension; dcurves has none): every count becomes a sum
        of weights (prevalence, the shares test-positive, the shares among events and
        non-events) and the Kaplan-Meier curves are R's weighted ``survfit(weights =)``.
        ``n`` stays the number of observations. ``weights=None`` is dcurves' computation.
        Whole-number weights give the result of repeating rows, except that a row of
        weight 0 still counts for the time grid of a Kaplan-Meier curve (as in R), and so
        for dcurves' rule that a curve ending before the horizon gives NaN.
    time : float, optional
        The horizon of a time-to-event outcome (required for one; refused for a binary
        outcome).
    prevalence : float, optional
        The population prevalence (case-control data), used as ``prevalence`` in place of
        the observed one. As in dcurves, for a time-to-event outcome it changes only the
        ``pos_rate`` column and the standardized net benefit.
    cause : optional
        The cause of interest of a competing-risk outcome ``y = (time, event)`` (event codes
        0 censored, 1, 2, ... the causes, or a categorical whose first level is censoring):
        the risks by the horizon are then the Aalen-Johansen probabilities of that cause
        (R's ``survfit(Surv(time, factor(event)) ~ 1)``), among everyone (the prevalence)
        and among the test-positive. dcurves reads a ``Surv(time, factor)`` outcome this way
        with the first cause; so does calstats when the status is a categorical with more
        than two levels and ``cause`` is not given.

    Returns
    -------
    DecisionCurve

    Notes
    -----
    Deliberate differences from dcurves: thresholds outside [0, 1) are an error (dcurves
    drops those outside [0, 1] and returns NaN or -Inf at 1); the standardized net
    benefit is always computed, harm included (dcurves' ``standardized_net_benefit()``
    refuses models with a harm); a one-class binary outcome gives NaN rates as dcurves
    does for a logical outcome (for a numeric one dcurves stops: "Outcome type not
    supported"). There is no ``as_probability`` (fit the model first).

    Raises
    ------
    CalstatsError
        For risks outside [0, 1], non-binary outcomes, mismatched lengths, thresholds
        outside [0, 1), a missing horizon for a time-to-event outcome, a horizon beyond
        the data (dcurves' message), models named ``"all"`` or ``"none"``.
    """
    models = _models(p)
    kind, events, times, cz = _outcome(y, cause)
    code = None if cz is None else cz[0]
    n = events.size
    for name, values in models:
        check_same_length("p", "y", values.size, n)
    t = _thresholds(thresholds)
    harms = _harm(harm, [name for name, _ in models])
    prev = _prevalence(prevalence)
    w = check_weights(weights, n)
    if kind != "binary":
        if time is None:
            fail(_MSG_NO_TIME)
        horizon = scalar_number(time)
        if horizon is None or not math.isfinite(horizon):
            fail(_MSG_TIME)
    elif time is not None:
        fail(_MSG_TIME_BINARY)

    if prev is not None:
        pos_rate = prev
    elif kind != "binary":
        pos_rate = _km_risk(times, events, w, horizon, code)
        if math.isnan(pos_rate):
            fail(_MSG_NO_PREV)
    elif w is None:
        pos_rate = int(events.sum()) / n
    else:
        pos_rate = rsum(w[events == 1]) / rsum(w)

    rows = [("all", "Treat All", np.full(n, 1.0 + _DBL_EPS)), ("none", "Treat None", np.full(n, -_DBL_EPS))]
    rows += [(name, name, _dcurves_risk(values)) for name, values in models]
    frames = []
    for name, label, r in rows:
        if kind == "binary":
            tp, fp = _binary_rates(r, events, t, w, pos_rate)
        else:
            tp, fp = _survival_rates(r, times, events, t, w, horizon, n, code)
        h = harms[name]
        with np.errstate(divide="ignore", invalid="ignore"):
            nb = tp - t / (1.0 - t) * fp - h
            snb = nb / pos_rate
        frames.append(pd.DataFrame({
            "model": name, "label": label, "n": n, "threshold": t, "pos_rate": pos_rate,
            "tp_rate": tp, "fp_rate": fp, "harm": h, "net_benefit": nb, "standardized_net_benefit": snb,
        }))
    table = pd.concat(frames, ignore_index=True)
    table["label"] = pd.Categorical(table["label"], categories=list(dict.fromkeys(table["label"])))
    return DecisionCurve(n=n, prevalence=float(pos_rate), time=None if kind == "binary" else float(horizon),
                         dca=table, models=[name for name, _ in models], thresholds=t, outcome=kind, harm=harms,
                         cause=None if cz is None else cz[1])

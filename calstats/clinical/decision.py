"""Decision curve analysis (Vickers and Elkin 2006) as R's dcurves package computes it.

Vickers AJ, Elkin EB (2006). Decision curve analysis: a novel method for evaluating
prediction models. Medical Decision Making 26(6):565-574. Vickers AJ, Cronin AM, Elkin EB,
Gonen M (2008). Extensions to decision curve analysis, a novel method for evaluating
diagnostic tests, prediction models and molecular markers. BMC Medical Informatics and
Decision Making 8:53 (the time-to-event version).

:func:`decision_curve` reproduces ``dcurves::dca()`` (dcurves 0.5.1), :class:`DecisionCurve`
its ``as_tibble()`` (plus ``standardized_net_benefit()``) and ``plot()``,
:func:`net_intervention_avoided` dcurves' function of that name and
:func:`test_consequences` dcurves' ``test_consequences()`` (the two-by-two table of a risk
at each threshold). Checked against dcurves' own test suite and man-page examples
(tests/test_dcurves_suite.py).
"""

import html as _html
import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import pandas as pd

from .._frames import native
from .._inputs import read_models
from .._plotting import pyplot
from .._surv import is_multistate, is_surv, read_surv
from .._typing import ArrayLike
from .._validate import (
    check_binary_y,
    check_dca_plot_type,
    check_dca_prevalence,
    check_dca_thresholds,
    check_dca_time,
    check_nper,
    check_numeric,
    check_same_length,
    fail_as_probability_risks,
    fail_as_probability_type,
    fail_dca_harm,
    fail_dca_label,
    fail_dca_no_prevalence,
    fail_dca_outcome,
    fail_dca_range,
    fail_dca_unknown_model,
    fail_missing,
    fail_nia_x,
    fail_statistics_name,
    fail_statistics_type,
    refuse_as_probability,
    refuse_cause_binary,
    refuse_dca_reserved,
    scalar_number,
)
from .._weights import check_weights
from ..numerics import libm
from ..numerics.reductions import LD, rsum
from ..numerics.rformat import format_real, print_data_frame
from ..ports.stats.glm import glm_binomial
from ..ports.survival.aeqsurv import aeq_surv
from ..ports.survival.coxph import coxph_fit
from ..ports.survival.km import km_fit
from ..results._base import Result
from ..results._tables import table_html
from ..results._text import h1, wrap_item

__all__ = ["decision_curve", "DecisionCurve", "DEFAULT_THRESHOLDS", "net_intervention_avoided", "test_consequences",
           "TestConsequences", "TEST_STATISTICS"]

#: dcurves' default ``seq(0, 0.99, by = 0.01)`` without 0, bit for bit (R computes
#: ``0 + i * 0.01``; ``np.arange(0.01, 1, 0.01)`` differs in the last bit at some points,
#: which changes who is test-positive when a risk equals a threshold).
DEFAULT_THRESHOLDS = np.arange(1, 100) * 0.01

_DBL_EPS = 2.220446049250313e-16

#: R's ``NA_real_``: a NaN whose low word is 1954. Arithmetic carries the payload as in R
#: (the hardware's), so the table's NaN cells are R's ``NA`` or ``NaN`` where R's are, and
#: print as R prints them.
_NA_REAL = float(np.array([0x7FF00000000007A2], dtype=np.uint64).view(np.float64)[0])


def _is_na(values):
    """R's ``is.na(x) & !is.nan(x)`` of a float array."""
    v = np.asarray(values, dtype=np.float64)
    return np.isnan(v) & ((v.view(np.uint64) & np.uint64(0xFFFFFFFF)) == 1954)


#: The statistics of dcurves' ``test_consequences()``, in its order (its default).
TEST_STATISTICS = ("pos_rate", "neg_rate", "test_pos_rate", "test_neg_rate", "tp_rate", "fp_rate", "fn_rate",
                   "tn_rate", "ppv", "npv", "sens", "spec", "lr_pos", "lr_neg")
_PLOT_TYPES = ("net_benefit", "net_intervention_avoided", "standardized_net_benefit")


# --------------------------------------------------------------------------------------
# the result


class DecisionCurve(Result):
    """The result of :func:`decision_curve` (R: the ``dca`` object of ``dcurves::dca()``).

    ``r_class`` is ``("dca",)``. R's fields: ``n`` (observations), ``prevalence`` (the
    outcome prevalence: the given one, the share of events, or the Kaplan-Meier risk at the
    horizon), ``time`` (the horizon; ``None`` for a binary outcome, which R drops),
    ``dca`` (the table, :meth:`as_frame`) and, after :func:`net_intervention_avoided`,
    ``net_interventions_nper``.

    Attributes
    ----------
    models : list of str
        The models given in ``p``, in order (without ``"all"`` and ``"none"``).
    thresholds : numpy.ndarray
        The threshold probabilities.
    outcome : {"binary", "survival", "competing"}
        The outcome type.
    harm : dict
        The harm subtracted from each row's net benefit, by model (``"all"`` and ``"none"``
        included).
    net_interventions_nper : float or None
        ``nper`` of :func:`net_intervention_avoided` (None before it).
    """

    r_class = ("dca",)
    _r_fields = ("n", "prevalence", "time", "dca")
    _extras = ("models", "thresholds", "outcome", "harm", "cause", "net_interventions_nper")
    method = "Decision curve analysis"
    n: int
    prevalence: float
    time: float | None
    dca: pd.DataFrame
    models: list[str]
    thresholds: np.ndarray
    outcome: str
    harm: dict[str, float]
    net_interventions_nper: float | None = None

    def names(self) -> list[str]:
        """R ``names(x)``: ``time`` only for a time-to-event outcome (R compacts NULL away),
        ``net_interventions_nper`` once net interventions avoided are added."""
        out = [k for k in self._r_fields if k != "time" or self.time is not None]
        if self.net_interventions_nper is not None:
            out.append("net_interventions_nper")
        return out

    def __getitem__(self, name):
        if name == "net_interventions_nper" and self.net_interventions_nper is not None:
            return self.net_interventions_nper
        return super().__getitem__(name)

    def as_frame(self) -> pd.DataFrame:
        """The table of ``as_tibble(standardized_net_benefit(x))`` (a copy).

        Returns
        -------
        pandas.DataFrame
            One row per model and threshold, models in dcurves' order (``"all"``,
            ``"none"``, then the given models), thresholds as given. Columns (dcurves'
            names; ``model`` is its ``variable``): ``model``, ``label`` (``"Treat All"``,
            ``"Treat None"``, the model's label), ``n``, ``threshold``, ``pos_rate`` (the
            prevalence), ``tp_rate``, ``fp_rate``, ``harm``, ``net_benefit``,
            ``standardized_net_benefit``, and ``net_intervention_avoided`` after
            :func:`net_intervention_avoided`.
        """
        return self.dca.copy()

    def net_benefit_table(self, standardized: bool = False) -> pd.DataFrame:
        """Net benefit (or standardized net benefit) as a wide table: one row per
        threshold, one column per model label."""
        return self._wide("standardized_net_benefit" if standardized else "net_benefit")

    def _wide(self, col):
        wide = self.dca.pivot(index="threshold", columns="label", values=col)
        wide = wide.reindex(index=pd.unique(self.dca["threshold"]), columns=pd.unique(self.dca["label"]))
        wide.columns.name = None
        return wide

    def net_intervention_avoided(self, nper: float = 1) -> "DecisionCurve":
        """:func:`net_intervention_avoided` of this curve (R's ``x %>%
        net_intervention_avoided(nper)``)."""
        return net_intervention_avoided(self, nper)

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
        decimals), then the net interventions avoided once computed, with its final
        newline. dcurves prints a plot instead (the net interventions avoided once
        computed, else the net benefit).

        Returns
        -------
        str
        """
        lines = ["", h1("decision curve analysis")]
        for item in self._header_lines():
            lines.extend(wrap_item(item))
        lines += ["", "Net benefit:"]
        lines.append(self.net_benefit_table().to_string(float_format=lambda v: f"{v:.4f}"))
        if self.net_interventions_nper is not None:
            lines += ["", f"Net interventions avoided per {self.net_interventions_nper:g} patients:"]
            lines.append(self._wide("net_intervention_avoided").to_string(float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines) + "\n"

    def _repr_html_(self) -> str:
        head = "".join(f"<br>{_html.escape(x)}" for x in self._header_lines())
        return (f"<h4>{_html.escape(self.method)}</h4>\n<p>{head[4:]}</p>\n"
                + table_html(self.net_benefit_table().reset_index()))

    def plot(self, ax: Any = None, standardized: bool = False, type: str | None = None, **kwargs: Any) -> Any:
        """Net benefit, net interventions avoided or standardized net benefit against the
        threshold, one line per model, as dcurves' ``plot.dca(type =)`` draws it.

        ``type`` is one of ``"net_benefit"`` (y limits ``(-0.1, 1) * prevalence``),
        ``"net_intervention_avoided"`` (after :func:`net_intervention_avoided`; y limits
        ``(0, nper)``) and ``"standardized_net_benefit"`` (``(-0.02, 1.02)``; also
        ``standardized=True``). The default is dcurves': the net interventions avoided once
        computed, else the net benefit. Thresholds as percentages, missing values left
        out. Extra keyword arguments go to ``ax.plot``. Returns the axes."""
        plt = pyplot("DecisionCurve.plot()")
        from matplotlib.ticker import PercentFormatter

        if type is None:
            type = ("net_intervention_avoided" if self.net_interventions_nper is not None
                    else "standardized_net_benefit" if standardized else "net_benefit")
        check_dca_plot_type(type, _PLOT_TYPES, self.net_interventions_nper is not None)
        if ax is None:
            ax = plt.gca()
        for label, rows in self.dca.groupby("label", sort=False, observed=True):
            ok = rows[type].notna()
            ax.plot(rows["threshold"][ok], rows[type][ok], label=str(label), **kwargs)
        if type == "standardized_net_benefit":
            ax.set_ylim(-0.02, 1.02)
            ylabel = "Standardized Net Benefit"
        elif type == "net_intervention_avoided":
            nper = self.net_interventions_nper
            ax.set_ylim(0, nper)
            ylabel = "Net reduction in interventions"
            if nper != 1:
                ylabel += f" \nper {nper:g} patients"
        else:
            if math.isfinite(self.prevalence) and self.prevalence > 0:
                ax.set_ylim(-0.1 * self.prevalence, self.prevalence)
            ylabel = "Net Benefit"
        ax.xaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        ax.set_xlabel("Threshold Probability")
        ax.set_ylabel(ylabel)
        ax.legend(frameon=False)
        return ax


class TestConsequences(Result):
    """The result of :func:`test_consequences` (R: the tibble of
    ``dcurves::test_consequences()``).

    ``r_class`` is ``("tbl_df", "tbl", "data.frame")``; ``table`` is the tibble
    (:meth:`as_frame`); ``print()`` is R's ``print(as.data.frame(x))``.
    """

    __test__ = False  # not a pytest test class
    r_class = ("tbl_df", "tbl", "data.frame")
    _extras = ("table",)
    method = "Test consequences"
    table: pd.DataFrame

    def as_frame(self) -> pd.DataFrame:
        """The table (a copy): one row per model and threshold, columns ``model``
        (dcurves' ``variable``), ``label``, ``n``, ``threshold`` and the statistics."""
        return self.table.copy()

    def print_text(self) -> str:
        """R's ``print(as.data.frame(test_consequences(...)))`` at width 80 (numbers with 7
        significant digits per column, R's ``NA`` and ``NaN``), with its final newline.
        (R's ``print()`` of the tibble itself abbreviates the columns to fit.)

        Returns
        -------
        str
        """
        t = self.table
        cols = [("variable", [str(v) for v in t["model"]]), ("label", [str(v) for v in t["label"]]),
                ("n", [str(int(v)) for v in t["n"]])]
        for name in t.columns[3:]:
            values = t[name].to_numpy(dtype=np.float64)
            cells = [("NA" if a else c.strip()) for c, a in zip(format_real(values, 7), _is_na(values))]
            width = max(len(c) for c in cells)
            cols.append((name, [c.rjust(width) for c in cells]))
        return print_data_frame([str(i + 1) for i in range(len(t))], cols)


# --------------------------------------------------------------------------------------
# checks


def _models(p, as_probability=None, for_dca=True):
    """``([(name, values)], convert)``: the models in ``p``, values checked, and the names
    of those to convert to risks (``as_probability``). For ``dca()`` (``for_dca``) no model
    may be named ``"all"`` or ``"none"`` and the risks must lie in [0, 1], except those to
    convert; ``test_consequences()`` checks neither."""
    p = native(p, "p")  # a polars frame names its columns in messages as pandas' does
    items = read_models(p, frame="models", reserved=("all", "none") if for_dca else None,
                        refuse_reserved=refuse_dca_reserved)
    single = not isinstance(p, (pd.DataFrame, Mapping))
    names = [k for k, _ in items]
    convert = _names_arg(as_probability, names, fail_as_probability_type,
                         lambda name: fail_dca_unknown_model("as_probability", name))
    out = []
    for name, values in items:
        v = check_numeric(values, "p" if single else f'p["{name}"]')
        if for_dca and name not in convert and ((v < 0) | (v > 1)).any():
            fail_dca_range(name)
        out.append((name, v))
    return out, convert


def _names_arg(value, names, fail_type, fail_name):
    """A name or a list of names (each one of ``names``), as a list; refused with the
    validators ``fail_type()`` and ``fail_name(name)``."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    try:
        items = list(items)
    except TypeError:
        fail_type()
    if not all(isinstance(item, str) for item in items):
        fail_type()
    for item in items:
        if item not in names:
            fail_name(item)
    return items


def _labels(label, names):
    """``{name: label}`` for all, none and the models (dcurves' ``label``)."""
    out = {"all": "Treat All", "none": "Treat None"}
    out.update({name: name for name in names})
    if label is None:
        return out
    if not isinstance(label, Mapping):
        fail_dca_label()
    for key, value in label.items():
        if str(key) not in out:
            fail_dca_unknown_model("label", key)
        out[str(key)] = str(value)
    return out


def _convert_to_risk(kind, x, events, times, horizon):
    """dcurves' ``.convert_to_risk()`` for ``as_probability``: the fitted risk of
    ``glm(outcome ~ x, family = binomial)`` (binary), or ``1 - exp(-H)`` with ``H`` the
    ``predict(coxph(Surv(time, event) ~ x), type = "expected")`` of each patient at the
    horizon (time to event; dcurves takes ``exp(-H)``, see :func:`decision_curve`)."""
    if kind == "binary":
        fit = glm_binomial(np.column_stack((np.ones(x.size), x)), events.astype(np.float64),
                           ["(Intercept)", "variable"], warn=True)
        return np.asarray(fit.fitted_values, dtype=np.float64)
    fit = coxph_fit(times, events, x[:, None], ["variable"])
    expected, _ = fit.expected(horizon, x[:, None])
    return 1.0 - libm.exp(-expected)


def _is_survival(y):
    if is_surv(y):
        return True
    if isinstance(y, pd.DataFrame):
        if y.shape[1] == 1:
            return False
        fail_dca_outcome()
    if np.ndim(y) != 1:
        fail_dca_outcome()
    return False


def _binary(y, arg):
    out = check_binary_y(y, arg, require_both=False)
    if out.dtype.kind == "f":
        fail_missing("y")
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
    return check_dca_thresholds(thresholds)


def _harm(harm, names):
    """The harm of every row's model: ``{name: float}`` for all, none and the models."""
    out = {"all": 0.0, "none": 0.0}
    if isinstance(harm, Mapping):
        for key, value in harm.items():
            if str(key) not in names and str(key) not in ("all", "none"):
                fail_dca_unknown_model("harm", key)
            h = scalar_number(value)
            if h is None or not math.isfinite(h):
                fail_dca_harm()
            out[str(key)] = h
        for name in names:
            out.setdefault(name, 0.0)
        return out
    h = scalar_number(harm)
    if h is None or not math.isfinite(h):
        fail_dca_harm()
    out.update({name: h for name in names})
    return out


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
    the cause); R's ``NA_real_`` when the curve ends before the horizon or starts after
    it."""
    if cause is not None:
        grid, risk = _aj_curve(times, events, w, cause)
        if grid[-1] < horizon:
            return _NA_REAL
        k = int(np.searchsorted(grid, horizon, side="right"))
        return _NA_REAL if k == 0 else float(risk[k - 1])
    fit = km_fit(times, events, w)
    if fit.time[-1] < horizon:
        return _NA_REAL
    k = int(np.searchsorted(fit.time, horizon, side="right"))
    if k == 0:
        return _NA_REAL
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
                   prevalence: float | None = None, cause: Any = None, label: Mapping[str, str] | None = None,
                   as_probability: str | list[str] | None = None) -> DecisionCurve:
    """Decision curve analysis: the net benefit of treating by a model's risk, against
    treating everyone and no one.

    R: ``dcurves::dca(y ~ model1 + model2, data, thresholds, label, harm, as_probability,
    time, prevalence)`` followed by ``standardized_net_benefit()`` and ``as_tibble()``
    (dcurves 0.5.1); :func:`net_intervention_avoided` adds dcurves' net interventions
    avoided.

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
    label : dict, optional
        Labels of the models in the ``label`` column and the plot's legend, by model name
        (``"all"`` and ``"none"`` allowed: default ``"Treat All"``, ``"Treat None"``, and
        the model's name), dcurves' ``label``.
    as_probability : str or list of str, optional
        Models of ``p`` that are markers on any scale, to be converted to risks first, as
        dcurves' ``as_probability`` does: binary outcome, the fitted risks of
        ``glm(y ~ marker, family = binomial)``; time to event, ``1 - exp(-H)`` with ``H``
        the Cox model's ``predict(coxph(Surv(time, event) ~ marker), type = "expected")``
        of each patient at the horizon. Such a model assumes linearity (and proportional
        hazards); dcurves' advice is to fit the model yourself.

    Returns
    -------
    DecisionCurve

    Raises
    ------
    CalstatsError
        For risks outside [0, 1], non-binary outcomes, mismatched lengths, thresholds
        outside [0, 1), a missing horizon for a time-to-event outcome, a horizon beyond
        the data (dcurves' message), models named ``"all"`` or ``"none"``, ``label``,
        ``harm`` or ``as_probability`` naming no model.

    Warns
    -----
    CalstatsWarning
        R's warnings of the ``glm`` or ``coxph`` fit of ``as_probability``.

    Notes
    -----
    Deliberate differences from dcurves: thresholds outside [0, 1) are an error (dcurves
    drops those outside [0, 1] and returns NaN or -Inf at 1); the standardized net
    benefit is always computed, harm included (dcurves' ``standardized_net_benefit()``
    refuses models with a harm); a one-class binary outcome gives NaN rates as dcurves
    does for a logical outcome (for a numeric one dcurves stops: "Outcome type not
    supported"); an outcome coded other than 0/1 is an error (dcurves takes the larger of
    two values as the event), and so is a ``harm`` or ``label`` naming no model (dcurves
    ignores it); the default thresholds leave out 0 (dcurves' start at 0).
    ``as_probability`` on a time-to-event outcome gives the risk ``1 - exp(-H)``: dcurves
    0.5.1 takes ``exp(-H)``, the probability of being event-free by the horizon, as the
    risk (so its curve for such a marker ranks patients the wrong way round; give calstats
    ``exp(-H)`` as ``p`` to reproduce it). With a competing-risk outcome or ``weights`` it is refused
    (dcurves' ``coxph`` stops on a multi-state outcome; dcurves has no weights). With a
    ``prevalence`` the binary model is still fitted on the data, as in dcurves.
    A missing value in ``p``, ``y`` (or its times), ``thresholds`` or ``weights`` is refused in
    one line naming the argument (dcurves' ``model.frame`` leaves such rows out).

    Examples
    --------
    dcurves' ``dca(cancer ~ cancerpredmarker + marker, data = df_binary, as_probability =
    "marker", label = list(cancerpredmarker = "Prediction Model", marker = "Biomarker"))``::

        decision_curve(df[["cancerpredmarker", "marker"]], df["cancer"], as_probability="marker",
                       label={"cancerpredmarker": "Prediction Model", "marker": "Biomarker"})
    """
    models, convert = _models(p, as_probability)
    kind, events, times, code, cz, n, t, w, horizon, pos_rate = _setup(
        models, y, cause, thresholds, False, prevalence, weights, time)
    harms = _harm(harm, [name for name, _ in models])
    labels = _labels(label, [name for name, _ in models])
    if convert:
        refuse_as_probability(kind == "competing", w is not None)
        converted = []
        for name, values in models:
            if name in convert:
                if kind != "binary" and n < 2:
                    fail_as_probability_risks(name)
                values = _convert_to_risk(kind, values, events, times, horizon)
                if np.isnan(values).any():
                    fail_as_probability_risks(name)
            converted.append((name, values))
        models = converted

    rows = [("all", np.full(n, 1.0 + _DBL_EPS)), ("none", np.full(n, -_DBL_EPS))]
    rows += [(name, _dcurves_risk(values)) for name, values in models]
    frames = []
    for name, r in rows:
        if kind == "binary":
            tp, fp = _binary_rates(r, events, t, w, pos_rate)
        else:
            tp, fp = _survival_rates(r, times, events, t, w, horizon, n, code)
        h = harms[name]
        with np.errstate(divide="ignore", invalid="ignore"):
            nb = tp - t / (1.0 - t) * fp - h
            snb = nb / pos_rate
        frames.append(pd.DataFrame({
            "model": name, "label": labels[name], "n": n, "threshold": t, "pos_rate": pos_rate,
            "tp_rate": tp, "fp_rate": fp, "harm": h, "net_benefit": nb, "standardized_net_benefit": snb,
        }))
    table = pd.concat(frames, ignore_index=True)
    table["label"] = pd.Categorical(table["label"], categories=list(dict.fromkeys(table["label"])))
    return DecisionCurve(n=n, prevalence=float(pos_rate), time=None if kind == "binary" else float(horizon),
                         dca=table, models=[name for name, _ in models], thresholds=t, outcome=kind, harm=harms,
                         cause=None if cz is None else cz[1])


def _setup(models, y, cause, thresholds, closed, prevalence, weights, time):
    """The checked outcome, thresholds (in [0, 1), or [0, 1] when ``closed``), weights and
    horizon, and the prevalence (dcurves' ``pos_rate``) shared by :func:`decision_curve`
    and :func:`test_consequences` (``closed``)."""
    kind, events, times, cz = _outcome(y, cause)
    code = None if cz is None else cz[0]
    n = events.size
    for _, values in models:
        check_same_length("p", "y", values.size, n)
    t = check_dca_thresholds(thresholds, closed=closed)
    prev = check_dca_prevalence(prevalence)
    w = check_weights(weights, n)
    horizon = check_dca_time(time, kind != "binary")

    if prev is not None:
        pos_rate = prev
    elif kind != "binary":
        pos_rate = _km_risk(times, events, w, horizon, code)
        if math.isnan(pos_rate):
            fail_dca_no_prevalence()
    elif w is None:
        pos_rate = int(events.sum()) / n
    else:
        pos_rate = rsum(w[events == 1]) / rsum(w)
    return kind, events, times, code, cz, n, t, w, horizon, pos_rate


def net_intervention_avoided(x: DecisionCurve, nper: float = 1) -> DecisionCurve:
    """Net interventions avoided: how many fewer patients (per ``nper``) are treated with
    the model than when everyone is treated, at the same net benefit.

    R: ``dcurves::net_intervention_avoided(x, nper)`` (dcurves 0.5.1)::

        net_intervention_avoided = (net_benefit - net_benefit_all) / (t / (1 - t)) * nper

    with ``net_benefit_all`` the net benefit of treating everyone at the same threshold
    ``t`` (so "Treat All" has 0, and threshold 0 gives NaN or an infinity, as in R).

    Parameters
    ----------
    x : DecisionCurve
        A result of :func:`decision_curve`.
    nper : float, default 1
        Report the net interventions avoided per ``nper`` patients (dcurves' default 1).

    Returns
    -------
    DecisionCurve
        A copy of ``x`` whose table (:meth:`DecisionCurve.as_frame`) has the column
        ``net_intervention_avoided`` and whose ``net_interventions_nper`` is ``nper``;
        its plot and print show the net interventions avoided.

    Notes
    -----
    dcurves joins the "Treat All" rows on the threshold value (repeated thresholds would
    repeat rows); calstats pairs each row with the "Treat All" row at the same position.
    Calling it again replaces the column (dcurves would add a second one).
    """
    if not isinstance(x, DecisionCurve):
        fail_nia_x()
    k = check_nper(nper)
    table = x.dca.copy()
    t = x.thresholds
    nb = table["net_benefit"].to_numpy(dtype=np.float64)
    nb_all = np.tile(nb[:t.size], nb.size // t.size)
    tt = table["threshold"].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["net_intervention_avoided"] = (nb - nb_all) / (tt / (1.0 - tt)) * k
    return cast(DecisionCurve, x._replace(dca=table, net_interventions_nper=k))


def _test_pos_rate(r, t, w, n):
    """The share test-positive (``r >= t``): R's ``table(r >= t)[2] / n``."""
    if w is None:
        return _count_at_least(np.sort(r), t) / n
    total = rsum(w)
    return np.array([rsum(w[r >= s]) / total for s in t])


def test_consequences(p: Any, y: Any, thresholds: ArrayLike = (0.0, 0.25, 0.5, 0.75, 1.0), *,
                      statistics: Any = TEST_STATISTICS, time: float | None = None,
                      prevalence: float | None = None, cause: Any = None, weights: ArrayLike | None = None,
                      label: Mapping[str, str] | None = None) -> "TestConsequences":
    """The consequences of testing positive at each threshold: the two-by-two table of
    a risk (or any marker) against the outcome, as rates, with the predictive values,
    sensitivity, specificity and likelihood ratios.

    R: ``dcurves::test_consequences(y ~ model1 + model2, data, statistics, thresholds,
    label, time, prevalence)`` (dcurves 0.5.1).

    A patient is test-positive when ``p >= t`` (no shift of risks 0 and 1, unlike
    :func:`decision_curve`). With ``a``, ``b``, ``c``, ``d`` the true positives, false
    positives, false negatives and true negatives as shares of all patients (dcurves'
    ``tp_rate``, ``fp_rate``, ``fn_rate``, ``tn_rate``): ``pos_rate`` the prevalence (as in
    :func:`decision_curve`: the share of events, the Kaplan-Meier or Aalen-Johansen risk by
    ``time``, or the given ``prevalence``), ``neg_rate = 1 - pos_rate``, ``test_pos_rate``
    the share test-positive, ``test_neg_rate = c + d``, ``tp_rate`` and ``fp_rate`` as in
    :func:`decision_curve`, ``fn_rate = pos_rate - a``, ``tn_rate = neg_rate - b``,
    ``ppv = a / (a + b)``, ``npv = d / (c + d)``, ``sens = a / (a + c)``, ``spec = d / (b +
    d)``, ``lr_pos = sens / (1 - spec)``, ``lr_neg = (1 - sens) / spec``, computed in
    dcurves' order.

    Parameters
    ----------
    p : array_like, pandas.DataFrame or dict
        The risks or markers of one or more models (as in :func:`decision_curve`; any
        finite numbers, as dcurves does not check them).
    y : array_like, tuple or pandas.DataFrame
        The outcome, as in :func:`decision_curve`.
    thresholds : array_like, default ``(0, 0.25, 0.5, 0.75, 1)``
        Thresholds in [0, 1] (dcurves' default ``seq(0, 1, by = 0.25)``).
    statistics : sequence of str, default ``TEST_STATISTICS``
        The statistics to return, in the order given (names of ``TEST_STATISTICS``).
    time, prevalence, cause, weights, label
        As in :func:`decision_curve` (``weights`` a calstats extension).

    Returns
    -------
    TestConsequences
        dcurves' tibble as ``.as_frame()``: one row per model and threshold, columns
        ``model`` (dcurves' ``variable``), ``label``, ``n``, ``threshold`` and the
        statistics; its print is R's ``print(as.data.frame(x))``.

    Notes
    -----
    Deliberate differences from dcurves: thresholds outside [0, 1] are an error (dcurves
    drops them); statistics are named in full (dcurves' ``match.arg`` also takes
    abbreviations).
    A missing value in ``p``, ``y`` (or its times), ``thresholds`` or ``weights`` is refused in
    one line naming the argument (dcurves' ``model.frame`` leaves such rows out).

    Raises
    ------
    CalstatsError
        As :func:`decision_curve`, and for an unknown statistic.
    """
    models, _ = _models(p, for_dca=False)
    stats = _names_arg(statistics, TEST_STATISTICS, fail_statistics_type, fail_statistics_name)
    kind, events, times, code, _, n, t, w, horizon, pos_rate = _setup(
        models, y, cause, thresholds, True, prevalence, weights, time)
    labels = _labels(label, [name for name, _ in models])
    frames = []
    for name, r in models:
        test_pos = _test_pos_rate(r, t, w, n)
        if kind == "binary":
            tp, fp = _binary_rates(r, events, t, w, pos_rate)
        else:
            tp, fp = _survival_rates(r, times, events, t, w, horizon, n, code)
        neg_rate = 1.0 - pos_rate
        fn = pos_rate - tp
        tn = neg_rate - fp
        with np.errstate(divide="ignore", invalid="ignore"):
            sens = tp / (tp + fn)
            spec = tn / (tn + fp)
            values = {
                "pos_rate": np.full(t.size, pos_rate), "neg_rate": np.full(t.size, neg_rate),
                "test_pos_rate": test_pos, "test_neg_rate": fn + tn, "tp_rate": tp, "fp_rate": fp,
                "fn_rate": fn, "tn_rate": tn, "ppv": tp / (tp + fp), "npv": tn / (tn + fn), "sens": sens,
                "spec": spec, "lr_pos": sens / (1.0 - spec), "lr_neg": (1.0 - sens) / spec,
            }
        frame = pd.DataFrame({"model": name, "label": labels[name], "n": n, "threshold": t})
        for stat in stats:
            frame[stat] = values[stat]
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    table["label"] = pd.Categorical(table["label"], categories=list(dict.fromkeys(table["label"])))
    return TestConsequences(table=table)


test_consequences.__test__ = False  # type: ignore[attr-defined]  # not a pytest test

"""Competing risks: the Aalen-Johansen cumulative incidence and the calibration of predicted
cumulative incidences, as R computes them.

* :func:`cuminc` -- ``cmprsk::cuminc`` and ``timepoints`` (estimates and variances);
* :func:`cr_calibration` -- the calibration of predicted risks by a horizon in risk groups
  (``riskRegression::plotCalibration(Score(..., cause = , plots = "calibration"), method =
  "quantile")``), the observed risk of each group from the Aalen-Johansen estimator.

The time-dependent Brier score and AUC of a competing-risk outcome are
:func:`calstats.clinical.time_brier` and :func:`calstats.clinical.time_auc` with
``cause=``; the decision curve is :func:`calstats.clinical.decision_curve` with ``cause=``.
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .._plotting import pyplot
from .._surv import read_surv_args
from .._typing import ArrayLike
from .._validate import (
    check_bins,
    check_finite_number,
    check_numeric,
    check_prob,
    check_same_length,
    check_single_horizon,
    check_unique_breaks,
    read_group,
    refuse_gray_variance,
    refuse_horizon_beyond,
    refuse_no_event,
)
from ..numerics.interp import quantile_type7
from ..numerics.reductions import rmean
from ..numerics.rformat import format_real, print_data_frame
from ..ports.cmprsk.cuminc import cuminc_curves, cuminc_groups, r_pretty, timepoints_at
from ..ports.prodlim.prodlim import predict_step, prodlim_aj, prodlim_km
from ..results._base import Result

__all__ = ["cuminc", "CumInc", "cr_calibration", "CRCalibration"]


# --------------------------------------------------------------------------------------
# cuminc


class CumInc(Result):
    """The result of :func:`cuminc` (R: the ``cuminc`` object of ``cmprsk::cuminc``).

    ``curves``: ``{name: DataFrame(time, est, var)}``, one per cause and group, named as R
    names them (``"<group> <cause>"``; the group is ``1`` without ``group``), every group
    of the first cause, then of the next; ``times``: the times of ``est`` and ``var`` (R's
    ``timepoints(x, times)``: a matrix with a row per curve and a column per time; NaN where
    R gives NA); ``tests``: with two or more groups, Gray's test of each cause (R's
    ``Tests``: rows named by the causes, columns ``stat``, ``pv``, ``df``), else None.
    """

    r_class = ("cuminc",)
    _r_fields = ("curves", "tests")
    _extras = ("times", "est", "var", "causes", "groups")
    method = "Cumulative incidence (cmprsk::cuminc)"
    curves: dict[str, pd.DataFrame]
    tests: pd.DataFrame | None
    times: np.ndarray
    est: pd.DataFrame
    var: pd.DataFrame
    causes: list
    groups: list

    def names(self) -> list[str]:
        return list(self.curves)

    def __getitem__(self, name):
        return self.curves[name]

    def print_text(self) -> str:
        """R's ``print.cuminc``: Gray's tests (with groups), then ``Estimates and
        Variances:`` and the two matrices of ``timepoints`` (at the given times, or R's
        ``pretty`` grid inside the follow-up)."""
        head = "" if self.tests is None else "Tests:\n" + _matrix_text(self.tests)
        return (head + "Estimates and Variances:\n$est\n" + _matrix_text(self.est) + "\n$var\n"
                + _matrix_text(self.var) + "\n")

    def as_frame(self) -> pd.DataFrame:
        """Long form: ``curve``, ``time``, ``est``, ``var`` at the requested times."""
        rows = []
        for name in self.est.index:
            for t in self.est.columns:
                rows.append({"curve": name, "time": float(t), "est": self.est.loc[name, t],
                             "var": self.var.loc[name, t]})
        return pd.DataFrame(rows, columns=["curve", "time", "est", "var"])

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """The cumulative incidence curves as step functions (``plot.cuminc``). Returns the axes."""
        plt = pyplot("CumInc.plot()")

        if ax is None:
            ax = plt.gca()
        for name, c in self.curves.items():
            ax.plot(c["time"], c["est"], label=name, **kwargs)
        ax.set_ylim(0, 1)
        ax.set_xlabel("Time")
        ax.set_ylabel("Probability")
        ax.legend(frameon=False)
        return ax


def _time_label(t):
    """``as.character(t)`` for a column name."""
    from ..numerics.rformat import as_character

    return as_character(float(t))


def _matrix_text(m):
    """R's print of a numeric matrix with row and column names (each column formatted
    with 7 significant digits; NA for missing)."""
    cols = []
    for c in m.columns:
        vals = [float(v) for v in m[c]]
        fin = [v for v in vals if not math.isnan(v)]
        it = iter(format_real(fin, 7)) if fin else iter(())
        cells = [next(it) if not math.isnan(v) else "NA" for v in vals]
        cols.append((str(c), cells))
    return print_data_frame([str(r) for r in m.index], cols)


def cuminc(time: Any, event: Any, times: ArrayLike | None = None, *, cause: Any = None, group: Any = None,
           strata: Any = None, rho: float = 0.0) -> CumInc:
    """Cumulative incidence of each cause (the Aalen-Johansen estimator) with its variance,
    and Gray's test of equal cumulative incidence among groups.

    R: ``cmprsk::cuminc(ftime = time, fstatus = event, group = group, strata = strata, rho
    = rho, cencode = 0)`` and ``timepoints(fit, times)`` (cmprsk 2.2-11): Gray's Fortran
    routines (``cinc`` for the curves, ``crstm`` for the test), to R's last bit.

    Parameters
    ----------
    time : array_like
        Follow-up times (or a whole outcome, ``calstats.Surv(time, event)``, with
        ``event=None``).
    event : array_like
        Event codes: 0 censored, 1, 2, ... the causes (or a categorical whose first level
        is censoring).
    times : array_like, optional
        Times at which to read the curves (``timepoints``); default the ``pretty`` grid R's
        ``print.cuminc`` uses.
    cause : optional
        Only this cause (a code or a level); default every cause.
    group : array_like, optional
        Groups to compare (any labels; R's ``as.factor`` order: a categorical's levels,
        numbers sorted, strings sorted). With two or more groups there is a curve per group
        and cause and Gray's test of each cause (``tests``).
    strata : array_like, optional
        Strata for the test (the scores and variances of Gray's test are summed over
        them; the curves are not stratified), as R's ``strata``.
    rho : float, default 0
        Power of the weight function ``(1 - F(t-))^rho`` of the test.

    Returns
    -------
    CumInc
        ``curves`` (R's list: ``time``, ``est``, ``var`` of each step function), ``tests``
        (``stat``, ``pv``, ``df`` per cause; None with one group), ``est`` and ``var`` at
        ``times``.

    Notes
    -----
    The test statistic is ``s' V^-1 s`` with ``V^-1`` from R's LINPACK QR, and ``pv`` is
    ``1 - pchisq(stat, df)`` as cmprsk writes it; ``stat`` is -1 (and ``pv`` 1) when ``V`` is
    singular, as in R. When a group's event-free survival reaches 0 the variance is not
    finite and R's ``qr`` stops; so does this function, with a message saying why, as it does
    for an outcome without any event (R's Fortran stops on it).
    Deliberate differences: a missing value in ``time``, ``event``, ``group`` or ``strata`` is
    refused in one line naming the argument (R leaves those rows out with the message "n
    cases omitted due to missing values"), and strata levels that do not occur are dropped.
    """
    out = read_surv_args(time, event, ("time", "event"), competing=True)
    codes = np.asarray(out.status, dtype=np.int64)
    rho = check_finite_number(rho, "rho")
    refuse_no_event(codes)
    groups = ["1"]
    tests = None
    if group is None and strata is None:
        curves = cuminc_curves(out.time, codes)
        listed = [(c, 1, curves[c]) for c in curves]
    else:
        gcodes, groups = (np.ones(out.n, dtype=np.int64), ["1"]) if group is None else read_group(group, "group")
        scodes, slevels = (np.ones(out.n, dtype=np.int64), ["1"]) if strata is None else read_group(strata, "strata")
        check_same_length("group", "time", gcodes.size, out.n)
        check_same_length("strata", "time", scodes.size, out.n)
        listed, found = cuminc_groups(out.time, codes, gcodes, len(groups), scodes, len(slevels), rho)
        refuse_gray_variance([stat for stat, _, _ in found.values()])
    present = sorted({c for c, _, _ in listed})
    keep = present if cause is None else [out.cause_code(cause)]
    label = {c: out.cause_label(c) for c in present}
    if len(groups) > 1:
        tests = pd.DataFrame(np.array([found[c] for c in keep], dtype=np.float64).reshape(len(keep), 3),
                             index=pd.Index([label[c] for c in keep]), columns=pd.Index(["stat", "pv", "df"]))
    if times is None:
        maxtime = max(float(c.time.max()) for _, _, c in listed) if listed else float(out.time.max())
        tp = r_pretty(0.0, maxtime, 5)
        tp = tp[1:-1]
    else:
        tp = check_numeric(times, "times")
    grid = np.unique(tp)
    columns = pd.Index(["time", "est", "var"])
    named, rows_e, rows_v = {}, {}, {}  # R's list of curves and the rows of timepoints(), by curve
    for c, g, curve in listed:
        if c in keep:
            name = f"{groups[g - 1]} {label[c]}"
            named[name] = pd.DataFrame(np.column_stack((curve.time, curve.est, curve.var)), columns=columns)
            rows_e[name], rows_v[name] = timepoints_at(curve, grid)
    cols = pd.Index([_time_label(t) for t in grid])
    if rows_e:
        rows = pd.Index(list(rows_e))
        est = pd.DataFrame(np.vstack(list(rows_e.values())), index=rows, columns=cols)
        var = pd.DataFrame(np.vstack(list(rows_v.values())), index=rows, columns=cols)
    else:
        est, var = pd.DataFrame(columns=cols), pd.DataFrame(columns=cols)
    return CumInc(curves=named, tests=tests, times=grid, est=est, var=var, causes=[label[c] for c in keep],
                  groups=groups)


# --------------------------------------------------------------------------------------
# calibration in risk groups


class CRCalibration(Result):
    """The result of :func:`cr_calibration` (R: ``plotCalibration(...)$plotFrames``).

    ``frame``: one row per risk group: ``group`` (R's ``cut`` label), ``n``, ``Pred`` (the
    mean predicted risk), ``Obs`` (the Aalen-Johansen cumulative incidence of the cause at
    the horizon in the group; the Kaplan-Meier risk without a cause; NaN when the group's
    follow-up ends before the horizon); ``quantiles`` (the group limits), ``horizon``,
    ``cause``.
    """

    r_class = ("calibrationPlot",)
    _r_fields = ("frame", "quantiles")
    _extras = ("horizon", "cause")
    method = "Calibration in risk groups (riskRegression::plotCalibration)"
    frame: pd.DataFrame
    quantiles: np.ndarray
    horizon: float
    cause: Any

    def print_text(self) -> str:
        """The predicted and observed risk of each group (R's ``plotFrames`` data frame)."""
        f = self.frame
        head = (f"Calibration at time {self.horizon:g}" + (f", cause {self.cause}" if self.cause is not None else "")
                + " (observed: " + ("Aalen-Johansen" if self.cause is not None else "Kaplan-Meier") + ")\n")
        cols = [("n", [str(int(v)) for v in f["n"]]), ("Pred", _cells(f["Pred"])), ("Obs", _cells(f["Obs"]))]
        return head + print_data_frame([str(g) for g in f["group"]], cols)

    def as_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Observed against predicted risk per group with the diagonal (riskRegression's
        ``plotCalibration(method = "quantile")``). Returns the axes."""
        plt = pyplot("CRCalibration.plot()")

        if ax is None:
            ax = plt.gca()
        ax.plot([0, 1], [0, 1], color="0.75", lw=2)
        ax.plot(self.frame["Pred"], self.frame["Obs"], marker="o", **kwargs)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("Predicted risk")
        ax.set_ylabel("Estimated actual risk")
        return ax


def _cells(values):
    vals = [float(v) for v in values]
    fin = [v for v in vals if not math.isnan(v)]
    it = iter(format_real(fin, 7)) if fin else iter(())
    return [next(it) if not math.isnan(v) else "NA" for v in vals]


def _cut_labels(breaks):
    """R's ``cut(include.lowest = TRUE)`` labels: ``formatC(breaks, digits = dig)`` with the
    fewest digits (from 3) that keep them distinct."""
    for dig in range(3, 13):
        text = [("%." + str(dig) + "g") % b for b in breaks]
        if len(set(text)) == len(text):
            break
    labels = [f"({text[i]},{text[i + 1]}]" for i in range(len(breaks) - 1)]
    labels[0] = "[" + labels[0][1:]
    return labels


def cr_calibration(time: Any, event: Any, risk: ArrayLike, horizon: float, *, cause: Any = 1,
                   q: int = 10) -> CRCalibration:
    """Calibration of predicted risks by a horizon in risk groups, the observed risk from
    the Aalen-Johansen estimator (competing risks) or Kaplan-Meier (``cause=None``).

    R: ``plotCalibration(Score(list(model = risk), Hist(time, event) ~ 1, data, times =
    horizon, cause = cause, plots = "calibration"), method = "quantile", q = q)``'s
    ``plotFrames`` (riskRegression 2022.11.28): the groups are cut at the ``q``-quantiles
    of the risks (R's type 7 ``quantile``, ``cut(include.lowest = TRUE)``), ``Pred`` is the
    mean risk of a group and ``Obs`` prodlim's cumulative incidence of the cause at the
    horizon among its members (the risk of the event without competing risks).

    Parameters
    ----------
    time, event : array_like
        The outcome: times and event codes (0 censored, 1, 2, ... the causes); 0/1 with
        ``cause=None``. A whole outcome may be given as ``time`` with ``event=None``.
    risk : array_like
        Predicted risks (of the cause) by ``horizon``.
    horizon : float
        The horizon (within the follow-up).
    cause : optional, default 1
        The cause of interest; None for a right-censored outcome.
    q : int, default 10
        Number of risk groups.

    Returns
    -------
    CRCalibration

    Notes
    -----
    A missing value in ``time``, ``event`` or ``risk`` is refused in one line naming the
    argument, as riskRegression's ``Score`` stops ("Missing values in predicted risk
    detected.", "Missing values in response.").
    """
    competing = cause is not None
    out = read_surv_args(time, event, ("time", "event"), competing=competing)
    p = check_prob(risk, "risk")
    check_same_length("risk", "time", p.size, out.n)
    h = check_single_horizon(horizon)
    refuse_horizon_beyond(h, float(out.time.max()))
    q = check_bins(q, "q")
    breaks = quantile_type7(p, np.minimum(np.arange(q + 1) * (1 / q), 1.0))  # R's seq(0, 1, 1/q)
    check_unique_breaks(breaks)
    group = np.clip(np.searchsorted(breaks, p, side="left"), 1, q) - 1  # (b[k-1], b[k]], the first closed
    codes = np.asarray(out.status, dtype=np.int64)
    code = None
    if competing:
        code = out.cause_code(cause)
        positions = {c: k + 1 for k, c in enumerate(sorted({int(v) for v in codes if v != 0}))}
        codes = np.array([0 if v == 0 else positions[int(v)] for v in codes], dtype=np.int64)
        index = positions.get(code, 0)
    rows = []
    labels = _cut_labels(breaks)
    for g in range(q):
        member = group == g
        n = int(member.sum())
        if n == 0:
            rows.append({"group": labels[g], "n": 0, "Pred": math.nan, "Obs": math.nan})
            continue
        t = out.time[member]
        if competing:
            aj = prodlim_aj(t, codes[member], len(positions))
            obs = float(predict_step(aj.time, aj.cuminc[index - 1], [h], before=0.0)[0])
        else:
            km = prodlim_km(t, codes[member])
            obs = 1.0 - float(predict_step(km.time, km.surv, [h])[0])
        rows.append({"group": labels[g], "n": n, "Pred": rmean(p[member]), "Obs": obs})
    frame = pd.DataFrame(rows, columns=["group", "n", "Pred", "Obs"])
    return CRCalibration(frame=frame, quantiles=breaks, horizon=h,
                         cause=out.cause_label(code) if code is not None else None)

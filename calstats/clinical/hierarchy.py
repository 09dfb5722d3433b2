"""The calibration hierarchy of Van Calster et al. (2016): :func:`val_prob_ci`, a port of
CalibrationCurves' ``val.prob.ci.2``.

Van Calster B, Nieboer D, Vergouwe Y, De Cock B, Pencina MJ, Steyerberg EW (2016). A
calibration hierarchy for risk models was defined: from utopia to empirical data.
J Clin Epidemiol 74:167-176. The R package CalibrationCurves (``val.prob.ci.2``)
reports these statistics; calstats computes them along R's path:

* **mean calibration** (calibration-in-the-large): the intercept ``a`` of
  ``logit P(y = 1) = a + logit(p)``, i.e. a logistic model with ``logit(p)`` as an offset
  (slope fixed at 1); 0 when the average risk is right;
* **weak calibration**: the slope ``b`` of ``logit P(y = 1) = a + b logit(p)`` (1 when the
  risks are neither too extreme nor too modest);
* **moderate calibration**: a flexible calibration curve (R's loess, or restricted cubic
  splines) with a pointwise confidence band;
* discrimination: the c-statistic with a confidence interval.
"""

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import special as _sp
from scipy import stats as _st
from scipy.stats import rankdata

from .._errors import CalstatsError
from .._inputs import event_probability, refuse_swap
from .._plotting import pyplot
from .._typing import ArrayLike
from .._validate import (
    check_c_method,
    check_hierarchy_knots,
    check_hierarchy_range,
    check_interval,
    check_loess_degree,
    deparse,
    fail_approx_two_values,
    fail_hierarchy_binary,
    fail_lengths_p_logit,
    fail_lrm_fit_singular,
    fail_missing_argument,
    fail_three_knots,
    fail_too_few_left,
    match_arg,
    refuse_weights,
    warn_bootstrap_c,
    warn_deleted_01,
    warn_fewer_knots,
    warn_hierarchy_missing,
    warn_hierarchy_replaced,
    warn_large_data,
    warn_loess_to_rcs,
    warn_nans_produced,
    warn_no_intercept,
    warn_over_5000,
    warn_three_roots,
)
from ..numerics import libm
from ..numerics.nmath import numeric_vector, pchisq_upper, qlogis, quantile7
from ..numerics.reductions import rmean
from ..numerics.reductions import rsum as _rsum
from ..numerics.rformat import as_character, format_named_vector
from ..ports.rms.lrm_fit import lrm_fit
from ..ports.rms.lrm_offset import lrm_fit_offset
from ..results._base import CalibratorSummary, Result
from .logistic import logistic_mle

__all__ = ["val_prob_ci", "CalibrationHierarchy", "c_statistic"]

#: R's names of the statistics, in R's order
R_STAT_NAMES = ("Dxy", "C (ROC)", "R2", "D", "D:Chi-sq", "D:p", "U", "U:Chi-sq", "U:p", "Q", "Brier", "Intercept",
                "Slope", "Emax", "Brier scaled", "Eavg", "ECI")
_C_METHODS = ("pepe", "delong", "newcombe", "jackknife", "bootstrapP", "bootstrapBCa")


def c_statistic(p, y, level=0.95, method="delong"):
    """The c-statistic (AUC; ties count 1/2) and its confidence interval.

    ``method="delong"``: DeLong, DeLong & Clarke-Pearson (1988) variance, Wald interval on
    the AUC scale (clipped to [0, 1], as ``pROC::ci.auc``). ``method="pepe"``: the interval
    of CalibrationCurves' ``auc.nonpara.mw(method = "pepe")``: Wald on the logit scale with
    the Mann-Whitney variance of Pepe (2003). Returns ``(auc, lower, upper, se)``.
    """
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y)
    pos, neg = p[y == 1], p[y == 0]
    n1, n0 = pos.size, neg.size
    if n1 == 0 or n0 == 0:
        return math.nan, math.nan, math.nan, math.nan
    if method == "delong":
        auc, se, _, _ = _auc_delong(pos, neg)
        z = _sp.ndtri(0.5 + level / 2)
        return auc, max(0.0, auc - z * se), min(1.0, auc + z * se), se
    if method == "pepe":
        return _auc_pepe(pos, neg, level)
    check_c_method(method)


def _placements(pos, neg):
    """Mann-Whitney pieces: the AUC, each positive's share of negatives below it (ties 1/2)
    and each negative's share of positives above it."""
    n1, n0 = pos.size, neg.size
    r_all = rankdata(np.concatenate([pos, neg]))
    v10 = (r_all[:n1] - rankdata(pos)) / n0
    v01 = 1.0 - (r_all[n1:] - rankdata(neg)) / n1
    auc = (float(np.sum(r_all[:n1])) - n1 * (n1 + 1) / 2) / (n1 * n0)
    return auc, v10, v01


def _auc_delong(pos, neg):
    auc, v10, v01 = _placements(pos, neg)
    n1, n0 = pos.size, neg.size
    s10 = np.var(v10, ddof=1) if n1 > 1 else 0.0
    s01 = np.var(v01, ddof=1) if n0 > 1 else 0.0
    return auc, math.sqrt(s10 / n1 + s01 / n0), v10, v01


def _auc_pepe(pos, neg, level):
    """``auc.mw.pepe`` (CalibrationCurves): ``(1, 1, 1)`` when every positive is above every
    negative; otherwise a Wald interval on the logit scale."""
    m, n = neg.size, pos.size
    if np.max(neg) < np.min(pos):
        return 1.0, 1.0, 1.0, 0.0
    auc, _, _ = _placements(pos, neg)
    xi, yj = np.sort(neg), np.sort(pos)
    r = rankdata(np.concatenate([xi, yj]))
    Ri, Sj = r[:m], r[m:]
    with np.errstate(divide="ignore", invalid="ignore"):
        s102 = (np.sum((Ri - np.arange(1, m + 1)) ** 2) - m * (np.mean(Ri) - (m + 1) / 2) ** 2) / ((m - 1) * n ** 2)
        s012 = (np.sum((Sj - np.arange(1, n + 1)) ** 2) - n * (np.mean(Sj) - (n + 1) / 2) ** 2) / ((n - 1) * m ** 2)
        s2 = (m * s012 + n * s102) / (m + n)
        var = (m + n) * s2 / (m * n)
        z = _sp.ndtri(0.5 + level / 2)
        lg = np.log(auc / (1 - auc))
        half = z * np.sqrt(var) / (auc * (1 - auc))
        lo, hi = np.exp(lg - half), np.exp(lg + half)
        return auc, float(lo / (1 + lo)), float(hi / (1 + hi)), float(np.sqrt(var))


def _auc_newcombe(pos, neg, level):
    """``auc.mw.newcombe``: Newcombe's (2006) method 5, the roots of a quartic."""
    auc, _, _ = _placements(pos, neg)
    m, n = neg.size, pos.size  # getAUCCImwu(point, zalpha, ny, nx): m = #negatives
    z = float(_sp.ndtri(0.5 + level / 2))
    nstar = mstar = (m + n) / 2 - 1
    a = -1 - nstar - mstar
    b = 1 + 2 * mstar
    c = 2 + nstar
    d = 1 + 2 * auc
    ht2 = auc ** 2
    e = 2 - 2 * auc - ht2
    f = ht2 - 4 * auc
    g = 2 * ht2
    z2 = z ** 2
    mn = m * n
    coef = [mn * g, mn * f - z2 * c, mn * e - z2 * (b - c), mn * d - z2 * (a - b), -mn + z2 * a]
    roots = np.roots(coef[::-1])
    # R keeps Re(roots[sapply(.., all.equal(Im(root), 0))]): with any root off the real
    # axis (|Im| > 1.5e-8) that index is a character vector and every root becomes NA
    if roots.size != 4 or np.any(np.abs(roots.imag) > 1.5e-8):
        return auc, math.nan, math.nan, math.nan
    real = roots.real[(roots.real > 0) & (roots.real < 1)]
    ci = np.sort(real)
    if ci.size > 2:
        warn_three_roots()
        return auc, float(ci[0]), float(ci[1]), math.nan
    if ci.size == 1:
        lo, hi = (ci[0], 1.0) if ci[0] <= auc else (0.0, ci[0])
    elif ci.size == 0:
        lo, hi = 0.0, 1.0
    else:
        lo, hi = ci[0], ci[1]
    return auc, float(lo), float(hi), math.nan


def _auc_jackknife(pos, neg, level):
    """``auc.mw.jackknife``: pseudo-values of the leave-one-out AUCs, a t interval."""
    n1, n0 = pos.size, neg.size
    auc, v10, v01 = _placements(pos, neg)
    total = auc * n1 * n0
    part_pos = (total - v10 * n0) / ((n1 - 1) * n0)
    part_neg = (total - v01 * n1) / (n1 * (n0 - 1))
    nn = n1 + n0
    pseudo = nn * auc - (nn - 1) * np.concatenate([part_pos, part_neg])
    point = rmean(pseudo)
    st = math.sqrt(rmean((pseudo - point) ** 2) / (nn - 1))
    t = float(_st.t.ppf(1 - (1 - level) / 2, nn - 1))
    return point, point - t * st, point + t * st, st


def _ci_auc(p, y, level, method):
    """CalibrationCurves' ``ci.auc(y, p, cl.level, method)``: ``(point, lower, upper, se)``
    of ``auc.nonpara.mw(positives, negatives)`` (R's DeLong interval is not clipped)."""
    if method.startswith("bootstrap"):
        warn_bootstrap_c()
        method = "pepe"
    pos, neg = p[y == 1], p[y == 0]
    if method == "pepe":
        return _auc_pepe(pos, neg, level)
    if method == "delong":
        auc, se, _, _ = _auc_delong(pos, neg)
        z = float(_sp.ndtri(0.5 + level / 2))
        return auc, auc - z * se, auc + z * se, se
    if method == "newcombe":
        return _auc_newcombe(pos, neg, level)
    return _auc_jackknife(pos, neg, level)


class CalibrationHierarchy(Result):
    """The result of :func:`val_prob_ci` (R: CalibrationCurves' ``val.prob.ci.2``).

    ``r_class`` is ``("CalibrationCurve",)``, the class of the list ``val.prob.ci.2``
    returns; ``print(res)`` is R's ``print.CalibrationCurve`` (the call, the confidence
    level and R's statistics); ``res[name]`` reads a statistic by the names below;
    ``res.as_frame()`` is the hierarchy table, ``res.summary()`` a report, ``res.plot()``
    the calibration curve.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per level of the hierarchy: ``estimate``, ``se``, ``lower``, ``upper``.
        ``Calibration-in-the-large`` and ``Calibration slope``: the exact maximum-likelihood
        estimates with Wald intervals from the observed information (R's ``Intercept`` and
        ``Slope``, from ``rms::lrm.fit``, stop one Newton step after -2 log L changes by at
        most 0.025: within about 1e-7 of these; R's own numbers are in :attr:`stats` and
        :attr:`calibration`). Where the predictions separate the outcomes no
        maximum-likelihood estimate exists (the exact fit would stop anywhere): the row is
        then R's, ``rms::lrm.fit``'s estimate and interval where its stopping rule leaves it
        (R warns of that case through an unused ``glm`` fit: "fitted probabilities
        numerically 0 or 1 occurred"). ``C-statistic``: R's ``C (ROC)`` with R's interval (see
        :attr:`stats`); its ``se`` is that of the interval's method.
    stats : pandas.Series
        R's statistics, name for name and in R's order (``val.prob.ci.2``'s ``stats``:
        ``Dxy``, ``C (ROC)``, ``R2``, ``D``, ``D:Chi-sq``, ``D:p``, ``U``, ``U:Chi-sq``,
        ``U:p``, ``Q``, ``Brier``, ``Intercept``, ``Slope``, ``Emax``, ``Brier scaled``, and
        for loess ``Eavg``, ``ECI``), then calstats' additions. R's quantities:

        * ``C (ROC)``: the c index of ``rms::lrm.fit``'s *logistic recalibration* fit,
          counted from its fitted probabilities binned into 5001 cells of width 0.0002 (so
          ties within a cell count 1/2) and, when the slope is negative, of the reversed
          ranking: not the exact AUC of p (see ``AUC``);
        * ``Emax``: the largest distance between the *logistic recalibration curve*
          ``plogis(Intercept' + Slope * logit(u))`` and the diagonal over the grid
          ``u = 0, 0.0005, ..., 1`` (``emax_lim``), not of the flexible curve (see
          ``Emax (flexible)``);
        * ``Eavg``, ``ECI``: mean absolute and squared (x 100) distance between p and the
          loess curve at the observations;
        * ``D:p``, ``U:p``: ``1 - pchisq()`` as R writes it (0 below 1e-16);
        * ``Brier``: ``sum((p - y)^2) / n`` with R's n, the rows of the logistic fits (a
          ``logit`` of -Inf or Inf is left out of n, not of the sum); p of exactly 0 or 1,
          kept by calstats' default ``allow_perfect_predictions=None``, count in n.

        calstats' additions: ``n``, ``events``, ``O:E`` (observed / expected events),
        ``Calibration intercept (slope model)``, ``AUC``, ``AUC lower``, ``AUC upper``,
        ``AUC se`` (the exact Mann-Whitney AUC with DeLong's interval, clipped to [0, 1]
        as ``pROC::ci.auc``), and for a flexible curve ``E90`` and ``Emax (flexible)``
        (the 90th percentile and the largest distance between p and the curve at the
        observations), and for ``smooth="rcs"`` ``Eavg`` and ``ECI`` of the spline curve
        (R reports them for loess only).
    calibration : dict
        R's ``Calibration``: ``{"Intercept": (estimate, lower, upper), "Slope": (...)}``
        from ``lrm.fit`` and ``confint``.
    cindex : tuple
        R's ``Cindex``: ``(C (ROC), lower, upper)``.
    curve : dict
        The flexible curve on a grid of ``evaluate`` points between min and max p: ``x``,
        ``fit``, ``lower``, ``upper`` (``fit -+ z se``), ``se``, the method and settings;
        empty for ``smooth="none"``.
    flexible : pandas.DataFrame or None
        R's ``CalibrationCurves$FlexibleCalibration`` (loess): ``x`` (sorted p), ``y`` (the
        curve), ``ymin``, ``ymax`` (the band clipped to [0, 1]), with R's handling of a
        curve below 0 and of tied p.
    p, y : ndarray
        The probabilities and outcomes used (sorted by p, as R sorts them).
    level : float
        The confidence level.
    c_method : str
        The interval of the C-statistic (R's ``method.ci``).
    warning_messages : list of str
        R's ``warningMessages``.
    """

    r_class = ("CalibrationCurve",)
    _extras = ("table", "curve", "stats", "p", "y", "level", "c_method", "calibration", "cindex", "flexible",
               "r_stat_names", "warning_messages", "call_text")
    method = "Calibration hierarchy (Van Calster et al. 2016)"
    #: the summary ends with its tables (it is not an R result)
    _summary_details = True
    # set by the constructor (declared for type checkers)
    table: pd.DataFrame
    curve: dict[str, Any]
    stats: pd.Series
    p: np.ndarray
    y: np.ndarray
    level: float
    c_method: str
    calibration: dict[str, tuple[float, float, float]]
    cindex: tuple[float, float, float]
    flexible: pd.DataFrame | None
    r_stat_names: tuple[str, ...]
    warning_messages: list[str]
    call_text: list[str]

    def __init__(self, table, curve, stats, p, y, level, c_method, calibration, cindex, flexible, r_stat_names,
                 warning_messages, call_text):
        self._set_fields(table=table, curve=curve, stats=stats, p=p, y=y, level=level, c_method=c_method,
                         calibration=calibration, cindex=cindex, flexible=flexible, r_stat_names=r_stat_names,
                         warning_messages=warning_messages, call_text=call_text)

    def __getitem__(self, name):
        if name in self.table.index:
            return float(self.table.loc[name, "estimate"])
        return float(self.stats[name])

    def names(self) -> list[str]:
        """The names ``res[name]`` reads: the rows of :attr:`table`, then those of
        :attr:`stats` (R's names first).

        Returns
        -------
        list of str
        """
        return [str(k) for k in self.table.index] + [str(k) for k in self.stats.index]

    def __contains__(self, name):
        return name in self.table.index or name in self.stats.index

    @property
    def intercept(self):
        """Calibration-in-the-large (estimate, lower, upper): the exact MLE, Wald interval."""
        return tuple(self.table.loc["Calibration-in-the-large", ["estimate", "lower", "upper"]])

    @property
    def slope(self):
        """Calibration slope (estimate, lower, upper): the exact MLE, Wald interval."""
        return tuple(self.table.loc["Calibration slope", ["estimate", "lower", "upper"]])

    @property
    def c(self):
        """R's C-statistic with R's interval (estimate, lower, upper): ``Cindex``."""
        return tuple(self.table.loc["C-statistic", ["estimate", "lower", "upper"]])

    @property
    def auc(self):
        """The exact AUC (Mann-Whitney, ties 1/2) with DeLong's interval clipped to [0, 1]
        (estimate, lower, upper)."""
        return tuple(float(self.stats[k]) for k in ("AUC", "AUC lower", "AUC upper"))

    # -- the summary protocol of calstats' result objects --------------------------
    def _header_items(self):
        return [f"Method: {self.method}", f"Observations: {int(self.stats['n'])}",
                f"Events: {int(self.stats['events'])}",
                f"Curve: {self.curve.get('method', 'none')}", f"Confidence level: {self.level:g}"]

    def _summary_items(self):
        pct = f"{100 * self.level:g}%"
        items = []
        for name, row in self.table.iterrows():
            items.append((name, f"{row['estimate']:.4f} ({pct} CI {row['lower']:.4f} to {row['upper']:.4f})"))
        a = self.auc
        items.append(("AUC (exact, DeLong)", f"{a[0]:.4f} ({pct} CI {a[1]:.4f} to {a[2]:.4f})"))
        for name in ("O:E", "Brier", "Brier scaled", "Emax", "Eavg", "E90", "Emax (flexible)", "ECI"):
            if name in self.stats.index:
                items.append((name, f"{self.stats[name]:.4f}"))
        return items

    def _summary_tables(self):
        t = self.table.copy()
        t.index.name = "statistic"
        t.attrs["note"] = ("Wald intervals for intercept and slope (exact maximum likelihood); C-statistic: "
                           f"rms::lrm.fit's c index, interval by method '{self.c_method}' (CalibrationCurves).")
        s = self.stats.to_frame("value")
        s.index.name = "statistic"
        return {"hierarchy": t, "statistics": s}

    def _summary_notes(self):
        return []

    def print_text(self) -> str:
        """R's ``print.CalibrationCurve``: the call, the confidence level and R's statistics
        (``print(x$stats)``), with its final newline.

        Returns
        -------
        str
        """
        pct = as_character(self.level * 100)
        lines = ["Call:", *self.call_text, "",
                 f"A {pct}% confidence interval is given for the calibration intercept, calibration slope and "
                 "c-statistic. ", ""]
        r = self.stats[list(self.r_stat_names)]
        lines.append(format_named_vector(dict(zip(r.index, r.to_numpy(dtype=float)))))
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The hierarchy table (a copy; the summary's ``hierarchy`` table).

        Returns
        -------
        pandas.DataFrame
            Index ``statistic`` (``Calibration-in-the-large``, ``Calibration slope``,
            ``C-statistic``); columns ``estimate``, ``se``, ``lower``, ``upper``;
            ``attrs["note"]`` says how the intervals were computed.
        """
        return self._summary_tables()["hierarchy"]

    def summary(self) -> CalibratorSummary:
        """A summary for reports: ``as_text()``, ``as_html()``, ``as_latex()``, ``as_frame()``."""
        return CalibratorSummary(self)

    def _repr_html_(self):
        return self.summary().as_html()

    def plot(self, ax: Any = None, band: bool = True, riskdist: bool = True,
             statloc: tuple[float, float] = (0.02, 0.98)) -> Any:
        """Plot the flexible calibration curve with its band, the ideal line, the risk
        distribution by outcome, and the hierarchy's statistics. Returns the axes."""
        plt = pyplot("CalibrationHierarchy.plot()")

        if ax is None:
            ax = plt.gca()
        c = self.curve
        ax.plot([0, 1], [0, 1], color="0.6", lw=1, label="Ideal")
        if c:
            if band:
                ax.fill_between(c["x"], np.clip(c["lower"], 0, 1), np.clip(c["upper"], 0, 1), color="0.75",
                                alpha=0.6, lw=0, label=f"{100 * self.level:g}% CI")
            ax.plot(c["x"], c["fit"], color="black", lw=2,
                    label="Flexible calibration (" + ("Loess" if c["method"].startswith("loess") else "RCS") + ")")
        ax.set_xlim(-0.02, 1)
        ax.set_ylim(-0.15, 1)
        ax.set_xlabel("Predicted probability")
        ax.set_ylabel("Observed proportion")
        if riskdist:
            bins = np.linspace(0, 1, 101)
            f0 = np.histogram(self.p[self.y == 0], bins)[0]
            f1 = np.histogram(self.p[self.y == 1], bins)[0]
            mx = max(f0.max(), f1.max(), 1)
            base = -0.05
            ax.vlines(bins[:-1][f1 > 0], base, base + 0.1 * f1[f1 > 0] / mx, color="black", lw=0.8)
            ax.vlines(bins[:-1][f0 > 0], base, base - 0.1 * f0[f0 > 0] / mx, color="black", lw=0.8)
            ax.axhline(base, xmin=0, xmax=1, color="black", lw=0.5)
            ax.text(1.0, base + 0.03, "1", fontsize=7, ha="right")
            ax.text(1.0, base - 0.05, "0", fontsize=7, ha="right")
        if statloc is not False:
            ci, cs, cc = self.calibration["Intercept"], self.calibration["Slope"], self.cindex
            txt = ("Calibration\n"
                   f"...intercept: {ci[0]:.2f} ({ci[1]:.2f} to {ci[2]:.2f})\n"
                   f"...slope: {cs[0]:.2f} ({cs[1]:.2f} to {cs[2]:.2f})\n"
                   "Discrimination\n"
                   f"...c-statistic: {cc[0]:.2f} ({cc[1]:.2f} to {cc[2]:.2f})")
            ax.text(statloc[0], statloc[1], txt, transform=ax.transAxes, va="top", ha="left", fontsize=8)
        # CalibrationCurves' legendloc = c(0.50, 0.27)
        ax.legend(loc="upper left", bbox_to_anchor=(0.5, 0.27), bbox_transform=ax.transData, frameon=False,
                  fontsize=8)
        return ax


# --------------------------------------------------------------------------------------
# the call as R prints it

#: Python argument -> R argument, in R's formal order
_R_ARGS = (("p", "p"), ("y", "y"), ("logit", "logit"), ("pl", "pl"), ("smooth", "smooth"), ("nr_knots", "nr.knots"),
           ("emax_lim", "emax.lim"), ("level", "cl.level"), ("c_method", "method.ci"), ("evaluate", "evaluate"),
           ("allow_perfect_predictions", "allowPerfectPredictions"))


def _call_lines(supplied, data_names):
    from ._rmsprint import deparse_call

    data_names = dict(data_names or {})
    args = []
    for py, r in _R_ARGS:
        if py not in supplied or (py == "allow_perfect_predictions" and supplied[py] is None):
            continue
        if py in ("p", "y", "logit"):
            if supplied[py] is None:
                continue
            args.append((r, str(data_names.get(py, py))))
        else:
            args.append((r, deparse(supplied[py])))
    loess = [(k, supplied[k]) for k in ("span", "surface", "statistics") if k in supplied]
    if loess or "degree" in supplied:
        parts = [f"degree = {deparse(supplied.get('degree', 2))}"]
        parts += [f"span = {deparse(v)}" for k, v in loess if k == "span"]
        ctl = [f"{k} = {deparse(v)}" for k, v in loess if k != "span"]
        if ctl:
            parts.append("control = loess.control(" + ", ".join(ctl) + ")")
        args.append(("argzLoess", "list(" + ", ".join(parts) + ")"))
    return deparse_call("val.prob.ci.2", args)


def _records_r_call(fn):
    """Keep the arguments the caller supplied (R's ``match.call``) for the printed call."""
    import functools
    import inspect

    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        res = fn(*args, **kwargs)
        supplied = dict(sig.bind(*args, **kwargs).arguments)
        object.__setattr__(res, "call_text", _call_lines(supplied, supplied.get("data_names")))
        return res

    return wrapper


# --------------------------------------------------------------------------------------
# val.prob.ci.2


def _r_sqrt(v):
    """R's ``sqrt`` of a variance: NaN with R's warning when ``lrm.fit`` left a negative one
    (separated data, where R's val.prob.ci.2 goes on with NaN limits)."""
    v = float(v)
    if v < 0:
        warn_nans_produced()
        return math.nan
    return math.sqrt(v)


def _seq_by(lo, hi, by):
    """R's ``seq(lo, hi, by = by)``."""
    n = int((hi - lo) / by + 1e-10)
    return np.minimum(lo + np.arange(n + 1) * by, hi)


def _emax_logistic(coef, emax_lim):
    """``max(abs(predprob - calp))`` over R's grid ``seq(emax.lim[1], emax.lim[2], by = 0.0005)``."""
    u = _seq_by(float(emax_lim[0]), float(emax_lim[1]), 0.0005)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lt = coef[0] + coef[1] * libm.log(u / (1 - u))
        calp = 1 / (1 + libm.exp(-lt))
        d = np.abs(u - calp)
    return math.nan if np.isnan(d).any() else float(np.max(d))


def _flexible_frame(x, fit, se, z):
    """R's ``FlexibleCalibration``: ``merge(Sm, dfCL, by = "x")`` with Sm cut to [0, 1] when
    the curve dips below 0 (and then only), the band clipped to [0, 1] by R's two lines."""
    lo, hi = fit - z * se, fit + z * se
    lo = np.where(lo < 0, 0.0, lo)
    hi = np.where(hi < 0, 0.0, hi)
    hi = np.where(hi > 1, 1.0, hi)
    lo = np.where(lo > 1, 1.0, lo)
    keep = np.ones(x.size, dtype=bool)
    if np.any(fit < 0):
        keep = (fit >= 0) & (fit <= 1)
    # merge on x: each kept row of the curve meets every band row at its x (ties multiply)
    ux, first, counts = np.unique(x, return_index=True, return_counts=True)
    kept_counts = np.bincount(np.searchsorted(ux, x[keep]), minlength=ux.size)
    reps = kept_counts * counts
    rows = np.repeat(first, reps)
    return pd.DataFrame({"x": x[rows], "y": fit[rows], "ymin": lo[rows], "ymax": hi[rows]})


def _constant(pv, yv, lv, level, c_method):
    """R's branch for a single distinct p (16 statistics, no flexible curve)."""
    n = yv.size
    P = rmean(yv)
    intc = float(libm.log(P / (1 - P)))
    D = -1.0 / n
    from .valprob import _l01

    L01 = _l01(yv, lv)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        t = yv * intc - libm.log(1.0 + libm.exp(np.full(n, intc)))
    Lcal = -2.0 * _rsum(t[~np.isnan(t)])
    Uchi = L01 - Lcal
    U = (Uchi - 1.0) / n
    e = abs(float(pv[0]) - P)
    names = ("Dxy", "C (ROC)", "R2", "D", "D:Chi-sq", "D:p", "U", "U:Chi-sq", "U:p", "Q", "Brier", "Intercept",
             "Slope", "Emax", "Eavg", "ECI")
    values = [0.0, 0.5, 0.0, D, 0.0, 1.0, U, Uchi, pchisq_upper(Uchi, 1), D - U, rmean((yv - pv[0]) ** 2), intc, 0.0,
              e, e, 1.0]
    auc = _ci_auc(pv, yv, level, c_method)
    return names, values, auc


def val_prob_ci(p: ArrayLike | None = None, y: ArrayLike | None = None, logit: ArrayLike | None = None,
                smooth: str = "loess", level: float = 0.95, c_method: str = "pepe", span: float = 0.75,
                degree: int = 2, nr_knots: int = 5, evaluate: int = 100, pl: bool | None = None,
                ax: Any = None, *, allow_perfect_predictions: bool | None = None,
                emax_lim: tuple[float, float] = (0.0, 1.0), surface: str = "interpolate",
                statistics: str = "approximate", data_names: dict[str, str] | None = None,
                weights: ArrayLike | None = None) -> "CalibrationHierarchy":
    """The calibration hierarchy with confidence intervals: CalibrationCurves' ``val.prob.ci.2``.

    Parameters
    ----------
    p : array_like, optional
        Predicted probabilities (or scikit-learn's n x 2 ``predict_proba`` output, whose
        second column is read); or give ``logit``. Probabilities given as ``y`` with 0/1
        values as ``p`` are refused, naming the swap.
    y : array_like
        0/1 outcomes (R refuses any other value, missing ones included).
    logit : array_like, optional
        Predicted log odds (used when ``p`` is None; infinite values are left out of the
        logistic fits with R's warning).
    smooth : {"loess", "rcs", "none"}, default "loess"
        The flexible calibration curve: R's ``loess(y ~ p, degree = 2)`` with the band
        ``fit -+ z se`` of ``predict(se = TRUE)``; a logistic regression on a restricted
        cubic spline of p with ``nr_knots`` knots and a Wald band; or none. R computes Eavg
        and ECI for loess only.
    level : float, default 0.95
        Confidence level (R's ``cl.level``), a single number in (0, 1).
    c_method : {"pepe", "delong", "newcombe", "jackknife"}, default "pepe"
        Interval of the C-statistic (R's ``method.ci``, passed to ``auc.nonpara.mw``); R's
        bootstrap names fall back to "pepe" with R's warning.
    span, degree : float, int
        R's ``argzLoess`` (``loess(span, degree)``).
    nr_knots : int, default 5
        Knots of the spline curve, 3 to 5 (R checks it whatever ``smooth`` is).
    evaluate : int, default 100
        Grid size of :attr:`CalibrationHierarchy.curve` (between min and max p).
    pl : bool, optional
        Draw the plot (default: when matplotlib is already imported). Unlike R, the
        statistics and curves do not depend on it.
    ax : matplotlib axes, optional
    allow_perfect_predictions : bool, optional
        R's ``allowPerfectPredictions``. ``False``: R's refusal of any p of 0 or 1;
        ``True``: 0 and 1 replaced by 1e-8 and 1 - 1e-8 with R's warning (R refuses p that
        are all 0 or 1). ``None`` (default, calstats): p of 0 or 1 are kept and left out of
        the logistic fits with R's ``val.prob`` warning, as ``val.prob.ci.2`` does for
        infinite ``logit``.
    emax_lim : (float, float), default (0, 1)
        R's ``emax.lim``: the range of the grid of ``Emax``.
    surface, statistics : str
        R's ``loess.control``: ``"interpolate"``/``"approximate"`` (R's defaults, O(n));
        ``surface="direct"`` fits at every point (O(n^2)); ``statistics="exact"`` forms
        the smoother matrix (O(n^2) memory).
    data_names : dict, optional
        The R expressions the printed call shows for ``p``, ``y`` and ``logit`` (default
        their names), e.g. ``{"p": "Pred", "y": "yval"}``.
    weights : None
        Refused: R's ``val.prob.ci.2`` computes no weighted statistic (it uses ``weights``
        only to drop rows whose weight is missing, and in its grouped form); for weighted
        validation statistics use :func:`val_prob` (``weights=``).

    Returns
    -------
    CalibrationHierarchy
        ``res.stats`` holds R's statistics under R's names, with R's definitions: ``C (ROC)``
        is rms' binned c index of the logistic recalibration fit (not the exact AUC, which is
        ``res.auc`` / ``AUC``), ``Emax`` the largest gap of the logistic recalibration curve
        on [0, 1] (the flexible curve's is ``Emax (flexible)``); see
        :class:`CalibrationHierarchy` for every name.

    Notes
    -----
    R equivalent: ``CalibrationCurves::val.prob.ci.2(p, y, smooth, cl.level, method.ci,
    nr.knots, emax.lim, allowPerfectPredictions, argzLoess)`` (CalibrationCurves 3.1.0 on
    rms 6.5-0). R's statistics come from R's own steps (``rms::lrm.fit`` for the intercept,
    slope and C, ``ci.auc`` for the interval of C, ``loess`` interpolated for Eavg and ECI)
    and agree with R to about 1e-10 (loess: 1e-14). Deliberate differences: ``level`` is
    checked first; the hierarchy table reports the exact maximum-likelihood intercept and
    slope (R's lrm.fit values, within ~1e-7, are in ``stats`` and ``calibration``); the
    exact AUC with DeLong's interval is reported beside R's C; weights, groups
    (``val.probg``), bootstrap bands and R's plotting arguments are not taken.

    Raises
    ------
    CalstatsError
        ``Argument `level` must be a single number in `(0, 1)`.``, and R's errors:
        ``Probabilities can not be > 1 or < 0.``, ``Probabilities can not be >= 1 or <= 0.``
        (``allow_perfect_predictions=False``), ``All predicted values are equal to 0 or 1,
        ...``, ``The vector with the binary outcome can only contain the values 0 and 1.``,
        ``lengths of p or logit and y do not agree``, ``Number of knots = 6, only 3 <= nk
        <= 5 is allowed.``
    """
    if p is not None:
        p = event_probability(p, "p")  # scikit-learn's n x 2 predict_proba: the event's column
        if y is not None:
            refuse_swap(p, y, "val_prob_ci(p, y)")
    level = check_interval(level, "level")
    refuse_weights(weights, "by val_prob_ci: CalibrationCurves' val.prob.ci.2 computes no weighted statistic "
                            "(for weighted validation statistics use val_prob(weights=))")
    return _val_prob_ci(p, y, logit, smooth, level, c_method, span, degree, nr_knots, evaluate, pl, ax,
                        allow_perfect_predictions, emax_lim, surface, statistics)


val_prob_ci = _records_r_call(val_prob_ci)


def _val_prob_ci(p, y, logit, smooth, level, c_method, span, degree, nr_knots, evaluate, pl, ax, allow, emax_lim,
                 surface, statistics):
    level = check_interval(level, "level")
    smooth = match_arg(smooth, ("loess", "rcs", "none"), "smooth")
    c_method = match_arg(c_method, _C_METHODS, "c_method")
    surface = match_arg(surface, ("interpolate", "direct"), "surface")
    statistics = match_arg(statistics, ("approximate", "exact", "none"), "statistics")
    if smooth == "loess":
        check_interval(span, "span", closed_right=True)
        check_loess_degree(degree)
    wmess: list[str] = []
    if y is None:
        fail_missing_argument("y")
    yv = numeric_vector(y, "y")
    if p is not None:
        pv = numeric_vector(p, "p")
        check_hierarchy_range(pv, allow)  # (all 0 or 1: nothing is left for the logistic fits)
        if allow is True:
            if np.any(np.isin(pv, (0.0, 1.0))):
                pv = np.where(pv == 0, 1e-8, np.where(pv == 1, 1 - 1e-8, pv))
                wmess.append(warn_hierarchy_replaced())
        lv = qlogis(pv, warn_nan=False)
    else:
        if logit is None:
            fail_missing_argument("logit")
        lv = numeric_vector(logit, "logit")
        with np.errstate(over="ignore"):
            pv = 1.0 / (1.0 + libm.exp(-lv))
    if not np.all(np.isin(yv, (0.0, 1.0))):
        fail_hierarchy_binary()
    if pv.size != yv.size:
        fail_lengths_p_logit()
    ok = ~np.isnan(pv + yv)
    if not ok.all():
        wmess.append(warn_hierarchy_missing())
    check_hierarchy_knots(nr_knots)
    pv, yv, lv = pv[ok], yv[ok], lv[ok]
    order = np.argsort(pv, kind="stable")
    pv, yv, lv = pv[order], yv[order], lv[order]
    n = pv.size
    if not (np.any(yv == 0) and np.any(yv == 1)):
        fail_hierarchy_binary()
    z = float(_sp.ndtri(0.5 + level / 2))
    lc = None
    if n > 5000 and smooth == "loess":
        warn_over_5000()
        import warnings as _w

        failed = False
        with _w.catch_warnings(record=True) as rec:
            _w.simplefilter("always")
            try:  # R: tryCatch(loess and predict(se = TRUE), error = , warning = )
                lc = _loess(pv, yv, span, degree, surface, statistics, evaluate, strict=True)
            except CalstatsError:
                failed = True
        if failed or rec:
            lc = None
            wmess.append(warn_loess_to_rcs())
            smooth = "rcs"
    if n > 100000 and smooth == "loess":
        warn_large_data(n)
    auc_d = c_statistic(pv, yv, level, "delong")
    if np.unique(pv).size == 1:
        names, values, ci = _constant(pv, yv, lv, level, c_method)
        stats = dict(zip(names, values))
        calibration = {"Intercept": (stats["Intercept"], math.nan, math.nan), "Slope": (0.0, math.nan, math.nan)}
        table = pd.DataFrame([[stats["Intercept"], math.nan, math.nan, math.nan], [0.0, math.nan, math.nan, math.nan],
                              [0.5, ci[3], ci[1], ci[2]]],
                             index=["Calibration-in-the-large", "Calibration slope", "C-statistic"],
                             columns=["estimate", "se", "lower", "upper"])
        extras = _extras(pv, yv, auc_d, stats.get("Intercept", math.nan))
        full = pd.Series({**stats, **extras})
        return _finish(table, {}, full, pv, yv, level, c_method, calibration, (0.5, ci[1], ci[2]), None, names, wmess,
                       pl, ax)
    fin = np.isfinite(lv)
    nm = int((~fin).sum())
    if nm > 0:
        warn_deleted_01(nm)
    xl, yl = lv[fin], yv[fin].astype(np.int64)
    if np.unique(xl).size < 2 or not (np.any(yl == 0) and np.any(yl == 1)):
        # R reaches no fit here (its loess fails on the foreign call); say why in one line
        fail_too_few_left(nm)
    f = lrm_fit(xl, yl)
    if f is None:
        fail_lrm_fit_singular()
    var = f.var
    qa = _sp.ndtri((1 - level) / 2), _sp.ndtri(1 - (1 - level) / 2)
    se_slope = _r_sqrt(var[1, 1])
    cl_slope = (f.coefficients[1] + se_slope * qa[0], f.coefficients[1] + se_slope * qa[1])
    f2 = lrm_fit_offset(xl, yl)
    if f2.fail:
        warn_no_intercept()
        interc, cl_interc = math.nan, (math.nan, math.nan)
    else:
        interc = f2.coefficient
        se_i = _r_sqrt(f2.var)
        cl_interc = (interc + se_i * qa[0], interc + se_i * qa[1])
    st = f.stats
    ci = _ci_auc(pv, yv, level, c_method)
    nobs = st["Obs"]
    emax = _emax_logistic(f.coefficients, emax_lim)
    from .valprob import _l01

    lr = st["Model L.R."]
    D = (lr - 1.0) / nobs
    L01 = _l01(yv, lv)
    Uchi = L01 - f.deviance[1]
    U = (Uchi - 2.0) / nobs
    # R: sum((p - y)^2) / n with n the rows of the logistic fits (finite logits); p of exactly
    # 0 or 1 reach that line only through calstats' default, which divides by all rows
    B = _rsum_sq(pv - yv) / (nobs if (p is None or allow is not None) else float(pv.size))
    ybar = rmean(yv)
    bmax = ybar * (1 - ybar) ** 2 + (1 - ybar) * ybar ** 2
    stats = {"Dxy": st["Dxy"], "C (ROC)": st["C"], "R2": st["R2"], "D": D, "D:Chi-sq": lr,
             "D:p": pchisq_upper(lr, 1), "U": U, "U:Chi-sq": Uchi, "U:p": pchisq_upper(Uchi, 2), "Q": D - U,
             "Brier": B, "Intercept": interc, "Slope": float(f.coefficients[1]), "Emax": emax,
             "Brier scaled": 1 - B / bmax}
    names = list(stats)
    curve: dict[str, Any] = {}
    flexible = None
    at_obs = None
    if smooth == "loess":
        if lc is None:
            lc = _loess(pv, yv, span, degree, surface, statistics, evaluate)
        fit_obs = _approx_ordered(pv, lc["fitted"])
        stats["Eavg"] = rmean(np.abs(pv - fit_obs))
        stats["ECI"] = rmean((pv - fit_obs) ** 2) * 100
        names += ["Eavg", "ECI"]
        at_obs = fit_obs
        grid = lc["grid"]
        curve = {"method": f"loess, span {span:g}, degree {degree}", "x": grid, "fit": lc["fit"],
                 "lower": lc["fit"] - z * lc["se"], "upper": lc["fit"] + z * lc["se"], "se": lc["se"],
                 "surface": surface}
        model = lc["model"]
        try:
            _, sd = model.predict(pv, se=True, quiet=True)
        except CalstatsError:
            sd = np.full(pv.size, np.nan)
        flexible = _flexible_frame(pv, fit_obs, sd, float(_sp.ndtri(1 - (1 - level) / 2)))
    elif smooth == "rcs":
        got = _rcs_decreasing(pv, yv, int(nr_knots), level, evaluate, loud=_plots(pl))
        if got is not None:
            curve, at_obs = got
    f_int = logistic_mle(np.ones((xl.size, 1)), yl.astype(float), offset=xl)
    f_slope = logistic_mle(np.column_stack([np.ones(xl.size), xl]), yl.astype(float))
    # separated outcomes: no maximum-likelihood estimate exists and the exact fit stops
    # anywhere; the row is R's lrm.fit estimate, where R's stopping rule leaves it
    if f_int.converged:
        row_int = [f_int.coef[0], f_int.se[0], f_int.coef[0] - z * f_int.se[0], f_int.coef[0] + z * f_int.se[0]]
    else:
        row_int = [interc, se_i if not f2.fail else math.nan, *cl_interc]
    if f_slope.converged:
        row_slope = [f_slope.coef[1], f_slope.se[1], f_slope.coef[1] - z * f_slope.se[1],
                     f_slope.coef[1] + z * f_slope.se[1]]
        slope_intercept = float(f_slope.coef[0])
    else:
        row_slope = [float(f.coefficients[1]), se_slope, *cl_slope]
        slope_intercept = float(f.coefficients[0])
    table = pd.DataFrame([row_int, row_slope, [st["C"], ci[3], ci[1], ci[2]]],
                         index=["Calibration-in-the-large", "Calibration slope", "C-statistic"],
                         columns=["estimate", "se", "lower", "upper"])
    extras = _extras(pv, yv, auc_d, slope_intercept)
    if at_obs is not None:
        er = np.abs(pv - at_obs)
        extras["E90"] = quantile7(er, 0.9)
        extras["Emax (flexible)"] = float(np.max(er))
        if smooth == "rcs":
            extras["Eavg"] = rmean(er)
            extras["ECI"] = rmean((pv - at_obs) ** 2) * 100
    calibration = {"Intercept": (interc, *cl_interc), "Slope": (float(f.coefficients[1]), *cl_slope)}
    full = pd.Series({**stats, **extras})
    return _finish(table, curve, full, pv, yv, level, c_method, calibration, (st["C"], ci[1], ci[2]), flexible,
                   names, wmess, pl, ax)


def _plots(pl):
    from .valprob import _should_plot

    return _should_plot(pl)


def _rcs_decreasing(pv, yv, nk, level, evaluate, loud):
    """The spline curve as R's ``nkDecrease`` fits it: on an error one knot fewer, with R's
    warning, down to R's error below 3 knots. R fits it only when it plots; calstats always
    does, and when it does not plot (``loud`` false) it says nothing and leaves the curve out
    if no number of knots works."""
    import warnings as _w

    from .flexcurve import rcs_curve

    grid = np.linspace(pv.min(), pv.max(), int(evaluate))
    while True:
        try:
            with _w.catch_warnings():
                if not loud:
                    _w.simplefilter("ignore")
                rc = rcs_curve(pv, yv, nk=nk, xout=grid, level=level)
                rc_obs = rcs_curve(pv, yv, nk=nk, xout=pv, level=level)
        except CalstatsError:
            if loud:
                warn_fewer_knots(nk - 1)
            if nk < 3:
                if loud:
                    fail_three_knots()
                return None
            nk -= 1
            continue
        curve = {"method": f"restricted cubic splines, {nk} knots", "x": grid, "fit": rc["fit"], "lower": rc["lower"],
                 "upper": rc["upper"], "se": rc["se"], "knots": rc["knots"]}
        return curve, rc_obs["fit"]


def _approx_ordered(x, y):
    """``approx(data.frame(x, y), xout = x, ties = "ordered")$y`` on sorted x: y itself, except
    that R drops missing y first and interpolates over them (NA outside the rest's range)."""
    bad = np.isnan(y)
    if not bad.any():
        return y
    if int((~bad).sum()) < 2:
        fail_approx_two_values()
    xs, ys = x[~bad], y[~bad]
    out = np.interp(x, xs, ys)
    out[(x < xs[0]) | (x > xs[-1])] = math.nan
    return out


def _rsum_sq(d):
    return _rsum(d * d)


def _extras(pv, yv, auc_d, slope_intercept):
    return {"n": float(pv.size), "events": float(np.sum(yv)), "O:E": float(np.sum(yv) / np.sum(pv)),
            "Calibration intercept (slope model)": slope_intercept,
            "AUC": auc_d[0], "AUC lower": auc_d[1], "AUC upper": auc_d[2], "AUC se": auc_d[3]}


def _loess(pv, yv, span, degree, surface, statistics, evaluate, strict=False):
    """The loess curve on the grid; ``strict``: R's preliminary fit (n > 5000), where every
    warning of ``predict(se = TRUE)`` and every error counts."""
    from .flexcurve import loess_curve

    grid = np.linspace(pv.min(), pv.max(), int(evaluate))
    lc = loess_curve(pv, yv, span=span, degree=degree, xout=grid, surface=surface, statistics=statistics,
                     strict=strict)
    lc["grid"] = grid
    return lc


def _finish(table, curve, stats, pv, yv, level, c_method, calibration, cindex, flexible, names, wmess, pl, ax):
    res = CalibrationHierarchy(table, curve, stats, pv, yv, level, c_method, calibration, tuple(float(v) for v in cindex),
                               flexible, tuple(names), wmess, ["val.prob.ci.2(p = p, y = y)"])
    from .valprob import _should_plot

    if _should_plot(pl):
        res.plot(ax=ax)
    return res

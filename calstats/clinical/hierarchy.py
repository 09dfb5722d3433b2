"""The calibration hierarchy of Van Calster et al. (2016): :func:`val_prob_ci`.

Van Calster B, Nieboer D, Vergouwe Y, De Cock B, Pencina MJ, Steyerberg EW (2016). A
calibration hierarchy for risk models was defined: from utopia to empirical data.
J Clin Epidemiol 74:167-176. The R package CalibrationCurves (``val.prob.ci.2``)
reports these statistics; calstats computes the same quantities:

* **mean calibration** (calibration-in-the-large): the intercept ``a`` of
  ``logit P(y = 1) = a + logit(p)``, i.e. a logistic model with ``logit(p)`` as an offset
  (slope fixed at 1); 0 when the average risk is right;
* **weak calibration**: the slope ``b`` of ``logit P(y = 1) = a + b logit(p)`` (1 when the
  risks are neither too extreme nor too modest);
* **moderate calibration**: a flexible calibration curve (loess or restricted cubic
  splines) with a pointwise confidence band;
* discrimination: the c-statistic (area under the ROC curve) with a confidence interval.

Wald intervals (estimate +- z * standard error from the observed information) for the
intercept and slope, as ``confint.default`` gives for R's ``glm``.
"""

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import special as _sp
from scipy.stats import rankdata

from .._errors import CalstatsError, warn
from .._typing import ArrayLike
from .._validate import check_interval
from ..numerics.nmath import numeric_vector, qlogis
from ..results._base import CalibratorSummary, Result
from ..results._text import h1, wrap_item
from .logistic import logistic_mle

__all__ = ["val_prob_ci", "CalibrationHierarchy", "c_statistic"]


def c_statistic(p, y, level=0.95, method="delong"):
    """The c-statistic (AUC; ties count 1/2) and its confidence interval.

    ``method="delong"``: DeLong, DeLong & Clarke-Pearson (1988) variance, Wald interval on
    the AUC scale (clipped to [0, 1]). ``method="pepe"``: the interval of CalibrationCurves'
    ``auc.nonpara.mw(method = "pepe")``: Wald on the logit scale with the Mann-Whitney
    variance of Pepe (2003). Returns ``(auc, lower, upper, se)``.
    """
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y)
    pos, neg = p[y == 1], p[y == 0]
    n1, n0 = pos.size, neg.size
    if n1 == 0 or n0 == 0:
        return math.nan, math.nan, math.nan, math.nan
    r_all = rankdata(np.concatenate([pos, neg]))
    r_pos = rankdata(pos)
    r_neg = rankdata(neg)
    auc = (float(np.sum(r_all[:n1])) - n1 * (n1 + 1) / 2) / (n1 * n0)
    z = _sp.ndtri(0.5 + level / 2)
    if method == "delong":
        v10 = (r_all[:n1] - r_pos) / n0          # share of negatives below each positive
        v01 = 1.0 - (r_all[n1:] - r_neg) / n1     # share of positives above each negative
        s10 = np.var(v10, ddof=1) if n1 > 1 else 0.0
        s01 = np.var(v01, ddof=1) if n0 > 1 else 0.0
        se = math.sqrt(s10 / n1 + s01 / n0)
        return auc, max(0.0, auc - z * se), min(1.0, auc + z * se), se
    if method == "pepe":
        if auc in (0.0, 1.0):
            return auc, auc, auc, 0.0
        # Mann-Whitney placement variance (S2 of Newcombe/Pepe), negatives ranked below
        m, n = n0, n1
        xi, yj = np.sort(neg), np.sort(pos)
        r = rankdata(np.concatenate([xi, yj]))
        Ri, Sj = r[:m], r[m:]
        s102 = (np.sum((Ri - np.arange(1, m + 1)) ** 2) - m * (np.mean(Ri) - (m + 1) / 2) ** 2) / ((m - 1) * n ** 2)
        s012 = (np.sum((Sj - np.arange(1, n + 1)) ** 2) - n * (np.mean(Sj) - (n + 1) / 2) ** 2) / ((n - 1) * m ** 2)
        s2 = (m * s012 + n * s102) / (m + n)
        var = (m + n) * s2 / (m * n)
        half = z * math.sqrt(var) / (auc * (1 - auc))
        lg = math.log(auc / (1 - auc))
        se = math.sqrt(var)
        return auc, float(_sp.expit(lg - half)), float(_sp.expit(lg + half)), se
    raise CalstatsError('Argument `method` must be one of "delong", "pepe".')


class CalibrationHierarchy(Result):
    """The result of :func:`val_prob_ci` (R: CalibrationCurves' ``val.prob.ci.2``).

    ``r_class`` is ``("CalibrationCurve",)``, the class CalibrationCurves gives the list
    ``val.prob.ci.2`` returns; the fields differ from that list's (``call``, ``stats``,
    ``cl.level``, ``Calibration``, ``Cindex``): ``res[name]`` reads a statistic by the
    names below. A :class:`~calstats.results._base.Result`: ``print(res)`` shows the
    hierarchy, ``res.as_frame()`` its table, ``res.summary()`` a report, ``res.plot()`` the
    calibration curve, and a notebook shows the summary's tables.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per statistic (``Calibration-in-the-large``, ``Calibration slope``,
        ``C-statistic``): ``estimate``, ``se``, ``lower``, ``upper``.
    curve : dict
        The flexible curve: ``x``, ``fit``, ``lower``, ``upper`` (on a grid of ``evaluate``
        points between min and max p), the method and its settings.
    stats : pandas.Series
        Further statistics: ``n``, ``events``, ``O:E`` (observed / expected events),
        ``Brier``, ``Brier scaled``, ``Eavg``, ``E90``, ``Emax``, ``ECI`` (mean squared
        distance from the curve, x 100, as CalibrationCurves reports it).
    p, y : ndarray
        The probabilities and outcomes used (rows with a missing value dropped).
    level : float
        The confidence level.
    c_method : {"delong", "pepe"}
        The interval of the c-statistic.
    """

    r_class = ("CalibrationCurve",)
    _extras = ("table", "curve", "stats", "p", "y", "level", "c_method")
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

    def __init__(self, table, curve, stats, p, y, level, c_method):
        self._set_fields(table=table, curve=curve, stats=stats, p=p, y=y, level=level, c_method=c_method)

    def __getitem__(self, name):
        if name in self.table.index:
            return float(self.table.loc[name, "estimate"])
        return float(self.stats[name])

    def names(self) -> list[str]:
        """The names ``res[name]`` reads: the rows of :attr:`table`, then those of
        :attr:`stats` (not R's field names, see the class notes).

        Returns
        -------
        list of str
        """
        return [str(k) for k in self.table.index] + [str(k) for k in self.stats.index]

    def __contains__(self, name):
        return name in self.table.index or name in self.stats.index

    @property
    def intercept(self):
        """Calibration-in-the-large (estimate, lower, upper)."""
        return tuple(self.table.loc["Calibration-in-the-large", ["estimate", "lower", "upper"]])

    @property
    def slope(self):
        """Calibration slope (estimate, lower, upper)."""
        return tuple(self.table.loc["Calibration slope", ["estimate", "lower", "upper"]])

    @property
    def c(self):
        """C-statistic (estimate, lower, upper)."""
        return tuple(self.table.loc["C-statistic", ["estimate", "lower", "upper"]])

    # -- the summary protocol of calstats' result objects --------------------------
    def _header_items(self):
        return [f"Method: {self.method}", f"Observations: {int(self.stats['n'])}",
                f"Events: {int(self.stats['events'])}",
                f"Curve: {self.curve['method']}", f"Confidence level: {self.level:g}"]

    def _summary_items(self):
        pct = f"{100 * self.level:g}%"
        items = []
        for name, row in self.table.iterrows():
            items.append((name, f"{row['estimate']:.4f} ({pct} CI {row['lower']:.4f} to {row['upper']:.4f})"))
        for name in ("O:E", "Brier", "Brier scaled", "Eavg", "E90", "Emax", "ECI"):
            items.append((name, f"{self.stats[name]:.4f}"))
        return items

    def _summary_tables(self):
        t = self.table.copy()
        t.index.name = "statistic"
        t.attrs["note"] = (f"Wald intervals for intercept and slope; c-statistic interval: "
                           f"{'DeLong' if self.c_method == 'delong' else 'Pepe (logit scale)'}.")
        s = self.stats.to_frame("value")
        s.index.name = "statistic"
        return {"hierarchy": t, "statistics": s}

    def _summary_notes(self):
        return []

    def print_text(self) -> str:
        """The printed text, with its final newline: the header lines, then the hierarchy
        table (four decimals).

        Returns
        -------
        str
        """
        lines = ["", h1("calibration hierarchy")]
        for item in self._header_items():
            lines.extend(wrap_item(item))
        lines.append("")
        lines.append(self.table.to_string(float_format=lambda v: f"{v:.4f}"))
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
        import matplotlib.pyplot as plt

        if ax is None:
            ax = plt.gca()
        c = self.curve
        ax.plot([0, 1], [0, 1], color="0.6", lw=1, label="Ideal")
        if band:
            ax.fill_between(c["x"], np.clip(c["lower"], 0, 1), np.clip(c["upper"], 0, 1), color="0.75",
                            alpha=0.6, lw=0, label=f"{100 * self.level:g}% CI")
        ax.plot(c["x"], c["fit"], color="black", lw=2, label="Flexible calibration (" + ("Loess" if c["method"].startswith("loess") else "RCS") + ")")
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
            a, b, cc = self.intercept, self.slope, self.c
            txt = ("Calibration\n"
                   f"...in the large: {a[0]:.2f} ({a[1]:.2f} to {a[2]:.2f})\n"
                   f"...slope: {b[0]:.2f} ({b[1]:.2f} to {b[2]:.2f})\n"
                   "Discrimination\n"
                   f"...c-statistic: {cc[0]:.2f} ({cc[1]:.2f} to {cc[2]:.2f})")
            ax.text(statloc[0], statloc[1], txt, transform=ax.transAxes, va="top", ha="left", fontsize=8)
        # CalibrationCurves' legendloc = c(0.50, 0.27)
        ax.legend(loc="upper left", bbox_to_anchor=(0.5, 0.27), bbox_transform=ax.transData, frameon=False,
                  fontsize=8)
        return ax


def val_prob_ci(p: ArrayLike | None = None, y: ArrayLike | None = None, logit: ArrayLike | None = None,
                smooth: str = "loess", level: float = 0.95, c_method: str = "delong", span: float = 0.75,
                degree: int = 2, nr_knots: int = 5, evaluate: int = 100, pl: bool | None = None,
                ax: Any = None) -> "CalibrationHierarchy":
    """The calibration hierarchy with confidence intervals (CalibrationCurves' ``val.prob.ci.2``).

    Parameters
    ----------
    p : array_like, optional
        Predicted probabilities in (0, 1); or give ``logit``.
    y : array_like
        0/1 outcomes.
    logit : array_like, optional
        Predicted log odds (used when ``p`` is None).
    smooth : {"loess", "rcs"}, default "loess"
        The flexible calibration curve: loess (span ``span``, degree ``degree``) with a
        pointwise band ``fit +- z se``, or a logistic regression on a restricted cubic
        spline of p with ``nr_knots`` knots (3 to 7) and a Wald band.
    level : float, default 0.95
        Confidence level (R's ``cl.level``), a single number in (0, 1).
    c_method : {"delong", "pepe"}, default "delong"
        Interval of the c-statistic (see :func:`c_statistic`).
    evaluate : int, default 100
        Grid size of the curve (between min and max p).
    pl : bool, optional
        Draw the plot (default: when matplotlib is already imported).

    Returns
    -------
    CalibrationHierarchy

    Notes
    -----
    R equivalent: the statistics of ``CalibrationCurves::val.prob.ci.2(p, y, smooth,
    cl.level)``: intercept from ``glm(y ~ offset(logit(p)), binomial)`` (CalibrationCurves:
    ``lrm.fit(offset = logit)``), slope from ``glm(y ~ logit(p), binomial)``; here both are
    exact maximum-likelihood estimates (R's iterations stop ~1e-8 earlier). Observations
    with p of exactly 0 or 1 are left out of the intercept and slope fits (as val.prob
    does, with its warning). Deliberate differences: loess is computed directly, not by
    R's kd-tree interpolation (see :mod:`calstats.clinical.flexcurve`). ``level`` is
    checked first (R does not check ``cl.level``).

    Raises
    ------
    CalstatsError
        ``Argument `level` must be a single number in `(0, 1)`.`` for a level outside
        (0, 1) (``level=95`` would give NaN intervals), and R's errors for the data.
    """
    level = check_interval(level, "level")
    if y is None:
        raise CalstatsError('argument "y" is missing, with no default')
    yv = numeric_vector(y, "y")
    if p is None:
        if logit is None:
            raise CalstatsError('argument "logit" is missing, with no default')
        lv = numeric_vector(logit, "logit")
        pv = _sp.expit(lv)
    else:
        pv = numeric_vector(p, "p")
        if np.any((pv < 0) | (pv > 1)):
            raise CalstatsError("Probabilities can not be > 1 or < 0.")
        lv = qlogis(pv, warn_nan=False)
    if pv.size != yv.size:
        raise CalstatsError("lengths of p or logit and y do not agree")
    ok = ~np.isnan(pv + yv)
    pv, yv, lv = pv[ok], yv[ok], lv[ok]
    if not np.all(np.isin(yv, (0.0, 1.0))) or not (np.any(yv == 0) and np.any(yv == 1)):
        raise CalstatsError("The vector with the binary outcome can only contain the values 0 and 1.")
    if smooth not in ("loess", "rcs"):
        raise CalstatsError('Argument `smooth` must be "loess" or "rcs".')
    fin = np.isfinite(lv)
    if (~fin).any():
        warn(f"{int((~fin).sum())} observations deleted from logistic calibration due to probs. of 0 or 1")
    xl, yl = lv[fin], yv[fin]
    n1 = xl.size
    f_int = logistic_mle(np.ones((n1, 1)), yl, offset=xl)
    f_slope = logistic_mle(np.column_stack([np.ones(n1), xl]), yl)
    z = float(_sp.ndtri(0.5 + level / 2))
    auc, clo, chi, cse = c_statistic(pv, yv, level, c_method)
    rows = {
        "Calibration-in-the-large": (f_int.coef[0], f_int.se[0]),
        "Calibration slope": (f_slope.coef[1], f_slope.se[1]),
    }
    table = pd.DataFrame(
        [[est, se, est - z * se, est + z * se] for est, se in rows.values()] + [[auc, cse, clo, chi]],
        index=list(rows) + ["C-statistic"], columns=["estimate", "se", "lower", "upper"])
    grid = np.linspace(pv.min(), pv.max(), int(evaluate))
    if smooth == "loess":
        lc = loess_curve_checked(pv, yv, span, degree, grid)
        curve = {"method": f"loess, span {span:g}, degree {degree}", "x": grid, "fit": lc["fit"],
                 "lower": lc["fit"] - z * lc["se"], "upper": lc["fit"] + z * lc["se"], "se": lc["se"]}
        at_obs = lc["fitted"]
    else:
        from .flexcurve import rcs_curve

        rc = rcs_curve(pv, yv, nk=int(nr_knots), xout=grid, level=level)
        rc_obs = rcs_curve(pv, yv, nk=int(nr_knots), xout=pv, level=level)
        curve = {"method": f"restricted cubic splines, {int(nr_knots)} knots", "x": grid, "fit": rc["fit"],
                 "lower": rc["lower"], "upper": rc["upper"], "se": rc["se"], "knots": rc["knots"]}
        at_obs = rc_obs["fit"]
    er = np.abs(pv - at_obs)
    ybar = float(np.mean(yv))
    brier = float(np.mean((pv - yv) ** 2))
    bmax = ybar * (1 - ybar) ** 2 + (1 - ybar) * ybar ** 2
    stats = pd.Series({
        "n": float(pv.size), "events": float(np.sum(yv)), "O:E": float(np.sum(yv) / np.sum(pv)),
        "Calibration intercept (slope model)": float(f_slope.coef[0]),
        "Brier": brier, "Brier scaled": 1 - brier / bmax,
        "Eavg": float(np.mean(er)), "E90": float(np.quantile(er, 0.9)), "Emax": float(np.max(er)),
        "ECI": float(np.mean((pv - at_obs) ** 2) * 100)})
    res = CalibrationHierarchy(table, curve, stats, pv, yv, level, c_method)
    from .valprob import _should_plot

    if _should_plot(pl):
        res.plot(ax=ax)
    return res


def loess_curve_checked(p, y, span, degree, grid):
    from .flexcurve import loess_curve

    check_interval(span, "span", closed_right=True)
    if degree not in (0, 1, 2):
        raise CalstatsError("Argument `degree` must be 0, 1 or 2.")
    return loess_curve(p, y, span=span, degree=degree, xout=grid)

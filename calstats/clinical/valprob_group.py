"""``val_prob(group = )``: rms's ``val.probg`` -- validation statistics within groups.

Ported from rms 6.5-0's R code with the Hmisc helpers it calls (Hmisc 4.7): per group
and overall, the weighted quantiles of p (``wtd.quantile``), the c index from weighted
ranks (``wtd.rank``), the loess calibration curve (``wtd.loess.noiter``: R's ``loess``
with span 2/3, degree 1, ``cell = 0.13333``, one iteration; see
:mod:`calstats.ports.stats.loess`), and the statistics ``n``, ``Pavg``, ``Obs``,
``ChiSq``, ``ChiSq2``, ``Eavg``, ``Eavg/P90``, ``Med OR``, ``C``, ``B``, ``B ChiSq``,
``B cal``. Hmisc's peculiarities are kept: with tied values, ``wtd.table`` takes the distinct
values back from their 15-significant-digit names, so ranks and quantiles are computed on
those rounded values (and a p that rounds outside their range gets an NA rank).
"""

from typing import Any

import numpy as np
import pandas as pd

from .._plotting import pyplot
from .._validate import warn_nans_produced
from ..numerics.interp import approx_constant, seq_length
from ..numerics.nmath import qlogis
from ..numerics.reductions import LD, rmean, rsum
from ..ports.stats.loess import loess_fit_1d
from ..results._base import Result
from ..results._tables import table_html

__all__ = ["val_probg", "ValProbGroups", "GROUP_STAT_NAMES", "Q_LIMITS"]

GROUP_STAT_NAMES = ("n", "Pavg", "Obs", "ChiSq", "ChiSq2", "Eavg", "Eavg/P90", "Med OR", "C", "B", "B ChiSq",
                    "B cal")
Q_LIMITS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.975, 0.99)


def _ld_cumsum(w):
    """R ``cumsum`` of doubles: long-double running sum, each partial sum rounded."""
    return np.cumsum(np.asarray(w, dtype=np.float64).astype(LD)).astype(np.float64)


def _wtd_table(x, w, na_rm=True):
    """``Hmisc::wtd.table(x, weights, type = "list")`` for numbers: (values, summed weights)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if na_rm:
        s = ~np.isnan(x + w)
        x, w = x[s], w[s]
    o = np.argsort(x, kind="stable")
    x, w = x[o], w[o]
    ux, inv = np.unique(x, return_inverse=True)
    if ux.size < x.size:
        sums = np.zeros(ux.size, dtype=LD)
        np.add.at(sums, inv, w.astype(LD))
        # the values come back from tapply's names: 15 significant digits
        return np.array([float("%.15g" % v) for v in ux]), sums.astype(np.float64)
    return x, w


def _wtd_quantile(x, w, probs, na_rm=True):
    """``Hmisc::wtd.quantile(x, weights, probs, type = "quantile", normwt = FALSE)``."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    drop = np.isnan(w) | (w == 0)
    x, w = x[~drop], w[~drop]
    xv, wts = _wtd_table(x, w, na_rm)
    probs = np.asarray(probs, dtype=np.float64)
    n = rsum(wts)
    order = 1 + (n - 1) * probs
    low = np.maximum(np.floor(order), 1)
    high = np.minimum(low + 1, n)
    order = order - np.floor(order)  # order %% 1
    cw = _ld_cumsum(wts)
    xout = np.concatenate([low, high])
    # approx(cumsum(wts), x, xout, method = "constant", f = 1, rule = 2)
    j = np.clip(np.searchsorted(cw, xout, side="left"), 0, cw.size - 1)
    allq = np.where(xout <= cw[0], xv[0], np.where(xout >= cw[-1], xv[-1], xv[j]))
    k = probs.size
    return (1 - order) * allq[:k] + order * allq[k:]


def _wtd_rank(x, w):
    """``Hmisc::wtd.rank(x, weights, na.rm = FALSE)``: NaN outside the table's range."""
    tx, freqs = _wtd_table(x, w, na_rm=False)
    r = _ld_cumsum(freqs) - 0.5 * (freqs - 1)
    out = approx_constant(tx, r, x)
    return np.where((x < tx[0]) | (x > tx[-1]), np.nan, out)


def _curve(P, fit, evaluate):
    if P.size > evaluate:
        o = np.argsort(P, kind="stable")
        xs, ys = P[o], fit[o]
        ux, inv = np.unique(xs, return_inverse=True)
        if ux.size < xs.size:
            ym = np.array([rmean(ys[inv == i]) for i in range(ux.size)])
        else:
            ym = ys
        xo = seq_length(float(P.min()), float(P.max()), evaluate)
        return xo, approx_constant(ux, ym, xo)
    o = np.argsort(P, kind="stable")
    xs, ys = P[o], fit[o]
    keep = np.concatenate([[True], xs[1:] != xs[:-1]])
    return xs[keep], ys[keep]


def _one_group(P, Y, wt, evaluate, nmin):
    lims = _wtd_quantile(P, wt, Q_LIMITS, na_rm=False)
    n = rsum(wt)
    n1 = rsum(wt[Y == 1])
    ranks = _wtd_rank(P, wt)
    c_index = (rmean(ranks[Y == 1]) - (n1 + 1) / 2) / (n - n1)
    fit = loess_fit_1d(P, Y, wt, span=2.0 / 3.0, degree=1, cell=0.13333)
    cx, cy = _curve(P, fit, evaluate)
    if nmin > 0:
        cuts = _wtd_quantile(P, wt, np.array([nmin, n - nmin]) / n, na_rm=False)
        keep = (cx >= cuts[0]) & (cx <= cuts[1])
        cx, cy = cx[keep], cy[keep]
    eavg = rsum(wt * np.abs(P - fit)) / n
    b = rsum(wt * ((P - Y) ** 2)) / n
    E0b = rsum(wt * P * (1 - P)) / n
    Vb = rsum(wt * ((1 - 2 * P) ** 2) * P * (1 - P)) / n / n
    bchisq = (b - E0b) ** 2 / Vb
    bcal = rsum(wt * ((fit - Y) ** 2)) / n
    pred = rsum(wt * P) / n
    obs = rsum(wt * Y) / n
    L = np.where((P == 0) | (P == 1), np.nan, qlogis(P, warn_nan=False))
    ok = ~np.isnan(L)
    r = Y - P
    dl = np.array([rsum((wt * r)[ok]), rsum((wt * L * r)[ok])])
    ppq = P * (1 - P)
    v12 = rsum((wt * L * P * (1 - P))[ok])
    V = np.array([[rsum((wt * P * (1 - P))[ok]), v12], [v12, rsum((wt * L * L * P * (1 - P))[ok])]])
    chisq = rsum(wt * (P - Y)) ** 2 / rsum(wt * ppq)
    try:
        chisq2 = float(dl @ np.linalg.solve(V, dl))
    except np.linalg.LinAlgError:
        chisq2 = np.nan
    p90 = lims[8] - lims[2]
    if np.any((fit < 0) | (fit > 1)):
        warn_nans_produced()
    Lcal = np.where((fit <= 0) | (fit >= 1), np.nan, qlogis(np.clip(fit, 0, 1), warn_nan=False))
    med = _wtd_quantile(np.abs(L - Lcal), wt, [0.5], na_rm=True)[0]
    orr = float(np.exp(med))
    row = [n, pred, obs, chisq, chisq2, eavg, eavg / p90, orr, c_index, b, bchisq, bcal]
    return row, lims, (cx, cy)


def val_probg(p, y, group, evaluate=100, weights=None, normwt=False, nmin=0):
    """rms ``val.probg(p, y, group, evaluate, weights, normwt, nmin)``; see :func:`val_prob`."""
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(p.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if normwt:
        w = y.size * w / rsum(w)
    levels = [str(c) for c in group.categories]
    codes = np.asarray(group.codes)
    if len(levels) == 1:
        levels = []
    names = levels + ["Overall"]
    rows, lims, curves = [], [], {}
    for i, name in enumerate(names):
        s = np.ones(p.size, dtype=bool) if name == "Overall" and i == len(levels) else codes == i
        row, lim, curve = _one_group(p[s], y[s], w[s], evaluate, nmin)
        rows.append(row)
        lims.append(lim)
        curves[name] = curve
    stats = pd.DataFrame(rows, index=names, columns=list(GROUP_STAT_NAMES))
    quantiles = pd.DataFrame(lims, index=names, columns=[f"{q:g}" for q in Q_LIMITS])
    return ValProbGroups(stats=stats, cal_curves=curves, quantiles=quantiles)


class ValProbGroups(Result):
    """The grouped result of :func:`val_prob` (R class ``val.prob``: the list rms's
    ``val.probg`` returns, with fields ``stats``, ``cal.curves``, ``quantiles``).

    A :class:`~calstats.results._base.Result` built in one call with every R field
    (keyword arguments ``stats``, ``cal_curves``, ``quantiles``; a missing one is a
    ``TypeError``): ``res["cal.curves"]`` and ``res.names()`` read the fields,
    ``print(res)`` shows R's ``print.val.prob``, ``res.as_frame()`` the statistics table,
    and a notebook shows the statistics and the quantiles.

    Attributes
    ----------
    stats : pandas.DataFrame
        One row per group and ``Overall``; R's columns ``n``, ``Pavg``, ``Obs``,
        ``ChiSq``, ``ChiSq2``, ``Eavg``, ``Eavg/P90``, ``Med OR``, ``C``, ``B``,
        ``B ChiSq``, ``B cal``.
    cal_curves : dict
        Group name -> ``(x, y)`` of the loess calibration curve (R's ``cal.curves``).
    quantiles : pandas.DataFrame
        Weighted quantiles of p (columns ``0.01`` ... ``0.99``).
    """

    r_class = ("val.prob",)
    _r_fields = ("stats", "cal.curves", "quantiles")
    # R fields, set by the constructor (declared for type checkers)
    stats: pd.DataFrame
    cal_curves: dict[str, tuple[np.ndarray, np.ndarray]]
    quantiles: pd.DataFrame

    def print_text(self) -> str:
        """R's ``print.val.prob`` (values rounded to 3 decimals), with its final newline."""
        return (self.stats.round(3).to_string() + "\n\nQuantiles of Predicted Probabilities\n\n"
                + self.quantiles.round(3).to_string() + "\n")

    def as_frame(self) -> pd.DataFrame:
        """The statistics table (a copy of :attr:`stats`).

        Returns
        -------
        pandas.DataFrame
            Index ``group`` (the groups, then ``Overall``); R's columns ``n``, ``Pavg``,
            ``Obs``, ``ChiSq``, ``ChiSq2``, ``Eavg``, ``Eavg/P90``, ``Med OR``, ``C``,
            ``B``, ``B ChiSq``, ``B cal``.
        """
        frame = self.stats.copy()
        frame.index.name = "group"
        return frame

    def _html_title(self):
        return "Validation of predicted probabilities within groups (rms val.prob)"

    def _repr_html_(self):
        """Notebook view: a heading, the statistics table and the quantiles of p."""
        import html

        return "\n".join([f"<h4>{html.escape(self._html_title())}</h4>", table_html(self.as_frame()),
                          "<h5>Quantiles of Predicted Probabilities</h5>", table_html(self.quantiles)])

    def plot(self, ax: Any = None) -> Any:
        """The calibration curves of the groups (as rms's ``plot.val.prob`` draws them,
        without its legend options). Returns the axes."""
        plt = pyplot("ValProbGroups.plot()")

        if ax is None:
            ax = plt.gca()
        ax.plot([0, 1], [0, 1], color="0.85", lw=6, label="Ideal")
        for name, (cx, cy) in self.cal_curves.items():
            ax.plot(cx, cy, lw=1, label=name)
        ax.set_xlabel("Predicted Probability")
        ax.set_ylabel("Actual Probability")
        ax.legend(frameon=False, fontsize=8)
        return ax

"""``val_prob``: ``rms::val.prob`` (rms 6.5-0) -- validation statistics of predicted probabilities.

The statistics are R's, name for name, computed along R's own path (see
:mod:`calstats.ports.rms.lrm_fit` for the two ``lrm.fit`` calls and
:mod:`calstats.ports.stats.lowess` for the smoother), so they agree with R to ~1e-15.
"""

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._inputs import event_probability, refuse_swap
from .._typing import ArrayLike, Weights
from .._validate import (
    fail_foreign_nonfinite,
    fail_length_of_y,
    fail_lengths_p_logit,
    fail_missing_argument,
    fail_names_length,
    fail_not_numeric,
    fail_not_vector,
    fail_three_observations,
    fail_val_prob_one_class,
    fail_val_prob_range,
    warn_deleted_01,
)
from ..numerics import libm
from ..numerics.nmath import pchisq_upper, plogis, pnorm_lower, qlogis, quantile7
from ..numerics.reductions import rmean, rsum
from ..ports.rms.lrm_fit import lrm_fit
from ..ports.stats.lowess import lowess, r_order
from ..results._base import Result
from ..results._tables import table_html

if TYPE_CHECKING:
    from .valprob_group import ValProbGroups

__all__ = ["val_prob", "ValProb", "STAT_NAMES"]

#: R's names of the ``val.prob`` statistics, in R's order.
STAT_NAMES = ("Dxy", "C (ROC)", "R2", "D", "D:Chi-sq", "D:p", "U", "U:Chi-sq", "U:p", "Q", "Brier",
              "Intercept", "Slope", "Emax", "E90", "Eavg", "S:z", "S:p")

def _as_float_vector(x, arg):
    """A 1-D float64 copy of ``x`` (numbers or booleans; pandas NA and None become NaN)."""
    if isinstance(x, (pd.Series, pd.Index)):
        if isinstance(x.dtype, pd.CategoricalDtype) or not (
                pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype)):
            fail_not_numeric(arg)
        return pd.array(x).to_numpy(dtype=np.float64, na_value=np.nan).ravel()
    arr = np.asarray(x)
    if arr.dtype == object:
        try:
            arr = np.array([np.nan if (v is None or v is pd.NA) else float(v) for v in arr.ravel()])
        except (TypeError, ValueError):
            fail_not_numeric(arg)
    if arr.dtype.kind not in "biuf":
        fail_not_numeric(arg)
    if arr.ndim > 1 and not (arr.ndim == 2 and 1 in arr.shape):
        fail_not_vector(arg)
    return arr.astype(np.float64).ravel()


def _spi(p, y):
    """Spiegelhalter's z test, R's ``Spi`` inside ``val.prob``."""
    a = 1.0 - 2.0 * p
    num = rsum((y - p) * a)
    den = math.sqrt(rsum(((a * a) * p) * (1.0 - p)))
    z = num / den if den != 0 else (math.copysign(math.inf, num) if num != 0 else math.nan)
    return z, 2.0 * pnorm_lower(-abs(z))


def _l01(y, logit):
    """``-2 * sum(y * logit - log(1 + exp(logit)), na.rm = TRUE)``."""
    with np.errstate(invalid="ignore", over="ignore"):
        terms = y * logit - libm.log(1.0 + libm.exp(logit))
    return -2.0 * rsum(terms[~np.isnan(terms)])


def _constant_branch(p, y, logit):
    """R's branch for a single distinct p (its 19 values under 18 names; see ValProb)."""
    P = rmean(y)
    intc = float(qlogis(np.array([P]), warn_nan=False)[0])
    n = y.size
    D = -1.0 / n
    L01 = _l01(y, logit)
    with np.errstate(invalid="ignore", over="ignore"):
        t = y * intc - libm.log(1.0 + libm.exp(np.full(n, intc)))
    Lcal = -2.0 * rsum(t[~np.isnan(t)])
    Uchi = L01 - Lcal
    Up = pchisq_upper(Uchi, 1)
    U = (Uchi - 1.0) / n
    Q = D - U
    z, zp = _spi(p, y)
    e = abs(p[0] - P)
    values = [0.0, 0.5, 0.0, D, 0.0, 1.0, U, Uchi, Up, Q, rmean((y - p[0]) ** 2), intc, 0.0, 0.0, 0.0, e, e,
              z, zp]
    return values, list(STAT_NAMES) + [None], None, None


def _factor_codes(y):
    """R's ``as.factor(y)`` codes minus one, and the number of levels."""
    levels = np.unique(y)
    return np.searchsorted(levels, y), levels.size


def _core(p, y, logit):
    """The ungrouped statistics. Returns (values, names, recal fit, lowess curve)."""
    o = r_order(p)  # R's order(p): lowess's and the smooth's (one sort)
    ps = p[o]
    if ps.size and (ps[0] == ps[-1] or np.isnan(ps[0])):  # np.unique(p).size == 1, from the sorted p
        return _constant_branch(p, y, logit)
    keep = ~np.isinf(logit)
    nm = int(np.sum(~keep))
    if nm > 0:
        warn_deleted_01(nm)
    xl, yl = logit[keep], y[keep]
    if np.isnan(xl).any():
        fail_foreign_nonfinite(4)
    if yl.size < 3:
        fail_three_observations()
    codes, nlev = _factor_codes(yl)
    if nlev == 1:
        fail_val_prob_one_class()
    f_fixed = lrm_fit(xl, codes, initial=(0.0, 1.0), maxit=1)
    f_recal = lrm_fit(xl, codes)
    st = f_fixed.stats
    n = st["Obs"]
    sx, sy = lowess(ps, y[o], iter=0)  # lowess(p, y): sorting the sorted p keeps it
    # approx(Sm, xout = p, ties = mean): p are knots, so each p gets the mean fit at its value
    first = np.empty(sx.size, dtype=bool)
    first[:1] = True
    np.not_equal(sx[1:], sx[:-1], out=first[1:])
    inv = np.cumsum(first) - 1  # the run of equal sx of each sorted position
    ux = sx[first]
    if ux.size < sx.size:
        sums = np.zeros(ux.size, dtype=np.longdouble)
        np.add.at(sums, inv, sy.astype(np.longdouble))
        counts = np.bincount(inv)
        means = (sums / counts).astype(np.float64)
        # R's mean: a second pass adds the mean residual (long double)
        resid = np.zeros(ux.size, dtype=np.longdouble)
        np.add.at(resid, inv, sy.astype(np.longdouble) - means[inv].astype(np.longdouble))
        means = (means.astype(np.longdouble) + resid / counts).astype(np.float64)
    else:
        means = sy
    cal_smooth = np.empty(p.size)
    cal_smooth[o] = means[inv]
    er = np.abs(p - cal_smooth)
    eavg = rmean(er)
    emax = float(np.max(er))
    e90 = quantile7(er, 0.9)
    lr = st["Model L.R."]
    D = (lr - 1.0) / n
    L01 = _l01(y, logit)
    if f_recal is None:
        coef = []
        Uchi = math.nan
    else:
        coef = list(f_recal.coefficients)
        Uchi = L01 - f_recal.deviance[1]
    pU = pchisq_upper(Uchi, 2)
    U = (Uchi - 2.0) / n
    Q = D - U
    B = rmean((p - y) ** 2)
    z, zp = _spi(p, y)
    values = [st["Dxy"], st["C"], st["R2"], D, lr, st["P"], U, Uchi, pU, Q, B, *coef, emax, e90, eavg, z, zp]
    names = list(STAT_NAMES)
    if len(values) < len(STAT_NAMES):
        fail_names_length(len(STAT_NAMES), len(values))
    names += [None] * (len(values) - len(names))  # R pads the names with NA (ordinal y)
    return values, names, f_recal, (sx, sy)


def _group_factor(group, n, g_group):
    from ..ports.hmisc.cut2 import cut2

    if isinstance(group, (bool, np.bool_)):
        if not group:
            return None
        return pd.Categorical([""] * n)
    if isinstance(group, pd.Series):
        group = group.array
    if isinstance(group, pd.Categorical):
        return group
    from .._factor import Factor

    if isinstance(group, Factor):
        return pd.Categorical.from_codes(np.asarray(group.codes) - 1, categories=list(group.levels))
    arr = np.asarray(group)
    if arr.dtype.kind in "bOUS":
        vals = [None if (v is None or (isinstance(v, float) and math.isnan(v))) else str(v) if arr.dtype.kind != "b"
                else ("TRUE" if v else "FALSE") for v in arr.ravel()]
        return pd.Categorical(vals)
    return cut2(arr.astype(np.float64), g=g_group)


def val_prob(p: ArrayLike | None = None, y: ArrayLike | None = None, logit: ArrayLike | None = None,
             group: ArrayLike | int | None = None, weights: Weights = None, normwt: bool = False,
             pl: bool | None = None, smooth: bool = True, logistic_cal: bool = True, m: int | None = None,
             g: int | None = None, cuts: ArrayLike | None = None, emax_lim: tuple[float, float] = (0.0, 1.0),
             riskdist: str = "predicted", g_group: int = 4, evaluate: int = 100, nmin: int = 0,
             ax: Any = None, **plot_args: Any) -> "ValProb | ValProbGroups":
    """Validate predicted probabilities of a binary outcome: ``rms::val.prob``.

    Parameters
    ----------
    p : array_like, optional
        Predicted probabilities. Give ``p`` or ``logit``.
    y : array_like
        Outcomes, 0/1 (numbers or booleans).
    logit : array_like, optional
        Predicted log odds, used when ``p`` is not given (``p = plogis(logit)``).
    group : array_like or True, optional
        Validate within groups (R's ``val.probg``): a categorical/strings/booleans, or
        numbers cut into ``g_group`` quantile groups (``Hmisc::cut2``); ``True`` for the
        overall statistics only. Returns a :class:`~calstats.clinical.ValProbGroups`.
    weights : array_like, optional
        Case weights; R uses them only with ``group`` (rows with a missing weight are
        dropped in both cases, as in R).
    normwt : bool, default False
        With ``group``: rescale the weights to sum to n.
    pl : bool, optional
        Draw R's calibration plot on the current matplotlib axes. Default: draw only if
        matplotlib is already imported (a script or notebook that plots); ``True`` forces
        it (and needs matplotlib), ``False`` never plots. R's default is ``TRUE``.
    smooth, logistic_cal : bool, default True
        Plot the lowess curve / the logistic recalibration line (R draws these; the
        statistics do not depend on them).
    m, g, cuts : optional
        Plot grouped proportions (``Hmisc::cut2`` with ``m`` per group, ``g`` groups, or
        the ``cuts``).
    emax_lim : (float, float), default (0, 1)
        R's argument; unused by rms 6.5-0's statistics (kept for the call signature).
    riskdist : {"predicted", "calibrated"} or None
        Spike histogram of the risk distribution under the curves.
    g_group, evaluate, nmin : as R's ``g.group``, ``evaluate``, ``nmin`` (with ``group``).
    ax : matplotlib Axes, optional
        Axes to draw on when plotting.
    **plot_args
        Further plotting arguments of :meth:`ValProb.plot` (``xlab``, ``ylab``, ``lim``,
        ``legendloc``, ``statloc``, ``cex``, ``connect_group``, ``connect_smooth``).

    Returns
    -------
    ValProb
        ``.stats`` is a pandas Series under R's names (``Dxy``, ``C (ROC)``, ``R2``, ``D``,
        ``D:Chi-sq``, ``D:p``, ``U``, ``U:Chi-sq``, ``U:p``, ``Q``, ``Brier``,
        ``Intercept``, ``Slope``, ``Emax``, ``E90``, ``Eavg``, ``S:z``, ``S:p``); NaN
        where R gives NA (``D:p`` is always NA in rms 6.5-0). ``res["Emax"]`` works.

    Notes
    -----
    R equivalent: ``rms::val.prob(p, y, logit, group, weights, normwt, pl, smooth,
    logistic.cal, ...)`` of rms 6.5-0. As there:

    * ``C (ROC)`` and ``Dxy`` are ``lrm.fit``'s binned rank statistics (5001 cells), not
      exact Wilcoxon statistics; ``Emax``/``E90``/``Eavg`` are the maximum, 90th
      percentile and mean of ``|p - lowess(p, y, iter = 0)|`` (rms 6.5-0 no longer uses the
      logistic curve for Emax; ``emax_lim`` has no effect);
    * rows with a missing p, y or weight are dropped; p of exactly 0 or 1 are left out of
      the logistic fits with R's warning;
    * a single distinct p takes R's special branch, which returns 19 values under 18 names
      (the names are shifted from ``E90`` on; the last value has no name, index ``None``).

    * an outcome with more than two distinct values is fitted, as in R, by ``lrm.fit``'s
      ordinal model: the result has one value per intercept more, and the names are shifted
      (``Slope`` is the second intercept; the extra values are named ``None``).

    Deliberate differences: ``weights`` of another length than ``y`` is an error (R
    recycles); ``p`` may be scikit-learn's n x 2 ``predict_proba`` output (its second
    column is read); probabilities given as ``y`` with 0/1 values as ``p`` are refused,
    naming the swap; an outcome with one class says so (R stops with "'names' attribute
    [3] must be the same length as the vector [2]", which the message quotes).
    """
    if y is None:
        fail_missing_argument("y")
    if p is not None:
        p = event_probability(p, "p")
        refuse_swap(p, y, "val_prob(p, y)")
    yv = _as_float_vector(y, "y")
    if p is None:
        if logit is None:
            fail_missing_argument("logit")
        lv = _as_float_vector(logit, "logit")
        pv = plogis(lv)
    else:
        pv = _as_float_vector(p, "p")
        if ((pv < 0) | (pv > 1)).any():
            fail_val_prob_range()
        lv = qlogis(pv)
    if pv.size != yv.size:
        fail_lengths_p_logit()
    n = yv.size
    wv = np.ones(n) if weights is None else _as_float_vector(weights, "weights")
    if wv.size != n:
        fail_length_of_y("weights")
    gf = None
    if group is not None and group is not False:
        gf = _group_factor(group, n, g_group)
    if gf is not None:
        if len(gf) != n:
            fail_length_of_y("group")
        nma = ~(np.isnan(pv + yv + wv) | np.asarray(pd.isna(gf)))
    if gf is None:
        nma = ~np.isnan(pv + yv + wv)
    pv, yv, lv, wv = pv[nma], yv[nma], lv[nma], wv[nma]
    if gf is not None and len(gf.categories) > 0:
        from .valprob_group import val_probg

        return val_probg(pv, yv, gf[nma], evaluate, wv, normwt, nmin)
    values, names, f_recal, curve = _core(pv, yv, lv)
    res = ValProb(values, names, pv, yv, f_recal, curve,
                  dict(smooth=smooth, logistic_cal=logistic_cal, m=m, g=g, cuts=cuts, riskdist=riskdist))
    if _should_plot(pl):
        res.plot(ax=ax, **plot_args)
    return res


def _print_named(named, na_names, width):
    """R's ``print()`` of a named numeric vector whose ``na_names`` entries are NA."""
    from ..numerics.rformat import format_real, named_rows

    names = ["NA" if k is None else str(k) for k in named]
    vals = [s.strip() for s in format_real(list(named.values()), 7)]
    vals = ["NA" if k in na_names else v for k, v in zip(named, vals)]
    return named_rows(names, vals, width)


def _should_plot(pl):
    if pl is False:
        return False
    if pl is True:
        return True
    import sys

    return "matplotlib.pyplot" in sys.modules


class ValProb(Result):
    """The result of :func:`val_prob` (R: the named numeric vector ``rms::val.prob`` returns,
    R class ``"numeric"``).

    It behaves like that vector: ``res["Emax"]``, ``"Emax" in res``, ``res.keys()`` and
    ``res.names()`` (R ``names(res)``), ``res.to_dict()``, ``np.asarray(res)``; ``print(res)``
    shows R's print of the vector. A :class:`~calstats.results._base.Result`:
    ``res.as_frame()`` is the statistics as a table, one row per statistic, and a notebook
    shows that table.

    Attributes
    ----------
    stats : pandas.Series
        The statistics under R's names (float; NaN for R's NA).
    coefficients : ndarray or None
        Intercept and slope of the logistic recalibration (``lrm.fit(logit, y)``).
    smooth_curve : (ndarray, ndarray) or None
        The lowess curve ``(x, y)`` (R's ``Sm``).
    p, y : ndarray
        The probabilities and outcomes used (rows with a missing value dropped).
    fit : object or None
        The recalibration fit (``lrm.fit(logit, y)``).
    plot_opts : dict
        The plotting options :meth:`plot` starts from.
    na_names : set of str
        The names whose NaN stands for R's NA (printed as ``NA``).
    """

    r_class = ("numeric",)
    _extras = ("stats", "p", "y", "fit", "coefficients", "smooth_curve", "plot_opts", "na_names")
    # set by the constructor (declared for type checkers)
    stats: pd.Series
    p: np.ndarray
    y: np.ndarray
    fit: Any
    coefficients: np.ndarray | None
    smooth_curve: tuple[np.ndarray, np.ndarray] | None
    plot_opts: dict[str, Any]
    na_names: set[str]

    def __init__(self, values, names, p, y, f_recal, curve, plot_opts):
        self._set_fields(
            stats=pd.Series(np.array(values, dtype=np.float64), index=pd.Index(names, dtype=object), name="val.prob"),
            p=p, y=y, fit=f_recal, coefficients=None if f_recal is None else np.asarray(f_recal.coefficients),
            smooth_curve=curve, plot_opts=plot_opts,
            # names whose NaN stands for R's NA (printed as NA)
            na_names={"D:p"} if len(names) == len(STAT_NAMES) else set())

    def __getitem__(self, name):
        return float(self.stats[name])

    def __contains__(self, name):
        return name in self.stats.index

    def keys(self) -> list[str]:
        """The statistics' names, in R's order (None for a value R leaves unnamed)."""
        return list(self.stats.index)

    def names(self) -> list[str]:
        """R ``names(res)``: the statistics' names (as :meth:`keys`)."""
        return self.keys()

    def to_dict(self) -> dict[str, float]:
        """The statistics as a dict, name -> value."""
        return {k: float(v) for k, v in self.stats.items()}

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.stats.to_numpy(), dtype=dtype)

    def print_text(self) -> str:
        """R's ``print()`` of the named vector (7 significant digits), with final newline."""
        from .._options import get_option

        named = dict(zip(self.stats.index, self.stats.to_numpy()))
        return _print_named(named, self.na_names, int(get_option("width"))) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The statistics as a table for a report: one row per statistic.

        A tall table rather than one row, because the names are R's (with spaces, colons
        and, for R's special branches, a missing name) and reports list them one per line.

        Returns
        -------
        pandas.DataFrame
            Index ``statistic`` (R's names; None where R gives no name), column ``value``
            (float; NaN for R's NA).
        """
        return pd.DataFrame({"value": self.stats.to_numpy(copy=True)},
                            index=pd.Index(list(self.stats.index), dtype=object, name="statistic"))

    def _html_title(self):
        return "Validation of predicted probabilities (rms val.prob)"

    def _repr_html_(self):
        """Notebook view: a heading and the :meth:`as_frame` table (R's NA shown as NA)."""
        import html

        frame = self.as_frame().astype(object)
        for name in self.na_names:
            frame.loc[frame.index == name, "value"] = "NA"
        return f"<h4>{html.escape(self._html_title())}</h4>\n" + table_html(frame)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw R's ``val.prob`` calibration plot with matplotlib (see
        :func:`calstats.clinical.valprob_plot.plot_val_prob`). Returns the axes."""
        from .valprob_plot import plot_val_prob

        opts = dict(self.plot_opts)
        opts.update(kwargs)
        return plot_val_prob(self, ax=ax, **opts)

"""pmcalibration 0.2.0's ``pmcalibration()`` for binary outcomes: a calibration curve by a
smooth of the outcome on (transformed) predicted probabilities, its calibration metrics
(Eavg/ICI, E50, E90, Emax, ECI) and bootstrap, simulation or pointwise intervals.

The smooths are in :mod:`calstats.clinical.pmcal_smooth`; the resampling draws R's stream
(``sample`` for the bootstrap, ``MASS::mvrnorm`` for ``ci = "sim"``), so a seed gives R's
replicates.
"""

import html as _html
import math
from typing import Any

import numpy as np
import pandas as pd

from .._inputs import event_probability, refuse_swap
from .._plotting import pyplot
from .._progress import check_progress, progress_bar
from .._surv import is_surv, read_surv
from .._validate import (
    check_binary_values,
    check_both_classes,
    check_pmcal_survival,
    check_positive_number,
    check_rows_left,
    fail_eval_range,
    fail_pmcal_one_time,
    fail_transf,
    fail_unused_names,
    match_arg,
    warn_pw_eval,
    warn_pw_lowess,
    warn_samples_na,
)
from ..numerics import libm
from ..numerics.binomial import linkfun
from ..numerics.interp import quantile_type7, seq_length
from ..numerics.nmath import numeric_vector
from ..numerics.rformat import format_real, print_data_frame
from ..results._base import Result
from ..results._tables import table_html
from .pmcal_smooth import (
    SmoothCal,
    cal_metrics,
    gam_cal,
    glm_cal,
    loess_cal,
    lowess_cal,
    usable_rows,
)

__all__ = ["pmcalibration", "PMCalibration", "cal_metrics"]

SMOOTHS = ("gam", "none", "ns", "bs", "rcs", "lowess", "loess")
CIS = ("sim", "boot", "pw", "none")
METRICS = ("Eavg", "E50", "E90", "Emax", "ECI")

_SMOOTH_TEXT = {
    "none": "no smooth",
    "rcs": "a restricted cubic spline (see ?rms::rcs)",
    "ns": "a natural cubic spline (see ?splines::ns)",
    "bs": "a B-spline (see ?splines::bs)",
    "gam": "a generalized additive model (see ?mgcv::s)",
}
_CI_TEXT = {"boot": "bootstrap resampling", "sim": "simulation based inference"}
_SMOOTH_ARG_NAMES = {"nk", "knots", "df", "Boundary_knots", "bs", "k", "fx", "method"}


# --------------------------------------------------------------------------------------
# inputs


def _outcome(y):
    """The outcome as a float array and whether it is time-to-event (R's ``Surv``: any form
    :func:`calstats._surv.read_surv` reads; missing values kept for R's removal)."""
    if is_surv(y):
        outcome = read_surv(y, "y", allow_missing=True)
        return np.column_stack([outcome.time, np.asarray(outcome.status, dtype=np.float64)]), True
    return numeric_vector(y, "y"), False


def _transform(transf, surv):
    if transf is None:
        transf = "cloglog" if surv else "logit"
    if callable(transf):
        return transf, lambda v: np.asarray(transf(np.asarray(v, dtype=np.float64)), dtype=np.float64)
    if not isinstance(transf, str) or transf not in ("none", "logit", "cloglog"):
        fail_transf()
    if transf == "none":
        return transf, lambda v: np.asarray(v, dtype=np.float64).copy()
    if transf == "logit":
        return transf, linkfun
    return transf, lambda v: libm.log(-libm.log(1.0 - np.asarray(v, dtype=np.float64)))


def _plot_points(eval_, p):
    if eval_ is None:
        return None
    ev = np.atleast_1d(np.asarray(eval_, dtype=np.float64)).ravel()
    if ev.size > 1:
        if np.any(ev < 0) or np.any(ev > 1):
            fail_eval_range()
        return ev.copy()
    if ev.size == 1 and ev[0] > 0:
        return seq_length(float(np.min(p)), float(np.max(p)), int(math.ceil(ev[0] - 1e-10)))
    return None


def _quantiles(samples, probs):
    """``t(apply(samples, 2, quantile, probs, na.rm = TRUE))``."""
    out = np.full((samples.shape[1], 2), np.nan)
    for j in range(samples.shape[1]):
        col = samples[:, j]
        col = col[~np.isnan(col)]
        if col.size:
            out[j] = quantile_type7(col, probs)
    return out


# --------------------------------------------------------------------------------------
# the function


def pmcalibration(y: Any, p: Any, smooth: str = "gam", *, time: Any = None, ci: str = "sim", n: int = 1000,
                  level: float = 0.95, transf: Any = None, eval: Any = 100,  # noqa: A002 - R's argument
                  seed: Any = None, plot: bool = False, progress: bool | None = None,
                  **smooth_args: Any) -> "PMCalibration":
    """Calibration curve and calibration metrics, as pmcalibration 0.2.0's ``pmcalibration()``.

    Parameters
    ----------
    y : array_like or (array_like, array_like)
        Binary outcome (0/1); or a time-to-event outcome (R's ``Surv(time, status)``): a
        pair ``(time, status)``, or a two-column array or frame of times and 0/1 statuses.
    p : array_like
        Predicted probabilities. Rows with a missing ``y`` or ``p`` are removed (R's message),
        then rows with ``p <= 0`` or ``p >= 1`` (R's warning).
    smooth : {"gam", "none", "ns", "bs", "rcs", "lowess", "loess"}
        The calibration curve: ``mgcv::gam`` with ``s(x)``; logistic regression on ``x``
        (``"none"``), on ``splines::ns``/``splines::bs`` bases or on a restricted cubic
        spline (``Hmisc::rcspline.eval``); ``lowess(x, y, iter = 0)``; ``loess(y ~ x)``.
    time : float, optional
        The horizon of a time-to-event outcome: ``p`` are the predicted probabilities of
        the event by ``time`` (required then). The curve is ``survival::coxph`` (Efron
        ties) of the outcome on the smooth of ``transf(p)``, read at ``time`` as ``1 -
        exp(-predict(type = "expected"))``.
    ci : {"sim", "boot", "pw", "none"}
        Intervals: ``n`` draws of the coefficients from ``MASS::mvrnorm(coef, vcov)``,
        ``n`` bootstrap refits, pointwise standard errors of ``predict`` (curve only), or
        none.
    n : int, default 1000
        Number of draws or bootstrap resamples.
    level : float, default 0.95
        Level of the intervals of :attr:`curve` (``summary(conf_level = )``).
    transf : {"logit", "cloglog", "none"} or callable, optional
        Transformation of ``p`` before smoothing; default ``"logit"`` (binary) or
        ``"cloglog"`` (time-to-event), as R.
    eval : int or array_like, default 100
        Number of equally spaced plotting points between ``min(p)`` and ``max(p)``, or the
        probabilities themselves (a vector of length > 1); 0 or None: no curve.
    seed : optional
        ``calstats.rng.set_seed(seed)`` just before the fit (R's ``set.seed(seed)`` before the
        call); None continues calstats' R stream.
    plot : bool, default False
        Draw :meth:`PMCalibration.plot` (R's default is TRUE).
    progress : bool, optional
        A progress bar over the bootstrap refits or the simulated draws (``None``: in a
        terminal or notebook once they have run for two seconds). Results never depend on it.
    **smooth_args
        R's smooth arguments: ``nk``, ``knots`` (rcs); ``df``, ``knots``, ``Boundary_knots``
        (ns, bs; R's ``Boundary.knots``); ``bs``, ``k``, ``fx``, ``method`` (gam).

    Returns
    -------
    PMCalibration

    Notes
    -----
    R equivalent: ``pmcalibration::pmcalibration`` (0.2.0). R's ``message()`` texts (the
    default ``nk``/``df``, removed missing rows) are given as warnings. ``cores`` (parallel
    bootstrap) is accepted and ignored: the replicates are R's sequential ones, which is
    what R draws after ``set.seed(seed)`` with the default ``cores = 1``.

    ``ci="sim"`` draws as ``MASS::mvrnorm``, whose draws depend on the signs of the
    eigenvectors LAPACK returns: calstats calls the system's reference LAPACK
    (``liblapack.so.3``), as R on Debian does; without it SciPy's LAPACK is used and some
    draws (not their distribution) differ from R's. With ``smooth="gam"`` the covariance is
    mgcv's ``Vp``, which calstats reproduces to ~1e-15 but not to the bit, and for nearly
    linear curves (large smoothing parameters) the sign LAPACK gives an eigenvector of
    ``Vp`` can change under a 1-ulp change of it. Where no sign differs the draws are R's
    (pmcalibration's man-page example, ``seed=11``, ``n=200``: to 4e-12); where one does,
    each draw is R's draw reflected across that eigenvector (same distribution; interval
    bounds within a few percent of R's; seen on a 200-row example with ``k=5``). Bootstrap
    replicates (``ci="boot"``) are R's to ~1e-9.

    For a time-to-event outcome ``smooth="gam"`` is mgcv's ``cox.ph`` family, which mgcv
    fits by REML whatever ``method`` says (so does calstats).

    Deliberate differences: ``plot`` defaults to False; a time-to-event outcome takes one
    ``time`` with every smooth (R lets a vector through to ``gam``'s ``newdata``).
    """
    check_progress(progress)
    smooth_args = dict(smooth_args)
    if "Boundary.knots" in smooth_args:
        smooth_args["Boundary_knots"] = smooth_args.pop("Boundary.knots")
    smooth_args.pop("cores", None)
    unknown = set(smooth_args) - _SMOOTH_ARG_NAMES
    if unknown:
        fail_unused_names(unknown)
    y_arr, surv = _outcome(y)
    if not surv:
        p = event_probability(p, "p")
        refuse_swap(p, y, "pmcalibration(y, p)")
    p_arr = numeric_vector(p, "p")
    if not surv:
        check_binary_values(y_arr, "y")
    y_arr, p_arr = usable_rows(y_arr, p_arr)
    check_rows_left(p_arr.size, "the rows with a missing value or with p <= 0 or p >= 1")
    if not surv:
        check_both_classes(y_arr, "y")
    smooth = match_arg(smooth, SMOOTHS)
    ci = match_arg(ci, CIS)
    if surv:
        check_pmcal_survival(ci, smooth, time)
    pplot = _plot_points(eval, p_arr)
    pw = ci == "pw"
    if pplot is None and pw:
        warn_pw_eval()
        pw = False
    transf, tfun = _transform(transf, surv)
    xp = None if pplot is None else tfun(pplot)
    x = tfun(p_arr)
    if surv:
        if np.ndim(time) > 0 and np.size(time) != 1:
            fail_pmcal_one_time()
        time = check_positive_number(time, "time")

    if seed is not None:
        from ..rng import set_seed

        set_seed(seed)
    cal: SmoothCal
    if smooth in ("none", "ns", "bs", "rcs"):
        cal = glm_cal(y_arr, p_arr, x, xp, smooth, smooth_args, pw=pw, time=time if surv else None)
    elif smooth == "lowess":
        if pw:
            warn_pw_lowess()
        cal = lowess_cal(y_arr, p_arr, x, xp)
    elif smooth == "loess":
        cal = loess_cal(y_arr, p_arr, x, xp, pw=pw)
    else:
        cal = gam_cal(y_arr, p_arr, x, xp, smooth_args, pw=pw, time=time if surv else None)

    reps = None
    if ci == "boot":
        from ..rng import sample

        reps = []
        m = y_arr.shape[0]
        with progress_bar(int(n), "pmcalibration bootstrap", progress) as bar:
            for _ in range(int(n)):
                i = np.asarray(sample(np.arange(1, m + 1), replace=True), dtype=np.int64) - 1
                b = cal.boot(i)
                reps.append((b.metrics, b.p_c_plot))
                bar.update()
    elif ci == "sim":
        reps = cal.simb(int(n), progress)
    metrics_samples = plot_samples = None
    if reps is not None:
        metrics_samples = pd.DataFrame(np.vstack([r[0] for r in reps]), columns=list(METRICS))
        if metrics_samples.isna().to_numpy().any():
            warn_samples_na(True)
        if reps[0][1] is not None:
            plot_samples = np.vstack([r[1] for r in reps])
            if np.isnan(plot_samples).any():
                warn_samples_na(False)

    out = PMCalibration(
        data=(pd.DataFrame({"time": y_arr[:, 0], "status": y_arr[:, 1], "p": p_arr}) if surv
              else pd.DataFrame({"y": y_arr, "p": p_arr})),
        metrics=pd.Series(cal.metrics, index=list(METRICS)),
        metrics_samples=metrics_samples,
        p_c=pd.DataFrame({"p": p_arr, "p_c": cal.p_c}),
        plot_p=pplot, p_c_plot=cal.p_c_plot, p_c_plot_se=cal.p_c_plot_se, plot_samples=plot_samples,
        smooth=smooth, ci=ci, n=n, smooth_args=cal.smooth_args, transf=transf, time=time,
        outcome="tte" if surv else "binary", level=level,
    )
    if plot:
        out.plot()
    return out


# --------------------------------------------------------------------------------------
# the result


def _format_column(values, digits):
    """``format(column, digits)`` as ``print.data.frame`` shows a numeric column (NA as "NA")."""
    vals = np.asarray(values, dtype=np.float64)
    fin = [float(v) for v in vals if not np.isnan(v)]
    cells = iter([s.strip() for s in format_real(fin, digits)]) if fin else iter(())
    out = [next(cells) if not np.isnan(v) else "NA" for v in vals]
    width = max(len(s) for s in out)
    return [s.rjust(width) for s in out]


def _print_frame(frame, digits):
    """R's ``print(<data.frame>, digits)`` of a numeric frame."""
    cols = [(str(name), _format_column(frame[name].to_numpy(), digits)) for name in frame.columns]
    return print_data_frame([str(r) for r in frame.index], cols).rstrip("\n")


def _cat_number(v):
    """How ``cat`` shows a number (7 significant digits)."""
    return format_real([float(v)], 7)[0].strip()


class PMCalibration(Result):
    """A calibration curve and its metrics, R's ``pmcalibration`` object.

    Attributes
    ----------
    metrics : pandas.Series
        Eavg, E50, E90, Emax, ECI.
    metrics_samples : pandas.DataFrame or None
        The metrics of every bootstrap resample / simulated draw (R's ``metrics.samples``).
    p_c : pandas.DataFrame
        ``p`` and the curve's probability ``p_c`` for each row used.
    plot_samples : ndarray or None
        Curve at the plotting points for each replicate (R's ``plot$plot.samples``).
    curve : pandas.DataFrame
        :func:`get_curve` at ``level``: ``p``, ``p_c`` and, with intervals, ``lower``, ``upper``.
    """

    r_class = ("pmcalibration",)
    _r_fields = ("data", "metrics", "metrics.samples", "p_c", "smooth", "ci", "n", "smooth_args", "transf",
                 "time", "outcome")
    _extras = ("plot_p", "p_c_plot", "p_c_plot_se", "plot_samples", "level")

    data: pd.DataFrame
    metrics: pd.Series
    metrics_samples: pd.DataFrame | None
    p_c: pd.DataFrame
    smooth: str
    ci: str
    n: int
    smooth_args: dict
    transf: Any
    time: Any
    outcome: str
    plot_p: np.ndarray | None
    p_c_plot: np.ndarray | None
    p_c_plot_se: np.ndarray | None
    plot_samples: np.ndarray | None
    level: float

    def conf_int(self, level: float | None = None) -> pd.DataFrame | None:
        """Percentile intervals of the metrics from the samples (``summary``'s lower/upper)."""
        if self.metrics_samples is None:
            return None
        level = self.level if level is None else level
        probs = np.array([(1 - level) / 2, 1 - (1 - level) / 2])
        q = _quantiles(self.metrics_samples.to_numpy(), probs)
        return pd.DataFrame(q, index=list(METRICS), columns=["lower", "upper"])

    def summary(self, level: float | None = None) -> "PMCalibrationSummary":
        """R's ``summary.pmcalibration(conf_level = level)``."""
        level = self.level if level is None else level
        mt = pd.DataFrame({"Estimate": self.metrics.to_numpy()}, index=list(METRICS))
        ci = self.conf_int(level)
        if ci is not None:
            mt = pd.concat([mt, ci], axis=1)
        return PMCalibrationSummary(self, mt, self._curve(level), level)

    def _curve(self, level):
        if self.plot_p is None:
            return pd.DataFrame({"p": [], "p_c": []})
        cur = pd.DataFrame({"p": self.plot_p, "p_c": self.p_c_plot})
        probs = np.array([(1 - level) / 2, 1 - (1 - level) / 2])
        if self.plot_samples is not None:
            q = _quantiles(self.plot_samples, probs)
            cur["lower"], cur["upper"] = q[:, 0], q[:, 1]
        if self.ci == "pw" and self.p_c_plot_se is not None:
            from scipy.stats import norm

            z = float(norm.isf((1 - level) / 2))
            cur["lower"] = self.p_c_plot + (-z) * self.p_c_plot_se
            cur["upper"] = self.p_c_plot + z * self.p_c_plot_se
            if self.outcome == "tte" and self.smooth != "gam":  # cumulative hazards until here
                for col in ("p_c", "lower", "upper"):
                    cur[col] = 1.0 - libm.exp(-cur[col].to_numpy())
        return cur

    @property
    def curve(self) -> pd.DataFrame:
        return self._curve(self.level)

    def get_curve(self, level: float | None = None) -> pd.DataFrame:
        """R's ``get_curve(x, conf_level = level)``."""
        return self._curve(self.level if level is None else level)

    def as_frame(self) -> pd.DataFrame:
        return self.curve

    def print_text(self, digits: int = 2) -> str:
        """R's ``print(x, digits)`` (``print.pmcalibrationsummary``)."""
        return self.summary().print_text(digits)

    def __str__(self) -> str:
        return self.print_text().rstrip("\n")

    def _repr_html_(self) -> str:
        return "<h4>pmcalibration</h4>\n" + table_html(self.summary().metrics)

    def plot(self, ax: Any = None, level: float | None = None, riskdist: bool = True, linecol: str = "black",
             fillcol: str = "grey", ideallty: Any = "--", idealcol: str = "red", xlim=(0.0, 1.0), ylim=(0.0, 1.0),
             xlab: str = "Predicted Probability", ylab: str = "Estimated Probability") -> Any:
        """The curve, its band, the ideal line and the risk distribution by outcome, as
        ``plot.pmcalibration`` draws them. Returns the matplotlib axes."""
        plt = pyplot("PMCalibration.plot()")

        if ax is None:
            ax = plt.gca()
        if self.outcome != "binary":
            riskdist = False
        cur = self.get_curve(level)
        xlim, ylim = sorted(xlim), sorted(ylim)
        yrange = ylim[1] - ylim[0]
        ax.set_xlim(*xlim)
        ax.set_ylim(ylim[0] - (0.3 * yrange if riskdist else 0.0), ylim[1])
        ax.set_xlabel(xlab)
        ax.set_ylabel(ylab)
        # R clips the ideal line, band and curve to the xlim x ylim box
        box = plt.Rectangle((xlim[0], ylim[0]), xlim[1] - xlim[0], yrange, transform=ax.transData)
        lo_id, hi_id = max(xlim[0], ylim[0]), min(xlim[1], ylim[1])
        ax.plot([lo_id, hi_id], [lo_id, hi_id], linestyle=ideallty, color=idealcol, lw=1)
        if "lower" in cur:
            band = ax.fill_between(cur["p"], cur["lower"], cur["upper"], color=fillcol, alpha=0.5, lw=0)
            band.set_clip_path(box)
        if len(cur):
            (line,) = ax.plot(cur["p"], cur["p_c"], color=linecol)
            line.set_clip_path(box)
        ticks = [t for t in ax.get_yticks() if ylim[0] - 1e-12 <= t <= ylim[1] + 1e-12]
        ax.set_yticks(ticks)
        if riskdist:
            p, y = self.data["p"].to_numpy(), self.data["y"].to_numpy()
            keep = (p >= xlim[0]) & (p <= xlim[1])
            _riskdist(ax, y[keep], p[keep], ylim[0] - 0.15 * yrange, 0.15 * yrange)
        return ax


def _riskdist(ax, y, p, ypos, maxh, nbins=101):
    """pmcalibration's ``riskdist``: 100 bins between min(p) and max(p), counts of outcome 1
    drawn up and of 0 down from ``ypos``, the tallest ``maxh``."""
    bins = np.linspace(np.min(p), np.max(p), nbins)
    idx = np.clip(np.searchsorted(bins, p, side="left") - 1, 0, nbins - 2)  # cut(include.lowest)
    n0 = np.bincount(idx[y == 0], minlength=nbins - 1)
    n1 = np.bincount(idx[y == 1], minlength=nbins - 1)
    maxn = max(n0.max(), n1.max(), 1)
    mid = bins[:-1] + np.diff(bins) / 2
    h0, h1 = maxh * n0 / maxn, maxh * n1 / maxn
    ax.vlines(mid[h1 > 0], ypos, ypos + h1[h1 > 0], color="black", lw=0.8)
    ax.vlines(mid[h0 > 0], ypos, ypos - h0[h0 > 0], color="black", lw=0.8)
    ax.hlines(ypos, np.min(p), np.max(p), color="black", lw=0.8)
    ax.text(np.max(p) * 1.02, ypos + maxh / 2, "1", ha="left", va="center")
    ax.text(np.max(p) * 1.02, ypos - maxh / 2, "0", ha="left", va="center")


class PMCalibrationSummary(Result):
    """R's ``pmcalibrationsummary``: the metrics table (Estimate, lower, upper) and the curve."""

    r_class = ("pmcalibrationsummary",)
    _r_fields = ("metrics", "plot", "smooth", "ci", "conf_level", "n", "smooth_args", "transf", "time", "outcome")

    metrics: pd.DataFrame
    plot: pd.DataFrame
    smooth: str
    ci: str
    conf_level: float
    n: int
    smooth_args: dict
    transf: Any
    time: Any
    outcome: str

    def __init__(self, fit, metrics, curve, level):
        super().__init__(metrics=metrics, plot=curve, smooth=fit.smooth, ci=fit.ci, conf_level=level, n=fit.n,
                         smooth_args=fit.smooth_args, transf=fit.transf, time=fit.time, outcome=fit.outcome)

    def print_text(self, digits: int = 2) -> str:
        if callable(self.transf):
            transp = "transformed (user defined)"
        else:
            transp = {"none": "untransformed", "logit": "logit transformed",
                      "cloglog": "complementary log-log transformed"}[self.transf]
        otext = "binary outcome" if self.outcome == "binary" else f"time-to-event outcome (time = {format_real([float(self.time)], 15)[0].strip()})"
        words = ["Calibration metrics based on a calibration curve estimated for a", otext, "via"]
        if self.smooth in _SMOOTH_TEXT:  # R's list has no entry for lowess/loess: cat(NULL) prints nothing
            words.append(_SMOOTH_TEXT[self.smooth])
        words += ["using", transp, "predicted probabilities.\n\n"]
        text = " ".join(words) + _print_frame(self.metrics, digits) + "\n"
        if self.ci in _CI_TEXT:
            text += ("\n" + "%.0f%%" % (self.conf_level * 100) + " confidence intervals calculated via "
                     + _CI_TEXT[self.ci] + " with " + _cat_number(self.n) + " replicates.\n")
        # R tests x$plot$p_c_plot_se on the summary, where it is always NULL: no pointwise line
        return text

    def __str__(self) -> str:
        return self.print_text().rstrip("\n")

    def as_frame(self) -> pd.DataFrame:
        return self.metrics

    def _repr_html_(self) -> str:
        return "<h4>" + _html.escape("pmcalibration summary") + "</h4>\n" + table_html(self.metrics)

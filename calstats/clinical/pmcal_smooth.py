"""The smooths of pmcalibration 0.2.0 (``glm_cal``, ``lowess_cal``, ``loess_cal``,
``gam_cal``), their bootstrap refits (``boot.*``) and simulation draws (``simb.*``).

Each ``*_cal`` returns an object of the class R gives its list (:class:`GlmCal`,
:class:`GamCal`, :class:`LowessCal`, :class:`LoessCal`, all :class:`SmoothCal`), with R's
fields under R's names (``p_c``, ``metrics``, ``p_c_plot``, ``p_c_plot_se``, ``model``,
``smooth_args``, ...). Each class refits itself on a resample (:meth:`SmoothCal.boot`, R's
``boot.<class>``) and draws from its fit (:meth:`SmoothCal.simb`, R's ``simb.<class>``).
"""

from typing import Any

import numpy as np

from .._robject import RObject
from .._validate import (
    check_not_empty,
    check_p_pc_lengths,
    fail_approx_two_values,
    fail_sim_lowess,
    fail_y_p_length,
    warn_pc_missing,
    warn_rank_deficient,
    warn_rcs_default,
    warn_rows_01,
    warn_rows_missing,
    warn_spline_default,
)
from ..numerics import libm
from ..numerics.binomial import linkinv, mu_eta
from ..numerics.interp import approx_constant, quantile_type7
from ..numerics.reductions import matmul, rmean, rmedian
from ..ports.hmisc.rcspline import rcspline_eval
from ..ports.stats import glm as _glm
from ..ports.stats.lowess import lowess
from ..ports.survival.coxph import coxph_fit

__all__ = ["cal_metrics"]

# --------------------------------------------------------------------------------------
# cal_metrics


def usable_rows(y, p):
    """The first steps of ``pmcalibration()`` and ``logistic_cal()``: equal lengths, rows
    with a missing ``y`` or ``p`` removed (R's message), then rows with ``p <= 0`` or
    ``p >= 1`` (R's warning). ``y`` is a vector or, time-to-event, a two-column array."""
    if y.shape[0] != p.size:
        fail_y_p_length()
    miss = np.isnan(p) | (np.isnan(y).any(axis=1) if y.ndim == 2 else np.isnan(y))
    if miss.any():
        y, p = y[~miss], p[~miss]
        warn_rows_missing(int(miss.sum()))
    bad = (p <= 0) | (p >= 1)
    if bad.any():
        y, p = y[~bad], p[~bad]
        warn_rows_01(int(bad.sum()))
    return y, p


def cal_metrics(p, p_c):
    """Calibration metrics of a calibration curve, as pmcalibration's ``cal_metrics(p, p_c)``.

    Parameters
    ----------
    p : array_like
        Predicted probabilities.
    p_c : array_like
        Probabilities implied by the calibration curve at ``p``.

    Returns
    -------
    pandas.Series
        ``Eavg`` (mean of ``|p - p_c|``, the ICI), ``E50`` (median), ``E90`` (type-7 90th
        percentile), ``Emax`` (maximum) and ``ECI`` (100 times the mean squared difference).
        If any ``p_c`` is missing or infinite every metric is NaN (R's ``NA``) and R's
        message "some p_c's are missing or Inf" is given as a warning (R's policy for
        missing values); empty or non-numeric input is refused.
    """
    import pandas as pd

    from ..numerics.nmath import numeric_vector

    p = numeric_vector(p, "p")
    p_c = numeric_vector(p_c, "p_c")
    check_p_pc_lengths(p, p_c)
    check_not_empty(p, "p")
    return pd.Series(_metrics(p, p_c), index=["Eavg", "E50", "E90", "Emax", "ECI"])


def _metrics(p, p_c):
    if not np.all(np.isfinite(p_c)):
        warn_pc_missing()
        return np.full(5, np.nan)
    d = np.abs(p - p_c)
    if np.isnan(d).any():
        return np.full(5, np.nan)
    return np.array([rmean(d), rmedian(d), float(quantile_type7(d, 0.9)), float(np.max(d)),
                     rmean(d * d) * 100.0])


# --------------------------------------------------------------------------------------
# the calibration-curve objects


class SmoothCal(RObject):
    """A calibration curve as pmcalibration's ``*_cal`` functions return it (R's list of
    class ``glm_cal``, ``gam_cal``, ``lowess_cal`` or ``loess_cal``).

    Attributes
    ----------
    y, p, x, xp : ndarray or None
        The outcome (a vector, or times and statuses as two columns), the predicted
        probabilities, the smooth's covariate (``transf(p)``) and the plotting points on
        its scale (None: no curve).
    p_c : ndarray
        The curve's probability at each row.
    metrics : ndarray
        ``cal_metrics(p, p_c)``: Eavg, E50, E90, Emax, ECI.
    p_c_plot, p_c_plot_se : ndarray or None
        The curve at ``xp`` and, with ``ci = "pw"``, its pointwise standard error.
    smooth_args : dict
        The smooth's arguments, as a refit on a resample reuses them.

    Subclasses add R's other fields (``model``, ``X``, ``time``, ...) in R's order.
    """

    #: R's class of the list
    r_class: tuple[str, ...] = ()
    _r_fields: tuple[str, ...] = ("y", "p", "x", "xp", "p_c", "metrics", "p_c_plot", "p_c_plot_se",
                                  "smooth_args")
    # set by the constructor (declared for type checkers)
    y: np.ndarray
    p: np.ndarray
    x: np.ndarray
    xp: np.ndarray | None
    p_c: np.ndarray
    metrics: np.ndarray
    p_c_plot: np.ndarray | None
    p_c_plot_se: np.ndarray | None
    smooth_args: dict

    def __repr__(self):
        return f"{type(self).__name__}(smooth={self.smooth_args['smooth']!r}, n={self.p.size})"

    def boot(self, i) -> "SmoothCal":
        """R's ``boot.<class>``: the same smooth on the resampled rows ``i`` (0-based
        indices), with the plotting points unchanged and no pointwise standard errors."""
        raise NotImplementedError

    def simb(self, n_draws, progress=None) -> list:
        """R's ``simb.<class>``: ``n_draws`` curves from the fit's coefficients drawn by
        ``MASS::mvrnorm``, as ``(metrics, p_c_plot)`` pairs. lowess and loess curves have no
        coefficients to draw: R's error."""
        fail_sim_lowess()


class GlmCal(SmoothCal):
    """pmcalibration's ``glm_cal``: a logistic regression (binary outcome) or a Cox model
    (time-to-event outcome) on the smooth's design ``X`` (plotting rows ``Xp``); ``model``
    is the :class:`~calstats.ports.stats.glm.GlmFit` or
    :class:`~calstats.ports.survival.coxph.CoxFit`, ``time`` the horizon (None for a
    binary outcome), ``outcome`` ``"binary"`` or ``"tte"``."""

    r_class = ("glm_cal",)
    _r_fields = ("y", "p", "x", "xp", "X", "Xp", "p_c", "metrics", "p_c_plot", "p_c_plot_se", "model",
                 "smooth_args", "time", "outcome")
    X: np.ndarray
    Xp: np.ndarray | None
    model: Any
    time: float | None
    outcome: str

    def boot(self, i):
        sa = self.smooth_args
        return glm_cal(self.y[i], self.p[i], self.x[i], self.xp, sa["smooth"], sa, time=self.time)

    def simb(self, n_draws, progress=None):
        """``simb.glm_cal``: coefficients drawn by ``MASS::mvrnorm(n, coef, vcov)``."""
        from ..rng._mvrnorm import mvrnorm

        fit = self.model
        k = self.X.shape[1] + 1
        B = mvrnorm(n_draws, fit.coefficients.to_numpy(), _full_vcov(fit, k))
        B = np.atleast_2d(B)
        Xd = np.column_stack([np.ones(self.X.shape[0]), self.X])
        out = []
        pc_all = linkinv(matmul(Xd, B.T))
        pp_all = None
        if self.Xp is not None:
            Xpd = np.column_stack([np.ones(self.Xp.shape[0]), self.Xp])
            pp_all = linkinv(matmul(Xpd, B.T))
        for i in range(B.shape[0]):
            out.append((_metrics(self.p, pc_all[:, i]), None if pp_all is None else pp_all[:, i]))
        return out


class GamCal(SmoothCal):
    """pmcalibration's ``gam_cal``: ``model`` is mgcv's ``gam`` fit
    (:class:`~calstats.ports.mgcv.gam.GamFit`, or
    :class:`~calstats.ports.mgcv.cox_ph.GamCoxFit` for a time-to-event outcome), ``time``
    the horizon (None for a binary outcome), ``outcome`` ``"binary"`` or ``"tte"``."""

    r_class = ("gam_cal",)
    _r_fields = ("y", "p", "x", "xp", "p_c", "metrics", "p_c_plot", "p_c_plot_se", "model", "smooth_args",
                 "time", "outcome")
    model: Any
    time: float | None
    outcome: str

    def boot(self, i):
        return gam_cal(self.y[i], self.p[i], self.x[i], self.xp, self.smooth_args, time=self.time)

    def simb(self, n_draws, progress=None):
        """``simb.gam_cal``: coefficients drawn by ``MASS::mvrnorm(n, coef, vcov.gam)`` (one
        eigen-decomposition for all draws), applied to the ``lpmatrix`` 64 draws at a time;
        each block's metrics in one pass (:func:`_metrics_columns`)."""
        from .._progress import progress_bar
        from ..numerics import blas
        from ..rng._mvrnorm import mvrnorm

        fit = self.model
        B = np.atleast_2d(mvrnorm(n_draws, np.asarray(fit.coefficients, dtype=np.float64),
                                  np.asarray(fit.vcov, dtype=np.float64)))
        X = np.asarray(fit.lpmatrix(), dtype=np.float64)  # predict.gam(mod, type = "lpmatrix")
        Xp = None if self.xp is None else np.asarray(fit.lpmatrix(self.xp), dtype=np.float64)
        m = B.shape[0]
        metrics = np.empty((m, 5))
        pp_all = None if Xp is None else np.empty((Xp.shape[0], m))
        block = 64  # draws at a time: the n x block curves stay in cache
        with blas.limit(1), progress_bar(m, "pmcalibration simulation", progress) as bar:
            for s in range(0, m, block):
                Bb = B[s:s + block]
                metrics[s:s + Bb.shape[0]] = _metrics_columns(self.p, linkinv(X @ Bb.T), block=block)
                if Xp is not None:
                    pp_all[:, s:s + Bb.shape[0]] = linkinv(Xp @ Bb.T)
                bar.update(Bb.shape[0])
        return [(metrics[i], None if pp_all is None else pp_all[:, i]) for i in range(m)]


class LowessCal(SmoothCal):
    """pmcalibration's ``lowess_cal``: ``lowess(x, y, iter = 0)`` interpolated (R keeps no
    model)."""

    r_class = ("lowess_cal",)

    def boot(self, i):
        return lowess_cal(self.y[i], self.p[i], self.x[i], self.xp)


class LoessCal(SmoothCal):
    """pmcalibration's ``loess_cal``: ``model`` is the ``loess`` fit
    (:class:`~calstats.ports.stats.loess.Loess`)."""

    r_class = ("loess_cal",)
    _r_fields = ("y", "p", "x", "xp", "p_c", "metrics", "p_c_plot", "p_c_plot_se", "model", "smooth_args")
    model: Any

    def boot(self, i):
        return loess_cal(self.y[i], self.p[i], self.x[i], self.xp)


# --------------------------------------------------------------------------------------
# reg_spline_X


def reg_spline_x(x, xp, smooth, args):
    """pmcalibration's ``reg_spline_X``: the design without intercept, its plotting rows
    and the ``smooth_args`` a bootstrap refit reuses."""
    if smooth == "none":
        X = x[:, None]
        Xp = None if xp is None else xp[:, None]
        return X, Xp, {"smooth": "none"}
    if smooth == "rcs":
        nk, knots = args.get("nk"), args.get("knots")
        if nk is None and knots is None:
            warn_rcs_default()
            nk = 5
        X, used = rcspline_eval(x, knots=knots, nk=5 if nk is None else nk)
        Xp = None if xp is None else rcspline_eval(xp, knots=used)[0]
        return X, Xp, {"smooth": "rcs", "nk": nk, "knots": knots, "knots_used": used}
    from ..ports.stats import splines

    df, knots, bk = args.get("df"), args.get("knots"), args.get("Boundary_knots")
    if df is None and knots is None:
        warn_spline_default()
        df = 6
    bk_used = bk if bk is not None else np.array([np.min(x), np.max(x)])
    fn = splines.ns if smooth == "ns" else splines.bs
    basis = fn(x, df=df, knots=knots, boundary_knots=bk_used, intercept=False)
    X = np.asarray(basis.matrix, dtype=np.float64)
    Xp = None if xp is None else np.asarray(basis.predict(xp), dtype=np.float64)
    return X, Xp, {"smooth": smooth, "df": df, "knots": knots, "Boundary_knots": bk,
                   "knots_used": np.asarray(basis.knots, dtype=np.float64),
                   "Boundary_knots_used": np.asarray(basis.boundary_knots, dtype=np.float64)}


# --------------------------------------------------------------------------------------
# glm_cal


def _full_vcov(fit, k):
    """``vcov(glm)`` (dispersion 1) in coefficient order; NA rows/columns for aliased terms."""
    V = np.full((k, k), np.nan)
    idx = [int(j) - 1 for j in fit.pivot[:fit.rank]]
    V[np.ix_(idx, idx)] = fit.cov_unscaled.to_numpy()
    return V


def glm_cal(y, p, x, xp, smooth, args, pw=False, time=None) -> GlmCal:
    """pmcalibration's ``glm_cal``: ``glm(y ~ ., binomial)`` for a binary outcome; for a
    time-to-event outcome (``y`` a two-column array of times and statuses, ``time`` the
    horizon) ``survival::coxph(Surv(times, events) ~ .)`` (Efron ties) and ``p_c = 1 -
    exp(-predict(type = "expected"))`` at ``time``."""
    X, Xp, smooth_args = reg_spline_x(x, xp, smooth, args)
    if time is not None:
        return _cox_cal(y, p, x, xp, X, Xp, smooth_args, pw, time)
    k = X.shape[1] + 1
    names = ["(Intercept)"] + [f"V{j}" for j in range(1, k)]
    Xd = np.column_stack([np.ones(X.shape[0]), X])
    fit = _glm.glm_binomial(Xd, y, names, warn=True)
    p_c = np.asarray(fit.fitted_values, dtype=np.float64)
    coef = fit.coefficients.to_numpy()
    p_c_plot = p_c_plot_se = None
    if Xp is not None:
        if fit.rank < k:
            warn_rank_deficient()
        Xpd = np.column_stack([np.ones(Xp.shape[0]), Xp])
        beta = np.where(np.isnan(coef), 0.0, coef)
        eta = matmul(Xpd, beta)
        p_c_plot = linkinv(eta)
        if pw:
            V = _full_vcov(fit, k)
            ok = ~np.isnan(coef)
            A = Xpd[:, ok]
            se_link = np.sqrt(np.einsum("ij,jk,ik->i", A, V[np.ix_(ok, ok)], A))
            p_c_plot_se = se_link * np.abs(mu_eta(eta))
    return GlmCal(y=y, p=p, x=x, xp=xp, X=X, Xp=Xp, p_c=p_c, metrics=_metrics(p, p_c), p_c_plot=p_c_plot,
                  p_c_plot_se=p_c_plot_se, model=fit, smooth_args=smooth_args, time=None, outcome="binary")


def _one_minus_exp_neg(h):
    return 1.0 - libm.exp(-np.asarray(h, dtype=np.float64))


def _cox_cal(y, p, x, xp, X, Xp, smooth_args, pw, time) -> GlmCal:
    """The Cox branch of ``glm_cal``. With ``pw`` the plotting values stay cumulative hazards
    (R transforms them, and the band, in ``summary``)."""
    names = [f"V{j}" for j in range(1, X.shape[1] + 1)]
    fit = coxph_fit(y[:, 0], y[:, 1], X, colnames=names)
    p_c = _one_minus_exp_neg(fit.expected(time, X)[0])
    p_c_plot = p_c_plot_se = None
    if Xp is not None:
        if pw:
            p_c_plot, p_c_plot_se = fit.expected(time, Xp, se_fit=True)
        else:
            p_c_plot = _one_minus_exp_neg(fit.expected(time, Xp)[0])
    return GlmCal(y=y, p=p, x=x, xp=xp, X=X, Xp=Xp, p_c=p_c, metrics=_metrics(p, p_c), p_c_plot=p_c_plot,
                  p_c_plot_se=p_c_plot_se, model=fit, smooth_args=smooth_args, time=time, outcome="tte")


# --------------------------------------------------------------------------------------
# lowess_cal


def _predict_lowess(fx, fy, v):
    """pmcalibration's ``predict_lowess``: ``approx(fx, fy, v, ties = function(xx) xx[1], rule = 2)``."""
    keep = np.concatenate([[True], fx[1:] != fx[:-1]])  # fx sorted: first of each tie
    ux, uy = fx[keep], fy[keep]
    if ux.size < 2:
        fail_approx_two_values()
    return np.asarray(approx_constant(ux, uy, v), dtype=np.float64)


def lowess_cal(y, p, x, xp) -> LowessCal:
    """pmcalibration's ``lowess_cal``: ``lowess(x, y, iter = 0)`` interpolated linearly."""
    fx, fy = lowess(x, y, iter=0)
    p_c = _predict_lowess(fx, fy, x)
    p_c_plot = None if xp is None else _predict_lowess(fx, fy, xp)
    return LowessCal(y=y, p=p, x=x, xp=xp, p_c=p_c, metrics=_metrics(p, p_c), p_c_plot=p_c_plot,
                     p_c_plot_se=None, smooth_args={"smooth": "lowess"})


# --------------------------------------------------------------------------------------
# loess_cal


def loess_cal(y, p, x, xp, pw=False) -> LoessCal:
    """pmcalibration's ``loess_cal``: R's default ``loess(y ~ x)`` (interpolated) and
    ``predict`` (NA outside the range of ``x``). Its trace and residual scale are computed
    only for the pointwise band (they do not change the fit)."""
    from ..ports.stats.loess import Loess

    fit = Loess(x, y, statistics="approximate" if pw else "none")
    p_c = fit.predict(x)
    p_c_plot = p_c_plot_se = None
    if xp is not None:
        if pw:
            p_c_plot, p_c_plot_se = fit.predict(xp, se=True)
        else:
            p_c_plot = fit.predict(xp)
    return LoessCal(y=y, p=p, x=x, xp=xp, p_c=p_c, metrics=_metrics(p, p_c), p_c_plot=p_c_plot,
                    p_c_plot_se=p_c_plot_se, model=fit, smooth_args={"smooth": "loess"})


# --------------------------------------------------------------------------------------
# gam_cal


def gam_cal(y, p, x, xp, args, pw=False, time=None) -> GamCal:
    """pmcalibration's ``gam_cal``: ``mgcv::gam(y ~ s(x, k, fx, bs), binomial, method)``;
    for a time-to-event outcome (``time`` the horizon) ``mgcv::gam(times ~ s(x), cox.ph(),
    weights = events)`` and ``p_c = 1 - predict(type = "response")`` at ``time`` (mgcv
    fits a ``cox.ph`` model by REML whatever ``method`` says)."""
    from ..ports.mgcv import gam as _gam

    sa = {"smooth": "gam", "bs": args.get("bs", "tp"), "k": args.get("k", -1), "fx": args.get("fx", False),
          "method": args.get("method", "GCV.Cp")}
    p_c_plot = p_c_plot_se = None
    fit: Any  # GamCoxFit or GamFit
    if time is not None:
        from ..ports.mgcv.cox_ph import gam_coxph

        fit = gam_coxph(y[:, 0], y[:, 1], x, k=sa["k"], bs=sa["bs"], fx=sa["fx"], method=sa["method"])
        p_c = 1.0 - np.asarray(fit.survival(time, x)[0], dtype=np.float64)
        if xp is not None:
            surv, sep = fit.survival(time, xp, se_fit=pw)
            p_c_plot = 1.0 - np.asarray(surv, dtype=np.float64)
            p_c_plot_se = np.asarray(sep, dtype=np.float64) if pw else None
    else:
        fit = _gam.gam_binomial(x, y, k=sa["k"], bs=sa["bs"], fx=sa["fx"], method=sa["method"])
        p_c = np.asarray(fit.fitted_values, dtype=np.float64)
        if xp is not None:
            fitp, sep = fit.predict(xp, se_fit=pw)
            p_c_plot = np.asarray(fitp, dtype=np.float64)
            p_c_plot_se = np.asarray(sep, dtype=np.float64) if pw else None
    return GamCal(y=y, p=p, x=x, xp=xp, p_c=p_c, metrics=_metrics(p, p_c), p_c_plot=p_c_plot,
                  p_c_plot_se=p_c_plot_se, model=fit, smooth_args=sa, time=time,
                  outcome="binary" if time is None else "tte")


def _metrics_columns(p, PC, block=64):
    """:func:`_metrics` of every column of ``PC`` (R's ``cal_metrics`` per draw, the same
    numbers): the order statistics of each draw by one partition (a statistic next to a
    partitioned one is the largest value before it) instead of two sorts, R's long-double
    means by the compiled pass."""
    from ..numerics.interp import type7_combine, type7_positions
    from ..numerics.reductions import rmean

    n, m = PC.shape
    out = np.full((m, 5), np.nan)
    index, lo, hi = type7_positions(n, 0.9)
    half = (n + 1) // 2
    needed = {int(lo[0]) - 1, int(hi[0]) - 1, half - 1} | ({half} if n % 2 == 0 else set())
    kth = []
    for k in sorted(needed, reverse=True):  # k next to a partition point is derived from it
        if k + 1 not in kth:
            kth.insert(0, k)
    for s in range(0, m, block):
        cols = PC[:, s:s + block].T  # one draw per row
        ok = np.all(np.isfinite(cols), axis=1)
        for _ in np.flatnonzero(~ok):
            warn_pc_missing()
        D = np.abs(p[None, :] - cols)
        D2 = D * D
        part = np.partition(D, kth, axis=1)

        def order_stat(k, part=part):  # 0-based order statistic of every row
            return part[:, k] if k in kth else part[:, :k + 1].max(axis=1)

        e90 = type7_combine(index[0], lo[0], order_stat(int(lo[0]) - 1), order_stat(int(hi[0]) - 1))
        if n % 2 == 1:
            e50 = order_stat(half - 1)
        else:
            e50 = _mean2(order_stat(half - 1), order_stat(half))
        emax = D.max(axis=1)
        for j in np.flatnonzero(ok):
            out[s + j] = (rmean(D[j]), float(e50[j]), float(e90[j]), float(emax[j]), rmean(D2[j]) * 100.0)
    return out


def _mean2(a, b):
    """R's ``mean(c(a, b))`` elementwise (long double, with ``real_mean``'s correction)."""
    la, lb = a.astype(np.longdouble), b.astype(np.longdouble)
    two = np.longdouble(2)
    s = (la + lb) / two
    t = (la - s) + (lb - s)
    return (s + t / two).astype(np.float64)

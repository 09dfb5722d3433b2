"""``rms::predab.resample`` (rms 6.5-0): optimism of a model's indexes by resampling, and the
two measures rms hands it for a logistic model -- ``validate.lrm``'s ``discrim`` and
``calibrate.default``'s ``cal.error`` -- and ``validate.lrm``'s ``Emax`` row.

The procedure, as R runs it (``bw = FALSE``, no ``cluster``/``group``/``subset``):

* ``index.orig``: the measure of the original fit on the original data (``evalfit = TRUE``);
* for ``i = 1..B``, a training sample: ``sample(n, replace = TRUE)`` (``"boot"``), every row
  outside the i-th of ``B`` groups of a random permutation (``"crossvalidation"``; the
  groups are ``1 + round((i - 1) n/B)`` .. ``min(n, round(is + n/B - 1))`` of one
  ``sample(n)``), the i-th of ``B`` bootstrap samples drawn before the loop
  (``".632"``: test rows are those not drawn, weighted by Efron's ``W``) or a permutation
  of the outcome (``"randomization"``); the model is refitted there; the measure of that fit
  on its training sample (``evalfit = TRUE``) and on the test rows (all rows, or those left
  out) is accumulated, each index counted only where both are not missing (R's ``n``
  column); a fit that fails (R's ``fail`` or an error) is skipped, and R's "Divergence or
  singularity in k samples" reports how many;
* ``optimism = training - test`` (``.632``: ``0.632 (index.orig - test)``), ``index.corrected
  = index.orig - optimism``.

The draws are R's ``sample`` on R's global stream (:mod:`calstats.rng`), so the same
``set.seed`` gives the same resamples, in the same order, as R.
"""

import math

import numpy as np

from ... import rng
from ..._errors import fail
from ..._messages import (
    PREDAB_632,
    PREDAB_CV_GROUPS,
)
from ..._robject import RObject
from ...numerics.interp import approx_constant
from ...numerics.libm import log
from ...numerics.nmath import plogis
from ...numerics.reductions import rsum
from ..hmisc.somers2 import gini_md_pair, somers2
from ..stats.lowess import lowess
from .lrm_fit import lrm_fit

__all__ = ["predab_resample", "PredabResult", "discrim", "DISCRIM_NAMES", "cal_error", "emax", "METHODS"]

METHODS = ("boot", "crossvalidation", ".632", "randomization")
DISCRIM_NAMES = ("Dxy", "R2", "Intercept", "Slope", "D", "U", "Q", "B", "g", "gp")


class PredabResult(RObject):
    """``predab.resample``'s matrix, one field per column under R's column names, in R's order
    (``res["index.corrected"]``, ``res.names()``; see :class:`calstats._robject.RObject`):
    ``index.orig``, ``training``, ``test``, ``optimism``, ``index.corrected`` and ``n``
    (arrays, one entry per index; ``n`` counts the resamples that gave the index).

    Not R fields: ``failed`` (resamples whose fit failed, R's "Divergence or singularity in k
    samples"), ``B`` and ``method`` (the resampling asked for).
    """

    _r_fields = ("index.orig", "training", "test", "optimism", "index.corrected", "n")
    _extras: tuple[str, ...] = ("failed", "B", "method")
    # set by the constructor (declared for type checkers)
    index_orig: np.ndarray
    training: np.ndarray
    test: np.ndarray
    optimism: np.ndarray
    index_corrected: np.ndarray
    n: np.ndarray
    failed: int
    B: int
    method: str


def _r_round(x):
    return float(np.rint(x))


def predab_resample(n, refit, linear_predictor, measure, index_orig, method="boot", B=50, y_of=None):
    """R's ``predab.resample`` loop.

    Parameters
    ----------
    n : int
        Number of rows.
    refit : callable
        ``refit(xrows, yrows, i)``: the model fitted on the rows ``xrows`` of x with the
        outcomes of rows ``yrows`` (0-based index arrays; they differ only for
        ``"randomization"``); None when R's fit fails or errors.
    linear_predictor : callable
        ``linear_predictor(fit)``: the fit's predictions (R's ``Xb``) on every row.
    measure : callable
        ``measure(values, yrows, fit, evalfit)``: the indexes (ndarray, NaN for R's NA) of
        ``values`` against the outcomes of rows ``yrows``.
    index_orig : ndarray
        The measure of the original fit on the original data.
    method : {"boot", "crossvalidation", ".632", "randomization"}
    B : int
        Number of resamples (groups for cross-validation).

    Returns
    -------
    PredabResult
    """
    k = index_orig.size
    train_stat = np.zeros(k)
    test_stat = np.zeros(k)
    num = np.zeros(k)
    all_rows = np.arange(n)
    if method == "crossvalidation":
        per_group = n / B
        if per_group < 2:
            fail(PREDAB_CV_GROUPS)
        sb = np.asarray(rng.sample_int(n, n), dtype=np.int64) - 1
    W = None
    S = None
    if method == ".632":
        S = np.empty((n, B), dtype=np.int64)
        omitted = np.ones((n, B), dtype=bool)
        for i in range(B):
            s = np.asarray(rng.sample_int(n, n, replace=True), dtype=np.int64) - 1
            S[:, i] = s
            omitted[s, i] = False
        nomit = omitted.sum(axis=1).astype(np.float64)
        if nomit.min() == 0:
            fail(PREDAB_632)
        W = np.array([rsum(omitted[:, i] / nomit) for i in range(B)]) / float(n)
    done = 0
    for i in range(1, B + 1):
        if method == "crossvalidation":
            is_ = 1 + _r_round((i - 1) * per_group)
            ie = min(float(n), _r_round(is_ + per_group - 1))
            test = sb[int(is_) - 1:int(ie)]
            keep = np.ones(n, dtype=bool)
            keep[test] = False
            train = all_rows[keep]
            xtrain = train
        elif method == "boot":
            train = np.asarray(rng.sample_int(n, n, replace=True), dtype=np.int64) - 1
            test = all_rows
            xtrain = train
        elif method == ".632":
            train = S[:, i - 1]
            keep = np.ones(n, dtype=bool)
            keep[train] = False
            test = all_rows[keep]
            xtrain = train
        else:
            train = np.asarray(rng.sample_int(n, n), dtype=np.int64) - 1
            test = all_rows
            xtrain = all_rows
        f = refit(xtrain, train, i)
        if f is None:
            continue
        done += 1
        xb = linear_predictor(f)
        tr = np.asarray(measure(xb[xtrain], train, f, True), dtype=np.float64)
        te = np.asarray(measure(xb[test], test, f, False), dtype=np.float64)
        na = np.isnan(tr + te)
        num += ~na
        tr = np.where(na, 0.0, tr)
        te = np.where(na, 0.0, te)
        wt = W[i - 1] if method == ".632" else 1.0
        train_stat = train_stat + tr
        test_stat = test_stat + te * wt
    with np.errstate(invalid="ignore", divide="ignore"):
        train_stat = train_stat / num
        if method != ".632":
            test_stat = test_stat / num
            optimism = train_stat - test_stat
        else:
            optimism = 0.632 * (index_orig - test_stat)
    return PredabResult(index_orig=index_orig, training=train_stat, test=test_stat, optimism=optimism,
                        index_corrected=index_orig - optimism, n=num, failed=B - done, B=B, method=method)


# --------------------------------------------------------------------------------------
# validate.lrm's measure


def discrim(x, y, fit, evalfit, kint=1, dxy_method="somers2"):
    """``validate.lrm``'s ``discrim(x, y, fit, evalfit)``: Dxy, R2, Intercept, Slope, D, U, Q,
    B, g, gp of the linear predictor ``x`` against the outcome codes ``y``.

    ``evalfit``: the fit's own statistics (its ``Model L.R.``, ``R2``, ``g``, ``gp``;
    intercept 0, slope 1); otherwise the logistic recalibration ``lrm.fit(x, y, tol = 1e-13)``
    gives them (``U`` from the unrecalibrated log likelihood ``L01``). ``fit.stats`` must be
    R's statistics of the fit. Dxy is ``Hmisc::somers2`` (binary) or the fit's binned
    ``Dxy`` (``dxy_method = "lrm"``, R's choice for an ordinal outcome).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    if evalfit:
        st = fit.stats
        lr = st["Model L.R."]
        dxy = st["Dxy"] if dxy_method == "lrm" else somers2(x, y)[1]
        intercept, shrink = 0.0, 1.0
        n = st["Obs"]
        D = (lr - 1.0) / n
        U = -2.0 / n
        Q = D - U
        R2 = st["R2"]
        g = st["g"]
        gp = st["gp"]
    else:
        null_model = fit is not None and len(fit.coefficients) == fit.non_slopes
        refit = lrm_fit(None, y) if null_model else lrm_fit(x, y, tol=1e-13)
        if refit is None or not refit.stats:
            return np.full(len(DISCRIM_NAMES), math.nan)
        st = refit.stats
        lr = st["Model L.R."]
        dxy = st["Dxy"] if dxy_method == "lrm" else somers2(x, y)[1]
        intercept = float(refit.coefficients[kint - 1])
        shrink = 1.0 if null_model else float(refit.coefficients[refit.non_slopes])
        n = st["Obs"]
        D = (lr - 1.0) / n
        ev = np.where(y >= kint, 1.0, 0.0)
        L01 = -2.0 * rsum(ev * x - log(1.0 + _exp(x)))
        U = (L01 - refit.deviance[1] - 2.0) / n
        Q = D - U
        R2 = st["R2"]
        sx = shrink * x
        g, gp = gini_md_pair(sx, lambda v: plogis(intercept + v), plogis(intercept + sx))
    P = plogis(x)
    d = np.where(y >= kint, 1.0, 0.0) - P
    Bs = rsum(d * d) / n
    return np.array([dxy, R2, intercept, shrink, D, U, Q, Bs, g, gp], dtype=np.float64)


def _exp(x):
    from ...numerics.libm import exp

    return exp(x)


def emax(intercept, slope, lim=(0.0, 1.0)):
    """``validate.lrm``'s Emax: ``max |p - plogis(a + b logit(p))|`` over
    ``p = seq(lim[0], lim[1], 5e-4)`` (NaN ignored)."""
    lo, hi = float(lim[0]), float(lim[1])
    nby = int((hi - lo) / 5e-4 + 1e-10)
    p = np.minimum(lo + np.arange(nby + 1, dtype=np.float64) * 5e-4, hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = log(p / (1.0 - p))
        P = plogis(intercept + slope * L)
        e = np.abs(p - P)
    e = e[~np.isnan(e)]
    return float(e.max()) if e.size else math.nan


# --------------------------------------------------------------------------------------
# calibrate.default's measure


def approx_ties_first(x, y, xout):
    """``approx(list(x, y), xout = xout, ties = function(x) x[1])$y`` for sorted ``x``:
    the first value of tied abscissae, linear interpolation, NaN outside ``[x[1], x[n]]``."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    keep = np.concatenate([[True], x[1:] != x[:-1]])
    xs, ys = x[keep], y[keep]
    xout = np.asarray(xout, dtype=np.float64)
    if xs.size < 2:
        out = np.where(xout == xs[0], ys[0], np.nan) if xs.size else np.full(xout.shape, np.nan)
        return out
    out = np.asarray(approx_constant(xs, ys, xout), dtype=np.float64)
    return np.where((xout < xs[0]) | (xout > xs[-1]), np.nan, out)


def cal_error(x, y, predy, kint=1):
    """``calibrate.default``'s ``cal.error``: ``lowess(plogis(x), y >= kint, iter = 0)``
    interpolated at ``predy``, minus ``predy`` (NaN outside the smoothed range)."""
    p = plogis(np.asarray(x, dtype=np.float64))
    yy = np.where(np.asarray(y) >= kint, 1.0, 0.0)
    sx, sy = lowess(p, yy, iter=0)
    return approx_ties_first(sx, sy, predy) - predy

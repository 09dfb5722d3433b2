"""``validate`` and ``calibrate``: rms' resampling validation of a logistic model
(``rms::validate.lrm`` and ``rms::calibrate``, rms 6.5-0), and the same procedure for any
model that can be refitted (a scikit-learn classifier or a ``fit(X, y) -> predict`` callable).

For an :func:`~calstats.clinical.lrm` fit the numbers are R's: the resamples are R's
``sample()`` draws after ``set.seed(seed)`` (:mod:`calstats.rng`), each refit is rms'
``lrm.fit`` (:mod:`calstats.ports.rms.lrm_fit`) and the indexes, optimism and corrected
calibration curve follow ``predab.resample`` (:mod:`calstats.ports.rms.predab`) step by
step, so ``validate(fit, B, seed=s)`` prints what ``set.seed(s); validate(fit, B)`` prints
in R.
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .. import rng
from .._errors import warn
from ..numerics.interp import seq_length
from ..numerics.nmath import plogis, quantile7
from ..numerics.reductions import rmean
from ..numerics.rformat import r_round
from ..ports.rms.lrm_fit import lrm_fit, matxv
from ..ports.rms.predab import METHODS, approx_ties_first, discrim, emax, predab_resample
from ..ports.stats.lowess import lowess
from ..ports.stats.profile import approx_linear
from ..results._base import Result
from ._rmsprint import format_one, print_num_matrix
from .rms_lrm import Lrm

__all__ = ["validate", "calibrate", "Validation", "Calibration"]

VALIDATE_ROWS = ("Dxy", "R2", "Intercept", "Slope", "Emax", "D", "U", "Q", "B", "g", "gp")
VALIDATE_COLS = ("index.orig", "training", "test", "optimism", "index.corrected", "n")
CALIBRATE_COLS = ("predy", "calibrated.orig", "calibrated.corrected") + VALIDATE_COLS
_P_CLIP = 1e-15


# --------------------------------------------------------------------------------------
# the model to refit


class _Model:
    """What the resampling loop needs of a model: ``refit(rows_x, rows_y)`` -> fit or None,
    ``values(fit)`` (the linear predictor, or the probabilities, on every row), the outcome
    codes and the original fit's values and statistics."""

    kind = "lrm"


def _lrm_model(fit: Lrm, tol):
    if fit.fail:
        v.fail_model_not_converged()
    X = fit.x
    y = fit.y
    k = fit.non_slopes
    kint = (k + 1) // 2
    coef = fit.coefficients.to_numpy()

    def refit(xrows, yrows, i):
        yy = y[yrows]
        present = np.unique(yy)
        if present.size < 2:
            return None  # lrm.fit stops; predab.resample counts a failure
        codes = np.searchsorted(present, yy)
        f = lrm_fit(X[xrows], codes, tol=tol, singular="none")
        if f is None or f.fail or not f.stats:
            return None
        if f.non_slopes != k:
            from ..ports.rms.predab import MSG_INTERCEPTS

            v.fail(MSG_INTERCEPTS.format(ni=f.non_slopes, ns=k))
        return f

    def values(f):
        return matxv(X, f.coefficients, kint)

    return X, y, k, kint, coef, refit, values


def _generic_fit(model):
    """``fit(X, y) -> predict`` for a scikit-learn classifier or a callable."""
    if hasattr(model, "fit") and hasattr(model, "predict_proba"):
        def fit(X, y):
            try:
                from sklearn.base import clone

                est = clone(model)
            except Exception:  # not a scikit-learn estimator: a copy of it
                import copy

                est = copy.deepcopy(model)
            est.fit(X, y)
            classes = list(getattr(est, "classes_", [0, 1]))
            j = classes.index(1) if 1 in classes else len(classes) - 1

            def predict(Xn):
                return np.asarray(est.predict_proba(Xn))[:, j]
            return predict
        return fit
    return model


def _logit(p):
    q = np.clip(p, _P_CLIP, 1.0 - _P_CLIP)
    from ..numerics.libm import log

    return log(q / (1.0 - q))


def _generic_model(model, X, y):
    fit_fn = _generic_fit(model)
    n = y.size
    errors = []

    def run(Xt, yt):
        pred = fit_fn(Xt, yt)
        return v.check_predictions(pred(X), n)

    p0 = run(X, y)

    def refit(xrows, yrows, i):
        yy = y[yrows]
        if np.unique(yy).size < 2:
            return None
        try:
            return run(X[xrows], yy)
        except Exception as e:  # a resample the model cannot fit: R's efit
            errors.append(str(e))
            return None

    return p0, refit, errors


def _check_common(B, method, seed):
    B = v.check_resamples(B, method)
    method = v.match_arg(method, list(METHODS), "method")
    if seed is not None:
        from .._validate import scalar_number

        if scalar_number(seed) is None:
            v.fail("Argument `seed` must be a single number or `None`.")
    return B, method


def _divergence(failed, generic_errors=None):
    if failed:
        if generic_errors:
            warn(f"The model could not be fitted in {failed} resamples (last error: {generic_errors[-1]}).")
        else:
            warn(f"Divergence or singularity in {failed} samples")


# --------------------------------------------------------------------------------------
# validate


def validate(fit: Any, B: int = 200, method: str = "boot", seed: Any = None, *, X: Any = None, y: Any = None,
             emax_lim: tuple[float, float] = (0.0, 1.0)) -> "Validation":
    """Resampling validation of a logistic model, as ``rms::validate(fit, B, method)``.

    Parameters
    ----------
    fit : Lrm, scikit-learn classifier or callable
        An :func:`~calstats.clinical.lrm` fit (R's ``validate.lrm``); or a model calstats
        refits on every resample: a classifier with ``fit(X, y)`` and ``predict_proba``
        (cloned for each fit), or a callable ``fit(X, y)`` that returns a function of ``X``
        giving the probabilities of ``y = 1``.
    B : int, default 200
        Number of resamples (cross-validation: of groups). R's default is 40.
    method : {"boot", "crossvalidation", ".632", "randomization"}
        rms' ``predab.resample`` methods: the optimism bootstrap, ``B``-fold
        cross-validation, Efron's .632 bootstrap, or refits on a permuted outcome.
    seed : int, optional
        ``set.seed(seed)`` before the draws, R's stream (the global stream is left where it
        was); None draws from calstats' global R stream, as R's ``validate`` does.
    X, y : array-like
        The predictors and 0/1 outcomes, for a model that is not an ``lrm`` fit.
    emax_lim : (float, float)
        The probability range of ``Emax`` (R's ``emax.lim``).

    Returns
    -------
    Validation
        R's ``validate`` matrix: rows ``Dxy``, ``R2``, ``Intercept``, ``Slope``, ``Emax``,
        ``D``, ``U``, ``Q``, ``B``, ``g``, ``gp``; columns ``index.orig``, ``training``,
        ``test``, ``optimism``, ``index.corrected``, ``n``. ``print()`` is R's.

    Notes
    -----
    For an ``lrm`` fit this is ``validate.lrm``: training fits by ``lrm.fit(tol = 1e-12)``,
    the test indexes from ``lrm.fit(lp, y, tol = 1e-13)`` on the linear predictor, Dxy by
    ``Hmisc::somers2`` (binary outcome; the fit's binned Dxy for an ordinal one), resamples
    whose fit fails skipped with R's "Divergence or singularity" as a warning; equal to R
    for the same ``set.seed`` on ``tests/fixtures/rms_validate.json``. Case weights of the
    fit are ignored in the resamples, as R ignores them. ``bw = TRUE`` (backward
    elimination in every resample) is not supported.

    For another model the same loop runs with the model's probabilities: every index,
    training ones included, is computed as R computes test indexes (the logistic
    recalibration of ``logit(p)``, probabilities clipped to ``[1e-15, 1 - 1e-15]``), so the
    apparent intercept and slope are estimated rather than 0 and 1. No R reference exists
    for this form.
    """
    B, method = _check_common(B, method, seed)
    if isinstance(fit, Lrm):
        Xm, y_codes, k, kint, coef, refit, values = _lrm_model(fit, 1e-12)
        dxy_method = "somers2" if k == 1 else "lrm"
        xb = matxv(Xm, coef, kint)
        index_orig = discrim(xb, y_codes, fit, True, kint, dxy_method)
        generic_errors = None

        def measure(vals, rows, f, evalfit):
            return discrim(vals, y_codes[rows], f, evalfit, kint, dxy_method)

        kind = "lrm"
    else:
        v.check_refit_model(fit)
        Xa, y_codes = v.check_refit_xy(X, y)
        kint = 1
        p0, refit, generic_errors = _generic_model(fit, Xa, y_codes)
        index_orig = discrim(_logit(p0), y_codes, None, False, 1)

        def values(p):
            return _logit(p)

        def measure(vals, rows, f, evalfit):
            return discrim(vals, y_codes[rows], None, False, 1)

        kind = "model"
    n = y_codes.size
    with rng._seeded(seed):
        res = predab_resample(n, refit, values, measure, index_orig, method, B)
    _divergence(res.failed, generic_errors)
    cols = [res.index_orig, res.training, res.test, res.optimism, res.index_corrected, res.n]
    mat = np.column_stack(cols)
    e = emax(mat[2, 4], mat[3, 4], emax_lim)
    mat = np.vstack([mat[:4], [0.0, 0.0, e, e, e, mat[0, 5]], mat[4:]])
    frame = pd.DataFrame(mat, index=pd.Index(VALIDATE_ROWS), columns=pd.Index(VALIDATE_COLS))
    return Validation(frame, B, method, res.failed, kind, seed)


class Validation(Result):
    """The result of :func:`validate` (R class ``"validate"``): the matrix of indexes.

    Attributes
    ----------
    matrix : pandas.DataFrame
        Rows ``Dxy``, ``R2``, ``Intercept``, ``Slope``, ``Emax``, ``D``, ``U``, ``Q``, ``B``,
        ``g``, ``gp``; columns ``index.orig``, ``training``, ``test``, ``optimism``,
        ``index.corrected``, ``n`` (resamples that gave the index).
    B, method, seed : the resampling asked for.
    failed : int
        Resamples whose fit failed (R's "Divergence or singularity in k samples").
    model : str
        ``"lrm"`` (rms' ``validate.lrm``) or ``"model"`` (a refitted estimator or callable).
    """

    r_class = ("validate",)
    _extras = ("matrix", "B", "method", "failed", "model", "seed")
    matrix: pd.DataFrame
    B: int
    method: str
    failed: int
    model: str
    seed: Any

    def __init__(self, matrix, B, method, failed, model, seed):
        self._set_fields(matrix=matrix, B=B, method=method, failed=failed, model=model, seed=seed)

    def print_text(self, digits: int = 4) -> str:
        """R's ``print(v)`` (``print.validate``: the matrix rounded to 4 digits)."""
        m = self.matrix
        cols = [[r_round(x, digits) if math.isfinite(x) else x for x in m[c].to_numpy()] for c in m.columns]
        return "\n".join(print_num_matrix(list(m.index), list(m.columns), cols)) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The matrix (a copy), indexes by row."""
        return self.matrix.copy()

    def _html_title(self):
        return f"Resampling validation ({self.method}, B={self.B})"

    def plot(self, ax: Any = None, indexes=("Dxy", "R2", "Slope", "B")) -> Any:
        """Apparent (``index.orig``) and optimism-corrected values of some indexes, one row
        each (matplotlib; R has no plot for this object). Returns the axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        names = [i for i in indexes if i in self.matrix.index]
        pos = np.arange(len(names))
        ax.scatter(self.matrix.loc[names, "index.orig"], pos, marker="o", color="black", label="Apparent")
        ax.scatter(self.matrix.loc[names, "index.corrected"], pos, marker="x", color="blue",
                   label="Optimism-corrected")
        ax.set_yticks(pos)
        ax.set_yticklabels(names)
        ax.set_xlabel("Index")
        ax.legend(frameon=False)
        return ax


# --------------------------------------------------------------------------------------
# calibrate


def calibrate(fit: Any, B: int = 200, method: str = "boot", seed: Any = None, predy: Any = None, *,
              X: Any = None, y: Any = None) -> "Calibration":
    """Resampling-corrected calibration curve, as ``rms::calibrate(fit, B, method)``.

    The apparent curve is ``lowess(p, y, iter = 0)`` of the predicted probabilities, read
    at 50 points ``predy`` between the 5th smallest and 5th largest prediction; each
    resample's model gives the same curve on its training sample and on the test rows, and
    their mean difference (the optimism) is taken off the apparent curve.

    Parameters
    ----------
    fit : Lrm, scikit-learn classifier or callable
        As for :func:`validate`.
    B : int, default 200
        Number of resamples (R's default is 40).
    method : {"boot", "crossvalidation", ".632", "randomization"}
    seed : int, optional
        ``set.seed(seed)`` before the draws (R's stream).
    predy : array-like, optional
        Where to read the curves (probabilities in (0, 1)); default R's grid.
    X, y : array-like
        Predictors and 0/1 outcomes, for a model that is not an ``lrm`` fit.

    Returns
    -------
    Calibration
        R's ``calibrate.default`` matrix (``predy``, ``calibrated.orig``,
        ``calibrated.corrected``, then ``predab.resample``'s columns); ``print()`` shows
        ``print.calibrate.default``'s header with the mean absolute error, and the matrix;
        ``plot()`` draws the apparent, bias-corrected and ideal lines.

    Notes
    -----
    For an ``lrm`` fit this is rms' ``calibrate.default`` (training refits by
    ``lrm.fit(tol = 1e-13)``, ``approx(..., ties = function(x) x[1])`` of the lowess curve,
    missing outside its range), equal to R for the same ``set.seed`` on
    ``tests/fixtures/rms_validate.json``. rms 6.5-0 does not register its
    ``print.calibrate.default`` method, so R's ``print(cal)`` dumps the matrix with every
    attribute (the 200 predictions included); calstats prints what that method writes,
    without the attribute dump. For another model the curves are those of its
    probabilities (no R reference).
    """
    B, method = _check_common(B, method, seed)
    if isinstance(fit, Lrm):
        Xm, y_codes, k, kint, coef, refit, values = _lrm_model(fit, 1e-13)
        predicted = plogis(fit.linear_predictors - coef[0] + coef[kint - 1])
        probs_of = lambda vals: plogis(vals)  # noqa: E731 - R's cal.error: x <- plogis(x)
        generic_errors = None
        orig_values = matxv(Xm, coef, kint)
        kind = "lrm"
        yvar = fit.design.response
        lev_name = fit.levels[kint]
        ns = k
    else:
        v.check_refit_model(fit)
        Xa, y_codes = v.check_refit_xy(X, y)
        kint = 1
        p0, refit, generic_errors = _generic_model(fit, Xa, y_codes)
        predicted = p0
        probs_of = lambda vals: vals  # noqa: E731 - the model's probabilities as they are

        def values(p):
            return p

        orig_values = p0
        kind = "model"
        yvar = "y"
        lev_name = "1"
        ns = 1
    n = y_codes.size
    if predy is None:
        if n < 11:
            v.fail_calibrate_small(n)
        s = np.sort(predicted)
        grid = seq_length(s[4], s[n - 5], 50)
    else:
        grid = v.check_predy(predy)

    def curve(vals, yy):
        sx, sy = lowess(probs_of(vals), np.where(yy >= kint, 1.0, 0.0), iter=0)
        return approx_ties_first(sx, sy, grid)

    orig_cal = curve(orig_values, y_codes)
    index_orig = orig_cal - grid

    def measure(vals, rows, f, evalfit):
        return curve(vals, y_codes[rows]) - grid

    with rng._seeded(seed):
        res = predab_resample(n, refit, values, measure, index_orig, method, B)
    _divergence(res.failed, generic_errors)
    mat = np.column_stack([grid, orig_cal, orig_cal - res.optimism, res.index_orig, res.training, res.test,
                           res.optimism, res.index_corrected, res.n])
    frame = pd.DataFrame(mat, columns=pd.Index(CALIBRATE_COLS))
    return Calibration(frame, B, method, res.failed, kind, seed, predicted, yvar, lev_name, ns, n)


class Calibration(Result):
    """The result of :func:`calibrate` (R class ``"calibrate.default"``).

    Attributes
    ----------
    matrix : pandas.DataFrame
        Columns ``predy``, ``calibrated.orig`` (the apparent curve), ``calibrated.corrected``
        (bias-corrected), ``index.orig``, ``training``, ``test``, ``optimism``,
        ``index.corrected``, ``n``; one row per point of ``predy``.
    predicted : ndarray
        The model's predicted probabilities (R's ``attr(, "predicted")``).
    B, method, seed, failed, model : as for :class:`Validation`.
    """

    r_class = ("calibrate.default",)
    _extras = ("matrix", "B", "method", "failed", "model", "seed", "predicted", "yvar", "lev_name",
               "non_slopes", "n")
    matrix: pd.DataFrame
    B: int
    method: str
    failed: int
    model: str
    seed: Any
    predicted: np.ndarray
    yvar: str
    lev_name: str
    non_slopes: int
    n: int

    def __init__(self, matrix, B, method, failed, model, seed, predicted, yvar, lev_name, non_slopes, n):
        self._set_fields(matrix=matrix, B=B, method=method, failed=failed, model=model, seed=seed,
                         predicted=predicted, yvar=yvar, lev_name=lev_name, non_slopes=non_slopes, n=n)

    def errors(self):
        """``predicted`` minus the bias-corrected curve interpolated there (R's ``err``: NaN
        outside the grid)."""
        p = self.matrix["predy"].to_numpy()
        cc = self.matrix["calibrated.corrected"].to_numpy()
        s = ~np.isnan(p + cc)
        return self.predicted - approx_linear(p[s], cc[s], self.predicted)

    def error_summary(self) -> dict[str, float]:
        """R's summary lines: ``n``, mean absolute error, mean squared error and the 0.9
        quantile of the absolute error (missing values dropped)."""
        err = self.errors()
        e = err[~np.isnan(err)]
        a = np.abs(e)
        return {"n": int(err.size), "mean_absolute_error": rmean(a), "mean_squared_error": rmean(e * e),
                "q90_absolute_error": float(quantile7(a, 0.9))}

    def _call_text(self):
        parts = ["fit = fit"]
        if self.method != "boot":
            parts.append(f'method = "{self.method}"')
        parts.append(f"B = {self.B}")
        return f"calibrate.default({', '.join(parts)})"

    def print_text(self) -> str:
        """``rms:::print.calibrate.default``'s text (header, error summary, the matrix)."""
        es = self.error_summary()
        if self.non_slopes == 1:
            lab = f"Pr{{{self.yvar}={self.lev_name}}}"
        else:
            lab = f"Pr{{{self.yvar}>={self.lev_name}}}"
        lines = ["", f"Estimates of Calibration Accuracy by {self.method} (B={self.B})", "",
                 self._call_text(), "", f"Prediction of {lab} ", "", "",
                 f"n={es['n']}   Mean absolute error={format_one(r_round(es['mean_absolute_error'], 3))}"
                 f"   Mean squared error={format_one(r_round(es['mean_squared_error'], 5))}",
                 f"0.9 Quantile of absolute error={format_one(r_round(es['q90_absolute_error'], 3))}", ""]
        m = self.matrix
        lines += print_num_matrix(None, list(m.columns), [m[c].to_numpy() for c in m.columns])
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The calibration matrix (a copy)."""
        return self.matrix.copy()

    def _html_title(self):
        return f"Resampling-corrected calibration ({self.method}, B={self.B})"

    def plot(self, ax: Any = None, legend: bool = True, subtitles: bool = True, riskdist: bool = True) -> Any:
        """R's ``plot(cal)`` (``plot.calibrate.default``): the apparent curve (dotted), the
        bias-corrected curve (solid), the ideal line (dashed), the distribution of the
        predictions as spikes along the bottom, and R's subtitles. Returns the axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        m = self.matrix
        p, app, cal = (m[c].to_numpy() for c in ("predy", "calibrated.orig", "calibrated.corrected"))
        both = np.concatenate([p, app, cal])
        lim = (np.nanmin(both), np.nanmax(both))
        ax.plot(p, app, linestyle=":", color="black", label="Apparent")
        ax.plot(p, cal, linestyle="-", color="black", label="Bias-corrected")
        ax.plot(lim, lim, linestyle="--", color="black", label="Ideal")
        ax.set_xlim(lim)
        ax.set_ylim(lim)
        sign = "=" if self.non_slopes == 1 else ">="
        ax.set_xlabel(f"Predicted Pr{{{self.yvar}{sign}{self.lev_name}}}")
        ax.set_ylabel("Actual Probability")
        if riskdist:
            h, edges = np.histogram(self.predicted, bins=200, range=lim)
            mids = (edges[:-1] + edges[1:]) / 2
            height = 0.08 * (lim[1] - lim[0])
            top = h.max() if h.size and h.max() > 0 else 1
            ax.vlines(mids[h > 0], lim[0], lim[0] + height * h[h > 0] / top, color="black", linewidth=0.5)
        if subtitles:
            es = self.error_summary()
            ax.set_title(f"B={self.B} repetitions, {self.method}", loc="left", fontsize="small")
            ax.set_title(f"Mean absolute error={format_one(r_round(es['mean_absolute_error'], 3))} n={es['n']}",
                         loc="right", fontsize="small")
        if legend:
            ax.legend(frameon=False, loc="lower right")
        return ax


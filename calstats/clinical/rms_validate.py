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
from .._errors import CalstatsError
from .._plotting import pyplot
from ..numerics.interp import seq_length
from ..numerics.nmath import plogis, quantile7
from ..numerics.reductions import rmean
from ..numerics.rformat import as_character, r_round
from ..ports.rms.fastbw import fastbw
from ..ports.rms.lrm_fit import lrm_fit, matxv
from ..ports.rms.predab import METHODS, approx_ties_first, discrim, emax, predab_resample
from ..ports.stats.lowess import lowess
from ..ports.stats.profile import approx_linear
from ..results._base import Result
from ._rmsprint import fastbw_lines, format_one, kept_lines, print_num_matrix
from .rms_lrm import Lrm

__all__ = ["validate", "calibrate", "Validation", "Calibration"]

VALIDATE_ROWS = ("Dxy", "R2", "Intercept", "Slope", "Emax", "D", "U", "Q", "B", "g", "gp")
VALIDATE_COLS = ("index.orig", "training", "test", "optimism", "index.corrected", "n")
CALIBRATE_COLS = ("predy", "calibrated.orig", "calibrated.corrected") + VALIDATE_COLS
_P_CLIP = 1e-15


def _step_down_text(fastbw) -> str:
    """R's ``print(fastbw(fit))`` of the original model, as ``validate``/``calibrate`` with
    ``bw = TRUE`` print it before resampling; empty without ``bw``."""
    if fastbw is None:
        return ""
    return "\n".join(["", "\t\tBackwards Step-down - Original Model"] + fastbw_lines(fastbw)) + "\n"


# --------------------------------------------------------------------------------------
# the model to refit


class _BW:
    """``bw = TRUE``: fastbw on the original fit and in every resample (rms' ``predab.resample``)."""

    def __init__(self, fit, rule, type, sls, aics):
        info = fit.design.term_info()
        self.names = [t[0] for t in info]
        self.lengths = [t[1] for t in info]
        self.coef_names = list(fit.coefficients.index)
        self.k = fit.non_slopes
        self.opts = {"rule": rule, "type": type, "sls": sls, "aics": aics, "eps": 1e-12}
        self.kept: list[list[bool]] = []
        self.done = 0

    def step(self, coef, var):
        return fastbw(coef, var, self.k, self.lengths, self.names, self.coef_names, **self.opts)

    def xcol(self, fb):
        return [p - self.k for p in fb.parms_kept if p >= self.k]


def _fit_columns(X, cols, codes, tol):
    return lrm_fit(X[:, cols] if cols else None, codes, tol=tol, singular="none")


def _lrm_model(fit: Lrm, tol, bw=None, summary=True):
    """The refit and linear predictor of an ``lrm`` fit in predab.resample (``tol``: the
    refits' ``lrm.fit`` tolerance); with ``bw`` the step-down of every resample, and the
    original model refitted on the factors fastbw keeps. ``summary=False``: the refits skip
    R's statistics and covariance (they only predict; their coefficients are the same)."""
    if fit.fail:
        v.fail_model_not_converged()
    X = fit.x
    y = fit.y
    k = fit.non_slopes
    kint = (k + 1) // 2
    coef = fit.coefficients.to_numpy()
    orig = fit
    orig_cols = list(range(X.shape[1]))
    step_down = None
    if bw is not None:
        assert fit.var is not None  # a fit that did not fail has its covariance
        step_down = bw.step(coef, fit.var.to_numpy())
        orig_cols = bw.xcol(step_down)
        orig = _fit_columns(X, orig_cols, y, tol)

    def refit(xrows, yrows, i):
        yy = y[yrows]
        present = np.unique(yy)
        if present.size < 2:
            return None  # lrm.fit stops; predab.resample counts a failure
        codes = np.searchsorted(present, yy)
        f = lrm_fit(X[xrows], codes, tol=tol, singular="none", summary=summary or bw is not None)
        if f is None or f.fail or (summary and not f.stats):
            return None
        if f.non_slopes != k:
            v.fail_resample_intercepts(f.non_slopes, k)
        cols = list(range(X.shape[1]))
        if bw is not None:
            if f.var is None:
                return None
            fb = bw.step(f.coefficients, f.var)
            while len(bw.kept) <= bw.done:
                bw.kept.append([False] * len(bw.names))
            for j in fb.factors_kept:
                bw.kept[bw.done][j] = True
            cols = bw.xcol(fb)
            f = _fit_columns(X[xrows], cols, codes, tol)
            if f is None or f.fail or not f.stats:
                return None
            bw.done += 1
        f.columns = cols
        return f

    def values(f):
        cols = f.columns
        if not cols:
            return np.full(X.shape[0], f.coefficients[kint - 1])
        return matxv(X[:, cols], f.coefficients, kint)

    return X, y, k, kint, orig, orig_cols, refit, values, step_down


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

    try:
        p0 = run(X, y)
    except CalstatsError:
        raise
    except Exception as e:  # the model's own error (scikit-learn's spans lines): one line
        v.fail_model_fit(e)

    def refit(xrows, yrows, i):
        yy = y[yrows]
        if np.unique(yy).size < 2:
            return None
        try:
            return run(X[xrows], yy)
        except Exception as e:  # a resample the model cannot fit: R's efit
            errors.append((str(e).strip().splitlines() or [""])[0])
            return None

    return p0, refit, errors


def _check_common(B, method, seed):
    B = v.check_resamples(B, method)
    method = v.match_arg(method, list(METHODS), "method")
    v.check_seed_or_none(seed)
    return B, method


def _check_bw(bw, fit, rule, type, sls, aics):
    """``bw = TRUE``'s options (``lrm`` fits only); None without ``bw``."""
    if not v.check_flag(bw, "bw"):
        return None
    if not isinstance(fit, Lrm):
        v.fail_bw_needs_lrm()
    rule = v.match_arg(rule, ["aic", "p"], "rule")
    type = v.match_arg(type, ["residual", "individual"], "type")
    sls = v.check_interval(sls, "sls")
    aics = float(aics)
    return _BW(fit, rule, type, sls, aics)


def _divergence(failed, generic_errors=None):
    if failed:
        v.warn_resamples_failed(failed, generic_errors[-1] if generic_errors else None)


# --------------------------------------------------------------------------------------
# validate


def validate(fit: Any, B: int = 200, method: str = "boot", seed: Any = None, bw: bool = False, rule: str = "aic",
             type: str = "residual", sls: float = 0.05, aics: float = 0.0, *, X: Any = None, y: Any = None,
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
    bw : bool, default False
        rms' ``bw = TRUE``: fast backward step-down (``fastbw``) of the original model and of
        every resample's fit, each refitted on the factors it keeps; the result then has
        ``fastbw`` (the original model's step-down, R's printout during the call) and
        ``kept`` (the factors each resample kept). ``lrm`` fits only.
    rule, type, sls, aics
        ``fastbw``'s stopping rule (``"aic"`` or ``"p"``), ``"residual"`` or
        ``"individual"`` tests, the significance level for ``rule="p"`` and the AIC cutoff.
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

    An ``lrm`` fit holds no missing value (:func:`lrm` refuses them). For another model a
    missing value in ``y`` is refused in one line; missing values in ``X`` go to the
    model, which may take them (scikit-learn's ``HistGradientBoostingClassifier``) or
    refuse them (its error's first line, in one line).
    """
    B, method = _check_common(B, method, seed)
    bwo = _check_bw(bw, fit, rule, type, sls, aics)
    if isinstance(fit, Lrm):
        Xm, y_codes, k, kint, orig, cols, refit, values, step_down = _lrm_model(fit, 1e-12, bwo)
        dxy_method = "somers2" if k == 1 else "lrm"
        xb = matxv(Xm[:, cols], orig.coefficients, kint) if cols else np.full(y_codes.size, orig.coefficients[kint - 1])
        index_orig = discrim(xb, y_codes, orig, True, kint, dxy_method)
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
        step_down = None
    n = y_codes.size
    with rng._seeded(seed):
        res = predab_resample(n, refit, values, measure, index_orig, method, B)
    _divergence(res.failed, generic_errors)
    mat = np.column_stack([res.index_orig, res.training, res.test, res.optimism, res.index_corrected, res.n])
    e = emax(mat[2, 4], mat[3, 4], emax_lim)
    mat = np.vstack([mat[:4], [0.0, 0.0, e, e, e, mat[0, 5]], mat[4:]])
    frame = pd.DataFrame(mat, index=pd.Index(VALIDATE_ROWS), columns=pd.Index(VALIDATE_COLS))
    kept = None
    if bwo is not None:
        done = B - res.failed
        kept = pd.DataFrame(np.array(bwo.kept[:done], dtype=bool).reshape(done, len(bwo.names)),
                            columns=pd.Index(bwo.names))
    return Validation(frame, B, method, res.failed, kind, seed, step_down, kept)


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
    _extras = ("matrix", "B", "method", "failed", "model", "seed", "fastbw", "kept")
    matrix: pd.DataFrame
    B: int
    method: str
    failed: int
    model: str
    seed: Any
    fastbw: Any
    kept: pd.DataFrame | None

    def __init__(self, matrix, B, method, failed, model, seed, fastbw=None, kept=None):
        self._set_fields(matrix=matrix, B=B, method=method, failed=failed, model=model, seed=seed,
                         fastbw=fastbw, kept=kept)

    def print_text(self, digits: int = 4, B: int | None = None) -> str:
        """R's ``print(v, digits, B)`` (``print.validate``: the matrix rounded to ``digits``,
        then with ``bw=True`` the factors each resample kept, its first ``B`` rows)."""
        m = self.matrix
        cols = [[r_round(x, digits) if math.isfinite(x) else x for x in m[c].to_numpy()] for c in m.columns]
        lines = print_num_matrix(list(m.index), list(m.columns), cols)
        if self.kept is not None and len(self.kept) and (B is None or B > 0):
            lines += kept_lines(self.kept.to_numpy().tolist(), list(self.kept.columns), B)
        return "\n".join(lines) + "\n"

    def step_down_text(self) -> str:
        """What R prints during ``validate(fit, bw = TRUE)``: the original model's step-down
        (``print(fastbw(fit))``); empty without ``bw``."""
        return _step_down_text(self.fastbw)

    def as_frame(self) -> pd.DataFrame:
        """The matrix (a copy), indexes by row."""
        return self.matrix.copy()

    def _html_title(self):
        return f"Resampling validation ({self.method}, B={self.B})"

    def plot(self, ax: Any = None, indexes=("Dxy", "R2", "Slope", "B")) -> Any:
        """Apparent (``index.orig``) and optimism-corrected values of some indexes, one row
        each (matplotlib; R has no plot for this object). Returns the axes."""
        plt = pyplot("Validation.plot()")

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


def calibrate(fit: Any, B: int = 200, method: str = "boot", seed: Any = None, predy: Any = None,
              bw: bool = False, rule: str = "aic", type: str = "residual", sls: float = 0.05, aics: float = 0.0, *,
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
    bw, rule, type, sls, aics
        As for :func:`validate` (``fastbw`` in every resample; ``lrm`` fits only).
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

    An ``lrm`` fit holds no missing value (:func:`lrm` refuses them). For another model a
    missing value in ``y`` is refused in one line; missing values in ``X`` go to the
    model, which may take them (scikit-learn's ``HistGradientBoostingClassifier``) or
    refuse them (its error's first line, in one line).
    """
    B, method = _check_common(B, method, seed)
    bwo = _check_bw(bw, fit, rule, type, sls, aics)
    if isinstance(fit, Lrm):
        # the refits only predict (no statistics of theirs enter the curve)
        Xm, y_codes, k, kint, orig, cols, refit, values, step_down = _lrm_model(fit, 1e-13, bwo, summary=False)
        coef = fit.coefficients.to_numpy()
        predicted = plogis(fit.linear_predictors - coef[0] + coef[kint - 1])
        probs_of = lambda vals: plogis(vals)  # noqa: E731 - R's cal.error: x <- plogis(x)
        generic_errors = None
        orig_values = (matxv(Xm[:, cols], orig.coefficients, kint) if cols
                       else np.full(y_codes.size, orig.coefficients[kint - 1]))
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
        step_down = None
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
    call = ["fit = fit"]
    if predy is not None:
        call.append("predy = c(" + ", ".join(as_character(x) for x in grid) + ")")
    if method != "boot":
        call.append(f'method = "{method}"')
    call.append(f"B = {B}")
    if bwo is not None:
        call.append("bw = TRUE")
        opts = bwo.opts
        if opts["rule"] != "aic":
            call.append(f'rule = "{opts["rule"]}"')
        if opts["type"] != "residual":
            call.append(f'type = "{opts["type"]}"')
        if opts["sls"] != 0.05:
            call.append(f"sls = {as_character(opts['sls'])}")
        if opts["aics"] != 0:
            call.append(f"aics = {as_character(opts['aics'])}")
    return Calibration(frame, B, method, res.failed, kind, seed, predicted, yvar, lev_name, ns, n, step_down,
                       f"calibrate.default({', '.join(call)})")


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
               "non_slopes", "n", "fastbw", "call_text")
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

    fastbw: Any
    call_text: str

    def __init__(self, matrix, B, method, failed, model, seed, predicted, yvar, lev_name, non_slopes, n,
                 fastbw=None, call_text=""):
        self._set_fields(matrix=matrix, B=B, method=method, failed=failed, model=model, seed=seed,
                         predicted=predicted, yvar=yvar, lev_name=lev_name, non_slopes=non_slopes, n=n,
                         fastbw=fastbw, call_text=call_text)

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

    def print_text(self) -> str:
        """``rms:::print.calibrate.default``'s text (header, error summary, the matrix).

        R prints the matrix with ``print.default``, which then also dumps the object's
        attributes (``class``, ``call``, ``kint``, ... and the 200-odd ``predicted`` values);
        that dump is left out here: those values are this object's fields."""
        es = self.error_summary()
        if self.non_slopes == 1:
            lab = f"Pr{{{self.yvar}={self.lev_name}}}"
        else:
            lab = f"Pr{{{self.yvar}>={self.lev_name}}}"
        lines = ["", f"Estimates of Calibration Accuracy by {self.method} (B={self.B})", "",
                 self.call_text, "", f"Prediction of {lab} ", "", "",
                 f"n={es['n']}   Mean absolute error={format_one(r_round(es['mean_absolute_error'], 3))}"
                 f"   Mean squared error={format_one(r_round(es['mean_squared_error'], 5))}",
                 f"0.9 Quantile of absolute error={format_one(r_round(es['q90_absolute_error'], 3))}", ""]
        m = self.matrix
        lines += print_num_matrix(None, list(m.columns), [m[c].to_numpy() for c in m.columns])
        return "\n".join(lines) + "\n"

    def step_down_text(self) -> str:
        """What R prints during ``calibrate(fit, bw = TRUE)``: the original model's step-down
        (``print(fastbw(fit))``); empty without ``bw``."""
        return _step_down_text(self.fastbw)

    def as_frame(self) -> pd.DataFrame:
        """The calibration matrix (a copy)."""
        return self.matrix.copy()

    def _html_title(self):
        return f"Resampling-corrected calibration ({self.method}, B={self.B})"

    def plot(self, ax: Any = None, legend: bool = True, subtitles: bool = True, riskdist: bool = True) -> Any:
        """R's ``plot(cal)`` (``plot.calibrate.default``): the apparent curve (dotted), the
        bias-corrected curve (solid), the ideal line (dashed), the distribution of the
        predictions as spikes along the bottom, and R's subtitles. Returns the axes."""
        plt = pyplot("Calibration.plot()")

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


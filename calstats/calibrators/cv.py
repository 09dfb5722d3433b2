"""Out-of-fold calibration (R ``probcal::cal_cv``)."""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .. import rng
from .._call import records_call
from .._inputs import refuse_misnamed_columns
from .._options import map_tasks
from .._progress import check_progress, progress_bar
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.probs import prob_frame
from ..results._base import Calibrator
from . import registry
from .ovr import call_with_r_arguments, fit_calibrator

__all__ = ["cal_cv", "CalCv", "stratified_folds", "CV_METHODS"]

#: R's ``cal_cv(method=)`` choices (:data:`calstats.calibrators.registry.CAL_CV`).
CV_METHODS = registry.CAL_CV


def stratified_folds(labels, folds, seed=None):
    """probcal's stratified fold ids, drawn from R's random number stream.

    For each label value in increasing order (0 then 1; or codes 1..k), its positions are
    permuted by R's ``sample()`` and dealt to folds 1, 2, ..., folds, 1, 2, ... . With a
    ``seed`` the global stream is seeded as ``set.seed(seed)`` and restored afterwards;
    with ``seed=None`` the global stream is consumed, as R does. Positions with a missing
    label keep fold 0.
    """
    labels = np.asarray(labels)
    present = labels[~np.isnan(labels)] if labels.dtype.kind == "f" else labels
    fold = np.zeros(labels.size, dtype=np.int64)
    with rng._seeded(seed):
        for value in np.unique(present):
            idx = np.flatnonzero(labels == value) + 1
            perm = np.asarray(rng.sample(idx), dtype=np.int64)
            fold[perm - 1] = np.arange(perm.size) % folds + 1
    return fold


def _fit_multiclass(method, x, y, weights=None, **kwargs):
    """probcal's ``fit_calibrator_mc`` (plus case ``weights``, not R's): temperature and
    vector scaling drop R's ``...``; dirichlet takes them; ovr takes ``base_method`` as its
    ``method`` (default platt) and passes the rest to the binary calibrator."""
    m = registry.method(method)
    fn = m.function()
    if m.name == "ovr":
        kwargs = dict(kwargs)
        base = kwargs.pop("base_method", None)
        return fn(x, y, method=base if base is not None else "platt", weights=weights, **kwargs)
    if not m.dots:
        return fn(x, y, weights=weights)
    extra = dict(kwargs, weights=weights) if weights is not None else kwargs
    return call_with_r_arguments(fn, {"p": x, "y": y}, extra)


class CalCv(Calibrator):
    """Cross-validated calibration: out-of-fold predictions plus a final calibrator.

    Attributes
    ----------
    calibration_method : str
    folds : int
    fold_id : ndarray of int
        1-based fold of each observation (0 for a missing label).
    oof_predictions : ndarray or DataFrame
        Out-of-fold calibrated probabilities (a DataFrame with columns ``levels`` for
        multiclass input).
    fold_calibrators : list of Calibrator
        The calibrator fitted without each fold.
    final_calibrator : Calibrator
        Fitted on all observations; ``predict`` uses it.
    """

    r_class: tuple[str, ...] = ("cal_cv", "calibrator")
    _r_fields: tuple[str, ...] = ("method", "n", "input", "calibration_method", "folds", "fold_id", "oof_predictions",
                 "fold_calibrators", "final_calibrator", "call")

    calibration_method: str
    folds: int
    fold_id: np.ndarray
    oof_predictions: Any
    fold_calibrators: list[Calibrator]
    final_calibrator: Calibrator

    def predict(self, newdata: Scores, **kwargs: Any) -> np.ndarray | pd.DataFrame:
        """R: ``predict(fit, newdata, ...)`` = ``predict(fit$final_calibrator, newdata, ...)``."""
        return self.final_calibrator.predict(newdata, **kwargs)

    def _parameter_items(self):
        return [("CalibrationMethod", self.calibration_method), ("Folds", str(self.folds))]

    # the coefficient table is the final calibrator's
    def _has_coef_table(self):
        return self.final_calibrator._has_coef_table()

    def _coef_table(self, x, y):
        return self.final_calibrator.coef_table(x, y)


class CalCvMulticlass(CalCv):
    r_class = ("cal_cv", "cal_multiclass", "calibrator")
    _r_fields = CalCv._r_fields[:-1] + ("k", "levels", "call")


@records_call("cal_cv")
def cal_cv(x: Scores, y: Labels, method: str = "platt", folds: int = 5, seed: int | None = None, *,
           progress: bool | None = None, weights: Weights = None, **kwargs: Any) -> CalCv:
    """Out-of-fold calibration with R's stratified folds.

    Parameters
    ----------
    x : array_like
        A vector of scores/probabilities (binary) or a matrix with one column per class.
    y : array_like
        0/1 labels (binary) or class codes 1..k / a factor (multiclass).
    method : str
        ``"platt"``, ``"temperature"``, ``"beta"``, ``"isotonic"``, ``"histogram"`` for a
        vector ``x``; ``"temperature"``, ``"vector"``, ``"dirichlet"``, ``"ovr"`` for a matrix.
    folds : int
        Number of folds (at least 2, at most the smallest class count).
    seed : int, optional
        Seed for the fold assignment, as R's ``set.seed``; the global stream of
        :mod:`calstats.rng` is restored afterwards. ``None`` consumes the global stream.
    progress : bool, optional, keyword-only
        Not in R. A progress bar over the folds: ``None`` shows one in a terminal or
        notebook once the work has run for two seconds, ``True`` always, ``False`` never.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal): each fold's calibrator and the final one are
        weighted fits; the folds are R's, from the labels.
    **kwargs
        Passed on as R's ``...``: to beta/histogram (binary), dirichlet/ovr (multiclass;
        ``base_method`` chooses the ovr method).

    The methods and what each takes: :mod:`calstats.calibrators.registry` (scikit-learn's
    ``"sigmoid"`` is also taken for ``"platt"``, which R does not).

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalCv

    Notes
    -----
    R equivalent: ``probcal::cal_cv(x, y, method, folds = 5, seed = NULL, ...)``. Same
    checks, fold ids (R's Mersenne-Twister via :mod:`calstats.rng`), fits and oddities: the
    fold calibrators of a multiclass fit receive integer codes, not the factor, so a factor
    whose last level is unused fails in the first fold with R's class-count message.
    """
    method = registry.resolve(method, CV_METHODS)
    check_progress(progress)
    if v.is_matrix(x):
        return _cv_multiclass(x, y, method, folds, seed, kwargs, progress, weights)
    return _cv_binary(x, y, method, folds, seed, kwargs, progress, weights)


def _cv_binary(x, y, method, folds, seed, kwargs, progress=None, weights=None):
    if registry.method(method).matrix_only:
        v.fail_matrix_method(method)
    takes = registry.method(method).takes
    xv = v.check_prob(x, "x") if takes == "probabilities" else v.check_numeric(x, "x")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("x", "y", xv.size, yv.size)
    folds = v.check_folds(folds, yv)
    w = check_weights(weights, xv.size)
    fold_id = stratified_folds(yv, folds, seed)

    with progress_bar(folds + 1, f"cal_cv ({method})", progress) as bar:
        fold_cals, oof = _out_of_fold(lambda a, b, wt: fit_calibrator(method, a, b, weights=wt, **kwargs), xv, yv,
                                      fold_id, folds, (xv.size,), threaded=False, bar=bar, weights=w)
        final = fit_calibrator(method, xv, yv, weights=w, **kwargs)
        bar.update(1)
    out = CalCv(
        method="cross-validated " + final.method, n=int(xv.size), input=final.input,
        calibration_method=method, folds=int(folds), fold_id=fold_id, oof_predictions=oof,
        fold_calibrators=fold_cals, final_calibrator=final, call=None,
    )
    return out


def _out_of_fold(fit, x, labels, fold_id, folds, shape, threaded, bar=None, weights=None):
    """Fit ``fit(x, labels)`` without each fold and predict that fold.

    Returns the fold calibrators and the out-of-fold predictions (array of ``shape``).
    """

    def fit_fold(f):
        train = fold_id != f
        cal = fit(x[train], labels[train], None if weights is None else weights[train])
        return cal, np.asarray(cal.predict(x[fold_id == f]), dtype=np.float64)

    fold_range = range(1, folds + 1)
    if threaded:
        results = map_tasks(fit_fold, fold_range, bar=bar)
    else:
        results = []
        for f in fold_range:
            results.append(fit_fold(f))
            if bar is not None:
                bar.update(1)
    oof = np.zeros(shape)
    for f, (_, pred) in enumerate(results, start=1):
        oof[fold_id == f] = pred
    return [cal for cal, _ in results], oof


def _cv_multiclass(x, y, method, folds, seed, kwargs, progress=None, weights=None):
    m = registry.method(method)
    if m.binary_only:
        v.fail_vector_method(method)
    if m.takes == "logits":
        X = v.check_logit_matrix(x, "x")
    elif m.takes == "probabilities":
        X = v.check_prob_matrix(x, "x")
    else:
        vec = v.as_vec(x)
        X = np.array(vec.values, dtype=np.float64) if vec.kind == "numeric" else None
        if X is None or vec.na.any() or not np.isfinite(X).all():
            v.fail_not_finite_matrix("x")
    codes, levels, k = v.check_matrix_labels(X, y, "x")
    refuse_misnamed_columns(x, y, "x")
    folds = v.check_folds(folds, codes)
    w = check_weights(weights, X.shape[0])
    fold_id = stratified_folds(codes, folds, seed)

    with progress_bar(folds + 1, f"cal_cv ({method})", progress) as bar:
        fold_cals, oof = _out_of_fold(lambda a, b, wt: _fit_multiclass(method, a, b, weights=wt, **kwargs), X,
                                      codes, fold_id, folds, (X.shape[0], k), threaded=m.quiet,
                                      bar=bar, weights=w)
        final = _fit_multiclass(method, X, y, weights=w, **kwargs)
        bar.update(1)
    out = CalCvMulticlass(
        method="cross-validated " + final.method, n=int(X.shape[0]), input=final.input,
        calibration_method=method, folds=int(folds), fold_id=fold_id,
        oof_predictions=prob_frame(oof, levels, like=x), fold_calibrators=fold_cals,
        final_calibrator=final, k=int(k), levels=list(levels), call=None,
    )
    return out

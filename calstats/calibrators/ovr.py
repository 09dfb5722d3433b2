"""One-vs-rest calibration (R ``probcal::cal_ovr``) and the binary-calibrator dispatch
shared with :func:`calstats.cal_cv`."""

import inspect
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._inputs import refuse_misnamed_columns
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.probs import prob_frame, renormalize_rows
from ..results._base import Calibrator
from . import registry

__all__ = ["cal_ovr", "CalOvr", "fit_calibrator", "BINARY_METHODS"]

#: R's ``cal_ovr(method=)`` choices (:data:`calstats.calibrators.registry.CAL_OVR`).
BINARY_METHODS = registry.CAL_OVR


def call_with_r_arguments(fn, positional, kwargs):
    """Call ``fn`` as R would: keyword arguments it lacks raise R's ``unused argument`` error."""
    params = inspect.signature(fn).parameters
    unknown = {("lambda" if k == "lambda_" else k): val for k, val in kwargs.items() if k not in params}
    v.unused_arguments(unknown)
    return fn(**positional, **kwargs)


def fit_calibrator(method, x, y, weights=None, **kwargs):
    """probcal's ``fit_calibrator``: one binary calibrator. Only the methods that take R's
    ``...`` (beta and histogram) receive the extra arguments; platt, temperature and
    isotonic drop them silently, as in R. Case ``weights`` (not R's) reach every method."""
    m = registry.method(method)
    fn = m.function()
    first = next(iter(inspect.signature(fn).parameters))  # x (platt), logits (temperature) or p
    if not m.dots:
        return fn(**{first: x}, y=y, weights=weights)
    extra = dict(kwargs, weights=weights) if weights is not None else kwargs
    return call_with_r_arguments(fn, {first: x, "y": y}, extra)


class CalOvr(Calibrator):
    """One binary calibrator per class, predictions renormalised to sum to one.

    Attributes
    ----------
    base_method : str
        The binary method (``"platt"``, ``"beta"``, ...).
    calibrators : list of Calibrator
        ``calibrators[j]`` calibrates column j against "class j versus the rest".
    k, levels : int, list of str
    """

    r_class = ("cal_ovr", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "base_method", "calibrators", "k", "levels", "call")
    # R fields, set by the constructor (declared for type checkers)
    calibrators: list[Any]

    def _parameter_items(self):
        return [("BaseMethod", self.base_method)]

    def predict(self, newdata: Scores, **kwargs: Any) -> pd.DataFrame:
        """Calibrate each column with its class's calibrator and renormalise each row.

        R: ``predict(fit, newdata)``. Rows need not sum to one; a row whose calibrated
        values are all zero becomes uniform. Returns a DataFrame with columns ``levels``.
        """
        if not v.is_matrix(newdata) or v.as_vec(newdata).kind != "numeric":
            v.fail_not_class_matrix("newdata")
        x = np.asarray(v.as_vec(newdata).values, dtype=np.float64)
        v.check_ncol(x.shape[1], self.k)
        cols = [np.asarray(cal.predict(x[:, j]), dtype=np.float64) for j, cal in enumerate(self.calibrators)]
        return prob_frame(renormalize_rows(np.column_stack(cols)), self.levels, like=newdata)


@records_call("cal_ovr")
def cal_ovr(x: Scores, y: Labels, method: str = "platt", *, weights: Weights = None, **kwargs: Any) -> CalOvr:
    """One-vs-rest calibration: a binary calibrator per class column.

    Parameters
    ----------
    x : array_like or DataFrame (n, k)
        Scores, logits or probabilities, one column per class (rows need not sum to one).
    y : array_like of int, pandas.Categorical or Factor
        Class codes 1..k or a factor whose levels name the columns; every class must occur.
    method : {"platt", "beta", "isotonic", "histogram", "temperature"}
        The binary calibrator (partial matching as R's ``match.arg``; also scikit-learn's
        ``"sigmoid"`` for ``"platt"``, not R's).
    **kwargs
        Passed to ``cal_beta`` (``eps``) or ``cal_histogram`` (``bins``, ``strategy``);
        ignored by the other methods, as in R.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal), passed to every per-class calibrator.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalOvr

    Notes
    -----
    R equivalent: ``probcal::cal_ovr(x, y, method, ...)``, with the same checks and messages.
    """
    method = registry.resolve(method, BINARY_METHODS)
    if not v.is_matrix(x) or v.as_vec(x).kind != "numeric":
        v.fail_not_class_matrix("x")
    vec = v.as_vec(x)
    X = np.array(vec.values, dtype=np.float64)
    v.check_two_columns(X.shape[1], "x")
    if vec.na.any() or not np.isfinite(X).all():
        v.fail_missing_or_infinite("x")
    codes, levels, k = v.check_multiclass_y(y, X.shape[1])
    refuse_misnamed_columns(x, y, "x")
    v.check_nobs("x", "y", X.shape[0], codes.size)
    if registry.method(method).takes == "probabilities" and ((X < 0) | (X > 1)).any():
        v.fail_method_probabilities("x", method)
    v.check_every_class(codes, k)
    w = check_weights(weights, X.shape[0])
    calibrators = [fit_calibrator(method, X[:, j], (codes == j + 1).astype(np.int64), weights=w, **kwargs)
                   for j in range(k)]
    out = CalOvr(
        method="one-vs-rest " + calibrators[0].method, n=int(X.shape[0]),
        input=registry.method(method).input_text + " (matrix)", base_method=method, calibrators=calibrators,
        k=int(k), levels=list(levels), call=None,
    )
    return out

"""Multi-label calibration: one binary calibrator per label.

In a multi-label problem each of ``L`` labels may apply or not, independently of the
others, and a model gives one probability (or score) per label. Each label is then its own
binary problem: column ``j`` of the scores is calibrated against column ``j`` of the 0/1
label matrix, with no renormalisation across the labels (their probabilities need not sum
to one). The metrics read the same layout: ``calstats.ece(p, Y, average=...)``,
``calstats.brier_score``, ``calstats.log_loss`` (:mod:`calstats.evaluation.multilabel`).
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._typing import Scores, Weights
from .._weights import check_weights
from ..evaluation.multilabel import label_matrix
from ..results._base import Calibrator
from .ovr import BINARY_METHODS, fit_calibrator

__all__ = ["cal_multilabel", "CalMultilabel"]


class CalMultilabel(Calibrator):
    """One binary calibrator per label (not an R class; ``r_class`` is
    ``("cal_multilabel", "calibrator")``).

    Attributes
    ----------
    base_method : str
        The binary method (``"platt"``, ``"beta"``, ``"isotonic"``, ...).
    calibrators : list of Calibrator
        ``calibrators[j]`` calibrates column j against label j.
    k : int
        The number of labels.
    levels : list of str
        The label names (a DataFrame's columns, else ``"1"``, ``"2"``, ...).
    """

    r_class = ("cal_multilabel", "calibrator")
    _r_fields = ("method", "n", "input", "base_method", "calibrators", "k", "levels", "call")
    calibrators: list[Any]
    base_method: str

    def _header_items(self):
        items = [f"Method: {self.method}", f"Observations: {self.n}", f"Input: {self.input}",
                 f"Labels: {self.k}"]
        return items

    def _parameter_items(self):
        return [("BaseMethod", self.base_method), ("Labels", ", ".join(self.levels))]

    def predict(self, newdata: Scores, **kwargs: Any) -> Any:
        """Calibrate each column with its label's calibrator (no renormalisation).

        Parameters
        ----------
        newdata : array_like or DataFrame (m, L)
            Scores or probabilities, one column per label, as fitted.

        Returns
        -------
        numpy.ndarray or pandas.DataFrame
            The m x L calibrated probabilities; a DataFrame (columns ``levels``, the input's
            index) for a DataFrame ``newdata``.
        """
        if not v.is_matrix(newdata) or v.as_vec(newdata).kind != "numeric":
            v.fail_not_label_matrix("newdata")
        x = np.asarray(v.as_vec(newdata).values, dtype=np.float64)
        v.check_ncol(x.shape[1], self.k)
        out = np.column_stack([np.asarray(cal.predict(x[:, j]), dtype=np.float64).ravel()
                               for j, cal in enumerate(self.calibrators)])
        if isinstance(newdata, pd.DataFrame):
            return pd.DataFrame(out, columns=list(self.levels), index=newdata.index)
        return out


@records_call("cal_multilabel")
def cal_multilabel(p: Scores, Y: Any, method: str = "platt", *, weights: Weights = None,
                   **kwargs: Any) -> CalMultilabel:
    """Multi-label calibration: a binary calibrator fitted to each label.

    Parameters
    ----------
    p : array_like or DataFrame (n, L)
        Each label's score or probability (sigmoid outputs, logits for ``"platt"`` and
        ``"temperature"``); rows need not sum to one.
    Y : array_like or DataFrame (n, L)
        The 0/1 (or boolean) label matrix: ``Y[i, j] = 1`` when label j applies to row i
        (several labels, or none, per row). Every label needs both values.
    method : {"platt", "beta", "isotonic", "histogram", "temperature"}
        The binary calibrator of each label, as :func:`calstats.cal_ovr` takes it.
    weights : array_like, optional, keyword-only
        Case weights (one per row), passed to every label's calibrator.
    **kwargs
        Passed to ``cal_beta`` (``eps``) or ``cal_histogram`` (``bins``, ``strategy``), as
        in :func:`calstats.cal_ovr`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalMultilabel
        ``predict(newdata)`` gives the calibrated n x L probabilities.

    Notes
    -----
    Unlike :func:`calstats.cal_ovr` (exclusive classes, rows renormalised to sum to one),
    the labels stay separate problems. R has no multi-label calibrator; among Python peers,
    netcal's multi-label handling applies a softmax across the labels, which treats them
    as exclusive classes. Label j's checks and messages are those of the binary method
    applied to column j (``x``/``p`` and ``y``).
    """
    method = v.match_arg(method, BINARY_METHODS)
    P, Yv, names = label_matrix(p, Y, "p", "Y")
    if not np.issubdtype(np.asarray(P).dtype, np.number):
        v.fail_not_label_matrix("p")
    P = np.asarray(P, dtype=np.float64)
    w = check_weights(weights, P.shape[0])
    calibrators = [fit_calibrator(method, P[:, j], np.asarray(Yv[:, j]), weights=w, **kwargs)
                   for j in range(P.shape[1])]
    return CalMultilabel(method="multi-label " + calibrators[0].method, n=int(P.shape[0]),
                         input=calibrators[0].input + " (one column per label)", base_method=method,
                         calibrators=calibrators, k=int(P.shape[1]), levels=list(names), call=None)

"""Multi-label metrics: each label its own binary problem.

A multi-label classifier gives, for each of ``L`` labels, the probability that the label
applies; the labels are not exclusive (a row of ``Y`` may hold several ones or none) and the
rows of ``p`` need not sum to one. Its calibration is that of ``L`` binary problems: column
``j`` of ``p`` against column ``j`` of ``Y``. :func:`calstats.ece`,
:func:`calstats.brier_score` and :func:`calstats.log_loss` read an n x L label matrix ``y``
this way and combine the labels as ``average`` says: ``None`` the per-label values,
``"macro"`` their mean, ``"micro"`` the binary metric of all ``n L`` (probability, label)
pairs pooled (column after column, R's ``as.vector``).

No Python peer computes this: netcal's multi-label ECE applies a softmax across the labels
(treating them as exclusive classes), and torchmetrics' ``multilabel_*`` calibration
functions do not exist (its ``CalibrationError`` has no multi-label task).
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from .._frames import native
from .._validate import check_ncol, check_nobs, fail_label_matrix_empty, is_matrix, match_arg
from ..numerics.reductions import rmean

__all__ = ["MULTILABEL_AVERAGES", "is_label_matrix", "label_matrix", "multilabel_metric"]

#: ``average`` of a multi-label metric (``None``, the per-label values, is also accepted).
MULTILABEL_AVERAGES = ("macro", "micro")


def is_label_matrix(p, y):
    """Whether ``y`` is an n x L label matrix for the matrix ``p`` (a multi-label problem)."""
    return is_matrix(p) and is_matrix(y)


def _columns(x):
    """``(values, names)`` of a 2-D input: a DataFrame's columns keep their names."""
    x = native(x)  # polars, pyarrow, torch, ...: as pandas or NumPy
    names = [str(c) for c in x.columns] if hasattr(x, "columns") else None
    a = x.to_numpy() if hasattr(x, "to_numpy") else np.asarray(x)
    return a, names


def label_matrix(p, y, p_arg="p", y_arg="y"):
    """``(P, Y, names)``: the score matrix and the label matrix of a multi-label problem, the
    same shape (as many rows, one label per column). The columns' own checks (probabilities
    or scores, 0/1 labels) are left to the binary function each column goes to. ``names``
    are the label names (a DataFrame's columns, else ``"1"..."L"``)."""
    P, pnames = _columns(p)
    Y, ynames = _columns(y)
    if P.ndim != 2 or P.shape[1] < 1 or P.shape[0] < 1:
        fail_label_matrix_empty(p_arg)
    check_nobs(p_arg, y_arg, P.shape[0], Y.shape[0])
    check_ncol(Y.shape[1], P.shape[1], y_arg)
    names = pnames or ynames or [str(j + 1) for j in range(P.shape[1])]
    return P, Y, names


def check_average(average):
    """``average``: ``None`` (per label) or one of :data:`MULTILABEL_AVERAGES`."""
    return None if average is None else match_arg(average, MULTILABEL_AVERAGES, "average")


def multilabel_metric(binary: Callable[..., float], p: Any, y: Any, average: Any = "macro", weights: Any = None,
                      **kwargs: Any) -> Any:
    """``binary(p_j, y_j, weights=..., **kwargs)`` of every label ``j``, combined as
    ``average`` says: ``None`` an array of the L values, ``"macro"`` their (R) mean,
    ``"micro"`` ``binary`` of the pooled pairs (the weights repeated per label)."""
    average = check_average(average)
    P, Y, _names = label_matrix(p, y)
    if average == "micro":
        w = None if weights is None else np.tile(np.asarray(weights, dtype=np.float64).ravel(), P.shape[1])
        return binary(P.ravel(order="F"), Y.ravel(order="F"), weights=w, **kwargs)
    values = np.array([binary(P[:, j], Y[:, j], weights=weights, **kwargs) for j in range(P.shape[1])],
                      dtype=np.float64)
    return values if average is None else float(rmean(values))

"""The canonical parametrisation of a Dirichlet calibration map, and the change of the
confusion matrix a calibration map makes (Kull et al. 2019, "Beyond temperature scaling:
obtaining well-calibrated multiclass probabilities with Dirichlet calibration", NeurIPS).
Not in R's probcal.
"""

from collections import namedtuple

import numpy as np
import pandas as pd

from .. import _validate as v
from .._typing import Labels, Scores
from ..kernels.probs import softmax
from ..numerics import libm
from ..numerics.reductions import row_sums
from ..results._base import Calibrator

__all__ = ["canonical", "canonical_table", "confusion_change", "Canonical"]

#: ``canonical()`` result: ``A`` (K x K DataFrame, rows = output class, columns = input
#: class) and ``c`` (Series, the calibrated output at the centre of the simplex).
Canonical = namedtuple("Canonical", "A c")

#: The R classes whose map is ``softmax(W ln q + b)`` (matrix scaling read on ``z = ln q``).
_DIRICHLET_MAPS = ("cal_dirichlet", "cal_dirichlet_l2", "cal_matrix_scaling")


def canonical(fit: Calibrator) -> Canonical:
    """The canonical parametrisation ``(A, c)`` of a Dirichlet calibration map.

    For ``mu(q) = softmax(W ln q + b)`` (Kull et al. 2019, the poster's "canonical
    parametrisation"):

    * ``A = W - 1 m^T`` with ``m_l = min_k W_kl`` (each column's minimum subtracted, so
      ``A >= 0`` with a zero in every column);
    * ``c = mu(1/K, ..., 1/K) = softmax(b - ln(K) W 1)``, the calibrated output at the
      centre of the simplex;

    and ``mu(q) = softmax(A ln(K q) + ln c)`` for every ``q``. ``(A, c)`` is unique for the
    map. Moving the input from the centre towards vertex ``l`` along
    ``q(t) ∝ (1, ..., e^t, ..., 1)`` changes the calibrated logits by ``t A[:, l]``: the odds
    of class k against k' are multiplied by ``exp(t (A_kl - A_k'l))``.

    Parameters
    ----------
    fit : CalDirichlet, CalDirichletL2 or CalMatrixScaling
        For matrix scaling, ``(A, c)`` describe the map as a function of ``q`` when its
        logits are log-probabilities (``z = ln q``, log-softmax outputs): then
        ``softmax(W z + b)`` *is* a Dirichlet map. For logits ``z = ln q + s`` with a
        per-row offset ``s`` the map also depends on ``s`` unless the rows of ``W`` have
        equal sums, so a general logit map is not a map of ``q`` alone; its canonical view
        is the one given here, for log-probability logits.

    Returns
    -------
    Canonical
        Named tuple ``(A, c)``: ``A`` a K x K DataFrame (rows = output class, columns =
        input class, labelled by the levels), ``c`` a Series indexed by the levels.

    Raises
    ------
    CalstatsError
        "Canonical parameters are defined only for Dirichlet and matrix-scaling maps." for
        any other object (e.g. vector scaling, whose W is diagonal by construction).
    """
    if not isinstance(fit, Calibrator) or not any(fit.inherits(c) for c in _DIRICHLET_MAPS):
        v.fail_not_dirichlet()
    W = np.asarray(getattr(fit, "weight"), dtype=np.float64)
    b = np.asarray(getattr(fit, "bias"), dtype=np.float64)
    k = W.shape[0]
    A = W - W.min(axis=0)[None, :]
    c = softmax((b - libm.log(np.array([float(k)]))[0] * row_sums(W))[None, :])[0]
    idx = pd.Index(fit.levels, name="class")
    return Canonical(pd.DataFrame(A, index=idx, columns=pd.Index(fit.levels, name="input")),
                     pd.Series(c, index=pd.Index(fit.levels, name="class"), name="c"))


def confusion_change(fit: Calibrator, p: Scores, y: Labels) -> pd.DataFrame:
    """Change of the confusion matrix caused by a calibration map (Kull et al. 2019, Fig. 2c).

    ``C[k, l] = #{i: y_i = k, argmax fit.predict(p)_i = l} - #{i: y_i = k, argmax p_i = l}``
    (first maximum on ties, as R's ``max.col(ties.method = "first")``). Every row sums to 0; the trace is the
    change in the number of correct decisions.

    Parameters
    ----------
    fit : multiclass calibrator
        Any fitted calibrator whose ``predict`` accepts ``p`` (pass logits to a logit-based
        calibrator: the "before" decisions are then the argmax of the logits).
    p : array_like or DataFrame (n, k)
    y : array_like of int, pandas.Categorical or Factor

    Returns
    -------
    DataFrame
        K x K int64, rows = actual class, columns = predicted class (level labels).

    Notes
    -----
    Checks: ``fit.predict``'s own checks on ``p``, then the labels ``y`` (integer class codes from 1
    or a factor, ``fit.k`` classes) and the same number of observations in ``p`` and ``y``.
    """
    after = np.asarray(fit.predict(p), dtype=np.float64)
    codes, _levels, k = v.check_multiclass_y(y, fit.k)
    X = np.asarray(v.as_vec(p).values, dtype=np.float64)
    v.check_nobs("p", "y", X.shape[0], codes.size)
    before = np.argmax(X, axis=1)
    now = np.argmax(after, axis=1)
    C = np.zeros((k, k), dtype=np.int64)
    np.add.at(C, (codes - 1, now), 1)
    np.add.at(C, (codes - 1, before), -1)
    return pd.DataFrame(C, index=pd.Index(fit.levels, name="actual"),
                        columns=pd.Index(fit.levels, name="predicted"))


def canonical_table(fit):
    """The poster's K x (K + 1) display ``(A | c)`` of :func:`canonical` as one DataFrame."""
    A, c = canonical(fit)
    out = A.copy()
    out["c"] = c.to_numpy()
    return out

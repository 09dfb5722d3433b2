"""The evaluation measures of the Dirichlet-calibration poster (Kull et al., NeurIPS 2019):
Brier score, log-loss, confidence-ECE and classwise-ECE.

The ECEs are the R port's :func:`calstats.ece` (equal-width bins, R's arithmetic); the
Brier score and log-loss use R's long-double means and glibc's ``log``, in one compiled
pass over the probabilities (:mod:`calstats.numerics.passes`; no n x K temporaries; a
float32 matrix is read as it is). The NumPy functions ``_brier_numpy`` and
``_log_loss_numpy`` are its reference (``passes.BACKEND = "numpy"``) and give the same bits.
``engine="fast"`` sums the same terms pairwise in double (:func:`calstats.numerics.fast.score`).
"""

from typing import Any

import numpy as np

from .. import _validate as v
from .._inputs import refuse_misnamed_columns
from .._options import resolve_engine
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import on_dask
from ..kernels.probs import clip_loss_prob, multiclass_log_loss, one_hot
from ..numerics import fast, libm, passes
from ..numerics.reductions import rmean, row_sums, rsum
from .metrics import ece
from .multilabel import is_label_matrix, multilabel_metric

__all__ = ["brier_score", "log_loss", "confidence_ece", "classwise_ece"]


def _checked(p, y):
    """``ece()``'s checks: matrix: the probability matrix, the class labels, as many labels as rows;
    vector: the probabilities (finite, in [0, 1]), the 0/1 labels, equal lengths."""
    if v.is_matrix(p):
        # the passes only read P: no copy of a float64 matrix, a float32 one stays float32
        P = v.check_prob_matrix(p, "p", copy=False, keep_float32=True)
        codes, _levels, k = v.check_matrix_labels(P, y)
        refuse_misnamed_columns(p, y)
        return P, codes, k
    pv, yv = v.check_prob_and_labels(p, y, copy=False)
    return pv, np.asarray(yv, dtype=np.float64), None


def _wmean(e, w):
    """``sum(w * e) / sum(w)`` with R's long-double sums (``w`` checked weights)."""
    return float(rsum(w * np.asarray(e, dtype=np.float64)) / rsum(w))


def _brier_numpy(P, yy, k, w):
    """The reference of the Brier pass: ``rowSums((P - one_hot)^2)`` (or ``(p - y)^2``), then
    R's mean or the weighted mean (float32 widened first: the numbers of its float64 copy)."""
    P = np.asarray(P, dtype=np.float64)
    if k is None:
        e = (P - yy) ** 2
    else:
        d = P - one_hot(yy, k)
        e = row_sums(d * d)
    return float(rmean(e)) if w is None else _wmean(e, w)


def _log_loss_numpy(P, yy, k, w):
    """The reference of the log-loss pass (float32 widened first)."""
    P = np.asarray(P, dtype=np.float64)
    if w is not None:
        if k is None:
            q = clip_loss_prob(P)
            return -_wmean(yy * libm.log(q) + (1.0 - yy) * libm.log1p(-q), w)
        q = clip_loss_prob(P[np.arange(P.shape[0]), np.asarray(yy, dtype=np.int64) - 1])
        return -_wmean(libm.log(q), w)
    if k is None:
        q = clip_loss_prob(P)
        return float(-rmean(yy * libm.log(q) + (1.0 - yy) * libm.log1p(-q)))
    return float(multiclass_log_loss(P, yy))


_DOC_SCORE_ENGINE = """
    engine : {None, "r", "fast"}, keyword-only
        Not R's. ``"r"``: R's long-double sums, R's value to the last bit. ``"fast"``: the
        same terms summed pairwise in double on both cores (within 1e-13 relative of R's
        value). ``None`` (default): the ``engine`` option. Dask inputs always use R's
        arithmetic.
"""


_DOC_AVERAGE = """
    average : {"macro", "micro", None}, keyword-only, default "macro"
        Multi-label only: when ``y`` is an n x L 0/1 matrix (labels not exclusive) and ``p``
        the n x L matrix of each label's probability, every label is its own binary problem
        (:mod:`calstats.evaluation.multilabel`): ``None`` gives the L binary values,
        ``"macro"`` their mean, ``"micro"`` the value of all (probability, label) pairs
        pooled. Ignored otherwise. (netcal applies a softmax across the labels; no Python
        peer treats them as separate binary problems.)
"""

@on_dask("_metrics.brier_score")
def brier_score(p: Scores, y: Labels, *, weights: Weights = None, engine: str | None = None,
                average: str | None = "macro") -> Any:
    """Brier score (mean squared error of the probabilities; a proper scoring rule).

    Binary (``p`` a vector, ``y`` 0/1): ``(1/n) sum_i (p_i - y_i)^2``. Probability matrix:
    ``(1/n) sum_i sum_k (p_ik - 1{y_i = k})^2`` (range [0, 2]; for a two-column matrix this
    is twice the binary value). One of the "proper scoring rules" of the poster's
    evaluation (Kull et al. 2019).

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D) or an n x K probability matrix.
    y : array_like
        0/1 labels for a vector; class codes 1..K or a factor for a matrix.
    weights : array_like, optional, keyword-only
        Case weights (not R's): the weighted mean ``sum(w_i e_i) / sum(w)``; ``None`` is
        the plain mean, bit for bit.{engine}{average}
    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float

    Notes
    -----
    Validated like :func:`calstats.ece`. Sums are R's long-double ``rowSums``/``mean``.
    Dask arrays and DataFrames are summed block by block, never loaded whole
    (:mod:`calstats.dask`).
    """
    engine = resolve_engine(engine)
    if is_label_matrix(p, y):
        return multilabel_metric(brier_score, p, y, average, weights, engine=engine)
    P, yy, k = _checked(p, y)
    w = check_weights(weights, P.shape[0])
    kind = passes.BRIER_BINARY if k is None else passes.BRIER_MATRIX
    if engine == "fast":
        return fast.score(kind, P, yy, w)
    if passes.BACKEND == "c":
        return passes.score(kind, P, yy, w)
    return _brier_numpy(P, yy, k, w)


@on_dask("_metrics.log_loss")
def log_loss(p: Scores, y: Labels, *, weights: Weights = None, engine: str | None = None,
             average: str | None = "macro") -> Any:
    """Log-loss (mean negative log-likelihood), probabilities clipped to [1e-15, 1 - 1e-15].

    Binary: ``-(1/n) sum_i [y_i ln p*_i + (1 - y_i) ln(1 - p*_i)]``; matrix:
    ``-(1/n) sum_i ln p*_{i, y_i}`` (the R port's ``multiclass_log_loss``). The poster's
    second proper scoring rule (Kull et al. 2019).

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D) or an n x K probability matrix.
    y : array_like
        0/1 labels for a vector; class codes 1..K or a factor for a matrix.

    weights : array_like, optional, keyword-only
        Case weights (not R's): the weighted mean; ``None`` is the plain mean, bit for bit.{engine}{average}
    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float

    Notes
    -----
    Dask arrays and DataFrames are summed block by block (:mod:`calstats.dask`).
    """
    engine = resolve_engine(engine)
    if is_label_matrix(p, y):
        return multilabel_metric(log_loss, p, y, average, weights, engine=engine)
    P, yy, k = _checked(p, y)
    w = check_weights(weights, P.shape[0])
    kind = passes.LOGLIK_BINARY if k is None else passes.LOGLIK_MATRIX
    if engine == "fast":
        return -fast.score(kind, P, yy, w)
    if passes.BACKEND == "c":
        return -passes.score(kind, P, yy, w)
    return _log_loss_numpy(P, yy, k, w)


def confidence_ece(p: Scores, y: Labels, bins: int | str = 10, *, weights: Weights = None, strategy: str = "uniform",
                   breaks: Any = None, right: bool = False, engine: str | None = None, norm: str = "l1") -> float:
    """Confidence-ECE of the poster: ``sum_i (|B_i|/n) |acc(B_i) - conf(B_i)|``.

    The bins ``B_i`` are equal-width bins of the top-label confidence (first maximal
    column); ``acc`` is the share of correct top labels, ``conf`` the mean confidence
    (Kull et al. 2019, "confidence-ECE"). Identical to
    ``calstats.ece(p, y, bins, type="confidence")``; for a probability vector it is the
    binary ECE.

    Parameters
    ----------
    p : array_like
        n x K probability matrix (or a binary probability vector).
    y : array_like
        Class codes 1..K or a factor (0/1 labels for a vector).
    bins : int or {"sqrt", "sturges", "cube_root"}, default 10
        Equal-width bins on [0, 1] (the paper used 15), or a rule for their number.
    weights : array_like, optional, keyword-only
        Case weights, as in :func:`calstats.ece` (weighted bin means and counts).
    strategy, breaks, right, engine, norm : keyword-only
        Equal-mass bins, explicit edges, right-closed bins, the fast engine, the norm
        (``"l1"``, ``"l2"``, ``"max"``, as torchmetrics' ``CalibrationError``): as in
        :func:`calstats.ece`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
    """
    return float(ece(p, y, bins=bins, type="confidence", weights=weights, strategy=strategy, breaks=breaks, right=right,
                     engine=engine, norm=norm))


def classwise_ece(p: Scores, y: Labels, bins: int | str = 10, *, weights: Weights = None, strategy: str = "uniform",
                  breaks: Any = None, right: bool = False, engine: str | None = None, norm: str = "l1") -> float:
    """Classwise-ECE of the poster:
    ``(1/K) sum_j sum_i (|B_ij|/n) |mean(1{y = j} in B_ij) - mean(p_j in B_ij)|``.

    For each class j the one-vs-rest ECE of column j over equal-width bins, averaged over
    the K classes (Kull et al. 2019, "classwise-ECE").
    Identical to ``calstats.ece(p, y, bins, type="classwise")``; for a probability vector it
    is the binary ECE.

    Parameters
    ----------
    p : array_like
        n x K probability matrix (or a binary probability vector).
    y : array_like
        Class codes 1..K or a factor (0/1 labels for a vector).
    bins : int or {"sqrt", "sturges", "cube_root"}, default 10
        Equal-width bins on [0, 1] (the paper used 15), or a rule for their number.
    weights : array_like, optional, keyword-only
        Case weights, as in :func:`calstats.ece` (weighted bin means and counts).
    strategy, breaks, right, engine, norm : keyword-only
        Equal-mass bins, explicit edges, right-closed bins, the fast engine, the norm
        (``"l1"``, ``"l2"``, ``"max"``, as torchmetrics' ``CalibrationError``): as in
        :func:`calstats.ece`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
    """
    return float(ece(p, y, bins=bins, type="classwise", weights=weights, strategy=strategy, breaks=breaks, right=right,
                     engine=engine, norm=norm))


for _f in (brier_score, log_loss):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = _f.__doc__.replace("{engine}", _DOC_SCORE_ENGINE).replace("{average}", _DOC_AVERAGE)
del _f

"""Matrix scaling (MS-ODIR) and Dirichlet calibration with plain L2 (Dir-L2).

Kull, Perello Nieto, Kängsepp, Silva Filho, Song and Flach (2019), "Beyond temperature
scaling: obtaining well-calibrated multiclass probabilities with Dirichlet calibration"
(NeurIPS 2019). Every member of the family maps an input vector ``x``
to ``softmax(W x + b)``; the fits share probcal's penalised multinomial fitter and its
cross-validated choice of lambda (:mod:`calstats.calibrators._multinomial`), so with the ODIR penalty
and ``mu = lambda`` matrix scaling is ``probcal:::fit_multinomial`` run on logits. The
canonical view of the maps is :mod:`calstats.calibrators.canonical`.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._inputs import refuse_misnamed_columns, warn_if_probabilities
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.probs import prob_frame
from ..numerics.rformat import round_text
from ..results._base import Calibrator
from ._multinomial import (
    LAMBDA_GRID,
    MultinomialCoefTable,
    MultinomialUncertainty,
    check_optimizer,
    fit_multinomial,
    optimizer_fields,
    predict_multinomial,
    select_lambda,
    uncertainty_args,
)
from .canonical import Canonical, canonical, canonical_table
from .dirichlet import CalDirichlet, dirichlet_inputs
from .scaling import _multiclass_newdata

__all__ = ["cal_matrix_scaling", "cal_dirichlet_l2", "CalMatrixScaling", "CalDirichletL2"]

PENALTIES = ("odir", "l2")


# --------------------------------------------------------------------------------------
# MS-ODIR


class CalMatrixScaling(MultinomialCoefTable, MultinomialUncertainty, Calibrator):
    """A fitted matrix-scaling map ``softmax(W z + b)`` on logits (R-style class
    ``cal_matrix_scaling``).

    Attributes
    ----------
    weight : ndarray (k, k)
        ``W``; row j gives the calibrated logit of class j.
    bias : ndarray (k,)
        ``b``.
    lambda_, mu : float
        Penalty strengths on the weights (off-diagonal for ODIR, all for L2) and on the
        intercepts (unnormalised, probcal's scaling; see :func:`cal_matrix_scaling`).
    penalty : {"odir", "l2"}
    selection : DataFrame or None
        The cross-validation table (lambda, held-out loss per fold, mean) when lambda was
        selected.
    value, convergence : float, int
        Penalised objective at the optimum and R's optim code (0 converged, 1 maxit).
    k, levels : int, list of str
    """

    r_class = ("cal_matrix_scaling", "cal_multiclass", "calibrator")
    # R-style fields
    weight: np.ndarray
    bias: np.ndarray
    lambda_: float
    mu: float
    penalty: str
    selection: pd.DataFrame | None
    value: float
    convergence: int
    # not R fields: the optimiser's counts and trace, and the training data and case weights
    # for coef_table() and predict(se_fit=True)
    counts: Any
    optimizer: str
    grad_norm: float
    iterations: Any
    _r_fields = ("method", "n", "input", "weight", "bias", "lambda", "mu", "penalty", "selection", "value",
                 "convergence", "k", "levels", "call")
    _extras: tuple[str, ...] = ("counts", "optimizer", "grad_norm", "iterations", "_coef_data", "_fit_weights")
    _summary_details = True
    _features = "logits"

    @property
    def coef(self):
        """``{"weight": W, "bias": b}`` (not an R field)."""
        return {"weight": self.weight, "bias": self.bias}

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> pd.DataFrame:
        """Calibrated probabilities ``softmax(newdata W^T + b)``, optionally with their
        delta-method uncertainty.

        ``newdata`` is a logit matrix with ``k`` columns (checked as ``predict`` of
        ``cal_vector_scaling``). Returns a DataFrame whose columns are ``levels``.
        ``se_fit``, ``interval`` and ``level`` are those of :meth:`CalDirichlet.predict`
        (the logit of each class's probability, its standard error, the Wald interval
        mapped through the inverse logit); the covariance of ``(W, b)`` is the inverse of
        the Hessian of the penalised objective on the summed scale (``2 n lambda`` on the
        penalised weights, ``2 n mu`` on the intercepts; an unpenalised block holds class
        1's copy fixed).
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        z = _multiclass_newdata(newdata, self.k)
        out = prob_frame(predict_multinomial(z, self.weight, self.bias), self.levels, like=newdata)
        if not wanted:
            return out
        return self._uncertainty_frame(z, out.to_numpy(), newdata, se_fit, interval, level)

    def canonical(self) -> "Canonical":
        """The canonical parametrisation ``(A, c)`` of the map read as a function of ``q``
        for logits ``z = ln q`` (see :func:`calstats.canonical`)."""
        return canonical(self)

    def _summary_notes(self):
        if self.lambda_ == 0 or self.mu == 0:
            return ["with a zero penalty W and b are not identified; only the probabilities are."]
        return []

    def _parameter_items(self):
        return [("Penalty", self.penalty), ("Lambda", round_text(self.lambda_)), ("Mu", round_text(self.mu))]

    def _parameter_tables(self):
        idx = pd.Index(self.levels, name="class")
        out = {
            "weight": pd.DataFrame(self.weight, index=idx, columns=[f"z[{lv}]" for lv in self.levels]),
            "bias": pd.DataFrame({"bias": self.bias}, index=idx),
        }
        if self.penalty == "odir":
            # Kull et al. normalise ODIR by the number of terms: lambda/(K(K-1)), mu/K.
            out["penalty"] = pd.DataFrame({"calstats": [self.lambda_, self.mu],
                                           "paper": [self.lambda_ * self.k * (self.k - 1), self.mu * self.k]},
                                          index=pd.Index(["lambda", "mu"], name="penalty"))
        out["fit"] = pd.DataFrame({"value": [self.value], "convergence": [self.convergence]})
        table = canonical_table(self)
        table.attrs["note"] = "canonical (A | c) of the map read as a function of q for logits z = ln q"
        out["canonical (A | c)"] = table
        if self.selection is not None:
            out["selection"] = self.selection
        return out


def _check_mu(mu):
    return v.check_null_or_nonnegative(mu, "mu")


def _selection_frame(grid, scores, folds):
    if scores is None:
        return None
    out = pd.DataFrame({"lambda": list(grid)})
    for j in range(folds.shape[1]):
        out[f"fold_{j + 1}"] = folds[:, j]
    out["score"] = scores
    return out


def _fit_family(U, codes, k, lam, mu, penalty, optimizer="bfgs", weights=None):
    """Lambda selection (when ``lam`` is None) and the final fit, shared by MS and Dir-L2."""
    selection = None
    if lam is None:
        lam, scores, folds = select_lambda(U, codes, k, penalty=penalty, mu=mu, return_folds=True,
                                           optimizer=optimizer, weights=weights)
        selection = _selection_frame(LAMBDA_GRID, scores, folds)
    fit = fit_multinomial(U, codes, k, lam, penalty, mu=mu, optimizer=optimizer, weights=weights)
    return float(lam), fit, selection


@records_call("cal_matrix_scaling")
def cal_matrix_scaling(logits: Scores, y: Labels, lambda_: float | None = None, mu: float | None = None,
                       penalty: str = "odir", *, optimizer: str = "bfgs", weights: Weights = None) -> CalMatrixScaling:
    """Matrix scaling with off-diagonal and intercept regularisation (MS-ODIR).

    Fits ``q = softmax(W z + b)`` on logits ``z`` (Kull et al. 2019, the "MS-ODIR" row of
    their tables) by minimising

    ``F(W, b) = -(1/n) sum_i log clip(q_{i,y_i}) + lambda * P(W) + mu * sum_k b_k^2``

    with ``P(W) = sum_{k != l} W_kl^2`` (ODIR) or ``sum_{k,l} W_kl^2`` (L2), by R's BFGS
    from ``W = I``, ``b = 0`` (maxit 500), exactly as probcal's internal fitter.

    Parameters
    ----------
    logits : array_like or DataFrame (n, k)
        Uncalibrated logits (finite reals), one column per class.
    y : array_like of int, pandas.Categorical or Factor
        Class codes 1..k or a factor whose levels name the columns.
    lambda_ : float, optional
        Penalty on the weights (R-style name ``lambda``). ``None`` selects it from
        ``(0, 1e-4, 1e-3, 1e-2, 1e-1)`` by probcal's deterministic stratified folds (at most
        three; 1e-3 when the smallest class has one member).
    mu : float, optional
        Penalty on the intercepts; ``None`` uses the value of ``lambda_`` (also during the
        selection).
    penalty : {"odir", "l2"}
        ODIR spares the diagonal of ``W``; L2 penalises every weight.
    optimizer : {"bfgs", "newton"}, keyword-only
        R's BFGS (default) or the exact optimiser; see :func:`calstats.cal_dirichlet`.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal): non-negative, finite, not all zero, one per
        observation. The fit (and the lambda search's held-out loss) use the weighted mean
        log-likelihood; the folds stay those of the labels. ``None`` is R's fit, bit for bit.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalMatrixScaling

    Notes
    -----
    The penalties are unnormalised sums (probcal's scaling). The paper's definition of ODIR
    divides by the number of terms: its ``lambda_paper``, ``mu_paper`` correspond to
    ``lambda_ = lambda_paper / (k (k - 1))`` and ``mu = mu_paper / k``; the summary shows both.
    With ``penalty="odir"`` and ``mu=None`` the fit equals
    ``probcal:::fit_multinomial(logits, codes, k, lambda)`` and the selection
    ``probcal:::select_dirichlet_lambda(logits, codes, k)``. With ``lambda_ = mu = 0`` only the
    probabilities are identified (a vector may be added to every row of ``W``).
    Checks, in order: ``penalty``, ``logits`` (a non-empty finite numeric matrix with at least
    two columns), the labels ``y`` (one class per column), equal numbers of observations,
    ``lambda``, ``mu``.
    """
    penalty = v.match_arg(penalty, PENALTIES)
    Z = v.check_logit_matrix(logits, "logits")
    codes, levels, k = v.check_multiclass_y(y, Z.shape[1])
    refuse_misnamed_columns(logits, y, "logits")
    v.check_nobs("logits", "y", Z.shape[0], codes.size)
    warn_if_probabilities(Z, "cal_matrix_scaling", "logits")
    lam = v.check_null_or_nonnegative(lambda_, "lambda")
    mu_ = _check_mu(mu)
    optimizer = check_optimizer(optimizer)
    w = check_weights(weights, Z.shape[0])
    lam, fit, selection = _fit_family(Z, codes, k, lam, mu_, penalty, optimizer, w)
    return CalMatrixScaling(
        method=f"matrix scaling ({'ODIR' if penalty == 'odir' else 'L2'})", n=int(Z.shape[0]),
        input="logits (matrix)", weight=fit.weight, bias=fit.bias, lambda_=lam,
        mu=lam if mu_ is None else float(mu_), penalty=penalty, selection=selection, value=float(fit.value),
        convergence=int(fit.convergence), k=int(k), levels=list(levels), call=None,
        **optimizer_fields(fit), _coef_data=(Z, codes), _fit_weights=w,
    )


# --------------------------------------------------------------------------------------
# Dir-L2


class CalDirichletL2(CalDirichlet):
    """A fitted Dirichlet calibration map with a plain L2 penalty (R-style class
    ``cal_dirichlet_l2``). Fields, ``coef`` and ``predict`` as :class:`CalDirichlet`."""

    r_class = ("cal_dirichlet_l2", "cal_multiclass", "calibrator")
    _extras: tuple[str, ...] = ("selection",)
    _summary_details = True
    _penalty = "l2"
    selection: pd.DataFrame | None = None

    def _summary_notes(self):
        return ["with lambda = 0 W and b are not identified; only the probabilities are."] if self.lambda_ == 0 else []

    def _parameter_items(self):
        return [("Penalty", "l2"), ("Lambda", round_text(self.lambda_))]

    def _parameter_tables(self):
        return {"coefficients": self.coef, "canonical (A | c)": canonical_table(self)}


@records_call("cal_dirichlet_l2")
def cal_dirichlet_l2(p: Scores, y: Labels, lambda_: float | None = None, eps: float = 1e-12, *,
                     optimizer: str = "bfgs", weights: Weights = None) -> CalDirichletL2:
    """Dirichlet calibration with a plain L2 penalty (Dir-L2).

    As :func:`calstats.cal_dirichlet` (Kull et al. 2019: ``softmax(W ln p* + b)`` with
    ``p*`` = ``p`` clipped to ``[eps, 1 - eps]``), except the penalty, which shrinks every
    weight, the diagonal included, and the intercepts towards 0:

    ``F(W, b) = -(1/n) sum_i log clip(q_{i,y_i}) + lambda (sum_{k,l} W_kl^2 + sum_k b_k^2)``

    (the poster's "Dir-L2"). Large lambda pulls the map towards the
    constant uniform output.

    Parameters
    ----------
    p : array_like or DataFrame (n, k)
        Uncalibrated probabilities; rows must sum to one within 1e-6.
    y : array_like of int, pandas.Categorical or Factor
        Class codes 1..k or a factor whose levels name the columns.
    lambda_ : float, optional
        Non-negative penalty strength; ``None`` selects it as ``cal_dirichlet`` does.
    eps : float
        Clipping constant in (0, 0.5).
    optimizer : {"bfgs", "newton"}, keyword-only
        R's BFGS (default) or the exact optimiser; see :func:`calstats.cal_dirichlet`.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal): non-negative, finite, not all zero, one per
        observation. The fit (and the lambda search's held-out loss) use the weighted mean
        log-likelihood; the folds stay those of the labels. ``None`` is R's fit, bit for bit.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalDirichletL2

    Notes
    -----
    Internally matrix scaling on ``u = ln p*`` with ``penalty="l2"`` and ``mu = lambda``;
    the checks and messages are ``cal_dirichlet``'s (the probability matrix ``p``, the labels
    ``y``, equal numbers of observations, ``lambda``, ``eps``). ``fit.canonical()`` gives the
    canonical parametrisation.
    """
    P, codes, levels, k, lam, eps, U = dirichlet_inputs(p, y, lambda_, eps)
    optimizer = check_optimizer(optimizer)
    w = check_weights(weights, P.shape[0])
    lam, fit, selection = _fit_family(U, codes, k, lam, None, "l2", optimizer, w)
    return CalDirichletL2(
        method="Dirichlet calibration (L2)", n=int(P.shape[0]), input="probabilities (matrix)",
        weight=fit.weight, bias=fit.bias, lambda_=lam, eps=eps, value=float(fit.value),
        convergence=int(fit.convergence), k=int(k), levels=list(levels), call=None,
        lambda_scores=None if selection is None else selection["score"].to_numpy(), selection=selection,
        **optimizer_fields(fit), _coef_data=(U, codes), _fit_weights=w,
    )

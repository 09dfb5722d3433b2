"""Dirichlet calibration with ODIR (R ``probcal::cal_dirichlet``)."""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._inputs import refuse_misnamed_columns
from .._progress import check_progress
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.probs import prob_frame
from ..numerics import libm
from ..numerics.rformat import round_text
from ..results._base import Calibrator
from ._multinomial import (
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

__all__ = ["cal_dirichlet", "CalDirichlet"]


class CalDirichlet(MultinomialCoefTable, MultinomialUncertainty, Calibrator):
    """A fitted Dirichlet calibration map (R class ``cal_dirichlet``).

    Attributes
    ----------
    weight : ndarray (k, k)
        Row j gives the logit of class j as a linear function of the clipped
        log-probabilities.
    bias : ndarray (k,)
        Intercepts.
    lambda_ : float
        The ODIR penalty used (selected by cross-validation when not given); R name ``lambda``.
    eps : float
        Clipping constant applied before taking logarithms.
    value : float
        Penalised mean negative log-likelihood at the returned parameters (as BFGS reports it).
    convergence : int
        0, or 1 when BFGS stopped at 500 iterations.
    k, levels : int, list of str
        Number of classes and their labels (column k of the input is ``levels[k]``).
    lambda_scores : ndarray or None
        Not an R field: the cross-validated score of each grid value when lambda was
        selected (see :data:`calstats.calibrators._multinomial.LAMBDA_GRID`), else None.
    """

    r_class = ("cal_dirichlet", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "weight", "bias", "lambda", "eps", "value",
                 "convergence", "k", "levels", "call")
    #: not R fields: the lambda search's scores, the optimiser's counts and trace, and the
    #: training data and case weights for coef_table() and predict(se_fit=True)
    _extras: tuple[str, ...] = ("lambda_scores", "counts", "optimizer", "grad_norm", "iterations", "_coef_data",
                                "_fit_weights")
    lambda_scores: Any = None
    counts: Any
    optimizer: str
    grad_norm: float
    iterations: Any
    # R fields
    weight: np.ndarray
    bias: np.ndarray
    lambda_: float
    eps: float
    value: float
    convergence: int

    @property
    def coef(self):
        """Coefficients as a DataFrame: one row per class, the intercept and one column per
        log-probability feature (like ``coef()`` of R's ``nnet::multinom``)."""
        cols = ["(Intercept)"] + [f"log(p[{lv}])" for lv in self.levels]
        return pd.DataFrame(np.column_stack([self.bias, self.weight]), index=pd.Index(self.levels, name="class"),
                            columns=cols)

    def canonical(self) -> Canonical:
        """The canonical parametrisation ``(A, c)`` of this map (Kull et al. 2019); see
        :func:`calstats.canonical`. Not in R's probcal."""
        return canonical(self)

    def _parameter_items(self):
        return [("Lambda", round_text(self.lambda_))]

    def _parameter_tables(self):
        return {"coefficients": self.coef, "canonical (A | c)": canonical_table(self)}

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> pd.DataFrame:
        """Calibrated probabilities ``softmax(log(clip(newdata)) W^T + b)``, optionally with
        their delta-method uncertainty.

        R: ``predict(fit, newdata)``. ``newdata`` must be a probability matrix whose rows
        sum to one (checked before the column count, as in R). Returns a DataFrame whose
        columns are ``levels``; a DataFrame input keeps its index.

        Parameters
        ----------
        newdata : array_like or DataFrame (n, k)
            Probabilities, one column per class.
        se_fit : bool, default False
            Not in R's probcal. Add ``link`` (``logit(p_k)`` of each class's calibrated
            probability) and ``se_link``, its delta-method standard error.
        interval : {None, "confidence"}
            Not in R's probcal. ``"confidence"`` adds ``lower`` and ``upper``:
            ``inv_logit(logit(p_k) -/+ z se_link)`` with ``z = qnorm((1 + level)/2)``.
        level : float, default 0.95
            Confidence level of ``interval``.

        Returns
        -------
        DataFrame
            With the defaults, the probabilities (R's numbers). With ``se_fit`` or
            ``interval``, two column levels: quantity (``fit``, ``link``, ``se_link``,
            ``lower``, ``upper``), then class.

        Notes
        -----
        The covariance of ``(W, b)`` is the inverse of the observed information of the
        penalised objective that was minimised, on the summed scale: the Hessian of the
        summed negative log-likelihood (case weights as frequencies) plus ``2 n lambda`` on
        the penalised weights and ``2 n lambda`` on the intercepts. With ``lambda > 0``
        these are ridge-type (Bayesian) standard errors around a shrunken estimate; with
        ``lambda = 0`` class 1's parameters, not identified, are held fixed. It is formed on
        the first request from the training data the fit keeps (not for more than 2000
        parameters, about 44 classes) and kept with the fit.
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        p = v.check_prob_matrix(newdata, "newdata")
        v.check_ncol(p.shape[1], self.k)
        U = libm.log(v.clip_prob(p, self.eps))
        out = prob_frame(predict_multinomial(U, self.weight, self.bias), self.levels, like=newdata)
        if not wanted:
            return out
        return self._uncertainty_frame(U, out.to_numpy(), newdata, se_fit, interval, level)


def dirichlet_inputs(p, y, lambda_, eps):
    """``cal_dirichlet``'s checks in R's order (the probability matrix ``p``, the labels ``y``,
    equal numbers of observations, ``lambda``, then ``eps``) and its features
    ``U = log(clip(p, eps, 1 - eps))``; shared by the Dirichlet family.

    Returns ``(P, codes, levels, k, lambda, eps, U)``.
    """
    P = v.check_prob_matrix(p, "p")
    codes, levels, k = v.check_matrix_labels(P, y)
    refuse_misnamed_columns(p, y)
    lam = v.check_null_or_nonnegative(lambda_, "lambda")
    eps = v.check_eps(eps)
    return P, codes, levels, k, lam, eps, libm.log(v.clip_prob(P, eps))


@records_call("cal_dirichlet")
def cal_dirichlet(p: Scores, y: Labels, lambda_: float | None = None, eps: float = 1e-12, *, optimizer: str = "bfgs",
                  progress: bool | None = None, weights: Weights = None) -> CalDirichlet:
    """Dirichlet calibration with off-diagonal and intercept regularisation (ODIR).

    Fits ``softmax(log(p*) W^T + b)`` where ``p*`` is ``p`` clipped to
    ``[eps, 1 - eps]``: a multinomial logistic regression on log-probabilities (Kull et
    al., 2019). The objective is the mean negative log-likelihood plus
    ``lambda * (sum of squared off-diagonal weights + sum of squared intercepts)``,
    minimised by R's BFGS from ``W = I``, ``b = 0`` with ``maxit = 500``.

    Parameters
    ----------
    p : array_like or DataFrame (n, k)
        Uncalibrated probabilities, one column per class; rows must sum to one within 1e-6.
    y : array_like of int, pandas.Categorical or Factor
        Class codes 1..k (column j is class j), or a factor whose levels name the columns.
    lambda_ : float, optional
        Non-negative penalty strength (R ``lambda``). ``None`` selects it from
        ``(0, 1e-4, 1e-3, 1e-2, 1e-1)`` by at most three deterministic stratified folds
        (ties to the first value); 1e-3 is used if the smallest class has one member.
    eps : float
        Clipping constant in (0, 0.5).
    optimizer : {"bfgs", "newton"}, keyword-only
        Not in R. ``"bfgs"`` (default) is R's BFGS, which stops on a small relative
        decrease of the objective and so returns R's numbers; ``"newton"`` minimises the
        same objective to a gradient norm below 1e-9 (trust-region Newton with the exact
        Hessian; Hessian-vector products beyond 500 parameters), also for the lambda
        search. ``fit.optimizer`` and ``fit.grad_norm`` say what ran and where it stopped.
        With many classes the map has ``p = k (k + 1)`` parameters and BFGS keeps a
        ``p (p + 1) / 2`` triangle of doubles (408 MB at k = 100, 6.5 GB at k = 200);
        ``"newton"`` never forms a ``p x p`` matrix (its memory grows with ``n k``).
    progress : bool, optional, keyword-only
        Not in R. A progress bar over the lambda search's fits (``None``: in a terminal or
        notebook after two seconds; ``True``: always; ``False``: never).
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal): non-negative, finite, not all zero, one per
        observation. The fit (and the lambda search's held-out loss) use the weighted mean
        log-likelihood; the folds stay those of the labels. ``None`` is R's fit, bit for bit.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalDirichlet

    Notes
    -----
    R equivalent: ``probcal::cal_dirichlet(p, y, lambda = NULL, eps = 1e-12)``; same
    checks, messages, fields and numbers (BFGS is R's own routine, see
    :mod:`calstats.numerics.vmmin`). With ``lambda = 0`` the parameters are not identified;
    the predicted probabilities are.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> from calstats import rng
    >>> rng.set_seed(23)
    >>> prob = rng.runif(200 * 3).reshape(3, 200).T
    >>> prob = prob / prob.sum(axis=1, keepdims=True)
    >>> u = rng.runif(200)  # labels drawn from the probabilities
    >>> labels = (prob.cumsum(axis=1) < u[:, None]).sum(axis=1) + 1
    >>> fit = calstats.cal_dirichlet(prob, labels)
    >>> fit.lambda_
    0.1
    >>> fit.predict(prob[:2]).round(3)
           1      2      3
    0  0.222  0.326  0.452
    1  0.277  0.700  0.022
    """
    P, codes, levels, k, lam, eps, U = dirichlet_inputs(p, y, lambda_, eps)
    optimizer = check_optimizer(optimizer)
    check_progress(progress)
    w = check_weights(weights, P.shape[0])
    scores = None
    if lam is None:
        lam, scores = select_lambda(U, codes, k, optimizer=optimizer, progress=progress, weights=w)
    fit = fit_multinomial(U, codes, k, lam, optimizer=optimizer, weights=w)
    return CalDirichlet(
        method="Dirichlet calibration", n=int(P.shape[0]), input="probabilities (matrix)",
        weight=fit.weight, bias=fit.bias, lambda_=float(lam), eps=eps, value=float(fit.value),
        convergence=int(fit.convergence), k=int(k), levels=list(levels), call=None,
        lambda_scores=scores, **optimizer_fields(fit), _coef_data=(U, codes), _fit_weights=w,
    )

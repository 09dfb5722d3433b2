"""Matrix scaling (MS-ODIR), Dirichlet calibration with plain L2 (Dir-L2), the canonical
parametrisation of a Dirichlet map and the confusion-matrix change view.

Kull, Perello Nieto, Kängsepp, Silva Filho, Song and Flach (2019), "Beyond temperature
scaling: obtaining well-calibrated multiclass probabilities with Dirichlet calibration"
(seed 002); docs/spec/seed-methods.md §A.2-A.5. Every member of the family maps an input vector ``x``
to ``softmax(W x + b)``; the fits share probcal's penalised multinomial fitter and its
cross-validated choice of lambda (:mod:`calstats.calibrators._multinomial`), so with the ODIR penalty
and ``mu = lambda`` matrix scaling is ``probcal:::fit_multinomial`` run on logits.
"""

from collections import namedtuple
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from ..kernels.probs import prob_frame, softmax
from .._weights import check_weights
from ._multinomial import check_optimizer, fit_multinomial, predict_multinomial, select_lambda, set_optimizer_info
from ..results._base import Calibrator, DetailsSummary
from .._typing import Labels, Scores, Weights
from ..results._summary_params import register
from .dirichlet import CalDirichlet, dirichlet_inputs
from ..numerics import libm
from ..numerics.reductions import row_sums
from ..numerics.rformat import as_character

__all__ = ["cal_matrix_scaling", "cal_dirichlet_l2", "canonical", "confusion_change", "CalMatrixScaling",
           "CalDirichletL2", "Canonical"]

PENALTIES = ("odir", "l2")
_NOT_DIRICHLET = "Canonical parameters are defined only for Dirichlet and matrix-scaling maps."

#: ``canonical()`` result: ``A`` (K x K DataFrame, rows = output class, columns = input
#: class) and ``c`` (Series, the calibrated output at the centre of the simplex).
Canonical = namedtuple("Canonical", "A c")


# --------------------------------------------------------------------------------------
# summaries with a "Details" block (docs/spec/seed-methods.md §0: appended after R's text)


def _fmt(x):
    return as_character(float(x))


# --------------------------------------------------------------------------------------
# MS-ODIR


class CalMatrixScaling(Calibrator):
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
    # not R fields, set by the fitting function
    counts: Any
    optimizer: str
    grad_norm: float
    iterations: Any
    _coef_data: tuple[Any, Any]
    _r_fields = ("method", "n", "input", "weight", "bias", "lambda", "mu", "penalty", "selection", "value",
                 "convergence", "k", "levels", "call")

    @property
    def coef(self):
        """``{"weight": W, "bias": b}`` (not an R field)."""
        return {"weight": self.weight, "bias": self.bias}

    def predict(self, newdata: Scores, **kwargs: Any) -> pd.DataFrame:
        """Calibrated probabilities ``softmax(newdata W^T + b)``.

        ``newdata`` is a logit matrix with ``k`` columns (checked as ``predict`` of
        ``cal_vector_scaling``). Returns a DataFrame whose columns are ``levels``.
        """
        from .scaling import _multiclass_newdata

        z = _multiclass_newdata(newdata, self.k)
        return prob_frame(predict_multinomial(z, self.weight, self.bias), self.levels, like=newdata)

    def canonical(self) -> "Canonical":
        """Not defined: a map on logits is not a Dirichlet map (raises, see :func:`canonical`)."""
        return canonical(self)

    def summary(self, coef: bool = False) -> DetailsSummary:
        notes = []
        if self.lambda_ == 0 or self.mu == 0:
            notes.append("with a zero penalty W and b are not identified; only the probabilities are.")
        return DetailsSummary(self, notes, coef=coef)


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
    from ._multinomial import LAMBDA_GRID

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
    their tables; docs/spec/seed-methods.md §A.2) by minimising

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
    Checks, in order: ``penalty``, V-LMAT("logits"), V-MCY, V-NOBS, ``lambda``, ``mu``.
    """
    penalty = v.match_arg(penalty, PENALTIES)
    Z = v.check_logit_matrix(logits, "logits")
    codes, levels, k = v.check_multiclass_y(y, Z.shape[1])
    v.check_nobs("logits", "y", Z.shape[0], codes.size)
    lam = v.check_null_or_nonnegative(lambda_, "lambda")
    mu_ = _check_mu(mu)
    optimizer = check_optimizer(optimizer)
    w = check_weights(weights, Z.shape[0])
    lam, fit, selection = _fit_family(Z, codes, k, lam, mu_, penalty, optimizer, w)
    out = CalMatrixScaling()
    out._set_fields(
        method=f"matrix scaling ({'ODIR' if penalty == 'odir' else 'L2'})", n=int(Z.shape[0]),
        input="logits (matrix)", weight=fit.weight, bias=fit.bias, lambda_=lam,
        mu=lam if mu_ is None else float(mu_), penalty=penalty, selection=selection, value=float(fit.value),
        convergence=int(fit.convergence), k=int(k), levels=list(levels), call=None,
    )
    out.counts = fit.counts
    set_optimizer_info(out, fit)
    out._coef_data = (Z, codes)  # not an R field: for coef_table()
    return out


# --------------------------------------------------------------------------------------
# Dir-L2


class CalDirichletL2(CalDirichlet):
    """A fitted Dirichlet calibration map with a plain L2 penalty (R-style class
    ``cal_dirichlet_l2``). Fields, ``coef`` and ``predict`` as :class:`CalDirichlet`."""

    r_class = ("cal_dirichlet_l2", "cal_multiclass", "calibrator")
    selection: pd.DataFrame | None

    def canonical(self) -> "Canonical":
        """The canonical parametrisation ``(A, c)`` of the map (see :func:`canonical`)."""
        return canonical(self)

    def summary(self, coef: bool = False) -> DetailsSummary:
        notes = ["with lambda = 0 W and b are not identified; only the probabilities are."] if self.lambda_ == 0 else []
        return DetailsSummary(self, notes, coef=coef)


@records_call("cal_dirichlet_l2")
def cal_dirichlet_l2(p: Scores, y: Labels, lambda_: float | None = None, eps: float = 1e-12, *,
                     optimizer: str = "bfgs", weights: Weights = None) -> CalDirichletL2:
    """Dirichlet calibration with a plain L2 penalty (Dir-L2).

    As :func:`calstats.cal_dirichlet` (Kull et al. 2019: ``softmax(W ln p* + b)`` with
    ``p*`` = ``p`` clipped to ``[eps, 1 - eps]``), except the penalty, which shrinks every
    weight, the diagonal included, and the intercepts towards 0:

    ``F(W, b) = -(1/n) sum_i log clip(q_{i,y_i}) + lambda (sum_{k,l} W_kl^2 + sum_k b_k^2)``

    (the poster's "Dir-L2"; docs/spec/seed-methods.md §A.3). Large lambda pulls the map towards the
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

    Returns
    -------
    CalDirichletL2

    Notes
    -----
    Internally matrix scaling on ``u = ln p*`` with ``penalty="l2"`` and ``mu = lambda``;
    the checks and messages are ``cal_dirichlet``'s (V-PMAT, V-MCY, V-NOBS, ``lambda``,
    V-EPS). ``fit.canonical()`` gives the canonical parametrisation.
    """
    P, codes, levels, k, lam, eps, U = dirichlet_inputs(p, y, lambda_, eps)
    optimizer = check_optimizer(optimizer)
    w = check_weights(weights, P.shape[0])
    lam, fit, selection = _fit_family(U, codes, k, lam, None, "l2", optimizer, w)
    out = CalDirichletL2()
    out._set_fields(
        method="Dirichlet calibration (L2)", n=int(P.shape[0]), input="probabilities (matrix)",
        weight=fit.weight, bias=fit.bias, lambda_=lam, eps=eps, value=float(fit.value),
        convergence=int(fit.convergence), k=int(k), levels=list(levels), call=None,
    )
    out.lambda_scores = None if selection is None else selection["score"].to_numpy()
    out.selection = selection
    out.counts = fit.counts
    set_optimizer_info(out, fit)
    out._coef_data = (U, codes)  # not an R field: for coef_table()
    return out


# --------------------------------------------------------------------------------------
# canonical parametrisation and confusion-matrix change


def canonical(fit: CalDirichlet | CalMatrixScaling) -> Canonical:
    """The canonical parametrisation ``(A, c)`` of a Dirichlet calibration map.

    For ``mu(q) = softmax(W ln q + b)`` (Kull et al. 2019, the poster's "canonical
    parametrisation"; docs/spec/seed-methods.md §A.4):

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
        equal sums; the spec (§A.4) therefore calls a logit map "not a map of q alone",
        and the issue asks for its canonical view, which is this one.

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
    if not isinstance(fit, Calibrator) or fit.r_class[0] not in ("cal_dirichlet", "cal_dirichlet_l2",
                                                                  "cal_matrix_scaling"):
        v.fail(_NOT_DIRICHLET)
    W = np.asarray(fit.weight, dtype=np.float64)
    b = np.asarray(fit.bias, dtype=np.float64)
    k = W.shape[0]
    A = W - W.min(axis=0)[None, :]
    c = softmax((b - libm.log(np.array([float(k)]))[0] * row_sums(W))[None, :])[0]
    idx = pd.Index(fit.levels, name="class")
    return Canonical(pd.DataFrame(A, index=idx, columns=pd.Index(fit.levels, name="input")),
                     pd.Series(c, index=pd.Index(fit.levels, name="class"), name="c"))


def confusion_change(fit: Calibrator, p: Scores, y: Labels) -> pd.DataFrame:
    """Change of the confusion matrix caused by a calibration map (Kull et al. 2019, Fig. 2c).

    ``C[k, l] = #{i: y_i = k, argmax fit.predict(p)_i = l} - #{i: y_i = k, argmax p_i = l}``
    (first maximum on ties; docs/spec/seed-methods.md §A.5). Every row sums to 0; the trace is the
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
    Checks: ``fit.predict``'s own checks on ``p``, then V-MCY("y", fit.k), V-NOBS("p", "y").
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


# --------------------------------------------------------------------------------------
# summary lines and tables


def _items_ms(o):
    return [("Penalty", o.penalty), ("Lambda", _fmt(o.lambda_)), ("Mu", _fmt(o.mu))]


def _tables_ms(o):
    idx = pd.Index(o.levels, name="class")
    out = {
        "weight": pd.DataFrame(o.weight, index=idx, columns=[f"z[{lv}]" for lv in o.levels]),
        "bias": pd.DataFrame({"bias": o.bias}, index=idx),
    }
    if o.penalty == "odir":
        # Kull et al. normalise ODIR by the number of terms: lambda/(K(K-1)), mu/K.
        out["penalty"] = pd.DataFrame({"calstats": [o.lambda_, o.mu],
                                       "paper": [o.lambda_ * o.k * (o.k - 1), o.mu * o.k]},
                                      index=pd.Index(["lambda", "mu"], name="penalty"))
    out["fit"] = pd.DataFrame({"value": [o.value], "convergence": [o.convergence]})
    table = canonical_table(o)
    table.attrs["note"] = "canonical (A | c) of the map read as a function of q for logits z = ln q"
    out["canonical (A | c)"] = table
    if o.selection is not None:
        out["selection"] = o.selection
    return out


def _items_dir_l2(o):
    return [("Penalty", "l2"), ("Lambda", _fmt(o.lambda_))]


def canonical_table(fit):
    """The poster's K x (K + 1) display ``(A | c)`` of :func:`canonical` as one DataFrame."""
    A, c = canonical(fit)
    out = A.copy()
    out["c"] = c.to_numpy()
    return out


def _tables_dir_l2(o):
    return {"coefficients": o.coef, "canonical (A | c)": canonical_table(o)}


register("cal_matrix_scaling", _items_ms, _tables_ms)
register("cal_dirichlet_l2", _items_dir_l2, _tables_dir_l2)

"""Logistic-regression calibrators of a score: Platt scaling and beta calibration.

R ``probcal::cal_platt`` and ``cal_beta``. Both fit a binomial GLM with R's ``glm.fit``
IRLS (:mod:`calstats.ports.stats.glm`), so coefficients, deviances and warnings are R's; the
coefficient table is R's ``coef(summary(glm))``.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import on_dask
from ..kernels.probs import inv_logit_checked
from ..numerics import libm
from ..numerics.reductions import rsum
from ..numerics.rformat import round_text
from ..ports.stats.glm import glm_binomial
from ..results._base import Calibrator
from ..results._coeftable import glm_table
from ._multinomial import frame_index, uncertainty_args

__all__ = ["cal_platt", "cal_beta", "CalPlatt", "CalBeta"]


def _glm_prediction(glm, columns, prob, eta, newdata, se_fit, interval, level):
    """The prediction frame of a binomial GLM: ``se_link`` is R's ``predict.glm(se.fit =
    TRUE, type = "link")$se.fit``, ``sqrt(diag(X V X'))`` with ``V`` R's ``cov.unscaled``
    (dispersion 1) and ``X`` the model matrix of ``newdata`` (``columns``, by name)."""
    from ..kernels.delta import link_se
    from ..results._prediction import prediction_frame

    cov = glm.cov_unscaled
    X = np.column_stack([columns[name] for name in cov.index])  # cov.unscaled's (pivot) order
    se = link_se(X, cov.to_numpy(dtype=np.float64))
    return prediction_frame(prob, eta, se, se_fit=se_fit, interval=interval, level=level, index=frame_index(newdata))


_UNCERTAINTY_DOC = """
        Parameters
        ----------
        newdata : array_like
            {what}
        se_fit : bool, default False
            Add ``link`` (the linear predictor) and ``se_link``, its standard error: R's
            ``predict(fit$fit, newdata, se.fit = TRUE, type = "link")`` for the ``glm``
            (``sqrt(diag(X V X'))``, ``V`` the ``cov.unscaled`` of ``summary.glm``,
            dispersion 1; prior weights as in ``glm``).
        interval : {{None, "confidence"}}
            ``"confidence"`` adds ``lower`` and ``upper``: the Wald interval
            ``link -/+ z se_link`` (``z = qnorm((1 + level)/2)``) mapped through the inverse
            logit.
        level : float, default 0.95
            Confidence level of ``interval``.

        Returns
        -------
        ndarray or DataFrame
            With the defaults, the probabilities (R's numbers); with ``se_fit`` or
            ``interval``, a DataFrame with columns ``fit`` (the probability), ``link`` and
            ``se_link`` (with ``se_fit``), ``lower`` and ``upper`` (with ``interval``).
"""


# --------------------------------------------------------------------------------------
# Platt scaling


class CalPlatt(Calibrator):
    """A fitted Platt scaling map (R class ``cal_platt``).

    Attributes
    ----------
    coefficients : pandas.Series
        ``(Intercept)`` and ``x`` of the logistic regression (NaN for an aliased slope).
    fit : GlmFit
        The ported fields of R's ``glm`` object (coefficients, fitted values, deviance, ...).
    target_pos, target_neg : float
        Platt's targets ``(n_pos + 1)/(n_pos + 2)`` and ``1/(n_neg + 2)``.
    """

    r_class = ("cal_platt", "calibrator")
    _r_fields = ("method", "n", "input", "coefficients", "fit", "target_pos", "target_neg", "call")
    # R fields, set by the constructor (declared for type checkers)
    coefficients: pd.Series
    fit: Any

    def _parameter_items(self):
        return [(str(name), round_text(value, 4)) for name, value in self.coefficients.items()]

    def _parameter_tables(self):
        return {"coefficients": self.coefficients.rename("estimate").to_frame()}

    def _has_coef_table(self):
        return True

    def _coef_table(self, x, y):
        return glm_table(self.fit, "Platt's smoothed targets are the response.")

    def _dask_columns(self, newdata):
        # the one check that needs no row: an aliased slope fails as in memory (as R's inv_logit check)
        if self.coefficients.isna().any():
            v.fail_missing("x")
        return None

    @on_dask(rows=lambda self, newdata: self._dask_columns(newdata), data=("newdata",))
    def _probabilities(self, newdata: Scores, **kwargs: Any) -> np.ndarray:
        x = v.check_numeric(newdata, "newdata")
        with np.errstate(over="ignore", invalid="ignore"):
            eta = self.coefficients["(Intercept)"] + self.coefficients["x"] * x
        return inv_logit_checked(eta)

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> np.ndarray | pd.DataFrame:
        """Calibrated probabilities ``inv_logit(intercept + slope * newdata)``, optionally
        with their standard errors and confidence intervals.

        R: ``predict(fit, newdata)``. Returns a 1-D float64 array. A NaN coefficient
        (constant training scores) raises ``Argument `x` must not contain missing values.``
        as in R. A Dask input gives a Dask array (Series) computed block by block
        (``se_fit``/``interval`` need an in-memory ``newdata``).
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        prob = self._probabilities(newdata, **kwargs)
        if not wanted:
            return prob
        x = v.check_numeric(newdata, "newdata")
        eta = self.coefficients["(Intercept)"] + self.coefficients["x"] * x
        return _glm_prediction(self.fit, {"(Intercept)": np.ones_like(x), "x": x}, prob, eta, newdata, se_fit,
                               interval, level)

    if predict.__doc__:  # pragma: no branch - docstrings kept unless python -OO
        predict.__doc__ += _UNCERTAINTY_DOC.format(what="Scores (numeric, finite).")


@records_call("cal_platt")
@on_dask("_fit.platt", data=("x", "y"), finish=lambda fitted, **_: _new_platt(*fitted))
def cal_platt(x: Scores, y: Labels, *, weights: Weights = None) -> CalPlatt:
    """Platt scaling: a logistic regression of the labels on a score.

    Fits ``P(y = 1 | x) = inv_logit(a + b x)`` by R's ``glm`` (binomial, logit link) with
    Platt's smoothed targets ``(n_pos + 1)/(n_pos + 2)`` for positives and
    ``1/(n_neg + 2)`` for negatives instead of 1 and 0.

    Parameters
    ----------
    x : array_like
        Uncalibrated scores or probabilities (numeric, finite; a one-column matrix is
        accepted as a vector).
    y : array_like
        Binary labels: 0/1 numbers or booleans, both classes present.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal; R's name, as ``glm(weights =)``): non-negative,
        finite, not all zero, one per observation. The fit minimises the weighted loss;
        integer weights give the fit of the data with each row repeated that many times.
        ``None`` is R's fit, bit for bit.

    Returns
    -------
    CalPlatt

    Notes
    -----
    R equivalent: ``probcal::cal_platt(x, y)``; same checks, messages, fields and numbers
    (IRLS as R's ``glm.fit``, :func:`calstats.ports.stats.glm.glm_binomial`). R's warnings of
    this fit (e.g. "non-integer #successes") are suppressed, as probcal does. A constant
    ``x`` leaves the slope aliased (NaN) and prediction then fails with ``Argument `x` must
    not contain missing values.`` (the name of ``inv_logit``'s argument), as in R.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> x = np.array([-2.0, -1.0, -0.5, 0.3, 0.8, 1.5, 2.2, -0.1])
    >>> y = np.array([0, 0, 1, 0, 1, 1, 1, 0])
    >>> fit = calstats.cal_platt(x, y)
    >>> list(fit.coef.index)
    ['(Intercept)', 'x']
    """
    xv = v.check_numeric(x, "x")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("x", "y", xv.size, yv.size)
    if yv.dtype.kind == "f" and np.isnan(yv).any():
        # Logical NA labels (R lets them through the label check): n_pos and n_neg are NA,
        # so is every target, and glm() is left without observations.
        v.fail_empty_mu()
    w = check_weights(weights, yv.size)
    if w is None:
        n_pos = int(np.count_nonzero(yv == 1))
        n_neg = int(np.count_nonzero(yv == 0))
    else:  # weighted counts: integer weights give the counts of the replicated data
        n_pos, n_neg = rsum(w[yv == 1]), rsum(w[yv == 0])
    target_pos = (n_pos + 1) / (n_pos + 2)
    target_neg = 1 / (n_neg + 2)
    t = np.where(yv == 1, target_pos, target_neg)
    X = np.column_stack([np.ones_like(xv), xv])
    glm = glm_binomial(X, t, ["(Intercept)", "x"], warn=False, weights=w)
    return _new_platt(glm, yv.size, target_pos, target_neg)


def _new_platt(glm, n, target_pos, target_neg):
    """The :class:`CalPlatt` of a fitted GLM (in memory, or on Dask blocks)."""
    return CalPlatt(method="Platt scaling", n=int(n), input="scores or probabilities",
                    coefficients=glm.coefficients.copy(), fit=glm, target_pos=float(target_pos),
                    target_neg=float(target_neg), call=None)


# --------------------------------------------------------------------------------------
# beta calibration


class CalBeta(Calibrator):
    """A fitted beta calibration map (R class ``cal_beta``).

    Attributes
    ----------
    coefficients : pandas.Series
        ``(Intercept)``, ``log_p``, ``log_1mp`` of the logistic regression.
    a, b, c : float
        ``a = coef[log_p]``, ``b = -coef[log_1mp]``, ``c = coef[(Intercept)]`` (NaN if aliased).
    eps : float
        Clipping constant applied to probabilities before the logarithms.
    fit : GlmFit
        The ported fields of R's ``glm`` object (coefficients, fitted values, deviance, ...).
    """

    r_class = ("cal_beta", "calibrator")
    _r_fields = ("method", "n", "input", "coefficients", "a", "b", "c", "eps", "fit", "call")
    # R fields, set by the constructor (declared for type checkers)
    a: float
    b: float
    c: float
    eps: float
    fit: Any

    def _parameter_items(self):
        return [("a", round_text(self.a, 4)), ("b", round_text(self.b, 4)), ("c", round_text(self.c, 4)),
                ("eps", round_text(self.eps))]

    def _parameter_tables(self):
        return {"coefficients": self.coefficients.rename("estimate").to_frame()}

    def _has_coef_table(self):
        return True

    def _coef_table(self, x, y):
        return glm_table(self.fit)

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None, level: float = 0.95,
                **kwargs: Any) -> np.ndarray | pd.DataFrame:
        """Calibrated probabilities ``inv_logit(a log(p*) - b log(1 - p*) + c)``, optionally
        with their standard errors and confidence intervals.

        R: ``predict(fit, newdata)``; ``newdata`` must be probabilities, clipped with the
        stored ``eps``. Returns a 1-D float64 array. An aliased (NaN) coefficient raises
        ``Argument `x` must not contain missing values.`` (the name of ``inv_logit``'s argument),
        as in R.
        """
        wanted, se_fit, interval, level = uncertainty_args(newdata, se_fit, interval, level)
        p = v.check_prob(newdata, "newdata")
        ps = v.clip_prob(p, v.check_eps(self.eps))
        with np.errstate(over="ignore", invalid="ignore"):
            eta = self.a * libm.log(ps) - self.b * libm.log1p(-ps) + self.c
        prob = inv_logit_checked(eta)
        if not wanted:
            return prob
        columns = {"(Intercept)": np.ones_like(ps), "log_p": libm.log(ps), "log_1mp": libm.log1p(-ps)}
        return _glm_prediction(self.fit, columns, prob, eta, newdata, se_fit, interval, level)

    if predict.__doc__:  # pragma: no branch - docstrings kept unless python -OO
        predict.__doc__ += _UNCERTAINTY_DOC.format(what="Probabilities in [0, 1], clipped to ``[eps, 1 - eps]``.")


@records_call("cal_beta")
def cal_beta(p: Scores, y: Labels, eps: float = 1e-15, *, weights: Weights = None) -> CalBeta:
    """Beta calibration (Kull, Silva Filho and Flach, 2017).

    Fits ``inv_logit(a log(p) - b log(1 - p) + c)`` by a logistic regression of the labels
    on ``log(p*)`` and ``log(1 - p*)``, ``p*`` being ``p`` clipped to ``[eps, 1 - eps]``.

    Parameters
    ----------
    p : array_like
        Uncalibrated probabilities in [0, 1] (a one-column matrix is accepted as a vector).
    y : array_like
        Binary labels: 0/1 numbers or booleans, both classes present.
    eps : float, default 1e-15
        Clipping constant in (0, 0.5), checked after the labels (as in R).

    Returns
    -------
    CalBeta

    Warns
    -----
    CalstatsWarning
        R's ``glm.fit`` warnings, in R's order and text (e.g. ``glm.fit: fitted
        probabilities numerically 0 or 1 occurred`` for separable data); probcal does not
        suppress them.

    Notes
    -----
    R equivalent: ``probcal::cal_beta(p, y, eps = 1e-15)``; same checks, messages, fields,
    warnings and numbers (IRLS as R's ``glm.fit``). With two distinct ``p`` values ``b`` is
    aliased (NaN), with one both slopes are; prediction then fails as in R, with
    ``Argument `x` must not contain missing values.``
    Boolean labels holding ``pd.NA`` are let through as R lets a logical ``NA`` through;
    that observation is dropped by R's ``glm`` but counted in ``n``.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> p = np.array([0.1, 0.2, 0.35, 0.4, 0.6, 0.7, 0.85, 0.9])
    >>> y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> fit = calstats.cal_beta(p, y)
    >>> fit.names()[:4]
    ['method', 'n', 'input', 'coefficients']
    """
    pv = v.check_prob(p, "p")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("p", "y", pv.size, yv.size)
    eps = v.check_eps(eps)
    ps = v.clip_prob(pv, eps)
    X = np.column_stack([np.ones_like(ps), libm.log(ps), libm.log1p(-ps)])
    keep = ~np.isnan(yv) if yv.dtype.kind == "f" else np.ones(yv.size, dtype=bool)
    X, yfit = X[keep], np.asarray(yv[keep], dtype=np.float64)
    if not np.isfinite(X).all():
        # eps < 2^-53 leaves p = 1 at 1 and log1p(-1) = -Inf reaches glm.fit's QR.
        v.fail_r_nonfinite_x()
    glm = glm_binomial(X, yfit, ["(Intercept)", "log_p", "log_1mp"], warn=True,
                       weights=check_weights(weights, pv.size))
    coef = glm.coefficients
    return CalBeta(method="beta calibration", n=int(yv.size), input="probabilities",
                   coefficients=coef.copy(), a=float(coef["log_p"]), b=float(-coef["log_1mp"]),
                   c=float(coef["(Intercept)"]), eps=eps, fit=glm, call=None)

"""Coefficient tables of the likelihood calibrators: estimate, standard error, z, p-value.

R's probcal prints no such table; these are the tables a statistician expects from R's
``summary.glm``, for the report renderings of :class:`calstats.CalibratorSummary` and for
``fit.coef_table()``.

* Platt and beta calibration are binomial GLMs: the table is R's ``coef(summary(glm))``
  (standard errors ``sqrt(diag(cov.unscaled))`` with dispersion 1, ``z = estimate / se``,
  ``p = 2 * pnorm(-|z|)``), from the ``cov_unscaled`` of the ported ``glm.fit``.
* Temperature, vector, Dirichlet and matrix scaling are fitted by minimising a (penalised)
  mean negative log-likelihood; the standard errors come from the inverse of the observed
  information, the Hessian of the **summed** (penalised) negative log-likelihood at the
  estimate (n times the Hessian of the mean objective). ``z`` tests each parameter against
  its value under the identity map (the uncalibrated model: ``T = 1``, ``s_j = 1``,
  ``W = I``, intercepts 0). The 1e-15 clipping of the probabilities is ignored.
* Where the Hessian is singular (vector scaling's intercepts, which only matter up to a
  common shift; Dirichlet/matrix scaling with ``lambda = 0``) the non-identified
  parameters get NaN standard errors, and the identified ones come from the
  pseudo-inverse; the table's note says so.

Each table is a DataFrame with R's columns ``Estimate``, ``Std. Error``, ``z value``,
``Pr(>|z|)``; ``table.attrs["note"]`` explains how it was computed.
"""

import math

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..kernels.probs import inv_logit, softmax

__all__ = ["coef_table", "multinomial_hessian", "vector_scaling_hessian", "temperature_information",
           "COLUMNS"]

COLUMNS = ["Estimate", "Std. Error", "z value", "Pr(>|z|)"]
_BLOCK = 4096


def _frame(names, estimate, se, null, note):
    estimate = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - np.asarray(null, dtype=np.float64)) / se
    p = 2.0 * ndtr(-np.abs(z))
    out = pd.DataFrame({COLUMNS[0]: estimate, COLUMNS[1]: se, COLUMNS[2]: z, COLUMNS[3]: p},
                       index=pd.Index([str(n) for n in names], name="parameter"))
    out.attrs["note"] = note
    return out


# --------------------------------------------------------------------------------------
# GLM (Platt, beta)


def glm_table(glm, note=None):
    """R's ``coef(summary(glm))`` (dispersion 1); aliased coefficients are NaN rows."""
    coef = glm.coefficients
    cov = glm.cov_unscaled
    se = np.array([math.sqrt(cov.loc[n, n]) if n in cov.index and cov.loc[n, n] >= 0 else math.nan
                   for n in coef.index])
    est = coef.to_numpy(dtype=np.float64)
    se[np.isnan(est)] = math.nan
    base = ("Binomial GLM as R's summary.glm: standard errors from cov.unscaled (the inverse "
            "expected = observed information, logit link), dispersion 1; z and p test coefficient = 0.")
    return _frame(coef.index, est, se, np.zeros(est.size), base if note is None else base + " " + note)


# --------------------------------------------------------------------------------------
# information matrices


def temperature_information(z, y, temperature, multiclass):
    """Observed information ``d^2/dT^2`` of the summed negative log-likelihood at ``T``.

    Binary (``z`` logits, ``y`` 0/1): ``sum s(1-s) z^2/T^4 + 2 (s - y) z/T^3`` with
    ``s = inv_logit(z/T)``. Multiclass (``z`` n x k, ``y`` 1-based codes):
    ``sum_i Var_{p_i}(z_i)/T^4 + 2 (p_i . z_i - z_{i,y_i})/T^3`` with ``p_i = softmax(z_i/T)``.
    """
    t = float(temperature)
    if not multiclass:
        z = np.asarray(z, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        s = inv_logit(z / t)
        return float(np.sum(s * (1 - s) * z * z) / t**4 + 2.0 * np.sum((s - y) * z) / t**3)
    Z = np.asarray(z, dtype=np.float64)
    codes = np.asarray(y, dtype=np.int64)
    p = softmax(Z / t)
    mean = (p * Z).sum(axis=1)
    var = (p * Z * Z).sum(axis=1) - mean * mean
    zy = Z[np.arange(Z.shape[0]), codes - 1]
    return float(np.sum(var) / t**4 + 2.0 * np.sum(mean - zy) / t**3)


def multinomial_hessian(U, weight, bias):
    """Hessian of the summed multinomial NLL of ``softmax(U W^T + b)`` (no penalty).

    Parameters are ordered as probcal's ``par``: ``[W | b]`` (k x (d + 1)) flattened
    column-major, i.e. ``W`` column-major then ``b``. Accumulated in row blocks.
    """
    U = np.asarray(U, dtype=np.float64)
    W = np.asarray(weight, dtype=np.float64)
    b = np.asarray(bias, dtype=np.float64)
    n, d = U.shape
    k = W.shape[0]
    H4 = np.zeros((d + 1, k, d + 1, k))
    for start in range(0, n, _BLOCK):
        Ub = U[start:start + _BLOCK]
        Xa = np.column_stack([Ub, np.ones(Ub.shape[0])])
        p = softmax(Ub @ W.T + b)
        # sum_i x_m x_m2 (p_j delta_jl - p_j p_l)
        diag = np.einsum("ij,im,in->mjn", p, Xa, Xa)
        H4 += np.einsum("mjn,jl->mjnl", diag, np.eye(k))
        H4 -= np.einsum("ij,il,im,in->mjnl", p, p, Xa, Xa, optimize=True)
    return H4.reshape((d + 1) * k, (d + 1) * k)


def vector_scaling_hessian(Z, scale, bias):
    """Hessian of the summed NLL of ``softmax(z_ij s_j + b_j)``; parameters ``(s, b)``."""
    Z = np.asarray(Z, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    b = np.asarray(bias, dtype=np.float64)
    n, k = Z.shape
    H4 = np.zeros((2, k, 2, k))
    for start in range(0, n, _BLOCK):
        Zb = Z[start:start + _BLOCK]
        p = softmax(Zb * s + b)
        X = np.stack([Zb, np.ones_like(Zb)], axis=0)  # (2, n, k): feature a of class j
        diag = np.einsum("ij,aij,cij->ajc", p, X, X)
        H4 += np.einsum("ajc,jl->ajcl", diag, np.eye(k))
        H4 -= np.einsum("ij,il,aij,cil->ajcl", p, p, X, X, optimize=True)
    return H4.reshape(2 * k, 2 * k)


def _covariance(H):
    """Inverse (or pseudo-inverse) of ``H`` and a mask of the identified parameters."""
    H = 0.5 * (H + H.T)
    w, V = np.linalg.eigh(H)
    top = max(float(np.abs(w).max()), 1e-300)
    null = np.abs(w) <= 1e-9 * top
    if not null.any():
        cov = (V / w) @ V.T
        return cov, np.ones(H.shape[0], dtype=bool), False
    keep = ~null
    cov = (V[:, keep] / w[keep]) @ V[:, keep].T
    N = V[:, null]
    identified = np.sqrt((N * N).sum(axis=1)) < 1e-6
    return cov, identified, True


def _se_from_hessian(H):
    cov, identified, singular = _covariance(H)
    var = np.diag(cov).copy()
    with np.errstate(invalid="ignore"):
        se = np.where((var >= 0) & identified, np.sqrt(np.abs(var)), np.nan)
    return se, singular, int((~identified).sum())


_SINGULAR = (" The Hessian is singular: {m} parameters are not identified (only differences between "
             "classes are), their standard errors are NaN; the others come from its pseudo-inverse.")


# --------------------------------------------------------------------------------------
# per class


def _training_data(fit, x, y, kind):
    """``(features, labels)`` the fit was computed on: stored at fit time, or from ``x``, ``y``."""
    from .. import _validate as v
    from ..numerics import libm

    if x is None:
        data = getattr(fit, "_coef_data", None)
        if data is None:
            v.fail("This fit does not hold its training data: pass the training `x` and `y` to coef_table().")
        return data
    if kind == "temperature_binary":
        z = v.check_numeric(x, "x")
        yv = v.check_binary_y(y, "y", require_both=True)
        return z, yv.astype(np.float64)
    if kind == "dirichlet":
        P = v.check_prob_matrix(x, "x")
        codes, _, _ = v.check_multiclass_y(y, P.shape[1])
        return libm.log(v.clip_prob(P, fit.eps)), codes
    Z = v.check_logit_matrix(x, "x")
    codes, _, _ = v.check_multiclass_y(y, Z.shape[1])
    return Z, codes


def _temperature_table(fit, x, y):
    multiclass = "k" in fit._r_fields
    z, labels = _training_data(fit, x, y, "logits" if multiclass else "temperature_binary")
    info = temperature_information(z, labels, fit.temperature, multiclass)
    se = 1.0 / math.sqrt(info) if info > 0 else math.nan
    note = ("Standard error from the observed information of the summed negative log-likelihood "
            "at T (no penalty); z and p test T = 1 (no rescaling).")
    if not 1e-3 * 1.01 < fit.temperature < 1e3 * 0.99:
        note += " T is at the boundary of the search interval [1e-3, 1e3]: the standard error is not valid."
    if not info > 0:
        note += " The observed information is not positive: no standard error."
    return _frame(["temperature"], [fit.temperature], [se], [1.0], note)


def _vector_table(fit, x, y):
    Z, codes = _training_data(fit, x, y, "logits")
    k = fit.k
    H = vector_scaling_hessian(Z, fit.scale, fit.bias)
    se, singular, m = _se_from_hessian(H)
    # H order: (a, j) with a = 0 scale, 1 bias -> rows per class: scale, bias
    order = [a * k + j for j in range(k) for a in (0, 1)]
    names = [f"{lv}: {a}" for lv in fit.levels for a in ("scale", "bias")]
    est = np.concatenate([fit.scale, fit.bias])[order]
    null = np.array([1.0 if a == 0 else 0.0 for _ in range(k) for a in (0, 1)])
    note = ("Standard errors from the observed information (Hessian of the summed negative "
            "log-likelihood, no penalty); z and p test scale = 1 and bias = 0.")
    if singular:
        note += _SINGULAR.format(m=m)
    return _frame(names, est, se[order], null, note)


def _multinomial_table(fit, x, y, features):
    """Dirichlet (features log p) and matrix scaling (features logits)."""
    from ..calibrators._multinomial import penalty_mask

    U, codes = _training_data(fit, x, y, features)
    k = fit.k
    W = np.asarray(fit.weight, dtype=np.float64)
    b = np.asarray(fit.bias, dtype=np.float64)
    d = W.shape[1]
    n = U.shape[0]
    lam = float(fit.lambda_)
    mu = getattr(fit, "mu", None)
    mu = lam if mu is None else float(mu)
    penalty = getattr(fit, "penalty", None) or ("l2" if fit.r_class[0] == "cal_dirichlet_l2" else "odir")
    H = multinomial_hessian(U, W, b)
    pen = np.concatenate([penalty_mask(k, d, penalty).ravel(order="F").astype(np.float64) * 2.0 * n * lam,
                          np.full(k, 2.0 * n * mu)])
    H = H + np.diag(pen)
    se, singular, m = _se_from_hessian(H)
    # par order: column-major [W | b]: index j + k * m (m = d: intercept). Rows per class.
    order, names, null = [], [], []
    feat = ([f"log(p[{lv}])" for lv in fit.levels] if features == "dirichlet"
            else [f"z[{lv}]" for lv in fit.levels]) if d == k else [f"u{m + 1}" for m in range(d)]
    for j, lv in enumerate(fit.levels):
        order.append(j + k * d)
        names.append(f"{lv}: (Intercept)")
        null.append(0.0)
        for mm in range(d):
            order.append(j + k * mm)
            names.append(f"{lv}: {feat[mm]}")
            null.append(1.0 if mm == j else 0.0)
    est = np.concatenate([W.ravel(order="F"), b])[order]
    if lam > 0 or mu > 0:
        what = "off-diagonal weights" if penalty == "odir" else "weights"
        note = (f"Standard errors from the penalised observed information: the Hessian of the summed "
                f"negative log-likelihood plus n * lambda * ({what}^2) + n * mu * (intercepts^2) "
                f"(lambda = {lam:g}, mu = {mu:g}); estimates are shrunk, so these are ridge-type "
                "(Bayesian) standard errors. z and p test W = I and intercepts = 0.")
    else:
        note = ("Standard errors from the observed information (Hessian of the summed negative "
                "log-likelihood, lambda = 0). z and p test W = I and intercepts = 0.")
    if singular:
        note += _SINGULAR.format(m=m)
    return _frame(names, est, se[order], null, note)


def coef_table(fit, x=None, y=None):
    """The coefficient table of a likelihood calibrator.

    Parameters
    ----------
    fit : Calibrator
        ``cal_platt``, ``cal_beta`` (R's ``summary.glm`` table), ``cal_temperature``,
        ``cal_vector_scaling``, ``cal_dirichlet``, ``cal_dirichlet_l2`` or
        ``cal_matrix_scaling`` (observed-information standard errors); a ``cal_cv`` fit gives
        its final calibrator's table.
    x, y : array_like, optional
        The training data. Only needed for fits that do not keep it (fits of other modules,
        e.g. ``cal_matrix_scaling``); the calibrators of this package keep a reference.

    Returns
    -------
    pandas.DataFrame
        Index ``parameter``; columns ``Estimate``, ``Std. Error``, ``z value``,
        ``Pr(>|z|)``; ``.attrs["note"]`` says how the standard errors were obtained.

    Raises
    ------
    CalstatsError
        For a calibrator without a likelihood (isotonic, histogram, one-vs-rest) or when
        the training data is needed and not given.

    Notes
    -----
    Not part of R's probcal. Platt/beta: R's ``coef(summary(fit$fit))`` exactly
    (dispersion 1). The others: see :mod:`calstats.results._coeftable`.
    """
    from .. import _validate as v

    cls = fit.r_class[0]
    if cls == "cal_cv":
        return coef_table(fit.final_calibrator, x, y)
    if cls == "cal_platt":
        return glm_table(fit.fit, "Platt's smoothed targets are the response.")
    if cls == "cal_beta":
        return glm_table(fit.fit)
    if cls == "cal_temperature":
        return _temperature_table(fit, x, y)
    if cls == "cal_vector_scaling":
        return _vector_table(fit, x, y)
    if cls in ("cal_dirichlet", "cal_dirichlet_l2"):
        return _multinomial_table(fit, x, y, "dirichlet")
    if cls == "cal_matrix_scaling":
        return _multinomial_table(fit, x, y, "logits")
    if hasattr(fit, "_coef_table"):
        return fit._coef_table(x, y)
    v.fail(f"No coefficient table for a `{cls}` fit (it has no likelihood parameters).")


def has_coef_table(fit):
    """Whether :func:`coef_table` works on ``fit`` without training data."""
    cls = fit.r_class[0]
    if cls in ("cal_platt", "cal_beta"):
        return True
    if cls in ("cal_temperature", "cal_vector_scaling", "cal_dirichlet", "cal_dirichlet_l2", "cal_matrix_scaling"):
        return getattr(fit, "_coef_data", None) is not None
    return hasattr(fit, "_coef_table")

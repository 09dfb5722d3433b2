"""Coefficient tables: estimate, standard error, z, p-value, as R's ``summary.glm`` prints them.

R's probcal prints no such table; these are the tables a statistician expects from R's
``summary.glm``, for ``fit.summary(coef=True)`` and ``fit.coef_table()``. This module holds
the machinery every likelihood calibrator shares; each calibrator builds its own table
(``Calibrator._coef_table``) from its information matrix:

* a binomial GLM (Platt, beta): R's ``coef(summary(glm))``, standard errors
  ``sqrt(diag(cov.unscaled))`` with dispersion 1, ``z = estimate / se``,
  ``p = 2 * pnorm(-|z|)`` (:func:`glm_table`);
* a fit by a minimised (penalised) mean negative log-likelihood (temperature, vector,
  Dirichlet, matrix scaling): standard errors from the inverse of the observed information,
  the Hessian of the **summed** (penalised) negative log-likelihood at the estimate
  (:func:`se_from_hessian`); ``z`` tests each parameter against its value under the
  identity map. Where the Hessian is singular (parameters identified only up to a common
  shift) the non-identified parameters get NaN standard errors, and the identified ones
  come from the pseudo-inverse; the table's note says so (:data:`SINGULAR_NOTE`).

Each table is a DataFrame with R's columns ``Estimate``, ``Std. Error``, ``z value``,
``Pr(>|z|)``; ``table.attrs["note"]`` explains how it was computed.
"""

import math

import numpy as np
import pandas as pd
from scipy.special import ndtr

__all__ = ["COLUMNS", "coef_frame", "glm_table", "se_from_hessian", "SINGULAR_NOTE"]

COLUMNS = ["Estimate", "Std. Error", "z value", "Pr(>|z|)"]

SINGULAR_NOTE = (" The Hessian is singular: {m} parameters are not identified (only differences between "
                 "classes are), their standard errors are NaN; the others come from its pseudo-inverse.")


def coef_frame(names, estimate, se, null, note):
    """The table of ``estimate`` and ``se`` with ``z = (estimate - null) / se`` and its
    two-sided normal p-value."""
    estimate = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - np.asarray(null, dtype=np.float64)) / se
    p = 2.0 * ndtr(-np.abs(z))
    out = pd.DataFrame({COLUMNS[0]: estimate, COLUMNS[1]: se, COLUMNS[2]: z, COLUMNS[3]: p},
                       index=pd.Index([str(n) for n in names], name="parameter"))
    out.attrs["note"] = note
    return out


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
    return coef_frame(coef.index, est, se, np.zeros(est.size), base if note is None else base + " " + note)


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


def se_from_hessian(H):
    """``(se, singular, m)``: standard errors from the (pseudo-)inverse of the Hessian ``H``,
    whether it is singular, and the number ``m`` of parameters it does not identify."""
    cov, identified, singular = _covariance(H)
    var = np.diag(cov).copy()
    with np.errstate(invalid="ignore"):
        se = np.where((var >= 0) & identified, np.sqrt(np.abs(var)), np.nan)
    return se, singular, int((~identified).sum())

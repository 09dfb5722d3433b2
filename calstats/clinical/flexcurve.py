"""Flexible calibration curves with pointwise confidence bands, for :func:`val_prob_ci`.

* :func:`loess_curve` -- local polynomial regression of the outcome on the predicted
  probability (Cleveland's loess: span 0.75, degree 2, tricube weights over the
  ``floor(span * n)`` nearest points, Gaussian family without robustness iterations, as
  CalibrationCurves calls ``loess(y ~ p, degree = 2)``). The local fits are computed
  *directly* at every point and the residual scale uses the exact
  ``delta1 = trace((I - L)'(I - L))`` of the smoother matrix: this is R's
  ``loess(y ~ p, degree = 2, control = loess.control(surface = "direct",
  statistics = "exact"))`` (fit and standard errors agree with it to 6+ digits). R's
  default (``surface = "interpolate"``: fits at kd-tree vertices, interpolated, and an
  approximate delta1) differs from it by ~1e-4. Standard error at x: ``s * ||l(x)||``
  with ``s^2 = RSS / delta1``.
* :func:`rcs_curve` -- logistic regression on a restricted cubic spline of p (the basis
  and knots of ``Hmisc::rcspline.eval``, Hmisc's rules for ties and small n included),
  with Wald bands on the logit scale mapped to probabilities, as ``rcspline.plot(model = "logistic", show = "prob")`` draws them.
"""

import math

import numpy as np
from scipy import special as _sp

from ..numerics.reductions import rsum
from ..ports.hmisc.rcspline import rcspline_eval
from .logistic import logistic_mle

__all__ = ["loess_curve", "rcs_curve"]


def _smoother_rows(x, x0, q, degree):
    """Rows ``l(x0)`` of the local polynomial smoother (``fit(x0) = l(x0) @ y``), one per
    point of ``x0``: tricube weights on the distance to the ``q``-th nearest point, local
    polynomial of ``degree`` centred at ``x0`` (the weighted normal equations, with a
    pseudo-inverse where a local design is rank deficient)."""
    D = x[None, :] - x0[:, None]
    A = np.abs(D)
    if q < x.size:
        h = np.partition(A, q - 1, axis=1)[:, q - 1]
    else:
        h = A.max(axis=1) * (1.0 + 1e-12)
    h = np.where(h > 0, h, 1.0)
    U = A / h[:, None]
    W = np.where(U < 1, (1 - U ** 3) ** 3, 0.0)
    k = degree + 1
    pw = [W]
    for _ in range(2 * degree):
        pw.append(pw[-1] * D)
    mom = np.stack([m.sum(axis=1) for m in pw], axis=1)  # S_0..S_2d per row
    M = np.empty((x0.size, k, k))
    for i in range(k):
        for j in range(k):
            M[:, i, j] = mom[:, i + j]
    first = np.linalg.pinv(M, rcond=1e-12)[:, 0, :]  # first row of M^-1
    L = first[:, 0:1] * pw[0]
    for j in range(1, k):
        L = L + first[:, j:j + 1] * pw[j]
    return L


def _rows_chunked(x, x0, q, degree, chunk=256):
    for start in range(0, x0.size, chunk):
        yield start, _smoother_rows(x, x0[start:start + chunk], q, degree)


def loess_curve(p, y, span=0.75, degree=2, xout=None):
    """Loess of ``y`` on ``p`` with pointwise standard errors.

    Returns
    -------
    dict
        ``x`` (evaluation points), ``fit``, ``se``, ``fitted`` (at the observations),
        ``s`` (residual scale), ``delta1``, ``trace`` (trace of the smoother matrix).
    """
    p = np.asarray(p, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = p.size
    q = max(degree + 1, min(n, int(math.floor(n * span + 1e-5))))
    fitted = np.empty(n)
    diag = np.empty(n)
    rows_norm = np.empty(n)
    for start, L in _rows_chunked(p, p, q, degree):
        m = L.shape[0]
        fitted[start:start + m] = L @ y
        diag[start:start + m] = L[np.arange(m), start + np.arange(m)]
        rows_norm[start:start + m] = np.einsum("ij,ij->i", L, L)
    tr = float(np.sum(diag))
    # delta1 = trace((I - L)'(I - L)) = n - 2 tr(L) + sum_i ||l_i||^2
    delta1 = n - 2 * tr + float(np.sum(rows_norm))
    rss = rsum((y - fitted) ** 2)
    s = math.sqrt(rss / delta1) if delta1 > 0 else math.nan
    if xout is None:
        xout = p
    xout = np.atleast_1d(np.asarray(xout, dtype=np.float64))
    fit = np.empty(xout.size)
    se = np.empty(xout.size)
    for start, L in _rows_chunked(p, xout, q, degree):
        m = L.shape[0]
        fit[start:start + m] = L @ y
        se[start:start + m] = s * np.sqrt(np.einsum("ij,ij->i", L, L))
    return {"x": xout, "fit": fit, "se": se, "fitted": fitted, "s": s, "delta1": delta1, "trace": tr}


def rcs_curve(p, y, nk=5, xout=None, level=0.95):
    """Logistic regression of ``y`` on a restricted cubic spline of ``p``; fit and band
    (probability scale) at ``xout``. Returns a dict like :func:`loess_curve` (``se`` on the
    logit scale) plus ``lower``/``upper`` and ``knots``."""
    p = np.asarray(p, dtype=np.float64)
    basis, knots = rcspline_eval(p, nk=nk)
    X = np.column_stack([np.ones(p.size), basis])
    fit = logistic_mle(X, y)
    if xout is None:
        xout = p
    Xo = np.column_stack([np.ones(np.size(xout)), rcspline_eval(np.asarray(xout, dtype=np.float64), knots=knots)[0]])
    eta = Xo @ fit.coef
    se = np.sqrt(np.einsum("ij,jk,ik->i", Xo, fit.cov, Xo))
    z = _sp.ndtri(0.5 + level / 2)
    return {"x": np.asarray(xout, dtype=np.float64), "fit": _sp.expit(eta), "se": se,
            "lower": _sp.expit(eta - z * se), "upper": _sp.expit(eta + z * se),
            "fitted": _sp.expit(X @ fit.coef), "knots": knots, "converged": fit.converged}

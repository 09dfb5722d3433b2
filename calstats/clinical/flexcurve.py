"""Flexible calibration curves with pointwise confidence bands, for :func:`val_prob_ci`.

* :func:`loess_curve` -- R's ``loess(y ~ p, degree = 2)`` (span 0.75, tricube weights over
  the ``floor(span * n)`` nearest points, Gaussian family), as CalibrationCurves calls it,
  with ``predict(fit, se = TRUE)``: by default R's ``surface = "interpolate"`` (local fits at
  the vertices of R's k-d tree, blended by cubic Hermite interpolation; the residual scale
  from the trace of the smoother and Cleveland's approximation of delta1), in O(n) after
  sorting (:class:`calstats.ports.stats.loess.Loess`). ``surface = "direct"`` fits at every
  point (O(n^2)); ``statistics = "exact"`` computes delta1 = trace((I - L)'(I - L)) from the
  full smoother matrix (O(n^2) memory), as R's ``loess.control(statistics = "exact")``.
  Standard error at x: ``s * ||l(x)||``.
* :func:`rcs_curve` -- logistic regression on a restricted cubic spline of p (the basis
  and knots of ``Hmisc::rcspline.eval``, Hmisc's rules for ties and small n included),
  with Wald bands on the logit scale mapped to probabilities, as ``rcspline.plot(model = "logistic", show = "prob")`` draws them.
"""

import numpy as np
from scipy import special as _sp

from .._errors import CalstatsError
from ..ports.hmisc.rcspline import rcspline_eval
from ..ports.stats.loess import Loess
from .logistic import logistic_mle

__all__ = ["loess_curve", "rcs_curve"]


def loess_curve(p, y, span=0.75, degree=2, xout=None, surface="interpolate", statistics="approximate",
                weights=None, family="gaussian", strict=True):
    """R's ``loess(y ~ p, span, degree, family, control = loess.control(surface,
    statistics))`` with ``predict(fit, newdata = xout, se = TRUE)``.

    Returns
    -------
    dict
        ``x`` (evaluation points), ``fit``, ``se`` (NaN outside the range of ``p`` with
        interpolation, as R), ``fitted`` (at the observations, input order), ``s``
        (residual scale), ``delta1`` (R's ``one.delta``), ``trace`` (``trace.hat``) and
        ``model`` (the :class:`~calstats.ports.stats.loess.Loess` fit).

    With ``strict=False`` the prediction repeats none of the fit's warnings, and a fit R
    cannot predict from (a vertex without a neighbourhood: R's "NA/NaN/Inf in foreign
    function call") gives NaN curves instead of R's error, as ``val.prob.ci.2`` without a
    plot never predicts.
    """
    fit = Loess(p, y, weights=weights, span=span, degree=degree, family=family, surface=surface,
                statistics=statistics)
    if xout is None:
        xout = np.asarray(p, dtype=np.float64)
    xout = np.atleast_1d(np.asarray(xout, dtype=np.float64))
    if strict:
        f, se = fit.predict(xout, se=True)
    else:
        try:
            f, se = fit.predict(xout, se=True, quiet=True)
        except CalstatsError:
            f = se = np.full(xout.size, np.nan)
    return {"x": xout, "fit": f, "se": se, "fitted": fit.fitted, "s": fit.s, "delta1": fit.one_delta,
            "trace": fit.trace_hat, "model": fit}


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

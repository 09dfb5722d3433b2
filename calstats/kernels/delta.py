"""The delta method for calibrated probabilities: standard errors of a linear predictor
(or any smooth link of the fitted parameters) and the confidence interval it gives on the
probability scale.

``link_se`` is R's ``predict.glm(se.fit = TRUE, type = "link")`` for a likelihood fit
whose covariance is the inverse (observed or expected) information: for a GLM ``J`` is the
model matrix of the new rows and ``V`` is ``summary(glm)$cov.unscaled`` (dispersion 1).
"""

import numpy as np

from ..numerics import libm
from ..rng import _qnorm

__all__ = ["link_se", "link_interval"]


def link_se(J, V):
    """``sqrt(diag(J V J'))`` row by row: the delta-method standard error of each row's link.

    ``J`` is ``(n, p)`` (the gradient of each row's link in the ``p`` parameters), ``V`` the
    ``(p, p)`` covariance of the parameters. Rows are summed as ``(J V) * J`` across
    columns, so nothing of size ``n x n`` is formed.
    """
    J = np.asarray(J, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    if J.ndim == 1:
        J = J[:, None]
    var = np.einsum("ij,ij->i", J @ V, J)
    # tiny negative values are rounding of a zero variance
    return np.sqrt(np.maximum(var, 0.0))


def link_interval(eta, se, level):
    """``(lower, upper)`` of a Wald interval ``eta -/+ z se`` on the link scale, mapped
    through the inverse logit (``z = qnorm((1 + level)/2)``)."""
    z = _qnorm(0.5 + level / 2.0)  # R's qnorm
    with np.errstate(over="ignore"):
        lower = 1.0 / (1.0 + libm.exp(-(eta - z * se)))
        upper = 1.0 / (1.0 + libm.exp(-(eta + z * se)))
    return lower, upper

"""Binomial confidence intervals for the observed frequency of each bin.

Three intervals, each as the R function a statistician would check it against:

* ``"clopper-pearson"``: R's ``binom.test(x, n, conf.level = level)$conf.int``, the
  Beta quantiles ``qbeta(alpha/2, x, n - x + 1)`` and ``qbeta(1 - alpha/2, x + 1, n - x)``
  with 0 at ``x = 0`` and 1 at ``x = n``;
* ``"wilson"``: ``Hmisc::binconf(x, n, alpha, method = "wilson")``, the score interval
  ``(p + z^2/(2n) -/+ z sqrt((p(1 - p) + z^2/(4n)) / n)) / (1 + z^2/n)``, with Hmisc's
  one-sided bounds ``-log(1 - alpha)/n`` for the lower limit at ``x = 1`` and
  ``1 + log(1 - alpha)/n`` for the upper limit at ``x = n - 1``;
* ``"jeffreys"``: the equal-tailed quantiles of Beta(x + 1/2, n - x + 1/2).

``alpha = 1 - level`` (for Wilson rounded to 15 digits, the ``alpha = 0.05`` a user gives
Hmisc for ``level = 0.95``). ``x`` and ``n`` may be non-integer (an effective sample size under
case weights): the formulas are used as they stand.
"""

import numpy as np
from scipy.special import betaincinv

from ..numerics import libm
from ..rng import _qnorm

__all__ = ["binom_interval"]


def _qbeta(q, a, b):
    # scipy's inverse of the regularised incomplete beta function (Boost); R's qbeta is a
    # different algorithm (AS 109 with Newton steps): the two agree to about 1e-15
    with np.errstate(all="ignore"):
        return betaincinv(a, b, q)


def binom_interval(x, n, method, level):
    """``(lower, upper)`` arrays of the ``method`` interval for ``x`` successes in ``n``
    trials (elementwise; NaN where ``n`` is 0 or ``x`` is NaN)."""
    x = np.asarray(x, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    alpha = 1.0 - level
    with np.errstate(all="ignore"):
        if method == "clopper-pearson":
            a = alpha / 2.0  # R: alpha <- (1 - conf.level)/2
            lower = np.where(x == 0, 0.0, _qbeta(a, x, n - x + 1.0))
            upper = np.where(x == n, 1.0, _qbeta(1.0 - a, x + 1.0, n - x))
        elif method == "jeffreys":
            lower = _qbeta(alpha / 2.0, x + 0.5, n - x + 0.5)
            upper = _qbeta(1.0 - alpha / 2.0, x + 0.5, n - x + 0.5)
        else:  # wilson, Hmisc's arithmetic in Hmisc's order
            # Hmisc takes alpha (0.05), not a level: 1 - 0.95 is 0.05 + 4e-17 in doubles,
            # so the alpha a user types is the one rounded to 15 digits
            alpha = round(alpha, 15)
            z = -_qnorm(alpha / 2.0)
            z2 = z * z
            p = x / n
            centre = p + z2 / 2.0 / n
            half = z * np.sqrt((p * (1.0 - p) + z2 / 4.0 / n) / n)
            lower = (centre - half) / (1.0 + z2 / n)
            upper = (centre + half) / (1.0 + z2 / n)
            lower = np.where(x == 1, -libm.log(np.array(1.0 - alpha)) / n, lower)
            upper = np.where(x == n - 1, 1.0 + libm.log(np.array(1.0 - alpha)) / n, upper)
    bad = ~(n > 0) | np.isnan(x)
    lower = np.where(bad, np.nan, lower)
    upper = np.where(bad, np.nan, upper)
    return lower, upper

"""The logit transform and its inverse (R ``probcal::logit``, ``probcal::inv_logit``).

Both are elementwise: unlike the calibrators' vector arguments they accept input of any
shape (R keeps a matrix's dimensions) and return an array of the input's shape, a 0-d input
becoming a length-one vector (R has no scalars). The checks are probcal's (a numeric vector,
non-empty, without missing or infinite values, for ``logit`` also in [0, 1]; then ``eps``), with
R's messages, and the arithmetic is R's (glibc ``exp``/``log``).
"""

import numpy as np
from numpy.typing import ArrayLike

from . import _validate as v
from .kernels.probs import inv_logit as _inv_logit
from .numerics import libm

__all__ = ["logit", "inv_logit"]

DBL_EPSILON = 2.220446049250313e-16


def _elementwise(x, arg, check):
    """Validate ``x`` elementwise with ``check`` (R's numeric or probability vector check), keeping its shape.

    The validators work on vectors; an elementwise function accepts any shape, so the
    values are flattened for the check and reshaped afterwards (0-d becomes 1-D).
    """
    cls = v.as_vec(x)
    if cls.kind != "numeric":
        check(x, arg)  # raises the "must be a numeric vector." message
    vals = np.where(np.asarray(cls.na, dtype=bool), np.nan, np.asarray(cls.values, dtype=np.float64))
    shape = vals.shape if vals.ndim else (1,)
    return check(vals.reshape(-1), arg).reshape(shape)


def logit(p: ArrayLike, eps: float = DBL_EPSILON) -> np.ndarray:
    """Log-odds of probabilities clipped away from 0 and 1.

    Computes ``log(p* / (1 - p*))`` with ``p* = min(max(p, eps), 1 - eps)`` elementwise.

    Parameters
    ----------
    p : array_like
        Probabilities in [0, 1], any shape (numeric dtype; booleans are rejected as in R,
        where logical vectors are not numeric). No missing or infinite values.
    eps : float, default ``2.220446049250313e-16``
        Clipping constant in (0, 0.5); the default is R's ``.Machine$double.eps``, so
        ``logit(0) = log(eps / (1 - eps))`` is about -36.04, as in R.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``p`` (a scalar gives a length-one vector).

    Raises
    ------
    CalstatsError
        ``Argument `p` must be a numeric vector.`` (and the other messages of R's check of a
        probability vector: empty, missing, infinite, outside ``[0, 1]``), then
        ``Argument `eps` must be a single number in `(0, 0.5)`.``

    Notes
    -----
    R equivalent: ``probcal::logit(p, eps = .Machine$double.eps)``; same checks in the
    same order, same numbers (one division, then glibc's ``log``). With ``eps < 2^-53``,
    ``1 - eps`` rounds to 1 and ``logit(1)`` is ``inf``, as in R.

    Examples
    --------
    >>> import calstats
    >>> calstats.logit([0.5, 0.75])
    array([0.        , 1.09861229])
    """
    vals = _elementwise(p, "p", v.check_prob)
    e = v.check_eps(eps)
    clipped = v.clip_prob(vals, e)
    with np.errstate(divide="ignore"):
        return libm.log(clipped / (1.0 - clipped))


def inv_logit(x: ArrayLike) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-x))``.

    Parameters
    ----------
    x : array_like
        Finite real numbers, any shape (numeric dtype). ``±inf`` is rejected although
        the limits exist, as in R.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``x`` (a scalar gives a length-one vector). Very negative
        values underflow to 0, large ones round to 1 (R ``plogis`` semantics).

    Raises
    ------
    CalstatsError
        ``Argument `x` must be a numeric vector.``, ``... must not be empty.``,
        ``... must not contain missing values.``, ``... must contain only finite values.``

    Notes
    -----
    R equivalent: ``probcal::inv_logit(x)``; same checks and numbers.

    Examples
    --------
    >>> import calstats
    >>> calstats.inv_logit([0.0, 2.0])
    array([0.5       , 0.88079708])
    """
    vals = _elementwise(x, "x", v.check_numeric)
    return _inv_logit(vals)

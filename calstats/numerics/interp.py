"""R's ``approx``, ``findInterval`` and type-8 ``quantile``, with R's arithmetic.

All three are vectorised with NumPy but follow R's own arithmetic, not NumPy's:

* :func:`approx_constant` -- ``approx(x, y, xout, method = "linear", rule = 2,
  ties = "ordered")``. :func:`numpy.interp` evaluates the line with a different formula
  (slope first), which rounds differently from R's ``y_i + (y_j - y_i) * ((v - x_i) /
  (x_j - x_i))``, and picks the bracketing pair differently at knots.
* :func:`find_interval` -- ``findInterval(v, breaks, rightmost.closed = TRUE,
  all.inside = TRUE)`` (exact comparisons only; given for a single, tested definition).
* :func:`quantile_type8` -- ``quantile(x, probs, type = 8)``. NumPy's
  ``method="median_unbiased"`` is the same definition but computes the position and the
  interpolation with different operations, so results differ in the last bits.
"""

import numpy as np

from .._errors import fail
from .._messages import (
    APPROX_CONSTANT_LENGTHS,
    FIND_INTERVAL_BREAKS,
    FIND_INTERVAL_NAN,
    QUANTILE8_EMPTY,
    QUANTILE8_NAN,
    QUANTILE_PROBS,
)

__all__ = ["seq_length", "approx_constant", "find_interval", "quantile_type7", "quantile_type8", "type7_positions", "type7_combine"]

_EPS = 2.220446049250313e-16  # .Machine$double.eps


def seq_length(start, end, n):
    """R's ``seq(start, end, length.out = n)`` for numbers: ``start``, ``start + i * by``
    (``by = (end - start) / (n - 1)``) and ``end`` exactly, as R 4.2 computes it."""
    n = int(n)
    if n == 1:
        return np.array([float(start)])
    by = (end - start) / float(n - 1)
    return np.concatenate([[start], start + np.arange(1, n - 1, dtype=np.float64) * by, [end]]).astype(np.float64)


def approx_constant(x_knots, y_knots, v):
    """Linear interpolation with constant extension, as R's ``approx(..., rule = 2)``.

    Parameters
    ----------
    x_knots : array_like
        Knot abscissae, sorted increasingly (R's ``ties = "ordered"``: the order is taken as
        given, tied knots are not collapsed).
    y_knots : array_like
        Values at the knots, same length.
    v : array_like or float
        Points to evaluate at.

    Returns
    -------
    numpy.ndarray or float
        Interpolated values (a float for scalar ``v``). Below the first knot ``y[0]``, above
        the last ``y[-1]``; NaN stays NaN.

    Notes
    -----
    Reproduces ``approx1`` of R's ``approx.c``: bisection ``i = 0, j = m - 1``; while
    ``i < j - 1``: ``h = (i + j) // 2``, ``j = h`` if ``v < x[h]`` else ``i = h``. For sorted
    knots this ends with ``i`` = the last index with ``x[i] <= v`` (capped at ``m - 2``), which
    is what :func:`numpy.searchsorted` with ``side="right"`` gives. Then ``y[j]`` if
    ``v == x[j]``, ``y[i]`` if ``v == x[i]``, else ``y[i] + (y[j] - y[i]) * ((v - x[i]) /
    (x[j] - x[i]))`` in double, in that order of operations.
    """
    x = np.asarray(x_knots, dtype=np.float64).ravel()
    y = np.asarray(y_knots, dtype=np.float64).ravel()
    if x.size != y.size:
        raise ValueError(APPROX_CONSTANT_LENGTHS)
    scalar = np.ndim(v) == 0
    vv = np.atleast_1d(np.asarray(v, dtype=np.float64))
    m = x.size
    if m == 0:
        out = np.full(vv.shape, np.nan)
        return float(out[0]) if scalar else out
    if m == 1:
        out = np.where(np.isnan(vv), vv, y[0])
        return float(out[0]) if scalar else out
    i = np.clip(np.searchsorted(x, vv, side="right") - 1, 0, m - 2)
    j = i + 1
    xi, xj, yi, yj = x[i], x[j], y[i], y[j]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # R overflows silently
        out = yi + (yj - yi) * ((vv - xi) / (xj - xi))
    out = np.where(vv == xi, yi, out)
    out = np.where(vv == xj, yj, out)  # checked first in R, so it wins
    out = np.where(vv < x[0], y[0], out)
    out = np.where(vv > x[-1], y[-1], out)
    out = np.where(np.isnan(vv), vv, out)
    return float(out[0]) if scalar else out


def find_interval(v, breaks):
    """1-based bin of each ``v``, as R's ``findInterval(v, breaks, rightmost.closed = TRUE,
    all.inside = TRUE)``.

    Parameters
    ----------
    v : array_like or float
        Values (not NaN).
    breaks : array_like
        ``J + 1 >= 2`` non-decreasing breaks.

    Returns
    -------
    numpy.ndarray or int
        ``#{breaks <= v}`` clamped to ``[1, J]`` (int64; an int for scalar ``v``): bins are
        ``[b_{j-1}, b_j)``, the last one closed, values below the first break in bin 1 and
        values at or above the last break in bin J.

    Notes
    -----
    Exact comparisons on the doubles: ``0.3`` and ``3 * 0.1`` can fall in different bins.
    """
    b = np.asarray(breaks, dtype=np.float64).ravel()
    if b.size < 2:
        raise ValueError(FIND_INTERVAL_BREAKS)
    scalar = np.ndim(v) == 0
    vv = np.atleast_1d(np.asarray(v, dtype=np.float64))
    if np.isnan(vv).any():
        raise ValueError(FIND_INTERVAL_NAN)
    out = np.clip(np.searchsorted(b, vv, side="right"), 1, b.size - 1).astype(np.int64)
    return int(out[0]) if scalar else out


def type7_positions(n, probs):
    """R's ``quantile(type = 7)`` positions for ``n`` sorted values: ``index = 1 + (n - 1) q``
    and the 1-based order statistics ``lo = floor(index)``, ``hi = ceil(index)`` it reads."""
    q = np.atleast_1d(np.asarray(probs, dtype=np.float64))
    eps = 100 * 2.220446049250313e-16  # R: 100 * DBL_EPSILON
    if np.any((q < -eps) | (q > 1 + eps)):
        fail(QUANTILE_PROBS)
    q = np.maximum(0.0, np.minimum(1.0, q))
    index = 1.0 + max(n - 1, 0) * q
    return index, np.floor(index).astype(np.int64), np.ceil(index).astype(np.int64)


def type7_combine(index, lo, xlo, xhi):
    """R's type-7 quantile from the order statistics ``xlo = x[lo]``, ``xhi = x[hi]``:
    ``(1 - h) x[lo] + h x[hi]``, ``h = index - lo``, as R computes it."""
    h = index - lo
    use = (index > lo) & (xhi != xlo)
    return np.where(use, (1.0 - h) * xlo + h * xhi, xlo)


def quantile_type7(x, probs):
    """R ``quantile(x, probs, type = 7)`` (x finite, not empty)."""
    xs = np.sort(np.asarray(x, dtype=np.float64).ravel())
    index, lo, hi = type7_positions(xs.size, probs)
    out = type7_combine(index, lo, xs[lo - 1], xs[hi - 1])
    return float(out[0]) if np.ndim(probs) == 0 else out


def quantile_type8(x, probs):
    """Sample quantiles of type 8 (median-unbiased), as R's ``quantile(x, probs, type = 8)``.

    Parameters
    ----------
    x : array_like
        Data (finite; at least one value).
    probs : array_like or float
        Probabilities in [0, 1] (values within ``100 * eps`` outside are clamped, as in R).

    Returns
    -------
    numpy.ndarray or float
        The quantiles (a float for scalar ``probs``).

    Notes
    -----
    R's arithmetic, step by step (``a = b = 1/3`` as doubles, ``fuzz = 4 * eps``)::

        nppm = a + q * ((n + 1 - a) - b)
        j = floor(nppm + fuzz); h = nppm - j; h = 0 if |h| < fuzz
        lo, hi = xs[j], xs[j + 1]        # 1-based, indices clamped to [1, n]
        lo if h == 0 (or lo == hi), hi if h == 1, else (1 - h) * lo + h * hi

    :func:`numpy.quantile` with ``method="median_unbiased"`` rounds differently.
    """
    xs = np.sort(np.asarray(x, dtype=np.float64).ravel())
    n = xs.size
    if n == 0:
        raise ValueError(QUANTILE8_EMPTY)
    if np.isnan(xs).any():
        raise ValueError(QUANTILE8_NAN)
    scalar = np.ndim(probs) == 0
    q = np.atleast_1d(np.asarray(probs, dtype=np.float64))
    eps = 100 * _EPS
    if np.any((q < -eps) | (q > 1 + eps)):
        fail(QUANTILE_PROBS)
    q = np.maximum(0.0, np.minimum(1.0, q))
    a = b = 1.0 / 3.0
    fuzz = 4 * _EPS
    nppm = a + q * ((n + 1 - a) - b)
    j = np.floor(nppm + fuzz)
    h = nppm - j
    h = np.where(np.abs(h) < fuzz, 0.0, h)
    xp = np.concatenate(([xs[0], xs[0]], xs, [xs[-1], xs[-1]]))
    ji = j.astype(np.int64)
    lo = xp[ji + 1]  # R: x[j + 2] (1-based)
    hi = xp[ji + 2]  # R: x[j + 3]
    out = lo.copy()
    out = np.where(h == 1, hi, out)
    other = (h > 0) & (h < 1) & (lo != hi)
    out = np.where(other, (1 - h) * lo + h * hi, out)
    return float(out[0]) if scalar else out

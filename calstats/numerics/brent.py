"""R's ``optimize()`` (C routine ``Brent_fmin``): golden section + parabolic interpolation.

probcal's temperature scaling calls ``optim(1, fn, method = "Brent", lower = 1e-3,
upper = 1e3)``, which is ``optimize(fn, lower = 1e-3, upper = 1e3, tol = sqrt(DBL_EPSILON))``
(optim's default ``reltol``, not optimize's own default ``tol``). The minimiser is only
determined to ~1e-8 relative, so *where* Brent's iteration stops is the answer R users see.

Why not SciPy: ``scipy.optimize.minimize_scalar(method="bounded")`` is also Brent's
method but uses different constants and tests (its own ``xatol``, a different stopping rule
and step safeguards), and ``method="brent"`` is unbounded with a bracketing phase; neither
visits R's sequence of points, so their answers differ from R's in the 8th digit and
the boundary solutions (R returns e.g. 0.0010000088 or 999.99998) are not reproduced.
This port follows R's C code statement by statement on Python floats (IEEE doubles, which
is what R's C code computes with).
"""

import math

from .._errors import fail, warn
from .._messages import (
    OPTIMIZE_FUNCTION_VALUE,
    OPTIMIZE_INTERVAL,
    OPTIMIZE_NONFINITE,
    OPTIMIZE_TOL,
    OPTIMIZE_XMAX,
    OPTIMIZE_XMIN,
)

__all__ = ["brent_min", "DBL_MAX", "SQRT_DBL_EPSILON"]

DBL_EPSILON = 2.220446049250313e-16
SQRT_DBL_EPSILON = math.sqrt(DBL_EPSILON)  # 1.4901161193847656e-08
DBL_MAX = 1.7976931348623157e308


def _fcn1(f, x):
    """R's ``fcn1`` wrapper: evaluate, and replace a non-finite value by ``DBL_MAX``."""
    value = f(x)
    try:
        value = float(value)
    except (TypeError, ValueError):
        fail(OPTIMIZE_FUNCTION_VALUE)
    if not math.isfinite(value):
        warn(OPTIMIZE_NONFINITE)
        return DBL_MAX
    return value


def brent_min(f, lower, upper, tol=SQRT_DBL_EPSILON):
    """Minimise ``f`` on ``[lower, upper]`` exactly as R's ``optimize(f, c(lower, upper),
    tol = tol)`` (R's C routine ``Brent_fmin``).

    Parameters
    ----------
    f : callable
        Objective ``f(x) -> float`` of a Python float. A non-finite value (NaN, ±Inf) is
        replaced by ``DBL_MAX`` with the warning ``NA/Inf replaced by maximum positive
        value`` (a :class:`calstats.CalstatsWarning`, once per such evaluation), as R does.
    lower, upper : float
        Search interval; R's checks apply (``invalid 'xmin' value``, ``invalid 'xmax'
        value``, ``'xmin' not less than 'xmax'``, ``invalid 'tol' value``).
    tol : float, default ``sqrt(DBL_EPSILON)``
        Brent's tolerance. probcal (through ``optim(method = "Brent")``) uses
        ``sqrt(DBL_EPSILON)``; note that ``optimize``'s own default would be
        ``DBL_EPSILON^0.25``.

    Returns
    -------
    float
        The minimiser ``x`` (R's ``$minimum``). R's ``$objective`` is a fresh evaluation
        ``f(x)`` made by the caller, outside this routine (so without the ``DBL_MAX``
        replacement).

    Notes
    -----
    SciPy's ``minimize_scalar`` is not used: its bounded Brent variant has different
    constants and stopping tests, so it stops at different points (module docstring).
    """
    ax = float(lower)
    bx = float(upper)
    tol = float(tol)
    if not math.isfinite(ax):
        fail(OPTIMIZE_XMIN)
    if not math.isfinite(bx):
        fail(OPTIMIZE_XMAX)
    if ax >= bx:
        fail(OPTIMIZE_INTERVAL)
    if not math.isfinite(tol) or tol <= 0.0:
        fail(OPTIMIZE_TOL)

    # c is the squared inverse of the golden ratio
    c = (3.0 - math.sqrt(5.0)) * 0.5
    eps = math.sqrt(DBL_EPSILON)

    a = ax
    b = bx
    v = a + c * (b - a)
    w = v
    x = v

    d = 0.0
    e = 0.0
    fx = _fcn1(f, x)
    fv = fx
    fw = fx
    tol3 = tol / 3.0

    while True:
        xm = (a + b) * 0.5
        tol1 = eps * abs(x) + tol3
        t2 = tol1 * 2.0

        # check stopping criterion
        if abs(x - xm) <= t2 - (b - a) * 0.5:
            break
        p = 0.0
        q = 0.0
        r = 0.0
        if abs(e) > tol1:  # fit parabola
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = (q - r) * 2.0
            if q > 0.0:
                p = -p
            else:
                q = -q
            r = e
            e = d

        if abs(p) >= abs(q * 0.5 * r) or p <= q * (a - x) or p >= q * (b - x):
            # a golden-section step
            if x < xm:
                e = b - x
            else:
                e = a - x
            d = c * e
        else:
            # a parabolic-interpolation step
            d = p / q
            u = x + d
            # f must not be evaluated too close to ax or bx
            if u - a < t2 or b - u < t2:
                d = tol1
                if x >= xm:
                    d = -d

        # f must not be evaluated too close to x
        if abs(d) >= tol1:
            u = x + d
        elif d > 0.0:
            u = x + tol1
        else:
            u = x - tol1

        fu = _fcn1(f, u)

        # update a, b, v, w, and x
        if fu <= fx:
            if u < x:
                b = x
            else:
                a = x
            v = w
            w = x
            x = u
            fv = fw
            fw = fx
            fx = fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v = w
                fv = fw
                w = u
                fw = fu
            elif fu <= fv or v == x or v == w:
                v = u
                fv = fu

    return x

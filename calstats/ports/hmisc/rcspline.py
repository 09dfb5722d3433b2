"""Harrell's restricted cubic spline basis as ``Hmisc::rcspline.eval(x, knots, nk,
inclx = TRUE)`` (Hmisc 4.8-0) computes it, knots included: used by pmcalibration's
``smooth = "rcs"`` and by the calibration hierarchy's flexible curve (CalibrationCurves
draws it with ``rcspline.plot``, which calls ``rcspline.eval``)."""


import numpy as np

from ..._errors import fail, warn
from ..._messages import (
    RCS_ALTERNATE,
    RCS_FEW,
    RCS_KNOTS_SET,
    RCS_NK,
    RCS_UNIQUE,
)
from ...numerics import libm
from ...numerics.interp import quantile_type7, seq_length
from ...numerics.reductions import rmedian

__all__ = ["rcspline_eval"]


def _rcs_default_knots(x, nk):
    xx = x[~np.isnan(x)]
    n = xx.size
    if n < 6:
        fail(RCS_FEW)
    if nk < 3:
        fail(RCS_NK)
    xu, counts = np.unique(xx, return_counts=True)
    nxu = xu.size
    if nxu - 2 <= nk:
        warn(RCS_KNOTS_SET.format(nk=nk, unique=nxu, interior=nxu - 2))
        return xu[1:-1]
    outer = 0.05 if nk > 3 else 0.1
    if nk > 6:
        outer = 0.025
    override_first = override_last = False
    nke = nk
    first, last = [], []
    f = counts / n
    if np.max(f[1:-1]) < 0.05:
        if f[0] >= 0.05:
            first = [float(np.min(xx[xx > np.min(xx)]))]
            xx = xx[xx > first[0]]
            nke -= 1
            override_first = True
        if f[-1] >= 0.05:
            last = [float(np.max(xx[xx < np.max(xx)]))]
            xx = xx[xx < last[0]]
            nke -= 1
            override_last = True
    if nke == 1:
        knots = np.array([rmedian(xx)])
    elif nxu <= nke:
        knots = xu.copy()
    else:
        probs = seq_length(0.5, 1 - outer, nke) if nke == 2 else seq_length(outer, 1 - outer, nke)
        knots = np.asarray(quantile_type7(xx, probs), dtype=np.float64)
        if np.unique(knots).size < min(nke, 3):
            knots = np.asarray(quantile_type7(xx, seq_length(outer, 1 - outer, 2 * nke)), dtype=np.float64)
            if first and np.unique(knots).size < 3:
                midval = (first[0] + last[0]) / 2 if last else rmedian(xx)
                knots = np.sort(np.array([first[0], midval, last[0] if last else quantile_type7(xx, 1 - outer)]))
            nu = np.unique(knots).size
            if nu < 3:
                fail(RCS_UNIQUE)
            warn(RCS_ALTERNATE.format(nk=nke, nu=nu))
        if xx.size < 100:
            xs = np.sort(xx)
            if not override_first:
                knots[0] = xs[4]
            if not override_last:
                knots[nke - 1] = xs[xs.size - 5]
    return np.concatenate([first, knots, last])


def rcspline_eval(x, knots=None, nk=5):
    """``Hmisc::rcspline.eval(x, knots, nk, inclx = TRUE)`` (Hmisc 4.8-0): the design
    ``cbind(x, <nk - 2 restricted cubic terms>)`` and the knots used.

    Default knots follow Hmisc exactly: quantiles ``seq(outer, 1 - outer)`` of ``x``, the
    ``fractied`` rule for heavily tied extremes, the outer knots at the 5th smallest and
    largest values when fewer than 100 values are used, and the interior unique values when
    there are at most ``nk + 2`` of them (with Hmisc's warning).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    if knots is None or len(knots) == 0:
        knots = _rcs_default_knots(x, int(nk))
    knots = np.unique(np.asarray(knots, dtype=np.float64))
    k = knots.size
    if k < 3:
        fail(RCS_UNIQUE)
    k1, kn, kn1 = knots[0], knots[-1], knots[-2]
    kd = _r_pow(kn - k1, 2.0 / 3.0)
    cols = [x]
    # the last two knots' cubes are the same in every column: computed once
    cube_kn = _r_pow(np.maximum((x - kn) / kd, 0.0), 3.0)
    cube_kn1 = _r_pow(np.maximum((x - kn1) / kd, 0.0), 3.0)
    for j in range(k - 2):
        cols.append(_r_pow(np.maximum((x - knots[j]) / kd, 0.0), 3.0)
                    + ((kn1 - knots[j]) * cube_kn - (kn - knots[j]) * cube_kn1) / (kn - kn1))
    return np.column_stack(cols), knots


def _r_pow(x, y):
    """R's ``x^y`` for ``y != 2`` (``R_pow``): the C library's ``pow``
    (:func:`calstats.numerics.libm.pow`); a float for a scalar ``x``."""
    out = libm.pow(x, y)
    return float(out) if out.ndim == 0 else out




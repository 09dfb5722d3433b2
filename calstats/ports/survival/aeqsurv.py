"""survival's ``aeqSurv`` (survival 3.5-3), the ``timefix = TRUE`` step that both
``coxph`` and ``survfit`` take before anything else: follow-up times that agree to
``all.equal``'s tolerance are one time."""

import math

import numpy as np

from ...numerics.reductions import rmean

__all__ = ["aeq_surv"]

#: aeqSurv's default tolerance, ``sqrt(.Machine$double.eps)`` (all.equal's)
TIMEFIX_TOL = math.sqrt(2.220446049250313e-16)


def aeq_surv(time):
    """Times within the tolerance of the previous distinct time (absolutely, or relative to
    the mean absolute distinct time) are moved onto the first time of their run."""
    y = np.unique(time)
    y = y[np.isfinite(y)]
    if y.size < 2:
        return time
    dy = np.diff(y)
    tied = (dy <= TIMEFIX_TOL) | (dy / rmean(np.abs(y)) <= TIMEFIX_TOL)
    if not tied.any():
        return time
    cuts = y[np.concatenate(([True], ~tied))]
    return cuts[np.searchsorted(cuts, time, side="right") - 1]  # findInterval

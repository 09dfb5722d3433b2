"""The temperature search of temperature scaling: R's ``optimize`` on [1e-3, 1e3].

probcal fits the temperature with ``optim(1, fn, method = "Brent", lower = 1e-3, upper =
1e3)``, i.e. R's ``optimize`` (:func:`calstats.numerics.brent.brent_min`) with tolerance
``sqrt(.Machine$double.eps)``. The in-memory fit and the Dask fit (one distributed pass per
evaluation of the objective) search with this one function.
"""

import math

from .. import _validate as v
from ..numerics.brent import SQRT_DBL_EPSILON, brent_min

__all__ = ["T_LOWER", "T_UPPER", "brent_temperature"]

#: The search interval of ``cal_temperature``.
T_LOWER, T_UPPER = 1e-3, 1e3


def brent_temperature(objective):
    """``(T, objective(T))`` minimising ``objective`` over ``[T_LOWER, T_UPPER]`` as R does."""
    temperature = brent_min(objective, T_LOWER, T_UPPER, SQRT_DBL_EPSILON)
    if not math.isfinite(temperature) or temperature <= 0:  # unreachable, as in R
        v.fail_temperature()
    return temperature, float(objective(temperature))

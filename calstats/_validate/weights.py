"""Case weights (:mod:`calstats._weights`).
"""

from typing import NoReturn

import numpy as np

from .._errors import fail
from .core import fail_missing_or_infinite, fail_negative

# --------------------------------------------------------------------------------------
# case weights (calstats._weights)


def fail_weights_type(arg) -> NoReturn:
    """Case weights that are not a numeric vector."""
    fail(f"Argument `{arg}` must be a numeric vector of case weights.")


def check_weights_values(w, n, arg):
    """Case weights (a float64 vector): one per observation, finite, non-negative, not all zero."""
    if w.size != n:
        fail(f"Argument `{arg}` must have one value per observation ({n}), not {w.size}.")
    if not np.isfinite(w).all():
        fail_missing_or_infinite(arg)
    if (w < 0).any():
        fail_negative(arg)
    if not (w > 0).any():
        fail(f"Argument `{arg}` must not be all zero.")
    return w

"""Case weights (``weights=``): one check for every function that takes them.

Weights are frequency or importance weights of the observations: a weighted fit minimises
``sum(w_i * loss_i) / sum(w_i)``, and integer weights give the fit (and metric) of the data
with row i repeated ``w_i`` times. ``weights=None`` is R's unweighted computation, bit for
bit. Not in R's probcal; the argument has R's name (as ``glm(weights =)``).
"""

import numpy as np
import pandas as pd

from ._frames import native
from ._validate import check_weights_values, fail_weights_type

__all__ = ["check_weights", "replicate_rows"]


def check_weights(weights, n, arg="weights"):
    """``None``, or the weights as a float64 array of length ``n`` (checked, never the
    caller's array)."""
    if weights is None:
        return None
    weights = native(weights, arg)  # polars, pyarrow, torch, ...: as pandas or NumPy
    if isinstance(weights, (pd.Series, pd.Index)):
        weights = weights.to_numpy()
    try:
        w = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError):
        fail_weights_type(arg)
    if isinstance(weights, (str, bytes)) or w.ndim > 1 and not (w.ndim == 2 and 1 in w.shape):
        fail_weights_type(arg)
    return check_weights_values(w.ravel(), n, arg)


def replicate_rows(weights):
    """Row indices repeating row i ``weights[i]`` times (integer weights; for tests and docs)."""
    w = np.asarray(weights)
    return np.repeat(np.arange(w.size), w.astype(np.int64))

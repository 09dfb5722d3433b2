"""Python face of the fast engine (:mod:`calstats.numerics._fast`), ``engine="fast"``.

R's engine (:mod:`calstats.numerics.core`) reproduces R's numbers bit for bit: the C
library's ``exp`` and R's long-double sums in R's order. The fast engine computes the same
objectives with a vectorised ``exp`` (within about 1 ulp of the exact value) and pairwise
double sums, on every core, and gives the same optimum to 1e-8 relative, not R's last bits.
Its numbers do not depend on the number of threads.
"""

import numpy as np

try:
    from . import _fast
except ImportError as exc:  # pragma: no cover - a broken installation
    raise ImportError(
        "calstats' fast engine (calstats.numerics._fast) is not built: reinstall calstats with a C "
        "compiler and the Python headers available (e.g. apt-get install gcc python3-dev; "
        "pip install calstats)"
    ) from exc

from .core import ScalingData, _threads

__all__ = ["FastScalingData", "temperature_value", "vector_scaling_eval", "exp", "pairwise_sum"]


class FastScalingData(ScalingData):
    """The data of a scaling objective for the fast engine: :class:`~calstats.numerics.core.ScalingData`
    (``Z`` n x k logits, C order, float64 or float32 read as it is; 1-based ``codes``;
    optional case ``weights``, checked once) and each row's largest and true-class logit,
    formed on first use."""

    __slots__ = ("_rows",)

    def __init__(self, Z, codes, weights=None):
        super().__init__(Z, codes, weights)
        self._rows = None

    def _args(self):
        return (self.Z, int(self.Z.dtype == np.float32), self.codes, int(self.n), int(self.k), self.weights)

    def temperature_rows(self):
        """Each row's largest logit and its true class's logit (float64), formed once:
        ``max(z / T) = max(z) / T`` for every ``T > 0``."""
        if self._rows is None:
            m = np.ascontiguousarray(self.Z.max(axis=1), dtype=np.float64)
            zy = np.ascontiguousarray(self.Z[np.arange(self.n), self.codes - 1], dtype=np.float64)
            self._rows = (m, zy)
        return self._rows


def temperature_value(data, temperature, threads=None):
    """Mean negative log-likelihood of ``softmax(Z / T)`` (weighted: ``-sum(w * lp) /
    sum(w)``) with the true class's probability clipped to ``[1e-15, 1 - 1e-15]``, as R's
    objective; ``data`` a :class:`FastScalingData`."""
    m, zy = data.temperature_rows()
    return _fast.temperature_value(*data._args(), m, zy, float(temperature), _threads(threads))


def vector_scaling_eval(data, par, grad=None, threads=None):
    """Mean negative log-likelihood of ``softmax(z_ij s_j + b_j)`` at ``par = (s, b)``;
    ``grad`` (a float64 array of ``2 k``, or None) receives its gradient (as R's, which
    ignores the clipping)."""
    par = np.ascontiguousarray(par, dtype=np.float64)
    if par.size != 2 * data.k:
        raise ValueError("par has the wrong length")
    if grad is not None and (grad.size != 2 * data.k or grad.dtype != np.float64 or not grad.flags.c_contiguous):
        raise ValueError("grad must be a contiguous float64 array of length 2 k")
    return _fast.vector_scaling_eval(*data._args(), par, grad, _threads(threads))


def exp(x):
    """The fast engine's ``exp`` of every element of ``x`` (float64; within about 1 ulp of
    the exact value; NaN, infinities, underflow to subnormals and 0 as the C library)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    _fast.exp(x, out)
    return out


def pairwise_sum(x):
    """The fast engine's sum of a float64 vector: NumPy's pairwise summation."""
    return _fast.pairwise_sum(np.ascontiguousarray(x, dtype=np.float64).ravel())

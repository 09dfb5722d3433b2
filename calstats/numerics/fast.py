"""Python face of the fast engine (:mod:`calstats.numerics._fast`), ``engine="fast"``.

R's engine (:mod:`calstats.numerics.core`) reproduces R's numbers bit for bit: the C
library's ``exp`` and R's long-double sums in R's order. The fast engine computes the same
objectives with a vectorised ``exp`` (within about 1 ulp of the exact value) and pairwise
double sums, on every core, and gives the same optimum to 1e-8 relative, not R's last bits.
For the metrics it sums each bin's scores in one blocked double pass (R: two long-double
passes per bin) and the Brier and log-loss terms pairwise; the bins and their counts are
R's exactly. Its numbers do not depend on the number of threads.

An installation without a C compiler has no fast engine: ``engine="fast"`` then runs R's
engine (R's numbers).
"""

from typing import Any

import numpy as np

from .._messages import CORE_PAR_LENGTH, FAST_GRAD_LAYOUT
from .core import ScalingData, _threads
from .passes import BRIER_MATRIX, LOGLIK_MATRIX, compiled_module, float_array

_fast: Any = compiled_module("_fast")
#: Whether the fast engine is compiled; without it ``engine="fast"`` runs R's engine
#: (:func:`calstats._options.resolve_engine`), and nothing here is called.
COMPILED = _fast is not None

__all__ = ["COMPILED", "FastScalingData", "temperature_value", "vector_scaling_eval", "exp", "pairwise_sum", "bin_cells",
           "score"]


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
        raise ValueError(CORE_PAR_LENGTH)
    if grad is not None and (grad.size != 2 * data.k or grad.dtype != np.float64 or not grad.flags.c_contiguous):
        raise ValueError(FAST_GRAD_LAYOUT)
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


_F4 = np.dtype(np.float32)


def _readable(x):
    """``x`` as a C-ordered float64 or float32 array (float32 kept: read widened, exactly)."""
    return np.ascontiguousarray(float_array(x))


def bin_cells(P, mode, edges, codes=None, group=None, ngroups=None, threads=None):
    """``(cnt, ysum, sums)`` of the cells of a binned metric, in one pass, each of shape
    ``(columns or groups, B)``.

    ``P``: an ``n x k`` matrix of scores (row j of the results: column j's bins) or a
    vector (``k = 1``; with ``group``, each score's 0-based group among ``ngroups``, row g
    of the results: group g's bins). ``mode`` and ``edges`` as
    :func:`calstats.numerics._scan.colbin_pass` (the same bins; mode 0 takes
    ``equal_width_breaks(B)``). ``codes``: each row's 1-based label column (for a vector:
    1 for the event, anything else for none); ``ysum`` counts the scores of each cell
    whose row's label is the cell's column. ``cnt`` and ``ysum`` are exact (int64);
    ``sums`` are the scores' sums in double, blocked (see the module's docstring)."""
    a = _readable(P)
    n = a.shape[0]
    k = 1 if a.ndim == 1 else a.shape[1]
    edges = np.ascontiguousarray(edges, dtype=np.float64)
    nb = edges.size - 1
    rows = k if group is None else int(ngroups)
    cnt, ysum, sums = np.zeros(rows * nb, dtype=np.int64), np.zeros(rows * nb, dtype=np.int64), np.zeros(rows * nb)
    if n:
        _fast.bins(a, int(a.dtype == _F4), int(n), int(k), int(mode), edges,
                   None if codes is None else np.ascontiguousarray(codes, dtype=np.int64),
                   None if group is None else np.ascontiguousarray(group, dtype=np.int64),
                   int(rows * nb), cnt, ysum, sums, _threads(threads))
    if group is None and k > 1:  # the core's cells are bin-major
        return tuple(np.ascontiguousarray(x.reshape(nb, k).T) for x in (cnt, ysum, sums))
    return tuple(x.reshape(rows, nb) for x in (cnt, ysum, sums))


def score(kind, p, y, w=None, threads=None):
    """The mean of the Brier terms or of the clipped log-likelihood terms (weighted:
    ``sum(w e) / sum(w)``), each sum pairwise: ``kind`` one of
    :func:`calstats.numerics.passes.score`'s (``BRIER_BINARY``, ...), ``p`` a validated
    vector (binary kinds, ``y`` 0/1) or ``n x k`` matrix (matrix kinds, ``y`` 1-based
    classes in 1..k)."""
    a = _readable(p)
    matrix = kind in (BRIER_MATRIX, LOGLIK_MATRIX)
    n = a.shape[0]
    k = a.shape[1] if matrix else 1
    yy = np.ascontiguousarray(y, dtype=np.int64 if matrix else np.float64)
    ww = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    return _fast.score(int(kind), a, int(a.dtype == _F4), int(n), int(k), yy, ww, _threads(threads))

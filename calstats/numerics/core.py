"""Python face of the compiled core (:mod:`calstats.numerics._core`).

The C module holds what decides R's bits and the time of a fit: R's ``vmmin`` over a
packed lower triangle, the penalised multinomial objective and the temperature- and
vector-scaling objectives (one softmax per point, the C library's ``exp``/``log``,
long-double accumulation exactly where R uses it). The NumPy code in
:mod:`calstats.numerics.vmmin`, :class:`calstats.calibrators._multinomial.MultinomialObjective`
and :mod:`calstats.calibrators.scaling` stays the executable reference:
``tests/test_core.py`` and ``tests/test_scaling_core.py`` assert that both give the same bits.

The extension is built by the package's own build (``setup.py``). An installation made
without a C compiler has no ``_core`` (:data:`COMPILED` False): the callers then run the
NumPy reference, the same bits (:mod:`calstats.numerics.passes` says so once on import).
"""

import math
from typing import Any

import numpy as np

from .._errors import fail
from .._messages import (
    CORE_CODES_RANGE,
    CORE_MASK_SIZE,
    CORE_PAR_LENGTH,
    CORE_PROBS_LAYOUT,
    CORE_START_LENGTH,
    CORE_U_CODES,
    CORE_WEIGHTS_LENGTH,
    CORE_Z_CODES,
    CORE_Z_MATRIX,
    OPTIM_GRADIENT_LENGTH,
    OPTIM_INITIAL,
    OPTIM_NONFINITE,
    OPTIM_STATUS,
)
from .passes import compiled_module

_core: Any = compiled_module("_core")
#: Whether the compiled core is installed (else the callers run the NumPy reference).
COMPILED = _core is not None

__all__ = [
    "COMPILED",
    "vmmin_c",
    "multinomial_fit_c",
    "multinomial_eval_c",
    "ScalingData",
    "temperature_value_c",
    "vector_scaling_value_c",
    "vector_scaling_gradient_c",
    "vector_scaling_fit_c",
]

_STATUS_MESSAGES = {1: OPTIM_NONFINITE, 2: OPTIM_INITIAL}
_SQRT_EPS = 1.4901161193847656e-08


def _raise_status(status):
    if status:
        fail(_STATUS_MESSAGES.get(status) or OPTIM_STATUS.format(status=status))


def _threads(threads):
    """Threads for one fit: the ``threads`` option (never nested inside a worker of
    :func:`calstats._options.map_tasks`, which already keeps the cores busy)."""
    if threads is not None:
        return max(1, int(threads))
    from .._options import inner_threads

    return inner_threads()


def vmmin_c(fn, gr, par, maxit=500, abstol=-math.inf, reltol=_SQRT_EPS, threads=None):
    """R's ``vmmin`` in C with Python objective and gradient (same contract as
    :func:`calstats.numerics.vmmin.vmmin`, same iterates and result)."""
    from .vmmin import VmminResult

    b = np.array(par, dtype=np.float64).ravel()
    n = b.size

    def fn_raw(raw):
        return float(fn(np.frombuffer(raw, dtype=np.float64).copy()))

    def gr_raw(raw):
        g = np.ascontiguousarray(gr(np.frombuffer(raw, dtype=np.float64).copy()), dtype=np.float64).ravel()
        if g.size != n:
            fail(OPTIM_GRADIENT_LENGTH.format(length=g.size, n=n))
        return g

    status, value, funcount, gradcount, iterations, _, convergence = _core.vmmin(
        fn_raw, gr_raw, b, int(maxit), float(abstol), float(reltol), _threads(threads)
    )
    _raise_status(status)
    return VmminResult(b, value, (funcount, gradcount), convergence, iterations)


def _mnl_args(U, codes, k, lam, mask_f, mu, weights=None):
    U = np.ascontiguousarray(U, dtype=np.float64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    n, d = U.shape
    if codes.size != n or n < 1:
        raise ValueError(CORE_U_CODES)
    if codes.min() < 1 or codes.max() > k:
        raise ValueError(CORE_CODES_RANGE)
    mask = np.ascontiguousarray(mask_f, dtype=np.uint8)
    if mask.size != k * d:
        raise ValueError(CORE_MASK_SIZE)
    if weights is None:
        w, sw = None, 0.0
    else:
        from .reductions import rsum

        w = np.ascontiguousarray(weights, dtype=np.float64)
        if w.size != n:
            raise ValueError(CORE_WEIGHTS_LENGTH)
        sw = rsum(w)
    return (U, codes, int(n), int(d), int(k), float(lam), None if mu is None else float(mu), mask, w, sw)


def multinomial_fit_c(U, codes, k, lam, mask_f, start, maxit=500, mu=None,
                      abstol=-math.inf, reltol=_SQRT_EPS, threads=None, weights=None):
    """R's BFGS on the penalised multinomial objective, entirely in C (no GIL held).

    ``weights`` (case weights, or None) turn the mean into ``sum(w * loglik) / sum(w)``.
    Large problems use two threads (``threads``; default from the ``threads`` option):
    the objective splits its observations, vmmin's passes split the triangle, and every
    sum keeps its order, so the result does not depend on the number of threads.

    Returns ``(par, value, counts, convergence, iterations)``.
    """
    args = _mnl_args(U, codes, k, lam, mask_f, mu, weights)
    par = np.array(start, dtype=np.float64)
    status, value, funcount, gradcount, iterations, _, convergence = _core.multinomial_fit(
        *args, par, int(maxit), float(abstol), float(reltol), _threads(threads)
    )
    _raise_status(status)
    return par, value, (funcount, gradcount), convergence, iterations


def multinomial_eval_c(U, codes, k, lam, mask_f, par, mu=None, threads=1, weights=None):
    """Objective value and gradient at ``par`` (the C twin of ``MultinomialObjective``)."""
    args = _mnl_args(U, codes, k, lam, mask_f, mu, weights)
    par = np.ascontiguousarray(par, dtype=np.float64)
    grad = np.empty(par.size)
    value = _core.multinomial_eval(*args, par, grad, _threads(threads))
    return value, grad


class ScalingData:
    """The data of a scaling objective in the layout the core reads: ``Z`` (n x k,
    C order, float64), 1-based ``codes`` (int64) and the case ``weights`` with R's
    ``sum(weights)`` (None: R's mean). Checked once, shared by every evaluation.

    A float32 ``Z`` stays float32 (no float64 copy: half the memory): the core widens each
    entry as it reads it, which is exact, so every objective value is the one of
    ``Z.astype(np.float64)``.
    """

    __slots__ = ("Z", "codes", "n", "k", "weights", "sw")

    def __init__(self, Z, codes, weights=None):
        f32 = isinstance(Z, np.ndarray) and Z.dtype == np.float32
        self.Z = np.ascontiguousarray(Z, dtype=np.float32 if f32 else np.float64)
        if self.Z.ndim != 2:
            raise ValueError(CORE_Z_MATRIX)
        self.n, self.k = self.Z.shape
        self.codes = np.ascontiguousarray(codes, dtype=np.int64).ravel()
        if self.codes.size != self.n or self.n < 1:
            raise ValueError(CORE_Z_CODES)
        if self.codes.min() < 1 or self.codes.max() > self.k:
            raise ValueError(CORE_CODES_RANGE)
        if weights is None:
            self.weights, self.sw = None, 0.0
        else:
            from .reductions import rsum

            self.weights = np.ascontiguousarray(weights, dtype=np.float64).ravel()
            if self.weights.size != self.n:
                raise ValueError(CORE_WEIGHTS_LENGTH)
            self.sw = rsum(self.weights)

    def args(self):
        return (self.Z, self.codes, int(self.n), int(self.k), self.weights, float(self.sw))


def temperature_value_c(data, temperature, threads=None):
    """Mean negative log-likelihood of ``softmax(Z / T)`` (weighted: ``-sum(w * lp) /
    sum(w)``), the C twin of the multiclass temperature objective of
    :mod:`calstats.calibrators.scaling`; ``data`` a :class:`ScalingData`."""
    par = np.array([float(temperature)])
    return _core.scaling_value(*data.args(), 0, par, None, _threads(threads))


def vector_scaling_value_c(data, par, probs=None, threads=None):
    """Mean negative log-likelihood of ``softmax(z_ij s_j + b_j)`` at ``par = (s, b)``;
    ``probs`` (an n x k C-ordered float64 array, or None) receives the probabilities."""
    par = np.ascontiguousarray(par, dtype=np.float64)
    if par.size != 2 * data.k:
        raise ValueError(CORE_PAR_LENGTH)
    if probs is not None and (probs.shape != (data.n, data.k) or probs.dtype != np.float64
                              or not probs.flags.c_contiguous):
        raise ValueError(CORE_PROBS_LAYOUT)
    return _core.scaling_value(*data.args(), 1, par, probs, _threads(threads))


def vector_scaling_gradient_c(data, probs, threads=None):
    """The vector-scaling gradient ``(d/ds, d/db)`` from the probabilities ``probs`` that
    :func:`vector_scaling_value_c` wrote at the point of interest."""
    if probs.shape != (data.n, data.k) or probs.dtype != np.float64 or not probs.flags.c_contiguous:
        raise ValueError(CORE_PROBS_LAYOUT)
    grad = np.empty(2 * data.k)
    _core.scaling_gradient(*data.args(), probs, grad, _threads(threads))
    return grad


def vector_scaling_fit_c(data, start, maxit=500, abstol=-math.inf, reltol=_SQRT_EPS, threads=None):
    """R's BFGS on the vector-scaling objective, entirely in C (no GIL held): the same
    iterates as :func:`calstats.numerics.vmmin.vmmin` on the NumPy objective.

    Returns a :class:`~calstats.numerics.vmmin.VmminResult`.
    """
    from .vmmin import VmminResult

    par = np.array(start, dtype=np.float64)
    if par.size != 2 * data.k:
        raise ValueError(CORE_START_LENGTH)
    status, value, funcount, gradcount, iterations, _, convergence = _core.vector_scaling_fit(
        *data.args(), par, int(maxit), float(abstol), float(reltol), _threads(threads)
    )
    _raise_status(status)
    return VmminResult(par, value, (funcount, gradcount), convergence, iterations)

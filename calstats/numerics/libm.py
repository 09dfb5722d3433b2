"""Elementwise ``exp``, ``log``, ``log1p`` and ``pow`` with the C library's results, as R calls them.

Why not ``np.exp``: on CPUs with AVX-512, NumPy evaluates float64 ``exp``/``log``/``log1p``
with its own SIMD kernels, which differ from glibc by one ulp on ~0.2-5 % of inputs. R calls
glibc, and one ulp is enough to change a BFGS or Brent path. SciPy's Box-Cox ufuncs are thin
Cython wrappers whose ``lmbda == 0`` branch is a plain libm call (``exp(x)``, ``log(x)``,
``log1p(x)``), so they give libm's results at C speed. Because that is an implementation
detail of SciPy, the choice is verified at import against Python's ``math`` module (which
calls libm) on inputs where NumPy and libm are known to disagree; if the check fails we fall
back to complex ``np.exp`` (``cexp`` of the C library, exact for a zero imaginary part) or,
last, a per-element ``math`` call.
"""

import math

import numpy as np
from scipy import special as _sp

from .passes import compiled_module

__all__ = ["exp", "log", "log1p", "pow", "r_pow", "IMPLEMENTATION"]

#: the C loop of ``pow`` (None without the compiled modules: :func:`math.pow`, the same bits)
_loops = compiled_module("_loops")


def _math_ufunc(fn, big):
    def safe(v):
        try:
            return fn(v)
        except OverflowError:
            return big
        except ValueError:  # log of a negative number or of 0 in `math`
            if v == 0:
                return -math.inf
            return math.nan

    vec = np.frompyfunc(safe, 1, 1)

    def call(x):
        x = np.asarray(x, dtype=np.float64)
        return vec(x).astype(np.float64) if x.ndim else np.float64(safe(float(x)))

    return call


_exp_math = _math_ufunc(math.exp, math.inf)
_log_math = _math_ufunc(math.log, math.nan)
_log1p_math = _math_ufunc(math.log1p, math.nan)


def _exp_scipy(x):
    return _sp.inv_boxcox(x, 0.0)


def _log_scipy(x):
    return _sp.boxcox(x, 0.0)


def _log1p_scipy(x):
    return _sp.boxcox1p(x, 0.0)


def _exp_complex(x):
    return np.exp(np.asarray(x, dtype=np.complex128)).real


def _probe_inputs():
    # Fixed pseudo-random inputs spanning the ranges the calibrators use; a few thousand
    # values contain many where NumPy's SIMD kernels and libm differ.
    rs = np.random.RandomState(20240101)
    e = np.concatenate([rs.uniform(-50, 50, 3000), rs.uniform(-745, 709, 500), [0.0, -0.0, 1.0]])
    lg = np.concatenate([rs.uniform(1e-15, 1, 3000), rs.uniform(0, 1e3, 500), [1.0, 1e-300]])
    l1 = np.concatenate([rs.uniform(-0.999, 1, 3000), [0.0, -1e-17, 1e-300]])
    return e, lg, l1


def _agrees(candidate, reference, x):
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(candidate(x), dtype=np.float64)
    except Exception:
        return False
    want = np.array([reference(v) for v in x])
    return got.shape == want.shape and np.array_equal(got.view(np.int64), want.view(np.int64))


def _choose():
    e, lg, l1 = _probe_inputs()
    exp_f = next((f for f in (_exp_scipy, _exp_complex) if _agrees(f, math.exp, e)), _exp_math)
    log_f = _log_scipy if _agrees(_log_scipy, math.log, lg) else _log_math
    log1p_f = _log1p_scipy if _agrees(_log1p_scipy, math.log1p, l1) else _log1p_math
    return exp_f, log_f, log1p_f


_exp_impl, _log_impl, _log1p_impl = _choose()

#: Names of the implementations chosen at import (for diagnostics and the benchmarks).
IMPLEMENTATION = {
    "exp": _exp_impl.__name__,
    "log": _log_impl.__name__,
    "log1p": _log1p_impl.__name__,
}


def exp(x):
    """``exp`` of the C library, elementwise (float64)."""
    with np.errstate(over="ignore", under="ignore"):
        return _exp_impl(np.asarray(x, dtype=np.float64))


def log(x):
    """``log`` of the C library, elementwise (``log(0) = -inf``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _log_impl(np.asarray(x, dtype=np.float64))


def log1p(x):
    """``log1p`` of the C library, elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _log1p_impl(np.asarray(x, dtype=np.float64))


def _pow1(v, y):
    """``pow(v, y)`` of the C library for one double: :func:`math.pow` (which calls it), and
    for the cases Python raises on (a negative base with a non-integer power, a zero base
    with a negative power, an overflow) C's IEEE value: NaN or an infinity."""
    try:
        return math.pow(v, y)
    except (ValueError, OverflowError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(v), np.float64(y)))


def pow(x, y):  # noqa: A001 - the C library's name
    """``pow(x, y)`` of the C library, elementwise for a double ``y`` (glibc's, correctly
    rounded; what R's ``R_pow`` and Fortran's ``x**y`` call on Linux). R uses ``powl`` only
    on 64-bit Windows (``USE_POWL_IN_R_POW``); ``powl`` rounded to double differs from R on
    Linux in about 1 in 1000 values (measured on 200 000 values of ``z^3`` and
    ``z^(2/3)``), and NumPy's ``power`` may use its own SIMD kernels. Returns an array of
    ``x``'s shape; the compiled loop when it is built, else :func:`math.pow` element by
    element (the same bits)."""
    x = np.asarray(x, dtype=np.float64)
    y = float(y)
    flat = np.ascontiguousarray(x.ravel())
    out = np.empty(flat.size)
    if _loops is not None:
        _loops.rpow(flat, y, out)
    else:
        for i, v in enumerate(flat.tolist()):
            out[i] = 1.0 if (v == 1.0 or y == 0.0) else _pow1(v, y)
    return out.reshape(x.shape)


def r_pow(x, y):
    """R's ``x ^ y`` (``R_POW``): ``x * x`` for ``y == 2``, otherwise :func:`pow`."""
    x = np.asarray(x, dtype=np.float64)
    if float(y) == 2.0:
        return x * x
    return pow(x, y)

"""Elementwise ``exp``, ``log`` and ``log1p`` with the C library's results, as R calls them.

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

__all__ = ["exp", "log", "log1p", "IMPLEMENTATION"]


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

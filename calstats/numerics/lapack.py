"""R's calls into LAPACK whose *last bits* decide R's results: ``eigen(symmetric = TRUE)``
(``dsyevr``; the signs of the eigenvectors pick every ``MASS::mvrnorm`` draw) and
``chol2inv`` (``dpotri``; ``summary.glm``'s ``cov.unscaled``, which those eigenvectors are
computed from).

R on Debian links the reference LAPACK 3.11; SciPy's OpenBLAS build returns other
eigenvector signs for some matrices (e.g. the 4 x 4 covariance of a 4-knot spline fit). The
reference ``liblapack`` is therefore called through ``ctypes`` when the system has it;
otherwise SciPy/NumPy give the same numbers up to rounding and eigenvector signs.
"""

import ctypes
import ctypes.util

import numpy as np
import scipy.linalg

from .._errors import fail
from .._messages import EIGEN_NONFINITE

__all__ = ["eigen_symmetric", "chol2inv"]


_LAPACK_PATHS = ("/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3", "/usr/lib/x86_64-linux-gnu/liblapack.so.3",
                 "/usr/lib64/liblapack.so.3", "/usr/lib/liblapack.so.3")
_lapack: list = []


def _reference_lapack():
    if not _lapack:
        lib = None
        found = ctypes.util.find_library("lapack")
        for path in (*_LAPACK_PATHS, *((found,) if found else ())):
            try:
                cand = ctypes.CDLL(path)
                cand.dsyevr_  # noqa: B018 - probe the symbol
            except (OSError, AttributeError):
                continue
            if "openblas" not in str(getattr(cand, "_name", "")).lower():
                lib = cand
                break
        _lapack.append(lib)
    return _lapack[0]


def _dsyevr(lib, sigma):
    """LAPACK ``dsyevr("V", "A", "L")`` with ``abstol = 0``, as R's ``La_rs`` calls it."""
    n = sigma.shape[0]
    a = np.array(sigma, dtype=np.float64, order="F")
    w = np.zeros(n)
    z = np.zeros((n, n), order="F")
    isuppz = np.zeros(2 * max(n, 1), dtype=np.int32)
    m, info = ctypes.c_int(0), ctypes.c_int(0)

    def ptr(arr):
        return arr.ctypes.data_as(ctypes.c_void_p)

    def ival(v):
        return ctypes.byref(ctypes.c_int(v))

    def dval(v):
        return ctypes.byref(ctypes.c_double(v))

    def call(work, lwork, iwork, liwork):
        lib.dsyevr_(b"V", b"A", b"L", ival(n), ptr(a), ival(n), dval(0.0), dval(0.0), ival(0), ival(0),
                    dval(0.0), ctypes.byref(m), ptr(w), ptr(z), ival(n), ptr(isuppz), ptr(work), ival(lwork),
                    ptr(iwork), ival(liwork), ctypes.byref(info), ctypes.c_size_t(1), ctypes.c_size_t(1),
                    ctypes.c_size_t(1))

    work, iwork = np.zeros(1), np.zeros(1, dtype=np.int32)
    call(work, -1, iwork, -1)
    lw, liw = int(work[0]), int(iwork[0])
    work, iwork = np.zeros(lw), np.zeros(liw, dtype=np.int32)
    call(work, lw, iwork, liw)
    if info.value != 0:
        return None
    return w, np.asarray(z)


def eigen_symmetric(sigma):
    """R ``eigen(sigma, symmetric = TRUE)``: values decreasing, vectors as columns."""
    if not np.all(np.isfinite(sigma)):
        fail(EIGEN_NONFINITE)
    lib = _reference_lapack()
    res = _dsyevr(lib, sigma) if lib is not None and sigma.shape[0] > 0 else None
    if res is None:
        res = scipy.linalg.eigh(sigma, lower=True, driver="evr")
    values, vectors = res
    return values[::-1].copy(), vectors[:, ::-1].copy()


def chol2inv(r):
    """R ``chol2inv(r)``: ``(R'R)^{-1}`` from an upper triangle, by LAPACK ``dpotri("U")``
    (the reference library when present, so the last bits are R's; else NumPy)."""
    r = np.triu(np.asarray(r, dtype=np.float64))
    n = r.shape[0]
    lib = _reference_lapack()
    if lib is not None and n > 0:
        a = np.array(r, order="F")
        info = ctypes.c_int(0)
        lib.dpotri_(b"U", ctypes.byref(ctypes.c_int(n)), a.ctypes.data_as(ctypes.c_void_p),
                    ctypes.byref(ctypes.c_int(n)), ctypes.byref(info), ctypes.c_size_t(1))
        if info.value == 0:
            up = np.triu(np.asarray(a))
            return up + np.triu(up, 1).T
    rinv = np.linalg.solve(r, np.eye(n))
    return rinv @ rinv.T

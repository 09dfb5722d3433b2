"""``MASS::mvrnorm`` (MASS 7.3-58) on calstats' R stream.

The draws are ``mu + V diag(sqrt(pmax(ev, 0))) t(Z)`` where ``eigen(Sigma, symmetric =
TRUE)`` gives ``V`` and ``ev`` and ``Z`` is ``matrix(rnorm(p * n), n)``. R's ``eigen`` calls
LAPACK ``dsyevr`` (all eigenpairs, lower triangle, ``abstol = 0``) and reverses the ascending
order. The signs of the eigenvectors are whatever the LAPACK build returns, and a flipped
sign changes every draw (not their distribution): OpenBLAS' ``dsyevr`` (SciPy's) returns
other signs than the reference LAPACK 3.11 that R links for some matrices (e.g. the 4 x 4
covariance of a 4-knot spline fit). The reference ``liblapack`` is therefore called through
``ctypes`` when the system has it; otherwise SciPy's ``eigh(driver="evr")`` is used.
"""

import ctypes
import ctypes.util

import numpy as np
import scipy.linalg

from .._errors import CalstatsError
from ..numerics.reductions import matmul
from ._draws import rnorm

__all__ = ["mvrnorm"]

_MSG_INCOMPATIBLE = "incompatible arguments"
_MSG_NOT_PD = "'Sigma' is not positive definite"
_MSG_NONFINITE = "infinite or missing values in 'x'"


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


def _eigen_symmetric(sigma):
    """R ``eigen(sigma, symmetric = TRUE)``: values decreasing, vectors as columns."""
    if not np.all(np.isfinite(sigma)):
        raise CalstatsError(_MSG_NONFINITE)
    lib = _reference_lapack()
    res = _dsyevr(lib, sigma) if lib is not None and sigma.shape[0] > 0 else None
    if res is None:
        res = scipy.linalg.eigh(sigma, lower=True, driver="evr")
    values, vectors = res
    return values[::-1].copy(), vectors[:, ::-1].copy()


def mvrnorm(n, mu, sigma, tol=1e-6):
    """Draws from a multivariate normal distribution, as R's ``MASS::mvrnorm(n, mu, Sigma, tol)``.

    Parameters
    ----------
    n : int
        Number of draws.
    mu : array_like, shape (p,)
        Mean vector.
    sigma : array_like, shape (p, p)
        Symmetric covariance matrix (only its lower triangle is read, as LAPACK does).
    tol : float, default 1e-6
        Eigenvalues below ``-tol * |largest|`` make ``sigma`` "not positive definite".

    Returns
    -------
    ndarray
        ``(n, p)`` draws; for ``n = 1`` a vector of length ``p`` (R's ``drop``).

    Notes
    -----
    Uses ``p * n`` normal deviates of :func:`calstats.rng.rnorm` (R's stream), so after
    ``set_seed(s)`` the draws are R's after ``set.seed(s)``. ``empirical = TRUE`` is not
    provided.
    """
    mu = np.asarray(mu, dtype=np.float64).ravel()
    sigma = np.asarray(sigma, dtype=np.float64)
    p = mu.size
    if sigma.ndim != 2 or sigma.shape != (p, p):
        raise CalstatsError(_MSG_INCOMPATIBLE)
    n = int(n)
    ev, vectors = _eigen_symmetric(sigma)
    if p and not np.all(ev >= -tol * abs(ev[0])):
        raise CalstatsError(_MSG_NOT_PD)
    z = rnorm(p * n).reshape((p, n))  # column-major n x p matrix, held transposed
    scaled = vectors * np.sqrt(np.maximum(ev, 0.0))[None, :]
    draws = mu[:, None] + matmul(scaled, z)
    out = draws.T
    return out[0].copy() if n == 1 else np.ascontiguousarray(out)


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

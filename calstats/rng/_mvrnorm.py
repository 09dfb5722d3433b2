"""``MASS::mvrnorm`` (MASS 7.3-58) on calstats' R stream.

The draws are ``mu + V diag(sqrt(pmax(ev, 0))) t(Z)`` where ``eigen(Sigma, symmetric =
TRUE)`` gives ``V`` and ``ev`` and ``Z`` is ``matrix(rnorm(p * n), n)``. R's ``eigen`` calls
LAPACK ``dsyevr`` (all eigenpairs, lower triangle, ``abstol = 0``) and reverses the ascending
order. The signs of the eigenvectors are whatever the LAPACK build returns, and a flipped
sign changes every draw (not their distribution): OpenBLAS' ``dsyevr`` (SciPy's) returns
other signs than the reference LAPACK 3.11 that R links for some matrices (e.g. the 4 x 4
covariance of a 4-knot spline fit): :func:`calstats.numerics.lapack.eigen_symmetric` calls
the reference ``liblapack`` when the system has it.
"""

import numpy as np

from .._errors import fail
from .._messages import MVRNORM_INCOMPATIBLE, MVRNORM_NOT_PD
from ..numerics.lapack import eigen_symmetric
from ..numerics.reductions import matmul
from ._draws import rnorm

__all__ = ["mvrnorm"]


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
        fail(MVRNORM_INCOMPATIBLE)
    n = int(n)
    ev, vectors = eigen_symmetric(sigma)
    if p and not np.all(ev >= -tol * abs(ev[0])):
        fail(MVRNORM_NOT_PD)
    z = rnorm(p * n).reshape((p, n))  # column-major n x p matrix, held transposed
    scaled = vectors * np.sqrt(np.maximum(ev, 0.0))[None, :]
    draws = mu[:, None] + matmul(scaled, z)
    out = draws.T
    return out[0].copy() if n == 1 else np.ascontiguousarray(out)

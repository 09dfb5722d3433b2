"""LINPACK's QR as R calls it (R's ``src/appl``): ``dqrdc2``, ``dqrsl`` and ``dqrls``
(R's ``C_Cdqrls``), on the reference BLAS kernels ``dnrm2`` (LAPACK >= 3.10), ``ddot``,
``daxpy``.

``dqrdc2`` is Householder QR with R's *limited pivoting*: a column whose running norm falls
below ``tol`` times its original norm moves to the right-hand edge and out of the rank. R's
``qr()``, ``lm.fit``, ``glm.fit`` and rms' ``lrm.fit`` all decide rank and aliased columns
this way, so their ports share these functions.

:func:`dqrdc2` and :func:`qr_qty` run in the compiled passes when they are built
(:mod:`calstats.numerics.passes`); :func:`dqrdc2_reference` and :func:`qr_qty_reference`
are the NumPy references with the same bits.
"""

import math

import numpy as np

from . import passes

__all__ = ["dnrm2", "ddot", "daxpy", "dqrdc2", "dqrdc2_reference", "qr_qty", "qr_qty_reference", "dqrsl_qty_b",
           "qr_coef", "cdqrls"]

# dnrm2.f90 (LAPACK >= 3.10): Blue's scaling constants for IEEE double.
_TSML = 2.0**-511
_TBIG = 2.0**486
_SSML = 2.0**537
_SBIG = 2.0**-538


def _dnrm2_loop(x):
    """``dnrm2`` of LAPACK >= 3.10 (Anderson's algorithm with three accumulators)."""
    asml = amed = abig = 0.0
    notbig = True
    for v in x:
        ax = abs(float(v))
        if ax > _TBIG:
            t = ax * _SBIG
            abig = abig + t * t
            notbig = False
        elif ax < _TSML:
            if notbig:
                t = ax * _SSML
                asml = asml + t * t
        else:
            amed = amed + ax * ax
    if abig > 0.0:
        if amed > 0.0 or amed != amed:
            abig = abig + (amed * _SBIG) * _SBIG
        scl, sumsq = 1.0 / _SBIG, abig
    elif asml > 0.0:
        if amed > 0.0 or amed != amed:
            amed = math.sqrt(amed)
            asml = math.sqrt(asml) / _SSML
            ymin, ymax = (amed, asml) if asml > amed else (asml, amed)
            scl = 1.0
            sumsq = ymax * ymax * (1.0 + (ymin / ymax) * (ymin / ymax))
        else:
            scl, sumsq = 1.0 / _SSML, asml
    else:
        scl, sumsq = 1.0, amed
    return scl * math.sqrt(sumsq)


def dnrm2(x):
    """Euclidean norm as the reference ``dnrm2`` computes it.

    For entries that are zero or in the "medium" range ``[2^-511, 2^486]`` (always the case
    for the designs here) the routine reduces to ``sqrt`` of the sequential double sum of
    squares, which is evaluated vectorised; anything else takes the literal loop.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return 0.0
    ax = np.abs(x)
    if np.all(((ax >= _TSML) & (ax <= _TBIG)) | (ax == 0.0)):
        return math.sqrt(float(np.cumsum(ax * ax)[-1]))
    return _dnrm2_loop(x)


def ddot(a, b):
    """Reference ``ddot``: sequential double accumulation of the products, from 0."""
    if a.size == 0:
        return 0.0
    return float(np.cumsum(a * b)[-1])


def daxpy(t, x, y):
    """Reference ``daxpy``: ``y + t*x`` elementwise (returns ``y`` untouched when t == 0)."""
    if t == 0.0:
        return y
    return y + t * x


def dqrdc2(x, tol):
    """R's ``dqrdc2``: Householder QR with limited column pivoting.

    Parameters
    ----------
    x : ndarray, shape (n, p)
        Matrix to decompose (not modified).
    tol : float
        Columns whose running norm falls below ``tol`` times their original norm are moved
        to the right-hand edge and excluded from the rank.

    Returns
    -------
    qr : ndarray (n, p)
        LINPACK compact form: ``R`` in the upper triangle, Householder vectors below.
    rank : int
    qraux : ndarray (p,)
    pivot : ndarray (p,) of int
        1-based original column numbers in their final order.
    """
    if passes.BACKEND == "c" and np.ndim(x) == 2:
        return passes.dqrdc2(x, tol)
    return dqrdc2_reference(x, tol)


def dqrdc2_reference(x, tol):
    """The NumPy reference of :func:`dqrdc2` (the bits of the compiled pass)."""
    x = np.array(x, dtype=np.float64, order="F", copy=True)
    n, p = x.shape
    jpvt = np.arange(1, p + 1)
    qraux = np.zeros(p)
    work1 = np.zeros(p)
    work2 = np.zeros(p)
    if n > 0:
        for j in range(p):
            qraux[j] = dnrm2(x[:, j])
            work1[j] = qraux[j]
            work2[j] = qraux[j] if qraux[j] != 0.0 else 1.0

    lup = min(n, p)
    k = p + 1  # Fortran's 1-based k: columns k..p have been moved to the end
    for l in range(1, lup + 1):
        L = l - 1
        # Cycle negligible columns to the right-hand edge (R's limited pivoting).
        while not (l >= k or qraux[L] >= work2[L] * tol):
            order = list(range(L + 1, p)) + [L]
            x[:, L:] = x[:, order]
            jpvt[L:] = jpvt[order]
            qraux[L:] = qraux[order]
            work1[L:] = work1[order]
            work2[L:] = work2[order]
            k -= 1
        if l == n:
            continue
        # Householder transformation for column l.
        nrmxl = dnrm2(x[L:, L])
        if nrmxl == 0.0:
            continue
        if x[L, L] != 0.0:
            nrmxl = math.copysign(nrmxl, x[L, L])
        x[L:, L] = (1.0 / nrmxl) * x[L:, L]  # dscal
        x[L, L] = 1.0 + x[L, L]
        # Apply it to the remaining columns, updating the norms.
        for j in range(L + 1, p):
            t = -ddot(x[L:, L], x[L:, j]) / x[L, L]
            x[L:, j] = daxpy(t, x[L:, L], x[L:, j])
            if qraux[j] != 0.0:
                r = abs(x[L, j]) / qraux[j]
                tt = 1.0 - r * r
                tt = max(tt, 0.0)
                if abs(tt) >= 1e-6:
                    qraux[j] = qraux[j] * math.sqrt(tt)
                else:
                    qraux[j] = dnrm2(x[L + 1:, j])
                    work1[j] = qraux[j]
        qraux[L] = x[L, L]
        x[L, L] = -nrmxl
    rank = min(k - 1, n)
    return x, rank, qraux, jpvt


def qr_qty(qr, qraux, rank, y):
    """LINPACK ``dqrsl``'s ``Q'y`` (R's ``qr.qty``) for every column of ``y`` at once: the
    first ``min(rank, n - 1)`` Householder reflections of a ``dqrdc2`` factorisation, each
    inner product a sequential double sum from 0 (reference ``ddot``), each update
    ``y + t x`` skipped for ``t == 0`` (``daxpy``)."""
    if passes.BACKEND == "c" and np.ndim(qr) == 2 and np.ndim(y) == 2:
        return passes.qr_qty(qr, qraux, rank, y)
    return qr_qty_reference(qr, qraux, rank, y)


def qr_qty_reference(qr, qraux, rank, y):
    """The NumPy reference of :func:`qr_qty`."""
    n = qr.shape[0]
    qty = np.array(y, dtype=np.float64, copy=True)
    for j in range(min(rank, n - 1)):
        if qraux[j] == 0.0:
            continue
        col = qr[j:, j].copy()
        col[0] = qraux[j]
        t = -np.cumsum(col[:, None] * qty[j:, :], axis=0)[-1] / col[0]
        nz = t != 0.0
        qty[j:, nz] = qty[j:, nz] + t[nz][None, :] * col[:, None]
    return qty


def dqrsl_qty_b(qr, k, qraux, y, reference=False):
    """LINPACK ``dqrsl`` with job 1110 as ``dqrls`` calls it: ``Q'y`` and the solution of
    the leading ``k x k`` triangular system (column-oriented back substitution);
    ``reference=True``: ``Q'y`` by the NumPy reference."""
    n = qr.shape[0]
    b = np.zeros(k)
    if min(k, n - 1) == 0:  # n == 1 (or k == 0)
        if k >= 1 and qr[0, 0] != 0.0:
            b[0] = y[0] / qr[0, 0]
        return b, np.array(y, dtype=np.float64, copy=True)
    qty = (qr_qty_reference if reference else qr_qty)(qr, qraux, k, np.asarray(y, dtype=np.float64)[:, None])[:, 0]
    b[:] = qty[:k]
    for jj in range(k):
        j = k - 1 - jj
        if qr[j, j] == 0.0:  # info = j: singular (cannot happen after dqrdc2's rank test)
            break
        b[j] = b[j] / qr[j, j]
        if j != 0:
            b[:j] = daxpy(-b[j], qr[:j, j], b[:j])
    return b, qty


def qr_coef(qr, qraux, k, Y):
    """LINPACK ``dqrsl`` (job 1110, as :func:`dqrsl_qty_b`) for the columns of ``Y`` (n x m)
    at once, R's ``qr.coef`` of a full-rank ``dqrdc2`` factorisation (rank ``k``): ``Q'y``
    by the Householder reflections, then the column-oriented back substitution, ``daxpy``
    skipped where its multiplier is 0; each column's arithmetic is that of one
    :func:`dqrsl_qty_b` call. Returns the k x m coefficients."""
    if min(k, qr.shape[0] - 1) < 1:  # dqrsl's n == 1 branch
        return np.column_stack([dqrsl_qty_b(qr, k, qraux, Y[:, j].copy())[0] for j in range(Y.shape[1])])
    b = qr_qty(qr, qraux, k, np.ascontiguousarray(Y, dtype=np.float64))[:k].copy()
    if b.shape[1] == 1:  # one right-hand side: the same double operations on Python floats
        bl = b[:, 0].tolist()
        R = qr[:k, :k].tolist()
        for j in range(k - 1, -1, -1):
            d = R[j][j]
            if d == 0.0:
                break
            bj = bl[j] / d
            bl[j] = bj
            t = -bj
            if j and t != 0.0:
                for i in range(j):
                    bl[i] = bl[i] + t * R[i][j]
        return np.array(bl).reshape(k, 1)
    for j in range(k - 1, -1, -1):
        d = qr[j, j]
        if d == 0.0:  # singular: cannot happen after dqrdc2's rank test
            break
        b[j] = b[j] / d
        if j:
            t = -b[j]
            nz = t != 0.0
            if nz.all():
                b[:j] = b[:j] + t[None, :] * qr[:j, j][:, None]
            elif nz.any():
                b[:j, nz] = b[:j, nz] + t[nz][None, :] * qr[:j, j][:, None]
    return b


def cdqrls(x, y, tol, reference=False):
    """R's ``.Call(C_Cdqrls, x, y, tol)`` (LINPACK ``dqrls``) for one right-hand side
    (``reference=True``: the NumPy references throughout).

    Returns the coefficients in pivoted order (entries past the rank are 0, as ``dqrls``
    sets them), the rank, the 1-based pivot, and the compact QR with ``qraux``.
    """
    p = x.shape[1]
    qr, rank, qraux, pivot = (dqrdc2_reference if reference else dqrdc2)(x, tol)
    coef = np.zeros(p)
    if rank > 0:
        coef[:rank], _ = dqrsl_qty_b(qr, rank, qraux, y, reference)
    return coef, rank, pivot, qr, qraux

"""R's reductions, in R's order and width of accumulation.

R sums doubles in an 80-bit long double, adding elements in index order, and rounds once.
Its matrix products go through the reference BLAS, which accumulates each entry in double,
term by term, in a fixed order. NumPy differs in both respects (pairwise summation in
double; BLAS kernels with blocking and FMA), so these helpers reproduce R's procedure.

Implementation note: NumPy reduces the *first* axis of a C-contiguous array by adding whole
rows one after another, i.e. sequentially for every column; a 1-D reduction is pairwise.
Every ``*_numpy`` helper below therefore reduces along axis 0 of a C-contiguous array (or
uses ``cumsum``), which gives R's sequential order at vectorised speed.
``tests/test_numerics.py`` checks the property against an explicit loop.

The public functions run the compiled passes of :mod:`calstats.numerics.passes` (one read
per element, float32 widened per element, any strides, no temporaries); the ``*_numpy``
functions are their reference, selected with ``passes.BACKEND = "numpy"``, and give the
same bits (``tests/test_passes.py``). Like R, every sum starts from +0 (a sum of negative
zeros is +0), and ``rsum`` returns +-Inf for a long-double total beyond the double range.
"""

import math

import numpy as np

from . import passes

__all__ = [
    "LD",
    "rsum",
    "rmean",
    "rmedian",
    "rmean_int",
    "row_sums",
    "ld_sum_axis0",
    "col_sums",
    "dot",
    "matmul",
    "matmul_t",
    "crossprod",
    "rsum_numpy",
    "rmean_numpy",
    "row_sums_numpy",
    "ld_sum_axis0_numpy",
    "dot_numpy",
    "crossprod_numpy",
]

LD = np.longdouble
_DBL_MAX = LD(np.finfo(np.float64).max)


def _compiled():
    return passes.BACKEND == "c"


def _seq_sum_axis0(a):
    """Sequential sum down axis 0 (any dtype), returned in that dtype.

    With a single lane (every other axis of length 1) NumPy collapses the reduction to a
    1-D one, which is pairwise; ``cumsum`` keeps the order there.
    """
    a = np.ascontiguousarray(a)
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:], dtype=a.dtype)
    if a[0].size == 1:
        return np.cumsum(a.reshape(a.shape[0]))[-1].reshape(a.shape[1:])
    return np.add.reduce(a, axis=0)


def rsum(x):
    """R ``sum()`` of a double vector: long-double accumulator from 0, index order, and
    +-Inf when the total leaves the double range (R's ``rsum``). Arrays are read in C
    order; float32 is widened exactly."""
    if _compiled():
        return passes.rsum(passes.float_array(x))
    return rsum_numpy(x)


def _ld_to_double(s):
    with np.errstate(over="ignore"):
        return float(s)


def rsum_numpy(x):
    """The NumPy reference of :func:`rsum`."""
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size == 0:
        return 0.0
    s = np.cumsum(x.astype(LD))[-1]
    if s > _DBL_MAX:
        return math.inf
    if s < -_DBL_MAX:
        return -math.inf
    return float(s) + 0.0  # from 0 as R: a sum of -0s is +0


def rmedian(x):
    """R ``median()`` of a double vector without NA: the middle value, or R's ``mean`` of
    the two middle values."""
    s = np.sort(np.asarray(x, dtype=np.float64).ravel())
    half = (s.size + 1) // 2
    if s.size % 2 == 1:
        return float(s[half - 1])
    return rmean(s[half - 1:half + 1])


def rmean(x):
    """R ``mean()`` of a double vector: two passes in long double (``summary.c``'s
    ``real_mean``). Arrays are read in C order; float32 is widened exactly."""
    if _compiled():
        a = passes.float_array(x)
        return passes.rmean(a) if a.size else math.nan
    return rmean_numpy(x)


def rmean_numpy(x):
    """The NumPy reference of :func:`rmean`: the long-double sum over n (or, when the sum
    leaves the double range, the sum of ``x/n`` in double), then the correction
    ``sum(x - s)/n`` when that mean is finite as a double."""
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        return float("nan")
    xl = x.astype(LD)
    s = np.cumsum(xl)[-1]
    if math.isfinite(_ld_to_double(s)):
        s = s / LD(n)
    else:
        s = np.cumsum((x / float(n)).astype(LD))[-1]
    if math.isfinite(_ld_to_double(s)):
        t = np.cumsum(xl - s)[-1]
        s = s + t / LD(n)
    return _ld_to_double(s)


def rmean_int(x):
    """R ``mean()`` of an integer vector: exact total over n, rounded once."""
    x = np.asarray(x)
    n = x.size
    if n == 0:
        return float("nan")
    return float(LD(int(np.sum(x, dtype=np.int64))) / LD(n))


def row_sums(m):
    """R ``rowSums()``: per row, a long-double accumulator over the columns in order."""
    if _compiled():
        a = passes.float_array(m)
        if a.ndim == 2:
            return passes.lane_sums(a, 1)
    return row_sums_numpy(m)


def row_sums_numpy(m):
    """The NumPy reference of :func:`row_sums`."""
    m = np.asarray(m, dtype=np.float64)
    return ld_sum_axis0_numpy(m.T)


def ld_sum_axis0(a):
    """Sequential long-double sums down axis 0 of a 2-D array, rounded once to double."""
    if _compiled():
        f = passes.float_array(a)
        if f.ndim == 2:
            return passes.lane_sums(f, 0)
    return ld_sum_axis0_numpy(a)


def ld_sum_axis0_numpy(a):
    """The NumPy reference of :func:`ld_sum_axis0`.

    For a short axis 0 (classes) a loop over its rows is fastest; each step adds a whole
    row, so every column is still accumulated in order.
    """
    a = np.asarray(a, dtype=np.float64)
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:])
    if a.shape[0] <= 64:
        acc = a[0].astype(LD)
        for row in a[1:]:
            acc += row
        return acc.astype(np.float64) + 0.0  # from 0 as R: a sum of -0s is +0
    # make the double array C-ordered before widening: transposing long doubles is slow
    return _seq_sum_axis0(np.ascontiguousarray(a).astype(LD)).astype(np.float64) + 0.0


def col_sums(m):
    """R ``colSums()``: per column, a long-double accumulator down the rows."""
    return ld_sum_axis0(m)


def dot(a, b):
    """Sequential double dot product ``sum_i a_i * b_i`` from 0 (``crossprod`` of two vectors)."""
    if _compiled():
        x, y = passes.float_array(a), passes.float_array(b)
        if x.ndim == 1 and y.ndim == 1 and x.shape == y.shape:
            return passes.dot(x, y)
    return dot_numpy(a, b)


def dot_numpy(a, b):
    """The NumPy reference of :func:`dot`."""
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    if p.size == 0:
        return 0.0
    return float(np.cumsum(p)[-1]) + 0.0


def matmul(a, b):
    """R ``a %*% b`` with the reference BLAS (``dgemm``/``dgemv``) order.

    Each entry starts at 0.0 and receives ``b[l, j] * a[i, l]`` for l = 0, 1, ... in
    double. The loop runs over the inner dimension, so it is meant for a small inner
    dimension (the number of classes); use :func:`crossprod` when it is the sample size.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    vec = b.ndim == 1
    if vec:
        b = b[:, None]
    return (matmul_t(b.T, a.T).T)[:, 0] if vec else matmul_t(b.T, a.T).T


def matmul_t(bt, at):
    """Transposed form of :func:`matmul`: returns ``t(a %*% b)`` given ``t(b)`` and ``t(a)``.

    Class-major layouts (classes x observations) keep every step a long contiguous
    vector operation, which is several times faster than the observation-major loop.
    """
    bt = np.asarray(bt, dtype=np.float64)
    at = np.ascontiguousarray(at, dtype=np.float64)
    out = np.zeros((bt.shape[0], at.shape[1]))
    tmp = np.empty_like(out)
    for ell in range(at.shape[0]):
        np.multiply(bt[:, ell, None], at[ell], out=tmp)
        out += tmp
    return out


def crossprod(a, b, block_elems=1 << 21):
    """R ``t(a) %*% b`` with the reference BLAS order: ``C[j, l] = sum_i a[i, j] * b[i, l]``,
    accumulated in double from 0 over i = 0, 1, ... (float32 widened exactly, any strides).

    ``block_elems`` bounds the memory of the NumPy reference only.
    """
    if _compiled():
        x, y = passes.float_array(a), passes.float_array(b)
        if x.ndim == 2 and y.ndim == 2 and x.shape[0] == y.shape[0]:
            return passes.crossprod(x, y)
    return crossprod_numpy(a, b, block_elems)


def crossprod_numpy(a, b, block_elems=1 << 21):
    """The NumPy reference of :func:`crossprod`.

    Works in row blocks so that memory stays O(block_elems); within a block
    the products are reduced down axis 0 starting from the running total, which keeps the
    sequential order exactly.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n, ka = a.shape
    kb = b.shape[1]
    step = max(1, block_elems // max(1, ka * kb))
    if n <= step:
        # einsum with no summed index only multiplies (exact); faster than broadcasting.
        # order="C" matters: the axis-0 reduction is sequential only on a C-ordered array.
        if not n:
            return np.zeros((ka, kb))
        return _seq_sum_axis0(np.einsum("ij,il->ijl", a, b, order="C")) + 0.0
    acc = np.zeros((ka, kb))
    prod = np.empty((step + 1, ka, kb))
    for start in range(0, n, step):
        stop = min(n, start + step)
        m = stop - start
        prod[0] = acc
        np.einsum("ij,il->ijl", a[start:stop], b[start:stop], out=prod[1 : m + 1])
        acc = _seq_sum_axis0(prod[: m + 1])
    return acc

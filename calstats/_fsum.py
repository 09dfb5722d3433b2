"""A vectorised :func:`math.fsum`: the correctly rounded sum of a float64 array.

``math.fsum(x.tolist())`` costs about 50 ns per element (the list conversion and
Shewchuk's partials in Python's C loop); the calibration tests sum four such vectors, which
cost more than the statistic itself. :func:`fsum` returns the same double, bit for bit,
from a handful of NumPy passes, and falls back to :func:`math.fsum` whenever it cannot
prove that.

Method (error-free extraction; Rump, Ogita and Oishi, "Accurate floating-point summation
part I", SIAM J. Sci. Comput. 31, 2008, algorithm ExtractVector). With ``M = max |x_i|``
and ``sigma = 2^k >= 2 (n + 1) M``:

* ``q_i = (sigma + x_i) - sigma`` is computed exactly, is a multiple of ``2^(k-53)``, and
  ``r_i = x_i - q_i`` is exact with ``|r_i| <= 2^(k-53)``;
* ``sum |q_i| < 2^k``, so every partial sum of the ``q_i`` is a multiple of ``2^(k-53)``
  below ``2^k`` and therefore representable: ``Q = sum q_i`` is exact in *any* order,
  NumPy's pairwise and SIMD summation included;
* ``R' = sum r_i`` in floating point differs from the exact ``R`` by at most
  ``gamma_(n-1) * sum |r_i| <= 2 n^2 2^-53 2^(k-53) = B`` in any order.

The exact sum is ``S = Q + R``. With ``hi = fl(Q + R')`` and its exact rounding error
``lo`` (TwoSum), ``S = hi + lo + (R - R')``; when ``|lo| + B`` is below half the gap from
``hi`` to either neighbour, ``hi`` is the double nearest to ``S``, which is what
:func:`math.fsum` returns (it rounds correctly, ties to even). Otherwise (an exact or
near tie, or a sum that cancels to almost nothing) the function calls :func:`math.fsum`.
"""

import math

import numpy as np

__all__ = ["fsum"]

#: Below this many terms :func:`math.fsum` is as fast as the NumPy passes.
SMALL = 256
#: Extraction needs ``2 (n + 1) M`` and ``2^k`` far from overflow and underflow.
_LO, _HI = 2.0**-900, 2.0**900


def fsum(x, bound=None, work=None):
    """:func:`math.fsum` of a 1-D float64 array, bit for bit, in a few vectorised passes.

    Parameters
    ----------
    x : numpy.ndarray
        One-dimensional float64 array.
    bound : float, optional
        A number at least ``max |x_i|`` over the non-NaN elements, known to the caller
        (for example 1 for products of probabilities), so that no pass is spent finding the
        maximum. NaN elements are allowed (the result is NaN); infinite ones are not.
    work : numpy.ndarray, optional
        A float64 scratch array of the same length (not ``x`` itself), to spare an
        allocation when summing several vectors in a row; its contents are overwritten.

    Returns
    -------
    float
        ``math.fsum(x.tolist())``: the sum rounded once, to nearest with ties to even.
        Non-finite input and the rare cases the fast path cannot certify (exact ties,
        near-total cancellation, extreme magnitudes, zero sums whose sign matters) go to
        :func:`math.fsum` itself, so it also raises or returns NaN/inf as it does.
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    n = x.size
    if n < SMALL:
        return math.fsum(x.tolist())
    m = max(float(x.max()), -float(x.min())) if bound is None else float(bound)
    if not (_LO <= m <= _HI):  # NaN and inf fail here too
        return math.fsum(x.tolist())
    k = math.frexp(2.0 * (n + 1) * m)[1]  # 2^k > 2 (n + 1) M
    sigma = math.ldexp(1.0, k)
    q = np.add(x, sigma, out=work)
    q -= sigma  # exact (Sterbenz): sigma / 2 <= sigma + x_i <= 2 sigma
    big_q = float(np.add.reduce(q))  # exact in any order (see the module notes)
    r = np.subtract(x, q, out=q)  # exact: the rounding error of sigma + x_i
    r_sum = float(np.add.reduce(r))
    bound = math.ldexp(2.0 * n * n, k - 106)
    hi = big_q + r_sum
    b = hi - big_q
    lo = (big_q - (hi - b)) + (r_sum - b)  # TwoSum: big_q + r_sum == hi + lo exactly
    if hi != 0.0 and math.isfinite(hi):
        gap = min(math.nextafter(hi, math.inf) - hi, hi - math.nextafter(hi, -math.inf))
        # (|lo| + B) rounded up by more than its own rounding error, strictly below gap / 2
        if (abs(lo) + bound) * (1.0 + 2.0**-50) < 0.5 * gap:
            return hi
    return math.fsum(x.tolist())

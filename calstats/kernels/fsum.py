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
:func:`math.fsum` returns (it rounds correctly, ties to even). The bound ``B`` is loose
(worst-case order), so a sum that largely cancels (the Spiegelhalter numerator of a
calibrated model: about 1 in 15 at n = 100 000) gets a second estimate of R with a bound
:data:`LANES` times tighter: ``LANES`` sums of ``n / LANES`` terms each, added by
:func:`math.fsum`. Only if that fails too (an exact or near tie, a sum that cancels to
almost nothing) does the function call :func:`math.fsum` on the whole array.
"""

import math

import numpy as np

__all__ = ["fsum"]

#: Below this many terms :func:`math.fsum` is as fast as the NumPy passes.
SMALL = 256
#: Lanes of the second, tighter estimate of R (see :func:`fsum`).
LANES = 256
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
    # R' in any order: within gamma_(n-1) sum |r_i| <= 2 n^2 2^-53 2^(k-53) of R
    r_sum = float(np.add.reduce(r))
    hi = _certified(big_q, r_sum, math.ldexp(2.0 * n * n, k - 106))
    if hi is not None:
        return hi
    # A sum that nearly cancels (or sits near a tie) needs R' closer: LANES sums of n / LANES
    # terms each (within gamma_(m-1) of theirs in any order), then one correctly rounded sum.
    m = n // LANES
    lane_sums = np.add.reduce(r[: m * LANES].reshape(m, LANES), axis=0)
    r_sum = math.fsum(lane_sums.tolist() + r[m * LANES:].tolist())
    hi = _certified(big_q, r_sum, math.ldexp(2.0 * m * n, k - 106) + math.ldexp(abs(r_sum), -52))
    if hi is not None:
        return hi
    return math.fsum(x.tolist())


def _certified(big_q, r_sum, bound):
    """``fl(big_q + R)`` for an R known only as ``r_sum`` within ``bound``, or None.

    With ``hi = fl(big_q + r_sum)`` and its exact error ``lo`` (TwoSum), the exact sum is
    ``hi + lo + delta`` with ``|delta| <= bound``; it rounds to ``hi`` when ``|lo| + bound``
    (rounded up by more than its own rounding error) is strictly below half the gap from
    ``hi`` to either neighbour.
    """
    hi = big_q + r_sum
    b = hi - big_q
    lo = (big_q - (hi - b)) + (r_sum - b)  # big_q + r_sum == hi + lo exactly
    if hi == 0.0 or not math.isfinite(hi):
        return None
    gap = min(math.nextafter(hi, math.inf) - hi, hi - math.nextafter(hi, -math.inf))
    if (abs(lo) + bound) * (1.0 + 2.0**-50) < 0.5 * gap:
        return hi
    return None

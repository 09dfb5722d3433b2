"""Sums of blocks that merge exactly: error-free extraction by levels.

A block's sum (or its sums per bin) is returned as a few float64 *pieces* whose exact
total is the block's exact total, up to a residual far below one unit in the last place;
the pieces of all blocks are added once, correctly rounded, by :func:`math.fsum`. So the
merged sum does not depend on how the rows are cut into blocks, and equals the
in-memory :func:`calstats.kernels.fsum.fsum` of the same values (bit for bit but in ties within
about 2^-100 of the sum).

Method (Rump, Ogita and Oishi, "Accurate floating-point summation part I", SIAM J. Sci.
Comput. 31, 2008, ExtractVector), as in :mod:`calstats.kernels.fsum`: with ``|x_i| <= M`` over
``n`` values and ``sigma = 2^k >= 4 (n + 2) M``, ``q_i = (sigma + x_i) - sigma`` and
``r_i = x_i - q_i`` are exact, every ``q_i`` is a multiple of ``2^(k - 54)`` and every
partial sum of them stays below ``sigma / 4``, so ``sum q_i`` is exact in any order
(NumPy's ``bincount`` included); ``|r_i| <= 2^(k - 53)`` is extracted again. After
:data:`LEVELS` extractions the rest is summed in floating point: its error is below
``n^2 2^-53`` times ``M (4 (n + 2))^LEVELS 2^(-53 LEVELS)``.
"""

import math

import numpy as np

#: Extraction levels before the floating-point rest (see the module notes).
LEVELS = 2


def _sigma(n, bound):
    return math.ldexp(1.0, math.frexp(4.0 * (n + 2) * bound)[1])


def pieces(x, bound=None):
    """The pieces (a float64 array of ``LEVELS + 1`` values) of ``sum(x)``.

    ``bound`` is at least ``max |x_i|``; without it, the maximum is computed. Non-finite
    values make the pieces non-finite (their fsum is then NaN or inf, as in memory).
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    out = np.zeros(LEVELS + 1)
    if x.size == 0:
        return out
    m = float(np.max(np.abs(x))) if bound is None else float(bound)
    if not math.isfinite(m) or m == 0.0:
        out[-1] = float(np.sum(x))
        return out
    rest = x
    for level in range(LEVELS):
        sigma = _sigma(x.size, m)
        q = (rest + sigma) - sigma
        out[level] = float(np.sum(q))
        rest = rest - q
        m = math.ldexp(sigma, -53)
    out[-1] = float(np.sum(rest))
    return out


def binned_pieces(idx, x, nbins, bound):
    """Pieces of the sums of ``x`` per bin: an array ``(LEVELS + 1, nbins)``.

    ``idx`` holds 0-based bin numbers; ``bound`` is at least ``max |x_i|`` (finite).
    """
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    out = np.zeros((LEVELS + 1, nbins))
    if x.size == 0:
        return out
    m = float(bound)
    rest = x
    for level in range(LEVELS):
        sigma = _sigma(x.size, m)
        q = (rest + sigma) - sigma
        out[level] = np.bincount(idx, weights=q, minlength=nbins)
        rest = rest - q
        m = math.ldexp(sigma, -53)
    out[-1] = np.bincount(idx, weights=rest, minlength=nbins)
    return out


def total(parts):
    """The correctly rounded sum of the pieces of all blocks (an iterable of arrays)."""
    return math.fsum(np.concatenate([np.ravel(p) for p in parts]).tolist()) if parts else 0.0


def binned_total(parts, nbins):
    """Per bin, ``(hi, lo)``: the merged sum as a double-double (``hi`` correctly rounded,
    ``lo`` the rounded remainder), from per-block arrays ``(LEVELS + 1, nbins)``."""
    stack = np.concatenate([np.asarray(p).reshape(-1, nbins) for p in parts], axis=0) if parts else np.zeros((1, nbins))
    hi = np.empty(nbins)
    lo = np.empty(nbins)
    for j in range(nbins):
        col = stack[:, j].tolist()
        hi[j] = math.fsum(col)
        lo[j] = math.fsum(col + [-hi[j]]) if math.isfinite(hi[j]) else 0.0
    return hi, lo

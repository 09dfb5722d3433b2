"""The inductive Venn-Abers predictor (IVAP) of Vovk, Petej and Fedorova (2015): arrays in,
numbers out.

For calibration scores ``x`` with 0/1 labels ``y`` (case weights ``w``), an IVAP gives each
test score ``s`` two probabilities: ``p0``, the value at ``s`` of the isotonic regression of
the calibration set with ``(s, 0)`` added (weight 1), and ``p1``, the same with ``(s, 1)``.
Both depend on ``s`` only through its place among the distinct calibration scores ``c``
(``m`` of them), so one table of ``m + 1`` values each describes the predictor; a test score
reads ``p0[searchsorted(c, s, "right")]`` and ``p1[searchsorted(c, s, "left")]``, as in the
Python package venn-abers. (A test score tied with ``c[j]`` belongs to that group; adding
label 1 just before the group, or label 0 just after it, gives the same fit.)

The tables come from the cumulative sum diagram (CSD) ``P_k = (W_k, Y_k)``, the summed weights
and weighted labels of the first ``k`` groups, and the vertices ``E`` of its greatest convex
minorant (the blocks of the isotonic fit without the test point). Adding ``(s, 1)`` after
group ``i`` gives the value

    p1[i] = max_{s' <= i} T(s'),   T(s') = min over vertices e > s' of (Y_e - Y_s' + 1) / (W_e - W_s' + 1),

and adding ``(s, 0)`` after group ``i``

    p0[i] = min_{t >= i} U(t),     U(t)  = max over vertices e < t of (Y_t - Y_e) / (W_t - W_e + 1),

with ``p1[m] = 1`` and ``p0[0] = 0``. (Within the block ``[a, b]`` of the fit holding the
new point, the block of the new fit starts in ``[a - 1, i]`` and ends at a vertex ``>= b``;
the cumulative maximum over ``s'`` equals the one restricted to the block because ``p1`` is
non-decreasing.) ``T`` is the tangent from ``P_s' - (1, 1)`` to the convex chain of the
vertices right of ``s'``, found for every ``s'`` at once by a vectorised binary search
(``log2`` of the number of vertices steps) with exact integer cross products, so each value
is one correctly rounded division of two exact sums: the same double as venn-abers' stack
algorithm (Vovk et al.'s Algorithms 1-4), in O(n log n) for the sort.
"""

import numpy as np
from scipy.optimize import isotonic_regression

__all__ = ["ivap_table", "ivap_lookup", "merge_log", "merge_brier", "pairwise_coupling"]


def _groups(x, y, w):
    """Distinct sorted scores, and the weight and weighted label sum of each."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    n = xs.size
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    c = xs[starts]
    ys = y[order].astype(np.float64)
    if w is None:
        gw = np.diff(np.append(starts, n)).astype(np.float64)
        gy = np.add.reduceat(ys, starts)
    else:
        ws = w[order]
        gw = np.add.reduceat(ws, starts)
        gy = np.add.reduceat(ws * ys, starts)
    return c, gw, gy


def ivap_table(x, y, w=None):
    """The IVAP tables of a calibration set.

    Parameters
    ----------
    x : ndarray of float64
        Calibration scores (any real values; only their order matters).
    y : ndarray
        0/1 labels.
    w : ndarray of float64, optional
        Positive case weights (rows of weight 0 must be dropped beforehand).

    Returns
    -------
    c : ndarray
        The ``m`` distinct scores, increasing.
    p0, p1 : ndarray
        ``m + 1`` values each, indexed as described in the module docstring.
    """
    c, gw, gy = _groups(x, y, w)
    m = c.size
    W = np.zeros(m + 1)
    Y = np.zeros(m + 1)
    np.cumsum(gw, out=W[1:])
    np.cumsum(gy, out=Y[1:])
    # vertices of the greatest convex minorant: the block boundaries of the isotonic fit
    E = np.asarray(isotonic_regression(gy / gw, weights=gw, increasing=True).blocks, dtype=np.int64)
    WE, YE = W[E], Y[E]
    K = E.size - 1  # E[0] = 0, E[K] = m

    # p1: for each s in 0..m-1, the first vertex j >= k0(s) with slope(E_j, E_j+1) >= T_j(s)
    s = np.arange(m)
    Ws, Ys = W[s], Y[s]
    lo = np.searchsorted(E, s, side="right")
    hi = np.full(m, K, dtype=np.int64)
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        nxt = np.minimum(mid + 1, K)
        cond = (YE[nxt] - YE[mid]) * (WE[mid] - Ws + 1.0) >= (YE[mid] - Ys + 1.0) * (WE[nxt] - WE[mid])
        cond |= mid == K
        hi = np.where(active & cond, mid, hi)
        lo = np.where(active & ~cond, mid + 1, lo)
    T = (YE[lo] - Ys + 1.0) / (WE[lo] - Ws + 1.0)
    p1 = np.empty(m + 1)
    np.maximum.accumulate(T, out=p1[:m])
    p1[m] = 1.0

    # p0: for each t in 1..m, the last vertex j <= k1(t) with slope(E_j-1, E_j) <= U_j(t)
    t = np.arange(1, m + 1)
    Wt, Yt = W[t], Y[t]
    lo = np.zeros(m, dtype=np.int64)
    hi = np.searchsorted(E, t, side="left") - 1
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi + 1) // 2
        prv = mid - 1  # mid >= 1 here
        cond = (YE[mid] - YE[prv]) * (Wt - WE[mid] + 1.0) <= (Yt - YE[mid]) * (WE[mid] - WE[prv])
        lo = np.where(active & cond, mid, lo)
        hi = np.where(active & ~cond, mid - 1, hi)
    U = (Yt - YE[lo]) / (Wt - WE[lo] + 1.0)
    p0 = np.empty(m + 1)
    p0[0] = 0.0
    p0[1:] = np.minimum.accumulate(U[::-1])[::-1]
    return c, p0, p1


def ivap_lookup(c, p0, p1, s):
    """``(p0, p1)`` of the test scores ``s`` from the tables of :func:`ivap_table`."""
    return p0[np.searchsorted(c, s, side="right")], p1[np.searchsorted(c, s, side="left")]


def merge_log(p0, p1):
    """The log-loss merge ``p1 / (1 - p0 + p1)``; with one column per fold (2-D inputs),
    geometric means over the folds first: ``GM(p1) / (GM(1 - p0) + GM(p1))`` (venn-abers'
    ``loss="log"``, computed as it computes it)."""
    if p0.ndim == 1:
        return p1 / (1.0 - p0 + p1)
    k = p0.shape[1]
    g1 = p1.prod(axis=1) ** (1.0 / k)
    g0 = (1.0 - p0).prod(axis=1) ** (1.0 / k)
    return g1 / (g0 + g1)


def merge_brier(p0, p1):
    """The Brier-loss merge ``p1 + p0^2 / 2 - p1^2 / 2``, averaged over folds for 2-D inputs
    (venn-abers' ``loss="brier"``)."""
    if p0.ndim == 1:
        return p1 + 0.5 * p0**2 - 0.5 * p1**2
    k = p0.shape[1]
    return 1 / k * (np.sum(p1, axis=1) + 0.5 * np.sum(p0**2, axis=1) - 0.5 * np.sum(p1**2, axis=1))


def pairwise_coupling(pair_probs, pairs, k):
    """Class probabilities from pairwise ones (venn-abers' one-vs-one coupling).

    ``pair_probs[:, q]`` is the probability of class ``pairs[q][1]`` against ``pairs[q][0]``
    (0-based classes); class i gets ``1 / (sum_j 1 / p(i | i, j) - (k - 2))``, and rows are
    normalised to sum to one.
    """
    n = pair_probs.shape[0]
    out = np.zeros((n, k))
    for i in range(k):
        cols = [1.0 - pair_probs[:, q] for q, (a, _) in enumerate(pairs) if a == i]
        cols += [pair_probs[:, q] for q, (_, b) in enumerate(pairs) if b == i]
        out[:, i] = 1 / (np.sum(np.hstack([(1 / p).reshape(-1, 1) for p in cols]), axis=1) - (k - 2))
    return out / np.sum(out, axis=1).reshape(-1, 1)

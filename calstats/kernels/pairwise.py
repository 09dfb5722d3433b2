"""Exact fast engines of the calibration-inference layer (``skce``, ``cal_test``, ``cal_ci``).

Everything here computes the same numbers as the direct O(n^2) double sums of the SKCE
estimators, their bootstrap tests and intervals, up to floating-point summation order;
``tests/test_inference.py`` checks each engine against an O(n^2) oracle.

* :func:`lap_pair_sums` -- Laplacian-kernel quadratic forms ``sum_{i<j} a_i a_j
  exp(-|x_i - x_j| / nu)`` for one or many weight vectors in O(n) per vector after one
  sort (the SKCE estimators, wild-bootstrap replicates, bootstrap resamples given by counts).
* :func:`median_pairwise_1d` -- exact median of the n(n-1)/2 distances ``|x_i - x_j|`` in
  O(n log n) per bisection step.
* :func:`tv_distances`, :func:`median_tv`, :func:`canonical_sums` -- the canonical
  (matrix-valued kernel) form in row/column blocks, O(n * block) memory.
* :func:`mt_raw`, :func:`rademacher`, :func:`unif_index` -- bulk draws from R's stream
  (``calstats.rng``) with NumPy's ``MT19937`` loaded with R's state (``mt[0..623]`` and ``mti``):
  the same words R would draw, consumed exactly as R consumes them.
"""

import math

import numpy as np

from .. import rng
from ..numerics import libm
from ..numerics.reductions import rmean

__all__ = [
    "lap_pair_sums",
    "median_pairwise_1d",
    "tv_distances",
    "median_tv",
    "canonical_sums",
    "mt_raw",
    "rademacher",
    "unif_index",
]

#: Elements of a working array (rows x replicates) per chunk: 2^20 doubles = 8 MB.
CHUNK_ELEMS = 1 << 20
#: Row/column block of the canonical form.
BLOCK = 1024
#: Largest exponent span ``(x - x_start) / nu`` inside one prefix-sum chunk (so no exp() overflows).
SPAN = 300.0


# --------------------------------------------------------------------------------------
# one-dimensional Laplacian sums


def lap_pair_sums(xs, a, nu, rows=None):
    """``sum_{i<j} a_i a_j exp(-|x_i - x_j| / nu)`` for sorted ``xs``, in O(n) per weight vector.

    Parameters
    ----------
    xs : ndarray (n,)
        Ascending positions.
    a : ndarray (n,) or (n, B)
        Weights in the order of ``xs``; one column per quadratic form.
    nu : float
        Bandwidth.
    rows : int, optional
        Chunk height (default: from ``CHUNK_ELEMS``; tests use small values).

    Returns
    -------
    float or ndarray (B,)
        The strictly-lower pair sum ``L = sum_i a_i S_i`` with ``S_i = sum_{j<i} a_j
        exp(-(x_i - x_j)/nu)``. The full form is ``Q(a) = 2 L + sum_i a_i^2``.

    Notes
    -----
    ``S_i = exp(-(x_i - x_s)/nu) * (C_s + sum_{s<=j<i} a_j exp((x_j - x_s)/nu))`` inside a
    chunk starting at ``s`` (exponents at most ``SPAN``, so no overflow), with ``C_s`` the
    carried sum of the earlier chunks decayed to ``x_s``. The exclusive prefix sum keeps the
    diagonal out, so the off-diagonal sum is never obtained by cancellation. The chunk
    height bounds the working memory to ``CHUNK_ELEMS`` elements for any number of columns.
    """
    xs = np.asarray(xs, dtype=np.float64)
    single = np.ndim(a) == 1
    a2 = np.asarray(a, dtype=np.float64)
    if single:
        a2 = a2[:, None]
    n, ncol = a2.shape
    total = np.zeros(ncol)
    if n < 2:
        return 0.0 if single else total
    rows = rows or max(64, min(4096, CHUNK_ELEMS // max(ncol, 1)))
    carry = np.zeros(ncol)  # sum_{j<s} a_j exp(-(x_{s-1} - x_j)/nu) + a_{s-1}: inclusive S at s-1
    start = 0
    while start < n:
        x0 = xs[start]
        stop = min(n, start + rows, int(np.searchsorted(xs, x0 + SPAN * nu, side="right")))
        stop = max(stop, start + 1)
        rel = (xs[start:stop] - x0) / nu
        up = libm.exp(rel)
        down = libm.exp(-rel)
        block = a2[start:stop]
        c0 = carry * libm.exp(-(x0 - xs[start - 1]) / nu) if start else carry
        t = block * up[:, None]
        excl = np.empty_like(t)
        excl[0] = c0
        if t.shape[0] > 1:
            np.cumsum(t[:-1], axis=0, out=excl[1:])
            excl[1:] += c0
        carry = (excl[-1] + t[-1]) * down[-1]
        excl *= down[:, None]
        total += np.einsum("ij,ij->j", block, excl)
        start = stop
    return float(total[0]) if single else total


# --------------------------------------------------------------------------------------
# median heuristic, scalar form


def _count_le(xs, t):
    """Per row i: ``k_i`` = one past the last j with ``fl(xs[j] - xs[i]) <= t`` (j >= i+1)."""
    n = xs.size
    idx = np.arange(n)
    k = np.searchsorted(xs, xs + t, side="right")
    k = np.maximum(k, idx + 1)
    while True:  # fl(x_j - x_i) is monotone in x_j: fix the few boundary disagreements
        last = k - 1
        bad = (last > idx) & ((xs[np.minimum(last, n - 1)] - xs) > t)
        if not bad.any():
            break
        k[bad] = np.maximum(np.searchsorted(xs, xs[last[bad]], side="left"), idx[bad] + 1)
    while True:
        nxt = np.minimum(k, n - 1)
        bad = (k < n) & ((xs[nxt] - xs) <= t)
        if not bad.any():
            break
        k[bad] = np.searchsorted(xs, xs[k[bad]], side="right")
    return k


def _kth_pairwise(xs, kth):
    """The ``kth`` smallest (1-based) of ``fl(xs[j] - xs[i])``, i < j, exactly."""
    n = xs.size
    idx = np.arange(n)

    def count(t):
        k = _count_le(xs, t)
        return int((k - idx - 1).sum()), k

    c0, k0 = count(0.0)
    if c0 >= kth:
        return 0.0
    lo, hi = 0.0, float(xs[-1] - xs[0])
    clo, klo = c0, k0
    chi, khi = count(hi)
    while chi - clo > max(n, 16):
        mid = lo + 0.5 * (hi - lo)
        if not lo < mid < hi:
            return hi  # no double strictly between: the order statistic is hi
        cm, km = count(mid)
        if cm >= kth:
            hi, chi, khi = mid, cm, km
        else:
            lo, clo, klo = mid, cm, km
    lens = khi - klo
    rows = np.repeat(idx, lens)
    offs = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
    cols = np.repeat(klo, lens) + offs
    diffs = np.sort(xs[cols] - xs[rows])
    return float(diffs[kth - clo - 1])


def median_pairwise_1d(x):
    """R's ``median`` of ``|x_i - x_j|`` over the pairs i < j, exactly, without forming all pairs.

    Bisection on the distance with an O(n log n) count of the pairs below it, until the
    bracket holds at most ~n distances, which are then listed and selected. The mean of
    the two middle values (even count) is R's ``mean``. NaN when there is no pair.
    """
    xs = np.sort(np.asarray(x, dtype=np.float64), kind="stable")
    n = xs.size
    npairs = n * (n - 1) // 2
    if npairs == 0:
        return math.nan
    if npairs % 2:
        return _kth_pairwise(xs, (npairs + 1) // 2)
    half = npairs // 2
    return rmean([_kth_pairwise(xs, half), _kth_pairwise(xs, half + 1)])


# --------------------------------------------------------------------------------------
# canonical form: total-variation distances in blocks


def tv_distances(pa, pb):
    """``D[i, j] = 0.5 * sum_k |pa[i, k] - pb[j, k]|`` (classes accumulated in order)."""
    d = np.abs(pa[:, 0, None] - pb[None, :, 0])
    for k in range(1, pa.shape[1]):
        d += np.abs(pa[:, k, None] - pb[None, :, k])
    d *= 0.5
    return d


def _blocks(n, block):
    return [(s, min(n, s + block)) for s in range(0, n, block)]


def _tv_pass(p, block, levels, collect):
    """One pass over the pairs i < j: the members of the nested bins ``levels`` are
    histogrammed into 2^16 sub-bins (``collect=False``) or returned (``collect=True``).

    A level is ``(lo, scale, bin)``; a distance is a member when
    ``clip(floor((d - lo) * scale), 0, 65535) == bin`` at every level. The arithmetic is
    identical in every pass, so membership is decided consistently.
    """
    n = p.shape[0]
    nb = 1 << 16
    if levels:
        lo_next = levels[-1][0] + levels[-1][2] / levels[-1][1]
        scale_next = levels[-1][1] * nb
    else:
        lo_next, scale_next = 0.0, float(nb)
    hist = np.zeros(nb, dtype=np.int64)
    kept = []
    dmin, dmax = math.inf, -math.inf
    for i0, i1 in _blocks(n, block):
        for j0, j1 in _blocks(n, block):
            if j1 <= i0:
                continue
            d = tv_distances(p[i0:i1], p[j0:j1])
            mask = np.ones(d.shape, dtype=bool)
            if j0 <= i0 < j1 or i0 <= j0 < i1:
                ii = np.arange(i0, i1)[:, None]
                jj = np.arange(j0, j1)[None, :]
                mask &= jj > ii
            for lo, scale, b in levels:
                mask &= np.clip(np.floor((d - lo) * scale), 0, nb - 1) == b
            v = d[mask]
            if v.size == 0:
                continue
            dmin, dmax = min(dmin, float(v.min())), max(dmax, float(v.max()))
            if collect:
                kept.append(v)
            else:
                sub = np.clip(np.floor((v - lo_next) * scale_next), 0, nb - 1).astype(np.int64)
                hist += np.bincount(sub, minlength=nb)
    if collect:
        return np.concatenate(kept) if kept else np.empty(0), dmin, dmax
    return hist, (lo_next, scale_next), dmin, dmax


def _tv_kth(p, kth, block, first=None, max_candidates=10**7):
    levels = []
    below = 0
    hist_info = first
    for _ in range(6):
        hist, (lo, scale), dmin, dmax = hist_info if hist_info is not None else _tv_pass(p, block, levels, False)
        hist_info = None
        if dmin == dmax:
            return dmin
        cum = np.cumsum(hist)
        b = int(np.searchsorted(cum, kth - below, side="left"))
        below += int(cum[b - 1]) if b else 0
        levels.append((lo, scale, b))
        if hist[b] <= max_candidates:
            break
    values, dmin, dmax = _tv_pass(p, block, levels, True)
    return float(np.sort(values)[kth - below - 1])


def median_tv(p, block=BLOCK):
    """R's ``median`` of ``d_TV(P_i, P_j)`` over the pairs i < j, exactly, without storing all pairs.

    Exact two-pass selection: pass 1 histograms the distances (computed in row/column
    blocks) into 2^16 equal bins on [0, 1]; pass 2 recomputes them and keeps those in the
    bin of the order statistic, which are sorted and selected (a bin with more than 1e7
    distances is histogrammed again first). Memory O(block^2 + 2^16 + candidates).
    """
    p = np.ascontiguousarray(p, dtype=np.float64)
    n = p.shape[0]
    npairs = n * (n - 1) // 2
    if npairs == 0:
        return math.nan
    first = _tv_pass(p, block, [], False)
    if npairs % 2:
        return _tv_kth(p, (npairs + 1) // 2, block, first)
    half = npairs // 2
    return rmean([_tv_kth(p, half, block, first), _tv_kth(p, half + 1, block, first)])


def canonical_sums(p, e, nu, weights=None, block=BLOCK):
    """Pair sums of the canonical kernel ``h_ij = exp(-d_TV(P_i, P_j)/nu) <E_i, E_j>``.

    Parameters
    ----------
    p : ndarray (n, K)
        Probability rows.
    e : ndarray (n, K)
        Residuals ``E_i = onehot(y_i) - P_i``.
    nu : float
        Bandwidth.
    weights : ndarray (n, B), optional
        Multipliers (wild-bootstrap signs or resample counts).

    Returns
    -------
    float or ndarray (B,)
        ``sum_{i<j} h_ij`` or, with ``weights``, ``sum_{i<j} w_bi w_bj h_ij`` per column.

    Notes
    -----
    Blocks ``J >= I`` only (symmetry); diagonal blocks keep their strict upper triangle.
    ``G = E_I E_J^T`` is one BLAS product; memory O(block^2 + block * B) beyond the inputs.
    Time O(n^2 (K + B)).
    """
    p = np.ascontiguousarray(p, dtype=np.float64)
    e = np.ascontiguousarray(e, dtype=np.float64)
    n = p.shape[0]
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    total = 0.0 if w is None else np.zeros(w.shape[1])
    for i0, i1 in _blocks(n, block):
        for j0, j1 in _blocks(n, block):
            if j1 <= i0:
                continue
            h = libm.exp(-tv_distances(p[i0:i1], p[j0:j1]) / nu)
            h *= e[i0:i1] @ e[j0:j1].T
            if i0 == j0:
                h = np.triu(h, 1)
            if w is None:
                total += float(h.sum())
            else:
                total += np.einsum("ib,ib->b", h @ w[j0:j1], w[i0:i1])
    return total


# --------------------------------------------------------------------------------------
# bulk draws from R's stream


def mt_raw(count):
    """The next ``count`` 32-bit words of R's Mersenne-Twister (uint32 array).

    ``unif_rand()`` is ``word * 2^-32`` (0 fixed up to a tiny positive number), so
    ``floor(65536 * unif_rand()) == word >> 16``, the chunk R's ``R_unif_index`` uses.
    NumPy's ``MT19937`` (same twist and tempering as R) is loaded with R's state and the
    state is written back, so the global stream ends exactly where ``count`` calls of
    ``unif_rand()`` leave it. ``Generator.integers(0, 2^32, dtype=uint32)`` returns the raw
    words unchanged (full range: no rejection), in chunks that stay in cache.
    """
    count = int(count)
    if count <= 0:
        return np.empty(0, dtype=np.uint32)
    rng._ensure_init()
    st = rng.get_state()
    if st._mti > 624:  # a hand-made state that R re-seeds first: use the reference path
        return np.floor(rng._runif_raw(count) * 4294967296.0).astype(np.uint32)
    bg = np.random.MT19937()
    bg.state = {"bit_generator": "MT19937", "state": {"key": np.array(st._mt), "pos": st._mti}}
    gen = np.random.Generator(bg)
    out = np.empty(count, dtype=np.uint32)
    step = 1 << 20
    for s in range(0, count, step):
        out[s:s + step] = gen.integers(0, 1 << 32, size=min(step, count - s), dtype=np.uint32)
    new = bg.state["state"]
    rng.set_state(rng.RNGState(new["key"], new["pos"]))
    return out


def rademacher(count):
    """``sample(c(-1, 1), count, replace = TRUE)`` as int8 (one uniform per sign:
    ``-1`` when ``floor(65536 * u)`` is even, ``+1`` when odd)."""
    bits = ((mt_raw(count) >> np.uint32(16)) & np.uint32(1)).astype(np.int8)
    bits *= 2
    bits -= 1
    return bits


def unif_index(dn, count):
    """``count`` values of R's ``R_unif_index(dn)`` (0-based int64), as
    ``sample.int(dn, count, replace = TRUE) - 1``, stream consumed exactly as R."""
    count = int(count)
    dn = int(dn)
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    bits = (dn - 1).bit_length()  # ceil(log2(dn)) for integer dn >= 1
    w = bits // 16 + 1
    mask = np.uint64((1 << bits) - 1)
    p_acc = dn / float(1 << bits)
    parts, got = [], 0
    while got < count:
        need = count - got
        ncand = int(need / p_acc * 1.02) + 64
        rng._ensure_init()
        snap = rng.get_state()
        raw = (mt_raw(ncand * w) >> np.uint32(16)).astype(np.uint64)
        chunks = raw.reshape(ncand, w)
        v = chunks[:, 0].copy()
        for j in range(1, w):
            v = v * np.uint64(65536) + chunks[:, j]
        v &= mask
        acc = np.flatnonzero(v < np.uint64(dn))
        if acc.size >= need:
            last = int(acc[need - 1])
            rng.set_state(snap)
            mt_raw((last + 1) * w)
            parts.append(v[acc[:need]].astype(np.int64))
            got = count
        else:
            parts.append(v[acc].astype(np.int64))
            got += acc.size
    return np.concatenate(parts)


# --------------------------------------------------------------------------------------
# kernel terms of given index pairs (the linear estimator)


def pair_terms_scalar(r, e, nu, first, second):
    """``h_ij = e_i e_j exp(-|r_i - r_j| / nu)`` for index arrays ``first``, ``second``."""
    return e[first] * e[second] * libm.exp(-np.abs(r[first] - r[second]) / nu)


def pair_terms_canonical(p, e, nu, first, second):
    """``h_ij = exp(-d_TV(P_i, P_j)/nu) <E_i, E_j>`` for index arrays ``first``, ``second``
    (the distance accumulated over classes in order, as :func:`tv_distances`)."""
    d = np.abs(p[first, 0] - p[second, 0])
    for k in range(1, p.shape[1]):
        d += np.abs(p[first, k] - p[second, k])
    d *= 0.5
    return libm.exp(-d / nu) * np.einsum("...k,...k->...", e[first], e[second])

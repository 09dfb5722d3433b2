"""R's ``lowess`` (``stats::lowess``, C function ``clowess``), ported for ``val_prob``.

``rms::val.prob`` smooths the outcomes on the predicted probabilities with
``lowess(p, y, iter = 0)`` and reads Emax, E90 and Eavg off that curve, so the curve
decides those digits. This module follows ``clowess`` and ``lowest`` of R 4.2's
``src/library/stats/src/lowess.c`` (Cleveland's algorithm as R implements it): the same
neighbourhood moves, the tricube weights with R's ``0.001 h`` / ``0.999 h`` cut-offs, the
weighted linear fit when the weighted spread of x exceeds ``0.001 * range``, the
``delta`` skipping with linear interpolation in between, and ties copied from the last
fitted point. Sums run in index order in double precision, as the C loops do.

Two backends give the same bits. The compiled one (``calstats.numerics._loops``) is R's C
loop. The NumPy one, the reference, computes what R's loop computes without walking the
points one by one:

* which points R fits depends on ``x`` and ``delta`` only (the next fitted point is the last
  one within ``delta``, or the first after the ties), so the visited points are found first
  by following a successor array;
* R's neighbourhood of a fitted point ``x[i]`` moves right while ``x[i] - x[nleft] >
  x[nright + 1] - x[i]``; both differences are monotone in ``nleft`` and in ``i`` even after
  rounding, so where R's walk stops is the first ``nleft`` where the test fails, found by
  bisection for all fitted points at once; likewise the last point of each local fit (R's
  ``nrt``, ties on the right included);
* the local fits are rows of a matrix, each sum a sequential ``cumsum`` along its row (R's
  ``a += ...`` order; the padding after a row's last point adds zeros, which change no
  sum but the sign of an all-zero one, and ``+ 0.0`` gives R's);
* the skipped points are interpolated with R's expression, segment by segment.
"""

import numpy as np

from ...numerics.passes import compiled_module, use_compiled

__all__ = ["lowess", "r_order"]

_loops = compiled_module("_loops")

#: elements of one block of local fits in the NumPy backend (rows x widest row)
_BLOCK = 1 << 14


def _seqsum(v):
    """Sequential double sum from 0.0 (the C loops' ``a += ...``)."""
    return float(np.cumsum(v)[-1]) + 0.0 if v.size else 0.0


def _row_sums(m):
    """Sequential sums along each row, from 0.0 (R's ``a = 0.; a += ...`` per local fit)."""
    return np.cumsum(m, axis=1)[:, -1] + 0.0


def _first_true(lo, hi, pred):
    """Smallest ``j`` in ``[lo, hi)`` with ``pred(j)`` (``pred`` monotone: False then True,
    vectorised over rows), ``hi`` if none."""
    lo = lo.copy()
    hi = hi.copy()
    while True:
        live = lo < hi
        if not live.any():
            return lo
        mid = (lo + hi) // 2
        ok = np.zeros(lo.size, dtype=bool)
        ok[live] = pred(mid[live], live)
        hi = np.where(live & ok, mid, hi)
        lo = np.where(live & ~ok, mid + 1, lo)


def _visits(x, n, delta):
    """R's fitted points in order and the end of each one's run of ties (0-based)."""
    idx = np.arange(n)
    brk = np.maximum(idx + 1, np.searchsorted(x, x + delta, side="right"))  # R: first x > cut
    tie_end = np.minimum(np.searchsorted(x, x, side="right") - 1, brk - 1)
    nxt = np.maximum(tie_end + 1, brk - 1).tolist()
    te = tie_end.tolist()
    out = []
    i = 0
    while True:
        out.append(i)
        if te[i] >= n - 1:
            break
        i = nxt[i]
    vis = np.array(out, dtype=np.int64)
    return vis, tie_end[vis]


def _windows(x, n, ns, vis):
    """R's ``nleft`` (where its walk stops), ``h`` and the exclusive end ``nrt + 1`` of the
    local fit at each visited point."""
    xs = x[vis]
    K = vis.size

    def stop_left(L, rows):  # R stops moving right when d1 <= d2
        xi = xs[rows]
        return (xi - x[L]) <= (x[L + ns] - xi)

    nleft = _first_true(np.zeros(K, dtype=np.int64), np.full(K, n - ns, dtype=np.int64), stop_left)
    h = np.maximum(xs - x[nleft], x[nleft + ns - 1] - xs)
    h9 = 0.999 * h
    h1 = 0.001 * h
    # the first point right of xs (after its ties) farther than h9 ends R's weight loop
    right = np.searchsorted(x, xs, side="right")

    def past(j, rows):
        return (x[j] - xs[rows]) > h9[rows]

    end = _first_true(right, np.full(K, n, dtype=np.int64), past)
    return xs, nleft, end, h, h9, h1


def _local_fits(x, y, n, vis, ns, userw, rw, win):
    """R's ``lowest`` at every visited point: ``(ys, ok)``."""
    xs_all, nleft_all, end_all, h_all, h9_all, h1_all = win
    K = vis.size
    rng = x[n - 1] - x[0]
    out = np.empty(K)
    ok_all = np.empty(K, dtype=bool)
    widths = end_all - nleft_all
    wmax = int(widths.max())
    rows = max(1, _BLOCK // max(wmax, 1))
    off = np.arange(wmax)
    for s in range(0, K, rows):
        sl = slice(s, min(K, s + rows))
        L = nleft_all[sl]
        E = end_all[sl]
        width = int((E - L).max())
        J = L[:, None] + off[None, :width]
        Jc = np.minimum(J, n - 1)
        xj = x[Jc]
        xs = xs_all[sl]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = xj - xs[:, None]
            np.abs(r, out=r)
            q = r / h_all[sl][:, None]
            w = q * q
            w *= q
            np.subtract(1.0, w, out=w)  # t = 1 - q^3
            np.multiply(w, w, out=q)
            q *= w  # t^3
            w = q
            np.copyto(w, 1.0, where=r <= h1_all[sl][:, None])
            if userw:
                w *= rw[Jc]
            keep = r <= h9_all[sl][:, None]
            keep &= J < E[:, None]
            np.copyto(w, 0.0, where=~keep)
            a = _row_sums(w)
            ok = a > 0.0
            w /= np.where(ok, a, 1.0)[:, None]
            a2 = _row_sums(w * xj)
            d = np.subtract(xj, a2[:, None], out=xj)
            c = _row_sums((d * d) * w)
            slope = ok & (h_all[sl] > 0.0) & (np.sqrt(c) > 0.001 * rng)
            # rows without the slope step get b = 0: w * (0 d + 1) is w exactly
            b = np.where(slope, (xs - a2) / np.where(slope, c, 1.0), 0.0)
            d *= b[:, None]
            d += 1.0
            w *= d
            w *= y[Jc]
            fit = _row_sums(w)
        out[sl] = fit
        ok_all[sl] = ok
    return out, ok_all


def _fill(x, ys, vis, ties):
    """Copies to the ties of each fitted point, and R's interpolation of the skipped points
    between one fitted point's last tie and the next fitted point."""
    lens = ties - vis
    if lens.any():
        ys[np.repeat(vis + 1, lens) + _ranges(lens)] = np.repeat(ys[vis], lens)
    prev = ties[:-1]
    nxt = vis[1:]
    gaps = nxt - prev - 1
    if gaps.any():
        seg = np.repeat(np.arange(prev.size), gaps)
        j = np.repeat(prev + 1, gaps) + _ranges(gaps)
        p, q = prev[seg], nxt[seg]
        denom = x[q] - x[p]
        alpha = (x[j] - x[p]) / denom
        ys[j] = alpha * ys[q] + (1.0 - alpha) * ys[p]


def _ranges(lens):
    """``0, 1, ..., len - 1`` for each length, concatenated (lengths may be 0)."""
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(np.cumsum(lens) - lens, lens)
    return np.arange(total) - starts


def _clowess_numpy(x, y, f, nsteps, delta):
    n = x.size
    if n < 2:
        return y.copy()
    ns = max(2, min(n, int(f * n + 1e-7)))
    vis, ties = _visits(x, n, delta)
    win = _windows(x, n, ns, vis)
    ys = np.zeros(n)
    rw = np.zeros(n)
    it = 1
    while it <= nsteps + 1:
        fit, ok = _local_fits(x, y, n, vis, ns, it > 1, rw, win)
        ys[vis] = np.where(ok, fit, y[vis])
        _fill(x, ys, vis, ties)
        res = y - ys
        if it > nsteps:
            break
        r = np.abs(res)
        sc = _seqsum(r) / n
        srt = np.sort(r)
        m1 = n // 2
        if n % 2 == 0:
            cmad = 3.0 * (srt[m1] + srt[n - m1 - 1])
        else:
            cmad = 6.0 * srt[m1]
        if cmad < 1e-7 * sc:
            break
        c9 = 0.999 * cmad
        c1 = 0.001 * cmad
        with np.errstate(divide="ignore", invalid="ignore"):
            q = r / cmad
            t = 1.0 - q * q
        rw = np.where(r <= c1, 1.0, np.where(r <= c9, t * t, 0.0))
        it += 1
    return ys


def _clowess(x, y, f, nsteps, delta, backend=None):
    """R's ``clowess`` on sorted ``x`` (float64, contiguous); ``backend`` ``"numpy"`` forces
    the reference."""
    if use_compiled(_loops, backend):
        ys = np.empty(x.size)
        _loops.clowess(x, y, float(f), int(nsteps), float(delta), ys)
        return ys
    return _clowess_numpy(x, y, f, nsteps, delta)


def r_order(x):
    """R's ``order(x)`` of a float64 vector: the stable sort order (equal values, and NaN
    last, in index order). NumPy's faster unstable sort is kept when it is that order (no two
    values equal, no NaN); otherwise the stable sort runs."""
    x = np.asarray(x, dtype=np.float64)
    o = np.argsort(x)
    if x.size > 1:
        xs = x[o]
        if np.isnan(xs[-1]) or not np.all(xs[1:] != xs[:-1]):
            o = np.argsort(x, kind="stable")
    return o


def lowess(x, y, f=2.0 / 3.0, iter=3, delta=None):
    """R's ``lowess(x, y, f, iter, delta)``.

    Parameters
    ----------
    x, y : array_like
        Finite data of equal length.
    f : float, default 2/3
        Smoother span (share of points in each local fit).
    iter : int, default 3
        Robustifying iterations (``val.prob`` uses 0).
    delta : float, optional
        Points closer than ``delta`` to the last fitted one are interpolated; default
        ``0.01 * diff(range(x))`` as in R.

    Returns
    -------
    (ndarray, ndarray)
        ``x`` sorted (stably, as R's ``order``) and the fitted values, R's ``list(x, y)``.
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if delta is None:
        delta = 0.01 * (x.max() - x.min()) if x.size else 0.0
    o = r_order(x)
    xs, yo = np.ascontiguousarray(x[o]), np.ascontiguousarray(y[o])
    return xs, _clowess(xs, yo, float(f), int(iter), float(delta))

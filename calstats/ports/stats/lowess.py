"""R's ``lowess`` (``stats::lowess``, C function ``clowess``), ported for ``val_prob``.

``rms::val.prob`` smooths the outcomes on the predicted probabilities with
``lowess(p, y, iter = 0)`` and reads Emax, E90 and Eavg off that curve, so the curve
decides those digits. This module follows ``clowess`` and ``lowest`` of R 4.2's
``src/library/stats/src/lowess.c`` (Cleveland's algorithm as R implements it): the same
neighbourhood moves, the tricube weights with R's ``0.001 h`` / ``0.999 h`` cut-offs, the
weighted linear fit when the weighted spread of x exceeds ``0.001 * range``, the
``delta`` skipping with linear interpolation in between, and ties copied from the last
fitted point. Sums run in index order in double precision, as the C loops do.
"""

import numpy as np

__all__ = ["lowess"]


def _seqsum(v):
    """Sequential double sum from 0.0 (the C loops' ``a += ...``)."""
    return float(np.cumsum(v)[-1]) if v.size else 0.0


def _lowest(x, y, n, xs, nleft, nright, userw, rw):
    """One local fit at ``xs`` (R's ``lowest``; indices 0-based here). Returns ``(ys, ok)``."""
    rng = x[n - 1] - x[0]
    h = max(xs - x[nleft], x[nright] - xs)
    h9 = 0.999 * h
    h1 = 0.001 * h
    # R walks j = nleft, nleft+1, ... while j < n; it stops at the first point right of
    # xs farther than h9 (ties on the right are picked up).
    xj = x[nleft:]
    r = np.abs(xj - xs)
    stop = np.nonzero((r > h9) & (xj > xs))[0]
    end = nleft + (int(stop[0]) if stop.size else xj.size)  # exclusive: R's nrt + 1
    r = r[: end - nleft]
    xw = x[nleft:end]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = r / h
        t = 1.0 - (q * q) * q
        w = np.where(r <= h1, 1.0, (t * t) * t)
    w = np.where(r <= h9, w, 0.0)
    if userw:
        w = np.where(r <= h9, w * rw[nleft:end], 0.0)
    a = _seqsum(w)
    if a <= 0.0:
        return 0.0, False
    w = w / a
    if h > 0.0:
        a = _seqsum(w * xw)
        b = xs - a
        d = xw - a
        c = _seqsum(w * (d * d))
        if np.sqrt(c) > 0.001 * rng:
            b = b / c
            w = w * (b * d + 1.0)
    return _seqsum(w * y[nleft:end]), True


def _clowess(x, y, f, nsteps, delta):
    n = x.size
    if n < 2:
        return y.copy()
    ys = np.zeros(n)
    rw = np.zeros(n)
    res = np.zeros(n)
    ns = max(2, min(n, int(f * n + 1e-7)))
    it = 1
    while it <= nsteps + 1:
        nleft, nright, last, i = 0, ns - 1, -1, 0  # 0-based; last = -1 means "none yet"
        while True:
            if nright < n - 1:
                d1 = x[i] - x[nleft]
                d2 = x[nright + 1] - x[i]
                if d1 > d2:
                    nleft += 1
                    nright += 1
                    continue
            val, ok = _lowest(x, y, n, x[i], nleft, nright, it > 1, rw)
            ys[i] = val if ok else y[i]
            if last < i - 1:
                # skipped points: interpolate (R: last >= 0 here, as i > 0)
                denom = x[i] - x[last]
                js = np.arange(last + 1, i)
                alpha = (x[js] - x[last]) / denom
                ys[js] = alpha * ys[i] + (1.0 - alpha) * ys[last]
            last = i
            cut = x[last] + delta
            i = last + 1
            while i < n:
                if x[i] > cut:
                    break
                if x[i] == x[last]:
                    ys[i] = ys[last]
                    last = i
                i += 1
            i = max(last + 1, i - 1)
            if last >= n - 1:
                break
        res = y - ys
        if it > nsteps:
            break
        sc = _seqsum(np.abs(res)) / n
        rw = np.abs(res)
        srt = np.sort(rw)
        m1 = n // 2
        if n % 2 == 0:
            cmad = 3.0 * (srt[m1] + srt[n - m1 - 1])
        else:
            cmad = 6.0 * srt[m1]
        if cmad < 1e-7 * sc:
            break
        c9 = 0.999 * cmad
        c1 = 0.001 * cmad
        r = np.abs(res)
        q = r / cmad
        rw = np.where(r <= c1, 1.0, np.where(r <= c9, (1.0 - q * q) * (1.0 - q * q), 0.0))
        it += 1
    return ys


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
    o = np.argsort(x, kind="stable")
    xs, yo = x[o], y[o]
    return xs, _clowess(xs, yo, float(f), int(iter), float(delta))

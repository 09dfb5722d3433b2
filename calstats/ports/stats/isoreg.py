"""R's ``isoreg()`` pool-adjacent-violators fit, as R's C code computes it.

R's C routine (``src/library/stats/src/isoreg.c``) walks the cumulative-sum diagram: from the
last knot ``known`` it takes, among ``i = known+1 .. n``, the index with the smallest slope
``(yc[i] - yc[known]) / (i - known)`` computed in double, the *first* one on ties, and fills
the fitted values up to it with that slope. We implement it ourselves because other PAVA
implementations (scikit-learn, SciPy's ``isotonic_regression``) pool blocks by running
weighted means, which rounds differently, and merge equal-slope blocks, so neither the fitted
values nor the knots are R's to the last bit.

The literal search is quadratic. This module gives the same result faster:

* **Integer responses** (0/1 labels -- the only use in calstats -- or any integers with small
  sums): all cumulative sums and their differences are exact, so every computed slope is the
  correctly rounded value of an exact fraction and rounding preserves their order. R's knots
  are then exactly the points on the lower convex hull of ``(i, yc[i])`` including the points
  inside hull edges (equal slopes, first index on ties). SciPy's compiled PAV proposes the
  hull's pieces and exact int64 cross products certify them (slopes non-decreasing, every
  point on or above its piece), O(n) in NumPy; a monotone-chain stack in Python decides
  if the certificate fails. :func:`isoreg_grouped` does the same on tallies (rows tied in
  the predictor, events first), which is how CORP's resampling band refits each resample. Distinct fractions with denominators <= n differ by at least 1/n^2, which
  stays above the double spacing while ``n^2 * max|y| <= 2^50`` (about n <= 3.3e7 for 0/1
  data), so no two different slopes can round to the same double; beyond that bound the
  general path is used.
* **Other responses**: R's search itself, over a tree of index blocks. A block is skipped
  when a lower bound on every *computed* slope inside it shows that none can be smaller than
  the best slope already found at an earlier index (see :func:`_node_bounds`: one bound is
  exact by the monotonicity of IEEE rounding, the other comes from an error analysis with a
  generous margin). Only the surviving blocks are searched point by point, with R's own
  arithmetic, so the result is R's by construction; the work is about O(n log n) on typical
  data and degrades towards R's quadratic scan only on long runs of slopes that agree to
  within a few ulps (e.g. a long constant run of a non-dyadic value such as 0.1).

Either way the fitted values are computed as R does: ``(yc[ip] - yc[known]) / (ip - known)``
in double for each knot pair.
"""

import numpy as np

from ..._messages import ISOREG_NONFINITE, ISOREG_OVERFLOW
from ..._robject import RObject

__all__ = ["IsoregResult", "isoreg", "isoreg_grouped"]

_BLOCK = 64
# n^2 * max|y| must stay below this for the integer fast path (see module docstring).
_INT_PATH_LIMIT = float(2**50)
_EXACT_SUM_LIMIT = float(2**52)


class IsoregResult(RObject):
    """The parts of R's ``isoreg`` object that calstats uses, under their R names in R's order
    (``r["iKnots"]``, ``r.names()``; see :class:`calstats._robject.RObject`). R's object is
    ``x, y, yf, yc, iKnots, isOrd, ord, call``; :class:`calstats.calibrators.binning.IsoregFit`
    carries all of them for ``cal_isotonic``.

    Attributes
    ----------
    yf : numpy.ndarray
        Fitted values (float64, length n).
    yc : numpy.ndarray
        Cumulative sums ``[0, y1, y1+y2, ...]`` in double, length n + 1.
    iKnots : numpy.ndarray
        1-based indices of the knots (int64), increasing, the last one is n.
    """

    _r_fields = ("yf", "yc", "iKnots")
    # set by the constructor (declared for type checkers)
    yf: np.ndarray
    yc: np.ndarray
    iKnots: np.ndarray


def isoreg(y):
    """Isotonic (non-decreasing) least-squares fit of ``y`` in the given order, as R's
    ``isoreg(y)`` computes it.

    Parameters
    ----------
    y : array_like
        Finite responses, already in the order of the predictor (for ``cal_isotonic``: by
        ``p``, ties positives first, as probcal orders them).

    Returns
    -------
    IsoregResult
        ``yf``, ``yc`` and the 1-based ``iKnots``, identical to R's fields.

    Notes
    -----
    Reproduces ``.Call(C_isoreg, y)`` bit for bit: the cumulative sums are sequential double
    sums; the knots are R's "smallest computed slope from the last knot, first index on ties";
    each fitted value is ``(yc[ip] - yc[known]) / (ip - known)`` in double. See the module
    docstring for how this is done without R's quadratic scan.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    n = y.size
    if not np.all(np.isfinite(y)):
        raise ValueError(ISOREG_NONFINITE)
    # sequential double accumulation starting from 0.0, like R's loop (so -0.0 becomes 0.0)
    with np.errstate(over="ignore"):  # an overflowing sum is reported below, not warned
        yc = np.cumsum(np.concatenate(([0.0], y)))
    if n == 0:
        return IsoregResult(yf=np.zeros(0), yc=yc, iKnots=np.zeros(0, dtype=np.int64))
    if not np.all(np.isfinite(yc)):
        raise ValueError(ISOREG_OVERFLOW)
    if _integer_path_ok(y):
        knots = _knots_integer(y)
    else:
        knots = _knots_blocked(yc)
    return IsoregResult(yf=_fitted(yc, knots), yc=yc, iKnots=knots)


def _integer_path_ok(y):
    if not np.all(y == np.floor(y)):
        return False
    ymax = float(np.max(np.abs(y)))
    n = float(y.size)
    return ymax * n <= _EXACT_SUM_LIMIT and ymax * n * n <= _INT_PATH_LIMIT


def _fitted(yc, knots):
    """R's fitted values for the given 1-based knots (double arithmetic, as in C)."""
    ends = knots
    starts = np.concatenate(([0], knots[:-1]))
    vals = (yc[ends] - yc[starts]) / (ends - starts).astype(np.float64)
    return np.repeat(vals, ends - starts)


def _knots_integer(y):
    """Knots for integer responses: lower hull of (i, yc_i) with collinear points kept.

    SciPy's compiled pool-adjacent-violators proposes the blocks; they are then certified
    with exact integer arithmetic (block slopes non-decreasing, every point on or above its
    block's chord), which makes the broken line through the block ends the lower convex
    hull whatever rounding SciPy's running means did. The knots are the points on it. Should
    the certificate fail, the exact stack below decides (it never has on any data tried).
    """
    c = np.concatenate(([0], np.cumsum(y.astype(np.int64))))
    knots = _certified_knots(c, _pav_blocks(y, None))
    return _knots_integer_stack(c) if knots is None else knots


def _pav_blocks(y, w):
    """Block starts of SciPy's PAV fit (0-based, with ``len(y)`` appended); None if SciPy
    has no ``isotonic_regression``."""
    try:
        from scipy.optimize import isotonic_regression
    except ImportError:  # pragma: no cover - SciPy < 1.12
        return None
    return np.asarray(isotonic_regression(y, weights=w, increasing=True).blocks, dtype=np.int64)


def _certified(c, d, blocks):
    """Whether ``blocks`` (starts into the points ``(d_k, c_k)``, last entry the last point)
    is the lower convex hull of the points: exact int64 cross products. Returns the
    per-point chord test ``(c_k - c_a) dN - dC (d_k - d_a)`` (zero on the hull) or None."""
    if blocks is None or blocks.size < 2 or blocks[0] != 0 or blocks[-1] != c.size - 1:
        return None
    a = blocks[:-1]
    dc = c[blocks[1:]] - c[a]
    dd = d[blocks[1:]] - d[a]
    # slopes dc/dd non-decreasing from block to block
    if np.any(dc[:-1] * dd[1:] > dc[1:] * dd[:-1]):
        return None
    owner = np.repeat(np.arange(a.size), np.diff(blocks))
    ak = a[owner]
    gap = (c[1:] - c[ak]) * dd[owner] - dc[owner] * (d[1:] - d[ak])
    if np.any(gap < 0):
        return None
    return gap


def _certified_knots(c, blocks):
    """R's 1-based knots from certified PAV blocks of integer data, or None."""
    gap = _certified(c, np.arange(c.size, dtype=np.int64), blocks)
    if gap is None:
        return None
    return np.flatnonzero(gap == 0).astype(np.int64) + 1


def _knots_integer_stack(c):
    """The lower hull by the monotone-chain stack (exact Python integers; the fallback)."""
    c = c.tolist()
    hull = [0]
    for k in range(1, len(c)):
        ck = c[k]
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            # pop j when it lies strictly above the segment i -> k:
            # slope(i, j) > slope(i, k)  <=>  (c_j - c_i)(k - i) > (c_k - c_i)(j - i)
            if (c[j] - c[i]) * (k - i) > (ck - c[i]) * (j - i):
                hull.pop()
            else:
                break
        hull.append(k)
    return np.asarray(hull[1:], dtype=np.int64)


def isoreg_grouped(counts, events):
    """R's ``isoreg`` fitted value of each group of 0/1 rows sorted events first in a group.

    ``counts`` (positive) and ``events`` (``0 <= events <= counts``) are integer arrays,
    one entry per group in the order of the predictor; the rows are those of
    ``isoreg(y)`` on the expanded sequence (each group's events, then its non-events), as
    reliabilitydiag orders tied scores (``order(x, -y)``). Events first make a group's
    cumulative-sum path concave, so the lower hull of the whole path is that of the group
    ends and the fit is constant on each group: the value returned is the slope of that
    hull across the group, ``(E_b - E_a) / (N_b - N_a)`` in double between its knots, the
    same two exact integers R divides (any knots on the same hull edge give the same
    rational, hence the same double), so it is R's ``yf`` bit for bit. O(groups) with
    SciPy's PAV certified exactly (as :func:`isoreg`'s integer path); needs ``N^2 <= 2^50``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    events = np.asarray(events, dtype=np.int64)
    N = np.concatenate(([0], np.cumsum(counts)))
    E = np.concatenate(([0], np.cumsum(events)))
    if counts.size == 0:
        return np.zeros(0)
    if float(N[-1]) ** 2 > _INT_PATH_LIMIT:  # int64 cross products could overflow: R's own fit
        yexp = (np.arange(N[-1]) - np.repeat(N[:-1], counts) < np.repeat(events, counts)).astype(np.float64)
        return isoreg(yexp).yf[N[:-1]]
    blocks = _pav_blocks(events / counts, counts.astype(np.float64))
    if _certified(E, N, blocks) is None:
        blocks = _hull_grouped_stack(N, E)
    a, b = blocks[:-1], blocks[1:]
    vals = (E[b] - E[a]).astype(np.float64) / (N[b] - N[a]).astype(np.float64)
    return np.repeat(vals, b - a)


def _hull_grouped_stack(N, E):
    """Lower hull vertices (indices into the group ends) by the exact stack (fallback)."""
    n_, e_ = N.tolist(), E.tolist()
    hull = [0]
    for k in range(1, len(n_)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            if (e_[j] - e_[i]) * (n_[k] - n_[i]) >= (e_[k] - e_[i]) * (n_[j] - n_[i]):
                hull.pop()
            else:
                break
        hull.append(k)
    return np.asarray(hull, dtype=np.int64)


_U = 2.0**-53  # unit roundoff
_TINY = 1e-300  # absolute slack for underflow (far above the 2^-1074 error of an operation)


def _node_bounds(yk, k, mn, sg, ya1, a, b):
    """Lower bounds on R's *computed* slopes from knot ``k`` to every index of each node.

    Broadcasts: ``yk``/``k`` may be columns (one row per knot), the node arrays rows.
    ``mn`` is the node's smallest cumulative sum, ``sg`` a certified lower bound on the
    smallest exact slope inside the node measured from its left neighbour ``a - 1``,
    ``ya1 = yc[a - 1]``; the node covers the 1-based indices ``a .. b`` (``a > k``).

    Two bounds, the larger is returned (NaN only if both are NaN: never prunes):

    1. exact, by monotone rounding: every computed numerator ``fl(yc_i - yc_k)`` is
       ``>= N = fl(mn - yc_k)``, so every computed slope is ``>= fl(N / (b - k))`` if
       ``N >= 0`` and ``>= fl(N / (a - k))`` otherwise;
    2. by error analysis: exactly, ``yc_i - yc_k >= (ya1 - yc_k) + (i - a + 1) * sg``, so the
       slope is ``>= sg + C / (i - k)`` with ``C = (ya1 - yc_k) - sg * (a - 1 - k)``, smallest
       at ``i = b`` if ``C >= 0`` else at ``i = a``; from that, a margin of ``16 u`` times the
       magnitudes involved (plus an absolute ``_TINY``) covers the rounding of these
       operations and of R's own slope computation (``<= 2.1 u`` relative).
    """
    da = a - k
    db = b - k
    num = mn - yk
    lb1 = np.where(num >= 0, num / db, num / da)
    dfk = ya1 - yk
    m = da - 1.0
    c = dfk - sg * m
    e = sg + c / np.where(c >= 0, db, da)
    lb2 = e - 16.0 * _U * (np.abs(e) + np.abs(sg) + (np.abs(dfk) + np.abs(sg) * m) / da) - _TINY
    return np.fmax(lb1, lb2)


def _knots_blocked(yc):
    """R's search (smallest computed slope, first index on ties) with exact pruning.

    The positions are grouped in a tree of blocks (``_BLOCK`` children per node). The indices
    after the current knot are visited in increasing order: first the rest of the knot's leaf
    block, computed as R does, then the canonical nodes that cover the remaining indices.
    A node whose lower bound (:func:`_node_bounds`) on every computed slope inside it is
    ``>=`` the best slope found so far (at an earlier index) cannot hold R's choice -- it can
    neither beat it nor win a tie -- and is skipped; the others are opened down to the
    points, whose slopes are computed exactly as R does. For speed, the work that does not
    depend on the path is done at once for every possible knot of a leaf block.
    """
    n = yc.size - 1
    fan = _BLOCK
    pos_all = np.arange(n)
    sizes, counts, mins, sigs = [1], [n], [None], [None]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        while counts[-1] > 1:
            size = sizes[-1] * fan
            m = -(-n // size)
            pad = np.full(m * size, np.inf)
            pad[:n] = yc[1:]
            mins.append(pad.reshape(m, size).min(axis=1))
            t = (yc[1:] - yc[(pos_all // size) * size]) / ((pos_all % size) + 1).astype(np.float64)
            pad[:n] = t
            sf = pad.reshape(m, size).min(axis=1)
            sigs.append(sf - 8.0 * _U * np.abs(sf) - _TINY)
            sizes.append(size)
            counts.append(m)
    top = len(sizes)
    child_off = np.arange(fan)

    def node_arrays(lev, nodes):
        size = sizes[lev]
        a = nodes * size + 1
        b = np.minimum((nodes + 1) * size, n)
        return mins[lev][nodes], sigs[lev][nodes], yc[a - 1], a.astype(np.float64), b.astype(np.float64)

    def open_nodes(nodes, lev, known, yk, best):
        # descend from candidate nodes of level `lev` to the points; first argmin there
        while True:
            kids = (nodes[:, None] * fan + child_off[None, :]).ravel()
            kids = kids[kids < counts[lev - 1]]
            lev -= 1
            if lev == 0:
                s = (yc[kids + 1] - yk) / (kids + 1 - known).astype(np.float64)
                q = int(np.argmin(s))
                return s[q], int(kids[q]) + 1
            lb = _node_bounds(yk, float(known), *node_arrays(lev, kids))
            nodes = kids[~(lb >= best)]
            if nodes.size == 0:
                return None

    knots = []
    known = 0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        while known < n:
            blk = known // fan
            bend = min((blk + 1) * fan, n)
            # canonical nodes covering the positions bend .. n-1, in index order
            levs, groups = [], []
            cover, lev = bend, 1
            while cover < n and lev < top:
                start = cover // sizes[lev]
                stop = min((start // fan + 1) * fan, counts[lev])
                levs.append(lev)
                groups.append(np.arange(start, stop))
                cover = stop * sizes[lev]
                lev += 1
            # every possible knot k = known .. bend-1 of this block at once
            ks = np.arange(known, bend)
            pp = ks  # positions of the block from `known` on
            ykcol = yc[ks][:, None]
            kcol = ks.astype(np.float64)[:, None]
            s = (yc[pp + 1][None, :] - ykcol) / ((pp + 1)[None, :] - kcol)
            s[pp[None, :] < ks[:, None]] = np.inf
            qrow = np.argmin(s, axis=1)
            best_row = s[np.arange(ks.size), qrow]
            ip_row = pp[qrow] + 1
            if groups:
                arrs = [node_arrays(lv, g) for lv, g in zip(levs, groups)]
                flat = [np.concatenate([a[i] for a in arrs])[None, :] for i in range(5)]
                keep = ~(_node_bounds(ykcol, kcol, *flat) >= best_row[:, None])
                splits = np.cumsum([g.size for g in groups])[:-1]
            # follow R's path through the block
            while known < bend:
                r = known - ks[0]
                best, ip = best_row[r], int(ip_row[r])
                if groups and keep[r].any():
                    yk = yc[known]
                    for lv, g, kg in zip(levs, groups, np.split(keep[r], splits)):
                        if kg.any():
                            cand = g[kg]
                            cand = cand[~(_node_bounds(yk, float(known), *node_arrays(lv, cand)) >= best)]
                            if cand.size:
                                found = open_nodes(cand, lv, known, yk, best)
                                if found is not None and found[0] < best:
                                    best, ip = found
                knots.append(ip)
                known = ip
    return np.asarray(knots, dtype=np.int64)

"""R's ``loess`` for one predictor (``stats::loess``, R 4.2's ``loessf.f`` and ``loessc.c``).

:class:`Loess` is ``loess(y ~ x, weights, span, degree, family, control = loess.control(
surface, statistics, cell, iterations))`` with ``predict(fit, newdata, se =)``. Both surfaces
are R's:

``surface = "interpolate"`` (R's default)
    The k-d tree of ``ehg126``/``ehg124``: the bounding interval ``[min - mu, max + mu]``
    with ``mu = 0.005 * max(range, 1e-10 * max(|min|, |max|) + 1e-30)``; cells split at the
    median order statistic (``m = (l + u) %/% 2``; with ties the nearest position m, m+1,
    m-1, m+2, ... where the value changes, the search stopping at either end of the cell),
    breadth first, until a cell holds at most ``fc = floor(n * span * cell)`` points; a
    split value equal to a cell end makes a leaf. At every vertex the local fit of
    ``ehg127``; between the two vertices of the cell containing x (``x <= split`` goes
    left) the cubic Hermite interpolant of their values and slopes (``ehg128``).
``surface = "direct"``
    The local fit of ``ehg127`` at every point (``lowesf``/``ehg136``).

The local fit (``ehg127``): the ``nf = min(n, floor(n * span))`` nearest points,
``rho`` the squared distance of the ``nf``-th times ``max(1, span)``, root weights
``sqrt(w * (1 - (d / rho)^(3/2))^3)`` (tricube of the distance, times the prior weights
``w``; the robustness weights too for ``family = "symmetric"``), the design ``1, dx, dx^2``
(``degree`` 0, 1, 2) scaled to unit column norms, solved by QR and the singular value
decomposition of R with R's pseudo-inverse cut-off ``100 * eps * sigma_1``.

Every vertex value and slope is a linear function of ``y``, so the fitted value at any x is
``L(x) @ y`` with ``L(x)`` the Hermite interpolant of the two vertex operator rows. The
statistics use it the way R does, without ever forming an n x n matrix (R forms one for the
standard errors):

* ``statistics = "approximate"`` (R's default, with ``trace.hat = "exact"``): the trace of
  ``L`` from each point's own entry of the two vertex rows of its cell (``ehg139``), summed
  in data order; ``one.delta``/``two.delta`` from ``lowesa``/``ehg141`` (Cleveland's fitted
  approximation with its 48 coefficients and the ``ehg176`` correction curve);
  ``s = sqrt(sum(w * res^2) / one.delta)``;
* ``statistics = "exact"``: ``delta1 = trace((I - L)(I - L)')``, ``delta2 = trace(((I - L)
  (I - L)')^2)`` (``lowesc``); this one does form ``L`` (n x n), as R does;
* ``predict(..., se = TRUE)``: ``s * sqrt(sum_j L(x)_j^2 / w_j)`` (``loess_ise``/``ehg191``);
  with interpolation, ``L(x)`` is a combination of four vertex rows, so the sum is a
  quadratic form in the cell's 4 x 4 Gram matrix of those rows (computed once per cell);
* ``family = "symmetric"``: ``iterations`` fits, the robustness weights of ``lowesw``
  (bisquare of the residuals over six median absolute residuals) between them, the
  statistics from the first fit, and ``s`` from the pseudovalues of ``lowesp``.

The cost after sorting is O(n) per vertex window: about ``2 n / cell`` operations whatever
``span`` is (R's interpolation is the same; R's standard errors are O(n^2)).

R's warnings are R's texts (``pseudoinverse used at``, ``neighborhood radius``,
``reciprocal condition number``, ``There are other near singularities as well.``,
``span too small.   fewer data values than degrees of freedom.``, ``zero-width
neighborhood. make span bigger``, ``Chernobyl! trL<k``...).

The local fits are computed with LAPACK's QR and SVD instead of LINPACK's ``dqrdc`` and
``dsvdc``; fitted values, standard errors and statistics agree with R's to about 1e-14
relative, not bit for bit.
"""

import math

import numpy as np

from ..._errors import fail, warn
from ..._messages import (
    FOREIGN_NONFINITE,
    LOESS_AT,
    LOESS_FEW_DATA,
    LOESS_NEIGHBORHOOD_RADIUS,
    LOESS_ON_BOUNDARY,
    LOESS_OTHER_SINGULARITIES,
    LOESS_PSEUDOINVERSE,
    LOESS_RADIUS,
    LOESS_RCOND,
    LOESS_SPAN_TOO_SMALL,
    LOESS_TRACE_ABOVE_N,
    LOESS_TRACE_BELOW_K,
    LOESS_VERTEX_DEGREE,
    LOESS_ZERO_WIDTH,
)
from ..._robject import RObject
from ...numerics.reductions import rsum

__all__ = ["Loess", "loess_fit_1d"]

_EPS = 2.220446049250313e-16
_DBL_MIN = 2.2250738585072014e-308


def _g5(v):
    """``sprintf(" %.5g")`` as ``ehg184a`` formats a number."""
    return "%.5g" % v


# --------------------------------------------------------------------------------------
# the k-d tree (one dimension)


class _Tree:
    """``ehg126``/``ehg124`` in one dimension.

    ``verts``: the vertices in increasing order; cell ``k`` is ``[verts[k], verts[k + 1]]``
    and holds the sorted positions ``bounds[k]:bounds[k + 1]``; ``splits`` the interior
    vertices (``x <= split`` goes left); ``created``: the vertices in R's order (the two
    ends, then each split as it is made), which decides the order of R's warnings.
    """

    def __init__(self, xs, fc):
        n = xs.size
        alpha, beta = float(xs[0]), float(xs[-1])
        mu = 0.005 * max(beta - alpha, 1e-10 * max(abs(alpha), abs(beta)) + 1e-30)
        lower, upper = alpha - mu, beta + mu
        nvmax = max(200, n)
        created = [lower, upper]
        seen = {lower, upper}
        # cells: [l, u, vlo, vhi] with 0-based inclusive point positions
        cells = [(0, n - 1, lower, upper)]
        p = 0
        while p < len(cells):
            l, u, vlo, vhi = cells[p]
            leaf = (u - l + 1) <= fc or abs(vhi - vlo) <= 0.0
            if not leaf:
                leaf = nvmax < len(cells) + 2 or nvmax < len(created) + 1.0
            if not leaf:
                m = (l + u + 2) // 2 - 1  # Fortran m = int((l + u) / 2), 1-based
                off = 0
                while l <= m + off < u:
                    if xs[m + off] != xs[m + off + 1]:
                        m = m + off
                        break
                    off = -off
                    if off >= 0:
                        off += 1
                xi = float(xs[m])
                leaf = vlo == xi or vhi == xi
                if not leaf:
                    if xi not in seen:
                        seen.add(xi)
                        created.append(xi)
                    cells.append((l, m, vlo, xi))
                    cells.append((m + 1, u, xi, vhi))
            p += 1
        self.created = created
        self.verts = np.array(sorted(created))
        self.splits = self.verts[1:-1]
        self.lower, self.upper = lower, upper
        # the data's positions per leaf: points with x <= split lie left of it (ties split
        # by an unfinished search are evaluated, as in R, in the left cell)
        self.bounds = np.concatenate([[0], np.searchsorted(xs, self.splits, side="right"), [n]])

    def cell_of(self, z):
        """Leaf index of each z (``ehg128``'s descent: ``z <= split`` goes left)."""
        return np.searchsorted(self.splits, z, side="left")


def _hermite_basis(h):
    phi0 = (1 - h) * (1 - h) * (1 + 2 * h)
    phi1 = h * h * (3 - 2 * h)
    psi0 = h * ((1 - h) * (1 - h))
    psi1 = h * h * (h - 1)
    return phi0, phi1, psi0, psi1


# --------------------------------------------------------------------------------------
# the local fit (ehg127)


class _Warnings:
    """R's running ``sing`` count and ``rcond`` of one ``lowesb``/``lowesf`` call."""

    def __init__(self, quiet=False):
        self.sing = 0
        self.rcond = 1.0
        self.log = []
        self.quiet = quiet

    def say(self, message):
        self.log.append(message)
        if not self.quiet:
            warn(message)

    def take(self, fit, q, k):
        """R's warnings of one ``ehg127`` call, in R's order."""
        for m in fit.pre:
            self.say(m)
        if fit.sig is not None:
            self.local(q, fit.rho, fit.sig, k)

    def local(self, q, rho, sig, k):
        s1 = sig[0] if sig.size else 0.0
        sk = sig[k - 1] if sig.size >= k else 0.0
        tol = s1 * (100 * _EPS)
        ratio = sk / s1 if s1 != 0 else math.nan
        if ratio == ratio:
            self.rcond = min(self.rcond, ratio)
        if sk <= tol:
            self.sing += 1
            if self.sing == 1:
                self.say(LOESS_PSEUDOINVERSE.format(at=_g5(q)))
                self.say(LOESS_NEIGHBORHOOD_RADIUS.format(radius=_g5(math.sqrt(rho))))
                self.say(LOESS_RCOND.format(rcond=_g5(self.rcond)))
            elif self.sing == 2:
                self.say(LOESS_OTHER_SINGULARITIES.format(rho=_g5(rho)))


def _qr_rowpivot(columns, rhs):
    """Householder QR (sums without BLAS: thread-free on a busy machine) of the m x k matrix
    with these ``columns`` (k <= 3), choosing at each column the row with the
    largest entry as pivot (Powell and Reid's row pivoting): accurate however unequal the
    row weights, as when a neighbourhood ends at a tie of almost-zero weight. Returns the
    k x k triangle, the first k entries of ``Q' rhs`` and the reflections for :func:`_qr_q`."""
    k = len(columns)
    m = rhs.size
    cols = [np.array(col, dtype=np.float64) for col in columns]  # contiguous copies
    c = rhs.astype(np.float64).copy()
    swaps = []
    refl = []
    for j in range(min(k, m)):
        p = j + int(np.argmax(np.abs(cols[j][j:])))
        swaps.append(p)
        if p != j:
            for col in cols + [c]:
                col[j], col[p] = col[p], col[j]
        x = cols[j][j:]
        nrm = math.sqrt(float(np.sum(x * x)))
        if nrm == 0.0:
            refl.append(None)
            continue
        alpha = -math.copysign(nrm, x[0])
        v = x.copy()
        v[0] -= alpha
        f = 2.0 / float(np.sum(v * v))
        for col in cols[j:] + [c]:
            col[j:] -= v * (f * float(np.sum(v * col[j:])))
        refl.append(v)
    A = np.column_stack(cols) if m else np.zeros((0, k))
    R = np.zeros((k, k))
    r = min(k, m)
    R[:r] = np.triu(A[:r, :k])
    qty = np.zeros(k)
    qty[:r] = c[:r]
    return R, qty, (swaps, refl, m)


def _qr_q(qr, k):
    """The first k columns of Q (rows in the original order) of :func:`_qr_rowpivot`."""
    swaps, refl, m = qr
    Q = np.zeros((m, k))
    for j in range(min(k, m)):
        Q[j, j] = 1.0
    Q = np.asfortranarray(Q)
    # Q = P1 H1 P2 H2 ... [I; 0]
    for j in range(len(refl) - 1, -1, -1):
        v = refl[j]
        if v is not None:
            f = 2.0 / float(np.sum(v * v))
            for i in range(k):
                Q[j:, i] -= v * (f * float(np.sum(v * Q[j:, i])))
        p = swaps[j]
        if p != j:
            Q[[j, p]] = Q[[p, j]]
    return Q


class _Local:
    """The local fit at ``q``: support ``a:b`` (sorted positions with positive weight), the
    value and slope, and (when asked) their operator rows over the support."""

    __slots__ = ("a", "b", "value", "slope", "op", "sig", "rho", "pre")


def _local_fit(xs, ys, rw, q, nf, span, degree, want_op):
    """``ehg127`` at ``q`` on the sorted data; R's warnings are collected in ``res.pre`` (those
    before the decomposition) and ``res.sig``/``res.rho`` (for :class:`_Warnings`)."""
    n = xs.size
    pos = int(np.searchsorted(xs, q))
    lo, hi = max(0, pos - nf), min(n, pos + nf)
    d = (xs[lo:hi] - q) ** 2
    rsel = float(np.partition(d, nf - 1)[nf - 1]) if nf < d.size else float(np.max(d))
    rho = rsel * max(1.0, span)
    k = degree + 1
    res = _Local()
    res.rho = rho
    res.pre = []
    if not rho > 0:
        res.pre.append(LOESS_ZERO_WIDTH)
        res.a = res.b = pos
        res.value = res.slope = math.nan
        res.op = np.full((2, 0), math.nan)
        res.sig = None
        return res
    inside = np.flatnonzero(d < rho)
    if inside.size == 0:
        a = b = pos
    else:
        a, b = lo + int(inside[0]), lo + int(inside[-1]) + 1
    dd = d[a - lo:b - lo]
    u = np.sqrt(dd / rho)
    t = 1 - u * u * u
    ww = np.sqrt(rw[a:b] * (t * t * t))
    if ww.size == 0 or not np.max(np.abs(ww)) > 0:
        res.pre.append(LOESS_AT.format(at=_g5(q)))  # ehg184('at ', q): the name, then " %.5g"
        res.pre.append(LOESS_RADIUS.format(radius=_g5(rho)))
        res.pre.append(LOESS_ON_BOUNDARY)
    dx = xs[a:b] - q
    cols = [ww]
    if degree >= 1:
        cols.append(ww * dx)
    if degree >= 2:
        cols.append(ww * (dx * dx))
    colnor = np.ones(k)
    for j, col in enumerate(cols):
        scal = math.sqrt(float(np.sum(col * col)))
        if 0 < scal:
            cols[j] = col / scal
            colnor[j] = scal
    R, qty, qr = _qr_rowpivot(cols, ww * ys[a:b])
    U, sig, Vt = np.linalg.svd(R)
    tol = sig[0] * (100 * _EPS)
    keep = sig > tol
    inv = np.where(keep, 1.0 / np.where(keep, sig, 1.0), 0.0)
    E = Vt.T / colnor[:, None]  # R's e(j, .) / colnor(j)
    gam = (U.T @ qty) * inv
    coef = E @ gam
    res.a, res.b = a, b
    res.value = float(coef[0])
    res.slope = float(coef[1]) if k > 1 else 0.0
    res.sig = sig
    if want_op:
        Qk = _qr_q(qr, k)  # m x k, rows in the data's order
        M = ((E[:2] * inv[None, :]) @ U.T) @ Qk.T * ww[None, :]
        op = np.zeros((2, b - a))
        op[:M.shape[0]] = M
        res.op = op
    else:
        res.op = None
    return res


# --------------------------------------------------------------------------------------
# Cleveland's approximation of delta1, delta2 (lowesa, ehg141, ehg176)

# ehg141's table (coef, d, deg, delta); 1-based in the Fortran
_EHG141_C = (
    .2971620, .3802660, .5886043, .4263766, .3346498, .6271053, .5241198, .3484836, .6687687,
    .6338795, .4076457, .7207693, .1611761, .3091323, .4401023, .2939609, .3580278, .5555741,
    .3972390, .4171278, .6293196, .4675173, .4699070, .6674802, .2848308, .2254512, .2914126,
    .5393624, .2517230, .3898970, .7603231, .2969113, .4740130, .9664956, .3629838, .5348889,
    .2075670, .2822574, .2369957, .3911566, .2981154, .3623232, .5508869, .3501989, .4371032,
    .7002667, .4291632, .4930370,
)

# ehg176: a 1-d interpolation table (vertex, value, slope), sorted by vertex
_EHG176 = (
    (-5e-3, -9.0572e-2, 4.4844), (0.1204, 9.5807e-2, -0.7978), (0.2017, 2.6152e-2, -0.7286),
    (0.2815, -3.1926e-2, -0.4457), (0.3705, -5.3718e-2, -0.3495), (0.4536, -6.4170e-2, 3.2813e-2),
    (0.5591, -5.8387e-2, 0.1611), (0.7132, -2.0636e-2, 0.3350), (0.8751, 4.0172e-2, -4.1032e-2),
    (1.005, -1.0856e-2, -0.7736),
)


def _hermite(h, g0, g1, s0, s1, width):
    phi0, phi1, psi0, psi1 = _hermite_basis(h)
    return phi0 * g0 + phi1 * g1 + (psi0 * s0 + psi1 * s1) * width


def _ehg176(z):
    # cells split at the interior vertices, z <= split going left
    for j in range(len(_EHG176) - 1):
        v0, g0, s0 = _EHG176[j]
        v1, g1, s1 = _EHG176[j + 1]
        if z <= v1 or j == len(_EHG176) - 2:
            return _hermite((z - v0) / (v1 - v0), g0, g1, s0, s1, v1 - v0)
    raise AssertionError  # pragma: no cover


def _ehg141(trl, n, deg, k, d, nsing):
    dk = 1 if deg == 0 else (d + 1 if deg == 1 else (d + 2) * (d + 1) // 2)
    if not (trl > 0 and math.isfinite(trl)):  # a zero-width neighbourhood: R's NaN statistics
        return dk, math.nan, math.nan
    corx = math.sqrt(k / n)
    with np.errstate(divide="ignore", invalid="ignore"):  # Fortran's IEEE division when k == n
        z = float(np.float64(math.sqrt(k / trl) - corx) / np.float64(1 - corx))
    if math.isnan(z):
        return dk, math.nan, math.nan
    if nsing == 0 and 1 < z:
        warn(LOESS_TRACE_BELOW_K.format(trace=_g5(trl)))
    if z < 0:
        warn(LOESS_TRACE_ABOVE_N.format(trace=_g5(trl)))
    z = min(1.0, max(0.0, z))
    c4 = math.exp(_ehg176(z))
    i = 1 + 3 * (min(d, 4) - 1 + 4 * (deg - 1))
    c1, c2, c3 = _EHG141_C[i - 1], _EHG141_C[i], _EHG141_C[i + 1]
    delta1 = n - trl * math.exp(c1 * z ** c2 * (1 - z) ** c3 * c4)
    i += 24
    c1, c2, c3 = _EHG141_C[i - 1], _EHG141_C[i], _EHG141_C[i + 1]
    delta2 = n - trl * math.exp(c1 * z ** c2 * (1 - z) ** c3 * c4)
    return dk, delta1, delta2


def _lowesa(trl, n, d, tau, nsing=0):
    dka, d1a, d2a = _ehg141(trl, n, 1, tau, d, nsing)
    dkb, d1b, d2b = _ehg141(trl, n, 2, tau, d, nsing)
    alpha = (tau - dka) / (dkb - dka)
    return (1 - alpha) * d1a + alpha * d1b, (1 - alpha) * d2a + alpha * d2b


# --------------------------------------------------------------------------------------
# robustness (lowesw, lowesp)


def _median_ehg106(v):
    """The median as ``lowesw``/``lowesp`` take it (mean of the two middle values for even n)."""
    n = v.size
    nh = n // 2 + 1
    s = np.partition(v, [nh - 2, nh - 1]) if n >= 2 else v
    if (n - nh) + 1 < nh:
        return s[nh - 1], s[nh - 2], True
    return s[nh - 1], None, False


def _lowesw(res):
    r = np.abs(res)
    a, b, even = _median_ehg106(r)
    cmad = 3 * (a + b) if even else 6 * a
    if cmad < _DBL_MIN:
        return np.ones(res.size)
    with np.errstate(invalid="ignore"):
        q = r / cmad
        mid = (1 - q * q) * (1 - q * q)
    return np.where(cmad * 0.999 < r, 0.0, np.where(cmad * 0.001 < r, mid, 1.0))


def _lowesp(y, yhat, pw, rw):
    yt = np.abs(y - yhat) * np.sqrt(pw)
    a, b, even = _median_ehg106(yt)
    mad = (b + a) / 2 if even else a
    c = (6 * mad) ** 2 / 5
    yt = 1 - ((y - yhat) ** 2 * pw) / c
    yt = yt * np.sqrt(rw)
    tot = float(np.cumsum(yt[::-1])[-1]) if yt.size else 0.0
    c = y.size / tot
    return yhat + (c * rw) * (y - yhat)


# --------------------------------------------------------------------------------------
# the fit


class _Surface:
    """One ``loess_raw`` fit of ``y`` on sorted ``xs`` with weights ``rw``. With ``inv_w``
    (1 / prior weights) the same pass also keeps what the statistics need: ``diag(L)`` at
    the sorted data and, per leaf, the 4 x 4 Gram matrix of its vertex rows (value and
    slope at both ends) weighted by ``inv_w``, two vertices' rows in memory at a time."""

    def __init__(self, xs, ys, rw, span, degree, surface, cell, nf, inv_w=None, quiet=False):
        self.xs, self.ys, self.rw = xs, ys, rw
        self.span, self.degree, self.surface, self.nf = span, degree, surface, nf
        self.nsing = 0
        self.diag = self.grams = None
        n = xs.size
        k = degree + 1
        if k > nf - 1 and not quiet:
            warn(LOESS_FEW_DATA)
        w = _Warnings(quiet)
        if surface == "direct":
            fits = []
            for q in xs:
                f = _local_fit(xs, ys, rw, float(q), nf, span, degree, False)
                w.take(f, float(q), k)
                fits.append(f.value)
            self.fitted_sorted = np.array(fits)
            self.nsing = w.sing
            return
        fc = int(math.floor(n * (span * cell)))
        t = self.tree = _Tree(xs, fc)
        nvert = t.verts.size
        want = inv_w is not None
        if want:
            self.diag = np.zeros(n)
            self.grams = np.empty((nvert - 1, 4, 4))
        fits = []
        prev = None
        for j in range(nvert):
            cur = _local_fit(xs, ys, rw, float(t.verts[j]), nf, span, degree, want)
            fits.append(cur)
            if want and prev is not None:
                self._cell_operator(j - 1, prev, cur, inv_w)
                prev.op = None
            prev = cur
        self.vval = np.array([f.value for f in fits])
        self.vslope = np.array([f.slope for f in fits])
        # R's warnings in R's order of the vertices (the order decides the running rcond)
        index = {float(v): j for j, v in enumerate(t.verts)}
        self.vertex_log = []
        for q in t.created:
            before = len(w.log)
            w.take(fits[index[q]], q, k)
            self.vertex_log.append(w.log[before:])
        self.nsing = w.sing
        self.fitted_sorted = self.evaluate(xs)

    def _cell_operator(self, c, f0, f1, inv_w):
        t, xs = self.tree, self.xs
        v0, v1 = t.verts[c], t.verts[c + 1]
        width = v1 - v0
        s, e = t.bounds[c], t.bounds[c + 1]
        h = (xs[s:e] - v0) / (v1 - v0)
        phi0, phi1, psi0, psi1 = _hermite_basis(h)
        a0, s0 = _gather(f0, s, e)
        a1, s1 = _gather(f1, s, e)
        # ehg139: each vertex's term on its own, then their sum
        term0 = phi0 * a0 + phi1 * 0.0 + (psi0 * s0 + psi1 * 0.0) * width
        term1 = phi0 * 0.0 + phi1 * a1 + (psi0 * 0.0 + psi1 * s1) * width
        self.diag[s:e] = term0 + term1
        lo, hi = min(f0.a, f1.a), max(f0.b, f1.b)
        A = np.zeros((4, hi - lo))
        A[0, f0.a - lo:f0.b - lo] = f0.op[0]
        A[1, f1.a - lo:f1.b - lo] = f1.op[0]
        A[2, f0.a - lo:f0.b - lo] = f0.op[1] * width
        A[3, f1.a - lo:f1.b - lo] = f1.op[1] * width
        with np.errstate(invalid="ignore"):  # 0 / 0 for a zero prior weight: NaN, as R
            Aw = A * inv_w[lo:hi][None, :]
        G = np.empty((4, 4))
        for i in range(4):
            for j in range(i, 4):
                G[i, j] = G[j, i] = float(np.sum(Aw[i] * A[j]))
        self.grams[c] = G

    def evaluate(self, z):
        """``ehg128`` at points z inside the box."""
        t = self.tree
        j = t.cell_of(z)
        v0, v1 = t.verts[j], t.verts[j + 1]
        h = (z - v0) / (v1 - v0)
        phi0, phi1, psi0, psi1 = _hermite_basis(h)
        return phi0 * self.vval[j] + phi1 * self.vval[j + 1] + (psi0 * self.vslope[j] + psi1 * self.vslope[j + 1]) * (
            v1 - v0)

    def operator_rows(self, z):
        """``L(z)`` (len(z) x n, sorted data order): for ``statistics = "exact"`` and the tests."""
        xs = self.xs
        n = xs.size
        out = np.zeros((z.size, n))
        if self.surface == "direct":
            for i, q in enumerate(z):
                f = _local_fit(xs, self.ys, self.rw, float(q), self.nf, self.span, self.degree, True)
                out[i, f.a:f.b] = f.op[0]
            return out
        t = self.tree
        ops = [_local_fit(xs, self.ys, self.rw, float(v), self.nf, self.span, self.degree, True) for v in t.verts]
        j = t.cell_of(z)
        for i, (q, c) in enumerate(zip(z, j)):
            v0, v1 = t.verts[c], t.verts[c + 1]
            h = (q - v0) / (v1 - v0)
            phi0, phi1, psi0, psi1 = _hermite_basis(h)
            f0, f1 = ops[c], ops[c + 1]
            row = np.zeros((4, n))
            row[0, f0.a:f0.b] = f0.op[0]
            row[1, f1.a:f1.b] = f1.op[0]
            row[2, f0.a:f0.b] = f0.op[1]
            row[3, f1.a:f1.b] = f1.op[1]
            out[i] = phi0 * row[0] + phi1 * row[1] + (psi0 * row[2] + psi1 * row[3]) * (v1 - v0)
        return out


def _gather(fit, s, e):
    """The operator entries (value row, slope row) of a local fit at sorted positions s:e."""
    a0 = np.zeros(e - s)
    s0 = np.zeros(e - s)
    lo, hi = max(s, fit.a), min(e, fit.b)
    if lo < hi:
        a0[lo - s:hi - s] = fit.op[0, lo - fit.a:hi - fit.a]
        s0[lo - s:hi - s] = fit.op[1, lo - fit.a:hi - fit.a]
    return a0, s0


class Loess(RObject):
    """R's ``loess(y ~ x, weights, span, degree, family, control = loess.control(surface,
    statistics, cell, iterations))`` for one numeric predictor: the fit, made by the
    constructor, whose data are the fields of R's ``loess`` object under R's names and in
    R's order (``fit["one.delta"]``, ``fit.names()``; see :class:`calstats._robject.RObject`),
    and R's ``predict`` (:meth:`predict`).

    Parameters
    ----------
    x, y : array_like
        Finite data of equal length.
    weights : array_like, optional
        Prior weights (R's ``weights``); default 1.
    span : float, default 0.75
        The share of points in each local fit (above 1: all points, the neighbourhood
        enlarged as R does).
    degree : {0, 1, 2}, default 2
    family : {"gaussian", "symmetric"}, default "gaussian"
    surface : {"interpolate", "direct"}, default "interpolate"
    statistics : {"approximate", "exact", "none"}, default "approximate"
    cell : float, default 0.2
    iterations : int, default 4
        Fits of the symmetric family (R's ``loess.control(iterations)``).

    Attributes
    ----------
    n : int
    fitted, residuals : ndarray
        In the input order.
    enp, s, one_delta, two_delta, trace_hat : float
        R's ``fit$enp``, ``s``, ``one.delta``, ``two.delta``, ``trace.hat`` (0, and ``s``
        from a zero ``one.delta``, with ``statistics = "none"``).
    divisor : float
        1 (one predictor: nothing to normalise).
    robust : ndarray
        The robustness weights (1 for the gaussian family).
    pars : dict
        R's ``fit$pars``: ``span``, ``degree``, ``normalize``, ``parametric``,
        ``drop.square``, ``surface``, ``cell``, ``family``, ``trace.hat``, ``iterations``.
    x, y, weights : ndarray
        The data (``x`` a vector, where R keeps an n x 1 matrix).

    Not R fields: the arguments as given (``span``, ``degree``, ``family``, ``surface``,
    ``statistics``, ``cell``), ``nf`` (the points in a neighbourhood) and the fitted
    surfaces the predictions read (R's ``kd``, private).
    """

    _r_fields = ("n", "fitted", "residuals", "enp", "s", "one.delta", "two.delta", "trace.hat", "divisor",
                 "robust", "pars", "x", "y", "weights")
    # set by the constructor (declared for type checkers)
    n: int
    fitted: np.ndarray
    residuals: np.ndarray
    enp: float
    s: float
    one_delta: float
    two_delta: float
    trace_hat: float
    divisor: float
    robust: np.ndarray
    pars: dict
    x: np.ndarray
    y: np.ndarray
    weights: np.ndarray

    def __init__(self, x, y, weights=None, span=0.75, degree=2, family="gaussian", surface="interpolate",
                 statistics="approximate", cell=0.2, iterations=4):
        x = np.asarray(x, dtype=np.float64).ravel()
        y = np.asarray(y, dtype=np.float64).ravel()
        n = x.size
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
        if math.floor(n * span + 1e-5) <= 0:
            fail(LOESS_SPAN_TOO_SMALL)
        self.span, self.degree, self.family = float(span), int(degree), family
        self.surface, self.statistics, self.cell = surface, statistics, float(cell)
        self.nf = max(1, min(n, int(math.floor(n * self.span))))
        self._order = np.argsort(x, kind="stable")
        self._xs = x[self._order]
        self._ys = y[self._order]
        self._ws = w[self._order]
        self.lo, self.hi = float(self._xs[0]), float(self._xs[-1])
        iters = 1 if family == "gaussian" else int(iterations)
        robust = np.ones(n)
        first = None
        with_op = statistics == "approximate" and surface == "interpolate"
        with np.errstate(divide="ignore"):  # a zero prior weight: R's infinite se terms
            self._inv_w = 1.0 / self._ws
        for j in range(iters):
            rw = self._ws if j == 0 else self._ws * robust[self._order]
            fit = _Surface(self._xs, self._ys, rw, self.span, self.degree, surface, self.cell, self.nf,
                           inv_w=self._inv_w if (with_op and j == 0) else None)
            if first is None:
                first = fit
            fitted = np.empty(n)
            fitted[self._order] = fit.fitted_sorted
            if j < iters - 1:
                robust = _lowesw(y - fitted)
        self._first, self._last = first, fit
        self._iterations = iters
        residuals = y - fitted
        trl, one, two, s = self._statistics(n, x, y, w, fitted, residuals, robust)
        pars = {"span": self.span, "degree": self.degree, "normalize": True, "parametric": False,
                "drop.square": False, "surface": surface, "cell": self.cell,
                "family": "gaussian" if iters <= 1 else "symmetric", "trace.hat": "exact", "iterations": iters}
        self._set_fields(n=n, fitted=fitted, residuals=residuals, enp=one + 2 * trl - n, s=s, one_delta=one,
                         two_delta=two, trace_hat=trl, divisor=1.0, robust=robust, pars=pars, x=x, y=y, weights=w)

    def __repr__(self):
        return (f"Loess(n={self.n}, span={self.span!r}, degree={self.degree}, family={self.family!r}, "
                f"surface={self.surface!r}, enp={self.enp!r})")

    # -- R's statistics -----------------------------------------------------------------
    def _statistics(self, n, x, y, weights, fitted, residuals, robust):
        """``(trace.hat, one.delta, two.delta, s)`` of the fit, as R's ``loess_raw`` and
        ``simpleLoess`` compute them."""
        first = self._first
        tau = 3 if self.degree > 1 else 2
        if self.statistics == "none":  # R leaves its outputs at 0
            trl = one = two = 0.0
        elif self.statistics == "exact":
            L = first.operator_rows(self._xs)  # sorted rows and columns
            diag = np.empty(n)
            diag[self._order] = np.diag(L)
            trl = float(np.cumsum(diag)[-1])
            IL = np.eye(n) - L
            LL = IL @ IL.T
            one = float(np.sum(np.diag(LL)))
            two = float(np.sum(LL * LL.T))
        else:
            if self.surface == "interpolate":
                diag_sorted = first.diag
            else:
                diag_sorted = self._direct_diag()
            diag = np.empty(n)
            diag[self._order] = diag_sorted
            trl = float(np.cumsum(diag)[-1])  # loessc.c: a double sum in data order
            one, two = _lowesa(trl, n, 1, tau, first.nsing)
        if self._iterations <= 1:  # R's simpleLoess: the pseudovalues only with robustness iterations
            ss = rsum(weights * residuals ** 2)
        else:
            pseudo = _lowesp(y, fitted, weights, robust)
            zz = _Surface(self._xs, pseudo[self._order], self._ws, self.span, self.degree, self.surface, self.cell,
                          self.nf)
            pz = np.empty(n)
            pz[self._order] = zz.fitted_sorted
            ss = rsum(weights * (pseudo - pz) ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = float(np.sqrt(np.float64(ss) / np.float64(one)))
        return trl, one, two, s

    def _direct_diag(self):
        xs, f = self._xs, self._first
        out = np.empty(xs.size)
        for i, q in enumerate(xs):
            lf = _local_fit(xs, f.ys, f.rw, float(q), self.nf, self.span, self.degree, True)
            # the point's own entry (ehg136 with ihat = 1)
            out[i] = lf.op[0, i - lf.a] if lf.a <= i < lf.b else 0.0
        return out

    # -- predict ------------------------------------------------------------------------
    def predict(self, xnew=None, se=False, quiet=False):
        """``predict(fit, newdata = xnew, se = se)``: NaN outside the data's range with
        interpolation (as R); ``xnew=None`` predicts at the data. R's standard errors refit
        the surface, so R repeats the fit's warnings; ``quiet=True`` leaves them out (for a
        caller that predicts more often than R does).

        Returns
        -------
        ndarray, or (fit, se.fit) when ``se``
        """
        if xnew is None:
            xnew = self.x
        z = np.asarray(xnew, dtype=np.float64).ravel()
        fit = np.full(z.size, np.nan)
        sef = np.full(z.size, np.nan)
        last = self._last
        if self.surface == "interpolate":
            inside = (z >= self.lo) & (z <= self.hi)
            if inside.any():
                if not (np.all(np.isfinite(last.vval)) and np.all(np.isfinite(last.vslope))):
                    fail(FOREIGN_NONFINITE.format(arg=5))
                fit[inside] = last.evaluate(z[inside])
        else:
            inside = ~np.isnan(z)
            zi = z[inside]
            if se:
                # loess_dfitse: L (and, gaussian, the fit) from weights * robust in one lowesf
                # call; symmetric: the fit again from the robustness weights alone
                w = _Warnings()
                fits = []
                for q in zi:
                    fits.append(_local_fit(last.xs, last.ys, last.rw, float(q), self.nf, self.span, self.degree, True))
                    w.take(fits[-1], float(q), self.degree + 1)
                with np.errstate(invalid="ignore", divide="ignore"):  # R's L^2 / w, divided as R does
                    vals = np.array([rsum(lf.op[0] ** 2 / self._ws[lf.a:lf.b]) for lf in fits])
                if np.any(self._ws == 0):  # R's rowSums(L^2 / w) meets 0 / 0 in every row
                    vals[:] = np.nan
                if self.pars["family"] == "gaussian":  # R: object$pars$family
                    fit[inside] = [lf.value for lf in fits]
                else:
                    fit[inside] = self._direct_values(last.ys, self.robust[self._order], zi)
                sef[inside] = self.s * np.sqrt(vals)
                return fit, sef
            fit[inside] = self._direct_values(last.ys, last.rw, zi)
        if not se:
            return fit
        # loess_ise refits with the prior weights (lowesb): R's warnings of that fit again, and
        # for degree 0 ehg139's complaint at each vertex
        for msgs in [] if quiet else self._first.vertex_log:
            for m in msgs:
                warn(m)
            if self.degree == 0:
                warn(LOESS_VERTEX_DEGREE)
        s = self.s
        grams = self._first.grams
        if grams is None:
            grams = self._first.grams = _Surface(self._xs, self._ys, self._ws, self.span, self.degree, "interpolate",
                                                 self.cell, self.nf, inv_w=self._inv_w, quiet=True).grams
        zi = z[inside]
        t = self._first.tree
        j = t.cell_of(zi)
        v0, v1 = t.verts[j], t.verts[j + 1]
        h = (zi - v0) / (v1 - v0)
        c = _hermite_basis(h)
        q = np.zeros(zi.size)
        for a in range(4):  # c' G c with the cell's G, entry by entry
            q += c[a] * c[a] * grams[j, a, a]
            for b in range(a + 1, 4):
                q += 2.0 * (c[a] * c[b] * grams[j, a, b])
        if np.any(self._ws == 0):  # R's rowSums(L^2 / w) meets 0 / 0 in every row
            q[:] = np.nan
        sef[inside] = s * np.sqrt(q)
        return fit, sef

    def _direct_values(self, ys, rw, zi):
        """``lowesf`` values at zi (R's warnings of that call)."""
        w = _Warnings()
        out = np.empty(zi.size)
        for i, q in enumerate(zi):
            f = _local_fit(self._xs, ys, rw, float(q), self.nf, self.span, self.degree, False)
            w.take(f, float(q), self.degree + 1)
            out[i] = f.value
        return out


def loess_fit_1d(x, y, weights=None, span=0.75, degree=2, cell=0.2):
    """Fitted values of R's ``loess(y ~ x, weights, span, degree, family = "gaussian",
    surface = "interpolate", control = loess.control(cell = cell, iterations = 1))``, as
    ``Hmisc::wtd.loess.noiter`` calls it.

    Parameters
    ----------
    x, y : array_like
        Finite data.
    weights : array_like, optional
        Prior weights (R's ``weights``); default 1.
    span, degree, cell : as in R (``degree`` 0, 1 or 2).

    Returns
    -------
    ndarray
        The fitted values at ``x``, in the input order.
    """
    return Loess(x, y, weights=weights, span=span, degree=degree, cell=cell, statistics="none").fitted

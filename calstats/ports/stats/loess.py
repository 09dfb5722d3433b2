"""R's ``loess`` for one predictor with ``surface = "interpolate"`` (the default), as
``Hmisc::wtd.loess.noiter`` calls it inside ``val.prob(group = )``.

Ported from the netlib/R Fortran (``src/library/stats/src/loessf.f`` of R 4.2): the
k-d tree and vertex interpolation decide the fitted values, so they are reproduced:

* ``ehg126``: the bounding interval ``[min - mu, max + mu]``, ``mu = 0.005 * max(range,
  1e-10 * max(|min|, |max|) + 1e-30)``;
* ``ehg124``/``ehg129``/``ehg106``: cells are split at the median order statistic
  (``m = (l + u) %/% 2``; with ties the nearest position m, m+1, m-1, m+2, ... where the
  value changes) until a cell holds at most ``fc = floor(n * span * cell)`` points; a split
  value equal to a cell end makes a leaf; cells are processed breadth first;
* ``ehg127``: at every vertex, a local weighted least-squares fit (degree 1 or 2) over the
  ``nf = floor(n * span + 1e-5)`` nearest points with weights ``w * (1 - (d/h)^3)^3``,
  ``h`` = distance of the ``nf``-th nearest, solved through the singular value
  decomposition of the column-equilibrated design with R's pseudo-inverse tolerance
  ``100 * eps * sigma_1``; the vertex keeps the local value and slope;
* ``ehg128``: the fitted value at x is the cubic Hermite interpolant of the values and
  slopes at the two vertices of the leaf cell containing x (``x <= split`` goes left).

The local fits are computed with NumPy's SVD instead of LINPACK's ``dqrdc``/``dsvdc``, so
the vertex values agree with R's to rounding error (~1e-14 relative), not bit for bit.

:class:`Loess` is ``loess(y ~ x)`` with ``predict(fit, newdata, se =)``, as pmcalibration
calls it, on the same k-d tree and vertex interpolation. Every vertex value and slope is a linear function of ``y``,
so the fitted value at any ``x`` is ``L(x) @ y`` with ``L(x)`` the Hermite interpolant of the
vertex operator rows; this gives

* ``predict(fit, newdata)``: NA outside the range of the data (``predLoess`` drops points
  outside the original range before interpolating);
* the residual scale of ``statistics = "approximate"`` with ``trace.hat = "exact"`` (R's
  defaults): ``trace(L)`` exactly, ``one.delta`` from ``lowesa``/``ehg141`` (Cleveland's
  fitted approximation, with its 48 coefficients and the ``ehg176`` correction curve), and
  ``s = sqrt(sum(res^2) / one.delta)``;
* ``predict(..., se = TRUE)``: ``s * sqrt(sum(L(x)^2))`` (``loess_ise``/``ehg191``).
"""

import math

import numpy as np

__all__ = ["loess_fit_1d", "Loess"]

_EPS = 2.220446049250313e-16


def local_svd(x, w, q, nf, degree):
    """``ehg127``'s local least-squares problem at vertex q: the ``nf`` nearest points
    ``idx``, their root weights ``ww`` (tricube times the prior weights ``w``, or tricube
    alone when ``w`` is None), the column norms and the SVD of the scaled design, with the
    pseudo-inverse cut-off ``tol``."""
    dist = (x - q) ** 2
    idx = np.argsort(dist, kind="stable")[:nf]
    rho = dist[idx[-1]]  # * max(1, f) with f = span <= 1
    if rho <= 0:
        rho = np.finfo(float).tiny
    u = np.sqrt(dist[idx] / rho)
    tri = (1 - u ** 3) ** 3
    ww = np.sqrt(tri if w is None else w[idx] * tri)
    dx = x[idx] - q
    cols = [ww, ww * dx]
    if degree >= 2:
        cols.append(ww * dx ** 2)
    B = np.column_stack(cols[: degree + 1])
    colnor = np.sqrt(np.sum(B * B, axis=0))
    colnor = np.where(colnor > 0, colnor, 1.0)
    U, sig, Vt = np.linalg.svd(B / colnor, full_matrices=False)
    return idx, ww, colnor, U, sig, Vt, sig[0] * (100 * _EPS)


def _vertex_fit(x, y, w, q, nf, degree):
    """``ehg127`` at vertex q: (value, slope) of the local polynomial."""
    idx, ww, colnor, U, sig, Vt, tol = local_svd(x, w, q, nf, degree)
    eta = ww * y[idx]
    gam = np.where(sig > tol, (U.T @ eta) / np.where(sig > 0, sig, 1.0), 0.0)
    coef = (Vt.T @ gam) / colnor
    return float(coef[0]), float(coef[1]) if coef.size > 1 else 0.0


def _build_tree(xs, fc):
    """k-d tree over sorted ``xs`` (1-D). Returns the sorted vertex list and the leaves
    as (lower vertex, upper vertex) pairs, plus the split structure for lookup."""
    n = xs.size
    alpha, beta = xs[0], xs[-1]
    mu = 0.005 * max(beta - alpha, 1e-10 * max(abs(alpha), abs(beta)) + 1e-30)
    lower, upper = alpha - mu, beta + mu
    nvmax = max(200, n)
    ncmax = nvmax
    vertices = [lower, upper]
    # cells: (l, u, vlo, vhi, split or None, lo child, hi child); 0-based l..u inclusive
    cells = [[0, n - 1, lower, upper, None, None, None]]
    nv = 2
    p = 0
    while p < len(cells):
        l, u, vlo, vhi = cells[p][:4]
        diam = abs(vhi - vlo)
        leaf = (u - l + 1) <= fc or diam <= 0.0
        if not leaf:
            leaf = ncmax < len(cells) + 2 or nvmax < nv + 1.0
        if not leaf:
            m = (l + u + 2) // 2 - 1  # Fortran m = int((l+u)/2) with 1-based l, u
            off = 0
            found = None
            while l <= m + off < u:
                if xs[m + off] != xs[m + off + 1]:
                    found = m + off
                    break
                off = -off
                if off >= 0:
                    off += 1
            if found is not None:
                m = found
            xi = xs[m]
            leaf = vlo == xi or vhi == xi
            if not leaf:
                if xi not in vertices:
                    vertices.append(xi)
                    nv += 1
                cells[p][4] = xi
                cells[p][5] = len(cells)
                cells.append([l, m, vlo, xi, None, None, None])
                cells[p][6] = len(cells)
                cells.append([m + 1, u, xi, vhi, None, None, None])
        p += 1
    return cells, np.array(sorted(vertices))


def _leaf_of(cells, z):
    j = 0
    while cells[j][4] is not None:
        j = cells[j][5] if z <= cells[j][4] else cells[j][6]
    return j


def loess_fit_1d(x, y, weights=None, span=0.75, degree=2, cell=0.2):
    """Fitted values of R's ``loess(y ~ x, weights, span, degree, family = "gaussian",
    surface = "interpolate", control = loess.control(cell = cell, iterations = 1))``.

    Parameters
    ----------
    x, y : array_like
        Finite data.
    weights : array_like, optional
        Prior weights (R's ``weights``); default 1.
    span, degree, cell : as in R (``degree`` 1 or 2).

    Returns
    -------
    ndarray
        The fitted values at ``x``, in the input order.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = x.size
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    nf = min(n, int(math.floor(n * span + 1e-5)))
    if nf <= 0:
        from ..._errors import CalstatsError

        raise CalstatsError("span is too small")
    fc = int(math.floor(n * (span * cell)))
    xs = np.sort(x, kind="stable")
    cells, verts = _build_tree(xs, fc)
    vval = {float(v): _vertex_fit(x, y, w, float(v), nf, degree) for v in verts}
    out = np.empty(n)
    for i, z in enumerate(x):
        j = _leaf_of(cells, z)
        v0, v1 = cells[j][2], cells[j][3]
        g0, s0 = vval[float(v0)]
        g1, s1 = vval[float(v1)]
        h = (z - v0) / (v1 - v0)
        phi0 = (1 - h) ** 2 * (1 + 2 * h)
        phi1 = h ** 2 * (3 - 2 * h)
        psi0 = h * (1 - h) ** 2
        psi1 = h ** 2 * (h - 1)
        out[i] = phi0 * g0 + phi1 * g1 + (psi0 * s0 + psi1 * s1) * (v1 - v0)
    return out



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
    phi0 = (1 - h) ** 2 * (1 + 2 * h)
    phi1 = h ** 2 * (3 - 2 * h)
    psi0 = h * (1 - h) ** 2
    psi1 = h ** 2 * (h - 1)
    return phi0 * g0 + phi1 * g1 + (psi0 * s0 + psi1 * s1) * width


def _ehg176(z):
    # cells split at the interior vertices, z <= split going left
    for j in range(len(_EHG176) - 1):
        v0, g0, s0 = _EHG176[j]
        v1, g1, s1 = _EHG176[j + 1]
        if z <= v1 or j == len(_EHG176) - 2:
            return _hermite((z - v0) / (v1 - v0), g0, g1, s0, s1, v1 - v0)
    raise AssertionError  # pragma: no cover


def _ehg141(trl, n, deg, k, d):
    dk = 1 if deg == 0 else (d + 1 if deg == 1 else (d + 2) * (d + 1) // 2)
    corx = math.sqrt(k / n)
    z = (math.sqrt(k / trl) - corx) / (1 - corx)
    z = min(1.0, max(0.0, z))
    c4 = math.exp(_ehg176(z))
    i = 1 + 3 * (min(d, 4) - 1 + 4 * (deg - 1))
    c1, c2, c3 = _EHG141_C[i - 1], _EHG141_C[i], _EHG141_C[i + 1]
    delta1 = n - trl * math.exp(c1 * z ** c2 * (1 - z) ** c3 * c4)
    i += 24
    c1, c2, c3 = _EHG141_C[i - 1], _EHG141_C[i], _EHG141_C[i + 1]
    delta2 = n - trl * math.exp(c1 * z ** c2 * (1 - z) ** c3 * c4)
    return dk, delta1, delta2


def _lowesa(trl, n, d, tau):
    dka, d1a, d2a = _ehg141(trl, n, 1, tau, d)
    dkb, d1b, d2b = _ehg141(trl, n, 2, tau, d)
    alpha = (tau - dka) / (dkb - dka)
    return (1 - alpha) * d1a + alpha * d1b, (1 - alpha) * d2a + alpha * d2b


def _vertex_operator(x, q, nf, degree):
    """Rows (value, slope) of ``ehg127``'s local fit at vertex ``q`` as functions of ``y``
    (:func:`local_svd`, as :func:`_vertex_fit` solves it)."""
    n = x.size
    idx, ww, colnor, U, sig, Vt, tol = local_svd(x, None, q, nf, degree)
    inv = np.where(sig > tol, 1.0 / np.where(sig > 0, sig, 1.0), 0.0)
    M = ((Vt.T * inv[None, :]) @ U.T) * ww[None, :] / colnor[:, None]
    rows = np.zeros((2, n))
    rows[0, idx] = M[0]
    if M.shape[0] > 1:
        rows[1, idx] = M[1]
    return rows


class Loess:
    """``loess(y ~ x)`` with R's defaults (span 0.75, degree 2, gaussian, interpolate)."""

    def __init__(self, x, y, span=0.75, degree=2, cell=0.2):
        self.x = np.asarray(x, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        n = self.x.size
        self.n, self.degree = n, degree
        nf = min(n, int(math.floor(n * span + 1e-5)))
        fc = int(math.floor(n * (span * cell)))
        self.cells, verts = _build_tree(np.sort(self.x, kind="stable"), fc)
        self.ops = {float(v): _vertex_operator(self.x, float(v), nf, degree) for v in verts}
        self.vals = {v: rows @ self.y for v, rows in self.ops.items()}
        self.lo, self.hi = float(np.min(self.x)), float(np.max(self.x))
        self._s = None

    def _rows(self, z):
        j = _leaf_of(self.cells, z)
        v0, v1 = self.cells[j][2], self.cells[j][3]
        return (z - v0) / (v1 - v0), float(v0), float(v1)

    def _operator(self, z):
        h, v0, v1 = self._rows(z)
        a, b = self.ops[v0], self.ops[v1]
        return _hermite(h, a[0], b[0], a[1], b[1], v1 - v0)

    def _value(self, z):
        h, v0, v1 = self._rows(z)
        a, b = self.vals[v0], self.vals[v1]
        return _hermite(h, a[0], b[0], a[1], b[1], v1 - v0)

    @property
    def s(self):
        """Residual standard error (``fit$s``)."""
        if self._s is None:
            fitted = np.array([self._value(z) for z in self.x])
            trl = float(sum(self._operator(z)[i] for i, z in enumerate(self.x)))
            tau = (2 + 1) if self.degree > 1 else 2  # (d+2)(d+1)/2 or d+1, d = 1
            one_delta, _ = _lowesa(trl, self.n, 1, tau)
            res = self.y - fitted
            self._s = math.sqrt(float(np.sum(res * res)) / one_delta)
        return self._s

    def predict(self, xnew, se=False):
        """``predict(fit, newdata = xnew, se = se)``: NaN outside the data's range."""
        xnew = np.asarray(xnew, dtype=np.float64).ravel()
        fit = np.full(xnew.size, np.nan)
        sef = np.full(xnew.size, np.nan)
        for i, z in enumerate(xnew):
            if self.lo <= z <= self.hi:
                fit[i] = self._value(z)
                if se:
                    L = self._operator(z)
                    sef[i] = self.s * math.sqrt(float(np.sum(L * L)))
        return (fit, sef) if se else fit

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
"""

import math

import numpy as np

__all__ = ["loess_fit_1d"]

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
        from .._errors import CalstatsError

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

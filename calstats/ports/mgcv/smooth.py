"""mgcv's one-covariate smoothing bases: ``s(x, bs = "tp")`` and ``s(x, bs = "cr")``.

The smoothing parameter that mgcv reports is defined relative to the penalty matrix *after*
mgcv rescales it (``smoothCon``: ``S / (norm(S, "O") / norm(X, "I")^2)``), and both norms
change when the basis is rotated within its span. So to report mgcv's ``sp`` (not only its
fitted values) the basis has to be mgcv's own, column by column up to sign. This module
builds it the way mgcv 1.8-41 does:

* ``tp`` (``smooth.construct.tp.smooth.spec`` and the C routine ``tprs_setup``): the
  covariate is centred, ties are stripped (``Xd_strip`` sorts the unique values), the thin
  plate kernel ``E_ij = |x_i - x_j|^3 / 12`` is decomposed by mgcv's Lanczos iteration
  (``Rlanczos``: its fixed start vector, full re-orthogonalisation, the convergence test and
  the largest-magnitude selection, with LAPACK ``dstedc`` for the tridiagonal problem, which
  fixes the eigenvectors' signs), the null-space constraint ``T'U d = 0`` is absorbed with
  mgcv's Householder ``QT``/``HQmult``, and columns are scaled to unit root-mean-square. With
  more than ``max.knots = 2000`` unique values, 2000 of them are drawn with R's ``sample``
  after ``set.seed(1)`` and the user's random stream is put back (``temp.seed``).
* ``cr`` (``smooth.construct.cr.smooth.spec``, C ``crspl``): knots at quantiles of the unique
  values (``place.knots``), the cubic spline's ``F`` and penalty ``S = D'B^{-1}D``.
* then ``smoothCon``: penalty scaling and the sum-to-zero constraint absorbed with LINPACK's
  Householder (``qr(t(C))``, ``qr.qty``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import lapack

from ... import rng
from ..._errors import fail
from ..._messages import (
    DSTEDC_FAILED,
    GAM_CR_UNIQUE,
    GAM_TP_UNIQUE,
)
from ..._robject import RObject
from ...numerics.reductions import rmean

__all__ = ["SmoothBasis", "TprsBasis", "CrBasis", "smooth_basis"]

_DBL_EPSILON = 2.220446049250313e-16
_MAX_KNOTS = 2000


def _eta_const():
    # eta_const(m = 2, d = 1) in tprs.c, operation for operation
    ghalf = math.sqrt(math.asin(1.0) * 2)
    f = ghalf
    for i in range(2):
        f /= -0.5 - i
    for _ in range(2):
        f /= 4
    f /= ghalf
    return f


_ETA0 = _eta_const()


def _eta(r2):
    """``fast_eta`` for m = 2, d = 1 given squared distances: ``eta0 * r^2 * |r|``."""
    with np.errstate(invalid="ignore"):
        out = (_ETA0 * r2) * np.sqrt(r2)
    return np.where(r2 <= 0.0, 0.0, out)


def _eta_matrix(a, b):
    """``_eta((a[:, None] - b[None, :])**2)`` bit for bit, in place: ``sqrt(d*d)`` is
    ``|d|`` exactly in IEEE arithmetic, and a zero distance gives 0 either way."""
    d = np.subtract.outer(a, b)
    r2 = d * d
    r2 *= _ETA0
    np.abs(d, out=d)
    r2 *= d
    return r2


# --------------------------------------------------------------------------------------
# Rlanczos (mat.c)
# --------------------------------------------------------------------------------------


def _tridiag_eig_desc(d, e):
    """``mgcv_trisymeig(..., descending = 1)``: LAPACK ``dstedc`` through ``dstevd``."""
    w, v, info = lapack.dstevd(d.copy(), e.copy(), compute_v=1)
    if info != 0:  # pragma: no cover - LAPACK failure is not reachable with finite input
        raise ArithmeticError(DSTEDC_FAILED)
    return w[::-1].copy(), v[:, ::-1].copy()


def _lanczos_biggest(a, m):
    """The ``m`` largest-magnitude eigenpairs of symmetric ``a`` as mgcv's ``Rlanczos`` (lm < 0)
    returns them: the positive ones first (descending), then the negative ones (descending)."""
    n = a.shape[0]
    tol = _DBL_EPSILON ** 0.7
    lm = 0
    f_check = max(m // 2, 10)
    kk = max(n // 10, 1)
    f_check = min(f_check, kk)
    jran = 1
    start = np.empty(n)
    for i in range(n):
        jran = (jran * 106 + 1283) % 6075
        start[i] = jran / 6075 - 0.5
    start /= math.sqrt(float(np.dot(start, start)))
    q = np.empty((n + 1, n))
    q[0] = start
    al = np.zeros(n)
    be = np.zeros(n)
    d = v = None
    j = 0
    converged_at = None
    while j < n:
        z = a @ q[j]
        xx = float(np.dot(q[j], z))
        al[j] = xx
        if j == 0:
            z = z - xx * q[j]
        else:
            z = z - (xx * q[j] + be[j - 1] * q[j - 1])
            for _ in range(2):
                for i in range(j + 1):
                    z = z - float(np.dot(z, q[i])) * q[i]
        be[j] = math.sqrt(float(np.dot(z, z)))
        if j < n - 1:
            q[j + 1] = z / be[j]
        if (j >= m + lm and j % f_check == 0) or j == n - 1:
            d, v = _tridiag_eig_desc(al[: j + 1], be[:j])
            norm_tj = max(abs(d[0]), abs(d[j]))
            err = np.abs(be[j] * v[j, :])
            if j >= m + lm:
                max_err = norm_tj * tol
                pi = ni = 0
                ok = True
                while pi + ni < m:
                    if abs(d[pi]) >= abs(d[j - ni]):
                        if err[pi] > max_err:
                            ok = False
                            break
                        pi += 1
                    else:
                        # mgcv tests err[ni] here (not err[j - ni]); kept, since it decides
                        # the iteration at which the Ritz vectors are formed
                        if err[ni] > max_err:
                            ok = False
                            break
                        ni += 1
                if ok:
                    m, lm = pi, ni
                    j += 1
                    converged_at = j
                    break
        j += 1
    if converged_at is None:
        j = n
    cols = list(range(m)) + [j - (lm + m - k) for k in range(m, m + lm)]
    assert d is not None and v is not None
    vals = d[cols]
    vecs = q[:j].T @ v[:j, cols]
    return vals, vecs


# --------------------------------------------------------------------------------------
# QT / HQmult (matrix.c)
# --------------------------------------------------------------------------------------


def _qt_householders(a):
    """``QT(Q, A, 0)``: the Householder vectors ``u_i`` (rows) with ``A Q = [0, T]``."""
    a = a.copy()
    r, c = a.shape
    us = np.zeros((r, c))
    for i in range(r):
        p = a[i, : c - i].copy()
        mx = float(np.max(np.abs(p)))
        if mx:
            p = p / mx
        lsq = math.sqrt(float(np.dot(p, p)))
        if p[-1] < 0.0:
            lsq = -lsq
        p[-1] += lsq
        g = 1.0 / (lsq * p[-1]) if lsq else 0.0
        for jj in range(i + 1, r):
            x = float(np.dot(p, a[jj, : c - i])) * g
            a[jj, : c - i] -= x * p
        us[i, : c - i] = p * math.sqrt(g)
    return us


def _post_q(c, us):
    """``HQmult(C, U, 0, 0)``: ``C Q`` with ``Q = H_0 H_1 ...``."""
    c = c.copy()
    for u in us:
        c -= np.outer(c @ u, u)
    return c


def _pre_qt(c, us):
    """``HQmult(C, U, 1, 1)``: ``Q' C``."""
    c = c.copy()
    for u in us:
        c -= np.outer(u, u @ c)
    return c


# --------------------------------------------------------------------------------------
# bases
# --------------------------------------------------------------------------------------


class SmoothBasis(RObject):
    """One constructed smooth: what ``predict`` needs to rebuild its model-matrix columns.

    The fields of mgcv's smooth object (``smoothCon(..., absorb.cons = TRUE,
    scale.penalty = TRUE)[[1]]``, mgcv 1.8-41) under their mgcv names, in mgcv's order
    (``basis["bs.dim"]``, ``basis.names()``; see :class:`calstats._robject.RObject`); a
    constructed basis is a :class:`TprsBasis` (mgcv class ``tprs.smooth``) or a
    :class:`CrBasis` (``cr.smooth``), whose names differ as mgcv's do. Fields common to both:

    ``bs.dim`` (Python ``k``), ``X`` (n x (k - 1) constrained model-matrix columns), ``S``
    ((k - 1) x (k - 1) scaled, constrained penalty; None for ``fx``; mgcv's ``S[[1]]``),
    ``null.space.dim``, ``S.scale`` (Python ``S_scale``; 1 for ``fx``), and last the two
    *attributes* of mgcv's object that carry the sum-to-zero constraint: ``qrc`` (Python
    ``householder``: the LINPACK Householder vector ``u`` of ``qr(t(C))``, ``u[0]`` being
    mgcv's ``qrc$qraux`` and ``u[1:]`` the rest of its ``qrc$qr`` column) and ``indi`` (the
    0-based columns that carry the constraint; mgcv sets ``attr(, "indi")`` only when it
    restricts the constraint to them).

    Not mgcv fields: ``bs`` (``"tp"`` or ``"cr"``, the class) and ``tp_poly`` (the piecewise
    cubic form of a ``tp`` basis, made on demand by :meth:`raw_matrix` and kept). The other
    kind's fields read None (``shift`` 0.0).
    """

    _extras: tuple[str, ...] = ("tp_poly",)
    bs: str
    k: int
    X: np.ndarray
    S: np.ndarray | None
    S_scale: float
    householder: np.ndarray
    indi: np.ndarray
    null_space_dim: int
    # tp (TprsBasis)
    shift: float = 0.0
    knots: np.ndarray | None = None
    UZ: np.ndarray | None = None
    tp_poly: np.ndarray | None = None
    # cr (CrBasis)
    cr_knots: np.ndarray | None = None
    F: np.ndarray | None = None

    def raw_matrix(self, x):
        """The unconstrained basis at ``x`` (``Predict.matrix`` of the smooth class)."""
        if self.bs == "tp":
            assert self.knots is not None and self.UZ is not None
            if self.tp_poly is None and x.shape[0] > 4 * self.knots.shape[0]:
                self.tp_poly = _tp_poly(self.knots, self.UZ)  # built once, kept for predict
            return _tp_predict(x - self.shift, self.knots, self.UZ, self.tp_poly)
        return _cr_predict(x, self.cr_knots, self.F)

    def matrix(self, x):
        """Constrained model-matrix columns at ``x`` (``PredictMat``)."""
        return _apply_constraint_x(self.raw_matrix(x), self.householder, self.indi)


class TprsBasis(SmoothBasis):
    """``s(x, bs = "tp")`` (mgcv class ``tprs.smooth``): besides the fields of
    :class:`SmoothBasis`, ``UZ`` (the map from the kernel and null-space columns to the
    basis), ``Xu`` (Python ``knots``: the sorted unique centred covariate values, or the
    2000 drawn from them) and ``shift`` (the covariate's mean)."""

    bs = "tp"
    _r_fields = ("bs.dim", "X", "S", "UZ", "Xu", "shift", "null.space.dim", "S.scale", "qrc", "indi")
    _aliases = {"bs.dim": "k", "Xu": "knots", "qrc": "householder"}


class CrBasis(SmoothBasis):
    """``s(x, bs = "cr")`` (mgcv class ``cr.smooth``): besides the fields of
    :class:`SmoothBasis`, ``xp`` (Python ``cr_knots``: the knots) and ``F`` (the map from
    knot values to second derivatives, an nk x nk matrix whose rows, one after the other,
    are mgcv's ``F`` vector)."""

    bs = "cr"
    _r_fields = ("bs.dim", "X", "S", "null.space.dim", "xp", "F", "S.scale", "qrc", "indi")
    _aliases = {"bs.dim": "k", "xp": "cr_knots", "qrc": "householder"}


def _tp_predict(xc, knots, uz, poly=None):
    """``predict_tprs``: ``[eta(|x - knot|), 1, x] %*% UZ``. Directly (in blocks, so that
    the n-by-knots kernel matrix is never held at once) for a few points; for many, from
    the piecewise cubic form of the basis (:func:`_tp_poly`), O(n log knots)."""
    nk = knots.shape[0]
    if poly is None and xc.shape[0] > 4 * nk:
        poly = _tp_poly(knots, uz)
    if poly is not None:
        return _tp_poly_eval(xc, knots, uz, poly)
    out = np.empty((xc.shape[0], uz.shape[1]))
    block = max(1, (1 << 22) // max(nk, 1))
    for s in range(0, xc.shape[0], block):
        xs = xc[s:s + block]
        b = np.empty((xs.shape[0], nk + 2))
        b[:, :nk] = _eta_matrix(xs, knots)
        b[:, -2] = 1.0
        b[:, -1] = xs
        out[s:s + block] = b @ uz
    return out


def _tp_poly(knots, uz):
    """The thin plate basis in one dimension as piecewise cubics: on the segment ``s``
    (``knots[s] <= x < knots[s + 1]``; ``s = -1`` and ``nk - 1`` the two outer pieces) the
    kernel part ``sum_j d_j eta(|x - k_j|)`` is ``((P3 t + P2) t + P1) t + P0`` in
    ``t = x - anchor_s`` (anchor ``knots[max(s, 0)]``). Returns ``P`` of shape
    ``(nk + 1, 4, ncol)`` (``P[s + 1, i]`` the coefficient of ``t^i``). Its constant term is
    the kernel sum at the anchor, so its rounding is that of the direct sum (~1e-16 of the
    largest term)."""
    nk = knots.shape[0]
    delta = _ETA0 * uz[:nk]
    a = np.subtract.outer(knots, knots)  # a[s, j] = knots[s] - knots[j]: >= 0 for j <= s
    P = np.empty((nk + 1, 4, uz.shape[1]))
    # sign(j <= s) * a^p is |a|, a|a|, a^2|a| for p = 1, 2, 3
    m = np.abs(a)
    P[1:, 2] = 3.0 * (m @ delta)
    m *= a
    P[1:, 1] = 3.0 * (m @ delta)
    m *= a
    P[1:, 0] = m @ delta
    # p = 0: sum_{j <= s} d_j - sum_{j > s} d_j
    cs = np.cumsum(delta, axis=0)
    P[1:, 3] = 2.0 * cs - cs[-1]
    # s = -1 (left of every knot, anchor knots[0]): the s = 0 piece but for its t^3 term
    P[0] = P[1]
    P[0, 3] = -cs[-1]
    return P


def _tp_poly_eval(xc, knots, uz, P):
    nk = knots.shape[0]
    seg = np.searchsorted(knots, xc, side="right")  # s + 1
    anchor = knots[np.maximum(seg - 1, 0)]
    t = (xc - anchor)[:, None]
    out = P[seg, 3] * t
    out += P[seg, 2]
    out *= t
    out += P[seg, 1]
    out *= t
    out += P[seg, 0]
    out += uz[nk][None, :]
    out += xc[:, None] * uz[nk + 1][None, :]
    return out


def _tp_construct(x, k):
    """``smooth.construct.tp.smooth.spec`` + ``construct_tprs`` for d = 1, m = 2."""
    n = x.shape[0]
    shift = rmean(x)
    xc = x - shift
    knt = None
    if n > _MAX_KNOTS:
        xu = np.unique(xc)  # uniquecombs(..., ordered = TRUE): ascending
        if xu.shape[0] > _MAX_KNOTS:
            saved = rng.get_state()
            rng.set_seed(1)
            ind = np.asarray(rng.sample_int(xu.shape[0], _MAX_KNOTS), dtype=np.int64) - 1
            rng.set_state(saved)
            knt = xu[ind]
    M = 2
    if k < 0:
        k = M + 8
    if k < M + 1:
        k = M + 1
    use_knots = knt is not None and knt.shape[0] >= k
    xu = np.unique(knt if use_knots else xc)  # Xd_strip: sorted unique points
    nu = xu.shape[0]
    if nu < k:
        fail(GAM_TP_UNIQUE)
    E = _eta_matrix(xu, xu)
    T = np.column_stack([np.ones(nu), xu])
    pure_knot = nu == k
    if pure_knot:
        us = _qt_householders(T.T.copy())
        Q = _post_q(np.eye(nu), us)
        U = Q
        UZ = np.zeros((nu + M, k))
        UZ[:nu, : k - M] = Q[:, : k - M]
    else:
        vals, U = _lanczos_biggest(E, k)
        TU = T.T @ U
        us = _qt_householders(TU)
        UZ = np.zeros((nu + M, k))
        UZ[:nu, :] = _post_q(U, us)
        UZ[:nu, k - M:] = 0.0
    UZ[nu:, k - M:] = np.eye(M)
    if not use_knots and not pure_knot:
        X1 = _post_q(U * vals[None, :], us)
        X1[:, k - M:] = T
        idx = np.searchsorted(xu, xc)
        X = X1[idx]
    else:
        X = _tp_predict(xc, xu, UZ)
    if pure_knot:
        S = _pre_qt(_post_q(E, us), us)
    else:
        S = _pre_qt(_post_q(np.diag(vals), us), us)
    S[:, k - M:] = 0.0
    S[k - M:, :] = 0.0
    w = np.sqrt(np.sum(X * X, axis=0) / n)
    X = X / w
    UZ = UZ / w
    S = S / w[:, None] / w[None, :]
    S = (S + S.T) / 2
    return X, S, dict(shift=shift, knots=xu, UZ=UZ), k, M


# --- cubic regression spline ----------------------------------------------------------


def _cr_fs(xk):
    """``getFS`` (mgcv's crspl): the map ``F`` from knot values to second derivatives
    and the penalty ``S``."""
    nk = xk.shape[0]
    h = np.diff(xk)
    D = np.zeros((nk - 2, nk))
    B = np.zeros((nk - 2, nk - 2))
    for i in range(nk - 2):
        D[i, i] = 1.0 / h[i]
        D[i, i + 1] = -1.0 / h[i] - 1.0 / h[i + 1]
        D[i, i + 2] = 1.0 / h[i + 1]
        B[i, i] = (h[i] + h[i + 1]) / 3.0
        if i < nk - 3:
            B[i, i + 1] = B[i + 1, i] = h[i + 1] / 6.0
    Fm = np.linalg.solve(B, D)
    F = np.zeros((nk, nk))
    F[1:-1, :] = Fm
    S = D.T @ Fm
    return F, (S + S.T) / 2


def _cr_predict(x, xk, F):
    """``Predict.matrix.cr.smooth`` (crspl): cubic spline through knot values, linear
    extrapolation beyond the end knots (every row at once, each with crspl's arithmetic)."""
    nk = xk.shape[0]
    n = x.shape[0]
    X = np.zeros((n, nk))
    lo, hi = xk[0], xk[-1]
    rows = np.arange(n)
    below, above = x < lo, x > hi
    inside = ~(below | above)
    if below.any():
        r = rows[below]
        h = xk[1] - xk[0]
        xx = x[below] - lo
        cjm = -xx * h / 3.0
        cjp = -xx * h / 6.0
        X[r] = cjm[:, None] * F[0] + cjp[:, None] * F[1]
        X[r, 0] += 1.0 - xx / h
        X[r, 1] += xx / h
    if above.any():
        r = rows[above]
        j = nk - 1
        h = xk[j] - xk[j - 1]
        xx = x[above] - hi
        cjm = xx * h / 6.0
        cjp = xx * h / 3.0
        X[r] = cjm[:, None] * F[j - 1] + cjp[:, None] * F[j]
        X[r, j - 1] += -xx / h
        X[r, j] += 1.0 + xx / h
    if inside.any():
        r = rows[inside]
        xi = x[inside]
        j = np.clip(np.searchsorted(xk, xi, side="right") - 1, 0, nk - 2)
        h = xk[j + 1] - xk[j]
        xm = xk[j + 1] - xi
        xp = xi - xk[j]
        cjm = (xm * xm * xm / h - h * xm) / 6.0
        cjp = (xp * xp * xp / h - h * xp) / 6.0
        X[r] = cjm[:, None] * F[j] + cjp[:, None] * F[j + 1]
        X[r, j] += xm / h
        X[r, j + 1] += xp / h
    return X


def _place_knots(x, nk):
    """``quantile(unique(x), seq(0, 1, length = nk))`` (type 7), as the cr constructor
    places its knots."""
    x = np.unique(x)
    n = x.shape[0]
    by = 1.0 / (nk - 1)
    probs = np.arange(nk) * by
    probs[-1] = 1.0
    index = 1 + (n - 1) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = x[lo - 1].copy()
    h = index - lo
    interp = (index > lo) & (x[hi - 1] != qs)
    qs[interp] = (1 - h[interp]) * qs[interp] + h[interp] * x[hi - 1][interp]
    return qs


def _cr_construct(x, k):
    if k < 0:
        k = 10
    if k < 3:
        k = 3
    if np.unique(x).shape[0] < k:
        fail(GAM_CR_UNIQUE.format(k=k))
    xk = _place_knots(x, k)
    F, S = _cr_fs(xk)
    X = _cr_predict(x, xk, F)
    return X, S, dict(cr_knots=xk, F=F), k, 2


# --------------------------------------------------------------------------------------
# smoothCon: penalty scaling and the sum-to-zero constraint
# --------------------------------------------------------------------------------------


def _householder(c):
    """LINPACK ``dqrdc2`` on the single column ``c``: the vector ``u`` with ``u[0] = qraux``,
    so that ``qr.qty(y) = y - u (u'y) / u[0]``."""
    nrm = math.sqrt(float(np.dot(c, c)))
    if c[0] != 0.0:
        nrm = math.copysign(nrm, c[0])
    u = c / nrm
    u[0] += 1.0
    return u


def _qty_rows(x, u):
    """Apply ``qr.qty`` to every row of ``x`` (``t(qr.qty(qrc, t(x)))``)."""
    return x - np.outer(x @ u, u) / u[0]


def _apply_constraint_x(x, u, indi):
    sub = _qty_rows(x[:, indi], u)[:, 1:]
    nz = indi.shape[0] - 1
    out = x.copy()
    out[:, indi[:nz]] = sub
    return np.delete(out, indi[nz], axis=1)


def _apply_constraint_s(s, u, indi):
    nz = indi.shape[0] - 1
    zs = s.copy()
    zs[indi[:nz], :] = _qty_rows(s[indi, :].T, u).T[1:, :]
    zs = np.delete(zs, indi[nz], axis=0)
    zs2 = zs.copy()
    zs2[:, indi[:nz]] = _qty_rows(zs[:, indi], u)[:, 1:]
    return np.delete(zs2, indi[nz], axis=1)


def smooth_basis(x, k=-1, bs="tp", fx=False):
    """Construct ``s(x, k, bs, fx)`` as ``smoothCon(..., absorb.cons = TRUE,
    scale.penalty = TRUE)`` does inside ``gam.setup``."""
    x = np.asarray(x, dtype=np.float64)
    if bs == "tp":
        X, S, extra, k, M = _tp_construct(x, k)
    else:
        X, S, extra, k, M = _cr_construct(x, k)
    n = X.shape[0]
    s_scale = 1.0
    Sc = None
    if not fx:
        ma_xx = float(np.max(np.sum(np.abs(X), axis=1))) ** 2
        s_scale = float(np.max(np.sum(np.abs(S), axis=0))) / ma_xx
        S = S / s_scale
    C = np.array([float(np.cumsum(X[:, j].astype(np.longdouble))[-1] / np.longdouble(n))
                  for j in range(X.shape[1])])
    indi = np.flatnonzero(C != 0.0)
    u = _householder(C[indi])
    Xc = _apply_constraint_x(X, u, indi)
    if not fx:
        Sc = _apply_constraint_s(S, u, indi)
    cls = TprsBasis if bs == "tp" else CrBasis
    return cls(k=k, X=Xc, S=Sc, S_scale=s_scale, householder=u, indi=indi, null_space_dim=M - 1, **extra)

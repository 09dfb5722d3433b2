"""R's ``splines`` package: ``bs``, ``ns``, their ``predict`` methods, and ``splineDesign``.

Spline bases enter calibration curves as regressors (``pmcalibration``'s natural and
B-spline smooths, multinomial calibration), so the columns must be R's own: the same knots
(``quantile(type = 7)`` at R's ``seq.int`` probabilities), the same B-spline recursion and
the same orthogonalisation of the natural-spline constraint, with its signs.

What is reproduced, statement by statement (R 4.2.2):

* ``splineDesign``: the argument checks and messages of the R function, the knot
  augmentation for ``outer.ok = TRUE``, and the C routine ``spline_basis`` of ``splines.c``
  (``set_cursor``, ``basis_funcs`` with its zero-denominator rule, and the "slow"
  ``evaluate`` for derivatives, including its boundary rule and IEEE divisions by zero);
* ``bs``: knots from ``df``, the ``'df' was too small`` warning, and outside the boundary
  knots R's Taylor expansion about a pivot a quarter of the way to the nearest knot
  (``xl %*% (tt/scalef)``, with R's ``^`` and the reference-BLAS summation order);
* ``ns``: the linear continuation beyond the boundary knots and the projection on the
  null space of the second derivatives at the boundary knots through R's default
  ``qr()`` (LINPACK ``dqrdc2``, tolerance 1e-7) and ``qr.qty`` (LINPACK ``dqrsl``), so the
  columns carry R's signs;
* missing values (``NaN``, ``None``, ``pd.NA``) give rows of ``NaN``, as R's ``NA`` rows.

Deliberate differences: ``boundary_knots`` must hold two non-missing numbers (R silently
misbehaves otherwise), a non-numeric ``x``/``knots`` is refused with one line of calstats'
own, and row names are not kept. R's errors on degenerate inputs (tied knots that make the
natural-spline constraint ``NaN``, missing knots, an ``x`` with no non-missing value) are
raised with R's texts at the same points.
"""

import math
import numbers

import numpy as np
import pandas as pd

from ..._errors import fail, warn
from ..._messages import (
    FOREIGN_NONFINITE,
    MAX_EMPTY,
    MIN_EMPTY,
    NA_CONDITION,
    NON_NUMERIC_OPERATOR,
    REPLACEMENT_LENGTH,
    SPLINES_BEYOND,
    SPLINES_BOUNDARY,
    SPLINES_DEGREE,
    SPLINES_DERIV_ORD,
    SPLINES_DERIV_ORD_AT,
    SPLINES_DERIVS_EMPTY,
    SPLINES_DERIVS_LONG,
    SPLINES_DF_SMALL,
    SPLINES_FEW_KNOTS,
    SPLINES_NEED_KNOTS,
    SPLINES_NUMERIC,
    SPLINES_ORD,
    SPLINES_QR_ROWS,
    SPLINES_RANGE,
)
from ..._robject import RObject
from ...numerics import libm
from ...numerics.linpack import dqrdc2, qr_qty
from ...numerics.reductions import matmul

__all__ = ["SplineBasis", "bs", "ns", "spline_design"]

_QR_TOL = 1e-7  # qr.default(tol = 1e-07)


# --------------------------------------------------------------------------------------
# input coercion
# --------------------------------------------------------------------------------------


def _as_double(x, name="x"):
    """``as.vector(x)`` of a numeric vector as a new float64 array (missing values as NaN)."""
    if isinstance(x, (pd.Series, pd.Index)):
        if isinstance(x.dtype, pd.CategoricalDtype) or x.dtype.kind not in "fiub":
            x = x.to_numpy(dtype=object)
        else:
            x = x.to_numpy(dtype=np.float64, na_value=np.nan)
    arr = np.asarray(x if np.ndim(x) else [x])
    if arr.dtype == object:
        vals = arr.ravel()
        if not all(v is None or v is pd.NA or isinstance(v, numbers.Real) for v in vals):
            fail(SPLINES_NUMERIC.format(name=name))
        arr = np.array([np.nan if v is None or v is pd.NA else float(v) for v in vals],
                       dtype=np.float64)
    if arr.dtype.kind not in "fiub":
        fail(SPLINES_NUMERIC.format(name=name))
    return np.array(arr, dtype=np.float64, copy=True).ravel()


def _as_number(v, name):
    """A scalar argument (``df``, ``degree``, ``ord``) as R's arithmetic would take it."""
    if not isinstance(v, numbers.Real):
        if not (isinstance(v, np.ndarray) and v.size == 1 and v.dtype.kind in "fiub"):
            fail(NON_NUMERIC_OPERATOR)
        v = v.item()
    v = float(v)
    if math.isnan(v):
        fail(NA_CONDITION)
    return v


def _r_pow_int(x, k):
    """R's ``x ^ k`` for an integer ``k``: ``x * x`` for 2, else ``R_pow`` (libm ``pow``,
    :func:`calstats.numerics.libm.r_pow`)."""
    return libm.r_pow(x, k)


def _seq_probs(n_iknots):
    """``seq.int(0, 1, length.out = nIknots + 2)[-c(1, nIknots + 2)]`` as R computes it."""
    lout = math.ceil(n_iknots + 2)
    seq = np.empty(lout)
    seq[0] = 0.0
    seq[lout - 1] = 1.0
    if lout > 2:
        by = 1.0 / float(lout - 1)
        seq[1:lout - 1] = np.arange(1, lout - 1, dtype=np.float64) * by  # from + i*by
    drop = {0, int(n_iknots + 2) - 1}
    return np.array([v for i, v in enumerate(seq) if i not in drop])


def _quantile7(x, probs):
    """``quantile(x, probs)`` (type 7, ``names`` dropped); NaN for an empty ``x`` as R's NA."""
    n = x.size
    if n == 0:
        return np.full(probs.size, np.nan)
    xs = np.sort(x)
    index = 1.0 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = xs[lo - 1].copy()
    i = (index > lo) & (xs[hi - 1] != qs)
    h = (index - lo)[i]
    qs[i] = (1.0 - h) * qs[i] + h * xs[hi[i] - 1]
    return qs


# --------------------------------------------------------------------------------------
# splines.c: spline_basis
# --------------------------------------------------------------------------------------


def _set_cursor(knots, order, x):
    """``set_cursor`` for every x: (curs, boundary), curs = -1 when no knot is >= x."""
    nk = knots.size
    # The C loop stops at the first knot > x, having set curs at every knot >= x before it
    # (knots are sorted here); NaN compares false everywhere and leaves curs at -1.
    first_gt = np.searchsorted(knots, x, side="right")
    tail = (first_gt >= nk) & (knots[nk - 1] >= x)
    curs = np.where(first_gt < nk, first_gt, np.where(tail, nk - 1, -1))
    last = nk - order
    boundary = np.zeros(x.size, dtype=bool)
    if last >= 0:
        boundary = (curs > last) & (x == knots[last])
        curs = np.where(boundary, last, curs)
    return curs, boundary


def _basis_funcs(knots, ordm1, curs, x):
    """``basis_funcs`` for a set of x (vectorised over x): the ``ord`` non-zero B-splines."""
    m = x.size
    rdel = [knots[curs + i] - x for i in range(ordm1)]
    ldel = [x - knots[curs - (i + 1)] for i in range(ordm1)]
    b = [np.ones(m)] + [np.zeros(m) for _ in range(ordm1)]
    with np.errstate(all="ignore"):
        for j in range(1, ordm1 + 1):
            saved = np.zeros(m)
            for r in range(j):
                den = rdel[r] + ldel[j - 1 - r]
                nz = den != 0
                term = b[r] / den
                keep = ~nz & (r == 0) & (rdel[r] == 0.0)
                b[r] = np.where(nz, saved + rdel[r] * term, np.where(keep, b[r], saved))
                saved = np.where(nz, ldel[j - 1 - r] * term, 0.0)
            b[j] = saved
    return np.column_stack(b)


def _evaluate(knots, ordm1, curs, boundary, x, nder, a):
    """``evaluate`` (the "slow" method) for x sharing one derivative order ``nder``.

    ``a`` (m x ord) holds the coefficients, one row per x; returns the value per x.
    """
    a = a.copy()
    outer = ordm1
    with np.errstate(all="ignore"):
        for _ in range(nder):
            for k in range(outer):
                lpt = curs - outer + k
                a[:, k] = (outer * (a[:, k + 1] - a[:, k])) / (knots[lpt + outer] - knots[lpt])
            outer -= 1
        rdel = [knots[curs + i] - x for i in range(outer)]
        ldel = [x - knots[curs - (i + 1)] for i in range(outer)]
        while outer > 0:
            outer -= 1
            for k in range(outer + 1):
                lp, rp = ldel[outer - k], rdel[k]
                a[:, k] = (a[:, k + 1] * lp + a[:, k] * rp) / (rp + lp)
    out = a[:, 0].copy()
    if nder == ordm1:
        out[boundary] = 0.0
    return out


def _spline_basis(knots, order, x, derivs):
    """``.Call(C_spline_basis, knots, ord, x, derivs)``: (values ord x nx, offsets)."""
    nk = knots.size
    nx = x.size
    nd = derivs.size
    curs, boundary = _set_cursor(knots, order, x)
    offsets = curs - order
    val = np.full((nx, order), np.nan)
    der = derivs[np.arange(nx) % nd] if nx else derivs[:0]
    ok = (offsets >= 0) & (offsets <= nk)
    for i in np.flatnonzero(ok & (der >= order)):
        # C checks in x order, so the first offending x names the error
        if nd == 1:
            fail(SPLINES_DERIV_ORD.format(deriv=der[i], ord=order))
        fail(SPLINES_DERIV_ORD_AT.format(i=i + 1, deriv=der[i], ord=order))
    fast = ok & (der <= 0)
    if fast.any():
        val[fast] = _basis_funcs(knots, order - 1, curs[fast], x[fast])
    for d in np.unique(der[ok & (der > 0)]):
        rows = ok & (der == d)
        for ii in range(order):
            a = np.zeros((int(rows.sum()), order))
            a[:, ii] = 1.0
            val[rows, ii] = _evaluate(knots, order - 1, curs[rows], boundary[rows], x[rows],
                                      int(d), a)
    return val, offsets


@np.errstate(all="ignore")  # IEEE arithmetic as in C: inf/nan quietly
def spline_design(knots, x, ord=4, derivs=0, outer_ok=False) -> np.ndarray:
    """B-spline design matrix: R's ``splines::splineDesign(knots, x, ord, derivs, outer.ok)``.

    Parameters
    ----------
    knots : array_like
        Knot sequence (sorted if it is not).
    x : array_like
        Evaluation points.
    ord : int, default 4
        Order of the splines (degree + 1).
    derivs : int or array_like of int, default 0
        Derivative order per x, recycled along ``x`` as R does.
    outer_ok : bool, default False
        Allow ``x`` outside ``knots[ord-1] .. knots[-ord]``; points outside the whole knot
        range then get zero rows.

    Returns
    -------
    ndarray, shape (len(x), len(knots) - ord)
        The dense design matrix (R's ``sparse = FALSE``).

    Notes
    -----
    Reproduces R 4.2.2's R code and its C routine ``spline_basis`` step by step, including
    the messages. A missing ``x`` is R's ``if (NA)`` error unless another ``x`` is outside.
    """
    knots = _as_double(knots, "knots")
    nk = knots.size
    if nk <= 0:
        fail(SPLINES_FEW_KNOTS)
    if np.any(np.isnan(knots)):
        fail(NA_CONDITION)  # is.unsorted() is NA and `if (NA)` stops
    if np.any(np.diff(knots) < 0):
        knots = np.sort(knots)
    x = _as_double(x)
    nx = x.size
    derivs = np.atleast_1d(np.asarray(derivs)).ravel()
    if derivs.size > nx:
        fail(SPLINES_DERIVS_LONG)
    if derivs.size < 1:
        fail(SPLINES_DERIVS_EMPTY)
    derivs = np.trunc(derivs.astype(np.float64)).astype(np.int64)
    order = int(_as_number(ord, "ord"))  # as.integer() truncates
    if order > nk or order < 1:
        fail(SPLINES_ORD)
    if not outer_ok and nk < 2 * order - 1:
        fail(SPLINES_NEED_KNOTS.format(count=2 * order - 1))
    degree = order - 1
    lo_k, hi_k = knots[order - 1], knots[nk - degree - 1]
    with np.errstate(invalid="ignore"):
        outside = (x < lo_k) | (hi_k < x)
    if np.isnan(x).any() and not outside.any():
        fail(NA_CONDITION)
    need_outer = bool(outside.any())
    x_out = False
    in_x = np.ones(nx, dtype=bool)
    xs = x
    if need_outer:
        if not outer_ok:
            fail(SPLINES_RANGE.format(lower=lo_k, upper=hi_k))
        in_x = (knots[0] <= x) & (x <= knots[nk - 1])
        x_out = not bool(in_x.all())
        if x_out and in_x[~np.isnan(x)].all():
            fail(NA_CONDITION)  # all(in.x) is NA
        if x_out:
            # x[in.x] keeps a missing x (NA index): its row stays zero, as in R
            in_x = in_x | np.isnan(x)
            xs = x[in_x]
        dkn = np.diff(knots)[::-1]
        pos = np.flatnonzero(dkn > 0)
        if pos.size == 0:
            fail(NA_CONDITION)
        extra = max(0, order - (int(pos[0]) + 1))
        knots = np.concatenate([np.repeat(knots[0], degree), knots, np.repeat(knots[-1], extra)])
    val, offsets = _spline_basis(knots, order, xs, derivs)
    ncoef = nk - order
    rows = np.flatnonzero(in_x) if (need_outer and x_out) else np.arange(nx)
    design = np.zeros((nx, ncoef))
    cols = offsets[:, None] + np.arange(order)[None, :]
    if need_outer:
        cols = cols - degree
        ok = (cols >= 0) & (cols < ncoef)
    else:
        ok = np.ones(cols.shape, dtype=bool)
    rr = np.repeat(rows[:, None], order, axis=1)
    design[rr[ok], cols[ok]] = val[ok]
    return design


# --------------------------------------------------------------------------------------
# bs / ns
# --------------------------------------------------------------------------------------


class SplineBasis(RObject):
    """A B-spline (``bs``) or natural cubic spline (``ns``) basis as R returns it.

    R's value is a matrix whose attributes are ``degree``, ``knots``, ``Boundary.knots`` and
    ``intercept`` (after ``dim`` and ``dimnames``): those are the R names here, in that order
    (``b["Boundary.knots"]`` is R's ``attr(b, "Boundary.knots")``, ``b.names()``; see
    :class:`calstats._robject.RObject`); ``matrix`` and ``kind`` are not R fields.

    Attributes
    ----------
    matrix : ndarray (n, ncol)
        The basis (R's matrix; NaN rows where ``x`` was missing).
    knots : ndarray
        Interior knots (R's ``attr(, "knots")``).
    boundary_knots : ndarray (2,)
        R's ``attr(, "Boundary.knots")``.
    degree : int
        3 for ``ns``.
    intercept : bool
    kind : str
        ``"bs"`` or ``"ns"``.
    """

    _r_fields = ("degree", "knots", "Boundary.knots", "intercept")
    _aliases = {"Boundary.knots": "boundary_knots"}
    _extras: tuple[str, ...] = ("matrix", "kind")
    # set by the constructor (declared for type checkers)
    degree: int
    knots: np.ndarray
    boundary_knots: np.ndarray
    intercept: bool
    matrix: np.ndarray
    kind: str

    @property
    def r_class(self):
        return [self.kind, "basis", "matrix"]

    def __repr__(self):
        return (f"SplineBasis(kind={self.kind!r}, shape={self.matrix.shape}, "
                f"knots={self.knots.tolist()}, boundary_knots={self.boundary_knots.tolist()}, "
                f"degree={self.degree}, intercept={self.intercept})")

    def predict(self, newx) -> np.ndarray:
        """R's ``predict(<bs|ns>, newx)``: the basis at ``newx`` with the same knots.

        Beyond the boundary knots ``ns`` continues linearly and ``bs`` uses R's cubic
        continuation (with R's warning), as ``predict.ns``/``predict.bs`` do by calling
        ``ns``/``bs`` with the stored knots.
        """
        if self.kind == "ns":
            return ns(newx, knots=self.knots, boundary_knots=self.boundary_knots,
                      intercept=self.intercept).matrix
        return bs(newx, knots=self.knots, degree=self.degree,
                  boundary_knots=self.boundary_knots, intercept=self.intercept).matrix


def _prepare(x, boundary_knots):
    x_all = _as_double(x)
    nax = np.isnan(x_all)
    xv = x_all[~nax]
    if boundary_knots is not None:
        bk = _as_double(boundary_knots, "Boundary.knots")
        bk = np.sort(bk[~np.isnan(bk)])
        if bk.size != 2:
            fail(SPLINES_BOUNDARY)
        ol = xv < bk[0]
        or_ = xv > bk[1]
    else:
        bk = None
        ol = or_ = np.zeros(xv.size, dtype=bool)
    return nax, xv, bk, ol, or_


def _range(xv):
    """``range(x)`` of the non-missing x (R warns and returns ``c(Inf, -Inf)`` when empty)."""
    if xv.size == 0:
        warn(MIN_EMPTY)
        warn(MAX_EMPTY)
        return np.array([np.inf, -np.inf])
    return np.array([xv.min(), xv.max()])


def _assign_rows(basis, mask, value):
    """R's ``basis[mask, ] <- value``: column-major recycling, R's error when it does not fit."""
    n = int(mask.sum()) * basis.shape[1]
    if n == 0:
        return
    if value.size == 0 or n % value.size:
        fail(REPLACEMENT_LENGTH)
    basis[mask] = np.resize(value.ravel(order="F"), n).reshape((int(mask.sum()), basis.shape[1]),
                                                                order="F")


def _knots_from_df(xv, outside, n_iknots):
    if n_iknots > 0:
        return _quantile7(xv[~outside], _seq_probs(n_iknots))
    return None


def _fill_na(nax, basis):
    if not nax.any():
        return basis
    out = np.full((nax.size, basis.shape[1]), np.nan)
    out[~nax] = basis
    return out


def _as_knots(knots):
    if knots is None:
        return None
    k = _as_double(knots, "knots")
    return k


@np.errstate(all="ignore")  # IEEE arithmetic as in C: inf/nan quietly
def bs(x, df=None, knots=None, degree=3, boundary_knots=None, intercept=False) -> SplineBasis:
    """B-spline basis for a polynomial spline: R's ``splines::bs``.

    Parameters
    ----------
    x : array_like
        Predictor (float32, pandas and missing values accepted; missing rows stay NaN).
    df : int, optional
        Degrees of freedom; chooses ``df - degree - 1 + intercept`` interior knots at
        quantiles of ``x`` (R's type 7). Ignored when ``knots`` is given.
    knots : array_like, optional
        Interior knots.
    degree : int, default 3
    boundary_knots : array_like of 2, optional
        Default ``range(x)``; given boundary knots make R's outside continuation apply to
        ``x`` beyond them (with R's warning).
    intercept : bool, default False

    Returns
    -------
    SplineBasis
        ``kind == "bs"``; ``predict(newx)`` is R's ``predict.bs``.
    """
    degree = int(_as_number(degree, "degree"))  # as.integer() truncates
    order = 1 + degree
    if order <= 1:
        fail(SPLINES_DEGREE)
    intercept = bool(intercept)
    nax, xv, bk, ol, or_ = _prepare(x, boundary_knots)
    outside = ol | or_
    knots = _as_knots(knots)
    if df is not None and knots is None:
        n_iknots = _as_number(df, "df") - order + (1 - intercept)
        if n_iknots < 0:
            n_iknots = 0
            warn(SPLINES_DF_SMALL.format(df=order - (1 - intercept)))
        knots = _knots_from_df(xv, outside, n_iknots)
    if bk is None:
        bk = _range(xv)
    iknots = np.empty(0) if knots is None else knots
    aknots = np.sort(np.concatenate([np.repeat(bk, order), iknots[~np.isnan(iknots)]]))
    if outside.any():
        warn(SPLINES_BEYOND)
        derivs = np.arange(order)
        scalef = np.array([math.gamma(k) for k in range(1, order + 1)])
        basis = np.zeros((xv.size, aknots.size - degree - 1))
        e = 1 / 4
        for mask, kp in ((ol, (1 - e) * bk[0] + e * aknots[order]),
                         (or_, (1 - e) * bk[1] + e * aknots[aknots.size - order - 1])):
            if mask.any():
                d = xv[mask] - kp
                xl = np.column_stack([np.ones(d.size)] + [_r_pow_int(d, k)
                                                          for k in range(1, degree + 1)])
                tt = spline_design(aknots, np.repeat(kp, order), order, derivs)
                basis[mask] = matmul(xl, tt / scalef[:, None])
        inside = ~outside
        if inside.any():
            basis[inside] = spline_design(aknots, xv[inside], order)
    else:
        basis = spline_design(aknots, xv, order)
    if not intercept:
        basis = basis[:, 1:]
    return SplineBasis(degree=degree, knots=iknots.copy(), boundary_knots=bk.copy(), intercept=intercept,
                       matrix=_fill_na(nax, basis), kind="bs")


@np.errstate(all="ignore")  # IEEE arithmetic as in C: inf/nan quietly
def ns(x, df=None, knots=None, boundary_knots=None, intercept=False) -> SplineBasis:
    """Natural cubic spline basis: R's ``splines::ns``.

    Parameters
    ----------
    x : array_like
        Predictor (float32, pandas and missing values accepted; missing rows stay NaN).
    df : int, optional
        Degrees of freedom; chooses ``df - 1 - intercept`` interior knots at quantiles of
        ``x`` (R's type 7). Ignored when ``knots`` is given.
    knots : array_like, optional
        Interior knots.
    boundary_knots : array_like of 2, optional
        Default ``range(x)`` (for a single ``x``, R's ``x * c(7, 9)/8``); beyond them the
        basis continues linearly.
    intercept : bool, default False

    Returns
    -------
    SplineBasis
        ``kind == "ns"``, ``degree == 3``; ``predict(newx)`` is R's ``predict.ns``.
    """
    intercept = bool(intercept)
    nax, xv, bk, ol, or_ = _prepare(x, boundary_knots)
    outside = ol | or_
    if bk is None and xv.size == 1:
        bk = xv[0] * np.array([7.0, 9.0]) / 8.0
    knots = _as_knots(knots)
    if df is not None and knots is None:
        n_iknots = _as_number(df, "df") - 1 - intercept
        if n_iknots < 0:
            n_iknots = 0
            warn(SPLINES_DF_SMALL.format(df=1 + intercept))
        knots = _knots_from_df(xv, outside, n_iknots)
    else:
        n_iknots = 0 if knots is None else knots.size
    if bk is None:
        bk = _range(xv)
    iknots = np.empty(0) if knots is None else knots
    aknots = np.sort(np.concatenate([np.repeat(bk, 4), iknots[~np.isnan(iknots)]]))
    if outside.any():
        # R sizes the array from the knot count, NA knots included (array() truncates)
        basis = np.zeros((xv.size, int(n_iknots + 4)))
        for mask, kp in ((ol, bk[0]), (or_, bk[1])):
            if mask.any():
                xl = np.column_stack([np.ones(int(mask.sum())), xv[mask] - kp])
                tt = spline_design(aknots, np.repeat(kp, 2), 4, np.array([0, 1]))
                _assign_rows(basis, mask, matmul(xl, tt))
        inside = ~outside
        if inside.any():
            _assign_rows(basis, inside, spline_design(aknots, xv[inside], 4))
    else:
        basis = spline_design(aknots, xv, 4)
    const = spline_design(aknots, bk, 4, np.array([2, 2]))
    if not intercept:
        const = const[:, 1:]
        basis = basis[:, 1:]
    if not np.isfinite(const).all():  # .Fortran(dqrdc2) refuses non-finite input
        fail(FOREIGN_NONFINITE.format(arg=1))
    if const.shape[1] != basis.shape[1]:
        fail(SPLINES_QR_ROWS)
    if not np.isfinite(basis).all():
        fail(FOREIGN_NONFINITE.format(arg=5))
    basis = _qr_qty(const.T, basis.T).T[:, 2:]
    return SplineBasis(degree=3, knots=iknots.copy(), boundary_knots=bk.copy(), intercept=intercept,
                       matrix=_fill_na(nax, basis), kind="ns")


def _qr_qty(a, y):
    """``qr.qty(qr(a), y)`` with R's default LINPACK ``qr`` (``dqrdc2``, tol 1e-7)."""
    qr, rank, qraux, _ = dqrdc2(a, _QR_TOL)
    return qr_qty(qr, qraux, rank, y)

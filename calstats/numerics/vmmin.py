"""R's ``optim(method = "BFGS")``: J. C. Nash's variable-metric routine ``vmmin``.

Why our own: ``scipy.optimize.minimize(method="BFGS")`` uses a different line search
(Wolfe conditions), start matrix and stopping rule, and stops elsewhere. R's routine stops
when the objective's relative decrease falls below ``reltol``, well before the gradient is
small, so where it stops *is* the answer R users see (on separable data, a difference in the
last bit moves the parameters by 1e-2 relative). This port follows R's C code (``vmmin`` in
``src/appl/optim.c``) statement by statement. The loops over the inverse-Hessian approximation
are vectorised, but every accumulation keeps vmmin's sequential order:

* ``t_i = -sum_j B[i, j] g_j`` and ``X_i = sum_j B[i, j] c_j`` accumulate over j in index
  order. With the full symmetric matrix ``S`` held in C order, the products
  ``S[j, i] * g[j]`` reduced down axis 0 add the terms for j = 0, 1, ... one after another
  (:mod:`.reductions`); negating a sum equals subtracting term by term under round-to-nearest.
* vmmin updates the lower triangle with ``(D2*t_i*t_j - X_i*t_j - t_i*X_j) / D1``. For an
  upper entry (r, c) we need the value of its mirror (c, r); because products commute,
  ``X_c*t_r == t_r*X_c`` bit for bit, so the mirror value is ``((D2*t_c)*t_r - C) - B`` with
  ``B = X_r*t_c``-style outer products evaluated directly -- no transposed copy -- and ``S``
  stays exactly symmetric and equal to vmmin's lower triangle.
"""

import math

import numpy as np

from .._errors import fail
from .._messages import OPTIM_GRADIENT_LENGTH, OPTIM_INITIAL, OPTIM_NONFINITE
from .reductions import _seq_sum_axis0

__all__ = ["vmmin", "VmminResult"]

_STEPREDN = 0.2
_ACCTOL = 0.0001
_RELTEST = 10.0
_SQRT_EPS = 1.4901161193847656e-08  # R's default reltol, sqrt(.Machine$double.eps)


class VmminResult:
    """What ``optim`` returns for BFGS: ``par``, ``value``, ``counts``, ``convergence``."""

    __slots__ = ("par", "value", "counts", "convergence", "iterations")

    def __init__(self, par, value, counts, convergence, iterations):
        self.par = par
        self.value = value
        self.counts = counts
        self.convergence = convergence
        self.iterations = iterations

    def __repr__(self):
        return (
            f"VmminResult(value={self.value!r}, counts={self.counts}, "
            f"convergence={self.convergence}, iterations={self.iterations})"
        )


#: Work on the p x p matrix in column/row blocks of about this many elements, so the
#: temporaries stay small (K = 100 classes means p = 10 100 and an 816 MB matrix).
BLOCK_ELEMS = 1 << 20


def _seq_rowdot(S, v):
    """``[sum_j S[i, j] * v[j] for i]`` accumulated in j order (S symmetric, C order).

    By symmetry this is the sum down column i of ``S[j, i] * v[j]``: an axis-0 reduction,
    sequential in j, done in column blocks.
    """
    n = v.size
    step = max(1, BLOCK_ELEMS // max(n, 1))
    if step >= n:
        return _seq_sum_axis0(S * v[:, None])
    out = np.empty(n)
    for c0 in range(0, n, step):
        c1 = min(n, c0 + step)
        out[c0:c1] = _seq_sum_axis0(S[:, c0:c1] * v[:, None])
    return out


def _seq_dot(a, b):
    return float(np.cumsum(a * b)[-1])


def vmmin(fn, gr, par, maxit=500, abstol=-math.inf, reltol=_SQRT_EPS):
    """Minimise ``fn`` from ``par`` as R's ``optim(par, fn, gr, method = "BFGS")``.

    Parameters
    ----------
    fn : callable
        Objective, ``fn(par) -> float``.
    gr : callable
        Gradient, ``gr(par) -> ndarray``. It is only ever called at the point of the last
        ``fn`` call, so objectives may share work between the two.
    par : array_like
        Starting values (not modified).
    maxit, abstol, reltol
        ``optim``'s controls; probcal uses ``maxit = 500`` and the defaults otherwise.

    Returns
    -------
    VmminResult
        ``par`` (the last point vmmin held: when the line search ends because no step changes the
        parameters, its last trial point, which may differ from the accepted one below the
        resolution of that test), ``value`` (its ``Fmin``), ``counts = (function, gradient)``,
        ``convergence`` (0, or 1 when ``maxit`` iterations were reached) and ``iterations``.
    """
    b = np.array(par, dtype=np.float64)
    n = b.size
    if not np.all(np.isfinite(b)):
        fail(OPTIM_NONFINITE)
    f = float(fn(b.copy()))
    if not math.isfinite(f):
        fail(OPTIM_INITIAL)
    fmin = f
    funcount = gradcount = 1
    g = _gradient(gr, b, n)
    iteration = 1
    ilast = gradcount
    S = None
    count = 0

    while True:
        if ilast == gradcount:
            S = np.eye(n)
        X = b.copy()
        c = g.copy()
        t = -_seq_rowdot(S, g)
        gradproj = _seq_dot(t, g)

        if gradproj < 0.0:
            steplength = 1.0
            accpoint = False
            while True:
                b = X + steplength * t
                count = int(np.count_nonzero(_RELTEST + X == _RELTEST + b))
                if count < n:
                    _check_finite(b)
                    f = float(fn(b.copy()))
                    funcount += 1
                    accpoint = math.isfinite(f) and f <= fmin + gradproj * steplength * _ACCTOL
                    if not accpoint:
                        steplength *= _STEPREDN
                if count == n or accpoint:
                    break
            enough = f > abstol and abs(f - fmin) > reltol * (abs(fmin) + reltol)
            if not enough:
                count = n
                fmin = f
            if count < n:
                fmin = f
                g = _gradient(gr, b, n)
                gradcount += 1
                iteration += 1
                t = steplength * t
                c = g - c
                D1 = _seq_dot(t, c)
                if D1 > 0:
                    X = _seq_rowdot(S, c)
                    D2 = 1.0 + _seq_dot(X, c) / D1
                    _rank_two_update(S, D2, t, X, D1)
                else:
                    ilast = gradcount
            else:
                if ilast < gradcount:
                    count = 0
                    ilast = gradcount
        else:
            count = 0
            if ilast == gradcount:
                count = n
            else:
                ilast = gradcount
        if iteration >= maxit:
            break
        if gradcount - ilast > 2 * n:
            ilast = gradcount
        if not (count != n or ilast != gradcount):
            break

    convergence = 0 if iteration < maxit else 1
    return VmminResult(b, fmin, (funcount, gradcount), convergence, iteration)


def _rank_two_update(S, D2, t, X, D1, rows=64):
    """Add vmmin's BFGS update to the symmetric ``S`` in place, in blocks of ``rows`` rows.

    Lower entries (j <= i) get ``((D2*t_i)*t_j - X_i*t_j) - t_i*X_j``, upper entries the
    value of their mirror (see the module docstring), each divided by ``D1``. Within a row
    block only the columns left of the block's diagonal need the lower formula and only
    those right of it the mirror formula, which halves the work.
    """
    n = t.size
    d2t = D2 * t
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        tr, xr, d2tr = t[r0:r1, None], X[r0:r1, None], d2t[r0:r1, None]
        # columns [0, r1): lower formula (the block's own upper corner is fixed below)
        low = d2tr * t[:r1]
        low -= xr * t[:r1]
        low -= tr * X[:r1]
        # columns [r0, n): mirror formula
        up = tr * d2t[r0:]
        up -= tr * X[r0:]
        up -= xr * t[r0:]
        corner = np.triu(np.ones((r1 - r0, r1 - r0), dtype=bool), 1)
        np.copyto(low[:, r0:r1], up[:, : r1 - r0], where=corner)
        low /= D1
        up /= D1
        S[r0:r1, :r1] += low
        S[r0:r1, r1:] += up[:, r1 - r0 :]


def _check_finite(b):
    if not np.all(np.isfinite(b)):
        fail(OPTIM_NONFINITE)


def _gradient(gr, b, n):
    g = np.asarray(gr(b.copy()), dtype=np.float64).ravel()
    if g.size != n:
        fail(OPTIM_GRADIENT_LENGTH.format(length=g.size, n=n))
    return g

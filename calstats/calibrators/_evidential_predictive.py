"""Computations behind :func:`calstats.cal_evidential`: theta, its level sets, the predictive plausibilities.

Xu, Davoine & Denoeux (2015), "Evidential multinomial logistic regression for multiclass
classifier calibration": the one-parameter model ``g(s, theta) = softmax(theta * s)``
(eqs. 19-21), its negative log-likelihood (eq. 24 with the targets of eq. 25), the
relative-likelihood contour function ``pl(theta)`` (eq. 26), its level sets (eq. 27,
Algorithm 1) and the predictive contour function ``pl_s(j)`` (eqs. 28-34), computed
exactly (Algorithm E: ``pl_s(j)`` is the integral over gamma of ``max G_j - min G_{j-1}`` over the
level set, by deterministic quadrature) or by Monte Carlo (Algorithm M, the paper's) or quasi-Monte
Carlo (Algorithm Q, scrambled Sobol points).

None of this exists in R's probcal, so the arithmetic is not required to be R's bit for
bit; ``exp``/``log`` of the likelihood still go through :mod:`calstats.numerics.libm`
(the bulk exponentials of the predictive quadrature use NumPy's faster ``exp``). Everything is
vectorised over values of theta (the level-set solvers run on whole grids of gamma at once)
and over test rows.
"""

import math

import numpy as np

from ..numerics import libm

__all__ = ["Likelihood", "level_sets", "node_grid", "pl_exact", "pl_sampled"]

#: z_max of the node grid: gamma_N = exp(-z_max^2 / 2) = 1e-12.
Z_MAX = math.sqrt(2.0 * math.log(1e12))
#: Smallest gamma of a Monte Carlo draw.
GAMMA_MIN = 1e-12
#: Elements per vectorised block (theta values x rows x classes).
_BLOCK = 1 << 21


class Likelihood:
    """ell(theta) = sum_i [LSE(theta s_i) - theta sum_k t_ik s_ik] and its derivatives.

    Parameters
    ----------
    S : ndarray (n, K)
        Scores.
    T : ndarray (n, K)
        Targets (rows sum to one): hard one-hot or the smoothed targets of eq. 25.
    """

    def __init__(self, S, T):
        S = np.asarray(S, dtype=np.float64)
        self.n, self.k = S.shape
        self.mx = S.max(axis=1)
        #: shifted scores, class-major (K, n): D = s - max(s) <= 0, so theta * D never overflows
        self.Dt = np.ascontiguousarray((S - self.mx[:, None]).T)
        self.ts = (np.asarray(T, dtype=np.float64) * S).sum(axis=1)
        self.tsd = self.ts - self.mx
        #: ell(0) (= n log K for any targets whose rows sum to one), evaluated as ell itself is
        self.ell0 = float(self.evaluate([0.0])[0])

    def evaluate(self, theta, order=0):
        """ell (order 0), (ell, ell') (order 1) or (ell, ell', ell'') at each theta (1-D)."""
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        m = theta.size
        out = [np.empty(m) for _ in range(order + 1)]
        Dt = self.Dt
        step = max(1, _BLOCK // max(1, Dt.size))
        for lo in range(0, m, step):
            th = theta[lo:lo + step, None]
            E = libm.exp(th[:, :, None] * Dt[None])
            se = E.sum(axis=1)
            # LSE(theta s_i) - theta t_i.s_i = log(se) - theta (t_i.s_i - max s_i)
            out[0][lo:lo + step] = (libm.log(se) - th * self.tsd[None]).sum(axis=1)
            if order >= 1:
                mean = (E * Dt[None]).sum(axis=1) / se
                out[1][lo:lo + step] = (mean - self.tsd[None]).sum(axis=1)
                if order >= 2:
                    dev = Dt[None] - mean[:, None, :]
                    out[2][lo:lo + step] = ((E * dev * dev).sum(axis=1) / se).sum(axis=1)
        return out[0] if order == 0 else tuple(out)

    def ell(self, theta):
        return float(self.evaluate([theta])[0])

    def d1(self, theta):
        return float(self.evaluate([theta], order=1)[1][0])

    def d2(self, theta):
        return float(self.evaluate([theta], order=2)[2][0])


# --------------------------------------------------------------------------------------
# level sets Gamma(gamma) = [a(gamma), b(gamma)] (eq. 27)


def _newton_monotone(lik, x, target, ell_hat, active, lower, upper, maxit=100):
    """Newton on f(x) = ell(x) - ell_hat - target, convex in x, from points on the outer side
    of the root (f(x) > 0): the iterates move monotonically towards the root and never
    cross it in exact arithmetic. Returns (roots, converged mask)."""
    x = x.copy()
    done = ~active
    conv = np.ones(x.size, dtype=bool)
    for _ in range(maxit):
        idx = np.flatnonzero(~done)
        if idx.size == 0:
            break
        ell, d1 = lik.evaluate(x[idx], order=1)
        f = ell - ell_hat - target[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(d1 != 0, f / d1, 0.0)
        new = np.clip(x[idx] - step, lower[idx], upper[idx])
        small = np.abs(new - x[idx]) <= 1e-12 + 4.0 * np.finfo(float).eps * np.abs(new)
        x[idx] = new
        done[idx[small | ~np.isfinite(new)]] = True
    conv[~done] = False
    return x, conv


def _roots(lik, theta_hat, ell_hat, gam):
    """a(gamma), b(gamma) by monotone Newton (the default ``level_method="root"``)."""
    gam = np.asarray(gam, dtype=np.float64)
    c = -libm.log(gam)
    m = gam.size
    a = np.full(m, theta_hat)
    b = np.full(m, theta_hat)
    conv = np.ones(m, dtype=bool)
    pos = c > 0
    if not pos.any():
        return a, b, conv
    d2 = lik.d2(theta_hat)  # > 0: some row of the scores varies
    d = np.sqrt(2.0 * c / max(d2, 1e-300))
    big = np.inf
    # upper end: a start with f > 0 (right of the root), widened by doubling
    mult = np.full(m, 1.5)
    xb = theta_hat + mult * d
    need = np.flatnonzero(pos)
    for _ in range(2000):
        need = need[lik.evaluate(xb[need]) - ell_hat - c[need] <= 0]
        if need.size == 0:
            break
        mult[need] *= 2.0
        xb[need] = theta_hat + mult[need] * d[need]
    b, cb = _newton_monotone(lik, xb, c, ell_hat, pos, np.full(m, theta_hat), np.full(m, big))
    b[~pos] = theta_hat
    # lower end: 0 where pl(0) >= gamma, else a start with f > 0 left of the root
    has_a = pos & (lik.ell0 - ell_hat > c)
    a = np.where(pos, 0.0, theta_hat)
    ca = np.ones(m, dtype=bool)
    if has_a.any():
        mult = np.full(m, 1.5)
        xa = np.maximum(0.0, theta_hat - mult * d)
        need = np.flatnonzero(has_a)
        for _ in range(2000):
            need = need[xa[need] > 0]
            need = need[lik.evaluate(xa[need]) - ell_hat - c[need] <= 0]
            if need.size == 0:
                break
            mult[need] *= 2.0
            xa[need] = np.maximum(0.0, theta_hat - mult[need] * d[need])
        ra, ca = _newton_monotone(lik, xa, c, ell_hat, has_a, np.zeros(m), np.full(m, theta_hat))
        a[has_a] = ra[has_a]
    conv &= cb & ca
    return a, b, conv


def _halve(pl, gam, lo, hi, act, eps, rising):
    """Halve the brackets ``[lo, hi]`` (in place; ``act`` marks the unfinished ones) until
    ``|pl(c) - gamma| <= eps / 2`` or 200 halvings. ``rising``: pl increases with theta on
    the bracket (the lower end of a level set), so ``pl(c) > gamma`` moves ``hi``."""
    cc = (lo + hi) / 2
    for _ in range(200):
        idx = np.flatnonzero(act)
        if idx.size == 0:
            break
        p = pl(cc[idx])
        ok = np.abs(p - gam[idx]) <= eps / 2
        act[idx[ok]] = False
        above = idx[~ok & (p > gam[idx])]
        below = idx[~ok & ~(p > gam[idx])]
        (hi if rising else lo)[above] = cc[above]
        (lo if rising else hi)[below] = cc[below]
        cc[idx[~ok]] = (lo[idx[~ok]] + hi[idx[~ok]]) / 2
    return cc


def _bisection(lik, theta_hat, ell_hat, gam, eps):
    """The paper's Algorithm 1, vectorised, with two fixes: the lower end is 0 when ``pl(0) >= gamma``
    (the paper's loop never ends there) and the upper search starts at ``max(2 * theta_hat, 1)``
    (the paper's ``2 * theta_hat`` stays 0 when ``theta_hat = 0``).

    Stops when ``|pl(c) - gamma| <= eps / 2`` or after 200 halvings."""
    gam = np.asarray(gam, dtype=np.float64)
    m = gam.size
    conv = np.ones(m, dtype=bool)

    def pl(x):
        return libm.exp(ell_hat - lik.evaluate(x))

    one = gam >= 1.0
    # lower end
    pl0 = math.exp(ell_hat - lik.ell0)
    a = np.where(one, theta_hat, 0.0)
    act = ~one & (pl0 < gam)
    cc = _halve(pl, gam, np.zeros(m), np.full(m, theta_hat), act, eps, rising=True)
    conv[act] = False
    sel = ~one & (pl0 < gam)
    a[sel] = cc[sel]
    # upper end
    b = np.full(m, theta_hat)
    act = ~one
    lo = np.full(m, theta_hat)
    hi = np.full(m, max(2.0 * theta_hat, 1.0))
    for _ in range(2000):
        idx = np.flatnonzero(act)
        grow = idx[pl(hi[idx]) > gam[idx]] if idx.size else idx
        if grow.size == 0:
            break
        hi[grow] *= 2.0
    cc = _halve(pl, gam, lo, hi, act, eps, rising=False)
    conv[act] = False
    b[~one] = cc[~one]
    return a, b, conv


def level_sets(lik, theta_hat, ell_hat, gam, method="root", tol=1e-5):
    """Gamma(gamma) = [a, b] for every gamma of a 1-D array; returns (a, b, converged)."""
    gam = np.atleast_1d(np.asarray(gam, dtype=np.float64))
    if method == "bisection":
        return _bisection(lik, theta_hat, ell_hat, gam, tol)
    return _roots(lik, theta_hat, ell_hat, gam)


# --------------------------------------------------------------------------------------
# predictive contour function pl_s(j) (eqs. 28-34)


def node_grid(lik, theta_hat, ell_hat, n_panels):
    """Algorithm E's node grid: gamma nodes ``exp(-z_i^2 / 2)`` (decreasing from 1 to 1e-12) and their
    level sets."""
    z = np.arange(n_panels + 1, dtype=np.float64) * (Z_MAX / n_panels)
    gam = libm.exp(-z * z / 2.0)
    gam[0] = 1.0
    a, b, conv = level_sets(lik, theta_hat, ell_hat, gam, "root")
    a[0] = b[0] = theta_hat
    return gam, a, b, bool(conv.all())


def _trapezoid_weights(gam):
    """Weights w with sum_i w_i f_i = sum_i (g_i - g_{i+1})(f_i + f_{i+1})/2 + g_N f_N."""
    d = gam[:-1] - gam[1:]
    w = np.zeros(gam.size)
    w[:-1] += d / 2
    w[1:] += d / 2
    w[-1] += gam[-1]
    return w


def _cumulative(E, normalise=True):
    """G_0..G_K along axis 1 of (N+1, K, r) exponentials (G_0 = 0, G_K = 1 exactly)."""
    G = np.zeros((E.shape[0], E.shape[1] + 1, E.shape[2]))
    for j in range(E.shape[1]):
        np.add(G[:, j], E[:, j], out=G[:, j + 1])
    if normalise:
        G[:, 1:-1] /= G[:, -1:]
    G[:, -1] = 1.0
    return G


def _node_exp(theta, Dt):
    """exp(theta_i (s - max s)) for every node i: (N+1, K, r); Dt is (K, r).

    NumPy's SIMD ``exp`` (not libm): the bulk of the predictive work, no R counterpart, and
    one-ulp differences are far below the quadrature error."""
    return np.exp(theta[:, None, None] * Dt[None])


def _node_extremes(Dt, a, b, upper):
    """Running extremes over the nodes, outward from theta_hat, for rows Dt (K, r) (scores
    minus their row maximum, class-major).

    Returns (hi, lo) of shape (N+1, K+1, r) for the cumulative sums G (``upper=False``;
    ``lo`` is the running minimum) or hi of shape (N+1, K, r) for the class probabilities
    (``upper=True``; ``lo`` is None)."""
    Ea, Eb = _node_exp(a, Dt), _node_exp(b, Dt)
    if upper:
        Ea /= Ea.sum(axis=1, keepdims=True)
        Eb /= Eb.sum(axis=1, keepdims=True)
        np.maximum(Ea, Eb, out=Ea)
        return np.maximum.accumulate(Ea, axis=0, out=Ea), None
    Ga, Gb = _cumulative(Ea), _cumulative(Eb)
    del Ea, Eb
    hi = np.maximum(Ga, Gb)
    np.minimum(Ga, Gb, out=Ga)
    np.maximum.accumulate(hi, axis=0, out=hi)
    np.minimum.accumulate(Ga, axis=0, out=Ga)
    return hi, Ga


def _shifted(X):
    return np.ascontiguousarray((X - X.max(axis=1, keepdims=True)).T)


def _chunks(nrows, per_row):
    step = max(1, _BLOCK // max(1, per_row))
    for lo in range(0, nrows, step):
        yield slice(lo, min(nrows, lo + step))


def pl_exact(X, gam, a, b, upper=False):
    """Algorithm E: pl_s(j) = int_0^1 [M_j(gamma) - m_{j-1}(gamma)] dgamma by trapezoidal
    quadrature on the node grid (``upper=True``: int max g_j dgamma)."""
    X = np.asarray(X, dtype=np.float64)
    r, K = X.shape
    w = _trapezoid_weights(gam)
    out = np.empty((r, K))
    for sl in _chunks(r, gam.size * (K + 1)):
        hi, lo = _node_extremes(_shifted(X[sl]), a, b, upper)
        if upper:
            out[sl] = np.einsum("ikr,i->rk", hi, w)
        else:
            out[sl] = np.einsum("ikr,i->rk", hi[:, 1:], w) - np.einsum("ikr,i->rk", lo[:, :-1], w)
    return out


def pl_sampled(X, gam, a, b, draws_gamma, draws_z, a_m, b_m, upper=False):
    """Algorithms M and Q: the share of draws (gamma_m, Z_m) with j in phi(g(s, Gamma), Z).

    The extremes over [a_m, b_m] are the running node extremes at the largest node index
    i with gamma_i >= gamma_m combined with the values at a_m and b_m themselves."""
    X = np.asarray(X, dtype=np.float64)
    r, K = X.shape
    M = draws_gamma.size
    idx = np.searchsorted(-gam, -draws_gamma, side="right") - 1
    idx = np.clip(idx, 0, gam.size - 1)
    out = np.empty((r, K))
    z = draws_z[:, None, None]
    for sl in _chunks(r, 3 * (gam.size + M) * (K + 1)):
        Dt = _shifted(X[sl])
        hi_n, lo_n = _node_extremes(Dt, a, b, upper)
        Ea, Eb = _node_exp(a_m, Dt), _node_exp(b_m, Dt)
        if upper:
            Ea /= Ea.sum(axis=1, keepdims=True)
            Eb /= Eb.sum(axis=1, keepdims=True)
            hi = np.maximum(hi_n[idx], np.maximum(Ea, Eb))
            out[sl] = (z < hi).mean(axis=0).T
        else:
            Ga, Gb = _cumulative(Ea), _cumulative(Eb)
            hi = np.maximum(hi_n[idx], np.maximum(Ga, Gb))
            lo = np.minimum(lo_n[idx], np.minimum(Ga, Gb))
            out[sl] = ((lo[:, :-1] <= z) & (z < hi[:, 1:])).mean(axis=0).T
    return out

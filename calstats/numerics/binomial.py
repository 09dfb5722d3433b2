"""R's ``binomial(link = "logit")`` family (R's ``family.c`` and ``binomial()$aic``), and
the passes of ``glm.fit``'s iterations over the observations.

The family functions are R's C code: ``logit_link``, ``logit_linkinv``, ``logit_mu_eta``
with ``THRESH = 30`` and ``DBL_EPSILON`` clamps, ``binomial_dev_resids``, and ``dbinom``'s
saddle-point code of R 4.2 for the AIC, with glibc's ``exp``/``log`` as R calls them
(:mod:`.libm`) and R's long-double sums (:mod:`.reductions`). ``glm.fit``, mgcv's PIRLS and
the Dask fits share them.

:class:`Irls` is the one door through which an IRLS iteration enters the arithmetic: it
decides once, when it is made, whether the passes run compiled (:mod:`.passes`) or as the
NumPy references below (the same bits), and each iteration then calls it without deciding
again.
"""

import numpy as np

from . import libm, linpack, passes
from .reductions import matmul, rsum

__all__ = ["linkfun", "linkinv", "mu_eta", "variance", "dev_resids", "bd0", "dbinom_log_size1", "Irls",
           "DBL_EPSILON"]

DBL_EPSILON = 2.220446049250313e-16
_THRESH = 30.0
_MTHRESH = -30.0
_INVEPS = 1.0 / DBL_EPSILON


def linkfun(mu):
    """``logit_link``: ``log(mu/(1 - mu))``."""
    return libm.log(mu / (1.0 - mu))


def linkinv(eta):
    """``logit_linkinv``: ``t/(1 + t)`` with ``t = exp(eta)`` clamped for |eta| > 30."""
    t = libm.exp(eta)
    t = np.where(eta < _MTHRESH, DBL_EPSILON, np.where(eta > _THRESH, _INVEPS, t))
    return t / (1.0 + t)


def mu_eta(eta):
    """``logit_mu_eta``: ``exp(eta)/((1 + exp(eta))^2)``, ``DBL_EPSILON`` for |eta| > 30."""
    e = libm.exp(eta)
    opexp = 1.0 + e
    with np.errstate(over="ignore", invalid="ignore"):
        val = e / (opexp * opexp)
    return np.where((eta > _THRESH) | (eta < _MTHRESH), DBL_EPSILON, val)


def variance(mu):
    return mu * (1.0 - mu)


def _ylogy(y, mu):
    with np.errstate(divide="ignore", invalid="ignore"):
        v = y * libm.log(y / mu)
    return np.where(y != 0.0, v, 0.0)


def dev_resids(y, mu, wt=None):
    """``binomial_dev_resids``: ``2*wt*(ylogy(y, mu) + ylogy(1-y, 1-mu))`` (R's C order;
    ``wt=None`` is prior weights 1)."""
    if wt is not None:
        return (2.0 * wt) * (_ylogy(y, mu) + _ylogy(1.0 - y, 1.0 - mu))
    return 2.0 * (_ylogy(y, mu) + _ylogy(1.0 - y, 1.0 - mu))


def bd0(x, np_):
    """R 4.2's ``bd0(x, np)`` (nmath/bd0.c), vectorised; ``x*log(x/np) + np - x`` with
    the Taylor series of the saddle-point expansion when ``|x - np| < 0.1(x + np)``."""
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), np.shape(np_)).copy()
    np_ = np.asarray(np_, dtype=np.float64)
    out = np.empty_like(np_)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.abs(x - np_) < 0.1 * (x + np_)
        far = ~near
        out[far] = x[far] * libm.log(x[far] / np_[far]) + np_[far] - x[far]
        if np.any(near):
            xs, ns = x[near], np_[near]
            v = (xs - ns) / (xs + ns)
            s = (xs - ns) * v
            res = s.copy()
            active = ~(np.abs(s) < np.finfo(np.float64).tiny)
            ej = 2.0 * xs * v
            v = v * v
            for j in range(1, 1000):
                if not active.any():
                    break
                ej = np.where(active, ej * v, ej)
                s1 = s + ej / ((j << 1) + 1)
                done = active & (s1 == s)
                res[done] = s1[done]
                s = np.where(active, s1, s)
                active = active & ~done
            res[active] = s[active]
            out[near] = res
    return out


def dbinom_log_size1(x, p):
    """``dbinom(x, 1, p, log = TRUE)`` for x in {0, 1} (R 4.2's ``dbinom_raw``)."""
    q = 1.0 - p
    zero = x == 0
    # x == 0: lc = p < 0.1 ? -bd0(n, n*q) - n*p : n*log(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p < 0.1, -bd0(1.0, q) - p, libm.log(q))
        # x == n: lc = q < 0.1 ? -bd0(n, n*p) - n*q : n*log(p)
        b = np.where(q < 0.1, -bd0(1.0, p) - q, libm.log(p))
    out = np.where(zero, a, b)
    out = np.where(p == 0.0, np.where(zero, 0.0, -np.inf), out)
    out = np.where(q == 0.0, np.where(zero, -np.inf, 0.0), out)
    return out


class Irls:
    """The passes of ``glm.fit`` over the observations for ``binomial(logit)``, compiled or
    NumPy, decided once (``backend``: ``"c"`` or ``"numpy"``; default :data:`passes.BACKEND`).

    Each iteration calls :meth:`step` (working response and weights, then ``Cdqrls``) and
    :meth:`update` (``eta``, ``mu`` and the deviance); :meth:`deviance` and :meth:`aic` are
    the start's and the end's sums.
    """

    __slots__ = ("compiled",)

    def __init__(self, backend=None):
        self.compiled = (passes.BACKEND if backend is None else backend) == "c"

    def deviance(self, y, mu, wt=None):
        """R's ``sum(dev.resids(y, mu, wt))`` (``wt=None``: prior weights 1)."""
        if self.compiled:
            return passes.glm_sum(0, y, mu, wt)
        return rsum(dev_resids(y, mu, wt))

    def aic(self, y, mu, rank):
        """``binomial()$aic(y, n = 1, mu, wt = 1, dev) + 2*rank``."""
        if self.compiled:
            return -2.0 * passes.glm_sum(1, y, mu) + 2.0 * rank
        x = np.round(y)  # round(m*y) with m = 1 (R rounds half to even, as NumPy)
        return -2.0 * rsum(dbinom_log_size1(x, mu)) + 2.0 * rank

    def working(self, eta, mu, ex, y, off, weights):
        """One iteration's ``(z, w, mu.eta)``: working response ``(eta - offset) + (y - mu)/mu.eta``
        and ``w = sqrt(weights mu.eta^2 / variance(mu))`` (``off``/``weights`` None: none, all 1;
        ``ex``: ``exp(eta)`` from :meth:`update`, or None)."""
        if self.compiled:
            return passes.glm_working(eta, mu, ex, y, off, weights)
        varmu = variance(mu)
        mu_eta_val = mu_eta(eta)
        z = ((eta - off) if off is not None else eta) + (y - mu) / mu_eta_val
        wt = np.ones(eta.size) if weights is None else weights
        w = np.sqrt((wt * (mu_eta_val * mu_eta_val)) / varmu)
        return z, w, mu_eta_val

    def qrls(self, X, w, z, tol):
        """R's ``Cdqrls(X * w, z * w, tol)``: ``(coef, rank, pivot, qr, qraux)``, one pass."""
        if self.compiled:
            return passes.glm_qrls(X, w, z, tol)
        return linpack.cdqrls(X * w[:, None], z * w, tol, reference=True)

    def update(self, X, beta, off, y, wt):
        """``(eta, mu, ex, dev)``: ``eta = X %*% beta (+ offset)`` in dgemv order, ``mu =
        linkinv(eta)``, ``exp(eta)`` for the next step (None from the reference) and the
        deviance."""
        if self.compiled:
            return passes.glm_update(X, beta, off, y, wt)
        eta = matmul(X, beta)
        if off is not None:
            eta = eta + off
        mu = linkinv(eta)
        return eta, mu, None, rsum(dev_resids(y, mu, wt))

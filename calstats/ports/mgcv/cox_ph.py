"""mgcv's ``gam(time ~ s(x), family = cox.ph(), weights = status)`` for one smooth.

pmcalibration fits time-to-event calibration curves with ``mgcv::gam(times ~ s(x, k = k,
fx = fx, bs = bs), family = mgcv::cox.ph(), weights = events, method = method)`` and reads
survival at a horizon with ``predict(fit, type = "response", newdata = data.frame(times =
t0, x = x), se.fit = TRUE)``. This module reproduces what that computes in mgcv 1.8-41:

* the smooth's basis, scaled penalty and sum-to-zero constraint (:mod:`.gam_basis`); the
  Cox family drops the intercept, so the model matrix is the smooth's columns alone;
* the log partial likelihood with Breslow's treatment of ties (mgcv's C ``coxlpl``): for
  each distinct time the events' linear predictors minus ``d log(sum over the risk set of
  exp(eta))``, the weights being the event indicator;
* the smoothing parameter: ``cox.ph`` is a "general family", for which ``estimate.gam``
  turns every ``method`` other than ``"REML"``/``"NCV"`` (so pmcalibration's default
  ``"GCV.Cp"`` too) into ``"REML"``. The criterion is the Laplace approximate REML score
  ``-l + b'S_l b/2 - log|S_l|_+/2 + log|H + S_l|/2 - M_p log(2 pi)/2`` of ``gam.fit5``
  with its exact first and second derivatives in ``log(sp)`` (implicit differentiation of
  the penalized maximiser, using the third and fourth derivatives of the partial likelihood
  along the direction of change), minimised by mgcv's outer Newton iteration replayed step
  for step (shared with :mod:`.gam`), from ``initial.spg``'s general-family start, which
  mgcv computes on the model matrix after ``Sl.initial.repara`` (penalty eigenvectors
  scaled by ``1/sqrt(eigenvalue)``) while reading the diagonal of the unreparameterised
  penalty;
* the posterior covariance ``Vp = (H + S_l)^{-1}`` and the Breslow baseline cumulative
  hazard with its variance pieces (C ``coxpp``), from which ``predict`` (C ``coxpred``)
  gives ``S(t | x) = exp(-H0(t) exp(eta))`` with standard error
  ``exp(eta) S sqrt(q(t) + v'Vp v)``, ``v = a(t) - x H0(t)``; times before the first
  observed time give ``S = 1``, ``se = 0``.

Each inner penalized Newton fit replays ``gam.fit5``'s: from the coefficients newton last
accepted (zeros at first), Newton steps on the diagonally scaled penalized Hessian capped at
a tenth of the coefficients' norm, step halving and mgcv's stop once the gradient is below
``1e-8 |penalized log likelihood|`` (``1e-7`` for ``fx = TRUE``). Measured distance to
mgcv on its fixtures: coefficients and ``Vp`` 2e-8, survival and its standard error 7e-9
(a fully converged inner fit was 5e-7 and 2e-7 away, 5e-6 with ``fx = TRUE``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ..._errors import fail
from ..._messages import (
    GAM_COX_DATA,
    GAM_COX_NEWDATA,
    GAM_COX_NOT_CONVERGED,
    GAM_COX_STATUS,
)
from ..._robject import RObject
from ...numerics import blas
from .gam import _newton, basis_dimension, check_smooth_args, coefficient_edf
from .smooth import SmoothBasis, smooth_basis

__all__ = ["gam_coxph", "GamCoxFit"]


_EPS = 2.220446049250313e-16
_INNER_MAXIT = 200  # gam.control's maxit; gam.fit5 loops to twice that
_INNER_EPS = 1e-8  # newton sets gam.control's epsilon to conv.tol / 100


def _as_vector(v, message):
    try:
        a = np.array(v, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        fail(message)
    if not np.all(np.isfinite(a)):
        fail(message)
    return a


class GamCoxFit(RObject):
    """The fields of mgcv's ``cox.ph`` ``gamObject`` that calstats computes, under R's
    names and in R's order (``fit["Vp"]``, ``fit.names()``; see
    :class:`calstats._robject.RObject`).

    Attributes
    ----------
    coefficients : ndarray
        The smooth's coefficients in mgcv's basis (no intercept: ``coef(fit)``).
    linear_predictors : ndarray
        ``fit$linear.predictors``, in the input order.
    sp : float or None
        ``fit$sp``; None when ``fx = True`` (R: ``numeric(0)``).
    score : float or None
        ``fit$gcv.ubre`` (``fit["gcv.ubre"]``), the REML score; None when ``fx = True``.
    method : str
        ``fit$method``: always ``"REML"`` (see the module docstring).
    vcov : ndarray
        ``fit$Vp`` (``fit["Vp"]``, ``vcov(fit)``): the Bayesian posterior covariance.
    edf : ndarray
        ``fit$edf``: the effective degrees of freedom of each coefficient, the diagonal of
        ``Vp H`` (``H`` the negative Hessian of the log partial likelihood).

    Not R fields: ``edf_total`` (``tr(Vp H)``, R's ``sum(fit$edf)`` up to rounding),
    ``iterations`` (``fit$outer.info$iter``; 0 when ``fx = True``), ``basis`` (the
    constructed smooth, ``fit$smooth[[1]]``) and ``baseline`` (``fit$family$data``: the
    Breslow baseline at the distinct times, descending, as ``coxpp`` returns it: ``tr``
    the times, ``h`` the cumulative hazard, ``q`` and ``a`` its variance pieces).
    """

    _r_fields = ("coefficients", "linear.predictors", "sp", "gcv.ubre", "method", "Vp", "edf")
    _aliases = {"gcv.ubre": "score", "Vp": "vcov"}
    _extras: tuple[str, ...] = ("edf_total", "iterations", "basis", "baseline")
    # set by the constructor (declared for type checkers)
    coefficients: np.ndarray
    linear_predictors: np.ndarray
    sp: float | None
    score: float | None
    method: str
    vcov: np.ndarray
    edf: np.ndarray
    edf_total: float
    iterations: int
    basis: SmoothBasis
    baseline: dict

    def __repr__(self):
        return (f"GamCoxFit(bs={self.basis.bs!r}, k={self.basis.k}, sp={self.sp!r}, "
                f"edf={self.edf_total!r})")

    def lpmatrix(self, xnew):
        """``predict.gam(fit, newdata, type = "lpmatrix")``."""
        return self.basis.matrix(_as_vector(xnew, GAM_COX_NEWDATA))

    def survival(self, t0, xnew, se_fit=False):
        """``predict(fit, type = "response", newdata = data.frame(times = t0, x = xnew),
        se.fit = se_fit)``: survival to ``t0`` given ``x`` (``coxpred``).

        ``t0`` is a scalar or a vector recycled against ``xnew`` as a data frame would be.
        Returns ``(surv, se)``; ``se`` is None unless ``se_fit``.
        """
        xv = _as_vector(xnew, GAM_COX_NEWDATA)
        tv = _as_vector(t0, GAM_COX_NEWDATA)
        n = max(xv.shape[0], tv.shape[0])
        if n == 0 or xv.shape[0] == 0 or tv.shape[0] == 0 \
                or n % xv.shape[0] or n % tv.shape[0]:
            fail(GAM_COX_NEWDATA)
        xv = np.resize(xv, n)
        tv = np.resize(tv, n)
        X = self.basis.matrix(xv)
        eta = X @ self.coefficients
        base = self.baseline
        # interval: the latest distinct time not after t0 (times are stored descending)
        idx = np.searchsorted(-base["tr"], -tv, side="left")
        inside = idx < base["tr"].shape[0]
        j = np.where(inside, idx, 0)
        hi = np.where(inside, base["h"][j], 0.0)
        e = np.exp(eta)
        s = np.where(inside, np.exp(-hi * e), 1.0)
        if not se_fit:
            return s, None
        v = base["a"][j] - X * hi[:, None]
        vv = np.sum((v @ self.vcov) * v, axis=1)
        se = np.where(inside, e * s * np.sqrt(base["q"][j] + vv), 0.0)
        return s, se


class _CoxData:
    """Rows in descending time order with the end of each distinct time's block."""

    def __init__(self, time, status, X):
        order = np.argsort(-time, kind="stable")
        self.order = order
        self.t = time[order]
        self.d = status[order]
        self.X = X[order]
        tr, first = np.unique(-self.t, return_index=True)
        self.tr = -tr  # descending distinct times
        self.ends = np.append(first[1:], self.t.shape[0]) - 1  # last row of each block
        self.block = np.repeat(np.arange(self.tr.shape[0]), np.diff(np.append(first, self.t.shape[0])))
        self.dr = np.bincount(self.block, weights=self.d, minlength=self.tr.shape[0])
        self.xd = self.d @ self.X  # sum of covariates over events
        self.XX = self.X[:, :, None] * self.X[:, None, :]

    def moments(self, w):
        """Risk-set sums of ``w``, ``w x`` and ``w x x'`` at each distinct time."""
        c0 = np.cumsum(w)[self.ends]
        c1 = np.cumsum(w[:, None] * self.X, axis=0)[self.ends]
        c2 = np.cumsum(w[:, None, None] * self.XX, axis=0)[self.ends]
        return c0, c1, c2


def _scaled(Hp):
    """``gam.fit5``'s diagonal scaling ``D^-1/2 Hp D^-1/2`` (``D = diag(Hp)``; a slightly
    negative diagonal raised to ``max(D) sqrt(eps)``, an indefinite one shifted)."""
    D = np.diag(Hp).copy()
    if np.min(D) <= 0:
        thresh = float(np.max(D)) * math.sqrt(_EPS)
        if -float(np.min(D)) < thresh:
            D[D < thresh] = thresh
        else:
            shift = abs(float(np.min(D))) + abs(float(np.max(D))) * math.sqrt(_EPS)
            return np.ones(D.shape[0]), Hp + shift * np.eye(D.shape[0])
    Dh = D ** -0.5
    return Dh, Dh[:, None] * Hp * Dh[None, :]


def _pivot_free_chol(Hs):
    """Cholesky factor of the scaled penalized Hessian; when it is not numerically positive
    definite ``sqrt(eps)`` times 1, 100, 10^4, ... is added to its diagonal, as
    ``gam.fit5`` does until its pivoted Cholesky has full rank."""
    add = math.sqrt(_EPS)
    eye = np.eye(Hs.shape[0])
    for _ in range(20):
        try:
            return cho_factor(Hs, lower=False)
        except np.linalg.LinAlgError:
            Hs = Hs + add * eye
            add *= 100
    fail(GAM_COX_NOT_CONVERGED)


def _loglik(cd, eta):
    gp = np.cumsum(np.exp(eta))[cd.ends]
    return float(cd.d @ eta) - float(cd.dr @ np.log(gp))


def _derivs(cd, eta):
    """Log partial likelihood, its gradient and the negative Hessian ``H``, plus the
    risk-set moments that the directional derivatives of ``H`` reuse."""
    g = np.exp(eta)
    s0, s1, s2 = cd.moments(g)
    ll = float(cd.d @ eta) - float(cd.dr @ np.log(s0))
    m = s1 / s0[:, None]
    grad = cd.xd - cd.dr @ m
    cov = s2 / s0[:, None, None] - m[:, :, None] * m[:, None, :]
    H = np.tensordot(cd.dr, cov, axes=1)
    return ll, grad, H, (g, s0, s1, s2, m)


def _dH(cd, mom, v, second=False):
    """Derivative of ``H`` along ``eta -> eta + t v`` at ``t = 0``; with ``second`` also the
    second derivative along the same direction."""
    g, s0, s1, s2, m = mom
    a0, a1, a2 = cd.moments(g * v)
    r0 = a0 / s0
    mp = a1 / s0[:, None] - m * r0[:, None]
    t2 = a2 / s0[:, None, None] - s2 / s0[:, None, None] * r0[:, None, None]
    d1 = t2 - (mp[:, :, None] * m[:, None, :] + m[:, :, None] * mp[:, None, :])
    D1 = np.tensordot(cd.dr, d1, axes=1)
    if not second:
        return D1
    b0, b1, b2 = cd.moments(g * v * v)
    q0 = b0 / s0
    mpp = b1 / s0[:, None] - 2 * a1 / s0[:, None] * r0[:, None] - m * q0[:, None] \
        + 2 * m * (r0 * r0)[:, None]
    t22 = (b2 - 2 * a2 * r0[:, None, None] - s2 * q0[:, None, None]
           + 2 * s2 * (r0 * r0)[:, None, None]) / s0[:, None, None]
    d2 = t22 - (mpp[:, :, None] * m[:, None, :] + 2 * mp[:, :, None] * mp[:, None, :]
                + m[:, :, None] * mpp[:, None, :])
    return D1, np.tensordot(cd.dr, d2, axes=1)


class _CoxProblem:
    """What mgcv's ``newton`` needs from ``gam.fit5``: the REML score and its derivatives."""

    def __init__(self, basis: SmoothBasis, cd: _CoxData):
        self.cd = cd
        p = cd.X.shape[1]
        self.p = p
        self.S = np.zeros((p, p)) if basis.S is None else basis.S
        self.rank = 0
        self.log_det_S = 0.0
        if basis.S is not None:
            ev = np.linalg.eigvalsh(basis.S)
            self.rank = p - basis.null_space_dim
            self.log_det_S = float(np.sum(np.log(np.sort(ev)[::-1][:self.rank])))
        self.Mp = p - self.rank
        self.beta = np.zeros(p)
        self.start = np.zeros(p)  # cox.ph's initialize: start <- rep(0, ncol(x))
        # gam.control's epsilon: 1e-7, which newton lowers to 1e-8 (no newton when fx = TRUE)
        self.eps = _INNER_EPS if self.rank else 1e-7

    def fit(self, sp):
        """``gam.fit5``'s penalized Newton iteration: from ``start`` (zeros, cox.ph's
        ``initialize``, then the coefficients newton last accepted), Newton steps on the
        diagonally scaled penalized Hessian capped at a tenth of the coefficients' norm,
        step halving, a steepest-ascent fallback, and mgcv's stop once the gradient is
        below ``1e-8 |penalized log likelihood|`` (newton's ``epsilon``; ``1e-7`` for
        ``fx = TRUE``, which mgcv fits without newton)."""
        cd, lS = self.cd, sp * self.S
        X = cd.X
        start = self.start
        coef = start.copy()
        ll, lb, H, mom = _derivs(cd, X @ coef)
        ll0 = ll - float(coef @ lS @ coef) / 2
        grad = lb - lS @ coef
        iconv = float(np.max(np.abs(grad))) < self.eps * abs(ll0)
        Hp = H + lS
        converged = False
        for it in range(1, 2 * _INNER_MAXIT + 1):
            Dh, Hs = _scaled(Hp)
            factor = _pivot_free_chol(Hs)
            if converged:
                break
            step = Dh * cho_solve(factor, Dh * grad)
            c_norm = float(np.sum(coef * coef))
            if c_norm > 0:
                s_norm = math.sqrt(float(np.sum(step * step)))
                c_norm = math.sqrt(c_norm)
                if s_norm > 0.1 * c_norm:
                    step = step * 0.1 * c_norm / s_norm
            s_norm = math.sqrt(float(np.sum(step * step)))
            coef1 = coef + step
            cur = _derivs(cd, X @ coef1)
            ll1 = cur[0] - float(coef1 @ lS @ coef1) / 2
            khalf, fac = 0, 2.0

            def halve(step, divisor, khalf, fac):
                step = step / divisor
                coef1 = coef + step
                eta1 = X @ coef1
                ll1 = _loglik(cd, eta1) - float(coef1 @ lS @ coef1) / 2
                cur = _derivs(cd, eta1) if math.isfinite(ll1) and ll1 >= ll0 else None
                if np.max(np.abs(coef - coef1)) < np.max(np.abs(coef)) * _EPS:
                    khalf = 100
                return step, ll1, cur, khalf + 1

            while (not math.isfinite(ll1) or ll1 <= ll0) and khalf < 25:
                step, ll1, new, khalf = halve(step, fac, khalf, fac)
                cur = new if new is not None else cur
                if khalf > 5:
                    fac = 5.0
            if not math.isfinite(ll1) or (ll1 <= ll0 and not iconv):
                step = grad * s_norm / math.sqrt(float(np.sum(grad * grad)))
                khalf = 0
                while (not math.isfinite(ll1) or (ll1 <= ll0 and not iconv)) and khalf < 25:
                    step, ll1, new, khalf = halve(step, 10.0, khalf, fac)
                    cur = new if new is not None else cur
            if (math.isfinite(ll1) and ll1 >= ll0 and khalf < 25) or it == _INNER_MAXIT:
                coef = coef + step
                ll, lb, H, mom = cur
                grad = lb - lS @ coef
                Hp = H + lS
                if it == _INNER_MAXIT or float(np.max(np.abs(grad))) < self.eps * abs(ll0):
                    converged = True
                else:
                    ll0 = ll1
            else:
                if iconv and it == 1:
                    coef = start.copy()
                    ll, lb, H, mom = _derivs(cd, X @ coef)
                break
        self.beta = coef
        return coef, X @ coef, ll, H, mom

    def accept(self, ev):
        """newton accepted the fit ``ev``: later fits start from its coefficients."""
        self.start = ev["beta"]

    def evaluate(self, rho, method, deriv=True):
        sp = math.exp(rho) if self.rank else 0.0
        beta, eta, ll, H, mom = self.fit(sp)
        lS = sp * self.S
        Hp = H + lS
        A = np.linalg.inv(Hp)
        A = (A + A.T) / 2
        bsb = float(beta @ lS @ beta)
        _, log_det_hp = np.linalg.slogdet(Hp)
        log_det_s = self.rank * rho + self.log_det_S if self.rank else 0.0
        score = -ll + bsb / 2 - log_det_s / 2 + log_det_hp / 2 \
            - self.Mp / 2 * math.log(2 * math.pi)
        out = dict(beta=beta, eta=eta, vp=A, edf=float(np.sum(A * H)), score=score,
                   scale_est=1.0, sp=sp, H=H)
        if deriv and self.rank:
            X = self.cd.X
            Sb = lS @ beta
            b1 = -A @ Sb
            e1 = X @ b1
            dH1, d2H1 = _dH(self.cd, mom, e1, second=True)
            H1 = dH1 + lS
            b2 = -A @ (Sb + lS @ b1 + H1 @ b1)
            H2 = d2H1 + _dH(self.cd, mom, X @ b2) + lS
            AH1 = A @ H1
            out["grad"] = float(bsb / 2 + np.trace(AH1) / 2 - self.rank / 2)
            out["hess"] = float((bsb + 2 * float(Sb @ b1)) / 2
                                + (np.sum(A * H2) - np.sum(AH1 * AH1.T)) / 2)
        return out


def _initial_lsp(prob, X):
    """``initial.spg`` for a general family: ``lbb`` at zero coefficients on the model matrix
    as mgcv holds it then (after ``Sl.initial.repara``), the penalty diagonal unchanged."""
    S = prob.S
    ev, U = np.linalg.eigh(S)
    top = np.argsort(ev)[::-1]
    ev, U = ev[top], U[:, top]
    dsc = np.ones(prob.p)
    dsc[:prob.rank] = 1 / np.sqrt(ev[:prob.rank])
    cd = prob.cd
    _, _, H, _ = _derivs(_CoxData(cd.t, cd.d, cd.X @ (U * dsc)), np.zeros(cd.t.shape[0]))
    dlb = np.abs(np.diag(H))
    keep = (np.sum(np.abs(S), axis=1) > np.max(S) * _EPS ** 0.75) & (dlb != 0)
    dlb = dlb[keep]
    dS = np.diag(S)[keep]
    rm = max(dS.shape[0] / prob.rank, 1.0)

    def crit(lam):
        den = dlb + lam * dS * rm
        return math.sqrt(float(np.mean(dlb / den)) * float(np.mean(dlb)) / float(np.mean(den)))

    lam = 1.0
    while crit(lam) > 0.4:
        lam *= 5
    while crit(lam) < 0.4:
        lam /= 5
    return math.log(lam)


def _baseline(cd, eta):
    """``coxpp``: cumulative baseline hazard ``h``, its variance part ``q`` and the ``a``
    vectors at each distinct time (descending)."""
    g = np.exp(eta)
    s0, s1, _ = cd.moments(g)
    x = cd.dr / s0
    h = np.cumsum(x[::-1])[::-1]
    q = np.cumsum((x / s0)[::-1])[::-1]
    a = np.cumsum((s1 * (x / s0)[:, None])[::-1], axis=0)[::-1]
    return h, q, a


def _check(time, status, x, k, bs, method):
    check_smooth_args(k, bs, method)
    t = _as_vector(time, GAM_COX_DATA)
    d = _as_vector(status, GAM_COX_DATA)
    xa = _as_vector(x, GAM_COX_DATA)
    if not (t.shape == d.shape == xa.shape) or t.size == 0:
        fail(GAM_COX_DATA)
    if not np.all((d == 0.0) | (d == 1.0)) or not np.any(d == 1.0):
        fail(GAM_COX_STATUS)
    return t, d, xa, basis_dimension(k)


def gam_coxph(time, status, x, *, k=-1, bs="tp", fx=False, method="GCV.Cp") -> GamCoxFit:
    """``mgcv::gam(time ~ s(x, k = k, fx = fx, bs = bs), family = cox.ph(), weights = status,
    method = method)``.

    Parameters
    ----------
    time : array_like
        Follow-up times.
    status : array_like
        Event indicator (1 event, 0 censored); mgcv takes it as the prior weights.
    x : array_like
        The single covariate (float32 and pandas Series accepted; inputs are not modified).
    k : int
        Basis dimension; negative is mgcv's default (10); 0 to 2 are raised to 3 with
        mgcv's warning.
    bs : {"tp", "cr"}
    fx : bool
        True for an unpenalized regression spline.
    method : {"GCV.Cp", "REML"}
        Accepted as mgcv accepts it; mgcv fits general families such as ``cox.ph`` by REML
        whichever of the two is given, and so does this function.

    Returns
    -------
    GamCoxFit
        ``.survival(t0, xnew, se_fit)`` reproduces ``predict(fit, type = "response",
        newdata = data.frame(times = t0, x = xnew), se.fit = se_fit)``.

    Notes
    -----
    Reproduces mgcv 1.8-41 (see the module docstring): Breslow ties, no strata, offsets or
    ``gamma``.
    """
    t, d, xa, k = _check(time, status, x, k, bs, method)
    with blas.limit(1):  # n x k problems: one BLAS thread (see calstats.numerics.blas)
        return _fit(t, d, xa, k, bs, fx)


def _fit(t, d, xa, k, bs, fx):
    basis = smooth_basis(xa, k, bs, bool(fx))
    cd = _CoxData(t, d, basis.X)
    prob = _CoxProblem(basis, cd)
    if prob.rank:
        lsp, score, res, outer = _newton(prob, "REML", _initial_lsp(prob, cd.X))
        sp_out = math.exp(lsp)
    else:
        res = prob.evaluate(0.0, "REML", False)
        sp_out, outer, score = None, 0, None
    beta, eta_sorted = res["beta"], res["eta"]
    h, q, a = _baseline(cd, eta_sorted)
    eta = np.empty_like(eta_sorted)
    eta[cd.order] = eta_sorted
    return GamCoxFit(coefficients=beta, linear_predictors=eta, sp=sp_out, score=score, method="REML",
                     vcov=res["vp"], edf=coefficient_edf(res["vp"], res["H"]), edf_total=res["edf"],
                     iterations=outer, basis=basis, baseline={"tr": cd.tr, "h": h, "q": q, "a": a})

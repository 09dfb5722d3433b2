"""mgcv's ``gam(y ~ s(x), family = binomial)`` for one smooth of one covariate.

pmcalibration's default calibration curve (``smooth = "gam"``) is
``mgcv::gam(y ~ s(x, k = k, fx = fx, bs = bs), family = binomial(link = "logit"),
method = method)``. This module reproduces what that fit computes in mgcv 1.8-41:

* the basis and penalty of ``s(x)`` exactly as mgcv builds them (:mod:`.gam_basis`), so
  that the smoothing parameter refers to the same scaled penalty and ``coefficients`` are
  mgcv's own;
* the smoothing-parameter criterion: for ``method = "GCV.Cp"`` with the binomial (scale
  known, 1) mgcv minimises UBRE, ``D/n + 2 tr(A)/n - 1``; for ``method = "REML"`` the
  Laplace approximate REML score ``(D + b'S_l b)/2 + log|X'WX + S_l|/2 - log|S_l|_+/2 -
  M_p log(2 pi)/2`` (the saturated log-likelihood of 0/1 data is 0);
* mgcv's outer optimiser (``gam.outer`` -> ``newton``) step for step: the starting value
  of ``initial.sp``, Newton steps on ``log(sp)`` capped at 5, step halving with the
  quadratic-model check, the steepest-descent fallback and the convergence test with
  ``conv.tol = 1e-6``, fed by the exact first and second derivatives of the criterion in
  ``log(sp)`` (what mgcv's ``gdi1`` computes, here by implicit differentiation of the
  penalized IRLS solution). Replaying the iteration matters: mgcv stops on a relative score
  change of 1e-6, and where the criterion is flat (fits that shrink towards a line) the
  stopping point's ``sp`` is 30 % away from the criterion's minimiser and its fitted values
  2e-4 away, so minimising the criterion more precisely would not reproduce mgcv;
* the Bayesian posterior covariance ``Vp = (X'WX + S_l)^{-1}`` that ``vcov.gam`` returns,
  the total effective degrees of freedom ``tr(A)``, and ``predict.gam`` (``lpmatrix``, and
  response-scale predictions with ``se = se_link * |dmu/deta|``).

Each penalized IRLS fit inside the optimiser replays ``gam.fit3``: it starts from the
coefficients of the last fit newton accepted, stops when the penalized deviance changes by
less than ``1e-8 (1 + pdev)``, and the criterion, its derivatives and the fit are those
``gdi1`` computes at that iterate (its deviance and weights; the coefficients of one more
penalized least-squares step). A fit run to full convergence instead differs from mgcv's by
~1e-9 relative in the criterion and moves the smoothing parameter by as much. Measured
distance to mgcv 1.8-41 on pmcalibration's man-page example (n = 500, sp ~ 3496): sp
1.9e-11 relative, coefficients and ``Vp`` 3e-15 absolute (~1e4 ulps of the smallest
entries); on mgcv's test fixtures fitted values 1e-12, sp mostly below 1e-11 (6e-8 where
the criterion is flat). R's arithmetic (mgcv's pivoted QR, the reparameterisation,
reference BLAS) is not replayed bit for bit. That distance is below anything a calibration
metric shows, but not always below what decides the sign LAPACK gives an eigenvector of
``Vp``: ``MASS::mvrnorm``'s draws from ``Vp`` (pmcalibration's ``ci = "sim"``) equal R's
when every sign agrees (the man-page example) and are R's draws reflected across an
eigenvector when one does not (R's own ``Vp`` changed by 1 ulp flips one in 39 of 50
trials on that example). The unpenalized fit (``fx = TRUE``) replays mgcv's loop at tolerance
1e-7, where mgcv's ``Vp`` comes from the weights of its last iteration.

All linear algebra here is on n x k matrices and runs on one BLAS thread
(:mod:`calstats.numerics.blas`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import qr_multiply, solve_triangular

from ..._errors import fail, warn
from ..._messages import (
    GAM_BS,
    GAM_ITERATION_LIMIT,
    GAM_K,
    GAM_K_INCREASED,
    GAM_METHOD,
    GAM_NOT_CONVERGED,
    GAM_PIRLS_NOT_CONVERGED,
    GAM_STEP_FAILURE,
    GAM_XY,
    GAM_Y01,
)
from ..._robject import RObject
from ...numerics import blas
from ...numerics.binomial import dev_resids, linkfun, linkinv, mu_eta, variance
from ...numerics.reductions import rmean, rsum
from .smooth import SmoothBasis, smooth_basis

__all__ = ["gam_binomial", "GamFit"]


_PIRLS_MAXIT = 200
_PIRLS_EPS = 1e-8  # newton sets gam.control's epsilon to conv.tol / 100
_SQRT_EPS = 1.4901161193847656e-08  # .Machine$double.eps^0.5


class GamFit(RObject):
    """The fields of mgcv's ``gamObject`` that calstats computes, under R's names and in
    R's order (``fit["Vp"]``, ``fit.names()``; see :class:`calstats._robject.RObject`).

    Attributes
    ----------
    coefficients : ndarray
        ``(Intercept)`` then the smooth's coefficients, in mgcv's basis.
    fitted_values, linear_predictors : ndarray
        ``fit$fitted.values`` and ``fit$linear.predictors``.
    deviance : float
        ``fit$deviance``.
    sp : float or None
        The smoothing parameter (``fit$sp``); None when ``fx = True`` (R: ``numeric(0)``).
    score : float
        ``fit$gcv.ubre`` (``fit["gcv.ubre"]``): UBRE for ``GCV.Cp``, the REML score for
        ``REML``.
    method : str
        ``fit$method``: ``"UBRE"`` (what ``GCV.Cp`` is for the binomial, whose scale is
        known) or ``"REML"``.
    vcov : ndarray
        ``fit$Vp`` (``fit["Vp"]``, what ``vcov.gam`` returns): the Bayesian posterior
        covariance.
    edf : ndarray
        ``fit$edf``: the effective degrees of freedom of each coefficient, the diagonal of
        ``Vp X'WX`` (1 for the intercept).

    Not R fields: ``edf_total`` (the total effective degrees of freedom ``tr(A)``, R's
    ``sum(fit$edf)`` up to rounding), ``criterion`` (the ``method`` argument, ``"GCV.Cp"``
    or ``"REML"``: R's ``names(fit$gcv.ubre)``), ``iterations`` (outer Newton iterations for
    the smoothing parameter, ``fit$outer.info$iter``; 0 when ``fx = True``), ``basis`` (the
    constructed smooth, ``fit$smooth[[1]]``: knots, eigen-basis, constraint) and
    ``model_matrix`` (``model.matrix(fit)``: ``(Intercept)`` and the constrained smooth
    columns).
    """

    _r_fields = ("coefficients", "fitted.values", "linear.predictors", "deviance", "sp", "gcv.ubre",
                 "method", "Vp", "edf")
    _aliases = {"gcv.ubre": "score", "Vp": "vcov"}
    _extras: tuple[str, ...] = ("edf_total", "criterion", "iterations", "basis", "model_matrix")
    # set by the constructor (declared for type checkers)
    coefficients: np.ndarray
    fitted_values: np.ndarray
    linear_predictors: np.ndarray
    deviance: float
    sp: float | None
    score: float
    method: str
    vcov: np.ndarray
    edf: np.ndarray
    edf_total: float
    criterion: str
    iterations: int
    basis: SmoothBasis
    model_matrix: np.ndarray

    def __repr__(self):
        return (f"GamFit(bs={self.basis.bs!r}, k={self.basis.k}, sp={self.sp!r}, "
                f"edf={self.edf_total!r}, score={self.score!r})")

    def lpmatrix(self, xnew=None):
        """``predict.gam(fit, newdata, type = "lpmatrix")``; without ``xnew`` the model
        matrix of the fit (``predict.gam(fit, type = "lpmatrix")``), which for a thin plate
        basis agrees with re-evaluating the basis at the data to ~1e-11 only, since mgcv
        builds it from the eigenvalues rather than the kernel."""
        if xnew is None:
            return self.model_matrix.copy()
        xnew = _as_vector(xnew)
        with blas.limit(1):
            return np.column_stack([np.ones(xnew.shape[0]), self.basis.matrix(xnew)])

    def predict(self, xnew=None, se_fit=False):
        """``predict.gam(fit, newdata, type = "response", se.fit = se_fit)``.

        Returns ``(fit, se)``; ``se`` is None unless ``se_fit``. The standard error is the
        link-scale one times ``|dmu/deta|``, as mgcv computes it. Without ``xnew``, the
        training rows.
        """
        with blas.limit(1):
            lp = self.lpmatrix(xnew)
            eta = lp @ self.coefficients
            mu = linkinv(eta)
            if not se_fit:
                return mu, None
            se_link = np.sqrt(np.sum((lp @ self.vcov) * lp, axis=1))
        return mu, se_link * np.abs(mu_eta(eta))


def _as_vector(v):
    return np.array(v, dtype=np.float64).ravel()


def check_smooth_args(k, bs, method):
    """``bs``, ``method`` and ``k`` of ``s(x, k, bs)`` and ``gam(method = )`` as calstats'
    mgcv ports take them (shared with :mod:`.gam_cox`)."""
    if bs not in ("tp", "cr"):
        fail(GAM_BS)
    if method not in ("GCV.Cp", "REML"):
        fail(GAM_METHOD)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer, float)) \
            or not math.isfinite(k) or k != int(k):
        fail(GAM_K)


def basis_dimension(k):
    """mgcv raises a too-small basis to the smallest one (M + 1 = 3 for both bases)."""
    k = int(k)
    if 0 <= k < 3:
        warn(GAM_K_INCREASED)
        k = 3
    return k


def _check_inputs(x, y, k, bs, method):
    check_smooth_args(k, bs, method)
    try:
        xa = np.array(x, dtype=np.float64).ravel()
        ya = np.array(y, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        fail(GAM_XY)
    if xa.shape != ya.shape or xa.size == 0 or not np.all(np.isfinite(xa)) \
            or not np.all(np.isfinite(ya)):
        fail(GAM_XY)
    if not np.all((ya == 0.0) | (ya == 1.0)):
        fail(GAM_Y01)
    return xa, ya, basis_dimension(k)


class _Problem:
    """Model matrix, penalty square root and the pieces every criterion evaluation reuses.

    ``pirls`` replays ``gam.fit3``'s penalized IRLS (its start, step halving and stopping
    rule) and ``evaluate`` what ``gdi1`` computes at the point where it stops, so that the
    criterion, its derivatives and the returned fit are mgcv's, not those of a fully
    converged fit (they differ by ~1e-9 relative, which moves the smoothing parameter by as
    much).
    """

    def __init__(self, basis: SmoothBasis, y):
        self.y = y
        n = y.shape[0]
        self.n = n
        self.X = np.column_stack([np.ones(n), basis.X])
        p = self.X.shape[1]
        self.p = p
        self.rank = 0
        self.rS = np.zeros((0, p))
        self.S = np.zeros((p, p))
        self.log_det_S = 0.0
        if basis.S is not None:
            self.S[1:, 1:] = basis.S
            ev, vec = np.linalg.eigh(basis.S)
            rank = basis.S.shape[0] - basis.null_space_dim
            top = np.argsort(ev)[::-1][:rank]
            root = np.zeros((rank, p))
            root[:, 1:] = (vec[:, top] * np.sqrt(ev[top])).T
            self.rS = root
            self.rank = rank
            self.log_det_S = float(np.sum(np.log(ev[top])))
        self.Mp = p - self.rank
        # get.null.coef: the intercept-only fit expressed in the model's coefficients
        ybar = rsum(y) / n
        etam = np.full(n, math.log(ybar / (1 - ybar)))
        self.null_coef = np.linalg.lstsq(self.X, etam, rcond=None)[0]
        self.null_eta = self.X @ self.null_coef
        self.null_dev = rsum(dev_resids(y, linkinv(self.null_eta)))
        self.start = None  # newton's ``start``: the coefficients of the last accepted fit

    # -- gam.fit3's penalized IRLS -------------------------------------------------------
    def _pls(self, eta, mu, sq):
        """One penalized least-squares step (``pls_fit1``) at the weights of ``(eta, mu)``;
        also returns the QR factor of the augmented weighted design and ``sqrt(w)``."""
        me = mu_eta(eta)
        w = me * me / variance(mu)
        z = eta + (self.y - mu) / me
        sw = np.sqrt(w)
        k = self.rS.shape[0]
        A = np.empty((self.n + k, self.p), order="F")  # LAPACK's layout: no copy in the QR
        np.multiply(self.X, sw[:, None], out=A[:self.n])
        A[self.n:] = sq * self.rS
        b = np.zeros(self.n + k)
        b[:self.n] = z * sw
        qtb, r = qr_multiply(A, b[None, :], mode="right", overwrite_a=True)  # Q'b, Q not formed
        beta = solve_triangular(r, qtb[0])
        return beta, r, w, sw

    def pirls(self, sp):
        """``gam.fit3``'s loop: from ``start`` (or ``mustart = (y + 0.5)/2``), penalized least
        squares steps with mgcv's step halving until the penalized deviance changes by less
        than ``1e-8 (1 + pdev)``. Returns the last iterate (``eta``, ``mu``, ``dev``) and the
        iteration count."""
        X, y = self.X, self.y
        sq = math.sqrt(sp) if self.rank else 0.0
        lS = sp * self.S
        if self.start is None:
            mu = (y + 0.5) / 2
            eta = linkfun(mu)
        else:
            eta = X @ self.start
        mu = linkinv(eta)
        coefold, etaold = self.null_coef, self.null_eta
        old_pdev = self.null_dev + float(self.null_coef @ lS @ self.null_coef)
        for it in range(1, _PIRLS_MAXIT + 1):
            start = self._pls(eta, mu, sq)[0]
            eta = X @ start
            mu = linkinv(eta)
            dev = rsum(dev_resids(y, mu))
            pdev = dev + float(start @ lS @ start)
            div_thresh = 10 * (0.1 + abs(old_pdev)) * _SQRT_EPS
            if not pdev - old_pdev <= div_thresh:
                if it == 1:
                    etaold, coefold = self.null_eta, self.null_coef
                for _ in range(100):
                    start = (start + coefold) / 2
                    eta = (eta + etaold) / 2
                    mu = linkinv(eta)
                    dev = rsum(dev_resids(y, mu))
                    pdev = dev + float(start @ lS @ start)
                    if pdev - old_pdev <= div_thresh:
                        break
                else:
                    fail(GAM_NOT_CONVERGED)
            if abs(pdev - old_pdev) < _PIRLS_EPS * (1.0 + abs(pdev)):
                return eta, mu, dev, it, True
            old_pdev = pdev
            coefold, etaold = start, eta
        return eta, mu, dev, _PIRLS_MAXIT, False  # mgcv goes on with a warning

    def accept(self, ev):
        """newton accepted the fit ``ev``: later fits start from its coefficients."""
        self.start = ev["beta"]

    def evaluate(self, rho, method, deriv=True):
        """Fit at ``sp = exp(rho)`` and return the criterion with its first and second
        derivatives in ``rho``, as ``gam.fit3`` and ``gdi1`` compute them at the last PIRLS
        iterate: the deviance there, the weights there, the coefficients of one more
        penalized least-squares step with those weights, their derivatives by the implicit
        function theorem."""
        sp = math.exp(rho) if self.rank else 0.0
        eta_k, mu_k, dev, it, conv = self.pirls(sp)
        X, y, S = self.X, self.y, self.S
        n = self.n
        sq = math.sqrt(sp) if self.rank else 0.0
        beta, R, w, sw = self._pls(eta_k, mu_k, sq)
        Rinv = solve_triangular(R, np.eye(self.p))
        A = Rinv @ Rinv.T
        WXR = (X * sw[:, None]) @ Rinv
        tr_a = float(np.sum(WXR * WXR))
        eta = X @ beta
        mu = linkinv(eta)
        pearson = rsum((y - mu) ** 2 / variance(mu))
        scale_est = pearson / (n - tr_a)
        s_bar = max(-0.9, rmean((1 - 2 * mu) * (y - mu) / variance(mu)))
        if math.isfinite(s_bar):
            scale_est /= 1 + s_bar
        lS = sp * S
        Sb = lS @ beta
        bsb = float(beta @ Sb)
        log_det = 2.0 * float(np.sum(np.log(np.abs(np.diag(R)))))
        if method == "REML":
            log_det_s = self.rank * rho + self.log_det_S if self.rank else 0.0
            score = (dev + bsb) / 2 + log_det / 2 - log_det_s / 2 \
                - self.Mp / 2 * math.log(2 * math.pi)
        else:
            score = dev / n + 2 * tr_a / n - 1.0
        out = dict(beta=beta, eta=eta, mu=mu, iterations=it, vp=A, edf=tr_a, score=score,
                   dev=dev, scale_est=scale_est, sp=sp, w=w,
                   warn=[] if conv else [GAM_PIRLS_NOT_CONVERGED])
        if deriv and self.rank:
            # gdi1's quantities at the last iterate (mu_k, w) and the re-solved beta
            me = mu_eta(eta_k)
            v1 = -2.0 * (y - mu_k) / (variance(mu_k) / me)
            dev_grad = X.T @ v1
            b1 = -A @ Sb
            e1 = X @ b1
            w1 = w * (1 - 2 * mu_k)  # dw/deta for the logit
            w2 = w * ((1 - 2 * mu_k) ** 2 - 2 * w)
            XtWX = X.T @ (X * w[:, None])
            H1 = X.T @ (X * (w1 * e1)[:, None]) + lS
            b2 = -A @ (Sb + lS @ b1 + H1 @ b1)
            e2 = X @ b2
            H2 = X.T @ (X * (w2 * e1 * e1 + w1 * e2)[:, None]) + lS
            AH1 = A @ H1
            D1 = float(dev_grad @ b1)
            D2 = float(2.0 * (b1 @ XtWX @ b1) + dev_grad @ b2)
            if method == "REML":
                Sb1 = lS @ b1
                bsb1 = bsb + 2.0 * float(b1 @ Sb)
                bsb2 = 2.0 * float(b2 @ Sb) + 2.0 * float(b1 @ Sb1) + 4.0 * float(b1 @ Sb) + bsb
                grad = (D1 + bsb1) / 2 + np.trace(AH1) / 2 - self.rank / 2
                hess = (D2 + bsb2) / 2 + (np.trace(A @ H2) - np.sum(AH1 * AH1.T)) / 2
            else:
                AS = A @ lS
                t0 = np.trace(AS)
                t1 = -np.sum(AH1 * AS.T)
                t2 = 2 * np.trace(AH1 @ AH1 @ AS) - np.sum((A @ H2) * AS.T)
                tr1 = -(t0 + t1)
                tr2 = -(t0 + 2 * t1 + t2)
                grad = D1 / n + 2 * tr1 / n
                hess = D2 / n + 2 * tr2 / n
            out["grad"] = float(grad)
            out["hess"] = float(hess)
        return out


_EPS = 2.220446049250313e-16


def _unpenalized_fit(prob, method):
    """``gam.fit3`` without smoothing parameters (``fx = TRUE``), step by step.

    With nothing to optimise, mgcv fits once at ``control$epsilon = 1e-7`` and reports
    ``Vp``, the edf and the criterion from the working weights of the last iteration, but
    the coefficients (and so the fitted values) of one further weighted least-squares step
    (``gdi1`` re-solves with those weights). ``Vp`` then differs from the inverse
    information at the reported coefficients by up to ~1e-6 relative, so the loop is
    replayed rather than run to full convergence.
    """
    X, y = prob.X, prob.y
    n = y.shape[0]
    eps = 1e-7
    ybar = rsum(y) / n
    null_eta = np.full(n, math.log(ybar / (1 - ybar)))
    null_coef = np.linalg.lstsq(X, null_eta, rcond=None)[0]
    old_pdev = rsum(dev_resids(y, linkinv(null_eta)))
    mu = (y + 0.5) / 2
    eta = np.log(mu / (1 - mu))
    coefold, etaold = null_coef, null_eta

    def wls(eta, mu):
        me = mu_eta(eta)
        w = me * me / (mu * (1 - mu))
        z = eta + (y - mu) / me
        sw = np.sqrt(w)
        return np.linalg.lstsq(X * sw[:, None], z * sw, rcond=None)[0], w

    it = 0
    for it in range(1, _PIRLS_MAXIT + 1):
        start, _ = wls(eta, mu)
        eta = X @ start
        mu = linkinv(eta)
        pdev = rsum(dev_resids(y, mu))
        div_thresh = 10 * (0.1 + abs(old_pdev)) * math.sqrt(_EPS)
        if pdev - old_pdev > div_thresh:
            if it == 1:
                etaold, coefold = null_eta, null_coef
            for _ in range(100):
                if pdev - old_pdev <= div_thresh:
                    break
                start = (start + coefold) / 2
                eta = (eta + etaold) / 2
                mu = linkinv(eta)
                pdev = rsum(dev_resids(y, mu))
        if abs(pdev - old_pdev) < eps * (1.0 + abs(pdev)):
            break
        old_pdev = pdev
        coefold, etaold = start, eta
    else:
        fail(GAM_NOT_CONVERGED)
    dev = rsum(dev_resids(y, mu))
    beta, w = wls(eta, mu)
    sw = np.sqrt(w)
    _, R = np.linalg.qr(X * sw[:, None])
    Rinv = np.linalg.solve(R, np.eye(prob.p))
    tr_a = float(np.sum(((X * sw[:, None]) @ Rinv) ** 2))
    if method == "REML":
        log_det = 2.0 * float(np.sum(np.log(np.abs(np.diag(R)))))
        score = dev / 2 + log_det / 2 - prob.p / 2 * math.log(2 * math.pi)
    else:
        score = dev / n + 2 * tr_a / n - 1.0
    eta = X @ beta
    return dict(beta=beta, eta=eta, mu=linkinv(eta), iterations=it, vp=Rinv @ Rinv.T,
                edf=tr_a, score=score, dev=dev, w=w)


def _initial_lsp(prob):
    """``initial.spg(type = 1)`` -> ``initial.sp``: the starting log smoothing parameter."""
    w = math.sqrt(0.1875)  # mu.eta^2/V at mustart = (y + 0.5)/2, the same for y = 0 or 1
    ldxx = np.sum((w * prob.X) ** 2, axis=0)[1:]
    S = prob.S[1:, 1:]
    aS = np.abs(S)
    thresh = _EPS ** 0.8 * float(np.max(aS))
    ind = (aS.mean(axis=1) > thresh) & (aS.mean(axis=0) > thresh) & (np.diag(aS) > thresh)
    d = np.diag(S)
    def_sp = float(np.mean(ldxx[ind])) / float(np.mean(d[ind]))
    ldss = np.where(ind, def_sp * d, 0.0)
    keep = (ldss > 0) & ind & (ldxx > 0)
    lx, ls = ldxx[keep], ldss[keep]
    while np.mean(lx / (lx + ls)) > 0.4:
        def_sp *= 10
        ls = ls * 10
    while np.mean(lx / (lx + ls)) < 0.4:
        def_sp /= 10
        ls = ls / 10
    return math.log(def_sp)


def _newton(prob, method, lsp):
    """mgcv's ``newton`` (gam.outer's default optimizer) for one smoothing parameter.

    Returns the accepted ``lsp``, its evaluation, the evaluation mgcv returns as the fit
    object (normally the same point) and the iteration count.
    """
    reml = method == "REML"
    conv_tol, max_nstep, max_sstep, max_half, q_thresh = 1e-6, 5.0, 2.0, 30, 0.8

    def sscale(ev):
        return (abs(math.log(ev["scale_est"])) if reml else abs(ev["scale_est"])) \
            + abs(ev["score"])

    def f(r, deriv=True):
        return prob.evaluate(r, method, deriv)

    accept = getattr(prob, "accept", None)

    def take(ev):  # newton's start <- b$coefficients (mustart, etastart) on acceptance
        if accept is not None:
            accept(ev)

    cur = f(lsp)
    take(cur)
    b = cur
    score, grad, hess = cur["score"], cur["grad"], cur["hess"]
    old_score = score
    score_scale = (abs(math.log(b["scale_est"])) if reml else b["scale_est"]) + abs(score)
    uconv = abs(grad) > score_scale * conv_tol
    it = ii = 0
    for it in range(1, 201):
        if not uconv:
            uconv = True
        d = hess
        indef = d < -score_scale * math.sqrt(_EPS)
        pdef = not d < 0
        d = abs(d)
        if d != 0:
            d = 1 / d
        nstep = -d * grad if uconv else 0.0
        sstep = -grad / abs(grad) if grad != 0 else 0.0
        if abs(nstep) > max_nstep:
            nstep = max_nstep * nstep / abs(nstep)
        sd_unused = True
        lsp1 = lsp + nstep
        b = f(lsp1, pdef)
        pred = grad * nstep + 0.5 * hess * nstep * nstep
        score1 = b["score"]
        ii = 0
        change = score1 - score
        qerr = abs(pred - change) / (max(abs(pred), abs(change)) + score_scale * conv_tol)
        score2 = math.nan
        if math.isfinite(score1) and change < 0 and pdef and qerr < q_thresh:
            old_score = score
            lsp, cur = lsp1, b
            take(b)
            score, grad, hess = b["score"], b["grad"], b["hess"]
        elif not math.isfinite(score1) or score1 >= score or qerr >= q_thresh:
            step = nstep
            while (not math.isfinite(score1) or score1 >= score or qerr >= q_thresh) \
                    and ii < max_half:
                if ii == 3 and it < 10:
                    s_length = min(abs(step), max_sstep)
                    step = sstep * s_length
                    sd_unused = False
                else:
                    step = step / 2
                lsp1 = lsp + step
                b1 = f(lsp1, False)
                pred = grad * step + 0.5 * hess * step * step
                score1 = b1["score"]
                change = score1 - score
                qerr = q_thresh / 2 if ii > min(4, max_half / 2) else \
                    abs(pred - change) / (max(abs(pred), abs(change)) + score_scale * conv_tol)
                if math.isfinite(score1) and change < 0 and qerr < q_thresh:
                    if pdef or not sd_unused:
                        b = f(lsp1)
                        old_score = score
                        lsp, cur = lsp1, b
                        take(b)
                        score, grad, hess = b["score"], b["grad"], b["hess"]
                    else:
                        b = b1
                        score2 = score1
                    score1 = score - abs(score) - 1
                if not math.isfinite(score1) or score1 >= score or qerr >= q_thresh:
                    ii += 1
            if not pdef and sd_unused and ii < max_half:
                score1 = score2
        if not pdef and sd_unused:
            step = sstep * 2
            kk = 0
            score2 = math.nan
            lsp2 = lsp
            while True:
                step = step / 2
                kk += 1
                lsp3 = lsp + step
                b1 = f(lsp3, False)
                pred = grad * step + 0.5 * hess * step * step
                score3 = b1["score"]
                change = score3 - score
                qerr = abs(pred - change) / (max(abs(pred), abs(change)) + score_scale * conv_tol)
                if not math.isfinite(score2) or (math.isfinite(score3) and score3 <= score2
                                                 and qerr < q_thresh):
                    score2, lsp2 = score3, lsp3
                if (math.isfinite(score2) and math.isfinite(score3) and score2 < score
                        and score3 > score2) or kk == 40:
                    break
            if math.isfinite(score2) and score2 < score1:
                lsp1, score1 = lsp2, score2
            b = f(lsp1)
            old_score = score
            lsp, cur = lsp1, b
            take(b)
            score, grad, hess = b["score"], b["grad"], b["hess"]
        converged = not indef
        score_scale = sscale(dict(scale_est=b["scale_est"], score=score))
        uconv = abs(grad) > score_scale * conv_tol * 0.1 or abs(hess) > score_scale * conv_tol * 0.1
        if abs(grad) > score_scale * conv_tol * 5:
            converged = False
        if abs(old_score - score) > score_scale * conv_tol:
            if converged:
                uconv = True
            converged = False
        if ii == max_half:
            converged = True
        if converged:
            break
    if ii == max_half:
        warn(GAM_STEP_FAILURE)
    elif it == 200:
        warn(GAM_ITERATION_LIMIT)
    for text in b.get("warn", ()):  # the warnings of the fit newton returns
        warn(text)
    return lsp, score, b, it


def gam_binomial(x, y, *, k=-1, bs="tp", fx=False, method="GCV.Cp") -> GamFit:
    """``mgcv::gam(y ~ s(x, k = k, fx = fx, bs = bs), family = binomial, method = method)``.

    Parameters
    ----------
    x : array_like
        The single covariate (float32 and pandas Series accepted; not modified).
    y : array_like
        0/1 response.
    k : int
        Basis dimension; negative is mgcv's default (10); 0 to 2 are raised to 3 with
        mgcv's warning.
    bs : {"tp", "cr"}
        Thin plate regression spline or cubic regression spline.
    fx : bool
        True for an unpenalized regression spline.
    method : {"GCV.Cp", "REML"}
        Smoothing parameter criterion (UBRE, since the binomial scale is known, or REML).

    Returns
    -------
    GamFit
        mgcv's fields under R's names (``fit["Vp"]``, ``fit["fitted.values"]``, ...);
        ``.predict(xnew, se_fit)`` and ``.lpmatrix(xnew)`` are ``predict.gam``.

    Notes
    -----
    Reproduces mgcv 1.8-41's basis, penalty, constraint, criterion and its Newton
    iteration for the smoothing parameter (see the module docstring). Without weights,
    offsets or ``gamma``; ``iterations`` is the outer (smoothing-parameter) iteration count,
    ``fit$outer.info$iter``.
    """
    xa, ya, k = _check_inputs(x, y, k, bs, method)
    with blas.limit(1):  # n x k problems: one BLAS thread (see calstats.numerics.blas)
        return _fit(xa, ya, k, bs, fx, method)


def coefficient_edf(vp, H):
    """mgcv's ``fit$edf``: the diagonal of ``Vp H``, ``H`` the unpenalized information
    (``X'WX`` for a GLM, the negative Hessian of the log partial likelihood for ``cox.ph``)."""
    return np.sum(vp * H.T, axis=1)


def _fit(xa, ya, k, bs, fx, method):
    basis = smooth_basis(xa, k, bs, bool(fx))
    prob = _Problem(basis, ya)
    if prob.rank:
        lsp, score, res, outer = _newton(prob, method, _initial_lsp(prob))
        sp_out = math.exp(lsp)
    else:
        res = _unpenalized_fit(prob, method)
        sp_out, outer, score = None, 0, res["score"]
    WX = prob.X * np.sqrt(res["w"])[:, None]
    return GamFit(coefficients=res["beta"], fitted_values=res["mu"], linear_predictors=res["eta"],
                  deviance=res["dev"], sp=sp_out, score=score,
                  method="UBRE" if method == "GCV.Cp" else method, vcov=res["vp"],
                  edf=coefficient_edf(res["vp"], WX.T @ WX), edf_total=res["edf"], criterion=method,
                  iterations=outer, basis=basis, model_matrix=prob.X)

"""The penalised multinomial logistic fit behind Dirichlet calibration (and its relatives).

``fit_multinomial`` is probcal's internal fitter (the one behind R's ``cal_dirichlet``): a linear map
``eta = U W^T + b`` on features ``U`` (log-probabilities for Dirichlet calibration, logits
for matrix scaling), a softmax, the mean negative log-likelihood plus a ridge penalty, and
R's BFGS (:func:`calstats.numerics.vmmin.vmmin`) from ``W = I``, ``b = 0`` with
``maxit = 500``. ``select_lambda`` is probcal's deterministic cross-validated choice of the
penalty strength.

Every arithmetic step follows R's order and accumulation width so that BFGS takes R's path:
the product ``U W^T`` in reference-BLAS order, ``exp``/``log`` from libm, long-double row
sums and means, and the gradient ``t(R) %*% U`` accumulated over observations in order.
The softmax at a point is computed once and shared by the objective and the gradient
(vmmin only asks for the gradient at the point it just evaluated).
"""

import numpy as np
import pandas as pd

from .. import _validate as v
from .._inputs import refuse_misnamed_columns
from .._options import map_tasks
from ..dask import any_dask
from ..kernels.probs import clip_loss_prob, multiclass_log_loss, softmax, softmax_t
from ..numerics import libm
from ..numerics.core import COMPILED, multinomial_eval_c, multinomial_fit_c
from ..numerics.reductions import crossprod, ld_sum_axis0, matmul, matmul_t, rmean, rsum
from ..numerics.vmmin import vmmin
from ..results._coeftable import SINGULAR_NOTE, coef_frame, se_from_hessian

__all__ = ["MultinomialObjective", "MultinomialFit", "fit_multinomial", "select_lambda", "LAMBDA_GRID",
           "MultinomialCoefTable", "multinomial_hessian", "penalised_hessian", "optimizer_fields",
           "MultinomialUncertainty", "class_logits", "class_link_se", "jacobian_variance", "uncertainty_args",
           "MAX_SE_PARAMETERS"]

#: probcal's lambda grid, in the order it is searched (ties go to the earliest value).
LAMBDA_GRID = (0.0, 1e-4, 1e-3, 1e-2, 1e-1)
#: Lambda used when the smallest class is too small for the search.
LAMBDA_FALLBACK = 1e-3
MAXIT = 500
#: Which implementation :func:`fit_multinomial` runs by default: ``"c"``, the compiled core,
#: or ``"numpy"``, the executable reference it is tested against (and the engine of an
#: installation without the compiled core).
BACKEND = "c" if COMPILED else "numpy"


def penalty_mask(k, d, penalty):
    """Which weights the penalty acts on: ODIR spares the diagonal, L2 penalises all."""
    if penalty == "odir":
        return ~np.eye(k, d, dtype=bool)
    if penalty == "l2":
        return np.ones((k, d), dtype=bool)
    v.fail_unknown_setting("penalty", penalty)


class MultinomialObjective:
    """Objective and gradient of the penalised multinomial fit, R's arithmetic.

    Parameters are ``par = c(as.vector(W), b)``: ``W`` (k x d) flattened column-major
    (R's ``as.vector``), then ``b`` (k).
    """

    def __init__(self, U, codes, k, lam, penalty="odir", mu=None, weights=None):
        # Observation-major U feeds the gradient's products, class-major U^T the logits.
        self.U = np.ascontiguousarray(U, dtype=np.float64)
        self.UT = np.ascontiguousarray(self.U.T)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.n, self.d = self.U.shape
        self.k = int(k)
        self.lam = float(lam)
        # Intercept penalty: ``None`` = the same ``lam`` (probcal); a separate value is used by
        # matrix scaling (MS-ODIR, Kull et al. 2019). The ``None`` path keeps probcal's arithmetic.
        self.mu = None if mu is None else float(mu)
        self._rows = (self.codes - 1, np.arange(self.n))
        # Case weights: the mean becomes sum(w * loglik) / sum(w) (None: R's mean, untouched)
        self.weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        if self.weights is not None:
            self._sw = rsum(self.weights)
            self._wf = self.weights / self._sw
        self.mask = penalty_mask(self.k, self.d, penalty)
        self._mask_f = self.mask.ravel(order="F")
        self._key = None
        self._probs = None

    def unpack(self, par):
        kd = self.k * self.d
        return par[:kd].reshape((self.k, self.d), order="F"), par[kd:]

    def start(self):
        """``W = I`` (k x d), ``b = 0``."""
        return np.concatenate([np.eye(self.k, self.d).ravel(order="F"), np.zeros(self.k)])

    def probs_t(self, par):
        """Softmax probabilities at ``par``, classes x observations (cached for the last point)."""
        key = par.tobytes()
        if key != self._key:
            W, b = self.unpack(par)
            self._probs = softmax_t(matmul_t(W, self.UT) + b[:, None])
            self._key = key
        return self._probs

    def value(self, par):
        lp = libm.log(clip_loss_prob(self.probs_t(par)[self._rows]))
        out = -rmean(lp) if self.weights is None else -(rsum(self.weights * lp) / self._sw)
        if self.mu is not None:
            W, b = self.unpack(par)
            w_pen = W.ravel(order="F")[self._mask_f]
            if self.lam > 0:
                out = out + self.lam * rsum(w_pen * w_pen)
            if self.mu > 0:
                out = out + self.mu * rsum(b * b)
        elif self.lam > 0:
            W, b = self.unpack(par)
            w_pen = W.ravel(order="F")[self._mask_f]
            out = out + self.lam * (rsum(w_pen * w_pen) + rsum(b * b))
        return out

    def gradient(self, par):
        resid_t = self.probs_t(par).copy()
        resid_t[self._rows] -= 1.0
        if self.weights is None:
            resid_t /= self.n
        else:
            resid_t *= self._wf[None, :]
        gW = crossprod(resid_t.T, self.U)
        gb = ld_sum_axis0(resid_t.T)
        mu = self.lam if self.mu is None else self.mu
        if self.lam > 0 or mu > 0:
            W, b = self.unpack(par)
            if self.lam > 0:
                gW = gW + 2.0 * self.lam * W * self.mask
            if mu > 0:
                gb = gb + 2.0 * mu * b
        return np.concatenate([gW.ravel(order="F"), gb])


class MultinomialFit:
    """Result of :func:`fit_multinomial`: ``weight``, ``bias``, ``value``, ``convergence``,
    ``counts``, ``iterations``, ``optimizer`` and ``grad_norm`` (the Euclidean norm of the
    objective's gradient at the returned parameters)."""

    __slots__ = ("weight", "bias", "value", "convergence", "counts", "iterations", "optimizer", "grad_norm")

    def __init__(self, weight, bias, value, convergence, counts, iterations, optimizer="BFGS", grad_norm=None):
        self.weight = weight
        self.bias = bias
        self.value = value
        self.convergence = convergence
        self.counts = counts
        self.iterations = iterations
        self.optimizer = optimizer
        self.grad_norm = grad_norm


#: Values of the ``optimizer`` argument: R's BFGS (the default, R's numbers) or the exact
#: optimiser of :mod:`calstats.calibrators._newton`.
OPTIMIZERS = ("bfgs", "newton")


def optimizer_fields(fit):
    """The constructor arguments of a fitted calibrator that say which optimiser ran and
    where it stopped (not R fields)."""
    return {"counts": fit.counts, "optimizer": fit.optimizer, "grad_norm": fit.grad_norm,
            "iterations": fit.iterations}


def check_optimizer(optimizer):
    """The ``optimizer`` argument, checked (not an R argument: a Python-side message)."""
    return v.check_optimizer(optimizer, OPTIMIZERS)


def fit_multinomial(U, codes, k, lam, penalty="odir", maxit=MAXIT, mu=None, backend=None, optimizer="bfgs",
                    weights=None):
    """Fit ``softmax(U W^T + b)`` by R's BFGS from ``W = I``, ``b = 0``.

    Parameters
    ----------
    U : ndarray (n, d)
        Features (clipped log-probabilities for Dirichlet calibration).
    codes : ndarray of int
        1-based class codes.
    k : int
        Number of classes (columns of the output).
    lam : float
        Penalty strength; the penalty is added only when ``lam > 0``.
    penalty : {"odir", "l2"}
        ODIR spares the diagonal of ``W`` (probcal); L2 penalises every weight (Dir-L2).
    mu : float, optional
        Penalty strength on the intercepts; ``None`` (probcal) uses ``lam`` for them too.
    backend : {"c", "numpy"}, optional
        Default :data:`BACKEND`. ``"c"`` runs the whole fit in the compiled core (:mod:`calstats.numerics.core`);
        ``"numpy"`` runs the reference implementation (:class:`MultinomialObjective` and
        :func:`~calstats.numerics.vmmin.vmmin`). Both give the same bits; the tests hold
        them to it.
    optimizer : {"bfgs", "newton"}
        ``"bfgs"``: R's BFGS, R's numbers. ``"newton"``: the exact optimiser of
        :mod:`calstats.calibrators._newton`, to a gradient norm of 1e-9 (``maxit`` and ``backend`` do not
        apply).
    weights : ndarray, optional
        Case weights: the objective's mean log-likelihood becomes ``sum(w * l) / sum(w)``.
        ``None`` is R's objective, bit for bit.
    """
    obj = MultinomialObjective(U, codes, k, lam, penalty, mu, weights)
    if optimizer == "newton":
        from ._newton import fit_multinomial_newton

        res = fit_multinomial_newton(obj.U, obj.codes, obj.k, obj.lam, obj._mask_f, obj.start(), mu=obj.mu,
                                     weights=obj.weights, value_grad=lambda par: multinomial_value_grad(obj, par))
        W, b = obj.unpack(res.par)
        return MultinomialFit(W.copy(), b.copy(), res.value, res.convergence, res.counts, res.iterations,
                              res.method, res.grad_norm)
    backend = BACKEND if backend is None else backend
    if backend == "c":
        par, value, counts, convergence, iterations = multinomial_fit_c(
            obj.U, obj.codes, obj.k, obj.lam, obj._mask_f, obj.start(), maxit=maxit, mu=obj.mu, weights=obj.weights)
    elif backend == "numpy":
        res = vmmin(obj.value, obj.gradient, obj.start(), maxit=maxit)
        par, value, counts, convergence, iterations = res.par, res.value, res.counts, res.convergence, res.iterations
    else:
        v.fail_unknown_setting("backend", backend)
    W, b = obj.unpack(par)
    gnorm = float(np.linalg.norm(multinomial_value_grad(obj, par)[1]))
    return MultinomialFit(W.copy(), b.copy(), value, convergence, counts, iterations, "BFGS (R's optim)", gnorm)


def multinomial_value_grad(obj, par):
    """``(value, gradient)`` of a :class:`MultinomialObjective` at ``par``: one pass of the
    compiled core, or the NumPy reference (the same bits) without it."""
    if COMPILED:
        return multinomial_eval_c(obj.U, obj.codes, obj.k, obj.lam, obj._mask_f, par, obj.mu, weights=obj.weights)
    par = np.ascontiguousarray(par, dtype=np.float64)
    return obj.value(par), obj.gradient(par)


def weighted_log_loss(p, codes, weights):
    """``-sum(w * log(p_true)) / sum(w)`` (probabilities clipped at 1e-15); NaN if the
    weights sum to zero."""
    w = np.asarray(weights, dtype=np.float64)
    sw = rsum(w)
    if sw == 0:
        return float("nan")
    lp = libm.log(clip_loss_prob(np.asarray(p)[np.arange(len(codes)), np.asarray(codes) - 1]))
    return -(rsum(w * lp) / sw)


def predict_multinomial(U, weight, bias):
    """``softmax(U W^T + b)`` in R's arithmetic."""
    return softmax(matmul(U, np.asarray(weight).T) + bias)


def stratified_cycle_folds(codes, n_folds):
    """probcal's deterministic folds: each class's observations, in order, get 1..V, 1..V, ..."""
    folds = np.zeros(codes.size, dtype=np.int64)
    for code in np.unique(codes):
        idx = np.flatnonzero(codes == code)
        folds[idx] = np.arange(idx.size) % n_folds + 1
    return folds


def select_lambda(U, codes, k, grid=LAMBDA_GRID, penalty="odir", max_folds=3, fallback=LAMBDA_FALLBACK, mu=None,
                  return_folds=False, optimizer="bfgs", progress=None, weights=None):
    """probcal's choice of lambda by cross-validated held-out log-likelihood.

    At most ``max_folds`` deterministic stratified folds (fewer when the smallest observed
    class is smaller); each grid value is scored by the unweighted mean over folds of the
    held-out mean negative log-likelihood; the first grid value with the smallest score
    wins. With fewer than two observations in the smallest class, ``fallback`` is returned.
    ``mu`` is the intercept penalty of every candidate fit (``None``: the candidate lambda);
    ``optimizer`` fits the candidates (see :func:`fit_multinomial`). With case ``weights``
    the candidates are weighted fits and the held-out loss is the weighted mean; the folds
    are the same (they depend on the labels only).
    With ``return_folds=True`` a third value is returned: the held-out loss of each grid
    value (rows) and fold (columns), or None with the fallback.

    Returns
    -------
    lam : float
    scores : ndarray or None
        The score of each grid value (None when the fallback was used).
    """
    _, counts = np.unique(codes, return_counts=True)
    n_folds = min(max_folds, int(counts.min()))
    if n_folds < 2:
        return (fallback, None, None) if return_folds else (fallback, None)
    folds = stratified_cycle_folds(codes, n_folds)

    def held_out_loss(task):
        lam, f = task
        train = folds != f
        w_train = None if weights is None else weights[train]
        fit = fit_multinomial(U[train], codes[train], k, lam, penalty, mu=mu, optimizer=optimizer, weights=w_train)
        pred = predict_multinomial(U[~train], fit.weight, fit.bias)
        if weights is None:
            return multiclass_log_loss(pred, codes[~train])
        return weighted_log_loss(pred, codes[~train], weights[~train])

    from .._progress import progress_bar

    tasks = [(lam, f) for lam in grid for f in range(1, n_folds + 1)]
    with progress_bar(len(tasks), "lambda search", progress) as bar:
        losses = map_tasks(held_out_loss, tasks, bar=bar)
    scores = np.empty(len(grid))
    for g in range(len(grid)):
        total = 0.0
        for loss in losses[g * n_folds : (g + 1) * n_folds]:
            total += loss
        scores[g] = total / n_folds
    best = None
    for g, s in enumerate(scores):
        if not np.isnan(s) and (best is None or s < scores[best]):
            best = g
    lam = grid[best] if best is not None else grid[0]
    if return_folds:
        return lam, scores, np.array(losses, dtype=np.float64).reshape(len(grid), n_folds)
    return lam, scores


# --------------------------------------------------------------------------------------
# coefficient tables of the multinomial family

#: Rows per block of the Hessian accumulation.
_HESSIAN_BLOCK = 4096


def multinomial_hessian(U, weight, bias, weights=None):
    """Hessian of the summed multinomial NLL of ``softmax(U W^T + b)`` (no penalty).

    Parameters are ordered as probcal's ``par``: ``[W | b]`` (k x (d + 1)) flattened
    column-major, i.e. ``W`` column-major then ``b``. Accumulated in row blocks by matrix
    products: the ``p p'`` part as ``A' A`` with rows ``A_i = x_i (x) p_i``, the ``diag(p)``
    part one ``X' diag(p_j) X`` per class, so that ``k = 40`` classes cost seconds. With
    case ``weights`` each row's term counts ``w_i`` times (the information of the
    replicated data for integer weights).
    """
    U = np.asarray(U, dtype=np.float64)
    W = np.asarray(weight, dtype=np.float64)
    b = np.asarray(bias, dtype=np.float64)
    n, d = U.shape
    k, q = W.shape[0], d + 1
    H = np.zeros((q * k, q * k))
    H4 = H.reshape(q, k, q, k)  # a view: the diag(p) blocks are written into H
    for start in range(0, n, _HESSIAN_BLOCK):
        Ub = U[start:start + _HESSIAN_BLOCK]
        Xa = np.column_stack([Ub, np.ones(Ub.shape[0])])
        p = softmax(Ub @ W.T + b)
        pw = p if weights is None else p * np.asarray(weights, dtype=np.float64)[start:start + _HESSIAN_BLOCK, None]
        A = (Xa[:, :, None] * p[:, None, :]).reshape(Xa.shape[0], q * k)
        Aw = (Xa[:, :, None] * pw[:, None, :]).reshape(Xa.shape[0], q * k)
        H -= Aw.T @ A
        for j in range(k):
            H4[:, j, :, j] += (Xa * pw[:, j:j + 1]).T @ Xa
    return 0.5 * (H + H.T)


def penalised_hessian(fit, U, w=None):
    """The Hessian of ``n`` times the penalised objective of a fit of this module at its
    parameters (``n`` the total case weight): :func:`multinomial_hessian` plus ``2 n lambda``
    on the penalised weights and ``2 n mu`` on the intercepts."""
    W = np.asarray(fit.weight, dtype=np.float64)
    k, d = W.shape
    lam, mu, penalty = penalties(fit)
    H = multinomial_hessian(U, W, np.asarray(fit.bias, dtype=np.float64), weights=w)
    total = U.shape[0] if w is None else rsum(w)
    pen = np.concatenate([penalty_mask(k, d, penalty).ravel(order="F").astype(np.float64) * 2.0 * total * lam,
                          np.full(k, 2.0 * total * mu)])
    return H + np.diag(pen)


def penalties(fit):
    """``(lambda, mu, penalty)`` of a fit: ``mu`` defaults to ``lambda`` (Dirichlet's ODIR)."""
    lam = float(fit.lambda_)
    mu = getattr(fit, "mu", None)
    return lam, lam if mu is None else float(mu), getattr(fit, "penalty", None) or fit._penalty


def logit_data(x, y):
    """Training logits ``x`` and class labels ``y`` given to ``coef_table()``, checked:
    ``(Z, codes)``."""
    Z = v.check_logit_matrix(x, "x")
    codes, _, _ = v.check_multiclass_y(y, Z.shape[1])
    refuse_misnamed_columns(x, y, "x")
    return Z, codes


class MultinomialCoefTable:
    """The coefficient table of a fit ``softmax(U W^T + b)`` of this module (a mixin of
    the Dirichlet and matrix-scaling calibrators).

    Standard errors come from the penalised observed information, the Hessian of the summed
    negative log-likelihood plus the penalty's; z and p test ``W = I`` and intercepts 0.
    ``_features`` says what ``U`` is (``"dirichlet"``: ``log`` of the clipped
    probabilities; ``"logits"``), ``_penalty`` which weights the penalty acts on.
    """

    _features = "dirichlet"
    _penalty = "odir"

    def _has_coef_table(self):
        return self.__dict__.get("_coef_data") is not None

    def _features_of(self, x, y):
        if self._features == "dirichlet":
            P = v.check_prob_matrix(x, "x")
            codes, _, _ = v.check_multiclass_y(y, P.shape[1])
            refuse_misnamed_columns(x, y, "x")
            return libm.log(v.clip_prob(P, self.eps)), codes
        return logit_data(x, y)

    def _coef_table(self, x, y):
        U, codes = self._training_data(x, y, self._features_of)
        k = self.k
        W = np.asarray(self.weight, dtype=np.float64)
        b = np.asarray(self.bias, dtype=np.float64)
        d = W.shape[1]
        lam, mu, penalty = penalties(self)
        H = penalised_hessian(self, U, self._training_weights(x))
        se, singular, m = se_from_hessian(H)
        # par order: column-major [W | b]: index j + k * m (m = d: intercept). Rows per class.
        order, names, null = [], [], []
        if d == k:
            feat = ([f"log(p[{lv}])" for lv in self.levels] if self._features == "dirichlet"
                    else [f"z[{lv}]" for lv in self.levels])
        else:
            feat = [f"u{m + 1}" for m in range(d)]
        for j, lv in enumerate(self.levels):
            order.append(j + k * d)
            names.append(f"{lv}: (Intercept)")
            null.append(0.0)
            for mm in range(d):
                order.append(j + k * mm)
                names.append(f"{lv}: {feat[mm]}")
                null.append(1.0 if mm == j else 0.0)
        est = np.concatenate([W.ravel(order="F"), b])[order]
        if lam > 0 or mu > 0:
            what = "off-diagonal weights" if penalty == "odir" else "weights"
            note = (f"Standard errors from the penalised observed information: the Hessian of the summed "
                    f"negative log-likelihood plus n * lambda * ({what}^2) + n * mu * (intercepts^2) "
                    f"(lambda = {lam:g}, mu = {mu:g}); estimates are shrunk, so these are ridge-type "
                    "(Bayesian) standard errors. z and p test W = I and intercepts = 0.")
        else:
            note = ("Standard errors from the observed information (Hessian of the summed negative "
                    "log-likelihood, lambda = 0). z and p test W = I and intercepts = 0.")
        if singular:
            note += SINGULAR_NOTE.format(m=m)
        return coef_frame(names, est, se[order], null, note)


# --------------------------------------------------------------------------------------
# delta-method uncertainty of the calibrated probabilities (predict(se_fit=, interval=))

#: Largest number of free parameters whose covariance ``predict(se_fit=True)`` forms (a
#: ``p x p`` matrix from a Hessian costing ``n p^2``): Dirichlet calibration up to about 44
#: classes.
MAX_SE_PARAMETERS = 2000
#: Elements of the per-block Jacobian ``rows x classes x parameters``.
_SE_BLOCK_ELEMENTS = 2_000_000


def uncertainty_args(newdata, se_fit, interval, level):
    """``predict``'s ``(se_fit, interval, level)`` checked, and whether any is requested;
    a Dask ``newdata`` is refused when one is."""
    se_fit, interval, level = v.check_prediction_args(se_fit, interval, level)
    wanted = bool(se_fit) or interval is not None
    if wanted and any_dask(newdata):
        v.refuse_dask_se()
    return wanted, se_fit, interval, level


def frame_index(newdata):
    """The index of a pandas ``newdata`` (None otherwise), for the prediction frame."""
    return newdata.index if isinstance(newdata, (pd.DataFrame, pd.Series)) else None


def training_data(fit):
    """What a fit kept for its covariance: ``(features, labels)``; fails when it kept none."""
    data = fit.__dict__.get("_coef_data")
    if data is None:
        v.fail_no_training_data()
    return data


def check_parameter_count(count, k):
    """Refuses a covariance of more than :data:`MAX_SE_PARAMETERS` parameters."""
    v.check_parameter_count(count, k, MAX_SE_PARAMETERS)


def covariance_from_information(H):
    """``H^-1`` for a positive definite information ``H``; None when ``H`` is singular or
    not positive definite (e.g. BFGS stopped short on separable data)."""
    H = 0.5 * (np.asarray(H, dtype=np.float64) + np.asarray(H, dtype=np.float64).T)
    if not np.isfinite(H).all():
        return None
    w, Q = np.linalg.eigh(H)
    top = float(np.abs(w).max())
    if not (top > 0 and w.min() > 1e-9 * top):
        return None
    return (Q / w) @ Q.T


def warn_if_singular(V):
    """The warning of a fit whose covariance could not be formed (its standard errors are NaN)."""
    if V is None:
        v.warn_singular_information()


def class_logits(eta):
    """``logit(p_k)`` of ``p = softmax(eta)`` for every row and class, and its derivatives
    ``D[i, k, j] = d logit(p_ik) / d eta_ij``.

    ``logit(p_k) = eta_k - log(sum_{j != k} exp(eta_j))``, so ``D[i, k, k] = 1`` and
    ``D[i, k, j] = -q_j`` with ``q`` the softmax of the other classes' ``eta``: no
    cancellation in ``1 - p_k`` when ``p_k`` is near one.
    """
    eta = np.asarray(eta, dtype=np.float64)
    n, k = eta.shape
    idx = np.arange(k)
    others = np.repeat(eta[:, None, :], k, axis=1)
    others[:, idx, idx] = -np.inf
    top = others.max(axis=2, keepdims=True)
    e = np.exp(others - top)
    total = e.sum(axis=2, keepdims=True)
    logit = eta - (top[..., 0] + np.log(total[..., 0]))
    D = -(e / total)
    D[:, idx, idx] = 1.0
    return logit, D


def class_link_se(eta, variance, width=1):
    """Logits of the calibrated class probabilities and their delta-method standard errors.

    ``eta`` (n, k) are the linear predictors of the softmax; ``variance(rows, D)`` gives,
    for those rows, the variance of each class's ``logit(p_k)`` (an array ``(rows, k)``)
    from ``D`` (see :func:`class_logits`), or is None (NaN standard errors). Rows go in
    blocks of about ``2e6 / (k * width)``.
    """
    eta = np.asarray(eta, dtype=np.float64)
    n, k = eta.shape
    logit = np.empty((n, k))
    se = np.full((n, k), np.nan)
    step = max(1, _SE_BLOCK_ELEMENTS // (k * max(width, 1)))
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        logit[rows], D = class_logits(eta[rows])
        if variance is not None:
            se[rows] = np.sqrt(np.maximum(variance(rows, D), 0.0))
    return logit, se


def jacobian_variance(J, V):
    """``diag(J V J')`` for each row and class of a Jacobian ``J`` (rows, k, p)."""
    rows, k, p = J.shape
    flat = J.reshape(rows * k, p)
    return np.einsum("ij,ij->i", flat @ V, flat).reshape(rows, k)


def multinomial_free(k, d, lam, mu):
    """Indices of ``par = [W | b]`` (column-major) that the penalised objective identifies.

    The softmax does not change when the same vector is added to every class's weights (or
    the same number to every intercept), so an unpenalised block has one class too many:
    class 1's weights are held fixed when ``lam == 0`` and its intercept when ``mu == 0``
    (the standard errors of the probabilities do not depend on which class is held).
    """
    fixed = set()
    if lam == 0:
        fixed.update(k * m for m in range(d))
    if mu == 0:
        fixed.add(k * d)
    return np.array([i for i in range(k * (d + 1)) if i not in fixed], dtype=np.int64)


class MultinomialUncertainty:
    """``predict(se_fit=, interval=)`` of a fit ``softmax(U W^T + b)`` of this module (a
    mixin of the Dirichlet and matrix-scaling calibrators).

    The covariance of the parameters is the inverse of the observed information of the
    objective actually minimised, on the summed scale: the Hessian of the summed negative
    log-likelihood (case weights counted as frequencies) plus that of the ridge penalty,
    ``2 n lambda`` on the penalised weights and ``2 n mu`` on the intercepts (``n`` the sum
    of the weights). With a penalty these are ridge-type (Bayesian) standard errors, as in
    :meth:`coef_table`; an unpenalised block drops class 1's copy of it (see
    :func:`multinomial_free`). Computed on the first request and kept with the fit.
    """

    _penalty = "odir"

    def _information(self):
        """The Hessian of ``n`` times the penalised objective at the fit, all parameters."""
        U, _ = training_data(self)
        return penalised_hessian(self, U, self.__dict__.get("_fit_weights"))

    def _se_covariance(self):
        """``(free, V)``: the identified parameters and their covariance (None when the
        information is singular), kept with the fit after the first request."""
        cached = self.__dict__.get("_se_cov")
        if cached is not None:
            return cached
        k, d = np.shape(self.weight)
        lam, mu, _ = penalties(self)
        free = multinomial_free(k, d, lam, mu)
        check_parameter_count(free.size, k)
        H = self._information()
        cached = (free, covariance_from_information(H[np.ix_(free, free)]))
        object.__setattr__(self, "_se_cov", cached)
        return cached

    def _uncertainty_frame(self, U, prob, newdata, se_fit, interval, level):
        from ..results._prediction import prediction_frame

        free, V = self._se_covariance()
        warn_if_singular(V)
        W = np.asarray(self.weight, dtype=np.float64)
        b = np.asarray(self.bias, dtype=np.float64)
        U = np.asarray(U, dtype=np.float64)
        k, d = W.shape
        q = d + 1
        Xa = np.column_stack([U, np.ones(U.shape[0])])
        variance = None
        if V is not None:
            # d logit p_k / d par[j + k m] = D[k, j] x_m (x_d = 1, the intercept). A held
            # parameter has variance 0, so V is padded with zeros to the full [W | b] layout
            # and the Kronecker structure used: A_i = (x_i' (x) I) V (x_i (x) I) is k x k,
            # var_ik = D_k' A_i D_k, a factor k cheaper than forming the Jacobian.
            full = np.zeros((q * k, q * k))
            full[np.ix_(free, free)] = V
            V2 = full.reshape(q, k * q * k)

            def variance(rows, D):
                x = Xa[rows]
                T = (x @ V2).reshape(x.shape[0], k, q, k)
                A = np.einsum("ijnl,in->ijl", T, x)
                return np.einsum("ikj,ijl,ikl->ik", D, A, D)

        logit, se = class_link_se(U @ W.T + b, variance, width=q * k)
        return prediction_frame(np.asarray(prob, dtype=np.float64), logit, se, se_fit=se_fit, interval=interval,
                                level=level, levels=self.levels, index=frame_index(newdata))

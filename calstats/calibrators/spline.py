"""Smooth spline calibration: a logistic regression of the labels on a spline of the
(logit-transformed) score.

Three bases, each R's own numbers:

* ``"rcs"``: Harrell's restricted cubic spline, ``rms::lrm(y ~ rcs(qlogis(p), 5))``, with
  the knots of ``Hmisc::rcspline.eval`` (:func:`calstats.ports.hmisc.rcspline.rcspline_eval`)
  and the fit of R's ``glm.fit`` (:func:`calstats.ports.stats.glm.glm_binomial`);
* ``"ns"``: a natural cubic spline, ``glm(y ~ splines::ns(qlogis(p), df = 4), binomial)``
  (:func:`calstats.ports.stats.splines.ns`);
* ``"gam"``: a penalised thin plate regression spline, ``mgcv::gam(y ~ s(qlogis(p)),
  binomial, method = "REML")`` (:func:`calstats.ports.mgcv.gam.gam_binomial`).

A fitted map that decreases somewhere over the observed scores is reported with a warning;
``monotone=True`` fits the spline under the constraint that it never decreases there.
"""

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from .. import _validate as v
from .._call import records_call
from .._inputs import refuse_misnamed_columns
from .._progress import collapses_warnings
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.delta import link_se
from ..kernels.probs import inv_logit, inv_logit_checked
from ..numerics import libm
from ..numerics.reductions import matmul, rsum
from ..numerics.rformat import round_text
from ..ports.hmisc.rcspline import rcspline_eval
from ..ports.mgcv.gam import gam_binomial
from ..ports.stats.glm import glm_binomial
from ..ports.stats.splines import ns
from ..results._base import Calibrator
from ..results._coeftable import glm_table
from ..results._prediction import prediction_frame
from .ovr import CalOvr

__all__ = ["cal_spline", "CalSpline"]

BASES = ("rcs", "ns", "gam")
TRANSFORMS = ("logit", "identity", "none")
PENALTIES = ("REML", "GCV.Cp")

#: Points of the grid over the observed range of the transformed score on which
#: monotonicity is checked (and, with ``monotone=True``, imposed).
GRID_SIZE = 1001

_BASIS_TEXT = {"rcs": "restricted cubic spline", "ns": "natural cubic spline",
               "gam": "penalised thin plate regression spline"}

# --------------------------------------------------------------------------------------
# the fitted map


class CalSpline(Calibrator):
    """A fitted spline calibration map (class ``cal_spline``).

    Attributes
    ----------
    basis : str
        ``"rcs"``, ``"ns"`` or ``"gam"``.
    transf : str
        ``"logit"`` (the spline's argument is ``z = logit(p*)``, ``p*`` being ``p`` clipped
        to ``[eps, 1 - eps]``) or ``"identity"`` (``z`` is the score itself).
    knots : ndarray or None
        ``"rcs"``: every knot (R's ``attr(rcspline.eval(...), "knots")``); ``"ns"``: the
        interior knots (R's ``attr(ns(...), "knots")``); ``"gam"``: None. On the scale of ``z``.
    boundary_knots : ndarray or None
        ``"ns"``: R's ``attr(ns(...), "Boundary.knots")`` (the range of ``z``); else None.
    df : int
        Number of spline coefficients besides the intercept (for ``"gam"`` the basis
        dimension ``k - 1``, not the effective degrees of freedom ``fit.edf_total``).
    coefficients : pandas.Series
        ``(Intercept)`` then the spline's coefficients (``z``, ``z'``, ... for ``"rcs"`` as
        rms names them; ``ns(z)1``, ... for ``"ns"``; ``s(z).1``, ... for ``"gam"``, with
        ``z`` spelled ``logit_p`` or ``x``).
    fit : GlmFit or GamFit
        R's ``glm`` fit (``"rcs"``, ``"ns"``) or mgcv's ``gam`` fit (``"gam"``). For a
        monotone fit, the unconstrained fit it started from.
    monotone : bool
        Whether the fit was constrained to be non-decreasing.
    loglik : float
        The (weighted) binomial log-likelihood of the coefficients.
    eps : float
        Clipping constant of ``p`` before the logit.
    """

    r_class = ("cal_spline", "calibrator")
    _r_fields = ("method", "n", "input", "basis", "transf", "knots", "boundary_knots", "df", "coefficients",
                 "fit", "monotone", "loglik", "eps", "call")
    # fields, set by the constructor (declared for type checkers)
    basis: str
    transf: str
    knots: np.ndarray | None
    boundary_knots: np.ndarray | None
    df: int
    coefficients: pd.Series
    fit: Any
    monotone: bool
    loglik: float
    eps: float

    def _parameter_items(self):
        items = [("Basis", f"{_BASIS_TEXT[self.basis]}, {self.df} df"), ("Transform", self.transf)]
        if self.knots is not None:
            items.append(("Knots", " ".join(round_text(k, 4) for k in self.knots)))
        if self.basis == "gam":
            items.append(("Penalty", f"{self.fit.criterion}, sp {round_text(self.fit.sp, 4)}, "
                                     f"edf {round_text(self.fit.edf_total, 2)}"))
        if self.monotone:
            items.append(("Monotone", "constrained to be non-decreasing"))
        return items + [(str(k), round_text(c, 4)) for k, c in self.coefficients.items()]

    def _parameter_tables(self):
        return {"coefficients": self.coefficients.rename("estimate").to_frame()}

    def _has_coef_table(self):
        return self.basis != "gam" and not self.monotone

    def _coef_table(self, x, y):
        if self.monotone:
            v.fail_spline_table("`monotone = True`")
        if self.basis == "gam":
            v.fail_spline_table("the penalised basis (its Wald table is mgcv's summary.gam)")
        return glm_table(self.fit, f"The regressors are the {_BASIS_TEXT[self.basis]} columns.")

    # -- prediction ------------------------------------------------------------------
    def _z(self, newdata):
        if self.transf == "logit":
            return _logit(v.clip_prob(v.check_prob(newdata, "newdata"), self.eps))
        return v.check_numeric(newdata, "newdata")

    def _design(self, z):
        return _design(self.basis, z, self.knots, self.boundary_knots, self.fit)

    def predict(self, newdata: Scores, se_fit: bool = False, interval: str | None = None,
                level: float = 0.95, **kwargs: Any) -> Any:
        """Calibrated probabilities at ``newdata``.

        Parameters
        ----------
        newdata : array_like
            Probabilities (``transf="logit"``, clipped to ``[eps, 1 - eps]``) or scores
            (``transf="identity"``). Beyond the training range the spline continues
            linearly in ``z``, as R's ``rcs`` and ``ns`` do (and mgcv's thin plate basis
            as ``predict.gam`` evaluates it).
        se_fit : bool, default False
            Also return the linear predictor and its standard error: R's
            ``predict.glm(fit, newdata, type = "link", se.fit = TRUE)`` (``"rcs"``, ``"ns"``)
            or ``predict.gam(..., se.fit = TRUE)`` with mgcv's Bayesian posterior
            covariance ``Vp`` (``"gam"``).
        interval : {None, "confidence"}
            A Wald interval on the link scale mapped through the inverse logit.
        level : float, default 0.95

        Returns
        -------
        ndarray or pandas.DataFrame
            The probabilities (1-D float64) or, with ``se_fit`` or ``interval``, a
            DataFrame with ``fit`` (and ``link``, ``se_link``, ``lower``, ``upper``).
        """
        se_fit, interval, level = v.check_prediction_args(se_fit, interval, level)
        z = self._z(newdata)
        X = self._design(z)
        eta = matmul(X, self.coefficients.to_numpy(dtype=np.float64))
        prob = inv_logit_checked(eta)
        if not se_fit and interval is None:
            return prob
        if self.monotone:
            v.refuse_monotone_se()
        se = link_se(X, self._covariance())
        index = newdata.index if isinstance(newdata, pd.Series) else None
        return prediction_frame(prob, eta, se, se_fit=se_fit, interval=interval, level=level, index=index)

    def _covariance(self):
        if self.basis == "gam":
            return self.fit.vcov
        names = list(self.coefficients.index)
        return self.fit.cov_unscaled.loc[names, names].to_numpy(dtype=np.float64)


# --------------------------------------------------------------------------------------
# building blocks


def _logit(p):
    """R's ``qlogis(p)``: ``log(p / (1 - p))``."""
    return libm.log(p / (1.0 - p))


def _design(basis, z, knots, boundary_knots, fit):
    """The model matrix (intercept first) of the spline at ``z``."""
    if basis == "rcs":
        S = rcspline_eval(z, knots=knots)[0]
    elif basis == "ns":
        S = ns(z, knots=knots, boundary_knots=boundary_knots).matrix
    else:
        return fit.lpmatrix(z)
    return np.column_stack([np.ones(z.size), S])


def _coef_names(basis, ncol, transf):
    var = "logit_p" if transf == "logit" else "x"
    if basis == "rcs":
        return ["(Intercept)"] + [var + "'" * j for j in range(ncol)]
    if basis == "ns":
        return ["(Intercept)"] + [f"ns({var}){j + 1}" for j in range(ncol)]
    return ["(Intercept)"] + [f"s({var}).{j + 1}" for j in range(ncol)]


def _whole(x, lower):
    """``x`` as an int when it is a single whole number ``>= lower`` (not a bool), else None."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.integer, np.floating)):
        return None
    xf = float(x)
    if not math.isfinite(xf) or xf != math.floor(xf) or xf < lower:
        return None
    return int(xf)


def _check_knots(knots, basis):
    """``(count, positions)``: one of them None."""
    if np.ndim(knots) == 0:
        count = _whole(knots, 3)
        if count is None:
            v.fail_spline_knots("rcs")
        return count, None
    if basis == "gam":
        v.refuse_gam_knots()
    try:
        pos = np.array(knots, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        v.fail_spline_knots(basis)
    if not np.isfinite(pos).all() or (basis == "rcs" and np.unique(pos).size < 3) or pos.size == 0:
        v.fail_spline_knots(basis)
    return None, pos


def _too_few(basis, m, need):
    v.fail_spline_distinct(_BASIS_TEXT[basis], m, need)


def _loglik(eta, y, w):
    """Binomial log-likelihood ``sum w (y eta - log(1 + exp(eta)))``, overflow-safe."""
    ll = y * eta - np.logaddexp(0.0, eta)
    return float(rsum(ll if w is None else w * ll))


# --------------------------------------------------------------------------------------
# monotonicity


def _grid(z):
    return np.linspace(float(np.min(z)), float(np.max(z)), GRID_SIZE)


def _decreasing_runs(zg, eta):
    """``[(z_from, z_to), ...]``: stretches of the grid on which ``eta`` decreases by more
    than rounding (a relative 1e-9 of its range)."""
    d = np.diff(eta)
    tol = 1e-9 * max(1.0, float(np.max(eta) - np.min(eta)))
    dec = d < -tol
    runs = []
    i = 0
    while i < dec.size:
        if dec[i]:
            j = i
            while j + 1 < dec.size and dec[j + 1]:
                j += 1
            runs.append((zg[i], zg[j + 1]))
            i = j + 1
        else:
            i += 1
    return runs


def _warn_not_monotone(runs, transf):
    def back(zv):
        if transf != "logit":
            return f"{float(zv):.3g}"
        if zv > 6.9:  # above p = 0.999, 1 - p shows where (p itself would print as 1)
            return f"1 - {float(inv_logit(-zv)):.3g}"
        return f"{float(inv_logit(zv)):.3g}"

    parts = [f"between p = {back(a)} and p = {back(b)}" for a, b in runs]
    v.warn_not_monotone(parts)


def _monotone_fit(X, y, w, beta0, A):
    """Maximise the binomial log-likelihood subject to ``A beta >= 0`` (SLSQP, from the
    unconstrained estimate)."""
    ww = np.ones(y.size) if w is None else w
    scale = float(rsum(ww))

    def objective(b):
        eta = X @ b
        mu = inv_logit(eta)
        f = -float(np.sum(ww * (y * eta - np.logaddexp(0.0, eta)))) / scale
        g = -(X.T @ (ww * (y - mu))) / scale
        return f, g

    norms = np.sqrt(np.sum(A * A, axis=1))
    keep = norms > 0
    An = A[keep] / norms[keep, None]
    cons = {"type": "ineq", "fun": lambda b: An @ b, "jac": lambda b: An}

    def solve(start):
        return minimize(objective, start, jac=True, method="SLSQP", constraints=[cons],
                        options={"ftol": 1e-14, "maxiter": 1000})

    res = solve(beta0)
    if not res.success:
        # From the infeasible unconstrained estimate, the linearised grid constraints (many,
        # nearly parallel) can look incompatible to SLSQP's subproblem; the constant fit is
        # feasible (every difference 0) and the problem is convex, so restart there.
        start = np.zeros(X.shape[1])
        ones = np.all(X == 1.0, axis=0)
        if ones.any():
            m = min(max(float(rsum(ww * y)) / scale, 1e-6), 1.0 - 1e-6)
            start[int(np.argmax(ones))] = float(np.log(m / (1.0 - m)))
        res = solve(start)
    if not res.success:
        v.fail_monotone_fit(res.message)
    return np.asarray(res.x, dtype=np.float64)


# --------------------------------------------------------------------------------------
# the public function


@collapses_warnings
@records_call("cal_spline")
def cal_spline(p: Scores, y: Labels, *, knots: Any = 5, df: int | None = None, transf: str = "logit",
               basis: str | None = None, penalty: str | None = None, monotone: bool = False,
               weights: Weights = None, eps: float = 1e-15) -> Any:
    """Spline calibration: a logistic regression of the labels on a smooth function of the score.

    Fits ``P(y = 1 | p) = inv_logit(f(z))`` with ``z = logit(p)`` (or the score itself) and
    ``f`` a cubic spline: Harrell's restricted cubic spline (the default), a natural cubic
    spline, or a penalised regression spline whose smoothness is chosen by REML.

    Parameters
    ----------
    p : array_like
        Uncalibrated probabilities in [0, 1] (``transf="logit"``) or scores
        (``transf="identity"``). A matrix with one column per class gives one-vs-rest
        calibration (see Returns).
    y : array_like
        Binary 0/1 labels, both classes present; for a matrix ``p``, class codes ``1..k``
        or a factor whose levels name the columns.
    knots : int or array_like, default 5
        ``"rcs"``: the number of knots, placed as ``Hmisc::rcspline.eval`` places them
        (quantiles of ``z``; with fewer than 100 observations the outer ones at the 5th
        smallest and largest values), or the knot positions on the scale of ``z``.
        ``"ns"``: a count is the number of knots including the two boundary knots
        (``ns(z, df = knots - 1)``, the same number of coefficients as ``"rcs"``); positions
        are R's interior ``knots`` (the boundary knots are the range of ``z``).
        ``"gam"``: a count is ignored; positions are refused.
    df : int, optional
        Number of spline coefficients besides the intercept; wins over a knot count.
        ``"rcs"``: ``df + 1`` knots; ``"ns"``: R's ``ns(z, df = df)`` (R's rule: knot
        positions, if given, win over ``df``); ``"gam"``: mgcv's basis dimension
        ``k = df + 1`` (default ``k = 10``).
    transf : {"logit", "identity", "none"}
        The spline's argument: ``logit(p)`` with ``p`` clipped to ``[eps, 1 - eps]``, or the
        score unchanged (``"none"`` is ``"identity"``).
    basis : {"rcs", "ns", "gam"}, optional
        Default ``"rcs"``, or ``"gam"`` when ``penalty`` is given.
    penalty : {"REML", "GCV.Cp"}, optional
        A penalised spline (``basis="gam"``) with mgcv's smoothing-parameter criterion
        (``gam(method = )``); ``"REML"`` when ``basis="gam"`` is given without it.
    monotone : bool, default False
        Constrain the fit to be non-decreasing over the observed range of ``z`` (bases
        ``"rcs"`` and ``"ns"``; see Notes).
    weights : array_like, optional
        Case weights as ``glm(weights = )`` (bases ``"rcs"`` and ``"ns"``); integer weights
        give the fit of the data with each row repeated (for given knot positions: default
        knots are placed on the distinct rows, as in R).
    eps : float, default 1e-15
        Clipping constant in (0, 0.5) for ``transf="logit"``.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalSpline or CalOvr
        A :class:`CalSpline`; for a matrix ``p`` a :class:`~calstats.calibrators.ovr.CalOvr`
        (``base_method="spline"``) holding one binary spline per class.

    Warns
    -----
    CalstatsWarning
        When the fitted map decreases somewhere over the observed range of ``z`` (checked
        on a grid of 1001 points), naming where: ``The spline calibration map is not
        monotone: it decreases between p = 0.12 and p = 0.18.``; Hmisc's knot warnings
        (e.g. too few unique values for the requested knots) and R's ``glm.fit`` warnings.

    Notes
    -----
    R equivalents (not in R's probcal):

    * ``"rcs"``: ``rms::lrm(y ~ rcs(qlogis(p), 5))``: the same knots (``Hmisc`` 4.8-0) and
      model; the coefficients are R's ``glm(y ~ <rcspline.eval columns>, binomial)``, which
      stops at a relative deviance change of 1e-8 where ``lrm`` stops at a change of 0.025
      in ``-2 log L`` (so ``lrm``'s defaults sit up to ~1e-4 from the maximum; with
      ``lrm(eps = 1e-12)`` both agree to ~1e-9);
    * ``"ns"``: ``glm(y ~ splines::ns(qlogis(p), df = 4), binomial)``;
    * ``"gam"``: ``mgcv::gam(y ~ s(qlogis(p)), binomial, method = "REML")`` (thin plate
      basis, mgcv 1.8-41); unweighted only.

    A design whose spline columns are collinear (too few distinct scores for the knots) is
    refused, where R would return aliased (``NA``) coefficients.

    ``monotone=True`` is calstats' own method, not an R function: it maximises the
    binomial likelihood subject to linear constraints ``f(z_{i+1}) >= f(z_i)`` on the
    1001-point grid over the observed range of ``z`` (SciPy's SLSQP, started from the
    unconstrained fit). Between grid points a cubic piece may dip by a negligible amount.
    The constrained fit has no Wald covariance, so ``predict(se_fit=True)`` and the
    coefficient table are refused for it.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> rng = np.random.default_rng(1)
    >>> p = 1 / (1 + np.exp(-rng.normal(size=300)))
    >>> y = (rng.uniform(size=300) < p).astype(int)
    >>> fit = calstats.cal_spline(p, y)
    >>> fit.predict([0.1, 0.5, 0.9]).shape
    (3,)
    """
    basis_, penalty_, transf_, count, positions, df_, mono = _check_options(knots, df, transf, basis, penalty,
                                                                           monotone)
    if v.is_matrix(p) and np.shape(p)[1] != 1:
        return _ovr(p, y, basis_, penalty_, transf_, count, positions, df_, mono, weights, eps)
    return _fit_binary(p, y, basis_, penalty_, transf_, count, positions, df_, mono, weights, eps)


def _check_options(knots, df, transf, basis, penalty, monotone):
    transf = v.match_arg(transf, TRANSFORMS)
    if transf == "none":
        transf = "identity"
    if penalty is not None:
        penalty = v.match_arg(penalty, PENALTIES)
    basis = ("gam" if penalty is not None else "rcs") if basis is None else v.match_arg(basis, BASES)
    if penalty is not None:
        v.refuse_penalty(basis)
    if basis == "gam" and penalty is None:
        penalty = "REML"
    count, positions = _check_knots(knots, basis)
    if df is not None:
        df = _whole(df, 2)
        if df is None:
            v.fail_spline_df()
    mono = v.check_flag(monotone, "monotone")
    v.refuse_monotone_gam(mono, basis)
    return basis, penalty, transf, count, positions, df, mono


def _ovr(p, y, basis, penalty, transf, count, positions, df, mono, weights, eps):
    vec = v.as_vec(p)
    if vec.kind != "numeric":
        v.fail_vector_or_matrix("p")
    X = np.array(vec.values, dtype=np.float64)
    if vec.na.any() or not np.isfinite(X).all():
        v.fail_missing_or_infinite("p")
    if transf == "logit" and ((X < 0) | (X > 1)).any():
        v.fail_not_probabilities("p")
    codes, levels, k = v.check_multiclass_y(y, X.shape[1])
    refuse_misnamed_columns(p, y)
    v.check_nobs("p", "y", X.shape[0], codes.size)
    v.check_every_class(codes, k)
    w = check_weights(weights, X.shape[0])
    cals = [_fit_binary(X[:, j], (codes == j + 1).astype(np.int64), basis, penalty, transf, count, positions,
                        df, mono, w, eps) for j in range(k)]
    return CalOvr(method="one-vs-rest " + cals[0].method, n=int(X.shape[0]),
                  input="probabilities (matrix)" if transf == "logit" else "scores (matrix)",
                  base_method="spline", calibrators=cals, k=int(k), levels=list(levels), call=None)


def _fit_binary(p, y, basis, penalty, transf, count, positions, df, mono, weights, eps):
    if transf == "logit":
        pv = v.check_prob(p, "p")
    else:
        pv = v.check_numeric(p, "p")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("p", "y", pv.size, yv.size)
    if yv.dtype.kind == "f":  # a logical NA label: glm would drop the row, the knots would not
        v.fail_missing("y")
    yf = yv.astype(np.float64)
    eps = v.check_eps(eps)
    w = check_weights(weights, pv.size)
    if basis == "gam" and w is not None:
        v.refuse_weights(w, "with `basis = \"gam\"` (mgcv's fit is ported without weights)")
    z = _logit(v.clip_prob(pv, eps)) if transf == "logit" else pv
    m = int(np.unique(z).size)
    boundary = None
    if basis == "rcs":
        if positions is None:
            nk = df + 1 if df is not None else count
            if m < 5:  # Hmisc then has fewer than 3 interior unique values to use as knots
                _too_few(basis, m, 5)
            S, kn = rcspline_eval(z, nk=nk)
        else:
            S, kn = rcspline_eval(z, knots=positions)
        knots_out = np.asarray(kn, dtype=np.float64)
    elif basis == "ns":
        if positions is None:
            ndf = df if df is not None else count - 1
            if m < ndf + 1:
                _too_few(basis, m, ndf + 1)
            b = ns(z, df=ndf)
        else:
            if m < 2:
                _too_few(basis, m, 2)
            if positions.min() <= z.min() or positions.max() >= z.max():
                v.fail_spline_knots("ns")
            b = ns(z, knots=positions)
        S, knots_out, boundary = b.matrix, b.knots.copy(), b.boundary_knots.copy()
    else:
        k = df + 1 if df is not None else 10
        if m < k:
            _too_few(basis, m, k)
        return _fit_gam(z, yf, pv.size, k, penalty, transf, eps)
    X = np.column_stack([np.ones(z.size), S])
    names = _coef_names(basis, S.shape[1], transf)
    glm = glm_binomial(X, yf, names, warn=True, weights=w)
    if glm.rank < X.shape[1]:
        v.fail_spline_rank(_BASIS_TEXT[basis], glm.rank, X.shape[1])
    beta = glm.coefficients.to_numpy(dtype=np.float64)
    zg = _grid(z)
    Xg = _design(basis, zg, knots_out, boundary, None)
    if mono:
        if _decreasing_runs(zg, Xg @ beta):
            beta = _monotone_fit(X, yf, w, beta, np.diff(Xg, axis=0))
        coef = pd.Series(beta, index=names)
    else:
        coef = glm.coefficients.copy()
        runs = _decreasing_runs(zg, matmul(Xg, beta))
        if runs:
            _warn_not_monotone(runs, transf)
    return CalSpline(method="spline calibration", n=int(pv.size),
                     input="probabilities" if transf == "logit" else "scores",
                     basis=basis, transf=transf, knots=knots_out, boundary_knots=boundary,
                     df=int(S.shape[1]), coefficients=coef, fit=glm, monotone=mono,
                     loglik=_loglik(X @ beta, yf, w), eps=eps, call=None)


def _fit_gam(z, y, n, k, penalty, transf, eps):
    gam = gam_binomial(z, y, k=k, bs="tp", method=penalty)
    names = _coef_names("gam", gam.coefficients.size - 1, transf)
    coef = pd.Series(np.asarray(gam.coefficients, dtype=np.float64), index=names)
    zg = _grid(z)
    runs = _decreasing_runs(zg, matmul(gam.lpmatrix(zg), coef.to_numpy()))
    if runs:
        _warn_not_monotone(runs, transf)
    return CalSpline(method="spline calibration", n=int(n), input="probabilities" if transf == "logit" else "scores",
                     basis="gam", transf=transf, knots=None, boundary_knots=None, df=int(coef.size - 1),
                     coefficients=coef, fit=gam, monotone=False,
                     loglik=_loglik(np.asarray(gam.linear_predictors, dtype=np.float64), y, None), eps=eps,
                     call=None)

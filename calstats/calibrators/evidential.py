"""Evidential multinomial calibration (Xu, Davoine and Denoeux 2015; no R equivalent).

Xu, P., Davoine, F. & Denoeux, T. (2015). Evidential multinomial logistic regression for
multiclass classifier calibration. The one-parameter model ``softmax(theta * s)`` (eqs.
19-21) is fitted by maximum likelihood with the smoothed out-of-sample targets of eq. 25;
the relative likelihood ``pl(theta)`` (eq. 26) defines a consonant belief function on theta
whose focal sets are its level sets (eq. 27); the predictive contour function ``pl_s(j)``
(eq. 31) is computed exactly (as an integral over gamma, by quadrature) or by (quasi-)Monte
Carlo. Several calibrated classifiers are combined by the normalised product of their contour
functions (eq. 7) and classes chosen by the optimistic rule (eq. 5).
"""

import math
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy import optimize

from .. import _validate as v
from .._call import records_call
from .._frames import native
from .._inputs import refuse_misnamed_columns
from .._typing import ArrayLike, Labels, Scores, Weights
from ..kernels.probs import prob_frame, softmax
from ..numerics import libm
from ..numerics.rformat import round_text
from ..results._base import Calibrator
from . import _evidential_predictive as ep

__all__ = ["cal_evidential", "CalEvidential", "combine_calibrated", "pl_combine", "optimistic_decision"]

#: gamma* = exp(-qchisq(0.95, 1) / 2): Gamma(gamma*) is the 95% likelihood-ratio interval.
GAMMA_LR95 = math.exp(-3.841458820694124 / 2.0)
#: Level sets shown by ``summary()``.
SUMMARY_GAMMAS = (0.9, 0.5, GAMMA_LR95, 0.05, 0.01)


# --------------------------------------------------------------------------------------
# checks


def _check_tol(tol):
    return v.check_interval(tol, "tol")


def _check_gamma(gamma):
    return v.check_interval(gamma, "gamma", closed_right=True)


def _targets(codes, k, kind):
    """Hard one-hot targets or the smoothed targets of eq. 25."""
    n = codes.size
    T = np.zeros((n, k))
    rows = np.arange(n)
    if kind == "hard":
        T[rows, codes - 1] = 1.0
        return T
    counts = np.bincount(codes - 1, minlength=k).astype(np.float64)
    nk = counts[codes - 1]
    T[:] = (1.0 / (nk + k))[:, None]
    T[rows, codes - 1] = (nk + 1.0) / (nk + k)
    return T


# --------------------------------------------------------------------------------------
# fitted object


class CalEvidential(Calibrator):
    """A fitted evidential multinomial calibration (class ``cal_evidential``).

    Attributes
    ----------
    theta : float
        Maximum-likelihood theta (the inverse temperature of ``softmax(theta * s)``).
    se : float
        ``1 / sqrt(ell''(theta))`` (NaN when theta = 0).
    loglik, value : float
        ``-ell(theta)`` and ``ell(theta) / n`` with the chosen targets.
    convergence : int
        0 when Brent's root finder (and the level-set solver) converged, else 1.
    boundary : bool
        Whether theta = 0 (the scores carry no usable ranking information).
    pl0 : float
        ``pl(0)``: plausibility that the scores are uninformative.
    lr_interval : tuple
        ``Gamma(0.146447)``, the 95% likelihood-ratio interval of theta.
    class_counts : pandas.Series
        Calibration rows per class.
    targets, plausibility, predictive, grid, n_mc, tol, level_method, seed
        The settings used (``predictive`` is the ``method`` argument).
    k, levels : int, list of str
    """

    r_class = ("cal_evidential", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "theta", "se", "loglik", "value", "convergence", "boundary", "pl0",
                 "lr_interval", "class_counts", "targets", "plausibility", "predictive", "grid", "n_mc", "tol",
                 "level_method", "seed", "k", "levels", "call")
    #: the likelihood of theta on the calibration data (not an R field)
    _extras: tuple[str, ...] = ("_lik",)
    #: the summary ends with its tables: log-likelihood, class counts, boundary, convergence
    #: and the level sets for gamma in (0.9, 0.5, exp(-qchisq(0.95, 1)/2) = 0.1465, 0.05, 0.01)
    _summary_details = True
    # R fields, set by the constructor (declared for type checkers)
    theta: np.ndarray
    grid: int
    n_mc: int
    seed: Any
    predictive: str

    @property
    def coef(self):
        """``{"theta": theta}``."""
        return {"theta": self.theta}

    # -- belief function on theta (eqs. 26-27) ----------------------------------------
    def contour(self, theta):
        """Contour function ``pl(theta) = exp(ell(theta_hat) - ell(theta))`` (eq. 26).

        Parameters
        ----------
        theta : float or array_like
            Non-negative values.

        Returns
        -------
        float or ndarray
        """
        scalar = np.ndim(theta) == 0
        th = v.check_numeric(theta, "theta")
        if (th < 0).any():
            v.fail_negative("theta")
        out = libm.exp(-self.loglik - self._lik.evaluate(th))
        return float(out[0]) if scalar else out

    def level_set(self, gamma, method="root", tol=1e-5):
        """Focal set ``Gamma(gamma) = {theta >= 0 : pl(theta) >= gamma}`` (eq. 27).

        Parameters
        ----------
        gamma : float
            In (0, 1].
        method : {"root", "bisection"}
            Root finding (default) or the paper's Algorithm 1 (with two fixes: it returns 0
            when ``pl(0) >= gamma`` and starts the upper search at ``max(2 theta, 1)``),
            stopping when ``|pl - gamma| <= tol / 2``.
        tol : float
            epsilon of Algorithm 1.

        Returns
        -------
        tuple of float
            ``(lower, upper)``.
        """
        method = v.match_arg(method, ("root", "bisection"))
        g = _check_gamma(gamma)
        tol = _check_tol(tol)
        a, b, _ = ep.level_sets(self._lik, self.theta, -self.loglik, [g], method, tol)
        return float(a[0]), float(b[0])

    # -- predictions ------------------------------------------------------------------
    def _grid(self, n_panels):
        cache = self.__dict__.setdefault("_grid_cache", {})
        if n_panels not in cache:
            cache[n_panels] = ep.node_grid(self._lik, self.theta, -self.loglik, n_panels)
        return cache[n_panels]

    def _plausibility(self, X, method, grid, n_mc, seed):
        upper = self.plausibility == "upper"
        gam, a, b, _ = self._grid(grid)
        if method == "exact":
            return ep.pl_exact(X, gam, a, b, upper), None
        from .. import rng

        with rng._seeded(seed):
            if method == "montecarlo":
                dg = rng.runif(n_mc)
                dz = rng.runif(n_mc)
            else:
                s = int(rng.sample_int(2147483647, 1)[0])
        if method == "qmc":
            from scipy.stats import qmc

            pts = qmc.Sobol(d=2, scramble=True, seed=s).random_base2(max(0, math.ceil(math.log2(n_mc))))
            dg, dz = pts[:, 0], pts[:, 1]
        dg = np.maximum(np.asarray(dg, dtype=np.float64), ep.GAMMA_MIN)
        dz = np.asarray(dz, dtype=np.float64)
        am, bm, _ = ep.level_sets(self._lik, self.theta, -self.loglik, dg, self.level_method, self.tol)
        pl = ep.pl_sampled(X, gam, a, b, dg, dz, am, bm, upper)
        return pl, np.sqrt(pl * (1.0 - pl) / dg.size)

    def predict(self, newdata: Scores, type: str = "plausibility", method: str | None = None, grid: int | None = None,
                n_mc: int | None = None, seed: int | None = None, **kwargs: Any) -> Any:
        """Predictive plausibilities, calibrated probabilities or classes.

        Parameters
        ----------
        newdata : array_like or DataFrame (m, K)
            Scores on the scale of the calibration scores.
        type : {"plausibility", "prob", "class"}
            ``"plausibility"``: the predictive contour function pl_s(j) (eq. 31; rows need
            not sum to one); ``"prob"``: ``softmax(theta * s)``; ``"class"``: the optimistic
            decision argmax_j pl_s(j) (eq. 5, first maximum on ties).
        method, grid, n_mc, seed : optional
            Override the fit's settings for this call (see :func:`cal_evidential`).

        Returns
        -------
        DataFrame or pandas.Categorical
            Columns are the levels (index of a pandas input). With ``method="montecarlo"``
            or ``"qmc"`` the frame's ``attrs["std_error"]`` holds the binomial standard
            errors of the estimates.
        """
        type = v.match_arg(type, ("plausibility", "prob", "class"))
        method = self.predictive if method is None else v.match_arg(method, ("exact", "montecarlo", "qmc"))
        grid = self.grid if grid is None else v.check_grid(grid, 16)
        n_mc = self.n_mc if n_mc is None else v.check_bins(n_mc, "n_mc")
        seed = self.seed if seed is None else seed
        X = v.check_logit_matrix(newdata, "newdata")
        v.check_ncol(X.shape[1], self.k)
        if type == "prob":
            return prob_frame(softmax(self.theta * X), self.levels, like=newdata)
        pl, se = self._plausibility(X, method, grid, n_mc, seed)
        if type == "class":
            return pd.Categorical.from_codes(np.argmax(pl, axis=1), categories=pd.Index(self.levels))
        out = prob_frame(pl, self.levels, like=newdata)
        if se is not None:
            out.attrs["std_error"] = se
        return out

    def _parameter_items(self):
        lo, hi = self.lr_interval
        return [("Theta", round_text(self.theta, 4)), ("SE", round_text(self.se, 4)),
                ("LikelihoodInterval95", f"[{round_text(lo, 4)}, {round_text(hi, 4)}]"),
                ("PlausibilityTheta0", round_text(self.pl0, 4)), ("Targets", self.targets)]

    def _parameter_tables(self):
        a, b, _ = ep.level_sets(self._lik, self.theta, -self.loglik, np.array(SUMMARY_GAMMAS), self.level_method,
                                self.tol)
        fit = pd.DataFrame({"value": [self.loglik, self.value, str(self.boundary), self.convergence]},
                           index=pd.Index(["log-likelihood", "mean negative log-likelihood", "boundary",
                                           "convergence"], name="item"), dtype=object)
        counts = self.class_counts.rename("n").to_frame()
        levels = pd.DataFrame({"lower": a, "upper": b}, index=pd.Index(list(SUMMARY_GAMMAS), name="gamma"))
        return {"fit": fit, "class_counts": counts, "level_sets": levels}


# --------------------------------------------------------------------------------------
# fitting


def _theta_hat(lik):
    """Maximum-likelihood theta (root of ``ell'`` by Brent's method): (theta, boundary, convergence)."""
    if lik.d1(0.0) >= 0:
        v.warn_theta_zero()
        return 0.0, True, 0
    lo, hi = 0.0, 1.0
    while lik.d1(hi) < 0:
        lo, hi = hi, 2.0 * hi
        if hi > 1e12:
            v.fail_separation()
    root, res = optimize.brentq(lik.d1, lo, hi, xtol=1e-12, rtol=4 * np.finfo(float).eps, maxiter=500,
                                full_output=True, disp=False)
    return float(root), False, 0 if res.converged else 1


@records_call("cal_evidential")
def cal_evidential(scores: Scores, y: Labels, targets: str = "smoothed", plausibility: str = "sampling",
                   method: str = "exact", grid: int = 1024, n_mc: int = 10000, tol: float = 1e-5,
                   level_method: str = "root", seed: int | None = None, *, weights: Weights = None) -> CalEvidential:
    """Evidential multinomial calibration (Xu, Davoine & Denoeux, 2015).

    Fits ``g(s, theta) = softmax(theta * s)`` (eqs. 19-21, temperature scaling with
    ``theta = 1/T``) by maximum likelihood, and represents the estimation uncertainty by
    the likelihood-based belief function with contour ``pl(theta) = L(theta) / L(theta_hat)``
    (eq. 26). Predictions are the predictive contour function ``pl_s(j)`` of eq. 31.

    Parameters
    ----------
    scores : array_like or DataFrame (n, K)
        Finite uncalibrated scores (e.g. one-vs-all SVM decision values), one column per
        class, any real scale.
    y : array_like of int, pandas.Categorical or Factor
        Labels: class codes 1..K or a factor with K levels.
    targets : {"smoothed", "hard"}
        ``"smoothed"``: the out-of-sample targets of eq. 25,
        ``(n_k + 1)/(n_k + K)`` for the observed class and ``1/(n_k + K)`` otherwise;
        ``"hard"``: one-hot targets (eq. 24).
    plausibility : {"sampling", "upper"}
        ``"sampling"``: eq. 31 with the sampling model phi of eqs. 28-30 taken in the column
        (level) order of ``scores`` -- the result depends on that order (the paper is silent
        on it). ``"upper"``: the order-free upper probability ``int_0^1 max_{theta in
        Gamma(gamma)} g_j(s, theta) dgamma`` (not in the paper; never larger).
    method : {"exact", "montecarlo", "qmc"}
        Predictive computation: the exact reduction ``pl_s(j) = int_0^1 [max G_j -
        min G_{j-1}] dgamma`` by quadrature on ``grid`` panels (default), the paper's Monte
        Carlo with ``n_mc`` draws of (gamma, Z) shared by all rows, or scrambled Sobol points.
    grid : int
        Panels N of the quadrature (>= 16); error O(N^-2), about 1e-6 at 1024.
    n_mc : int
        Monte Carlo size M (QMC uses the next power of two).
    tol : float
        epsilon of Algorithm 1 when ``level_method="bisection"``.
    level_method : {"root", "bisection"}
        Level-set solver for the Monte Carlo draws, the likelihood interval and the summary:
        monotone Newton root finding (default) or the paper's Algorithm 1 (fixed).
    seed : int, optional
        Seed of the R-compatible stream for ``"montecarlo"``/``"qmc"`` (as ``cal_cv``:
        the global state is restored afterwards); None uses and advances the global stream.
    weights : None
        Case weights are not supported: the evidential model's likelihood-based belief
        function counts each observation once (its contour function is a likelihood ratio
        over the sample), so weights have no defined meaning there; any value other than
        None raises an error.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalEvidential

    Notes
    -----
    Checks, in order: ``match.arg`` of ``targets``, ``plausibility``, ``method``,
    ``level_method``; ``scores`` a non-empty finite numeric matrix with at least two columns;
    ``y`` integer class codes from 1 or a factor, one class per column; equal numbers of
    observations; ``grid``; ``n_mc`` (a single positive integer); ``tol``; a non-constant
    row; hard targets without perfect separation.

    theta = 0 (with a warning) when ``ell'(0) >= 0``. Otherwise the root of ``ell'`` is
    bracketed by doubling and found by Brent's method (xtol 1e-12). With hard targets theta
    is ``1/T`` of :func:`calstats.cal_temperature`. Level sets are found by Newton's method
    started on the outer side of each root (``ell`` is convex, so the iterates are monotone),
    vectorised over gamma; Brent's method gives the same roots to ~1e-12.

    Examples
    --------
    >>> import numpy as np, calstats
    >>> Z = np.array([[2.0, .5, -1], [1.2, 1, .1], [-.5, 2.2, .3], [.3, .1, 1.9], [1.5, -.2, .4],
    ...               [.2, 1.4, 1.1], [-1, .3, 2.5], [.8, .9, .7], [1.9, 1.1, -.3], [-.2, .4, 1.3]])
    >>> fit = calstats.cal_evidential(Z, [1, 2, 2, 3, 1, 3, 3, 2, 1, 1])
    >>> round(fit.theta, 6)
    0.554891
    """
    v.refuse_weights(weights, "by evidential calibration: its belief function is built from the likelihood of the "
                              "unweighted sample. Use cal_dirichlet or cal_vector_scaling with weights")
    targets = v.match_arg(targets, ("smoothed", "hard"))
    plausibility = v.match_arg(plausibility, ("sampling", "upper"))
    method = v.match_arg(method, ("exact", "montecarlo", "qmc"))
    level_method = v.match_arg(level_method, ("root", "bisection"))
    S = v.check_logit_matrix(scores, "scores")
    codes, levels, k = v.check_multiclass_y(y, S.shape[1])
    refuse_misnamed_columns(scores, y, "scores")
    v.check_nobs("scores", "y", S.shape[0], codes.size)
    grid = v.check_grid(grid, 16)
    n_mc = v.check_bins(n_mc, "n_mc")
    tol = _check_tol(tol)
    if not (S.max(axis=1) > S.min(axis=1)).any():
        v.fail_constant_scores()
    if targets == "hard" and (S[np.arange(codes.size), codes - 1] >= S.max(axis=1)).all():
        v.fail_separation()
    lik = ep.Likelihood(S, _targets(codes, k, targets))
    theta, boundary, conv = _theta_hat(lik)
    ell, _, d2 = lik.evaluate([theta], order=2)
    ell, d2 = float(ell[0]), float(d2[0])
    se = math.nan if boundary else 1.0 / math.sqrt(d2)
    a, b, lconv = ep.level_sets(lik, theta, ell, [GAMMA_LR95], level_method, tol)
    n = int(S.shape[0])
    out = CalEvidential(
        method="evidential multinomial calibration", n=n, input="scores (matrix)", theta=theta, se=se,
        loglik=-ell, value=ell / n, convergence=int(conv or not lconv.all()), boundary=bool(boundary),
        pl0=math.exp(ell - lik.ell0), lr_interval=(float(a[0]), float(b[0])),
        class_counts=pd.Series(np.bincount(codes - 1, minlength=k), index=pd.Index(levels, name="class")),
        targets=targets, plausibility=plausibility, predictive=method, grid=grid, n_mc=n_mc, tol=tol,
        level_method=level_method, seed=seed, k=int(k), levels=list(levels), call=None, _lik=lik,
    )
    return out


# --------------------------------------------------------------------------------------
# combination (eq. 7) and decision (eq. 5)


def pl_combine(*pls):
    """Normalised product of contour functions (eq. 7; Dempster's rule on Bayesian masses).

    Parameters
    ----------
    *pls : array_like or DataFrame (n, K)
        Contour functions (or probabilities) of independent sources on the same classes.

    Returns
    -------
    DataFrame or ndarray
        Row-normalised product (rows sum to one), computed as a sum of logarithms
        (log 0 = -inf). A row whose product is 0 for every class (total conflict or
        underflow) is NaN, with a warning. A DataFrame when the first input is one.
    """
    if len(pls) == 0:
        v.fail_nothing_to_combine("contour function")
    pls = tuple(native(p, "pl") for p in pls)  # polars, pyarrow: pandas with their columns
    first = pls[0]
    cols = list(first.columns) if isinstance(first, pd.DataFrame) else None
    mats = []
    for i, p in enumerate(pls):
        if isinstance(p, pd.DataFrame) and cols is not None and list(p.columns) != cols:
            v.fail_combine_mismatch("contour functions", "identical columns")
        m = v.check_logit_matrix(p, "pl")
        if (m < 0).any():
            v.fail_negative_values("pl")
        if mats and m.shape != mats[0].shape:
            v.fail_combine_mismatch("contour functions", "the same shape")
        mats.append(m)
    logs = sum(libm.log(m) for m in mats)
    mx = logs.max(axis=1, keepdims=True)
    bad = ~np.isfinite(mx[:, 0])
    with np.errstate(invalid="ignore"):
        e = libm.exp(logs - mx)
        out = e / e.sum(axis=1, keepdims=True)
    out[bad] = np.nan
    if bad.any():
        v.warn_total_conflict(int(bad.sum()))
    if cols is not None:
        return pd.DataFrame(out, columns=cols, index=first.index)
    return out


def optimistic_decision(pl, levels=None):
    """Optimistic decision rule (eq. 5): the class of largest plausibility (first on ties).

    Returns a pandas.Categorical with ``levels`` (default: the DataFrame's columns, else
    1..K); an all-NaN row gives a missing value."""
    pl = native(pl, "pl")  # polars, pyarrow: pandas with their columns
    if isinstance(pl, pd.DataFrame):
        levels = [str(c) for c in pl.columns] if levels is None else levels
    m = np.asarray(pl, dtype=np.float64)
    levels = [str(i) for i in range(1, m.shape[1] + 1)] if levels is None else list(levels)
    nan = np.isnan(m).all(axis=1)
    codes = np.argmax(np.where(np.isnan(m), -np.inf, m), axis=1)
    codes[nan] = -1
    return pd.Categorical.from_codes(codes, categories=levels)


def combine_calibrated(*sources: Calibrator | ArrayLike, newdata: Any = None, type: str = "plausibility",
                       output: str = "combined") -> pd.DataFrame | pd.Categorical:
    """Combine several calibrated classifiers (Xu, Davoine & Denoeux 2015, eqs. 5 and 7).

    Parameters
    ----------
    *sources : Calibrator or array_like (n, K)
        Fitted multiclass calibrators (then ``newdata`` is required) or their predictions
        (matrices/DataFrames of plausibilities or probabilities with identical columns).
    newdata : array_like or list, optional
        The inputs of the calibrators: one matrix per source (a list/tuple of the same
        length as ``sources``, in the same order) or a single matrix used for all.
    type : {"plausibility", "prob"}
        For a :class:`CalEvidential` source: combine its predictive contour functions
        (evidential combination) or its probabilities ``softmax(theta s)`` (probabilistic
        combination). Other calibrators always contribute their probabilities.
    output : {"combined", "class"}
        The row-normalised product (a DataFrame whose rows sum to one: the plausibility
        transformation of Dempster's combination) or the optimistic decision (Categorical).

    Returns
    -------
    DataFrame or pandas.Categorical

    Notes
    -----
    The product of probability vectors, normalised, is Dempster's rule for Bayesian mass
    functions; the paper does not name its probabilistic rule and calstats uses this one.
    The paper writes the combination "up to proportionality"; calstats normalises rows to
    sum 1.
    """
    type = v.match_arg(type, ("plausibility", "prob"))
    output = v.match_arg(output, ("combined", "class"))
    if len(sources) == 0:
        v.fail_nothing_to_combine("calibrator or prediction")
    fitted = [isinstance(s, Calibrator) for s in sources]
    if any(fitted) and newdata is None:
        v.fail_newdata_needed()
    if isinstance(newdata, (list, tuple)):
        if len(newdata) != len(sources):
            v.fail_newdata_per_source()
        inputs = list(newdata)
    else:
        inputs = [newdata] * len(sources)
    preds = []
    for src, nd, is_fit in zip(sources, inputs, fitted):
        if is_fit:
            if isinstance(src, CalEvidential):
                preds.append(src.predict(nd, type=type))
            else:
                preds.append(cast(Calibrator, src).predict(nd))
        else:
            preds.append(src)
    levels = None
    for p in preds:
        if isinstance(p, pd.DataFrame):
            if levels is None:
                levels = list(p.columns)
            elif list(p.columns) != levels:
                v.fail_combine_mismatch("sources", "identical classes (columns)")
    mats = [p.to_numpy(dtype=np.float64) if isinstance(p, pd.DataFrame) else p for p in preds]
    comb = pl_combine(*mats)
    like = next((p for p in preds if isinstance(p, pd.DataFrame)), None)
    if levels is None:
        levels = [str(i) for i in range(1, comb.shape[1] + 1)]
    frame = prob_frame(comb, levels, like=like)
    if output == "class":
        return optimistic_decision(frame)
    return frame

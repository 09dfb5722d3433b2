"""Profile-likelihood confidence intervals of a binomial GLM, as R 4.2's ``confint(glm)``.

In R 4.2 ``confint()`` of a ``glm`` is MASS's ``confint.glm`` (MASS 7.3-58): it profiles
each coefficient with ``profile.glm`` and reads the interval off the profile with
``confint.profile.glm``. Both are reproduced step by step, so the intervals are R's and
not the exact roots of the likelihood-ratio equation (the two differ in the fourth or
fifth digit: R interpolates a cubic spline through about a dozen profile points):

* ``profile.glm(fitted, alpha = (1 - level)/4, maxsteps = 10, del = zmax/5)`` with
  ``zmax = sqrt(qchisq(1 - alpha, 1))``: for each coefficient and each direction it steps
  ``b_i = b0_i -/+ step * del * se_i`` (``step`` = 1, 2, ... while ``step < maxsteps`` and
  ``|z| < zmax``), refits the model without column ``i`` and with ``X[, i] * b_i`` added to
  the offset (``glm.fit`` started at the previous step's linear predictor), and records
  ``z = sign * sqrt(deviance - deviance0)`` (the dispersion is 1); the points are then
  sorted by ``z``;
* ``confint.profile.glm``: ``spline(x = b, y = z)`` (R's ``fmm`` cubic spline of
  ``stats/src/splines.c`` evaluated on ``seq.int(min, max, length.out = 3 * n)``), then
  ``approx(spline$y, spline$x, xout = qnorm(c(a, 1 - a)))`` with ``a = (1 - level)/2``
  (linear interpolation of the inverted spline, ``NA`` outside the profiled range).

The refits go through :func:`calstats.ports.stats.glm.glm_binomial`, R's ``glm.fit``
statement by statement, with its warnings when ``warn=True``.
"""

import math

import numpy as np
import pandas as pd
from scipy import special as _sp
from scipy.stats import chi2 as _chi2

from ..._errors import fail, warn
from ..._messages import APPROX_TWO_VALUES, PROFILE_BETTER_SOLUTION, REGULARIZE_TIES, SPLINE_NO_POINTS
from ..._robject import RObject
from ...numerics.interp import approx_constant, seq_length
from ...numerics.reductions import matmul, rmean
from ...numerics.rformat import round_text
from .glm import GlmFit, glm_binomial

__all__ = ["GlmProfile", "profile_glm", "confint_profile_glm", "confint_glm", "spline_fmm", "approx_linear"]


# --------------------------------------------------------------------------------------
# stats::spline (method = "fmm") and stats::approx (rule = 1)
# --------------------------------------------------------------------------------------


def _regularize(x, y):
    """``regularize.values(x, y, ties = mean)``: drop NA pairs, sort by x (stably) if
    unsorted, average y over tied x (R's ``mean``) with R's warning."""
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    if np.any(x[1:] < x[:-1]):
        o = np.argsort(x, kind="stable")
        x, y = x[o], y[o]
    ux, first = np.unique(x, return_index=True)
    if ux.size < x.size:
        warn(REGULARIZE_TIES)
        # x is sorted, so tied values are adjacent and unique() keeps R's order
        bounds = list(first) + [x.size]
        y = np.array([rmean(y[bounds[k]:bounds[k + 1]]) for k in range(ux.size)])
        x = ux
    return x, y


def _fmm_coef(x, y):
    """``fmm_spline`` of R's ``splines.c`` (Forsythe, Malcolm and Moler end conditions),
    1-based indices as there; returns the coefficient arrays ``b, c, d`` (0-based)."""
    n = len(x)
    b = [0.0] * (n + 1)
    c = [0.0] * (n + 1)
    d = [0.0] * (n + 1)
    X = [0.0] + [float(v) for v in x]
    Y = [0.0] + [float(v) for v in y]
    if n < 2:
        return np.zeros(n), np.zeros(n), np.zeros(n)
    if n < 3:
        t = Y[2] - Y[1]
        b[1] = t / (X[2] - X[1])
        b[2] = b[1]
        return np.array(b[1:]), np.zeros(n), np.zeros(n)
    nm1 = n - 1
    d[1] = X[2] - X[1]
    c[2] = (Y[2] - Y[1]) / d[1]
    for i in range(2, n):
        d[i] = X[i + 1] - X[i]
        b[i] = 2.0 * (d[i - 1] + d[i])
        c[i + 1] = (Y[i + 1] - Y[i]) / d[i]
        c[i] = c[i + 1] - c[i]
    b[1] = -d[1]
    b[n] = -d[nm1]
    c[1] = c[n] = 0.0
    if n > 3:
        c[1] = c[3] / (X[4] - X[2]) - c[2] / (X[3] - X[1])
        c[n] = c[nm1] / (X[n] - X[n - 2]) - c[n - 2] / (X[nm1] - X[n - 3])
        c[1] = c[1] * d[1] * d[1] / (X[4] - X[1])
        c[n] = -c[n] * d[nm1] * d[nm1] / (X[n] - X[n - 3])
    for i in range(2, n + 1):
        t = d[i - 1] / b[i - 1]
        b[i] = b[i] - t * d[i - 1]
        c[i] = c[i] - t * c[i - 1]
    c[n] = c[n] / b[n]
    for i in range(nm1, 0, -1):
        c[i] = (c[i] - d[i] * c[i + 1]) / b[i]
    b[n] = (Y[n] - Y[n - 1]) / d[n - 1] + d[n - 1] * (c[n - 1] + 2.0 * c[n])
    for i in range(1, nm1 + 1):
        b[i] = (Y[i + 1] - Y[i]) / d[i] - d[i] * (c[i + 1] + 2.0 * c[i])
        d[i] = (c[i + 1] - c[i]) / d[i]
        c[i] = 3.0 * c[i]
    c[n] = 3.0 * c[n]
    d[n] = d[nm1]
    return np.array(b[1:]), np.array(c[1:]), np.array(d[1:])


def _spline_eval(u, x, y, b, c, d):
    """``spline_eval`` of R's ``splines.c`` for a non-periodic, non-natural spline."""
    n = len(x)
    n_1 = n - 1
    out = np.empty(len(u))
    i = 0
    for ell, ul in enumerate(u):
        ul = float(ul)
        if ul < x[i] or (i < n_1 and x[i + 1] < ul):
            i, j = 0, n
            while True:
                k = (i + j) // 2
                if ul < x[k]:
                    j = k
                else:
                    i = k
                if not j > i + 1:
                    break
        dx = ul - float(x[i])
        out[ell] = float(y[i]) + dx * (float(b[i]) + dx * (float(c[i]) + dx * float(d[i])))
    return out


def spline_fmm(x, y, n=None, xout=None):
    """R's ``spline(x, y, n = 3 * length(x), method = "fmm")``.

    Parameters
    ----------
    x, y : array_like
        The points (NA pairs dropped; sorted by x; tied x averaged with R's warning
        ``collapsing to unique 'x' values``).
    n : int, optional
        Number of equally spaced points from ``min(x)`` to ``max(x)``; R's default is three
        times the number of distinct x (R evaluates the default after collapsing ties).
    xout : array_like, optional
        Evaluate there instead.

    Returns
    -------
    (ndarray, ndarray)
        R's ``$x`` and ``$y``.
    """
    xs, ys = _regularize(x, y)
    if xs.size == 0:
        fail(SPLINE_NO_POINTS)
    if xout is None:
        npts = 3 * xs.size if n is None else int(n)
        xout = seq_length(float(xs[0]), float(xs[-1]), npts)
    else:
        xout = np.asarray(xout, dtype=np.float64).ravel()
    b, c, d = _fmm_coef(xs, ys)
    return xout, _spline_eval(xout, xs, ys, b, c, d)


def approx_linear(x, y, xout):
    """R's ``approx(x, y, xout)`` with its defaults (linear, ``rule = 1``: NaN outside
    the range of x; ``ties = mean``)."""
    xs, ys = _regularize(x, y)
    v = np.atleast_1d(np.asarray(xout, dtype=np.float64))
    if xs.size <= 1:
        fail(APPROX_TWO_VALUES)
    out = np.asarray(approx_constant(xs, ys, v), dtype=np.float64)
    return np.where((v < xs[0]) | (v > xs[-1]), np.nan, out)


# --------------------------------------------------------------------------------------
# MASS::profile.glm and confint.profile.glm (binomial, dispersion 1)
# --------------------------------------------------------------------------------------


class GlmProfile(RObject):
    """MASS's ``profile.glm`` object: a list with one element per profiled coefficient,
    named by it (``prof["age"]``, ``prof.names()`` in the order profiled, ``"age" in
    prof``; see :class:`calstats._robject.RObject`).

    Each element is R's data frame of the profile, a pandas DataFrame with column ``z`` (the
    signed root deviance difference) and then R's ``par.vals`` matrix, one column per
    coefficient, rows sorted by ``z``.

    Not R fields: ``fit`` (the profiled fit, R's ``attr(, "original.fit")``), ``zmax`` and
    ``delta`` (the stopping value of ``|z|`` and the step in standard errors).
    """

    _extras = ("fit", "zmax", "delta")
    fit: GlmFit
    zmax: float
    delta: float

    def __init__(self, fit, frames, zmax=float("nan"), delta=float("nan")):
        # the names are the coefficients profiled, so they belong to the object; each
        # element is kept under a private attribute (a coefficient may be named like a
        # method)
        self._r_fields = tuple(frames)
        self._aliases = {name: f"_profile_{k}" for k, name in enumerate(frames)}
        self._set_fields(fit=fit, zmax=zmax, delta=delta,
                         **{self._aliases[name]: frame for name, frame in frames.items()})

    def __repr__(self):
        return f"GlmProfile({', '.join(self._r_fields)}; zmax={self.zmax!r})"


def _std_errors(fit):
    """``summary.glm``'s standard errors (dispersion 1), by coefficient name."""
    cov = fit.cov_unscaled
    return {name: math.sqrt(float(cov.loc[name, name])) for name in cov.index}


def profile_glm(fit: GlmFit, X, offset=None, which=None, alpha=0.01, maxsteps=10, delta=None,
                warn=True) -> GlmProfile:
    """MASS 7.3-58's ``profile.glm`` for a binomial (logit) fit made by ``glm_binomial``.

    Parameters
    ----------
    fit : GlmFit
        The fit to profile (its ``y``, ``prior_weights`` and ``deviance`` are used).
    X : array_like, shape (n, p)
        The model matrix the fit was made with.
    offset : array_like, optional
        The fit's offset.
    which : sequence of int or str, optional
        Coefficients to profile (0-based positions or names); all by default.
    alpha : float, default 0.01
        ``zmax = sqrt(qchisq(1 - alpha, 1))``; ``confint`` passes ``(1 - level)/4``.
    maxsteps : int, default 10
        At most ``maxsteps - 1`` steps in each direction.
    delta : float, optional
        Step in standard errors (R's ``del``), by default ``zmax/5``.
    warn : bool, default True
        Emit ``glm.fit``'s warnings of the refits, as R does.

    Returns
    -------
    GlmProfile

    Raises
    ------
    CalstatsError
        MASS's ``profiling has found a better solution, so original fit had not
        converged`` when a step lowers the deviance by more than 0.001.
    """
    X = np.asarray(X, dtype=np.float64)
    names = list(fit.coefficients.index)
    p = len(names)
    B0 = fit.coefficients.to_numpy(dtype=np.float64)
    nonA = ~np.isnan(B0)
    if which is None:
        which = list(range(p))
    which = [names.index(w) if isinstance(w, str) else int(w) for w in which]
    y = np.asarray(fit.y, dtype=np.float64)
    n = y.size
    O = np.zeros(n) if offset is None else np.asarray(offset, dtype=np.float64).ravel()
    W = np.asarray(fit.prior_weights, dtype=np.float64)
    weights = None if np.all(W == 1.0) else W
    dev0 = fit.deviance
    se = _std_errors(fit)
    zmax = math.sqrt(float(_chi2.ppf(1.0 - alpha, 1)))
    step_size = zmax / 5.0 if delta is None else float(delta)
    pv0 = np.where(nonA, B0, np.nan)
    frames = {}
    for i in which:
        if not nonA[i]:
            continue
        keep = nonA.copy()
        keep[i] = False
        Xi = X[:, keep]
        keep_names = [nm for nm, k in zip(names, keep) if k]
        zi = [0.0]
        rows = [pv0.copy()]
        for sgn in (-1.0, 1.0):
            step = 0
            z = 0.0
            LP = matmul(X[:, nonA], B0[nonA]) + O
            while True:
                step += 1
                if not (step < maxsteps and abs(z) < zmax):
                    break
                bi = B0[i] + sgn * step * step_size * se[names[i]]
                o = O + X[:, i] * bi
                fm = glm_binomial(Xi, y, keep_names, warn=warn, weights=weights, offset=o, etastart=LP)
                cf = fm.coefficients.to_numpy(dtype=np.float64)
                LP = (matmul(Xi, cf) if cf.size else np.zeros(n)) + o
                ri = pv0.copy()
                ri[keep] = cf
                ri[i] = bi
                rows.append(ri)
                zz = (fm.deviance - dev0) / 1.0
                if zz > -0.001:
                    zz = max(zz, 0.0)
                else:
                    fail(PROFILE_BETTER_SOLUTION)
                z = sgn * math.sqrt(zz)
                zi.append(z)
        si = np.argsort(np.array(zi), kind="stable")
        frame = pd.DataFrame(np.array(rows)[si], columns=names)
        frame.insert(0, "z", np.array(zi)[si])
        frames[names[i]] = frame
    return GlmProfile(fit, frames, zmax=zmax, delta=step_size)


def _pct_names(level):
    a = (1.0 - level) / 2.0
    return [f"{round_text(100.0 * q, 1)} %" for q in (a, 1.0 - a)]


def confint_profile_glm(prof: GlmProfile, parm=None, level=0.95) -> pd.DataFrame:
    """MASS's ``confint.profile.glm``: the interval where the spline through each profile
    crosses ``qnorm((1 -/+ level)/2)``.

    Returns
    -------
    pandas.DataFrame
        One row per coefficient of ``parm`` (all by default), columns named as R's
        (``"2.5 %"``, ``"97.5 %"``); NaN (R's ``NA``) for a coefficient without a profile
        or whose profile does not reach the cutoff.
    """
    names = list(prof.fit.coefficients.index)
    parm = list(range(len(names))) if parm is None else [names.index(w) if isinstance(w, str) else int(w)
                                                          for w in parm]
    a = (1.0 - level) / 2.0
    cutoff = _sp.ndtri(np.array([a, 1.0 - a]))
    ci = np.full((len(parm), 2), np.nan)
    for r, pm in enumerate(parm):
        if names[pm] not in prof:
            continue
        pro = prof[names[pm]]
        sx, sy = spline_fmm(pro[names[pm]].to_numpy(), pro["z"].to_numpy())
        ci[r] = approx_linear(sy, sx, cutoff)
    return pd.DataFrame(ci, index=[names[pm] for pm in parm], columns=_pct_names(level))


def confint_glm(fit: GlmFit, X, offset=None, parm=None, level=0.95, warn=True) -> pd.DataFrame:
    """R 4.2's ``confint(fit, parm, level)`` for a binomial ``glm`` (MASS's ``confint.glm``):
    :func:`profile_glm` with ``alpha = (1 - level)/4``, then :func:`confint_profile_glm`.
    R's message ``Waiting for profiling to be done...`` is not repeated."""
    prof = profile_glm(fit, X, offset=offset, which=parm, alpha=(1.0 - level) / 4.0, warn=warn)
    return confint_profile_glm(prof, parm=parm, level=level)

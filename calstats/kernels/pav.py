"""CORP reliability diagrams: the PAV fit, the score decomposition and the bands, as R's
reliabilitydiag 0.2.1 computes them (arrays in, numbers out).

reliabilitydiag sorts the cases by the score, ties with the events first (``order(x, -y)``),
fits ``stats::isoreg(y)$yf`` on that order (``monotone`` is not installed with it) and reads
everything else off the sorted cases: the curve, the PAV bins (runs of equal fitted values),
the decomposition (R ``mean`` over the sorted cases) and the bands. This module does the
same with calstats' R-exact :func:`~calstats.ports.stats.isoreg.isoreg`, R's long-double means,
R's ``approx``/``quantile`` arithmetic and R's random stream, so the numbers are R's.
Putting the events first inside a tie makes the fit constant on every tie (a 1 followed by
a 0 is a violation that PAV pools), which is why the curve has one value per distinct score.
"""

from typing import Any, NamedTuple

import numpy as np

from ..numerics.interp import approx_constant
from ..numerics.libm import log as r_log
from ..numerics.reductions import rmean, rmean_int, rsum
from ..ports.stats.isoreg import isoreg, isoreg_grouped
from ..rng import _qnorm, sample_int
from ..rng._draws import _rbinom1

__all__ = [
    "CorpFit",
    "corp_fit",
    "weighted_pav",
    "score_values",
    "decompose",
    "discrete_band",
    "resampling_band",
    "mcb_null",
    "detect_xtype",
    "detect_band",
]


class CorpFit(NamedTuple):
    """The sorted cases of one CORP diagram and what reliabilitydiag derives from them.

    ``order`` is the 0-based original index of each sorted case; ``w`` the case weights in
    that order (None without weights); ``cep`` the PAV value of each case. ``ux``/``ucep``/
    ``un`` are the distinct scores, their PAV value and their count (weight sum with
    weights); ``bin_*`` R's PAV bins (runs of equal fitted values).
    """

    order: np.ndarray
    x: np.ndarray
    y: np.ndarray
    w: Any
    cep: np.ndarray
    ux: np.ndarray
    ucep: np.ndarray
    un: np.ndarray
    bin_n: np.ndarray
    bin_xmin: np.ndarray
    bin_xmax: np.ndarray
    bin_cep: np.ndarray


def _sort_cases(x, y):
    """R ``order(x, -y)``: by score, events first within a tie, otherwise stable."""
    return np.lexsort((-y, x))


def weighted_pav(y, w):
    """Weighted isotonic (non-decreasing) fit of ``y`` in the given order.

    SciPy's pool-adjacent-violators (``scipy.optimize.isotonic_regression``) finds the
    blocks; each block's value is then recomputed as ``sum(w * y) / sum(w)`` over the block,
    one division of two sums. With 0/1 labels and integer weights both sums are exact
    integers, so the value is the correctly rounded fraction, which is what R's ``isoreg``
    gives on the rows replicated by the weights (SciPy's running means differ in the last
    bit on about a quarter of the rows). Zero weights must be dropped beforehand.
    """
    from scipy.optimize import isotonic_regression

    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    fit = np.asarray(isotonic_regression(y, weights=w, increasing=True).x)
    starts = np.flatnonzero(np.concatenate(([True], fit[1:] != fit[:-1])))
    values = np.add.reduceat(w * y, starts) / np.add.reduceat(w, starts)
    return np.repeat(values, np.diff(np.append(starts, y.size)))


def corp_fit(x, y, w=None):
    """The sorted cases, the PAV fit, the distinct scores and the PAV bins.

    ``x`` float64 scores in [0, 1], ``y`` 0/1 labels, ``w`` None or non-negative weights
    (rows of weight 0 are dropped first: with integer weights the result is that of the
    replicated rows).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    index = np.arange(x.size)
    if w is not None:
        keep = np.asarray(w) > 0
        x, y, index, w = x[keep], y[keep], index[keep], np.asarray(w, dtype=np.float64)[keep]
    o = _sort_cases(x, y)
    xs, ys = x[o], y[o]
    ws = None if w is None else w[o]
    cep = isoreg(ys).yf if ws is None else weighted_pav(ys, ws)
    first = np.concatenate(([True], xs[1:] != xs[:-1]))
    starts = np.flatnonzero(first)
    ux, ucep = xs[starts], cep[starts]
    if ws is None:
        un = np.diff(np.append(starts, xs.size)).astype(np.float64)
    else:
        un = np.add.reduceat(ws, starts)
    # R's bins: rle() of the fitted values
    bstart = np.flatnonzero(np.concatenate(([True], cep[1:] != cep[:-1])))
    bend = np.append(bstart[1:], cep.size)
    bin_n = (bend - bstart).astype(np.float64) if ws is None else np.add.reduceat(ws, bstart)
    return CorpFit(index[o], xs, ys, ws, cep, ux, ucep, un, bin_n, xs[bstart], xs[bend - 1], cep[bstart])


def detect_xtype(ux):
    """reliabilitydiag's ``detect_xtype``: ``"discrete"`` for one distinct score or distinct
    scores at least 0.01 apart, else ``"continuous"`` (it only changes the drawing)."""
    if ux.size == 1 or float(np.min(np.diff(ux))) >= 0.01:
        return "discrete"
    return "continuous"


def detect_band(n, n_unique, position):
    """reliabilitydiag's default region method (``detect_regionmethod``)."""
    if position == "estimate":
        return "resampling"
    if n <= max(1000, min(5000, 50 * n_unique)):
        return "resampling"
    return "discrete_asymptotics" if n >= 8 * n_unique ** 2 else "continuous_asymptotics"


# --------------------------------------------------------------------------------------
# the decomposition


def score_values(score, y, x):
    """``score(y, x)`` elementwise for the built-in scores (R ``brier`` and the log score
    ``-ifelse(y == 1, log(x), log(1 - x))`` with the C library's ``log``)."""
    if score == "brier":
        d = x - y
        return d * d
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(y == 1, r_log(x), r_log(1.0 - x))


def _mean(v, w):
    if w is None:
        return rmean(v)
    return rsum(w * v) / rsum(w)


def decompose(fit, values):
    """``(mean_score, miscalibration, discrimination, uncertainty)`` from ``values(x)``,
    the score of every sorted case for a forecast vector ``x`` (R's ``decomposition``):
    ``S = mean s(y, x)``, ``UNC = mean s(y, ybar)``, ``Sc = mean s(y, CEP)``,
    ``DSC = UNC - Sc``, ``MCB = S - Sc`` (weighted means with weights)."""
    w = fit.w
    ybar = _mean(fit.y, w)
    s = _mean(values(fit.x), w)
    unc = _mean(values(np.full(fit.y.size, ybar)), w)
    sc = _mean(values(fit.cep), w)
    return s, s - sc, unc - sc, unc


# --------------------------------------------------------------------------------------
# the bands


def _approx_rule1(xk, yk, xout):
    """R ``approx(xk, yk, xout)$y`` (linear, ``rule = 1``, NA pairs dropped, ``xk`` sorted
    and distinct): NaN outside the knots. With fewer than two knots R stops with "need at
    least two non-NA values to interpolate"; here every value is NaN then."""
    ok = ~np.isnan(yk)
    xk, yk = xk[ok], yk[ok]
    if xk.size < 2:
        return np.full(xout.size, np.nan)
    out = approx_constant(xk, yk, xout)
    out[(xout < xk[0]) | (xout > xk[-1])] = np.nan
    return out


def _bound_correction(bound, ux, ucep, position):
    """reliabilitydiag's ``bound_correction``: for a confidence band, the bounds at interior
    scores whose PAV value is 0 or 1 are replaced by linear interpolation."""
    if ux.size == 1 or position == "diagonal":
        return bound
    interior = (ux != ux.min()) & (ux != ux.max())
    b = np.where(((ucep == 0.0) | (ucep == 1.0)) & interior, np.nan, bound)
    return _approx_rule1(ux, b, ux)


def discrete_band(fit, level, position):
    """The discrete-asymptotics band: ``x0 -/+ qnorm(0.5 + level/2, sd = sqrt(x0 (1 - x0) / n))``
    clipped to [0, 1], with ``x0`` the score (``"diagonal"``) or its PAV value
    (``"estimate"``) and ``n`` the number of cases with that score."""
    x0 = fit.ux if position == "diagonal" else fit.ucep
    sd = np.sqrt(x0 * (1.0 - x0) / fit.un)
    tmp = 0.0 + sd * _qnorm(0.5 + 0.5 * level)
    lower = np.maximum(0.0, x0 - tmp)
    upper = np.minimum(1.0, x0 + tmp)
    return (_bound_correction(lower, fit.ux, fit.ucep, position),
            _bound_correction(upper, fit.ux, fit.ucep, position))


def _row_quantiles(m, probs):
    """R ``quantile(row, prob, type = 7, na.rm = TRUE)`` of every row of ``m`` for each
    ``prob`` (NaN when a row is all NA); the rows are sorted once."""
    ms = np.sort(m, axis=1)  # NaN last
    cnt = np.sum(~np.isnan(ms), axis=1)
    has = cnt > 0
    rows = np.flatnonzero(has)
    c = cnt[has]
    outs = []
    for prob in probs:
        out = np.full(m.shape[0], np.nan)
        index = 1.0 + (c - 1).astype(np.float64) * prob
        lo = np.floor(index).astype(np.int64)
        hi = np.ceil(index).astype(np.int64)
        qs = ms[rows, lo - 1]
        xhi = ms[rows, hi - 1]
        h = index - lo
        use = (index > lo) & (xhi != qs)
        out[has] = np.where(use, (1.0 - h) * qs + h * xhi, qs)
        outs.append(out)
    return outs


def _group_ids(xs):
    """0-based index of each sorted score among the distinct scores."""
    return np.cumsum(np.concatenate(([True], xs[1:] != xs[:-1]))) - 1


def _resample_groups(gid, n_groups, x0):
    """One resample of R's bootstrap: ``s <- sample(n, replace = TRUE)``, ``y <- rbinom(n,
    1, x0[s])`` (R's stream, R's order), returned as the draws and the events per distinct
    score (the order of the resampled cases is only needed up to ties, which PAV pools)."""
    n = gid.size
    s = np.asarray(sample_int(n, n, replace=True), dtype=np.int64) - 1
    yb = _rbinom1(x0[s])
    g = gid[s]
    counts = np.bincount(g, minlength=n_groups)
    events = np.bincount(g[yb == 1], minlength=n_groups)
    return counts, events


def _resampled_curve(counts, events, ux):
    """The PAV value at every distinct original score ``ux`` of one resample (counts and
    events per distinct score): the fit at the scores drawn, linear interpolation between
    them (R ``approx``), NaN outside."""
    drawn = counts > 0
    ky = isoreg_grouped(counts[drawn], events[drawn])
    if ky.size == 1:
        # R returns this single value for the whole column; with more than one original
        # score its matrix() then shifts the other resamples (a recycling slip), so the
        # value is spread over the column instead
        return np.full(ux.size, ky[0])
    # R's approx(kx, ky, ux) with the knots kx = ux[drawn] among the points: a knot gives
    # its own value; between knots i and j = i + 1, y_i + (y_j - y_i) * ((v - x_i) / (x_j -
    # x_i)) in double (approx1's arithmetic); NaN outside (rule = 1)
    kx = ux[drawn]
    out = np.full(ux.size, np.nan)
    out[drawn] = ky
    k = np.cumsum(drawn) - 1  # the last knot at or below each point
    mid = ~drawn & (k >= 0) & (k < ky.size - 1)
    i = k[mid]
    xi, yi = kx[i], ky[i]
    out[mid] = yi + (ky[i + 1] - yi) * ((ux[mid] - xi) / (kx[i + 1] - xi))
    return out


def resampling_band(fit, level, position, n_boot, xs=None, x0=None):
    """The resampling band of reliabilitydiag: ``n_boot`` times, draw ``n`` cases with
    replacement (R ``sample(n, replace = TRUE)``), new labels ``rbinom(n, 1, x0[s])`` with
    ``x0`` the score (consistency) or its PAV value (confidence), refit PAV and read it at
    the distinct scores; then the pointwise ``quantile(type = 7, na.rm = TRUE)`` at
    ``0.5 -/+ level/2``. Draws from R's global stream (the caller seeds it).

    The draws are R's; the refit is not R's sort and scan but the same numbers from counts:
    the resampled cases are tallied per distinct score (cases and events) and PAV runs on
    the tallies (:func:`~calstats.ports.stats.isoreg.isoreg_grouped`, exact), so a
    resample costs O(n) plus the RNG instead of a sort of n cases and a fit over them.

    ``xs``/``x0`` override the sorted scores and the label probabilities per case (the
    rows replicated by integer weights)."""
    if xs is None:
        xs = fit.x
    if x0 is None:
        x0 = xs if position == "diagonal" else fit.cep
    gid = _group_ids(xs)
    u = fit.ux.size
    m = np.empty((n_boot, u))
    for b in range(n_boot):
        counts, events = _resample_groups(gid, u, x0)
        m[b] = _resampled_curve(counts, events, fit.ux)
    lower, upper = _row_quantiles(m.T, (0.5 + -0.5 * level, 0.5 + 0.5 * level))
    return (_bound_correction(lower, fit.ux, fit.ucep, position),
            _bound_correction(upper, fit.ux, fit.ucep, position))


def mcb_null(xs, n_boot):
    """reliabilitydiag's ``mcb_resampling``: the Brier MCB of ``n_boot`` resamples drawn under
    calibration (scores resampled with replacement, labels ``rbinom(n, 1, x)``).

    Each resample is tallied per distinct score as in :func:`resampling_band`; the sorted
    cases (R ``order(x, -y)``) are then rebuilt from the tallies -- each score's events,
    then its non-events; cases equal in score and outcome contribute equal terms, so R's
    sums see the same sequence -- and PAV is fitted by groups."""
    gid = _group_ids(xs)
    ux = xs[np.concatenate(([True], xs[1:] != xs[:-1]))]
    u = ux.size
    out = np.empty(n_boot)
    for b in range(n_boot):
        counts, events = _resample_groups(gid, u, xs)
        drawn = counts > 0
        cnt, ev = counts[drawn], events[drawn]
        xb = np.repeat(ux[drawn], cnt)
        start = np.concatenate(([0], np.cumsum(cnt)[:-1]))
        yb = (np.arange(xb.size) - np.repeat(start, cnt) < np.repeat(ev, cnt)).astype(np.float64)
        cep = np.repeat(isoreg_grouped(cnt, ev), cnt)
        d = xb - yb
        e = cep - yb
        out[b] = rmean(d * d) - rmean(e * e)
    return out


def exceed_share(null, stat):
    """R ``mean(null >= stat)`` (a logical mean: integer count over n)."""
    return rmean_int((null >= stat).astype(np.int64))

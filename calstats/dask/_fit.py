"""Platt and temperature scaling fitted on Dask arrays and DataFrames.

Both objectives are sums over rows, so every iteration of the in-memory optimiser is one
distributed pass over the row blocks (:mod:`calstats.dask._inputs`), and the optimiser itself
(R's IRLS, R's Brent) runs on the driver exactly as in memory:

* **Platt** (``glm.fit``'s IRLS): a pass evaluates, at the current coefficients, the
  deviance and the AIC terms and the next weighted least-squares problem as five exact sums
  (``sum w^2``, ``sum w^2 x``, ``sum w^2 x^2``, ``sum w^2 z``, ``sum w^2 x z``, with ``x``
  centred at its mid-range). The 2 x 2 normal equations are solved in rational arithmetic
  from the merged sums (double-double), where R solves by a pivoted QR of the weighted
  model matrix: the steps agree to rounding (~1e-15 relative for ordinary scores), the
  convergence rule (``|dev - devold|/(|dev| + 0.1) < 1e-8``, ``maxit = 25``) is R's, and so is
  the aliasing decision of the slope (QR's limited pivoting at ``1e-11``: the slope is
  aliased when the weighted residual norm of ``x`` after the intercept is below ``1e-11``
  of its norm; a constant ``x`` always is).
* **Temperature, binary** (R's ``optimize``): the objective is R's ``sum`` in long double
  in row order, so the pass computes each block's log-loss terms in parallel and folds them
  into one long-double accumulator block after block (a chain of small tasks carrying the
  accumulator as two doubles). The objective is then the in-memory one bit for bit, and so
  are Brent's iterates, the temperature and the value. (With a correctly rounded sum
  instead, Brent's comparisons near the minimum, between values an ulp apart, flip on about
  2 % of problems and the temperature moves by Brent's tolerance, ~3e-8.)
* **Temperature, multiclass**: the objective is a mean; each block gives the exact pieces
  of its sum (:mod:`calstats.dask._exact`) and the mean is the correctly rounded one, which
  equals R's two-pass long-double mean but within ~2^-64 of a rounding boundary.

Every sum here is independent of how the rows are cut into blocks (exact pieces, or the
sequential long-double order of R). Case weights are not supported on Dask inputs.

A Dask collection that is not persisted is recomputed from its source at every pass (a
Platt fit makes ~5-10 passes, a temperature fit ~30-50): call ``.persist()`` on the inputs
first when they fit in the cluster's memory.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from .. import _validate as v
from .._errors import CalstatsError
from ..kernels.probs import clip_loss_prob, inv_logit, softmax_t
from ..kernels.temperature import brent_temperature
from ..numerics import libm
from ..numerics.binomial import dbinom_log_size1, dev_resids, linkfun, linkinv, mu_eta, variance
from ..numerics.reductions import LD
from ..ports.stats.glm import GlmFit
from . import _exact as X
from ._inputs import blocks, merged_levels

__all__ = ["platt", "temperature"]


# glm.control() and glm.fit's QR tolerance (calstats.ports.stats.glm)
_EPSILON = 1e-8
_MAXIT = 25
_QR_TOL = min(1e-7, _EPSILON / 1000)

#: Order of R's checks inside one validator: a message earlier in a list wins over a later
#: one, whichever block it comes from (the in-memory validator sees all rows at once).
_PRECEDENCE = ("must be a numeric vector", "must have at least two columns", "must not be empty",
               "must not contain missing values", "must not contain missing or infinite values",
               "must contain only finite values", "must contain only binary labels",
               "must contain integer class codes", "must start at")


# --------------------------------------------------------------------------------------
# blocks: conversion with R's checks, errors reported in R's order


class _BlockError(tuple):
    """A block's failed check: ``(stage, rank, message)``, stage 0 for `x`, 1 for `y`."""


def _err(stage, exc):
    msg = str(exc)
    rank = next((i for i, s in enumerate(_PRECEDENCE) if s in msg), -1)
    return _BlockError((stage, rank, msg))


def _length(x):
    return x.shape[0] if hasattr(x, "shape") else len(x)


def _binary_y(yb, levels):
    if levels is not None and not isinstance(getattr(yb, "dtype", None), pd.CategoricalDtype):
        yb = pd.Categorical.from_codes(np.asarray(yb, dtype=np.int64) - 1, categories=levels)  # R refuses it
    return v.check_binary_y(yb, "y", require_both=False)


def _vector_xy(pb, yb, levels, arg):
    """``(x, y)`` of a binary block (x float64, y int64 or float64 with NaN for a missing
    logical label), None for an empty block, or a :class:`_BlockError`."""
    if _length(pb) == 0 and _length(yb) == 0:
        return None
    try:
        x = v.check_numeric(pb, arg)
    except CalstatsError as e:
        return _err(0, e)
    try:
        y = _binary_y(yb, levels)
    except CalstatsError as e:
        return _err(1, e)
    try:
        v.check_same_length(arg, "y", x.size, y.size)
    except CalstatsError as e:
        return _BlockError((2, -1, str(e)))
    return x, y


def _matrix_xy(pb, yb, levels):
    """``(Z, codes, block_levels)`` of a multiclass block, None, or a :class:`_BlockError`."""
    if _length(pb) == 0 and _length(yb) == 0:
        return None
    try:
        Z = v.check_logit_matrix(pb, "logits")
    except CalstatsError as e:
        return _err(0, e)
    try:
        if levels is not None and not isinstance(getattr(yb, "dtype", None), pd.CategoricalDtype):
            yb = pd.Categorical.from_codes(np.asarray(yb, dtype=np.int64) - 1, categories=levels)
        codes, block_levels = v.multiclass_codes(yb, "y")
    except CalstatsError as e:
        return _err(1, e)
    try:
        v.check_nobs("logits", "y", Z.shape[0], codes.size)
    except CalstatsError as e:
        return _BlockError((2, -1, str(e)))
    return Z, codes, block_levels


def _raise_first(results):
    """Fail with the message the in-memory validators would give first."""
    errs = [r for r in results if isinstance(r, _BlockError)]
    if errs:
        v.fail(min(errs, key=lambda e: (e[0], e[1]))[2])


def _check_lengths(x, y, a, same_length):
    """The length check of two inputs whose lengths are known without computing."""
    def n(obj):
        shape = getattr(obj, "shape", None)
        if shape is None or not len(shape):
            return None
        n0 = shape[0]
        if isinstance(n0, (int, np.integer)):
            return int(n0)
        if isinstance(n0, float) and not math.isnan(n0):
            return int(n0)
        return None  # unknown (a Dask frame's length, or unknown chunks)

    na, nb = n(x), n(y)
    if na is not None and nb is not None and na != nb:
        if same_length:
            v.check_same_length(a, "y", na, nb)
        v.check_nobs(a, "y", na, nb)


def _is_2d(x):
    return getattr(x, "ndim", 1) == 2 or v.is_matrix(x)


def _problem(x, y, weights, arg, same_length=True):
    v.refuse_weights(weights, "with Dask inputs yet; fit the calibrator in memory")
    _check_lengths(x, y, arg, same_length)
    return blocks(x, y)


def _run(fn, bl, keep, *args):
    """``fn(p_block, y_block, *args)`` over the kept blocks, in one Dask computation."""
    import dask

    tasks = [dask.delayed(fn, pure=True)(bl.p[i], bl.y[i], *args) for i in keep]
    return list(dask.compute(*tasks))


def _binary_counts(bl, count_block, arg):
    """The binary fits' first pass: per-block counts, the blocks that hold rows, and the
    in-memory checks on the totals. Returns ``(keep, got, n, n_pos, n_neg, n_nan)``."""
    counts = _run(count_block, bl, range(len(bl.p)), bl.levels)
    _raise_first(counts)
    keep = [i for i, c in enumerate(counts) if c is not None]
    got = [counts[i] for i in keep]
    if not got:
        v.fail_empty(arg)
    n = sum(c[0] for c in got)
    n_pos, n_neg, n_nan = (sum(c[j] for c in got) for j in (1, 2, 3))
    if (n_pos > 0) + (n_neg > 0) + (n_nan > 0) < 2:
        v.fail_one_class_only("y")
    return keep, got, n, n_pos, n_neg, n_nan


def _fsum_frac(parts):
    """The exact total of pieces, as a Fraction of its double-double ``hi + lo``."""
    hi, lo = X.binned_total([np.asarray(p).reshape(-1, 1) for p in parts], 1)
    return Fraction(float(hi[0])) + Fraction(float(lo[0])) if math.isfinite(hi[0]) else hi[0]


# --------------------------------------------------------------------------------------
# Platt scaling


def _platt_count_block(pb, yb, levels):
    got = _vector_xy(pb, yb, levels, "x")
    if got is None or isinstance(got, _BlockError):
        return got
    x, y = got
    yf = np.asarray(y, dtype=np.float64)
    nan = int(np.count_nonzero(np.isnan(yf)))
    return (x.size, int(np.count_nonzero(yf == 1)), int(np.count_nonzero(yf == 0)), nan,
            float(x.min()), float(x.max()))


def _platt_eta(x, t, beta):

    if beta is None:  # glm.fit's start: eta = linkfun(mustart), mustart = (w y + 0.5)/(w + 1)
        return linkfun((1.0 * t + 0.5) / (1.0 + 1.0))
    # eta = X %*% start in dgemv's order: (0 + b0 * 1) + b1 * x
    return (0.0 + beta[0] * 1.0) + beta[1] * x


def _platt_rows(pb, yb, levels, tp, tn):
    x, y = _vector_xy(pb, yb, levels, "x")
    return x, np.where(y == 1, tp, tn)


def _platt_pass_block(pb, yb, levels, tp, tn, m, beta):
    """At ``beta`` (None: glm.fit's start): pieces of the deviance and of the AIC's
    log-densities, then the next weighted least-squares sums (x centred at ``m``)."""

    x, t = _platt_rows(pb, yb, levels, tp, tn)
    eta = _platt_eta(x, t, beta)
    mu = linkinv(eta)
    out = [X.pieces(dev_resids(t, mu)), X.pieces(dbinom_log_size1(np.round(t), mu))]
    varmu = variance(mu)
    mev = mu_eta(eta)
    z = eta + (t - mu) / mev
    w = np.sqrt((1.0 * (mev * mev)) / varmu)
    wx = w * (x - m)
    wz = w * z
    out += [X.pieces(w * w), X.pieces(w * wx), X.pieces(wx * wx), X.pieces(w * wz), X.pieces(wx * wz)]
    return np.stack(out)


def _platt_field_block(pb, yb, levels, tp, tn, beta, prev, what):
    """One block of a per-row field of the fit (evaluated lazily)."""

    x, t = _platt_rows(pb, yb, levels, tp, tn)
    if what == "y":
        return t
    if what == "prior_weights":
        return np.ones_like(t)
    if what == "weights":  # the last iteration's working weights, from the previous eta
        eta = _platt_eta(x, t, prev)
        mu = linkinv(eta)
        mev = mu_eta(eta)
        w = np.sqrt((1.0 * (mev * mev)) / variance(mu))
        return w * w
    eta = _platt_eta(x, t, beta)
    if what == "linear_predictors":
        return eta
    mu = linkinv(eta)
    if what == "fitted_values":
        return mu
    return (t - mu) / mu_eta(eta)  # residuals


def _solve_wls(S, m, constant):
    """Coefficients ``(b0, b1)`` (b1 = 0 when aliased), the rank, and ``(X'WX)^{-1}`` of the
    weighted least-squares step from the exact sums ``S = (sw, swx, swxx, swz, swxz)``
    (x centred at ``m``); None when the step is not finite."""
    if any(not isinstance(s, Fraction) for s in S) or S[0] <= 0:
        return None
    s0, s1, s2, r0, r1 = S
    fm = Fraction(m)
    t1 = s1 + fm * s0  # uncentred sum w^2 x and sum w^2 x^2
    t2 = s2 + 2 * fm * s1 + fm * fm * s0
    resid2 = s2 - s1 * s1 / s0  # squared norm of w x after the intercept column
    tol = Fraction(_QR_TOL)
    if constant or resid2 < tol * tol * t2:
        return (float(r0 / s0), 0.0), 1, np.array([[float(1 / s0)]])
    det = s0 * s2 - s1 * s1
    b1 = (s0 * r1 - s1 * r0) / det
    b0 = (r0 - s1 * b1) / s0 - fm * b1
    cov = np.array([[float(t2 / det), float(-t1 / det)], [float(-t1 / det), float(s0 / det)]])
    return (float(b0), float(b1)), 2, cov


def _lazy_field(bl, keep, lengths, *args):
    import dask
    import dask.array as da

    parts = [da.from_delayed(dask.delayed(_platt_field_block, pure=True)(bl.p[i], bl.y[i], *args),
                             shape=(n,), dtype=np.float64) for i, n in zip(keep, lengths)]
    return da.concatenate(parts) if parts else da.zeros(0)


def platt(x, y, weights=None):
    """Platt scaling's GLM of Dask inputs (see the module notes): ``(glm, n, target_pos,
    target_neg)``, from which :func:`calstats.cal_platt` builds its result.

    ``x`` a Dask array (1-D, or one column), Series or one-column DataFrame; ``y`` a Dask
    array or Series of 0/1 (or boolean) labels, or either in memory. In ``glm``, the per-row
    fields (``fitted_values``, ``linear_predictors``, ``residuals``, ``weights``,
    ``prior_weights``, ``y``) are lazy Dask arrays (computing one re-reads the data),
    ``cov_unscaled`` is ``(X'WX)^{-1}`` of the last step, and ``qr``/``qraux`` are None
    (no QR is formed). Inputs that are not persisted are re-read at every IRLS iteration.
    """
    bl = _problem(x, y, weights, "x")
    keep, got, n, n_pos, n_neg, n_nan = _binary_counts(bl, _platt_count_block, "x")
    if n_nan:
        v.fail_empty_mu()  # logical NA labels: all targets NA, R's glm error
    xmin, xmax = min(c[4] for c in got), max(c[5] for c in got)
    m = xmin / 2.0 + xmax / 2.0
    constant = xmin == xmax
    tp = (n_pos + 1) / (n_pos + 2)
    tn = 1 / (n_neg + 2)

    def step(beta):
        res = _run(_platt_pass_block, bl, keep, bl.levels, tp, tn, m, beta)
        dev = X.total([r[0] for r in res])
        aic_terms = X.total([r[1] for r in res])
        return dev, aic_terms, [_fsum_frac([r[j] for r in res]) for j in range(2, 7)]

    devold, _, sums = step(None)
    dev = devold
    conv = False
    coef = prev = None
    cov = np.zeros((0, 0))
    rank = 2
    start = np.zeros(2)
    aic_terms = math.nan
    it = 0
    for it in range(1, _MAXIT + 1):
        solved = _solve_wls(sums, m, constant)
        if solved is None or not all(math.isfinite(b) for b in solved[0]):
            conv = False
            break
        (b0, b1), rank, cov = solved
        prev = None if coef is None else coef
        start = np.array([b0, b1])
        dev, aic_terms, sums = step(tuple(start))
        if abs(dev - devold) / (abs(dev) + 0.1) < _EPSILON:
            conv = True
            coef = start
            break
        devold = dev
        coef = start
    if coef is None:
        coef = np.full(2, np.nan)
    beta = tuple(coef)
    coef = np.array(coef, dtype=np.float64)
    if rank < 2:
        coef[1] = np.nan

    colnames = ["(Intercept)", "x"]
    total_t = Fraction(n_pos) * Fraction(tp) + Fraction(n_neg) * Fraction(tn)
    wtdmu = float(total_t) / float(n)
    d_pos, d_neg = dev_resids(np.array([tp, tn]), np.full(2, wtdmu))
    nulldev = float(Fraction(n_pos) * Fraction(float(d_pos)) + Fraction(n_neg) * Fraction(float(d_neg)))
    lengths = [c[0] for c in got]
    field = {name: _lazy_field(bl, keep, lengths, bl.levels, tp, tn, beta, prev, name)
             for name in ("fitted_values", "linear_predictors", "residuals", "weights", "prior_weights", "y")}
    glm = GlmFit(
        coefficients=pd.Series(coef, index=colnames, dtype=np.float64),
        fitted_values=field["fitted_values"], linear_predictors=field["linear_predictors"],
        residuals=field["residuals"], weights=field["weights"], prior_weights=field["prior_weights"],
        y=field["y"], deviance=float(dev), null_deviance=nulldev,
        aic=float(-2.0 * aic_terms + 2.0 * rank), iter=int(it), converged=bool(conv), boundary=False,
        rank=int(rank), df_residual=int(n - rank), df_null=int(n - 1),
        pivot=np.array([1, 2], dtype=np.int64), family="binomial", link="logit",
        colnames=colnames, qr=None, qraux=None,
        cov_unscaled=pd.DataFrame(cov, index=colnames[:rank], columns=colnames[:rank]),
    )
    return glm, int(n), float(tp), float(tn)


# --------------------------------------------------------------------------------------
# temperature scaling


def _temp_count_block(pb, yb, levels):
    got = _vector_xy(pb, yb, levels, "logits")
    if got is None or isinstance(got, _BlockError):
        return got
    yf = np.asarray(got[1], dtype=np.float64)
    return got[0].size, int(np.count_nonzero(yf == 1)), int(np.count_nonzero(yf == 0)), int(np.isnan(yf).sum())


def _temp_terms_block(pb, yb, levels, temperature):
    """The log-likelihood terms of a block, as :func:`calstats.kernels.probs.binary_log_loss`."""

    z, y = _vector_xy(pb, yb, levels, "logits")
    q = clip_loss_prob(np.asarray(inv_logit(z / temperature), dtype=np.float64))
    yf = np.asarray(y, dtype=np.float64)
    return yf * libm.log(q) + (1.0 - yf) * libm.log1p(-q)


def _ld_fold(carry, terms):
    """R's long-double ``sum`` continued over ``terms`` from ``carry`` (two doubles)."""
    acc = LD(carry[0]) + LD(carry[1])
    if terms is not None and terms.size:
        acc = np.cumsum(np.concatenate([np.array([acc], dtype=LD), terms.astype(LD)]))[-1]
    hi = float(acc)
    lo = float(acc - LD(hi)) if math.isfinite(hi) else 0.0
    return hi, lo


def _binary_objective(bl, keep):
    import dask

    def g(temperature):
        carry = (0.0, 0.0)
        for i in keep:
            terms = dask.delayed(_temp_terms_block, pure=True)(bl.p[i], bl.y[i], bl.levels, temperature)
            carry = dask.delayed(_ld_fold, pure=True)(carry, terms)
        (hi, _lo), = dask.compute(carry)
        return -hi

    return g


def _temp_pieces_block(pb, yb, levels, temperature):
    return X.pieces(_temp_terms_block(pb, yb, levels, temperature), 35.0)


def _binary_objective_parallel(bl, keep):
    def g(temperature):
        return -X.total(_run(_temp_pieces_block, bl, keep, bl.levels, temperature))

    return g


def _mc_count_block(pb, yb, levels):
    got = _matrix_xy(pb, yb, levels)
    if got is None or isinstance(got, _BlockError):
        return got
    Z, codes, block_levels = got
    return Z.shape[0], Z.shape[1], int(codes.max()), block_levels


def _mc_terms_block(pb, yb, levels, temperature):
    """Pieces of the block's summed log-probability of the true class at ``temperature``."""

    Z, codes, _ = _matrix_xy(pb, yb, levels)
    zt = np.ascontiguousarray(Z.T)
    probs = softmax_t(zt / temperature)
    lp = libm.log(clip_loss_prob(probs[codes - 1, np.arange(zt.shape[1])]))
    return X.pieces(lp, 35.0)


def _multiclass_objective(bl, keep, n):
    def g(temperature):
        parts = _run(_mc_terms_block, bl, keep, bl.levels, temperature)
        hi, lo = X.binned_total([p.reshape(-1, 1) for p in parts], 1)
        return -float((LD(hi[0]) + LD(lo[0])) / LD(n))

    return g


def temperature(logits, y, weights=None, r_order=True):
    """Temperature scaling of Dask inputs (see the module notes): ``(T, value, n, k,
    levels)``, ``k`` and ``levels`` None for a binary fit, from which
    :func:`calstats.cal_temperature` builds its result.

    A 1-D Dask array or Series of logits is binary temperature scaling (0/1 labels); a 2-D
    Dask array or DataFrame (one column per class) is multiclass (class codes ``1..k`` or a
    categorical). Inputs that are not persisted are re-read at every evaluation of the
    objective (~30-50).

    ``r_order`` (binary only; not reachable from :func:`calstats.cal_temperature`): True
    sums the log-loss in R's long-double row order, a chain of one small task per block
    after the parallel terms (the in-memory fit bit for bit; each evaluation waits for
    one scheduler round trip per block); False sums exact pieces in one flat parallel
    pass (correctly rounded; the temperature may then differ from the in-memory one by
    Brent's tolerance, ~1e-8 relative, on a few problems in a hundred).
    """
    if _is_2d(logits):
        bl = _problem(logits, y, weights, "logits", same_length=False)
        counts = _run(_mc_count_block, bl, range(len(bl.p)), bl.levels)
        _raise_first(counts)
        keep = [i for i, c in enumerate(counts) if c is not None]
        if not keep:
            v.fail_empty("logits")
        got = [counts[i] for i in keep]
        levels, k = merged_levels([c[3] for c in got], got[0][1])
        if max(c[2] for c in got) > k:
            v.fail_codes_exceed()
        n = sum(c[0] for c in got)
        t, value = brent_temperature(_multiclass_objective(bl, keep, n))
        return float(t), value, int(n), int(k), list(levels)
    bl = _problem(logits, y, weights, "logits")
    keep, got, n, n_pos, n_neg, n_nan = _binary_counts(bl, _temp_count_block, "logits")
    objective = _binary_objective(bl, keep) if r_order else _binary_objective_parallel(bl, keep)
    t, value = brent_temperature(objective)
    return float(t), value, int(n), None, None

"""R's continuous draws: runif, and rnorm by inversion with AS 241 (R's ``qnorm``, Wichura 1988)."""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike

from .._errors import fail, warn
from .._messages import DRAWS_INVALID, NAS_PRODUCED
from ._stream import _BIG, _runif_raw

# --------------------------------------------------------------------------------------
# runif / rnorm
# --------------------------------------------------------------------------------------

def _n_arg(n):
    """The ``n`` of ``runif``/``rnorm``: a count, or the length of a longer vector."""
    if not np.isscalar(n) and not isinstance(n, numbers.Number):
        arr = np.asarray(n)
        if arr.size != 1:
            return int(arr.size)
        n = arr.reshape(-1)[0]
    try:
        d = float(n)
    except (TypeError, ValueError):
        fail(DRAWS_INVALID)
    if math.isnan(d) or d < 0 or d > 4503599627370496.0:
        fail(DRAWS_INVALID)
    return int(d)


def _param(a, n):
    """Recycle a numeric parameter to length ``n`` (R's ``a[i % na]``); None if empty."""
    arr = np.asarray(a, dtype=np.float64).reshape(-1)
    if arr.size == 0:
        return None
    if arr.size == 1:
        return np.full(n, arr[0])
    return np.resize(arr, n)


def runif(n: int | ArrayLike, min: float | ArrayLike = 0.0,  # noqa: A002 - R's argument names
          max: float | ArrayLike = 1.0) -> np.ndarray:
    """Uniform random numbers on ``(min, max)``, as R's ``runif(n, min, max)``.

    Parameters
    ----------
    n : int
        Number of values (a vector of length > 1 means its length, as in R).
    min, max : float or array_like
        Limits, recycled along the result.

    Returns
    -------
    numpy.ndarray
        ``float64`` values ``min + (max - min) * unif_rand()``, bit-identical to R. An
        element with ``min == max`` is ``min`` and uses no draw; non-finite limits or
        ``max < min`` give NaN (no draw) and R's warning ``NAs produced``.
    """
    count = _n_arg(n)
    if count == 0:
        return np.empty(0, dtype=np.float64)
    a = _param(min, count)
    b = _param(max, count)
    if a is None or b is None:
        warn(NAS_PRODUCED)
        return np.full(count, np.nan)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(a) | ~np.isfinite(b) | (b < a)
        draw = ~bad & (a != b)
    out = a.copy()
    out[bad] = np.nan
    nd = int(np.count_nonzero(draw))
    if nd == count:
        out = a + (b - a) * _runif_raw(count)
    elif nd:
        out[draw] = a[draw] + (b[draw] - a[draw]) * _runif_raw(nd)
    if bad.any():
        warn(NAS_PRODUCED)
    return out


# AS 241 (Wichura 1988) coefficients as in R 4.2.2's qnorm.c, constant term first.
_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427,
      13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
      33430.575583588128105, 2509.0809287301226727)
_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
      21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
      5226.495278852854561)
_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055,
      3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177,
      0.0227238449892691845833, 7.7454501427834140764e-4)
_D = (1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
      0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4,
      1.05075007164441684324e-9)
_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358,
      0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386,
      2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
      7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7,
      2.04426310338993978564e-15)


def _horner(c, r):
    """``((c7*r + c6)*r + ... )*r + c0``, evaluated exactly in that order."""
    acc = c[7] * r + c[6]
    for j in range(5, -1, -1):
        acc = acc * r + c[j]
    return acc


def _qnorm(p):
    """R's ``qnorm(p)`` (mean 0, sd 1, lower tail, not log; R 4.2.2, AS 241), elementwise.

    Same operations in the same order as R's ``qnorm.c``, so bit-identical; ``log`` is
    the C library's (Python's ``math.log``) and ``sqrt`` is correctly rounded. ``p`` of 0
    or 1 gives -Inf / Inf, outside [0, 1] or NaN gives NaN.
    """
    p = np.asarray(p, dtype=np.float64)
    scalar = p.ndim == 0
    p = p.reshape(-1)
    out = np.empty_like(p)
    q = p - 0.5
    with np.errstate(invalid="ignore"):
        inside = (p > 0.0) & (p < 1.0)
        central = inside & (np.abs(q) <= 0.425)
        tail = inside & ~central
    out[~inside] = np.nan
    out[p == 0.0] = -np.inf
    out[p == 1.0] = np.inf
    if central.any():
        qc = q[central]
        r = 0.180625 - qc * qc
        out[central] = qc * _horner(_A, r) / _horner(_B, r)
    if tail.any():
        pt = p[tail]
        qt = q[tail]
        rt = np.where(qt > 0.0, (0.5 - pt) + 0.5, pt)  # R_DT_CIv(p) / p_
        r = np.array([math.sqrt(-math.log(x)) for x in rt.tolist()], dtype=np.float64)
        val = np.empty_like(r)
        near = r <= 5.0
        if near.any():
            rn = r[near] + (-1.6)
            val[near] = _horner(_C, rn) / _horner(_D, rn)
        if (~near).any():
            rf = r[~near] + (-5.0)
            val[~near] = _horner(_E, rf) / _horner(_F, rf)
        out[tail] = np.where(qt < 0.0, -val, val)
    return float(out[0]) if scalar else out


def _norm_rand_many(count):
    """``count`` values of R's ``norm_rand()`` (INVERSION: two uniforms each)."""
    u = _runif_raw(2 * count)
    # (int)(BIG * u1) + u2, then / BIG: truncation == floor for u1 > 0
    return _qnorm((np.floor(_BIG * u[0::2]) + u[1::2]) / _BIG)


def rnorm(n: int | ArrayLike, mean: float | ArrayLike = 0.0, sd: float | ArrayLike = 1.0) -> np.ndarray:
    """Normal random numbers, as R's ``rnorm(n, mean, sd)`` (normal kind "Inversion").

    Parameters
    ----------
    n : int
        Number of values (a vector of length > 1 means its length, as in R).
    mean, sd : float or array_like
        Recycled along the result.

    Returns
    -------
    numpy.ndarray
        ``mean + sd * qnorm(u)`` with ``u = (floor(2^27 * u1) + u2) / 2^27`` from two
        successive uniforms (R's "Inversion" normal kind), bit-identical to R. As in R an element
        with ``sd == 0`` or infinite ``mean`` is ``mean`` and uses no draw; NaN ``mean``,
        negative or non-finite ``sd`` give NaN (no draw) with the warning ``NAs produced``.
    """
    count = _n_arg(n)
    if count == 0:
        return np.empty(0, dtype=np.float64)
    mu = _param(mean, count)
    sigma = _param(sd, count)
    if mu is None or sigma is None:
        warn(NAS_PRODUCED)
        return np.full(count, np.nan)
    with np.errstate(invalid="ignore"):
        bad = np.isnan(mu) | ~np.isfinite(sigma) | (sigma < 0.0)
        draw = ~bad & ~((sigma == 0.0) | ~np.isfinite(mu))
    out = mu.copy()
    out[bad] = np.nan
    nd = int(np.count_nonzero(draw))
    if nd:
        z = _norm_rand_many(nd)
        out[draw] = mu[draw] + sigma[draw] * z
    if bad.any():
        warn(NAS_PRODUCED)
    return out


# --------------------------------------------------------------------------------------
# rbinom(n, 1, prob): Bernoulli draws (for the CORP resampling band and its test)
# --------------------------------------------------------------------------------------

def _bernoulli_scalar(pp):
    """One value of R's ``rbinom(1, 1, pp)`` for ``0 < pp < 1`` by R's inversion branch.

    R's ``rbinom.c`` (``n * p < 30``) with ``n = 1``: ``p = min(pp, 1 - pp)``, ``q = 1 - p``,
    ``r = p / q``, ``g = 2 r``; one ``unif_rand()`` ``u``; 0 if ``u < q``; otherwise ``u -= q``
    and 1 if ``u < q * (g / 1 - r)``; otherwise the search runs on with a zero probability
    until it gives up after 110 steps and draws a new ``u``. The result is flipped when
    ``pp > 0.5``. Written from R's algorithm (not NumPy's binomial, which draws doubles of
    53 bits and uses another search), so the values and the stream are R's.
    """
    from ._stream import _unif_rand

    p = min(pp, 1.0 - pp)
    q = 1.0 - p
    r = p / q
    g = r * 2.0
    f1 = q * (g / 1.0 - r)
    while True:
        u = _unif_rand()
        if u < q:
            ix = 0
            break
        if u - q < f1:
            ix = 1
            break
    return 1 - ix if pp > 0.5 else ix


def _rbinom1(prob):
    """R's ``rbinom(length(prob), 1L, prob)``: int64 0/1 draws from R's stream.

    ``prob`` must be in [0, 1] (callers pass probabilities they checked). As in R, a
    probability of 0 gives 0 and one of 1 gives 1 without a draw; every other element uses
    one ``unif_rand()`` (R's retry after an exhausted search cannot happen for ``size = 1``
    unless ``u - q >= p`` to the last bit, which the vectorised path detects and then replays
    element by element).
    """
    from ._stream import _ensure_init, _restore, _snapshot

    pp = np.asarray(prob, dtype=np.float64).ravel()
    out = np.zeros(pp.size, dtype=np.int64)
    out[pp == 1.0] = 1
    draw = np.flatnonzero((pp > 0.0) & (pp < 1.0))
    if draw.size == 0:
        return out
    _ensure_init()
    snap = _snapshot()
    pd_ = pp[draw]
    p = np.minimum(pd_, 1.0 - pd_)
    q = 1.0 - p
    r = p / q
    f1 = q * ((r * 2.0) / 1.0 - r)
    u = _runif_raw(draw.size)
    zero = u < q
    one = ~zero & (u - q < f1)
    if not (zero | one).all():  # R would redraw: replay one element at a time
        _restore(snap)
        out[draw] = [_bernoulli_scalar(v) for v in pd_.tolist()]
        return out
    ix = one.astype(np.int64)
    out[draw] = np.where(pd_ > 0.5, 1 - ix, ix)
    return out

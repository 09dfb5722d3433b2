"""Calibration tests: Kolmogorov-Smirnov, Kuiper and Spiegelhalter (docs/spec/seed-methods.md §D).

The tests of MAPIE's multiclass calibration theory (seed 003). KS and Kuiper compare the
path of cumulative differences between outcomes and scores, sorted by score, with a
Brownian motion (Arrieta-Ibarra, Gujral, Tannen, Tygert and Xu 2022; Tygert 2022);
Spiegelhalter's test (1986) standardises the Brier score. Each returns an
:class:`~calstats.evaluation.htest.HTest`. ``convention="mapie"`` reproduces MAPIE's numbers exactly
(seeded jitter instead of tie blocks, Kuiper's range without the starting point, series
truncated at MAPIE's ``EPSILON = 1e-8``, p-values not clamped).
"""

import math

import numpy as np
from scipy.special import ndtr

from .. import _validate as v
from ._fsum import fsum
from ..dask import any_dask
from .htest import HTest
from .metrics import correct
from .._typing import Labels, Scores, Weights

__all__ = ["cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test", "ks_cdf", "kuiper_cdf"]

TYPES = ("confidence", "class")
CONVENTIONS = ("calstats", "mapie")
#: scipy's names; R's "two.sided" is accepted as "two-sided"
ALTERNATIVES = ("two-sided", "greater", "less")
_MACHINE_EPS = 2.220446049250313e-16
_MAPIE_EPS = 1e-8


# --------------------------------------------------------------------------------------
# input reduction (§D.1)


def _scores(p, y, type, cls):
    """(s, o) of §D.1 after the checks in the spec's order.

    ``s`` is float64; ``o`` is int64 0/1, or float64 with NaN where a logical label is
    missing (quirk Q1). Neither is written to, so a float64 input is used without a copy.
    """
    if v.is_matrix(p):
        P, r, pred = v.check_prob_matrix_top(p, "p")
        codes, levels, _k = v.check_matrix_labels(P, y)
        if type == "class":
            key = None
            if isinstance(cls, str):
                key = cls
            elif isinstance(cls, (int, np.integer)) and not isinstance(cls, (bool, np.bool_)):
                key = str(int(cls))
            if key not in levels:
                v.fail("Argument `cls` must be one of the levels of `y`.")
            j = levels.index(key)
            s, o = np.ascontiguousarray(P[:, j]), (codes == j + 1).astype(np.int64)
        else:
            s, o = r, correct(pred, codes)
    else:
        s, o = v.check_prob_and_labels(p, y, copy=False)
    if s.size < 2:
        v.fail("Argument `p` must contain at least two observations.")
    return s, o


def _alternative(alternative):
    """scipy's names, R's ``"two.sided"`` accepted; None stays None (the default depends
    on the convention)."""
    if alternative is not None:
        if alternative == "two.sided":
            alternative = "two-sided"
        alternative = v.match_arg(alternative, ALTERNATIVES)
    return alternative


def _prepare(p, y, type, cls, convention, alternative=None):
    type = v.match_arg(type, TYPES)
    alternative = _alternative(alternative)
    convention = v.match_arg(convention, CONVENTIONS)
    s, o = _scores(p, y, type, cls)
    return s, o, type, convention, alternative


# --------------------------------------------------------------------------------------
# cumulative differences (§D.2)


def _sigma(s):
    return math.sqrt(fsum(s * (1.0 - s), bound=1.0)) / s.size


def _sorted_pairs(s, o):
    """``(s[order], o[order])`` for ``order = np.lexsort((o, s))``, by one sort of integers.

    For 0/1 outcomes the key ``2 * bits(s) + o`` orders like (score, outcome): the bits of a
    non-negative double, read as an integer, increase with it (``s + 0.0`` turns -0.0, which
    lexsort ties with 0.0, into 0.0), and 2 * bits(1.0) < 2^63. Rows with equal keys have
    equal terms ``o - s``, so lexsort's index order among them cannot change any sum.
    """
    key = (s + 0.0).view(np.int64) << 1
    key |= o
    key.sort()
    return (key >> 1).view(np.float64), key & 1


def _cumdiff(s, o, convention):
    """The path C_k (k >= 1) of §D.2 and the scale sigma."""
    n = s.size
    if convention == "mapie":
        jitter = 1e-8 * np.random.RandomState(1).normal(size=n)
        sj = s * (1 + jitter)
        order = np.argsort(sj)
        C = np.cumsum(o[order] - sj[order]) / n
        sigma = float(np.sqrt(np.sum(s * (1 - s))) / n)
    else:
        # Sorting by (score, outcome) makes the sequence, hence every rounding, independent
        # of the row order; C is kept at the last index of each block of equal scores.
        if o.dtype.kind == "i":
            ss, os = _sorted_pairs(s, o)
        else:  # missing logical labels (NaN) have no integer key
            order = np.lexsort((o, s))
            ss, os = s[order], o[order]
        C = np.cumsum(os - ss) / n
        last = np.append(ss[1:] != ss[:-1], True)
        C = C[last]
        sigma = _sigma(s)
    if sigma == 0:
        v.fail("All scores are 0 or 1: the scale sigma is zero and the test is undefined.")
    return C, sigma


def _test_weights(weights, s, convention):
    from .._weights import check_weights

    w = check_weights(weights, s.size)
    if w is not None and convention == "mapie":
        v.fail('Case weights are not supported with convention = "mapie" (MAPIE has none).')
    return w


def _weighted_cumdiff(s, o, w):
    """The path and scale of :func:`_cumdiff` with frequency weights: ``C_k = sum_{i<=k}
    w_i (y_i - s_i) / W`` and ``sigma = sqrt(sum w s (1 - s)) / W``, ``W = sum(w)``; the
    same tie blocks, so integer weights give the replicated rows' path."""
    order = np.lexsort((o, s))
    ss, os, ws = s[order], np.asarray(o, dtype=np.float64)[order], w[order]
    total = float(np.sum(ws))
    C = np.cumsum(ws * (os - ss)) / total
    C = C[np.append(ss[1:] != ss[:-1], True)]
    sigma = math.sqrt(math.fsum((ws * ss * (1.0 - ss)).tolist())) / total
    if sigma == 0:
        v.fail("All scores are 0 or 1: the scale sigma is zero and the test is undefined.")
    return C, sigma


def _weighted_spiegelhalter(s, o, w, alternative, type):
    """Spiegelhalter's Z with frequency weights: weighted sums throughout."""
    total = float(np.sum(w))
    d = np.asarray(o, dtype=np.float64) - s
    a = 1.0 - 2.0 * s
    var = math.fsum((w * a * a * s * (1.0 - s)).tolist())
    if var == 0:
        v.fail("The Spiegelhalter variance is zero: every score is 0, 1/2 or 1.")
    Z = math.fsum((w * d * a).tolist()) / math.sqrt(var)
    pv = {"greater": float(ndtr(-Z)), "less": float(ndtr(Z))}.get(alternative)
    if pv is None:
        pv = float(min(1.0, 2.0 * ndtr(-abs(Z))))
    brier = math.fsum((w * d * d).tolist()) / total
    expected = math.fsum((w * s * (1.0 - s)).tolist()) / total
    return HTest({"Z": Z}, pv, "Spiegelhalter calibration test", alternative,
                 estimate={"brier": brier, "expected_brier": expected}, **_extra(s.size, type, "calstats"))


# --------------------------------------------------------------------------------------
# distributions (§D.4)


def _ks_cdf_series(x, eps):
    kmax = math.ceil(0.5 + x * math.sqrt(2) / math.pi * math.sqrt(math.log(4 / (math.pi * eps))))
    c = 0.0
    for k in range(kmax):
        kp = k + 0.5
        c += (-1) ** k / kp * math.exp(-(kp**2) * math.pi**2 / (2 * x**2))
    return c * 2 / math.pi


def _kuiper_cdf_series(x, eps):
    kmax = math.ceil(0.5 + x / (math.pi * math.sqrt(2))
                     * math.sqrt(math.log(4 / (math.sqrt(2 * math.pi) * eps) * (1 / x + x / math.pi**2))))
    c = 0.0
    for k in range(kmax):
        kp = k + 0.5
        c += (8 / x**2 + 2 / kp**2 / math.pi**2) * math.exp(-2 * kp**2 * math.pi**2 / x**2)
    return c


def ks_cdf(x):
    """``P(max_{t in [0,1]} |B_t| <= x)`` for a standard Brownian motion B (Darling-Siegert
    series truncated at machine precision, Tygert 2022; docs/spec/seed-methods.md §D.4)."""
    x = float(x)
    return 0.0 if x <= 0 else min(1.0, max(0.0, _ks_cdf_series(x, _MACHINE_EPS)))


def kuiper_cdf(x):
    """``P(max B - min B <= x)`` over [0, 1] (Feller's series, truncated at machine precision)."""
    x = float(x)
    return 0.0 if x <= 0 else min(1.0, max(0.0, _kuiper_cdf_series(x, _MACHINE_EPS)))


def _range_with_start(cmax, cmin):
    """``max(0, max C) - min(0, min C)``, NaN when the path is (Python's ``max(0.0, nan)``
    would be 0)."""
    if math.isnan(cmax) or math.isnan(cmin):
        return math.nan
    return max(0.0, cmax) - min(0.0, cmin)


def _ks_pvalue(x):
    """``1 - D(x)``: the series below 1, the Gaussian-tail series from 1 on (no cancellation)."""
    if math.isnan(x):  # a missing logical label (quirk Q1): the statistic and its p-value are NA
        return math.nan
    if x <= 0:
        return 1.0
    if x < 1:
        p = 1.0 - _ks_cdf_series(x, _MACHINE_EPS)
    else:
        p, k = 0.0, 1
        while (2 * k - 1) * x <= 40:
            p += (-1) ** (k - 1) * float(ndtr(-(2 * k - 1) * x))
            k += 1
        p *= 4
    return min(1.0, max(0.0, p))


def _kuiper_pvalue(x):
    """``1 - F(x)``: the series below 1.5, the Gaussian-tail series from 1.5 on."""
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 1.0
    if x < 1.5:
        p = 1.0 - _kuiper_cdf_series(x, _MACHINE_EPS)
    else:
        p, k = 0.0, 1
        while k * x <= 40:
            p += (-1) ** (k - 1) * k * float(ndtr(-k * x))
            k += 1
        p *= 8
    return min(1.0, max(0.0, p))


def _mapie_pvalue(series, x):
    """MAPIE's ``1 - cdf(x)`` with its numpy arithmetic and ``EPSILON = 1e-8`` (not clamped)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = np.float64(x)
        if series == "ks":
            kmax = np.ceil(0.5 + x * np.sqrt(2) / np.pi * np.sqrt(np.log(4 / (np.pi * _MAPIE_EPS))))
            c = 0.0
            for k in range(int(kmax)):
                kplus = k + 1 / 2
                c += (-1) ** k / kplus * np.exp(-(kplus**2) * np.pi**2 / (2 * x**2))
            c *= 2 / np.pi
        else:
            kmax = np.ceil(0.5 + x / (np.pi * np.sqrt(2))
                           * np.sqrt(np.log(4 / (np.sqrt(2 * np.pi) * _MAPIE_EPS) * (1 / x + x / np.pi**2))))
            c = 0.0
            for k in range(int(kmax)):
                kplus = k + 1 / 2
                c += (8 / x**2 + 2 / kplus**2 / np.pi**2) * np.exp(-2 * kplus**2 * np.pi**2 / x**2)
    return float(1 - c)


# --------------------------------------------------------------------------------------
# the tests


_DOC_ARGS = """
    Parameters
    ----------
    p : array_like
        Binary probability vector, or an n x K probability matrix (rows sum to 1). A Dask
        array or DataFrame is tested without loading it whole (:mod:`calstats.dask`;
        ``convention="calstats"``, no weights).
    y : array_like
        0/1 labels for a vector; class codes 1..K or a factor for a matrix (a Dask
        array or Series with Dask ``p``).
    type : {"confidence", "class"}
        Matrix ``p``: test the top-label confidence against its correctness, or column
        ``cls`` against ``1{y = cls}``. Ignored for a vector ``p``.
    cls : str or int, optional
        A level of ``y`` (``type="class"`` only).
    convention : {"calstats", "mapie"}
        ``"mapie"`` reproduces MAPIE's numbers exactly (see the module notes).
"""


def _extra(n, type, convention):
    return {"n": n, "type": type, "convention": convention}


def cal_ks_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                convention: str = "calstats", *, weights: Weights = None) -> HTest:
    """Kolmogorov-Smirnov calibration test on cumulative differences (ECCE-MAD).

    With the observations sorted by score, ``C_k = (1/n) sum_{i<=k} (y_(i) - s_(i))`` and
    ``sigma = sqrt(sum_i s_i (1 - s_i)) / n``, the statistic is ``G = max_k |C_k| / sigma``
    (seed 003, "Kolmogorov-Smirnov test"; Arrieta-Ibarra et al. 2022). Under calibration
    ``C / sigma`` behaves like a standard Brownian motion, so ``p = 1 - D(G)`` with
    ``D(x) = P(max |B| <= x)`` (docs/spec/seed-methods.md §D.2-D.4).
    {args}
    Returns
    -------
    HTest
        statistic ``{"G": G}``, parameter ``{"n": n}``, estimate
        ``{"max_abs_cumdiff", "sigma"}``, alternative "miscalibrated".

    Notes
    -----
    Observations with equal scores form one block (C is read at the end of each block), so
    the result does not depend on the row order; MAPIE jitters tied scores instead
    (``convention="mapie"``). The p-value uses the Gaussian-tail form of ``1 - D`` for
    ``G >= 1``, accurate for tiny p-values, and is clamped to [0, 1]. ``weights``: see
    :func:`cal_spiegelhalter_test`.
    """
    if any_dask(p, y):
        from ..dask._sorted import ks_test

        return ks_test(p, y, type, cls, convention, weights)
    s, o, type, convention, _ = _prepare(p, y, type, cls, convention)
    w = _test_weights(weights, s, convention)
    C, sigma = _cumdiff(s, o, convention) if w is None else _weighted_cumdiff(s, o, w)
    m = float(np.max(np.abs(C)))
    G = float(m / sigma)
    pv = _mapie_pvalue("ks", G) if convention == "mapie" else _ks_pvalue(G)
    n = s.size if w is None else float(w.sum())
    return HTest({"G": G}, pv, "Kolmogorov-Smirnov calibration test (cumulative differences)", "miscalibrated",
                 parameter={"n": n}, estimate={"max_abs_cumdiff": m, "sigma": sigma},
                 **_extra(s.size, type, convention))


def cal_kuiper_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                    convention: str = "calstats", *, weights: Weights = None) -> HTest:
    """Kuiper calibration test on cumulative differences (ECCE-R).

    ``H = (max_{0<=k<=n} C_k - min_{0<=k<=n} C_k) / sigma``, the range of the
    cumulative-difference path including its start ``C_0 = 0`` (Tygert 2022), compared
    with the range of a standard Brownian motion: ``p = 1 - F(H)`` (seed 003, "Kuiper
    test"; docs/spec/seed-methods.md §D.3-D.4).
    {args}
    Returns
    -------
    HTest
        statistic ``{"H": H}``, parameter ``{"n": n}``, estimate
        ``{"range_cumdiff", "sigma"}``, alternative "miscalibrated".

    Notes
    -----
    Seed 003 writes ``max |C_k| - min |C_k|``, which is not a range; MAPIE computes the
    range without ``C_0``, which is too small when the path drifts one way (the typical
    miscalibration). ``convention="mapie"`` reproduces MAPIE's value. ``weights``: see
    :func:`cal_spiegelhalter_test`.
    """
    if any_dask(p, y):
        from ..dask._sorted import kuiper_test

        return kuiper_test(p, y, type, cls, convention, weights)
    s, o, type, convention, _ = _prepare(p, y, type, cls, convention)
    w = _test_weights(weights, s, convention)
    C, sigma = _cumdiff(s, o, convention) if w is None else _weighted_cumdiff(s, o, w)
    if convention == "mapie":
        r = float(np.max(C) - np.min(C))
    else:
        r = _range_with_start(float(C.max()), float(C.min()))
    H = float(r / sigma)
    pv = _mapie_pvalue("kuiper", H) if convention == "mapie" else _kuiper_pvalue(H)
    n = s.size if w is None else float(w.sum())
    return HTest({"H": H}, pv, "Kuiper calibration test (cumulative differences)", "miscalibrated",
                 parameter={"n": n}, estimate={"range_cumdiff": r, "sigma": sigma},
                 **_extra(s.size, type, convention))


def cal_spiegelhalter_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                           alternative: str | None = None, convention: str = "calstats", *,
                           weights: Weights = None) -> HTest:
    """Spiegelhalter's calibration test (standardised Brier score).

    ``Z = sum_i (y_i - s_i)(1 - 2 s_i) / sqrt(sum_i (1 - 2 s_i)^2 s_i (1 - s_i))``
    (Spiegelhalter 1986; seed 003, "Spiegelhalter test"; docs/spec/seed-methods.md §D.5): the Brier
    score minus its expectation under calibration, divided by its standard deviation.
    ``Z > 0``: the Brier score is worse than calibration predicts (typically
    over-confidence); ``Z < 0``: under-confidence.
    {args}    alternative : {"two-sided", "greater", "less"}, optional
        scipy's names (R's ``"two.sided"`` is accepted). Default: ``"two-sided"``
        (Spiegelhalter 1986, R's ``rms::val.prob``): ``2 (1 - Phi(|Z|))``, which rejects
        over- and under-confidence alike; with ``convention="mapie"`` the default is MAPIE's
        ``"greater"``: ``1 - Phi(Z)``, which sees only a Brier score worse than expected
        (over-confidence) and gives p near 1 for strongly under-confident scores.
        ``"less"``: ``Phi(Z)``.
    weights : array_like, optional, keyword-only
        Case weights, read as **frequency** weights (row i stands for ``w_i`` observations;
        integer weights equal replicated rows): the statistic uses weighted sums and the
        p-value the Brownian (normal) theory of the ``sum(w)`` observations they stand for.
        For importance (non-frequency) weights that theory does not hold and the p-value is
        only indicative. Not with ``convention="mapie"``.

    Returns
    -------
    HTest
        statistic ``{"Z": Z}``, estimate ``{"brier", "expected_brier"}``.

    Notes
    -----
    An all-{0, 1/2, 1} score vector has zero variance and is an error.
    """
    if any_dask(p, y):
        from ..dask._metrics import spiegelhalter_test

        return spiegelhalter_test(p, y, type, cls, alternative, convention, weights)
    s, o, type, convention, alternative = _prepare(p, y, type, cls, convention, alternative)
    if alternative is None:
        alternative = "greater" if convention == "mapie" else "two-sided"
    w = _test_weights(weights, s, convention)
    if w is not None:
        return _weighted_spiegelhalter(s, o, w, alternative, type)
    n = s.size
    if convention == "mapie":
        return _mapie_spiegelhalter(s, o, alternative, type)
    t_sum, var, num, dd_sum = _spiegelhalter_sums(s, o)
    return _spiegelhalter_htest(n, t_sum, var, num, dd_sum, alternative, type)


def _spiegelhalter_terms(s, o):
    """The four vectors of terms, with the roundings of the sums' definitions:
    ``s (1 - s)``, ``((w w) s)(1 - s)`` with ``w = 1 - 2 s``, ``(o - s) w`` and ``(o - s)^2``."""
    one_minus = 1.0 - s
    w = 1.0 - s * 2.0
    d = np.subtract(o, s)
    return s * one_minus, w * w * s * one_minus, d * w, d * d


def _spiegelhalter_sums(s, o):
    """The four sums of :func:`_spiegelhalter_terms`, each correctly rounded (``math.fsum``'s
    value), from one pass of the C core: per sum an exact part and a rest within a known bound
    (:mod:`calstats.evaluation._fsum`'s method); a sum whose rounding the bound could change
    is summed again exactly from its terms."""
    from ..numerics import _core
    from ._fsum import _certified

    n = s.size
    s = np.ascontiguousarray(s, dtype=np.float64)
    o_int = o.dtype == np.int64
    o = np.ascontiguousarray(o, dtype=np.int64 if o_int else np.float64)
    k = math.frexp(2.0 * (n + 1))[1]  # 2^k > 2 (n + 1) >= 2 (n + 1) max |term|
    parts = _core.spiegelhalter_sums(s, o, int(o_int), math.ldexp(1.0, k))
    bound = math.ldexp(2.0 * n * n, k - 106)
    sums = [_certified(parts[j], parts[4 + j], bound) for j in range(4)]
    if any(x is None for x in sums):  # near a tie, a sum that cancels, zero, or NaN labels
        terms = _spiegelhalter_terms(s, o)
        sums = [x if x is not None else fsum(terms[j], bound=1.0) for j, x in enumerate(sums)]
    return sums


def _mapie_spiegelhalter(s, o, alternative, type):
    """MAPIE's arithmetic (numpy sums, scipy's normal cdf for "greater")."""
    n = s.size
    t_sum, var, _num, dd_sum = _spiegelhalter_sums(s, o)
    if var == 0:
        v.fail("The Spiegelhalter variance is zero: every score is 0, 1/2 or 1.")
    d = np.subtract(o, s)
    Z = float(np.sum(d * (1 - 2 * s)) / np.sqrt(np.sum((1 - 2 * s) ** 2 * s * (1 - s))))
    if alternative == "greater":
        from scipy.stats import norm

        pv = float(1 - norm.cdf(Z))
    else:
        pv = _pvalue(Z, alternative)
    return HTest({"Z": Z}, pv, "Spiegelhalter calibration test", alternative,
                 estimate={"brier": dd_sum / n, "expected_brier": t_sum / n}, **_extra(n, type, "mapie"))


def _pvalue(Z, alternative):
    if alternative == "greater":
        return float(ndtr(-Z))
    if alternative == "less":
        return float(ndtr(Z))
    return float(min(1.0, 2.0 * ndtr(-abs(Z))))


def _spiegelhalter_htest(n, t_sum, var, num, dd_sum, alternative, type):
    """The test from its four sums over the n rows (calstats convention): ``sum s(1-s)``,
    ``sum (1-2s)^2 s(1-s)``, ``sum (y-s)(1-2s)`` and ``sum (y-s)^2``. The Dask path
    (:mod:`calstats.dask._metrics`) merges the same sums from blocks of rows."""
    if var == 0:
        v.fail("The Spiegelhalter variance is zero: every score is 0, 1/2 or 1.")
    Z = num / math.sqrt(var)
    return HTest({"Z": Z}, _pvalue(Z, alternative), "Spiegelhalter calibration test", alternative,
                 estimate={"brier": dd_sum / n, "expected_brier": t_sum / n}, **_extra(n, type, "calstats"))


for _f in (cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test):
    if _f.__doc__:
        _f.__doc__ = _f.__doc__.replace("{args}", _DOC_ARGS)
del _f

"""Calibration tests: Kolmogorov-Smirnov, Kuiper and Spiegelhalter.

The tests of MAPIE's documentation of multiclass calibration. KS and Kuiper compare the
path of cumulative differences between outcomes and scores, sorted by score, with a
Brownian motion (Arrieta-Ibarra, Gujral, Tannen, Tygert and Xu 2022; Tygert 2022);
Spiegelhalter's test (1986) standardises the Brier score. Each returns an
:class:`~calstats.evaluation.htest.HTest`. ``convention="mapie"`` reproduces MAPIE's numbers exactly
(seeded jitter instead of tie blocks, Kuiper's range without the starting point, series
truncated at MAPIE's ``EPSILON = 1e-8``, p-values not clamped).
"""

import math

import numpy as np

from .. import _validate as v
from .._inputs import refuse_misnamed_columns
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import on_dask
from ..kernels.choices import CONVENTIONS, MAPIE_HAS_NO_WEIGHTS, TEST_TYPES, alternative_choice
from ..kernels.cumdiff import (
    cumdiff,
    ks_cdf,
    ks_pvalue,
    kuiper_cdf,
    kuiper_pvalue,
    mapie_pvalue,
    range_with_start,
    weighted_cumdiff,
)
from ..kernels.spiegelhalter import normal_pvalue, spiegelhalter_sums
from ..kernels.toplabel import correct
from .htest import HTest

__all__ = ["cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test", "ks_cdf", "kuiper_cdf"]

TYPES = TEST_TYPES


# --------------------------------------------------------------------------------------
# input reduction: the scores and outcomes tested


def _scores(p, y, type, cls):
    """The scores ``s`` and 0/1 outcomes ``o`` under test, after the input checks in order.

    A vector ``p`` gives ``(p, y)``; a matrix gives the top-label confidence and its
    correctness (``type="confidence"``) or column ``cls`` and ``1{y = cls}``
    (``type="class"``). ``s`` is float64; ``o`` is int64 0/1, or float64 with NaN where a
    logical label is missing (a pandas ``boolean`` NA passes the label check, as a logical
    NA does in R). Neither is written to, so a float64 input is used without a copy.
    """
    if v.is_matrix(p):
        P, r, pred = v.check_prob_matrix_top(p, "p")
        codes, levels, _k = v.check_matrix_labels(P, y)
        refuse_misnamed_columns(p, y)
        if type == "class":
            key = None
            if isinstance(cls, str):
                key = cls
            elif isinstance(cls, (int, np.integer)) and not isinstance(cls, (bool, np.bool_)):
                key = str(int(cls))
            if key not in levels:
                v.fail_level_of_y()
            j = levels.index(key)
            s, o = np.ascontiguousarray(P[:, j]), (codes == j + 1).astype(np.int64)
        else:
            s, o = r, correct(pred, codes)
    else:
        s, o = v.check_prob_and_labels(p, y, copy=False)
    if s.size < 2:
        v.fail_two_observations()
    return s, o


def _prepare(p, y, type, cls, convention, alternative=None):
    type = v.match_arg(type, TYPES)
    alternative = alternative_choice(alternative)
    convention = v.match_arg(convention, CONVENTIONS)
    s, o = _scores(p, y, type, cls)
    return s, o, type, convention, alternative


# --------------------------------------------------------------------------------------
# weights


def _test_weights(weights, s, convention):
    w = check_weights(weights, s.size)
    if convention == "mapie":
        v.refuse_weights(w, MAPIE_HAS_NO_WEIGHTS)
    return w


def _weighted_spiegelhalter(s, o, w, alternative, type):
    """Spiegelhalter's Z with frequency weights: weighted sums throughout."""
    total = float(np.sum(w))
    d = np.asarray(o, dtype=np.float64) - s
    a = 1.0 - 2.0 * s
    var = math.fsum((w * a * a * s * (1.0 - s)).tolist())
    if var == 0:
        v.fail_spiegelhalter_variance()
    Z = math.fsum((w * d * a).tolist()) / math.sqrt(var)
    pv = normal_pvalue(Z, alternative)
    brier = math.fsum((w * d * d).tolist()) / total
    expected = math.fsum((w * s * (1.0 - s)).tolist()) / total
    return HTest({"Z": Z}, pv, "Spiegelhalter calibration test", alternative,
                 estimate={"brier": brier, "expected_brier": expected}, **_extra(s.size, type, "calstats"))


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


@on_dask("_sorted.path_extremes", finish=lambda path, **_: _ks_of_path(path))
def cal_ks_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                convention: str = "calstats", *, weights: Weights = None) -> HTest:
    """Kolmogorov-Smirnov calibration test on cumulative differences (ECCE-MAD).

    With the observations sorted by score, ``C_k = (1/n) sum_{i<=k} (y_(i) - s_(i))`` and
    ``sigma = sqrt(sum_i s_i (1 - s_i)) / n``, the statistic is ``G = max_k |C_k| / sigma``
    (MAPIE's documentation of the Kolmogorov-Smirnov test; Arrieta-Ibarra et al. 2022). Under
    calibration ``C / sigma`` behaves like a standard Brownian motion, so ``p = 1 - D(G)``
    with ``D(x) = P(max_{t in [0, 1]} |B_t| <= x)``.
    {args}
    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

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
    s, o, type, convention, _ = _prepare(p, y, type, cls, convention)
    w = _test_weights(weights, s, convention)
    C, sigma = cumdiff(s, o, convention) if w is None else weighted_cumdiff(s, o, w)
    n = s.size if w is None else float(w.sum())
    return _ks_htest(float(np.max(np.abs(C))), sigma, s.size, n, type, convention)


def _ks_htest(m, sigma, rows, n, type, convention):
    """The KS test from ``max |C|`` and sigma (``rows`` rows standing for ``n`` observations)."""
    G = float(m / sigma)
    pv = mapie_pvalue("ks", G) if convention == "mapie" else ks_pvalue(G)
    return HTest({"G": G}, pv, "Kolmogorov-Smirnov calibration test (cumulative differences)", "miscalibrated",
                 parameter={"n": n}, estimate={"max_abs_cumdiff": m, "sigma": sigma},
                 **_extra(rows, type, convention))


def _ks_of_path(path):
    """The KS test from the extremes of the path computed on Dask blocks."""
    n, type, convention, cmax, cmin, sigma = path
    return _ks_htest(float(np.max(np.abs([cmax, cmin]))), sigma, n, n, type, convention)


@on_dask("_sorted.path_extremes", finish=lambda path, **_: _kuiper_of_path(path))
def cal_kuiper_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                    convention: str = "calstats", *, weights: Weights = None) -> HTest:
    """Kuiper calibration test on cumulative differences (ECCE-R).

    ``H = (max_{0<=k<=n} C_k - min_{0<=k<=n} C_k) / sigma``, the range of the
    cumulative-difference path including its start ``C_0 = 0`` (Tygert 2022), compared
    with the range of a standard Brownian motion: ``p = 1 - F(H)`` with
    ``F(x) = P(max B - min B <= x)`` (MAPIE's documentation of the Kuiper test).
    {args}
    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    HTest
        statistic ``{"H": H}``, parameter ``{"n": n}``, estimate
        ``{"range_cumdiff", "sigma"}``, alternative "miscalibrated".

    Notes
    -----
    MAPIE's documentation writes ``max |C_k| - min |C_k|``, which is not a range; MAPIE's
    code computes the range without ``C_0``, which is too small when the path drifts one way
    (the typical miscalibration). ``convention="mapie"`` reproduces MAPIE's value. ``weights``: see
    :func:`cal_spiegelhalter_test`.
    """
    s, o, type, convention, _ = _prepare(p, y, type, cls, convention)
    w = _test_weights(weights, s, convention)
    C, sigma = cumdiff(s, o, convention) if w is None else weighted_cumdiff(s, o, w)
    if convention == "mapie":
        r = float(np.max(C) - np.min(C))
    else:
        r = range_with_start(float(C.max()), float(C.min()))
    n = s.size if w is None else float(w.sum())
    return _kuiper_htest(r, sigma, s.size, n, type, convention)


def _kuiper_htest(r, sigma, rows, n, type, convention):
    """Kuiper's test from the range of C and sigma (``rows`` rows standing for ``n``)."""
    H = float(r / sigma)
    pv = mapie_pvalue("kuiper", H) if convention == "mapie" else kuiper_pvalue(H)
    return HTest({"H": H}, pv, "Kuiper calibration test (cumulative differences)", "miscalibrated",
                 parameter={"n": n}, estimate={"range_cumdiff": r, "sigma": sigma},
                 **_extra(rows, type, convention))


def _kuiper_of_path(path):
    """Kuiper's test from the extremes of the path computed on Dask blocks."""
    n, type, convention, cmax, cmin, sigma = path
    return _kuiper_htest(float(range_with_start(cmax, cmin)), sigma, n, n, type, convention)


@on_dask("_metrics.spiegelhalter_sums", finish=lambda sums, **_: _spiegelhalter_htest(*sums))
def cal_spiegelhalter_test(p: Scores, y: Labels, type: str = "confidence", cls: int | str | None = None,
                           alternative: str | None = None, convention: str = "calstats", *,
                           weights: Weights = None) -> HTest:
    """Spiegelhalter's calibration test (standardised Brier score).

    ``Z = sum_i (y_i - s_i)(1 - 2 s_i) / sqrt(sum_i (1 - 2 s_i)^2 s_i (1 - s_i))``
    (Spiegelhalter 1986; MAPIE's documentation of the Spiegelhalter test): the Brier
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

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    HTest
        statistic ``{"Z": Z}``, estimate ``{"brier", "expected_brier"}``.

    Notes
    -----
    An all-{0, 1/2, 1} score vector has zero variance and is an error.
    """
    s, o, type, convention, alternative = _prepare(p, y, type, cls, convention, alternative)
    if alternative is None:
        alternative = "greater" if convention == "mapie" else "two-sided"
    w = _test_weights(weights, s, convention)
    if w is not None:
        return _weighted_spiegelhalter(s, o, w, alternative, type)
    n = s.size
    if convention == "mapie":
        return _mapie_spiegelhalter(s, o, alternative, type)
    t_sum, var, num, dd_sum = spiegelhalter_sums(s, o)
    return _spiegelhalter_htest(n, t_sum, var, num, dd_sum, alternative, type)


def _mapie_spiegelhalter(s, o, alternative, type):
    """MAPIE's arithmetic (numpy sums, scipy's normal cdf for "greater")."""
    n = s.size
    t_sum, var, _num, dd_sum = spiegelhalter_sums(s, o)
    if var == 0:
        v.fail_spiegelhalter_variance()
    d = np.subtract(o, s)
    Z = float(np.sum(d * (1 - 2 * s)) / np.sqrt(np.sum((1 - 2 * s) ** 2 * s * (1 - s))))
    if alternative == "greater":
        from scipy.stats import norm

        pv = float(1 - norm.cdf(Z))
    else:
        pv = normal_pvalue(Z, alternative)
    return HTest({"Z": Z}, pv, "Spiegelhalter calibration test", alternative,
                 estimate={"brier": dd_sum / n, "expected_brier": t_sum / n}, **_extra(n, type, "mapie"))


def _spiegelhalter_htest(n, t_sum, var, num, dd_sum, alternative, type):
    """The test from its four sums over the n rows (calstats convention): ``sum s(1-s)``,
    ``sum (1-2s)^2 s(1-s)``, ``sum (y-s)(1-2s)`` and ``sum (y-s)^2``. On Dask inputs the
    same sums are merged from blocks of rows (:func:`calstats.dask._metrics.spiegelhalter_sums`)."""
    if var == 0:
        v.fail_spiegelhalter_variance()
    Z = num / math.sqrt(var)
    return HTest({"Z": Z}, normal_pvalue(Z, alternative), "Spiegelhalter calibration test", alternative,
                 estimate={"brier": dd_sum / n, "expected_brier": t_sum / n}, **_extra(n, type, "calstats"))


for _f in (cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test):
    if _f.__doc__:
        _f.__doc__ = _f.__doc__.replace("{args}", _DOC_ARGS)
del _f

"""The Hosmer-Lemeshow goodness-of-fit test, as ``ResourceSelection::hoslem.test`` defines it.

R's definition (ResourceSelection 0.3-5), step by step: the breaks are the *unique*
type-7 quantiles of the fitted probabilities at ``seq(0, 1, 1/g)``; the probabilities are
cut at those breaks (right-closed intervals, the lowest one closed); in each group the
observed counts of ``y = 0`` and ``y = 1`` are compared with the sums of ``1 - p`` and
``p``; the statistic is the sum of ``(observed - expected)^2 / expected`` over the
``2 x groups`` cells and the p-value is ``1 - pchisq(statistic, g - 2)`` -- on ``g - 2``
degrees of freedom even when tied quantiles merged some groups.
"""

import math

import numpy as np
import pandas as pd

from .._frames import native
from .._inputs import refuse_swap
from .._typing import ArrayLike
from .._validate import (
    check_binary_values,
    check_flag,
    check_groups,
    check_positive_number,
    check_unit_values,
    fail_intervals,
    fail_lengths_differ,
    fail_na_rm,
    warn_empty_cell,
)
from ..evaluation.htest import HTest
from ..numerics.nmath import numeric_vector, pchisq_upper, quantile7
from ..numerics.reductions import rsum

__all__ = ["hoslem_test"]

METHOD = "Hosmer and Lemeshow goodness of fit (GOF) test"


def _seq_by(g):
    """R ``seq(0, 1, 1/g)``: ``pmin(0 + (0:n) * by, 1)`` with ``n = as.integer(1/by + 1e-10)``."""
    by = 1.0 / g
    n = int(1.0 / by + 1e-10)
    return np.minimum(np.arange(n + 1) * by, 1.0)


def _cut_labels(breaks):
    """R ``cut(..., include.lowest = TRUE)`` labels (``formatC(breaks, digits = 3..12)``)."""
    nb = len(breaks)
    for dig in range(3, 13):
        ch = ["%.*g" % (dig, 0.0 + b) for b in breaks]
        if all(ch[i + 1] != ch[i] for i in range(nb - 1)):
            break
    labels = [f"({ch[i]},{ch[i + 1]}]" for i in range(nb - 1)]
    labels[0] = "[" + labels[0][1:]
    return labels


def hoslem_test(y: ArrayLike, p: ArrayLike, g: float = 10, data_name: str = "y, p", *,
                df: float | None = None, na_rm: bool = False) -> HTest:
    """Hosmer-Lemeshow goodness-of-fit test: ``ResourceSelection::hoslem.test(y, p, g)``.

    Parameters
    ----------
    y : array_like
        Observed outcomes, 0/1 (numbers or booleans). R's ``x``.
    p : array_like
        Fitted probabilities (R's ``y``).
    g : int, default 10
        Number of groups (quantiles of ``p``); the test has ``g - 2`` degrees of freedom.
    data_name : str, default "y, p"
        R's ``data.name`` (R deparses the argument expressions).
    df : float, optional
        Degrees of freedom of the reference chi-squared distribution. ``None`` (the default)
        is R's ``g - 2``, right when the probabilities were fitted on the same data (the
        original development-sample test). For *external validation*, where the model was
        fitted elsewhere and no parameters are estimated on these data, Hosmer and
        Lemeshow's reference distribution has ``g`` degrees of freedom: pass ``df=g``.
        ResourceSelection has no such argument (a calstats extension).
    na_rm : bool, default False
        Missing values: R's ``quantile(na.rm = FALSE)`` inside ``hoslem.test`` refuses a
        missing ``p`` ("missing values and NaN's not allowed if 'na.rm' is FALSE"), and so
        does calstats by default; ``na_rm=True`` drops every row whose ``y`` or ``p`` is
        missing first (R: ``hoslem.test(y[ok], p[ok])`` with ``ok <- complete.cases(y, p)``).

    Returns
    -------
    HTest
        ``statistic = {"X-squared": ...}``, ``parameter = {"df": g - 2}`` (or the given
        ``df``), ``p_value``;
        extra attributes ``observed`` and ``expected`` (DataFrames, one row per group,
        columns ``y0, y1`` / ``yhat0, yhat1``, indexed by R's interval labels). Prints as R's
        ``print.htest``.

    Notes
    -----
    R equivalent: ``ResourceSelection::hoslem.test(x = y, y = p, g = 10)``. Like R, a
    missing value in ``p`` is an error (from ``quantile``) unless ``na_rm``; when every
    ``p`` is equal R's ``cut`` reads the single break as a number of intervals and fails
    ("invalid number of intervals"); an event where every ``p`` of its group is 0 makes the
    statistic infinite (p-value 0), as in R. The p-value
    is ``1 - pchisq`` as R computes it (to ~1e-16 absolute; see
    :func:`calstats.numerics.nmath.pchisq_upper`).

    Deliberate differences: R's order is ``(y, p)``, and probabilities given as ``y`` with
    0/1 values as ``p`` are refused, naming the swap (R computes a statistic of the swapped
    roles); an outcome other than 0/1, probabilities outside [0, 1] or infinite, and fewer
    than 3 groups (``g - 2`` degrees of freedom; 2 with an explicit ``df``) are refused
    (R returns a statistic or a p-value of NaN with them). A group whose probabilities are
    all 0 (or all 1) with no event (no non-event) in it has a cell of 0 / 0: the statistic
    is NaN, as in R, with a warning that names the group.
    """
    y, p = native(y, "y"), native(p, "p")  # polars, pyarrow, torch, ...: as pandas or NumPy
    refuse_swap(p, y, "hoslem_test(y, p)")
    yv = numeric_vector(y, "y")
    pv = numeric_vector(p, "p")
    na_rm = check_flag(na_rm, "na_rm")
    if yv.size != pv.size:
        fail_lengths_differ("cutyhat")
    if na_rm:
        ok = ~(np.isnan(yv) | np.isnan(pv))
        yv, pv = yv[ok], pv[ok]
    if np.isnan(pv).any():
        fail_na_rm()
    check_binary_values(yv, "y")
    check_unit_values(pv, "p")
    if df is not None:
        df = check_positive_number(df, "df")
        df = int(df) if df == int(df) else df
    g = check_groups(g, "g", 3 if df is None else 2)
    if pv.size == 0:  # R: quantile(numeric(0)) is NA, and cut() then stops as below
        fail_intervals()
    qq = np.unique(quantile7(pv, _seq_by(g)))
    if qq.size < 2:
        fail_intervals()
    codes = np.searchsorted(qq, pv, side="left")  # (b[i-1], b[i]] -> i
    codes = np.where(pv == qq[0], 1, codes)      # include.lowest
    k = qq.size - 1
    keep = ~np.isnan(yv)
    obs = np.zeros((k, 2))
    exp = np.zeros((k, 2))
    for i in range(1, k + 1):
        sel = (codes == i) & keep
        obs[i - 1] = rsum(1.0 - yv[sel]), rsum(yv[sel])
        exp[i - 1] = rsum(1.0 - pv[sel]), rsum(pv[sel])
    with np.errstate(divide="ignore", invalid="ignore"):
        cells = (obs - exp) ** 2 / exp
    if np.isnan(cells).any():
        warn_empty_cell(_cut_labels(qq)[int(np.argwhere(np.isnan(cells))[0][0])])
    chisq = rsum(cells.T.ravel())  # column-major, as R sums a matrix
    if df is None:
        df = g - 2
    if df > 0:
        pval = pchisq_upper(chisq, df)
    elif df == 0:
        pval = math.nan if math.isnan(chisq) else (1.0 if chisq <= 0 else 0.0)
    else:
        pval = math.nan
    labels = _cut_labels(qq)
    observed = pd.DataFrame(obs, index=pd.Index(labels, name="cutyhat"), columns=["y0", "y1"])
    expected = pd.DataFrame(exp, index=pd.Index(labels, name="cutyhat"), columns=["yhat0", "yhat1"])
    return HTest({"X-squared": chisq}, pval, METHOD, None, data_name=data_name, parameter={"df": df},
                 observed=observed, expected=expected, g=g)

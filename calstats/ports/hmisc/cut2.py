"""``Hmisc::cut2`` for numbers: quantile groups (``g``), groups of about ``m`` observations,
or given ``cuts`` -- what ``val.prob`` uses for numeric ``group`` and the plot's grouped
proportions.

Ported from Hmisc's R code (method 1): the distinct values are taken from
``names(table(x))`` printed with 15 significant digits (as R does), cut points are
``approx(cumsum(n), xx, xout = (1:g) * nnm / g, method = "constant", f = 1, rule = 2)``,
and each observation joins the last group whose lower end (less half the smallest gap
between distinct values) it reaches. Labels follow Hmisc's ``[low,high)`` form with
R's ``format(low, digits = 3)`` (common decimals and width); ``levels_mean``: the group
means as ``%.5g`` (or ``digits``).
"""

import numpy as np
import pandas as pd

from ..._errors import fail
from ..._messages import CUT2_G
from ...numerics.reductions import rmean
from ...numerics.rformat import format_real

__all__ = ["cut2", "cut2_codes"]


def _approx_const_f1(xk, yk, v):
    """``approx(xk, yk, xout = v, method = "constant", f = 1, rule = 2)$y`` (xk increasing)."""
    v = np.atleast_1d(np.asarray(v, dtype=np.float64))
    j = np.searchsorted(xk, v, side="left")  # first knot >= v
    j = np.clip(j, 0, xk.size - 1)
    out = yk[j]
    out = np.where(v <= xk[0], yk[0], out)
    out = np.where(v >= xk[-1], yk[-1], out)
    return out


def cut2_codes(x, g=None, m=150, cuts=None):
    """Group codes (1-based, 0 for NaN) and ``(low, up)`` ends of ``Hmisc::cut2``."""
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    xu = np.unique(np.concatenate([x[ok], [] if cuts is None else np.asarray(cuts, dtype=np.float64)]))
    min_dif = float(np.min(np.diff(xu))) / 2.0 if xu.size > 1 else np.inf
    if cuts is not None:
        cuts = np.asarray(cuts, dtype=np.float64)
        r0, r1 = np.min(x[ok]), np.max(x[ok])
        if r0 < cuts[0]:
            cuts = np.concatenate([[r0], cuts])
        if r1 > np.max(cuts):
            cuts = np.concatenate([cuts, [r1]])
        k2 = cuts - min_dif
        k2[-1] = cuts[-1]
        codes = np.searchsorted(k2, x, side="left")  # cut(x, k2): (k2[i-1], k2[i]]
        codes = np.where((x <= k2[0]) | (x > k2[-1]) | ~ok, 0, codes)
        return codes.astype(np.int64), cuts[:-1], cuts[1:]
    nnm = int(ok.sum())
    if g is None:
        g = max(1, nnm // m)
    if g < 1:
        fail(CUT2_G)
    # names(table(x)) with options(digits = 15)
    xx_all = np.array([float("%.15g" % v) for v in x[ok]])
    xx, counts = np.unique(xx_all, return_counts=True)
    cum = np.cumsum(counts).astype(np.float64)
    cutv = _approx_const_f1(cum, xx, np.arange(1, g + 1) * nnm / g)
    cutv[-1] = xx.max()
    lower = xx[0]
    upper = 1e45
    codes = np.where(ok, 1, 0).astype(np.int64)
    low, up = [], []
    i = 0
    for j in range(1, g + 1):
        cj = cutv[j - 1]
        if cj == upper:
            continue
        i += 1
        upper = cj
        codes[ok & (x >= (lower - min_dif))] = i
        low.append(lower)
        if j == g:
            lower = upper
        else:
            above = xx[xx > upper]
            lower = above.min() if above.size else upper
        up.append(lower)
    return codes, np.array(low), np.array(up)


def cut2(x, g=None, m=150, cuts=None, levels_mean=False, digits=None):
    """``Hmisc::cut2(x, cuts, m, g, levels.mean, digits)`` as a pandas Categorical."""
    x = np.asarray(x, dtype=np.float64)
    codes, low, up = cut2_codes(x, g=g, m=m, cuts=cuts)
    k = len(low)
    if digits is None:
        digits = 5 if levels_mean else 3
    if levels_mean:
        labels = []
        for i in range(1, k + 1):
            sel = x[codes == i]
            labels.append("%.*g" % (digits, rmean(sel)) if sel.size else "NA")
    else:
        # Hmisc: format(low, digits) and format(up, digits) -- R's common formatting of
        # each vector (same decimals, padded to a common width)
        flow = format_real(list(low), digits)
        fup = format_real(list(up), digits)
        labels = []
        for i in range(k):
            sel = x[codes == i + 1]
            var = sel.size > 0 and np.ptp(sel) > 0
            bb = ")" if i < k - 1 else "]"
            labels.append(flow[i] if (low[i] == up[i] or not var) else f"[{flow[i]},{fup[i]}{bb}")
    # duplicated labels would break a Categorical: make them unique (R allows duplicates)
    seen = {}
    uniq = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        uniq.append(lab if seen[lab] == 1 else f"{lab}.{seen[lab]}")
    return pd.Categorical.from_codes(codes - 1, categories=uniq)

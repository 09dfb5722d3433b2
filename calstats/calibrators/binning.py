"""Non-parametric binary calibrators: isotonic regression and histogram binning
(R ``probcal::cal_isotonic`` and ``probcal::cal_histogram``)."""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._robject import RObject
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..kernels.bins import equal_width_breaks, fill_empty_bins, find_bins, group_rmean
from ..numerics.interp import approx_constant, quantile_type8
from ..numerics.reductions import LD
from ..ports.stats.isoreg import isoreg
from ..results._base import Calibrator

__all__ = ["cal_isotonic", "CalIsotonic", "IsoregFit", "cal_histogram", "CalHistogram"]


# --------------------------------------------------------------------------------------
# isotonic regression


class IsoregFit(RObject):
    """R's ``isoreg`` object as stored in ``cal_isotonic(...)$fit`` (the fields calstats ports).

    ``x``/``y`` are the sorted data, ``yf`` the fitted values before clipping, ``yc`` the
    cumulative sums (leading 0), ``i_knots`` (R ``iKnots``, 1-based block ends), ``is_ord``
    (R ``isOrd``: no ties in ``x``) and ``ord`` (None when ``is_ord``, else ``1..n``).
    """

    _r_fields = ("x", "y", "yf", "yc", "iKnots", "isOrd", "ord", "call")
    _aliases = {"iKnots": "i_knots", "isOrd": "is_ord"}


class CalIsotonic(Calibrator):
    """A fitted isotonic calibration map: a non-decreasing step function of ``p``,
    interpolated linearly between thresholds when predicting.

    Attributes
    ----------
    x_thresholds : ndarray
        The distinct training probabilities, increasing.
    y_calibrated : ndarray
        The calibrated probability at each threshold.
    fit : IsoregFit
    """

    r_class = ("cal_isotonic", "calibrator")
    _r_fields = ("method", "n", "input", "x_thresholds", "y_calibrated", "fit", "call")
    #: the case weights of a weighted fit (not an R field)
    _extras: tuple[str, ...] = ("weights",)
    # R fields, set by the constructor (declared for type checkers)
    x_thresholds: np.ndarray
    y_calibrated: np.ndarray

    def _parameter_items(self):
        return [("Thresholds", str(len(self.x_thresholds)))]

    def _parameter_tables(self):
        return {"steps": pd.DataFrame({"threshold": self.x_thresholds, "calibrated": self.y_calibrated})}

    def predict(self, newdata: Scores, **kwargs: Any) -> np.ndarray:
        """Linear interpolation between thresholds, constant beyond the ends, clipped to
        [0, 1] (R ``approx(..., rule = 2, ties = "ordered")``)."""
        p = v.check_prob(newdata, "newdata")
        if self.x_thresholds.size == 1:
            return np.full(p.size, self.y_calibrated[0])
        out = approx_constant(self.x_thresholds, self.y_calibrated, p)
        return np.minimum(np.maximum(np.asarray(out, dtype=np.float64), 0.0), 1.0)


@records_call("cal_isotonic")
def cal_isotonic(p: Scores, y: Labels, *, weights: Weights = None) -> CalIsotonic:
    """Isotonic-regression calibration (pool-adjacent-violators on the sorted scores).

    Parameters
    ----------
    p : array_like
        Uncalibrated probabilities in [0, 1].
    y : array_like
        Binary labels 0/1 (both must occur).
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal): non-negative, finite, not all zero, one per
        observation; integer weights give the fit of the data with each row repeated that
        many times. ``None`` is R's fit, bit for bit.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalIsotonic

    Notes
    -----
    R equivalent: ``probcal::cal_isotonic(p, y)``. Observations are ordered by ``p`` with
    ties broken positives first, fitted with R's ``isoreg``, and tied ``p`` values are
    averaged, so the numbers are R's exactly.
    """
    pv = v.check_prob(p, "p")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("p", "y", pv.size, yv.size)
    if yv.dtype.kind == "f" and np.isnan(yv).any():
        v.fail_r_missing_not_allowed()  # R's order() on a logical NA label (which passed the label check)
    w = check_weights(weights, pv.size)
    if w is not None:
        return _isotonic_weighted(pv, yv, w)
    order = np.lexsort((-yv, pv))  # by p, ties with positives first; stable otherwise
    p_o = pv[order]
    y_o = yv[order].astype(np.float64)
    iso = isoreg(y_o)
    yf = np.asarray(iso.yf, dtype=np.float64)
    clipped = np.minimum(np.maximum(yf, 0.0), 1.0)
    starts = np.flatnonzero(np.concatenate([[True], p_o[1:] != p_o[:-1]]))
    ends = np.append(starts[1:], p_o.size)
    x_thr = p_o[starts].copy()
    y_cal = group_rmean(clipped, ends - starts)
    is_ord = bool(np.all(p_o[1:] > p_o[:-1]))
    fit = IsoregFit(x=p_o, y=y_o, yf=yf, yc=np.asarray(iso.yc, dtype=np.float64),
                    i_knots=np.asarray(iso.iKnots, dtype=np.int64), is_ord=is_ord,
                    ord=None if is_ord else np.arange(1, p_o.size + 1), call={"function": "isoreg"})
    return CalIsotonic(method="isotonic regression", n=int(pv.size), input="probabilities",
                       x_thresholds=x_thr, y_calibrated=y_cal, fit=fit, call=None)


def _isotonic_weighted(pv, yv, w):
    """Weighted isotonic regression: pool-adjacent-violators with weights (SciPy's), then
    the weighted mean of the fitted values per distinct ``p``. Rows of weight 0 are left
    out, so integer weights equal replicated rows (R's ``isoreg`` has no weights)."""
    from scipy.optimize import isotonic_regression

    keep = w > 0
    pk, yk, wk = pv[keep], yv[keep].astype(np.float64), w[keep]
    order = np.lexsort((-yk, pk))
    p_o, y_o, w_o = pk[order], yk[order], wk[order]
    yf = np.asarray(isotonic_regression(y_o, weights=w_o, increasing=True).x, dtype=np.float64)
    clipped = np.minimum(np.maximum(yf, 0.0), 1.0)
    starts = np.flatnonzero(np.concatenate([[True], p_o[1:] != p_o[:-1]]))
    group = np.cumsum(np.concatenate([[True], p_o[1:] != p_o[:-1]])) - 1
    y_cal = np.bincount(group, weights=w_o * clipped) / np.bincount(group, weights=w_o)
    return CalIsotonic(method="isotonic regression", n=int(pv.size), input="probabilities",
                       x_thresholds=p_o[starts].copy(), y_calibrated=y_cal, fit=None, call=None, weights=w)


# --------------------------------------------------------------------------------------
# histogram binning

STRATEGIES = ("equal_width", "equal_freq")


class CalHistogram(Calibrator):
    """A fitted histogram-binning map: the observed event rate of each bin.

    Attributes
    ----------
    bins, actual_bins : int
        Requested bins, and bins left after dropping duplicated quantile breaks.
    strategy : str
    breaks : ndarray
        ``actual_bins + 1`` break points from 0 to 1; bins are left-closed, the last closed.
    bin_values : ndarray
        Event rate per bin (an empty bin takes its nearest non-empty neighbour's rate).
    counts : ndarray of int
    global_rate : float
    """

    r_class = ("cal_histogram", "calibrator")
    _r_fields = ("method", "n", "input", "bins", "actual_bins", "strategy", "breaks", "bin_values",
                 "counts", "global_rate", "call")
    #: the case weights of a weighted fit (not an R field)
    _extras: tuple[str, ...] = ("weights",)
    # R fields, set by the constructor (declared for type checkers)
    breaks: np.ndarray
    bin_values: np.ndarray

    def _parameter_items(self):
        return [("RequestedBins", str(self.bins)), ("ActualBins", str(self.actual_bins)), ("Strategy", self.strategy)]

    def _parameter_tables(self):
        return {
            "bins": pd.DataFrame(
                {"lower": self.breaks[:-1], "upper": self.breaks[1:], "count": self.counts, "value": self.bin_values},
                index=pd.RangeIndex(1, len(self.counts) + 1, name="bin"),
            )
        }

    def predict(self, newdata: Scores, **kwargs: Any) -> np.ndarray:
        """The rate of the bin holding each value (a value on a break goes to the bin
        starting there; 1 to the last bin)."""
        p = v.check_prob(newdata, "newdata")
        return self.bin_values[find_bins(p, self.breaks) - 1]


def _r_int_mean(labels):
    """R ``mean()`` of an integer vector, NA when any label is missing (a logical NA passes R's label check)."""
    if labels.size == 0:
        return np.nan
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        return np.nan
    return float(LD(int(np.sum(labels.astype(np.int64)))) / LD(labels.size))


@records_call("cal_histogram")
def cal_histogram(p: Scores, y: Labels, bins: int = 10, strategy: str = "equal_width", *,
                  weights: Weights = None) -> CalHistogram:
    """Histogram-binning calibration.

    Parameters
    ----------
    p : array_like
        Uncalibrated probabilities in [0, 1].
    y : array_like
        Binary labels 0/1 (both must occur).
    bins : int
        Number of bins requested.
    strategy : {"equal_width", "equal_freq"}
        Equal-width bins on [0, 1], or bins at the type-8 sample quantiles of ``p``
        (duplicated breaks are dropped, so fewer bins may remain).
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal), equal-width bins only: each bin's rate is the
        weighted mean of its labels and ``counts`` are the weighted counts; integer weights
        equal replicated rows. ``None`` is R's fit, bit for bit.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalHistogram

    Notes
    -----
    R equivalent: ``probcal::cal_histogram(p, y, bins = 10, strategy = c("equal_width",
    "equal_freq"))``. Breaks are R's doubles (``j * (1/bins)``, so 0.3 and 3 * 0.1 differ)
    and quantiles are R's type 8, so bin membership is R's exactly.
    """
    pv = v.check_prob(p, "p")
    yv = v.check_binary_y(y, "y", require_both=True)
    v.check_same_length("p", "y", pv.size, yv.size)
    nbins = v.check_bins(bins, "bins")
    strategy = v.match_arg(strategy, STRATEGIES)
    w = check_weights(weights, pv.size)
    if w is not None:
        v.refuse_weighted_quantiles(strategy)
        return _histogram_weighted(pv, yv, nbins, w)
    breaks = equal_width_breaks(nbins)
    if strategy == "equal_freq":
        q = np.asarray(quantile_type8(pv, breaks), dtype=np.float64)
        q[0], q[-1] = 0.0, 1.0
        breaks = np.unique(q)  # sorted, exact duplicates dropped
    actual = breaks.size - 1
    bin_id = find_bins(pv, breaks)
    counts = np.bincount(bin_id - 1, minlength=actual).astype(np.int64)
    values = np.full(actual, np.nan)
    for j in np.flatnonzero(counts):
        values[j] = _r_int_mean(yv[bin_id == j + 1])
    global_rate = _r_int_mean(yv)
    return CalHistogram(method="histogram binning", n=int(pv.size), input="probabilities", bins=nbins,
                        actual_bins=int(actual), strategy=strategy, breaks=breaks,
                        bin_values=fill_empty_bins(values, counts, global_rate), counts=counts,
                        global_rate=global_rate, call=None)


def _histogram_weighted(pv, yv, nbins, w):
    """Equal-width histogram binning with case weights: weighted bin rates and counts."""
    breaks = equal_width_breaks(nbins)
    bin_id = find_bins(pv, breaks)
    yf = np.asarray(yv, dtype=np.float64)
    wsum = np.bincount(bin_id - 1, weights=w, minlength=nbins)
    wy = np.bincount(bin_id - 1, weights=w * yf, minlength=nbins)
    values = np.full(nbins, np.nan)
    full = wsum > 0
    values[full] = wy[full] / wsum[full]
    global_rate = float(np.sum(w * yf) / np.sum(w))
    return CalHistogram(method="histogram binning", n=int(pv.size), input="probabilities", bins=nbins,
                        actual_bins=int(nbins), strategy="equal_width", breaks=breaks,
                        bin_values=fill_empty_bins(values, full.astype(np.int64), global_rate), counts=wsum,
                        global_rate=global_rate, call=None, weights=w)

"""Top-label calibration and the top-label ECE (no R equivalent).

Gupta and Ramdas (2021), "Top-label calibration and multiclass-to-binary reductions", as
described in MAPIE's documentation of multiclass calibration: a predictor (c, h) is
top-label calibrated when ``P(Y = c(X) | c(X), h(X)) = h(X)``; the reduction calibrates the
confidence ``h`` separately for every predicted class ``c`` with a binary calibrator.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .._call import records_call
from .._inputs import refuse_misnamed_columns
from .._options import resolve_engine
from .._typing import Labels, Scores, Weights
from .._weights import check_weights
from ..dask import on_dask
from ..kernels.bins import bin_stats, binning, grouped_bin_stats, norm_of, weighted_bin_stats
from ..kernels.choices import AVERAGES, BIN_NORMS, CONVENTIONS, MAPIE_HAS_NO_WEIGHTS
from ..kernels.probs import prob_frame
from ..numerics.reductions import rmean
from ..results._base import Calibrator
from . import registry

__all__ = ["cal_top_label", "top_label_ece", "CalTopLabel"]

#: The binary calibrators fitted per predicted class (:mod:`calstats.calibrators.registry`).
METHODS = registry.names(m for m in registry.METHODS.values() if m.top_label)
PREDICT_TYPES = ("prob", "top")


def _top(P):
    """Top label (0-based, first maximum: R ``max.col(ties.method = "first")``) and confidence."""
    pred = np.argmax(P, axis=1)
    return pred, P[np.arange(P.shape[0]), pred]


class CalTopLabel(Calibrator):
    """A fitted top-label calibrator (R-style class ``cal_top_label``).

    Attributes
    ----------
    base_method : {"platt", "isotonic", "histogram"}
    points_per_bin : int
    calibrators : list
        Per level: the fitted binary calibrator of the confidence among rows predicted as
        that class, or None (class left unchanged).
    status : DataFrame
        Per level: rows predicted as it (``n``), their accuracy, mean confidence and the
        status ("calibrated", "never predicted", "single outcome", "too few rows",
        "constant confidence").
    k, levels : int, list of str
    """

    r_class = ("cal_top_label", "cal_multiclass", "calibrator")
    _r_fields = ("method", "n", "input", "base_method", "points_per_bin", "calibrators", "status", "k", "levels",
                 "call")
    _summary_details = True

    def _parameter_items(self):
        return [("BaseMethod", self.base_method),
                ("CalibratedClasses", f"{sum(c is not None for c in self.calibrators)} of {self.k}")]

    def _parameter_tables(self):
        return {"status": _details(self)}

    @property
    def coef(self):
        """Per level: the Platt coefficients (``(Intercept)``, ``x``), or the number of
        isotonic thresholds / histogram bins; NaN for classes left unchanged."""
        return _details(self)

    def _calibrated_top(self, P):
        pred, h = _top(P)
        hh = h.copy()
        for j, cal in enumerate(self.calibrators):
            rows = pred == j
            if cal is not None and rows.any():
                hh[rows] = np.asarray(cal.predict(h[rows]), dtype=np.float64)
        return pred, h, hh

    def predict(self, newdata: Scores, type: str = "prob", **kwargs: Any) -> pd.DataFrame:
        """Calibrated probabilities.

        Parameters
        ----------
        newdata : array_like or DataFrame (n, k)
            Probability matrix (numeric, entries in [0, 1], rows summing to 1 within 1e-6)
            with ``k`` columns.
        type : {"prob", "top"}
            ``"prob"``: the k-column matrix with the top entry replaced by the calibrated
            confidence and the other entries rescaled proportionally to fill the rest (rows
            sum to one; the mass is shared equally when the other entries are all 0).
            ``"top"``: a DataFrame with ``class`` (Categorical top label, never changed) and
            ``prob`` (its calibrated confidence).
        """
        type = v.match_arg(type, PREDICT_TYPES)
        P = v.check_prob_matrix(newdata, "newdata")
        v.check_ncol(P.shape[1], self.k)
        pred, _h, hh = self._calibrated_top(P)
        index = newdata.index if isinstance(newdata, pd.DataFrame) else None
        if type == "top":
            cls = pd.Categorical.from_codes(pred, categories=pd.Index(self.levels))
            return pd.DataFrame({"class": cls, "prob": hh}, index=index)
        rows = np.arange(P.shape[0])
        others = P.copy()
        others[rows, pred] = 0.0
        rest = others.sum(axis=1)
        out = np.empty_like(P)
        pos = rest > 0
        out[pos] = others[pos] * ((1.0 - hh[pos]) / rest[pos])[:, None]
        out[~pos] = ((1.0 - hh[~pos]) / (self.k - 1))[:, None]
        out[rows, pred] = hh
        return prob_frame(out, self.levels, like=newdata)

def _details(o):
    tab = o.status.copy()
    if o.base_method == "platt":
        tab["(Intercept)"] = [np.nan if c is None else float(c.coefficients["(Intercept)"]) for c in o.calibrators]
        tab["x"] = [np.nan if c is None else float(c.coefficients["x"]) for c in o.calibrators]
    elif o.base_method == "isotonic":
        tab["thresholds"] = [np.nan if c is None else len(c.x_thresholds) for c in o.calibrators]
    else:
        tab["bins"] = [np.nan if c is None else c.actual_bins for c in o.calibrators]
    return tab


@records_call("cal_top_label")
def cal_top_label(p: Scores, y: Labels, method: str = "platt", points_per_bin: int = 50, *,
                  weights: Weights = None) -> CalTopLabel:
    """Top-label calibration: one binary calibrator of the confidence per predicted class.

    Gupta & Ramdas (2021) as in MAPIE's ``TopLabelCalibrator`` (MAPIE's documentation of
    top-label calibration): for each level k, the rows whose top label (first maximum) is k
    are collected, and a binary calibrator maps their confidence ``h`` to
    ``P(Y = k | c = k, h)``.

    Parameters
    ----------
    p : array_like or DataFrame (n, k)
        Uncalibrated probability matrix.
    y : array_like of int, pandas.Categorical or Factor
        Class codes 1..k or a factor whose levels name the columns.
    method : {"platt", "isotonic", "histogram"}
        The binary calibrator: the R port's ``cal_platt`` (MAPIE's "sigmoid"),
        ``cal_isotonic`` or ``cal_histogram(bins = n_k // points_per_bin,
        strategy = "equal_freq")`` (Gupta & Ramdas' top-label histogram binning).
    points_per_bin : int, default 50
        Only for ``"histogram"``.
    weights : array_like, optional, keyword-only
        Case weights, passed to each predicted class's Platt or isotonic calibrator (not
        with ``"histogram"``, whose bins are quantiles); a class whose rows all have weight
        0 is left unchanged.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalTopLabel

    Warns
    -----
    CalstatsWarning
        Once, naming the classes left unchanged: never predicted, a single outcome among
        their rows, (histogram) fewer than ``points_per_bin`` rows, or (Platt) a constant
        confidence, for which Platt's slope is not identified.

    Notes
    -----
    Checks, in order: ``method``, the probability matrix ``p`` (numeric, at least two columns,
    non-empty, finite, entries in [0, 1], rows summing to 1 within 1e-6), the labels ``y``
    (integer class codes from 1 or a factor, one class per column), equal numbers of
    observations, ``points_per_bin`` (a single positive integer).
    MAPIE's ``predict_proba`` writes into the wrong column when a batch does not predict
    every class and fills the other columns with NaN; ``predict`` here rescales them instead.
    """
    from .binning import cal_histogram, cal_isotonic
    from .logistic import cal_platt

    method = registry.resolve(method, METHODS)
    P = v.check_prob_matrix(p, "p")
    codes, levels, k = v.check_matrix_labels(P, y)
    refuse_misnamed_columns(p, y)
    ppb = v.check_bins(points_per_bin, "points_per_bin")
    w = check_weights(weights, P.shape[0])
    if method == "histogram":
        v.refuse_weights(w, 'with method = "histogram" (its bins are quantiles)')
    pred, h = _top(P)
    calibrators, rows = [], []
    for j in range(k):
        S = pred == j
        nk = int(S.sum())
        o = (codes[S] == j + 1).astype(np.int64)
        hs = h[S]
        cal: Calibrator | None = None
        if nk == 0:
            status = "never predicted"
        elif w is not None and not (w[S] > 0).any():
            status = "zero weight"
        elif o.min() == o.max():
            status = "single outcome"
        elif method == "histogram" and nk // ppb == 0:
            status = "too few rows"
        elif method == "platt" and hs.min() == hs.max():
            status = "constant confidence"
        else:
            status = "calibrated"
            ws = None if w is None else w[S]
            if method == "platt":
                cal = cal_platt(hs, o, weights=ws)
            elif method == "isotonic":
                cal = cal_isotonic(hs, o, weights=ws)
            else:
                cal = cal_histogram(hs, o, bins=nk // ppb, strategy="equal_freq")
        calibrators.append(cal)
        rows.append((levels[j], nk, float(rmean(o.astype(np.float64))) if nk else np.nan,
                     float(rmean(hs)) if nk else np.nan, status))
    status_table = pd.DataFrame(rows, columns=["level", "n", "accuracy", "confidence", "status"]).set_index("level")
    left = [(lv, st) for lv, st in zip(status_table.index, status_table["status"]) if st != "calibrated"]
    if left:
        v.warn_top_label_unchanged([lv for lv, _ in left], [st for _, st in left])
    return CalTopLabel(method="top-label " + registry.method(method).title, n=int(P.shape[0]), input="probabilities (matrix)",
                       base_method=method, points_per_bin=ppb, calibrators=calibrators, status=status_table, k=int(k),
                       levels=list(levels), call=None)


# --------------------------------------------------------------------------------------
# top-label ECE


def _mapie_ece(o, s, bins, norm="l1"):
    """MAPIE's ``expected_calibration_error(..., split_strategy="uniform")``, its arithmetic
    (``norm``: its bins' gaps combined as :func:`calstats.kernels.bins.norm_of` does)."""
    edges = np.linspace(0.0, 1.0, bins)
    binned = np.digitize(s, edges, right=True)
    accs, confs, sizes = np.zeros(bins), np.zeros(bins), np.zeros(bins)
    for b in range(bins):
        sizes[b] = len(s[binned == b])
        if sizes[b] > 0:
            accs[b] = np.divide(np.sum(o[binned == b]), sizes[b])
            confs[b] = np.divide(np.sum(s[binned == b]), sizes[b])
    if norm == "l2":
        return float(np.sqrt(np.divide(np.sum(sizes * (accs - confs) ** 2), np.sum(sizes))))
    if norm == "max":
        return float(np.max(np.abs(accs - confs)[sizes > 0]))
    return float(np.divide(np.sum(sizes * np.abs(accs - confs)), np.sum(sizes)))


def _class_rows(pred, k, w):
    """For each class j predicted (with positive weight), ``(j, rows)``: the rows whose top
    label is j in index order, from one stable sort of the top labels (instead of a mask
    over every row per class)."""
    order = np.argsort(pred, kind="stable")
    ends = np.cumsum(np.bincount(pred, minlength=k))
    out = []
    for j in range(k):
        rows = order[ends[j - 1] if j else 0 : ends[j]]
        if w is not None:
            rows = rows[w[rows] > 0]
        if rows.size:
            out.append((j, rows))
    return out


@on_dask("_metrics.top_label_ece")
def top_label_ece(p: Scores, y: Labels, bins: int | str = 10, average: str = "uniform", convention: str = "calstats", *,
                  weights: Weights = None, strategy: str = "uniform", breaks: Any = None,
                  right: bool = False, engine: str | None = None, norm: str = "l1") -> float:
    """Top-label expected calibration error.

    For every class k predicted at least once, ``ECE_k`` is the binary ECE of the
    confidence against ``1{y = k}`` over the rows whose top label is k (each bin weighted
    by its share of those rows). Gupta & Ramdas (2021) via MAPIE's documentation of the
    top-label ECE.

    Parameters
    ----------
    p : array_like or DataFrame (n, k)
        Probability matrix.
    y : array_like of int, pandas.Categorical or Factor
    bins : int or {"sqrt", "sturges", "cube_root"}, default 10
        Number of bins, or a rule for it from the number of rows whose top label is the
        class (as :func:`calstats.ece`).
    average : {"uniform", "weighted"}
        ``"uniform"`` (MAPIE's documentation and code): the mean of ``ECE_k`` over predicted classes.
        ``"weighted"`` (Gupta & Ramdas' estimator of ``E|P(Y = c | c, h) - h|``):
        ``sum_k (n_k / n) ECE_k``.
    convention : {"calstats", "mapie"}
        ``"calstats"``: the R port's bins (``bins`` equal-width bins, left-closed, the last
        closed; R's arithmetic). ``"mapie"``: MAPIE's binning for cross-checks, edges
        ``linspace(0, 1, bins)`` with right-closed assignment (a bin {0} and ``bins - 1``
        intervals); pass ``bins=50`` for MAPIE's default.
    weights : array_like, optional, keyword-only
        Case weights (``convention="calstats"`` only): each class's ECE uses weighted bins
        (as :func:`calstats.ece`), and ``average="weighted"`` weights the classes by their
        weight sums; integer weights equal replicated rows.
    strategy, breaks, right : keyword-only
        The binning of each class's confidences, as in :func:`calstats.ece`
        (``convention="calstats"`` only; quantile bins are taken per class).
    engine : {None, "r", "fast"}, keyword-only
        ``"r"``: R's arithmetic (each bin's mean is R's two-pass long-double mean).
        ``"fast"`` (unweighted, calstats convention): each bin's mean is its double sum
        over its count, and with bins of fixed edges every class's bins come from one pass
        over the confidences; the value differs from ``"r"``'s in the last few digits only. ``None``
        (default): the ``engine`` option. Dask inputs always use R's arithmetic.
    norm : {"l1", "l2", "max"}, keyword-only, default "l1"
        How each class's bins are combined into ``ECE_k``, as in :func:`calstats.ece`
        (torchmetrics' ``CalibrationError(norm=)``): the weighted mean gap (the top-label
        ECE), the root mean square gap, or the largest gap; the classes are then averaged
        as ``average`` says.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float

    Notes
    -----
    Checks, in order: ``average``, ``convention``, the probability matrix ``p``, the labels
    ``y`` (one class per column), equal numbers of observations, ``bins`` (a single positive
    integer) and the other binning choices.
    Dask inputs are binned block by block (:mod:`calstats.dask`; calstats convention, bins
    with fixed edges).
    """
    engine = resolve_engine(engine)
    average = v.match_arg(average, AVERAGES)
    convention = v.match_arg(convention, CONVENTIONS)
    norm = v.match_arg(norm, BIN_NORMS, "norm")
    of = norm_of(norm)
    # only read: a float32 matrix stays float32; the top label comes with the checks
    P, h, pred = v.check_prob_matrix_top(p, "p", keep_float32=True)
    pred = pred - 1
    codes, _levels, k = v.check_matrix_labels(P, y)
    refuse_misnamed_columns(p, y)
    w = check_weights(weights, P.shape[0])
    if convention == "mapie":
        nbins = v.check_bins(bins)
        v.refuse_weights(w, MAPIE_HAS_NO_WEIGHTS)
        v.refuse_binning(strategy, breaks, right, 'with convention = "mapie" (MAPIE\'s bins are its own)')
    else:
        spec = binning(bins, strategy, breaks, right)
    eces, shares = [], []
    grouped = None
    if engine == "fast" and convention == "calstats" and w is None:
        # every predicted class's bins in one pass (None: bins cut per class, R's path)
        grouped = grouped_bin_stats(h, (codes == pred + 1).astype(np.int64), pred, k, spec)
    if grouped is not None:
        eces = [float(of(st)) for st in grouped.values()]
        shares = [int(st.n.sum()) / P.shape[0] for st in grouped.values()]
    for j, S in ([] if grouped is not None else _class_rows(pred, k, w)):
        o = (codes[S] == j + 1).astype(np.int64)
        if convention == "mapie":
            eces.append(_mapie_ece(o, h[S], nbins, norm))
        elif w is None:
            eces.append(float(of(bin_stats(h[S], o, spec, engine=engine))))
        else:
            eces.append(float(of(weighted_bin_stats(h[S], o, spec, w[S]))))
        shares.append(S.size / P.shape[0] if w is None else float(w[S].sum() / w.sum()))
    if average == "weighted":
        return float(sum(sh * e for sh, e in zip(shares, eces)))
    if convention == "mapie":
        total = 0.0
        for e in eces:
            total += e
        return float(total / len(eces))
    return float(rmean(np.array(eces)))

"""Bootstrap confidence intervals for calibration metrics: ``cal_ci`` and its result class
``CalCi`` (probcal 0.2.0's ``cal_ci``).

Replicates resample rows with R's ``sample.int`` on R's stream (:mod:`calstats.rng`) and are
computed from resample counts (:mod:`calstats.evaluation._bootstrap`); the metrics and the
prepared problem come from :mod:`calstats.evaluation.inference`.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import rng
from .._progress import progress_bar
from .._typing import Labels, Scores
from .._validate import (
    check_bandwidth,
    check_bins,
    check_flag,
    check_interval,
    fail_few_replicates,
    is_matrix,
    match_arg,
    refuse_dask_cal_ci,
    unused_arguments,
    warn_replicates_nan,
)
from ..dask import on_dask
from ..numerics.interp import quantile_type7
from ..numerics.rformat import format_real
from ..results._base import Result
from ..results._tables import table_html
from ._bootstrap import run_replicates
from .inference import ESTIMATORS, _prepare, _skce, skce
from .metrics import ece_debiased

__all__ = ["cal_ci", "CalCi"]

METRICS = ("ece", "skce", "mmce", "mce", "ace")


# --------------------------------------------------------------------------------------
# cal_ci: percentile (or basic) bootstrap intervals


def _metric_fn(metric):
    from . import metrics

    return {"ece": metrics.ece, "mce": metrics.mce, "ace": metrics.ace, "mmce": metrics.mmce}[metric]


_METRIC_ARGS = {
    "ece": ("bins", "type", "debiased"),
    "mce": ("bins", "type"),
    "ace": ("bins", "type"),
    "mmce": ("bandwidth",),
    "skce": ("estimator", "type", "bandwidth"),
}


class CalCi(Result):
    """A bootstrap confidence interval for a calibration metric (R class ``cal_ci``, the
    value of probcal's ``cal_ci``).

    A :class:`~calstats.results._base.Result`, built in one call with every R field
    (keyword arguments by their Python names; a missing one is a ``TypeError``):
    ``print(ci)`` shows the printed form, ``ci.as_frame()`` a one-row DataFrame,
    ``ci["conf.int"]`` and ``ci.names()`` read the R fields, and a notebook shows the
    interval as a table.

    Attributes
    ----------
    estimate : float
        The metric on the full data.
    conf_int : tuple of float
        ``(lower, upper)`` (R ``conf.int``).
    conf_level, n_boot, metric, metric_args, seed
        As passed (R ``conf.level``, ``n_boot``, ...).
    replicates : ndarray
        The ``n_boot`` bootstrap values (NaN ones included).
    method : str
        ``"percentile bootstrap"`` (probcal's) or ``"basic bootstrap"``.
    """

    r_class = ("cal_ci",)
    _r_fields = ("estimate", "conf.int", "conf.level", "n_boot", "metric", "metric_args", "replicates", "seed",
                 "method")
    # R fields, set by the constructor (declared for type checkers)
    estimate: float
    conf_int: tuple[float, float]
    conf_level: float
    n_boot: int
    metric: str
    metric_args: dict[str, Any]
    replicates: np.ndarray
    seed: int | None
    method: str

    def _heading(self):
        level = format_real([100.0 * self.conf_level], 7)[0].strip()
        return f"{level}% {self.method} CI"

    def _notes(self):
        """The lines under the interval: the basic interval's bias-corrected centre, or a
        warning that a percentile interval excludes its estimate."""
        if self.method.startswith("basic"):
            # the basic interval is centred on the bias-corrected value, not on the estimate
            reps = np.asarray(self.replicates, dtype=np.float64)
            corrected = 2.0 * self.estimate - float(np.mean(reps[~np.isnan(reps)]))
            return [f"bias-corrected estimate: {format_real([corrected], 7)[0].strip()}"]
        if not (self.conf_int[0] <= self.estimate <= self.conf_int[1]):
            return ["note: the interval excludes the estimate: the metric is biased; interval = \"basic\" "
                    "corrects for that, and ece(..., debiased = TRUE) estimates without the bias"]
        return []

    def print_text(self) -> str:
        """The printed form, with its final newline: the metric and its estimate, the
        interval with its level and kind, the number of replicates, and a note when the
        interval is basic or excludes the estimate.

        Returns
        -------
        str
        """
        est = format_real([self.estimate], 7)[0].strip()
        lo, hi = (format_real([v], 7)[0].strip() for v in self.conf_int)
        text = f"{self.metric} = {est}\n  {self._heading()}: [{lo}, {hi}]\n  (n_boot = {self.n_boot})\n"
        return text + "".join(f"  {line}\n" for line in self._notes())

    def _html_title(self):
        return f"{self.metric}: {self._heading()}"

    def _repr_html_(self):
        """Notebook view: the metric and the kind of interval as a heading, the
        :meth:`as_frame` table, and the printed note if there is one."""
        import html

        parts = [f"<h4>{html.escape(self._html_title())}</h4>", table_html(self.as_frame())]
        parts.extend(f"<p><small>{html.escape(line)}</small></p>" for line in self._notes())
        return "\n".join(parts)

    def as_frame(self) -> pd.DataFrame:
        """The interval as a one-row DataFrame.

        Returns
        -------
        pandas.DataFrame
            Columns ``metric``, ``estimate``, ``lower``, ``upper``, ``conf_level``,
            ``n_boot``.
        """
        return pd.DataFrame([{"metric": self.metric, "estimate": self.estimate, "lower": self.conf_int[0],
                              "upper": self.conf_int[1], "conf_level": self.conf_level, "n_boot": self.n_boot}])


@on_dask(refuse=refuse_dask_cal_ci)
def cal_ci(p: Scores, y: Labels, metric: str = "ece", n_boot: int = 1000, conf_level: float = 0.95,
           seed: int | None = None, *, interval: str = "percentile", progress: bool | None = None,
           **metric_args: Any) -> "CalCi":
    """Bootstrap confidence interval for a calibration metric (probcal 0.2.0 ``cal_ci``;
    Efron's percentile interval, or the basic interval).

    Parameters
    ----------
    p, y : array_like
        As for the metric.
    metric : {"ece", "skce", "mmce", "mce", "ace"}
        The metric (partial matching as R's ``match.arg``).
    n_boot : int, default 1000
        Bootstrap replicates.
    conf_level : float, default 0.95
        In (0, 1).
    seed : int, optional
        ``None``: the global stream :mod:`calstats.rng` (advanced); an integer: drawn under
        ``set.seed(seed)``, the previous state restored afterwards (like ``cal_cv``).
    interval : {"percentile", "basic"}, keyword-only
        ``"percentile"`` (probcal's): the replicates' quantiles ``(q_lo, q_hi)``.
        ``"basic"`` (not in probcal): ``(2 * estimate - q_hi, 2 * estimate - q_lo)``, which
        corrects for the bias of a biased metric such as the plug-in ECE, whose percentile
        interval sits above the estimate and can exclude it. The printed result says which
        interval it is, and notes when a percentile interval excludes its estimate.
    progress : bool, optional, keyword-only
        A progress bar over the replicates (``None``: in a terminal or notebook after two
        seconds; ``True``: always; ``False``: never).
    **metric_args
        Passed to the metric: ``bins``, ``type``, ``debiased`` (ece), ``estimator``,
        ``bandwidth`` (skce, mmce).

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    CalCi

    Notes
    -----
    Replicate b resamples rows with ``sample.int(n, n, replace = TRUE)`` (R's stream,
    replicate after replicate; the class levels of a matrix are kept). For ``skce`` with
    ``bandwidth="median"`` the bandwidth is computed once on the full data. The interval is
    R's type-7 ``quantile`` of the replicates at ``(1 - conf_level)/2`` and ``(1 +
    conf_level)/2``; NaN replicates are dropped with a warning. A percentile interval of
    a biased metric (the plug-in ECE and MCE are biased upwards) is centred on the biased
    value; for an unbiased target use ``ece(..., debiased=True)`` (:func:`ece_debiased`)
    or ``skce``. Replicates are computed from resample counts without re-sorting or
    re-binning: binned metrics O(n) per replicate, scalar kernel metrics O(n) after one
    sort; they equal recomputation on ``p[idx], y[idx]`` up to rounding. Checks:
    ``metric``; ``conf_level``; ``n_boot`` (a single positive integer); the metric's own
    checks on the full data (unknown ``metric_args`` give R's "unused argument").
    """
    metric = match_arg(metric, METRICS)
    interval = match_arg(interval, ("percentile", "basic"))
    cl = check_interval(conf_level, "conf_level")
    n_boot = check_bins(n_boot, "n_boot")
    unused_arguments({k: v for k, v in metric_args.items() if k not in _METRIC_ARGS[metric]})
    args = dict(metric_args)
    if metric == "skce":
        estimator = match_arg(args.get("estimator", "uq"), ESTIMATORS)
        estimate, prob, nu = _skce(p, y, estimator, args.get("type", "confidence"), args.get("bandwidth", 0.2))
        spec = {"metric": "skce", "estimator": estimator, "nu": nu}
        ref = dict(args, bandwidth=nu)  # the reference path uses the full-data bandwidth
    else:
        debiased = check_flag(args["debiased"], "debiased") if "debiased" in args else False
        ref = {k: v for k, v in args.items() if k != "debiased"}
        estimate = (ece_debiased if debiased else _metric_fn(metric))(p, y, **ref)
        if metric == "mmce":
            prob = _prepare(p, y, "confidence")  # a matrix is reduced to its top label, as mmce does
            spec = {"metric": "mmce", "estimator": "biased", "nu": check_bandwidth(args.get("bandwidth", 0.2))}
        else:
            mtype = match_arg(args.get("type", "classwise"), ("classwise", "confidence")) if is_matrix(p) else None
            prob = _prepare(p, y, mtype or "confidence")
            spec = {"metric": "ece_debiased" if debiased else metric, "bins": check_bins(args.get("bins", 10))}
    fn = _reference_fn(metric, spec["metric"], ref)
    with rng._seeded(seed):
        with progress_bar(n_boot, "cal_ci bootstrap", progress) as bar:
            reps = run_replicates(prob, spec, n_boot, direct=lambda idx: _direct_replicate(fn, prob, idx), bar=bar)
    bad = np.isnan(reps)
    good = reps[~bad]
    if bad.any():
        warn_replicates_nan(int(bad.sum()))
    if good.size < 2:
        fail_few_replicates()
    alpha = 1.0 - cl
    lo, hi = quantile_type7(good, [alpha / 2.0, 1.0 - alpha / 2.0]).tolist()
    if interval == "basic":
        lo, hi = 2.0 * float(estimate) - hi, 2.0 * float(estimate) - lo
    return CalCi(estimate=float(estimate), conf_int=(lo, hi), conf_level=cl, n_boot=n_boot, metric=metric,
                 metric_args=args, replicates=reps, seed=seed, method=f"{interval} bootstrap")


def _reference_fn(metric, kind, args):
    """The public metric with ``args`` bound: recomputation on a resample (reference path)."""
    if metric == "skce":
        return lambda p, y: skce(p, y, **args)
    fn = ece_debiased if kind == "ece_debiased" else _metric_fn(metric)
    return lambda p, y: fn(p, y, **args)


def _direct_replicate(fn, prob, idx):
    """Recompute the metric on the rows ``idx`` (used when a logical label is missing)."""
    import pandas as pd

    if prob.form == "binary":
        yy = pd.array([None if np.isnan(v) else bool(v) for v in prob.c], dtype="boolean")
        return fn(prob.r[idx], yy[idx])
    levels = [str(i) for i in range(1, prob.p.shape[1] + 1)]
    return fn(prob.p[idx], pd.Categorical.from_codes(prob.codes[idx] - 1, levels))

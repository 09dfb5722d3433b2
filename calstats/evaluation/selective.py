"""Selective prediction: the risk-coverage curve, AURC, E-AURC and AUGRC.

A classifier that may abstain keeps its ``k`` most confident predictions (coverage ``k/N``)
and is judged by the error rate among them (the selective risk). Sorting the observations by
decreasing top-label confidence gives, for ``k = 1..N``, the risk

    ``r(k/N) = (1/k) sum_{i <= k} 1{pred_(i) != y_(i)}``

and its areas: AURC (Geifman & El-Yaniv 2017), E-AURC (Geifman et al. 2019: AURC minus the
AURC of an oracle that ranks every correct prediction first) and AUGRC (Traub et al. 2024,
the area under the generalized risk ``(k/N) r(k/N)``, the share of all observations that
are accepted and wrong).

The areas are the ones torch-uncertainty 0.13 computes (``AURC``, ``AUGRC``): the
trapezoidal rule over the points ``(k/N, r(k/N))``, ``k = 1..N``, divided by ``1 - 1/N``
(the width of the grid), which is not the plain mean ``(1/N) sum_k r(k/N)`` its docstring
states. The sums here are long-double sums (R's order), so the values agree with
torch-uncertainty's in float64 to about 1e-16 relative.
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .._inputs import refuse_misnamed_columns
from .._plotting import pyplot
from .._typing import Labels, Scores
from .._validate import (
    check_matrix_labels,
    check_min_rows,
    check_prob_and_labels,
    check_prob_matrix_top,
    is_matrix,
    match_arg,
)
from ..kernels.toplabel import correct
from ..numerics.reductions import rsum
from ..results._base import Result
from ..results._tables import table_html

__all__ = ["RiskCoverage", "risk_coverage", "aurc", "e_aurc", "augrc", "ORACLE_FORMS"]

#: The oracle AURC of :func:`e_aurc`: the same estimator on the oracle ranking, or the
#: continuous-limit closed form ``r + (1 - r) log(1 - r)`` of Geifman et al.
ORACLE_FORMS = ("empirical", "analytic")


def _top_label(p, y):
    """``(confidence, error)`` of each observation: the top-label confidence and whether the
    top label is wrong (0/1 float64), as torch-uncertainty forms them."""
    if is_matrix(p):
        P, r, pred = check_prob_matrix_top(p, "p")
        codes, _levels, _k = check_matrix_labels(P, y)
        refuse_misnamed_columns(p, y)
        return np.asarray(r, dtype=np.float64), 1.0 - correct(pred, codes).astype(np.float64)
    pv, yv = check_prob_and_labels(p, y)
    # torch-uncertainty stacks (1 - p, p): the confidence is the larger, a tie predicts class 0
    q = 1.0 - pv
    pred1 = pv > q
    conf = np.where(pred1, pv, q)
    return conf, (pred1.astype(np.float64) != np.asarray(yv, dtype=np.float64)).astype(np.float64)


def _trapezoid(x, y):
    """``sum_k (x_{k+1} - x_k) (y_k + y_{k+1}) / 2`` (long-double sum in k order)."""
    return rsum(np.diff(x) * (y[1:] + y[:-1])) / 2.0


def _area(coverage, values):
    n = coverage.size
    check_min_rows(n, 2, "p", "the area under the curve is divided by 1 - 1/n")
    return _trapezoid(coverage, values) / (1.0 - 1.0 / n)


def _curve(conf, err):
    """``(order, coverage, risk)``: observations by decreasing confidence (ties in their
    order), ``k/N`` and the cumulative error rate ``cumsum(err)_k / k``."""
    n = conf.size
    order = np.argsort(-conf, kind="stable")
    k = np.arange(1, n + 1, dtype=np.float64)
    risk = np.cumsum(err[order]) / k  # sums of 0/1 values: exact
    return order, k / n, risk


class RiskCoverage(Result):
    """The risk-coverage curve of a classifier that abstains on its least confident
    predictions (not an R object; ``r_class`` is ``("risk_coverage",)``).

    A :class:`~calstats.results._base.Result`: ``print(res)`` gives the areas,
    ``res.as_frame()`` one row per coverage level, ``res.plot()`` draws the curve
    (:class:`calstats.display.RiskCoverageDisplay` draws it in scikit-learn's Display
    convention).

    Attributes
    ----------
    coverage : numpy.ndarray
        ``k/N`` for ``k = 1..N``.
    risk : numpy.ndarray
        The selective risk at each coverage: the error rate of the ``k`` most confident
        predictions.
    generalized_risk : numpy.ndarray
        ``coverage * risk``: the share of all observations accepted and wrong.
    threshold : numpy.ndarray
        The confidence of the ``k``-th most confident prediction (accept when the confidence
        is at least this).
    aurc, e_aurc, augrc : float
        The areas (:func:`aurc`, :func:`e_aurc` with its empirical oracle, :func:`augrc`).
    oracle_aurc : float
        The AURC of the oracle ranking (every correct prediction first).
    error_rate : float
        The risk at full coverage.
    n : int
    """

    r_class = ("risk_coverage",)
    _extras = ("coverage", "risk", "generalized_risk", "threshold", "aurc", "e_aurc", "augrc", "oracle_aurc",
               "error_rate", "n")
    coverage: np.ndarray
    risk: np.ndarray
    generalized_risk: np.ndarray
    threshold: np.ndarray
    aurc: float
    e_aurc: float
    augrc: float
    oracle_aurc: float
    error_rate: float
    n: int

    def __init__(self, **values: Any) -> None:
        for name in ("coverage", "risk", "generalized_risk", "threshold"):
            a = np.array(values[name], dtype=np.float64, copy=True)
            a.flags.writeable = False
            values[name] = a
        super().__init__(**values)

    def _lines(self):
        return [f"n = {self.n}, error rate at full coverage = {self.error_rate:.7g}",
                f"AURC = {self.aurc:.7g}, E-AURC = {self.e_aurc:.7g} (oracle AURC {self.oracle_aurc:.7g}), "
                f"AUGRC = {self.augrc:.7g}"]

    def print_text(self) -> str:
        """The size, the error rate and the areas (with final newline).

        Returns
        -------
        str
        """
        return "\n".join(["Risk-coverage curve (selective classification)", *self._lines()]) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """One row per coverage level ``k/N``.

        Returns
        -------
        pandas.DataFrame
            Index ``k`` (1..N); columns ``coverage``, ``threshold``, ``risk``,
            ``generalized_risk``.
        """
        return pd.DataFrame({"coverage": self.coverage.copy(), "threshold": self.threshold.copy(),
                             "risk": self.risk.copy(), "generalized_risk": self.generalized_risk.copy()},
                            index=pd.RangeIndex(1, self.n + 1, name="k"))

    def _html_title(self):
        return "Risk-coverage curve"

    def _repr_html_(self) -> str:
        import html

        lines = "".join(f"<p>{html.escape(line)}</p>" for line in self._lines())
        more = "" if self.n <= 10 else f"<p><small>first 10 of {self.n} rows</small></p>"
        return f"<h4>Risk-coverage curve</h4>\n{lines}\n" + table_html(self.as_frame().head(10)) + more

    def plot(self, ax: Any = None, *, generalized: bool = False, **kwargs: Any) -> Any:
        """Draw the curve with matplotlib and return the Figure.

        The selective risk (or the generalized risk) against the coverage ``k/N``, both
        axes on [0, 1], the area in the legend. :class:`calstats.display.RiskCoverageDisplay`
        draws the same in scikit-learn's Display convention.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; ``None`` creates a new figure.
        generalized : bool, keyword-only
            Draw the generalized risk (AUGRC's curve) instead of the selective risk.
        **kwargs
            Passed to ``Axes.plot`` for the curve (``label``, ``color``, ...).

        Returns
        -------
        matplotlib.figure.Figure
        """
        plt = pyplot("RiskCoverage.plot()")
        if ax is None:
            _fig, ax = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
        y = self.generalized_risk if generalized else self.risk
        name, value = ("AUGRC", self.augrc) if generalized else ("AURC", self.aurc)
        kwargs.setdefault("label", f"{name} = {value:.4f}")
        ax.plot(self.coverage, y, **kwargs)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, max(1e-3, float(np.max(y)) * 1.05) if y.size else 1.0)
        ax.set_xlabel("coverage (share of predictions kept)")
        ax.set_ylabel("generalized risk (accepted and wrong)" if generalized else "selective risk (error rate)")
        ax.legend(loc="upper left")
        return ax.figure


def risk_coverage(p: Scores, y: Labels) -> RiskCoverage:
    """The risk-coverage curve of the top-label predictions and its areas.

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D) with 0/1 labels, or an n x K probability
        matrix (rows sum to 1) with class codes 1..K or a factor, as in :func:`calstats.ece`.
        The prediction is the top label (the first of tied maxima; for a vector, class 1
        when ``p > 1 - p``) and its confidence the top probability.
    y : array_like
        The labels.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    RiskCoverage

    Notes
    -----
    torch-uncertainty's ``AURC`` and ``AUGRC`` compute the same curve (its
    ``partial_compute``) and areas. Observations of equal confidence keep their order (a
    stable sort); torch-uncertainty's sort leaves their order unspecified, so with tied
    confidences the two may differ. Torch's default float32 dtype makes its coverage grid
    float32 (a relative difference of about 1e-9 in the areas); in float64 the values agree
    to about 1e-16.
    """
    conf, err = _top_label(p, y)
    order, coverage, risk = _curve(conf, err)
    n = conf.size
    nerr = int(rsum(err))
    oracle = _oracle_risk(n, nerr)
    a = _area(coverage, risk)
    a_star = _area(coverage, oracle)
    return RiskCoverage(coverage=coverage, risk=risk, generalized_risk=coverage * risk, threshold=conf[order],
                        aurc=a, e_aurc=a - a_star, augrc=_area(coverage, coverage * risk), oracle_aurc=a_star,
                        error_rate=nerr / n, n=int(n))


def _oracle_risk(n, nerr):
    """The risk curve of the oracle ranking: ``n - nerr`` correct predictions, then the errors."""
    k = np.arange(1, n + 1, dtype=np.float64)
    return np.maximum(k - (n - nerr), 0.0) / k


def aurc(p: Scores, y: Labels) -> float:
    """Area under the risk-coverage curve (AURC; Geifman & El-Yaniv 2017).

    Parameters
    ----------
    p, y : array_like
        As in :func:`risk_coverage`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
        ``trapezoid((k/N, r(k/N)), k = 1..N) / (1 - 1/N)``; NaN for fewer than two
        observations. Lower is better.

    Notes
    -----
    Equals torch-uncertainty 0.13's ``AURC`` (``torch_uncertainty.metrics.classification``)
    on the same probabilities and labels (to about 1e-16 in float64; see
    :func:`risk_coverage` for tied confidences). Its docstring describes the mean
    ``(1/N) sum_k r(k/N)``; its code, and this function, integrate by the trapezoidal rule
    and rescale by ``1 - 1/N``.
    """
    return risk_coverage(p, y).aurc


def augrc(p: Scores, y: Labels) -> float:
    """Area under the generalized risk-coverage curve (AUGRC; Traub et al. 2024).

    The generalized risk at coverage ``k/N`` is ``(k/N) r(k/N)``, the share of all
    observations that are accepted and wrong.

    Parameters
    ----------
    p, y : array_like
        As in :func:`risk_coverage`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
        ``trapezoid((k/N, (k/N) r(k/N))) / (1 - 1/N)``; NaN for fewer than two observations.

    Notes
    -----
    Equals torch-uncertainty 0.13's ``AUGRC`` on the same inputs (as :func:`aurc`).
    """
    return risk_coverage(p, y).augrc


def e_aurc(p: Scores, y: Labels, *, oracle: str = "empirical") -> float:
    """Excess AURC (E-AURC; Geifman, Uziel & El-Yaniv 2019): the AURC less that of an oracle
    that ranks every correct prediction before every error.

    Parameters
    ----------
    p, y : array_like
        As in :func:`risk_coverage`.
    oracle : {"empirical", "analytic"}, keyword-only
        ``"empirical"`` (default): the oracle's AURC by the same estimator as :func:`aurc`
        (its curve is 0 up to coverage ``1 - r``, then ``(k - N (1 - r)) / k``), so a
        perfect ranking has an E-AURC of exactly 0. ``"analytic"``: Geifman et al.'s
        continuous-limit closed form ``r + (1 - r) log(1 - r)``, ``r`` the error rate (the
        form most papers quote; it is not 0 for a perfect ranking of a finite sample).

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float

    Notes
    -----
    torch-uncertainty has no E-AURC.
    """
    oracle = match_arg(oracle, ORACLE_FORMS, "oracle")
    res = risk_coverage(p, y)
    if oracle == "empirical":
        return res.e_aurc
    r = res.error_rate
    star = r + (1.0 - r) * math.log1p(-r) if r < 1.0 else 1.0
    return res.aurc - star

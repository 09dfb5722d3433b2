"""Plots in scikit-learn's Display convention.

scikit-learn draws a calibration curve with
``CalibrationDisplay.from_predictions(y_true, y_prob, ax=...)`` or
``CalibrationDisplay.from_estimator(estimator, X, y, ax=...)``: class methods that compute,
draw on the given Axes (or a new one) and return a Display object holding the data and the
artists (``line_``, ``ax_``, ``figure_``), whose ``plot(ax=...)`` draws again elsewhere.
The classes here do the same for calstats' diagrams:

* :class:`ReliabilityDisplay`: the binned reliability diagram (R probcal's
  ``reliability_diagram``; calstats' bins: ten equal-width bins by default, R's);
* :class:`CorpDisplay`: the CORP reliability diagram (R's ``reliabilitydiag``), with its
  consistency band;
* :class:`RiskCoverageDisplay`: the risk-coverage curve of selective prediction.

The arguments follow scikit-learn's order (``y_true`` first) and its label handling: binary
``y_prob`` is the probability of ``pos_label`` (by default 1, ``True``, or an estimator's
``classes_[1]``); a probability matrix has one column per class in the order of
``classes`` (by default the sorted labels of ``y_true``, or an estimator's ``classes_``).
matplotlib is an optional dependency (``pip install 'calstats[plot]'``).
"""

from typing import Any

import numpy as np

from . import _validate as v
from ._plotting import pyplot
from .evaluation.corp import CorpDiagram, corp
from .evaluation.diagnostics import ReliabilityDiagram, reliability_diagram
from .evaluation.metrics import ece
from .evaluation.selective import RiskCoverage, risk_coverage

__all__ = ["ReliabilityDisplay", "CorpDisplay", "RiskCoverageDisplay"]


def _axes(ax):
    """``(figure, ax)``: the given Axes, or a new figure's."""
    plt = pyplot("calstats' displays")
    if ax is None:
        fig, ax = plt.subplots()
    return ax.figure, ax


def _binary_labels(y_true, pos_label):
    """0/1 labels of ``y_true`` with ``pos_label`` the event (scikit-learn's rule: without
    ``pos_label`` the labels must be {0, 1}, {-1, 1} or booleans)."""
    y = np.asarray(y_true)
    if y.ndim != 1:
        v.fail_display_labels_vector()
    if pos_label is None:
        labels = set(np.unique(y).tolist())
        if not (labels <= {0, 1} or labels <= {-1, 1} or labels <= {False, True}):
            v.fail_display_pos_label()
        pos_label = 1
    return (y == pos_label).astype(np.int64), pos_label


def _class_codes(y_true, classes, ncol):
    """1-based codes of the labels ``y_true`` among ``classes`` (the columns' labels)."""
    y = np.asarray(y_true)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    if classes.size != ncol:
        v.fail_display_classes(ncol, classes.size)
    index = {c: j + 1 for j, c in enumerate(classes.tolist())}
    unknown = [c for c in np.unique(y).tolist() if c not in index]
    if unknown:
        v.fail_display_unknown_labels(unknown[:3])
    return np.array([index[c] for c in y.tolist()], dtype=np.int64), classes


def _problem(y_true, y_prob, pos_label=None, classes=None):
    """``(p, y, pos_label)`` in calstats' form: a vector of P(event) with 0/1 labels, or a
    probability matrix with 1-based codes."""
    if v.is_matrix(y_prob):
        P = np.asarray(y_prob)
        codes, _ = _class_codes(y_true, classes, P.shape[1])
        return y_prob, codes, None
    y01, pos = _binary_labels(y_true, pos_label)
    return y_prob, y01, pos


def _estimator_problem(estimator, X, y, pos_label=None):
    """``predict_proba`` of a fitted classifier, as :func:`_problem` reads it (binary: the
    column of ``pos_label``, by default ``classes_[1]``)."""
    proba = np.asarray(estimator.predict_proba(X))
    classes = np.asarray(estimator.classes_)
    if proba.shape[1] == 2:
        pos = classes[1] if pos_label is None else pos_label
        hit = np.flatnonzero(classes == pos)
        if hit.size != 1:
            v.fail_display_pos_label(classes.tolist())
        return proba[:, hit[0]], (np.asarray(y) == pos).astype(np.int64), pos
    codes, _ = _class_codes(y, classes, proba.shape[1])
    return proba, codes, None


def _name(name, estimator):
    return name if name is not None else type(estimator).__name__


class ReliabilityDisplay:
    """A binned reliability diagram in scikit-learn's Display convention (as
    ``sklearn.calibration.CalibrationDisplay``).

    Create it with :meth:`from_predictions` or :meth:`from_estimator`; :meth:`plot` draws
    it (again) on an Axes.

    Parameters
    ----------
    prob_true : numpy.ndarray
        The observed frequency of each non-empty bin (its accuracy).
    prob_pred : numpy.ndarray
        The mean predicted probability of each non-empty bin (its confidence).
    y_prob : numpy.ndarray
        The probabilities binned (a matrix's top-label confidences).
    diagram : ReliabilityDiagram, optional
        calstats' diagram the bins come from (bins, counts).
    ece : float, optional
        The ECE of the same bins (:func:`calstats.ece`), shown in the legend.
    estimator_name : str, optional
    pos_label : optional
        The event's label of a binary problem.

    Attributes
    ----------
    line_ : matplotlib.lines.Line2D
        The calibration curve.
    ref_line_ : matplotlib.lines.Line2D or None
        The diagonal of perfect calibration.
    ax_, figure_ : matplotlib Axes and Figure
    """

    def __init__(self, prob_true: Any, prob_pred: Any, y_prob: Any, *, diagram: ReliabilityDiagram | None = None,
                 ece: float | None = None, estimator_name: str | None = None, pos_label: Any = None) -> None:
        self.prob_true = np.asarray(prob_true, dtype=np.float64)
        self.prob_pred = np.asarray(prob_pred, dtype=np.float64)
        self.y_prob = np.asarray(y_prob)
        self.diagram = diagram
        self.ece = ece
        self.estimator_name = estimator_name
        self.pos_label = pos_label

    def plot(self, *, ax: Any = None, name: str | None = None, ref_line: bool = True,
             **kwargs: Any) -> "ReliabilityDisplay":
        """Draw the curve (accuracy against confidence per bin) on ``ax`` (a new figure's
        Axes when None) and return the display with its artists set.

        Parameters
        ----------
        ax : matplotlib Axes, optional
        name : str, optional
            The curve's legend label (default: the estimator's name and the ECE).
        ref_line : bool
            Draw the diagonal.
        **kwargs
            Passed to ``Axes.plot`` for the curve.
        """
        fig, ax = _axes(ax)
        name = self.estimator_name if name is None else name
        if self.ece is None:
            label = name
        else:
            label = f"ECE = {self.ece:.4f}" if name is None else f"{name} (ECE = {self.ece:.4f})"
        if label is not None:
            kwargs.setdefault("label", label)
        kwargs.setdefault("marker", "s")
        self.ref_line_ = None
        if ref_line:
            (self.ref_line_,) = ax.plot([0, 1], [0, 1], "k:", label="Perfectly calibrated")
        (self.line_,) = ax.plot(self.prob_pred, self.prob_true, **kwargs)
        suffix = "" if self.pos_label is None else f" (Positive class: {self.pos_label})"
        ax.set(xlabel=f"Mean predicted probability{suffix}", ylabel=f"Fraction of positives{suffix}",
               xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal")
        if "label" in kwargs or ref_line:
            ax.legend(loc="lower right")
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_predictions(cls, y_true: Any, y_prob: Any, *, bins: int | str = 10, strategy: str = "uniform",
                         breaks: Any = None, right: bool = False, pos_label: Any = None, classes: Any = None,
                         name: str | None = None, ax: Any = None, ref_line: bool = True,
                         **kwargs: Any) -> "ReliabilityDisplay":
        """Bin the predictions and draw the diagram.

        Parameters
        ----------
        y_true : array_like
            The labels.
        y_prob : array_like
            The probability of ``pos_label`` (1-D), or a probability matrix (one column per
            class of ``classes``), whose top-label confidences are binned (calstats'
            ``type="confidence"``).
        bins, strategy, breaks, right : keyword-only
            The binning, as :func:`calstats.ece` takes it (default: ten equal-width bins,
            R's; scikit-learn's ``n_bins=5, strategy="uniform"`` is ``bins=5`` with
            ``right=True`` for its right-closed bins).
        pos_label, classes : keyword-only
            The event's label (binary), the columns' labels (matrix).
        name, ax, ref_line, **kwargs
            As :meth:`plot`.

        Returns
        -------
        ReliabilityDisplay
        """
        p, y, pos = _problem(y_true, y_prob, pos_label, classes)
        return cls._from(p, y, pos, bins, strategy, breaks, right, name, ax, ref_line, kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: Any, y: Any, *, bins: int | str = 10, strategy: str = "uniform",
                       breaks: Any = None, right: bool = False, pos_label: Any = None, name: str | None = None,
                       ax: Any = None, ref_line: bool = True, **kwargs: Any) -> "ReliabilityDisplay":
        """``from_predictions`` of a fitted classifier's ``predict_proba(X)`` (binary: the
        column of ``pos_label``, by default ``estimator.classes_[1]``; otherwise the matrix,
        its columns labelled by ``estimator.classes_``); ``name`` defaults to the
        estimator's class name."""
        p, y01, pos = _estimator_problem(estimator, X, y, pos_label)
        return cls._from(p, y01, pos, bins, strategy, breaks, right, _name(name, estimator), ax, ref_line, kwargs)

    @classmethod
    def _from(cls, p, y, pos, bins, strategy, breaks, right, name, ax, ref_line, kwargs):
        d = reliability_diagram(p, y, bins, show_counts=False, type="confidence", strategy=strategy, breaks=breaks,
                                right=right)
        data = d.data
        y_prob = np.asarray(p, dtype=np.float64)
        if y_prob.ndim == 2:
            y_prob = y_prob.max(axis=1)
        e = ece(p, y, bins, "confidence", strategy=strategy, breaks=breaks, right=right)
        disp = cls(data["accuracy"].to_numpy(), data["confidence"].to_numpy(), y_prob, diagram=d, ece=e,
                   estimator_name=name, pos_label=pos)
        return disp.plot(ax=ax, name=name, ref_line=ref_line, **kwargs)


class CorpDisplay:
    """A CORP reliability diagram (R's ``reliabilitydiag``) in scikit-learn's Display
    convention: the PAV-recalibrated probabilities against the forecast, with the
    consistency band.

    Attributes
    ----------
    diagram : CorpDiagram
        calstats' CORP diagram (its curve, bins, band and score decomposition).
    line_ : matplotlib.lines.Line2D
        The CORP curve.
    band_ : matplotlib.collections.PolyCollection or None
        The shaded band (None without one).
    ref_line_ : matplotlib.lines.Line2D or None
    ax_, figure_ : matplotlib Axes and Figure
    """

    def __init__(self, diagram: CorpDiagram, *, estimator_name: str | None = None, pos_label: Any = None) -> None:
        self.diagram = diagram
        self.estimator_name = estimator_name
        self.pos_label = pos_label

    def plot(self, *, ax: Any = None, name: str | None = None, ref_line: bool = True, band: bool = True,
             **kwargs: Any) -> "CorpDisplay":
        """Draw the CORP curve (and the band) on ``ax``; returns the display.

        The curve joins each PAV bin's ends at its recalibrated probability, as
        reliabilitydiag draws continuous forecasts (discrete ones: a point per value).
        ``name`` labels it (with the miscalibration MCB); ``**kwargs`` go to ``Axes.plot``.
        """
        fig, ax = _axes(ax)
        d = self.diagram
        name = self.estimator_name if name is None else name
        mcb = d.decomposition().miscalibration
        kwargs.setdefault("label", f"{name or 'CORP'} (MCB = {mcb:.4f})")
        self.ref_line_ = None
        if ref_line:
            (self.ref_line_,) = ax.plot([0, 1], [0, 1], "k:", label="Perfectly calibrated")
        self.band_ = None
        if band and d.band is not None:
            self.band_ = ax.fill_between(d.band["x"], d.band["lower"], d.band["upper"], alpha=0.3, linewidth=0,
                                         label=f"{100 * d.level:g}% consistency band")
        if d.xinfo["type"] == "discrete":
            kwargs.setdefault("marker", "o")
            (self.line_,) = ax.plot(d.curve["x"], d.curve["CEP"], **kwargs)
        else:
            xs = np.ravel(np.column_stack([d.bins["x_min"], d.bins["x_max"]]))
            ys = np.repeat(d.bins["CEP_pav"].to_numpy(), 2)
            (self.line_,) = ax.plot(xs, ys, **kwargs)
        suffix = "" if self.pos_label is None else f" (Positive class: {self.pos_label})"
        ax.set(xlabel=f"Forecast value{suffix}", ylabel="Conditional event probability (CEP)",
               xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), aspect="equal")
        ax.legend(loc="upper left")
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_predictions(cls, y_true: Any, y_prob: Any, *, band: str | None = "resampling", level: float = 0.90,
                         n_resamples: int = 100, seed: Any = None, pos_label: Any = None, classes: Any = None,
                         name: str | None = None, ax: Any = None, ref_line: bool = True,
                         **kwargs: Any) -> "CorpDisplay":
        """Compute the CORP diagram (:func:`calstats.corp`; a matrix: its top-label
        confidence) and draw it.

        Parameters
        ----------
        y_true, y_prob, pos_label, classes
            As :meth:`ReliabilityDisplay.from_predictions`.
        band, level, n_resamples, seed : keyword-only
            The band, as :func:`calstats.corp` takes it (None: no band).
        name, ax, ref_line, **kwargs
            As :meth:`plot`.

        Returns
        -------
        CorpDisplay
        """
        p, y, pos = _problem(y_true, y_prob, pos_label, classes)
        return cls._from(p, y, pos, band, level, n_resamples, seed, name, ax, ref_line, kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: Any, y: Any, *, band: str | None = "resampling", level: float = 0.90,
                       n_resamples: int = 100, seed: Any = None, pos_label: Any = None, name: str | None = None,
                       ax: Any = None, ref_line: bool = True, **kwargs: Any) -> "CorpDisplay":
        """``from_predictions`` of a fitted classifier's ``predict_proba(X)`` (as
        :meth:`ReliabilityDisplay.from_estimator`)."""
        p, y01, pos = _estimator_problem(estimator, X, y, pos_label)
        return cls._from(p, y01, pos, band, level, n_resamples, seed, _name(name, estimator), ax, ref_line, kwargs)

    @classmethod
    def _from(cls, p, y, pos, band, level, n_resamples, seed, name, ax, ref_line, kwargs):
        d = corp(p, y, level=level, band=band, n_resamples=n_resamples, seed=seed, type="confidence")
        return cls(d, estimator_name=name, pos_label=pos).plot(ax=ax, name=name, ref_line=ref_line, **kwargs)


class RiskCoverageDisplay:
    """The risk-coverage curve of selective prediction in scikit-learn's Display
    convention.

    Attributes
    ----------
    result : RiskCoverage
        calstats' curve and its areas (AURC, E-AURC, AUGRC).
    line_ : matplotlib.lines.Line2D
    ax_, figure_ : matplotlib Axes and Figure
    """

    def __init__(self, result: RiskCoverage, *, estimator_name: str | None = None) -> None:
        self.result = result
        self.estimator_name = estimator_name

    def plot(self, *, ax: Any = None, name: str | None = None, generalized: bool = False,
             **kwargs: Any) -> "RiskCoverageDisplay":
        """Draw the selective risk (or, ``generalized=True``, the generalized risk) against
        the coverage on ``ax``; ``name`` labels the curve with its area; ``**kwargs`` go to
        ``Axes.plot``. Returns the display."""
        fig, ax = _axes(ax)
        name = self.estimator_name if name is None else name
        area = f"AUGRC = {self.result.augrc:.4f}" if generalized else f"AURC = {self.result.aurc:.4f}"
        kwargs.setdefault("label", area if name is None else f"{name} ({area})")
        self.result.plot(ax, generalized=generalized, **kwargs)
        self.line_ = ax.lines[-1]
        self.ax_, self.figure_ = ax, fig
        return self

    @classmethod
    def from_result(cls, result: RiskCoverage, *, name: str | None = None, ax: Any = None,
                    generalized: bool = False, **kwargs: Any) -> "RiskCoverageDisplay":
        """Draw a :class:`~calstats.evaluation.selective.RiskCoverage` already computed."""
        return cls(result, estimator_name=name).plot(ax=ax, name=name, generalized=generalized, **kwargs)

    @classmethod
    def from_predictions(cls, y_true: Any, y_prob: Any, *, pos_label: Any = None, classes: Any = None,
                         name: str | None = None, ax: Any = None, generalized: bool = False,
                         **kwargs: Any) -> "RiskCoverageDisplay":
        """Compute the curve (:func:`calstats.risk_coverage`) and draw it; ``y_true``,
        ``y_prob``, ``pos_label`` and ``classes`` as :meth:`ReliabilityDisplay.from_predictions`
        (a binary ``y_prob`` predicts the event when above 1/2)."""
        p, y, _pos = _problem(y_true, y_prob, pos_label, classes)
        return cls.from_result(risk_coverage(p, y), name=name, ax=ax, generalized=generalized, **kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: Any, y: Any, *, name: str | None = None, ax: Any = None,
                       generalized: bool = False, **kwargs: Any) -> "RiskCoverageDisplay":
        """``from_predictions`` of a fitted classifier's ``predict_proba(X)`` (its columns
        labelled by ``estimator.classes_``)."""
        proba = np.asarray(estimator.predict_proba(X))
        codes, _ = _class_codes(y, np.asarray(estimator.classes_), proba.shape[1])
        return cls.from_result(risk_coverage(proba, codes), name=_name(name, estimator), ax=ax,
                               generalized=generalized, **kwargs)

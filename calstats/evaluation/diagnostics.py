"""The reliability diagram (R ``probcal::reliability_diagram``).

R returns a ggplot. **Port decision**: the port returns a :class:`ReliabilityDiagram`
whose contract is its binned ``data`` and its labels (these match R exactly: the bins and
means are those of :func:`calstats.ece`); :meth:`ReliabilityDiagram.plot` draws it with
matplotlib, an optional dependency, and is not compared with R. The diagram follows the
protocol of every calstats result (:class:`calstats.results._base.Result`).
"""

import math
from typing import Any

import numpy as np
import pandas as pd

from .._typing import Labels, Scores
from .._validate import as_vec
from ..kernels.bins import ece_of
from ..numerics.reductions import rmean
from ..results._base import Result
from ..results._tables import table_html
from .metrics import binned

__all__ = ["reliability_diagram", "ReliabilityDiagram"]

_COLUMNS = ["bin", "lower", "upper", "n", "confidence", "accuracy", "gap"]
_COLOUR = "#2C7FB8"
_EXPAND = 0.04


class ReliabilityDiagram(Result):
    """A reliability diagram: binned calibration data plus everything needed to draw it.

    R's ``reliability_diagram`` returns a ggplot (R class ``c("gg", "ggplot")``, which
    ``r_class`` and ``inherits`` report); this object holds the data and labels of that
    plot. A :class:`~calstats.results._base.Result`: ``print(d)`` shows a short description
    and the first bins, ``d.as_frame()`` the binned data, ``d.plot()`` draws it, and a
    notebook shows the drawing and the bin table. It is built in one call with every field
    below (keyword arguments; a missing one is a ``TypeError``).

    Attributes
    ----------
    data : pandas.DataFrame
        One row per non-empty bin: ``bin`` (1-based bin number, int), ``lower``/``upper``
        (bin edges), ``n`` (count, int), ``confidence`` (mean predicted probability),
        ``accuracy`` (observed frequency; NaN for a bin holding a missing logical label),
        ``gap`` (``|accuracy - confidence|``); for the classwise layout also ``class_label``
        (Categorical whose categories are the class levels), rows stacked class by class.
    title, subtitle : str, str or None
        Plot title; ``"ECE = %.4f"`` / ``"Classwise ECE = %.4f"`` or None without ``show_ece``.
    x_label, y_label : str
        Axis labels.
    size_label : str or None
        ``"Count"`` (the legend of the point sizes) when ``show_counts``, else None.
    show_counts : bool
        Whether point sizes show the bin counts.
    layout : {"binary", "classwise", "confidence"}
        One panel (binary, confidence) or one panel per class (classwise).
    reference_line : tuple
        ``(slope, intercept, linetype)`` of the diagonal: ``(1, 0, "dotted")``.
    limits : tuple
        ``(0, 1)``, the limits of both axes.

    Fields are also readable as ``diagram["data"]``; ``names()`` lists them.
    """

    r_class = ("gg", "ggplot")
    _r_fields = ("data", "title", "subtitle", "x_label", "y_label", "size_label", "show_counts", "layout",
                 "reference_line", "limits")
    # fields, set by the constructor (declared for type checkers)
    data: pd.DataFrame
    title: str
    subtitle: str | None
    x_label: str
    y_label: str
    size_label: str | None
    show_counts: bool
    layout: str
    reference_line: tuple[float, float, str]
    limits: tuple[float, float]

    def print_text(self) -> str:
        """The printed description, with its final newline: the layout, the number of bins
        and observations, the title, subtitle and labels, then the first ten bins.

        Returns
        -------
        str
        """
        d = self.data
        rows = f"{len(d)} non-empty bin{'s' if len(d) != 1 else ''}"
        if "class_label" in d:
            k = d["class_label"].cat.categories.size
            total = int(d["n"].sum()) // k if k else 0
            head = f"<ReliabilityDiagram: classwise, {rows} over {k} classes, {total} observations>"
        else:
            head = f"<ReliabilityDiagram: {self.layout}, {rows}, {int(d['n'].sum())} observations>"
        lines = [head, f"  title:    {self.title}"]
        if self.subtitle is not None:
            lines.append(f"  subtitle: {self.subtitle}")
        lines.append(f"  x: {self.x_label}; y: {self.y_label}; point size: {self.size_label or 'fixed'}")
        with pd.option_context("display.width", 100, "display.max_columns", 20):
            body = d.head(10).to_string(index=False, float_format=lambda v: f"{v:.4f}")
        lines.extend("  " + ln for ln in body.split("\n"))
        if len(d) > 10:
            lines.append(f"  ... {len(d) - 10} more rows")
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """The binned data (a copy of :attr:`data`).

        Returns
        -------
        pandas.DataFrame
            Columns ``bin``, ``lower``, ``upper``, ``n``, ``confidence``, ``accuracy``,
            ``gap`` (and ``class_label`` for the classwise layout).
        """
        return self.data.copy()

    def _html_title(self):
        return str(self.title)

    def _repr_html_(self):
        """Notebook view: the title, the drawing (when matplotlib is installed) and the bin table."""
        import base64
        import html
        import io

        parts = [f"<h4>{html.escape(self._html_title())}</h4>"]
        if self.subtitle is not None:
            parts.append(f"<p>{html.escape(str(self.subtitle))}</p>")
        try:
            from matplotlib.figure import Figure  # no pyplot: the user's figures are untouched
        except ImportError:
            Figure = None
        if Figure is not None and self.layout != "classwise":
            fig = Figure(figsize=(4.5, 4.5))
            self.plot(ax=fig.add_subplot(1, 1, 1))
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
            parts.append('<img src="data:image/png;base64,' + base64.b64encode(buf.getvalue()).decode() + '"/>')
        parts.append(table_html(self.data.set_index("bin") if "class_label" not in self.data else self.data))
        return "\n".join(parts)

    # ----------------------------------------------------------------------------------
    # drawing

    def plot(self, ax: Any = None) -> Any:
        """Draw the diagram with matplotlib and return the Figure.

        Parameters
        ----------
        ax : matplotlib Axes, sequence of Axes, or None
            Binary/confidence layouts draw into one Axes; the classwise layout into one Axes
            per class (a sequence at least as long as the number of classes). ``None``
            creates a new figure (classwise: a grid of panels laid out like ggplot2's
            ``facet_wrap``).

        Returns
        -------
        matplotlib.figure.Figure

        Notes
        -----
        R draws the diagonal (dotted), accuracy against confidence per bin as a line and
        points (sized by the bin count when ``show_counts``), both axes on [0, 1], and the
        title, subtitle and axis labels; this method draws the same elements. The picture is
        not part of the R comparison (only the data and labels are).
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError("ReliabilityDiagram.plot() needs matplotlib: pip install 'calstats[plot]' "
                              "(or pip install matplotlib)") from exc
        if self.layout != "classwise":
            own = ax is None
            if own:
                fig, ax = plt.subplots(figsize=(6.3 if self.show_counts else 5.4, 5.2), layout="constrained")
            ax = _single_axes(ax)
            self._panel(ax, self.data)
            ax.set_xlabel(self.x_label)
            ax.set_ylabel(self.y_label)
            _titles(ax, self.title, self.subtitle)
            # on its own figure the legend goes right of the panel (as ggplot2); on the
            # user's axes it stays inside them, so it never covers a neighbouring panel
            self._size_legend(ax, self.data, inside=not own)
            return ax.figure
        classes = list(self.data["class_label"].cat.categories)
        if ax is None:
            ncol = math.ceil(math.sqrt(len(classes)))  # ggplot2::wrap_dims
            nrow = math.ceil(len(classes) / ncol)
            fig, grid = plt.subplots(nrow, ncol, figsize=(3.2 * ncol + 1.3, 3.1 * nrow + 1.0), squeeze=False,
                                     sharex=True, sharey=True, layout="constrained")
            axes = list(grid.ravel())
            for extra in axes[len(classes):]:
                fig.delaxes(extra)
            axes = axes[: len(classes)]
        else:
            axes = list(np.ravel(np.asarray(ax, dtype=object)))
            if len(axes) < len(classes):
                raise ValueError(f"the classwise diagram needs {len(classes)} axes, got {len(axes)}")
            axes = axes[: len(classes)]
            ncol = len(axes)
            fig = axes[0].figure
        for i, (a, label) in enumerate(zip(axes, classes)):
            self._panel(a, self.data[self.data["class_label"] == label])
            a.set_title(str(label), fontsize="medium", backgroundcolor="0.92")
            if i + ncol >= len(classes):  # nothing below this panel: it carries the x axis
                a.tick_params(labelbottom=True)
                a.set_xlabel(self.x_label)
            if i % ncol == 0:
                a.set_ylabel(self.y_label)
        head = self.title if self.subtitle is None else f"{self.title}\n{self.subtitle}"
        fig.suptitle(head, x=0.01, ha="left", fontsize="large", linespacing=1.4)
        self._size_legend(axes[-1], self.data, figure_level=True)
        return fig

    def _sizes(self, n, nmax):
        if not self.show_counts:
            return 36.0
        return 15.0 + 185.0 * np.asarray(n, dtype=float) / max(1.0, float(nmax))

    def _panel(self, ax, d):
        slope, intercept, _ = self.reference_line
        lo, hi = self.limits
        ax.plot([lo, hi], [intercept + slope * lo, intercept + slope * hi], linestyle=":", color="0.45",
                linewidth=1.2, zorder=1)
        ax.plot(d["confidence"], d["accuracy"], color=_COLOUR, linewidth=1.4, zorder=2)
        ax.scatter(d["confidence"], d["accuracy"], s=self._sizes(d["n"], self.data["n"].max()), color=_COLOUR,
                   edgecolor="white", linewidth=0.6, zorder=3)
        pad = _EXPAND * (hi - lo)  # ggplot2 pads continuous scales; points on 0 or 1 stay visible
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_xticks(np.linspace(lo, hi, 6))
        ax.set_yticks(np.linspace(lo, hi, 6))
        ax.set_aspect("equal")
        ax.grid(True, color="0.9", linewidth=0.8)
        ax.set_axisbelow(True)

    def _size_legend(self, ax, d, figure_level=False, inside=False):
        """The "Count" legend (ggplot2 draws it right of the panels)."""
        if not self.show_counts or not len(d):
            return
        from matplotlib.lines import Line2D
        from matplotlib.ticker import MaxNLocator

        nmin, nmax = int(d["n"].min()), int(d["n"].max())
        ticks = [int(t) for t in MaxNLocator(nbins=4, integer=True).tick_values(nmin, nmax) if nmin <= t <= nmax]
        ticks = sorted(set(ticks) | {nmax}) if len(ticks) < 2 else ticks
        # marker size in points = sqrt of the scatter area, so the keys match the panels
        handles = [Line2D([], [], linestyle="", marker="o", markersize=math.sqrt(float(self._sizes([t], nmax)[0])),
                          color=_COLOUR, markeredgecolor="white") for t in ticks]
        labels = [str(t) for t in ticks]
        opts = dict(title=self.size_label, frameon=False, labelspacing=1.0, alignment="left")
        if figure_level:
            ax.figure.legend(handles, labels, loc="outside right center", **opts)
        elif inside:  # lower right: below the diagonal's end, where reliability curves rarely go
            ax.legend(handles, labels, loc="lower right", fontsize="small", title_fontsize="small", **opts)
        else:
            ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.02, 0.5), borderaxespad=0.0, **opts)


def _single_axes(ax):
    if isinstance(ax, (list, tuple, np.ndarray)):
        ax = np.ravel(np.asarray(ax, dtype=object))[0]
    return ax


def _titles(ax, title, subtitle):
    if subtitle is None:
        ax.set_title(title, loc="left", fontsize="large")
        return
    ax.set_title(title, loc="left", fontsize="large", pad=20)
    ax.annotate(subtitle, xy=(0, 1), xycoords="axes fraction", xytext=(0, 5), textcoords="offset points",
                ha="left", va="bottom", fontsize="medium", color="0.25")


def _is_true(x):
    """R ``isTRUE(x)``: a single non-missing logical TRUE (``1``, ``"yes"``, None are not)."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    try:
        v = as_vec(x)
    except Exception:
        return False
    vals, na = np.ravel(v.values), np.ravel(v.na)
    return v.kind == "logical" and vals.size == 1 and not na[0] and vals[0] == 1.0


def _rows(stats):
    keep = stats.n > 0
    bins = np.flatnonzero(keep) + 1
    return pd.DataFrame({
        "bin": bins.astype(np.int64),
        "lower": stats.breaks[bins - 1],
        "upper": stats.breaks[bins],
        "n": stats.n[keep].astype(np.int64),
        "confidence": stats.confidence[keep],
        "accuracy": stats.accuracy[keep],
        "gap": stats.gap[keep],
    }, columns=_COLUMNS)


def _diagram(data, title, subtitle, x_label, y_label, show_counts, layout):
    """The one constructor call, with the fields every diagram shares (R's ggplot layers)."""
    show_counts = bool(show_counts)
    return ReliabilityDiagram(data=data, title=title, subtitle=subtitle, x_label=x_label, y_label=y_label,
                              size_label="Count" if show_counts else None, show_counts=show_counts,
                              layout=layout, reference_line=(1, 0, "dotted"), limits=(0, 1))


#: Title, axis labels and layout of a binary diagram and of a top-label (confidence) one.
_BINARY_LABELS = ("Reliability diagram", "Mean predicted probability", "Observed event frequency", "binary")
_CONFIDENCE_LABELS = ("Reliability diagram (confidence)", "Top-label confidence", "Observed accuracy",
                      "confidence")


def _binary_diagram_of(stats, show_ece, show_counts, labels=_BINARY_LABELS):
    subtitle = "ECE = %.4f" % ece_of(stats) if show_ece else None
    title, x_label, y_label, layout = labels
    return _diagram(_rows(stats), title, subtitle, x_label, y_label, show_counts, layout)


def reliability_diagram(p: Scores, y: Labels, bins: int = 10, show_ece: bool = True, show_counts: bool = True,
                        type: str = "classwise") -> ReliabilityDiagram:
    """Reliability diagram (R ``probcal::reliability_diagram``).

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D) or an n x K probability matrix.
    y : array_like
        0/1 (or boolean) labels for a vector ``p``; integer class codes (1-based) or a factor
        for a matrix.
    bins : int, default 10
        Number of equal-width bins (as :func:`calstats.ece`).
    show_ece : bool, default True
        Put the ECE in the subtitle. Only exactly ``True`` counts (R ``isTRUE``: ``1``,
        ``"yes"`` and None are false).
    show_counts : bool, default True
        Size the points by the bin counts (legend "Count"); same ``isTRUE`` rule.
    type : {"classwise", "confidence"}
        Matrix ``p`` only (R ``match.arg``, validated after the matrix check): one panel
        per class, or the top-label confidence (first maximal column). Ignored and never
        validated for a vector ``p`` (R's function never looks at it then).

    Returns
    -------
    ReliabilityDiagram
        The binned data (non-empty bins only, 1-based bin numbers) and the labels R's
        ggplot carries; call ``.plot()`` to draw it.

    Notes
    -----
    **Port decision:** R returns a ggplot; this returns the data and labels of that plot,
    equal to R's (numbers bit for bit). Checks are those of :func:`calstats.ece` in the same
    order. Subtitles: ``"ECE = %.4f"`` (binary, and the binary ECE of the top-label pairs
    for ``"confidence"``), ``"Classwise ECE = %.4f"``.
    Dask inputs give the same bins from counts and sums merged over blocks
    (:mod:`calstats.dask`).
    """
    show_ece = _is_true(show_ece)
    show_counts = _is_true(show_counts)
    # the bins of ece (on Dask inputs: the bins' counts and sums merged from blocks of rows)
    stats, levels, form = binned(p, y, bins, type)
    if form == "classwise":
        return _classwise_diagram(stats, levels, show_ece, show_counts)
    labels = _CONFIDENCE_LABELS if form == "confidence" else _BINARY_LABELS
    return _binary_diagram_of(stats[0], show_ece, show_counts, labels)


def _classwise_diagram(stats_list, levels, show_ece, show_counts):
    frames, eces = [], []
    for j, stats in enumerate(stats_list):
        frame = _rows(stats)
        frame["class_label"] = levels[j]
        frames.append(frame)
        eces.append(ece_of(stats))
    data = pd.concat(frames, ignore_index=True)
    data["class_label"] = pd.Categorical(data["class_label"], categories=levels)
    subtitle = "Classwise ECE = %.4f" % rmean(eces) if show_ece else None
    return _diagram(data, "Reliability diagram (classwise)", subtitle, "Mean predicted probability",
                    "Observed event frequency", show_counts, "classwise")

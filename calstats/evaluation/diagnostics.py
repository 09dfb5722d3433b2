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

from .._inputs import refuse_misnamed_columns
from .._plotting import pyplot
from .._typing import Labels, Scores, Weights
from .._validate import (
    as_vec,
    check_interval,
    check_multiclass_y,
    check_prob_matrix_top,
    fail_classwise_axes,
    match_arg,
)
from ..kernels.binom import binom_interval
from ..kernels.bins import ece_of
from ..kernels.choices import BIN_INTERVALS, BIN_STRATEGIES
from ..numerics.reductions import rmean
from ..results._base import Result
from ..results._tables import table_html
from .metrics import binned
from .smooth import smooth_curve

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
    strategy, right : str, bool
        How the scores were binned (not R fields): ``"uniform"`` (R's), ``"quantile"`` or
        ``"breaks"``, and whether bins are right-closed.
    interval, level : str or None, float
        The binomial interval drawn on each bin (None: none) and its level.
    bounds : pandas.DataFrame or None
        The interval of each row of :attr:`data`: ``lower``, ``upper`` (and ``n_eff``,
        the effective sample size behind it, with case weights).
    method : {"binned", "smooth"}
        What :meth:`plot` draws: the bins, or the kernel-smoothed curve.
    smooth : pandas.DataFrame or None
        With ``method="smooth"``: the smoothed curve on 200 points of [0, 1], columns
        ``t``, ``observed`` (the smoothed observed frequency), ``density`` (the kernel
        density of the scores), ``sigma`` (the bandwidth) and ``smece`` (and
        ``class_label``); see :func:`calstats.smooth_curve`.

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
    _extras = ("strategy", "right", "interval", "level", "bounds", "method", "smooth")
    # not R's: how the bins were made and the intervals on them (R's defaults below)
    strategy: str = "uniform"
    right: bool = False
    interval: str | None = None
    level: float = 0.95
    bounds: pd.DataFrame | None = None
    method: str = "binned"
    smooth: pd.DataFrame | None = None

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
        if self.strategy != "uniform" or self.right:
            closed = "right-closed (a, b]" if self.right else "left-closed [a, b)"
            lines.append(f"  bins: {self.strategy}, {closed}")
        if self.interval is not None:
            lines.append(f"  intervals: {self.interval}, {100 * self.level:g}%")
        if self.smooth is not None:
            sig = self.smooth.groupby("class_label", observed=True)["sigma"].first().to_numpy() \
                if "class_label" in self.smooth else self.smooth["sigma"].to_numpy()[:1]
            lines.append("  smooth curve: Gaussian kernel, bandwidth " + ", ".join(f"{x:.4g}" for x in sig))
        with pd.option_context("display.width", 100, "display.max_columns", 20):
            body = d.head(10).to_string(index=False, float_format=lambda v: f"{v:.4f}")
        lines.extend("  " + ln for ln in body.split("\n"))
        if len(d) > 10:
            lines.append(f"  ... {len(d) - 10} more rows")
        return "\n".join(lines) + "\n"

    def as_frame(self) -> pd.DataFrame:
        """One row per non-empty bin (and class, for the classwise layout).

        Returns
        -------
        pandas.DataFrame
            With ``method="smooth"``, the smoothed curve (:attr:`smooth`). Otherwise the
            columns ``bin``, (``class_label``), ``lower_edge``, ``upper_edge`` (the bin's
            edges), ``n`` (its count, or weight sum), ``mean_predicted``, ``observed`` (the
            observed frequency), ``lower``, ``upper`` (the interval on ``observed``; NaN
            when the diagram has none) and, with case weights, ``n_eff``. :attr:`data` holds
            the same numbers under the names of R's ggplot data.
        """
        if self.method == "smooth" and self.smooth is not None:
            return self.smooth.copy()
        d = self.data
        out = pd.DataFrame({"bin": d["bin"].to_numpy()})
        if "class_label" in d:
            out["class_label"] = d["class_label"].reset_index(drop=True)  # Categorical, the class levels
        out["lower_edge"] = d["lower"].to_numpy()
        out["upper_edge"] = d["upper"].to_numpy()
        out["n"] = d["n"].to_numpy()
        out["mean_predicted"] = d["confidence"].to_numpy()
        out["observed"] = d["accuracy"].to_numpy()
        b = self.bounds
        out["lower"] = np.nan if b is None else b["lower"].to_numpy()
        out["upper"] = np.nan if b is None else b["upper"].to_numpy()
        if b is not None and "n_eff" in b:
            out["n_eff"] = b["n_eff"].to_numpy()
        return out

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
        plt = pyplot("ReliabilityDiagram.plot()")
        if self.layout != "classwise":
            own = ax is None
            if own:
                wide = self.show_counts and self.method != "smooth"  # room for the "Count" legend
                fig, ax = plt.subplots(figsize=(6.3 if wide else 5.4, 5.2), layout="constrained")
            ax = _single_axes(ax)
            self._panel(ax, self.data, self.smooth)
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
                fail_classwise_axes(len(classes), len(axes))
            axes = axes[: len(classes)]
            ncol = len(axes)
            fig = axes[0].figure
        for i, (a, label) in enumerate(zip(axes, classes)):
            curve = None if self.smooth is None else self.smooth[self.smooth["class_label"] == label]
            self._panel(a, self.data[self.data["class_label"] == label], curve)
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

    def _panel(self, ax, d, curve=None):
        slope, intercept, _ = self.reference_line
        lo, hi = self.limits
        ax.plot([lo, hi], [intercept + slope * lo, intercept + slope * hi], linestyle=":", color="0.45",
                linewidth=1.2, zorder=1)
        if self.method == "smooth" and curve is not None:
            # relplot's picture: the curve, and the score density below it (scaled to 0.3)
            dens = curve["density"].to_numpy()
            top = float(np.nanmax(dens)) if np.isfinite(dens).any() and np.nanmax(dens) > 0 else 1.0
            ax.fill_between(curve["t"], 0.0, 0.3 * dens / top, color="0.75", alpha=0.6, linewidth=0, zorder=1)
            ax.plot(curve["t"], curve["observed"], color=_COLOUR, linewidth=2.0, zorder=2)
        else:
            self._binned_panel(ax, d)
        pad = _EXPAND * (hi - lo)  # ggplot2 pads continuous scales; points on 0 or 1 stay visible
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_ylim(lo - pad, hi + pad)
        ax.set_xticks(np.linspace(lo, hi, 6))
        ax.set_yticks(np.linspace(lo, hi, 6))
        ax.set_aspect("equal")
        ax.grid(True, color="0.9", linewidth=0.8)
        ax.set_axisbelow(True)

    def _binned_panel(self, ax, d):
        if self.bounds is not None:
            b = self.bounds.loc[d.index]
            acc = d["accuracy"].to_numpy()
            # Jeffreys' interval need not contain the estimate (x = 0 or n): bars from the bounds
            below = np.maximum(acc - b["lower"].to_numpy(), 0.0)
            above = np.maximum(b["upper"].to_numpy() - acc, 0.0)
            ax.errorbar(d["confidence"], acc, yerr=[below, above],
                        fmt="none", ecolor=_COLOUR, alpha=0.55, elinewidth=1.1, capsize=2.5, zorder=2)
        ax.plot(d["confidence"], d["accuracy"], color=_COLOUR, linewidth=1.4, zorder=2)
        ax.scatter(d["confidence"], d["accuracy"], s=self._sizes(d["n"], self.data["n"].max()), color=_COLOUR,
                   edgecolor="white", linewidth=0.6, zorder=3)

    def _size_legend(self, ax, d, figure_level=False, inside=False):
        """The "Count" legend (ggplot2 draws it right of the panels)."""
        if not self.show_counts or not len(d) or self.method == "smooth":
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
        "n": stats.n[keep].astype(np.int64) if stats.n_eff is None else stats.n[keep],
        "confidence": stats.confidence[keep],
        "accuracy": stats.accuracy[keep],
        "gap": stats.gap[keep],
    }, columns=_COLUMNS)


def _bounds(stats, interval, level):
    """The interval on the observed frequency of each non-empty bin: from the counts, or
    with case weights from Kish's effective size ``n_eff`` and ``x = observed * n_eff``."""
    keep = stats.n > 0
    acc = stats.accuracy[keep]
    if stats.n_eff is None:
        n = stats.n[keep].astype(np.float64)
        x = np.rint(acc * n)  # the bin's count of events (its mean times its size, exact)
    else:
        n = stats.n_eff[keep]
        x = acc * n
    lower, upper = binom_interval(x, n, interval, level)
    out = pd.DataFrame({"lower": lower, "upper": upper})
    if stats.n_eff is not None:
        out["n_eff"] = n
    return out


def _diagram(data, title, subtitle, x_label, y_label, show_counts, layout, how):
    """The one constructor call, with the fields every diagram shares (R's ggplot layers)."""
    show_counts = bool(show_counts)
    return ReliabilityDiagram(data=data, title=title, subtitle=subtitle, x_label=x_label, y_label=y_label,
                              size_label="Count" if show_counts else None, show_counts=show_counts,
                              layout=layout, reference_line=(1, 0, "dotted"), limits=(0, 1), **how)


#: Title, axis labels and layout of a binary diagram and of a top-label (confidence) one.
_BINARY_LABELS = ("Reliability diagram", "Mean predicted probability", "Observed event frequency", "binary")
_CONFIDENCE_LABELS = ("Reliability diagram (confidence)", "Top-label confidence", "Observed accuracy",
                      "confidence")


def _how(stats_list, strategy, breaks, right, interval, level):
    """The extras of a diagram: its binning and the intervals on its bins."""
    strategy = "breaks" if breaks is not None else match_arg(strategy, BIN_STRATEGIES)
    how = dict(strategy=strategy, right=bool(right), interval=interval, level=level)
    if interval is not None:
        how["bounds"] = pd.concat([_bounds(st, interval, level) for st in stats_list], ignore_index=True)
    return how


def _binary_diagram_of(stats, show_ece, show_counts, labels=_BINARY_LABELS, how=None):
    subtitle = "ECE = %.4f" % ece_of(stats) if show_ece else None
    if show_ece and how and how.get("method") == "smooth":
        subtitle = "smECE = %.4f" % how["smooth"]["smece"].iloc[0]
    title, x_label, y_label, layout = labels
    return _diagram(_rows(stats), title, subtitle, x_label, y_label, show_counts, layout, how or {})


def reliability_diagram(p: Scores, y: Labels, bins: int | str = 10, show_ece: bool = True, show_counts: bool = True,
                        type: str = "classwise", *, strategy: str = "uniform", breaks: Any = None,
                        right: bool = False, interval: str | None = None, level: float = 0.95,
                        method: str = "binned", weights: Weights = None) -> ReliabilityDiagram:
    """Reliability diagram (R ``probcal::reliability_diagram``).

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D) or an n x K probability matrix.
    y : array_like
        0/1 (or boolean) labels for a vector ``p``; integer class codes (1-based) or a factor
        for a matrix.
    bins : int or {"sqrt", "sturges", "cube_root"}, default 10
        Number of bins, or a rule for it (as :func:`calstats.ece`).
    show_ece : bool, default True
        Put the ECE in the subtitle. Only exactly ``True`` counts (R ``isTRUE``: ``1``,
        ``"yes"`` and None are false).
    show_counts : bool, default True
        Size the points by the bin counts (legend "Count"); same ``isTRUE`` rule.
    type : {"classwise", "confidence"}
        Matrix ``p`` only (R ``match.arg``, validated after the matrix check): one panel
        per class, or the top-label confidence (first maximal column). Ignored and never
        validated for a vector ``p`` (R's function never looks at it then).
    strategy, breaks, right : keyword-only
        Not in R's probcal: equal-mass bins, explicit edges, right-closed bins, exactly as
        in :func:`calstats.ece` (the diagram's bins are the ECE's).
    interval : {"wilson", "clopper-pearson", "jeffreys"} or None, keyword-only
        Not in R's probcal: a binomial confidence interval for the observed frequency of
        each bin, drawn as an error bar and given by :meth:`ReliabilityDiagram.as_frame`
        (``lower``, ``upper``). With ``x`` events among the ``n`` rows of a bin and
        ``alpha = 1 - level``: ``"clopper-pearson"`` is R's ``binom.test(x, n)$conf.int``
        (``qbeta(alpha/2, x, n - x + 1)``, ``qbeta(1 - alpha/2, x + 1, n - x)``; 0 and 1 at
        ``x = 0`` and ``x = n``); ``"wilson"`` is ``Hmisc::binconf(x, n, alpha, method =
        "wilson")`` (the score interval, with Hmisc's bounds ``-log(1 - alpha)/n`` at
        ``x = 1`` and ``1 + log(1 - alpha)/n`` at ``x = n - 1``); ``"jeffreys"`` the
        ``alpha/2`` and ``1 - alpha/2`` quantiles of Beta(x + 1/2, n - x + 1/2), as they are
        (at ``x = 0`` the lower bound is above 0, at ``x = n`` the upper below 1). The
        intervals are pointwise: each covers its own bin's frequency, not all at once.
    level : float, keyword-only, default 0.95
        Confidence level of the intervals, in (0, 1).
    method : {"binned", "smooth"}, keyword-only, default "binned"
        Not in R's probcal. ``"smooth"`` draws, instead of the bins, the kernel-smoothed
        reliability curve of Blasiok and Nakkiran (2023) at the bandwidth of the smooth
        ECE, over the density of the scores (relplot's ``rel_diagram``; the numbers are
        :func:`calstats.smooth_curve`'s, the subtitle gives ``smECE``), per class for the
        classwise layout. The bins are still computed (``data``); ``as_frame()`` gives the
        curve. Not on Dask.
    weights : array_like, optional, keyword-only
        Case weights (not in R's probcal), as in :func:`calstats.ece`: weighted bin
        means, bins sized by their weight sums. The intervals then use Kish's effective
        size ``n_eff = (sum w)^2 / sum w^2`` of each bin and ``x = observed * n_eff``
        events (non-integer in general; the formulas above are used as they stand), so
        weights that only rescale give the unweighted intervals. Not on Dask.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

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
    stats, levels, form = binned(p, y, bins, type, weights, strategy, breaks, right)
    if interval is not None:
        interval = match_arg(interval, BIN_INTERVALS)
        level = check_interval(level, "level")
    how = _how(stats, strategy, breaks, right, interval, level)
    if match_arg(method, _METHODS) == "smooth":
        how.update(method="smooth", smooth=_smooth_frame(p, y, form, levels, weights))
    if form == "classwise":
        return _classwise_diagram(stats, levels, show_ece, show_counts, how)
    labels = _CONFIDENCE_LABELS if form == "confidence" else _BINARY_LABELS
    return _binary_diagram_of(stats[0], show_ece, show_counts, labels, how)


_METHODS = ("binned", "smooth")


def _smooth_frame(p, y, form, levels, weights):
    """The smoothed curve of each panel (relplot's), stacked class by class."""
    if form != "classwise":
        pairs = [(p, y)]
    else:
        pm, _r, _pred = check_prob_matrix_top(p, "p")
        codes = check_multiclass_y(y, pm.shape[1])[0]
        refuse_misnamed_columns(p, y)
        pairs = [(pm[:, j], (codes == j + 1).astype(np.int64)) for j in range(pm.shape[1])]
    frames = []
    for j, (pj, yj) in enumerate(pairs):
        c = smooth_curve(pj, yj, weights=weights)
        frame = pd.DataFrame({"t": c.t, "observed": c.mu, "density": c.density, "sigma": c.sigma, "smece": c.smece})
        if form == "classwise":
            frame.insert(0, "class_label", levels[j])
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    if form == "classwise":
        out["class_label"] = pd.Categorical(out["class_label"], categories=levels)
    return out


def _classwise_diagram(stats_list, levels, show_ece, show_counts, how=None):
    frames, eces = [], []
    for j, stats in enumerate(stats_list):
        frame = _rows(stats)
        frame["class_label"] = levels[j]
        frames.append(frame)
        eces.append(ece_of(stats))
    data = pd.concat(frames, ignore_index=True)
    data["class_label"] = pd.Categorical(data["class_label"], categories=levels)
    subtitle = "Classwise ECE = %.4f" % rmean(eces) if show_ece else None
    if show_ece and how and how.get("method") == "smooth":
        per_class = how["smooth"].groupby("class_label", observed=True)["smece"].first().to_numpy()
        subtitle = "Classwise smECE = %.4f" % rmean(per_class)
    return _diagram(data, "Reliability diagram (classwise)", subtitle, "Mean predicted probability",
                    "Observed event frequency", show_counts, "classwise", how or {})

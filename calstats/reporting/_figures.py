"""The report's figures: each result draws itself (its own ``plot``), then the page's
conventions are applied so that the figures read as one set.

* **Axis labels**: one vocabulary for the page (:data:`LABELS`): "Predicted risk" and
  "Observed risk" for a binary outcome, "Top-label confidence" and "Observed accuracy" for
  the top label of a multiclass one, "Threshold probability" and "Net benefit" for decision
  curves, "Time" against "AUC(t)", "Brier score" or "Cumulative incidence" for measures
  over time (the functions' own labels differ: "CEP", "Estimated Probability", "Observed
  proportion", ...).
* **Legends**: the same names for the same things: "Ideal" (the diagonal), "Calibration
  curve" (with how it was estimated), "<level> band" for a band, in the same place.
* **Inside the frame**: a curve that leaves [0, 1] (a loess curve above 1) widens the
  frame instead of being cut off.
* **Grid**: a figure against time or a threshold has a light grid behind its lines.

Figures are drawn on a new matplotlib ``Figure`` (never pyplot's current one) and kept as
SVG text; without matplotlib the section says so and keeps its tables.
"""

import io
import re
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ._page import Fig, Section, Settings

__all__ = ["LABELS", "add_figure", "plot_of", "tidy"]

_RC = {"svg.fonttype": "path", "svg.hashsalt": "calstats-report", "font.size": 9.0, "axes.titlesize": 9.5,
       "axes.labelsize": 9.0, "legend.fontsize": 8.0, "xtick.labelsize": 8.0, "ytick.labelsize": 8.0}

#: The axis labels of the page, by kind of figure.
LABELS = {
    "binary": ("Predicted risk", "Observed risk"),
    "top": ("Top-label confidence", "Observed accuracy"),
    "class": ("Predicted probability", "Observed frequency"),
    "decision": ("Threshold probability", "Net benefit"),
    "auc_t": ("Time", "AUC(t)"),
    "brier_t": ("Time", "Brier score"),
    "cuminc": ("Time", "Cumulative incidence"),
}

#: Figures against time or a threshold: their own legends, no diagonal, a light grid.
_NO_DIAGONAL = ("decision", "auc_t", "brier_t", "cuminc")


def _svg(draw: Callable[[Any], None], size: tuple[float, float]) -> str | None:
    """Draw on a new matplotlib Figure and return its SVG (None without matplotlib)."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        return None
    with matplotlib.rc_context(cast(Any, _RC)):
        fig = Figure(figsize=size, layout="constrained")
        draw(fig)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    start = text.find("<svg")
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text[start:], flags=re.S)
    return text.strip()


def add_figure(sec: Section, settings: Settings, model: str | None, caption: str, draw: Callable[[Any], None],
               size: tuple[float, float]) -> None:
    """Draw a figure into the section (a note instead when matplotlib is missing)."""
    if not settings.figures:
        return
    svg = _svg(draw, size)
    if svg is None:
        sec.note("Figures need matplotlib (pip install 'calstats[plot]'); the tables are complete without them.")
        return
    sec.figures.append(Fig(model, caption, svg))


def plot_of(result: Any, kind: str, curve: str | None = None, band: str | None = None, legend: str = "bottom",
            **plot_kwargs: Any) -> Callable[[Any], None]:
    """Draws ``result.plot(ax=...)`` on one new Axes, then applies the page's conventions
    (:func:`tidy`)."""
    def draw(fig: Any) -> None:
        ax = fig.add_subplot(1, 1, 1)
        result.plot(ax=ax, **plot_kwargs)
        tidy(ax, kind, curve, band, legend)

    return draw


def _is_ideal(line: Any) -> bool:
    x, y = (np.asarray(v, dtype=np.float64) for v in line.get_data())
    return x.size == 2 and bool(np.allclose(x, y)) and float(x.min()) <= 0.01 and float(x.max()) >= 0.99


def tidy(ax: Any, kind: str, curve: str | None = None, band: str | None = None, legend: str = "bottom") -> None:
    """The page's labels, legend and frame for one Axes.

    ``curve``: the legend name of the calibration curve (the longest line that is not the
    diagonal); ``band``: that of the band (the filled area); None leaves them unnamed.
    ``legend``: ``"bottom"`` (bottom right, just above 0: below lies the risk distribution
    some figures draw) or ``"top"`` (top left, for a figure whose histogram fills the bottom).
    A figure against time or a threshold keeps its own legend and gets a light grid.
    """
    from matplotlib.collections import PolyCollection

    xlab, ylab = LABELS[kind]
    ax.set_xlabel(xlab)
    ax.set_ylabel(ylab)
    thin_bands(ax)
    if kind in _NO_DIAGONAL:
        ax.grid(True, color="0.92", linewidth=0.8)
        ax.set_axisbelow(True)
        return
    lines = [ln for ln in ax.get_lines() if np.asarray(ln.get_xdata()).size > 1]
    ideal = [ln for ln in lines if _is_ideal(ln)]
    others = [ln for ln in lines if not _is_ideal(ln)]
    handles, labels = [], []
    if ideal:
        handles.append(ideal[0])
        labels.append("Ideal")
    if curve is not None and others:
        main = max(others, key=lambda ln: np.asarray(ln.get_xdata()).size)
        handles.append(main)
        labels.append(curve)
    fills = [c for c in ax.collections if isinstance(c, PolyCollection)]
    if band is not None and fills:
        handles.append(fills[0])
        labels.append(band)
    for ln in ideal:  # the diagonal drawn alike in every figure
        ln.set(color="0.45", linestyle=(0, (4, 3)), linewidth=1.0)
    old = ax.get_legend()
    if handles and (old is None or curve is not None):
        from matplotlib.transforms import blended_transform_factory

        if old is not None:
            old.remove()
        if legend == "top":
            ax.legend(handles, labels, loc="upper left", frameon=False, fontsize=7.5)
        else:
            ax.legend(handles, labels, loc="lower right", bbox_to_anchor=(1.0, 0.01), frameon=False, fontsize=7.5,
                      bbox_transform=blended_transform_factory(ax.transAxes, ax.transData))
    _inside(ax, others)


#: A filled band with more vertices than this (a CORP band over 10^6 distinct risks) is
#: drawn as its envelope over this many strips of the x range: the same look, a figure of
#: tens of kilobytes instead of tens of megabytes.
MAX_BAND_VERTICES, BAND_STRIPS = 4000, 600


def thin_bands(ax: Any) -> None:
    """Replace each filled band drawn through very many points by its envelope on strips."""
    from matplotlib.collections import PolyCollection

    for coll in ax.collections:
        if not isinstance(coll, PolyCollection):
            continue
        verts = [np.asarray(p.vertices, dtype=np.float64) for p in coll.get_paths()]
        if not any(len(v) > MAX_BAND_VERTICES for v in verts):
            continue
        coll.set_verts([_envelope(v) if len(v) > MAX_BAND_VERTICES else v for v in verts])


def _envelope(v: np.ndarray) -> np.ndarray:
    """fill_between's polygon (start, one side left to right, end, the other side back)
    reduced to the band's envelope on ``BAND_STRIPS`` strips: in each strip the highest
    upper and the lowest lower value, held across the strip."""
    x = v[:, 0]
    turn = int(np.argmax(x))
    one, other = v[1:turn + 1], v[turn + 1:-1][::-1]
    lo_x, hi_x = float(x.min()), float(x.max())
    edges = np.linspace(lo_x, hi_x, BAND_STRIPS + 1)

    def per_strip(side: np.ndarray, top: bool) -> tuple[np.ndarray, np.ndarray]:
        idx = np.clip(np.searchsorted(edges, side[:, 0], side="right") - 1, 0, BAND_STRIPS - 1)
        fill = -np.inf if top else np.inf
        out = np.full(BAND_STRIPS, fill)
        (np.maximum if top else np.minimum).at(out, idx, side[:, 1])
        keep = np.isfinite(out)
        return np.flatnonzero(keep), out[keep]

    upper_side = one if np.nanmean(one[:, 1]) >= np.nanmean(other[:, 1]) else other
    lower_side = other if upper_side is one else one
    ku, u = per_strip(upper_side, True)
    kl, lo = per_strip(lower_side, False)
    top = np.column_stack([np.ravel(np.column_stack([edges[ku], edges[ku + 1]])), np.repeat(u, 2)])
    bottom = np.column_stack([np.ravel(np.column_stack([edges[kl], edges[kl + 1]])), np.repeat(lo, 2)])[::-1]
    poly = np.vstack([top, bottom, top[:1]])
    return poly


def _inside(ax: Any, lines: list[Any]) -> None:
    """Widen the frame so that every curve is drawn whole (a curve above 1 is not cut off)."""
    lo, hi = ax.get_ylim()
    top = hi
    for ln in lines:
        y = np.asarray(ln.get_ydata(), dtype=np.float64)
        y = y[np.isfinite(y)]
        if y.size:
            top = max(top, float(y.max()))
    if top > hi:
        ax.set_ylim(lo, top + 0.03 * (top - lo))
        for ln in lines:  # a drawing clipped to its own [0, 1] box is clipped to the frame instead
            ln.set_clip_path(ax.patch)

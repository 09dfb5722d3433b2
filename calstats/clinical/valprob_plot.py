"""R's ``val.prob`` calibration plot, drawn with matplotlib (imported only here).

What R draws (rms 6.5-0), element by element: the ideal line ``abline(0, 1)`` (wide, light
grey), the logistic recalibration curve over logits -7..7, the lowess curve (dotted),
grouped proportions as open triangles when ``m``/``g``/``cuts`` is given, the legend at
``legendloc`` (no box), the statistics at ``statloc`` (names left, values rounded to 3
decimals right-aligned ``0.225 * diff(lim)`` further right), and the risk distribution as
spikes on 100 bins, the tallest 0.15 of the axis range high. Axes extend 4 % beyond
``lim`` as R's default ``xaxs = "r"`` does.
"""

import numpy as np

from .._plotting import pyplot
from ..numerics.nmath import plogis
from ..numerics.rformat import r_round

__all__ = ["plot_val_prob"]

_DOSTATS = ("Dxy", "C (ROC)", "R2", "D", "U", "Q", "Brier", "Intercept", "Slope", "Emax", "E90", "Eavg",
            "S:z", "S:p")


def _fmt_common(values):
    """R ``format()`` of a numeric vector: common number of decimals, right-aligned."""
    from ..numerics.rformat import format_real

    return [s for s in format_real(list(values), 7)]


def plot_val_prob(res, ax=None, smooth=True, logistic_cal=True, m=None, g=None, cuts=None,
                  riskdist="predicted", xlab="Predicted Probability", ylab="Actual Probability",
                  lim=(0.0, 1.0), legendloc=None, statloc=(0.0, 0.99), cex=0.7, connect_group=False,
                  connect_smooth=True, **_ignored):
    """Draw the ``val.prob`` plot of ``res`` (a :class:`~calstats.clinical.ValProb`).

    ``legendloc=False`` / ``statloc=False`` / ``riskdist=None`` leave out the legend, the
    statistics, the risk distribution, as R's logical values do. Returns the axes.
    """
    plt = pyplot("ValProb.plot()")
    if ax is None:
        ax = plt.gca()
    lo, hi = float(lim[0]), float(lim[1])
    span = hi - lo
    fs = 10.0 * cex
    p, y = res.p, res.y
    ax.set_xlim(lo - 0.04 * span, hi + 0.04 * span)
    ax.set_ylim(lo - 0.04 * span, hi + 0.04 * span)
    ax.set_xlabel(xlab)
    ax.set_ylabel(ylab)
    handles = []
    (h,) = ax.plot([lo - span, hi + span], [lo - span, hi + span], color="0.85", lw=6, label="Ideal", zorder=1)
    handles.append(h)
    coef = res.coefficients
    if logistic_cal and coef is not None:
        lg = np.linspace(-7, 7, 200)
        (h,) = ax.plot(plogis(lg), plogis(coef[0] + coef[1] * lg), color="black", lw=1,
                       label="Logistic calibration", zorder=3)
        handles.append(h)
    if smooth and res.smooth_curve is not None:
        sx, sy = res.smooth_curve
        if connect_smooth:
            (h,) = ax.plot(sx, sy, color="black", lw=1, ls=(0, (1, 2)), label="Nonparametric", zorder=3)
        else:
            (h,) = ax.plot(sx, sy, "o", mfc="none", color="black", label="Nonparametric", zorder=3)
        handles.append(h)
    if m is not None or g is not None or cuts is not None:
        from ..ports.hmisc.cut2 import cut2_codes

        codes, _, _ = cut2_codes(p, g=g, m=150 if m is None else m, cuts=cuts)
        k = int(codes.max())
        means = np.array([np.mean(p[codes == i]) for i in range(1, k + 1)])
        prop = np.array([np.mean(y[codes == i]) for i in range(1, k + 1)])
        (h,) = ax.plot(means, prop, "^", mfc="none", color="black", ls="-" if connect_group else "none",
                       label="Grouped observations", zorder=4)
        handles.append(h)
    if legendloc is not False:
        loc = legendloc if legendloc is not None else (lo + 0.55 * span, lo + 0.27 * span)
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=tuple(loc),
                  bbox_transform=ax.transData, frameon=False, fontsize=fs)
    if statloc is not False:
        names = [n for n in _DOSTATS if n in res.stats.index]
        width = max(len(n) for n in names)
        vals = _fmt_common([r_round(float(res.stats[n]), 3) for n in names])
        ax.text(statloc[0], statloc[1], "\n".join(n.ljust(width) for n in names), ha="left", va="top",
                fontsize=fs, family="monospace")
        ax.text(statloc[0] + 0.225 * span, statloc[1], "\n".join(vals), ha="right", va="top",
                fontsize=fs, family="monospace")
    if riskdist:
        x = p
        if riskdist == "calibrated" and coef is not None:
            with np.errstate(divide="ignore"):
                x = plogis(coef[0] + coef[1] * np.log(p / (1 - p)))
            x = np.where(p == 0, 0.0, np.where(p == 1, 1.0, x))
        bins = np.linspace(lo, hi, 101)
        x = x[(x >= lo) & (x <= hi)]
        # table(cut(x, bins)): right-closed bins, the lowest edge excluded
        idx = np.searchsorted(bins, x, side="left") - 1
        idx = idx[(idx >= 0) & (idx < 100)]
        f = np.bincount(idx, minlength=100)
        j = f > 0
        if j.any():
            heights = lo + 0.15 * span * f[j] / f.max()
            ax.vlines(bins[:-1][j], 0, heights, color="black", lw=0.8)
    return ax

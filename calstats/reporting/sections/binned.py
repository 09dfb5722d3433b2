"""The binned reliability diagram with an interval per bin and the ECE
(:func:`calstats.reliability_diagram`, :func:`calstats.ece`; R's probcal)."""

from typing import Any

from ...evaluation.diagnostics import reliability_diagram
from ...evaluation.metrics import ece
from .. import _words as words
from .._figures import add_figure, plot_of
from .._page import Detail, Row, Section, Value
from .._runner import Context

__all__ = ["build"]

#: the binomial intervals of the binned diagram, by their authors' names, and their R code
INTERVALS = {"wilson": ("Wilson", "Hmisc::binconf(method = 'wilson')"),
             "clopper-pearson": ("Clopper-Pearson", "binom.test()$conf.int"),
             "jeffreys": ("Jeffreys", "qbeta(c(a/2, 1-a/2), x + 0.5, n - x + 0.5)")}


def _bins_r(kw: dict[str, Any]) -> str:
    b = kw["bins"]
    return f"{b}" if isinstance(b, int) else f"'{b}'"


def build(ctx: Context) -> Section:
    s = ctx.settings
    mc = ctx.multiclass
    binning = s.binning_text()
    sec = Section("binned", "Binned reliability diagram and ECE",
                  f"The cases are grouped in {binning} of "
                  + ("top-label confidence" if mc else "predicted risk")
                  + "; in each bin the observed frequency is set against the mean prediction, with a "
                  f"{s.pct()} {INTERVALS[s.interval][0]} interval (pointwise). The expected calibration error "
                  "(ECE) is the size-weighted mean gap.", ctx.names, terms=["ECE"])
    kind = "confidence" if mc else None

    def ece_r(kw: dict[str, Any]) -> str:
        if kw.get("strategy", "uniform") != "uniform":
            return f"probcal::ece(p, y, bins = {_bins_r(kw)}) has equal-width bins only"
        return f"probcal::ece(p, y, bins = {_bins_r(kw)})"

    def diagram_r(kw: dict[str, Any]) -> str:
        return "probcal::reliability_diagram's data; the intervals as " + INTERVALS[kw["interval"]][1]

    e_vals: dict[str, Value | None] = {}
    c_vals: dict[str, Value | None] = {}
    what = ("the accuracy of the most probable class", "its mean probability") if mc else \
        ("the observed event rate", "the mean predicted risk")
    for name in ctx.names:
        p = ctx.p(name)
        d = ctx.run.call(sec, reliability_diagram, p, ctx.y, model=name, what="Bins and their intervals", r=diagram_r,
                         bins=s.bins, interval=s.interval, level=s.level, strategy=s.strategy, weights=ctx.weights,
                         type=kind)
        e = ctx.run.call(sec, ece, p, ctx.y, model=name, what="ECE" + (" (top-label confidence)" if mc else ""),
                         r=ece_r, bins=s.bins, strategy=s.strategy, weights=ctx.weights, type=kind)
        e_vals[name] = None if e is None else Value(float(e), sentence=words.ece(float(e), binning, *what))
        if mc:
            ec = ctx.run.call(sec, ece, p, ctx.y, model=name, key="ece_classwise", what="ECE (classwise)", r=ece_r,
                              bins=s.bins, strategy=s.strategy, weights=ctx.weights, type="classwise")
            c_vals[name] = None if ec is None else Value(float(ec), sentence=words.ece_classwise(float(ec), binning))
        if d is not None:
            frame = d.as_frame().set_index("bin")
            sec.details.append(Detail(f"bins[{name}]", f"{name}: bins", frame, 4, name))
            add_figure(sec, s, name, f"{name}: binned reliability diagram" + (" (top-label confidence)" if mc else ""),
                       plot_of(d, "top" if mc else "binary"), (4.6, 4.4))
    sec.rows.append(Row("ece", "ECE" + (" (top-label confidence)" if mc else ""), e_vals, 4))
    if mc:
        sec.rows.append(Row("ece_classwise", "ECE (classwise)", c_vals, 4))
    return sec

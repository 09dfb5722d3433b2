"""The calibration hierarchy (:func:`calstats.val_prob_ci`: calibration-in-the-large, the
slope, O:E and the loess curve), or for a multiclass outcome the multinomial recalibration
of :func:`calstats.clinical.val_multinomial` (intercepts, slopes, likelihood-ratio tests,
ECI and flexible curves)."""

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ...clinical.hierarchy import val_prob_ci
from ...clinical.multinomial import val_multinomial
from .. import _words as words
from .._figures import add_figure, plot_of, tidy
from .._page import Row, Section, Value
from .._runner import Arg, Context
from ._common import left_out_flag, unweighted_only

__all__ = ["build", "hierarchy_call", "val_multinomial_call"]


def hierarchy_call(ctx: Context, sec: Section, name: str, what: str | None, notes: str = "all") -> Any:
    """``val_prob_ci(p, y, level=level)`` of a model (one call, shared with discrimination)."""
    def r(kw: dict[str, Any]) -> str:
        return (f"CalibrationCurves::val.prob.ci.2(p, y, cl.level = {kw['level']:g}): glm(y ~ offset(logit(p))), "
                "glm(y ~ logit(p)), confint.default; loess(y ~ p); its Cindex (rms' c index of the recalibration "
                "fit, method.ci = 'pepe'); the exact AUC as pROC::ci.auc(y, p, method = 'delong')")

    return ctx.run.call(sec, val_prob_ci, ctx.p(name), ctx.y, model=name, what=what, r=r, notes=notes,
                        level=ctx.settings.level, pl=False)


def val_multinomial_call(ctx: Context, sec: Section, name: str, what: str | None, notes: str = "all",
                         r: Callable[[dict[str, Any]], str] | None = None) -> Any:
    """``val_multinomial(p, y, level=level)`` of a model, its columns and the outcome named
    after the classes (so that its tables name them too)."""
    inp = ctx.inp
    p = pd.DataFrame(inp.models[name], columns=inp.classes)
    y = pd.Categorical.from_codes(inp.y - 1, categories=inp.classes)

    def default_r(kw: dict[str, Any]) -> str:
        return ("VGAM::vglm(y ~ ..., multinomial(refLevel = 1)) as in Polcal (Van Hoorde et al. 2014); the PDI of "
                "Van Calster et al. (2012) as mcca::pdi")

    return ctx.run.call(sec, val_multinomial, Arg("p", p), Arg("y", y), model=name, what=what, r=r or default_r,
                        notes=notes, level=ctx.settings.level)


def build(ctx: Context) -> Section:
    return _multiclass(ctx) if ctx.multiclass else _binary(ctx)


def _binary(ctx: Context) -> Section:
    s = ctx.settings
    sec = Section("hierarchy", "Calibration: the hierarchy",
                  "Van Calster et al. (2016)'s levels of calibration: mean calibration (calibration-in-the-large: "
                  "are risks right on average?), weak calibration (the slope: is their spread right?) and moderate "
                  "calibration (the flexible curve: are risks right at every level?). Risks of exactly 0 or 1 "
                  "have an infinite logit: the logistic fits leave them out.", ctx.names, terms=["CI", "O:E"])
    if unweighted_only(sec, ctx, "the calibration hierarchy (calstats.val_prob_ci)"):
        return sec
    citl: dict[str, Value | None] = {}
    slope: dict[str, Value | None] = {}
    oe: dict[str, Value | None] = {}
    for name in ctx.names:
        h = hierarchy_call(ctx, sec, name, "Calibration-in-the-large, slope (Wald intervals), O:E, the loess curve "
                           "and its band")
        if h is None:
            citl[name] = slope[name] = oe[name] = None
            continue
        flags = left_out_flag(ctx, name)
        a, alo, ahi = (float(v) for v in h.intercept)
        b, blo, bhi = (float(v) for v in h.slope)
        citl[name] = Value(a, alo, ahi, sentence=words.citl(a, alo, ahi), flags=list(flags))
        slope[name] = Value(b, blo, bhi, sentence=words.slope(b, blo, bhi), flags=list(flags))
        ratio = float(h.stats["O:E"])
        oe[name] = Value(ratio, sentence=words.oe(ratio, float(h.stats["events"])))
        add_figure(sec, s, name, f"{name}: flexible calibration curve (loess) with its {s.pct()} band",
                   plot_of(h, "binary", curve="Calibration curve (loess)", band=f"{s.pct()} band"), (4.6, 4.4))
    sec.rows.append(Row("citl", "Calibration-in-the-large", citl, 3))
    sec.rows.append(Row("slope", "Calibration slope", slope, 3))
    sec.rows.append(Row("oe", "Observed / expected events (O:E)", oe, 3))
    return sec


def _multiclass(ctx: Context) -> Section:
    s = ctx.settings
    sec = Section("hierarchy", "Calibration of the multinomial model",
                  "Van Hoorde et al. (2014)'s multinomial recalibration: with lp_k = log(p_k / p_ref), calibration "
                  "intercepts (0 is ideal: classes as frequent as predicted), slopes (1 is ideal: log odds neither "
                  "too extreme nor too modest), likelihood-ratio (LR) tests of these ideals, and flexible curves.",
                  ctx.names, terms=["CI", "LR", "X²", "df", "ECI"])
    if unweighted_only(sec, ctx, "calstats.clinical.val_multinomial"):
        return sec
    fits = {name: val_multinomial_call(ctx, sec, name, "Intercepts, slopes (Wald intervals), likelihood-ratio tests, "
                                       "ECI, flexible curves") for name in ctx.names}
    ok = [f for f in fits.values() if f is not None]
    if not ok:
        return sec
    first = ok[0]
    ref = first.ref

    def rows(table: str, key: str, label: str, value: Callable[[Any, str], Value]) -> None:
        for k in getattr(first, table).index:
            vals = {name: None if vm is None else value(getattr(vm, table).loc[k], str(k)) for name, vm in fits.items()}
            sec.rows.append(Row(f"{key}[{k}]", label.format(k=k, ref=ref), vals, 3 if key != "lr" else 2,
                                "test" if key == "lr" else "number", "X²" if key == "lr" else ""))

    def wald(say: Callable[..., str]) -> Callable[[Any, str], Value]:
        return lambda r, k: Value(float(r["estimate"]), float(r["lower"]), float(r["upper"]),
                                  sentence=say(float(r["estimate"]), float(r["lower"]), float(r["upper"]), k, ref))

    rows("intercept_table", "intercept", "Intercept, {k} vs {ref}", wald(words.mc_intercept))
    rows("slope_table", "slope", "Slope, {k} vs {ref}", wald(words.mc_slope))
    rows("tests", "lr", "LR test: {k}",
         lambda r, k: Value(float(r["statistic"]), p_value=float(r["p_value"]), df=float(r["df"]),
                            sentence=words.lr_test(k, float(r["p_value"]))))
    sec.rows.append(Row("eci", "ECI", {name: None if vm is None else Value(vm.eci, sentence=words.eci_multiclass(vm.eci))
                                       for name, vm in fits.items()}, 3))
    for name, vm in fits.items():
        if vm is None:
            continue
        kk = len(vm.classes)
        ncol = min(kk, 5)
        nrow = math.ceil(kk / ncol)

        def draw(fig: Any, vm: Any = vm, ncol: int = ncol, nrow: int = nrow) -> None:
            axes = fig.subplots(nrow, ncol, squeeze=False)
            vm.plot(axes=axes)
            for ax in np.ravel(axes):
                if not ax.has_data():
                    continue
                tidy(ax, "class", curve="Calibration curve")
                ax.xaxis.label.set_fontsize(7.5)
                ax.yaxis.label.set_fontsize(7.5)
                ax.title.set_fontsize(8.5)

        add_figure(sec, s, name, f"{name}: flexible calibration of each class", draw,
                   (1.9 * ncol + 0.3, 1.95 * nrow + 0.2))
    return sec

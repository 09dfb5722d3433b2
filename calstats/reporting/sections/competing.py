"""Competing risks: the Aalen-Johansen cumulative incidence of every cause
(:func:`calstats.clinical.cuminc`, for the data section) and the calibration of the risks
of the cause of interest in risk groups (:func:`calstats.clinical.cr_calibration`)."""

from typing import Any

import numpy as np

from ...clinical.competing import cr_calibration, cuminc
from .._figures import add_figure, plot_of, tidy
from .._page import ALL, Detail, Section
from .._runner import Context

__all__ = ["cuminc_call", "cuminc_figure", "calibration"]


def cuminc_call(ctx: Context, sec: Section, what: str | None) -> Any:
    """``cuminc(time, status, [horizon])``: every cause's curve and its value at the horizon."""
    h = ctx.inp.horizon

    def r(kw: dict[str, Any]) -> str:
        return f"cmprsk::cuminc(time, status, cencode = 0); cmprsk::timepoints(fit, {h:g})"

    return ctx.run.call(sec, cuminc, ctx.time, ctx.status, np.asarray([h]), model=ALL, what=what, r=r)


def cuminc_figure(ctx: Context, sec: Section, ci: Any) -> None:
    """The cumulative incidence curves, named by cause, with the horizon marked."""
    inp = ctx.inp
    assert inp.causes is not None and inp.horizon is not None
    names = {f"1 {c}": (f"cause {label}" + (" (of interest)" if c == inp.cause_code else ""))
             for c, label in inp.causes.items()}

    def draw(fig: Any) -> None:
        ax = fig.add_subplot(1, 1, 1)
        ci.plot(ax=ax)
        for line in ax.get_lines():
            line.set_label(names.get(str(line.get_label()), str(line.get_label())))
            line.set_drawstyle("steps-post")
        ax.axvline(inp.horizon, color="0.45", linestyle=(0, (4, 3)), linewidth=1.0, label=f"horizon {inp.horizon:g}")
        top = max(float(np.nanmax(c["est"])) for c in ci.curves.values()) if ci.curves else 1.0
        ax.set_ylim(0, min(1.0, max(0.1, 1.15 * top)))
        ax.legend(frameon=False, fontsize=7.5, loc="upper left")
        tidy(ax, "cuminc")

    add_figure(sec, ctx.settings, None, "Cumulative incidence of each cause (Aalen-Johansen) against time", draw,
               (6.4, 3.4))


def calibration(ctx: Context) -> Section:
    s, inp = ctx.settings, ctx.inp
    h = inp.horizon
    assert h is not None
    label = inp.cause_label
    sec = Section("binned", "Calibration in risk groups (Aalen-Johansen)",
                  f"The cases in {s.g} groups cut at the quantiles of the predicted risk of cause {label} by time "
                  f"{h:g}: the mean predicted risk of each group against its observed risk, the Aalen-Johansen "
                  "cumulative incidence of the cause by the horizon among its members, the other causes competing "
                  "(riskRegression's calibration plot, method = 'quantile').", ctx.names)

    def r(kw: dict[str, Any]) -> str:
        return (f"riskRegression::plotCalibration(Score(list(model = p), Hist(time, status) ~ 1, data, times = "
                f"{kw['horizon']:g}, cause = {kw['cause']}, plots = 'calibration'), method = 'quantile', "
                f"q = {kw['q']})$plotFrames")

    if inp.weights is not None:
        sec.note("Left out: calstats.clinical.cr_calibration takes no case weights, and weighted rows would be "
                 "counted as equal here.")
        return sec
    for name in ctx.names:
        res = ctx.run.call(sec, cr_calibration, ctx.time, ctx.status, ctx.p(name), model=name, horizon=h,
                           what="Mean predicted and observed (Aalen-Johansen) risk of each risk group", r=r,
                           cause=ctx.cause, q=s.g)
        if res is None:
            continue
        frame = res.frame.set_index("group")
        sec.details.append(Detail(f"groups[{name}]", f"{name}: predicted and observed risk by group", frame, 4, name,
                                  open=len(ctx.names) == 1))
        empty = int((res.frame["Obs"].isna()).sum())
        if empty:
            sec.note(f"{name}: {empty} group{'s' if empty > 1 else ''} without an observed risk (no member followed "
                     f"to time {h:g}, or an empty group).")
        add_figure(sec, s, name, f"{name}: observed against predicted risk of cause {label} by time {h:g}, "
                   f"{s.g} risk groups", plot_of(res, "binary", curve="Risk groups (Aalen-Johansen)"), (4.6, 4.4))
    return sec

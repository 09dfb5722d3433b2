"""Discrimination and accuracy of risks of a time-to-event outcome (with or without competing
risks), and van Houwelingen's calibration slope:

* Harrell's and Uno's C (:func:`calstats.clinical.concordance`, ``timewt="n"`` and
  ``"n/G2"``; right-censored outcomes only, as ``survival::concordance``);
* the time-dependent AUC at the horizon and at earlier times
  (:func:`calstats.clinical.time_auc`, with ``cause=`` for competing risks);
* the time-dependent Brier score beside the null model's (Kaplan-Meier, or Aalen-Johansen
  for a cause), the index of prediction accuracy (:func:`calstats.clinical.time_brier`)
  and, when the models give risks at several times, the integrated Brier score
  (:func:`calstats.clinical.integrated_brier`);
* the Cox calibration slope (:func:`calstats.clinical.cox_calibration_slope`).

Risks by the horizon rank the cases at any earlier time too (the AUC reads only their
order), so the AUC is given at a few times up to the horizon; the Brier score needs the
risk by each time, so it is given at the horizon, or at every time when the models give
their risks by several times (``report(time=[...])`` with a column per time).
"""

from typing import Any

import numpy as np
import pandas as pd

from ...clinical.survival import (
    NULL_MODEL,
    concordance,
    cox_calibration_slope,
    integrated_brier,
    time_auc,
    time_brier,
)
from .. import _words as words
from .._figures import add_figure, tidy
from .._page import Detail, Row, Section, Value
from .._runner import Context, finite
from ._common import unweighted_only

__all__ = ["discrimination", "accuracy", "slope", "auc_times", "auc_se_valid", "FRACTIONS"]

#: With one horizon h, the AUC is also given at these fractions of it.
FRACTIONS = (0.25, 0.5, 0.75, 1.0)


def auc_times(ctx: Context) -> np.ndarray:
    """The times of the AUC: the report's times, or with one horizon h: h/4, h/2, 3h/4, h."""
    inp = ctx.inp
    assert inp.horizons is not None and inp.horizon is not None
    if inp.horizons.size > 1:
        return inp.horizons
    return inp.horizon * np.asarray(FRACTIONS)


def _times_r(times: Any) -> str:
    t = np.atleast_1d(np.asarray(times, dtype=np.float64))
    return f"{t[0]:g}" if t.size == 1 else "c(" + ", ".join(f"{v:g}" for v in t) + ")"


def _score_r(ctx: Context, metric: str, summary: str = "") -> Any:
    """R's ``Score`` call of a metric (the model's risks ``p``, or ``P`` with a column per time)."""
    risk = "P" if ctx.inp.risks is not None else "p"

    def r(kw: dict[str, Any]) -> str:
        extra = f", cause = {kw['cause']}" if "cause" in kw else ""
        summ = f', summary = "{summary}"' if summary else ""
        level = f", conf.int = {kw['level']:g}" if "level" in kw else ""
        return (f"riskRegression::Score(list(model = {risk}), Hist(time, status) ~ 1, data, times = "
                f'{_times_r(kw["times"])}, metrics = "{metric}"{summ}{extra}{level})')
    return r


def _at(frame: pd.DataFrame, model: str | None, t: float) -> pd.Series | None:
    """The row of ``model`` at time ``t`` (``model`` None: the one model of a call that is
    not the null model, which the function names ``"model"``)."""
    if model is None:
        own = _own(frame)
        rows = own[np.isclose(own["times"].to_numpy(dtype=np.float64), t)]
    else:
        rows = frame[(frame["model"] == model) & np.isclose(frame["times"].to_numpy(dtype=np.float64), t)]
    return None if rows.empty else rows.iloc[0]


def _own(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the one model of a call (not the null model)."""
    return frame[frame["model"] != NULL_MODEL]


def _cause_words(ctx: Context) -> str:
    return f"an event of cause {ctx.inp.cause_label}" if ctx.competing else "the event"


# --------------------------------------------------------------------------------------
# discrimination


def discrimination(ctx: Context) -> Section:
    s, inp = ctx.settings, ctx.inp
    h = inp.horizon
    assert h is not None
    times = auc_times(ctx)
    what = _cause_words(ctx)
    intro = ("How well the predicted risks order the cases by the time of " + what + ", whatever their calibration: "
             + ("Harrell's C over the whole follow-up and Uno's C, which weights the pairs against censoring "
                f"(survival::concordance; Wald {s.pct()} intervals from its infinitesimal-jackknife standard error); "
                "and " if ctx.survival else "")
             + f"the AUC(t) at time {h:g} and earlier times, with IPCW (riskRegression::Score)"
             + (f", cases having cause {inp.cause_label} by t and controls every other case not censored by t"
                if ctx.competing else "") + ".")
    title = "Discrimination over time: C and AUC(t)" if ctx.survival else "Discrimination over time: AUC(t)"
    sec = Section("discrimination", title, intro, ctx.names, terms=["AUC", "AUC(t)", "IPCW", "CI"])
    if ctx.survival:
        _concordance_rows(ctx, sec)
    else:
        sec.note("Harrell's and Uno's C (survival::concordance) are defined for a right-censored outcome; with "
                 "competing risks the AUC(t) of the cause is the measure of discrimination.")
    if unweighted_only(sec, ctx, "the AUC(t) (calstats.clinical.time_auc)"):
        return sec
    fits = {}
    for name in ctx.names:
        fits[name] = ctx.run.call(sec, time_auc, ctx.time, ctx.status, ctx.risks(name), model=name, times=times,
                                  what="AUC(t) with its standard error and intervals at each time",
                                  r=_score_r(ctx, "auc"), cause=ctx.cause, level=s.level)
    flags = _auc_flags(ctx)
    vals: dict[str, Value | None] = {}
    for name, res in fits.items():
        row = None if res is None else _at(res.score, None, h)
        if row is None:
            vals[name] = None
            continue
        auc, lo, hi = float(row["AUC"]), float(row["lower"]), float(row["upper"])
        vals[name] = Value(auc, lo, hi, sentence=words.auc_t(auc, lo, hi, h, s.level, what), flags=list(flags))
    sec.rows.append(Row("auc_t", f"AUC({h:g}) at the horizon", vals, 3))
    for name, res in fits.items():
        if res is None:
            continue
        frame = _own(res.score).set_index("times")[["AUC", "se", "lower", "upper"]]
        frame.index = pd.Index([float(t) for t in frame.index], name="time")
        sec.details.append(Detail(f"auc_t[{name}]", f"{name}: AUC(t) at each time", frame, 3, name,
                                  open=len(ctx.names) == 1))
    if inp.horizons is not None and inp.horizons.size == 1:
        sec.note(f"The AUC(t) before the horizon ranks the cases by their risks by time {h:g}; only the order of "
                 "the risks counts, so they serve as a score at earlier times.")
    ok = {name: res for name, res in fits.items() if res is not None}
    if ok:
        def draw(fig: Any) -> None:
            ax = fig.add_subplot(1, 1, 1)
            for name, res in ok.items():
                _plot_score(ax, res.score, "AUC", {"model": name})
            ax.axhline(0.5, color="0.45", linestyle=(0, (4, 3)), linewidth=1.0, label="Chance")
            ax.set_xlim(0, h * 1.04)
            top = max(1.0, float(ax.get_ylim()[1]))
            ax.set_ylim(min(0.4, float(ax.get_ylim()[0])), top)
            ax.legend(frameon=False, fontsize=7.5, loc="lower right")
            tidy(ax, "auc_t")

        of = f" ({what})" if ctx.competing else ""
        add_figure(sec, s, None, f"AUC(t) against time with pointwise {s.pct()} bands{of}", draw, (6.4, 3.6))
    return sec


def auc_se_valid(cause: Any, causes: Any) -> bool:
    """Whether riskRegression's standard error of the AUC(t) of ``cause`` holds with these
    event ``causes``: it codes cases 1 and controls 2, so it is a correct standard error for
    the first of at most two causes only (the report flags, the command line notes)."""
    codes = sorted(causes)
    return cause == codes[0] and len(codes) <= 2


def _auc_flags(ctx: Context) -> list[str]:
    """The flag of an AUC(t) interval from riskRegression's standard error where it does not
    hold (:func:`auc_se_valid`)."""
    inp = ctx.inp
    if not ctx.competing or inp.causes is None or auc_se_valid(inp.cause_code, inp.causes):
        return []
    return ["interval from riskRegression's standard error, which is not valid for this cause "
            "(it is for the first of two causes)"]


def _concordance_rows(ctx: Context, sec: Section) -> None:
    s = ctx.settings

    def r_of(timewt: str) -> Any:
        def r(kw: dict[str, Any]) -> str:
            wt = f', timewt = "{timewt}"' if timewt != "n" else ""
            w = ", weights = w" if "weights" in kw else ""
            return (f"survival::concordance(Surv(time, status) ~ p{wt}{w}, reverse = TRUE); "
                    f"C + c(-1, 1) * qnorm({1 - (1 - s.level) / 2:g}) * sqrt(var)")
        return r

    harrell_c: dict[str, float] = {}
    for key, timewt, label in (("harrell", "n", "Harrell's C"), ("uno", "n/G2", "Uno's C")):
        vals: dict[str, Value | None] = {}
        for name in ctx.names:
            fit = ctx.run.call(sec, concordance, ctx.time, ctx.status, ctx.p(name), model=name,
                               key="concordance" if timewt == "n" else "concordance_uno",
                               what=f"{label}: the concordance and its standard error", r=r_of(timewt),
                               timewt=timewt if timewt != "n" else None, weights=ctx.weights)
            if fit is None:
                vals[name] = None
                continue
            c, se = float(fit.concordance), float(fit.std_err)
            ci = fit.conf_int(s.level).loc["concordance"]
            lo, hi = (float(ci["lower"]), float(ci["upper"])) if finite(se) else (None, None)
            if key == "harrell":
                harrell_c[name] = c
                sentence = words.harrell(c, lo, hi, s.level)
            else:
                sentence = words.uno(c, lo, hi, s.level, harrell_c.get(name))
            vals[name] = Value(c, lo, hi, sentence=sentence)
        sec.rows.append(Row(key, label, vals, 3))


# --------------------------------------------------------------------------------------
# accuracy: the Brier score over time


def accuracy(ctx: Context) -> Section:
    s, inp = ctx.settings, ctx.inp
    h = inp.horizon
    assert h is not None and inp.horizons is not None
    several = inp.horizons.size > 1
    times = inp.horizons if several else np.asarray([h])
    what = _cause_words(ctx)
    estimator = "Aalen-Johansen" if ctx.competing else "Kaplan-Meier"
    null = f"Null model ({estimator})"
    intro = (f"How close the predicted risks come to the outcome: the Brier score, the mean squared difference "
             f"between the risk of {what} by a time and whether it happened, with IPCW (riskRegression::Score), "
             f"beside the null model that gives everyone the same {estimator} risk; the IPA is the share of the "
             "null model's Brier score the model removes"
             + (", and the IBS averages the Brier score over the times of the report" if several else "")
             + ". Lower Brier scores and higher IPA are better.")
    sec = Section("accuracy", "Accuracy over time: the Brier score and IPA", intro, [null, *ctx.names],
                  terms=["IPCW", "IPA"] + (["IBS"] if several else []))
    if not several:
        sec.note(f"The Brier score is given at the horizon only: the risks are risks by time {h:g}, and the Brier "
                 "score at an earlier time needs the risk by that time. Give report(time=[...]) increasing times and "
                 "each model's risks by each time (a column per time) for the Brier score over time and its "
                 "integral.")
    if unweighted_only(sec, ctx, "the Brier score (calstats.clinical.time_brier)"):
        return sec
    fits = {name: ctx.run.call(sec, time_brier, ctx.time, ctx.status, ctx.risks(name), model=name, times=times,
                               what="Brier score of the model and the null model, IPA, at each time",
                               r=_score_r(ctx, "brier", "ipa"), cause=ctx.cause, level=s.level)
            for name in ctx.names}
    first = next((f for f in fits.values() if f is not None), None)
    brier: dict[str, Value | None] = {}
    ipa: dict[str, Value | None] = {}
    nb = None
    if first is not None:
        row = _at(first.score, NULL_MODEL, h)
        if row is not None:
            nb = float(row["Brier"])
            brier[null] = Value(nb, float(row["lower"]), float(row["upper"]),
                                sentence=words.brier_null(nb, h, estimator))
    for name, res in fits.items():
        row = None if res is None else _at(res.score, None, h)
        if row is None:
            brier[name] = ipa[name] = None
            continue
        b = float(row["Brier"])
        brier[name] = Value(b, float(row["lower"]), float(row["upper"]),
                            sentence=words.brier_t(b, nb, h, what))
        ipa[name] = Value(float(row["IPA"]), sentence=words.ipa(float(row["IPA"]), h))
    sec.rows.append(Row("brier_t", f"Brier score at time {h:g}", brier, 4))
    sec.rows.append(Row("ipa", f"IPA at time {h:g}", ipa, 1, "percent"))
    if several:
        _ibs_rows(ctx, sec, times, null)
        sec.note("The IBS is riskRegression's: the Brier score as a step function through time 0 (score 0) and the "
                 "times of the report, each value held until the next time, so it depends on the times given.")
    for name, res in fits.items():
        if res is None or not several:  # at one time the table would repeat the key numbers
            continue
        sc = res.score
        for part, label in ((sc[sc["model"] == NULL_MODEL], null), (_own(sc), name)):
            if label == null and res is not first:
                continue
            frame = part.set_index("times")[["Brier", "se", "lower", "upper", "IPA"]]
            frame.index = pd.Index([float(t) for t in frame.index], name="time")
            sec.details.append(Detail(f"brier_t[{label}]", f"{label}: Brier score at each time", frame, 4,
                                      label, open=len(ctx.names) == 1))
    if several and first is not None:
        ok = {name: res for name, res in fits.items() if res is not None}

        def draw(fig: Any) -> None:
            ax = fig.add_subplot(1, 1, 1)
            for k, (name, res) in enumerate(ok.items()):
                sub = res.score if k == 0 else _own(res.score)
                _plot_score(ax, sub, "Brier", {NULL_MODEL: null, "model": name})
            ax.set_xlim(0, h * 1.04)
            ax.set_ylim(0, None)
            ax.legend(frameon=False, fontsize=7.5, loc="upper left")
            tidy(ax, "brier_t")

        add_figure(sec, s, None, f"Brier score against time beside the null model, with pointwise {s.pct()} bands",
                   draw, (6.4, 3.6))
    return sec


def _plot_score(ax: Any, score: pd.DataFrame, metric: str, rename: dict[str, str]) -> None:
    """One line per model with its band; the null model grey and dashed."""
    for model, rows in score.groupby("model", sort=False):
        grey = model == NULL_MODEL
        kw = {"color": "0.35", "linestyle": (0, (4, 3))} if grey else {}
        line, = ax.plot(rows["times"], rows[metric], marker="o", markersize=3.5,
                        label=rename.get(str(model), str(model)), **kw)
        ax.fill_between(rows["times"], rows["lower"], rows["upper"], color=line.get_color(),
                        alpha=0.10 if grey else 0.15, linewidth=0)


def _ibs_rows(ctx: Context, sec: Section, times: np.ndarray, null: str) -> None:
    inp = ctx.inp
    h = inp.horizon
    assert h is not None
    vals: dict[str, Value | None] = {}
    null_ibs = None
    r = _score_r(ctx, "brier", "ibs")
    for name in ctx.names:
        res = ctx.run.call(sec, integrated_brier, ctx.time, ctx.status, ctx.risks(name), model=name, times=times,
                           what="IBS of the model and the null model up to the horizon", r=r, cause=ctx.cause,
                           notes="refusals")
        row = None if res is None else _at(res.table, None, h)
        nrow = None if res is None else _at(res.table, NULL_MODEL, h)
        if nrow is not None and null_ibs is None:
            null_ibs = float(nrow["IBS"])
        vals[name] = None if row is None else Value(float(row["IBS"]), sentence=words.ibs(float(row["IBS"]),
                                                                                        null_ibs, h))
    if null_ibs is not None:
        vals = {null: Value(null_ibs, sentence=f"The null model's Brier score averaged over time from 0 to {h:g}: "
                                               f"{null_ibs:.4f}."), **vals}
    sec.rows.append(Row("ibs", f"IBS from 0 to {h:g}", vals, 4))


# --------------------------------------------------------------------------------------
# calibration slope


def slope(ctx: Context) -> Section:
    s = ctx.settings
    sec = Section("hierarchy", "Calibration slope (van Houwelingen)",
                  "Weak calibration of the risks by the horizon: the coefficient of log(-log(1 - risk)) in a Cox model "
                  "of the outcome (survival::coxph; under proportional hazards it differs from the linear "
                  "predictor by a constant, so the slope is the same). 1 is ideal; below 1 the risks are too extreme "
                  f"(overfitting), above 1 too modest. Wald {s.pct()} intervals.", ctx.names, terms=["CI"])
    if unweighted_only(sec, ctx, "calstats.clinical.cox_calibration_slope"):
        return sec
    vals: dict[str, Value | None] = {}

    def r(kw: dict[str, Any]) -> str:
        return ("survival::coxph(Surv(time, status) ~ log(-log(1 - p))): coef, sqrt(vcov), Wald interval and "
                "test of slope 1")

    for name in ctx.names:
        fit = ctx.run.call(sec, cox_calibration_slope, ctx.time, ctx.status, ctx.p(name), model=name,
                           what="Calibration slope, Wald interval, test of slope 1", r=r, level=s.level, risk=True)
        if fit is None:
            vals[name] = None
            continue
        b, lo, hi, p = float(fit.slope), float(fit.lower), float(fit.upper), float(fit.p)
        vals[name] = Value(b, lo, hi, sentence=words.cox_slope(b, lo, hi, p))
    sec.rows.append(Row("cox_slope", "Calibration slope (Cox)", vals, 3))
    return sec

"""The data: rows, events (or classes, or censoring and the horizon) and each model's
average prediction. Counts and means of the data; for a time-to-event outcome the
Kaplan-Meier risk by the horizon from :func:`calstats.clinical.decision_curve`."""

import numpy as np
import pandas as pd

from ...clinical.decision import decision_curve
from ...kernels.toplabel import top_label
from ...numerics.reductions import rsum
from .. import _words as words
from .._inputs import Inputs
from .._page import ALL, Detail, Row, Section, Source, Value
from .._runner import Arg, Context
from ._common import at_zero_or_one, wmean
from .competing import cuminc_call, cuminc_figure

__all__ = ["build", "decision_call"]


def decision_call(ctx: Context, sec: Section, what: str | None = None, notes: str = "all"):
    """The decision curve of every model (one call, shared with the decision section)."""
    s, inp = ctx.settings, ctx.inp
    surv = ctx.timed
    th = "" if s.thresholds is None else ", thresholds = ..."

    def r(kw):
        if ctx.competing:
            return (f"dcurves::dca(Surv(time, factor(status)) ~ ..., time = {kw['time']:g}{th}) with cause "
                    f"{kw['cause']} the first level after censoring")
        if surv:
            return f"dcurves::dca(Surv(time, status) ~ ..., time = {kw['time']:g}{th})"
        return f"dcurves::dca(y ~ ...{th})"

    return ctx.run.call(sec, decision_curve, Arg("models", dict(inp.models)), ctx.y, model=ALL, key="decision",
                        what=what, r=r,
                        notes=notes, thresholds=None if s.thresholds is None else Arg("thresholds", s.thresholds),
                        weights=ctx.weights, time=inp.horizon, cause=ctx.cause)


def build(ctx: Context) -> Section:
    inp, names = ctx.inp, ctx.names
    sec = Section("data", "The data", "What was assessed: the cases, the outcome and each model's average "
                  "prediction.", names)
    n, w = inp.n, inp.weights
    sec.rows.append(Row("rows", "Rows", {ALL: Value(n, sentence=words.rows(n, inp.kind))}, 0, "count"))
    if w is not None:
        total = float(rsum(w))
        sec.rows.append(Row("weights", "Sum of case weights", {ALL: Value(total, sentence=words.weight_sum(total, n))},
                            3, "number"))
    if ctx.binary:
        k = int(inp.y.sum())
        rate = wmean(inp.y.astype(np.float64), w)
        sec.rows.append(Row("events", "Events", {ALL: Value(k, sentence=words.events(k, n))}, 0, "count"))
        sec.rows.append(Row("event_rate", "Event rate" + (" (weighted)" if w is not None else ""),
                            {ALL: Value(rate, sentence=words.event_rate(rate, w is not None))}, 1, "percent"))
        means, ext = {}, {}
        for name, p in inp.models.items():
            m = wmean(p, w)
            means[name] = Value(m, sentence=words.mean_risk(m, rate))
            k01 = at_zero_or_one(p)
            ext[name] = Value(k01, sentence=words.extremes(k01, n))
        sec.rows.append(Row("mean_risk", "Mean predicted risk", means, 1, "percent"))
        sec.rows.append(Row("extreme_risks", "Risks of exactly 0 or 1", ext, 0, "count"))
        sec.sources.append(Source("Rows, events, event rate, mean predicted risk",
                                  "counts and (weighted) means of the data", "mean(y), mean(p)"))
    elif ctx.multiclass:
        assert inp.classes is not None
        k = len(inp.classes)
        sec.rows.append(Row("classes", "Classes", {ALL: Value(k, sentence=words.classes(k))}, 0, "count"))
        acc, conf = {}, {}
        table = {"cases": np.bincount(inp.y - 1, minlength=k).astype(np.float64)}
        onehot = np.zeros((n, k))
        onehot[np.arange(n), inp.y - 1] = 1.0
        table["share"] = np.array([wmean(onehot[:, j], w) for j in range(k)])
        for name, P in inp.models.items():
            r, c = top_label(P, inp.y)
            a, m = wmean(c.astype(np.float64), w), wmean(r, w)
            acc[name] = Value(a, sentence=words.accuracy(a, m))
            conf[name] = Value(m, sentence=f"The probability of the most probable class averages {words.pct(m)}.")
            table[f"mean p ({name})"] = np.array([wmean(P[:, j], w) for j in range(k)])
        sec.rows.append(Row("accuracy", "Accuracy of the most probable class", acc, 1, "percent"))
        sec.rows.append(Row("confidence", "Mean confidence (top-label probability)", conf, 1, "percent"))
        frame = pd.DataFrame(table, index=pd.Index(inp.classes, name="class"))
        sec.details.append(Detail("classes", "Cases per class, observed share and mean predicted probability",
                                  frame, 3, None, open=True))
        sec.sources.append(Source("Counts, shares, accuracy and confidence of the most probable class",
                                  "counts and (weighted) means of the data", "table(y), mean(max.col(p) == y)"))
    elif ctx.competing:
        _competing(ctx, sec)
    else:
        assert inp.times is not None and inp.horizon is not None
        h = inp.horizon
        k = int(inp.y.sum())
        sec.rows.append(Row("events", "Events", {ALL: Value(k, sentence=words.events(k, n))}, 0, "count"))
        _follow_up_rows(sec, inp, n - k, words.horizon(h))
        dc = decision_call(ctx, sec, "Kaplan-Meier risk by the horizon (.prevalence)")
        km = float("nan") if dc is None else float(dc.prevalence)
        sec.rows.append(Row("km_risk", f"Observed risk by time {h:g} (Kaplan-Meier)",
                            {ALL: Value(km, sentence=words.km_risk(km, h))}, 1, "percent"))
        sec.rows.append(Row("mean_risk", "Mean predicted risk", _mean_risks(inp, km, "the Kaplan-Meier risk"), 1,
                            "percent"))
        sec.notes.append("With censored outcomes the report gives Harrell's and Uno's C, the AUC and the Brier score "
                         "over time (with IPCW), the Cox calibration slope, the flexible curve's errors by the horizon "
                         "and the decision curve; the logistic calibration hierarchy, the CORP and binned diagrams "
                         "and the tests of a binary outcome need every outcome known at the horizon and are left out.")
        sec.terms.extend(["CORP", "IPCW"])
        sec.sources.insert(0, Source("Counts and mean predicted risk", "counts and (weighted) means of the data",
                                     "sum(status), mean(p)"))
    return sec


def _follow_up_rows(sec: Section, inp: Inputs, cens: int, horizon: str) -> None:
    """The rows a time-to-event outcome adds after its events: the censored cases, the
    horizon (``horizon``: its sentence) and the cases followed beyond it."""
    n, h = inp.n, inp.horizon
    assert inp.times is not None and h is not None
    sec.rows.append(Row("censored", "Censored", {ALL: Value(cens, sentence=words.censored(cens, n))}, 0, "count"))
    sec.rows.append(Row("horizon", "Horizon", {ALL: Value(h, sentence=horizon)}, 6, "general"))
    far = int(np.sum(inp.times > h))
    sec.rows.append(Row("beyond", "Followed beyond the horizon", {ALL: Value(far, sentence=words.beyond(far, n, h))},
                        0, "count"))


def _mean_risks(inp: Inputs, observed: float, what: str) -> dict[str, Value]:
    """Each model's (weighted) mean predicted risk beside the ``observed`` risk (``what``: its name)."""
    means = {}
    for name, p in inp.models.items():
        m = wmean(p, inp.weights)
        means[name] = Value(m, sentence=words.mean_risk(m, observed, what))
    return means


def _competing(ctx: Context, sec: Section) -> None:
    """Counts of each cause, the horizon, and the Aalen-Johansen risk of each cause by it."""
    inp, n = ctx.inp, ctx.inp.n
    assert inp.times is not None and inp.horizon is not None and inp.causes is not None
    h = inp.horizon
    for code, label in inp.causes.items():
        k = int(np.sum(inp.y == code))
        sec.rows.append(Row(f"events[{label}]", f"Events of cause {label}",
                            {ALL: Value(k, sentence=words.cause_events(k, n, label, code == inp.cause_code))},
                            0, "count"))
    _follow_up_rows(sec, inp, int(np.sum(inp.y == 0)), words.horizon(h, f"cause {inp.cause_label}"))
    ci = cuminc_call(ctx, sec, "Aalen-Johansen cumulative incidence of each cause by the horizon")
    risk = float("nan")
    for code, label in inp.causes.items():
        est = float("nan")
        if ci is not None and f"1 {code}" in ci.est.index:
            est = float(ci.est.loc[f"1 {code}"].iloc[0])
        if code == inp.cause_code:
            risk = est
        sec.rows.append(Row(f"cuminc[{label}]", f"Observed risk of cause {label} by time {h:g} (Aalen-Johansen)",
                            {ALL: Value(est, sentence=words.cuminc_risk(est, label, h, code == inp.cause_code))},
                            1, "percent"))
    sec.rows.append(Row("mean_risk", f"Mean predicted risk of cause {inp.cause_label}",
                        _mean_risks(inp, risk, "the Aalen-Johansen risk of the cause"), 1, "percent"))
    if ci is not None:
        cuminc_figure(ctx, sec, ci)
    sec.notes.append(f"A competing-risk outcome: the models' risks are of cause {inp.cause_label} by time {h:g}, and "
                     "an event of another cause prevents it; observed risks are Aalen-Johansen cumulative incidences, "
                     "not one minus Kaplan-Meier, which would count the competing events as censored. The "
                     "concordance, the Cox calibration slope and the flexible curve of a right-censored outcome are "
                     "left out.")
    sec.sources.insert(0, Source("Counts and mean predicted risk", "counts and (weighted) means of the data",
                                 "table(status), mean(p)"))

"""The data: rows, events (or classes, or censoring and the horizon) and each model's
average prediction. Counts and means of the data; for a time-to-event outcome the
Kaplan-Meier risk by the horizon from :func:`calstats.clinical.decision_curve`."""

import numpy as np
import pandas as pd

from ...clinical.decision import decision_curve
from ...kernels.toplabel import top_label
from ...numerics.reductions import rsum
from .. import _words as words
from .._page import ALL, Detail, Row, Section, Source, Value
from .._runner import Arg, Context
from ._common import at_zero_or_one, wmean

__all__ = ["build", "decision_call"]


def decision_call(ctx: Context, sec: Section, what: str | None = None, notes: str = "all"):
    """The decision curve of every model (one call, shared with the decision section)."""
    s, inp = ctx.settings, ctx.inp
    surv = ctx.survival
    th = "" if s.thresholds is None else ", thresholds = ..."

    def r(kw):
        if surv:
            return f"dcurves::dca(Surv(time, status) ~ ..., time = {kw['time']:g}{th})"
        return f"dcurves::dca(y ~ ...{th})"

    return ctx.run.call(sec, decision_curve, Arg("models", dict(inp.models)), ctx.y, model=ALL, key="decision",
                        what=what, r=r,
                        notes=notes, thresholds=None if s.thresholds is None else Arg("thresholds", s.thresholds),
                        weights=ctx.weights, time=inp.horizon)


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
    else:
        assert inp.times is not None and inp.horizon is not None
        h = inp.horizon
        k = int(inp.y.sum())
        sec.rows.append(Row("events", "Events", {ALL: Value(k, sentence=words.events(k, n))}, 0, "count"))
        cens = n - k
        sec.rows.append(Row("censored", "Censored", {ALL: Value(cens, sentence=words.censored(cens, n))}, 0, "count"))
        sec.rows.append(Row("horizon", "Horizon", {ALL: Value(h, sentence=words.horizon(h))}, 6, "general"))
        far = int(np.sum(inp.times > h))
        sec.rows.append(Row("beyond", "Followed beyond the horizon", {ALL: Value(far, sentence=words.beyond(far, n, h))},
                            0, "count"))
        dc = decision_call(ctx, sec, "Kaplan-Meier risk by the horizon (.prevalence)")
        km = float("nan") if dc is None else float(dc.prevalence)
        sec.rows.append(Row("km_risk", f"Observed risk by time {h:g} (Kaplan-Meier)",
                            {ALL: Value(km, sentence=words.km_risk(km, h))}, 1, "percent"))
        means = {name: Value(wmean(p, w), sentence=words.mean_risk(wmean(p, w), km, "the Kaplan-Meier risk"))
                 for name, p in inp.models.items()}
        sec.rows.append(Row("mean_risk", "Mean predicted risk", means, 1, "percent"))
        sec.notes.append("With censored outcomes the report gives the flexible curve's errors by the horizon and the "
                         "decision curve; the C-statistic, the calibration hierarchy, the CORP and binned diagrams and "
                         "the tests need every outcome known at the horizon and are left out (calstats has no "
                         "concordance index for censored data yet).")
        sec.terms.append("CORP")
        sec.sources.insert(0, Source("Counts and mean predicted risk", "counts and (weighted) means of the data",
                                     "sum(status), mean(p)"))
    return sec

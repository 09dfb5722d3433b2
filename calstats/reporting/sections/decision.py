"""Clinical utility: the decision curve of every model against treating everyone and no
one (:func:`calstats.clinical.decision_curve`, R's dcurves)."""

import numpy as np

from .. import _words as words
from .._figures import add_figure, tidy
from .._page import Detail, Row, Section, Value
from .._runner import Context
from .data import decision_call

__all__ = ["build", "shown_thresholds"]


def shown_thresholds(t: np.ndarray) -> list[int]:
    """Positions of the thresholds shown in the table: 5%, 10%, 20%, 30%, 50% when the
    thresholds hold them, else up to five spread over the given ones."""
    want = [0.05, 0.10, 0.20, 0.30, 0.50]
    pos = [int(np.flatnonzero(np.abs(t - v) < 1e-9)[0]) for v in want if (np.abs(t - v) < 1e-9).any()]
    if len(pos) >= 3:
        return pos
    return sorted(set(np.linspace(0, t.size - 1, min(5, t.size)).round().astype(int).tolist()))


def build(ctx: Context) -> Section:
    s, inp, names = ctx.settings, ctx.inp, ctx.names
    surv = ctx.timed
    cols = ["Treat all"] + names
    sec = Section("decision", "Clinical utility: the decision curve",
                  "Net benefit (Vickers and Elkin 2006) of treating the cases whose predicted risk is at least a "
                  "threshold, in true events found per case after charging each unnecessary treatment at the odds "
                  "of the threshold; against treating everyone and no one (net benefit 0)"
                  + ((f", with the risk of cause {inp.cause_label} by time {inp.horizon:g} from Aalen-Johansen "
                      "curves, the other causes competing (dcurves)" if ctx.competing else
                      f", with the risk of the event by time {inp.horizon:g} from Kaplan-Meier curves") if surv
                     else "")
                  + ".", cols)
    dc = decision_call(ctx, sec, "Net benefit")
    if dc is None:
        return sec
    wide = dc.net_benefit_table()
    t = np.asarray(wide.index, dtype=np.float64)
    for i in shown_thresholds(t):
        ti = float(t[i])
        nb_all = float(wide["Treat All"].iloc[i])
        vals: dict[str, Value | None] = {"Treat all": Value(nb_all, sentence=words.net_benefit_all(nb_all, ti))}
        for name in names:
            nb = float(wide[name].iloc[i])
            vals[name] = Value(nb, sentence=words.net_benefit(nb, ti, nb_all))
        sec.rows.append(Row(f"net_benefit[{ti:g}]", f"Net benefit at {words.pct(ti, 0)}", vals, 4))
    best: dict[str, Value | None] = {}
    top = np.maximum(wide["Treat All"].to_numpy(dtype=np.float64), wide["Treat None"].to_numpy(dtype=np.float64))
    for name in names:
        nb = wide[name].to_numpy(dtype=np.float64)
        wins = np.flatnonzero(nb > top)
        k = int(wins.size)
        lo = float(t[wins].min()) if k else None
        hi = float(t[wins].max()) if k else None
        best[name] = Value(k, sentence=words.best_range(lo, hi, k, t.size))
    sec.rows.append(Row("best_thresholds", "Thresholds where the model is best", best, 0, "count"))
    missing = int(np.isnan(wide.to_numpy(dtype=np.float64)).any(axis=1).sum())
    if missing:
        sec.note(f"The net benefit is not estimable (NA) at {missing} of the {t.size} thresholds: "
                 + (f"the {'Aalen-Johansen' if ctx.competing else 'Kaplan-Meier'} risk among the cases treated is "
                    "not defined there (no case at or above the threshold is followed to the horizon)." if surv
                    else "no case has a risk at or above them."))
    sec.details.append(Detail("net_benefit", "Net benefit at every threshold", wide.rename_axis("threshold"), 4))

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        dc.plot(ax=ax)
        tidy(ax, "decision")

    add_figure(sec, s, None, "Decision curves: net benefit against the threshold probability", draw, (6.4, 4.0))
    return sec

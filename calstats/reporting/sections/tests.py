"""Calibration tests: Kolmogorov-Smirnov, Kuiper and Spiegelhalter
(:func:`calstats.cal_ks_test`, ...), and for a binary outcome Hosmer-Lemeshow
(:func:`calstats.hoslem_test`)."""

from collections.abc import Callable
from typing import Any

from ...clinical.hoslem import hoslem_test
from ...evaluation.caltests import cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test
from .. import _words as words
from .._page import Row, Section, Value
from .._runner import Context

__all__ = ["build"]

#: (key, label, statistic, function, sentence of the p-value and statistic)
_TESTS: list[tuple[str, str, str, Callable[..., Any], Callable[[float, float], str]]] = [
    ("ks", "Kolmogorov-Smirnov", "G", cal_ks_test, lambda s, p: words.ks(p)),
    ("kuiper", "Kuiper", "H", cal_kuiper_test, lambda s, p: words.kuiper(p)),
    ("spiegelhalter", "Spiegelhalter", "Z", cal_spiegelhalter_test, words.spiegelhalter),
]


def build(ctx: Context) -> Section:
    s = ctx.settings
    mc = ctx.multiclass
    sec = Section("tests", "Calibration tests",
                  "Tests of the hypothesis that the "
                  + ("top-label confidences" if mc else "predicted risks")
                  + " are calibrated: Kolmogorov-Smirnov and Kuiper on the cumulative differences between outcomes "
                  "and predictions (Arrieta-Ibarra et al. 2022; Tygert 2022), Spiegelhalter's z of the Brier score"
                  + ("" if mc else ", and Hosmer-Lemeshow's chi-squared over groups of risk")
                  + ". A small p-value is evidence of miscalibration; a large one is not proof of calibration.",
                  ctx.names, terms=["G, H, Z"] + ([] if mc else ["X²", "df"]))

    def r(kw: dict[str, Any]) -> str:
        return "MAPIE's calibration tests (documented formulas); Spiegelhalter's z as rms::val.prob's S:z and S:p"

    for key, label, stat, fn, say in _TESTS:
        vals: dict[str, Value | None] = {}
        for name in ctx.names:
            t = ctx.run.call(sec, fn, ctx.p(name), ctx.y, model=name, key=key, what=label, r=r, weights=ctx.weights)
            if t is None:
                vals[name] = None
                continue
            st, pv = float(t.statistic[stat]), float(t.p_value)
            vals[name] = Value(st, p_value=pv, sentence=say(st, pv))
        sec.rows.append(Row(key, label, vals, 3, "test", stat))
    if mc:
        return sec
    if ctx.inp.weights is not None:
        sec.note("Hosmer-Lemeshow left out: calstats.hoslem_test takes no case weights.")
        return sec

    def hl_r(kw: dict[str, Any]) -> str:
        return (f"ResourceSelection::hoslem.test(y, p, g = {kw['g']}) (df = g - 2, R's; for external validation "
                "Hosmer and Lemeshow use g)")

    vals = {}
    for name in ctx.names:
        t = ctx.run.call(sec, hoslem_test, ctx.y, ctx.p(name), model=name, key="hoslem", what="Hosmer-Lemeshow",
                         r=hl_r, g=s.g)
        if t is None:
            vals[name] = None
            continue
        st, pv, df = float(t.statistic["X-squared"]), float(t.p_value), float(t.parameter["df"])
        vals[name] = Value(st, p_value=pv, df=df, sentence=words.hosmer(s.g, df, pv))
    sec.rows.append(Row("hosmer_lemeshow", "Hosmer-Lemeshow", vals, 2, "test", "X²"))
    return sec

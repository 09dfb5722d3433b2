"""Discrimination: the exact C-statistic (AUC) with DeLong's interval and R's val.prob.ci.2
C-statistic with its interval (:func:`calstats.val_prob_ci`), or for a multiclass outcome
the PDI (:func:`calstats.clinical.val_multinomial`). A time-to-event outcome's is in
:mod:`.timed`."""

import numpy as np
import pandas as pd

from ...clinical.multinomial_pdi import pdi_exact
from .. import _words as words
from .._page import Detail, Row, Section, Value
from .._runner import Context
from ._common import unweighted_only
from .hierarchy import hierarchy_call, val_multinomial_call

__all__ = ["build"]


def build(ctx: Context) -> Section:
    return _multiclass(ctx) if ctx.multiclass else _binary(ctx)


def _binary(ctx: Context) -> Section:
    s = ctx.settings
    sec = Section("discrimination", "Discrimination",
                  "How well the predicted risks separate cases with and without the event, whatever their "
                  "calibration: the C-statistic, the exact AUC of the risks with DeLong's interval (pROC); and the "
                  "C-statistic as CalibrationCurves' val.prob.ci.2 reports it, rms' c index of the logistic "
                  "recalibration fit with its own interval.", ctx.names, terms=["AUC", "CI"])
    if unweighted_only(sec, ctx, "the C-statistic (calstats.val_prob_ci)"):
        return sec
    vals: dict[str, Value | None] = {}
    rvals: dict[str, Value | None] = {}
    method = "Pepe"
    for name in ctx.names:
        # val_prob_ci's warnings are about its logistic fits; the C-statistic uses every row
        h = hierarchy_call(ctx, sec, name, f"C-statistic: the exact AUC with DeLong's {s.pct()} interval (.auc); "
                           "val.prob.ci.2's C with its interval (.c)", notes="refusals")
        if h is None:
            vals[name] = rvals[name] = None
            continue
        c, lo, hi = (float(v) for v in h.auc)
        vals[name] = Value(c, lo, hi, sentence=words.c_statistic(c, lo, hi, s.level))
        method = _METHODS.get(str(h.c_method), str(h.c_method))
        rc, rlo, rhi = (float(v) for v in h.c)
        rvals[name] = Value(rc, rlo, rhi, sentence=words.c_index_r(rc, rlo, rhi, s.level, method),
                            flags=_tie_flag(ctx, name, (rlo, rhi), (lo, hi), method))
    sec.rows.append(Row("c_statistic", "C-statistic (AUC), DeLong", vals, 3))
    sec.rows.append(Row("c_rms", f"C (ROC) of val.prob.ci.2, {method} interval", rvals, 3))
    return sec


#: An interval of R's C this many times as wide as DeLong's, on predictions with ties, is
#: flagged: Pepe's variance as CalibrationCurves computes it is inflated by ties.
TIE_WIDTH = 3.0


def _tie_flag(ctx: Context, name: str, r_ci: tuple[float, float], delong: tuple[float, float],
              method: str) -> list[str]:
    """CalibrationCurves' Pepe variance (``getS2mw``) subtracts the positions 1..m from the
    mid-ranks of the sorted predictions, so tied predictions add variance that is not there:
    with many ties the interval is far too wide (a lower limit near 0 for a C near 1)."""
    if method != "Pepe":
        return []
    p = ctx.inp.models[name]
    tied = int(p.size - np.unique(p).size)
    width, ref = r_ci[1] - r_ci[0], delong[1] - delong[0]
    if tied == 0 or not (np.isfinite(width) and np.isfinite(ref)) or width <= TIE_WIDTH * max(ref, 1e-12):
        return []
    return [f"interval inflated by ties: Pepe's variance (CalibrationCurves) treats tied risks as ordered, and "
            f"{tied} of the {p.size} risks repeat another; read the DeLong interval above"]


#: val_prob_ci's intervals of its C-statistic, by their authors' names
_METHODS = {"pepe": "Pepe", "delong": "DeLong", "newcombe": "Newcombe", "jackknife": "jackknife"}


def _multiclass(ctx: Context) -> Section:
    inp = ctx.inp
    sec = Section("discrimination", "Discrimination",
                  "How well the predictions separate the classes, whatever their calibration: the polytomous "
                  "discrimination index (PDI, Van Calster et al. 2012) extends the C-statistic to several classes.",
                  ctx.names, terms=["PDI"])
    if unweighted_only(sec, ctx, "the PDI (calstats.clinical.val_multinomial)"):
        return sec
    assert inp.classes is not None
    k = len(inp.classes)
    pdis: dict[str, Value | None] = {}
    comps = {}
    for name, P in inp.models.items():
        vm = val_multinomial_call(ctx, sec, name, "PDI and its class components (.pdi, .pdi_classes)",
                                  notes="none")
        if vm is not None:
            pdi, per = vm.pdi, vm.pdi_classes
        else:
            pdi, per = pdi_exact(P, inp.y - 1, inp.classes)
            sec.note(f"{name}: the PDI comes from calstats.clinical.multinomial_pdi.pdi_exact, the function "
                     "val_multinomial calls, as val_multinomial refused the data (see the calibration section).")
        pdis[name] = Value(float(pdi), sentence=words.pdi(float(pdi), k))
        comps[name] = np.asarray(per, dtype=np.float64)
    sec.rows.append(Row("pdi", "PDI", pdis, 3))
    sec.details.append(Detail("pdi_classes", "PDI by class",
                              pd.DataFrame(comps, index=pd.Index(inp.classes, name="class")), 3, None, open=True))
    return sec

"""Discrimination: the C-statistic with DeLong's interval (:func:`calstats.val_prob_ci`),
or for a multiclass outcome the PDI (:func:`calstats.clinical.val_multinomial`)."""

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
                  "calibration: the C-statistic (AUC) with DeLong's interval.", ctx.names, terms=["AUC", "CI"])
    if unweighted_only(sec, ctx, "the C-statistic (calstats.val_prob_ci)"):
        return sec
    vals: dict[str, Value | None] = {}
    for name in ctx.names:
        # val_prob_ci's warnings are about its logistic fits; the C-statistic uses every row
        h = hierarchy_call(ctx, sec, name, f"C-statistic, DeLong {s.pct()} interval", notes="refusals")
        if h is None:
            vals[name] = None
            continue
        c, lo, hi = (float(v) for v in h.c)
        vals[name] = Value(c, lo, hi, sentence=words.c_statistic(c, lo, hi, s.level))
    sec.rows.append(Row("c_statistic", "C-statistic (AUC)", vals, 3))
    return sec


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

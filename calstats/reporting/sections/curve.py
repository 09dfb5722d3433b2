"""The flexible calibration curve and its errors, ICI (Eavg), E50, E90, Emax and ECI with
intervals: :func:`calstats.clinical.pmcalibration` (simulation intervals for a binary
outcome, bootstrap ones by a horizon for a time-to-event outcome)."""

from typing import Any

import numpy as np

from ...clinical.pmcal import pmcalibration
from .. import _words as words
from .._figures import add_figure, plot_of
from .._page import Row, Section, Value
from .._runner import Context
from ._common import left_out_flag, unweighted_only

__all__ = ["build", "draws", "SIM_FULL_N", "SIM_BUDGET", "SIM_MIN_DRAWS", "SIM_MAX_N", "SIM_DEFAULT"]

#: The simulation intervals of a binary outcome's curve cost rows x draws (every draw of
#: the curve is evaluated at every row, as R's pmcalibration does). Up to ``SIM_FULL_N`` rows
#: ``SIM_DEFAULT`` draws; above, as many as keep rows x draws at ``SIM_BUDGET`` but at least
#: ``SIM_MIN_DRAWS``; above ``SIM_MAX_N`` rows none (pmcalibration's ``ci="none"``: the
#: errors without intervals). A number of draws given to ``report(n_sim=)`` is kept up to
#: ``SIM_MAX_N`` rows. The page says which applies.
SIM_DEFAULT, SIM_FULL_N, SIM_BUDGET, SIM_MIN_DRAWS, SIM_MAX_N = 1000, 20_000, 20_000_000, 200, 200_000


def draws(n: int, n_sim: int | None) -> int:
    """The simulated draws of the curve's intervals at ``n`` rows (0: no intervals)."""
    if n > SIM_MAX_N:
        return 0
    if n_sim is not None:
        return n_sim
    if n <= SIM_FULL_N:
        return SIM_DEFAULT
    return min(SIM_DEFAULT, max(SIM_MIN_DRAWS, SIM_BUDGET // n))

_ROWS = (("Eavg", "ICI (Eavg)", words.ici), ("E50", "E50", words.e50), ("E90", "E90", words.e90),
         ("Emax", "Emax", words.emax), ("ECI", "ECI", words.eci))

#: A statistic set by a case among this share of the most extreme predictions (or at most
#: this many cases) is flagged as driven by it.
EXTREME_SHARE, EXTREME_CASES = 0.005, 5


def pmcal_call(ctx: Context, sec: Section, name: str) -> Any:
    s, inp = ctx.settings, ctx.inp
    surv = ctx.survival
    nk = 5 if s.smooth == "rcs" else None  # pmcalibration's default, said without its message
    k = draws(inp.n, s.n_sim)
    ci = "boot" if surv else ("sim" if k else "none")
    n = s.n_boot if surv else k

    def r(kw: dict[str, Any]) -> str:
        outcome = "Surv(time, status)" if surv else "y"
        extra = f", time = {kw['time']:g}" if surv else ""
        nk = f", nk = {kw['nk']}" if "nk" in kw else ""
        reps = f", n = {kw['n']}" if kw["ci"] != "none" else ""
        return (f"set.seed({kw['seed']}); pmcalibration::pmcalibration({outcome}, p, smooth = '{kw['smooth']}'{extra}, "
                f"ci = '{kw['ci']}'{reps}{nk})")

    return ctx.run.call(sec, pmcalibration, ctx.y, ctx.p(name), model=name,
                        what="ICI (Eavg), E50, E90, Emax, ECI with intervals; the curve", r=r, smooth=s.smooth,
                        time=inp.horizon, ci=ci, n=n if ci != "none" else None, level=s.level, seed=s.seed, nk=nk)


def _emax_flag(ctx: Context, name: str, pm: Any) -> list[str]:
    """A flag when Emax is reached at one of the few most extreme predictions, and where
    (``[flag, place]``; empty otherwise)."""
    pc = getattr(pm, "p_c", None)
    if pc is None or len(pc) == 0:
        return []
    p = pc["p"].to_numpy(dtype=np.float64)
    err = np.abs(p - pc["p_c"].to_numpy(dtype=np.float64))
    if not np.isfinite(err).any():
        return []
    at = float(p[int(np.nanargmax(err))])
    beyond = int(np.count_nonzero(p >= at)) if at >= float(np.median(p)) else int(np.count_nonzero(p <= at))
    if beyond > max(EXTREME_CASES, EXTREME_SHARE * p.size):
        return []
    side = "highest" if at >= float(np.median(p)) else "lowest"
    what = "case" if beyond == 1 else f"{beyond} cases"
    outcome = ""
    if not ctx.survival:
        y = ctx.inp.y[ctx.inp.models[name] == at]
        if y.size and (y == y[0]).all():
            outcome = f", outcome {int(y[0])}"
    return [f"set by the {side} {what} (risk {at:.7g}{outcome})", f"the {side} risk ({at:.7g})"]


def _interval_flag(est: float, hi: float | None, driver: list[str]) -> list[str]:
    """With Emax set by an extreme case, an interval that reaches far above its estimate is
    stretched by the curve's uncertainty at that case: flagged."""
    if not driver or hi is None or not np.isfinite(hi) or hi <= max(STRETCH * est, est + 0.01):
        return []
    return [f"interval stretched by the curve's uncertainty at {driver[1]}"]


#: An interval whose upper limit is more than this many times its estimate is flagged as
#: stretched when Emax is set by an extreme case.
STRETCH = 3.0


def build(ctx: Context) -> Section:
    s, inp = ctx.settings, ctx.inp
    surv = ctx.survival
    k = draws(inp.n, s.n_sim)
    sim = not surv and k > 0
    how = (f"{s.n_boot} bootstrap refits" if surv else f"{k} simulated draws of the curve")
    intervals = (f"Intervals: {s.pct()} percentiles of {how} (seed {s.seed})"
                 + ("; the percentiles of an error, which cannot be negative, may lie above a small estimate."
                    if surv else ".")) if surv or sim else ""
    sec = Section("curve", "Calibration curve and its errors (ICI, E50, E90, Emax)",
                  f"A smooth calibration curve ({words.SMOOTHS.get(s.smooth, s.smooth)}) of the outcome on the "
                  "predicted risk" + (f" (a Cox model by time {inp.horizon:g})" if surv else "")
                  + "; the calibration error of a case is the distance between its predicted risk and the curve. "
                  + intervals, ctx.names, terms=["ICI", "E50", "E90", "Emax", "ECI", "CI", s.smooth])
    if not surv and not sim:
        sec.note(f"Above {SIM_MAX_N:,} rows the curve's errors are given without intervals (pmcalibration's "
                 f"ci='none'): the simulation evaluates every draw of the curve at every row (here {inp.n:,} rows).")
    elif not surv and s.n_sim is None and k < SIM_DEFAULT:
        sec.note(f"Above {SIM_FULL_N:,} rows the intervals come from {k} simulated draws instead of "
                 f"{SIM_DEFAULT} (rows x draws kept at {SIM_BUDGET:,}; here {inp.n:,} rows); report(n_sim=...) "
                 "sets the number.")
    if unweighted_only(sec, ctx, "calstats.clinical.pmcalibration"):
        return sec
    fits = {name: pmcal_call(ctx, sec, name) for name in ctx.names}
    drivers = {name: [] if pm is None or surv else _emax_flag(ctx, name, pm) for name, pm in fits.items()}
    for stat, label, say in _ROWS:
        vals: dict[str, Value | None] = {}
        for name, pm in fits.items():
            if pm is None:
                vals[name] = None
                continue
            m = pm.summary().metrics.loc[stat]
            lo = float(m["lower"]) if "lower" in m else None
            hi = float(m["upper"]) if "upper" in m else None
            est = float(m["Estimate"])
            flags = [] if surv else left_out_flag(ctx, name)
            if stat == "Emax":
                flags = flags + drivers[name][:1]
            else:
                flags = flags + _interval_flag(est, hi, drivers[name])
            vals[name] = Value(est, lo, hi, sentence=say(est, lo, hi, s.level), flags=flags)
        sec.rows.append(Row(stat, label, vals, 4 if stat == "ECI" else 3))
    for name, pm in fits.items():
        if pm is not None:
            add_figure(sec, s, name, f"{name}: calibration curve ({s.smooth}) with its {s.pct()} band",
                       plot_of(pm, "binary", curve=f"Calibration curve ({s.smooth})", band=f"{s.pct()} band"),
                       (4.6, 4.4))
    return sec

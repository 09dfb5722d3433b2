"""The CORP reliability diagram, its consistency band and the Brier score's decomposition
(:func:`calstats.corp`, R's reliabilitydiag)."""

from collections.abc import Callable
from typing import Any

from ...evaluation.corp import corp
from .. import _words as words
from .._figures import add_figure, plot_of
from .._page import Row, Section, Value
from .._runner import Context

__all__ = ["build", "resamples", "RESAMPLES_DEFAULT", "RESAMPLES_BUDGET", "RESAMPLES_MIN"]

#: The resampling band costs rows x resamples in time, and distinct risks x resamples in
#: memory (every resample's curve is kept for the pointwise quantiles: 1.6 GB at 10^6
#: distinct risks and 100 resamples). By default ``RESAMPLES_DEFAULT`` resamples, fewer
#: above ``RESAMPLES_BUDGET / RESAMPLES_DEFAULT`` rows so that rows x resamples stay at
#: ``RESAMPLES_BUDGET`` (at least ``RESAMPLES_MIN``): 50 at 10^6 rows. A number given to
#: ``report(n_resamples=)`` is kept. (R's reliabilitydiag itself stops resampling above
#: max(1000, min(5000, 50 k)) rows for k distinct risks, for asymptotic bands.) The page
#: says when fewer are drawn.
RESAMPLES_DEFAULT, RESAMPLES_BUDGET, RESAMPLES_MIN = 100, 50_000_000, 20


def resamples(n: int, n_resamples: int | None) -> int:
    """The resamples of the CORP band at ``n`` rows."""
    if n_resamples is not None:
        return n_resamples
    return min(RESAMPLES_DEFAULT, max(RESAMPLES_MIN, RESAMPLES_BUDGET // n))


def build(ctx: Context) -> Section:
    s = ctx.settings
    mc = ctx.multiclass
    k = resamples(ctx.inp.n, s.n_resamples)
    sec = Section("corp", "CORP reliability diagram and Brier decomposition",
                  "The CORP diagram (Dimitriadis, Gneiting and Jordan 2021) recalibrates the "
                  + ("top-label confidence" if mc else "predicted risks")
                  + " by isotonic regression (PAV), an estimate of the conditional event probability (CEP) at each "
                  f"prediction; its band shows where a calibrated model's curve would lie ({s.pct(s.band_level)} "
                  f"consistency band, {k} resamples, seed {s.seed}). The Brier score splits exactly into "
                  "miscalibration (MCB), discrimination (DSC) and uncertainty (UNC): Brier = MCB - DSC + UNC.",
                  ctx.names, terms=["CORP", "PAV", "CEP", "MCB", "DSC", "UNC"])

    def r(kw: dict[str, Any]) -> str:
        return (f"set.seed({kw['seed']}); reliabilitydiag::reliabilitydiag(p, y = y, region.level = {kw['level']:g}, "
                f"region.method = '{kw['band']}', n.boot = {kw['n_resamples']}); summary()")

    if k < RESAMPLES_DEFAULT and s.n_resamples is None:
        sec.note(f"Above {RESAMPLES_BUDGET // RESAMPLES_DEFAULT:,} rows the band comes from {k} resamples instead of "
                 f"{RESAMPLES_DEFAULT} (rows x resamples kept at {RESAMPLES_BUDGET:,}; here {ctx.inp.n:,} rows); "
                 "report(n_resamples=...) sets the number.")
    decs = {}
    for name in ctx.names:
        d = ctx.run.call(sec, corp, ctx.p(name), ctx.y, model=name,
                         what="CORP diagram, band, Brier decomposition (.decomposition())", r=r,
                         level=s.band_level, band="resampling", n_resamples=k, seed=s.seed,
                         weights=ctx.weights, type="confidence" if mc else None)
        decs[name] = None if d is None else d.decomposition()
        if d is not None:
            add_figure(sec, s, name, f"{name}: CORP reliability diagram" + (" of the top-label confidence" if mc else ""),
                       plot_of(d, "top" if mc else "binary", curve="CORP curve (PAV)",
                               band=f"{s.pct(s.band_level)} consistency band", legend="top"), (4.4, 4.5))

    def row(key: str, label: str, get: Callable[[Any], Any], say: Callable[[Any], str]) -> None:
        vals: dict[str, Value | None] = {}
        for name, dec in decs.items():
            vals[name] = None if dec is None else Value(float(get(dec)), sentence=say(dec))
        sec.rows.append(Row(key, label, vals, 4))

    row("brier", "Brier score", lambda d: d.mean_score,
        lambda d: words.brier(float(d.mean_score), float(d.uncertainty), mc))
    row("mcb", "Miscalibration (MCB)", lambda d: d.miscalibration,
        lambda d: words.mcb(float(d.miscalibration), float(d.mean_score), mc))
    row("dsc", "Discrimination (DSC)", lambda d: d.discrimination,
        lambda d: words.dsc(float(d.discrimination), float(d.uncertainty), mc))
    row("unc", "Uncertainty (UNC)", lambda d: d.uncertainty, lambda d: words.unc(float(d.uncertainty), mc))
    return sec

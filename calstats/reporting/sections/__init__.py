"""The report's sections, one module each: ``build(ctx) -> Section``.

Each module asks the runner (:class:`calstats.reporting._runner.Runner`) for the results of
the public functions it reads, with the report's settings as their arguments, and fills a
:class:`~calstats.reporting._page.Section` with the numbers, their sentences, flags and
figures. The runner records every call as the section's provenance.
"""

from collections.abc import Callable
from typing import Any

from .._inputs import Inputs
from .._page import Section, Settings
from .._runner import Context, Runner
from . import binned, competing, corp, curve, data, decision, discrimination, hierarchy, tests, timed

__all__ = ["SECTIONS", "BUILDERS", "build"]

#: The sections of each kind of outcome, in order ("data" and "provenance" always come).
SECTIONS = {
    "binary": ("discrimination", "hierarchy", "curve", "corp", "binned", "tests", "decision"),
    "multiclass": ("discrimination", "hierarchy", "corp", "binned", "tests"),
    "survival": ("discrimination", "accuracy", "hierarchy", "curve", "decision"),
    "competing": ("discrimination", "accuracy", "binned", "decision"),
}


def _discrimination(ctx: Context) -> Section:
    return timed.discrimination(ctx) if ctx.timed else discrimination.build(ctx)


def _hierarchy(ctx: Context) -> Section:
    return timed.slope(ctx) if ctx.timed else hierarchy.build(ctx)


def _binned(ctx: Context) -> Section:
    return competing.calibration(ctx) if ctx.competing else binned.build(ctx)


BUILDERS: dict[str, Callable[[Context], Section]] = {
    "data": data.build, "discrimination": _discrimination, "hierarchy": _hierarchy,
    "curve": curve.build, "corp": corp.build, "binned": _binned, "tests": tests.build,
    "decision": decision.build, "accuracy": timed.accuracy,
}


def build(inp: Inputs, settings: Settings, sections: list[str], progress: bool | None = None
          ) -> tuple[list[Section], dict[str, Any], dict[str, float]]:
    """The sections (data first), the result objects they came from, and the seconds each
    section took; a progress bar by section."""
    import time

    run = Runner(progress=progress)
    ctx = Context(inp, settings, run, list(inp.models))
    out = []
    order = ["data", *sections]
    seconds: dict[str, float] = {}
    with run.bar(len(order)) as bar:
        for name in order:
            if hasattr(bar, "set_postfix_str"):
                bar.set_postfix_str(name)
            t0 = time.perf_counter()
            out.append(BUILDERS[name](ctx))
            seconds[name] = time.perf_counter() - t0
            bar.update(1)
    return out, run.results(), seconds

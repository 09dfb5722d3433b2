"""The one runner of a report: it calls the public functions and writes down each call.

A section asks the runner for a result with the function and the arguments it wants
(:meth:`Runner.call`); the runner calls the function with exactly those arguments, keeps
the result (a second section asking for the same call gets it without a second run),
turns the function's warnings and refusals into the section's notes, and records the call
in the section's provenance from the same arguments: the Python call as it ran and the R
call with the same values. So the provenance cannot drift from the calls, and a rerun of
the listed calls gives the page's numbers.

The random stream: every call runs with the caller's stream put back afterwards, so a
report never moves it (functions that resample take the report's ``seed`` as their own
``seed=`` argument, R's ``set.seed(seed)`` before the call).
"""

import math
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import rng
from .._errors import CalstatsError
from .._progress import progress_bar
from ._inputs import Inputs
from ._page import Section, Settings, Source

__all__ = ["Arg", "Runner", "Context", "public_name", "python_value"]


class Arg:
    """An argument shown by name in a call's text (``p``, ``y``, ``w``), not by value."""

    def __init__(self, name: str, value: Any) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return self.name


def python_value(v: Any) -> str:
    """An argument's value as Python source (``0.9``, ``'resampling'``, ``[0.1, 0.2]``)."""
    if isinstance(v, Arg):
        return v.name
    if isinstance(v, (bool, np.bool_)):
        return repr(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.ndarray):
        return repr([python_value(x) for x in v.tolist()]).replace("'", "")
    return repr(v)


def public_name(fn: Callable[..., Any]) -> str:
    """The name a user calls ``fn`` by: ``calstats.corp``, ``calstats.clinical.pmcalibration``."""
    from .. import clinical

    name = fn.__name__
    top = sys.modules.get("calstats")
    if top is not None and name in getattr(top, "__all__", ()):
        return f"calstats.{name}"
    if name in getattr(clinical, "__all__", ()):
        return f"calstats.clinical.{name}"
    return f"{fn.__module__}.{name}"


def _first_line(x: Any) -> str:
    return (str(x).strip().splitlines() or [type(x).__name__])[0]


@dataclass
class _Done:
    result: Any
    notes: list[str]
    seconds: float


@dataclass
class Runner:
    """Calls the public functions once each (by function and model) and records them."""

    progress: bool | None = None
    done: dict[tuple[str, str], _Done] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # by section

    def call(self, sec: Section, fn: Callable[..., Any], *args: Any, model: str, what: str | None = None,
             r: Callable[[dict[str, Any]], str] | None = None, key: str | None = None, notes: str = "all",
             **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` for ``model`` (None-valued keyword arguments are not
        passed), once: the result, or None when the function refused the data.

        ``what`` names the numbers the call gives; with it the call goes into the section's
        provenance, written from these arguments (``Arg`` values by name) together with
        ``r(kwargs)``, the R call. ``notes``: ``"all"`` puts the function's warnings and
        refusal in the section's notes, ``"refusals"`` only a refusal (for a section that
        reads a number the warnings are not about), ``"none"`` nothing.
        """
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        cache = (key or fn.__name__, model)
        if cache not in self.done:
            self.done[cache] = self._run(fn, args, kwargs)
        done = self.done[cache]
        if notes != "none":
            who = "" if model == "*" else model
            for text in done.notes:
                if notes == "refusals" and not text.startswith("not computed"):
                    continue
                sec.note(f"{who}: {text}" if who else text)
        if what is not None and not any(s.what == what for s in sec.sources):
            sec.sources.append(Source(what, self.call_text(fn, args, kwargs), "" if r is None else r(kwargs)))
        return done.result

    @staticmethod
    def call_text(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        """The call as Python source, from the arguments it ran with."""
        parts = [python_value(a) for a in args] + [f"{k}={python_value(v)}" for k, v in kwargs.items()]
        return f"{public_name(fn)}({', '.join(parts)})"

    @staticmethod
    def _run(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Done:
        values = [a.value if isinstance(a, Arg) else a for a in args]
        kw = {k: v.value if isinstance(v, Arg) else v for k, v in kwargs.items()}
        notes: list[str] = []
        state = rng.get_state()
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = fn(*values, **kw)
            except (CalstatsError, np.linalg.LinAlgError) as exc:
                out = None
                notes.append(f"not computed: {_first_line(exc)}")
            finally:
                rng.set_state(state)
        for w in caught:
            text = _first_line(w.message)
            if text not in notes:
                notes.append(text)
        return _Done(out, notes, time.perf_counter() - t0)

    def results(self) -> dict[str, dict[str, Any]]:
        """The results by function (or key) and model."""
        out: dict[str, dict[str, Any]] = {}
        for (name, model), done in self.done.items():
            if done.result is not None:
                out.setdefault(name, {})[model] = done.result
        return out

    def bar(self, total: int) -> Any:
        """A progress bar over the sections (shown after two seconds in a terminal or notebook)."""
        return progress_bar(total, "calstats.report", self.progress)


@dataclass
class Context:
    """What every section module is given: the inputs, the settings, the runner, the
    models' names."""

    inp: Inputs
    settings: Settings
    run: Runner
    names: list[str]

    @property
    def binary(self) -> bool:
        return self.inp.kind == "binary"

    @property
    def multiclass(self) -> bool:
        return self.inp.kind == "multiclass"

    @property
    def survival(self) -> bool:
        return self.inp.kind == "survival"

    @property
    def competing(self) -> bool:
        return self.inp.kind == "competing"

    @property
    def timed(self) -> bool:
        """A time-to-event outcome, with or without competing risks."""
        return self.inp.kind in ("survival", "competing")

    @property
    def y(self) -> Arg:
        """The outcome as the calls take it: ``y`` (0/1 or class codes) or ``(time, status)``
        (``status`` the event codes of a competing-risk outcome)."""
        if self.timed:
            return Arg("(time, status)", self.inp.survival)
        return Arg("y", self.inp.y)

    @property
    def time(self) -> Arg:
        """The follow-up times, for the functions that take ``time`` and ``status`` apart."""
        return Arg("time", self.inp.times)

    @property
    def status(self) -> Arg:
        return Arg("status", self.inp.y)

    @property
    def cause(self) -> int | None:
        """The status code of the cause of interest (competing risks), else None."""
        return self.inp.cause_code if self.competing else None

    def risks(self, name: str) -> Arg:
        """A model's risks by every time of the report: ``P`` (n x k) with several times,
        else ``p``."""
        if self.inp.risks is not None:
            return Arg("P", self.inp.risks[name])
        return self.p(name)

    @property
    def weights(self) -> Arg | None:
        return None if self.inp.weights is None else Arg("w", self.inp.weights)

    def p(self, name: str) -> Arg:
        return Arg("p", self.inp.models[name])


def finite(v: Any) -> bool:
    return v is not None and math.isfinite(float(v))

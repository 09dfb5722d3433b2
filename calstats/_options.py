"""Options: display (R's ``probcal.emoji``, ``width``, ``cli.unicode``: the header glyph, the
console width, unicode or ASCII rules), ``threads``, the number of worker threads for
independent fits, and ``engine``, the default arithmetic of the functions that offer a fast
engine (``"r"``: R's numbers, bit for bit; ``"fast"``: the same optimum to 1e-8 relative).
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ._errors import OptionError
from ._messages import OPTION_ENGINE, OPTION_UNKNOWN

__all__ = ["get_option", "set_option", "option_context"]

#: ``threads``: worker threads for independent fits (lambda-search folds, CV folds);
#: ``None`` uses every core. Results never depend on it.
#: ``engine``: the default ``engine`` of the functions that take one.
_DEFAULTS = {"emoji": True, "width": 80, "unicode": True, "threads": None, "engine": "r"}
#: The values ``engine`` takes.
ENGINES = ("r", "fast")
_options = dict(_DEFAULTS)
_local = threading.local()


def _check_name(name):
    if not isinstance(name, str) or name not in _DEFAULTS:
        known = ", ".join(sorted(_DEFAULTS))
        raise OptionError(OPTION_UNKNOWN.format(name=name, known=known))


def get_option(name: str) -> Any:
    """Return the current value of an option (``"emoji"``, ``"width"``, ``"unicode"``, ``"threads"``)."""
    _check_name(name)
    return _options[name]


def _check_value(name, value):
    if name == "engine" and value not in ENGINES:
        raise OptionError(OPTION_ENGINE.format(engines=', '.join(map(repr, ENGINES)), value=value))


def set_option(name: str, value: Any) -> None:
    """Set an option; R equivalent: ``options(probcal.emoji = ...)`` and friends.

    ``engine`` (``"r"`` or ``"fast"``) is the default ``engine`` of the functions that offer
    one (``cal_temperature``, ``cal_vector_scaling`` and the metrics): ``"r"`` gives R's
    numbers bit for bit, ``"fast"`` vectorised arithmetic with the same optimum to 1e-8
    relative.
    """
    _check_name(name)
    _check_value(name, value)
    _options[name] = value


@contextmanager
def option_context(**options: Any) -> Iterator[None]:
    """Temporarily set display options, restoring the previous values on exit.

    Examples
    --------
    >>> import calstats
    >>> with calstats.option_context(emoji=False, width=40):
    ...     pass
    """
    for name, value in options.items():
        _check_name(name)
        _check_value(name, value)
    saved = {name: _options[name] for name in options}
    _options.update(options)
    try:
        yield
    finally:
        _options.update(saved)


#: Engines that an installation without their compiled module runs as R's (``"fast"`` without
#: ``calstats.numerics._fast``; set by :mod:`calstats.numerics.passes` at import).
_UNAVAILABLE: set[str] = set()


def drop_engine(engine):
    """Run ``engine`` as R's engine from now on (its compiled module is missing)."""
    _UNAVAILABLE.add(engine)


def resolve_engine(engine):
    """``engine`` of one call: its own value, or the ``engine`` option when None (the
    check of either, one message); ``"r"`` for an engine this installation lacks."""
    if engine is None:
        engine = _options["engine"]
    else:
        _check_value("engine", engine)
    return "r" if engine in _UNAVAILABLE else engine


def n_threads(n_tasks):
    """Worker threads to use for ``n_tasks`` independent tasks (the ``threads`` option)."""
    import os

    want = _options["threads"]
    if want is None:
        want = os.cpu_count() or 1
    return max(1, min(int(want), n_tasks))


def inner_threads():
    """Threads one compiled fit may use: 1 inside a :func:`map_tasks` worker (the pool
    already uses the cores), else the ``threads`` option, at most 2 (the core splits a fit
    in two)."""
    if getattr(_local, "in_worker", False):
        return 1
    return min(2, n_threads(2))


def map_tasks(fn, tasks, bar=None):
    """``[fn(t) for t in tasks]``, run on worker threads when there is more than one task.

    The compiled core and NumPy release the GIL, so fits of separate folds overlap. Each
    task computes exactly what it would alone; only the wall time changes. ``bar`` (a
    progress bar, :func:`calstats._progress.progress_bar`) advances as tasks finish.
    """
    tasks = list(tasks)
    workers = n_threads(len(tasks))
    # Inside a worker (e.g. a CV fold running a lambda search) stay sequential: nested
    # pools would only oversubscribe the cores.
    if workers <= 1 or getattr(_local, "in_worker", False):
        out = []
        for t in tasks:
            out.append(fn(t))
            if bar is not None:
                bar.update(1)
        return out
    from concurrent.futures import ThreadPoolExecutor

    def run(task):
        _local.in_worker = True
        try:
            return fn(task)
        finally:
            _local.in_worker = False

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, t) for t in tasks]
        for fut in futures:
            fut.result()
            if bar is not None:
                bar.update(1)
        return [fut.result() for fut in futures]

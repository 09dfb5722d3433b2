"""calstats on Dask: metrics, diagnostics, tests and calibrators for data beyond memory.

The public functions (:func:`calstats.ece`, :func:`calstats.brier_score`,
:func:`calstats.cal_spiegelhalter_test`, ...) accept Dask arrays and Dask DataFrames
where a statistic is a sum over rows: each block of rows is reduced to its sufficient
statistics (bin counts and sums), the blocks' statistics are merged exactly, and the
result is the in-memory one (see :mod:`calstats.dask._exact`). Nothing is loaded whole
into memory; statistics that need every pair of rows or one global order say so in an
error. Dask is the optional extra ``dask``: importing calstats never imports it.

How the front ends reach this package: each public function that accepts Dask inputs is
decorated with :func:`on_dask`, which names the function of this package that computes
its numbers (imported on the first Dask call, in the spirit of dask's
``Dispatch.register_lazy``). The functions here know blocks, not statistics: they return
counts, sums, a fitted GLM or a temperature, and the front end builds the result object
from them with the code it uses in memory. This package imports only the kernels, the
validators and the numerics below it.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["is_dask", "any_dask", "on_dask"]

_F = TypeVar("_F", bound=Callable[..., Any])


def is_dask(x: object) -> bool:
    """True for a Dask collection (array, DataFrame, Series); never imports Dask."""
    if "dask" not in sys.modules:  # no Dask collection can exist before dask is imported
        return False
    from dask.base import is_dask_collection

    return bool(is_dask_collection(x))


def any_dask(*xs: object) -> bool:
    """True if any argument is a Dask collection."""
    return any(is_dask(x) for x in xs)


def _implementation(name: str) -> Callable[..., Any]:
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)


def on_dask(impl: str | None = None, *, data: tuple[str, ...] = ("p", "y"), refuse: Callable[[], Any] | None = None,
            finish: Callable[..., Any] | None = None,
            rows: Callable[..., Any] | None = None) -> Callable[[_F], _F]:
    """Decorate a front-end function so that Dask inputs go to this package.

    The decorated function runs unchanged unless an argument named in ``data`` is a Dask
    collection (checked without importing Dask when no Dask collection can exist). Then,
    exactly one of:

    ``impl="module.function"``
        ``calstats.dask.<module>.<function>`` (imported then) is called with the
        arguments by name, defaults filled in; it returns numbers. With ``finish``, the
        call returns ``finish(numbers, **arguments)``, the result object built by the front
        end's own code; without, the numbers themselves (a metric's value).
    ``refuse=validator``
        The call fails with the one-line message of that validator of
        :mod:`calstats._validate` (``refuse_dask_*``: a statistic that needs every row in
        memory says why and what to use instead).
    ``rows=columns``
        For a calibrator's ``predict(self, newdata, **kwargs)``: ``columns(self, newdata)``
        runs the checks that can be made before any block is read and returns ``None``
        (one probability per row) or the class labels (one column each); then the
        undecorated method is mapped over the blocks of rows, lazily
        (:func:`calstats.dask._rows.map_rows`), a Dask array in, a Dask array out; a Dask
        Series/DataFrame in, the same kind out.
    """
    if sum(x is not None for x in (impl, refuse, rows)) != 1:
        from .._validate import fail_on_dask_arguments

        fail_on_dask_arguments()

    def decorate(fn: _F) -> _F:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if "dask" not in sys.modules:
                return fn(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:  # a call Python refuses: let the function give Python's own message
                return fn(*args, **kwargs)
            if not any_dask(*(bound.arguments.get(name) for name in data)):
                return fn(*args, **kwargs)
            if refuse is not None:
                refuse()
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            if rows is not None:
                from ._rows import map_rows

                self, newdata = arguments.pop("self"), arguments.pop("newdata")
                extra = arguments.pop("kwargs", {})
                columns = rows(self, newdata)
                return map_rows(lambda block: fn(self, block, **extra), newdata, columns)
            assert impl is not None
            numbers = _implementation(impl)(**arguments)
            return numbers if finish is None else finish(numbers, **arguments)

        return wrapper  # type: ignore[return-value]

    return decorate

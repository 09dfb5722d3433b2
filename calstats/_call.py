"""Recording R's matched call (``fit$call``) on every calibrator."""

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["records_call"]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def records_call(r_name: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a ``cal_*`` function so its result records ``call``.

    ``call`` is ``{"function": r_name, "args": {R name: value as passed}}`` holding only the
    arguments the caller supplied, in R's formal order, keyword extras after them, as R's
    ``match.call`` does. Python's ``lambda_`` is recorded as ``lambda``.
    """

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            result = fn(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs).arguments
            except TypeError:
                bound = {}
            supplied: dict[str, Any] = {}
            for name, value in bound.items():
                if sig.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                    supplied.update(value)
                else:
                    supplied["lambda" if name == "lambda_" else name] = value
            object.__setattr__(result, "call", {"function": r_name, "args": supplied})
            return result

        return wrapper

    return decorate

"""Recording R's matched call (``fit$call``) on every calibrator."""

import functools
import inspect

__all__ = ["records_call"]


def records_call(r_name):
    """Decorate a ``cal_*`` function so its result records ``call``.

    ``call`` is ``{"function": r_name, "args": {R name: value as passed}}`` holding only the
    arguments the caller supplied, in R's formal order, keyword extras after them, as R's
    ``match.call`` does (docs/spec/r-interface.md §0.4). Python's ``lambda_`` is recorded as ``lambda``.
    """

    def decorate(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            result = fn(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs).arguments
            except TypeError:
                bound = {}
            supplied = {}
            for name, value in bound.items():
                if sig.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                    supplied.update(value)
                else:
                    supplied["lambda" if name == "lambda_" else name] = value
            object.__setattr__(result, "call", {"function": r_name, "args": supplied})
            return result

        return wrapper

    return decorate

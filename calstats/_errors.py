"""Errors and warnings raised by calstats.

R signals a condition with a message; calstats raises :class:`CalstatsError` (a
``ValueError``) whose ``str()`` is R's ``conditionMessage()`` text, and warns with
:class:`CalstatsWarning` carrying R's warning text (r-interface.md §0.2).
"""

import warnings

__all__ = ["CalstatsError", "CalstatsWarning", "warn"]


class CalstatsError(ValueError):
    """An invalid call; the message is the R package's message, word for word."""


class CalstatsWarning(UserWarning):
    """A warning R would give for the same call (same text)."""


def warn(message, stacklevel=3):
    warnings.warn(message, CalstatsWarning, stacklevel=stacklevel)

"""Errors and warnings raised by calstats.

R signals a condition with a message; calstats raises :class:`CalstatsError` (a
``ValueError``) whose ``str()`` is R's ``conditionMessage()`` text, and warns with
:class:`CalstatsWarning` carrying R's warning text (r-interface.md §0.2).
"""

import os
import sys
import warnings

__all__ = ["CalstatsError", "CalstatsWarning", "warn"]


class CalstatsError(ValueError):
    """An invalid call; the message is the R package's message, word for word."""


class CalstatsWarning(UserWarning):
    """A warning R would give for the same call (same text)."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_stacklevel():
    """Stack level of the first frame outside calstats, so a warning points at the user's call."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def warn(message, stacklevel=None):
    """Warn with R's text as a :class:`CalstatsWarning`, attributed to the user's line."""
    warnings.warn(message, CalstatsWarning, stacklevel=stacklevel or _user_stacklevel())

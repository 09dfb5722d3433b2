"""Errors and warnings raised by calstats.

R signals a condition with a message; calstats raises :class:`CalstatsError` (a
``ValueError``) whose ``str()`` is R's ``conditionMessage()`` text, and warns with
:class:`CalstatsWarning` (a ``UserWarning``) carrying R's warning text.
"""

import os
import sys
import warnings
from typing import NoReturn

from ._messages import PYTHON_NOTES

__all__ = ["CalstatsError", "CalstatsWarning", "CommandError", "OptionError", "fail", "warn"]


class CalstatsError(ValueError):
    """An invalid call; the message is the R package's message, word for word.

    Where R's message is written for R's inputs (1-based class codes, factors, 0/1 labels),
    the Python way out is attached as an exception note (``add_note``; shown under the
    message in tracebacks, kept apart from ``str(err)``, which stays R's text).
    """

    def __init__(self, *args):
        super().__init__(*args)
        if args and isinstance(args[0], str):
            for pattern, note in PYTHON_NOTES:
                if pattern in args[0]:
                    self.add_note(note)
                    break


def fail(message: str) -> NoReturn:
    """Raise :class:`CalstatsError` with ``message`` (one line, without the exception being
    handled when it is raised: a user sees the message, not a chained traceback). Every layer
    raises through this; the messages themselves are written once, in :mod:`calstats._validate`
    (or the table it owns, :mod:`calstats._messages`)."""
    raise CalstatsError(message) from None


class OptionError(CalstatsError, KeyError):
    """An unknown option name (``get_option``, ``set_option``, ``option_context``): the
    library's own error, and a ``KeyError`` as a dictionary would raise."""

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class CommandError(Exception):
    """An error of the ``calstats`` command line, reported as one line, ``calstats: error:
    <message>``, that ends the command with exit status ``status`` (1: the data or the
    computation, 2: the usage). Raised by the command line's validators
    (:mod:`calstats._validate.cli`); ``calstats.cli`` knows it as ``CliError``."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


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

"""Display options, the analogue of R's ``probcal.emoji``, ``width`` and ``cli.unicode``.

Only printing reads them (r-interface.md §8.1).
"""

from contextlib import contextmanager

__all__ = ["get_option", "set_option", "option_context"]

_DEFAULTS = {"emoji": True, "width": 80, "unicode": True}
_options = dict(_DEFAULTS)


def _check_name(name):
    if name not in _DEFAULTS:
        known = ", ".join(sorted(_DEFAULTS))
        raise KeyError(f"unknown option {name!r}; known options: {known}")


def get_option(name):
    """Return the current value of a display option (``"emoji"``, ``"width"``, ``"unicode"``)."""
    _check_name(name)
    return _options[name]


def set_option(name, value):
    """Set a display option; R equivalent: ``options(probcal.emoji = ...)`` and friends."""
    _check_name(name)
    _options[name] = value


@contextmanager
def option_context(**options):
    """Temporarily set display options, restoring the previous values on exit.

    Examples
    --------
    >>> import calstats
    >>> with calstats.option_context(emoji=False, width=40):
    ...     pass
    """
    for name in options:
        _check_name(name)
    saved = {name: _options[name] for name in options}
    _options.update(options)
    try:
        yield
    finally:
        _options.update(saved)

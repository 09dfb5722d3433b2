"""Progress bars (tqdm) and repeated warnings shown once, for calls that run for seconds.

``progress=None`` (the default of every such call) shows a bar only where somebody can see
it, a terminal or a notebook, and only once the work has run for two seconds (tqdm's
``delay``), so quick calls and scripts writing to files stay quiet; ``True`` shows it at
once, ``False`` never. Results never depend on it.
"""

import functools
import re
import sys
import threading
import warnings
from contextlib import contextmanager

from ._errors import fail
from ._messages import PROGRESS_ARGUMENT

__all__ = ["progress_bar", "collapsed_warnings", "collapses_warnings", "check_progress"]

_AUTO_DELAY = 2.0


def check_progress(progress):
    if progress is None or isinstance(progress, bool):
        return progress
    fail(PROGRESS_ARGUMENT)


def _interactive():
    if "ipykernel" in sys.modules:
        return True
    stream = sys.stderr
    return bool(getattr(stream, "isatty", None) and stream.isatty())


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(total, desc, progress=None):
    """A tqdm bar over ``total`` steps (or a silent stand-in), usable as a context manager."""
    progress = check_progress(progress)
    if progress is False or (progress is None and not _interactive()):
        return _NoBar()
    return _tqdm()(total=total, desc=desc, delay=0.0 if progress else _AUTO_DELAY, leave=False, file=sys.stderr)


def _tqdm():
    """tqdm's notebook widget where Jupyter can show it (ipywidgets installed), else the
    text bar: tqdm.auto without ipywidgets would warn instead of showing progress."""
    if "ipykernel" in sys.modules:
        try:
            import ipywidgets  # noqa: F401
            from tqdm.auto import tqdm

            return tqdm
        except ImportError:
            pass
    from tqdm import tqdm

    return tqdm


_STATE = threading.local()

#: Numbers in a warning's text: messages that differ only in them are the same warning.
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


@contextmanager
def collapsed_warnings():
    """Record the warnings raised inside the block and re-issue each distinct one once, with
    the number of times it occurred (e.g. the same glm warning from every fold); warnings
    whose texts differ only in their numbers are one warning, shown by its first text and
    the count of the others. Nested blocks collapse once, in the outermost; the warnings
    are re-issued even when the block raises."""
    if getattr(_STATE, "depth", 0):
        yield
        return
    _STATE.depth = 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                _STATE.depth = 0
    finally:
        _STATE.depth = 0
        _reissue(caught)


def _kind(message):
    """What makes warnings the same: the text with its numbers masked, cut at the first
    number when a long enough text precedes it (a message that lists places, such as the
    stretches where a curve decreases, is one warning however many it lists)."""
    masked = _NUMBER.sub("#", message)
    cut = masked.find("#")
    return masked[:cut] if cut >= 24 else masked


def _reissue(caught):
    groups: dict = {}
    for w in caught:
        key = (w.category, _kind(str(w.message)))
        first, texts = groups.setdefault(key, (str(w.message), []))
        texts.append(str(w.message))
    level = _caller_level()
    for (category, _), (first, texts) in groups.items():
        count = len(texts)
        if count == 1:
            text = first
        elif all(t == first for t in texts):
            text = f"{first} (this warning occurred {count} times)"
        else:
            text = f"{first} (and {count - 1} more like it)"
        warnings.warn(text, category, stacklevel=level)


def collapses_warnings(fn):
    """Decorator: the warnings of a call collapsed by :func:`collapsed_warnings` (one per
    kind of warning, with a count)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with collapsed_warnings():
            return fn(*args, **kwargs)

    return wrapper


def _caller_level():
    """Stack level of the user's frame: past calstats' own frames and contextlib's."""
    import contextlib
    import os

    skip = (os.path.dirname(os.path.abspath(__file__)), os.path.abspath(contextlib.__file__))
    level, frame = 2, sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(skip):
        frame = frame.f_back
        level += 1
    return level

"""Progress bars (tqdm) and repeated warnings shown once, for calls that run for seconds.

``progress=None`` (the default of every such call) shows a bar only where somebody can see
it, a terminal or a notebook, and only once the work has run for two seconds (tqdm's
``delay``), so quick calls and scripts writing to files stay quiet; ``True`` shows it at
once, ``False`` never. Results never depend on it.
"""

import sys
import warnings
from contextlib import contextmanager

from ._errors import CalstatsError

__all__ = ["progress_bar", "collapsed_warnings", "check_progress"]

_AUTO_DELAY = 2.0


def check_progress(progress):
    if progress is None or isinstance(progress, bool):
        return progress
    raise CalstatsError("Argument `progress` must be `True`, `False` or `None`.")


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


@contextmanager
def collapsed_warnings():
    """Record the warnings raised inside the block and re-issue each distinct one once, with
    the number of times it occurred (e.g. the same glm warning from every fold)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = {}
    for w in caught:
        key = (w.category, str(w.message))
        seen[key] = seen.get(key, 0) + 1
    for (category, message), count in seen.items():
        text = message if count == 1 else f"{message} (this warning occurred {count} times)"
        warnings.warn(text, category, stacklevel=_caller_level())


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

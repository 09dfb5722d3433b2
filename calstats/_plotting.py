"""matplotlib, imported on first use with one message when it is missing (it is an optional
extra: ``pip install 'calstats[plot]'``)."""

from typing import Any

from ._messages import NEEDS_MATPLOTLIB

__all__ = ["pyplot"]


def pyplot(what: str) -> Any:
    """``matplotlib.pyplot``; without matplotlib, an ImportError saying that ``what`` (e.g.
    ``"CorpDiagram.plot()"``) needs it and how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(NEEDS_MATPLOTLIB.format(what=what)) from exc
    return plt

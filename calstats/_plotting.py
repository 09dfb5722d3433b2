"""matplotlib, imported on first use with one message when it is missing (it is an optional
extra: ``pip install 'calstats[plot]'``)."""

from typing import Any

__all__ = ["pyplot"]


def pyplot(what: str) -> Any:
    """``matplotlib.pyplot``; without matplotlib, an ImportError saying that ``what`` (e.g.
    ``"CorpDiagram.plot()"``) needs it and how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(f"{what} needs matplotlib: pip install 'calstats[plot]' (or pip install matplotlib)") from exc
    return plt

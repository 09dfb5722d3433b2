"""calstats: calibrating the probabilities of classifiers.

An R-exact port of the R package probcal (same function names, arguments, defaults,
messages and numbers) plus the methods of the research behind it.
"""

from ._errors import CalstatsError, CalstatsWarning
from ._factor import Factor
from ._options import get_option, option_context, set_option
from ._results import Calibrator, CalibratorSummary, predict, summary
from .dirichlet import CalDirichlet, cal_dirichlet

__version__ = "0.1.0"

__all__ = [
    "CalstatsError",
    "CalstatsWarning",
    "Factor",
    "get_option",
    "set_option",
    "option_context",
    "Calibrator",
    "CalibratorSummary",
    "predict",
    "summary",
    "cal_dirichlet",
    "CalDirichlet",
]


def __getattr__(name):
    # `calstats.rng` is a public module; import it lazily so `import calstats` stays light.
    if name == "rng":
        import importlib

        return importlib.import_module(".rng", __name__)
    raise AttributeError(f"module 'calstats' has no attribute {name!r}")

"""Argument checks shared by every calstats function, in R's order and with R's messages.

Every message the library's functions raise or warn is written here (or in the table of
:mod:`._messages` this module owns), once, and so are the command line's (``cli``: they raise
:class:`~calstats._errors.CommandError` with the command's exit status) and the scikit-learn
adapter's (``adapter``: the builtin exceptions scikit-learn's conventions ask for). probcal's shared checks keep their R helper's
name (such as ``check_binary_y``, named in the docstring) and raise
:class:`~calstats.CalstatsError` with probcal's message (the text of R's
``conditionMessage()``), so a Python user sees exactly what an R user would; the checks of
the functions that follow other R packages (rms, survival, CalibrationCurves, dcurves ...)
give their package's message where it has one. The validators live in one module per topic
(``core``: R's classification of a vector and the messages several checks share;
``vectors``, ``matrices``, ``options`` (``match.arg``), ``survival``, ``numbers``, ``weights``,
``readers``; then one module per family of front ends: ``logistic``, ``valprob``, ``pmcal``,
``decision``, ``calibrators``, ``measures``, ``report``, ``formula``; the interfaces' ``cli`` and
``adapter``); every public name of
theirs is read here as ``calstats._validate.name``, and a test checks that no name is
defined in two of them. Inputs are classified the way R's ``is.numeric``/``is.logical``/``is.factor``
would see them: only integer and floating dtypes are numeric; booleans are logical;
categoricals are factors.

Validators never modify their inputs; they return new arrays, except that callers which
only read the result may ask for the input itself (``copy=False``).
"""

from .adapter import *  # noqa: F403
from .calibrators import *  # noqa: F403
from .cli import *  # noqa: F403
from .core import *  # noqa: F403
from .decision import *  # noqa: F403
from .formula import *  # noqa: F403
from .logistic import *  # noqa: F403
from .matrices import *  # noqa: F403
from .measures import *  # noqa: F403
from .numbers import *  # noqa: F403
from .options import *  # noqa: F403
from .pmcal import *  # noqa: F403
from .readers import *  # noqa: F403
from .report import *  # noqa: F403
from .survival import *  # noqa: F403
from .valprob import *  # noqa: F403
from .vectors import *  # noqa: F403
from .weights import *  # noqa: F403

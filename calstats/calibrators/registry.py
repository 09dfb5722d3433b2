"""The calibration methods, each written once: its name, aliases, capabilities and function.

Every front end that offers a choice of calibration method reads it here:
:func:`calstats.cal_compare`, :func:`calstats.cal_cv`, :func:`calstats.cal_ovr`, the
``calstats`` command, the scikit-learn adapter (:mod:`calstats.sklearn`) and the formula
API (:mod:`calstats.formula.api`). Nothing here computes: a :class:`Method` says what a
method is, and :meth:`Method.function` returns the calstats function that fits it.

The methods, in the order of :data:`METHODS` (the scikit-learn adapter's order: those for
any number of classes, those for two classes only, then calstats' own):

=========== ================== ====== ========== ============= ======= ====
name        function           binary multiclass fitted on     weights Dask
=========== ================== ====== ========== ============= ======= ====
dirichlet   cal_dirichlet      no     yes        probabilities yes     no
temperature cal_temperature    yes    yes        logits        yes     yes
vector      cal_vector_scaling no     yes        logits        yes     no
ovr         cal_ovr            no     yes        scores        yes     no
platt       cal_platt          yes    no         scores        yes     yes
beta        cal_beta           yes    no         probabilities yes     no
isotonic    cal_isotonic       yes    no         probabilities yes     no
histogram   cal_histogram      yes    no         probabilities yes     no
venn_abers  cal_venn_abers     yes    yes        probabilities yes     no
spline      cal_spline         yes    yes        probabilities yes     no
=========== ================== ====== ========== ============= ======= ====

R's probcal has the first eight as the choices of ``cal_cv(method=)``, and its binary ones as
those of ``cal_ovr(method=)``, each function in its own order; those orders are R's
``match.arg`` choices and messages, kept as each method's positions :attr:`Method.cal_cv` and
:attr:`Method.cal_ovr`. A front end lists R's methods in R's order, then calstats' own.
"""

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .. import _validate as v

__all__ = ["Method", "METHODS", "ALIASES", "CAL_CV", "CAL_OVR", "BINARY", "MULTICLASS", "DEFAULT_BINARY",
           "DEFAULT_MULTICLASS", "method", "names", "canonical", "resolve"]

_TAKES = ("probabilities", "logits", "scores")


@dataclass(frozen=True)
class Method:
    """One calibration method.

    Attributes
    ----------
    name : str
        The name every front end takes (``method="platt"``).
    function_name : str
        The calstats function that fits it (``"cal_platt"``), in ``calstats.calibrators.<module>``.
    module : str
    title : str
        What it is, in words (``"Platt scaling"``).
    binary, multiclass : bool
        Whether it calibrates a vector of binary scores, and a matrix with a column per class.
    takes : {"probabilities", "logits", "scores"}
        What it is fitted on: probabilities, logits (log-probabilities up to a constant per
        row), or any real scores (probabilities included).
    from_probabilities : {"probabilities", "logits"}
        What a front end that holds probabilities gives it (a method taking scores: Platt
        scaling the logits, as Platt fitted a sigmoid of a margin; one-vs-rest the
        probabilities).
    weights : bool
        Whether it takes case weights (``weights=``).
    dask : bool
        Whether it fits Dask arrays block by block.
    dots : bool
        Whether :func:`calstats.cal_cv` and :func:`calstats.cal_ovr` pass R's ``...`` to it
        (probcal passes them to beta, histogram, dirichlet and ovr and drops them for the rest).
    quiet : bool
        Whether its fits never warn, so that :func:`calstats.cal_cv` may fit the folds on
        worker threads (warnings from threads would arrive in no fixed order).
    top_label : bool
        Whether :func:`calstats.cal_top_label` can fit it per predicted class.
    cal_cv, cal_ovr : int or None
        Its position among the choices of probcal's ``cal_cv(method=)`` and
        ``cal_ovr(method=)`` (None: not offered there; ``cal_cv is None`` means not R's).
    aliases : tuple of str
        Other names accepted for it (scikit-learn's ``"sigmoid"`` for ``"platt"``).
    """

    name: str
    function_name: str
    module: str
    title: str
    binary: bool
    multiclass: bool
    takes: str
    from_probabilities: str
    weights: bool = True
    dask: bool = False
    dots: bool = False
    quiet: bool = False
    top_label: bool = False
    cal_cv: int | None = None
    cal_ovr: int | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        assert self.takes in _TAKES and self.from_probabilities in _TAKES[:2]

    @property
    def r(self) -> bool:
        """Whether R's probcal has it (as a method of ``cal_cv``)."""
        return self.cal_cv is not None

    @property
    def binary_only(self) -> bool:
        return self.binary and not self.multiclass

    @property
    def matrix_only(self) -> bool:
        """Fitted on a matrix with a column per class even when there are two classes."""
        return self.multiclass and not self.binary

    @property
    def input_text(self) -> str:
        """What it is fitted on, as a fit's ``input`` field says it (``"logits"``)."""
        return "scores or probabilities" if self.takes == "scores" else self.takes

    def function(self) -> Callable[..., Any]:
        """The calstats function that fits it (imported on first use, as calstats imports
        its modules)."""
        mod = importlib.import_module(f"{__package__}.{self.module}")
        return getattr(mod, self.function_name)


#: Every method by name, in the order described above.
METHODS: dict[str, Method] = {m.name: m for m in (
    Method("dirichlet", "cal_dirichlet", "dirichlet", "Dirichlet calibration", False, True, "probabilities",
           "probabilities", dots=True, quiet=True, cal_cv=6),
    Method("temperature", "cal_temperature", "scaling", "temperature scaling", True, True, "logits", "logits",
           dask=True, quiet=True, cal_cv=1, cal_ovr=4, aliases=("temperature_scaling",)),
    Method("vector", "cal_vector_scaling", "scaling", "vector scaling", False, True, "logits", "logits",
           quiet=True, cal_cv=5, aliases=("vector_scaling",)),
    Method("ovr", "cal_ovr", "ovr", "one-vs-rest calibration", False, True, "scores", "probabilities", dots=True,
           cal_cv=7, aliases=("one_vs_rest",)),
    Method("platt", "cal_platt", "logistic", "Platt scaling", True, False, "scores", "logits", dask=True,
           top_label=True, cal_cv=0, cal_ovr=0, aliases=("sigmoid",)),
    Method("beta", "cal_beta", "logistic", "beta calibration", True, False, "probabilities", "probabilities",
           dots=True, cal_cv=2, cal_ovr=1),
    Method("isotonic", "cal_isotonic", "binning", "isotonic regression", True, False, "probabilities",
           "probabilities", top_label=True, cal_cv=3, cal_ovr=2),
    Method("histogram", "cal_histogram", "binning", "histogram binning", True, False, "probabilities",
           "probabilities", dots=True, top_label=True, cal_cv=4, cal_ovr=3),
    Method("venn_abers", "cal_venn_abers", "venn_abers", "Venn-Abers calibration", True, True, "probabilities",
           "probabilities", aliases=("venn-abers",)),
    Method("spline", "cal_spline", "spline", "spline calibration", True, True, "probabilities", "probabilities"),
)}

#: Other names -> the method's name.
ALIASES: dict[str, str] = {a: m.name for m in METHODS.values() for a in m.aliases}


def names(methods: Iterable[Method]) -> tuple[str, ...]:
    """The names of ``methods``."""
    return tuple(m.name for m in methods)


def _ordered(where: str) -> tuple[str, ...]:
    offered = [m for m in METHODS.values() if getattr(m, where) is not None]
    return names(sorted(offered, key=lambda m: getattr(m, where)))


#: probcal's ``cal_cv(method=)`` choices, in R's order.
CAL_CV = _ordered("cal_cv")
#: probcal's ``cal_ovr(method=)`` choices (its binary calibrators), in R's order.
CAL_OVR = _ordered("cal_ovr")
#: The default methods of a comparison: R's binary methods (``cal_ovr``'s order) and R's
#: multiclass methods (``cal_cv``'s order).
DEFAULT_BINARY = tuple(n for n in CAL_OVR if METHODS[n].binary)
DEFAULT_MULTICLASS = tuple(n for n in CAL_CV if METHODS[n].multiclass)
#: Every method for binary scores and for a matrix of classes: R's (as above), then calstats' own.
BINARY = DEFAULT_BINARY + names(m for m in METHODS.values() if m.binary and not m.r)
MULTICLASS = DEFAULT_MULTICLASS + names(m for m in METHODS.values() if m.multiclass and not m.r)


def method(name: str) -> Method:
    """The method ``name`` (or an alias of it)."""
    return METHODS[ALIASES.get(name, name)]


def canonical(name: Any) -> Any:
    """``name`` with an alias replaced by the method's name (anything else unchanged)."""
    return ALIASES.get(name, name) if isinstance(name, str) else name


def resolve(value: Any, choices: Iterable[str]) -> str:
    """The method among ``choices`` that ``value`` names: an alias of one of them, or R's
    ``match.arg`` (exact or unique partial match, ``None`` the first; R's message otherwise)."""
    choices = tuple(choices)
    name = canonical(value)
    if isinstance(name, str) and name != value and name in choices:
        return name
    return v.match_arg(value, choices)

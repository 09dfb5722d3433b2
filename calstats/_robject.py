"""The common base of every object that mirrors an R list (calibrators, fits, test results).

R code reads fields as ``fit$name``; Python code reads ``fit.name``. Both spellings work
here: ``obj["name"]`` takes the R name (``"lambda"``, ``"fitted.values"``) and ``obj.names()``
lists the R names in R's order. An object is built in one call with every field, as R's
constructors (probcal's ``new_calibrator``) build the list in one ``structure()`` call.
"""

from typing import Any

from ._messages import ROBJECT_FIELDS

__all__ = ["RObject", "py_name"]


def py_name(r_name):
    """The Python attribute that holds the R field ``r_name``."""
    if r_name == "lambda":
        return "lambda_"
    return r_name.replace(".", "_")


class RObject:
    """Fields under their R names, in R's order.

    Subclasses set ``_r_fields`` (R names, in order); the constructor takes every one of them
    by its Python spelling (see :func:`py_name`), plus any of the attributes the class and
    its bases list in ``_extras`` (values that are not R fields, such as a fit's optimiser
    trace). A missing R field or an unknown name is a ``TypeError``.
    """

    _r_fields: tuple[str, ...] = ()
    #: R names whose Python attribute is not given by :func:`py_name` (e.g. ``iKnots``).
    _aliases: dict[str, str] = {}
    #: Attributes that are not R fields and that the constructor may set.
    _extras: tuple[str, ...] = ()

    def __init__(self, **values: Any) -> None:
        self._set_fields(**values)

    def _attr(self, r_name):
        return self._aliases.get(r_name) or py_name(r_name)

    def names(self) -> list[str]:
        """R ``names(obj)``: the field names in R's order."""
        return list(self._r_fields)

    def __getitem__(self, name):
        if name not in self._r_fields:
            raise KeyError(name)
        return getattr(self, self._attr(name))

    def __contains__(self, name):
        return name in self._r_fields

    @classmethod
    def _extra_names(cls):
        return {name for klass in cls.__mro__ for name in klass.__dict__.get("_extras", ())}

    def _set_fields(self, **values):
        """Assign every R field (and any extras) from keyword arguments given by Python name."""
        expected = {self._attr(n) for n in self._r_fields}
        missing = expected - set(values)
        extra = set(values) - expected - self._extra_names()
        if missing or extra:
            raise TypeError(ROBJECT_FIELDS.format(cls=type(self).__name__, missing=sorted(missing), extra=sorted(extra)))
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def _replace(self, **changes: Any) -> "RObject":
        """A new object of the same class with some fields or extras changed (the one
        constructor, as ``dataclasses.replace``)."""
        values = {self._attr(n): getattr(self, self._attr(n)) for n in self._r_fields}
        values.update({e: self.__dict__[e] for e in self._extra_names() if e in self.__dict__})
        values.update(changes)
        return type(self)(**values)

"""The common base of every object that mirrors an R list (calibrators, fit records).

R code reads fields as ``fit$name``; Python code reads ``fit.name``. Both spellings work
here: ``obj["name"]`` takes the R name (``"lambda"``, ``"fitted.values"``) and ``obj.names()``
lists the R names in R's order (docs/spec/r-interface.md §0.4).
"""

__all__ = ["RObject", "py_name"]


def py_name(r_name):
    """The Python attribute that holds the R field ``r_name``."""
    if r_name == "lambda":
        return "lambda_"
    return r_name.replace(".", "_")


class RObject:
    """Fields under their R names, in R's order.

    Subclasses set ``_r_fields`` (R names, in order) and assign the attributes (Python
    spellings, see :func:`py_name`) in ``__init__``.
    """

    _r_fields: tuple[str, ...] = ()
    #: R names whose Python attribute is not given by :func:`py_name` (e.g. ``iKnots``).
    _aliases: dict[str, str] = {}

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

    def _set_fields(self, **values):
        """Assign every R field from keyword arguments given by Python name."""
        expected = {self._attr(n) for n in self._r_fields}
        missing = expected - set(values)
        extra = set(values) - expected
        if missing or extra:
            raise TypeError(f"{type(self).__name__}: missing {sorted(missing)}, unexpected {sorted(extra)}")
        for key, value in values.items():
            object.__setattr__(self, key, value)

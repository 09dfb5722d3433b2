"""Formula interface to calstats (in the spirit of ``statsmodels.formula``).

Use it as ``import calstats.formula.api as cf``; see :mod:`calstats.formula.api`.
"""

__all__ = ["api"]


def __getattr__(name):
    if name == "api":
        import importlib

        return importlib.import_module(".api", __name__)
    from .._validate import fail_no_attribute

    fail_no_attribute(__name__, name)

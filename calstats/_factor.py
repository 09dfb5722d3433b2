"""``Factor``: R's factor for users who do not hold a ``pandas.Categorical``."""

import numpy as np
import pandas as pd

from ._messages import FACTOR_LEVELS_DISTINCT

__all__ = ["Factor"]


class Factor:
    """A minimal R factor: values and an ordered set of levels.

    Parameters
    ----------
    values : sequence
        The observed labels. Values not among ``levels`` are missing (R's ``NA``).
    levels : sequence of str, optional
        The level order; column k of a probability matrix belongs to ``levels[k]``.
        Defaults to the sorted distinct values. Note that R's ``factor()`` sorts strings
        with the locale's collation (``"a" < "B"`` in en_US, not in C); pass ``levels``
        explicitly when porting R code. Unused levels are kept, as in R.

    Notes
    -----
    R equivalent: ``factor(values, levels = levels)``. A ``pandas.Categorical`` (or a
    Series of category dtype) is accepted everywhere a ``Factor`` is.
    """

    def __init__(self, values, levels=None):
        vals = [None if _is_missing(v) else str(v) for v in list(values)]
        if levels is None:
            levels = sorted({v for v in vals if v is not None})
        self.levels = [str(lv) for lv in levels]
        if len(set(self.levels)) != len(self.levels):
            raise ValueError(FACTOR_LEVELS_DISTINCT)
        pos = {lv: i + 1 for i, lv in enumerate(self.levels)}
        self.codes = np.array([pos.get(v, 0) if v is not None else 0 for v in vals], dtype=np.int64)
        self.values = vals

    def __len__(self):
        return len(self.codes)

    def to_categorical(self) -> pd.Categorical:
        """The same factor as a ``pandas.Categorical``."""
        return pd.Categorical.from_codes(self.codes - 1, categories=self.levels)

    def __repr__(self):
        shown = " ".join("<NA>" if c == 0 else self.levels[c - 1] for c in self.codes[:20])
        more = " ..." if len(self.codes) > 20 else ""
        return f"Factor: {shown}{more}\nLevels: {' '.join(self.levels)}"


def _is_missing(v):
    if v is None or v is pd.NA:
        return True
    try:
        return bool(np.isnan(v))
    except (TypeError, ValueError):
        return False

"""What several sections share: weighted means of the data, the rows a function leaves
out, and the sections that take no case weights."""

from typing import Any

import numpy as np

from ...numerics.reductions import rmean, rsum
from .._page import Section
from .._runner import Context

__all__ = ["wmean", "unweighted_only", "at_zero_or_one", "left_out_flag"]


def wmean(v: np.ndarray, w: np.ndarray | None) -> float:
    """R's ``mean(v)`` (or ``weighted.mean(v, w)``)."""
    if w is None:
        return float(rmean(v))
    return float(rsum(w * v) / rsum(w))


def unweighted_only(sec: Section, ctx: Context, what: str) -> bool:
    """With case weights, a section whose function takes none is left out, saying so."""
    if ctx.inp.weights is None:
        return False
    sec.note(f"Left out: {what} takes no case weights, and weighted rows would be counted as equal here.")
    return True


def at_zero_or_one(p: Any) -> int:
    """How many predicted risks are exactly 0 or 1 (their logit is infinite)."""
    p = np.asarray(p)
    return int(np.count_nonzero((p <= 0) | (p >= 1)))


def left_out_flag(ctx: Context, name: str) -> list[str]:
    """The flag of a statistic computed without the rows whose risk is exactly 0 or 1."""
    k = at_zero_or_one(ctx.inp.models[name])
    if k == 0:
        return []
    return [f"{k} of {ctx.inp.n} rows left out (risk exactly 0 or 1)"]

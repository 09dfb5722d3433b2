"""An in-memory function of rows mapped over the blocks of a Dask collection, lazily.

Prediction is row by row, so a calibrator predicts a Dask array or DataFrame by calling its
in-memory ``predict`` on each block (the same checks, messages and numbers). Nothing is
computed until the caller computes the result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v

__all__ = ["map_rows"]


def _length(block):
    return block.shape[0] if hasattr(block, "shape") else len(block)


def _vector_array(block, fn):
    if _length(block) == 0:
        return np.zeros(0)
    return np.asarray(fn(block), dtype=np.float64)


def _vector_frame(block, fn):
    if _length(block) == 0:
        return pd.Series(np.zeros(0), index=block.index, dtype=np.float64)
    return pd.Series(np.asarray(fn(block), dtype=np.float64), index=block.index)


def _matrix_array(block, fn, k):
    if _length(block) == 0:
        return np.zeros((0, k))
    return np.asarray(fn(block), dtype=np.float64)


def _matrix_frame(block, fn, columns):
    if _length(block) == 0:
        return pd.DataFrame(np.zeros((0, len(columns))), columns=list(columns), index=block.index)
    out = fn(block)
    return out if isinstance(out, pd.DataFrame) else pd.DataFrame(out, columns=list(columns), index=block.index)


def map_rows(fn: Callable[[Any], Any], newdata: Any, columns: Sequence[Any] | None) -> Any:
    """``fn`` applied to every block of rows of ``newdata``, as a lazy Dask collection.

    ``columns`` None: ``fn`` gives one number per row (a 1-D Dask array, or a Dask Series
    with the partitions' index); a one-column input is read as a vector. Otherwise ``fn``
    gives one column per entry of ``columns`` (a 2-D Dask array, or a Dask DataFrame with
    those column names). Empty blocks give empty output without calling ``fn``.
    """
    import dask.array as da
    import dask.dataframe as dd

    frame = isinstance(newdata, (dd.DataFrame, dd.Series))
    if columns is None:
        if frame:
            if isinstance(newdata, dd.DataFrame) and len(newdata.columns) == 1:
                newdata = newdata.iloc[:, 0]
            return newdata.map_partitions(_vector_frame, fn, meta=pd.Series(dtype=np.float64))
        if newdata.ndim == 2:
            if newdata.shape[1] != 1:
                v.fail_not_numeric_vector("newdata")
            newdata = newdata[:, 0]
        return da.map_blocks(_vector_array, newdata, fn, dtype=np.float64)
    if frame:
        meta = pd.DataFrame({c: pd.Series(dtype=np.float64) for c in columns})
        return newdata.map_partitions(_matrix_frame, fn, list(columns), meta=meta)
    arr = newdata.rechunk({1: -1})
    return arr.map_blocks(_matrix_array, fn, len(columns), dtype=np.float64, chunks=(arr.chunks[0], (len(columns),)))

"""calstats on Dask: metrics, diagnostics, tests and calibrators for data beyond memory.

The public functions (:func:`calstats.ece`, :func:`calstats.brier_score`,
:func:`calstats.cal_spiegelhalter_test`, ...) accept Dask arrays and Dask DataFrames
where a statistic is a sum over rows: each block of rows is reduced to its sufficient
statistics (bin counts and sums), the blocks' statistics are merged exactly, and the
result is the in-memory one (see :mod:`calstats.dask._exact`). Nothing is loaded whole
into memory; statistics that need every pair of rows or one global order say so in an
error. Dask is the optional extra ``dask``: importing calstats never imports it.
"""

import sys

__all__ = ["is_dask", "any_dask"]


def is_dask(x: object) -> bool:
    """True for a Dask collection (array, DataFrame, Series); never imports Dask."""
    if "dask" not in sys.modules:  # no Dask collection can exist before dask is imported
        return False
    from dask.base import is_dask_collection

    return bool(is_dask_collection(x))


def any_dask(*xs) -> bool:
    """True if any argument is a Dask collection."""
    return any(is_dask(x) for x in xs)

"""calstats.dask.on_dask: the one way front ends reach the Dask implementations."""

import numpy as np
import pytest

import calstats
from calstats.dask import on_dask

da = pytest.importorskip("dask.array")


def _never():
    """A refusal validator (the package's are ``calstats._validate.refuse_dask_*``)."""
    calstats._errors.fail("never on Dask")


def test_exactly_one_mode():
    with pytest.raises(TypeError, match="exactly one of impl, refuse, rows"):
        on_dask()
    with pytest.raises(TypeError, match="exactly one of impl, refuse, rows"):
        on_dask("_metrics.brier_score", refuse=_never)


def test_in_memory_calls_run_the_function_and_python_refuses_bad_calls():
    seen = []

    @on_dask(refuse=_never)
    def f(p, y, bins=10):
        seen.append((p, y, bins))
        return bins

    assert f(1, 2) == 10 and f(1, y=2, bins=3) == 3 and seen == [(1, 2, 10), (1, 2, 3)]
    with pytest.raises(TypeError, match=r"f\(\) missing 1 required positional argument: 'y'"):
        f(1)
    with pytest.raises(calstats.CalstatsError, match="^never on Dask$"):
        f(da.zeros(3), 2)
    with pytest.raises(calstats.CalstatsError, match="^never on Dask$"):
        f(1, y=da.zeros(3))


def test_the_implementation_gets_the_arguments_by_name_and_finish_builds_the_result():
    @on_dask("_metrics.brier_score", finish=lambda value, p, y, weights: ("finished", round(value, 12), weights))
    def brier(p, y, *, weights=None):
        raise AssertionError("the in-memory path must not run for Dask inputs")

    p = np.array([0.1, 0.8, 0.6, 0.3])
    y = np.array([0, 1, 1, 0])
    got = brier(da.from_array(p, chunks=2), da.from_array(y, chunks=2))
    assert got == ("finished", round(calstats.brier_score(p, y), 12), None)

"""calstats.numerics.blas: BLAS thread limits sized to the problem."""

import numpy as np
from threadpoolctl import threadpool_info

from calstats.numerics import blas


def _blas_threads():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_limit_sets_one_thread_and_restores():
    before = _blas_threads()
    with blas.limit(1):
        inside = _blas_threads()
        assert inside and set(inside.values()) == {1}
        with blas.limit(1):  # nested
            assert set(_blas_threads().values()) == {1}
        assert set(_blas_threads().values()) == {1}
    assert _blas_threads() == before


def test_controller_is_made_once():
    with blas.limit(1):
        pass
    first = blas._get_controller()
    with blas.for_size(1.0):
        pass
    assert blas._get_controller() is first


def test_for_size_by_work():
    before = _blas_threads()
    with blas.for_size(blas.SMALL_WORK / 2):
        assert set(_blas_threads().values()) == {1}
    with blas.for_size(blas.SMALL_WORK * 2):
        assert _blas_threads() == before


def test_small_problems_same_bits():
    rs = np.random.default_rng(5)
    a = rs.standard_normal((2000, 10))
    b = rs.standard_normal(2000)
    r2 = np.linalg.qr(a)[1], np.linalg.lstsq(a, b, rcond=None)[0], a.T @ a, a.T @ b
    with blas.limit(1):
        r1 = np.linalg.qr(a)[1], np.linalg.lstsq(a, b, rcond=None)[0], a.T @ a, a.T @ b
    for u, v in zip(r1, r2):
        np.testing.assert_array_equal(u, v)

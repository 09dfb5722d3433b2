"""Fuzzing the public API (issue 12): every call returns a well-formed result or raises
calstats' own error. A few hundred random calls in CI; ``scripts/fuzz.py --minutes 10``
runs the same harness for as long as asked."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from _fuzz import check_call, random_call


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1))
def test_every_call_is_well_formed_or_a_calstats_error(seed):
    name, fn, args, kwargs = random_call(np.random.default_rng(seed))
    finding = check_call(name, fn, args, kwargs)
    assert finding is None, finding


def test_harness_catches_a_raw_exception_and_a_mutation():
    def raw(x, y):
        raise IndexError("boom")

    def mutating(x, y):
        x[0] = 99.0
        return 0.0

    assert "IndexError" in check_call("raw", raw, [np.zeros(2), np.zeros(2)], {})
    assert "modified" in check_call("mutating", mutating, [np.zeros(2), np.zeros(2)], {})
    assert check_call("fine", lambda x, y: 0.5, [np.zeros(2), np.zeros(2)], {}) is None

"""A brief fuzz of the public API and the command line in CI, with fixed seeds: every call
returns a well-formed result or raises calstats' own error in one line (the contract of
tests/_fuzz.py, which ``scripts/fuzz.py --minutes 10`` runs for as long as asked)."""

import numpy as np
import pytest

import calstats
from _fuzz import check_call, public_functions, random_call, run_commands

#: Seeds of the brief run: a few hundred calls, about half a minute on two busy cores.
CHUNKS, PER_CHUNK = 10, 60


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_call_is_well_formed_or_one_line_of_calstats_error(chunk):
    findings = []
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        name, fn, args, kwargs = random_call(np.random.default_rng(seed))
        finding = check_call(name, fn, args, kwargs)
        if finding:
            findings.append(f"seed {seed}: {finding}")
    assert not findings, "\n".join(findings)


def test_commands_exit_cleanly():
    found = run_commands(np.random.default_rng(20261128), 12)
    assert not found, "\n".join(f"{' '.join(map(str, argv))}: {finding}" for argv, finding in found)


def test_every_public_function_is_fuzzed():
    names = set(public_functions())
    assert {"pmcalibration", "cal_metrics", "logistic_cal", "val_prob", "val_prob_ci", "val_multinomial",
            "hoslem_test", "decision_curve", "report", "corp", "smece", "ece", "cal_dirichlet"} <= names
    assert not {n for n in names if not callable(getattr(calstats, n, None)) and n not in calstats.clinical.__all__}


def test_harness_catches_a_raw_exception_a_mutation_a_nan_and_a_slow_call():
    def raw(x, y):
        raise IndexError("boom")

    def mutating(x, y):
        x[0] = 99.0
        return 0.0

    def two_lines(x, y):
        raise calstats.CalstatsError("first line\nsecond line")

    def slow(x, y):
        while True:
            pass

    assert "IndexError" in check_call("raw", raw, [np.zeros(2), np.zeros(2)], {})
    assert "modified" in check_call("mutating", mutating, [np.zeros(2), np.zeros(2)], {})
    assert "not one line" in check_call("two_lines", two_lines, [np.zeros(2), np.zeros(2)], {})
    assert "outside [0, 1]" in check_call("ece", lambda x, y: float("nan"), [np.zeros(2), np.zeros(2)], {})
    assert "s of CPU" in check_call("slow", slow, [np.zeros(2), np.zeros(2)], {}, slow=0.5)
    assert check_call("fine", lambda x, y: 0.5, [np.zeros(2), np.zeros(2)], {}) is None

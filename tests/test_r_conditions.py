"""Every R error (errors.json) and every printed text (printing.json), replayed.

One module for all functions: R's message for each invalid call, and R's exact print and
summary text, are the contract (r-interface.md §0.2, §8).
"""

import warnings

import pytest

import calstats
from _rcases import assert_fields, assert_r_equal, case_ids, load_cases, run_call

ERRORS = load_cases("errors")
PRINTS = load_cases("printing")


@pytest.mark.parametrize("case", ERRORS, ids=case_ids(ERRORS))
def test_error_message(case):
    with pytest.raises(calstats.CalstatsError) as err:
        run_call(case, calstats)
    assert str(err.value) == case["outputs"]["error"].replace("\n", " ")


def _options(case):
    o = case["outputs"]["options"]
    return {"emoji": o.get("probcal.emoji") is True, "width": int(o.get("width", 80)),
            "unicode": o.get("cli.unicode", True) is True}


@pytest.mark.parametrize("case", PRINTS, ids=case_ids(PRINTS))
def test_print_and_summary_text(case, capsys):
    with calstats.option_context(**_options(case)):
        fit = run_call(case, calstats)[0]["fit"]
        print(fit)
        assert capsys.readouterr().out == case["outputs"]["print_text"]
        print(calstats.summary(fit))
        assert capsys.readouterr().out == case["outputs"]["summary_text"]


QUIRKS = load_cases("quirks")


@pytest.mark.parametrize("case", QUIRKS, ids=case_ids(QUIRKS))
def test_quirk(case):
    """R's surprising-but-contractual behaviour (r-interface.md §9), value and warnings."""
    out = case["outputs"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if "error" in out:
            with pytest.raises(calstats.CalstatsError) as err:
                run_call(case, calstats)
            assert str(err.value) == out["error"].replace("\n", " ")
            return
        value = run_call(case, calstats)[1]
    texts = []
    for w in caught:
        if issubclass(w.category, calstats.CalstatsWarning) and str(w.message) not in texts:
            texts.append(str(w.message))
    assert texts == list(dict.fromkeys(out["warnings"]))
    expected = out["value"]
    if isinstance(expected, dict) and "colnames" in expected:
        assert_r_equal(value, expected["values"], rtol=0, atol=1e-10)
        if expected["colnames"] is not None:
            assert list(value.columns) == expected["colnames"]
    elif isinstance(expected, dict):
        # GLM coefficients: r-interface §10 (1e-12 relative; noise near 0 when aliased, Q4)
        assert_fields(value, expected, rtol=1e-10, atol=1e-12)
    else:
        assert_r_equal(value, expected, rtol=1e-12)

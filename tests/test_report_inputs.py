"""calstats.report's inputs: one clear error per message (a missing value names its row),
and the formatting of the numbers it shows."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _report_html import shown_matches
from calstats import CalstatsError
from calstats import _validate as v
from calstats.reporting import report
from calstats.reporting._render import number_text
from calstats.reporting._words import fmt_p

P = np.array([0.1, 0.8, 0.3, 0.6, 0.45, 0.7])
Y = np.array([0, 1, 0, 1, 0, 1])
M = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]])
YM = np.array([1, 2, 3, 1])


def _text(validator, *args, **kwargs):
    """The message of one of the report's validators (each written once, in calstats._validate)."""
    with pytest.raises(CalstatsError) as err:
        validator(*args, **kwargs)
    return str(err.value)


def _raises(match, *args, **kwargs):
    with pytest.raises(CalstatsError) as err:
        report(*args, figures=False, **kwargs)
    assert str(err.value) == match
    assert "\n" not in str(err.value)
    return err


def test_a_missing_prediction_names_its_row():
    p = P.copy()
    p[3] = np.nan
    _raises(_text(v.fail_report_missing, arg="p", row=4, label=""), p, Y)


def test_a_missing_prediction_of_a_named_model_names_the_model_and_the_index():
    b = pd.Series(P, index=list("abcdef"))
    b["c"] = None
    _raises(_text(v.fail_report_missing, arg='p["B"]', row=3, label=" (index 'c')"), {"A": P, "B": b}, Y)


def test_a_missing_label_names_its_row():
    y = pd.array([0, 1, 0, None, 0, 1], dtype="Int64")
    _raises(_text(v.fail_report_missing, arg="y", row=4, label=""), P, y)


def test_a_missing_class_names_its_row():
    y = pd.Categorical(["a", "b", None, "a"], categories=["a", "b", "c"])
    _raises(_text(v.fail_report_missing, arg="y", row=3, label=""), M, y)


def test_a_missing_time_names_its_row():
    t = np.array([1.0, 2.0, np.nan, 1.5, 3.0, 0.5])
    _raises(_text(v.fail_report_missing, arg="y[0]", row=3, label=""), P, (t, Y), time=1.0)


def test_a_missing_weight_names_its_row():
    w = np.ones(6)
    w[5] = np.nan
    _raises(_text(v.fail_report_missing, arg="weights", row=6, label=""), P, Y, weights=w)


def test_no_models():
    _raises(_text(v.fail_no_predictions), {}, Y)


def test_models_with_a_dict():
    _raises(_text(v.fail_models_of_dict), {"A": P}, Y, models=["A"])


def test_models_of_an_array():
    _raises(_text(v.fail_models_type), np.column_stack([P, P]), Y, models=["A", "B"])


def test_models_naming_absent_columns():
    _raises(_text(v.fail_models_columns, names="`c`"), pd.DataFrame({"a": P, "b": P}), Y, models=["a", "c"])


def test_a_model_name_used_twice():
    _raises(_text(v.fail_model_twice, name="a"), pd.DataFrame({"a": P}), Y, models=["a", "a"])


def test_reserved_model_names():
    _raises(_text(v.refuse_report_reserved), {"all": P}, Y)


def test_models_of_different_lengths():
    _raises(_text(v.fail_report_length, name="B", n_p=5, n_y=6), {"A": P, "B": P[:5]}, Y)


def test_a_vector_beside_a_matrix():
    _raises(_text(v.fail_report_shape, name="B", first="A"), {"A": M, "B": M[:, 0]}, YM)


def test_a_time_to_event_outcome_without_horizon():
    _raises(_text(v.fail_report_time_needed), P, (np.arange(1.0, 7.0), Y))


def test_a_horizon_for_a_binary_outcome():
    _raises(_text(v.refuse_report_time, 2.0), P, Y, time=2.0)


def test_a_horizon_that_is_no_time():
    _raises(_text(v.fail_report_time_value), P, (np.arange(1.0, 7.0), Y), time=-1)


def test_times_that_do_not_increase_or_columns_that_do_not_match_them():
    tt = (np.arange(1.0, 7.0), Y)
    _raises(_text(v.fail_report_time_value), P, tt, time=[2.0, 1.0])
    _raises(_text(v.fail_report_time_value), P, tt, time=[1.0, 1.0])
    _raises(_text(v.fail_report_time_value), P, tt, time="2")
    _raises(_text(v.fail_report_time_columns, k=2, name="model", cols="one column"), P, tt, time=[1.0, 2.0])
    _raises(_text(v.fail_report_time_columns, k=3, name="model", cols="2 columns"), np.column_stack([P, P]), tt,
            time=[1.0, 2.0, 3.0])
    _raises(_text(v.fail_report_shape, name="model", first="model"), np.column_stack([P, P]), tt, time=2.0)


def test_a_horizon_beyond_follow_up():
    _raises(_text(v.refuse_report_time_beyond, h=7.5, last=6.0), P, (np.arange(1.0, 7.0), Y), time=7.5)
    _raises(_text(v.refuse_report_time_beyond, h=9.0, last=6.0), np.column_stack([P, P]), (np.arange(1.0, 7.0), Y),
            time=[2.0, 9.0])


def test_a_cause_needs_a_competing_risk_outcome_and_codes_need_a_cause():
    _raises(_text(v.refuse_cause_binary, 1), P, Y, cause=1)
    codes = np.array([0, 1, 2, 1, 0, 2])
    # without cause=, event codes of two causes get the reader's message (as decision_curve's and pmcalibration's)
    _raises("Argument `y[1]` must contain only `0` (censored) and `1` (event), or R's `1` (censored) and `2` "
            "(event).", P, (np.arange(1.0, 7.0), codes), time=2.0)
    _raises("Argument `cause` must be one of the causes in the outcome: `1`, `2`.", P, (np.arange(1.0, 7.0), codes),
            time=2.0, cause=3)


def test_a_seed_that_is_no_whole_number():
    _raises(_text(v.check_seed, 1.5), P, Y, seed=1.5)


def test_an_unknown_section():
    _raises(_text(v.fail_report_sections, names="accuracy, binned, corp, curve, decision, discrimination, hierarchy, "
                                               "tests"),
            P, Y, sections=["calibration"])


def test_a_section_of_another_outcome():
    _raises(_text(v.fail_report_section_kind, name="decision", kind="multiclass",
                                            names="discrimination, hierarchy, corp, binned, tests"),
            M, YM, sections=["decision"])


def test_the_checks_of_the_measures_come_through():
    _raises("Argument `p` must contain probabilities in `[0, 1]`.", P * 2, Y)
    _raises("Argument `y` must contain at least one `0` and one `1`.", P, np.zeros(6, dtype=int))
    _raises("Each row of `p` must sum to `1`.", M * 1.1, YM)
    _raises("Argument `level` must be a single number in `(0, 1)`.", P, Y, level=95)
    _raises("Argument `n_sim` must be a single positive integer.", P, Y, n_sim=0)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e8, max_value=1e8, allow_nan=False), st.integers(0, 6),
       st.sampled_from(["number", "percent", "general"]))
def test_a_shown_number_is_its_value_rounded(x, digits, style):
    """Invariant: what the page shows reads back as the value, to the last digit shown."""
    text = number_text(x, max(digits, 1) if style == "general" else digits, style)
    if style == "general":
        assert math.isclose(float(text), x, rel_tol=10.0 ** (1 - max(digits, 1)), abs_tol=1e-300)
    else:
        assert shown_matches(text, x), (text, x)


@given(st.floats(min_value=0, max_value=1))
def test_a_shown_p_value_is_its_value(p):
    assert shown_matches(fmt_p(p), p)


def test_a_small_error_never_reads_as_none_points():
    from calstats.reporting._words import points

    assert points(0.021) == "2.1 points"
    assert points(0.01) == "1.0 point"
    assert points(0.000424) == "0.042 points"  # not "0.0 points"
    assert points(0.0) == "0.0 points"
    assert points(-0.021) == "2.1 points"

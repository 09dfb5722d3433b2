"""Shared validators: R's classification of inputs, match.arg, unused arguments."""

import math

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import CalstatsError
from calstats import _validate as v


@pytest.mark.parametrize("value,expected", [
    (None, "equal_width"), ("equal_f", "equal_freq"), ("equal_width", "equal_width"),
    (["equal_width", "equal_freq"], "equal_width"),
])
def test_match_arg_accepts(value, expected):
    assert v.match_arg(value, ["equal_width", "equal_freq"]) == expected


@pytest.mark.parametrize("value,message", [
    ("equal", "Argument `strategy` should be one of \u201cequal_width\u201d, \u201cequal_freq\u201d, not \u201cequal\u201d "
              "(\u201cequal\u201d begins more than one: \u201cequal_width\u201d or \u201cequal_freq\u201d)."),
    ("", "Argument `strategy` should be one of \u201cequal_width\u201d, \u201cequal_freq\u201d, not \u201c\u201d."),
    ([], "Argument `strategy` should be one string among \u201cequal_width\u201d, \u201cequal_freq\u201d."),
    (["equal_freq", "equal_width"], "Argument `strategy` should be one string among \u201cequal_width\u201d, "
                                    "\u201cequal_freq\u201d."),
    (True, "Argument `strategy` should be one string among \u201cequal_width\u201d, \u201cequal_freq\u201d."),
    (3, "Argument `strategy` should be one string among \u201cequal_width\u201d, \u201cequal_freq\u201d."),
    ("quantile", "Argument `strategy` should be one of \u201cequal_width\u201d, \u201cequal_freq\u201d, not "
                 "\u201cquantile\u201d; did you mean \u201cequal_freq\u201d?"),
])
def test_match_arg_rejects_naming_the_argument(value, message):
    with pytest.raises(CalstatsError) as err:
        v.match_arg(value, ["equal_width", "equal_freq"], "strategy")
    assert str(err.value) == message


def test_match_arg_finds_the_argument_and_suggests():
    def f(p, y, merge="log"):
        return v.match_arg(merge, ("log", "brier"))

    with pytest.raises(CalstatsError) as err:
        f(1, 2, merge="breir")
    assert str(err.value) == ("Argument `merge` should be one of \u201clog\u201d, \u201cbrier\u201d, not "
                              "\u201cbreir\u201d; did you mean \u201cbrier\u201d?")
    with pytest.raises(CalstatsError) as err:
        v.match_arg("sigmoid", ("platt", "isotonic"), "method")
    assert str(err.value).endswith("did you mean \u201cplatt\u201d (\u201csigmoid\u201d is scikit-learn's name for it)?")


@pytest.mark.parametrize("call,note", [
    (lambda P, y: calstats.ece(P, y, type="top"),
     "Argument `type` takes one of \u201cclasswise\u201d, \u201cconfidence\u201d: did you mean \u201cconfidence\u201d?"),
    (lambda P, y: calstats.cal_ovr(P, y, method="isotonc"), "did you mean \u201cisotonic\u201d?"),
    (lambda P, y: calstats.cal_histogram(P[:, 0], (y == 1).astype(int), strategy="quantile"),
     "did you mean \u201cequal_freq\u201d?"),
])
def test_probcal_functions_keep_r_text_with_a_note(call, note):
    """probcal's own choice arguments keep R's message word for word (the R port's contract);
    the argument and the suggestion come as a note."""
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), 30)
    y = rng.integers(1, 4, 30)
    with pytest.raises(CalstatsError) as err:
        call(P, y)
    assert str(err.value).startswith("'arg' should be one of")
    assert any(note in n for n in getattr(err.value, "__notes__", []))


def test_classification_follows_r():
    assert v.as_vec([1, 2]).kind == "numeric" and v.as_vec([1, 2]).integer
    assert v.as_vec([True, False]).kind == "logical"
    assert v.as_vec(pd.array([True, None], dtype="boolean")).na.tolist() == [False, True]
    assert v.as_vec(pd.Categorical(["a", "b"])).kind == "factor"
    assert v.as_vec(np.array(["a"])).kind == "other"
    assert v.as_vec(pd.array([1, None], dtype="Int64")).na.tolist() == [False, True]
    assert v.as_vec(np.float32([0.5])).values.dtype == np.float64


def test_numeric_vector_checks_in_order():
    with pytest.raises(CalstatsError, match="^Argument `x` must be a numeric vector.$"):
        v.check_numeric([True], "x")
    with pytest.raises(CalstatsError, match="^Argument `x` must not be empty.$"):
        v.check_numeric([], "x")
    with pytest.raises(CalstatsError, match="missing values"):
        v.check_numeric([np.nan, np.inf], "x")
    with pytest.raises(CalstatsError, match="only finite values"):
        v.check_numeric([np.inf], "x")
    assert v.check_numeric(np.array([[1.0], [2.0]]), "x").tolist() == [1.0, 2.0]  # quirk Q5
    with pytest.raises(CalstatsError, match="must be a numeric vector"):
        v.check_numeric(np.ones((2, 2)), "x")


def test_factor_and_unused_levels():
    f = calstats.Factor(["b", "a", "b"], levels=["b", "a", "c"])
    codes, levels, k = v.check_multiclass_y(f, 3)
    assert codes.tolist() == [1, 2, 1] and levels == ["b", "a", "c"] and k == 3
    with pytest.raises(CalstatsError, match="must not contain missing values"):
        v.check_multiclass_y(calstats.Factor(["a", "z"], levels=["a", "b"]), 2)
    with pytest.raises(CalstatsError, match="^argument must be coercible to non-negative integer$"):
        v.check_multiclass_y(np.array([], dtype=float), 2)
    with pytest.raises(CalstatsError, match="has 2 classes but the input has 1 column.$"):
        v.check_multiclass_y([1, 2], 1)


def test_bins_checks():
    assert v.check_bins(5.0) == 5
    for bad in (0, 2.5, True, "3", None, [1, 2], np.nan):
        with pytest.raises(CalstatsError, match="must be a single positive integer"):
            v.check_bins(bad)
    with pytest.raises(CalstatsError, match="^missing value where TRUE/FALSE needed$"):
        v.check_bins(2.0**31)


def test_unused_argument_message():
    with pytest.raises(CalstatsError) as err:
        v.unused_arguments({"a": 1, "b": "x", "c": [1.5, 2], "d": None, "e": True})
    assert str(err.value) == 'unused arguments (a = 1, b = "x", c = c(1.5, 2), d = NULL, e = TRUE)'
    with pytest.raises(CalstatsError, match=r"^unused argument \(nbins = 3\)$"):
        v.unused_arguments({"nbins": 3})


def test_options_context_restores():
    before = calstats.get_option("width")
    with calstats.option_context(width=40):
        assert calstats.get_option("width") == 40
    assert calstats.get_option("width") == before
    with pytest.raises(KeyError):
        calstats.get_option("colour")


@pytest.mark.parametrize("value", [0, 1, -0.5, 1.5, math.nan, math.inf, None, True, "0.5", [0.2, 0.3]])
def test_check_interval_refuses_with_one_message(value):
    with pytest.raises(CalstatsError) as e:
        v.check_interval(value, "conf_level")
    assert str(e.value) == "Argument `conf_level` must be a single number in `(0, 1)`."


def test_check_interval_bounds_and_closed_end():
    assert v.check_interval(0.25, "eps", 0.0, 0.5) == 0.25
    assert v.check_interval(np.float32(0.5), "a") == 0.5
    assert v.check_interval(1, "gamma", closed_right=True) == 1.0
    with pytest.raises(CalstatsError, match=r"^Argument `gamma` must be a single number in `\(0, 1\]`\.$"):
        v.check_interval(1.01, "gamma", closed_right=True)
    with pytest.raises(CalstatsError, match=r"^Argument `eps` must be a single number in `\(0, 0.5\)`\.$"):
        v.check_interval(0.5, "eps", 0.0, 0.5)


def test_column_and_weight_refusals():
    v.check_ncol(3, 3)
    with pytest.raises(CalstatsError, match=r"^Argument `newdata` must have 4 columns, one per class\.$"):
        v.check_ncol(3, 4)
    with pytest.raises(CalstatsError, match=r"^Argument `x` must have at least two columns, one per class\.$"):
        v.check_two_columns(1, "x")
    v.refuse_weights(None, "anywhere")
    with pytest.raises(CalstatsError, match=r"^Case weights are not supported by this test: a reason\.$"):
        v.refuse_weights(np.ones(3), "by this test: a reason")


def test_predict_refuses_standard_errors_a_fit_cannot_give():
    """`se_fit`/`interval` are calstats' own arguments: a calibrator without a likelihood
    refuses them instead of returning bare probabilities (R's methods swallow `...`, so
    other extra arguments are still ignored)."""
    import calstats

    rng = np.random.default_rng(0)
    p = rng.random(100)
    y = (rng.random(100) < p).astype(int)
    fit = calstats.cal_isotonic(p, y)
    with pytest.raises(calstats.CalstatsError, match="need a likelihood fit; isotonic regression has none"):
        fit.predict(p, se_fit=True)
    with pytest.raises(calstats.CalstatsError, match="need a likelihood fit"):
        calstats.predict(fit, p, interval="confidence")
    np.testing.assert_array_equal(calstats.predict(fit, p, unknown=1), fit.predict(p))

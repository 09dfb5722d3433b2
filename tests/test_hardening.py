"""A user's first hour without a wrong answer: swapped arguments, misnamed columns,
probabilities taken for logits, degenerate inputs and missing values are refused (or said)
in one line, through the readers of calstats._inputs and the validators of calstats._validate.
Each test here failed before the input it covers was checked."""


import warnings

import numpy as np
import pandas as pd
import pytest

import calstats
from calstats import CalstatsError, clinical
from calstats import _inputs as inputs
from calstats import _validate as v


def _binary(n=400, seed=1):
    rs = np.random.default_rng(seed)
    p = rs.uniform(0.02, 0.98, n)
    y = (rs.random(n) < p).astype(int)
    return p, y


def _multiclass(n=300, k=4, seed=2):
    rs = np.random.default_rng(seed)
    P = rs.dirichlet(np.ones(k), n)
    y = np.array([rs.choice(k, p=r) for r in P]) + 1
    return P, y


# --------------------------------------------------------------------------------------
# swapped arguments


SWAP = "look swapped: `y` holds probabilities"


def test_hoslem_refuses_swapped_arguments():
    p, y = _binary()
    with pytest.raises(CalstatsError) as err:
        calstats.hoslem_test(p, y)
    assert SWAP in str(err.value) and str(err.value).endswith("the order is hoslem_test(y, p).")
    assert calstats.hoslem_test(y, p).p_value > 0  # the right order still works


def test_val_prob_refuses_swapped_arguments():
    p, y = _binary()
    with pytest.raises(CalstatsError, match=r"the order is val_prob\(p, y\)\.$") as err:
        calstats.val_prob(y, p)
    assert SWAP in str(err.value)


def test_refuse_swap_leaves_valid_and_unrelated_input_alone():
    p, y = _binary(50)
    inputs.refuse_swap(p, y, "f(p, y)")
    inputs.refuse_swap(y.astype(float), y, "f(p, y)")  # 0/1 predictions with 0/1 outcomes
    inputs.refuse_swap(p, p, "f(p, y)")  # not a swap: p is not 0/1 (the caller refuses y)
    inputs.refuse_swap(["a", "b"], p, "f(p, y)")


# --------------------------------------------------------------------------------------
# scikit-learn's predict_proba


def test_val_prob_reads_predict_proba():
    p, y = _binary()
    a = calstats.val_prob(p, y, pl=False)
    b = calstats.val_prob(np.column_stack([1 - p, p]), y, pl=False)
    assert np.array_equal(np.asarray(a.stats), np.asarray(b.stats), equal_nan=True)


def test_event_probability_refuses_other_matrices():
    p, _ = _binary(20)
    with pytest.raises(CalstatsError, match=r"^Argument `p` has 3 columns; a binary outcome takes one probability"):
        inputs.event_probability(np.column_stack([p, p, p]))
    bad = np.column_stack([1 - p, p])
    bad[3, 0] = 0.9
    with pytest.raises(CalstatsError, match=r"read as scikit-learn's `predict_proba` output, but row 4 sums to"):
        inputs.event_probability(bad)
    frame = pd.DataFrame({"no": 1 - p, "yes": p})
    assert inputs.event_probability(frame).equals(frame["yes"])


# --------------------------------------------------------------------------------------
# degenerate inputs and missing values


def test_hoslem_needs_three_groups():
    p, y = _binary()
    for g in (1, 2, 2.5, 0, -1, np.nan):
        with pytest.raises(CalstatsError, match=r"^Argument `g` must be a whole number of at least 3"):
            calstats.hoslem_test(y, p, g=g)
    assert calstats.hoslem_test(y, p, g=2, df=2).parameter == {"df": 2}


def test_hoslem_refuses_non_binary_outcomes_and_bad_probabilities():
    p, y = _binary(60)
    with pytest.raises(CalstatsError, match=r"^Argument `y` must contain only binary labels"):
        calstats.hoslem_test(y * 2, p)
    with pytest.raises(CalstatsError, match=r"^Argument `p` must contain probabilities in `\[0, 1\]`\.$"):
        calstats.hoslem_test(y, p * 2)
    with pytest.raises(CalstatsError, match=r"^Argument `p` must contain probabilities"):
        calstats.hoslem_test(y, np.r_[np.inf, p[1:]])


def test_hoslem_na_rm():
    p, y = _binary()
    q = p.copy()
    q[[3, 7]] = np.nan
    with pytest.raises(CalstatsError, match="NaN's not allowed if 'na.rm' is FALSE") as err:
        calstats.hoslem_test(y, q)
    assert any("na_rm=True" in n for n in err.value.__notes__)
    keep = ~np.isnan(q)
    a = calstats.hoslem_test(y, q, na_rm=True)
    b = calstats.hoslem_test(y[keep], p[keep])
    assert a.statistic == b.statistic and a.p_value == b.p_value
    with pytest.raises(CalstatsError, match="^Argument `na_rm` must be `True` or `False`.$"):
        calstats.hoslem_test(y, q, na_rm="yes")


def test_val_prob_one_class_says_so():
    p, _ = _binary()
    with pytest.raises(CalstatsError) as err:
        calstats.val_prob(p, np.zeros(p.size), pl=False)
    assert str(err.value) == ("Argument `y` must contain both outcomes, 0 and 1 (rms::val.prob stops here: "
                              "'names' attribute [3] must be the same length as the vector [2]).")


# --------------------------------------------------------------------------------------
# probabilities or logits: the command line's rule


def _reading(x, binary, requested="auto"):
    """The library's reading: the rule's decision, refused in the library's words."""
    return v.refuse_input_reading(inputs.input_kind(x, binary, requested), "x")


def test_input_kind_follows_the_command_line():
    P, _ = _multiclass()
    assert _reading(P, False) == "probabilities"
    assert _reading(np.log(P), False) == "logits"
    assert _reading(P * 0.9, False, "logits") == "logits"
    with pytest.raises(CalstatsError) as err:
        _reading(P * 0.9, False)
    assert str(err.value).startswith("Argument `x` holds values in [0, 1] whose rows do not sum to 1 (row 1 sums "
                                     "to 0.9; 300 such rows)")
    with pytest.raises(CalstatsError, match=r"^Argument `x` has values above 1 \(the first: 25 in row 1\)"):
        _reading(np.full((3, 2), 25.0), False)
    with pytest.raises(CalstatsError, match='^Argument `input` must be one of "auto", "probabilities", "logits".$'):
        _reading(P, False, "probs")


def test_the_command_line_reads_by_the_same_rule(tmp_path, capsys, monkeypatch):
    """The command line decides with input_kind and words the refusal with the file, the column (of
    the first value above 1 in reading order) and --input."""
    from calstats import cli

    calls = []
    rule = inputs.input_kind
    monkeypatch.setattr(inputs, "input_kind", lambda *a, **k: calls.append(a[1:]) or rule(*a, **k))
    P, y = _multiclass(40)
    counts = np.round(P * 10)  # counts: no negative value, some above 1
    counts[0] = [0.0, 0.5, 3.0, 2.0]
    f = tmp_path / "counts.csv"
    pd.DataFrame(counts, columns=["a", "b", "c", "d"]).assign(y=y).to_csv(f, index=False)
    status = cli.main(["calibrate", str(f), str(f), "--label", "y", "-m", "temperature", "-o",
                       str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert status == 1 and calls == [(False, "auto"), (False, "auto")]
    assert err.startswith("calstats: error: column 'c' of ") and "(first in data row 1: 3)" in err
    assert "--input logits" in err and "\n" not in err.rstrip("\n")


def test_input_kind_returns_the_decision_and_its_evidence():
    """The one rule returns what it decided and why; the caller words a refusal (the library naming its
    argument, the command line its file, column and option)."""
    P, _ = _multiclass()
    assert inputs.input_kind(P, False) == ("probabilities", True, None, None, None, None, None, None)
    assert inputs.input_kind(P, False, "logits") == ("logits", False, None, None, None, None, None, None)
    spoiled = P.copy()
    spoiled[[4, 9]] *= 0.5
    r = inputs.input_kind(spoiled, False)
    assert (r.kind, r.guessed, r.problem, r.row, r.count) == ("probabilities", True, "rows", 4, 2)
    assert r.total == pytest.approx(0.5)
    # given explicitly, probabilities still report a row that does not sum to 1 (the library lets its methods
    # refuse it with R's check; the command line names the row)
    r = inputs.input_kind(spoiled * 3, False, "probabilities")
    assert (r.kind, r.guessed, r.problem, r.row) == ("probabilities", False, "rows", 0)
    assert v.refuse_input_reading(r, "x") == "probabilities"
    counts = np.array([[0.0, 2.0, 0.5], [3.0, 0.0, 7.0]])
    r = inputs.input_kind(counts, False)
    assert (r.kind, r.problem, r.row, r.column, r.value) == ("logits", "scores", 0, 1, 2.0)
    assert inputs.input_kind(np.r_[0.2, np.nan, 4.0], True).problem == "scores"  # missing values aside
    assert inputs.input_kind(np.r_[-0.2, 4.0], True) == ("logits", True, None, None, None, None, None, None)


def test_cal_compare_refuses_rows_that_do_not_sum_to_one():
    P, y = _multiclass()
    with pytest.raises(CalstatsError, match=r"^Argument `x` holds values in \[0, 1\] whose rows do not sum to 1"):
        calstats.cal_compare(P * 0.9, y, methods=["temperature"])


def test_cal_compare_refuses_swapped_binary_arguments():
    p, y = _binary(100)
    with pytest.raises(CalstatsError, match=r"^Arguments `y` and `x` look swapped: .* the order is cal_compare\(x, y\)\.$"):
        calstats.cal_compare(y, p)


@pytest.mark.parametrize("fn", ["cal_temperature", "cal_vector_scaling", "cal_matrix_scaling"])
def test_logit_functions_say_when_given_probabilities(fn):
    P, y = _multiclass(120, 3)
    with pytest.warns(calstats.CalstatsWarning, match=rf"^`logits` looks like probabilities .* but {fn}\(\) takes "
                                                      r"logits and reads it as logits; for probabilities pass their log"):
        getattr(calstats, fn)(P, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(calstats, fn)(np.log(P), y)


def test_binary_temperature_says_when_given_probabilities():
    p, y = _binary(100)
    with pytest.warns(calstats.CalstatsWarning, match=r"for probabilities pass their logit, calstats.logit\(x\)\.$"):
        calstats.cal_temperature(p, y)


# --------------------------------------------------------------------------------------
# matrix columns and outcome classes that disagree by name


MISNAMED = [
    "ece", "mce", "ace", "mmce", "brier_score", "log_loss", "confidence_ece", "classwise_ece", "top_label_ece",
    "smece", "corp", "cal_ks_test", "cal_kuiper_test", "cal_spiegelhalter_test", "skce", "cal_test",
    "reliability_diagram", "cal_dirichlet", "cal_ovr", "cal_top_label", "cal_venn_abers", "cal_spline", "cal_cv",
    "cal_evidential",
]


@pytest.mark.parametrize("fn", MISNAMED)
def test_columns_and_categories_in_another_order_are_refused(fn):
    P, y = _multiclass(200, 4)
    frame = pd.DataFrame(P, columns=list("abcd"))
    cat = pd.Categorical(np.array(list("abcd"))[y - 1], categories=list("dcba"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CalstatsError) as err:
            getattr(calstats, fn)(frame, cat, **({"method": "dirichlet"} if fn == "cal_cv" else {}))
    assert str(err.value) == ("The columns of `" + ("x" if fn in ("cal_ovr", "cal_cv") else "scores" if
                              fn == "cal_evidential" else "p") + "` (a, b, c, d) and the classes of `y` (d, c, b, a) "
                              "name the same classes in another order; the columns are read by position: reorder "
                              "them, e.g. `" + ("x" if fn in ("cal_ovr", "cal_cv") else "scores" if
                              fn == "cal_evidential" else "p") + "[['d', 'c', 'b', 'a']]`.")


@pytest.mark.parametrize("fn", ["cal_temperature", "cal_vector_scaling", "cal_matrix_scaling"])
def test_logit_columns_and_categories_in_another_order_are_refused(fn):
    P, y = _multiclass(200, 3)
    frame = pd.DataFrame(np.log(P), columns=["p_x", "p_y", "p_z"])
    cat = pd.Categorical(np.array(list("xyz"))[y - 1], categories=list("zyx"))
    with pytest.raises(CalstatsError, match=r"^The columns of `logits` \(p_x, p_y, p_z\) and the classes of `y`"):
        getattr(calstats, fn)(frame, cat)


def test_columns_named_by_codes_in_another_order_are_refused():
    P, y = _multiclass(100, 3)
    with pytest.raises(CalstatsError, match=r"^The columns of `p` are named 2, 1, 3, but `y` holds class codes"):
        calstats.ece(pd.DataFrame(P, columns=[2, 1, 3]), y)


def test_matching_or_unnamed_columns_pass():
    P, y = _multiclass(100, 3)
    cat = pd.Categorical(np.array(list("abc"))[y - 1])
    base = calstats.ece(P, y)
    assert calstats.ece(pd.DataFrame(P), y) == base
    assert calstats.ece(pd.DataFrame(P, columns=["p_a", "p_b", "p_c"]), cat) == base
    assert calstats.ece(pd.DataFrame(P, columns=["1", "2", "3"]), y) == base
    assert calstats.ece(pd.DataFrame(P, columns=["u", "v", "w"]), cat) == base  # names that say nothing


# --------------------------------------------------------------------------------------
# the multiclass Venn-Abers default


def test_venn_abers_default_does_not_damage_a_calibrated_model():
    """HistGradientBoosting on scikit-learn's digits (tests/fixtures/make_venn_abers_digits.py):
    venn-abers' own reductions, which calstats reproduces, damage the calibration of this good
    model; the default top-label reduction does not."""
    from _fixtures import load_fixture

    d = load_fixture("venn_abers_digits")
    Pc, yc, Pt, yt = (np.array(d[k]) for k in ("p_cal", "y_cal", "p_test", "y_test"))
    for reduction in ("one_vs_one", "one_vs_rest"):
        ours = calstats.cal_venn_abers(Pc, yc, reduction=reduction).predict(Pt[:100]).to_numpy()
        np.testing.assert_allclose(ours, np.array(d["venn_abers"][reduction]), rtol=0, atol=1e-12)
    fit = calstats.cal_venn_abers(Pc, yc)
    assert fit.reduction == "top_label"
    Q = fit.predict(Pt).to_numpy()
    before = calstats.ece(Pt, yt, type="confidence"), calstats.log_loss(Pt, yt), calstats.brier_score(Pt, yt)
    after = calstats.ece(Q, yt, type="confidence"), calstats.log_loss(Q, yt), calstats.brier_score(Q, yt)
    assert all(a < b for a, b in zip(after, before)), (after, before)
    assert (Q.argmax(axis=1) + 1 == yt).mean() >= (Pt.argmax(axis=1) + 1 == yt).mean()
    ovo = calstats.cal_venn_abers(Pc, yc, reduction="one_vs_one").predict(Pt).to_numpy()
    assert calstats.ece(ovo, yt, type="confidence") > 10 * before[0]  # venn-abers' default: 0.303 against 0.019


# --------------------------------------------------------------------------------------
# intervals that exclude their estimate, printing


def test_assess_bootstrap_says_why_the_interval_excludes_the_estimate(tmp_path, capsys):
    from calstats.cli import main

    p = np.repeat([0.25, 0.75], 400)
    y = np.r_[np.repeat([1, 0, 0, 0], 100), np.repeat([1, 1, 1, 0], 100)]  # ECE exactly 0
    path = tmp_path / "exact.csv"
    pd.DataFrame({"p": p, "y": y}).to_csv(path, index=False)
    assert main(["assess", str(path), "--label", "y", "--bootstrap", "30"]) == 0
    out = capsys.readouterr().out
    assert "(note: the interval excludes the estimate: the binned ECE is biased upward" in out


def test_val_prob_ci_reads_predict_proba_and_refuses_a_swap():
    p, y = _binary()
    a = calstats.val_prob_ci(p, y, pl=False)
    b = calstats.val_prob_ci(np.column_stack([1 - p, p]), y, pl=False)
    assert a.print_text() == b.print_text()
    with pytest.raises(CalstatsError, match=r"the order is val_prob_ci\(p, y\)\.$"):
        calstats.val_prob_ci(y, p, pl=False)


def test_confidence_and_classwise_ece_take_weights():
    P, y = _multiclass()
    w = np.linspace(0.5, 2.0, y.size)
    assert calstats.confidence_ece(P, y, weights=w) == calstats.ece(P, y, type="confidence", weights=w)
    assert calstats.classwise_ece(P, y, weights=w) == calstats.ece(P, y, type="classwise", weights=w)
    assert calstats.confidence_ece(P, y, weights=np.ones(y.size)) == pytest.approx(calstats.confidence_ece(P, y), rel=1e-12)


def test_print_of_calstats_calibrators_shows_the_fit_under_a_calstats_header():
    P, y = _multiclass(120, 3)
    va = str(calstats.cal_venn_abers(P, y))
    assert "calstats calibrator" in va and "Reduction: top_label" in va
    temp = calstats.cal_temperature(np.log(P), y)
    assert "probcal calibrator" in str(temp) and "Temperature" not in str(temp)  # R's print, word for word
    assert repr(temp).startswith(str(temp)) and "\nTemperature: " in repr(temp)


# --------------------------------------------------------------------------------------
# the command line: data it cannot report on


def _run(argv, capsys):
    from calstats.cli import main

    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _table(tmp_path, name, **cols):
    path = tmp_path / name
    pd.DataFrame(cols).to_csv(path, index=False)
    return path


def test_cli_unknown_models_column_is_one_line(tmp_path, capsys):
    p, y = _binary(60)
    path = _table(tmp_path, "d.csv", p=p, y=y)
    status, _, err = _run(["report", path, "--label", "y", "--models", "p", "nosuch", "-o", tmp_path / "r.html"],
                          capsys)
    assert status == 2 and "KeyError" not in err
    assert "calstats: error: --models names column 'nosuch' that" in err


def test_cli_leaves_an_identifier_column_out(tmp_path, capsys):
    p, y = _binary(80)
    path = _table(tmp_path, "d.csv", id=np.arange(80) + 1000, p=p, y=y)
    status, out, err = _run(["assess", path, "--label", "y"], capsys)
    assert status == 0 and "column 'id' of" in err and "is not read as predictions" in err
    assert "ECE" in out


def test_cli_time_to_event_beyond_follow_up_and_negative_times(tmp_path, capsys):
    rs = np.random.default_rng(4)
    p = rs.uniform(0.05, 0.9, 100)
    t = rs.exponential(100, 100)
    s = (rs.random(100) < 0.5).astype(int)
    path = _table(tmp_path, "t.csv", p=p, time=t, status=s)
    status, _, err = _run(["report", path, "--time", "time", "--status", "status", "--horizon", "1e6", "-o",
                           tmp_path / "a.html"], capsys)
    assert status == 1 and "is beyond the last follow-up time in column 'time'" in err
    assert not (tmp_path / "a.html").exists()
    path = _table(tmp_path, "n.csv", p=p, time=-t, status=s)
    status, _, err = _run(["report", path, "--time", "time", "--status", "status", "--horizon", "50", "-o",
                           tmp_path / "b.html"], capsys)
    assert status == 1 and "has a negative follow-up time" in err and "in data row 1" in err


@pytest.mark.parametrize("command", ["assess", "compare", "calibrate"])
def test_cli_missing_value_names_column_and_row(tmp_path, capsys, command):
    p, y = _binary(60)
    q = p.copy()
    q[5] = np.nan
    path = _table(tmp_path, "na.csv", p=q, y=y)
    argv = {"assess": ["assess", path, "--label", "y"],
            "compare": ["compare", "--data", path, "--label", "y", "--folds", "2"],
            "calibrate": ["calibrate", path, path, "--label", "y", "-m", "platt", "-o", tmp_path / "o.csv"]}[command]
    status, _, err = _run(argv, capsys)
    assert status == 1
    assert "column 'p' of" in err and "has a missing value in data row 6 (line 7 of a CSV file)" in err


def test_cal_spline_warns_once_per_kind_with_a_count():
    from calstats import datasets

    d = datasets.load_digits_probs("naive_bayes")
    P = d[[c for c in d.columns if c != "label"]].to_numpy()
    y = d["label"].to_numpy() + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calstats.cal_spline(P, y)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 2, texts  # was 8: glm.fit twice, 'not monotone' six times
    assert any(t.startswith("The spline calibration map is not monotone") and t.endswith("(and 5 more like it)")
               for t in texts)
    assert "glm.fit: fitted probabilities numerically 0 or 1 occurred (this warning occurred 2 times)" in texts


# --------------------------------------------------------------------------------------
# the clinical functions: degenerate input, slow calls


def test_pmcalibration_refuses_a_swap_strings_and_no_rows():
    p, y = _binary(200)
    with pytest.raises(CalstatsError, match=r"the order is pmcalibration\(y, p\)\.$"):
        clinical.pmcalibration(p, y, "none", ci="none")
    with pytest.raises(CalstatsError, match="^Argument `y` must be numeric.$"):
        clinical.pmcalibration(np.where(y == 1, "yes", "no"), p, "none", ci="none")
    with pytest.raises(CalstatsError, match="^No rows are left to fit once the rows with a missing value"):
        clinical.pmcalibration(y, np.ones(y.size), "none", ci="none")
    with pytest.raises(CalstatsError, match="^Argument `y` must contain at least one `0` and one `1`.$"):
        clinical.pmcalibration(np.zeros(y.size), p, "none", ci="none")
    with pytest.raises(CalstatsError, match="^Argument `y` must contain only binary labels"):
        clinical.pmcalibration(y * 2, p, "none", ci="none")
    a = clinical.pmcalibration(y, p, "none", ci="none")
    b = clinical.pmcalibration(y, np.column_stack([1 - p, p]), "none", ci="none")
    assert a.metrics.equals(b.metrics)


def test_cal_metrics_refuses_empty_and_non_numeric_input():
    with pytest.raises(CalstatsError, match="^Argument `p` must not be empty.$"):
        clinical.cal_metrics([], [])
    with pytest.raises(CalstatsError, match="^Argument `p` must be numeric.$"):
        clinical.cal_metrics(["a"], [0.1])


def test_hoslem_says_why_its_statistic_is_nan():
    rs = np.random.default_rng(0)
    p = np.r_[np.zeros(30), rs.uniform(0, 1, 70)]
    y = (rs.random(100) < p).astype(int)
    with pytest.warns(calstats.CalstatsWarning, match=r"^The Hosmer-Lemeshow statistic is NaN \(as in R\): in group"):
        h = calstats.hoslem_test(y, p)
    assert np.isnan(h.statistic["X-squared"])


def test_val_multinomial_refuses_more_parameters_than_rows():
    rs = np.random.default_rng(0)
    P = rs.dirichlet(np.ones(50), 100)
    y = np.tile(np.arange(1, 51), 2)
    with pytest.raises(CalstatsError, match=r"^Too many classes for the rows: with 50 classes the recalibration "
                                            r"matrix has 2450 parameters and the flexible curves \(df = 2\) 4851, "
                                            r"but `p` has 100 rows"):
        clinical.val_multinomial(P, y)


def test_cal_compare_leaves_out_a_dirichlet_fit_it_cannot_estimate():
    rs = np.random.default_rng(0)
    P = rs.dirichlet(np.ones(50), 200)
    y = np.tile(np.arange(1, 51), 4)
    res = calstats.cal_compare(P, y, folds=3, progress=False)  # 74 s of CPU before
    assert np.isnan(res.table.loc["dirichlet"]).all()
    assert any(n.startswith("dirichlet left out: its 2550 parameters") for n in res.notes)


def test_one_reader_of_several_models():
    """decision_curve and report read several models through calstats._inputs.read_models,
    with the same messages."""
    p, y = _binary(60)
    for call in (lambda m: clinical.decision_curve(m, y), lambda m: calstats.report(m, y, figures=False)):
        with pytest.raises(CalstatsError, match="^Argument `p` must hold the predictions of at least one model.$"):
            call({})
    frame = pd.DataFrame({"a": p, "b": p})
    assert [m for m in clinical.decision_curve(frame, y).models] == ["a", "b"]
    with pytest.raises(CalstatsError, match=r"^Argument `models` names columns that `p` does not have: `c`\.$"):
        calstats.report(frame, y, models=["a", "c"], figures=False)
    assert [n for n, _ in inputs.read_models(frame, ["b"], frame="matrix")] == ["b"]
    assert [n for n, _ in inputs.read_models(frame, frame="matrix")] == ["model"]


def test_cli_error_of_calstats_names_the_columns_read(tmp_path, capsys):
    p, _ = _binary(60)
    path = _table(tmp_path, "one.csv", p=p, y=np.zeros(60, dtype=int))
    status, _, err = _run(["compare", "--data", path, "--label", "y", "--folds", "2"], capsys)
    assert status == 1
    assert err.strip().endswith(f"(reading column 'p' and label 'y' of '{path}')")


def test_val_prob_refuses_probabilities_outside_the_unit_interval():
    for p in ([1.3, 1.3, 1.3], [1.3], [0.2, -0.1, 0.5]):  # a constant p outside [0, 1]: math domain error
        with pytest.raises(CalstatsError, match=r"^Argument `p` must contain probabilities in `\[0, 1\]` "
                                                r"\(rms::val.prob stops here: NA/NaN/Inf in foreign"):
            calstats.val_prob(np.array(p), np.ones(len(p), dtype=int), pl=False)


@pytest.mark.parametrize("fn", ["ece", "mce", "brier_score", "log_loss", "cal_ks_test", "smece", "corp", "skce"])
def test_metrics_name_a_swap(fn):
    p, y = _binary(80)
    with pytest.raises(CalstatsError) as err:
        getattr(calstats, fn)(y, p)
    assert str(err.value) == ("Arguments `y` and `p` look swapped: `y` holds probabilities (such as "
                              f"{p[(p != 0) & (p != 1)][0]:.4g}) and `p` only 0 and 1; the order is (p, y).")



def test_pmcalibration_time_to_event_needs_a_positive_horizon():
    rs = np.random.default_rng(0)
    t, e, p = rs.exponential(100, 25), (rs.random(25) < 0.6).astype(int), rs.uniform(0.05, 0.9, 25)
    with pytest.raises(CalstatsError, match="^Argument `time` must be a single positive finite number.$"):
        clinical.pmcalibration((t, e), p, time=-1.0, ci="none")  # a raw 'array must not contain infs or NaNs'

"""Report renderings and notebook views (issue 13): every result object shows itself as
HTML, bootstrap intervals say what they are, summaries print their coefficient tables."""

import numpy as np
import pytest

import calstats


@pytest.fixture(scope="module")
def binary():
    rs = np.random.default_rng(5)
    p = rs.random(400)
    y = (rs.random(400) < p).astype(int)
    return p, y


def test_htest_and_diagram_and_ci_have_html_views(binary):
    p, y = binary
    t = calstats.cal_spiegelhalter_test(p, y)
    html = t._repr_html_()
    assert t.method in html and "p-value" in html and "<table" in html
    d = calstats.reliability_diagram(p, y)
    html = d._repr_html_()
    assert "<table" in html and "data:image/png;base64," in html and "ECE" in html
    ci = calstats.cal_ci(p, y, n_boot=30, seed=2)
    assert "percentile bootstrap CI" in ci._repr_html_()


def test_basic_interval_is_the_reflected_percentile_interval(binary):
    p, y = binary
    pct = calstats.cal_ci(p, y, n_boot=200, seed=3)
    basic = calstats.cal_ci(p, y, n_boot=200, seed=3, interval="basic")
    assert np.array_equal(pct.replicates, basic.replicates)
    assert basic.conf_int[0] == pytest.approx(2 * pct.estimate - pct.conf_int[1], abs=1e-15)
    assert basic.conf_int[1] == pytest.approx(2 * pct.estimate - pct.conf_int[0], abs=1e-15)
    assert "95% basic bootstrap CI" in str(basic) and basic.method == "basic bootstrap"
    with pytest.raises(calstats.CalstatsError):
        calstats.cal_ci(p, y, n_boot=20, interval="bca")


def test_a_percentile_interval_that_excludes_its_estimate_says_so():
    # calibrated probabilities: the plug-in classwise ECE is biased upwards, so its
    # bootstrap replicates (and their percentile interval) sit above the estimate
    rs = np.random.default_rng(0)
    P = rs.dirichlet(np.ones(5), size=300)
    y = np.array([rs.choice(5, p=row) for row in P]) + 1
    pct = calstats.cal_ci(P, y, n_boot=200, seed=1)
    assert pct.conf_int[0] > pct.estimate
    assert "note: the interval excludes the estimate" in str(pct)
    basic = calstats.cal_ci(P, y, n_boot=200, seed=1, interval="basic")
    corrected = 2 * basic.estimate - basic.replicates.mean()
    assert basic.conf_int[0] <= corrected <= basic.conf_int[1]
    assert "bias-corrected estimate" in str(basic) and "excludes" not in str(basic)


def test_progress_bars_show_when_asked_and_never_change_results(binary, capsys):
    p, y = binary
    quiet = calstats.cal_cv(p, y, method="isotonic", folds=3, seed=1, progress=False)
    shown = calstats.cal_cv(p, y, method="isotonic", folds=3, seed=1, progress=True)
    assert np.array_equal(quiet.oof_predictions, shown.oof_predictions)
    assert "cal_cv (isotonic)" in capsys.readouterr().err
    calstats.cal_ci(p, y, n_boot=40, seed=1, progress=True)
    assert "cal_ci bootstrap" in capsys.readouterr().err
    calstats.cal_test(p, y, n_boot=40, seed=1, progress=True)
    assert "cal_test bootstrap" in capsys.readouterr().err
    rs = np.random.default_rng(1)
    P = rs.dirichlet(np.ones(3), size=120)
    yy = rs.integers(1, 4, size=120)
    a = calstats.cal_dirichlet(P, yy, progress=True)
    assert "lambda search" in capsys.readouterr().err
    assert a.lambda_ == calstats.cal_dirichlet(P, yy, progress=False).lambda_
    calstats.cal_compare(p, y, methods=["platt"], folds=3, progress=True)
    assert "cal_compare" in capsys.readouterr().err
    calstats.cal_compare(p, y, methods=["platt"], folds=3)  # not a terminal: quiet
    assert capsys.readouterr().err == ""
    with pytest.raises(calstats.CalstatsError, match="progress"):
        calstats.cal_cv(p, y, progress="yes")


def test_a_warning_repeated_by_every_fold_is_shown_once_with_its_count():
    rs = np.random.default_rng(0)
    x = rs.normal(size=200) * 5
    y = (x > 0).astype(int)  # separable: glm warns in every fold
    with pytest.warns(calstats.CalstatsWarning) as record:
        calstats.cal_compare(x, y, methods=["platt", "beta"])
    messages = [str(w.message) for w in record]
    assert len(messages) == len(set(messages))
    assert any("this warning occurred" in m for m in messages)
    assert all(w.filename == __file__ for w in record)

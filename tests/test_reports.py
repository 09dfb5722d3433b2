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

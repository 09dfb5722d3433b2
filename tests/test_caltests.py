"""cal_ks_test, cal_kuiper_test, cal_spiegelhalter_test (seed-methods.md §D)."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import calstats
from _rcases import FIXTURES
from calstats.evaluation.caltests import ks_cdf, kuiper_cdf
from calstats.kernels.cumdiff import _ks_cdf_series, _kuiper_cdf_series, ks_pvalue, kuiper_pvalue

MAPIE = json.loads((FIXTURES / "mapie_values.json").read_text())
TESTS = (calstats.cal_ks_test, calstats.cal_kuiper_test, calstats.cal_spiegelhalter_test)
ROWS = [((0, 1, 0, 1, 0), (0.1, 0.9, 0.21, 0.9, 0.5)),
        ((1, 0, 1, 0, 1, 0), (0.8, 0.3, 0.5, 0.5, 0.7, 0.1)),
        ((1, 1, 1, 0, 1), (0.2, 0.3, 0.4, 0.5, 0.6))]


def _stat(t):
    return next(iter(t.statistic.values()))


# -- MAPIE's numbers (tests/fixtures/make_mapie_values.py) -----------------------------

@pytest.mark.parametrize("case", MAPIE["tests"], ids=[c["id"] for c in MAPIE["tests"]])
def test_mapie_convention_reproduces_mapie(case):
    y, s = np.array(case["y"]), np.array(case["s"])
    ks = calstats.cal_ks_test(s, y, convention="mapie")
    ku = calstats.cal_kuiper_test(s, y, convention="mapie")
    sp = calstats.cal_spiegelhalter_test(s, y, convention="mapie")
    assert ks.statistic["G"] == pytest.approx(case["ks_statistic"], rel=1e-14)
    assert ku.statistic["H"] == pytest.approx(case["kuiper_statistic"], rel=1e-14)
    assert sp.statistic["Z"] == pytest.approx(case["spiegelhalter_statistic"], rel=1e-14)
    assert ks.p_value == pytest.approx(case["ks_p_value"], rel=1e-12, abs=1e-15)
    assert ku.p_value == pytest.approx(case["kuiper_p_value"], rel=1e-12, abs=1e-15)
    assert sp.p_value == pytest.approx(case["spiegelhalter_p_value"], rel=1e-12, abs=1e-15)


def test_mapie_cdf_bit_identical_to_mapies_recorded_values():
    # MAPIE's kolmogorov_smirnov_cdf and kuiper_cdf, recorded by make_mapie_values.py
    from calstats.kernels.cumdiff import mapie_pvalue

    for row in MAPIE["cdf"]:
        assert mapie_pvalue("ks", row["x"]) == 1 - row["ks_cdf"]
        assert mapie_pvalue("kuiper", row["x"]) == 1 - row["kuiper_cdf"]


def test_mapie_convention_is_bit_identical_on_stored_values():
    for case in MAPIE["tests"]:
        y, s = np.array(case["y"]), np.array(case["s"])
        assert calstats.cal_ks_test(s, y, convention="mapie").statistic["G"] == case["ks_statistic"]
        assert calstats.cal_kuiper_test(s, y, convention="mapie").p_value == case["kuiper_p_value"]
        assert calstats.cal_spiegelhalter_test(s, y, convention="mapie").p_value == case["spiegelhalter_p_value"]


def test_mapie_jitter_leaves_global_streams_alone():
    calstats.rng.set_seed(5)
    before = calstats.rng.runif(1)
    calstats.rng.set_seed(5)
    np.random.seed(3)
    np_before = np.random.uniform()
    np.random.seed(3)
    calstats.cal_ks_test(np.array(ROWS[1][1]), np.array(ROWS[1][0]), convention="mapie")
    assert calstats.rng.runif(1)[0] == before[0]
    assert np.random.uniform() == np_before


# -- the spec's reference table (§D.6) -------------------------------------------------

SPEC = [  # G, H (calstats / mapie), Z
    (0.978035, 0.978035, 0.978035, 0.857290, -0.756697),
    (0.369800, 0.832050, 0.462250, 0.924500, -1.030244),
    (2.002271, 2.002271, 2.002271, 1.239501, 2.407717),
]


@pytest.mark.parametrize("i", range(3))
def test_spec_reference_statistics(i):
    y, s = map(np.array, ROWS[i])
    G, Gm, H, Hm, Z = SPEC[i]
    assert calstats.cal_ks_test(s, y).statistic["G"] == pytest.approx(G, abs=1e-6)
    assert calstats.cal_ks_test(s, y, convention="mapie").statistic["G"] == pytest.approx(Gm, abs=1e-6)
    assert calstats.cal_kuiper_test(s, y).statistic["H"] == pytest.approx(H, abs=1e-6)
    assert calstats.cal_kuiper_test(s, y, convention="mapie").statistic["H"] == pytest.approx(Hm, abs=1e-6)
    for conv in ("calstats", "mapie"):
        assert calstats.cal_spiegelhalter_test(s, y, convention=conv).statistic["Z"] == pytest.approx(Z, abs=1e-6)


def test_spec_reference_p_values():
    y, s = map(np.array, ROWS[1])
    assert calstats.cal_ks_test(s, y, convention="mapie").p_value == pytest.approx(0.785715, abs=1e-6)
    assert calstats.cal_kuiper_test(s, y, convention="mapie").p_value == pytest.approx(0.968388, abs=1e-6)
    assert calstats.cal_spiegelhalter_test(s, y, convention="mapie").p_value == pytest.approx(0.848552, abs=1e-6)
    y, s = map(np.array, ROWS[2])
    assert calstats.cal_ks_test(s, y).p_value == pytest.approx(0.090511, abs=1e-6)
    assert calstats.cal_kuiper_test(s, y).p_value == pytest.approx(0.180525, abs=1e-6)
    # issue 13 over the spec: two-sided by default (the spec's one-sided value with "greater")
    assert calstats.cal_spiegelhalter_test(s, y).p_value == pytest.approx(0.016053, abs=1e-6)
    assert calstats.cal_spiegelhalter_test(s, y, alternative="greater").p_value == pytest.approx(0.008026, abs=1e-6)
    assert calstats.cal_spiegelhalter_test(s, y, alternative="two.sided").p_value == pytest.approx(0.016053, abs=1e-6)
    assert calstats.cal_spiegelhalter_test(s, y, alternative="two-sided").p_value == pytest.approx(0.016053, abs=1e-6)
    assert calstats.cal_spiegelhalter_test(s, y, alternative="less").p_value == pytest.approx(1 - 0.008026, abs=1e-6)


def test_distribution_reference_values():
    assert ks_cdf(1) == pytest.approx(0.370777, abs=1e-6)
    assert kuiper_cdf(1) == pytest.approx(0.063365, abs=1e-6)
    assert ks_pvalue(2) == pytest.approx(0.0910005, rel=1e-6)
    assert kuiper_pvalue(2) == pytest.approx(0.1814943, rel=1e-6)
    assert ks_pvalue(6) == pytest.approx(3.94635e-9, rel=1e-5)
    assert kuiper_pvalue(6) == pytest.approx(7.89270e-9, rel=1e-5)
    assert ks_pvalue(0) == 1.0 and kuiper_pvalue(0) == 1.0
    assert 0 < ks_pvalue(30) < 1e-100  # the tail form keeps relative accuracy


@pytest.mark.parametrize("x", [0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0])
def test_tail_series_agree_with_power_series(x):
    assert ks_pvalue(x) == pytest.approx(max(0.0, 1 - _ks_cdf_series(x, 2.2e-16)), abs=1e-15)
    assert kuiper_pvalue(x) == pytest.approx(max(0.0, 1 - _kuiper_cdf_series(x, 2.2e-16)), abs=1e-15)


def test_mapie_cdf_values():
    from calstats.kernels.cumdiff import mapie_pvalue

    # MAPIE evaluates these series with NumPy's exp, whose SIMD kernels differ by one ulp
    # between CPUs (the stored values come from an AVX-512 machine): one ulp is allowed
    # against the stored values, and where MAPIE is installed it is matched exactly on
    # this machine.
    ulp = np.spacing(1.0)
    for row in MAPIE["cdf"]:
        assert 1 - mapie_pvalue("ks", row["x"]) == pytest.approx(row["ks_cdf"], abs=ulp)
        assert 1 - mapie_pvalue("kuiper", row["x"]) == pytest.approx(row["kuiper_cdf"], abs=ulp)
        assert ks_cdf(row["x"]) == pytest.approx(row["ks_cdf"], abs=1e-8)


def test_tail_integrals():
    ks, _ = integrate.quad(ks_pvalue, 0, 40, limit=200)
    ku, _ = integrate.quad(kuiper_pvalue, 0, 40, limit=200)
    assert ks == pytest.approx(math.sqrt(math.pi / 2), abs=1e-8)
    assert ku == pytest.approx(2 * math.sqrt(2 / math.pi), abs=1e-8)


# -- behaviour under the null and the alternative --------------------------------------

def _simulate(rs, n, calibrated):
    s = rs.uniform(0.05, 0.95, n)
    if calibrated:
        truth = s
    else:  # over-confident scores: the truth is pulled towards 1/2
        truth = 0.5 + 0.5 * (s - 0.5)
    return s, (rs.uniform(size=n) < truth).astype(int)


def test_p_values_uniform_under_calibration_and_reject_otherwise():
    rs = np.random.RandomState(2024)
    null = {f: [] for f in TESTS}
    alt = {f: [] for f in TESTS}
    for _ in range(300):
        s, y = _simulate(rs, 300, True)
        for f in TESTS:
            null[f].append(f(s, y, alternative="two.sided").p_value if f is calstats.cal_spiegelhalter_test
                           else f(s, y).p_value)
    for _ in range(40):
        s, y = _simulate(rs, 500, False)
        for f in TESTS:
            alt[f].append(f(s, y).p_value)
    from scipy.stats import kstest

    for f in TESTS:
        p = np.array(null[f])
        assert 0.35 < p.mean() < 0.65, f.__name__
        assert np.mean(p < 0.05) < 0.1, f.__name__
        assert kstest(p, "uniform").pvalue > 1e-3, f.__name__
        assert np.mean(np.array(alt[f]) < 0.05) > 0.8, f.__name__


# -- invariances, inputs, multiclass ---------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9, 0.25]), st.integers(0, 1)),
                min_size=3, max_size=30), st.randoms(use_true_random=False))
def test_row_order_does_not_matter_with_tie_blocks(rows, rnd):
    s = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    perm = list(range(len(rows)))
    rnd.shuffle(perm)
    s0, y0 = s.copy(), y.copy()
    for f in (calstats.cal_ks_test, calstats.cal_kuiper_test):
        a, b = f(s, y), f(s[perm], y[perm])
        assert _stat(a) == _stat(b) and a.p_value == b.p_value
        assert 0 <= a.p_value <= 1
    assert np.array_equal(s, s0) and np.array_equal(y, y0)


def test_kuiper_at_least_ks_and_includes_start():
    rs = np.random.RandomState(1)
    for _ in range(20):
        s, y = _simulate(rs, 50, False)
        assert _stat(calstats.cal_kuiper_test(s, y)) >= _stat(calstats.cal_ks_test(s, y)) - 1e-15


def test_multiclass_confidence_and_class_reductions():
    rs = np.random.RandomState(3)
    p = rs.dirichlet([1, 1, 1], size=100)
    y = np.array([rs.choice(3, p=r) + 1 for r in p])
    conf = calstats.cal_ks_test(p, y)
    r, c = p.max(axis=1), (p.argmax(axis=1) + 1 == y).astype(int)
    assert conf.statistic == calstats.cal_ks_test(r, c).statistic
    cls2 = calstats.cal_kuiper_test(pd.DataFrame(p), y, type="class", cls=2)
    assert cls2.statistic == calstats.cal_kuiper_test(p[:, 1], (y == 2).astype(int)).statistic
    fy = pd.Categorical(np.array(["a", "b", "c"])[y - 1], categories=["a", "b", "c"])
    assert calstats.cal_spiegelhalter_test(p, fy, type="cl", cls="c").statistic == \
        calstats.cal_spiegelhalter_test(p[:, 2], (y == 3).astype(int)).statistic
    assert calstats.cal_ks_test(p.astype(np.float32), y).p_value == pytest.approx(conf.p_value, rel=1e-5)


def test_result_objects_print_like_r():
    y, s = map(np.array, ROWS[2])
    t = calstats.cal_kuiper_test(s, y)
    assert t.inherits("htest") and t.method == "Kuiper calibration test (cumulative differences)"
    assert t.alternative == "miscalibrated" and t.parameter == {"n": 5} and t.data_name == "p and y"
    assert set(t.estimate) == {"range_cumdiff", "sigma"}
    assert "H = 2.0023, n = 5, p-value = 0.1805" in str(t)
    sp = calstats.cal_spiegelhalter_test(s, y)
    assert str(sp).splitlines()[1] == "\tSpiegelhalter calibration test"
    assert "alternative hypothesis: two-sided" in str(sp)
    assert "alternative hypothesis: greater" in str(calstats.cal_spiegelhalter_test(s, y, convention="mapie"))
    assert sp.estimate["brier"] == pytest.approx(np.mean((y - s) ** 2))
    assert sp.estimate["expected_brier"] == pytest.approx(np.mean(s * (1 - s)))
    stat, p = sp
    assert stat == sp.statistic["Z"] and p == sp.p_value


# -- errors, in the spec's order -------------------------------------------------------

def _err(fn, *args, **kw):
    with pytest.raises(calstats.CalstatsError) as e:
        fn(*args, **kw)
    return str(e.value)


@pytest.mark.parametrize("f", TESTS, ids=lambda f: f.__name__)
def test_errors(f):
    p = np.array([[0.7, 0.3], [0.2, 0.8], [0.4, 0.6]])
    assert _err(f, p, [1, 2, 1], type="bogus", convention="bogus").startswith("Argument `type` should be one of “confidence”")
    assert _err(f, p, [1, 2, 1], convention="bogus") == "Argument `convention` should be one of “calstats”, “mapie”, not “bogus”."
    assert _err(f, p * 1.5, [1, 2, 1]) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(f, p * 0.9, [1, 2, 1]) == "Each row of `p` must sum to `1`."
    assert _err(f, p, [1, 2, 3]) == "Argument `y` has 3 classes but the input has 2 columns."
    assert _err(f, p, [1, 2]) == "Arguments `p` and `y` must have the same number of observations."
    assert _err(f, p, [1, 2, 1], type="class", cls=3) == "Argument `cls` must be one of the levels of `y`."
    assert _err(f, p, [1, 2, 1], type="class") == "Argument `cls` must be one of the levels of `y`."
    assert _err(f, np.array([0.2, 1.2]), [0, 1]) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(f, np.array([0.2, 0.4]), [0, 2]) == "Argument `y` must contain only binary labels `0` and `1`."
    assert _err(f, np.array([0.2, 0.4]), [0, 1, 1]) == "Arguments `p` and `y` must have the same length."
    assert _err(f, np.array([0.2]), [0]) == "Argument `p` must contain at least two observations."
    assert _err(f, np.array([[0.5, 0.5]]), pd.Categorical(["a"], categories=["a", "b"])) == "Argument `p` must contain at least two observations."


def test_alternative_checked_and_degenerate_scales():
    s, y = np.array([0.2, 0.4]), np.array([0, 1])
    assert _err(calstats.cal_spiegelhalter_test, s, y, alternative="bogus", convention="bogus") == \
        "Argument `alternative` should be one of “two-sided”, “greater”, “less”, not “bogus”."
    msg = "All scores are 0 or 1: the scale sigma is zero and the test is undefined."
    assert _err(calstats.cal_ks_test, np.array([0.0, 1.0, 1.0]), [0, 1, 1]) == msg
    assert _err(calstats.cal_kuiper_test, np.array([0.0, 1.0]), [0, 1], convention="mapie") == msg
    assert _err(calstats.cal_spiegelhalter_test, np.array([0.0, 0.5, 1.0]), [0, 1, 1]) == \
        "The Spiegelhalter variance is zero: every score is 0, 1/2 or 1."


def test_a_missing_logical_label_makes_ks_and_kuiper_missing():
    """R's logical NA passes V-BY (quirk Q1) and makes the path NA from there on: the
    statistic and its p-value are NaN, never a p-value of 0 or 1 (Python's max(0, nan))."""
    import pandas as pd

    p = np.random.default_rng(1).uniform(size=50)
    y = pd.array((p > 0.5).tolist(), dtype="boolean")
    y[3] = pd.NA
    for test, name in ((calstats.cal_ks_test, "G"), (calstats.cal_kuiper_test, "H")):
        res = test(p, y)
        assert np.isnan(res.statistic[name]) and np.isnan(res.p_value)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 3000), st.integers(0, 2**32 - 1), st.sampled_from([None, 1, 2, 3]), st.booleans())
def test_spiegelhalter_sums_are_math_fsum(n, seed, decimals, nan_label):
    """The one-pass sums of the C core equal math.fsum of the terms, bit for bit (or fall
    back to it): ties, cancellation, 0/1/0.5 scores and missing labels included."""
    from calstats.kernels.spiegelhalter import spiegelhalter_sums, spiegelhalter_terms

    rs = np.random.default_rng(seed)
    s = rs.uniform(size=n)
    if decimals:
        s = np.round(s, decimals)
    o = (rs.uniform(size=n) < s).astype(np.int64)
    if nan_label:
        o = o.astype(np.float64)
        o[rs.integers(0, n)] = np.nan
    want = [math.fsum(t.tolist()) for t in spiegelhalter_terms(s, o)]
    got = spiegelhalter_sums(s, o)
    for a, b in zip(want, got):
        assert a == b or (math.isnan(a) and math.isnan(b))
        assert math.copysign(1.0, a) == math.copysign(1.0, b) or math.isnan(a)

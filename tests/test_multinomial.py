"""Calibration of multinomial risk models against R (tests/fixtures/multinomial.json, written
by tools/r-reference/make_multinomial.R with VGAM 1.1-7 and nnet on R 4.2.2).

Tolerance 1e-8 relative: the fits replicate VGAM's iterations (start, steps, stopping rule,
covariance of the last step), so they agree with R's printed fits to ~1e-13; the exact
maximum-likelihood fit would differ by ~1e-9 (coefficients) and ~1e-6 (standard errors).
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats import CalstatsError
from calstats.clinical.multinomial import ValMultinomial, val_multinomial
from calstats.clinical.multinomial_pdi import pdi_exact
from calstats.ports.vgam.vglm import vglm_multinomial

FIX = load_fixture("multinomial")
CASES = {c["name"]: c for c in FIX["cases"]}
RTOL = 1e-8
NAMED = ["low", "mid", "high"]


def close(a, b, rtol=RTOL, atol=0.0):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=atol)


def run(case, **kw):
    P, y = np.array(case["P"]), np.array(case["y"])
    if case["name"] == "k3_named":
        P = pd.DataFrame(P, columns=NAMED)
        y = pd.Series([NAMED[i - 1] for i in y])
        return val_multinomial(P, y, ref=NAMED[case["ref"] - 1], df=case["df"], **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return val_multinomial(P, y, ref=case["ref"], df=case["df"], **kw)


@pytest.fixture(scope="module")
def results():
    return {name: run(c) for name, c in CASES.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_against_vgam(results, name):
    c, res = CASES[name], results[name]
    m = len(c["P"][0]) - 1
    close(res.intercepts, c["intercepts"])
    close(res.intercept_table["se"], c["intercepts_se"])
    close(res.slope_intercepts, c["slopes"][:m])
    close(res.slopes, c["slopes"][m:])
    close(res.slope_table["se"], c["slopes_se"][m:])
    # VGAM's coefficient order: term by term, the equations within each term
    close(res.slope_matrix.to_numpy().T.ravel(), c["full"])
    close(res.slope_matrix_se.to_numpy().T.ravel(), c["full_se"])
    close(res.deviances, c["dev"])
    close(res.tests["p_value"], [c["p_overall"], c["p_int"], c["p_slopes"], c["p_recal"]])
    rows = np.array(c["mu_rows"]) - 1
    close(res.calibrated.to_numpy()[rows], c["flexible_mu"], atol=1e-12)
    close(res.eci, c["eci"])
    assert list(res.iterations.values()) == c["iter"]


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if "pdi" in c])
def test_pdi_against_enumeration_in_r(results, name):
    close(results[name].pdi, CASES[name]["pdi"], rtol=1e-12)
    close(results[name].pdi_classes, CASES[name]["pdi_classes"], rtol=1e-12)


def test_wald_intervals_and_tests(results):
    res = results["k4_ref2_df3"]
    z = 1.959963984540054
    t = res.intercept_table
    close(t["lower"], t["estimate"] - z * t["se"], rtol=1e-14)
    close(t["upper"], t["estimate"] + z * t["se"], rtol=1e-14)
    tests = res.tests
    d = res.deviances
    close(tests.loc["overall", "statistic"], d["original"] - d["slopes"], rtol=1e-14)
    close(tests.loc["slopes", "statistic"], d["intercepts"] - d["slopes"], rtol=1e-14)
    assert tests["df"].tolist() == [6.0, 3.0, 3.0, 12.0]
    assert list(res.intercepts.index) == ["1", "3", "4"] and res.ref == "2"


def test_level(results):
    c = CASES["k3_n50"]
    res = val_multinomial(np.array(c["P"]), np.array(c["y"]), level=0.9)
    t = res.slope_table
    close(t["upper"] - t["estimate"], 1.6448536269514722 * t["se"], rtol=1e-12)


def test_nnet_stops_earlier():
    # nnet::multinom's BFGS stops ~2e-6 from VGAM's fit (and at a slightly larger deviance)
    c = CASES["k3_n200"]
    res = val_multinomial(np.array(c["P"]), np.array(c["y"]))
    dist = np.max(np.abs(res.slope_matrix.to_numpy() - np.array(c["nnet_coef"])))
    assert 1e-8 < dist < 1e-4
    assert res.deviances["full"] <= c["nnet_deviance"]


def test_reference_class_invariance():
    # the offset model and the unconstrained model are reparametrised by the reference
    c = CASES["k4_n80"]
    P, y = np.array(c["P"]), np.array(c["y"])
    a, b = val_multinomial(P, y, ref=1), val_multinomial(P, y, ref=3)
    close(a.deviances[["original", "intercepts", "full"]], b.deviances[["original", "intercepts", "full"]],
          rtol=1e-9)
    close(a.pdi, b.pdi, rtol=1e-15)


def test_named_columns_and_labels(results):
    res = results["k3_named"]
    assert res.classes == NAMED and res.ref == "mid"
    assert list(res.intercepts.index) == ["low", "high"]
    assert list(res.calibrated.columns) == NAMED
    c = CASES["k3_named"]
    coded = val_multinomial(np.array(c["P"]), np.array(c["y"]), ref=2)
    close(coded.intercepts.to_numpy(), res.intercepts.to_numpy(), rtol=0)
    # a categorical with the levels in column order, and float32 input
    cat = pd.Categorical([NAMED[i - 1] for i in c["y"]], categories=NAMED)
    again = val_multinomial(np.array(c["P"], dtype=np.float32), cat, ref=2)
    close(again.intercepts.to_numpy(), res.intercepts.to_numpy(), rtol=1e-5)


def test_inputs_not_modified():
    c = CASES["k3_n50"]
    P, y = np.array(c["P"]), np.array(c["y"])
    P0, y0 = P.copy(), y.copy()
    val_multinomial(P, y)
    assert np.array_equal(P, P0) and np.array_equal(y, y0)


def test_extreme_predictions_warn_like_vgam():
    c = CASES["k3_extreme"]
    with pytest.warns(UserWarning, match="diagonal elements of the working weights variable 'wz'"):
        val_multinomial(np.array(c["P"]), np.array(c["y"]))


# -- PDI ----------------------------------------------------------------------------------


def pdi_enumerate(P, codes):
    k = P.shape[1]
    groups = [np.flatnonzero(codes == j) for j in range(k)]
    comps = []
    for c in range(k):
        total = 0.0
        count = 0
        for tup in itertools.product(*groups):
            s = P[list(tup), c]
            top = s.max()
            total += (s[c] == top) / np.sum(s == top)
            count += 1
        comps.append(total / count)
    return float(np.mean(comps)), comps


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 4), st.integers(0, 10_000), st.sampled_from([1, 2, 10]))
def test_pdi_matches_enumeration(k, seed, digits):
    rng = np.random.default_rng(seed)
    n = 3 * k
    P = np.round(rng.dirichlet(np.ones(k), n), digits)  # coarse rounding makes ties
    codes = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    pdi, comps = pdi_exact(P, codes, [str(j) for j in range(k)])
    want, want_c = pdi_enumerate(P, codes)
    assert math.isclose(pdi, want, rel_tol=1e-12)
    close(comps, want_c, rtol=1e-12)


def test_pdi_hand_cases():
    codes = np.array([0, 1, 2, 0, 1, 2])
    # perfect separation: each class has the highest probability of its own class
    P = np.eye(3)[codes] * 0.8 + 0.1 - np.eye(3)[codes] * 0.1
    assert pdi_exact(P, codes, list("abc"))[0] == 1.0
    # identical predictions: every tuple is a K-way tie, 1/K each
    flat = np.full((6, 3), 1 / 3)
    assert math.isclose(pdi_exact(flat, codes, list("abc"))[0], 1 / 3, rel_tol=1e-15)
    # one class k = 0 row tied with one class-1 row and above the others: credit 1/2
    P = np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]])
    comp0 = pdi_exact(P, np.array([0, 1, 2]), list("abc"))[1].iloc[0]
    assert comp0 == 0.5


# -- the result object ------------------------------------------------------------------


def test_report(results):
    res = results["k3_n50"]
    assert isinstance(res, ValMultinomial) and res.inherits("list")
    text = res.print_text()
    for part in ("Calibration intercepts:", "Calibration slopes:", "Likelihood-ratio tests:",
                 "Polytomous discrimination index:", "log(p_2/p_1)", "ECI (x 100):"):
        assert part in text
    frame = res.as_frame()
    assert frame["statistic"].tolist()[:4] == ["intercept", "intercept", "slope", "slope"]
    assert frame.loc[frame["statistic"] == "PDI", "estimate"].item() == res.pdi
    assert "Calibration intercepts" in res.summary().as_text() or "calibration intercepts" in res.summary().as_text()
    assert "<table" in res._repr_html_()
    cur = res.curve("2")
    assert np.all(np.diff(cur["predicted"]) >= 0) and len(cur) == 50


def test_plot(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = results["k4_n80"].plot()
    flat = np.asarray(axes).ravel()
    assert [ax.get_title() for ax in flat[:4]] == ["class 1", "class 2", "class 3", "class 4"]
    assert not flat[4].get_visible()
    plt.close("all")


# -- messages ---------------------------------------------------------------------------

P3 = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2], [0.3, 0.4, 0.3], [0.1, 0.1, 0.8]])
Y3 = np.array([1, 2, 3, 3])


@pytest.mark.parametrize("kwargs, message", [
    ({"ref": 4}, "Argument `ref` must be a class number from 1 to 3 or a column name of `p`."),
    ({"ref": "x"}, "Argument `ref` must be a class number from 1 to 3 or a column name of `p`."),
    ({"ref": True}, "Argument `ref` must be a class number from 1 to 3 or a column name of `p`."),
    ({"df": 0}, "Argument `df` must be a single whole number of at least 1."),
    ({"df": 2.5}, "Argument `df` must be a single whole number of at least 1."),
    ({"level": 95}, "Argument `level` must be a single number in `(0, 1)`."),
])
def test_argument_messages(kwargs, message):
    with pytest.raises(CalstatsError, match=None) as e:
        val_multinomial(P3, Y3, **kwargs)
    assert str(e.value) == message


def test_data_messages():
    P = P3.copy()
    P[0] = [0.0, 0.5, 0.5]
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P, Y3)
    assert str(e.value) == "Argument `p` must contain probabilities greater than 0 (log(p_k / p_ref) must be finite)."
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P3, np.array([1, 1, 3, 3]))
    assert str(e.value) == "Every class must occur in `y`; class `2` does not."
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P3, np.array([1, 2, 3]))
    assert str(e.value) == "Arguments `p` and `y` must have the same number of observations."
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P3, np.array([1, 2, 3, 4]))
    assert str(e.value) == "Argument `y` has 4 classes but the input has 3 columns."
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P3 * 2, Y3)
    assert str(e.value) == "Argument `p` must contain probabilities in `[0, 1]`."


def test_vgam_messages():
    # equal p2 and p3 make the two linear predictors one column: rank deficient
    P = np.array([[0.2, 0.4, 0.4], [0.6, 0.2, 0.2], [0.4, 0.3, 0.3], [0.1, 0.45, 0.45], [0.5, 0.25, 0.25]])
    with pytest.raises(CalstatsError) as e:
        val_multinomial(P, np.array([1, 2, 3, 3, 1]))
    assert str(e.value) == "vglm() only handles full-rank models (currently)"
    with pytest.raises(CalstatsError) as e:
        vglm_multinomial(np.ones((2, 4)), np.array([0, 1]), 3, 0)
    assert str(e.value) == "There are 8 parameters but only 4 observations"


@pytest.mark.parametrize("name", list(CASES))
def test_polcal_vgam_calls(name):
    # Polcal fits intercepts and slopes with vgam() (no smooth terms), whose stopping rule
    # scales by n^(1/4) instead of vglm's n^(1/2); n_root=4 is that fit
    c = CASES[name]
    P, y, r = np.array(c["P"]), np.array(c["y"]) - 1, c["ref"] - 1
    n, k = P.shape
    m = k - 1
    keep = [j for j in range(k) if j != r]
    LP = np.log(P[:, keep] / P[:, [r]])
    one = np.ones((n, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fi = vglm_multinomial(one, y, k, r, offset=LP, n_root=4)
        fs = vglm_multinomial(np.hstack([one, LP]), y, k, r, n_root=4,
                              constraints=[np.eye(m)] + [np.eye(m)[:, [j]] for j in range(m)])
    close(fi.coef, c["polcal_intercepts"])
    close(fi.se, c["polcal_intercepts_se"])
    close(fs.coef, c["polcal_slopes"])
    close(fs.se, c["polcal_slopes_se"])
    assert [fi.iter, fs.iter] == c["polcal_iter"]


def test_factor_and_zero_based_names():
    from calstats._factor import Factor

    c = CASES["k3_named"]
    P, y = np.array(c["P"]), np.array(c["y"])
    base = val_multinomial(P, y, ref=2)
    # columns named 0..K-1 take labels 0..K-1
    zero = val_multinomial(pd.DataFrame(P, columns=[0, 1, 2]), y - 1, ref="1")
    close(zero.intercepts.to_numpy(), base.intercepts.to_numpy(), rtol=0)
    # a Factor is matched to the column names by its labels, whatever its level order
    fac = Factor([NAMED[i - 1] for i in y], levels=["high", "low", "mid"])
    named = val_multinomial(pd.DataFrame(P, columns=NAMED), fac, ref="mid")
    close(named.intercepts.to_numpy(), base.intercepts.to_numpy(), rtol=0)

"""cal_evidential and combine_calibrated (seed-methods.md B; Xu, Davoine & Denoeux 2015)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import calstats
from calstats import rng
from calstats.calibrators.evidential import GAMMA_LR95, optimistic_decision, pl_combine

# The reference data set of seed-methods.md A.2 / B.6.
Z = np.array([[2.0, 0.5, -1.0], [1.2, 1.0, 0.1], [-0.5, 2.2, 0.3], [0.3, 0.1, 1.9], [1.5, -0.2, 0.4],
              [0.2, 1.4, 1.1], [-1.0, 0.3, 2.5], [0.8, 0.9, 0.7], [1.9, 1.1, -0.3], [-0.2, 0.4, 1.3]])
Y = [1, 2, 2, 3, 1, 3, 3, 2, 1, 1]
S_NEW = np.array([[0.5, 0.2, -0.1], [-0.3, 1.0, 0.9]])

REF = {
    "smoothed": dict(theta=0.5548910382, se=0.39461412, value=0.9880067569, pl0=0.3308615340,
                     g50=(0.1123301458, 1.0572238352), g146=(0.0, 1.4470935059)),
    "hard": dict(theta=1.4688385683, se=0.67611516, value=0.6415382009, pl0=0.0103502886,
                 g50=(0.7887960106, 2.4284581108), g146=(0.4289347502, 3.2965229205)),
}
PRED_PROB = [[0.3900966, 0.3302755, 0.2796279], [0.1998638, 0.4111650, 0.3889712]]
PRED_SAMPLING = [[0.4482781, 0.4203830, 0.3187354], [0.2949815, 0.5335913, 0.4169146]]
PRED_UPPER = [[0.4482781, 0.3328866, 0.3187354], [0.2949815, 0.4664494, 0.4169146]]


@pytest.fixture(scope="module")
def fits():
    return {t: calstats.cal_evidential(Z, Y, targets=t) for t in ("smoothed", "hard")}


# -- reference values (§B.6) --------------------------------------------------------


@pytest.mark.parametrize("targets", ["smoothed", "hard"])
def test_reference_estimates(fits, targets):
    fit, ref = fits[targets], REF[targets]
    assert fit.theta == pytest.approx(ref["theta"], abs=1e-9)
    assert fit.se == pytest.approx(ref["se"], abs=1e-8)
    assert fit.value == pytest.approx(ref["value"], abs=1e-9)
    assert fit.pl0 == pytest.approx(ref["pl0"], abs=1e-9)
    assert fit.loglik == pytest.approx(-ref["value"] * 10, abs=1e-8)
    assert fit.convergence == 0 and fit.boundary is False
    np.testing.assert_allclose(fit.level_set(0.5), ref["g50"], atol=1e-9)
    np.testing.assert_allclose(fit.level_set(0.146447), ref["g146"], atol=1e-9)
    assert fit.coef == {"theta": fit.theta}


def test_hard_targets_match_temperature_scaling(fits):
    temp = calstats.cal_temperature(Z, Y).temperature
    assert 1.0 / fits["hard"].theta == pytest.approx(temp, rel=1e-6)


def test_reference_predictions(fits):
    fit = fits["smoothed"]
    np.testing.assert_allclose(fit.predict(S_NEW, type="prob").to_numpy(), PRED_PROB, atol=1e-7)
    np.testing.assert_allclose(fit.predict(S_NEW).to_numpy(), PRED_SAMPLING, atol=1e-6)
    up = calstats.cal_evidential(Z, Y, plausibility="upper")
    np.testing.assert_allclose(up.predict(S_NEW).to_numpy(), PRED_UPPER, atol=1e-6)
    # finer grid: closer to the N = 16384 reference
    np.testing.assert_allclose(fit.predict(S_NEW, grid=4096).to_numpy(), PRED_SAMPLING, atol=2e-7)


def test_lr_interval_is_the_95_percent_likelihood_interval(fits):
    fit = fits["hard"]
    from scipy.stats import chi2

    # seed-methods.md B.6 prints gamma* as 0.146447; its definition exp(-qchisq(.95, 1)/2) is 0.1465001
    assert GAMMA_LR95 == pytest.approx(math.exp(-chi2.ppf(0.95, 1) / 2), rel=1e-14)
    lo, hi = fit.lr_interval
    assert fit.contour(lo) == pytest.approx(GAMMA_LR95, abs=1e-10)
    assert fit.contour(hi) == pytest.approx(GAMMA_LR95, abs=1e-10)
    # twice the log-likelihood drop is the chi-square(1) 95% quantile
    assert 2 * (math.log(1) - math.log(fit.contour(hi))) == pytest.approx(3.841458820694124, rel=1e-9)


# -- object protocol --------------------------------------------------------------


def test_object_fields_and_call(fits):
    fit = fits["smoothed"]
    assert fit.r_class == ("cal_evidential", "cal_multiclass", "calibrator")
    assert fit.inherits("cal_multiclass")
    assert fit.names() == ["method", "n", "input", "theta", "se", "loglik", "value", "convergence", "boundary",
                           "pl0", "lr_interval", "class_counts", "targets", "plausibility", "predictive", "grid",
                           "n_mc", "tol", "level_method", "seed", "k", "levels", "call"]
    assert fit.method == "evidential multinomial calibration" and fit.input == "scores (matrix)"
    assert fit.n == 10 and fit.k == 3 and fit.levels == ["1", "2", "3"]
    assert fit["class_counts"].tolist() == [4, 3, 3]
    assert fit.call["function"] == "cal_evidential" and list(fit.call["args"]) == ["scores", "y", "targets"]
    assert fits["hard"].call["args"]["targets"] == "hard"


def test_summary_lines_and_details(fits):
    s = fits["smoothed"].summary()
    assert s.items == [("Theta", "0.5549"), ("SE", "0.3946"), ("LikelihoodInterval95", "[0, 1.447]"),
                       ("PlausibilityTheta0", "0.3309"), ("Targets", "smoothed")]
    text = s.as_text()
    assert "Details" in text and "level_sets" in text
    lv = s.as_frames()["level_sets"]
    np.testing.assert_allclose(lv.loc[0.5].to_numpy(), REF["smoothed"]["g50"], atol=1e-9)
    assert (np.diff(lv["lower"]) <= 0).all() and (np.diff(lv["upper"]) >= 0).all()
    assert "<h5>level_sets</h5>" in s.as_html()


def test_predict_types_and_pandas(fits):
    fit = fits["smoothed"]
    df = pd.DataFrame(S_NEW.astype(np.float32), index=["a", "b"], columns=["x", "y", "z"])
    pl = fit.predict(df)
    assert list(pl.columns) == fit.levels and list(pl.index) == ["a", "b"]
    cls = fit.predict(S_NEW, type="class")
    assert isinstance(cls, pd.Categorical) and list(cls.categories) == fit.levels
    assert list(cls.astype(str)) == ["1", "2"]
    prob = fit.predict(S_NEW, type="prob").to_numpy()
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, atol=1e-15)
    with pytest.raises(calstats.CalstatsError, match="must have 3 columns, one per class"):
        fit.predict(S_NEW[:, :2])
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        fit.predict(S_NEW, type="probability")
    assert np.array_equal(S_NEW, np.array([[0.5, 0.2, -0.1], [-0.3, 1.0, 0.9]]))


def test_factor_labels_and_inputs_not_modified():
    y = pd.Categorical(["a", "b", "b", "c", "a", "c", "c", "b", "a", "a"])
    Zc = Z.copy()
    fit = calstats.cal_evidential(pd.DataFrame(Z), y)
    assert fit.levels == ["a", "b", "c"]
    assert np.array_equal(Z, Zc)
    assert fit.theta == pytest.approx(REF["smoothed"]["theta"], abs=1e-9)


# -- contour function and level sets ---------------------------------------------


def test_contour_function(fits):
    fit = fits["smoothed"]
    assert fit.contour(fit.theta) == pytest.approx(1.0, abs=1e-15)
    assert fit.contour(0.0) == pytest.approx(fit.pl0, rel=1e-12)
    th = np.linspace(0, 5, 101)
    lp = np.log(fit.contour(th))
    assert (np.diff(lp, 2) <= 1e-12).all()  # log-concave
    assert fit.level_set(1.0) == (fit.theta, fit.theta)
    with pytest.raises(calstats.CalstatsError, match="^Argument `theta` must be non-negative.$"):
        fit.contour([-0.1, 1])


@pytest.mark.parametrize("gamma", [0.99, 0.5, 0.2, 0.01, 1e-6])
def test_bisection_matches_root_on_the_plausibility_scale(fits, gamma):
    for fit in fits.values():
        a, b = fit.level_set(gamma)
        ab, bb = fit.level_set(gamma, method="bisection", tol=1e-5)
        if a == 0:
            assert ab == 0
        else:
            assert abs(fit.contour(ab) - gamma) <= 0.5e-5 and abs(fit.contour(a) - gamma) < 1e-12
        assert abs(fit.contour(bb) - gamma) <= 0.5e-5 and abs(fit.contour(b) - gamma) < 1e-12


def test_root_solver_agrees_with_brent(fits):
    from scipy.optimize import brentq

    fit = fits["hard"]
    ell_hat = -fit.loglik
    for gamma in (0.9, 0.3, 0.05):
        def h(t):
            return ell_hat - fit._lik.ell(t) - math.log(gamma)

        a, b = fit.level_set(gamma)
        assert a == pytest.approx(brentq(h, 0, fit.theta, xtol=1e-13), abs=1e-11)
        assert b == pytest.approx(brentq(h, fit.theta, 100, xtol=1e-13), abs=1e-11)


def test_bisection_level_method_fit():
    fit = calstats.cal_evidential(Z, Y, level_method="bisection", tol=1e-6)
    lo, hi = fit.lr_interval
    assert lo == 0 and abs(fit.contour(hi) - GAMMA_LR95) <= 0.5e-6


def test_boundary_theta_zero_warns():
    # scores that rank the labels worse than chance
    with pytest.warns(calstats.CalstatsWarning, match="^The maximum-likelihood theta is 0: the scores do not rank "
                                                     "the labels better than chance.$"):
        fit = calstats.cal_evidential(-Z, Y)
    assert fit.theta == 0 and fit.boundary is True and math.isnan(fit.se) and fit.pl0 == 1.0
    assert fit.lr_interval[0] == 0 and fit.lr_interval[1] > 0
    pl = fit.predict(S_NEW).to_numpy()
    assert (pl >= 1 / 3 - 1e-12).all()
    assert fit.summary().items[1] == ("SE", "NA")  # as_character of a missing value


# -- predictive plausibility: exact vs Monte Carlo --------------------------------


def _random_case(seed, n=30, k=4):
    rs = np.random.RandomState(seed)
    y = rs.randint(0, k, n)
    S = rs.normal(size=(n, k))
    S[np.arange(n), y] += rs.uniform(0.5, 2.0)
    S[0, 0] += 1.0
    y[:k] = np.arange(k)
    X = rs.normal(scale=1.5, size=(6, k))
    return S, y + 1, X


@pytest.mark.parametrize("plaus", ["sampling", "upper"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_monte_carlo_agrees_with_exact(plaus, seed):
    S, y, X = _random_case(seed)
    fit = calstats.cal_evidential(S, y, plausibility=plaus)
    exact = fit.predict(X).to_numpy()
    mc = fit.predict(X, method="montecarlo", seed=seed)
    se = mc.attrs["std_error"]
    assert (np.abs(mc.to_numpy() - exact) <= 4.5 * np.maximum(se, 1e-3)).all()
    qmc = fit.predict(X, method="qmc", seed=seed).to_numpy()
    assert np.abs(qmc - exact).max() < 0.01


def test_monte_carlo_seed_semantics():
    fit = calstats.cal_evidential(Z, Y, method="montecarlo", n_mc=2000, seed=7)
    glob = calstats.cal_evidential(Z, Y, method="montecarlo", n_mc=2000)
    rng.set_seed(99)
    before = rng.get_state_r()
    a = fit.predict(S_NEW)
    assert np.array_equal(rng.get_state_r(), before)  # global stream put back
    b = fit.predict(S_NEW)
    assert np.array_equal(a.to_numpy(), b.to_numpy())
    rng.set_seed(5)
    c = glob.predict(S_NEW)
    after = rng.get_state_r()
    rng.set_seed(5)
    rng.runif(4000)
    assert np.array_equal(rng.get_state_r(), after)  # runif(n_mc) twice on the global stream
    rng.set_seed(5)
    assert np.array_equal(c.to_numpy(), glob.predict(S_NEW).to_numpy())
    assert np.array_equal(a.to_numpy(), glob.predict(S_NEW, seed=7).to_numpy())


def test_exact_grid_convergence():
    S, y, X = _random_case(3, n=25)
    fit = calstats.cal_evidential(S, y)
    fine = fit.predict(X, grid=8192).to_numpy()
    assert np.abs(fit.predict(X, grid=256).to_numpy() - fine).max() < 5e-5
    assert np.abs(fit.predict(X).to_numpy() - fine).max() < 5e-6


# -- properties -----------------------------------------------------------------------


@st.composite
def _cases(draw):
    k = draw(st.integers(2, 5))
    n = draw(st.integers(k + 2, 30))
    seed = draw(st.integers(0, 2**31 - 1))
    rs = np.random.RandomState(seed)
    y = rs.randint(0, k, n)
    y[:k] = np.arange(k)
    S = rs.normal(scale=draw(st.floats(0.2, 4.0)), size=(n, k))
    S[np.arange(n), y] += draw(st.floats(0.0, 3.0))
    X = rs.normal(scale=2.0, size=(4, k))
    return S, y + 1, X


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_plausibility_properties(case):
    S, y, X = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", calstats.CalstatsWarning)
        fit = calstats.cal_evidential(S, y, grid=128)
        up = calstats.cal_evidential(S, y, grid=128, plausibility="upper")
        rev = calstats.cal_evidential(S[:, ::-1], (S.shape[1] + 1) - y, grid=128)
    pl = fit.predict(X).to_numpy()
    prob = fit.predict(X, type="prob").to_numpy()
    plu = up.predict(X).to_numpy()
    assert (pl >= prob - 1e-9).all() and (pl <= 1 + 1e-12).all()
    assert (pl.sum(axis=1) >= 1 - 1e-9).all()
    assert (plu <= pl + 1e-9).all() and (plu >= prob - 1e-9).all()
    np.testing.assert_allclose(plu[:, [0, -1]], pl[:, [0, -1]], atol=1e-12)
    # reversing the class order leaves pl_s unchanged (the intervals mirror)
    np.testing.assert_allclose(rev.predict(X[:, ::-1]).to_numpy()[:, ::-1], pl, atol=1e-9)
    # level sets are nested and their ends have plausibility gamma
    a1, b1 = fit.level_set(0.8)
    a2, b2 = fit.level_set(0.1)
    assert a2 <= a1 <= fit.theta <= b1 <= b2


# -- errors, in the spec's order --------------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    (dict(targets="soft"), "Argument `targets` should be one of “smoothed”, “hard”, not “soft”."),
    (dict(plausibility="lower"), "Argument `plausibility` should be one of “sampling”, “upper”, not “lower”."),
    (dict(method="mc"), "Argument `method` should be one of “exact”, “montecarlo”, “qmc”, not “mc”; "
                        "did you mean “montecarlo”?"),
    (dict(level_method="newton"), "Argument `level_method` should be one of “root”, “bisection”, not “newton”."),
    (dict(grid=8), "Argument `grid` must be a single integer of at least 16."),
    (dict(grid=100.5), "Argument `grid` must be a single integer of at least 16."),
    (dict(n_mc=0), "Argument `n_mc` must be a single positive integer."),
    (dict(tol=1.0), "Argument `tol` must be a single number in `(0, 1)`."),
    (dict(tol=0), "Argument `tol` must be a single number in `(0, 1)`."),
])
def test_argument_errors(kwargs, message):
    with pytest.raises(calstats.CalstatsError) as e:
        calstats.cal_evidential(Z, Y, **kwargs)
    assert str(e.value) == message


def test_error_order_and_data_errors():
    # match.arg comes before the score checks
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        calstats.cal_evidential("x", Y, targets="bad")
    with pytest.raises(calstats.CalstatsError, match="^Argument `scores` must be a numeric matrix"):
        calstats.cal_evidential([1, 2, 3], Y, grid=1)
    bad = Z.copy()
    bad[0, 0] = np.nan
    with pytest.raises(calstats.CalstatsError, match="^Argument `scores` must not contain missing or infinite"):
        calstats.cal_evidential(bad, Y)
    with pytest.raises(calstats.CalstatsError, match="has 2 classes but the input has 3 columns"):
        calstats.cal_evidential(Z, [1, 2] * 5)
    with pytest.raises(calstats.CalstatsError, match="must have the same number of observations"):
        calstats.cal_evidential(Z, Y[:9], grid=1)
    # grid before n_mc before tol
    with pytest.raises(calstats.CalstatsError, match="`grid`"):
        calstats.cal_evidential(Z, Y, grid=1, n_mc=0, tol=2)
    with pytest.raises(calstats.CalstatsError, match="`n_mc`"):
        calstats.cal_evidential(Z, Y, n_mc=0, tol=2)
    const = np.ones((10, 3)) * np.arange(10)[:, None]
    with pytest.raises(calstats.CalstatsError) as e:
        calstats.cal_evidential(const, Y, targets="hard")
    assert str(e.value) == "Argument `scores` must vary within at least one row."
    sep = np.eye(3)[np.array(Y) - 1] * 2.0
    with pytest.raises(calstats.CalstatsError) as e:
        calstats.cal_evidential(sep, Y, targets="hard")
    assert str(e.value) == ("The scores separate the classes perfectly: the maximum-likelihood theta is infinite. "
                            "Use `targets = \"smoothed\"`.")
    fit = calstats.cal_evidential(sep, Y)  # smoothed targets: finite theta
    assert math.isfinite(fit.theta) and fit.theta > 0


@pytest.mark.parametrize("gamma", [0, -0.5, 1.5, float("nan"), "a", [0.1, 0.2]])
def test_level_set_gamma_error(fits, gamma):
    with pytest.raises(calstats.CalstatsError) as e:
        fits["smoothed"].level_set(gamma)
    assert str(e.value) == "Argument `gamma` must be a single number in `(0, 1]`."


# -- combination (§B.5) -------------------------------------------------------------


def test_pl_combine_and_decision():
    a = np.array([[0.9, 0.5, 0.1], [0.2, 0.2, 0.9]])
    b = np.array([[0.5, 0.8, 0.2], [0.3, 0.6, 0.9]])
    out = pl_combine(a, b)
    prod = a * b
    np.testing.assert_allclose(out, prod / prod.sum(axis=1, keepdims=True), rtol=1e-14)
    assert list(optimistic_decision(out).astype(str)) == ["1", "3"]
    with pytest.warns(calstats.CalstatsWarning, match=r"^Total conflict in 1 row\(s\): the combined plausibility "
                                                      "is undefined.$"):
        c = pl_combine(np.array([[1.0, 0.0], [0.5, 0.5]]), np.array([[0.0, 1.0], [0.5, 0.5]]))
    assert np.isnan(c[0]).all() and np.allclose(c[1], 0.5)
    # tiny values underflow in a product but not as a sum of logs
    tiny = np.full((1, 2), 1e-200)
    np.testing.assert_allclose(pl_combine(tiny, tiny, tiny * [[1, 2]]), [[1 / 3, 2 / 3]])


def test_combine_calibrated_fits_and_predictions(fits):
    fit, hard = fits["smoothed"], fits["hard"]
    X2 = S_NEW * 1.5
    comb = calstats.combine_calibrated(fit, hard, newdata=[S_NEW, X2])
    manual = pl_combine(fit.predict(S_NEW), hard.predict(X2))
    np.testing.assert_allclose(comb.to_numpy(), manual.to_numpy(), rtol=1e-14)
    np.testing.assert_allclose(comb.sum(axis=1), 1.0, atol=1e-14)
    probc = calstats.combine_calibrated(fit, hard, newdata=[S_NEW, X2], type="prob")
    p1, p2 = fit.predict(S_NEW, type="prob").to_numpy(), hard.predict(X2, type="prob").to_numpy()
    np.testing.assert_allclose(probc.to_numpy(), p1 * p2 / (p1 * p2).sum(axis=1, keepdims=True), rtol=1e-13)
    cls = calstats.combine_calibrated(fit.predict(S_NEW), hard.predict(X2), output="class")
    assert list(cls.codes) == list(comb.to_numpy().argmax(axis=1))
    # other calibrators contribute probabilities
    temp = calstats.cal_temperature(Z, Y)
    mixed = calstats.combine_calibrated(fit, temp, newdata=S_NEW)
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0)
    with pytest.raises(calstats.CalstatsError, match="`newdata` is required"):
        calstats.combine_calibrated(fit, hard)
    with pytest.raises(calstats.CalstatsError, match="one input per source"):
        calstats.combine_calibrated(fit, hard, newdata=[S_NEW])
    other = pd.DataFrame(np.full((2, 3), 1 / 3), columns=["a", "b", "c"])
    with pytest.raises(calstats.CalstatsError, match="identical classes"):
        calstats.combine_calibrated(fit.predict(S_NEW), other)

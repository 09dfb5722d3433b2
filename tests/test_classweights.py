"""Class-weight loss correction (seed-methods.md E; Caplin, Martin & Marx)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from calstats.calibrators.classweights import LossCalibrationCurve, PerronArray, optimal_score

loss_correct = calstats.loss_correct


# -- binary (§E.1, E.4) ------------------------------------------------------------


def test_binary_optimal_score_properties():
    g = np.linspace(0.01, 0.99, 99)
    for beta in (0.6, 0.9, 0.99):
        c = optimal_score(g, beta=beta)
        assert (np.diff(c) > 0).all() and (c > g).all()  # over-scoring of the up-weighted class
        assert optimal_score([0.5], beta=beta)[0] == pytest.approx(beta, abs=1e-15)
        # eq. (8) as printed: beta gamma / (1 - beta - gamma + 2 beta gamma)
        np.testing.assert_allclose(c, beta * g / (1 - beta - g + 2 * beta * g), rtol=1e-14)
    assert (optimal_score(g, beta=0.2) < g).all()  # the seed's sentence for beta < 1/2, corrected (F19)
    np.testing.assert_array_equal(optimal_score(g, beta=0.5), g)


def test_binary_corollary_formula_and_exact_ends():
    a = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    beta = 0.9
    np.testing.assert_allclose(loss_correct(a, beta=beta), (1 - beta) * a / (beta + (1 - 2 * beta) * a), rtol=1e-15)
    out = loss_correct(a, beta=beta)
    assert out[0] == 0.0 and out[-1] == 1.0 and out[2] == pytest.approx(0.1)


def test_delta_is_dal_pozzolo_and_equals_beta_form():
    a = np.linspace(0, 1, 41)
    delta = 0.1  # one positive kept for every ten negatives
    h = loss_correct(a, delta=delta)
    np.testing.assert_allclose(h, delta * a / (1 + (delta - 1) * a), rtol=1e-15)
    np.testing.assert_allclose(h, loss_correct(a, beta=1 / (1 + delta)), atol=1e-15)
    np.testing.assert_allclose(optimal_score(h, delta=delta), a, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 0.999), st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20))
def test_binary_inverse_recovers_posterior(beta, gammas):
    g = np.array(gammas)
    np.testing.assert_allclose(loss_correct(optimal_score(g, beta=beta), beta=beta), g, atol=1e-12, rtol=0)


# -- multiclass (§E.2, E.3) -----------------------------------------------------------


def _posteriors(rs, n, k):
    return rs.dirichlet(np.full(k, 0.7), size=n)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_class_weight_closed_form_recovers_simulated_probabilities(k):
    rs = np.random.RandomState(k)
    g = _posteriors(rs, 200, k)
    w = rs.uniform(0.05, 20, k)
    a = optimal_score(g, weights=w)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-14)  # the class-weight map stays on the simplex
    np.testing.assert_allclose(loss_correct(a, weights=w), g, atol=1e-12, rtol=0)
    # scikit-learn's "balanced" weights w_y ∝ 1/n_y: multiply by frequencies and renormalise
    freq = rs.dirichlet(np.ones(k))
    corr = loss_correct(a, weights=1 / freq)
    expected = a * freq / (a * freq).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(corr, expected, rtol=1e-13)


@pytest.mark.parametrize("k", [2, 3, 4, 7, 10])
def test_perron_inverse_recovers_simulated_probabilities(k):
    rs = np.random.RandomState(100 + k)
    g = _posteriors(rs, 100, k)
    B = rs.uniform(0.1, 10, (k, k))
    a = optimal_score(g, beta=B)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # loss-calibrated scores: no warning
        out = loss_correct(a, beta=B)
    assert isinstance(out, PerronArray)
    np.testing.assert_allclose(out, g, atol=1e-12, rtol=0)
    np.testing.assert_allclose(out.spectral_radius, 1.0, atol=1e-10)


def test_perron_equals_closed_form_for_class_weights():
    rs = np.random.RandomState(3)
    g = _posteriors(rs, 50, 4)
    w = rs.uniform(0.5, 5, 4)
    a = optimal_score(g, weights=w)
    B = np.repeat(w[:, None], 4, axis=1)  # beta[y, y'] = w_y
    np.testing.assert_allclose(loss_correct(a, beta=B), loss_correct(a, weights=w), atol=1e-13)


def test_weights_of_the_scored_coordinate_do_not_distort():
    rs = np.random.RandomState(4)
    g = _posteriors(rs, 20, 3)
    B = np.repeat(np.array([[1.0, 3.0, 0.2]]), 3, axis=0)  # beta[y', y] = v_y
    np.testing.assert_allclose(optimal_score(g, beta=B), g, atol=1e-15)


def test_large_k_power_iteration():
    rs = np.random.RandomState(5)
    k = 60
    g = _posteriors(rs, 5, k)
    B = rs.uniform(0.5, 2, (k, k))
    out = loss_correct(optimal_score(g, beta=B), beta=B)
    np.testing.assert_allclose(out, g, atol=1e-12)


def test_not_loss_calibrated_warns_and_reports_radius():
    B = np.full((3, 3), 2.0)
    a = np.array([[0.5, 0.5, 0.5], [0.2, 0.3, 0.4]])
    with pytest.warns(calstats.CalstatsWarning, match=r"^2 score vector\(s\) are not loss-calibrated under the "
                                                      r"given weights \(spectral radius differs from 1\); "
                                                      "returning the nearest Perron solution.$"):
        out = loss_correct(a, beta=B)
    assert out.spectral_radius[0] == pytest.approx(2.0)
    np.testing.assert_allclose(out[0], 1 / 3)
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    # the Perron solution: optimal-score odds proportional to the observed odds
    odds = optimal_score(np.asarray(out), beta=B)
    odds = odds / (1 - odds)
    ratio = odds / (a / (1 - a))
    np.testing.assert_allclose(ratio / ratio[:, :1], 1.0, rtol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_perron_property(k, seed):
    rs = np.random.RandomState(seed)
    g = _posteriors(rs, 5, k)
    g = np.maximum(g, 1e-6)
    g /= g.sum(axis=1, keepdims=True)
    B = rs.uniform(0.2, 5, (k, k))
    np.testing.assert_allclose(loss_correct(optimal_score(g, beta=B), beta=B), g, atol=1e-11)


# -- types ------------------------------------------------------------------------------


def test_pandas_types_are_kept():
    s = pd.Series([0.2, 0.9], index=["u", "v"], name="score")
    out = loss_correct(s, beta=0.8)
    assert isinstance(out, pd.Series) and list(out.index) == ["u", "v"] and out.name == "score"
    df = pd.DataFrame([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], index=["a", "b"], columns=["x", "y", "z"])
    outw = loss_correct(df, weights=[1, 2, 3])
    assert isinstance(outw, pd.DataFrame) and list(outw.columns) == ["x", "y", "z"]
    with pytest.warns(calstats.CalstatsWarning, match="not loss-calibrated"):
        outb = loss_correct(df, beta=np.full((3, 3), 1.0) + np.eye(3))
    assert "spectral_radius" in outb.attrs and len(outb.attrs["spectral_radius"]) == 2
    f32 = loss_correct(np.array([0.25, 0.5], dtype=np.float32), beta=0.5)
    assert f32.dtype == np.float64
    np.testing.assert_allclose(f32, [0.25, 0.5])


# -- errors, in the spec's order -------------------------------------------------------


@pytest.mark.parametrize("p, kwargs, message", [
    ([0.2], {}, "Supply exactly one of `beta`, `weights`, `delta`."),
    ([0.2], dict(beta=0.5, delta=1.0), "Supply exactly one of `beta`, `weights`, `delta`."),
    ([0.2], dict(beta=1.0), "Argument `beta` must be a single number in `(0, 1)`."),
    ([0.2], dict(beta=0), "Argument `beta` must be a single number in `(0, 1)`."),
    ([0.2], dict(beta=[0.2, 0.3]), "Argument `beta` must be a single number in `(0, 1)`."),
    ([0.2], dict(beta="a"), "Argument `beta` must be a single number in `(0, 1)`."),
    ([0.2], dict(delta=0), "Argument `delta` must be a single positive number."),
    ([0.2], dict(delta=-1), "Argument `delta` must be a single positive number."),
    ([[0.5, 0.5]], dict(weights=[1, 0]), "Argument `weights` must be a vector of positive finite weights, one per "
                                        "class."),
    ([[0.5, 0.5]], dict(weights=[1, np.inf]), "Argument `weights` must be a vector of positive finite weights, one "
                                             "per class."),
    ([[0.5, 0.5]], dict(weights=[1, 2, 3]), "Argument `weights` must be a vector of positive finite weights, one "
                                           "per class."),
    ([[0.5, 0.5]], dict(beta=[[1, 2], [0, 1]]), "Argument `beta` must be a square matrix of positive finite "
                                                "weights, one row and column per class."),
    ([[0.5, 0.5]], dict(beta=np.ones((2, 3))), "Argument `beta` must be a square matrix of positive finite "
                                               "weights, one row and column per class."),
    ([[0.5, 0.5]], dict(beta=np.ones((3, 3))), "Argument `beta` must be a square matrix of positive finite "
                                               "weights, one row and column per class."),
    ([[0.5, 0.5]], dict(beta=0.5), "Argument `beta` does not match the shape of `p`."),
    ([0.5], dict(beta=np.ones((2, 2))), "Argument `beta` does not match the shape of `p`."),
    ([0.5], dict(weights=[1, 2]), "Argument `weights` does not match the shape of `p`."),
    ([[0.5, 0.5]], dict(delta=2), "Argument `delta` does not match the shape of `p`."),
    ([1.5], dict(beta=0.5), "Argument `p` must contain probabilities in `[0, 1]`."),
    ([np.nan], dict(beta=0.5), "Argument `p` must not contain missing values."),
    ([[0.5, 0.6]], dict(weights=[1, 2]), "Each row of `p` must sum to `1`."),
    ([[0.5, 1.6]], dict(beta=np.ones((2, 2))), "Argument `p` must contain probabilities in `[0, 1]`."),
])
def test_errors(p, kwargs, message):
    p = np.array(p) if isinstance(p[0], list) else p
    with pytest.raises(calstats.CalstatsError) as e:
        loss_correct(p, **kwargs)
    assert str(e.value) == message


def test_weight_check_comes_before_probability_check():
    with pytest.raises(calstats.CalstatsError, match="`weights` must be a vector"):
        loss_correct(np.array([[2.0, 0.5]]), weights=[-1, 1])
    with pytest.raises(calstats.CalstatsError, match="exactly one"):
        loss_correct("nonsense")


# -- loss-calibration curve (§E.5) --------------------------------------------------


def _loss_calibrated_sample(rs, n, beta):
    gamma = rs.beta(0.6, 3.0, n)
    y = (rs.uniform(size=n) < gamma).astype(int)
    return optimal_score(gamma, beta=beta), y, gamma


def test_binary_curve_data():
    rs = np.random.RandomState(11)
    a, y, _ = _loss_calibrated_sample(rs, 20000, 0.9)
    curve = calstats.loss_calibration_curve(a, y, beta=0.9)
    assert isinstance(curve, LossCalibrationCurve) and curve.layout == "binary"
    b = curve.bins
    assert list(b.columns) == ["bin", "lower", "upper", "n", "score", "observed", "theory"]
    assert len(b) == 10 and b["n"].sum() == 20000 and (np.abs(b["n"] - 2000) <= 1).all()
    # a loss-calibrated model: observed rates on the theoretical values, far from the scores
    assert np.abs(b["observed"] - b["theory"]).max() < 0.03
    assert np.abs(b["observed"] - b["score"]).max() > 0.2
    th = curve.theory
    assert len(th) == 201 and th["score"].between(0, 1, inclusive="neither").all()
    np.testing.assert_allclose(th["corrected"], loss_correct(th["score"].to_numpy(), beta=0.9))
    uni = calstats.loss_calibration_curve(a, y, beta=0.9, bins=5, strategy="uniform")
    np.testing.assert_allclose(uni.bins["lower"], np.arange(5) / 5)
    # correction restores calibration (Prop. 5)
    corr = loss_correct(a, beta=0.9)
    cal = calstats.loss_calibration_curve(corr, y, beta=0.5)
    assert np.abs(cal.bins["observed"] - cal.bins["score"]).max() < 0.03


def test_multiclass_curve_and_plots():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = np.random.RandomState(12)
    k, n = 3, 6000
    g = rs.dirichlet(np.full(k, 0.5), size=n)
    y = np.array([rs.choice(k, p=row) for row in g]) + 1
    w = np.array([1.0, 4.0, 10.0])
    a = optimal_score(g, weights=w)
    curve = calstats.loss_calibration_curve(a, y, weights=w, bins=8, log=True)
    assert curve.layout == "multiclass" and list(curve.bins["class_label"].cat.categories) == ["1", "2", "3"]
    assert np.abs(curve.bins["observed"] - curve.bins["theory"]).max() < 0.06
    axes = curve.plot()
    assert len(axes) == 3 and axes[0].get_xscale() == "log"
    ax = calstats.loss_calibration_curve(rs.uniform(size=100), rs.randint(0, 2, 100), delta=0.5).plot()
    assert len(ax.lines) == 3
    plt.close("all")


def test_curve_errors():
    with pytest.raises(calstats.CalstatsError, match="should be one of"):
        calstats.loss_calibration_curve([0.2], [1], beta=0.5, strategy="equal")
    with pytest.raises(calstats.CalstatsError, match="exactly one"):
        calstats.loss_calibration_curve([0.2], [1])
    with pytest.raises(calstats.CalstatsError, match="same length"):
        calstats.loss_calibration_curve([0.2, 0.4], [1], beta=0.5)
    with pytest.raises(calstats.CalstatsError, match="`bins` must be a single positive integer"):
        calstats.loss_calibration_curve([0.2], [1], beta=0.5, bins=0)
    with pytest.raises(calstats.CalstatsError, match="same number of observations"):
        calstats.loss_calibration_curve(np.array([[0.5, 0.5]]), [1, 2], weights=[1, 1])

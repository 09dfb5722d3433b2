"""cal_matrix_scaling, cal_dirichlet_l2, canonical, confusion_change (seed-methods.md §A)."""


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _rcases import EXACT_PLATFORM
from calstats.calibrators._multinomial import MultinomialObjective, fit_multinomial, select_lambda
from calstats.kernels.probs import softmax
from calstats.numerics import libm

Z = np.array([[2.0, 0.5, -1.0], [1.2, 1.0, 0.1], [-0.5, 2.2, 0.3], [0.3, 0.1, 1.9], [1.5, -0.2, 0.4],
              [0.2, 1.4, 1.1], [-1.0, 0.3, 2.5], [0.8, 0.9, 0.7], [1.9, 1.1, -0.3], [-0.2, 0.4, 1.3]])
Y = np.array([1, 2, 2, 3, 1, 3, 3, 2, 1, 1])
EXTENDED = EXACT_PLATFORM


def _data(seed, n=120, k=3, scale=2.0):
    rs = np.random.RandomState(seed)
    z = rs.normal(scale=scale, size=(n, k))
    y = np.array([rs.choice(k, p=r) + 1 for r in softmax(z / 2)])
    return z, y


# -- the spec's reference values (R probcal 0.1.0 internals) ---------------------------

def test_reference_fit_lambda_001():
    fit = calstats.cal_matrix_scaling(Z, Y, lambda_=0.01)
    W = np.array([[1.1776293094, -0.7561032495, 0.1744561254], [0.0023279581, 1.8400541853, -0.1743180045],
                  [-0.0021002651, 0.7565643866, 2.3794384650]])
    b = np.array([1.2259078366, 0.0552573939, -1.2811652306])
    np.testing.assert_allclose(fit.weight, W, atol=1e-9, rtol=0)
    np.testing.assert_allclose(fit.bias, b, atol=1e-9, rtol=0)
    assert fit.value == pytest.approx(0.557311270226, abs=1e-12)
    assert fit.convergence == 0 and fit.mu == 0.01 and fit.penalty == "odir"
    assert fit.selection is None


def test_reference_lambda_selection():
    fit = calstats.cal_matrix_scaling(Z, Y)
    assert fit.lambda_ == 0.01 and fit.mu == 0.01
    assert list(fit.selection["lambda"]) == [0.0, 1e-4, 1e-3, 1e-2, 1e-1]
    assert list(fit.selection.columns) == ["lambda", "fold_1", "fold_2", "fold_3", "score"]
    np.testing.assert_allclose(fit.selection[["fold_1", "fold_2", "fold_3"]].mean(axis=1), fit.selection["score"])


def test_defaults_are_the_r_port_fitter_on_logits():
    """MS-ODIR with mu = lambda is probcal's fit_multinomial/select_dirichlet_lambda on logits;
    on log-probabilities it is cal_dirichlet, to the bit."""
    z, y = _data(1)
    ms = calstats.cal_matrix_scaling(z, y)
    lam, _ = select_lambda(z, y, 3)
    ref = fit_multinomial(z, y, 3, lam)
    assert ms.lambda_ == lam
    assert np.array_equal(ms.weight, ref.weight) and np.array_equal(ms.bias, ref.bias) and ms.value == ref.value
    p = softmax(z)
    d = calstats.cal_dirichlet(p, y)
    m2 = calstats.cal_matrix_scaling(libm.log(np.clip(p, 1e-12, 1 - 1e-12)), y)
    assert m2.lambda_ == d.lambda_
    assert np.array_equal(m2.weight, d.weight) and np.array_equal(m2.bias, d.bias) and m2.value == d.value


def test_separate_mu_and_gradient():
    z, y = _data(2, n=40)
    obj = MultinomialObjective(z, y, 3, 0.05, "odir", mu=0.3)
    par = np.random.RandomState(0).normal(size=12)
    g = obj.gradient(par)
    h = 1e-6
    num = np.array([(obj.value(par + h * e) - obj.value(par - h * e)) / (2 * h) for e in np.eye(12)])
    np.testing.assert_allclose(g, num, atol=1e-6)
    W, b = obj.unpack(par)
    base = MultinomialObjective(z, y, 3, 0.0).value(par)
    off = W[~np.eye(3, dtype=bool)]
    assert obj.value(par) == pytest.approx(base + 0.05 * np.sum(off**2) + 0.3 * np.sum(b**2), rel=1e-13)
    f0 = calstats.cal_matrix_scaling(z, y, lambda_=0.05, mu=0.0)
    f1 = calstats.cal_matrix_scaling(z, y, lambda_=0.05, mu=10.0)
    assert f1.mu == 10.0 and np.abs(f1.bias).sum() < np.abs(f0.bias).sum()
    assert f1["mu"] == 10.0 and f1["lambda"] == 0.05


def test_l2_penalty_shrinks_everything():
    z, y = _data(3)
    f = calstats.cal_matrix_scaling(z, y, lambda_=100.0, penalty="l2")
    assert f.method == "matrix scaling (L2)" and np.abs(f.weight).max() < 0.01
    pred = f.predict(z).to_numpy()
    np.testing.assert_allclose(pred, 1 / 3, atol=0.02)
    o = calstats.cal_matrix_scaling(z, y, lambda_=100.0, penalty="odir")
    assert np.abs(np.diag(o.weight)).max() > 0.05  # ODIR spares the diagonal


def test_dirichlet_l2_is_ms_l2_on_log_probabilities():
    z, y = _data(4)
    p = softmax(z)
    d = calstats.cal_dirichlet_l2(p, y)
    m = calstats.cal_matrix_scaling(libm.log(np.clip(p, 1e-12, 1 - 1e-12)), y, penalty="l2")
    assert d.lambda_ == m.lambda_ and np.array_equal(d.weight, m.weight) and np.array_equal(d.bias, m.bias)
    assert list(d.r_class) == ["cal_dirichlet_l2", "cal_multiclass", "calibrator"]
    assert d.names() == ["method", "n", "input", "weight", "bias", "lambda", "eps", "value", "convergence", "k",
                         "levels", "call"]
    assert d.method == "Dirichlet calibration (L2)" and d.input == "probabilities (matrix)"
    assert d.call["function"] == "cal_dirichlet_l2"
    np.testing.assert_array_equal(d.predict(p).to_numpy(), m.predict(libm.log(np.clip(p, 1e-12, 1 - 1e-12))))


# -- canonical parametrisation --------------------------------------------------------

def test_canonical_reference_values():
    fit = calstats.cal_dirichlet(softmax(Z), Y, lambda_=0.01)
    np.testing.assert_allclose(fit.weight, [[1.2769412417, -0.5335569134, 0.2363585637],
                                            [0.4133582005, 2.4379979385, -0.2369960597],
                                            [-0.4141420810, 0.5323733942, 2.1195259204]], atol=1e-9)
    A, c = calstats.canonical(fit)
    np.testing.assert_allclose(A.to_numpy(), [[1.69108332, 0, 0.47335462], [0.82750028, 2.97155485, 0],
                                              [0, 1.06593031, 2.35652198]], atol=1e-8)
    np.testing.assert_allclose(c.to_numpy(), [0.49808138, 0.30781185, 0.19410678], atol=1e-8)
    assert list(A.index) == ["1", "2", "3"] and list(c.index) == ["1", "2", "3"]


def test_canonical_reproduces_the_map():
    z, y = _data(5, k=4)
    p = softmax(z)
    for fit in (calstats.cal_dirichlet(p, y, lambda_=0.001), calstats.cal_dirichlet_l2(p, y, lambda_=0.01)):
        A, c = calstats.canonical(fit)
        assert (A.to_numpy() >= 0).all() and (A.to_numpy().min(axis=0) == 0).all()
        q = np.clip(p, 1e-12, 1 - 1e-12)
        alt = softmax(np.log(4 * q) @ A.to_numpy().T + np.log(c.to_numpy()))
        np.testing.assert_allclose(fit.predict(p).to_numpy(), alt, atol=1e-12)
        np.testing.assert_allclose(fit.predict(np.full((1, 4), 0.25)).to_numpy()[0], c.to_numpy(), atol=1e-14)
    d2 = calstats.cal_dirichlet_l2(p, y, lambda_=0.01)
    assert d2.canonical().A.equals(calstats.canonical(d2).A)


def test_canonical_is_unique():
    rs = np.random.RandomState(6)
    fit = calstats.cal_dirichlet(softmax(rs.normal(size=(60, 3))), rs.randint(1, 4, 60), lambda_=0.0)
    A, c = calstats.canonical(fit)
    shifted = calstats.cal_dirichlet(softmax(rs.normal(size=(60, 3))), rs.randint(1, 4, 60), lambda_=0.0)
    object.__setattr__(shifted, "weight", fit.weight + np.outer(np.ones(3), [0.3, -1.0, 2.0]))
    object.__setattr__(shifted, "bias", fit.bias + 5.0)
    A2, c2 = calstats.canonical(shifted)
    np.testing.assert_allclose(A2.to_numpy(), A.to_numpy(), atol=1e-12)
    np.testing.assert_allclose(c2.to_numpy(), c.to_numpy(), atol=1e-12)


def test_canonical_of_matrix_scaling_on_log_probabilities_is_the_dirichlet_view():
    """On log-probability logits matrix scaling is a Dirichlet map: (A, c) reproduce it."""
    logq = np.log(softmax(Z))
    ms = calstats.cal_matrix_scaling(logq, Y, lambda_=0.01)
    A, c = ms.canonical()
    alt = softmax(np.log(3 * np.exp(logq)) @ A.to_numpy().T + np.log(c.to_numpy()))
    np.testing.assert_allclose(ms.predict(logq).to_numpy(), alt, atol=1e-12)
    assert calstats.canonical(ms).A.equals(A)


def test_canonical_rejects_other_maps():
    msg = "Canonical parameters are defined only for Dirichlet and matrix-scaling maps."
    with pytest.raises(calstats.CalstatsError, match=msg):
        calstats.canonical(calstats.cal_vector_scaling(Z, Y))
    with pytest.raises(calstats.CalstatsError, match=msg):
        calstats.canonical("not a fit")


# -- confusion-matrix change ----------------------------------------------------------

def test_confusion_change():
    z, y = _data(7, k=4, n=200)
    p = softmax(z * 3)
    fit = calstats.cal_dirichlet(p, y, lambda_=0.001)
    C = calstats.confusion_change(fit, p, y)
    assert (C.dtypes == np.int64).all() and (C.sum(axis=1) == 0).all()
    correct_before = (p.argmax(axis=1) + 1 == y).sum()
    correct_after = (fit.predict(p).to_numpy().argmax(axis=1) + 1 == y).sum()
    assert np.trace(C.to_numpy()) == correct_after - correct_before
    assert C.index.name == "actual" and C.columns.name == "predicted"
    ms = calstats.cal_matrix_scaling(Z, Y, lambda_=0.01)
    C2 = calstats.confusion_change(ms, Z, Y)
    assert C2.to_numpy().tolist() == [[0, 0, 0], [1, -1, 0], [0, 0, 0]]
    with pytest.raises(calstats.CalstatsError, match="must have 3 columns"):
        calstats.confusion_change(ms, Z[:, :2], Y)
    with pytest.raises(calstats.CalstatsError, match="has 4 classes but the input has 3 columns"):
        calstats.confusion_change(ms, Z, np.r_[Y[:-1], 4])
    with pytest.raises(calstats.CalstatsError, match="Arguments `p` and `y` must have the same number"):
        calstats.confusion_change(ms, Z, Y[:-1])


# -- objects, summaries -----------------------------------------------------------------

def test_object_protocol_and_summary():
    fit = calstats.cal_matrix_scaling(pd.DataFrame(Z, index=list("abcdefghij")), Y, lambda_=0.01, mu=0.0)
    assert list(fit.r_class) == ["cal_matrix_scaling", "cal_multiclass", "calibrator"]
    assert fit.names() == ["method", "n", "input", "weight", "bias", "lambda", "mu", "penalty", "selection", "value",
                           "convergence", "k", "levels", "call"]
    assert fit.call["function"] == "cal_matrix_scaling" and list(fit.call["args"]) == ["logits", "y", "lambda", "mu"]
    assert fit.call["args"]["lambda"] == 0.01 and fit.input == "logits (matrix)"
    assert set(fit.coef) == {"weight", "bias"}
    pred = fit.predict(pd.DataFrame(Z, index=list("abcdefghij")))
    assert list(pred.columns) == ["1", "2", "3"] and list(pred.index) == list("abcdefghij")
    text = fit.summary().as_text()
    assert "Penalty: odir\nLambda: 0.01\nMu: 0\n" in text
    assert "── Details ──" in text or "-- Details --" in text
    assert "not identified" in text and "paper" in text
    frames = fit.summary().as_frames()
    assert {"weight", "bias", "penalty", "fit"} <= set(frames)
    assert frames["penalty"].loc["lambda", "paper"] == pytest.approx(0.06)
    assert frames["penalty"].loc["mu", "paper"] == 0.0
    d = calstats.cal_dirichlet_l2(softmax(Z), Y, lambda_=0.01)
    dt = d.summary().as_text()
    assert "Penalty: l2\nLambda: 0.01\n" in dt and "canonical (A | c)" in dt
    assert "canonical (A | c)" in d.summary().as_frames()
    assert "<h5>canonical (A | c)</h5>" in d.summary().as_html()


# -- errors, in the spec's order ---------------------------------------------------------

def _err(fn, *a, **kw):
    with pytest.raises(calstats.CalstatsError) as e:
        fn(*a, **kw)
    return str(e.value)


def test_matrix_scaling_errors_in_order():
    f = calstats.cal_matrix_scaling
    assert _err(f, "x", [1], penalty="bogus") == "Argument `penalty` should be one of “odir”, “l2”, not “bogus”."
    assert _err(f, np.array([1.0, 2.0]), [1, 2]) == "Argument `logits` must be a numeric matrix with one column per class."
    assert _err(f, np.array([[1.0, np.inf], [0, 1]]), [1, 2]) == \
        "Argument `logits` must not contain missing or infinite values."
    assert _err(f, Z, [1, 2] * 5 + [5] * 0) == "Argument `y` has 2 classes but the input has 3 columns."
    assert _err(f, Z, Y[:-1], lambda_=-1) == "Arguments `logits` and `y` must have the same number of observations."
    assert _err(f, Z, Y, lambda_=-1, mu=-1) == "Argument `lambda` must be `NULL` or a single non-negative number."
    assert _err(f, Z, Y, lambda_=[0.1, 0.2]) == "Argument `lambda` must be `NULL` or a single non-negative number."
    assert _err(f, Z, Y, lambda_=0.1, mu=np.nan) == "Argument `mu` must be `NULL` or a single non-negative number."
    assert _err(f, Z, Y, mu=True) == "Argument `mu` must be `NULL` or a single non-negative number."


def test_dirichlet_l2_errors_in_order():
    f = calstats.cal_dirichlet_l2
    p = softmax(Z)
    assert _err(f, p * 2, Y, lambda_=-1) == "Argument `p` must contain probabilities in `[0, 1]`."
    assert _err(f, p, Y[:-1], lambda_=-1) == "Arguments `p` and `y` must have the same number of observations."
    assert _err(f, p, Y, lambda_=-1, eps=2) == "Argument `lambda` must be `NULL` or a single non-negative number."
    assert _err(f, p, Y, eps=0.5) == "Argument `eps` must be a single number in `(0, 0.5)`."


# -- properties ------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3, 4]), st.sampled_from(["odir", "l2"]))
def test_rows_sum_to_one_and_inputs_untouched(seed, k, penalty):
    z, y = _data(seed, n=30, k=k)
    y[:k] = np.arange(1, k + 1)
    z0, y0 = z.copy(), y.copy()
    fit = calstats.cal_matrix_scaling(z, y, lambda_=0.01, penalty=penalty)
    pred = fit.predict(z).to_numpy()
    np.testing.assert_allclose(pred.sum(axis=1), 1.0, atol=1e-12)
    assert np.array_equal(z, z0) and np.array_equal(y, y0)
    p = softmax(z)
    p0 = p.copy()
    dl = calstats.cal_dirichlet_l2(p, y, lambda_=0.01)
    np.testing.assert_allclose(dl.predict(p).to_numpy().sum(axis=1), 1.0, atol=1e-12)
    assert np.array_equal(p, p0)
    assert (calstats.confusion_change(dl, p, y).sum(axis=1) == 0).all()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.permutations(range(3)))
def test_class_permutation_equivariance(seed, perm):
    z, y = _data(seed, n=40)
    y[:3] = [1, 2, 3]
    perm = np.array(perm)
    inv = np.argsort(perm)
    a = calstats.cal_matrix_scaling(z, y, lambda_=0.01).predict(z).to_numpy()
    b = calstats.cal_matrix_scaling(z[:, perm], inv[y - 1] + 1, lambda_=0.01).predict(z[:, perm]).to_numpy()
    np.testing.assert_allclose(b, a[:, perm], atol=1e-5)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_row_permutation_invariance(seed, rnd):
    z, y = _data(seed, n=40)
    y[:3] = [1, 2, 3]
    order = list(range(40))
    rnd.shuffle(order)
    a = calstats.cal_matrix_scaling(z, y, lambda_=0.01)
    b = calstats.cal_matrix_scaling(z[order], y[order], lambda_=0.01)
    np.testing.assert_allclose(b.predict(z).to_numpy(), a.predict(z).to_numpy(), atol=1e-5)

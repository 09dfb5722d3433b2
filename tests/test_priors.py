"""Prior (label) shift: Bayes' rule for new priors and the EM of Saerens, Latinne and
Decaestecker (2002). No R or peer implementation exists; the EM is checked against an
independent loop written here and against direct maximisation of the likelihood."""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from calstats import loss_correct, rng
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.calibrators.priors import PriorEstimate, adjust_priors, estimate_priors
from calstats.results._base import Result

SRC = np.array([0.5, 0.3, 0.2])
TGT = np.array([0.2, 0.3, 0.5])
MU = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 1.5]])


def _simulate(n, priors, seed, train=SRC):
    """Labels drawn with ``priors``; the exact posteriors of a model trained under ``train``
    (Gaussian classes with identity covariance): calibrated on the source population."""
    rs = np.random.default_rng(seed)
    y = rs.choice(len(priors), size=n, p=priors)
    X = MU[y] + rs.normal(size=(n, 2))
    logf = -0.5 * ((X[:, None, :] - MU[None]) ** 2).sum(axis=2)
    w = np.exp(logf) * train
    return w / w.sum(axis=1, keepdims=True), y


def _binary(n, prev, seed, train_prev=0.3):
    """P(class 2) of a calibrated model trained at prevalence ``train_prev``; labels drawn
    at ``prev``; classes N(0, 1) and N(1.2, 1)."""
    rs = np.random.default_rng(seed)
    y = (rs.uniform(size=n) < prev).astype(int)
    x = rs.normal(size=n) + 1.2 * y
    lo = math.log(train_prev / (1 - train_prev)) + 1.2 * x - 0.72
    return 1 / (1 + np.exp(-lo)), y


@pytest.fixture(scope="module")
def shifted():
    return _simulate(20000, TGT, seed=1)


@pytest.fixture(scope="module")
def fit(shifted):
    return estimate_priors(shifted[0], SRC)


def _em_reference(P, train, tol=1e-13, maxit=100000):
    """Saerens et al.'s section 2.2 written out row by row (plain floats, math.fsum)."""
    rows = [list(map(float, r)) for r in P]
    k = len(train)
    pi = list(map(float, train))
    for _ in range(maxit):
        post = []
        for r in rows:
            num = [r[j] * pi[j] / train[j] for j in range(k)]
            s = math.fsum(num)
            post.append([x / s for x in num])
        new = [math.fsum(q[j] for q in post) / len(rows) for j in range(k)]
        done = max(abs(a - b) for a, b in zip(new, pi)) < tol
        pi = new
        if done:
            break
    return np.array(pi)


def _loglik(P, pi, train):
    return float(np.sum(np.log(P @ (np.asarray(pi) / train))))


# -- recovery of known priors ----------------------------------------------------------------


def test_recovers_shifted_priors(shifted, fit):
    P, y = shifted
    freq = np.bincount(y, minlength=3) / y.size
    assert fit.converged and 5 < fit.iterations < 1000
    # within sampling error: the bootstrap SE at this n is about 0.006
    np.testing.assert_allclose(fit.priors.to_numpy(), TGT, atol=0.02)
    np.testing.assert_allclose(fit.priors.to_numpy(), freq, atol=0.02)
    # the naive estimate (mean posterior) is far off: the EM is doing the work
    assert np.abs(P.mean(axis=0) - TGT).max() > 0.08
    assert list(fit.priors.index) == ["1", "2", "3"]
    np.testing.assert_array_equal(fit.train_priors.to_numpy(), SRC)


def test_recovers_binary_prevalence():
    p, y = _binary(20000, 0.7, seed=2)
    est = estimate_priors(p, 0.3)
    assert est.converged and list(est.priors.index) == ["0", "1"]
    assert est.priors["1"] == pytest.approx(0.7, abs=0.02)
    assert est.priors["1"] == pytest.approx(y.mean(), abs=0.02)
    assert abs(p.mean() - 0.7) > 0.1
    # the binary vector is the two-column matrix (1 - p, p)
    m = estimate_priors(np.column_stack([1 - p, p]), [0.7, 0.3])
    np.testing.assert_allclose(m.priors.to_numpy(), est.priors.to_numpy(), rtol=0, atol=1e-15)
    # and the adjusted scores are better calibrated at the new prevalence
    adj = adjust_priors(p, est)
    assert abs(adj.mean() - y.mean()) < abs(p.mean() - y.mean()) / 5


def test_no_shift_gives_training_priors_and_no_evidence():
    P, _ = _simulate(5000, SRC, seed=3)
    est = estimate_priors(P, SRC)
    np.testing.assert_allclose(est.priors.to_numpy(), SRC, atol=0.03)
    assert est.p_value > 0.01 and est.df == 2
    shifted = estimate_priors(_simulate(5000, TGT, seed=3)[0], SRC)
    assert shifted.p_value < 1e-10


# -- independent implementations -------------------------------------------------------------


def test_em_matches_rowwise_reference():
    P, _ = _simulate(300, TGT, seed=4)
    est = estimate_priors(P, SRC, tol=1e-13)
    ref = _em_reference(P, SRC)
    np.testing.assert_allclose(est.priors.to_numpy(), ref, rtol=0, atol=1e-11)
    assert est.loglik == pytest.approx(_loglik(P, ref, SRC), abs=1e-9)
    assert est.lr_statistic == pytest.approx(2 * _loglik(P, ref, SRC), abs=1e-8)


def test_em_is_the_maximum_likelihood_estimate():
    """Direct maximisation of sum_i log(sum_k p_ik pi_k / train_k) over the simplex."""
    P, _ = _simulate(2000, TGT, seed=5)

    def negll(theta):
        z = np.exp(np.append(theta, 0.0))
        return -_loglik(P, z / z.sum(), SRC)

    opt = minimize(negll, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    z = np.exp(np.append(opt.x, 0.0))
    est = estimate_priors(P, SRC, tol=1e-12)
    np.testing.assert_allclose(est.priors.to_numpy(), z / z.sum(), rtol=0, atol=1e-5)
    assert est.loglik >= -opt.fun - 1e-8


def test_fixed_point_and_monotone_trace(shifted, fit):
    P, _ = shifted
    adj = adjust_priors(P, fit)
    np.testing.assert_allclose(adj.mean(axis=0), fit.priors.to_numpy(), rtol=0, atol=1e-7)
    trace = fit.loglik_trace
    assert trace[0] == 0.0 and trace.size == fit.iterations + 1
    assert (np.diff(trace) >= -1e-9).all() and trace[-1] == fit.loglik


def test_adjust_is_loss_correct_with_class_weights(shifted):
    P, _ = shifted
    np.testing.assert_allclose(adjust_priors(P, TGT, SRC), loss_correct(P, weights=SRC / TGT), rtol=1e-14,
                               atol=1e-15)


def test_adjust_binary_formula():
    a = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    out = adjust_priors(a, 0.6, 0.2)
    odds = a / (1 - np.where(a == 1, np.nan, a)) * (0.6 / 0.4) / (0.2 / 0.8)
    np.testing.assert_allclose(out[1:4], (odds / (1 + odds))[1:4], rtol=1e-14)
    assert out[0] == 0.0 and out[-1] == 1.0
    np.testing.assert_array_equal(adjust_priors(a, [0.4, 0.6], [0.8, 0.2]), out)


def test_adjust_with_same_priors_is_identity(shifted):
    P, _ = shifted
    np.testing.assert_allclose(adjust_priors(P, SRC, SRC), P, rtol=0, atol=1e-15)
    a = np.linspace(0, 1, 11)
    np.testing.assert_allclose(adjust_priors(a, 0.3, 0.3), a, rtol=0, atol=1e-15)


# -- edge cases ------------------------------------------------------------------------------


def test_constant_rows_at_training_priors_are_a_fixed_point():
    P = np.tile(SRC, (50, 1))
    est = estimate_priors(P, SRC)
    assert est.converged and est.iterations == 1
    np.testing.assert_allclose(est.priors.to_numpy(), SRC, atol=1e-15)
    assert est.lr_statistic == pytest.approx(0.0, abs=1e-12) and est.p_value == pytest.approx(1.0)


def test_column_means_as_training_priors_stop_the_em_at_once(shifted):
    """Why ``train_priors`` has no default: the column means of the new rows are a fixed point."""
    P = shifted[0]
    est = estimate_priors(P, P.mean(axis=0))
    assert est.iterations == 1 and est.lr_statistic < 1e-6
    np.testing.assert_allclose(est.priors.to_numpy(), P.mean(axis=0), rtol=0, atol=1e-12)


def test_never_predicted_class_gets_prior_zero():
    P, _ = _simulate(500, TGT, seed=6)
    P = np.column_stack([P, np.zeros(500)])
    est = estimate_priors(P, [0.4, 0.3, 0.2, 0.1])
    assert est.converged and est.priors.iloc[3] == 0.0
    assert est.as_frame()["ratio"].iloc[3] == 0.0


def test_not_converged_warns():
    P, _ = _simulate(500, TGT, seed=7)
    with pytest.warns(CalstatsWarning, match=r"did not converge in 2 iterations"):
        est = estimate_priors(P, SRC, maxit=2)
    assert not est.converged and est.iterations == 2
    assert "not converged after 2 iterations" in str(est)


# -- bootstrap -------------------------------------------------------------------------------


def test_bootstrap_is_seeded_and_replays_r_stream():
    p, _ = _binary(400, 0.6, seed=8)
    rng.set_seed(99)
    before = rng.get_state()
    a = estimate_priors(p, 0.3, n_boot=20, seed=5)
    after = rng.get_state()
    assert before == after  # the global stream is put back
    b = estimate_priors(p, 0.3, n_boot=20, seed=5)
    pd.testing.assert_frame_equal(a.replicates, b.replicates)
    # replicate j is the estimate on the rows of R's sample(n, replace = TRUE), j-th draw
    rng.set_seed(5)
    for j in range(3):
        idx = np.asarray(rng.sample_int(400, 400, replace=True)) - 1
        np.testing.assert_array_equal(a.replicates.iloc[j].to_numpy(), estimate_priors(p[idx], 0.3).priors)
    c = estimate_priors(p, 0.3, n_boot=20, seed=6)
    assert not a.replicates.equals(c.replicates)


def test_bootstrap_interval_covers_truth():
    p, _ = _binary(3000, 0.6, seed=9)
    est = estimate_priors(p, 0.3, n_boot=200, seed=1)
    ci = est.conf_int()
    assert list(ci.columns) == ["lower", "upper"] and list(ci.index) == ["0", "1"]
    assert ci.loc["1", "lower"] < 0.6 < ci.loc["1", "upper"]
    assert ci.loc["0", "lower"] < 0.4 < ci.loc["0", "upper"]
    assert ci.loc["1", "upper"] - ci.loc["1", "lower"] < 0.1
    narrow = est.conf_int(level=0.5)
    assert (narrow["upper"] - narrow["lower"] < ci["upper"] - ci["lower"]).all()
    np.testing.assert_allclose(ci["lower"], est.replicates.quantile(0.025, axis=0).to_numpy(), rtol=1e-14)
    frame = est.as_frame()
    assert list(frame.columns) == ["train_prior", "prior", "ratio", "lower", "upper"]
    assert "95% percentile bootstrap intervals (n_boot = 200)" in str(est)


def test_bootstrap_non_convergence_is_counted():
    p, _ = _binary(300, 0.6, seed=10)
    with pytest.warns(CalstatsWarning) as record:
        estimate_priors(p, 0.3, maxit=1, n_boot=3, seed=1)
    assert any("3 of 3 bootstrap replicates did not converge in 1 iterations" in str(w.message) for w in record)


# -- input forms -----------------------------------------------------------------------------


def test_pandas_in_pandas_out(shifted):
    P, _ = shifted
    df = pd.DataFrame(P[:100], columns=["a", "b", "c"], index=np.arange(100, 200))
    est = estimate_priors(df, SRC)
    assert list(est.priors.index) == ["a", "b", "c"]
    out = adjust_priors(df, est)
    assert isinstance(out, pd.DataFrame) and out.index.equals(df.index) and out.columns.equals(df.columns)
    # a Series of priors is matched to the classes by label
    rev = pd.Series(TGT[::-1], index=["c", "b", "a"])  # a = 0.2, b = 0.3, c = 0.5, listed backwards
    aligned = adjust_priors(df, rev, SRC).to_numpy()
    np.testing.assert_array_equal(aligned, adjust_priors(P[:100], TGT, SRC))
    assert not np.allclose(aligned, adjust_priors(P[:100], TGT[::-1], SRC))
    s = pd.Series([0.2, 0.7], index=["x", "y"], name="risk")
    o = adjust_priors(s, 0.5, 0.3)
    assert isinstance(o, pd.Series) and o.name == "risk" and list(o.index) == ["x", "y"]
    assert isinstance(adjust_priors(P[:5], TGT, SRC), np.ndarray)


def test_float32_input(shifted):
    P, _ = shifted
    P32 = P[:2000].astype(np.float32)
    a = estimate_priors(P32, SRC)
    b = estimate_priors(P32.astype(np.float64), SRC)
    pd.testing.assert_series_equal(a.priors, b.priors)
    out = adjust_priors(P32, TGT, SRC)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, adjust_priors(P[:2000], TGT, SRC), atol=1e-6)


def test_inputs_not_modified(shifted):
    P = shifted[0][:500].copy()
    keep = P.copy()
    train, new = SRC.copy(), TGT.copy()
    df = pd.DataFrame(P)
    estimate_priors(P, train, n_boot=2, seed=1)
    adjust_priors(P, new, train)
    adjust_priors(df, new, train)
    np.testing.assert_array_equal(P, keep)
    np.testing.assert_array_equal(df.to_numpy(), keep)
    np.testing.assert_array_equal(train, SRC)
    np.testing.assert_array_equal(new, TGT)


def test_priors_rescaled_within_tolerance(shifted):
    P = shifted[0][:10]
    np.testing.assert_allclose(adjust_priors(P, TGT * (1 + 5e-7), SRC), adjust_priors(P, TGT, SRC), rtol=1e-13)


def test_pickle_round_trip(fit):
    p, _ = _binary(300, 0.6, seed=11)
    for obj in (fit, estimate_priors(p, 0.3, n_boot=5, seed=2)):
        back = pickle.loads(pickle.dumps(obj))
        assert isinstance(back, PriorEstimate) and str(back) == str(obj)
        pd.testing.assert_series_equal(back.priors, obj.priors)
        np.testing.assert_array_equal(back.loglik_trace, obj.loglik_trace)


def test_result_protocol(fit):
    assert isinstance(fit, Result) and fit.r_class == ("prior_estimate",) and fit.inherits("prior_estimate")
    text = fit.print_text()
    assert text.endswith("\n") and str(fit) == text[:-1] == repr(fit)
    assert text.startswith("Class priors under prior shift (EM, Saerens et al. 2002)\nn = 20000, 3 classes; "
                           "converged after")
    assert "Likelihood-ratio test of no shift: LR = " in text and "df = 2, p-value < 2.2e-16" in text
    frame = fit.as_frame()
    assert list(frame.columns) == ["train_prior", "prior", "ratio"] and frame.index.name == "class"
    np.testing.assert_allclose(frame["ratio"], fit.priors / fit.train_priors)
    html = fit._repr_html_()
    assert html.startswith("<h4>") and "<table" in html
    assert fit.method == "em" and fit.n == 20000 and fit.n_boot is None and fit.replicates is None


# -- errors ----------------------------------------------------------------------------------


def _raises(msg, fn, *args, **kwargs):
    with pytest.raises(CalstatsError) as info:
        fn(*args, **kwargs)
    assert str(info.value) == msg


def test_error_train_priors_required():
    _raises("Argument `train_priors` is required: give the class priors of the training data.",
            adjust_priors, np.eye(3), TGT)


def test_error_priors_not_numeric():
    _raises("Argument `new_priors` must be a numeric vector of class priors.", adjust_priors, np.eye(3),
            ["a", "b", "c"], SRC)


def test_error_priors_length():
    _raises("Argument `train_priors` must have one prior per class (3).", estimate_priors, np.eye(3), [0.5, 0.5])
    _raises("Argument `new_priors` must have one prior per class (3).", adjust_priors, np.eye(3), 0.5, SRC)


def test_error_priors_positive():
    _raises("Argument `new_priors` must contain positive finite priors.", adjust_priors, np.eye(3),
            [0.0, 0.5, 0.5], SRC)
    _raises("Argument `train_priors` must contain positive finite priors.", estimate_priors, np.eye(3),
            [np.nan, 0.5, 0.5])


def test_error_priors_sum():
    _raises("Argument `new_priors` must sum to `1`.", adjust_priors, np.eye(3), [0.2, 0.3, 0.6], SRC)


def test_error_binary_scalar_prior():
    _raises("Argument `new_priors` must be a single number in `(0, 1)`.", adjust_priors, [0.2, 0.4], 1.0, 0.5)


def test_error_scores():
    _raises("Each row of `p` must sum to `1`.", estimate_priors, [[0.5, 0.6], [0.5, 0.5]], [0.5, 0.5])
    _raises("Argument `p` must contain probabilities in `[0, 1]`.", adjust_priors, [0.2, 1.4], 0.5, 0.5)


def test_error_method():
    _raises("Argument `method` should be one of “em”, not “bbse”.", estimate_priors, np.eye(3), SRC, method="bbse")


def test_error_tol():
    _raises("Argument `tol` must be a single positive finite number.", estimate_priors, np.eye(3), SRC, tol=0)


def test_error_maxit():
    _raises("Argument `maxit` must be a single positive integer.", estimate_priors, np.eye(3), SRC, maxit=0.5)


def test_error_n_boot():
    _raises("Argument `n_boot` must be a single positive integer.", estimate_priors, np.eye(3), SRC, n_boot=0)


def test_error_level():
    _raises("Argument `level` must be a single number in `(0, 1)`.", estimate_priors, np.eye(3), SRC, level=1)


def test_error_conf_int_without_bootstrap(fit):
    _raises("No bootstrap replicates: call `estimate_priors()` with `n_boot`.", fit.conf_int)


# -- invariants ------------------------------------------------------------------------------


def _priors(draw, k):
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=k, max_size=k)))
    return w / w.sum()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_adjust_rows_sum_to_one_and_round_trip(data):
    k = data.draw(st.integers(2, 5))
    n = data.draw(st.integers(1, 30))
    seed = data.draw(st.integers(0, 2**31 - 1))
    P = np.random.default_rng(seed).dirichlet(np.full(k, 0.8), size=n)
    new, train = _priors(data.draw, k), _priors(data.draw, k)
    out = adjust_priors(P, new, train)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-14)
    assert ((out >= 0) & (out <= 1)).all()
    np.testing.assert_allclose(adjust_priors(out, train, new), P, rtol=0, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 4), st.integers(5, 200))
def test_em_trace_never_decreases(seed, k, n):
    rs = np.random.default_rng(seed)
    P = rs.dirichlet(np.full(k, 0.6), size=n)
    train = rs.dirichlet(np.full(k, 3.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        est = estimate_priors(P, train, maxit=200)
    assert (np.diff(est.loglik_trace) >= -1e-9 * max(1.0, abs(est.loglik))).all()
    assert est.priors.sum() == pytest.approx(1.0, abs=1e-12) and (est.priors >= 0).all()

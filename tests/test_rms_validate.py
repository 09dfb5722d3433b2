"""calstats.clinical.validate / calibrate against rms::validate.lrm and rms::calibrate
(rms 6.5-0, same set.seed; tools/r-reference/make_rms_validate.R), and the invariants of the
same procedure for a refitted estimator or callable."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from _rcases import EXACT_PLATFORM
from calstats import CalstatsError, rng
from calstats.clinical import Calibration, Validation, calibrate, lrm, validate
from calstats.numerics.nmath import plogis
from calstats.ports.rms.lrm_fit import lrm_fit, matxv

FX = load_fixture("rms_validate")
CASES = FX["cases"]
BY_ID = {c["id"]: c for c in CASES}


def frame(name):
    return pd.DataFrame(FX[name])


def r_matrix(case):
    m = case["matrix"]
    vals = np.array([np.nan if x is None else x for x in m["values"]], dtype=np.float64)
    return vals.reshape((-1, len(m["colnames"])), order="F")


def run(case, seed="fixture"):
    weights = "wt" if "weights = wt" in (case.get("extra") or "") else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # R's warning that validation ignores the weights
        fit = lrm(case["formula"], frame(case["data"]), weights=weights)
    fn = validate if case["kind"] == "validate" else calibrate
    s = case["seed"] if seed == "fixture" else seed
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fn(fit, B=case["B"], method=case["method"], seed=s, **r_args(case.get("args") or ""))
    return res, [str(w.message) for w in caught]


def r_args(text):
    """``", bw = TRUE, rule = \"p\", sls = 0.2"`` as keyword arguments."""
    out = {}
    for name, value in re.findall(r"(\w+) = (\"[^\"]*\"|[^,]+)", text):
        value = value.strip()
        out[name] = True if value == "TRUE" else value.strip('"') if value.startswith('"') else float(value)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_matches_r(case):
    res, warned = run(case)
    P = res.matrix.to_numpy()
    R = r_matrix(case)
    assert list(res.matrix.columns) == case["matrix"]["colnames"]
    if case["kind"] == "validate":
        assert list(res.matrix.index) == case["matrix"]["rownames"]
    np.testing.assert_array_equal(np.isnan(P), np.isnan(R))
    if EXACT_PLATFORM:
        np.testing.assert_array_equal(P, R)
    else:  # pragma: no cover
        np.testing.assert_allclose(P, R, rtol=1e-9, atol=1e-12)
    # R's cat() during the resampling: the step-down of the original model (bw = TRUE) and
    # "Divergence or singularity in k samples" (a warning)
    if "bw = TRUE" in (case.get("args") or ""):
        assert res.fastbw is not None
        step = res.step_down_text().split("\n")[:-1]
        assert step == case["output"]
    else:
        assert warned == [s for s in case["output"] if s]
    text = res.print_text().split("\n")[:-1]
    if case["kind"] == "validate":
        assert text == case["print"]
        if case.get("kept"):
            assert res.kept.to_numpy().tolist() == case["kept"]
            assert res.print_text(B=3).split("\n")[:-1] == case["print_b3"]
    else:
        assert text == case["print_head"] + case["print_matrix"]
        np.testing.assert_array_equal(res.predicted, np.array(case["predicted"], dtype=np.float64))


@pytest.mark.parametrize("cid", ["v_boot_10", "v_cv", "v_632", "v_rand", "v_small", "c_cv"])
def test_global_stream_advances_as_r(cid):
    """With seed=None the draws come from (and advance) the global stream, as in R: after
    set.seed(s); validate(fit, B) the next runif(1) is R's."""
    case = BY_ID[cid]
    rng.set_seed(case["seed"])
    res, _ = run(case, seed=None)
    np.testing.assert_array_equal(res.matrix.to_numpy(), r_matrix(case))
    assert float(rng.runif(1)[0]) == case["after"][0]


def test_seed_restores_the_global_stream():
    rng.set_seed(99)
    before = rng.get_state_r()
    run(BY_ID["v_boot_10"])
    assert np.array_equal(rng.get_state_r(), before)


# --------------------------------------------------------------------------------------
# the same procedure for any model


def _lrm_callable(X, y):
    f = lrm_fit(X, y, tol=1e-12)

    def predict(Xn):
        return plogis(matxv(Xn, f.coefficients, 1))
    return predict


def test_callable_reproduces_validate_lrm():
    """A callable that fits lrm.fit gives rms' numbers up to what the generic form computes
    differently (training indexes by recalibration instead of the fit's own statistics)."""
    case = BY_ID["v_boot_40"]
    d = frame("data")
    X = d[["strong", "weak", "noise"]].to_numpy()
    res_r, _ = run(case)
    res_g = validate(_lrm_callable, B=40, seed=case["seed"], X=X, y=d["y"].to_numpy())
    a, b = res_g.matrix, res_r.matrix
    np.testing.assert_array_equal(a["n"], b["n"])
    for col in ("index.orig", "training", "test", "index.corrected"):
        np.testing.assert_allclose(a[col], b[col], rtol=0, atol=1e-6)


def test_sklearn_estimator_and_reproducibility():
    from sklearn.linear_model import LogisticRegression

    d = frame("data")
    X = d[["strong", "weak", "noise"]]
    est = LogisticRegression(C=1e6, max_iter=1000)
    v1 = validate(est, B=15, seed=3, X=X, y=d["y"])
    v2 = validate(est, B=15, seed=3, X=X, y=d["y"])
    assert isinstance(v1, Validation)
    pd.testing.assert_frame_equal(v1.matrix, v2.matrix)
    assert list(v1.matrix.index) == list(BY_ID["v_boot_40"]["matrix"]["rownames"])
    c1 = calibrate(est, B=10, seed=3, X=X, y=d["y"])
    assert isinstance(c1, Calibration) and c1.matrix.shape == (50, 9)
    assert not hasattr(est, "coef_")  # the estimator itself is not fitted (clones are)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), B=st.integers(2, 8), method=st.sampled_from(["boot", ".632", "randomization"]))
def test_invariants(seed, B, method):
    d = frame("small")
    X = d[["strong", "weak"]].to_numpy()
    y = d["y"].to_numpy()
    try:
        a = validate(_lrm_callable, B=B, method=method, seed=seed, X=X, y=y)
    except CalstatsError as e:  # .632 with too few resamples to leave every row out once
        assert "omitted at least once" in str(e)
        return
    b = validate(_lrm_callable, B=B, method=method, seed=seed, X=X, y=y)
    pd.testing.assert_frame_equal(a.matrix, b.matrix)
    m = a.matrix
    assert (m["n"] <= B).all() and (m["n"] >= 0).all()
    rows = [r for r in m.index if r != "Emax"]  # R puts Emax in every column but index.orig
    np.testing.assert_array_equal(m.loc[rows, "index.corrected"], m.loc[rows, "index.orig"] - m.loc[rows, "optimism"])
    if method != ".632":
        np.testing.assert_array_equal(m.loc[rows, "optimism"], m.loc[rows, "training"] - m.loc[rows, "test"])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_perfect_model_has_no_dxy_optimism(seed):
    d = frame("data")
    X = d[["strong"]].to_numpy()
    y = (d["strong"] > 0.1).astype(int).to_numpy()

    def perfect(Xt, yt):  # ranks every row correctly, on any resample
        return lambda Xn: plogis(8.0 * (Xn[:, 0] - 0.1))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = validate(perfect, B=5, seed=seed, X=X, y=y).matrix
    assert m.loc["Dxy", "index.orig"] == 1.0
    assert m.loc["Dxy", "optimism"] == 0.0 and m.loc["Dxy", "index.corrected"] == 1.0


# --------------------------------------------------------------------------------------
# errors, protocol, plot


def test_errors():
    d = frame("data")
    fit = lrm("y ~ strong + weak", d)
    with pytest.raises(CalstatsError, match="should be one of"):
        validate(fit, B=5, method="jackknife")
    with pytest.raises(CalstatsError, match="`B` must be a single positive integer"):
        validate(fit, B=0)
    with pytest.raises(CalstatsError, match=r"B > n/2"):
        validate(fit, B=150, method="crossvalidation")
    with pytest.raises(CalstatsError, match="Argument `fit` must be an lrm fit"):
        validate(42, B=5)
    with pytest.raises(CalstatsError, match="Arguments `X` and `y` are needed"):
        validate(_lrm_callable, B=5)
    with pytest.raises(CalstatsError, match="probabilities in"):
        validate(lambda X, y: (lambda Xn: np.full(len(Xn), 2.0)), B=5, X=d[["strong"]], y=d["y"])
    with pytest.raises(CalstatsError, match="`seed` must be a single number"):
        validate(fit, B=5, seed="a")
    with pytest.raises(CalstatsError, match="must have n > 10"):
        calibrate(lrm("y ~ strong", d.iloc[:10].assign(y=[0, 1] * 5)), B=5)
    with pytest.raises(CalstatsError, match="`predy` must hold probabilities"):
        calibrate(fit, B=5, predy=[0.2, 1.5])
    with pytest.raises(CalstatsError, match="`bw` .* needs an lrm fit"):
        validate(_lrm_callable, B=5, bw=True, X=d[["strong"]], y=d["y"])
    with pytest.raises(CalstatsError, match="should be one of"):
        validate(fit, B=5, bw=True, rule="bic")
    with pytest.raises(CalstatsError, match="`sls` must be a single number"):
        calibrate(fit, B=5, bw=True, sls=2)
    with pytest.raises(CalstatsError, match="`bw` must be `True` or `False`"):
        validate(fit, B=5, bw="yes")
    with pytest.raises(CalstatsError, match="did not converge"):
        sep = pd.DataFrame({"x": np.arange(20.0), "y": [0] * 10 + [1] * 10})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bad = lrm("y ~ x", sep)
        validate(bad, B=5)


def test_generic_failures_are_counted():
    d = frame("data")
    calls = {"n": 0}

    def flaky(X, y):
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise RuntimeError("cannot fit this one")
        return _lrm_callable(X, y)

    with pytest.warns(UserWarning, match="could not be fitted in 2 resamples"):
        res = validate(flaky, B=4, seed=1, X=d[["strong"]], y=d["y"])
    assert (res.matrix["n"] == 2).all()


def test_protocol_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    res, _ = run(BY_ID["c_cv"])
    assert res.inherits("calibrate.default")
    pd.testing.assert_frame_equal(res.as_frame(), res.matrix)
    assert "<table" in res._repr_html_()
    es = res.error_summary()
    assert es["n"] == 200 and 0 <= es["mean_absolute_error"] < 0.1
    ax = res.plot()
    assert [ln.get_label() for ln in ax.get_lines()] == ["Apparent", "Bias-corrected", "Ideal"]
    np.testing.assert_array_equal(ax.get_lines()[1].get_ydata(), res.matrix["calibrated.corrected"])
    v, _ = run(BY_ID["v_cv"])
    assert v.inherits("validate") and v.plot() is not None
    custom = calibrate(lrm("y ~ strong + weak", frame("data")), B=3, seed=1, predy=[0.2, 0.5, 0.8])
    np.testing.assert_array_equal(custom.matrix["predy"], [0.2, 0.5, 0.8])


def test_missing_values_of_an_estimator_go_to_the_model():
    """With an estimator, a missing value in X goes to the model: one that takes it is validated, one that
    refuses it fails in one line with its own error's first line (scikit-learn's spans several)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    rs = np.random.default_rng(4)
    X = rs.normal(size=(80, 2))
    y = (rs.uniform(size=80) < plogis(X[:, 0])).astype(int)
    X[3, 1] = np.nan
    assert isinstance(validate(HistGradientBoostingClassifier(max_iter=5), B=3, seed=1, X=X, y=y), Validation)
    for fn in (validate, calibrate):
        with pytest.raises(CalstatsError) as err:
            fn(LogisticRegression(), B=3, seed=1, X=X, y=y)
        assert str(err.value) == "The model could not be fitted to `X` and `y` (ValueError: Input X contains NaN.)."
    y = y.astype(float)
    y[5] = np.nan
    with pytest.raises(CalstatsError, match=r"^Argument `y` must not contain missing or infinite values\.$"):
        validate(LogisticRegression(), B=3, seed=1, X=np.nan_to_num(X), y=y)

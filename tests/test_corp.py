"""CORP reliability diagrams (``calstats.evaluation.corp``) against R's reliabilitydiag 0.2.1.

The references are ``tests/fixtures/corp.json``, written by
``tools/r-reference/make_corp.R``: the PAV fit, bins, bands (discrete asymptotics and
resampling with ``set.seed``), ``summary()`` for the Brier score, the log score and a user
function, ``miscalibration_test()`` and ``rbinom(n, 1, p)``. Numbers must agree to 1e-10;
on the exact platform the fit, the bands and the unweighted decomposition agree to the bit.
"""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _rcases import EXACT_PLATFORM, load_cases
from calstats import rng
from calstats._errors import CalstatsError
from calstats.evaluation.corp import CorpClasswise, CorpDecomposition, CorpDiagram, corp
from calstats.evaluation.htest import HTest
from calstats.kernels.pav import weighted_pav
from calstats.ports.stats.isoreg import isoreg
from calstats.rng._draws import _rbinom1

TOL = 1e-10
CASES = {c["id"]: c for c in load_cases("corp")}
BINARY = [k for k, c in CASES.items() if "cases" in c]
FIELDS = ("mean_score", "miscalibration", "discrimination", "uncertainty")


def A(v):
    return np.array([{"NA": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(x, x) for x in v], dtype=np.float64)


def close(got, want, tol=TOL):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    assert np.array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    assert np.all(np.abs(got[fin] - want[fin]) <= tol)
    if EXACT_PLATFORM and tol == TOL:
        # the bands and the unweighted fit are R's to the bit here
        assert np.array_equal(got, want, equal_nan=True)


def inputs(case):
    w = A(case["weights"]) if "weights" in case else None
    return A(case["x"]), A(case["y"]), w


def replicated(values, diagram):
    w = diagram._fit.w
    return values if w is None else np.repeat(values, w.astype(np.int64))


# --------------------------------------------------------------------------------------
# the fit, the bins and the curve


@pytest.mark.parametrize("cid", BINARY)
def test_fit_and_bins_match_r(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    d = corp(x, y, band=None, weights=w)
    close(replicated(d.cases["x"].to_numpy(), d), A(c["cases"]["x"]))
    close(replicated(d.cases["y"].to_numpy(), d), A(c["cases"]["y"]))
    close(replicated(d.cases["CEP_pav"].to_numpy(), d), A(c["cases"]["CEP_pav"]))
    close(d.bins["CEP_pav"], A(c["bins"]["CEP_pav"]))
    close(d.bins["x_min"], A(c["bins"]["x_min"]))
    close(d.bins["x_max"], A(c["bins"]["x_max"]))
    close(d.bins["n"], A(c["bins"]["n"]))
    assert d.xinfo["type"] == c["xtype"]
    # the curve: one row per distinct score, the PAV value there
    ux = np.unique(x if w is None else x[w > 0])
    assert list(d.curve.columns) == ["x", "CEP"]
    assert np.array_equal(d.curve["x"], ux)
    assert np.all(np.diff(d.curve["CEP"]) >= 0)
    assert d.regions.empty and d.band is None and d.band_method is None


def test_one_distinct_score_and_all_zero():
    x, y, _ = inputs(CASES["one_score"])
    d = corp(x, y, band="discrete_asymptotics")
    assert len(d.curve) == 1 and d.curve["CEP"][0] == np.mean(y)
    x, y, _ = inputs(CASES["all_zero"])
    d = corp(x, y, band=None)
    assert np.all(d.curve["CEP"] == 0.0) and len(d.bins) == 1
    dec = d.decomposition()
    assert dec.uncertainty == 0.0 and dec.discrimination == 0.0


def test_rounding_keeps_one_ulp_apart_scores_distinct():
    x, y, _ = inputs(CASES["rounding"])
    d = corp(x, y, band=None)
    assert 0.3 in d.curve["x"].tolist() and 0.1 * 3 in d.curve["x"].tolist()
    assert len(d.curve) == len(set(x.tolist()))


# --------------------------------------------------------------------------------------
# bands


@pytest.mark.parametrize("cid", BINARY)
def test_discrete_bands_match_r(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    d = corp(x, y, band="discrete_asymptotics", level=c["level"], weights=w)
    want = c["discrete_diagonal"]
    for col in ("x", "lower", "upper", "n"):
        close(d.band[col], A(want[col]))
    assert set(d.regions["method"]) == {"discrete_asymptotics"} and set(d.regions["position"]) == {"diagonal"}
    if "discrete_estimate" in c:
        e = corp(x, y, band="discrete_asymptotics", position="estimate", level=c["level"], weights=w)
        close(e.band["lower"], A(c["discrete_estimate"]["lower"]))
        close(e.band["upper"], A(c["discrete_estimate"]["upper"]))


@pytest.mark.parametrize("cid", BINARY)
def test_resampling_bands_match_r_with_set_seed(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    for rs in c["resampling"]:
        d = corp(x, y, band="resampling", level=c["level"], n_resamples=c["n_boot"], position=rs["position"],
                 seed=rs["seed"], weights=w)
        close(d.band["lower"], A(rs["band"]["lower"]))
        close(d.band["upper"], A(rs["band"]["upper"]))
        assert set(d.regions["method"]) == {f"resampling_{c['n_boot']}"}


@pytest.mark.parametrize("cid", BINARY)
def test_auto_band_is_rs_default(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    d = corp(x, y, band="auto", n_resamples=5, weights=w, seed=1)
    assert c["auto_method"].startswith(d.band_method)


def test_seed_restores_the_stream_and_none_uses_it():
    x, y, _ = inputs(CASES["precip_emos"])
    rng.set_seed(5)
    before = rng.get_state_r()
    a = corp(x, y, n_resamples=20, seed=2016)
    assert np.array_equal(rng.get_state_r(), before)
    rng.set_seed(2016)
    b = corp(x, y, n_resamples=20)
    assert np.array_equal(a.band["lower"], b.band["lower"]) and np.array_equal(a.band["upper"], b.band["upper"])
    assert not np.array_equal(rng.get_state_r(), before)


def test_single_score_resamples_fill_their_column():
    # two scores: some resamples hold one of them only (R would shift its matrix there)
    d = corp([0.2, 0.8], [0, 1], n_resamples=50, seed=3)
    assert np.all(np.isfinite(d.band[["lower", "upper"]].to_numpy()))


# --------------------------------------------------------------------------------------
# decomposition and the test


@pytest.mark.parametrize("cid", BINARY)
def test_decomposition_matches_r_summary(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    d = corp(x, y, band=None, weights=w)
    tol = TOL if w is None else 1e-15  # weighted: R's mean of the replicated rows, another sum order
    for score, key in (("brier", "brier"), ("log", "log"), (lambda yy, xx: np.abs(xx - yy), "abs")):
        dec = d.decomposition(score)
        for f in FIELDS:
            want = A(c[key][f])[0]
            got = getattr(dec, f)
            if math.isinf(want) or math.isnan(want):
                assert got == want or (math.isnan(want) and math.isnan(got))
            else:
                assert abs(got - want) <= tol, (f, got, want)
                if EXACT_PLATFORM and w is None:
                    assert got == want


@pytest.mark.parametrize("cid", [k for k in BINARY if "mctest" in CASES[k]])
def test_miscalibration_test_matches_r(cid):
    c = CASES[cid]
    x, y, w = inputs(c)
    t = corp(x, y, band=None, weights=w).miscalibration_test(seed=c["mctest"]["seed"])
    assert isinstance(t, HTest)
    assert t.p_value == A(c["mctest"]["pvalue"])[0]
    assert abs(t.statistic["MCB"] - A(c["mctest"]["miscalibration"])[0]) <= TOL
    assert t.null_distribution.size == 100


def test_decomposition_identity_and_record():
    x, y, _ = inputs(CASES["random_200"])
    dec = corp(x, y, band=None).decomposition()
    assert isinstance(dec, CorpDecomposition) and dec.inherits("summary.reliabilitydiag")
    assert abs(dec.mean_score - (dec.miscalibration - dec.discrimination + dec.uncertainty)) < 1e-15
    assert list(dec.as_frame().columns) == ["forecast", "mean_score", "miscalibration", "discrimination",
                                            "uncertainty"]
    text = dec.print_text()
    assert text.startswith("'brier' score decomposition (see also ?summary.reliabilitydiag)\n")
    assert "0.0246" in text and "0.152" in text
    assert corp(x, y, band=None).decomposition(lambda yy, xx: (xx - yy) ** 2).mean_score == dec.mean_score


# --------------------------------------------------------------------------------------
# multiclass


def multiclass():
    c = CASES["multiclass"]
    return np.array([A(r) for r in c["p"]]), A(c["y"]).astype(np.int64), c


def test_confidence_matches_r():
    P, y, c = multiclass()
    d = corp(P, y, type="confidence", band="discrete_asymptotics")
    assert isinstance(d, CorpDiagram) and d.forecast == "confidence"
    close(d.cases["x"], A(c["confidence"]["x"]))
    close(d.cases["CEP_pav"], A(c["confidence"]["CEP_pav"]))
    close(d.band["upper"], A(c["confidence"]["band"]["upper"]))
    close(d.band["lower"], A(c["confidence"]["band"]["lower"]))
    dec = d.decomposition()
    for f in FIELDS:
        assert abs(getattr(dec, f) - A(c["confidence"]["brier"][f])[0]) <= TOL


def test_classwise_matches_r():
    P, y, c = multiclass()
    d = corp(P, y, band="discrete_asymptotics")
    assert isinstance(d, CorpClasswise) and d.levels == ["1", "2", "3"]
    dec = d.decomposition()
    for j, (label, dj) in enumerate(d.diagrams.items()):
        want = c["classwise"][j]
        close(dj.cases["x"], A(want["x"]))
        close(dj.cases["CEP_pav"], A(want["CEP_pav"]))
        close(dj.band["lower"], A(want["band"]["lower"]))
        for f in FIELDS:
            assert abs(getattr(dec, f)[label] - A(want["brier"][f])[0]) <= TOL
    assert list(d.curve.columns) == ["class_label", "x", "CEP"]
    assert list(d.curve["class_label"].cat.categories) == ["1", "2", "3"]
    # one stream for all classes, as R's set.seed(99) then one reliabilitydiag per class
    r = corp(P, y, n_resamples=30, seed=99)
    for j, dj in enumerate(r.diagrams.values()):
        close(dj.band["lower"], A(c["classwise_resampling"][j]["lower"]))
        close(dj.band["upper"], A(c["classwise_resampling"][j]["upper"]))
    tests = r.miscalibration_test(n_resamples=10, seed=1)
    assert list(tests) == ["1", "2", "3"] and all(isinstance(t, HTest) for t in tests.values())


# --------------------------------------------------------------------------------------
# weights, pandas, float32, inputs untouched


def test_integer_weights_equal_replicated_rows():
    x, y, w = inputs(CASES["weights_int"])
    idx = np.repeat(np.arange(x.size), w.astype(np.int64))
    a = corp(x, y, weights=w, seed=4)
    b = corp(x[idx], y[idx], seed=4)
    assert np.array_equal(a.curve, b.curve)
    assert np.array_equal(a.band[["lower", "upper", "n"]].to_numpy(), b.band[["lower", "upper", "n"]].to_numpy())
    da, db = a.decomposition(), b.decomposition()
    for f in FIELDS:
        assert abs(getattr(da, f) - getattr(db, f)) <= 1e-15
    ta, tb = a.miscalibration_test(seed=8), b.miscalibration_test(seed=8)
    assert ta.p_value == tb.p_value
    # zero weights leave their rows out of the cases
    assert len(a.cases) == int(np.count_nonzero(w)) and "weight" in a.cases


def test_fractional_weights():
    x, y, _ = inputs(CASES["random_200"])
    w = np.linspace(0.5, 2.0, x.size)
    d = corp(x, y, band="discrete_asymptotics", weights=w)
    o = np.lexsort((-y, x))
    want = weighted_pav(y[o], w[o])
    assert np.array_equal(d.cases["CEP_pav"], want)
    assert np.all(np.diff(d.curve["CEP"]) >= 0)
    assert d.band["n"].sum() == pytest.approx(w.sum())
    with pytest.raises(CalstatsError, match="unless they are whole numbers"):
        corp(x, y, weights=w)
    with pytest.raises(CalstatsError, match="miscalibration test unless"):
        d.miscalibration_test()


def test_weighted_pav_unit_weights_is_isoreg():
    r = np.random.default_rng(3)
    y = (r.uniform(size=500) < 0.4).astype(float)
    assert np.array_equal(weighted_pav(y, np.ones(500)), isoreg(y).yf)


def test_pandas_and_float32_inputs():
    x, y, _ = inputs(CASES["precip_emos"])
    ref = corp(x, y, seed=1)
    s = corp(pd.Series(x), pd.Series(y.astype(int)), seed=1)
    assert np.array_equal(ref.band, s.band) and np.array_equal(ref.curve, s.curve)
    x32 = x.astype(np.float32)
    f = corp(x32, y, seed=1)
    g = corp(x32.astype(np.float64), y, seed=1)
    assert np.array_equal(f.curve, g.curve) and np.array_equal(f.band, g.band)
    xc, yc = x.copy(), y.copy()
    corp(x, y, n_resamples=5, weights=np.ones(x.size))
    assert np.array_equal(x, xc) and np.array_equal(y, yc)


# --------------------------------------------------------------------------------------
# rbinom


def test_rbinom_matches_r():
    for cid, seed in (("rbinom", 1), ("rbinom_500", 123)):
        c = CASES[cid]
        rng.set_seed(seed)
        draws = _rbinom1(A(c["p"]))
        assert draws.dtype == np.int64 and np.array_equal(draws, A(c["draws"]))
        # and leaves the stream where R leaves it
        assert np.array_equal(rng.runif(len(c["after"])), A(c["after"]))


def test_rbinom_vector_and_scalar_paths_agree():
    import calstats.rng._draws as draws

    p = np.array([0.3, 0.0, 0.8, 1.0, 0.5])
    rng.set_seed(9)
    want = _rbinom1(p)
    rng.set_seed(9)
    got = [draws._bernoulli_scalar(v) if 0 < v < 1 else int(v) for v in p.tolist()]
    assert np.array_equal(want, got)


# --------------------------------------------------------------------------------------
# invariants


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.booleans()), min_size=1, max_size=60))
def test_decomposition_invariants(pairs):
    x = np.array([a / 20 for a, _ in pairs])
    y = np.array([int(b) for _, b in pairs])
    d = corp(x, y, band=None)
    dec = d.decomposition()
    assert abs(dec.mean_score - (dec.miscalibration - dec.discrimination + dec.uncertainty)) < 1e-12
    assert dec.miscalibration >= -1e-15 and dec.discrimination >= -1e-15
    assert np.all(np.diff(d.curve["CEP"]) >= 0)
    assert len(d.curve) == len(set(x.tolist()))
    # the PAV values average the outcomes (calibration in the large)
    assert abs(np.mean(d.cases["CEP_pav"]) - np.mean(y)) < 1e-12


# --------------------------------------------------------------------------------------
# the result protocol and drawing


def test_protocol_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x, y, _ = inputs(CASES["ties_0.1"])
    d = corp(x, y, seed=1)
    assert d.inherits("reliabilitydiag") and d.names() == ["cases", "bins", "regions", "xinfo"]
    text = d.print_text()
    assert text.endswith("\n") and "90% consistency band (resampling, 100 resamples)" in text
    assert list(d.as_frame().columns) == ["x", "CEP", "lower", "upper", "n"]
    assert "<table" in d._repr_html_()
    fig = d.plot()
    assert fig.axes and fig.axes[0].get_xlabel() == "Forecast value"
    x2, y2, _ = inputs(CASES["random_200"])
    assert corp(x2, y2, band=None).plot().axes
    P, yy, _ = multiclass()
    cw = corp(P, yy, band="discrete_asymptotics")
    assert len(cw.plot().axes) == 3 and "<table" in cw._repr_html_()
    assert cw.print_text().count("CORP reliability diagram") == 3
    assert list(cw.as_frame().columns)[:3] == ["class_label", "x", "CEP"]
    plt.close("all")


# --------------------------------------------------------------------------------------
# messages


X = np.array([0.1, 0.4, 0.4, 0.8])
Y = np.array([0, 1, 0, 1])


@pytest.mark.parametrize("call, text", [
    (lambda: corp(X, Y, level=1.0), "Argument `level` must be a single number in `(0, 1)`."),
    (lambda: corp(X, Y, band="bootstrap"), "Argument `band` should be one of"),
    (lambda: corp(X, Y, band="continuous_asymptotics"), '`band = "continuous_asymptotics"` is not available'),
    (lambda: corp(np.linspace(0.0001, 0.9999, 6000), np.tile([0, 1], 3000), band="auto"),
     "R's default rule chose"),
    (lambda: corp(X, Y, position="middle"), "Argument `position` should be one of"),
    (lambda: corp(X, Y, n_resamples=0), "Argument `n_resamples` must be a single positive integer."),
    (lambda: corp(X, Y, seed="a"), "supplied seed is not a valid integer"),
    (lambda: corp(X, Y, band=None).decomposition("spherical"),
     'Argument `score` must be one of "brier", "log" or a function of (y, x).'),
    (lambda: corp(X, Y, band=None).decomposition(lambda y, x: 1.0),
     "The score function must return one number per observation (4)."),
    (lambda: corp(X, pd.array([0, 1, None, 1], dtype="boolean"), band=None),
     "Argument `y` must not contain missing values."),
    (lambda: corp(X, Y, weights=[1, 2]), "Argument `weights` must have one value per observation"),
    (lambda: corp(X, Y, band=None).miscalibration_test(n_resamples=-1),
     "Argument `n_resamples` must be a single positive integer."),
    (lambda: corp([0.1, 1.2], [0, 1]), "probabilities"),
    (lambda: corp(np.array([[0.5, 0.5], [0.2, 0.8]]), [1, 2], type="top"), "Argument `type` should be one of"),
])
@pytest.mark.filterwarnings("ignore:NAs introduced by coercion")
def test_messages(call, text):
    with pytest.raises(CalstatsError) as err:
        call()
    assert text in str(err.value)


def test_dask_is_refused():
    da = pytest.importorskip("dask.array")
    with pytest.raises(CalstatsError, match="not available for Dask inputs: PAV pools"):
        corp(da.from_array(X, chunks=2), Y)

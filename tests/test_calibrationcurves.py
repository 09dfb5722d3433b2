"""calstats.val_prob_ci against CalibrationCurves' val.prob.ci.2 (CalibrationCurves 3.1.0 on
rms 6.5-0, R 4.2.2): tests/fixtures/calibrationcurves.json, written by
tools/r-reference/make_calibrationcurves.R from CalibrationCurves' own testthat cases and man
page examples and further inputs. R's statistics (name for name), its Calibration and Cindex,
the flexible curve with its band, its printed text, warnings and errors.

Tolerance 1e-10 relative (R's loess: LAPACK instead of LINPACK in the local fits; the rest
agrees to the last bit or nearly).
"""

import math
import warnings

import numpy as np
import pytest

from _fixtures import load_fixture
from calstats import CalstatsError
from calstats import _validate as v
from calstats.clinical import val_prob_ci
from calstats.clinical.hierarchy import _ci_auc
from calstats.ports.stats.loess import Loess

FIX = load_fixture("calibrationcurves")
CASES = FIX["cases"]
RTOL = 1e-10
#: R's arguments calstats takes, and their Python names
ARGS = {"pl": "pl", "smooth": "smooth", "cl.level": "level", "method.ci": "c_method", "nr.knots": "nr_knots",
        "allowPerfectPredictions": "allow_perfect_predictions"}
#: R's plotting arguments (they change no statistic)
PLOT_ONLY = {"CL.smooth", "logistic.cal", "lty.log", "col.log", "lwd.log", "dostats"}


def arr(v):
    v = v if isinstance(v, list) else [v]
    return np.array([np.nan if a in ("NA", "NaN", None) else math.inf if a == "Inf" else -math.inf if a == "-Inf"
                     else float(a) for a in v], dtype=np.float64)


def close(got, want, what, rtol=RTOL):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = arr(want) if not isinstance(want, np.ndarray) else want
    assert got.shape == want.shape, what
    assert np.array_equal(np.isnan(got), np.isnan(want)), f"{what}: {got} vs {want}"
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=1e-15, err_msg=what)


def call_args(case, r_default=False):
    """The calstats arguments of an R case. ``r_default``: pass R's default
    allowPerfectPredictions = FALSE (calstats' default None keeps p of 0 or 1, and its
    out-of-range message is then R's "> 1 or < 0")."""
    kw = {"allow_perfect_predictions": False} if r_default else {}
    kw.update({ARGS[k]: v for k, v in case["args"].items() if k in ARGS})
    kw.update(case["args"].get("argzLoess", {}))  # loess(degree, span)
    kw.update({k: arr(v) for k, v in case["data"].items()})
    return kw


def run(case, r_default=False):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        h = val_prob_ci(data_names=case["exprs"], **call_args(case, r_default))
    return h, [str(w.message) for w in rec]


def as_list(v):
    return [] if v is None else [v] if isinstance(v, str) else list(v)


@pytest.mark.parametrize("name", sorted(k for k in CASES if "error" not in CASES[k]))
def test_val_prob_ci_matches_r(name):
    c = CASES[name]
    h, msgs = run(c)
    names = c["stats"]["names"]
    assert list(h.r_stat_names) == names
    close(h.stats[names].to_numpy(dtype=float), c["stats"]["values"], "stats")
    close(h.calibration["Intercept"], c["intercept"], "Calibration$Intercept")
    close(h.calibration["Slope"], c["slope"], "Calibration$Slope")
    close(h.cindex, c["cindex"], "Cindex")
    assert h.c == pytest.approx(tuple(arr(c["cindex"])), rel=RTOL, nan_ok=True)
    assert msgs == as_list(c["warnings"])
    assert h.warning_messages == as_list(c.get("warning_messages"))
    got, want = h.print_text().splitlines(), list(c["printed"])
    if set(c["args"]) & PLOT_ONLY:  # the printed call shows R's plotting arguments
        assert got[got.index(""):] == want[want.index(""):]
    else:
        assert got == want
    if "flexible" in c:
        for col in ("x", "y", "ymin", "ymax"):
            close(h.flexible[col].to_numpy(), c["flexible"][col], f"FlexibleCalibration${col}")


@pytest.mark.parametrize("name", sorted(k for k in CASES if "loess" in CASES[k]))
def test_the_loess_behind_the_curve(name):
    """R's ``loess(y ~ p, degree = 2)`` and ``predict(se = TRUE)`` on the sorted data."""
    c = CASES[name]
    p = arr(c["data"]["p"]) if "p" in c["data"] else 1 / (1 + np.exp(-arr(c["data"]["logit"])))
    y = arr(c["data"]["y"])
    ok = ~np.isnan(p + y)
    p, y = p[ok], y[ok]
    if c["args"].get("allowPerfectPredictions"):
        p = np.where(p == 0, 1e-8, np.where(p == 1, 1 - 1e-8, p))
    o = np.argsort(p, kind="stable")
    f = Loess(p[o], y[o])
    close(f.fitted, c["loess"]["fitted"], "fitted")
    close([f.s], c["loess"]["s"], "s")
    close(f.predict(se=True)[1], c["loess"]["se"], "se")


@pytest.mark.parametrize("name", sorted(k for k in CASES if "error" in CASES[k]))
def test_r_errors(name):
    c = CASES[name]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with pytest.raises(CalstatsError) as e:
            val_prob_ci(**call_args(c, r_default=True))
    assert str(e.value) == c["error"]
    assert [str(w.message) for w in rec] == as_list(c["warnings"])  # R's warnings before the error


def test_auc_intervals_match_r():
    """CalibrationCurves' auc.nonpara.mw (its own test data): every interval method."""
    a = FIX["auc"]
    pos, neg = arr(a["x"]), arr(a["y"])
    p = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(pos.size), np.zeros(neg.size)])
    for method, want in a["results"].items():
        got = _ci_auc(p, y, 0.95, method)[:3]
        close(got, want, method, rtol=1e-12)
    t = a["ties"]
    p = np.concatenate([arr(t["x"]), arr(t["y"])])
    y = np.concatenate([np.ones(4), np.zeros(4)])
    close(_ci_auc(p, y, 0.95, "pepe")[:3], t["pepe"], "pepe with ties")
    close(_ci_auc(p, y, 0.95, "delong")[:3], t["delong"], "delong with ties")


def test_names_of_their_own():
    """R's C and Emax are R's quantities; the exact AUC (DeLong) and the flexible curve's
    largest distance keep names of their own."""
    from calstats.ports.rms.lrm_fit import lrm_fit

    h, _ = run(CASES["edge_n50"])
    p, y = h.p, h.y
    pos, neg = p[y == 1], p[y == 0]
    exact = np.mean([(1.0 if a > b else 0.5 if a == b else 0.0) for a in pos for b in neg])
    assert h.auc[0] == pytest.approx(exact, rel=1e-14)
    assert h["C (ROC)"] == h.c[0] and abs(h.c[0] - h.auc[0]) > 0.03  # 0.5161 vs 0.4831 (R's example)
    # Emax: the logistic recalibration curve over R's grid
    a, b = lrm_fit(np.log(p / (1 - p)), y.astype(np.int64)).coefficients
    u = np.arange(2001) * 0.0005
    with np.errstate(divide="ignore"):
        calp = 1 / (1 + np.exp(-(a + b * np.log(u / (1 - u)))))
    assert h["Emax"] == pytest.approx(np.max(np.abs(u - calp)), rel=1e-12)
    assert b == h["Slope"]
    # Emax (flexible): the loess curve at the observations
    assert h["Emax (flexible)"] == pytest.approx(np.max(np.abs(p - Loess(p, y).fitted)), rel=1e-14)
    assert h["Emax (flexible)"] != pytest.approx(h["Emax"], rel=1e-3)


def test_allow_perfect_predictions_and_refusals():
    c = CASES["tt_perfect_allowed"]
    p, y = arr(c["data"]["p"]), arr(c["data"]["y"])
    with pytest.warns(UserWarning) as rec:
        h = val_prob_ci(p, y, pl=False, allow_perfect_predictions=True)
    assert [str(w.message) for w in rec] == [_warned(v.warn_hierarchy_replaced)]
    assert h.p.min() == 1e-8 and h.p.max() == 1 - 1e-8
    with pytest.raises(CalstatsError, match=r"^Probabilities can not be >= 1 or <= 0\.$"):
        val_prob_ci(p, y, pl=False, allow_perfect_predictions=False)
    # calstats' default keeps them and leaves them out of the logistic fits (R's val.prob warning)
    with pytest.warns(UserWarning, match="^2 observations deleted from logistic calibration"):
        h = val_prob_ci(p, y, pl=False)
    assert h["Brier"] == pytest.approx(np.mean((p - y) ** 2), rel=1e-14)  # every row counts
    with pytest.warns(UserWarning, match="^2 observations deleted from logistic calibration"):
        g = val_prob_ci(logit=np.log(p / (1 - p)), y=y, pl=False)
    assert g["Brier"] == pytest.approx(np.sum((p - y) ** 2) / (p.size - 2), rel=1e-14)  # R's n
    with pytest.raises(CalstatsError, match="^All predicted values are equal to 0 or 1"):
        val_prob_ci([0.0, 1.0, 1.0, 0.0], [0, 1, 0, 1], pl=False, allow_perfect_predictions=True)


def test_smooth_none_and_rcs_have_r_names_only():
    c = CASES["tt_none"]
    h, _ = run(c)
    assert h.curve == {} and h.flexible is None and "Eavg" not in h.stats.index
    h, _ = run(CASES["tt_rcs"])
    assert list(h.r_stat_names)[-1] == "Brier scaled" and "Eavg" in h.stats.index  # calstats' addition


def _warned(validator, *args):
    """The text of a warning validator of calstats._validate (each text written once, there)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        validator(*args)
    assert len(rec) == 1
    return str(rec[0].message)


def test_messages_without_an_r_case():
    c = CASES["edge_n50"]
    p, y = arr(c["data"]["p"]), arr(c["data"]["y"])
    with pytest.raises(CalstatsError, match=r"^Nr\.knots must be numeric\.$"):
        val_prob_ci(p, y, pl=False, nr_knots="5")
    with pytest.warns(UserWarning) as rec:
        h = val_prob_ci(p, y, pl=False, c_method="bootstrapP")
    assert [str(w.message) for w in rec] == [_warned(v.warn_bootstrap_c)]
    assert str(rec[0].message).startswith("Bootstrap-based methods are not supported by this package.")
    assert h.cindex[1:] == val_prob_ci(p, y, pl=False, c_method="pepe").cindex[1:]
    h, _ = run(CASES["loess_to_rcs"])  # R's spline is fitted only to plot; here it has no knots
    assert h.curve == {} and h.warning_messages == [_warned(v.warn_loess_to_rcs)]
    assert _warned(v.warn_large_data, 1_000_000).startswith("Dataset contains 1 000 000 observations. Very large "
                                                            "datasets")


def test_more_than_100000_observations_warn_as_r():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.02, 0.98, 100_001)
    y = (rng.uniform(size=p.size) < p).astype(float)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        val_prob_ci(p, y, pl=False)
    assert [str(w.message) for w in rec] == [_warned(v.warn_over_5000), _warned(v.warn_large_data, 100_001)]
    assert str(rec[1].message).startswith("Dataset contains 100 001 observations.")


def test_weights_are_refused():
    c = CASES["edge_n50"]
    with pytest.raises(CalstatsError, match=r"^Case weights are not supported by val_prob_ci: CalibrationCurves' "
                                            r"val\.prob\.ci\.2 computes no weighted statistic"):
        val_prob_ci(arr(c["data"]["p"]), arr(c["data"]["y"]), weights=np.ones(50))

"""calstats.ports.stats.loess against R's stats::loess (tests/fixtures/loess.json, written by
tools/r-reference/make_loess.R on R 4.2.2): fitted values, s, one.delta, two.delta,
trace.hat, enp and predict(se = TRUE), to 1e-10 relative, with R's warnings.

R solves each local fit with LINPACK's QR and SVD, calstats with LAPACK's: the numbers agree
to rounding (about 1e-14), hence the tolerance.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from calstats.ports.stats.loess import Loess, loess_fit_1d

FIX = load_fixture("loess")
ZERO_WIDTH = FIX.pop("zero_width")
RTOL = 1e-10
#: Cases where R's own vertex slopes are numerically arbitrary: five distinct x, span 0.5,
#: degree 1. At the vertex 0.3 the squared distances of the neighbouring values 0.1 and 0.5
#: are 0.039999999999999994 and 0.040000000000000008, so the whole tie at 0.1 enters the fit
#: with root weights of 1.7e-23 beside weights of 1 at 0.3: the slope is decided by those
#: tiny rows. LINPACK's unpivoted QR in R's row order loses them (R's vertex slopes: 0 at 0.3,
#: -2.8e6 at 0.7); calstats' row-pivoted QR keeps them (the exact weighted least-squares
#: slopes, checked in rational arithmetic below). At the data, which sit on vertices, only
#: vertex values count and calstats equals R; between the data (the grid) the slopes differ.
DEGENERATE = {"five_values_span05"}
#: Three values of x, 2001 times each, R's default span: at each vertex the neighbourhood holds
#: two of the values (the third on its boundary, weight 0), so the local quadratic's columns
#: are proportional. R's LINPACK leaves the third singular value at rounding size instead of
#: below its cut-off, and R's vertex values are not least-squares solutions: 0.0981 at
#: x = 0.1, where every least-squares solution gives the mean outcome there (0.0974).
#: calstats returns the least-squares value (below); CalibrationCurves' val.prob.ci.2 leaves
#: loess for its spline at this size anyway.
RANK_DEFICIENT = {"three_values_6003"}


def arr(v):
    if v is None:
        return None
    v = v if isinstance(v, list) else [v]
    return np.array([np.nan if a in ("NA", "NaN", None) else float(a) for a in v], dtype=np.float64)


def close(got, want, what, rtol=RTOL, atol=0.0):
    got = np.asarray(got, dtype=np.float64).ravel()
    want = arr(want)
    assert got.shape == want.shape, what
    assert np.array_equal(np.isnan(got), np.isnan(want)), what
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=atol, err_msg=what)


def fit_of(c):
    return Loess(arr(c["x"]), arr(c["y"]), weights=arr(c["w"]), span=c["span"], degree=c["degree"],
                 family=c["family"], surface=c["surface"], statistics=c["statistics"], cell=c["cell"])


@pytest.mark.parametrize("name", sorted(set(FIX) - RANK_DEFICIENT))
def test_loess_matches_r(name):
    c = FIX[name]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f = fit_of(c)
        close(f.fitted, c["fitted"], "fitted")
        for attr in ("s", "one_delta", "two_delta", "trace_hat", "enp"):
            close([getattr(f, attr)], c[attr], attr)
        close(f.robust, c["robust"], "robust")
        fit, se = f.predict(se=True)
        close(fit, c["data_fit"], "predict at the data")
        close(se, c["data_se"], "se at the data")
        fit, se = f.predict(arr(c["grid"]), se=True)
        if name not in DEGENERATE:
            close(fit, c["grid_fit"], "predict on the grid")
            close(se, c["grid_se"], "se on the grid")
    assert [str(w.message) for w in rec] == list(c["warnings"])


@pytest.mark.parametrize("name", [k for k in sorted(set(FIX) - RANK_DEFICIENT) if FIX[k]["family"] == "gaussian"
                                  and FIX[k]["surface"] == "interpolate"])
def test_loess_fit_1d_is_the_interpolated_fit(name):
    c = FIX[name]
    got = loess_fit_1d(arr(c["x"]), arr(c["y"]), weights=arr(c["w"]), span=c["span"], degree=c["degree"],
                       cell=c["cell"])
    close(got, c["fitted"], "fitted")


def test_inputs_not_mutated_and_order_free():
    c = FIX["ties_300"]
    x, y = arr(c["x"]), arr(c["y"])
    x0, y0 = x.copy(), y.copy()
    f = Loess(x, y)
    assert np.array_equal(x, x0) and np.array_equal(y, y0)
    perm = np.random.default_rng(3).permutation(x.size)
    g = Loess(x[perm], y[perm])
    np.testing.assert_allclose(g.fitted, f.fitted[perm], rtol=1e-13)
    assert g.s == pytest.approx(f.s, rel=1e-13)


@settings(max_examples=25, deadline=None)
@given(st.integers(20, 120), st.integers(0, 2**31 - 1), st.sampled_from([1, 2]), st.floats(0.3, 1.0))
def test_interpolated_operator_reproduces_the_fit(n, seed, degree, span):
    """The operator rows behind the trace and the standard errors are the fit's: L(x) @ y is
    the fitted value, L reproduces polynomials of the local degree where the fit is local,
    and the quadratic form of the cell Gram matrices equals the sum of squares of L(x)."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(size=n), 3)
    y = rng.normal(size=n)
    f = Loess(x, y, span=span, degree=degree)
    first = f._first
    z = np.linspace(x.min(), x.max(), 7)
    L = first.operator_rows(z)
    np.testing.assert_allclose(L @ first.ys, f.predict(z), rtol=1e-9, atol=1e-12)
    _, se = f.predict(z, se=True)
    np.testing.assert_allclose(se, f.s * np.sqrt(np.sum(L * L, axis=1)), rtol=1e-9)
    Ld = first.operator_rows(first.xs)
    assert np.trace(Ld) == pytest.approx(f.trace_hat, rel=1e-11)


def _exact_wls(x, y, w2, q, degree):
    """Weighted least squares at q in rational arithmetic: (value, slope)."""
    from fractions import Fraction as F

    k = degree + 1
    X = [[F(1)] + [(F(xi) - F(q)) ** p for p in range(1, k)] for xi in x]
    W = [F(v) for v in w2]
    A = [[sum(W[i] * X[i][a] * X[i][b] for i in range(len(x))) for b in range(k)] for a in range(k)]
    r = [sum(W[i] * X[i][a] * F(y[i]) for i in range(len(x))) for a in range(k)]
    for col in range(k):  # Gauss-Jordan
        piv = next(i for i in range(col, k) if A[i][col] != 0)
        A[col], A[piv], r[col], r[piv] = A[piv], A[col], r[piv], r[col]
        for i in range(k):
            if i != col and A[i][col] != 0:
                f = A[i][col] / A[col][col]
                A[i] = [a - f * b for a, b in zip(A[i], A[col])]
                r[i] -= f * r[col]
    sol = [r[i] / A[i][i] for i in range(k)]
    return float(sol[0]), float(sol[1]) if k > 1 else 0.0


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_vertex_fits_are_exact(name):
    from calstats.ports.stats.loess import _local_fit

    c = FIX[name]
    f = fit_of(c)
    sf = f._first
    xs, ys = sf.xs, sf.ys
    for v, val, slope in zip(sf.tree.verts, sf.vval, sf.vslope):
        lf = _local_fit(xs, ys, sf.rw, float(v), f.nf, f.span, f.degree, False)
        d = (xs[lf.a:lf.b] - v) ** 2
        u = np.sqrt(d / lf.rho)
        t = 1 - u * u * u
        w2 = t * t * t  # the squared root weights, as the fit computes them
        want = _exact_wls(xs[lf.a:lf.b], ys[lf.a:lf.b], w2, float(v), f.degree)
        assert val == pytest.approx(want[0], rel=1e-12, abs=1e-13)
        assert slope == pytest.approx(want[1], rel=1e-9, abs=1e-12)


def test_pmcalibration_loess_on_its_man_example():
    """pmcalibration(smooth = "loess", ci = "pw") on pmcalibration's man page data: R's loess
    of y on logit(p), predict(se = TRUE) on its plotting grid, and the metrics."""
    from calstats.clinical import pmcalibration

    c = FIX["pmcalibration_man"]
    r = c["pmcalibration"]
    fit = pmcalibration(arr(c["y"]), arr(r["p"]), smooth="loess", ci="pw")
    close(fit.metrics.to_numpy(), r["metrics"], "metrics")
    close(fit.p_c["p_c"], r["p_c"], "p_c")
    close(fit.plot_p, r["plot_p"], "plotting points")
    close(fit.p_c_plot, r["p_c_plot"], "p_c_plot")
    close(fit.p_c_plot_se, r["p_c_plot_se"], "p_c_plot_se")


def test_zero_width_neighbourhoods_warn_and_fail_as_r():
    """Three values, span 0.3: R's warnings (boundary, pseudo-inverse, zero-width) in R's
    order, NaN fits, and R's error from predict."""
    from calstats import CalstatsError

    c = ZERO_WIDTH
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f = Loess(arr(c["x"]), arr(c["y"]), span=c["span"])
    assert [str(w.message) for w in rec] == list(c["warnings"])
    close(f.fitted, c["fitted"], "fitted")
    with pytest.raises(CalstatsError, match=r"^NA/NaN/Inf in foreign function call \(arg 5\)$"):
        f.predict([0.3])
    assert c["predict_error"] == "NA/NaN/Inf in foreign function call (arg 5)"


@pytest.mark.parametrize("name", sorted(RANK_DEFICIENT))
def test_rank_deficient_neighbourhoods_give_least_squares_values(name):
    c = FIX[name]
    x, y = arr(c["x"]), arr(c["y"])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        f = Loess(x, y)
    # R's warnings, but for the reciprocal condition number: a ratio of rounding errors
    got = [str(w.message) for w in rec]
    want = list(c["warnings"])[:len(got)]
    assert [m for m in got if "reciprocal" not in m] == [m for m in want if "reciprocal" not in m]
    assert len(got) == 4 and float(got[2].split()[-1]) < 1e-13 > float(want[2].split()[-1])
    for v in np.unique(x):  # the data sit on vertices: the fit there is the group's mean
        assert f.fitted[x == v] == pytest.approx(np.mean(y[x == v]), rel=1e-12)
    r = arr(c["fitted"])
    assert abs(r[x == 0.1][0] - np.mean(y[x == 0.1])) > 1e-4  # R's is not (see RANK_DEFICIENT)

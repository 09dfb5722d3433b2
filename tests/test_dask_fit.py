"""Platt and temperature scaling fitted on Dask inputs equal the in-memory fits (issue 16),
whatever the chunking: uneven, empty and one-class chunks, arrays and DataFrames."""

import numpy as np
import pandas as pd
import pytest

import calstats as cs
from _dask import local_client
from calstats import CalstatsError

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

RTOL = 1e-10
UNEVEN = [1, 999, 0, 1500, 7, 0, 1493]


@pytest.fixture(scope="module")
def client():
    yield from local_client(processes=True)


def _chunked(a, sizes):
    """A Dask array of ``a`` cut at the given row counts (zeros: empty blocks)."""
    assert sum(sizes) == a.shape[0]
    return da.from_array(a, chunks=(tuple(sizes),) + tuple((s,) for s in a.shape[1:]))


def _binary(n=4000, seed=0, scale=2.0, loc=0.0):
    rng = np.random.default_rng(seed)
    x = loc + rng.normal(size=n) * scale
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(0.3 + 1.5 * (x - loc) / scale)))).astype(np.int64)
    return x, y


def _multiclass(n=4000, k=4, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, k)) * 2.5
    codes = np.array([rng.choice(k, p=np.exp(r / 1.7) / np.exp(r / 1.7).sum()) for r in Z]) + 1
    return Z, codes


def _close(a, b):
    np.testing.assert_allclose(b, a, rtol=RTOL, atol=0)


def _same_platt(a, b):
    _close(a.coefficients.to_numpy(), b.coefficients.to_numpy())
    assert list(b.coefficients.index) == ["(Intercept)", "x"]
    for f in ("deviance", "null_deviance", "aic"):
        _close(getattr(a.fit, f), getattr(b.fit, f))
    for f in ("iter", "converged", "rank", "df_residual", "df_null", "boundary"):
        assert getattr(a.fit, f) == getattr(b.fit, f), f
    assert (a.n, a.target_pos, a.target_neg, a.method) == (b.n, b.target_pos, b.target_neg, b.method)
    _close(a.fit.cov_unscaled.to_numpy(), b.fit.cov_unscaled.to_numpy())
    assert type(a) is type(b) and a.names() == b.names()


def _same_temperature(a, b):
    _close(a.temperature, b.temperature)
    _close(a.value, b.value)
    assert type(a) is type(b) and a.names() == b.names()
    assert (a.n, a.convergence, a.method) == (b.n, b.convergence, b.method)


# --------------------------------------------------------------------------------------
# Platt scaling


def test_platt_equals_in_memory_on_uneven_and_empty_chunks():
    x, y = _binary()
    a = cs.cal_platt(x, y)
    b = cs.cal_platt(_chunked(x, UNEVEN), _chunked(y, UNEVEN))
    _same_platt(a, b)
    # the per-row fields are lazy Dask arrays of the same values
    for f in ("fitted_values", "weights", "y", "prior_weights"):
        _close(getattr(a.fit, f), getattr(b.fit, f).compute())
    np.testing.assert_allclose(b.fit.linear_predictors.compute(), a.fit.linear_predictors, rtol=0, atol=1e-12)
    # the chunking does not change a bit of the fit
    c = cs.cal_platt(_chunked(x, [4000]), _chunked(y, [4000]))
    assert c.coefficients.equals(b.coefficients) and c.fit.deviance == b.fit.deviance
    # predict: a Dask array in, a Dask array out
    p = b.predict(_chunked(x, UNEVEN))
    assert isinstance(p, da.Array)
    _close(a.predict(x), p.compute())
    _close(a.predict(x), b.predict(x))


def test_platt_ill_conditioned_scores_and_float32():
    x, y = _binary(n=3000, seed=5, scale=0.02, loc=0.5)  # probabilities in a narrow band
    _same_platt(cs.cal_platt(x, y), cs.cal_platt(_chunked(x, [1000, 0, 2000]), da.from_array(y, chunks=700)))
    x32 = x.astype(np.float32)
    _same_platt(cs.cal_platt(x32, y), cs.cal_platt(_chunked(x32, [1000, 0, 2000]), y))  # y in memory


def test_platt_constant_scores_alias_the_slope():
    _, y = _binary(n=500, seed=2)
    x = np.full(500, 0.25)
    a, b = cs.cal_platt(x, y), cs.cal_platt(_chunked(x, [100, 400]), _chunked(y, [100, 400]))
    assert np.isnan(b.coefficients["x"]) and b.fit.rank == 1
    _same_platt(a, b)
    with pytest.raises(CalstatsError, match="Argument `x` must not contain missing values."):
        b.predict(_chunked(x, [500]))


def test_platt_and_temperature_on_dask_dataframe_columns():
    x, y = _binary(n=3000, seed=3)
    pdf = pd.DataFrame({"x": x, "y": y})
    ddf = dd.from_pandas(pdf, npartitions=4)
    _same_platt(cs.cal_platt(x, y), cs.cal_platt(ddf["x"], ddf["y"]))
    _same_platt(cs.cal_platt(x, y), cs.cal_platt(ddf[["x"]], ddf["y"]))  # a one-column frame is a vector
    fit = cs.cal_temperature(ddf["x"], ddf["y"])
    _same_temperature(cs.cal_temperature(x, y), fit)
    p = fit.predict(ddf["x"])
    assert isinstance(p, dd.Series)
    _close(cs.cal_temperature(x, y).predict(x), p.compute().to_numpy())


# --------------------------------------------------------------------------------------
# temperature scaling


@pytest.mark.parametrize("seed", [0, 31, 37])
def test_binary_temperature_is_the_in_memory_fit_bit_for_bit(seed):
    # seeds 31 and 37: problems on which a correctly rounded sum (instead of R's
    # long-double sum in row order) makes Brent stop elsewhere, ~2e-8 away
    rng = np.random.default_rng(seed)
    n = 5000
    z = rng.normal(size=n) * rng.uniform(0.5, 5)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-z / rng.uniform(0.3, 3)))).astype(np.int64)
    sizes = [1, 1999, 0, 1500, 7, 0, 1493]
    a, b = cs.cal_temperature(z, y), cs.cal_temperature(_chunked(z, sizes), _chunked(y, sizes))
    _same_temperature(a, b)
    assert (a.temperature, a.value) == (b.temperature, b.value)
    if seed == 31:  # a flat parallel pass of exact pieces instead: Brent's tolerance apart
        from calstats.dask._fit import temperature

        t, value, *_ = temperature(_chunked(z, sizes), _chunked(y, sizes), r_order=False)
        np.testing.assert_allclose(t, a.temperature, rtol=1e-7)
        np.testing.assert_allclose(value, a.value, rtol=1e-14)
    p = b.predict(_chunked(z, sizes))
    assert isinstance(p, da.Array)
    _close(a.predict(z), p.compute())


def test_multiclass_temperature_arrays_and_frames():
    Z, codes = _multiclass()
    a = cs.cal_temperature(Z, codes)
    b = cs.cal_temperature(_chunked(Z, UNEVEN), _chunked(codes, UNEVEN))
    _same_temperature(a, b)
    assert (b.k, b.levels, b.r_class) == (a.k, a.levels, a.r_class)
    p = b.predict(_chunked(Z, UNEVEN))
    assert isinstance(p, da.Array)
    _close(a.predict(Z).to_numpy(), p.compute())
    # a DataFrame of logits and a categorical label column
    levels = ["ant", "bee", "cat", "dog"]
    pdf = pd.DataFrame(Z, columns=levels).assign(y=pd.Categorical.from_codes(codes - 1, categories=levels))
    ddf = dd.from_pandas(pdf, npartitions=3)
    c = cs.cal_temperature(ddf[levels], ddf["y"])
    _same_temperature(cs.cal_temperature(pdf[levels], pdf["y"]), c)
    assert c.levels == levels
    pf = c.predict(ddf[levels]).compute()
    assert list(pf.columns) == levels
    _close(a.predict(Z).to_numpy(), pf.to_numpy())
    # float32 logits
    Z32 = Z.astype(np.float32)
    _same_temperature(cs.cal_temperature(Z32, codes), cs.cal_temperature(_chunked(Z32, UNEVEN), codes))


def test_one_class_chunks_on_the_distributed_scheduler(client):
    x, y = _binary(n=3000, seed=7)
    order = np.argsort(y, kind="stable")  # every block below holds one class only
    x, y = x[order], y[order]
    sizes = [int((y == 0).sum()), 0, int((y == 1).sum())]
    xd, yd = _chunked(x, sizes), _chunked(y, sizes)
    _same_platt(cs.cal_platt(x, y), cs.cal_platt(xd, yd))
    a, b = cs.cal_temperature(x, y), cs.cal_temperature(xd, yd)
    _same_temperature(a, b)
    assert (a.temperature, a.value) == (b.temperature, b.value)


def test_multiclass_one_class_chunks():
    Z, codes = _multiclass(n=2000, k=3, seed=8)
    order = np.argsort(codes, kind="stable")
    Z, codes = Z[order], codes[order]
    sizes = np.bincount(codes)[1:].tolist()
    _same_temperature(cs.cal_temperature(Z, codes), cs.cal_temperature(_chunked(Z, sizes), _chunked(codes, sizes)))


# --------------------------------------------------------------------------------------
# errors: R's messages, in R's order


def _fails(msg, fn, *args, **kwargs):
    with pytest.raises(CalstatsError) as e:
        fn(*args, **kwargs)
    assert str(e.value) == msg


def test_errors():
    x, y = _binary(n=200, seed=9)
    ones = np.ones(200, dtype=np.int64)
    for fn in (cs.cal_platt, cs.cal_temperature):
        _fails("Argument `y` must contain at least one `0` and one `1`.", fn,
               _chunked(x, [50, 150]), _chunked(ones, [50, 150]))
        _fails("Case weights are not supported with Dask inputs yet; fit the calibrator in memory.", fn,
               _chunked(x, [200]), y, weights=np.ones(200))
    bad_x, bad_y = x.copy(), y.copy()
    bad_x[150] = np.nan
    bad_y[10] = 2  # a bad label in an earlier block: R checks all of x first
    _fails("Argument `x` must not contain missing values.", cs.cal_platt, _chunked(bad_x, [100, 100]),
           _chunked(bad_y, [100, 100]))
    _fails("Argument `logits` must not contain missing values.", cs.cal_temperature, _chunked(bad_x, [100, 100]), y)
    inf_x = x.copy()
    inf_x[5] = np.inf  # an infinite value earlier, a missing one later: R reports the missing one
    inf_x[150] = np.nan
    _fails("Argument `x` must not contain missing values.", cs.cal_platt, _chunked(inf_x, [100, 100]), y)
    _fails("Argument `y` must contain only binary labels `0` and `1`.", cs.cal_platt, _chunked(x, [100, 100]),
           _chunked(bad_y, [100, 100]))
    _fails("Arguments `x` and `y` must have the same length.", cs.cal_platt, _chunked(x, [200]), y[:150])
    Z, codes = _multiclass(n=300, k=3, seed=1)
    _fails("Argument `y` has 3 classes but the input has 4 columns.", cs.cal_temperature,
           _chunked(np.column_stack([Z, Z[:, 0]]), [100, 200]), codes)
    fit = cs.cal_temperature(_chunked(x, [200]), y)
    _fails("argument is of length zero", fit.predict, _chunked(Z, [300]))

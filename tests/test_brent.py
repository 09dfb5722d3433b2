"""calstats.numerics.brent against R's optimize() (numerics.md N3.2).

R's cal_temperature minimises the temperature objectives (r-interface.md §2, §3.4, §4.1)
with optim(method = "Brent") = optimize(tol = sqrt(DBL_EPSILON)). The objectives are
written here with R's arithmetic (libm exp/log, long-double sum / mean / rowSums), so the
fixtures test the Brent iteration itself.
"""

import math
import warnings

import numpy as np
import pytest

from _fixtures import load_fixture
from _rcases import exact_only
from _rcases import rnum as _num
from calstats._errors import CalstatsError, CalstatsWarning
from calstats.numerics import libm
from calstats.numerics.brent import DBL_MAX, SQRT_DBL_EPSILON, brent_min
from calstats.numerics.reductions import rmean, row_sums, rsum

TEMPERATURE = load_fixture("temperature")["cases"]
QUIRKS = {c["id"]: c for c in load_fixture("quirks")["cases"]}

LOWER, UPPER = 1e-3, 1e3
LOSS_EPS = 1e-15
NONFINITE = "NA/Inf replaced by maximum positive value"





def _clip(v):
    return np.minimum(np.maximum(v, LOSS_EPS), 1.0 - LOSS_EPS)


def binary_objective(logits, y):
    """f(T) = binary_log_loss(inv_logit(logits / T), y): a long-double *sum*."""
    logits = np.asarray(logits, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)

    def f(T):
        q = _clip(1.0 / (1.0 + libm.exp(-(logits / T))))
        return -rsum(y * libm.log(q) + (1.0 - y) * libm.log1p(-q))

    return f


def multiclass_objective(Z, codes):
    """g(T) = multiclass_log_loss(softmax(Z / T), codes): R's two-pass *mean*."""
    Z = np.asarray(Z, dtype=np.float64)
    rows = np.arange(Z.shape[0])
    idx = np.asarray(codes, dtype=np.int64) - 1

    def g(T):
        S = Z / T
        E = libm.exp(S - S.max(axis=1, keepdims=True))
        P = E / row_sums(E)[:, None]
        return -rmean(libm.log(_clip(P[rows, idx])))

    return g


def objective_for(case):
    logits = _num(case["inputs"]["logits"])
    y = case["inputs"]["y"]
    if isinstance(y, dict):  # factor: codes are positions in levels (1-based)
        codes = np.array([y["levels"].index(v) + 1 for v in y["values"]])
    else:
        codes = _num(y)
    if logits.ndim == 2:
        return multiclass_objective(logits, codes.astype(np.int64))
    return binary_objective(logits, codes)


def _fit(case):
    f = objective_for(case)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        T = brent_min(f, LOWER, UPPER)
    return T, f(T), [str(w.message) for w in rec]


@pytest.mark.parametrize("case", TEMPERATURE, ids=[c["id"] for c in TEMPERATURE])
def test_temperature_fixture(case):
    o = case["outputs"]
    T, value, messages = _fit(case)
    assert messages == o["warnings"] == []
    assert isinstance(T, float)
    # r-interface.md §10: Brent's own tolerance for T, 1e-12 relative for the value
    assert abs(T - o["temperature"]) <= 3e-8 * abs(o["temperature"]) + 1e-8
    assert abs(value - o["value"]) <= 1e-12 * abs(o["value"])
    assert LOWER < T < UPPER


@exact_only
@pytest.mark.parametrize("case", TEMPERATURE, ids=[c["id"] for c in TEMPERATURE])
def test_temperature_fixture_bit_exact(case):
    o = case["outputs"]
    T, value, _ = _fit(case)
    assert T == o["temperature"]
    assert value == o["value"]


def test_nan_objective_is_replaced_by_dbl_max_with_one_warning_per_evaluation():
    # quirks.json: logical labels with NA make the objective NA for every T; optimize()
    # warns at each evaluation and ends near the upper bound.
    case = QUIRKS["quirk_logical_na_labels_temperature"]
    logits = _num(case["inputs"]["logits"])
    y = _num(case["inputs"]["y"])
    assert np.isnan(y).any()
    f = binary_objective(logits, y)
    calls = []

    def counted(T):
        calls.append(T)
        return f(T)

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        T = brent_min(counted, LOWER, UPPER)
    messages = [str(w.message) for w in rec]
    assert all(issubclass(w.category, CalstatsWarning) for w in rec)
    assert messages == case["outputs"]["warnings"]
    assert len(messages) == len(calls) == 37
    assert T == case["outputs"]["value"]["temperature"]
    assert math.isnan(f(T))  # value = f(T) re-evaluated: NA, as in R


def test_inf_only_where_replaced():
    # Non-finite on part of the interval: one warning per non-finite evaluation only.
    # (The first point, 3.82, must be finite: were f(x) = DBL_MAX there, every later
    # DBL_MAX would count as "no worse" and R's Brent walks to the upper end.)
    calls = []

    def f(x):
        calls.append(x)
        return math.inf if x > 6.0 else (x - 1.0) ** 2

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        x = brent_min(f, 0.0, 10.0)
    assert len(rec) == sum(1 for c in calls if c > 6.0) >= 1
    assert all(str(w.message) == "NA/Inf replaced by maximum positive value" for w in rec)
    assert x == pytest.approx(1.0, abs=1e-7)


def test_dbl_max_constant():
    assert DBL_MAX == np.finfo(np.float64).max == 1.7976931348623157e308
    assert SQRT_DBL_EPSILON == 1.4901161193847656e-08


def test_quadratic_minimum_and_first_point():
    calls = []

    def f(x):
        calls.append(x)
        return (x - 2.0) ** 2

    x = brent_min(f, 0.0, 5.0)
    assert abs(x - 2.0) <= 3 * (SQRT_DBL_EPSILON * 2.0 + SQRT_DBL_EPSILON / 3)
    # Brent's first point is the golden-section point a + c(b - a)
    assert calls[0] == 0.0 + (3.0 - math.sqrt(5.0)) * 0.5 * (5.0 - 0.0)


def test_endpoint_minimum_stays_inside():
    x = brent_min(lambda t: t, LOWER, UPPER)
    assert LOWER < x < LOWER * 1.0001


@pytest.mark.parametrize(
    "lower, upper, tol, message",
    [
        (math.nan, 1.0, 1e-8, "invalid 'xmin' value"),
        (0.0, math.inf, 1e-8, "invalid 'xmax' value"),
        (1.0, 1.0, 1e-8, "'xmin' not less than 'xmax'"),
        (0.0, 1.0, 0.0, "invalid 'tol' value"),
    ],
)
def test_r_argument_errors(lower, upper, tol, message):
    with pytest.raises(CalstatsError) as err:
        brent_min(lambda t: t, lower, upper, tol)
    assert str(err.value) == message

"""R's small deterministic routines: round/as.character, isoreg, approx, findInterval and
type-8 quantile (numerics.md N5-N8, N11).

Each fast implementation is compared bit for bit with a literal transcription of R's C or R
code kept here as the reference, on hand-picked and random inputs, and with the R fixtures
(``isotonic.json``, ``histogram.json``, ``printing.json``).
"""

import math
import re
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from _fixtures import load_fixture
from _rcases import rnum as _num
from calstats.numerics.interp import approx_constant, find_interval, quantile_type8
from calstats.numerics.reductions import rmean
from calstats.numerics.rformat import as_character, format_int, r_round
from calstats.ports.stats import isoreg as isoreg_mod
from calstats.ports.stats.isoreg import IsoregResult, isoreg

ISOTONIC = load_fixture("isotonic")["cases"]
HISTOGRAM = load_fixture("histogram")["cases"]
PRINTING = load_fixture("printing")["cases"]

SLOW = settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])




def _bits(a):
    """Bit patterns, so that -0.0 != 0.0 and NaN == NaN in comparisons."""
    return np.asarray(a, dtype=np.float64).view(np.int64)


def _same(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(_bits(a), _bits(b))


# ---------------------------------------------------------------------------------------
# N11.1 round


@pytest.mark.parametrize(
    "x, d, want",
    [
        (-5e-05, 4, -0.0),
        (5e-05, 4, 0.0),
        (0.15, 1, 0.1),  # 0.15 is below 3/20: both candidates compared in double
        (2.5, 0, 2.0),  # digits = 0 is nearbyint: ties to even
        (-1.5, 0, -2.0),
        (0.5504, 3, 0.55),
        (1.03739319, 4, 1.0374),
        (-1.2510146, 4, -1.251),
        (123.456, -1, 120.0),
        (0.0, 4, 0.0),
        (-0.0, 4, -0.0),
        (1e300, 4, 1e300),  # too many digits already: unchanged
        (1.2345678901234567, 15, 1.2345678901234567),
    ],
)
def test_r_round_examples(x, d, want):
    got = r_round(x, d)
    assert _same(got, want), (got, want)


def test_r_round_differs_from_python_round_near_ties():
    assert round(-5e-05, 4) == -0.0001  # Python: exact decimal expansion
    assert _same(r_round(-5e-05, 4), -0.0)
    assert as_character(r_round(-5e-05, 4)) == "0"


def test_r_round_non_finite():
    assert math.isnan(r_round(math.nan, 3))
    assert r_round(math.inf, 3) == math.inf
    assert r_round(-math.inf, 3) == -math.inf


def _round_reference(x, d):
    """R 4.x fround for d >= 1 written from numerics.md N11.1 with Python's own operations."""
    if not math.isfinite(x) or x == 0:
        return x
    ax = abs(x)
    if (math.frexp(ax)[1] - 1 + 0.5) * math.log10(2) + d > 15:
        return x
    p = 10.0**d
    x10 = p * ax
    i10 = math.floor(x10)
    lo, hi = i10 / p, math.ceil(x10) / p
    du, dd = hi - ax, ax - lo
    r = hi if (du < dd or (du == dd and i10 % 2 == 1)) else lo
    return math.copysign(r, x)


@SLOW
@given(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False),
    st.integers(min_value=1, max_value=8),
)
def test_r_round_matches_spec_reference(x, d):
    assert _same(r_round(x, d), _round_reference(x, d))


@SLOW
@given(st.integers(min_value=-10**9, max_value=10**9), st.integers(min_value=1, max_value=6))
def test_r_round_on_decimal_ties(m, d):
    # m * 10^-d + 5 * 10^-(d+1): the cases where R and Python disagree most often
    x = float(f"{m}5e-{d + 1}")
    assert _same(r_round(x, d), _round_reference(x, d))


# ---------------------------------------------------------------------------------------
# N11.2 as.character


@pytest.mark.parametrize(
    "x, want",
    [
        (0.001, "0.001"),
        (1e-4, "1e-04"),
        (1e5, "1e+05"),
        (123456.0, "123456"),
        (1 / 3, "0.333333333333333"),
        (56809204.35115695, "56809204.351157"),  # long-double digit count (N11.2 step 2)
        (1e-15, "1e-15"),
        (0.1, "0.1"),
        (0.1 + 0.2, "0.3"),
        (1.5e-08, "1.5e-08"),
        (-0.001, "-0.001"),
        (0.55, "0.55"),
        (-1.251, "-1.251"),
        (1.0374, "1.0374"),
        (100.0, "100"),
        (1e15, "1e+15"),
        (1e100, "1e+100"),
        (1e-99, "1e-99"),
        (1e-100, "1e-100"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (-0.0, "0"),
        (math.nan, "NA"),
        (math.inf, "Inf"),
        (-math.inf, "-Inf"),
        (5e-324, "4.94065645841247e-324"),
        (1.7976931348623157e308, "1.79769313486232e+308"),
    ],
)
def test_as_character_examples(x, want):
    assert as_character(x) == want


def test_as_character_accepts_numpy_and_int():
    assert as_character(np.float64(0.25)) == "0.25"
    assert as_character(3) == "3"
    assert as_character(np.int64(-7)) == "-7"


def test_as_character_long_double_digits_differ_from_correct_rounding():
    # '%.15g' rounds the exact binary value once; R rounds x * 10^7 in long double first.
    x = 56809204.35115695
    assert "%.15g" % x == "56809204.3511569"
    assert as_character(x) == "56809204.351157"


@pytest.mark.parametrize(
    "x, want, with_exact_powers",
    [
        # kp = -25 (x multiplied by T[25]) and kp = +25 (divided by T[25]). R's table holds
        # the *double* nearest to 10^25 widened to long double; with the exact power (which a
        # long double can hold) the digit count would differ. Derived from R's format.c and
        # numerics.md N11.2 (not re-run in R).
        (3.997743226747095e-11, "3.9977432267471e-11", "3.99774322674709e-11"),
        (5.061937817066505e39, "5.0619378170665e+39", "5.06193781706651e+39"),
    ],
)
def test_as_character_uses_double_powers_of_ten_table(x, want, with_exact_powers):
    assert as_character(x) == want
    assert _oracle_with_exact_powers(x) == with_exact_powers


def _oracle_with_exact_powers(x):
    """N11.2 step 2 with exact powers of ten (what R does *not* do), scientific output."""
    r = abs(x)
    kp = math.floor(math.log10(r)) - 14
    a = np.longdouble(r)
    a = a / np.longdouble(10) ** kp if kp > 0 else a * np.longdouble(10) ** (-kp)
    if a < np.longdouble(10) ** 14:
        a *= 10
        kp -= 1
    nsig = max(1, len(str(int(np.rint(a))).rstrip("0")))
    mant, exp = ("%.*e" % (nsig - 1, x)).split("e")
    return (mant.rstrip("0").rstrip(".") if "." in mant else mant) + "e" + exp


def _oracle(x):
    """R's as.character for doubles whose 15-digit rounding is not near a tie.

    Independent of the implementation: digits from Python's correctly rounded ``%.14e``,
    then R's rule "fixed unless wider than scientific".
    """
    if x == 0:
        return "0"
    mant, exp = ("%.14e" % abs(x)).split("e")
    e10 = int(exp)
    digits = mant.replace(".", "").rstrip("0") or "0"
    sign = "-" if x < 0 else ""
    # fixed notation shows nsig significant digits, or all the integer digits (C's %.0f)
    rgt = max(0, len(digits) - (e10 + 1))
    fixed = "%.*f" % (rgt, x)
    sci = sign + digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sci += "e" + ("-" if e10 < 0 else "+") + "%02d" % abs(e10)
    return fixed if len(fixed) <= len(sci) else sci


def _near_15_digit_tie(x):
    d = Decimal(abs(x))
    e10 = d.adjusted()
    scaled = d.scaleb(14 - e10)
    frac = scaled - int(scaled)
    return abs(frac - Decimal("0.5")) < Decimal("1e-3")


@SLOW
@given(
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
    | st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
)
def test_as_character_matches_decimal_oracle_away_from_ties(x):
    assume(x == 0 or not _near_15_digit_tie(x))
    assert as_character(x) == _oracle(x)


@SLOW
@given(
    st.floats(min_value=-1e7, max_value=1e7, allow_nan=False, allow_infinity=False),
    st.integers(min_value=1, max_value=6),
)
def test_as_character_of_rounded_values(v, d):
    # summary() prints as.character(round(x, d)): short decimals, never near a tie
    x = r_round(v, d)
    assert as_character(x) == _oracle(x)


def test_format_int():
    assert format_int(0) == "0"
    assert format_int(-12) == "-12"
    assert format_int(np.int64(80)) == "80"
    assert format_int(None) == "NA"
    assert format_int(math.nan) == "NA"


# printing.json: every number in the summary parameters.
_ROUNDED = {"Temperature": 4, "(Intercept)": 4, "x": 4, "a": 4, "b": 4, "c": 4, "Scales": 3, "Biases": 3}


def _summary_params(case):
    lines = case["outputs"]["summary_lines"]
    start = next(i for i, line in enumerate(lines) if "Parameters" in line)
    out = {}
    for line in lines[start + 1 :]:
        m = re.match(r"^(\S+): (.*)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _unrounded_recorded(case):
    """Unrounded values that the fixture itself records (inputs or the call text)."""
    label_values = {}
    inputs = case["inputs"]
    if "eps" in inputs:
        label_values["eps"] = float(inputs["eps"])
    elif "cal_beta(" in case["call"]:
        label_values["eps"] = 1e-15  # cal_beta's default (r-interface.md §3.5)
    if "lambda" in inputs:
        label_values["Lambda"] = float(inputs["lambda"])
    m = re.search(r"cal_dirichlet\([^)]*lambda = ([0-9.e+-]+)\)", case["call"])
    if m:
        label_values["Lambda"] = float(m.group(1))
    return label_values


def test_printing_fixture_has_numbers():
    params = [_summary_params(c) for c in PRINTING]
    labels = {k for p in params for k in p}
    assert {"Temperature", "eps", "Lambda", "Scales", "Biases", "a", "c", "(Intercept)"} <= labels


@pytest.mark.parametrize("case", PRINTING, ids=[c["id"] for c in PRINTING])
def test_printing_unrounded_fields(case):
    params = _summary_params(case)
    for label, value in _unrounded_recorded(case).items():
        assert params[label] == as_character(value)


@pytest.mark.parametrize("case", PRINTING, ids=[c["id"] for c in PRINTING])
def test_printing_rounded_fields(case):
    # The unrounded temperatures, coefficients and scales are not recorded in any fixture
    # (no other case has the same inputs), so check the printed text against every value
    # that rounds to it: as.character(round(v, d)) must give the text back for v anywhere in
    # the rounding interval of the printed number, and for the printed number itself.
    for label, text in _summary_params(case).items():
        if label not in _ROUNDED:
            continue
        d = _ROUNDED[label]
        for item in text.split(", "):
            t = float(item)
            assert as_character(r_round(t, d)) == item
            half = 0.5 * 10.0**-d
            for frac in np.linspace(-0.98, 0.98, 41):
                v = t + frac * half
                assert as_character(r_round(v, d)) == item, (label, item, v)


def test_printing_known_examples():
    # r-interface.md §8.3 examples
    assert as_character(r_round(1.03739319175146, 4)) == "1.0374"
    assert as_character(r_round(-1.25101460213868, 4)) == "-1.251"
    assert ", ".join(as_character(r_round(v, 3)) for v in (0.6161, 0.5081, 0.5499)) == "0.616, 0.508, 0.55"
    assert ", ".join(as_character(r_round(v, 3)) for v in (-0.4204, -0.0011, 0.4209)) == "-0.42, -0.001, 0.421"
    assert as_character(1e-4) == "1e-04"


# ---------------------------------------------------------------------------------------
# N5 isoreg


def isoreg_literal(y):
    """R's C_isoreg, transcribed line by line (the quadratic reference)."""
    y = [float(v) for v in y]
    n = len(y)
    yc = [0.0] * (n + 1)
    tmp = 0.0
    for i in range(n):
        tmp += y[i]
        yc[i + 1] = tmp
    yf = [0.0] * n
    knots = []
    known = 0
    ip = 0
    while known < n:
        slope = math.inf
        for i in range(known + 1, n + 1):
            tmp = (yc[i] - yc[known]) / (i - known)
            if tmp < slope:
                slope = tmp
                ip = i
        knots.append(ip)
        for i in range(known, ip):
            yf[i] = (yc[ip] - yc[known]) / (ip - known)
        known = ip
    return np.array(yf), np.array(yc), np.array(knots, dtype=np.int64)


def isoreg_literal_np(y):
    """The same search, one NumPy pass per knot (same operations; for larger n)."""
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    yc = np.cumsum(np.concatenate(([0.0], y)))  # 0.0 + y_1 + ... (so -0.0 sums to 0.0)
    yf = np.empty(n)
    knots = []
    known = 0
    while known < n:
        i = np.arange(known + 1, n + 1)
        s = (yc[i] - yc[known]) / (i - known).astype(np.float64)
        ip = int(i[int(np.argmin(s))])
        knots.append(ip)
        yf[known:ip] = (yc[ip] - yc[known]) / (ip - known)
        known = ip
    return yf, yc, np.array(knots, dtype=np.int64)


def _check_isoreg(y, ref=isoreg_literal):
    got = isoreg(y)
    yf, yc, knots = ref(y)
    assert isinstance(got, IsoregResult)
    assert _same(got.yf, yf)
    assert _same(got.yc, yc)
    assert np.array_equal(got.iKnots, knots) and got.iKnots.dtype == np.int64


@pytest.mark.parametrize(
    "y, yf, knots",
    [
        ([1, 0], [0.5, 0.5], [2]),
        ([0, 1], [0.0, 1.0], [1, 2]),
        ([1, 1, 0], [2 / 3, 2 / 3, 2 / 3], [3]),
        ([0, 0, 1, 1], [0.0, 0.0, 1.0, 1.0], [1, 2, 3, 4]),  # equal slopes: every point a knot
        ([1, 0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5, 1.0], [2, 4, 5]),  # 1/2 first at i = 2, then i = 4
        ([3.0], [3.0], [1]),
        ([-0.0, -1.0], [-0.5, -0.5], [2]),  # yc starts at 0.0: 0.0 + -0.0 is 0.0
    ],
)
def test_isoreg_examples(y, yf, knots):
    r = isoreg(y)
    assert _same(r.yf, yf)
    assert r.iKnots.tolist() == knots
    assert _same(r.yc, isoreg_literal(y)[1])


def test_isoreg_empty_and_invalid():
    r = isoreg([])
    assert r.yf.size == 0 and r.iKnots.size == 0 and _same(r.yc, [0.0])
    with pytest.raises(ValueError):
        isoreg([0.0, math.nan])
    with pytest.raises(ValueError):
        isoreg([1e308, 1e308])


_REAL = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
_Y_LISTS = st.one_of(
    st.lists(st.integers(0, 1), min_size=1, max_size=70),
    st.lists(st.integers(-3, 3), min_size=1, max_size=70),
    st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.7, 1 / 3, 0.0, 1.0]), min_size=1, max_size=70),
    st.lists(_REAL, min_size=1, max_size=70),
    st.lists(st.sampled_from([1e-300, 5e-324, -1e-310, 0.0, -0.0, 1.0, -2.5]), min_size=1, max_size=40),
)


@SLOW
@given(_Y_LISTS)
def test_isoreg_matches_literal(y):
    _check_isoreg(y)


@SLOW
@given(_Y_LISTS, st.sampled_from([2, 3, 5]))
def test_isoreg_general_path_matches_literal(y, fan):
    # the pruned search on any data (integer data too), with small blocks so that the
    # block tree has several levels even for short inputs
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(isoreg_mod, "_BLOCK", fan)
        mp.setattr(isoreg_mod, "_integer_path_ok", lambda y: False)
        _check_isoreg(y)
    finally:
        mp.undo()


def _random_ys(rng, count, nmax):
    for t in range(count):
        n = int(rng.integers(1, nmax))
        kind = t % 8
        if kind == 0:
            y = rng.integers(0, 2, n).astype(float)
        elif kind == 1:  # labels of a roughly calibrated score: long runs, many ties
            y = (rng.random(n) < np.sort(rng.random(n))).astype(float)
        elif kind == 2:
            y = np.sort(rng.integers(0, 2, n)).astype(float)  # separable: n knots
        elif kind == 3:
            y = rng.normal(size=n)
        elif kind == 4:
            y = np.round(np.sort(rng.normal(size=n)) + 0.2 * rng.normal(size=n), 1)
        elif kind == 5:
            y = rng.choice([0.1, 0.2, 0.3, 0.7], n)  # near-ties in the cumulative sums
        elif kind == 6:
            y = np.repeat(rng.choice([0.1, 0.3, 0.6], max(1, n // 7)), 7)[:n]
        else:
            y = np.linspace(0, 1, n) + rng.normal(scale=0.3, size=n)
        yield y


def test_isoreg_matches_literal_random_small():
    rng = np.random.default_rng(20240611)
    for y in _random_ys(rng, 800, 90):
        _check_isoreg(y)


@pytest.mark.parametrize("fan", [2, 4, 64])
def test_isoreg_matches_literal_random_large(fan, monkeypatch):
    # n up to 6000 gives a 3-level tree with the default 64-wide blocks
    monkeypatch.setattr(isoreg_mod, "_BLOCK", fan)
    rng = np.random.default_rng(fan)
    for y in _random_ys(rng, 24, 6000):
        _check_isoreg(y, ref=isoreg_literal_np)
    with monkeypatch.context() as m:
        m.setattr(isoreg_mod, "_integer_path_ok", lambda y: False)
        for y in _random_ys(rng, 16, 6000):
            _check_isoreg(y, ref=isoreg_literal_np)


def test_isoreg_integer_path_limits():
    # integers too large for the exact-slope argument go through the general search
    rng = np.random.default_rng(7)
    y = rng.integers(-(2**40), 2**40, 300).astype(float)
    assert not isoreg_mod._integer_path_ok(y)
    _check_isoreg(y, ref=isoreg_literal_np)
    assert isoreg_mod._integer_path_ok(np.ones(1000))
    assert not isoreg_mod._integer_path_ok(np.array([0.5, 1.0]))


def test_isoreg_large_inputs_are_fast():
    # quadratic would take minutes here (n knots)
    n = 300_000
    y = np.sort(np.random.default_rng(1).integers(0, 2, n)).astype(float)
    r = isoreg(y)
    assert r.iKnots.size == n and np.array_equal(r.yf, y)
    z = np.sort(np.random.default_rng(2).normal(size=50_000))
    r = isoreg(z)
    assert r.iKnots.size == z.size and np.array_equal(r.yf, np.diff(r.yc))


def _isotonic_order(p, y):
    """cal_isotonic's order: by p, ties positives first, stable otherwise (r-interface §3.6)."""
    return np.lexsort((-y, p))  # lexsort is stable; the last key is the primary one


@pytest.mark.parametrize("case", ISOTONIC, ids=[c["id"] for c in ISOTONIC])
def test_isotonic_fixture(case):
    p = _num(case["inputs"]["p"])
    y = np.array([float(v) for v in case["inputs"]["y"]])
    o = case["outputs"]
    order = _isotonic_order(p, y)
    po, yo = p[order], y[order]
    fit = isoreg(yo)
    assert _same(fit.yf, _num(o["diag_isoreg_yf"]))
    # tie runs averaged with R's mean (N1), then approx (N6) with clipping
    yf = np.clip(fit.yf, 0.0, 1.0)
    starts = np.flatnonzero(np.r_[True, po[1:] != po[:-1]])
    ends = np.r_[starts[1:], po.size]
    x_thr = po[starts]
    y_cal = np.array([rmean(yf[s:e]) for s, e in zip(starts, ends)])
    assert _same(x_thr, _num(o["x_thresholds"]))
    assert _same(y_cal, _num(o["y_calibrated"]))

    def predict(v):
        if x_thr.size == 1:
            return np.full(v.size, y_cal[0])
        return np.clip(approx_constant(x_thr, y_cal, v), 0.0, 1.0)

    assert _same(predict(p), _num(o["predict_fit"]))
    assert _same(predict(_num(case["inputs"]["newdata"])), _num(o["predict_new"]))


# ---------------------------------------------------------------------------------------
# N6 approx


def approx_literal(x, y, v):
    """R's approx1 (approx.c) for method = "linear", rule = 2, one point at a time."""
    n = len(x)
    if n == 0:
        return math.nan
    if math.isnan(v):
        return v
    i, j = 0, n - 1
    if v < x[i]:
        return y[0]
    if v > x[j]:
        return y[n - 1]
    while i < j - 1:
        ij = (i + j) // 2
        if v < x[ij]:
            j = ij
        else:
            i = ij
    if v == x[j]:
        return y[j]
    if v == x[i]:
        return y[i]
    return y[i] + (y[j] - y[i]) * ((v - x[i]) / (x[j] - x[i]))


def _check_approx(x, y, v):
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    v = np.asarray(v, dtype=float)
    want = np.array([approx_literal(x.tolist(), y.tolist(), float(t)) for t in v])
    assert _same(approx_constant(x, y, v), want)


def test_approx_examples():
    x, y = [0.0, 1.0, 2.0], [0.0, 10.0, 30.0]
    assert approx_constant(x, y, -1.0) == 0.0
    assert approx_constant(x, y, 5.0) == 30.0
    assert approx_constant(x, y, 1.0) == 10.0
    assert approx_constant(x, y, 2.0) == 30.0
    assert approx_constant(x, y, 0.5) == 5.0
    assert _same(approx_constant(x, y, [1.5, math.nan]), [20.0, math.nan])
    assert approx_constant([0.4], [0.7], 0.1) == 0.7
    assert isinstance(approx_constant(x, y, 0.25), float)


def test_approx_tied_knots_follow_bisection():
    x = [0.0, 1.0, 1.0, 1.0, 2.0]
    y = [0.0, 1.0, 2.0, 3.0, 4.0]
    _check_approx(x, y, [1.0, 0.5, 1.5, 2.0, 0.0])
    assert approx_constant(x, y, 1.0) == 3.0  # the last of the tied knots, as R's bisection
    _check_approx([0.0, 1.0, 1.0], [5.0, 6.0, 7.0], [1.0, 0.99])


def test_approx_differs_from_numpy_interp():
    rng = np.random.default_rng(3)
    x = np.sort(rng.random(30))
    y = rng.random(30)
    v = rng.random(2000)
    ours = approx_constant(x, y, v)
    assert not _same(ours, np.interp(v, x, y))  # NumPy's formula rounds differently
    _check_approx(x, y, v)


@SLOW
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=25, unique=True),
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=25, max_size=25),
    st.lists(st.floats(-0.5, 1.5, allow_nan=False), min_size=1, max_size=40),
)
def test_approx_matches_literal(xs, ys, vs):
    x = sorted(xs)
    y = ys[: len(x)]
    _check_approx(x, y, vs + x + [x[0], x[-1]])


def test_approx_random_on_knots_and_between():
    rng = np.random.default_rng(11)
    for _ in range(200):
        m = int(rng.integers(2, 40))
        x = np.unique(np.round(rng.random(m), int(rng.integers(1, 4))))
        y = rng.random(x.size)
        v = np.concatenate([x, rng.random(60), (x[:-1] + x[1:]) / 2, [-1.0, 2.0]])
        _check_approx(x, y, v)


# ---------------------------------------------------------------------------------------
# N7 findInterval


def find_interval_literal(v, breaks):
    """#{breaks <= v} clamped to [1, J] (numerics.md N7), one value at a time."""
    count = sum(1 for b in breaks if b <= v)
    return min(max(count, 1), len(breaks) - 1)


def test_find_interval_examples():
    br = [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5]
    assert find_interval(0.0, br) == 1
    assert find_interval(-3.0, br) == 1
    assert find_interval(0.1, br) == 2  # left-closed bins
    assert find_interval(0.3, br) == 3  # 0.3 < 3 * 0.1
    assert find_interval(3 * 0.1, br) == 4
    assert find_interval(0.5, br) == 5  # the last bin is closed
    assert find_interval(7.0, br) == 5
    assert isinstance(find_interval(0.25, br), int)
    assert find_interval([0.0, 1.0], [0.0, 1.0]).tolist() == [1, 1]
    with pytest.raises(ValueError):
        find_interval(math.nan, br)


@SLOW
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=2, max_size=12),
    st.lists(st.floats(-0.2, 1.2, allow_nan=False), min_size=1, max_size=30),
)
def test_find_interval_matches_literal(bs, vs):
    br = sorted(bs)
    v = vs + br  # values on breaks (with duplicated breaks too)
    got = find_interval(np.array(v), np.array(br))
    assert got.dtype == np.int64
    assert got.tolist() == [find_interval_literal(t, br) for t in v]


# ---------------------------------------------------------------------------------------
# N8 quantile(type = 8)


def quantile8_literal(x, probs):
    """R's quantile.default, type 8, transcribed with scalar Python floats."""
    xs = sorted(float(v) for v in x)
    n = len(xs)
    a = b = 1 / 3
    fuzz = 4 * 2.220446049250313e-16
    xp = [xs[0], xs[0]] + xs + [xs[-1], xs[-1]]
    out = []
    for q in probs:
        q = max(0.0, min(1.0, float(q)))
        nppm = a + q * (n + 1 - a - b)
        j = math.floor(nppm + fuzz)
        h = nppm - j
        if abs(h) < fuzz:
            h = 0.0
        lo, hi = xp[j + 2 - 1], xp[j + 3 - 1]
        qs = lo
        if h == 1:
            qs = hi
        if 0 < h < 1 and lo != hi:
            qs = (1 - h) * lo + h * hi
        out.append(qs)
    return np.array(out)


def _equal_width_probs(bins):
    """R's seq(0, 1, length.out = bins + 1): 0, j * (1/bins), ..., 1 (r-interface.md §2)."""
    return np.array([0.0] + [j * (1.0 / bins) for j in range(1, bins)] + [1.0])


def test_quantile8_examples():
    x = [1.0, 2.0, 3.0, 4.0]
    assert quantile_type8(x, 0.0) == 1.0
    assert quantile_type8(x, 1.0) == 4.0
    # nppm = 1/3 + 0.5 * ((5 - 1/3) - 1/3) is 2.5000000000000004 in double, so h is not 1/2:
    # R's arithmetic gives 2.5000000000000004 where NumPy's median_unbiased gives 2.5
    assert quantile_type8(x, 0.5) == 2.5000000000000004 == quantile8_literal(x, [0.5])[0]
    assert np.quantile(x, 0.5, method="median_unbiased") == 2.5
    assert quantile_type8([7.0], [0.0, 0.3, 1.0]).tolist() == [7.0, 7.0, 7.0]
    assert quantile_type8([2.0, 2.0, 2.0, 5.0], 0.4) == 2.0  # equal neighbours: no arithmetic
    assert quantile_type8(x, 1 + 1e-15) == 4.0  # slight overshoot clamped, as in R
    with pytest.raises(ValueError):
        quantile_type8(x, 1.1)
    with pytest.raises(ValueError):
        quantile_type8([], 0.5)


def test_quantile8_differs_from_numpy_median_unbiased():
    rng = np.random.default_rng(5)
    differs = 0
    for _ in range(200):
        x = rng.random(int(rng.integers(1, 60)))
        probs = _equal_width_probs(int(rng.integers(1, 21)))
        ours = quantile_type8(x, probs)
        assert _same(ours, quantile8_literal(x, probs))
        differs += not _same(ours, np.quantile(x, probs, method="median_unbiased"))
    assert differs > 0


@SLOW
@given(
    st.lists(st.floats(0, 1, allow_nan=False) | st.sampled_from([0.0, 0.1, 0.3, 1.0]), min_size=1, max_size=60),
    st.integers(1, 25),
)
def test_quantile8_matches_literal(x, bins):
    probs = _equal_width_probs(bins)
    assert _same(quantile_type8(x, probs), quantile8_literal(x, probs))


def _histogram_breaks(p, bins, strategy):
    probs = _equal_width_probs(bins)
    if strategy == "equal_width":
        return probs
    q = quantile_type8(p, probs)
    q[0], q[-1] = 0.0, 1.0
    return np.unique(q)  # sorted, exact duplicates dropped


@pytest.mark.parametrize("case", HISTOGRAM, ids=[c["id"] for c in HISTOGRAM])
def test_histogram_fixture(case):
    o = case["outputs"]
    p = _num(case["inputs"]["p"])
    breaks = _histogram_breaks(p, int(o["bins"]), o["strategy"])
    assert _same(breaks, _num(o["breaks"]))
    assert len(breaks) - 1 == o["actual_bins"]
    bins = find_interval(p, breaks)
    assert np.bincount(bins, minlength=breaks.size)[1:].tolist() == o["counts"]
    values = _num(o["bin_values"])
    assert _same(values[find_interval(p, breaks) - 1], _num(o["predict_fit"]))
    assert _same(values[find_interval(_num(case["inputs"]["newdata"]), breaks) - 1], _num(o["predict_new"]))


def test_histogram_fixture_covers_both_strategies():
    strategies = [c["outputs"]["strategy"] for c in HISTOGRAM]
    assert strategies.count("equal_freq") >= 6 and strategies.count("equal_width") >= 6

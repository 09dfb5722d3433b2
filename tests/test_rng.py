"""calstats.rng: R's Mersenne-Twister / Inversion / Rejection generator, bit for bit.

Sources of truth: ``tests/fixtures/rng.json`` (R 4.2.2), the values quoted in
numerics.md N9.6, a few well-known R outputs, and a deliberately naive scalar
re-implementation of numerics.md N9.1-N9.5 (``RefR`` below) that the vectorised module
must match on arbitrary seeds and call sequences.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calstats
from _fixtures import load_fixture
from _rcases import default_api, run_call
from calstats import rng
from calstats._errors import CalstatsError, CalstatsWarning

INVALID = "supplied seed is not a valid integer"


def bits(a):
    """Exact comparison key of a float array (bit patterns)."""
    return np.asarray(a, dtype=np.float64).view(np.int64).tolist()


def assert_same_doubles(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert bits(got) == bits(want)


@pytest.fixture(autouse=True)
def _isolate_global_rng():
    """Each test starts from (and leaves behind) the state it found."""
    saved = rng.get_state()
    yield
    rng.set_state(saved)


# --------------------------------------------------------------------------------------
# A naive scalar reference, written straight from numerics.md N9 (no NumPy).
# --------------------------------------------------------------------------------------

M32 = 0xFFFFFFFF


class RefR:
    def __init__(self, seed):
        s = seed & M32
        for _ in range(50):
            s = (69069 * s + 1) & M32
        w = []
        for _ in range(625):
            s = (69069 * s + 1) & M32
            w.append(s)
        self.mti = 624
        self.mt = w[1:]

    def unif_rand(self):
        mt = self.mt
        if self.mti >= 624:
            for kk in range(624 - 397):
                y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
                mt[kk] = mt[kk + 397] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            for kk in range(624 - 397, 623):
                y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7FFFFFFF)
                mt[kk] = mt[kk - 227] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
            mt[623] = mt[396] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.mti = 0
        y = mt[self.mti]
        self.mti += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        y &= M32
        u = y * 2.3283064365386963e-10
        if u <= 0:
            return 0.5 * 2.328306437080797e-10
        if 1 - u <= 0:
            return 1 - 0.5 * 2.328306437080797e-10
        return u

    def unif_index(self, dn):
        if dn <= 0:
            return 0
        nbits = math.ceil(math.log2(dn))
        while True:
            v = 0
            k = 0
            while k <= nbits:
                v = 65536 * v + math.floor(self.unif_rand() * 65536)
                k += 16
            v &= (1 << nbits) - 1
            if v < dn:
                return v

    def sample_int(self, n, size=None, replace=False):
        size = n if size is None else size
        if n > 1e7 and not replace and size <= n / 2:
            out = []
            for _ in range(size):
                for _ in range(100):
                    r = self.unif_index(n) + 1
                    if r not in out:
                        break
                out.append(r)
            return out
        if replace or size < 2:
            return [self.unif_index(n) + 1 for _ in range(size)]
        x = list(range(n))
        out = []
        m = n
        for _ in range(size):
            j = self.unif_index(m)
            out.append(x[j] + 1)
            x[j] = x[m - 1]
            m -= 1
        return out

    def runif(self, n, a=0.0, b=1.0):
        return [a + (b - a) * self.unif_rand() for _ in range(n)]

    def rnorm(self, n, mean=0.0, sd=1.0):
        out = []
        for _ in range(n):
            u = self.unif_rand()
            u = int(134217728 * u) + self.unif_rand()
            out.append(mean + sd * ref_qnorm(u / 134217728))
        return out


def _poly(c, r):
    acc = c[7]
    for j in range(6, -1, -1):
        acc = acc * r + c[j]
    return acc


def ref_qnorm(p):
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * _poly(rng._A, r) / _poly(rng._B, r)
    r = p if q < 0 else 1 - p
    r = math.sqrt(-math.log(r))
    if r <= 5:
        r -= 1.6
        val = _poly(rng._C, r) / _poly(rng._D, r)
    else:
        r -= 5
        val = _poly(rng._E, r) / _poly(rng._F, r)
    return -val if q < 0 else val


# --------------------------------------------------------------------------------------
# R fixtures (tests/fixtures/rng.json)
# --------------------------------------------------------------------------------------

RNG_CASES = load_fixture("rng")["cases"]


def _rng_api(fname, pos, kw):
    if fname == ".Random.seed":
        return rng.get_state_r()
    return default_api(calstats)(fname, pos, kw)


@pytest.mark.parametrize("case", RNG_CASES, ids=[c["id"] for c in RNG_CASES])
def test_fixture_case_replayed(case):
    # Every statement of the R call, evaluated with calstats; assignments pair up with
    # the output keys in order (the fixture README: "each started from a fresh set.seed").
    # `.Random.seed` is a variable in R; the call interpreter reads it through the api.
    case = dict(case, call=case["call"].replace(".Random.seed", ".Random.seed()"))
    inputs = {"seed": case["inputs"]["seed"]}
    env, _ = run_call(case, calstats, env=inputs, api=_rng_api)
    keys = [k for k in case["outputs"] if k != "warnings"]
    assigned = [k for k in env if k not in inputs]
    assert len(assigned) == len(keys) == 11
    for var, key in zip(assigned, keys):
        want = case["outputs"][key]
        got = np.asarray(env[var])
        if all(isinstance(v, int) for v in want):
            assert got.dtype.kind in "iu", key
            assert got.tolist() == want, key
        else:
            assert_same_doubles(got, want)
    assert case["outputs"]["warnings"] == []


@pytest.mark.parametrize("case", RNG_CASES, ids=[c["id"] for c in RNG_CASES])
def test_fixture_case_direct(case):
    seed = case["inputs"]["seed"]
    out = case["outputs"]

    def fresh(fn):
        rng.set_seed(seed)
        return fn()

    state = fresh(rng.get_state_r)
    assert state.dtype == np.int32 and state.shape == (626,)
    assert state.tolist() == out["random_seed_after_set_seed"]
    assert state[0] == 10403 and state[1] == 624
    assert_same_doubles(fresh(lambda: rng.runif(10)), out["runif_10"])
    assert fresh(lambda: rng.sample(20)).tolist() == out["sample_20"]
    assert fresh(lambda: rng.sample(7, 3)).tolist() == out["sample_7_3"]
    assert_same_doubles(fresh(lambda: rng.rnorm(5)), out["rnorm_5"])
    assert fresh(lambda: rng.sample(1000, 5, replace=True)).tolist() == out["sample_1000_5_replace"]
    vec = np.array([3, 8, 15, 16, 23, 42])
    assert fresh(lambda: rng.sample(vec)).tolist() == out["sample_vector"]
    assert fresh(lambda: rng.sample([3, 8, 15, 16, 23, 42])) == out["sample_vector"]
    consec = fresh(lambda: [*rng.sample(5), *rng.sample(7), *rng.sample(3)])
    assert consec == out["sample_consecutive_5_7_3"]
    assert fresh(lambda: rng.sample(100000, 5)).tolist() == out["sample_100000_5"]
    assert fresh(lambda: rng.sample_int(100000, 5)).tolist() == out["sample_100000_5"]
    # n > 1e7 and size <= n/2: R's hash branch (sample2)
    assert fresh(lambda: rng.sample(2147483647, 3)).tolist() == out["sample_2147483647_3"]
    mixed = fresh(lambda: np.concatenate([rng.runif(2), rng.rnorm(2), rng.sample(10, 2)]))
    assert_same_doubles(mixed, out["mixed_runif2_rnorm2_sample10_2"])


@pytest.mark.parametrize("case", RNG_CASES, ids=[c["id"] for c in RNG_CASES])
def test_fixture_seed_state_matches_reference(case):
    seed = int(case["inputs"]["seed"])
    ref = RefR(seed)
    want = [10403, ref.mti] + [v - (1 << 32) if v >= 1 << 31 else v for v in ref.mt]
    assert want == case["outputs"]["random_seed_after_set_seed"]


# --------------------------------------------------------------------------------------
# Values quoted in the spec and well-known R outputs
# --------------------------------------------------------------------------------------

def test_n9_6_seed_42():
    rng.set_seed(42)
    assert rng.runif(3).tolist() == [0.9148060434963554, 0.9370754132978618, 0.2861395347863436]
    rng.set_seed(42)
    assert rng.sample(10).tolist() == [1, 5, 10, 8, 2, 4, 6, 9, 7, 3]


def test_well_known_r_outputs():
    # R >= 3.6: set.seed(123); runif(3); rnorm(3); sample(10)
    rng.set_seed(123)
    np.testing.assert_allclose(rng.runif(3), [0.2875775201, 0.7883051354, 0.4089769218], rtol=1e-9)
    rng.set_seed(123)
    np.testing.assert_allclose(rng.rnorm(3), [-0.56047564655, -0.23017748948, 1.55870831415], rtol=1e-10)
    rng.set_seed(123)
    assert rng.sample(10).tolist() == [3, 10, 2, 8, 6, 9, 1, 7, 5, 4]


# R: set.seed(100); runif(3)  (also the stream after set.seed(100); cal_cv(..., seed = 1),
# fixture cv_binary_seed_restores_rng_state)
R_SEED100_RUNIF3 = [0.30776611086912453, 0.2576725010294467, 0.5523224333301187]


def test_seed_100_runif():
    rng.set_seed(100)
    assert_same_doubles(rng.runif(3), R_SEED100_RUNIF3)


# --------------------------------------------------------------------------------------
# The vectorised module against the scalar reference
# --------------------------------------------------------------------------------------

SEEDS = [42, 1, 0, -1, 7, 10, 2024, 123456789, 2147483647, -2147483647]


@pytest.mark.parametrize("seed", SEEDS)
def test_streams_match_reference(seed):
    ref = RefR(seed)
    rng.set_seed(seed)
    # sizes straddling block boundaries (624 words per block)
    for n in (1, 622, 1, 1, 623, 624, 625, 1300):
        assert_same_doubles(rng.runif(n), ref.runif(n))
    assert rng.sample(10).tolist() == ref.sample_int(10)
    assert_same_doubles(rng.rnorm(2000), ref.rnorm(2000))
    assert rng.sample(100000, 5).tolist() == ref.sample_int(100000, 5)
    assert rng.sample(5, 20, replace=True).tolist() == ref.sample_int(5, 20, replace=True)
    assert rng.sample(70000, 30, replace=True).tolist() == ref.sample_int(70000, 30, replace=True)
    assert rng.sample(65536).tolist() == ref.sample_int(65536)  # two uniforms per index
    # mixed sequence of numerics.md N9.6
    assert rng.sample(2).tolist() == ref.sample_int(2)
    assert rng.sample(1).tolist() == ref.sample_int(1)
    assert rng.sample(7.5).tolist() == ref.sample_int(7, 7)
    vec = np.array([3.0, 9.0, 4.0, 8.0])
    assert rng.sample(vec).tolist() == vec[np.array(ref.sample_int(4)) - 1].tolist()
    assert rng.sample(65536).tolist() == ref.sample_int(65536)
    assert_same_doubles(rng.runif(2), ref.runif(2))
    assert rng.get_state_r()[1] == ref.mti


def test_hash_branch_matches_reference():
    ref = RefR(99)
    rng.set_seed(99)
    n = 20_000_001
    assert rng.sample_int(n, 50).tolist() == ref.sample_int(n, 50)
    assert_same_doubles(rng.runif(3), ref.runif(3))  # stream position identical afterwards
    # beyond INT_MAX R returns doubles
    got = rng.sample_int(3e9, 4)
    assert got.dtype == np.float64
    assert got.tolist() == [float(v) for v in ref.sample_int(3e9, 4)]


def test_unif_index_helpers_match_reference():
    ref = RefR(5)
    rng.set_seed(5)
    for dn in (1, 2, 3, 7.5, 1000, 32768, 32769, 65536, 65537, 2**31 - 1, 3e9, 2.0**40 + 3, 2.0**49 + 1):
        for _ in range(3):
            got = rng._unif_index(dn)
            assert isinstance(got, float)
            assert got == ref.unif_index(dn)
    assert rng._unif_index(0) == 0.0 and rng._unif_index(-3) == 0.0
    assert rng._unif_rand() == ref.unif_rand()
    many = rng._unif_index_many(1000, 3000)
    assert many.tolist() == [ref.unif_index(1000) for _ in range(3000)]
    assert_same_doubles(rng._runif_raw(700), ref.runif(700))


def test_qnorm_matches_reference_and_scipy():
    from scipy.special import ndtri

    p = np.concatenate([
        np.linspace(1e-6, 1 - 1e-6, 20001),
        [0.075, 0.925, 0.0749999, 0.9250001, 1e-10, 1e-11, 1e-12, 1e-15, 2.0**-59, 1 - 2.0**-53],
    ])
    got = rng._qnorm(p)
    assert_same_doubles(got, [ref_qnorm(v) for v in p.tolist()])
    np.testing.assert_allclose(got, ndtri(p), rtol=1e-14, atol=0)
    assert rng._qnorm(0.5) == 0.0
    assert rng._qnorm(0.0) == -math.inf and rng._qnorm(1.0) == math.inf
    assert np.isnan(rng._qnorm(np.array([-0.1, 1.1, np.nan]))).all()
    assert abs(rng._qnorm(0.975) - 1.959963984540054) < 1e-15


# --------------------------------------------------------------------------------------
# Seed coercion (r-interface.md §6.3)
# --------------------------------------------------------------------------------------

def _state_after(seed):
    rng.set_seed(seed)
    return rng.get_state()


@pytest.mark.parametrize(
    "seed, same_as",
    [
        (42.0, 42),
        (42.9, 42),
        (-42.9, -42),
        (True, 1),
        (False, 0),
        (np.bool_(True), 1),
        ("42", 42),
        (" 4.2e1 ", 42),
        ("0x2A", 42),
        ("-7.99", -7),
        ([42, 7], 42),
        ((7, 42), 7),
        (np.array([42.5, 1.0]), 42),
        (pd.Series([13, 2]), 13),
        (np.int32(42), 42),
        (np.float32(42.0), 42),
        (2147483647.9, 2147483647),
        (-2147483647.9, -2147483647),
    ],
)
def test_seed_coercion(seed, same_as):
    assert _state_after(seed) == _state_after(same_as)


def test_negative_seed_uses_twos_complement():
    rng.set_seed(-1)
    ref = RefR(-1)
    assert rng.get_state_r()[2:].view(np.uint32).tolist() == ref.mt
    assert rng.get_state() != _state_after(1)


@pytest.mark.parametrize(
    "seed, warning",
    [
        (math.nan, None),
        (np.nan, None),
        ("abc", "NAs introduced by coercion"),
        ("", None),  # R: a blank string is NA without a warning
        ("  ", None),
        ("1_000", "NAs introduced by coercion"),
        ("NA", None),
        (math.inf, "NAs introduced by coercion to integer range"),
        (2147483648, "NAs introduced by coercion to integer range"),
        (2147483648.0, "NAs introduced by coercion to integer range"),
        (-2147483648, "NAs introduced by coercion to integer range"),
        (-2147483648.5, "NAs introduced by coercion to integer range"),
        (10**400, "NAs introduced by coercion to integer range"),
        ("3e9", "NAs introduced by coercion to integer range"),
        ([], None),
        (np.array([]), None),
        ([None], None),
        ([[1]], None),
    ],
)
def test_invalid_seed(seed, warning):
    rng.set_seed(5)
    before = rng.get_state()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with pytest.raises(CalstatsError) as err:
            rng.set_seed(seed)
    assert str(err.value) == INVALID
    msgs = [str(w.message) for w in rec if issubclass(w.category, CalstatsWarning)]
    assert msgs == ([] if warning is None else [warning])
    assert rng.get_state() == before  # a failed set.seed leaves the state alone


def test_set_seed_none_reseeds_from_entropy():
    rng.set_seed(1)
    rng.set_seed(None)
    r = rng.get_state_r()
    assert r[0] == 10403 and r[1] == 624
    assert rng.get_state() != _state_after(1)


# --------------------------------------------------------------------------------------
# State: get_state / set_state / get_state_r / never initialised
# --------------------------------------------------------------------------------------

def test_state_round_trip():
    rng.set_seed(2024)
    rng.runif(700)
    s = rng.get_state()
    a = rng.runif(1500)
    b = rng.sample(50)
    rng.set_state(s)
    assert_same_doubles(rng.runif(1500), a)
    assert rng.sample(50).tolist() == b.tolist()
    assert rng.get_state() != s


def test_state_is_an_immutable_copy():
    rng.set_seed(3)
    s = rng.get_state()
    rng.runif(10)
    assert rng.get_state() != s
    assert s == _state_after(3)
    with pytest.raises(AttributeError):
        s._mti = 5
    with pytest.raises(ValueError):
        s._mt[0] = 1
    assert hash(s) == hash(_state_after(3))
    assert s.to_r().tolist() == rng.get_state_r().tolist()


def test_set_state_from_r_vector():
    case = RNG_CASES[0]
    rng.set_state(case["outputs"]["random_seed_after_set_seed"])  # R's .Random.seed as a list
    assert_same_doubles(rng.runif(10), case["outputs"]["runif_10"])
    rng.set_seed(8)
    rng.runif(5)
    r = rng.get_state_r()
    assert r[1] == 5
    u = rng.runif(4)
    rng.set_state(r)
    assert_same_doubles(rng.runif(4), u)


def test_set_state_r_vector_fixups():
    rng.set_seed(8)
    r = rng.get_state_r().copy()
    r[1] = 0  # R's FixupSeeds: mti <= 0 becomes 624
    rng.set_state(r)
    assert rng.get_state_r()[1] == 624
    with pytest.raises(CalstatsError):
        rng.set_state(np.r_[10402, r[1:]])
    with pytest.raises(CalstatsError):
        rng.set_state(r[:-1])
    zero = np.zeros(626, dtype=np.int64)
    zero[0], zero[1] = 10403, 624
    rng.set_state(zero)  # all-zero state: R re-seeds at random
    assert rng.get_state_r()[2:].any()


def test_zero_word_is_fixed_up_away_from_zero():
    # A state word of 0 tempers to 0; R's fixup() then returns 0.5 / (2^32 - 1), not 0.
    rng.set_seed(8)
    r = rng.get_state_r().copy()
    r[1] = 1  # next draw reads mt[1] as it stands (no twist)
    r[3] = 0
    rng.set_state(r)
    assert rng.runif(2)[0] == 0.5 * 2.328306437080797e-10
    rng.set_state(r)
    assert rng.sample_int(3, 1).tolist() == [1]  # rbits chunk floor(u * 65536) == 0


def test_set_state_mti_625_uses_sgenrand_4357():
    rng.set_seed(8)
    r = rng.get_state_r().copy()
    r[1] = 625
    rng.set_state(r)
    u = rng.runif(3)
    # MT_sgenrand(4357) then a regular twist: the words depend only on 4357
    rng.set_seed(9)
    r2 = rng.get_state_r().copy()
    r2[1] = 625
    rng.set_state(r2)
    assert_same_doubles(rng.runif(3), u)


def test_never_initialised_and_entropy_seeding():
    rng.set_state(None)
    assert rng.get_state() is None
    assert rng.get_state_r() is None
    u = rng.runif(2)
    assert ((u > 0) & (u < 1)).all()
    r = rng.get_state_r()
    assert r[0] == 10403 and r[1] == 2
    rng.set_state(None)
    assert sorted(rng.sample_int(10).tolist()) == list(range(1, 11))
    assert rng.get_state() is not None


# --------------------------------------------------------------------------------------
# _seeded (r-interface.md §6.3)
# --------------------------------------------------------------------------------------

def test_seeded_restores_global_stream():
    # R: set.seed(100); cal_cv(..., seed = 1); runif(3) == set.seed(100); runif(3)
    rng.set_seed(100)
    with rng._seeded(1):
        inside = rng.runif(10)
    assert_same_doubles(rng.runif(3), R_SEED100_RUNIF3)
    rng.set_seed(1)
    assert_same_doubles(inside, rng.runif(10))


def test_seeded_restores_after_exception():
    rng.set_seed(100)
    rng.runif(1)
    before = rng.get_state()
    with pytest.raises(RuntimeError):
        with rng._seeded(7):
            rng.sample(50)
            raise RuntimeError("boom")
    assert rng.get_state() == before


def test_seeded_restores_never_initialised():
    rng.set_state(None)
    with rng._seeded(3):
        assert rng.get_state() == _state_after(3)
        rng.runif(5)
    assert rng.get_state() is None
    rng.set_state(None)
    with pytest.raises(KeyError):
        with rng._seeded(3):
            raise KeyError("x")
    assert rng.get_state() is None


def test_seeded_invalid_seed_leaves_state():
    rng.set_seed(100)
    before = rng.get_state()
    ran = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CalstatsWarning)
        with pytest.raises(CalstatsError, match=INVALID):
            with rng._seeded("abc"):
                ran.append(1)
    assert ran == []
    assert rng.get_state() == before
    rng.set_state(None)
    with pytest.raises(CalstatsError, match=INVALID):
        with rng._seeded(math.nan):
            pass
    assert rng.get_state() is None


def test_seeded_none_uses_and_advances_global_stream():
    rng.set_seed(100)
    with rng._seeded(None):
        got = rng.runif(3)
    assert_same_doubles(got, R_SEED100_RUNIF3)
    rng.set_seed(100)
    rng.runif(3)
    assert rng.get_state() == _state_after_runif(100, 3)
    rng.set_state(None)
    with rng._seeded(None):
        assert rng.get_state() is None  # nothing touched


def _state_after_runif(seed, n):
    rng.set_seed(seed)
    rng.runif(n)
    return rng.get_state()


# --------------------------------------------------------------------------------------
# runif / rnorm arguments (R's do_random2 semantics)
# --------------------------------------------------------------------------------------

def test_runif_limits_and_degenerate_intervals():
    rng.set_seed(11)
    ref = RefR(11)
    assert_same_doubles(rng.runif(5, -2.0, 3.5), ref.runif(5, -2.0, 3.5))
    # min == max: no draw consumed
    assert rng.runif(3, 2.0, 2.0).tolist() == [2.0, 2.0, 2.0]
    assert_same_doubles(rng.runif(1), ref.runif(1))
    # recycled limits; bad limits give NaN without a draw, with R's warning
    with pytest.warns(CalstatsWarning, match="NAs produced"):
        got = rng.runif(4, [0.0, 1.0], [1.0, 0.0])
    assert np.isnan(got[1]) and np.isnan(got[3])
    assert_same_doubles(got[[0, 2]], ref.runif(2))
    # a vector n means its length
    assert rng.runif([7, 7, 7]).shape == (3,)
    assert rng.runif(0).shape == (0,)
    assert rng.runif(2.9).shape == (2,)
    with pytest.raises(CalstatsError, match="invalid arguments"):
        rng.runif(-1)


def test_rnorm_parameters():
    rng.set_seed(12)
    ref = RefR(12)
    assert_same_doubles(rng.rnorm(4, 10.0, 2.5), ref.rnorm(4, 10.0, 2.5))
    # sd == 0 or infinite mean: the mean, no draw consumed
    assert rng.rnorm(2, 3.0, 0.0).tolist() == [3.0, 3.0]
    assert rng.rnorm(1, math.inf, 1.0).tolist() == [math.inf]
    assert_same_doubles(rng.rnorm(1), ref.rnorm(1))
    with pytest.warns(CalstatsWarning, match="NAs produced"):
        got = rng.rnorm(3, [0.0, math.nan, 0.0], [1.0, 1.0, -1.0])
    assert np.isnan(got[1:]).all()
    assert_same_doubles(got[:1], ref.rnorm(1))
    means = np.array([0.0, 100.0, -5.0])
    assert_same_doubles(rng.rnorm(6, means, 2.0),
                        [m + 2.0 * z for m, z in zip(np.resize(means, 6), ref.rnorm(6))])


# --------------------------------------------------------------------------------------
# sample / sample_int semantics and errors
# --------------------------------------------------------------------------------------

def test_sample_single_number_means_one_to_x():
    rng.set_seed(4)
    a = rng.sample(7.5)  # R: sample(7.5) is sample.int(7.5): a permutation of 1..7
    assert sorted(a.tolist()) == list(range(1, 8))
    rng.set_seed(4)
    assert rng.sample_int(7, 7).tolist() == a.tolist()
    rng.set_seed(4)
    assert rng.sample(np.array([7])).tolist() == a.tolist()  # length-one vector: the same
    rng.set_seed(4)
    assert rng.sample([7]).tolist() == a.tolist()
    rng.set_seed(4)
    assert rng.sample(pd.Series([7])).tolist() == a.tolist()


def test_sample_non_numbers_and_small_numbers_are_populations():
    rng.set_seed(4)
    assert rng.sample(0.5).tolist() == [0.5]
    assert rng.sample(True).tolist() == [True]
    assert rng.sample("abc").tolist() == ["abc"]
    assert rng.sample(math.inf).tolist() == [math.inf]
    assert rng.sample([]) == []
    assert rng.sample(np.array([], dtype=float)).shape == (0,)


def test_sample_preserves_container_type():
    x = ["a", "b", "c", "d"]
    rng.set_seed(6)
    got = rng.sample(x)
    assert isinstance(got, list) and sorted(got) == x
    rng.set_seed(6)
    idx = rng.sample_int(4)
    assert got == [x[i - 1] for i in idx]
    s = pd.Series([10, 20, 30], index=["p", "q", "r"])
    rng.set_seed(6)
    got = rng.sample(s, 2)
    assert isinstance(got, pd.Series) and len(got) == 2
    assert all(s[k] == v for k, v in got.items())
    rng.set_seed(6)
    got = rng.sample(np.array(["u", "v", "w"]), 5, replace=True)
    assert got.shape == (5,) and set(got.tolist()) <= {"u", "v", "w"}


def test_sample_int_quirks_as_in_r():
    rng.set_seed(9)
    ref = RefR(9)
    # with replacement (or size < 2) R draws R_unif_index on the unrounded n
    got = rng.sample_int(7.5, 40, replace=True)
    assert got.tolist() == ref.sample_int(7.5, 40, replace=True)
    assert got.dtype == np.int64
    assert rng.sample_int(7.5, 1).tolist() == ref.sample_int(7.5, 1)
    # size is truncated; size 0 gives an empty sample and no draw
    assert rng.sample_int(10, 3.9).tolist() == ref.sample_int(10, 3)
    assert rng.sample_int(10, 0).tolist() == []
    assert rng.sample_int(0, 0).tolist() == []
    assert_same_doubles(rng.runif(2), ref.runif(2))
    # replace given as a number, as R's asLogical
    assert rng.sample_int(5, 3, replace=1).tolist() == ref.sample_int(5, 3, replace=True)


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((5, 6), {}, "cannot take a sample larger than the population when 'replace = FALSE'"),
        ((math.nan, 1), {}, "invalid first argument"),
        ((math.inf, 1), {}, "invalid first argument"),
        ((-1,), {}, "invalid first argument"),
        ((5e15, 1), {}, "invalid first argument"),
        ((0, 1), {"replace": True}, "invalid first argument"),
        ((5, -1), {}, "invalid 'size' argument"),
        ((5, math.nan), {}, "vector size cannot be NA/NaN"),
        ((5, math.inf), {"replace": True}, "vector size cannot be infinite"),
        ((5, 2), {"replace": None}, "invalid 'replace' argument"),
        (([2, 3],), {}, "length(n) == 1L is not TRUE"),
    ],
)
def test_sample_int_errors(args, kwargs, message):
    rng.set_seed(1)
    before = rng.get_state()
    with pytest.raises(CalstatsError) as err:
        rng.sample_int(*args, **kwargs)
    assert str(err.value) == message
    assert rng.get_state() == before


def test_sample_error_for_too_large_size():
    with pytest.raises(CalstatsError, match="cannot take a sample larger"):
        rng.sample([1, 2, 3], 4)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

seeds = st.integers(min_value=-2147483647, max_value=2147483647)


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=st.integers(min_value=1, max_value=3000))
def test_sample_int_is_a_permutation(seed, n):
    rng.set_seed(seed)
    perm = rng.sample_int(n)
    assert perm.dtype == np.int64
    assert np.array_equal(np.sort(perm), np.arange(1, n + 1))


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(min_value=2, max_value=70000), data=st.data())
def test_partial_sample_matches_reference(seed, n, data):
    size = data.draw(st.integers(min_value=2, max_value=min(n, 40)))
    rng.set_seed(seed)
    ref = RefR(seed)
    ref.runif(data.draw(st.integers(min_value=0, max_value=700)))
    rng.set_state(_advance_like(ref))
    assert rng.sample_int(n, size).tolist() == ref.sample_int(n, size)
    assert rng.get_state_r()[1] == ref.mti


def _advance_like(ref):
    """An R .Random.seed for the reference generator's current state."""
    return [10403, ref.mti] + [v - (1 << 32) if v >= 1 << 31 else v for v in ref.mt]


@settings(max_examples=60, deadline=None)
@given(seed=seeds, n=st.integers(min_value=0, max_value=5000))
def test_runif_in_open_unit_interval(seed, n):
    rng.set_seed(seed)
    u = rng.runif(n)
    assert u.shape == (n,)
    assert ((u > 0) & (u < 1)).all()


@settings(max_examples=40, deadline=None)
@given(seed=seeds, parts=st.lists(st.integers(min_value=0, max_value=1500), min_size=1, max_size=6))
def test_stream_is_additive(seed, parts):
    rng.set_seed(seed)
    whole = rng.runif(sum(parts))
    rng.set_seed(seed)
    pieces = np.concatenate([rng.runif(k) for k in parts])
    assert_same_doubles(pieces, whole)
    rng.set_seed(seed)
    singles = [rng._unif_rand() for _ in range(min(sum(parts), 700))]
    assert_same_doubles(singles, whole[:len(singles)])


@settings(max_examples=40, deadline=None)
@given(seed=seeds, n=st.integers(min_value=1, max_value=10**6), size=st.integers(min_value=0, max_value=300))
def test_sample_with_replacement_in_range(seed, n, size):
    rng.set_seed(seed)
    s = rng.sample_int(n, size, replace=True)
    assert s.shape == (size,)
    assert ((s >= 1) & (s <= n)).all()

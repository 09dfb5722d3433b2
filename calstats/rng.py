"""R's global random-number generator, bit for bit (docs/spec/numerics.md N9, docs/spec/r-interface.md §6.3).

probcal draws its cross-validation folds with R's ``sample()`` (and its examples simulate
data with ``runif``/``rnorm``), so calstats must reproduce R's stream exactly: the same
``set.seed(seed)`` must give the same fold ids, and a call that uses the *global* stream
(``seed = NULL``) must leave it where R leaves it. This module is that generator, with R's
default kinds ``RNGkind() == c("Mersenne-Twister", "Inversion", "Rejection")``.

Why not ``numpy.random``: NumPy's ``MT19937`` shares R's twist and tempering, but nothing
around it. R seeds the 624-word state with its own scrambled linear congruential
recurrence (``set.seed``: 50 rounds of ``69069*s + 1`` then 625 more, docs/spec/numerics.md N9.1),
where NumPy uses Matsumoto-Nishimura ``init_genrand``/``init_by_array`` or a
``SeedSequence``; R turns each 32-bit word into a double as ``y / 2^32`` with a fix-up away
from 0 (N9.2), where NumPy builds 53-bit doubles from two words; and R's integer sampling
(rejection on 16-bit chunks, N9.3), permutations (partial Fisher-Yates, N9.4) and normals
(inversion with AS 241 on two uniforms, N9.5) are R's own algorithms. So we implement the
whole chain here; NumPy is only used to vectorise the twist, the tempering and the
arithmetic (all exact integer or IEEE operations, hence bit-identical to R's C code).

State semantics follow R's ``.Random.seed``: the generator starts "never initialised"
(:func:`get_state` returns ``None``); the first draw then seeds it from OS entropy, as R
seeds from the clock. :func:`set_seed` is ``set.seed``; :func:`get_state_r` returns the
626-integer ``.Random.seed`` vector. The state is module-global, like R's, and is not
thread-safe.

Public API (R equivalents): :func:`set_seed` (``set.seed``), :func:`runif`, :func:`rnorm`,
:func:`sample`, :func:`sample_int` (``sample.int``), :func:`get_state` /
:func:`set_state` (saving / restoring ``.Random.seed``), :func:`get_state_r`
(``.Random.seed``). Helpers for other calstats modules: :func:`_seeded` (the
"seed temporarily, then put the old state back" pattern of ``cal_cv``), :func:`_unif_rand`
(``unif_rand()``), :func:`_unif_index` (``R_unif_index()``), :func:`_runif_raw` (``n``
consecutive ``unif_rand()`` values) and :func:`_qnorm` (``qnorm(p)``).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
from array import array

import numpy as np

from ._errors import CalstatsError, warn

__all__ = [
    "set_seed",
    "runif",
    "rnorm",
    "sample",
    "sample_int",
    "get_state",
    "get_state_r",
    "set_state",
    "RNGState",
]

# --------------------------------------------------------------------------------------
# Constants (R's src/main/RNG.c)
# --------------------------------------------------------------------------------------

_N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
_TEMPER_B = np.uint32(0x9D2C5680)
_TEMPER_C = np.uint32(0xEFC60000)
_TWO_M32 = 2.3283064365386963e-10  # 2^-32: MT_genrand's y * 2.3283064365386963e-10
_I2_32M1 = 2.328306437080797e-10  # 1 / (2^32 - 1): fixup()'s constant
_FIX_LOW = 0.5 * _I2_32M1
_KIND_CODE = 10403  # Mersenne-Twister (3) + 100 * Inversion (3) + 10000 * Rejection (1)
_INT_MAX = 2147483647
_BIG = 134217728.0  # 2^27, norm_rand's INVERSION
_INVALID_SEED = "supplied seed is not a valid integer"

# --------------------------------------------------------------------------------------
# Global state
# --------------------------------------------------------------------------------------
# _mt   : the 624 Mersenne-Twister words (uint32), or None when never initialised
# _mti  : R's position counter (dummy[0] / .Random.seed[2])
# _u    : the 624 fixed-up uniforms of the current block, tempered from _mt; None when
#         stale (after set_seed / set_state; rebuilt on demand)
# _ulist: the same as a Python list (for the per-draw loops), or None
# _clist: floor(_u * 65536) as a Python list of ints (rbits' 16-bit chunks), or None
_mt: np.ndarray | None = None
_mti: int = _N
_u: np.ndarray | None = None
_ulist: list | None = None
_clist: list | None = None


class RNGState:
    """An opaque, immutable copy of the generator state (what :func:`get_state` returns).

    Pass it back to :func:`set_state` to restore the stream. Two states compare equal
    when they describe the same position of the same stream. ``to_r()`` gives R's
    ``.Random.seed`` vector for this state.
    """

    __slots__ = ("_mt", "_mti")

    def __init__(self, mt, mti):
        a = np.array(mt, dtype=np.uint32, copy=True)
        a.setflags(write=False)
        object.__setattr__(self, "_mt", a)
        object.__setattr__(self, "_mti", int(mti))

    def __setattr__(self, name, value):
        raise AttributeError("RNGState is immutable")

    def __eq__(self, other):
        if not isinstance(other, RNGState):
            return NotImplemented
        return self._mti == other._mti and np.array_equal(self._mt, other._mt)

    def __hash__(self):
        return hash((self._mti, self._mt.tobytes()))

    def __repr__(self):
        return f"<RNGState Mersenne-Twister mti={self._mti}>"

    def to_r(self):
        """R's ``.Random.seed`` for this state (626 ``int32``: 10403, mti, mt[0..623])."""
        out = np.empty(_N + 2, dtype=np.int32)
        out[0] = _KIND_CODE
        out[1] = self._mti
        out[2:] = self._mt.view(np.int32)
        return out


# --------------------------------------------------------------------------------------
# Seeding
# --------------------------------------------------------------------------------------

def _lcg_words(seed, count, skip):
    """``count`` words of ``s = 69069*s + 1 (mod 2^32)`` after ``skip`` rounds."""
    s = seed & 0xFFFFFFFF
    for _ in range(skip):
        s = (69069 * s + 1) & 0xFFFFFFFF
    out = np.empty(count, dtype=np.uint32)
    for j in range(count):
        s = (69069 * s + 1) & 0xFFFFFFFF
        out[j] = s
    return out


def _rng_init(seed):
    """R's ``RNG_Init(MERSENNE_TWISTER, seed)`` + ``FixupSeeds(kind, initial = 1)``."""
    global _mt, _mti, _u, _ulist, _clist
    words = _lcg_words(seed, _N + 1, 50)
    _mt = words[1:].copy()
    _mti = _N  # dummy[0] = mti = N: regenerate on the first draw
    _u = _ulist = _clist = None
    if not _mt.any():  # cannot happen from set.seed; R would re-seed from the clock
        _randomize()


def _randomize():
    """Seed from OS entropy (R's ``Randomize(kind)`` seeds from the clock and pid)."""
    _rng_init(int.from_bytes(os.urandom(4), "little"))


def _mt_sgenrand(seed):
    """R's ``MT_sgenrand`` (only reached when a restored ``.Random.seed`` has mti = 625)."""
    global _mt
    s = seed & 0xFFFFFFFF
    mt = np.empty(_N, dtype=np.uint32)
    for i in range(_N):
        w = s & 0xFFFF0000
        s = (69069 * s + 1) & 0xFFFFFFFF
        w |= (s & 0xFFFF0000) >> 16
        s = (69069 * s + 1) & 0xFFFFFFFF
        mt[i] = w
    _mt = mt


_R_SPACE = " \t\n\v\f\r"
_DEC_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]*)?")
_HEX_RE = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_SPECIAL_RE = re.compile(r"([+-]?)(nan|inf|infinity)", re.IGNORECASE)


def _r_strtod(text):
    """A number parsed as R's ``String -> double`` coercion does, or ``None`` if not one.

    Accepts surrounding white space, decimal and hexadecimal notation, ``NA``, ``NaN``,
    ``Inf`` and ``infinity`` (R's ``R_strtod``).
    """
    s = text.strip(_R_SPACE)
    if not s:
        return None
    if s == "NA":
        return math.nan
    m = _SPECIAL_RE.fullmatch(s)
    if m:
        if m.group(2).lower() == "nan":
            return math.nan
        return -math.inf if m.group(1) == "-" else math.inf
    if _HEX_RE.fullmatch(s):
        sign = -1.0 if s[0] == "-" else 1.0
        body = s.lstrip("+-")
        if "p" not in body.lower():
            body += "p0"
        return sign * float.fromhex(body)
    if _DEC_RE.fullmatch(s):
        if s[-1] in "eE" or s[-2:] in ("e+", "e-", "E+", "E-"):
            s = s.rstrip("+-").rstrip("eE")  # R reads "1e" as 1
        return float(s)
    return None


def _int_from_real(x):
    """R's ``IntegerFromReal``: ``None`` for NA (with R's warning when out of range)."""
    if math.isnan(x):
        return None
    if x >= 2147483648.0 or x <= -2147483648.0:
        warn("NAs introduced by coercion to integer range")
        return None
    return int(x)  # truncation toward zero, as C's (int)


def _coerce_seed(seed):
    """``asInteger(seed)`` as ``set.seed`` does it (docs/spec/r-interface.md §6.3)."""
    x = seed
    if not isinstance(x, (str, bytes)) and not np.isscalar(x) and not isinstance(x, numbers.Number):
        # a vector: R uses its first element
        if hasattr(x, "iloc"):  # pandas Series / DataFrame column
            x = x.to_numpy()
        if isinstance(x, np.ndarray):
            if x.size == 0:
                raise CalstatsError(_INVALID_SEED)
            x = x.reshape(-1, order="F")[0]
        else:
            try:
                seq = list(x)
            except TypeError:
                raise CalstatsError(_INVALID_SEED) from None
            if not seq:
                raise CalstatsError(_INVALID_SEED)
            x = seq[0]
    value = None
    if isinstance(x, bytes):
        x = x.decode("utf-8", "replace")
    if isinstance(x, str):
        d = _r_strtod(x)
        if d is None and not x.strip(_R_SPACE):
            pass  # R: a blank string is NA, without a warning
        elif d is None:
            warn("NAs introduced by coercion")
        else:
            value = _int_from_real(d)
    elif isinstance(x, (bool, np.bool_)):
        value = int(x)
    elif isinstance(x, numbers.Integral):
        v = int(x)
        if -_INT_MAX <= v <= _INT_MAX:
            value = v
        else:
            value = _int_from_real(float(v)) if abs(v) < 2**1023 else _int_from_real(math.inf)
    elif isinstance(x, numbers.Real):
        value = _int_from_real(float(x))
    elif isinstance(x, numbers.Complex):
        if x.imag != 0:
            warn("imaginary parts discarded in coercion")
        value = _int_from_real(float(x.real))
    if value is None:
        raise CalstatsError(_INVALID_SEED)
    return value


def set_seed(seed):
    """Seed the global generator, as R's ``set.seed(seed)``.

    Parameters
    ----------
    seed : int, float, bool, str or sequence
        Coerced as R's ``asInteger``: an int is used as is; a float is truncated toward
        zero; ``True``/``False`` are 1/0; a numeric string is parsed; a sequence
        contributes its first element. A negative seed is used through its 32-bit two's
        complement pattern. ``None`` re-seeds from OS entropy (R's ``set.seed(NULL)``).

    Raises
    ------
    CalstatsError
        ``supplied seed is not a valid integer`` for NaN, a non-numeric string, an empty
        sequence or a value outside ``[-2147483647, 2147483647]`` after truncation (R also
        warns ``NAs introduced by coercion`` / ``... to integer range``; so do we).

    Notes
    -----
    Afterwards :func:`get_state_r` is R's ``.Random.seed``: ``10403, 624`` and the 624
    Mersenne-Twister words (docs/spec/numerics.md N9.1).
    """
    if seed is None:
        _randomize()
        return None
    _rng_init(_coerce_seed(seed))
    return None


# --------------------------------------------------------------------------------------
# Mersenne-Twister core
# --------------------------------------------------------------------------------------

def _twist(mt):
    """Regenerate the 624 words in place (MT19937's ``genrand`` block step), vectorised.

    Sequentially, word ``kk`` is replaced using ``mt[kk+1]`` (still old) and
    ``mt[kk+397]`` (old for ``kk < 227``, already new for ``kk >= 227``: it is
    ``mt[kk-227]``). So 0..226 go in one step, then 227..453 (reading new 0..226) and
    454..622 (reading new 227..395), then 623 (reading new 0 and 396).
    """
    y = (mt[0:227] & _UPPER) | (mt[1:228] & _LOWER)
    mt[0:227] = mt[397:624] ^ (y >> 1) ^ ((y & 1) * _MATRIX_A)
    y = (mt[227:454] & _UPPER) | (mt[228:455] & _LOWER)
    mt[227:454] = mt[0:227] ^ (y >> 1) ^ ((y & 1) * _MATRIX_A)
    y = (mt[454:623] & _UPPER) | (mt[455:624] & _LOWER)
    mt[454:623] = mt[227:396] ^ (y >> 1) ^ ((y & 1) * _MATRIX_A)
    y = (mt[623] & _UPPER) | (mt[0] & _LOWER)
    mt[623] = mt[396] ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * _MATRIX_A)


def _temper_uniforms(mt):
    """``fixup(MT_genrand())`` for every word of a block: tempering, ``y/2^32``, fix-up."""
    y = mt.copy()
    y ^= y >> 11
    y ^= (y << 7) & _TEMPER_B
    y ^= (y << 15) & _TEMPER_C
    y ^= y >> 18
    u = y.astype(np.float64) * _TWO_M32  # exact: y < 2^32 and a power-of-two scale
    u[u <= 0.0] = _FIX_LOW  # y == 0; 1 - u <= 0 cannot happen for y < 2^32
    return u


def _ensure_init():
    if _mt is None:
        _randomize()


def _new_block():
    """R's regeneration step in ``MT_genrand`` (called when ``mti >= 624``)."""
    global _mti, _u, _ulist, _clist
    if _mti == _N + 1:  # "sgenrand() has not been called": only via a hand-made state
        _mt_sgenrand(4357)
    _twist(_mt)
    _mti = 0
    _u = _ulist = _clist = None


def _block():
    """Make sure a draw is possible at ``_mti`` (twisting if needed); return ``_u``."""
    global _u, _ulist, _clist
    _ensure_init()
    if _mti >= _N:
        _new_block()
    if _u is None:
        _u = _temper_uniforms(_mt)
        _ulist = _clist = None
    return _u


def _block_list():
    """The current block's uniforms as a Python list (for per-draw loops)."""
    global _ulist
    u = _block()
    if _ulist is None:
        _ulist = u.tolist()
    return _ulist


def _block_chunks():
    """The current block's ``(int) floor(unif_rand() * 65536)`` values (``rbits``' 16-bit
    chunks) as a Python list of ints."""
    global _clist
    u = _block()
    if _clist is None:
        _clist = np.floor(u * 65536.0).astype(np.int64).tolist()
    return _clist


def _runif_raw(n):
    """The next ``n`` values of R's ``unif_rand()`` as a float64 array (advances the stream).

    Whole blocks are twisted one after the other and then tempered in one vectorised step.
    """
    global _mti, _u, _ulist, _clist
    n = int(n)
    out = np.empty(n, dtype=np.float64)
    pos = 0
    _ensure_init()
    if _mti < _N:  # rest of the current block
        u = _block()
        take = min(n, _N - _mti)
        out[:take] = u[_mti:_mti + take]
        _mti += take
        pos = take
    nb = (n - pos) // _N
    if nb:  # here _mti >= _N
        raw = np.empty((nb, _N), dtype=np.uint32)
        for b in range(nb):
            _new_block()
            raw[b] = _mt
        out[pos:pos + nb * _N] = _temper_uniforms(raw.reshape(-1))
        _mti = _N
        _u = _ulist = _clist = None
        pos += nb * _N
    if pos < n:  # start of a new block
        u = _block()
        take = n - pos
        out[pos:] = u[_mti:_mti + take]
        _mti += take
    return out


def _unif_rand():
    """One draw of R's ``unif_rand()`` (a double in (0, 1)); advances the stream."""
    global _mti
    u = _block_list()
    v = u[_mti]
    _mti += 1
    return v


def _snapshot():
    return (None if _mt is None else _mt.copy(), _mti, _u, _ulist, _clist)


def _restore(snap):
    global _mt, _mti, _u, _ulist, _clist
    _mt, _mti, _u, _ulist, _clist = snap


# --------------------------------------------------------------------------------------
# Uniform integers: R_unif_index (sample.kind = "Rejection")
# --------------------------------------------------------------------------------------

def _index_bits(dn):
    """``(int) ceil(log2(dn))`` with the C library's ``log2`` (as R computes it)."""
    return int(math.ceil(math.log2(dn)))


def _unif_index(dn):
    """R's ``R_unif_index(dn)``: a uniform integer in ``[0, dn)``, returned as a float.

    Rejection sampling on ``bits = ceil(log2(dn))`` random bits built from 16-bit chunks
    ``floor(unif_rand() * 65536)`` (docs/spec/numerics.md N9.3). ``dn <= 0`` gives 0 without a draw.
    """
    dn = float(dn)
    if not dn > 0:
        return 0.0
    bits = _index_bits(dn)
    if bits < 0:  # 0 < dn < 1: rbits() draws nothing and returns 0
        return 0.0
    mask = (1 << bits) - 1
    while True:
        v = 0
        k = 0
        while k <= bits:
            v = 65536 * v + int(_unif_rand() * 65536.0)
            k += 16
        dv = float(v & mask)
        if dn > dv:
            return dv


def _unif_index_many(dn, count):
    """``count`` successive values of ``R_unif_index(dn)`` (float64), consuming the stream
    exactly as ``count`` scalar calls would; the candidates are built vectorised."""
    count = int(count)
    dn = float(dn)
    if count <= 0:
        return np.empty(0, dtype=np.float64)
    if not dn > 0:
        return np.zeros(count, dtype=np.float64)
    bits = _index_bits(dn)
    if bits < 0:
        return np.zeros(count, dtype=np.float64)
    w = bits // 16 + 1  # uniforms per candidate
    mask = np.uint64((1 << bits) - 1)
    p_acc = dn / float(2**bits)
    _ensure_init()  # a snapshot of "never initialised" could not be replayed
    parts = []
    got = 0
    while got < count:
        need = count - got
        ncand = int(need / p_acc * 1.05) + 16
        snap = _snapshot()
        uu = _runif_raw(ncand * w)
        chunks = np.floor(uu * 65536.0).astype(np.uint64).reshape(ncand, w)
        v = chunks[:, 0].copy()
        for j in range(1, w):
            v = v * np.uint64(65536) + chunks[:, j]  # wraps mod 2^64 like C; low bits exact
        dv = (v & mask).astype(np.float64)
        acc = np.flatnonzero(dn > dv)
        if acc.size >= need:
            last = int(acc[need - 1])
            _restore(snap)
            _runif_raw((last + 1) * w)  # consume exactly what R would have
            parts.append(dv[acc[:need]])
            got = count
        else:
            parts.append(dv[acc])
            got += acc.size
    return np.concatenate(parts)


# --------------------------------------------------------------------------------------
# sample / sample.int
# --------------------------------------------------------------------------------------

def _as_count_arg(n):
    """``asReal`` of a length-one argument (lists/arrays of length one allowed)."""
    if isinstance(n, (str, bytes)):
        raise CalstatsError("invalid first argument")
    if not np.isscalar(n) and not isinstance(n, numbers.Number):
        arr = np.asarray(n)
        if arr.size != 1:
            raise CalstatsError("length(n) == 1L is not TRUE")
        n = arr.reshape(-1)[0]
    try:
        return float(n)
    except (TypeError, ValueError):
        raise CalstatsError("invalid first argument") from None


def _as_vec_size(size):
    """R's ``asVecSize`` (truncation toward zero) with its error messages."""
    if isinstance(size, (str, bytes)):
        raise CalstatsError("invalid 'size' argument")
    if not np.isscalar(size) and not isinstance(size, numbers.Number):
        arr = np.asarray(size)
        if arr.size < 1:
            raise CalstatsError("invalid 'size' argument")
        size = arr.reshape(-1)[0]
    if isinstance(size, (bool, np.bool_)):
        return int(size)
    if isinstance(size, numbers.Integral):
        return int(size)
    try:
        d = float(size)
    except (TypeError, ValueError):
        raise CalstatsError("invalid 'size' argument") from None
    if math.isnan(d):
        raise CalstatsError("vector size cannot be NA/NaN")
    if math.isinf(d):
        raise CalstatsError("vector size cannot be infinite")
    if d > 4503599627370496.0:
        raise CalstatsError("vector size specified is too large")
    return int(d)


def _as_replace(replace):
    if isinstance(replace, (bool, np.bool_)):
        return bool(replace)
    if isinstance(replace, numbers.Real) and not math.isnan(float(replace)):
        return float(replace) != 0
    raise CalstatsError("invalid 'replace' argument")


def _permutation(n, k):
    """``do_sample``'s partial Fisher-Yates: ``k`` draws without replacement from 1..n.

    Step ``t`` takes ``j = R_unif_index(m)`` for ``m = n - t``, outputs ``pool[j] + 1`` and
    moves ``pool[m - 1]`` into slot ``j``. ``R_unif_index`` is inlined: its 16-bit chunks
    are read straight from the current block (so the stream is consumed exactly as R
    does, including rejected attempts), one chunk per attempt while ``m <= 2^15``, two
    above.
    """
    global _mti
    pool = list(range(n)) if n <= 2_000_000 else array("q", range(n))
    out = [0] * k
    m = n
    bits = (m - 1).bit_length()  # == ceil(log2(m)) exactly for integer m <= 2^31
    half = 1 << (bits - 1) if bits > 0 else 0  # bits drops by one when m <= half
    mask = (1 << bits) - 1
    c = _block_chunks()
    i = _mti
    t = 0
    try:
        while t < k and bits > 15:  # two chunks per attempt (2^15 < m <= 2^31)
            while True:
                if i >= _N:
                    _mti = i
                    c = _block_chunks()
                    i = _mti
                hi = c[i]
                i += 1
                if i >= _N:
                    _mti = i
                    c = _block_chunks()
                    i = _mti
                v = (65536 * hi + c[i]) & mask
                i += 1
                if v < m:
                    break
            out[t] = pool[v] + 1
            m -= 1
            pool[v] = pool[m]
            if m <= half:
                bits -= 1
                half >>= 1
                mask >>= 1
            t += 1
        while t < k:  # one chunk per attempt (m <= 2^15)
            while True:
                if i >= _N:
                    _mti = i
                    c = _block_chunks()
                    i = _mti
                v = c[i] & mask
                i += 1
                if v < m:
                    break
            out[t] = pool[v] + 1
            m -= 1
            pool[v] = pool[m]
            if m <= half:
                half >>= 1
                mask >>= 1
            t += 1
    finally:
        _mti = i
    return out


def _hash_sample(dn, k):
    """``sample2``: for each position draw ``R_unif_index(dn) + 1`` until the value is new
    (at most 100 tries, R then keeps the last draw). Used for ``n > 1e7``, no
    replacement and ``size <= n/2``. Candidates are drawn in batches; the stream is then
    rewound and advanced by exactly the number R consumed."""
    _ensure_init()
    snap = _snapshot()
    vals = _unif_index_many(dn, k + 16).tolist()
    pos = 0
    seen = set()
    out = [0.0] * k
    for idx in range(k):
        for _ in range(100):
            if pos >= len(vals):
                vals.extend(_unif_index_many(dn, max(16, k - idx)).tolist())
            r = vals[pos] + 1.0
            pos += 1
            if r not in seen:
                break
        seen.add(r)
        out[idx] = r
    if pos != len(vals):
        _restore(snap)
        _unif_index_many(dn, pos)
    return np.asarray(out, dtype=np.float64)


def sample_int(n, size=None, replace=False):
    """A random sample of ``1..n``, as R's ``sample.int(n, size, replace)``.

    Parameters
    ----------
    n : int or float
        Population size (truncated toward zero; R allows up to 4.5e15).
    size : int or float, optional
        Number of draws; default ``n``. Truncated toward zero (R's ``asVecSize``).
    replace : bool, default False
        Sample with replacement.

    Returns
    -------
    numpy.ndarray
        ``int64`` values in ``1..n`` (``float64`` when ``n`` or ``size`` exceeds
        2147483647, where R returns doubles).

    Notes
    -----
    R's algorithm (docs/spec/numerics.md N9.4): with replacement or for ``size < 2`` each value is
    ``R_unif_index(n) + 1``; otherwise a partial Fisher-Yates that swaps the drawn slot
    with the last one; for ``n > 1e7``, no replacement and ``size <= n/2`` R's hash
    variant (``sample2``) redraws values already taken. A non-integer ``n`` is truncated
    for permutations but used as is by ``R_unif_index`` in the other branches, exactly
    as in R (so ``sample_int(7.5, 1)`` can return 8).

    Raises
    ------
    CalstatsError
        With R's messages: ``invalid first argument``, ``invalid 'size' argument``,
        ``cannot take a sample larger than the population when 'replace = FALSE'``.
    """
    dn = _as_count_arg(n)
    replace = _as_replace(replace)
    size_raw = dn if size is None else size
    k = _as_vec_size(size_raw)
    if not math.isfinite(dn) or dn < 0 or dn > 4.5e15 or (k > 0 and dn == 0):
        raise CalstatsError("invalid first argument")
    if k < 0:
        raise CalstatsError("invalid 'size' argument")
    if not replace and k > dn:
        raise CalstatsError(
            "cannot take a sample larger than the population when 'replace = FALSE'"
        )
    size_cmp = k if isinstance(size_raw, numbers.Integral) else float(
        np.asarray(size_raw, dtype=np.float64).reshape(-1)[0])
    use_hash = dn > 1e7 and not replace and size_cmp <= dn / 2
    if use_hash:
        res = _hash_sample(dn, k)
        return res if dn > _INT_MAX else res.astype(np.int64)
    real = dn > _INT_MAX or k > _INT_MAX
    if replace or k < 2:
        res = _unif_index_many(dn, k) + 1.0
        return res if real else res.astype(np.int64)
    res = np.asarray(_permutation(int(dn), k), dtype=np.int64)
    return res.astype(np.float64) if real else res


def _single_number(x):
    """R's ``length(x) == 1 && is.numeric(x)`` test; returns the number or ``None``."""
    if isinstance(x, (bool, np.bool_, str, bytes)):
        return None
    if isinstance(x, numbers.Real):
        return float(x)
    if isinstance(x, (list, tuple)):
        if len(x) == 1 and isinstance(x[0], numbers.Real) and not isinstance(x[0], (bool, np.bool_)):
            return float(x[0])
        return None
    if hasattr(x, "dtype") and hasattr(x, "__len__"):  # ndarray, pandas Series / Index
        arr = np.asarray(x)
        if arr.size == 1 and arr.dtype.kind in "iuf":
            return float(arr.reshape(-1)[0])
    return None


def sample(x, size=None, replace=False):
    """Random permutation or sample of ``x``, as R's ``sample(x, size, replace)``.

    Parameters
    ----------
    x : sequence, array, pandas Series or a single number
        The population. **R semantics:** a single finite number ``>= 1`` (also a
        length-one numeric list/array) means ``1..x``, i.e. ``sample_int(x, size)``, so
        ``sample(5)`` permutes 1..5 and ``sample([7])`` permutes 1..7, as in R.
    size : int, optional
        Number of items; default ``len(x)`` (or ``x`` for a single number).
    replace : bool, default False
        Sample with replacement.

    Returns
    -------
    numpy.ndarray, list or pandas object
        For a single number, as :func:`sample_int`. Otherwise ``x`` indexed by
        ``sample_int(len(x), size, replace)``: an array for an array (or a scalar), a
        list for a list/tuple, a Series/Index (positions via ``iloc``/``take``) for pandas.
    """
    v = _single_number(x)
    if v is not None and math.isfinite(v) and v >= 1:
        return sample_int(v if not isinstance(x, numbers.Integral) else int(x),
                          v if size is None else size, replace)
    if isinstance(x, (str, bytes)) or np.isscalar(x) or isinstance(x, numbers.Number):
        arr = np.asarray([x])
        idx = sample_int(1, 1 if size is None else size, replace)
        return arr[np.asarray(idx, dtype=np.int64) - 1]
    length = len(x)
    idx = sample_int(length, length if size is None else size, replace)
    pos = np.asarray(idx, dtype=np.int64) - 1
    if isinstance(x, np.ndarray):
        return x[pos]
    if hasattr(x, "iloc"):
        return x.iloc[pos]
    if hasattr(x, "take") and hasattr(x, "dtype"):  # pandas Index / extension arrays
        return x.take(pos)
    if isinstance(x, (list, tuple, range)):
        return [x[i] for i in pos.tolist()]
    return np.asarray(list(x))[pos]


# --------------------------------------------------------------------------------------
# runif / rnorm
# --------------------------------------------------------------------------------------

def _n_arg(n):
    """The ``n`` of ``runif``/``rnorm``: a count, or the length of a longer vector."""
    if not np.isscalar(n) and not isinstance(n, numbers.Number):
        arr = np.asarray(n)
        if arr.size != 1:
            return int(arr.size)
        n = arr.reshape(-1)[0]
    try:
        d = float(n)
    except (TypeError, ValueError):
        raise CalstatsError("invalid arguments") from None
    if math.isnan(d) or d < 0 or d > 4503599627370496.0:
        raise CalstatsError("invalid arguments")
    return int(d)


def _param(a, n):
    """Recycle a numeric parameter to length ``n`` (R's ``a[i % na]``); None if empty."""
    arr = np.asarray(a, dtype=np.float64).reshape(-1)
    if arr.size == 0:
        return None
    if arr.size == 1:
        return np.full(n, arr[0])
    return np.resize(arr, n)


def runif(n, min=0.0, max=1.0):  # noqa: A002 - R's argument names
    """Uniform random numbers on ``(min, max)``, as R's ``runif(n, min, max)``.

    Parameters
    ----------
    n : int
        Number of values (a vector of length > 1 means its length, as in R).
    min, max : float or array_like
        Limits, recycled along the result.

    Returns
    -------
    numpy.ndarray
        ``float64`` values ``min + (max - min) * unif_rand()``, bit-identical to R. An
        element with ``min == max`` is ``min`` and uses no draw; non-finite limits or
        ``max < min`` give NaN (no draw) and R's warning ``NAs produced``.
    """
    n = _n_arg(n)
    if n == 0:
        return np.empty(0, dtype=np.float64)
    a = _param(min, n)
    b = _param(max, n)
    if a is None or b is None:
        warn("NAs produced")
        return np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(a) | ~np.isfinite(b) | (b < a)
        draw = ~bad & (a != b)
    out = a.copy()
    out[bad] = np.nan
    nd = int(np.count_nonzero(draw))
    if nd == n:
        out = a + (b - a) * _runif_raw(n)
    elif nd:
        out[draw] = a[draw] + (b[draw] - a[draw]) * _runif_raw(nd)
    if bad.any():
        warn("NAs produced")
    return out


# AS 241 (Wichura 1988) coefficients, constant term first (docs/spec/numerics.md N9.5).
_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427,
      13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
      33430.575583588128105, 2509.0809287301226727)
_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
      21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
      5226.495278852854561)
_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055,
      3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177,
      0.0227238449892691845833, 7.7454501427834140764e-4)
_D = (1.0, 2.05319162663775882187, 1.6763848301838038494, 0.68976733498510000455,
      0.14810397642748007459, 0.0151986665636164571966, 5.475938084995344946e-4,
      1.05075007164441684324e-9)
_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358,
      0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386,
      2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 0.59983220655588793769, 0.13692988092273580531, 0.0148753612908506148525,
      7.868691311456132591e-4, 1.8463183175100546818e-5, 1.4215117583164458887e-7,
      2.04426310338993978564e-15)


def _horner(c, r):
    """``((c7*r + c6)*r + ... )*r + c0``, evaluated exactly in that order."""
    acc = c[7] * r + c[6]
    for j in range(5, -1, -1):
        acc = acc * r + c[j]
    return acc


def _qnorm(p):
    """R's ``qnorm(p)`` (mean 0, sd 1, lower tail, not log; R 4.2.2, AS 241), elementwise.

    Same operations in the same order as R's ``qnorm.c``, so bit-identical; ``log`` is
    the C library's (Python's ``math.log``) and ``sqrt`` is correctly rounded. ``p`` of 0
    or 1 gives -Inf / Inf, outside [0, 1] or NaN gives NaN.
    """
    p = np.asarray(p, dtype=np.float64)
    scalar = p.ndim == 0
    p = p.reshape(-1)
    out = np.empty_like(p)
    q = p - 0.5
    with np.errstate(invalid="ignore"):
        inside = (p > 0.0) & (p < 1.0)
        central = inside & (np.abs(q) <= 0.425)
        tail = inside & ~central
    out[~inside] = np.nan
    out[p == 0.0] = -np.inf
    out[p == 1.0] = np.inf
    if central.any():
        qc = q[central]
        r = 0.180625 - qc * qc
        out[central] = qc * _horner(_A, r) / _horner(_B, r)
    if tail.any():
        pt = p[tail]
        qt = q[tail]
        rt = np.where(qt > 0.0, (0.5 - pt) + 0.5, pt)  # R_DT_CIv(p) / p_
        r = np.array([math.sqrt(-math.log(x)) for x in rt.tolist()], dtype=np.float64)
        val = np.empty_like(r)
        near = r <= 5.0
        if near.any():
            rn = r[near] + (-1.6)
            val[near] = _horner(_C, rn) / _horner(_D, rn)
        if (~near).any():
            rf = r[~near] + (-5.0)
            val[~near] = _horner(_E, rf) / _horner(_F, rf)
        out[tail] = np.where(qt < 0.0, -val, val)
    return float(out[0]) if scalar else out


def _norm_rand_many(count):
    """``count`` values of R's ``norm_rand()`` (INVERSION: two uniforms each)."""
    u = _runif_raw(2 * count)
    # (int)(BIG * u1) + u2, then / BIG: truncation == floor for u1 > 0
    return _qnorm((np.floor(_BIG * u[0::2]) + u[1::2]) / _BIG)


def rnorm(n, mean=0.0, sd=1.0):
    """Normal random numbers, as R's ``rnorm(n, mean, sd)`` (normal kind "Inversion").

    Parameters
    ----------
    n : int
        Number of values (a vector of length > 1 means its length, as in R).
    mean, sd : float or array_like
        Recycled along the result.

    Returns
    -------
    numpy.ndarray
        ``mean + sd * qnorm(u)`` with ``u = (floor(2^27 * u1) + u2) / 2^27`` from two
        successive uniforms (docs/spec/numerics.md N9.5), bit-identical to R. As in R an element
        with ``sd == 0`` or infinite ``mean`` is ``mean`` and uses no draw; NaN ``mean``,
        negative or non-finite ``sd`` give NaN (no draw) with the warning ``NAs produced``.
    """
    n = _n_arg(n)
    if n == 0:
        return np.empty(0, dtype=np.float64)
    mu = _param(mean, n)
    sigma = _param(sd, n)
    if mu is None or sigma is None:
        warn("NAs produced")
        return np.full(n, np.nan)
    with np.errstate(invalid="ignore"):
        bad = np.isnan(mu) | ~np.isfinite(sigma) | (sigma < 0.0)
        draw = ~bad & ~((sigma == 0.0) | ~np.isfinite(mu))
    out = mu.copy()
    out[bad] = np.nan
    nd = int(np.count_nonzero(draw))
    if nd:
        z = _norm_rand_many(nd)
        out[draw] = mu[draw] + sigma[draw] * z
    if bad.any():
        warn("NAs produced")
    return out


# --------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------

def get_state():
    """The current generator state, like saving R's ``.Random.seed``.

    Returns
    -------
    RNGState or None
        An immutable copy to pass to :func:`set_state`, or ``None`` when the generator
        has never been initialised (R: ``.Random.seed`` does not exist).
    """
    if _mt is None:
        return None
    return RNGState(_mt, _mti)


def get_state_r():
    """R's ``.Random.seed``: 626 ``int32`` values ``(10403, mti, mt[0], ..., mt[623])``.

    Returns ``None`` when the generator has never been initialised (in R,
    ``.Random.seed`` then does not exist).
    """
    if _mt is None:
        return None
    return RNGState(_mt, _mti).to_r()


def set_state(state):
    """Restore a state, like assigning R's ``.Random.seed``.

    Parameters
    ----------
    state : RNGState, array_like of 626 ints, or None
        A value from :func:`get_state`; or an R ``.Random.seed`` vector (as from
        :func:`get_state_r` or R itself; kind code must be 10403, i.e. R's default
        kinds; an ``mti <= 0`` becomes 624 and an all-zero state re-seeds from entropy,
        as R's ``FixupSeeds`` does); or ``None`` for "never initialised" (the next draw
        seeds from OS entropy, like removing ``.Random.seed`` in R).
    """
    global _mt, _mti, _u, _ulist, _clist
    if state is None:
        _mt = None
        _mti = _N
        _u = _ulist = _clist = None
        return None
    if isinstance(state, RNGState):
        _mt = state._mt.copy()
        _mti = state._mti
        _u = _ulist = _clist = None
        return None
    arr = np.asarray(state)
    if arr.ndim != 1 or arr.size != _N + 2 or arr.dtype.kind not in "iuf":
        raise CalstatsError("'.Random.seed' has wrong length or type for Mersenne-Twister")
    vals = [int(v) for v in arr.tolist()]
    if vals[0] != _KIND_CODE:
        raise CalstatsError(
            "'.Random.seed[1]' is not a valid integer for the default kinds "
            "(Mersenne-Twister, Inversion, Rejection)"
        )
    mt = np.array([v & 0xFFFFFFFF for v in vals[2:]], dtype=np.uint32)
    mti = vals[1]
    if mti <= 0:
        mti = _N
    _mt = mt
    _mti = mti
    _u = _ulist = _clist = None
    if not mt.any():
        _randomize()
    return None


@contextlib.contextmanager
def _seeded(seed):
    """Run a block under ``set.seed(seed)`` and put the previous global state back.

    With ``seed is None`` nothing is saved or seeded: the block uses (and advances) the
    global stream, as R does. Otherwise the current state (or the fact that the generator
    was never initialised) is remembered, the generator is seeded as ``set.seed(seed)``
    (which may raise ``supplied seed is not a valid integer``), the block runs, and the
    remembered state is restored afterwards, also when the block raises
    (docs/spec/r-interface.md §6.3).
    """
    if seed is None:
        yield
        return
    saved = get_state()
    try:
        set_seed(seed)
        yield
    finally:
        set_state(saved)

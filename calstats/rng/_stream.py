"""The generator's state and its stream: R's set.seed, the Mersenne-Twister block step and
tempering, unif_rand, and saving / restoring .Random.seed, as in R's ``src/main/RNG.c``.

The state is module-global here and nowhere else (like R's), so every function that
assigns it lives in this module; :mod:`calstats.rng._sample` and :mod:`calstats.rng._draws`
read the stream through the functions below (``_permutation`` also moves ``_mti``, by
attribute on this module).
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._errors import fail, warn
from .._messages import (
    COERCE_IMAGINARY,
    COERCE_INTEGER_RANGE,
    COERCE_NA,
    RANDOM_SEED_KIND,
    RANDOM_SEED_LENGTH,
    RNG_STATE_IMMUTABLE,
    SEED_INVALID,
)

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
    _mt: np.ndarray
    _mti: int

    def __init__(self, mt, mti):
        a = np.array(mt, dtype=np.uint32, copy=True)
        a.setflags(write=False)
        object.__setattr__(self, "_mt", a)
        object.__setattr__(self, "_mti", int(mti))

    def __setattr__(self, name, value):
        raise AttributeError(RNG_STATE_IMMUTABLE)

    def __eq__(self, other):
        if not isinstance(other, RNGState):
            return NotImplemented
        return self._mti == other._mti and np.array_equal(self._mt, other._mt)

    def __hash__(self):
        return hash((self._mti, self._mt.tobytes()))

    def __repr__(self):
        return f"<RNGState Mersenne-Twister mti={self._mti}>"

    def to_r(self) -> np.ndarray:
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
        warn(COERCE_INTEGER_RANGE)
        return None
    return int(x)  # truncation toward zero, as C's (int)


def _coerce_seed(seed):
    """``asInteger(seed)`` as ``set.seed`` does it: truncation toward zero; NaN, a non-numeric string
    or a value outside ``[-2147483647, 2147483647]`` is not a valid seed."""
    x = seed
    if not isinstance(x, (str, bytes)) and not np.isscalar(x) and not isinstance(x, numbers.Number):
        # a vector: R uses its first element
        if hasattr(x, "iloc"):  # pandas Series / DataFrame column
            x = x.to_numpy()
        if isinstance(x, np.ndarray):
            if x.size == 0:
                fail(SEED_INVALID)
            x = x.reshape(-1, order="F")[0]
        else:
            try:
                seq = list(x)
            except TypeError:
                fail(SEED_INVALID)
            if not seq:
                fail(SEED_INVALID)
            x = seq[0]
    value = None
    if isinstance(x, bytes):
        x = x.decode("utf-8", "replace")
    if isinstance(x, str):
        d = _r_strtod(x)
        if d is None and not x.strip(_R_SPACE):
            pass  # R: a blank string is NA, without a warning
        elif d is None:
            warn(COERCE_NA)
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
            warn(COERCE_IMAGINARY)
        value = _int_from_real(float(x.real))
    if value is None:
        fail(SEED_INVALID)
    return value


def set_seed(seed: Any) -> None:
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
    Mersenne-Twister words (``10403`` encodes R's default kinds).
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


_BG = None


def _bit_generator():
    """One NumPy ``MT19937`` kept for the whole-block draws: its state is replaced by R's on
    every use, so how it was seeded does not matter (a fixed seed skips the OS entropy a new
    generator reads: ~0.35 ms a call)."""
    global _BG
    if _BG is None:
        _BG = np.random.MT19937(0)
    return _BG


def _runif_raw(n):
    """The next ``n`` values of R's ``unif_rand()`` as a float64 array (advances the stream).

    Whole blocks are twisted and tempered by NumPy's ``MT19937`` (the same generator in C).
    """
    global _mt, _mti, _u, _ulist, _clist
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
        if _mti == _N + 1:  # a hand-made state: R seeds it first (see _new_block)
            _mt_sgenrand(4357)
        # NumPy's MT19937 is the same twist and tempering as R's MT_genrand: loaded with
        # R's words at position 624 it twists nb blocks in C and returns the tempered words
        bg = _bit_generator()
        bg.state = {"bit_generator": "MT19937", "state": {"key": _mt, "pos": _N}}
        u = bg.random_raw(nb * _N).astype(np.float64) * _TWO_M32  # exact: y < 2^32
        u[u <= 0.0] = _FIX_LOW  # R's fixup() of y == 0
        out[pos:pos + nb * _N] = u
        _mt = np.asarray(bg.state["state"]["key"], dtype=np.uint32).copy()
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
# State
# --------------------------------------------------------------------------------------

def get_state() -> RNGState | None:
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


def get_state_r() -> np.ndarray | None:
    """R's ``.Random.seed``: 626 ``int32`` values ``(10403, mti, mt[0], ..., mt[623])``.

    Returns ``None`` when the generator has never been initialised (in R,
    ``.Random.seed`` then does not exist).
    """
    if _mt is None:
        return None
    return RNGState(_mt, _mti).to_r()


def set_state(state: RNGState | ArrayLike | None) -> None:
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
        fail(RANDOM_SEED_LENGTH)
    vals = [int(v) for v in arr.tolist()]
    if vals[0] != _KIND_CODE:
        fail(RANDOM_SEED_KIND)
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
    remembered state is restored afterwards, also when the block raises (what probcal's
    ``stratified_folds`` does around ``set.seed``, and ``withr::with_seed`` in R).
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

"""R's integer draws: R_unif_index with rejection sampling, and sample / sample.int (partial
Fisher-Yates, and the hash-set variant for huge n), as in R's ``src/main/RNG.c`` and ``sample``."""

from __future__ import annotations

import math
import numbers
from array import array
from typing import Any

import numpy as np

from .._errors import fail
from .._messages import (
    SAMPLE_FIRST,
    SAMPLE_N_LENGTH,
    SAMPLE_REPLACE,
    SAMPLE_SIZE,
    SAMPLE_TOO_LARGE,
    VECTOR_SIZE_INFINITE,
    VECTOR_SIZE_NA,
    VECTOR_SIZE_TOO_LARGE,
)
from . import _stream
from ._stream import _INT_MAX, _N, _block_chunks, _ensure_init, _restore, _runif_raw, _snapshot, _unif_rand

# --------------------------------------------------------------------------------------
# Uniform integers: R_unif_index (sample.kind = "Rejection")
# --------------------------------------------------------------------------------------

def _index_bits(dn):
    """``(int) ceil(log2(dn))`` with the C library's ``log2`` (as R computes it)."""
    return int(math.ceil(math.log2(dn)))


def _unif_index(dn):
    """R's ``R_unif_index(dn)``: a uniform integer in ``[0, dn)``, returned as a float.

    Rejection sampling on ``bits = ceil(log2(dn))`` random bits built from 16-bit chunks
    ``floor(unif_rand() * 65536)`` (R's "Rejection" sample kind). ``dn <= 0`` gives 0 without a draw.
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
        fail(SAMPLE_FIRST)
    if not np.isscalar(n) and not isinstance(n, numbers.Number):
        arr = np.asarray(n)
        if arr.size != 1:
            fail(SAMPLE_N_LENGTH)
        n = arr.reshape(-1)[0]
    try:
        return float(n)
    except (TypeError, ValueError):
        fail(SAMPLE_FIRST)


def _as_vec_size(size):
    """R's ``asVecSize`` (truncation toward zero) with its error messages."""
    if isinstance(size, (str, bytes)):
        fail(SAMPLE_SIZE)
    if not np.isscalar(size) and not isinstance(size, numbers.Number):
        arr = np.asarray(size)
        if arr.size < 1:
            fail(SAMPLE_SIZE)
        size = arr.reshape(-1)[0]
    if isinstance(size, (bool, np.bool_)):
        return int(size)
    if isinstance(size, numbers.Integral):
        return int(size)
    try:
        d = float(size)
    except (TypeError, ValueError):
        fail(SAMPLE_SIZE)
    if math.isnan(d):
        fail(VECTOR_SIZE_NA)
    if math.isinf(d):
        fail(VECTOR_SIZE_INFINITE)
    if d > 4503599627370496.0:
        fail(VECTOR_SIZE_TOO_LARGE)
    return int(d)


def _as_replace(replace):
    if isinstance(replace, (bool, np.bool_)):
        return bool(replace)
    if isinstance(replace, numbers.Real) and not math.isnan(float(replace)):
        return float(replace) != 0
    fail(SAMPLE_REPLACE)


def _permutation(n, k):
    """``do_sample``'s partial Fisher-Yates: ``k`` draws without replacement from 1..n.

    Step ``t`` takes ``j = R_unif_index(m)`` for ``m = n - t``, outputs ``pool[j] + 1`` and
    moves ``pool[m - 1]`` into slot ``j``. ``R_unif_index`` is inlined: its 16-bit chunks
    are read straight from the current block (so the stream is consumed exactly as R
    does, including rejected attempts), one chunk per attempt while ``m <= 2^15``, two
    above.
    """
    pool = list(range(n)) if n <= 2_000_000 else array("q", range(n))
    out = [0] * k
    m = n
    bits = (m - 1).bit_length()  # == ceil(log2(m)) exactly for integer m <= 2^31
    half = 1 << (bits - 1) if bits > 0 else 0  # bits drops by one when m <= half
    mask = (1 << bits) - 1
    c = _block_chunks()
    i = _stream._mti
    t = 0
    try:
        while t < k and bits > 15:  # two chunks per attempt (2^15 < m <= 2^31)
            while True:
                if i >= _N:
                    _stream._mti = i
                    c = _block_chunks()
                    i = _stream._mti
                hi = c[i]
                i += 1
                if i >= _N:
                    _stream._mti = i
                    c = _block_chunks()
                    i = _stream._mti
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
                    _stream._mti = i
                    c = _block_chunks()
                    i = _stream._mti
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
        _stream._mti = i
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


def sample_int(n: float, size: float | None = None, replace: bool = False) -> np.ndarray:
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
    R's algorithm (``sample.int`` without ``prob``): with replacement or for ``size < 2`` each value is
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
        fail(SAMPLE_FIRST)
    if k < 0:
        fail(SAMPLE_SIZE)
    if not replace and k > dn:
        fail(SAMPLE_TOO_LARGE)
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


def sample(x: Any, size: float | None = None, replace: bool = False) -> Any:
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

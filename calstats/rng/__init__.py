"""R's global random-number generator, bit for bit (R's ``set.seed``, ``runif``, ``rnorm``, ``sample``).

probcal draws its cross-validation folds with R's ``sample()`` (and its examples simulate
data with ``runif``/``rnorm``), so calstats must reproduce R's stream exactly: the same
``set.seed(seed)`` must give the same fold ids, and a call that uses the *global* stream
(``seed = NULL``) must leave it where R leaves it. This module is that generator, with R's
default kinds ``RNGkind() == c("Mersenne-Twister", "Inversion", "Rejection")``.

Why not ``numpy.random``: NumPy's ``MT19937`` shares R's twist and tempering, but nothing
around it. R seeds the 624-word state with its own scrambled linear congruential
recurrence (``set.seed``: 50 rounds of ``69069*s + 1`` then 625 more),
where NumPy uses Matsumoto-Nishimura ``init_genrand``/``init_by_array`` or a
``SeedSequence``; R turns each 32-bit word into a double as ``y / 2^32`` with a fix-up away
from 0 and 1 (``unif_rand``), where NumPy builds 53-bit doubles from two words; and R's integer
sampling (``R_unif_index``: rejection on 16-bit chunks), permutations (``sample``: partial
Fisher-Yates) and normals (``rnorm``: inversion with AS 241 on two uniforms) are R's own
algorithms. So we implement the whole chain here; NumPy is only used to vectorise the twist, the tempering and the
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

The package is split by what it holds: :mod:`calstats.rng._stream` (the state, seeding, the
twist and ``unif_rand``), :mod:`calstats.rng._sample` (``R_unif_index``, ``sample``,
``sample.int``) and :mod:`calstats.rng._draws` (``runif``, ``rnorm``, ``qnorm``).
"""

# the public API, and the stream's helpers that other calstats modules draw with
from ._draws import _A, _B, _C, _D, _E, _F, _qnorm, rnorm, runif  # noqa: F401
from ._sample import _unif_index, _unif_index_many, sample, sample_int  # noqa: F401
from ._stream import (  # noqa: F401
                      RNGState,
                      _ensure_init,
                      _runif_raw,
                      _seeded,
                      _unif_rand,
                      get_state,
                      get_state_r,
                      set_seed,
                      set_state,
)

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

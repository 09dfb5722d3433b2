"""R's one-pass reductions in the compiled module ``_passes``.

R sums doubles in an 80-bit long double in index order (``sum``, ``mean``, ``rowSums``,
``colSums``) and its products in double in the reference BLAS order. NumPy reaches that
order only by widening whole arrays to long double (16 bytes per element, several
temporaries per pass); the C passes read each element once, float64 or float32 (widened
per element, exactly), with any strides, and split independent sums (rows, columns,
observations) over two threads. On x86-64 the C ``long double`` is NumPy's
``longdouble``, so a sequential accumulation gives the same bits.

The NumPy code in :mod:`calstats.numerics.reductions`, :mod:`calstats.evaluation.scores`
and :mod:`calstats.numerics.binomial` are the reference (:data:`BACKEND` = ``"numpy"``);
``tests/test_passes.py`` checks both give the same bits. The functions here trust their
callers for shapes; the callers pick the backend.

This module also finds the compiled modules (:func:`compiled_module`, :data:`COMPILED`). An
installation made without a C compiler has none of them and runs on its NumPy backend: the
reference implementations, the same numbers, slower; ``engine="fast"`` then runs R's
arithmetic. Importing calstats says so once (a :class:`~calstats.CalstatsWarning`). The
environment variable ``CALSTATS_BACKEND=numpy`` hides the compiled modules (the tests of the
NumPy backend use it).

Two words, two meanings: the *backend* (``"c"`` or ``"numpy"``) is where R's arithmetic
runs, with the same bits either way; the *engine* (the ``engine=`` argument and option,
``"r"`` or ``"fast"``) is which arithmetic a user asks for.
"""

import importlib
import os
from typing import Any

import numpy as np

from .. import _options
from .._errors import CalstatsWarning
from .._messages import NUMPY_ENGINE
from .._options import inner_threads

__all__ = [
    "BACKEND",
    "use_compiled",
    "float_array",
    "rsum",
    "rmean",
    "lane_sums",
    "dot",
    "crossprod",
    "score",
    "glm_working",
    "glm_update",
    "glm_sum",
    "glm_qrls",
    "dqrdc2",
    "qr_qty",
]


def compiled_module(name):
    """The compiled module ``calstats.numerics.<name>`` (``"_core"``, ``"_passes"``,
    ``"_loops"``, ``"_fast"``), or None when it was not built (or ``CALSTATS_BACKEND=numpy`` hides it)."""
    if os.environ.get("CALSTATS_BACKEND", "").strip().lower() == "numpy":
        return None
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ImportError:
        return None


_passes: Any = compiled_module("_passes")


def use_compiled(module, backend=None):
    """Whether a port's C-or-NumPy face runs the compiled ``module`` (a module from
    :func:`compiled_module`, None when not built): ``backend`` None takes it when it is built,
    ``"numpy"`` asks for the reference implementation, ``"c"`` for the compiled one (the
    reference where it is not built: the same bits). Each port decides once per call."""
    return module is not None and backend != "numpy"

#: Which compiled modules this installation has: R's core (``_core``: BFGS and the scaling
#: objectives), R's one-pass reductions (``_passes``), R's scalar loops (``_loops``: clowess,
#: pow) and the fast engine (``_fast``).
COMPILED = {"_core": compiled_module("_core") is not None, "_passes": _passes is not None,
            "_loops": compiled_module("_loops") is not None, "_fast": compiled_module("_fast") is not None}

#: Where R's reductions run (the backend): ``"c"``, the compiled passes, or ``"numpy"``, the reference
#: implementations (the tests' bit oracle; an installation without a C compiler); the same
#: bits either way.
BACKEND = "c" if COMPILED["_passes"] else "numpy"

if not COMPILED["_fast"]:
    _options.drop_engine("fast")


def _importer_stacklevel():
    """Stack level of the first frame outside calstats and the import machinery (the
    user's ``import calstats``)."""
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    level, frame = 1, sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if "importlib" not in name:  # warnings itself skips the import machinery's frames
            if not os.path.abspath(name).startswith(package):
                return level
            level += 1
        frame = frame.f_back
    return level


if not all(COMPILED.values()):
    import warnings

    warnings.warn(NUMPY_ENGINE.format(missing=", ".join(f"calstats.numerics.{m}" for m, ok in COMPILED.items()
                                                               if not ok)),
                  CalstatsWarning, stacklevel=_importer_stacklevel())

_F8 = np.dtype(np.float64)
_F4 = np.dtype(np.float32)
#: elements below which a pass runs on one thread (a thread costs more than it saves)
_PAR_MIN = 32768


def _threads(work):
    return inner_threads() if work >= _PAR_MIN else 1


def float_array(x):
    """``x`` as a native float64 or float32 array without a copy when it already is one
    (any strides), else converted to float64; 0-d and >2-d arrays are raveled (C order)."""
    a = x if type(x) is np.ndarray else np.asarray(x)
    if a.dtype != _F8 and a.dtype != _F4:
        a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0 or a.ndim > 2:
        a = a.reshape(-1)
    return a


def rsum(x):
    """R ``sum()`` of a float array (``float_array``), in row-major order."""
    return _passes.rsum(x)


def rmean(x):
    """R ``mean()`` of a non-empty float array (``float_array``), in row-major order."""
    return _passes.rmean(x)


def lane_sums(m, axis):
    """``rowSums`` (``axis=1``) or ``colSums`` (``axis=0``) of a 2-D float array."""
    out = np.empty(m.shape[0] if axis else m.shape[1])
    _passes.lane_sums(m, int(axis), out, _threads(m.size))
    return out


def dot(a, b):
    """Sequential double ``sum_i a_i b_i`` from 0 of two float vectors of one length."""
    return _passes.dot(a, b)


def crossprod(a, b):
    """``t(a) %*% b`` in the reference ``dgemm`` order for 2-D float arrays."""
    out = np.empty((a.shape[1], b.shape[1]))
    _passes.crossprod(a, b, out, _threads(a.shape[0] * a.shape[1] * b.shape[1]))
    return out


#: score kinds of ``_passes.score``
BRIER_BINARY, BRIER_MATRIX, LOGLIK_BINARY, LOGLIK_MATRIX = 0, 1, 2, 3


def score(kind, p, y, w=None):
    """One pass of a metric: the (weighted) mean of the Brier terms or of the clipped
    log-likelihood terms. ``p`` a float vector or matrix, ``y`` float64 0/1 labels (vector)
    or int64 1-based classes (matrix), ``w`` float64 weights or None."""
    yy = np.ascontiguousarray(y, dtype=np.int64 if kind in (BRIER_MATRIX, LOGLIK_MATRIX) else np.float64)
    ww = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
    work = p.size * (1 if kind in (BRIER_BINARY, BRIER_MATRIX) else 8)
    return _passes.score(kind, p, yy, ww, _threads(work))


def _vec(x):
    return np.ascontiguousarray(x, dtype=np.float64)


def glm_working(eta, mu, ex, y, offset, weights):
    """``(z, w, mu_eta)`` of one IRLS step: the working response, the square roots of the
    working weights and ``logit_mu_eta(eta)``; ``ex`` is :func:`glm_update`'s ``exp(eta)``
    (or None: computed here)."""
    n = eta.size
    z, w, mev = np.empty(n), np.empty(n), np.empty(n)
    _passes.glm_working(_vec(eta), _vec(mu), None if ex is None else _vec(ex), _vec(y),
                        None if offset is None else _vec(offset), None if weights is None else _vec(weights),
                        z, w, mev, _threads(8 * n))
    return z, w, mev


def glm_update(X, beta, offset, y, weights):
    """``(eta, mu, ex, dev)``: ``eta = X %*% beta (+ offset)`` in ``dgemv`` order,
    ``mu = linkinv(eta)``, ``ex = exp(eta)`` where linkinv evaluates it, and R's
    ``sum(dev.resids(y, mu, weights))``, in one pass."""
    n = X.shape[0]
    eta, mu, ex = np.empty(n), np.empty(n), np.empty(n)
    dev = _passes.glm_update(X, _vec(beta), None if offset is None else _vec(offset), _vec(y),
                             None if weights is None else _vec(weights), eta, mu, ex, _threads(8 * n))
    return eta, mu, ex, dev


def glm_sum(kind, y, mu, weights=None):
    """R ``sum()`` of the binomial deviance residuals (``kind=0``) or of
    ``dbinom(round(y), 1, mu, log = TRUE)`` (``kind=1``)."""
    y = _vec(y)
    return _passes.glm_sum(int(kind), y, _vec(mu), None if weights is None else _vec(weights),
                           _threads(8 * y.size))


def glm_qrls(X, w, z, tol):
    """R's ``Cdqrls(X * w, z * w, tol)``: ``(coef, rank, pivot, qr, qraux)`` with ``qr``
    Fortran-ordered and ``coef`` in pivoted order (0 past the rank)."""
    n, p = X.shape
    qr = np.empty((n, p), order="F")
    qraux, pivot, coef = np.empty(p), np.empty(p, dtype=np.int64), np.empty(p)
    rank = _passes.glm_qrls(X, _vec(w), _vec(z), float(tol), qr, qraux, pivot, coef)
    return coef, rank, pivot, qr, qraux


def dqrdc2(x, tol):
    """LINPACK ``dqrdc2`` of a copy of ``x``: ``(qr, rank, qraux, pivot)``."""
    qr = np.array(x, dtype=np.float64, order="F", copy=True)
    n, p = qr.shape
    qraux, pivot = np.empty(p), np.empty(p, dtype=np.int64)
    rank = _passes.dqrdc2(qr, n, p, float(tol), qraux, pivot)
    return qr, rank, qraux, pivot


def qr_qty(qr, qraux, rank, y):
    """``Q'y`` of a ``dqrdc2`` factorisation for each column of the 2-D ``y`` (a new array)."""
    qr = np.asarray(qr, dtype=np.float64, order="F")
    n, p = qr.shape
    out = np.array(y, dtype=np.float64, order="F", copy=True)
    _passes.qr_qty(qr, n, p, _vec(qraux), int(rank), out, out.shape[1])
    return out

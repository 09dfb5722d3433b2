"""Probabilities, logits and log-losses with R's arithmetic (probcal's internal helpers).

Sums and means go through :mod:`calstats.numerics.reductions` and ``exp``/``log`` through
:mod:`calstats.numerics.libm`, so the results are R's to the last bit.
"""

import numpy as np
import pandas as pd

from .._validate import check_numeric
from ..numerics import libm
from ..numerics.reductions import ld_sum_axis0, rmean, row_sums, rsum

__all__ = [
    "inv_logit",
    "inv_logit_checked",
    "softmax",
    "softmax_t",
    "one_hot",
    "pick",
    "multiclass_log_loss",
    "clip_loss_prob",
    "prob_frame",
    "renormalize_rows",
    "binary_log_loss",
    "probs_to_logits",
    "logits_to_probs",
]

LOSS_EPS = 1e-15


def inv_logit(x):
    """``1 / (1 + exp(-x))`` (R ``plogis``), elementwise."""
    return 1.0 / (1.0 + libm.exp(-np.asarray(x, dtype=np.float64)))


def inv_logit_checked(eta):
    """probcal's ``inv_logit`` on a linear predictor, *with* its check of ``x`` (a finite
    numeric vector without missing values): a NaN (aliased) coefficient or an overflow fails
    with the message naming `x`, as in R."""
    return inv_logit(check_numeric(eta, "x"))


def softmax(z):
    """Row-wise softmax: subtract the row maximum, exponentiate, divide by ``rowSums``."""
    return softmax_t(np.asarray(z, dtype=np.float64).T).T


def softmax_t(zt):
    """:func:`softmax` in class-major layout: ``zt`` is classes x observations."""
    zt = np.asarray(zt, dtype=np.float64)
    e = libm.exp(zt - zt.max(axis=0))
    return e / ld_sum_axis0(e)


def one_hot(codes, k):
    """n x k indicator matrix with a 1 at ``[i, codes[i] - 1]`` (codes 1-based)."""
    codes = np.asarray(codes, dtype=np.int64)
    out = np.zeros((codes.size, k))
    out[np.arange(codes.size), codes - 1] = 1.0
    return out


def pick(p, codes):
    """``p[cbind(1:n, codes)]``: the probability of each observation's class."""
    codes = np.asarray(codes, dtype=np.int64)
    return p[np.arange(codes.size), codes - 1]


def clip_loss_prob(v):
    """Clip probabilities entering a logarithm to ``[1e-15, 1 - 1e-15]``."""
    return np.minimum(np.maximum(v, LOSS_EPS), 1.0 - LOSS_EPS)


def multiclass_log_loss(p, codes):
    """Mean negative log-likelihood of the true classes (clipped at 1e-15)."""
    return -rmean(libm.log(clip_loss_prob(pick(p, codes))))


def prob_frame(values, levels, like=None):
    """Predictions as a DataFrame: columns are the class levels; the index is that of
    ``like`` when it is a pandas object, else a RangeIndex."""
    index = like.index if isinstance(like, (pd.DataFrame, pd.Series)) else None
    return pd.DataFrame(np.asarray(values, dtype=np.float64), columns=list(levels), index=index)


def renormalize_rows(m):
    """Divide each row by its sum; rows summing to 0 (or not finite) become uniform."""
    m = np.array(m, dtype=np.float64)
    s = row_sums(m)
    bad = ~np.isfinite(s) | (s == 0)
    if bad.any():
        m[bad] = 1.0 / m.shape[1]
        s = np.where(bad, 1.0, s)
    return m / s[:, None]


def binary_log_loss(p, y, w=None):
    """Summed negative log-likelihood of 0/1 labels (clipped at 1e-15): a **sum**, not a mean.

    ``-sum(y * log(p*) + (1 - y) * log1p(-p*))`` with ``p*`` clipped to
    ``[1e-15, 1 - 1e-15]``, R's long-double ``sum``; a missing label gives NaN.
    """
    q = clip_loss_prob(np.asarray(p, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64)
    if w is not None:  # case weights: each term counted w_i times
        return -rsum(w * (y * libm.log(q) + (1.0 - y) * libm.log1p(-q)))
    return -rsum(y * libm.log(q) + (1.0 - y) * libm.log1p(-q))


def probs_to_logits(x):
    """Logit-scale scores of probabilities, for calibrators fitted on logits: a vector gives
    ``log(q / (1 - q))`` and a matrix ``log(q)``, with ``q`` clipped at 1e-15."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        q = clip_loss_prob(x)
        return libm.log(q) - libm.log1p(-q)
    return libm.log(np.maximum(x, LOSS_EPS))


def logits_to_probs(z):
    """Probabilities of logit-scale scores: ``inv_logit`` for a vector, ``softmax`` by row."""
    z = np.asarray(z, dtype=np.float64)
    return inv_logit(z) if z.ndim == 1 else softmax(z)

"""Fixed-seed synthetic data for the benchmarks: miscalibrated models with known truth."""

import numpy as np


def multiclass_case(n, k, seed=0, fit_labels=True):
    """Overconfident softmax outputs of random logits; labels from the tempered truth.

    Returns ``(p, y), (p_test, y_test)`` with 0-based labels and n rows in each half.
    """
    rs = np.random.default_rng(seed + 1000 * k)
    logits = rs.normal(size=(2 * n, k)) * 2.0
    true = np.exp(logits / 1.7)
    true /= true.sum(axis=1, keepdims=True)
    u = rs.random(2 * n)[:, None]
    y = (true.cumsum(axis=1) < u).sum(axis=1).clip(max=k - 1)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return (p[:n], y[:n]), (p[n:], y[n:])


def binary_case(n, seed=0):
    """Scores ``s`` of a miscalibrated binary model (true P(y=1) = inv_logit(0.6 s - 0.3))."""
    rs = np.random.default_rng(seed)
    s = rs.normal(size=2 * n) * 2
    y = (rs.random(2 * n) < 1 / (1 + np.exp(-(0.6 * s - 0.3)))).astype(int)
    return (s[:n], y[:n]), (s[n:], y[n:])


#: Seed of the deep-network data (:func:`deep_logits`), shared with ``bench_deep.py``.
DEEP_SEED = 20250101


def deep_logits(n, k, seed=DEEP_SEED):
    """``(Z, y)``: ``n x k`` N(0, 9) logits and 0-based labels drawn from ``softmax(Z / 2)``.

    An over-confident network whose temperature is about 2, at deep-network scale
    (the runner's ``deep`` group and ``benchmarks/bench_deep.py``: n = 50 000, K = 1 000).
    """
    rng = np.random.default_rng(seed)
    Z = rng.normal(0.0, 3.0, size=(n, k))
    E = np.exp(Z / 2 - (Z / 2).max(axis=1, keepdims=True))
    C = np.cumsum(E, axis=1)
    u = rng.random(n) * C[:, -1]
    y = np.minimum((C < u[:, None]).sum(axis=1), k - 1)
    return Z, y.astype(np.int64)


def deep_case(n, k, seed=DEEP_SEED):
    """``(Z, y), (Z_test, y_test)``: :func:`deep_logits` with ``seed`` (the rows
    ``bench_deep.py`` times) and n held-out rows from the same model with ``seed + 1``."""
    return deep_logits(n, k, seed), deep_logits(n, k, seed + 1)

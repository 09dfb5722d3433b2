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

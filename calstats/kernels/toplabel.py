"""The top label of a probability matrix: its confidence and whether it is right."""

import numpy as np

from ..numerics._scan import top_label_rows

__all__ = ["top_label", "correct"]


def top_label(p, codes):
    """Top-label confidence and correctness of a probability matrix.

    The predicted class is the first column attaining the row maximum (R
    ``max.col(p, ties.method = "first")``, with exact comparisons); returns
    ``r = p[i, pred_i]`` (float64) and ``c = 1{pred_i == code_i}`` (int64; ``codes`` 1-based).
    A C-ordered float64 matrix is read once by the C core, anything else by NumPy's argmax
    (:mod:`calstats.numerics._scan`, the same answer).
    """
    r, pred = top_label_rows(p)
    return r, correct(pred, codes)


def correct(pred, codes):
    """``1{pred_i == code_i}`` as int64, both 1-based."""
    return (pred == np.asarray(codes)).astype(np.int64)

"""Everything ``calstats assess`` reports that is a sum over rows, in one pass over Dask data.

Calling ``ece``, ``mce``, ``ace``, ``brier_score``, ... one after another reads the data
once per call; :func:`assess_pass` reads every block once and returns all of them, from the
same per-block statistics as :mod:`calstats.dask._metrics` (so the same numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _validate as v
from ..kernels.bins import equal_width_breaks
from . import _exact as X
from ._inputs import blocks, compute, expected_levels, merged_levels
from ._metrics import _binned_block, _mean, _merge_bins, _score_block, _spiegelhalter_block, _stats, _summary_block


@dataclass
class AssessStats:
    """The merged statistics of one pass (see :func:`assess_pass`)."""

    n: int
    binary: bool
    levels: list | None
    binned: dict  # form -> list of BinStats ("vector", or "classwise" and "confidence")
    brier: float
    log_loss: float
    mean_confidence: float
    accuracy: float
    spiegelhalter: object  # (n, the four sums, "two-sided", "confidence"), or the CalstatsError raised
    classes_present: int


def _block(pb, yb, matrix, levels, nbins):
    forms = ("classwise", "confidence") if matrix else ("vector",)
    edges = equal_width_breaks(nbins)
    binned = {f: _binned_block(pb, yb, matrix, levels, edges, f) for f in forms}
    first = binned[forms[0]]
    if first is None:
        return None
    scores = {w: _score_block(pb, yb, matrix, levels, w) for w in ("brier", "log")}
    summary = _summary_block(pb, yb, matrix, levels)
    spieg = _spiegelhalter_block(pb, yb, matrix, levels, None)
    if matrix:
        from ._inputs import block_matrix

        codes = block_matrix(pb, yb, levels)[1]
        present = np.bincount(codes, minlength=len(first[1]) + 1)[1:] > 0
    else:
        y = np.asarray(_score_labels(pb, yb, levels))
        present = np.array([(y == 0).any(), (y == 1).any()])
    return {f: b[0] for f, b in binned.items()}, scores, summary, spieg, present, first[1]


def _score_labels(pb, yb, levels):
    from ._inputs import block_vector

    return block_vector(pb, yb, levels)[1]


def assess_pass(p, y, bins=10) -> AssessStats:
    """ECE/MCE/ACE bins (classwise and confidence, or binary), Brier, log-loss, mean
    confidence and accuracy, and the sums of Spiegelhalter's test, from one pass over the
    blocks."""
    from .._errors import CalstatsError

    bl = blocks(p, y)
    nbins = v.check_bins(bins)
    results = [r for r in compute(_block, bl, bl.matrix, bl.levels, nbins) if r is not None]
    if not results:
        v.fail_empty("p")
    if bl.matrix:
        merged_levels([r[-1] for r in results], bl.ncol)
    forms = list(results[0][0])
    binned: dict[str, list] = {}
    for f in forms:
        shaped = [(r[0][f], None) for r in results]
        binned[f] = []
        for j in range(len(results[0][0][f])):
            counts, ysum, hi, lo = _merge_bins(shaped, j, nbins)
            binned[f].append(_stats(counts, ysum, hi, lo, equal_width_breaks(nbins)))
    n = sum(r[2][0] for r in results)
    means = {}
    for w in ("brier", "log"):
        hi, lo = X.binned_total([r[1][w][1].reshape(-1, 1) for r in results], 1)
        means[w] = _mean(hi[0], lo[0], n)
    conf = X.total([r[2][1] for r in results]) / n
    acc = sum(r[2][2] for r in results) / n
    spieg: object
    try:
        if n < 2:
            v.fail_two_observations()
        sums = tuple(X.total([r[3][i] for r in results]) for i in (1, 2, 3, 4))
        spieg = (n, *sums, "two-sided", "confidence")
    except CalstatsError as exc:
        spieg = exc
    present = int(np.logical_or.reduce([r[4] for r in results]).sum())
    return AssessStats(n, not bl.matrix, expected_levels(bl) if bl.matrix else None, binned, means["brier"],
                       -means["log"], conf, acc, spieg, present)

"""Bootstrap replicates of the calibration metrics from resample counts (for ``cal_ci``).

A resample ``idx = sample.int(n, n, replace = TRUE)`` equals the original rows with
multiplicities ``c_i = #{t : idx_t = i}``. Every metric of ``cal_ci`` is a function of a
few count-weighted sums, so a replicate needs O(n) work and no re-sorting or re-binning:

* ``ece``/``mce``/``ace``/debiased ECE: per bin ``n_b = sum c_i``, ``sum c_i r_i``,
  ``sum c_i y_i`` (bins computed once; rows grouped by bin once);
* ``mmce`` and the scalar ``skce``: ``Q(c o e) = 2 L(c o e) + sum c_i^2 e_i^2`` with the
  sorted prefix-sum engine :func:`calstats.kernels.pairwise.lap_pair_sums` (one sort for all);
  ``"ul"`` from the resampled order directly;
* canonical ``skce``: blocked ``sum_{i<j} c_i c_j h_ij`` for all replicates of a chunk.

Replicate values equal recomputation on ``p[idx], y[idx]`` up to rounding (tested).
"""

import numpy as np

from ..kernels import pairwise as K
from ..kernels.bins import equal_width_breaks, find_bins

__all__ = ["run_replicates", "counts_matrix"]


def counts_matrix(idx, n):
    """``C[b, i] = #{t : idx[b, t] == i}`` for a (B, n) array of 0-based indices."""
    nb = idx.shape[0]
    flat = (idx + (np.arange(nb, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=nb * n).reshape(nb, n).astype(np.float64)


class _Binned:
    """ece / mce / ace / debiased ECE of one or several (r, c) problems."""

    def __init__(self, problems, bins, kind, classwise):
        self.kind = kind
        self.classwise = classwise
        breaks = equal_width_breaks(bins)
        self.parts = []
        for r, c in problems:
            b = find_bins(r, breaks) - 1
            order = np.argsort(b, kind="stable")
            bs = b[order]
            starts = np.flatnonzero(np.r_[True, bs[1:] != bs[:-1]])
            self.parts.append((order, starts, r[order], np.asarray(c, dtype=np.float64)[order]))

    def _one(self, cmat, part, n):
        order, starts, rs, cs = part
        w = cmat[:, order]
        nb = np.add.reduceat(w, starts, axis=1)
        sr = np.add.reduceat(w * rs, starts, axis=1)
        sy = np.add.reduceat(w * cs, starts, axis=1)
        full = nb > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            conf = sr / nb
            acc = sy / nb
            gap = np.abs(acc - conf)
            if self.kind == "ece":
                return np.where(full, nb / n * gap, 0.0).sum(axis=1)
            if self.kind == "mce":
                return np.where(full, gap, -np.inf).max(axis=1)
            if self.kind == "ace":
                return np.where(full, gap, 0.0).sum(axis=1) / full.sum(axis=1)
            two = nb >= 2
            terms = nb / n * ((acc - conf) ** 2 - acc * (1.0 - acc) / (nb - 1.0))
            return np.where(two, terms, 0.0).sum(axis=1)

    def __call__(self, cmat, idx, n):
        vals = np.array([self._one(cmat, part, n) for part in self.parts])
        if not self.classwise:
            return vals[0]
        return vals.max(axis=0) if self.kind == "mce" else vals.mean(axis=0)


class _Laplace:
    """mmce and the scalar / classwise skce."""

    def __init__(self, problems, estimator, kind):
        self.estimator = estimator
        self.kind = kind
        self.parts = []
        for r, e, nu in problems:
            order = np.argsort(r, kind="stable")
            self.parts.append((r, e, nu, order, r[order], e[order], e * e))

    def _one(self, cmat, idx, part, n):
        r, e, nu, order, xs, es, e2 = part
        if self.estimator == "ul":
            m = n // 2
            return K.pair_terms_scalar(r, e, nu, idx[:, 0:2 * m:2], idx[:, 1:2 * m:2]).mean(axis=1)
        a = np.ascontiguousarray((cmat[:, order] * es).T)
        off = K.lap_pair_sums(xs, a, nu)
        s2 = (cmat * cmat) @ e2
        if self.estimator == "uq":
            return (2.0 * off + s2 - cmat @ e2) / (float(n) * (n - 1))
        biased = (2.0 * off + s2) / (float(n) * n)
        if self.kind == "mmce":
            return np.sqrt(np.maximum(biased, 0.0))
        return biased

    def __call__(self, cmat, idx, n):
        vals = np.array([self._one(cmat, idx, part, n) for part in self.parts])
        return vals.mean(axis=0)


class _Canonical:
    """The canonical (matrix-kernel) skce."""

    def __init__(self, p, e, nu, estimator):
        self.p, self.e, self.nu, self.estimator = p, e, nu, estimator
        self.hh = np.einsum("ik,ik->i", e, e)

    def __call__(self, cmat, idx, n):
        if self.estimator == "ul":
            m = n // 2
            return K.pair_terms_canonical(self.p, self.e, self.nu, idx[:, 0:2 * m:2], idx[:, 1:2 * m:2]).mean(axis=1)
        off = K.canonical_sums(self.p, self.e, self.nu, weights=np.ascontiguousarray(cmat.T))
        s2 = (cmat * cmat) @ self.hh
        if self.estimator == "uq":
            return (2.0 * off + s2 - cmat @ self.hh) / (float(n) * (n - 1))
        return (2.0 * off + s2) / (float(n) * n)


def _engine(prob, spec):
    kind = spec["metric"]
    if kind in ("ece", "mce", "ace", "ece_debiased"):
        if prob.form == "classwise":
            problems = [(prob.p[:, j], (prob.codes == j + 1).astype(np.float64)) for j in range(prob.p.shape[1])]
        else:
            problems = [(prob.r, prob.c)]
        return _Binned(problems, spec["bins"], kind, prob.form == "classwise"), False
    nu = spec["nu"]
    if prob.form == "canonical":
        return _Canonical(prob.p, prob.e, nu, spec["estimator"]), True
    if prob.form == "classwise":
        problems = [(r, e, h) for (r, e), h in zip(prob.cols, nu)]
    else:
        problems = [(prob.r, prob.e, nu)]
    return _Laplace(problems, spec["estimator"], kind), False


def run_replicates(prob, spec, n_boot, direct, bar=None):
    """``n_boot`` replicate values; replicate b uses ``sample.int(n, n, TRUE)`` drawn from
    R's stream in replicate order (chunks of replicates are drawn in one call, which
    consumes the stream exactly as successive calls). ``direct(idx)`` recomputes one
    replicate from its 0-based indices; it is used when a logical label is missing."""
    n = prob.n
    out = np.empty(n_boot)
    missing = prob.c is not None and np.isnan(np.asarray(prob.c, dtype=np.float64)).any()
    engine, quadratic = (None, False) if missing else _engine(prob, spec)
    budget = (1 << 23) if quadratic else (1 << 22)
    chunk = max(1, min(n_boot, budget // max(n, 1)))
    for b0 in range(0, n_boot, chunk):
        bc = min(chunk, n_boot - b0)
        idx = K.unif_index(n, n * bc).reshape(bc, n)
        if missing:
            out[b0:b0 + bc] = [direct(row) for row in idx]
        else:
            out[b0:b0 + bc] = engine(counts_matrix(idx, n), idx, n)
        if bar is not None:
            bar.update(bc)
    return out

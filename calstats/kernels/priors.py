"""Prior (label) shift kernels: Bayes' rule for new class priors and the EM of Saerens,
Latinne and Decaestecker (2002). Arrays in, numbers out; the checks and the result object
live in :mod:`calstats.calibrators.priors`.
"""

import numpy as np

from ..numerics import libm
from ..numerics.reductions import col_sums, row_sums, rsum

__all__ = ["bayes_adjust", "em_priors"]


def bayes_adjust(P, ratio):
    """Rows of ``P * ratio`` renormalised to sum to one (``p'_k ∝ p_k new_k / train_k``).

    Also returns each row's denominator ``sum_k p_k ratio_k`` (the likelihood ratio of the
    row under the new priors, for rows of ``P`` summing to one)."""
    q = P * ratio[None, :]
    d = row_sums(q)
    return q / d[:, None], d


def em_priors(P, train, tol, maxit):
    """Saerens et al.'s EM for the class priors of the unlabelled rows of ``P``.

    Starting from ``pi = train``, iterate ``pi <- colMeans(bayes_adjust(P, pi / train))``
    until the largest absolute change is below ``tol`` or ``maxit`` updates were made.

    Returns ``(pi, iterations, converged, change, trace)``: the last priors, the number of
    updates, whether the stopping rule was met, the last largest change and the
    log-likelihood ``sum_i log(sum_k P_ik pi_k / train_k) - sum_i log(sum_k P_ik)`` at
    the start and after every update (0 at the start; the EM never decreases it).
    """
    n = P.shape[0]
    base = rsum(libm.log(row_sums(P)))
    pi = np.array(train, dtype=np.float64)
    trace = [0.0]
    converged = False
    change = np.inf
    it = 0
    q, d = bayes_adjust(P, pi / train)
    while it < maxit:
        new = col_sums(q) / n
        new = new / new.sum()
        change = float(np.max(np.abs(new - pi)))
        pi = new
        it += 1
        q, d = bayes_adjust(P, pi / train)
        trace.append(rsum(libm.log(d)) - base)
        if change < tol:
            converged = True
            break
    return pi, it, converged, change, np.asarray(trace)

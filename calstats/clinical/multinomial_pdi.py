"""The polytomous discrimination index (PDI) of Van Calster et al. (2012).

Van Calster B, Van Belle V, Vergouwe Y, Timmerman D, Van Huffel S, Steyerberg EW (2012).
Extending the c-statistic to nominal polytomous outcomes: the Polytomous Discrimination
Index. Stat Med 31:2610-2626.
"""

import numpy as np
import pandas as pd

__all__ = ["pdi_exact"]


def pdi_exact(P, codes, names):
    """PDI and its class components from an n x K probability matrix and 0-based classes.

    For class k, ``PDI_k`` is the share of the K-tuples (one row from every class) in which
    the row of class k has the largest ``p_k`` of the tuple; a tie at the top shared with
    ``t`` others counts ``1/(t + 1)``. ``PDI`` is the mean of the ``PDI_k``.

    Every tuple is counted, without enumerating them: for a row ``i`` of class k with
    ``L_j`` rows of class j below it and ``E_j`` tied with it (on ``p_k``), its credit summed
    over the tuples containing it is ``integral_0^1 prod_j (L_j + x E_j) dx`` (the term
    of ``x^t`` collects the tuples with t ties, and ``integral x^t = 1/(t + 1)``). The
    counts come from sorting each class once per column: O(K^2 n log n).

    Returns
    -------
    (float, pandas.Series)
        The PDI and ``PDI_k`` indexed by the class names.
    """
    k = P.shape[1]
    sizes = np.array([np.sum(codes == j) for j in range(k)], dtype=np.float64)
    comps = np.empty(k)
    for c in range(k):
        score = P[:, c]
        mine = score[codes == c]
        poly = np.ones((mine.size, 1))  # coefficients of x^0, x^1, ... for each row
        for j in range(k):
            if j == c:
                continue
            other = np.sort(score[codes == j])
            below = np.searchsorted(other, mine, side="left").astype(np.float64)
            tied = np.searchsorted(other, mine, side="right") - below
            nxt = np.zeros((mine.size, poly.shape[1] + 1))
            nxt[:, :-1] += poly * below[:, None]
            nxt[:, 1:] += poly * tied[:, None]
            poly = nxt
        credit = poly @ (1.0 / np.arange(1, poly.shape[1] + 1))
        comps[c] = np.sum(credit) / np.prod(sizes)
    return float(np.mean(comps)), pd.Series(comps, index=list(names), name="PDI")

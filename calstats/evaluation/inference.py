"""Calibration inference: ``skce``, ``cal_test``, ``cal_ci`` and the debiased ECE
(probcal 0.2.0's "calibration-inference layer").

* :func:`skce` -- squared kernel calibration error of Widmann, Lindsten & Zachariah (2019,
  "Calibration tests in multi-class classification: a unifying framework", NeurIPS),
  estimators ``"uq"`` (U-statistic, their eq. for SKCE_uq), ``"ul"`` (linear-time,
  SKCE_ul) and ``"biased"`` (V-statistic, SKCE_b), with a Laplacian kernel.
* :func:`cal_test` -- the kernel calibration test of H0 "the model is calibrated": a wild
  bootstrap of SKCE_uq (Widmann et al., Theorem G.2 setting) or the asymptotic normal
  test of SKCE_ul (their Lemma 3).
* ``cal_ci`` -- bootstrap intervals for ``ece``, ``skce``, ``mmce``, ``mce``, ``ace``: in
  :mod:`calstats.evaluation.intervals`, which builds on this module.
* the debiased squared ECE of Kumar, Liang & Ma (2019, "Verified uncertainty calibration",
  NeurIPS), what ``ece(..., debiased=True)`` returns, is a binned metric:
  :func:`calstats.evaluation.metrics.ece_debiased`.

The exact fast algorithms (sorted prefix sums for the Laplacian kernel, blocked sums for the
canonical form, bootstrap replicates from resample counts) live in :mod:`calstats.kernels.pairwise`
and :mod:`calstats.evaluation._bootstrap`; random draws come from R's stream :mod:`calstats.rng`.
"""

import math

import numpy as np
from scipy.special import ndtr

from .. import rng
from .._inputs import refuse_misnamed_columns
from .._progress import progress_bar
from .._typing import Labels, Scores, Weights
from .._validate import (
    check_asymptotic_rows,
    check_bandwidth,
    check_bins,
    check_median_bandwidth,
    check_multiclass_y,
    check_nobs,
    check_prob_and_labels,
    check_prob_matrix,
    check_same_length,
    fail_estimator_two_observations,
    fail_zero_variance_pairs,
    is_matrix,
    match_arg,
    refuse_classwise_test,
    refuse_dask_cal_test,
    refuse_weighted_median_bandwidth,
    refuse_weights,
)
from .._weights import check_weights
from ..dask import on_dask
from ..kernels import pairwise as K
from ..kernels.choices import SKCE_ESTIMATORS, SKCE_TYPES
from ..kernels.probs import one_hot
from ..kernels.toplabel import top_label
from ..numerics.reductions import rmean, rsum
from .htest import HTest

__all__ = ["skce", "cal_test"]

ESTIMATORS = SKCE_ESTIMATORS
TYPES = SKCE_TYPES
METHODS = ("bootstrap", "asymptotic")


# --------------------------------------------------------------------------------------
# the prepared problem: binary, top-label confidence, canonical or classwise


class _Problem:
    """Validated data reduced to scores and residuals for the kernel estimators.

    ``form`` is ``"binary"`` (``r`` = p, ``e`` = y - p), ``"confidence"`` (``r`` the
    top-label confidence, ``e`` = c - r with ``c`` its correctness), ``"canonical"``
    (``p``, ``e`` = onehot - P, ``codes``) or ``"classwise"`` (``cols``: list of (r, e), one
    one-vs-rest problem per class).
    """

    def __init__(self, form, n, **parts):
        self.form = form
        self.n = n
        self.r = parts.get("r")
        self.c = parts.get("c")
        self.e = parts.get("e")
        self.p = parts.get("p")
        self.codes = parts.get("codes")
        self.cols = parts.get("cols")

    @property
    def scalar(self):
        return self.form in ("binary", "confidence")


def _prepare(p, y, type):
    """The data checks of ``skce`` that follow ``bandwidth``/``estimator``, in R's order: matrix ``p``: the
    probability matrix, ``match.arg(type)``, the class labels, then as many labels as rows (classwise: as
    ``ece(type = "classwise")``, equal lengths per column); vector ``p``: probabilities, 0/1 labels,
    equal lengths."""
    if is_matrix(p):
        pm = check_prob_matrix(p, "p")
        type = match_arg(type, TYPES)
        codes, _levels, k = check_multiclass_y(y, pm.shape[1])
        refuse_misnamed_columns(p, y)
        n = pm.shape[0]
        if type == "classwise":
            # like ece(type = "classwise"): a row-count mismatch fails a column's equal-length check
            check_same_length("p", "y", n, codes.size)
            cols = [(pm[:, j], (codes == j + 1).astype(np.float64) - pm[:, j]) for j in range(k)]
            return _Problem("classwise", n, cols=cols, p=pm, codes=codes)
        check_nobs("p", "y", n, codes.size)
        if type == "confidence":
            r, c = top_label(pm, codes)
            return _Problem("confidence", n, r=r, c=c, e=c - r, p=pm, codes=codes)
        return _Problem("canonical", n, p=pm, e=one_hot(codes, k) - pm, codes=codes)
    r, c = check_prob_and_labels(p, y)
    return _Problem("binary", r.size, r=r, c=c, e=np.asarray(c, dtype=np.float64) - r)


def _check_n(n, estimator):
    if n < 2 and estimator in ("uq", "ul"):
        fail_estimator_two_observations(estimator)


def _resolve_bandwidth(bw, prob):
    """The number ν (a list per column for classwise): ``bw`` or the median heuristic
    (R's median of the distances over the distinct pairs i < j)."""
    if bw != "median":
        return [bw] * len(prob.cols) if prob.form == "classwise" else bw
    if prob.form == "classwise":
        return [check_median_bandwidth(K.median_pairwise_1d(r)) for r, _e in prob.cols]
    if prob.form == "canonical":
        return check_median_bandwidth(K.median_tv(prob.p))
    return check_median_bandwidth(K.median_pairwise_1d(prob.r))


# --------------------------------------------------------------------------------------
# estimators: SKCE_b (biased), SKCE_uq (U-statistic), SKCE_ul (linear)


def _ul_terms(prob, nu):
    """The m = floor(n/2) consecutive-pair terms ``d_i = h_{2i-1, 2i}`` (row order)."""
    m = prob.n // 2
    first = 2 * np.arange(m)
    if prob.form == "canonical":
        return K.pair_terms_canonical(prob.p, prob.e, nu, first, first + 1)
    return K.pair_terms_scalar(prob.r, prob.e, nu, first, first + 1)


def _scalar_estimate(r, e, nu, estimator):
    n = r.size
    if estimator == "ul":
        m = n // 2
        first = 2 * np.arange(m)
        return rmean(K.pair_terms_scalar(r, e, nu, first, first + 1))
    order = np.argsort(r, kind="stable")
    off = K.lap_pair_sums(r[order], e[order], nu)
    if estimator == "uq":
        return 2.0 * off / (float(n) * (n - 1))
    return (2.0 * off + math.fsum((e * e).tolist())) / (float(n) * n)


def _estimate(prob, nu, estimator):
    if prob.form == "classwise":
        return rmean([_scalar_estimate(r, e, h, estimator) for (r, e), h in zip(prob.cols, nu)])
    if prob.scalar:
        return _scalar_estimate(prob.r, prob.e, nu, estimator)
    n = prob.n
    if estimator == "ul":
        return rmean(_ul_terms(prob, nu))
    off = K.canonical_sums(prob.p, prob.e, nu)
    if estimator == "uq":
        return 2.0 * off / (float(n) * (n - 1))
    diag = math.fsum(np.einsum("ik,ik->i", prob.e, prob.e).tolist())  # h_ii = ||E_i||^2
    return (2.0 * off + diag) / (float(n) * n)


def _weighted_estimate(prob, nu, estimator, w):
    """SKCE with frequency weights: the estimate of the data with row i repeated ``w_i``
    times. Pairs of distinct rows weigh ``w_i w_j``; the copies of one row add
    ``w_i (w_i - 1) / 2`` pairs of the diagonal term ``h_ii`` (U-statistic) or ``w_i^2``
    diagonal terms (V-statistic)."""
    total = float(np.sum(w))

    def combine(off, diag_terms):
        if estimator == "uq":
            if total <= 1:
                fail_estimator_two_observations("uq")
            return (2.0 * off + math.fsum((w * (w - 1.0) * diag_terms).tolist())) / (total * (total - 1.0))
        return (2.0 * off + math.fsum((w * w * diag_terms).tolist())) / (total * total)

    def scalar(r, e, h):
        order = np.argsort(r, kind="stable")
        off = K.lap_pair_sums(r[order], (w * e)[order], h)
        return combine(off, e * e)

    if prob.form == "classwise":
        return rmean([scalar(r, e, h) for (r, e), h in zip(prob.cols, nu)])
    if prob.scalar:
        return scalar(prob.r, prob.e, nu)
    off = float(np.asarray(K.canonical_sums(prob.p, prob.e, nu, weights=w[:, None])).ravel()[0])
    return combine(off, np.einsum("ik,ik->i", prob.e, prob.e))


def _skce(p, y, estimator, type, bandwidth, weights=None):
    """skce's checks and value; returns ``(value, problem, nu)`` (no problem on Dask inputs)."""
    bw = check_bandwidth(bandwidth)
    return _skce_checked(p, y, match_arg(estimator, ESTIMATORS), type, bw, weights)


@on_dask("_metrics.skce", finish=lambda value, bandwidth, **_: (value, None, bandwidth))
def _skce_checked(p, y, estimator, type, bandwidth, weights):
    bw = bandwidth
    prob = _prepare(p, y, type)
    w = check_weights(weights, prob.n)
    if w is not None:
        if estimator == "ul":
            refuse_weights(w, 'with estimator = "ul": it pairs consecutive rows')
        if bw == "median":
            refuse_weighted_median_bandwidth()
        nu = _resolve_bandwidth(bw, prob)
        return _weighted_estimate(prob, nu, estimator, w), prob, nu
    _check_n(prob.n, estimator)
    nu = _resolve_bandwidth(bw, prob)
    return _estimate(prob, nu, estimator), prob, nu


def skce(p: Scores, y: Labels, estimator: str = "uq", type: str = "confidence", bandwidth: float | str = 0.2, *,
         weights: Weights = None) -> float:
    """Squared kernel calibration error (probcal 0.2.0 ``skce``; Widmann, Lindsten &
    Zachariah 2019, section 3 and its equations for SKCE_b, SKCE_uq, SKCE_ul).

    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D), or an n x K probability matrix.
    y : array_like
        0/1 (or boolean) labels for a vector ``p``; class codes (1-based) or a factor for a
        matrix.
    estimator : {"uq", "ul", "biased"}
        ``"uq"``: unbiased U-statistic ``2/(n(n-1)) sum_{i<j} h_ij``; ``"ul"``: unbiased
        linear-time ``(1/m) sum_i h_{2i-1,2i}`` (m = floor(n/2) consecutive rows in the
        given order, so it depends on the row order); ``"biased"``: V-statistic
        ``(1/n^2) sum_{i,j} h_ij`` (>= 0). Partial matching as R's ``match.arg``.
    type : {"confidence", "canonical", "classwise"}
        Matrix ``p`` only (ignored for a vector, like ``ece``): top-label confidence,
        the canonical (strong) form with the matrix-valued kernel
        ``exp(-d_TV(P, P')/nu) I_K``, or the mean over classes of the one-vs-rest values.
    bandwidth : float or "median", default 0.2
        Kernel bandwidth nu, or the median of the pairwise distances over the pairs i < j
        (per column for classwise; recommended for the canonical form).
    weights : array_like, optional, keyword-only
        Frequency weights (not in probcal): the estimate of the data with row i repeated
        ``w_i`` times, for ``"uq"`` and ``"biased"`` with a numeric ``bandwidth``.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    float
        The estimate (may be negative for ``"uq"`` and ``"ul"``).

    Notes
    -----
    Scalar forms use ``h_ij = (c_i - r_i)(c_j - r_j) exp(-|r_i - r_j|/nu)``, so
    ``skce(p, y, "biased") == mmce(p, y)**2`` for a vector and for a matrix with
    ``type="confidence"``. The canonical form uses ``h_ij = exp(-d_TV(P_i, P_j)/nu)
    <e_{y_i} - P_i, e_{y_j} - P_j>``; for two classes it is 2 x the binary value
    (Widmann's binary kernel carries the same factor 2), classwise equals the binary value.
    Cost: O(n log n) for the scalar forms (sorted prefix sums, exact up to rounding),
    O(K n log n) classwise, O(n^2 K) canonical in 1024 x 1024 blocks (O(n * block)
    memory), O(n) for ``"ul"``. Checks (R's order): ``bandwidth``; ``estimator``; matrix:
    the probability matrix, ``type``, the class labels, as many labels as rows (classwise:
    equal lengths, as ``ece``); vector: the probabilities (finite, in [0, 1]), the 0/1
    labels, equal lengths; at least two rows for ``"uq"``/``"ul"``. A median of 0 is an
    error. Dask inputs (:mod:`calstats.dask`): ``"ul"`` with a numeric bandwidth, the pairs
    that straddle two blocks formed from their end rows; the other estimators need every
    pair and refuse.
    """
    return _skce(p, y, estimator, type, bandwidth, weights)[0]


# --------------------------------------------------------------------------------------
# cal_test: wild bootstrap of SKCE_uq, or the asymptotic normal test of SKCE_ul


def _wild_bootstrap(prob, nu, n_boot, bar=None):
    """``n_boot`` values ``T*_b = 2/(n(n-1)) sum_{i<j} W_bi W_bj h_ij`` with
    ``W_b = sample(c(-1, 1), n, replace = TRUE)`` drawn replicate after replicate."""
    n = prob.n
    out = np.empty(n_boot)
    scale = 2.0 / (float(n) * (n - 1))
    if prob.scalar:
        order = np.argsort(prob.r, kind="stable")
        xs, es = prob.r[order], prob.e[order]
        chunk = max(1, min(n_boot, (1 << 22) // n))
    else:
        chunk = max(1, min(n_boot, (1 << 23) // n))
    for b0 in range(0, n_boot, chunk):
        bc = min(chunk, n_boot - b0)
        w = K.rademacher(n * bc).reshape(bc, n)
        if prob.scalar:
            a = np.ascontiguousarray(w.T)[order] * es[:, None]
            out[b0:b0 + bc] = scale * K.lap_pair_sums(xs, a, nu)
        else:
            out[b0:b0 + bc] = scale * K.canonical_sums(prob.p, prob.e, nu, weights=w.T.astype(np.float64))
        if bar is not None:
            bar.update(bc)
    return out


@on_dask(refuse=refuse_dask_cal_test)
def cal_test(p: Scores, y: Labels, method: str = "bootstrap", type: str = "confidence", bandwidth: float | str = 0.2,
             n_boot: int = 1000, seed: int | None = None, *, progress: bool | None = None,
             weights: Weights = None) -> HTest:
    """Kernel calibration test of H0 "the model is calibrated" (probcal 0.2.0 ``cal_test``;
    Widmann, Lindsten & Zachariah 2019, Theorem G.2 and Lemma 3).

    Parameters
    ----------
    p, y : array_like
        As in :func:`skce` (vector ``p`` with 0/1 ``y``, or a probability matrix).
    method : {"bootstrap", "asymptotic"}
        ``"bootstrap"``: statistic ``T = SKCE_uq`` and a wild (Rademacher multiplier)
        bootstrap of the degenerate U-statistic: ``T*_b = 2/(n(n-1)) sum_{i<j} W_bi W_bj
        h_ij`` with ``W_b = sample(c(-1, 1), n, replace = TRUE)`` in R's stream, p-value
        ``(1 + #{T*_b >= T}) / (n_boot + 1)``. ``"asymptotic"``: ``z = sqrt(m) mean(d) /
        sd(d)`` for the m = floor(n/2) consecutive-pair terms of SKCE_ul, p-value
        ``1 - Phi(z)``; deterministic.
    type : {"confidence", "canonical", "classwise"}
        Matrix ``p`` only; ``"classwise"`` has no test (error).
    bandwidth : float or "median", default 0.2
        As in :func:`skce`.
    n_boot : int, default 1000
        Bootstrap replicates (checked for both methods).
    seed : int, optional
        ``None`` draws from (and advances) the global stream :mod:`calstats.rng`; an
        integer draws under ``set.seed(seed)`` and restores the previous state
        (``withr::with_seed`` in R), like ``cal_cv``.
    progress : bool, optional, keyword-only
        Not in R. A progress bar over the bootstrap replicates (``None``: in a terminal or
        notebook after two seconds; ``True``: always; ``False``: never).
    weights : None, keyword-only
        Case weights are refused with a reason: the wild bootstrap gives each observation
        its own random sign, which one weighted row cannot stand for, and the asymptotic
        test pairs consecutive rows. Repeat the rows (frequency weights) or use the
        weighted :func:`skce` and :func:`calstats.cal_spiegelhalter_test`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    HTest
        R class ``c("cal_test", "htest")`` printed like R's ``print.htest``; extra fields
        ``type``, ``bandwidth``, ``n``, ``n_boot``, ``seed``, ``replicates``.

    Notes
    -----
    Cost (scalar forms): O(n log n + n * n_boot), each replicate one O(n) pass of the
    sorted prefix-sum recursion on the signed residuals; canonical: O(n^2 (K + n_boot)) in
    blocks. Checks: ``method``, ``type``, the classwise error for a matrix, then those of
    :func:`skce` (estimator "uq" resp. "ul"), ``n_boot`` (a single positive integer), and
    for the asymptotic test at least four rows and a non-zero variance.
    """
    refuse_weights(weights, "by cal_test: the wild bootstrap gives each observation its own sign, which a "
                            "weighted row cannot stand for. Repeat the rows, or use skce(..., weights=) and "
                            "cal_spiegelhalter_test(..., weights=)")
    method = match_arg(method, METHODS)
    type = match_arg(type, TYPES)
    if is_matrix(p) and type == "classwise":
        refuse_classwise_test()
    bw = check_bandwidth(bandwidth)
    prob = _prepare(p, y, type)
    estimator = "uq" if method == "bootstrap" else "ul"
    _check_n(prob.n, estimator)
    n_boot = check_bins(n_boot, "n_boot")
    n = prob.n
    if method == "asymptotic":
        check_asymptotic_rows(n)
    nu = _resolve_bandwidth(bw, prob)
    common = dict(alternative="greater", data_name="p and y", null_value={"SKCE": 0.0},
                  r_class=("cal_test", "htest"), type=prob.form, bandwidth=nu, n=n, n_boot=n_boot, seed=seed)
    if method == "asymptotic":
        d = _ul_terms(prob, nu)
        m = d.size
        dbar = rmean(d)
        s = math.sqrt(rsum((d - dbar) ** 2) / (m - 1))
        if not s > 0:
            fail_zero_variance_pairs()
        z = math.sqrt(m) * dbar / s
        return HTest({"z": z}, float(ndtr(-z)),
                     "Kernel calibration test (SKCE, asymptotic normal, linear estimator)",
                     parameter={"bandwidth": nu, "pairs": m}, estimate={"SKCE_ul": dbar}, replicates=None,
                     **common)
    stat = _estimate(prob, nu, "uq")
    with rng._seeded(seed):
        with progress_bar(n_boot, "cal_test bootstrap", progress) as bar:
            reps = _wild_bootstrap(prob, nu, n_boot, bar)
    pval = (1.0 + float(np.count_nonzero(reps >= stat))) / (n_boot + 1.0)
    return HTest({"SKCE_uq": stat}, pval, "Kernel calibration test (SKCE, wild bootstrap)",
                 parameter={"bandwidth": nu, "n_boot": n_boot}, estimate={"SKCE_uq": stat}, replicates=reps,
                 **common)

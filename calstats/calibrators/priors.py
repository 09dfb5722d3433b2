"""Prior (label) shift: Bayes' rule for new class priors and their EM estimate (no R equivalent).

Saerens, M., Latinne, P. & Decaestecker, C. (2002). "Adjusting the outputs of a classifier
to new a priori probabilities: a simple procedure". Neural Computation 14(1), 21-41.

Under prior shift the class-conditional distributions ``p(x | k)`` stay fixed while the
class priors change from the training priors ``train_k`` to ``new_k``. A model's
posteriors ``p_k(x)`` (calibrated on training-like data) then become
``p'_k(x) = p_k(x) new_k / train_k / sum_j p_j(x) new_j / train_j`` (Saerens et al.,
eq. 2.4; the class-weight correction of :func:`~calstats.loss_correct` with
``weights = train / new``). When the new priors are unknown, the EM algorithm of
Saerens et al. (section 2.2) estimates them from the model's predictions on unlabelled
rows of the new population.
"""

from typing import Any

import numpy as np
import pandas as pd

from .. import _validate as v
from .. import rng
from .._frames import native
from .._typing import ArrayLike, Scores
from ..kernels.priors import bayes_adjust, em_priors
from ..numerics.interp import quantile_type7
from ..numerics.rformat import format_pval, format_real
from ..results._base import Result
from ..results._tables import table_text
from .classweights import like_input

__all__ = ["adjust_priors", "estimate_priors", "PriorEstimate"]

#: Priors must sum to one within this (the tolerance of a probability matrix's rows).
PRIOR_SUM_TOL = 1e-6

METHODS = ("em",)


# --------------------------------------------------------------------------------------
# argument checks


def _scores(p, arg="p"):
    """``(P, levels, binary)``: the probability matrix (a binary vector of P(class 2) as
    the two columns ``1 - p, p``), the class labels and whether ``p`` was a vector."""
    p = native(p, arg)  # a polars or pyarrow frame keeps its column names as the labels
    if v.is_matrix(p):
        P = v.check_prob_matrix(p, arg)
        levels = list(p.columns) if isinstance(p, pd.DataFrame) else [str(j) for j in range(1, P.shape[1] + 1)]
        return P, levels, False
    a = v.check_prob(p, arg)
    return np.column_stack([1.0 - a, a]), ["0", "1"], True


def _check_priors(x, arg, levels, binary):
    """Class priors for ``levels``: positive, finite, one per class, summing to one within
    ``PRIOR_SUM_TOL`` (then rescaled to sum exactly to one). A Series whose index holds
    exactly the class labels is aligned to them; anything else is read by position. For
    binary scores a single number is the prior of the positive class."""
    k = len(levels)
    if binary and not isinstance(x, (pd.Series, pd.DataFrame)) and np.ndim(x) == 0:
        s = v.check_interval(x, arg)
        return np.array([1.0 - s, s])
    if isinstance(x, pd.Series) and len(x) == k and set(x.index) == set(levels):
        x = x.reindex(levels)
    vec = v.as_vec(x)
    if vec.kind == "numeric" and np.ndim(vec.values) == 0:
        vec = vec._replace(values=np.reshape(vec.values, 1), na=np.reshape(vec.na, 1))
    vals, total = v.check_priors(vec, k, arg, PRIOR_SUM_TOL)
    return vals / total


# --------------------------------------------------------------------------------------
# Bayes' rule


def adjust_priors(p: Scores, new_priors: "float | ArrayLike | PriorEstimate",
                  train_priors: float | ArrayLike | None = None) -> np.ndarray | pd.Series | pd.DataFrame:
    """Posterior probabilities under new class priors (Saerens, Latinne & Decaestecker 2002).

    Bayes' rule on every row: ``p'_k = p_k new_k / train_k / sum_j p_j new_j / train_j``,
    the posterior of a model trained (and calibrated) under the class priors ``train``
    when the class-conditional distributions stay the same and only the priors become
    ``new`` (prior, or label, shift).

    Parameters
    ----------
    p : array_like, Series, matrix or DataFrame
        A probability matrix (n, K) whose rows sum to 1, or for two classes a vector of the
        probabilities of the second (positive) class.
    new_priors : array_like, Series, float or PriorEstimate
        The class priors of the new population: K positive numbers summing to 1 (within
        1e-6; rescaled to sum exactly to 1). For a binary vector ``p``, a single number is
        the prior of the positive class. A Series whose index holds exactly the class labels
        (the columns of a DataFrame ``p``, else ``"1"``..``"K"``, or ``"0"``, ``"1"`` for a
        binary vector) is aligned to them. A :class:`PriorEstimate` from
        :func:`estimate_priors` supplies its estimated priors and, unless given here, its
        training priors.
    train_priors : array_like, Series or float
        The class priors the model was trained under, usually the class frequencies of the
        training data; same forms as ``new_priors``. Required unless ``new_priors`` is a
        :class:`PriorEstimate`.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    ndarray, Series or DataFrame
        The adjusted probabilities, of the type and shape of ``p`` (float64; a Series or
        DataFrame keeps its index and columns).

    See Also
    --------
    estimate_priors : EM estimate of unknown new priors.
    loss_correct : ``loss_correct(p, weights=train / new)`` is the same map for a matrix.

    Notes
    -----
    No R equivalent. The training priors are deliberately not defaulted to the column
    means of ``p``: on the new population those means are not the training priors, and
    using them makes every prior vector a poor reference (for :func:`estimate_priors` it
    makes the start a fixed point of the EM). Checks, in order: ``p``; ``train_priors``
    present; ``new_priors``; ``train_priors`` (each: a numeric vector, one per class,
    positive and finite, summing to 1; for binary ``p`` a scalar in (0, 1)). ``p`` is
    not modified.
    """
    P, levels, binary = _scores(p)
    if isinstance(new_priors, PriorEstimate):
        if train_priors is None:
            train_priors = new_priors.train_priors
        new_priors = new_priors.priors
    if train_priors is None:
        v.fail_train_priors()
    new = _check_priors(new_priors, "new_priors", levels, binary)
    train = _check_priors(train_priors, "train_priors", levels, binary)
    q, _ = bayes_adjust(P, new / train)
    return like_input(q[:, 1] if binary else q, p)


# --------------------------------------------------------------------------------------
# the EM estimate


class PriorEstimate(Result):
    """Class priors of a new population estimated by EM (Saerens et al. 2002).

    Not an R result; ``r_class`` is ``("prior_estimate",)``. A
    :class:`~calstats.results._base.Result`: ``print(est)`` shows the priors, the
    likelihood-ratio test of no shift and the bootstrap interval if one was asked for;
    ``est.as_frame()`` is the per-class table; :meth:`conf_int` the percentile intervals.

    Attributes
    ----------
    priors : pandas.Series
        The estimated priors, indexed by the class labels.
    train_priors : pandas.Series
        The training priors the EM started from.
    method : str
        ``"em"``.
    n : int
        Number of predictions.
    iterations : int
        Number of EM updates made.
    converged : bool
        Whether the largest change of a prior fell below ``tol`` within ``maxit`` updates.
    loglik : float
        The log-likelihood of the new rows at :attr:`priors` relative to the training
        priors, ``sum_i log(sum_k p_ik priors_k / train_k)``, up to the constant the EM
        cannot see (0 at the training priors).
    loglik_trace : ndarray
        That log-likelihood at the start and after each update (non-decreasing).
    lr_statistic, df, p_value : float, int, float
        Saerens et al.'s likelihood-ratio test of "no prior shift": ``2 * loglik``, referred
        to chi-squared with K - 1 degrees of freedom (asymptotic; the training priors are
        taken as known).
    tol, maxit : float, int
        The stopping rule used.
    n_boot, level, seed
        The bootstrap settings (``n_boot`` is None without a bootstrap).
    replicates : pandas.DataFrame or None
        The bootstrap estimates, one row per replicate, one column per class.
    """

    r_class = ("prior_estimate",)
    _extras = ("priors", "train_priors", "method", "n", "iterations", "converged", "loglik", "loglik_trace",
               "lr_statistic", "df", "p_value", "tol", "maxit", "n_boot", "level", "seed", "replicates")
    # set by the constructor (declared for type checkers)
    priors: pd.Series
    train_priors: pd.Series
    method: str
    n: int
    iterations: int
    converged: bool
    loglik: float
    loglik_trace: np.ndarray
    lr_statistic: float
    df: int
    p_value: float
    tol: float
    maxit: int
    n_boot: int | None
    level: float
    seed: Any
    replicates: pd.DataFrame | None

    def conf_int(self, level: float | None = None) -> pd.DataFrame:
        """Percentile bootstrap intervals of the priors.

        Parameters
        ----------
        level : float, optional
            Confidence level in (0, 1); default the ``level`` given to
            :func:`estimate_priors`.

        Returns
        -------
        pandas.DataFrame
            Columns ``lower`` and ``upper`` (R ``quantile(type = 7)`` of the replicates at
            ``(1 -/+ level) / 2``), one row per class.
        """
        replicates = self.replicates
        if replicates is None:
            v.fail_no_replicates()
        lv = self.level if level is None else v.check_interval(level, "level")
        reps = np.asarray(replicates, dtype=np.float64)
        probs = [(1.0 - lv) / 2.0, (1.0 + lv) / 2.0]
        bounds = np.array([quantile_type7(reps[:, j], probs) for j in range(reps.shape[1])])
        return pd.DataFrame({"lower": bounds[:, 0], "upper": bounds[:, 1]}, index=self.priors.index.copy())

    def as_frame(self) -> pd.DataFrame:
        """The per-class table.

        Returns
        -------
        pandas.DataFrame
            Indexed by class (``class``): ``train_prior``, ``prior`` (the estimate),
            ``ratio`` (``prior / train_prior``, the factor of Bayes' rule) and, with a
            bootstrap, ``lower`` and ``upper``.
        """
        frame = pd.DataFrame({"train_prior": self.train_priors.to_numpy(), "prior": self.priors.to_numpy(),
                              "ratio": self.priors.to_numpy() / self.train_priors.to_numpy()},
                             index=self.priors.index.copy())
        if self.replicates is not None:
            ci = self.conf_int()
            frame["lower"] = ci["lower"].to_numpy()
            frame["upper"] = ci["upper"].to_numpy()
        frame.index.name = "class"
        return frame

    def _status(self):
        state = "converged" if self.converged else "not converged"
        return f"{state} after {self.iterations} iterations"

    def print_text(self) -> str:
        """The printed form, with its final newline: the method, the number of predictions
        and classes and the convergence, the per-class table, the likelihood-ratio test,
        and the bootstrap settings if any.

        Returns
        -------
        str
        """
        k = len(self.priors)
        lines = ["Class priors under prior shift (EM, Saerens et al. 2002)",
                 f"n = {self.n}, {k} classes; {self._status()}", "",
                 table_text(self.as_frame()), "",
                 f"Likelihood-ratio test of no shift: LR = {format_real([self.lr_statistic], 5)[0].strip()}, "
                 f"df = {self.df}, p-value {_pval_text(self.p_value)}"]
        if self.n_boot is not None:
            level = format_real([100.0 * self.level], 7)[0].strip()
            lines.append(f"{level}% percentile bootstrap intervals (n_boot = {self.n_boot})")
        return "\n".join(lines) + "\n"

    def _html_title(self):
        return f"Class priors under prior shift (EM; {self._status()})"


def _pval_text(p):
    text = format_pval(p)
    return text if text.startswith("<") else "= " + text


def estimate_priors(p: Scores, train_priors: float | ArrayLike, *, method: str = "em", tol: float = 1e-8,
                    maxit: int = 1000, n_boot: int | None = None, level: float = 0.95,
                    seed: Any = None) -> PriorEstimate:
    """Estimate the class priors of a new population from a model's predictions (EM).

    The EM algorithm of Saerens, Latinne & Decaestecker (2002, section 2.2): starting from
    the training priors, adjust every row to the current priors by Bayes' rule
    (:func:`adjust_priors`) and take the column means of the adjusted rows as the next
    priors; stop when no prior changes by ``tol`` or more. Each step increases the
    likelihood of the unlabelled rows, which is concave in the priors, so the limit is the
    maximum likelihood estimate (unique when the columns of ``p`` are not collinear).

    Parameters
    ----------
    p : array_like, Series, matrix or DataFrame
        The model's predictions on unlabelled rows of the new population: a probability
        matrix (n, K) whose rows sum to 1, or for two classes a vector of the probabilities
        of the second (positive) class. The model should be calibrated on training-like
        data; the estimate inherits its miscalibration.
    train_priors : array_like, Series or float
        The class priors the model was trained under (the training class frequencies, as in
        Saerens et al.); forms as in :func:`adjust_priors`. Required: see the Notes.
    method : {"em"}
        The estimator (the EM of Saerens et al.; the only one so far).
    tol : float, default 1e-8
        Stop when the largest absolute change of a prior is below ``tol``.
    maxit : int, default 1000
        The largest number of updates; a warning says when it was reached.
    n_boot : int, optional
        Number of bootstrap replicates: rows of ``p`` drawn with replacement (R's
        ``sample(n, replace = TRUE)`` from calstats' R stream), the EM rerun from the
        training priors on each. Without it there is no interval.
    level : float, default 0.95
        Level of the percentile bootstrap intervals (:meth:`PriorEstimate.conf_int`).
    seed : int, optional
        ``set.seed(seed)`` before the bootstrap and the previous stream state restored
        after it; ``None`` draws from (and advances) the global stream.

    Missing values (NaN, None, pandas' NA) are refused in one line naming the argument
    (the policy of R's probcal, which has no ``na.rm``); drop or impute those rows first.

    Returns
    -------
    PriorEstimate
        The priors (a Series indexed by the class labels), the convergence record, the
        log-likelihood trace and likelihood-ratio test of no shift, and the bootstrap
        replicates. ``adjust_priors(p, est)`` gives the adjusted posteriors.

    Notes
    -----
    No R equivalent. The training priors must be given: the column means of ``p`` on the
    new population are exactly the EM's first update from them, so they would be a fixed
    point and the EM would stop at once. At the limit the priors equal the column means of
    the adjusted posteriors (the fixed-point equation). Checks, in order: ``method``;
    ``p``; ``train_priors``; ``tol`` (a positive number); ``maxit`` and ``n_boot`` (positive
    integers); ``level`` in (0, 1). Non-converged bootstrap replicates are kept and counted
    in a warning. ``p`` is not modified.
    """
    method = v.match_arg(method, METHODS)
    P, levels, binary = _scores(p)
    train = _check_priors(train_priors, "train_priors", levels, binary)
    tol = v.check_positive_number(tol, "tol")
    maxit = v.check_bins(maxit, "maxit")
    if n_boot is not None:
        n_boot = v.check_bins(n_boot, "n_boot")
    level = v.check_interval(level, "level")
    pi, it, converged, change, trace = em_priors(P, train, tol, maxit)
    if not converged:
        v.warn_em_not_converged(maxit, change)
    n, k = P.shape
    replicates = None
    if n_boot is not None:
        reps = np.empty((n_boot, k))
        failed = 0
        with rng._seeded(seed):
            for b in range(n_boot):
                idx = np.asarray(rng.sample_int(n, n, replace=True), dtype=np.int64) - 1
                reps[b], _, ok, _, _ = em_priors(P[idx], train, tol, maxit)
                failed += not ok
        if failed:
            v.warn_replicates_not_converged(failed, n_boot, maxit)
        replicates = pd.DataFrame(reps, columns=pd.Index(levels))
    from scipy.stats import chi2

    loglik = float(trace[-1])
    stat = max(2.0 * loglik, 0.0)
    index = pd.Index(levels, name="class")
    return PriorEstimate(priors=pd.Series(pi, index=index.copy(), name="prior"),
                         train_priors=pd.Series(train, index=index.copy(), name="train_prior"),
                         method=method, n=n, iterations=it, converged=converged, loglik=loglik,
                         loglik_trace=trace, lr_statistic=stat, df=k - 1, p_value=float(chi2.sf(stat, k - 1)),
                         tol=tol, maxit=maxit, n_boot=n_boot, level=level, seed=seed, replicates=replicates)

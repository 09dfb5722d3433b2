"""The calibrators (:mod:`calstats.calibrators`): fits, predictions, spline bases,
Venn-Abers predictors.
"""

import math
from typing import NoReturn

import numpy as np

from .._errors import fail, warn
from .vectors import scalar_number

# --------------------------------------------------------------------------------------
# Venn-Abers predictors


def check_null_or_count(value, arg):
    """``None`` or a single non-negative whole number (``value`` from :func:`scalar_number`,
    or None for a value that is not a number); returns None or an int."""
    if value is None or not math.isfinite(value) or value < 0 or value != math.floor(value):
        fail(f"Argument `{arg}` must be `None` or a single non-negative integer.")
    return int(value)


def fail_fold_ids(n=None, given=None) -> NoReturn:
    """Fold ids that are not one whole number from 1 per observation."""
    if n is not None:
        fail(f"Argument `folds` must have one fold id per observation ({n}), not {given}.")
    fail("Argument `folds` must be a number of folds or one fold id per observation (whole numbers from 1, every "
         "fold from 1 to the largest present, at least two folds).")


def fail_empty_fold() -> NoReturn:
    """A fold without an observation of positive weight."""
    fail("Every fold must hold at least one observation of positive weight (for a matrix with reduction = "
         "\"one_vs_one\": in every pair of classes).")


def fail_fold_number(k) -> NoReturn:
    """A fold number outside 1..k."""
    fail(f"Argument `fold` must be a whole number from 1 to {k}.")


def fail_by_fold() -> NoReturn:
    """``by_fold`` of a predictor that has no folds."""
    fail("`by_fold = True` needs a cross Venn-Abers fit (method = \"cross\").")


# --------------------------------------------------------------------------------------
# spline calibration (calstats.calibrators.spline)


def fail_spline_knots(basis) -> NoReturn:
    """``knots=`` that is neither a count nor positions the basis can take."""
    if basis == "rcs":
        fail("Argument `knots` must be a single whole number of at least 3 or a vector of at least 3 distinct "
             "finite knot positions.")
    fail("Argument `knots` must be a single whole number of at least 3 or a vector of finite knot positions inside "
         "the range of the transformed scores.")


def refuse_gam_knots():
    """Knot positions for the penalised basis."""
    fail("Knot positions apply to the \"rcs\" and \"ns\" bases; the \"gam\" basis takes its dimension from `df`.")


def fail_spline_df() -> NoReturn:
    """``df=`` that is not a whole number of at least 2."""
    fail("Argument `df` must be `None` or a single whole number of at least 2.")


def refuse_penalty(basis):
    """``penalty=`` for an unpenalised basis."""
    if basis != "gam":
        fail("Argument `penalty` applies to the penalised spline (`basis = \"gam\"`) only.")


def refuse_monotone_gam(monotone, basis):
    """``monotone=True`` for the penalised basis."""
    if monotone and basis == "gam":
        fail("`monotone = True` is available for the \"rcs\" and \"ns\" bases only.")


def refuse_monotone_se():
    """Standard errors of a monotone spline fit."""
    fail("`se_fit` and `interval` are not available for a monotone fit: the constrained estimate has no Wald "
         "covariance.")


def fail_monotone_fit(reason) -> NoReturn:
    """A monotone spline fit that did not converge (SciPy's reason)."""
    fail(f"The monotone fit did not converge: {reason}.")


def fail_spline_distinct(basis, m, need) -> NoReturn:
    """Too few distinct scores for the spline's knots."""
    fail(f"Too few distinct values of `p` for the {basis} with these knots: {m} distinct value{'' if m == 1 else 's'}, "
         f"at least {need} needed.")


def fail_spline_rank(basis, rank, p) -> NoReturn:
    """A spline design of deficient rank."""
    fail(f"Too few distinct values of `p` for the {basis} with these knots: the spline's columns are collinear "
         f"(rank {rank} of {p}).")


def fail_spline_table(what) -> NoReturn:
    """A spline fit without a coefficient table."""
    fail(f"A `cal_spline` fit with {what} has no coefficient table.")


def fail_vector_or_matrix(arg) -> NoReturn:
    """Neither a probability vector nor a class matrix."""
    fail(f"Argument `{arg}` must be a probability vector or a matrix with one column per class.")


def warn_not_monotone(parts):
    """A spline calibration map that decreases (``parts``: where)."""
    warn("The spline calibration map is not monotone: it decreases " + " and ".join(parts) + ".")


# --------------------------------------------------------------------------------------
# the calibrators (calstats.calibrators)


def fail_not_label_matrix(arg) -> NoReturn:
    """Not a numeric matrix of label columns (multilabel)."""
    fail(f"Argument `{arg}` must be a numeric matrix with one column per label.")


def check_optimizer(optimizer, optimizers):
    """``optimizer=`` of the multinomial calibrators (not an R argument); returns it in lower case."""
    if not isinstance(optimizer, str) or optimizer.lower() not in optimizers:
        fail(f"Argument `optimizer` must be one of {', '.join(map(repr, optimizers))}, not {optimizer!r}.")
    return optimizer.lower()


def refuse_dask_se():
    """Standard errors for a Dask ``newdata``."""
    fail("`se_fit` and `interval` need the rows of `newdata` in memory: call .compute() on the Dask input first.")


def fail_no_training_data() -> NoReturn:
    """Standard errors of a fit that kept no training data."""
    fail("This fit does not hold its training data (a fit on Dask inputs), which the standard errors of `se_fit` "
         "and `interval` need.")


def check_parameter_count(count, k, maximum):
    """A covariance of at most ``maximum`` parameters."""
    if count > maximum:
        fail(f"`se_fit` and `interval` need the {count} x {count} covariance of the parameters of this {k}-class "
             f"fit; more than {maximum} parameters are refused.")


def warn_singular_information():
    """A fit whose observed information cannot be inverted: NaN standard errors."""
    warn("The observed information of this fit is singular or not positive definite: the standard errors are NaN.")


def fail_not_dirichlet() -> NoReturn:
    """Canonical parameters of a map that has none."""
    fail("Canonical parameters are defined only for Dirichlet and matrix-scaling maps.")


def warn_top_label_unchanged(levels, statuses):
    """Top-label calibration that left some classes unchanged."""
    warn(f"Top-label calibration left {', '.join(levels)} unchanged ({', '.join(statuses)}).")


def fail_r_missing_not_allowed() -> NoReturn:
    """R's ``order()`` of a missing value (``na.last = NA`` not given)."""
    fail("missing values not allowed")


def refuse_weighted_quantiles(strategy):
    """Case weights with quantile bins."""
    if strategy == "equal_freq":
        fail('Case weights are supported with strategy = "equal_width" only: weighted quantile breaks have no '
             'single definition that equals replicated rows.')


def fail_r_nonfinite_x() -> NoReturn:
    """R's ``glm.fit`` (its QR) given a non-finite design."""
    fail("NA/NaN/Inf in 'x'")


def fail_r_length_zero() -> NoReturn:
    """R's ``if`` on a value of length zero (a binary fit given a matrix)."""
    fail("argument is of length zero")


def fail_matrix_method(method) -> NoReturn:
    """A multiclass method given a vector."""
    fail(f'Method "{method}" requires a matrix `x` with one column per class.')


def fail_vector_method(method) -> NoReturn:
    """A binary method given a matrix."""
    fail(f'Method "{method}" expects a vector `x`. Use "ovr" for multiclass binning.')


def fail_not_finite_matrix(arg) -> NoReturn:
    """Not a finite numeric matrix."""
    fail(f"Argument `{arg}` must be a finite numeric matrix.")


def fail_method_probabilities(arg, method) -> NoReturn:
    """Scores outside [0, 1] for a method that takes probabilities."""
    fail(f'Argument `{arg}` must contain probabilities in `[0, 1]` for "{method}".')


def fail_one_class_weighting() -> NoReturn:
    """Class weighting given none or several of its parameterisations."""
    fail("Supply exactly one of `beta`, `weights`, `delta`.")


def fail_delta() -> NoReturn:
    """``delta=`` that is not one positive number."""
    fail("Argument `delta` must be a single positive number.")


def fail_class_weights() -> NoReturn:
    """``weights=`` of class weighting that are not one positive weight per class."""
    fail("Argument `weights` must be a vector of positive finite weights, one per class.")


def fail_beta() -> NoReturn:
    """``beta=`` that is not a square matrix of positive weights, one row and column per class."""
    fail("Argument `beta` must be a square matrix of positive finite weights, one row and column per class.")


def fail_shape_mismatch(name, arg) -> NoReturn:
    """A parameter whose shape does not match its input's."""
    fail(f"Argument `{name}` does not match the shape of `{arg}`.")


def warn_power_iteration():
    """A power iteration that did not converge."""
    warn("Power iteration did not converge in 10000 iterations.")


def warn_not_loss_calibrated(count):
    """Score vectors without a loss-calibrated solution under the weights."""
    warn(f"{count} score vector(s) are not loss-calibrated under the given weights (spectral radius differs from 1); "
         "returning the nearest Perron solution.")


def check_grid(grid, minimum=16):
    """A grid size: a whole number of at least ``minimum``; returns an int."""
    g = scalar_number(grid)
    if g is None or not math.isfinite(g) or g != math.floor(g) or g < minimum:
        fail(f"Argument `grid` must be a single integer of at least {minimum}.")
    return int(g)


def warn_theta_zero():
    """An evidential calibration whose maximum-likelihood theta is 0."""
    warn("The maximum-likelihood theta is 0: the scores do not rank the labels better than chance.")


def fail_separation() -> NoReturn:
    """Scores that separate the classes: an infinite maximum-likelihood theta."""
    fail("The scores separate the classes perfectly: the maximum-likelihood theta is infinite. Use "
         "`targets = \"smoothed\"`.")


def fail_constant_scores() -> NoReturn:
    """Scores constant within every row."""
    fail("Argument `scores` must vary within at least one row.")


def fail_nothing_to_combine(what) -> NoReturn:
    """A combination of nothing."""
    fail(f"Supply at least one {what} to combine.")


def fail_combine_mismatch(what, how) -> NoReturn:
    """Inputs to combine that do not agree."""
    fail(f"The {what} to combine must have {how}.")


def fail_negative_values(arg) -> NoReturn:
    """An argument with negative values."""
    fail(f"Argument `{arg}` must contain non-negative values.")


def fail_newdata_needed() -> NoReturn:
    """Fitted calibrators combined without their new data."""
    fail("Argument `newdata` is required when combining fitted calibrators.")


def fail_newdata_per_source() -> NoReturn:
    """New data that does not give one input per source."""
    fail("Argument `newdata` must hold one input per source.")


def check_priors(vec, k, arg, tol):
    """Class priors (``vec`` the classified input, a :data:`Vec`): a numeric vector, one per
    class, positive and finite, summing to 1 within ``tol``; returns ``(values, sum)``."""
    if vec.kind != "numeric" or np.ndim(vec.values) != 1:
        fail(f"Argument `{arg}` must be a numeric vector of class priors.")
    vals = np.asarray(vec.values, dtype=np.float64)
    if vals.size != k:
        fail(f"Argument `{arg}` must have one prior per class ({k}).")
    if np.asarray(vec.na).any() or not np.isfinite(vals).all() or (vals <= 0).any():
        fail(f"Argument `{arg}` must contain positive finite priors.")
    total = math.fsum(vals.tolist())
    if abs(total - 1.0) > tol:
        fail(f"Argument `{arg}` must sum to `1`.")
    return vals, total


def fail_train_priors() -> NoReturn:
    """Prior shift without the training priors."""
    fail("Argument `train_priors` is required: give the class priors of the training data.")


def fail_no_replicates() -> NoReturn:
    """An interval of priors estimated without bootstrap replicates."""
    fail("No bootstrap replicates: call `estimate_priors()` with `n_boot`.")


def warn_em_not_converged(maxit, change):
    """The EM algorithm of prior estimation stopped at ``maxit``."""
    warn(f"The EM algorithm did not converge in {maxit} iterations (largest change of a prior {change:.3g}); "
         "increase `maxit` or `tol`.")


def warn_replicates_not_converged(failed, n_boot, maxit):
    """Bootstrap replicates of prior estimation that did not converge."""
    warn(f"{failed} of {n_boot} bootstrap replicates did not converge in {maxit} iterations.")


def warn_total_conflict(count):
    """Rows whose combined plausibility is undefined (total conflict)."""
    warn(f"Total conflict in {count} row(s): the combined plausibility is undefined.")


def fail_unknown_setting(setting, value) -> NoReturn:
    """An engine, backend or penalty of a calibrator's internals (``engine``, ``backend``,
    ``penalty``) that is none of those it has: a ``ValueError``."""
    raise ValueError(f"unknown {setting} {value!r}") from None

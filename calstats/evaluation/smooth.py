"""Smooth ECE (Blasiok and Nakkiran 2023) and the smooth reliability curve.

``smece``, ``smece_sigma`` and ``smooth_curve`` are the numbers of the authors' Python
package relplot 1.0.3 (``relplot.smECE``, ``relplot.smECE_sigma``, and what
``relplot.rel_diagram`` draws), to rounding; the discretisation they share is described in
:mod:`calstats.kernels.smooth`.
"""

import math

import numpy as np

from .._inputs import refuse_misnamed_columns
from .._typing import ArrayLike, Labels, Scores, Weights
from .._validate import (
    check_bins,
    check_matrix_labels,
    check_null_or_at_least,
    check_prob,
    check_prob_and_labels,
    check_prob_matrix_top,
    is_matrix,
    refuse_dask_smooth_ece,
)
from .._weights import check_weights
from ..dask import on_dask
from ..kernels import smooth as ks
from ..kernels.toplabel import correct

__all__ = ["smece", "smece_sigma", "smooth_curve"]


_DOC_ARGS = """
    Parameters
    ----------
    p : array_like
        Probabilities of the positive class (1-D), or an n x K probability matrix, in which
        case the top-label confidence (the first maximal column) and its correctness are
        used (Guo et al.'s confidence calibration; relplot's
        ``multiclass_logits_to_confidences(probs=True)``, which takes the same column).
    y : array_like
        0/1 (or boolean) labels for a vector ``p`` (one class only is allowed); integer
        class codes from 1 or a factor for a matrix.
"""

_DOC_WEIGHTS = """    weights : array_like, optional, keyword-only
        Case weights (not in relplot): every kernel sum weights row i by ``w_i``, so
        integer weights equal replicated rows. They are frequency weights: the density's
        1e-4 is not rescaled, so multiplying all weights by a constant moves the value
        slightly. ``None`` is relplot's value.
"""

_DOC_METHOD = """
    The smooth ECE at bandwidth sigma is

        ``smECE_sigma = integral_0^1 |r(t)| d(t) dt / integral_0^1 d(t) dt``,

        ``d(t) = sum_i w_i K_sigma(t, f_i) + 1e-4``,
        ``r(t) = sum_i w_i K_sigma(t, f_i) (f_i - y_i) / d(t)``,

    with ``f_i`` the scores, ``y_i`` the outcomes (``w_i = 1`` unless weighted) and
    ``K_sigma(t, s) = phi_sigma(t - s) + phi_sigma(t + s) + phi_sigma(t - (2 - s))`` the
    Gaussian kernel reflected at 0 and 1. The automatic bandwidth is the fixed point
    ``sigma* = smECE_{sigma*}``, located by bisection of [0, 1] in ten halvings (1 if
    ``smECE_1 > 1``; the search stops below 0.001, so ``sigma* >= 2**-9``), taking the
    upper end of the last interval.

    Discretisation (relplot's, reproduced to reach its numbers): the integrals are averages
    over ``max(round(10 / sigma), 200)`` equally spaced points of [0, 1]; the kernel sums
    are computed on a grid of ``max(2000, round(20 / sigma)) // 2 + 1`` points, each score
    split linearly between its two neighbouring grid points, convolved with the Gaussian
    density at the grid offsets up to 1/2 (not normalised by the spacing, which only scales
    the 1e-4) with the grid mirrored at both ends, and read back by linear interpolation.
    These grids move the value away from the exact integrals (measured on the reference
    cases: 1e-5 to 5e-4 for scores inside (0, 1), up to 1e-2 when a quarter of the scores
    are exactly 0 or 1); relplot's own numbers are the reference.
"""


def _problem(p, y):
    """``(f, y)``: the scores and 0/1 outcomes (float64; NaN for a missing logical label)."""
    if is_matrix(p):
        pm, r, pred = check_prob_matrix_top(p, "p")
        codes, _levels, _k = check_matrix_labels(pm, y)
        refuse_misnamed_columns(p, y)
        return r, correct(pred, codes).astype(np.float64)
    f, c = check_prob_and_labels(p, y)
    return f, np.asarray(c, dtype=np.float64)


def smece(p: Scores, y: Labels, *, sigma: float | None = None, weights: Weights = None) -> float:
    """Smooth expected calibration error (Blasiok and Nakkiran 2023; relplot ``smECE``).
    {args}    sigma : float, optional, keyword-only
        The kernel bandwidth, a single finite number >= 1e-5 (relplot ``smECE_sigma(f, y,
        sigma)``). ``None`` (default): the automatically chosen bandwidth, see
        :func:`smece_sigma` (relplot ``smECE(f, y)``).
{weights}
    Returns
    -------
    float
        ``smECE_sigma``, in [0, 1]. NaN if a logical label is missing (a pandas ``boolean``
        NA).

    Notes
    -----{method}
    Agreement with relplot 1.0.3 (float64 inputs): measured differences below 1e-15 on the
    reference cases (the same grids; only the order of some additions differs). A float32
    ``p`` is read as the float64 values it holds (relplot would compute partly in float32).
    Checks: ``sigma``; then matrix ``p``: the probability matrix, the class labels, as many
    labels as rows; vector ``p``: the probabilities (finite, in [0, 1]), the 0/1 labels,
    equal lengths; then ``weights``. Dask inputs are refused (the bandwidth search reads
    every row once per step).
    """
    s = check_null_or_at_least(sigma, "sigma", ks.SIGMA_MIN)
    return _smece(p, y, s, weights)


@on_dask(refuse=refuse_dask_smooth_ece)
def _smece(p, y, sigma, weights):
    f, c = _problem(p, y)
    w = check_weights(weights, f.size)
    if np.isnan(c).any():
        return math.nan
    if sigma is None:
        return ks.smece_auto(f, c, w)[0]
    return ks.smece_at(f, c, sigma, w)


def smece_sigma(p: Scores, y: Labels, *, weights: Weights = None) -> float:
    """The automatically chosen bandwidth of the smooth ECE (relplot ``smECE(f, y,
    return_width=True)[1]``).
    {args}{weights}
    Returns
    -------
    float
        ``sigma*``, a multiple of ``2**-10`` in ``[2**-9, 1]``: the upper end of the last
        bisection interval around the fixed point ``sigma = smECE_sigma`` (see Notes). NaN if
        a logical label is missing.

    Notes
    -----{method}
    ``smece(p, y)`` is ``smece(p, y, sigma=smece_sigma(p, y))``. Checks as :func:`smece`.
    """
    return _smece_sigma(p, y, weights)


@on_dask(refuse=refuse_dask_smooth_ece)
def _smece_sigma(p, y, weights):
    f, c = _problem(p, y)
    w = check_weights(weights, f.size)
    if np.isnan(c).any():
        return math.nan
    return ks.search_sigma(f, c, w)


def smooth_curve(p: Scores, y: Labels, sigma: float | None = None, grid: int | ArrayLike = ks.PLOT_POINTS, *,
                 weights: Weights = None) -> ks.SmoothCurve:
    """The smooth reliability curve and the density of the scores (what relplot's
    ``rel_diagram`` draws).
    {args}    sigma : float, optional
        The bandwidth of the curve and the density; ``None`` (default) the automatic
        bandwidth of :func:`smece_sigma` (relplot ``prepare_rel_diagram(kde_bandwidth=)``).
    grid : int or array_like, default 200
        The number of equally spaced points of [0, 1] (relplot's ``plot_mesh_pts``, 200),
        or the points themselves (numbers in [0, 1]).
{weights}
    Returns
    -------
    SmoothCurve
        A named tuple ``(t, mu, density, sigma, smece)``: the points; the kernel-smoothed
        observed frequency ``mu(t) = sum_i w_i K_sigma(t, f_i) y_i / (sum_i w_i
        K_sigma(t, f_i) + 1e-4)``; the kernel density of the scores ``sum_i (w_i / sum w)
        K_sigma(t, f_i)`` (no boundary correction, no 1e-4, on relplot's unnormalised
        scale: divide by its maximum to draw it); the bandwidth; and ``smece(p, y,
        sigma=sigma)``.

    Notes
    -----
    relplot's default main line is the mean of 200 bootstrap refits (an unseeded
    ``BaggingRegressor``, so random); ``mu`` is the single fit to the data, relplot's line
    with ``plot_confidence_band=False``. ``mu`` and ``density`` use the smoothing grid of
    :func:`smece`, read at ``t`` by linear interpolation. With an explicit ``sigma`` the
    returned ``smece`` is the value at that bandwidth (what the curve shows), whereas
    relplot's ``kde_bandwidth`` leaves its printed smECE at the automatic bandwidth. NaN
    ``mu`` (and ``sigma``, ``smece`` and, without ``sigma``, ``density``) if a logical label is
    missing. Checks: ``sigma``, ``grid``, then as :func:`smece`.
    """
    s = check_null_or_at_least(sigma, "sigma", ks.SIGMA_MIN)
    if np.ndim(grid) == 0 or isinstance(grid, (str, bytes)):
        t = np.linspace(0.0, 1.0, check_bins(grid, "grid"))
    else:
        t = check_prob(grid, "grid")
    return _smooth_curve(p, y, s, t, weights)


@on_dask(refuse=refuse_dask_smooth_ece)
def _smooth_curve(p, y, sigma, t, weights):
    f, c = _problem(p, y)
    w = check_weights(weights, f.size)
    if np.isnan(c).any():
        nan = np.full(t.size, math.nan)
        if sigma is None:
            return ks.SmoothCurve(t, nan, nan.copy(), math.nan, math.nan)
        return ks.SmoothCurve(t, nan, ks.curve(f, np.zeros_like(c), sigma, t, w)[1], sigma, math.nan)
    if sigma is None:
        value, sigma = ks.smece_auto(f, c, w)
    else:
        value = ks.smece_at(f, c, sigma, w)
    mu, density = ks.curve(f, c, sigma, t, w)
    return ks.SmoothCurve(t, mu, density, sigma, value)


for _f in (smece, smece_sigma, smooth_curve):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = (_f.__doc__.replace("{args}", _DOC_ARGS).replace("{weights}", _DOC_WEIGHTS)
                      .replace("{method}", _DOC_METHOD))
del _f

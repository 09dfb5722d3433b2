"""Smooth ECE (Blasiok and Nakkiran 2023): kernel sums on a grid, the value, the bandwidth.

Arrays in, numbers out. The reference is the authors' package relplot 1.0.3
(``relplot.smECE``, ``relplot.smECE_sigma``, ``relplot.prepare_rel_diagram``); this is our
own code, written to carry out the same discretised arithmetic, because relplot's numbers
are those of its grids rather than of the exact integrals (differences of 1e-5 to 1e-2), and
matching it to 1e-8 needs every grid, rounding and constant below:

* **the smoothing grid.** For a bandwidth ``sigma`` the kernel sums live on
  ``m = max(2000, round(20 / sigma)) // 2 + 1`` equally spaced points ``g_k = k / (m - 1)``
  (Python's ``round``, halves to even). Each score is split between its two neighbouring
  grid points in proportion to its distance from each (``k = floor(f (m - 1))`` clipped to
  ``[0, m - 2]``, so ``f = 1`` puts everything on the last point).
* **the kernel.** The Gaussian density ``phi_sigma(d)`` at the grid offsets ``|d| <= 1/2``
  (not multiplied by the spacing, not renormalised, truncated beyond 1/2), applied to the
  grid mirrored at 0 and 1 (the mirror image of point ``k`` is ``-k`` and ``2(m-1) - k``;
  the end points are not doubled). This is the reflected kernel
  ``phi(t - s) + phi(t + s) + phi(t - (2 - s))`` of the paper, discretised.
* **evaluation.** The smoothed grid is read at the points ``t`` by linear interpolation.

The convolution is NumPy's direct ``convolve`` (the arithmetic relplot uses, so the sums
agree to rounding); only for bandwidths below :data:`DIRECT_MIN_SIGMA`, which the
automatic search never reaches, an FFT convolution keeps the time reasonable (same value
up to ~1e-15 relative to the largest grid value).
"""

import math
from collections import namedtuple

import numpy as np

__all__ = ["SmoothCurve", "grid_size", "kernel_sums", "smece_at", "search_sigma", "smece_auto", "curve",
           "EVAL_POINTS", "PLOT_POINTS", "DENSITY_EPS", "SEARCH_EPS", "SEARCH_STEPS", "SIGMA_MIN"]

#: Fewest evaluation points of the smooth ECE's integral (relplot ``config.smECE_mesh_pts``).
EVAL_POINTS = 200
#: Points of the reliability diagram's curve (relplot ``config.plot_mesh_pts``).
PLOT_POINTS = 200
#: Added to the kernel density before dividing by it (relplot ``BaseKernelMixin.smooth``).
DENSITY_EPS = 1e-4
#: The bandwidth search stops below this value (relplot ``smECE(eps = 0.001)``).
SEARCH_EPS = 1e-3
#: Halvings of the bandwidth search (relplot ``search_param(refine = 10)``).
SEARCH_STEPS = 10
#: Smallest bandwidth convolved directly (grid of 10 001 points); below it, by FFT.
DIRECT_MIN_SIGMA = 1e-3
#: Smallest bandwidth accepted (a grid of 10^6 points).
SIGMA_MIN = 1e-5

#: What a smooth reliability diagram draws: the points ``t``, the smoothed frequency ``mu``
#: and the density of the scores at them, the bandwidth and the smooth ECE at it.
SmoothCurve = namedtuple("SmoothCurve", "t mu density sigma smece")


def grid_size(sigma):
    """Points of the smoothing grid for bandwidth ``sigma`` (odd, at least 1001)."""
    return max(2000, round(20 / sigma)) // 2 + 1


def _kernel(sigma, m):
    """``phi_sigma`` at the m offsets ``k/(m-1) - 1/2``, ``k = 0..m-1`` (centre in the middle)."""
    d = np.linspace(0.0, 1.0, m) - 0.5
    return np.exp(-(d * d) / (2 * sigma * sigma)) / (math.sqrt(2 * math.pi) * sigma)


def _smooth_grid(values, ker, sigma):
    """Grid values convolved with the kernel ``ker``, mirrored at both ends of [0, 1]."""
    m = values.size
    mirrored = np.pad(values, m - 1, mode="reflect")  # 3m - 2 points, ends not doubled
    if sigma >= DIRECT_MIN_SIGMA:
        full = np.convolve(mirrored, ker, mode="valid")
    else:
        from scipy.signal import fftconvolve

        full = fftconvolve(mirrored, ker, mode="valid")
    half = m // 2
    return full[half:half + m]


def _interpolate(grid_values, t):
    """Linear interpolation of the grid values at the points ``t`` in [0, 1]."""
    m = grid_values.size
    step = 1 / (m - 1)
    k = np.clip((t * (m - 1)).astype(np.int64), 0, m - 2)
    frac = (t - k * step) / step
    return grid_values[k] * (1 - frac) + grid_values[k + 1] * frac


class _Spreads:
    """The value vectors ``columns`` at scores ``f`` spread onto each grid size once.

    The bandwidth search evaluates the smooth ECE up to eleven times, but every bandwidth
    of at least 0.01 has the same grid (1001 points), so the pass over the rows -- the
    whole cost at large n -- is done once per grid size and kept (the same arithmetic, so
    the same bits as spreading anew)."""

    def __init__(self, f, columns):
        self.f = f
        self.columns = columns
        self._grids = {}

    def on_grid(self, m):
        got = self._grids.get(m)
        if got is None:
            scaled = self.f * (m - 1)
            left = scaled.astype(np.int64)
            np.clip(left, 0, m - 2, out=left)
            frac = scaled - left
            right = left + 1
            # bincount adds in row order, as an unbuffered scatter-add would
            got = [np.bincount(left, weights=(1 - frac) * v, minlength=m)
                   + np.bincount(right, weights=frac * v, minlength=m) for v in self.columns]
            self._grids[m] = got
        return got


def kernel_sums(f, columns, sigma, t, spreads=None):
    """``sum_i K_sigma(t, f_i) v_i`` at the points ``t`` for each value vector ``v`` in
    ``columns`` (discretised as in the module docstring); a list of arrays. ``spreads``
    (a :class:`_Spreads` of the same ``f`` and ``columns``) reuses earlier passes."""
    m = grid_size(sigma)
    ker = _kernel(sigma, m)
    if spreads is None:
        spreads = _Spreads(f, columns)
    return [_interpolate(_smooth_grid(g, ker, sigma), t) for g in spreads.on_grid(m)]


def _eval_points(sigma):
    return np.linspace(0.0, 1.0, max(round(10 / sigma), EVAL_POINTS))


def _smece_spreads(f, y, w):
    resid = f - y
    ones = np.ones_like(f) if w is None else w
    return _Spreads(f, [resid if w is None else w * resid, ones])


def smece_at(f, y, sigma, w=None, spreads=None):
    """The smooth ECE at bandwidth ``sigma``: ``sum_t |r(t)| d(t) / sum_t d(t)`` over
    ``max(round(10/sigma), 200)`` equally spaced points ``t`` of [0, 1], where
    ``d = sum_i w_i K(t, f_i) + 1e-4`` and ``r = sum_i w_i K(t, f_i) (f_i - y_i) / d``.
    ``spreads``: the rows already spread for these ``f, y, w`` (the bandwidth search)."""
    t = _eval_points(sigma)
    if spreads is None:
        spreads = _smece_spreads(f, y, w)
    num, den = kernel_sums(f, spreads.columns, sigma, t, spreads)
    den = den + DENSITY_EPS
    r = num / den
    return float(np.sum(np.abs(r) * den) / np.sum(den))


def search_sigma(f, y, w=None, spreads=None):
    """The automatic bandwidth: the fixed point of ``sigma = smECE_sigma`` by bisection.

    ``sigma = 1`` when ``1 < smECE_1``; else ten halvings of ``[0, 1]`` keeping the upper
    end where ``sigma >= smECE_sigma`` (and ``sigma >= 0.001``) and the lower end where not;
    the upper end is returned (relplot's ``search_param``, which returns this end too).
    """
    if spreads is None:
        spreads = _smece_spreads(f, y, w)

    def small_enough(s):
        return s < SEARCH_EPS or s < smece_at(f, y, s, w, spreads)

    if small_enough(1.0):
        return 1.0
    hi, lo = 1.0, 0.0
    for _ in range(SEARCH_STEPS):
        mid = (hi + lo) / 2
        if small_enough(mid):
            lo = mid
        else:
            hi = mid
    return hi


def smece_auto(f, y, w=None):
    """``(value, sigma)``: the smooth ECE at the automatic bandwidth."""
    spreads = _smece_spreads(f, y, w)
    sigma = search_sigma(f, y, w, spreads)
    return smece_at(f, y, sigma, w, spreads), sigma


def curve(f, y, sigma, t, w=None):
    """The reliability diagram's curve and density at the points ``t``.

    ``mu(t) = sum_i w_i K(t, f_i) y_i / (sum_i w_i K(t, f_i) + 1e-4)`` (relplot's
    ``KernelSmoother``, fitted once: the deterministic main line) and the density
    ``sum_i (w_i / sum w) K(t, f_i)`` (relplot's ``kde``: no 1e-4, no boundary correction).
    """
    if w is None:
        w = np.ones_like(f)
        q = np.full_like(f, 1 / f.size)
    else:
        q = w / np.sum(w)
    num, den, dens = kernel_sums(f, [w * y, w, q], sigma, t)
    return num / (den + DENSITY_EPS), dens

/* The bin of a score, shared by R's engine (_core.c) and the fast engine (_fast.c), which
 * must cut every score into the same bin: only the sums inside a bin differ between them.
 *
 * mode 0: R's findInterval on the equal-width breaks j * (1/B), by the arithmetic of
 * calstats.kernels.bins.find_unit_bins: floor(v B), then one exact comparison with each
 * neighbouring break (v B is one rounded product, so no compiler flag can change it).
 * mode 1 and 2: np.searchsorted(breaks, v, side = "right" / "left") clipped to 1..B
 * (left- and right-closed bins, calstats.kernels.bins.assign_bins).
 * Returns the 0-based bin of v (in [0, 1], or within the breaks for modes 1 and 2).
 */
#ifndef CALSTATS_BINS_H
#define CALSTATS_BINS_H

#include "_portable.h"

CS_ALWAYS_INLINE Py_ssize_t score_bin(const double *restrict br, Py_ssize_t nb, const int mode, double v)
{
    if (mode == 0) {
        const double prod = v * (double)nb;
        int64_t g = (int64_t)prod;
        if (g > nb - 1) g = nb - 1;
        g += 1;
        g -= v < br[g - 1];
        g += (v >= br[g]) & (g < nb);
        return (Py_ssize_t)g - 1;
    }
    Py_ssize_t lo = 0, hi = nb + 1;
    while (lo < hi) {
        const Py_ssize_t mid = lo + (hi - lo) / 2;
        if (mode == 1 ? br[mid] <= v : br[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    if (lo < 1) lo = 1;
    if (lo > nb) lo = nb;
    return lo - 1;
}

#endif

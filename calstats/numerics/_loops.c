/*
 * calstats.numerics._loops: R's scalar loops that NumPy can only reach with a Python loop
 * or a detour.
 *
 *   clowess        stats::lowess (R's C clowess/lowest): R's walk over the points, then the
 *                  local fits four at a time, each in a lane of its own with R's operations
 *                  in R's order.
 *   rpow           R's x^y for y != 2 on Linux: the C library's pow, element by element.
 *   llogit_binary  rms' lrm.fit (Fortran LLOGIT, binary outcome): log likelihood, score,
 *                  information and the binned c-index table in one pass.
 *
 * The NumPy references: calstats/ports/stats/lowess.py (_clowess_numpy), the math.pow loop
 * of calstats/ports/hmisc/rcspline.py, _llogit_binary in calstats/ports/rms/lrm_fit.py;
 * tests/test_lowess_engines.py and tests/test_rms_engines.py check both engines give the
 * same bits (lowess also against R).
 *
 * Floating point rules (the build flags enforce them): no -ffast-math, -ffp-contract=off
 * (no fused multiply-add); every sum a double accumulated in index order, as R's code (or
 * the reference) does; vector code only runs independent lanes side by side.  Inputs:
 * C-contiguous arrays (the Python wrappers make them so).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __FAST_MATH__
#error "calstats' C loops must not be compiled with -ffast-math: it would change R's numbers"
#endif

/* ------------------------------------------------------------------------------------ */
/* buffers                                                                                */

static int is_f8(const char *f)
{
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++;
    return f[0] == 'd' && f[1] == 0;
}

/* A C-contiguous float64 vector (writable when asked); its length in *n. */
static int get_vec(PyObject *o, Py_buffer *v, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, v, flags) < 0) return -1;
    if (!is_f8(v->format) || v->ndim != 1) {
        PyErr_Format(PyExc_TypeError, "_loops: %s must be a contiguous 1-D float64 array", what);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* lowess                                                                                 */

static inline double sq(double v) { return v * v; }

/*
 * R's walk over the sorted x (it depends on x, f and delta only, never on y): the points
 * it fits, in order, the left end of each one's neighbourhood (R's nleft, moved right while
 * that shrinks the radius) and the last of its ties (R's `last` after the delta scan).
 * Returns the number of fitted points.
 */
static Py_ssize_t lowess_walk(const double *x, Py_ssize_t n, Py_ssize_t ns, double delta, Py_ssize_t *vis,
                              Py_ssize_t *lft, Py_ssize_t *tie)
{
    Py_ssize_t k = 0, left = 0, right = ns - 1, i = 0;
    for (;;) {
        if (right < n - 1 && x[i] - x[left] > x[right + 1] - x[i]) {
            left++;
            right++;
            continue;
        }
        vis[k] = i;
        lft[k] = left;
        Py_ssize_t last = i;
        double cut = x[last] + delta;
        for (i = last + 1; i < n; i++) {
            if (x[i] > cut) break;
            if (x[i] == x[last]) last = i;
        }
        tie[k++] = last;
        i = (last + 1 > i - 1) ? last + 1 : i - 1;
        if (last >= n - 1) break;
    }
    return k;
}

/* One past the last point of R's weight loop for the fit at x[i] (R's nrt + 1): the first
   point right of x[i]'s ties whose distance exceeds h9 (distances grow from there on). */
static Py_ssize_t lowess_end(const double *x, Py_ssize_t n, Py_ssize_t i, double h9)
{
    double xs = x[i];
    Py_ssize_t lo = i + 1;
    while (lo < n && x[lo] == xs) lo++;
    Py_ssize_t hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (x[mid] - xs > h9) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

#define LANES 4

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LANES_HOT __attribute__((target_clones("avx2", "default")))
#else
#define LANES_HOT
#endif

/* The lanes as one vector where the compiler has GCC's vector extension (GCC, clang):
   lane-wise IEEE operations, the same bits as the plain loops below them. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(CALSTATS_NO_VECTOR_EXT)
#define LANES_VEC 1
typedef double v4d __attribute__((vector_size(4 * sizeof(double))));
typedef long long v4l __attribute__((vector_size(4 * sizeof(long long))));
static const v4d V0 = {0.0, 0.0, 0.0, 0.0};
static const v4d V1 = {1.0, 1.0, 1.0, 1.0};
static const v4l NOSIGN = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
/* m ? a : b lane by lane (m: -1 or 0 per lane, as vector comparisons give), and fabs */
#define vsel(m, a, b) ((v4d)(((m) & (v4l)(a)) | (~(m) & (v4l)(b))))
#define vabs(a) ((v4d)((v4l)(a) & NOSIGN))
#else
#define LANES_VEC 0
#endif

/*
 * Each lane's fitted point and window, as R's `lowest` sets them up: xs, the radius h (to
 * the farther end of the neighbourhood), R's cut-offs h9 = 0.999 h and h1 = 0.001 h, the
 * window's first point lo (R's nleft) and its length len (to R's nrt); lanes from m on
 * repeat lane 0 (idle, not read).  Returns the longest window.
 */
static Py_ssize_t lowess_setup(const double *x, Py_ssize_t n, Py_ssize_t ns, int m, const Py_ssize_t *vis,
                               const Py_ssize_t *lft, double *xs, double *h, double *h1, double *h9,
                               Py_ssize_t *lo, Py_ssize_t *len)
{
    Py_ssize_t maxlen = 0;
    for (int l = 0; l < LANES; l++) {
        int L = l < m ? l : 0;
        xs[l] = x[vis[L]];
        lo[l] = lft[L];
        double dl = xs[l] - x[lo[l]], dr = x[lo[l] + ns - 1] - xs[l];
        h[l] = dl < dr ? dr : dl;
        h9[l] = 0.999 * h[l];
        h1[l] = 0.001 * h[l];
        len[l] = lowess_end(x, n, vis[L], h9[l]) - lo[l];
        if (len[l] > maxlen) maxlen = len[l];
    }
    return maxlen;
}

#if LANES_VEC
/* The window of lane l at position t (t < the shortest window), and past a lane's own
   window the last point of it (read only to be weighted 0). */
#define LOAD4(p, t) ((v4d){(p)[0][t], (p)[1][t], (p)[2][t], (p)[3][t]})
#define CLAMP(t, l) ((t) < len[l] ? (t) : len[l] - 1)
#define LOAD4C(p, t) ((v4d){(p)[0][CLAMP(t, 0)], (p)[1][CLAMP(t, 1)], (p)[2][CLAMP(t, 2)], (p)[3][CLAMP(t, 3)]})

/*
 * R's `lowest` for up to LANES fitted points at once, each in a lane of a vector: every
 * lane runs R's operations in R's order over its own window (sums from +0.0 in index
 * order), lane-wise IEEE operations only, no sum reassociated.  Lanes are read straight
 * from x, y and rw; positions past a lane's window (up to the longest window) read its
 * last point and get weight 0, so they add +-0.0 to its sums, which changes none of them
 * (R's sums start at +0.0 and are never -0.0).  `buf` holds LANES * (longest window)
 * doubles (the weights).
 */
LANES_HOT
static void lowess_lanes(const double *x, const double *y, Py_ssize_t n, Py_ssize_t ns, int m,
                         const Py_ssize_t *vis, const Py_ssize_t *lft, int userw, const double *rw,
                         double *buf, double *fit, int *ok)
{
    double range = x[n - 1] - x[0];
    double xs[LANES], h[LANES], h1[LANES], h9[LANES], a[LANES], mx[LANES], c[LANES], b[LANES], s[LANES];
    double in1[LANES];
    long long sl[LANES], lenv[LANES];
    Py_ssize_t lo[LANES], len[LANES];
    const double *px[LANES], *py[LANES], *pr[LANES];
    Py_ssize_t maxlen = lowess_setup(x, n, ns, m, vis, lft, xs, h, h1, h9, lo, len), minlen = len[0];
    for (int l = 0; l < LANES; l++) {
        lenv[l] = (long long)len[l];
        if (len[l] < minlen) minlen = len[l];
        px[l] = x + lo[l];
        py[l] = y + lo[l];
        pr[l] = rw + lo[l];
    }
    double *W = buf;
    v4d XS, H, H1, H9, A = V0;
    memcpy(&XS, xs, sizeof XS);
    memcpy(&H, h, sizeof H);
    memcpy(&H1, h1, sizeof H1);
    memcpy(&H9, h9, sizeof H9);
    v4l LEN;
    memcpy(&LEN, lenv, sizeof LEN);
    /* weights and their sum (RW: the robustness weights, or 1.0: w * 1.0 == w) */
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        int tail = t >= minlen;
        v4d xv = tail ? LOAD4C(px, t) : LOAD4(px, t);
        v4d rwv = userw ? (tail ? LOAD4C(pr, t) : LOAD4(pr, t)) : V1;
        v4d r = vabs(xv - XS);
        v4d q = r / H;
        v4d u = V1 - q * q * q;
        v4d w = vsel(r <= H1, V1, u * u * u);
        w = w * rwv;
        v4l keep = r <= H9;
        if (tail) {
            v4l T = {t, t, t, t};
            keep &= T < LEN;
        }
        w = vsel(keep, w, V0);
        memcpy(W + t * LANES, &w, sizeof w);
        A += w;
    }
    memcpy(a, &A, sizeof A);
    for (int l = 0; l < LANES; l++) in1[l] = a[l] > 0.0 ? a[l] : 1.0;
    /* normalised weights and their centre of x */
    v4d IN1, MX = V0;
    memcpy(&IN1, in1, sizeof IN1);
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        v4d w;
        memcpy(&w, W + t * LANES, sizeof w);
        w = w / IN1;
        memcpy(W + t * LANES, &w, sizeof w);
        v4d xv = t >= minlen ? LOAD4C(px, t) : LOAD4(px, t);
        MX += w * xv;
    }
    memcpy(mx, &MX, sizeof MX);
    /* weighted spread about the centre */
    v4d CC = V0;
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        v4d w;
        memcpy(&w, W + t * LANES, sizeof w);
        v4d xv = t >= minlen ? LOAD4C(px, t) : LOAD4(px, t);
        v4d d = xv - MX;
        CC += w * (d * d);
    }
    memcpy(c, &CC, sizeof CC);
    for (int l = 0; l < LANES; l++) {
        int slope = h[l] > 0.0 && sqrt(c[l]) > 0.001 * range;
        b[l] = slope ? (xs[l] - mx[l]) / c[l] : 0.0;
        sl[l] = slope ? -1 : 0;
    }
    /* the fitted value: the weights times the line through the centre, times y; a lane
       without the slope step keeps its weights (its factor is 1.0: w * 1.0 == w) */
    v4d B, S = V0;
    v4l SL;
    memcpy(&B, b, sizeof B);
    memcpy(&SL, sl, sizeof SL);
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        v4d w;
        memcpy(&w, W + t * LANES, sizeof w);
        int tail = t >= minlen;
        v4d xv = tail ? LOAD4C(px, t) : LOAD4(px, t);
        v4d yv = tail ? LOAD4C(py, t) : LOAD4(py, t);
        v4d f = vsel(SL, B * (xv - MX) + V1, V1);
        S += (w * f) * yv;
    }
    memcpy(s, &S, sizeof S);
    for (int l = 0; l < m; l++) {
        fit[l] = s[l];
        ok[l] = a[l] > 0.0;
    }
}

#else
static inline double cube(double v) { return v * v * v; }

/*
 * The same without the vector extension: the windows are first copied lane by lane into
 * `buf` (x, y and the robustness weights, 3 * LANES doubles per position); positions past
 * a lane's window hold x = y = 0 and get weight 0, so they add +0.0 to its sums, which
 * changes none of them (R's sums start at +0.0, never -0.0).  Every lane runs R's
 * operations in R's order over its own window; the lanes only run side by side.  `buf`
 * holds 4 * LANES * (longest window) doubles.
 */
static void lowess_lanes(const double *x, const double *y, Py_ssize_t n, Py_ssize_t ns, int m,
                         const Py_ssize_t *vis, const Py_ssize_t *lft, int userw, const double *rw,
                         double *buf, double *fit, int *ok)
{
    double range = x[n - 1] - x[0];
    double xs[LANES], h[LANES], h1[LANES], h9[LANES], a[LANES], mx[LANES], c[LANES], b[LANES], s[LANES];
    double in1[LANES], sl[LANES];
    Py_ssize_t lo[LANES], len[LANES];
    Py_ssize_t maxlen = lowess_setup(x, n, ns, m, vis, lft, xs, h, h1, h9, lo, len);
    for (int l = 0; l < LANES; l++) a[l] = mx[l] = c[l] = s[l] = 0.0;
    double *X = buf, *Y = buf + LANES * maxlen, *RW = buf + 2 * LANES * maxlen, *W = buf + 3 * LANES * maxlen;
    for (int l = 0; l < LANES; l++) {
        const double *xl = x + lo[l], *yl = y + lo[l], *rl = rw + lo[l];
        Py_ssize_t t = 0;
        for (; t < len[l]; t++) {
            X[t * LANES + l] = xl[t];
            Y[t * LANES + l] = yl[t];
            RW[t * LANES + l] = userw ? rl[t] : 1.0;
        }
        for (; t < maxlen; t++) {
            X[t * LANES + l] = 0.0;
            Y[t * LANES + l] = 0.0;
            RW[t * LANES + l] = 0.0;
        }
    }
    /* weights and their sum; a position past a lane's window has RW = 0 there */
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        for (int l = 0; l < LANES; l++) {
            double r = fabs(X[t * LANES + l] - xs[l]);
            double w = cube(1.0 - cube(r / h[l]));
            w = r <= h1[l] ? 1.0 : w;
            w = w * RW[t * LANES + l]; /* RW is 1.0 without robustness weights: w * 1.0 == w */
            w = r <= h9[l] ? w : 0.0;
            W[t * LANES + l] = w;
            a[l] += w;
        }
    }
    for (int l = 0; l < LANES; l++) in1[l] = a[l] > 0.0 ? a[l] : 1.0;
    /* normalised weights and their centre of x */
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        for (int l = 0; l < LANES; l++) {
            double w = W[t * LANES + l] / in1[l];
            W[t * LANES + l] = w;
            mx[l] += w * X[t * LANES + l];
        }
    }
    /* weighted spread about the centre */
    for (Py_ssize_t t = 0; t < maxlen; t++)
        for (int l = 0; l < LANES; l++) c[l] += W[t * LANES + l] * sq(X[t * LANES + l] - mx[l]);
    for (int l = 0; l < LANES; l++) {
        int slope = h[l] > 0.0 && sqrt(c[l]) > 0.001 * range;
        b[l] = slope ? (xs[l] - mx[l]) / c[l] : 0.0;
        sl[l] = slope ? 1.0 : 0.0;
    }
    /* the fitted value: the weights times the line through the centre, times y; a lane
       without the slope step keeps its weights (b = 0 and the factor is exactly 1) */
    for (Py_ssize_t t = 0; t < maxlen; t++) {
        for (int l = 0; l < LANES; l++) {
            double w = W[t * LANES + l];
            double f = b[l] * (X[t * LANES + l] - mx[l]) + 1.0;
            f = sl[l] != 0.0 ? f : 1.0; /* w * 1.0 == w: the weights R leaves as they are */
            s[l] += (w * f) * Y[t * LANES + l];
        }
    }
    for (int l = 0; l < m; l++) {
        fit[l] = s[l];
        ok[l] = a[l] > 0.0;
    }
}

#endif

/* The k-th smallest of v[0..n-1] (v is reordered). */
static double select_kth(double *v, Py_ssize_t n, Py_ssize_t k)
{
    Py_ssize_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double p = v[k];
        Py_ssize_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p) i++;
            while (p < v[j]) j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return v[k];
}

/* R's clowess on sorted x into ys; scratch: rw, res, fit (n), the lanes' buffer, the walk (3 n indices) */
static int clowess_run(const double *x, const double *y, Py_ssize_t n, double f, long nsteps, double delta,
                       double *ys)
{
    if (n < 2) {
        if (n == 1) ys[0] = y[0];
        return 0;
    }
    double fn = f * (double)n + 1e-7;
    Py_ssize_t ns = fn >= (double)n ? n : (Py_ssize_t)fn;
    if (ns < 2) ns = 2;
    double *rw = calloc((size_t)n * (3 + (LANES_VEC ? 1 : 4) * LANES), sizeof(double));
    Py_ssize_t *idx = malloc((size_t)n * 3 * sizeof(Py_ssize_t));
    int *ok = malloc((size_t)n * sizeof(int));
    if (!rw || !idx || !ok) {
        free(rw);
        free(idx);
        free(ok);
        return -1;
    }
    double *res = rw + n, *fit = rw + 2 * n, *wbuf = rw + 3 * n; /* the lanes' buffer */
    Py_ssize_t *vis = idx, *lft = idx + n, *tie = idx + 2 * n;
    Py_ssize_t K = lowess_walk(x, n, ns, delta, vis, lft, tie);
    for (long it = 1; it <= nsteps + 1; it++) {
        for (Py_ssize_t k = 0; k < K; k += LANES) {
            int m = K - k < LANES ? (int)(K - k) : LANES;
            lowess_lanes(x, y, n, ns, m, vis + k, lft + k, it > 1, rw, wbuf, fit + k, ok + k);
        }
        Py_ssize_t last = -1;
        for (Py_ssize_t k = 0; k < K; k++) {
            Py_ssize_t i = vis[k];
            ys[i] = ok[k] ? fit[k] : y[i];
            if (last < i - 1) { /* points skipped since the last fit: interpolate */
                double denom = x[i] - x[last];
                for (Py_ssize_t j = last + 1; j < i; j++) {
                    double alpha = (x[j] - x[last]) / denom;
                    ys[j] = alpha * ys[i] + (1.0 - alpha) * ys[last];
                }
            }
            for (Py_ssize_t j = i + 1; j <= tie[k]; j++) ys[j] = ys[i]; /* ties take the fit */
            last = tie[k];
        }
        for (Py_ssize_t k = 0; k < n; k++) res[k] = y[k] - ys[k];
        if (it > nsteps) break;
        double sc = 0.0;
        for (Py_ssize_t k = 0; k < n; k++) sc += fabs(res[k]);
        sc /= (double)n;
        for (Py_ssize_t k = 0; k < n; k++) rw[k] = fabs(res[k]);
        Py_ssize_t m1 = n / 2;
        double cmad;
        if (n % 2 == 0) {
            double a = select_kth(rw, n, m1);
            double b = select_kth(rw, n, n - m1 - 1);
            cmad = 3.0 * (a + b);
        } else {
            cmad = 6.0 * select_kth(rw, n, m1);
        }
        if (cmad < 1e-7 * sc) break;
        double c9 = 0.999 * cmad, c1 = 0.001 * cmad;
        for (Py_ssize_t k = 0; k < n; k++) {
            double r = fabs(res[k]);
            rw[k] = r <= c1 ? 1.0 : (r <= c9 ? sq(1.0 - sq(r / cmad)) : 0.0);
        }
    }
    free(rw);
    free(idx);
    free(ok);
    return 0;
}

static PyObject *py_clowess(PyObject *self, PyObject *args)
{
    PyObject *ox, *oy, *oout;
    double f, delta;
    long nsteps;
    if (!PyArg_ParseTuple(args, "OOdldO", &ox, &oy, &f, &nsteps, &delta, &oout)) return NULL;
    Py_buffer bx, by, bo;
    if (get_vec(ox, &bx, 0, "x") < 0) return NULL;
    if (get_vec(oy, &by, 0, "y") < 0) {
        PyBuffer_Release(&bx);
        return NULL;
    }
    if (get_vec(oout, &bo, 1, "out") < 0) {
        PyBuffer_Release(&bx);
        PyBuffer_Release(&by);
        return NULL;
    }
    Py_ssize_t n = bx.shape[0];
    PyObject *ret = NULL;
    if (by.shape[0] != n || bo.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "_loops.clowess: x, y and out must have the same length");
        goto done;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = clowess_run(bx.buf, by.buf, n, f, nsteps, delta, bo.buf);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_INCREF(Py_None);
    ret = Py_None;
done:
    PyBuffer_Release(&bx);
    PyBuffer_Release(&by);
    PyBuffer_Release(&bo);
    return ret;
}

/* ------------------------------------------------------------------------------------ */
/* R's x^y (y != 2): pow of the C library                                                 */

static PyObject *py_rpow(PyObject *self, PyObject *args)
{
    PyObject *ox, *oout;
    double y;
    if (!PyArg_ParseTuple(args, "OdO", &ox, &y, &oout)) return NULL;
    Py_buffer bx, bo;
    if (get_vec(ox, &bx, 0, "x") < 0) return NULL;
    if (get_vec(oout, &bo, 1, "out") < 0) {
        PyBuffer_Release(&bx);
        return NULL;
    }
    Py_ssize_t n = bx.shape[0];
    if (bo.shape[0] != n) {
        PyErr_SetString(PyExc_ValueError, "_loops.rpow: x and out must have the same length");
        PyBuffer_Release(&bx);
        PyBuffer_Release(&bo);
        return NULL;
    }
    const double *xp = bx.buf;
    double *op = bo.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) op[i] = (xp[i] == 1.0 || y == 0.0) ? 1.0 : pow(xp[i], y);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bx);
    PyBuffer_Release(&bo);
    Py_RETURN_NONE;
}


/* ------------------------------------------------------------------------------------ */
/* rms lrm.fit: the Fortran LLOGIT of a binary outcome (rms 6.5-0, src/lrmfit.f)          */
/* The NumPy reference is _llogit_binary in calstats/ports/rms/lrm_fit.py; every sum runs  */
/* over the observations in index order, each expression associated as the reference.    */

static int is_i8(const char *f)
{
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++;
    return (f[0] == 'q' || (f[0] == 'l' && sizeof(long) == 8)) && f[1] == 0;
}

/* llogit_binary(X, beta, y, w, u, v, ftable) -> (sum of w log-likelihood terms, divergence).
   X: n x p C-contiguous float64; beta: p + 1; y: int64 0/1; w: n; u: p + 1; v: the packed
   lower triangle; ftable: 5001 x 2 int64 (C order) to add the binned counts to, or None. */
static PyObject *py_llogit_binary(PyObject *self, PyObject *args)
{
    PyObject *oX, *ob, *oy, *ow, *ou, *ov, *ot;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &oX, &ob, &oy, &ow, &ou, &ov, &ot)) return NULL;
    Py_buffer bX, bb, by, bw, bu, bv, bt;
    int have_t = ot != Py_None, held = 0;
    PyObject *ret = NULL;
    if (PyObject_GetBuffer(oX, &bX, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    held = 1;
    if (!is_f8(bX.format) || bX.ndim != 2) {
        PyErr_SetString(PyExc_TypeError, "_loops: X must be a C-contiguous 2-D float64 array");
        goto out;
    }
    if (get_vec(ob, &bb, 0, "beta") < 0) goto out;
    held = 2;
    if (PyObject_GetBuffer(oy, &by, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) goto out;
    held = 3;
    if (!is_i8(by.format) || by.ndim != 1) {
        PyErr_SetString(PyExc_TypeError, "_loops: y must be a contiguous 1-D int64 array");
        goto out;
    }
    if (get_vec(ow, &bw, 0, "w") < 0) goto out;
    held = 4;
    if (get_vec(ou, &bu, 1, "u") < 0) goto out;
    held = 5;
    if (get_vec(ov, &bv, 1, "v") < 0) goto out;
    held = 6;
    if (have_t) {
        if (PyObject_GetBuffer(ot, &bt, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) goto out;
        held = 7;
        if (!is_i8(bt.format) || bt.ndim != 2 || bt.shape[0] != 5001 || bt.shape[1] != 2) {
            PyErr_SetString(PyExc_TypeError, "_loops: ftable must be a 5001 x 2 int64 array");
            goto out;
        }
    }
    Py_ssize_t n = bX.shape[0], p = bX.shape[1], nv = p + 1;
    if (bb.shape[0] != nv || by.shape[0] != n || bw.shape[0] != n || bu.shape[0] != nv
        || bv.shape[0] != nv * (nv + 1) / 2) {
        PyErr_SetString(PyExc_ValueError, "_loops.llogit_binary: inconsistent lengths");
        goto out;
    }
    const double *X = bX.buf, *beta = bb.buf, *w = bw.buf;
    const int64_t *y = by.buf;
    double *u = bu.buf, *v = bv.buf;
    int64_t *ft = have_t ? bt.buf : NULL;
    Py_ssize_t nvv = nv * (nv + 1) / 2;
    double *a = malloc((size_t)nv * sizeof(double));
    if (!a) {
        PyErr_NoMemory();
        goto out;
    }
    double loglik = 0.0;
    int dvrg = 0;
    Py_BEGIN_ALLOW_THREADS
    const Py_ssize_t first = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        const double *xk = X + k * p;
        double e = 0.0 + beta[0] * 1.0;
        for (Py_ssize_t i = 0; i < p; i++) e = e + beta[i + 1] * xk[i];
        double c = e < -30.0 ? -30.0 : (e > 30.0 ? 30.0 : e);
        double cp = 1.0 / (1.0 + exp(-c));
        if (ft) {
            double cell = 5000.0 * cp + 1.0;
            if (cell >= 1.0 && cell < 5002.0 && (y[k] == 0 || y[k] == 1))
                ft[((int64_t)cell - 1) * 2 + y[k]] += (int64_t)(w[k] + 0.5);
        }
        int one = y[k] == 1;
        if (one ? cp <= 0.0 : cp >= 1.0) dvrg = 1; /* unreachable with the clamp; kept as the Fortran */
        if (dvrg) continue;
        double viy = cp * (1.0 - cp);
        double lt = (one ? log(cp) : log(1.0 - cp)) * w[k];
        double r = (one ? 1.0 : 0.0) - cp;
        for (Py_ssize_t i = 0; i < p; i++) a[i + 1] = viy * xk[i];
        a[0] = viy;
        if (k == first) { /* the reference's cumsums start from their first term, its
                             column reductions (u, v past its first entry) from 0.0 */
            loglik = lt;
            u[0] = 0.0 + r * w[k];
            for (Py_ssize_t i = 0; i < p; i++) u[i + 1] = 0.0 + (r * xk[i]) * w[k];
            Py_ssize_t pos = 0;
            for (Py_ssize_t i = 0; i < nv; i++) {
                v[pos] = a[i] * w[k];
                if (pos) v[pos] += 0.0;
                pos++;
                for (Py_ssize_t j = 1; j <= i; j++) v[pos++] = 0.0 + (a[i] * xk[j - 1]) * w[k];
            }
        } else {
            loglik += lt;
            u[0] += r * w[k];
            for (Py_ssize_t i = 0; i < p; i++) u[i + 1] += (r * xk[i]) * w[k];
            Py_ssize_t pos = 0;
            for (Py_ssize_t i = 0; i < nv; i++) {
                v[pos++] += a[i] * w[k];
                for (Py_ssize_t j = 1; j <= i; j++) v[pos++] += (a[i] * xk[j - 1]) * w[k];
            }
        }
    }
    if (n == 0) {
        for (Py_ssize_t i = 0; i < nv; i++) u[i] = 0.0;
        for (Py_ssize_t i = 0; i < nvv; i++) v[i] = 0.0;
    }
    Py_END_ALLOW_THREADS
    free(a);
    ret = Py_BuildValue("(di)", loglik, dvrg);
out:
    if (held >= 7) PyBuffer_Release(&bt);
    if (held >= 6) PyBuffer_Release(&bv);
    if (held >= 5) PyBuffer_Release(&bu);
    if (held >= 4) PyBuffer_Release(&bw);
    if (held >= 3) PyBuffer_Release(&by);
    if (held >= 2) PyBuffer_Release(&bb);
    if (held >= 1) PyBuffer_Release(&bX);
    return ret;
}

static PyMethodDef methods[] = {
    {"clowess", py_clowess, METH_VARARGS,
     "clowess(x, y, f, iter, delta, out): R's lowess fit of sorted x into out (float64 vectors)."},
    {"rpow", py_rpow, METH_VARARGS, "rpow(x, y, out): R's x^y for y != 2 (the C library's pow) into out."},
    {"llogit_binary", py_llogit_binary, METH_VARARGS,
     "llogit_binary(X, beta, y, w, u, v, ftable): rms' LLOGIT sums for a binary outcome."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_loops", "R's scalar loops in C.", -1, methods};

PyMODINIT_FUNC PyInit__loops(void) { return PyModule_Create(&module); }

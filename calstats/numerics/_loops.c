/*
 * calstats.numerics._loops: R's scalar loops that NumPy can only reach with a Python loop
 * or a detour.
 *
 *   clowess   stats::lowess (R's C function clowess/lowest): the local fits in R's order.
 *   rpow      R's x^y for y != 2 on Linux: the C library's pow, element by element.
 *
 * The NumPy references are calstats/ports/stats/lowess.py (_clowess_numpy) and the
 * math.pow loop of calstats/ports/hmisc/rcspline.py; tests/test_lowess_engines.py checks
 * both engines give the same bits (and R's).
 *
 * Floating point rules (the build flags enforce them): no -ffast-math, -ffp-contract=off
 * (no fused multiply-add), every sum a double accumulated in index order from 0.0, as R's
 * C does.  Inputs: C-contiguous float64 vectors (the Python wrappers make them so).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
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

static inline double cube(double v) { return v * v * v; }
static inline double sq(double v) { return v * v; }

/*
 * One local fit at xs over the points lo..(lo + ns - 1) (and the ties to the right): the
 * tricube weights (times rw when userw), normalised, the weighted line through them when
 * x is spread enough, evaluated at xs.  `w` is scratch of length n.  Returns 0 when every
 * weight is zero (the caller keeps y).
 */
static int local_fit(const double *x, const double *y, Py_ssize_t n, double xs, Py_ssize_t lo,
                     Py_ssize_t hi, double *w, int userw, const double *rw, double *out)
{
    double range = x[n - 1] - x[0];
    double dl = xs - x[lo], dr = x[hi] - xs;
    double h = dl < dr ? dr : dl;
    double h9 = 0.999 * h, h1 = 0.001 * h;
    double sw = 0.0;
    Py_ssize_t j = lo;
    for (; j < n; j++) {
        double r = fabs(x[j] - xs);
        w[j] = 0.0;
        if (r <= h9) {
            w[j] = r <= h1 ? 1.0 : cube(1.0 - cube(r / h));
            if (userw) w[j] *= rw[j];
            sw += w[j];
        } else if (x[j] > xs) {
            break;
        }
    }
    Py_ssize_t end = j; /* one past the last point used */
    if (sw <= 0.0) return 0;
    for (j = lo; j < end; j++) w[j] /= sw;
    if (h > 0.0) {
        double mx = 0.0;
        for (j = lo; j < end; j++) mx += w[j] * x[j];
        double b = xs - mx, c = 0.0;
        for (j = lo; j < end; j++) c += w[j] * sq(x[j] - mx);
        if (sqrt(c) > 0.001 * range) {
            b /= c;
            for (j = lo; j < end; j++) w[j] *= (b * (x[j] - mx) + 1.0);
        }
    }
    double s = 0.0;
    for (j = lo; j < end; j++) s += w[j] * y[j];
    *out = s;
    return 1;
}

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

static void clowess_run(const double *x, const double *y, Py_ssize_t n, double f, long nsteps,
                        double delta, double *ys, double *rw, double *res)
{
    if (n < 2) {
        if (n == 1) ys[0] = y[0];
        return;
    }
    double fn = f * (double)n + 1e-7;
    Py_ssize_t ns = fn >= (double)n ? n : (Py_ssize_t)fn;
    if (ns < 2) ns = 2;
    for (long it = 1; it <= nsteps + 1; it++) {
        Py_ssize_t left = 0, right = ns - 1, last = -1, i = 0;
        for (;;) {
            if (right < n - 1 && x[i] - x[left] > x[right + 1] - x[i]) {
                left++;
                right++;
                continue;
            }
            double fit;
            if (!local_fit(x, y, n, x[i], left, right, res, it > 1, rw, &fit)) fit = y[i];
            ys[i] = fit;
            if (last < i - 1) { /* points skipped since the last fit: interpolate */
                double denom = x[i] - x[last];
                for (Py_ssize_t j = last + 1; j < i; j++) {
                    double alpha = (x[j] - x[last]) / denom;
                    ys[j] = alpha * ys[i] + (1.0 - alpha) * ys[last];
                }
            }
            last = i;
            double cut = x[last] + delta;
            for (i = last + 1; i < n; i++) {
                if (x[i] > cut) break;
                if (x[i] == x[last]) { /* a tie takes the fitted value */
                    ys[i] = ys[last];
                    last = i;
                }
            }
            i = (last + 1 > i - 1) ? last + 1 : i - 1;
            if (last >= n - 1) break;
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
    double *scratch = n > 0 ? malloc(2 * (size_t)n * sizeof(double)) : NULL;
    if (n > 0 && !scratch) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    if (n > 0) memset(scratch, 0, 2 * (size_t)n * sizeof(double));
    clowess_run(bx.buf, by.buf, n, f, nsteps, delta, bo.buf, scratch, scratch + n);
    Py_END_ALLOW_THREADS
    free(scratch);
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

static PyMethodDef methods[] = {
    {"clowess", py_clowess, METH_VARARGS,
     "clowess(x, y, f, iter, delta, out): R's lowess fit of sorted x into out (float64 vectors)."},
    {"rpow", py_rpow, METH_VARARGS, "rpow(x, y, out): R's x^y for y != 2 (the C library's pow) into out."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_loops", "R's scalar loops in C.", -1, methods};

PyMODINIT_FUNC PyInit__loops(void) { return PyModule_Create(&module); }

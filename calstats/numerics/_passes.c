/*
 * calstats.numerics._passes: one-pass reductions in R's arithmetic.
 *
 * R's sum, mean, rowSums and colSums accumulate doubles in a long double, term by term in
 * index order; its products go through the reference BLAS, which accumulates in double in
 * a fixed order; glm.fit's least squares are LINPACK's dqrdc2/dqrsl.  The NumPy code in
 * calstats/numerics/reductions.py, calstats/evaluation/scores.py and
 * calstats/numerics/glm.py is the executable reference; tests/test_passes.py asserts bit
 * identity between the two.  Why C: NumPy can only reach R's order by widening whole
 * arrays to long double (16 bytes per element, several temporaries per pass).
 *
 * Floating point rules kept on purpose (and checked by the build flags):
 *   - no -ffast-math (no reassociation), -ffp-contract=off (no FMA changes a rounding);
 *   - x86-64 `long double` is the 80-bit x87 type of NumPy's longdouble, so a sequential
 *     long double accumulation gives NumPy's (and R's) bits;
 *   - exp/log/log1p are the C library's (glibc), as R calls them;
 *   - every sum adds its terms in R's order.  Independent sums (rows, columns) may run on
 *     two threads; one sum never is split.
 *
 * Inputs are read through the buffer protocol with their strides, float64 or float32
 * (widened per element, exactly); the Python wrappers (calstats/numerics/passes.py)
 * check shapes and allocate outputs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_portable.h"

#ifdef __FAST_MATH__
#error "calstats' C passes must not be compiled with -ffast-math: it would change R's numbers"
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

typedef long double LD;

/* ------------------------------------------------------------------------------------ */
/* two threads                                                                            */

/* Below this many elements a pass costs less than starting a thread. */
#define PAR_MIN 32768

typedef void (*range_fn)(void *ctx, Py_ssize_t i0, Py_ssize_t i1);

typedef struct {
    range_fn f;
    void *ctx;
    Py_ssize_t n, h;
} par_job;

static void *par_second(void *a)
{
    par_job *j = a;
    j->f(j->ctx, j->h, j->n);
    return NULL;
}

static int par_split(Py_ssize_t n, double work, int threads) { return threads >= 2 && n >= 2 && work >= PAR_MIN; }

/* f(ctx, 0, n) as f(ctx, 0, n/2) here and f(ctx, n/2, n) on a second thread when `work`
   (elements touched) pays for it (par_split); inline if no thread can be started. */
static void par_for(range_fn f, void *ctx, Py_ssize_t n, double work, int threads)
{
    if (!par_split(n, work, threads)) {
        f(ctx, 0, n);
        return;
    }
    par_job job = {f, ctx, n, n / 2};
    cs_thread_t th;
    int started = cs_thread_create(&th, par_second, &job) == 0;
    f(ctx, 0, job.h);
    if (started) cs_thread_join(&th);
    else f(ctx, job.h, n);
}

/* ------------------------------------------------------------------------------------ */
/* array views                                                                            */

typedef struct {
    Py_buffer view;
    int held;
    const char *b;
    Py_ssize_t n0, n1, s0, s1; /* a 1-D array is 1 x n */
    int f32;
} arr_t;

static void rel(arr_t *a)
{
    if (a->held) PyBuffer_Release(&a->view);
    a->held = 0;
}

/* 8 for native double, 4 for native float, 0 otherwise */
static int fmt_kind(const char *f)
{
    if (!f) return 0;
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (f[0] == 'd' && f[1] == 0) return 8;
    if (f[0] == 'f' && f[1] == 0) return 4;
    return 0;
}

/* A float64 or float32 array of 1 or 2 dimensions, any strides. */
static int get_arr(PyObject *o, arr_t *a, const char *what)
{
    a->held = 0;
    if (PyObject_GetBuffer(o, &a->view, PyBUF_RECORDS_RO) < 0) return -1;
    a->held = 1;
    int kind = fmt_kind(a->view.format);
    if (!kind || a->view.ndim < 1 || a->view.ndim > 2) {
        PyErr_Format(PyExc_TypeError, "_passes: %s must be a 1-D or 2-D float64/float32 array", what);
        rel(a);
        return -1;
    }
    a->f32 = kind == 4;
    a->b = a->view.buf;
    if (a->view.ndim == 1) {
        a->n0 = 1;
        a->s0 = 0;
        a->n1 = a->view.shape[0];
        a->s1 = a->view.strides[0];
    } else {
        a->n0 = a->view.shape[0];
        a->n1 = a->view.shape[1];
        a->s0 = a->view.strides[0];
        a->s1 = a->view.strides[1];
    }
    return 0;
}

/* A writable contiguous buffer (the caller knows its order) of at least `count` items of `size` bytes. */
static int get_out(PyObject *o, Py_buffer *v, Py_ssize_t count, Py_ssize_t size, const char *what)
{
    if (PyObject_GetBuffer(o, v, PyBUF_WRITABLE | PyBUF_ANY_CONTIGUOUS) < 0) return -1;
    if (v->len < count * size) {
        PyErr_Format(PyExc_ValueError, "_passes: buffer %s too small", what);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

/* A read-only contiguous buffer of at least `count` items of `size` bytes (codes, vectors). */
static int get_in(PyObject *o, Py_buffer *v, Py_ssize_t count, Py_ssize_t size, const char *what)
{
    if (PyObject_GetBuffer(o, v, PyBUF_ANY_CONTIGUOUS) < 0) return -1;
    if (v->len < count * size) {
        PyErr_Format(PyExc_ValueError, "_passes: buffer %s too small", what);
        PyBuffer_Release(v);
        return -1;
    }
    return 0;
}

#define ELEM(T, p) ((double)*(const T *)(p))

/*
 * A double widened to long double in a register of its own before it is added.  NumPy
 * widens whole arrays first (astype), so a signalling NaN (R's NA is one) is quieted by
 * the load and two NaNs then meet as quiet NaNs (the larger payload wins, R's NA over
 * NaN in sum() and mean()); an x87 add straight from memory would keep the accumulator's
 * NaN instead.  The empty asm only stops the compiler from folding the load into the add.
 */
static inline LD widen(double x)
{
    LD v = x;
    __asm__("" : "+t"(v));
    return v;
}

/* ------------------------------------------------------------------------------------ */
/* R's sum and mean                                                                       */

/* R's rsum(): a long double from 0, then +-Inf beyond the double range, else rounded. */
static double r_round_sum(LD s)
{
    if (s > DBL_MAX) return INFINITY;
    if (s < -DBL_MAX) return -INFINITY;
    return (double)s;
}

/* Sums of the elements in row-major order: the long double sum from 0, and (mode 1) of
   x/n in double (R's mean when the sum overflows), (mode 2) of x - c. */
#define DEF_WALK(T, SUF)                                                                        \
    static LD walk_##SUF(const arr_t *a, int mode, double dn, LD c)                             \
    {                                                                                           \
        LD s = 0.0L;                                                                            \
        for (Py_ssize_t i = 0; i < a->n0; i++) {                                                \
            const char *r = a->b + i * a->s0;                                                   \
            if (a->s1 == (Py_ssize_t)sizeof(T)) {                                               \
                const T *q = (const T *)r;                                                      \
                if (mode == 0)                                                                  \
                    for (Py_ssize_t j = 0; j < a->n1; j++) s += widen((double)q[j]);            \
                else if (mode == 1)                                                             \
                    for (Py_ssize_t j = 0; j < a->n1; j++) s += widen((double)q[j] / dn);       \
                else                                                                            \
                    for (Py_ssize_t j = 0; j < a->n1; j++) s += widen((double)q[j]) - c;        \
            } else {                                                                            \
                if (mode == 0)                                                                  \
                    for (Py_ssize_t j = 0; j < a->n1; j++) s += widen(ELEM(T, r + j * a->s1));  \
                else if (mode == 1)                                                             \
                    for (Py_ssize_t j = 0; j < a->n1; j++) s += widen(ELEM(T, r + j * a->s1) / dn); \
                else                                                                            \
                    for (Py_ssize_t j = 0; j < a->n1; j++)                                      \
                        s += widen(ELEM(T, r + j * a->s1)) - c;                                 \
            }                                                                                   \
        }                                                                                       \
        return s;                                                                               \
    }
DEF_WALK(double, d)
DEF_WALK(float, f)

static LD walk(const arr_t *a, int mode, double dn, LD c)
{
    return a->f32 ? walk_f(a, mode, dn, c) : walk_d(a, mode, dn, c);
}

static int finite_as_double(LD s)
{
    volatile double d = (double)s;
    return isfinite(d);
}

/* R's real_mean (summary.c): the long double sum over n, or the sum of x/n when the sum
   leaves the double range; then the correction sum(x - s)/n when that is finite. */
static double r_mean(const arr_t *a)
{
    const Py_ssize_t n = a->n0 * a->n1;
    if (n == 0) return NAN;
    const LD ln = (LD)n;
    LD s = walk(a, 0, 0.0, 0.0L);
    if (finite_as_double(s)) s /= ln;
    else s = walk(a, 1, (double)n, 0.0L);
    if (finite_as_double(s)) {
        LD t = walk(a, 2, 0.0, s);
        s += t / ln;
    }
    return (double)s;
}

/* The same on a contiguous double vector (the metrics' per-observation terms). */
static LD vsum(const double *x, Py_ssize_t n)
{
    LD s = 0.0L;
    for (Py_ssize_t i = 0; i < n; i++) s += widen(x[i]);
    return s;
}

static double r_mean_vec(const double *x, Py_ssize_t n)
{
    if (n == 0) return NAN;
    const LD ln = (LD)n;
    LD s = vsum(x, n);
    if (finite_as_double(s)) {
        s /= ln;
    } else {
        const double dn = (double)n;
        s = 0.0L;
        for (Py_ssize_t i = 0; i < n; i++) s += widen(x[i] / dn);
    }
    if (finite_as_double(s)) {
        LD t = 0.0L;
        for (Py_ssize_t i = 0; i < n; i++) t += widen(x[i]) - s;
        s += t / ln;
    }
    return (double)s;
}

/* rsum(x) -> R's sum() */
static PyObject *py_rsum(PyObject *self, PyObject *args)
{
    PyObject *x;
    arr_t a = {0};
    if (!PyArg_ParseTuple(args, "O", &x)) return NULL;
    if (get_arr(x, &a, "x") < 0) return NULL;
    LD s;
    Py_BEGIN_ALLOW_THREADS
    s = walk(&a, 0, 0.0, 0.0L);
    Py_END_ALLOW_THREADS
    rel(&a);
    return PyFloat_FromDouble(r_round_sum(s));
}

/* rmean(x) -> R's mean() */
static PyObject *py_rmean(PyObject *self, PyObject *args)
{
    PyObject *x;
    arr_t a = {0};
    if (!PyArg_ParseTuple(args, "O", &x)) return NULL;
    if (get_arr(x, &a, "x") < 0) return NULL;
    double m;
    Py_BEGIN_ALLOW_THREADS
    m = r_mean(&a);
    Py_END_ALLOW_THREADS
    rel(&a);
    return PyFloat_FromDouble(m);
}

/* ------------------------------------------------------------------------------------ */
/* lanes: many independent long double sums (rowSums, colSums, per-row Brier terms)       */

/*
 * out[l] = (double)(0 + t(l, 0) + t(l, 1) + ...) for lanes l, where t(l, e) is a term of
 * the element at b + l*ls + e*es.  Four lanes advance together with their accumulators
 * in registers (independent chains hide the x87 latency).  When the lanes are the faster
 * axis and the sums long, tiles of lanes x elements keep the data in cache and the
 * accumulators go to memory once per tile.  Each lane still adds its terms in order.
 */
#define LANE_BLOCK 1024
#define TILE_BYTES 131072

enum { LANES_PLAIN, LANES_BRIER, LANES_PROD };

typedef struct {
    const char *b;
    Py_ssize_t ls, ne, es;
    const void *ctx; /* Brier: 1-based class of each lane (int64); products: the other factor */
    double *out;
    int f32, kind;
} lanes_t;

/* terms: the element; the Brier term (v - 1{class})^2; the product with the other factor */
#define TERM_PLAIN(v, l, e) (v)
#define TERM_BRIER(v, l, e) sqd((v) - (double)((e) + 1 == ((const int64_t *)ctx)[(l)]))
#define TERM_PROD(v, l, e) ((v) * ((const double *)ctx)[(e)])

static inline double same_d(double x) { return x; }

static inline double sqd(double d) { return d * d; }

/* lanes L.. L+G-1 (G = 4, 2, 1) over elements [e0, e1), accumulators A[0..G-1] */
#define LANES_G4(T, TERM, ACC, WID, L, e0, e1, A)                                               \
    do {                                                                                        \
        const char *p0 = b + (L) * ls, *p1 = p0 + ls, *p2 = p1 + ls, *p3 = p2 + ls;             \
        ACC a0 = (A)[0], a1 = (A)[1], a2 = (A)[2], a3 = (A)[3];                                 \
        for (Py_ssize_t e = (e0); e < (e1); e++) {                                              \
            const Py_ssize_t o = e * es;                                                        \
            a0 += WID(TERM(ELEM(T, p0 + o), (L), e));                                           \
            a1 += WID(TERM(ELEM(T, p1 + o), (L) + 1, e));                                       \
            a2 += WID(TERM(ELEM(T, p2 + o), (L) + 2, e));                                       \
            a3 += WID(TERM(ELEM(T, p3 + o), (L) + 3, e));                                       \
        }                                                                                       \
        (A)[0] = a0;                                                                            \
        (A)[1] = a1;                                                                            \
        (A)[2] = a2;                                                                            \
        (A)[3] = a3;                                                                            \
    } while (0)
#define LANES_G2(T, TERM, ACC, WID, L, e0, e1, A)                                               \
    do {                                                                                        \
        const char *p0 = b + (L) * ls, *p1 = p0 + ls;                                           \
        ACC a0 = (A)[0], a1 = (A)[1];                                                           \
        for (Py_ssize_t e = (e0); e < (e1); e++) {                                              \
            const Py_ssize_t o = e * es;                                                        \
            a0 += WID(TERM(ELEM(T, p0 + o), (L), e));                                           \
            a1 += WID(TERM(ELEM(T, p1 + o), (L) + 1, e));                                       \
        }                                                                                       \
        (A)[0] = a0;                                                                            \
        (A)[1] = a1;                                                                            \
    } while (0)
#define LANES_G1(T, TERM, ACC, WID, L, e0, e1, A)                                               \
    do {                                                                                        \
        const char *p0 = b + (L) * ls;                                                          \
        ACC a0 = (A)[0];                                                                        \
        for (Py_ssize_t e = (e0); e < (e1); e++) a0 += WID(TERM(ELEM(T, p0 + e * es), (L), e)); \
        (A)[0] = a0;                                                                            \
    } while (0)
/* all lanes of [l0, l0 + nb) over elements [e0, e1), accumulators acc[0..nb-1] */
#define LANES_BLOCK(T, TERM, ACC, WID, l0, nb, e0, e1, acc)                                     \
    do {                                                                                        \
        Py_ssize_t i_ = 0;                                                                      \
        for (; i_ + 4 <= (nb); i_ += 4) LANES_G4(T, TERM, ACC, WID, (l0) + i_, e0, e1, (acc) + i_); \
        if (i_ + 2 <= (nb)) {                                                                   \
            LANES_G2(T, TERM, ACC, WID, (l0) + i_, e0, e1, (acc) + i_);                         \
            i_ += 2;                                                                            \
        }                                                                                       \
        if (i_ < (nb)) LANES_G1(T, TERM, ACC, WID, (l0) + i_, e0, e1, (acc) + i_);              \
    } while (0)

#define DEF_LANES(NAME, T, TERM, ACC, WID)                                                      \
    static void NAME(const char *b, Py_ssize_t nl, Py_ssize_t ls, Py_ssize_t ne,                \
                     Py_ssize_t es, const void *ctx, double *out)                               \
    {                                                                                           \
        (void)ctx;                                                                              \
        ACC acc[LANE_BLOCK];                                                                    \
        const Py_ssize_t nbmax = nl < LANE_BLOCK ? nl : LANE_BLOCK;                             \
        Py_ssize_t ch = TILE_BYTES / ((nbmax > 0 ? nbmax : 1) * (Py_ssize_t)sizeof(T));         \
        if (ch < 8) ch = 8;                                                                     \
        /* the summed axis is the faster one, or short: whole lanes, one chunk */            \
        if ((es < 0 ? -es : es) <= (ls < 0 ? -ls : ls) || nl < 8 || ne <= ch) ch = ne;          \
        for (Py_ssize_t l0 = 0; l0 < nl; l0 += LANE_BLOCK) {                                    \
            const Py_ssize_t nb = nl - l0 < LANE_BLOCK ? nl - l0 : LANE_BLOCK;                  \
            for (Py_ssize_t i = 0; i < nb; i++) acc[i] = 0.0;                                   \
            for (Py_ssize_t e0 = 0; e0 < ne; e0 += ch) {                                        \
                const Py_ssize_t e1 = ne - e0 < ch ? ne : e0 + ch;                              \
                LANES_BLOCK(T, TERM, ACC, WID, l0, nb, e0, e1, acc);                            \
            }                                                                                   \
            for (Py_ssize_t i = 0; i < nb; i++) out[l0 + i] = (double)acc[i];                   \
        }                                                                                       \
    }

DEF_LANES(lanes_plain_d, double, TERM_PLAIN, LD, widen)
DEF_LANES(lanes_plain_f, float, TERM_PLAIN, LD, widen)
DEF_LANES(lanes_brier_d, double, TERM_BRIER, LD, widen)
DEF_LANES(lanes_brier_f, float, TERM_BRIER, LD, widen)
/* reference-BLAS products: double accumulators */
DEF_LANES(lanes_prod_d, double, TERM_PROD, double, same_d)
DEF_LANES(lanes_prod_f, float, TERM_PROD, double, same_d)

static void lanes_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const lanes_t *c = ctx;
    const char *b = c->b + i0 * c->ls;
    double *out = c->out + i0;
    const Py_ssize_t nl = i1 - i0;
    if (c->kind == LANES_BRIER) {
        const int64_t *codes = (const int64_t *)c->ctx + i0;
        if (c->f32) lanes_brier_f(b, nl, c->ls, c->ne, c->es, codes, out);
        else lanes_brier_d(b, nl, c->ls, c->ne, c->es, codes, out);
    } else if (c->kind == LANES_PROD) {
        if (c->f32) lanes_prod_f(b, nl, c->ls, c->ne, c->es, c->ctx, out);
        else lanes_prod_d(b, nl, c->ls, c->ne, c->es, c->ctx, out);
    } else {
        if (c->f32) lanes_plain_f(b, nl, c->ls, c->ne, c->es, NULL, out);
        else lanes_plain_d(b, nl, c->ls, c->ne, c->es, NULL, out);
    }
}

/* lane_sums(m, axis, out, threads): axis 1 = rowSums (n0 lanes), axis 0 = colSums (n1 lanes) */
static PyObject *py_lane_sums(PyObject *self, PyObject *args)
{
    PyObject *m, *out;
    int axis, threads;
    arr_t a = {0};
    Py_buffer vo;
    if (!PyArg_ParseTuple(args, "OiOi", &m, &axis, &out, &threads)) return NULL;
    if (get_arr(m, &a, "m") < 0) return NULL;
    lanes_t c = {a.b, axis ? a.s0 : a.s1, axis ? a.n1 : a.n0, axis ? a.s1 : a.s0, NULL, NULL, a.f32, LANES_PLAIN};
    const Py_ssize_t nl = axis ? a.n0 : a.n1;
    if (get_out(out, &vo, nl, sizeof(double), "out") < 0) { rel(&a); return NULL; }
    c.out = vo.buf;
    Py_BEGIN_ALLOW_THREADS
    /* two threads only where each streams its own lanes (the summed axis is the faster) */
    const int split = (c.es < 0 ? -c.es : c.es) <= (c.ls < 0 ? -c.ls : c.ls);
    par_for(lanes_range, &c, nl, (double)nl * (double)c.ne, split ? threads : 1);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&vo);
    rel(&a);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------ */
/* reference-BLAS products: double accumulation from 0 in index order                      */

/* dot(a, b) -> sum_i a_i b_i */
#define DEF_DOT(T, SUF)                                                                         \
    static double dot_##SUF(const char *a, Py_ssize_t sa, const char *b, Py_ssize_t sb,         \
                            Py_ssize_t n, int bf32)                                             \
    {                                                                                           \
        double s = 0.0;                                                                         \
        if (bf32)                                                                               \
            for (Py_ssize_t i = 0; i < n; i++) s += ELEM(T, a + i * sa) * ELEM(float, b + i * sb); \
        else                                                                                    \
            for (Py_ssize_t i = 0; i < n; i++) s += ELEM(T, a + i * sa) * ELEM(double, b + i * sb); \
        return s;                                                                               \
    }
DEF_DOT(double, d)
DEF_DOT(float, f)

static PyObject *py_dot(PyObject *self, PyObject *args)
{
    PyObject *x, *y;
    arr_t a = {0}, b = {0};
    if (!PyArg_ParseTuple(args, "OO", &x, &y)) return NULL;
    if (get_arr(x, &a, "a") < 0) return NULL;
    if (get_arr(y, &b, "b") < 0) { rel(&a); return NULL; }
    if (a.n0 != 1 || b.n0 != 1 || a.n1 != b.n1) {
        rel(&a);
        rel(&b);
        PyErr_SetString(PyExc_ValueError, "_passes: dot needs two vectors of one length");
        return NULL;
    }
    double s;
    Py_BEGIN_ALLOW_THREADS
    s = a.f32 ? dot_f(a.b, a.s1, b.b, b.s1, a.n1, b.f32) : dot_d(a.b, a.s1, b.b, b.s1, a.n1, b.f32);
    Py_END_ALLOW_THREADS
    rel(&a);
    rel(&b);
    return PyFloat_FromDouble(s);
}

/*
 * crossprod: C[j, l] = 0 + a[0, j] b[0, l] + a[1, j] b[1, l] + ... in double (dgemm's
 * TEMP).  Up to four columns of b: the lanes above, one column of C at a time.  More:
 * output tiles of TJ x TL entries stay in L1; for each row i the tile's slice of row i of
 * a and b is copied (widened) to contiguous scratch, so the innermost loop is a
 * contiguous multiply-add over independent entries that the compiler may vectorise.
 */
#define TJ 64
#define TL 64

typedef struct {
    arr_t *a, *b;
    double *out; /* ka x kb, C order */
    volatile int nomem;
} cp_t;

static inline void load_row(const arr_t *x, Py_ssize_t i, Py_ssize_t j0, Py_ssize_t nj, double *dst)
{
    const char *r = x->b + i * x->s0 + j0 * x->s1;
    if (x->f32)
        for (Py_ssize_t j = 0; j < nj; j++) dst[j] = ELEM(float, r + j * x->s1);
    else
        for (Py_ssize_t j = 0; j < nj; j++) dst[j] = ELEM(double, r + j * x->s1);
}

HOT static void cp_tile(const arr_t *a, const arr_t *b, Py_ssize_t j0, Py_ssize_t nj, Py_ssize_t l0,
                        Py_ssize_t nl, double *acc, double *arow, double *brow)
{
    const Py_ssize_t n = a->n0;
    for (Py_ssize_t q = 0; q < nj * nl; q++) acc[q] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        load_row(a, i, j0, nj, arow);
        load_row(b, i, l0, nl, brow);
        for (Py_ssize_t j = 0; j < nj; j++) {
            const double aij = arow[j];
            double *c = acc + j * nl;
            for (Py_ssize_t l = 0; l < nl; l++) c[l] += aij * brow[l];
        }
    }
}

static void cp_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    cp_t *c = ctx;
    const Py_ssize_t kb = c->b->n1;
    const Py_ssize_t tj = TJ, tl = TL;
    double *acc = malloc(sizeof(double) * (size_t)(tj * tl + tj + tl));
    if (!acc) {
        c->nomem = 1;
        return;
    }
    double *arow = acc + tj * tl, *brow = arow + tj;
    for (Py_ssize_t j0 = i0; j0 < i1; j0 += tj) {
        const Py_ssize_t nj = i1 - j0 < tj ? i1 - j0 : tj;
        for (Py_ssize_t l0 = 0; l0 < kb; l0 += tl) {
            const Py_ssize_t nl = kb - l0 < tl ? kb - l0 : tl;
            cp_tile(c->a, c->b, j0, nj, l0, nl, acc, arow, brow);
            for (Py_ssize_t j = 0; j < nj; j++)
                memcpy(c->out + (j0 + j) * kb + l0, acc + j * nl, sizeof(double) * (size_t)nl);
        }
    }
    free(acc);
}

/* crossprod(a, b, out, threads): a n x ka, b n x kb, out ka x kb (C order) */
static PyObject *py_crossprod(PyObject *self, PyObject *args)
{
    PyObject *x, *y, *out;
    int threads;
    arr_t a = {0}, b = {0};
    Py_buffer vo;
    if (!PyArg_ParseTuple(args, "OOOi", &x, &y, &out, &threads)) return NULL;
    if (get_arr(x, &a, "a") < 0) return NULL;
    if (get_arr(y, &b, "b") < 0) { rel(&a); return NULL; }
    if (a.view.ndim != 2 || b.view.ndim != 2 || a.n0 != b.n0) {
        rel(&a);
        rel(&b);
        PyErr_SetString(PyExc_ValueError, "_passes: crossprod needs two matrices with as many rows");
        return NULL;
    }
    if (get_out(out, &vo, a.n1 * b.n1, sizeof(double), "out") < 0) { rel(&a); rel(&b); return NULL; }
    cp_t c = {&a, &b, vo.buf, 0};
    const Py_ssize_t n = a.n0, ka = a.n1, kb = b.n1;
    double *col = NULL, *tmp = NULL;
    if (kb <= 4 && ka > 0 && kb > 0) {
        col = malloc(sizeof(double) * (size_t)(n + ka + 1));
        if (!col) {
            PyBuffer_Release(&vo);
            rel(&a);
            rel(&b);
            return PyErr_NoMemory();
        }
        tmp = col + n;
    }
    Py_BEGIN_ALLOW_THREADS
    if (col) {
        /* a few columns of b: each a column of sums over a's columns (the lanes), the
           factor of b widened once */
        for (Py_ssize_t l = 0; l < kb; l++) {
            const char *bc = b.b + l * b.s1;
            if (b.f32)
                for (Py_ssize_t i = 0; i < n; i++) col[i] = ELEM(float, bc + i * b.s0);
            else
                for (Py_ssize_t i = 0; i < n; i++) col[i] = ELEM(double, bc + i * b.s0);
            lanes_t ln = {a.b, a.s1, n, a.s0, col, tmp, a.f32, LANES_PROD};
            const int split = (a.s0 < 0 ? -a.s0 : a.s0) <= (a.s1 < 0 ? -a.s1 : a.s1);
            par_for(lanes_range, &ln, ka, (double)n * (double)ka, split ? threads : 1);
            for (Py_ssize_t j = 0; j < ka; j++) c.out[j * kb + l] = tmp[j];
        }
    } else {
        par_for(cp_range, &c, ka, (double)n * (double)ka * (double)kb, threads);
    }
    Py_END_ALLOW_THREADS
    free(col);
    PyBuffer_Release(&vo);
    rel(&a);
    rel(&b);
    if (c.nomem) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------ */
/* the metrics: Brier score and log-loss                                                  */

#define LOSS_EPS 1e-15

/* np.minimum(np.maximum(v, eps), 1 - eps): NaN passes through */
static inline double clip_loss(double v)
{
    double q = v < LOSS_EPS ? LOSS_EPS : v;
    return q > 1.0 - LOSS_EPS ? 1.0 - LOSS_EPS : q;
}

typedef struct {
    arr_t *p;          /* n (vector) or n x k */
    const double *y;   /* binary labels, or NULL */
    const int64_t *codes; /* multiclass 1-based classes, or NULL */
    double *e;         /* per-observation terms */
    volatile int bad;  /* a class code outside 1..k was met */
} terms_t;

#define DEF_BIN_TERMS(NAME, T, EXPR)                                                            \
    static void NAME(const terms_t *c, Py_ssize_t i0, Py_ssize_t i1)                            \
    {                                                                                           \
        const arr_t *a = c->p;                                                                  \
        for (Py_ssize_t i = i0; i < i1; i++) {                                                  \
            const double p = ELEM(T, a->b + i * a->s1), y = c->y[i];                            \
            c->e[i] = EXPR;                                                                     \
        }                                                                                       \
    }
/* (p - y)^2 */
#define EXPR_BRIER sqd(p - y)
/* y log(q) + (1 - y) log1p(-q), q the clipped p */
#define EXPR_LOGLIK (y * log(clip_loss(p)) + (1.0 - y) * log1p(-clip_loss(p)))
DEF_BIN_TERMS(bin_brier_d, double, EXPR_BRIER)
DEF_BIN_TERMS(bin_brier_f, float, EXPR_BRIER)
DEF_BIN_TERMS(bin_loglik_d, double, EXPR_LOGLIK)
DEF_BIN_TERMS(bin_loglik_f, float, EXPR_LOGLIK)

static void bin_brier_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const terms_t *c = ctx;
    if (c->p->f32) bin_brier_f(c, i0, i1);
    else bin_brier_d(c, i0, i1);
}

static void bin_loglik_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const terms_t *c = ctx;
    if (c->p->f32) bin_loglik_f(c, i0, i1);
    else bin_loglik_d(c, i0, i1);
}

/* log(clip(p[i, codes[i] - 1])) */
static void mc_loglik_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const terms_t *c = ctx;
    const arr_t *a = c->p;
    terms_t *m = ctx;
    for (Py_ssize_t i = i0; i < i1; i++) {
        const int64_t k = c->codes[i];
        if (k < 1 || k > a->n1) {
            m->bad = 1;
            c->e[i] = NAN;
            continue;
        }
        const char *q = a->b + i * a->s0 + (k - 1) * a->s1;
        const double v = a->f32 ? ELEM(float, q) : ELEM(double, q);
        c->e[i] = log(clip_loss(v));
    }
}

/* The mean of the terms, or with weights sum(w e)/sum(w) (R's sums, rounded each). */
static double finish_mean(const double *e, Py_ssize_t n, const double *w)
{
    if (!w) return r_mean_vec(e, n);
    LD swe = 0.0L, sw = 0.0L;
    for (Py_ssize_t i = 0; i < n; i++) swe += widen(w[i] * e[i]);
    for (Py_ssize_t i = 0; i < n; i++) sw += widen(w[i]);
    return r_round_sum(swe) / r_round_sum(sw);
}

/*
 * score(kind, p, y_or_codes, weights_or_None, threads) -> float
 * kind 0: binary Brier, 1: multiclass Brier, 2: binary log-likelihood mean,
 * 3: multiclass log-likelihood mean (the caller negates the last two).
 */
static PyObject *py_score(PyObject *self, PyObject *args)
{
    int kind, threads;
    PyObject *p, *y, *wo;
    arr_t a = {0};
    Py_buffer vy, vw;
    int have_w = 0;
    if (!PyArg_ParseTuple(args, "iOOOi", &kind, &p, &y, &wo, &threads)) return NULL;
    if (kind < 0 || kind > 3) {
        PyErr_SetString(PyExc_ValueError, "_passes: unknown score");
        return NULL;
    }
    if (get_arr(p, &a, "p") < 0) return NULL;
    const int matrix = kind == 1 || kind == 3;
    if (matrix != (a.view.ndim == 2)) {
        rel(&a);
        PyErr_SetString(PyExc_ValueError, "_passes: score shape");
        return NULL;
    }
    const Py_ssize_t n = matrix ? a.n0 : a.n1;
    if (get_in(y, &vy, n, matrix ? sizeof(int64_t) : sizeof(double), "y") < 0) { rel(&a); return NULL; }
    if (wo != Py_None) {
        if (get_in(wo, &vw, n, sizeof(double), "weights") < 0) { PyBuffer_Release(&vy); rel(&a); return NULL; }
        have_w = 1;
    }
    double *e = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!e) {
        if (have_w) PyBuffer_Release(&vw);
        PyBuffer_Release(&vy);
        rel(&a);
        return PyErr_NoMemory();
    }
    terms_t c = {&a, matrix ? NULL : vy.buf, matrix ? vy.buf : NULL, e, 0};
    double r;
    Py_BEGIN_ALLOW_THREADS
    if (kind == 0) {
        par_for(bin_brier_range, &c, n, 0.25 * (double)n, threads);
    } else if (kind == 2) {
        par_for(bin_loglik_range, &c, n, 8.0 * (double)n, threads);
    } else if (kind == 3) {
        par_for(mc_loglik_range, &c, n, 4.0 * (double)n, threads);
    } else {
        lanes_t l = {a.b, a.s0, a.n1, a.s1, c.codes, e, a.f32, LANES_BRIER};
        par_for(lanes_range, &l, n, (double)n * (double)a.n1, threads);
    }
    r = finish_mean(e, n, have_w ? vw.buf : NULL);
    Py_END_ALLOW_THREADS
    free(e);
    if (have_w) PyBuffer_Release(&vw);
    PyBuffer_Release(&vy);
    rel(&a);
    if (c.bad) {
        PyErr_SetString(PyExc_ValueError, "_passes: class codes must be in 1..k");
        return NULL;
    }
    return PyFloat_FromDouble(r);
}

/* ------------------------------------------------------------------------------------ */
/* glm.fit for binomial(link = "logit"): R's family.c and LINPACK dqrdc2/dqrsl              */

#define G_EPS DBL_EPSILON
#define G_INVEPS (1.0 / DBL_EPSILON)
#define G_THRESH 30.0

/* logit_linkinv */
static inline double g_linkinv(double eta)
{
    double t;
    if (eta < -G_THRESH) t = G_EPS;
    else if (eta > G_THRESH) t = G_INVEPS;
    else t = exp(eta);
    return t / (1.0 + t);
}

/* logit_mu_eta */
static inline double g_mu_eta(double eta)
{
    if (eta > G_THRESH || eta < -G_THRESH) return G_EPS;
    const double e = exp(eta), o = 1.0 + e;
    return e / (o * o);
}

static inline double g_ylogy(double y, double mu) { return y != 0.0 ? y * log(y / mu) : 0.0; }

/* binomial_dev_resids */
static inline double g_dev(double y, double mu, const double *wt, Py_ssize_t i)
{
    const double r = g_ylogy(y, mu) + g_ylogy(1.0 - y, 1.0 - mu);
    return wt ? (2.0 * wt[i]) * r : 2.0 * r;
}

/* R 4.2's bd0(x, np) as the vectorised reference evaluates it */
static double g_bd0(double x, double np)
{
    if (fabs(x - np) < 0.1 * (x + np)) {
        double v = (x - np) / (x + np);
        double s = (x - np) * v;
        if (fabs(s) < DBL_MIN) return s;
        double ej = 2.0 * x * v;
        v = v * v;
        for (int j = 1; j < 1000; j++) {
            ej = ej * v;
            const double s1 = s + ej / (double)((j << 1) + 1);
            if (s1 == s) return s1;
            s = s1;
        }
        return s;
    }
    return x * log(x / np) + np - x;
}

/* dbinom(round(y), 1, mu, log = TRUE) (R 4.2's dbinom_raw for size 1) */
static inline double g_dbinom1(double y, double p)
{
    const double x = nearbyint(y), q = 1.0 - p;
    const int zero = x == 0.0;
    if (p == 0.0) return zero ? 0.0 : -INFINITY;
    if (q == 0.0) return zero ? -INFINITY : 0.0;
    if (zero) return p < 0.1 ? -g_bd0(1.0, q) - p : log(q);
    return q < 0.1 ? -g_bd0(1.0, p) - q : log(p);
}

typedef struct {
    const double *eta, *mu, *y, *off, *wt, *ex;
    double *z, *w, *mev, *e;
    const arr_t *X;
    const double *beta;
    double *eta_out, *mu_out, *ex_out;
    int kind;
    LD dev0;            /* the deviance terms of the first part, summed in order */
    Py_ssize_t h;       /* first observation of the second part (its terms go to e[i - h]) */
} glm_t;

static void glm_working_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const glm_t *c = ctx;
    for (Py_ssize_t i = i0; i < i1; i++) {
        const double eta = c->eta[i], mu = c->mu[i];
        double mev;
        if (eta > G_THRESH || eta < -G_THRESH) {
            mev = G_EPS;
        } else {
            /* exp(eta) as the last update computed it for linkinv */
            const double e = c->ex ? c->ex[i] : exp(eta), o = 1.0 + e;
            mev = e / (o * o);
        }
        const double varmu = mu * (1.0 - mu);
        c->z[i] = (c->off ? eta - c->off[i] : eta) + (c->y[i] - mu) / mev;
        c->w[i] = sqrt(((c->wt ? c->wt[i] : 1.0) * (mev * mev)) / varmu);
        c->mev[i] = mev;
    }
}

/* glm_working(eta, mu, ex|None, y, offset|None, weights|None, z, w, mev, threads) */
static PyObject *py_glm_working(PyObject *self, PyObject *args)
{
    PyObject *o[9];
    int threads;
    Py_buffer v[9];
    int held[9] = {0};
    if (!PyArg_ParseTuple(args, "OOOOOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                          &threads))
        return NULL;
    Py_ssize_t n = -1;
    PyObject *ret = NULL;
    for (int k = 0; k < 9; k++) {
        if (o[k] == Py_None && (k == 2 || k == 4 || k == 5)) continue;
        int rc = k < 6 ? get_in(o[k], &v[k], n < 0 ? 0 : n, sizeof(double), "glm vector")
                       : get_out(o[k], &v[k], n, sizeof(double), "glm output");
        if (rc < 0) goto done;
        held[k] = 1;
        if (k == 0) n = v[0].len / (Py_ssize_t)sizeof(double);
    }
    glm_t c = {0};
    c.eta = v[0].buf;
    c.mu = v[1].buf;
    c.ex = held[2] ? v[2].buf : NULL;
    c.y = v[3].buf;
    c.off = held[4] ? v[4].buf : NULL;
    c.wt = held[5] ? v[5].buf : NULL;
    c.z = v[6].buf;
    c.w = v[7].buf;
    c.mev = v[8].buf;
    Py_BEGIN_ALLOW_THREADS
    par_for(glm_working_range, &c, n, 8.0 * (double)n, threads);
    Py_END_ALLOW_THREADS
    ret = Py_None;
    Py_INCREF(ret);
done:
    for (int k = 0; k < 9; k++)
        if (held[k]) PyBuffer_Release(&v[k]);
    return ret;
}

/* eta = 0 + X[, 0] b_0 + X[, 1] b_1 + ... (+ offset), ex = exp(eta) where linkinv uses it,
   mu = linkinv(eta), and the deviance terms: summed in order on the first part, stored
   for the second */
static void glm_update_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    glm_t *c = ctx;
    const arr_t *X = c->X;
    LD s0 = 0.0L;
    for (Py_ssize_t i = i0; i < i1; i++) {
        const char *r = X->b + i * X->s0;
        double s = 0.0;
        for (Py_ssize_t l = 0; l < X->n1; l++) s += c->beta[l] * ELEM(double, r + l * X->s1);
        if (c->off) s = s + c->off[i];
        double t;
        if (s < -G_THRESH) {
            t = G_EPS;
        } else if (s > G_THRESH) {
            t = G_INVEPS;
        } else {
            t = exp(s);
            c->ex_out[i] = t;
        }
        const double mu = t / (1.0 + t);
        c->eta_out[i] = s;
        c->mu_out[i] = mu;
        const double d = g_dev(c->y[i], mu, c->wt, i);
        if (i0 == 0) s0 += widen(d);
        else c->e[i - c->h] = d;
    }
    if (i0 == 0) c->dev0 = s0;
}

/* glm_update(X, beta, offset|None, y, weights|None, eta, mu, ex, threads) -> deviance */
static PyObject *py_glm_update(PyObject *self, PyObject *args)
{
    PyObject *xo, *o[7];
    int threads;
    arr_t X = {0};
    Py_buffer v[7];
    int held[7] = {0};
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOOi", &xo, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &threads))
        return NULL;
    if (get_arr(xo, &X, "X") < 0) return NULL;
    if (X.f32 || X.view.ndim != 2) {
        rel(&X);
        PyErr_SetString(PyExc_TypeError, "_passes: X must be a float64 matrix");
        return NULL;
    }
    const Py_ssize_t n = X.n0;
    for (int k = 0; k < 7; k++) {
        if (o[k] == Py_None && (k == 1 || k == 3)) continue;
        int rc = k < 4 ? get_in(o[k], &v[k], k == 0 ? X.n1 : n, sizeof(double), "glm vector")
                       : get_out(o[k], &v[k], n, sizeof(double), "glm output");
        if (rc < 0) goto done;
        held[k] = 1;
    }
    glm_t c = {0};
    c.X = &X;
    c.beta = v[0].buf;
    c.off = held[1] ? v[1].buf : NULL;
    c.y = v[2].buf;
    c.wt = held[3] ? v[3].buf : NULL;
    c.eta_out = v[4].buf;
    c.mu_out = v[5].buf;
    c.ex_out = v[6].buf;
    const double work = 8.0 * (double)n;
    const int split = par_split(n, work, threads);
    c.h = n / 2;
    if (split) {
        c.e = malloc(sizeof(double) * (size_t)(n - c.h));
        if (!c.e) {
            PyErr_NoMemory();
            goto done;
        }
    }
    double dev;
    Py_BEGIN_ALLOW_THREADS
    par_for(glm_update_range, &c, n, split ? work : 0.0, threads);
    LD s = c.dev0;
    if (split)
        for (Py_ssize_t i = 0; i < n - c.h; i++) s += widen(c.e[i]);
    dev = r_round_sum(s);
    Py_END_ALLOW_THREADS
    free(c.e);
    ret = PyFloat_FromDouble(dev);
done:
    for (int k = 0; k < 7; k++)
        if (held[k]) PyBuffer_Release(&v[k]);
    rel(&X);
    return ret;
}

/* terms of the deviance (kind 0) or of the binomial log-likelihood (kind 1) */
static void glm_terms_range(void *ctx, Py_ssize_t i0, Py_ssize_t i1)
{
    const glm_t *c = ctx;
    if (c->kind == 0)
        for (Py_ssize_t i = i0; i < i1; i++) c->e[i] = g_dev(c->y[i], c->mu[i], c->wt, i);
    else
        for (Py_ssize_t i = i0; i < i1; i++) c->e[i] = g_dbinom1(c->y[i], c->mu[i]);
}

/* glm_sum(kind, y, mu, weights|None, threads) -> R's sum() of the deviance residuals
   (kind 0) or of dbinom(round(y), 1, mu, log = TRUE) (kind 1) */
static PyObject *py_glm_sum(PyObject *self, PyObject *args)
{
    PyObject *yo, *mo, *wo;
    int kind, threads;
    Py_buffer vy, vm, vw;
    int hw = 0;
    if (!PyArg_ParseTuple(args, "iOOOi", &kind, &yo, &mo, &wo, &threads)) return NULL;
    if (get_in(yo, &vy, 0, sizeof(double), "y") < 0) return NULL;
    const Py_ssize_t n = vy.len / (Py_ssize_t)sizeof(double);
    if (get_in(mo, &vm, n, sizeof(double), "mu") < 0) { PyBuffer_Release(&vy); return NULL; }
    if (wo != Py_None) {
        if (get_in(wo, &vw, n, sizeof(double), "weights") < 0) {
            PyBuffer_Release(&vm);
            PyBuffer_Release(&vy);
            return NULL;
        }
        hw = 1;
    }
    glm_t c = {0};
    c.y = vy.buf;
    c.mu = vm.buf;
    c.wt = hw ? vw.buf : NULL;
    c.kind = kind;
    double r = 0.0;
    int nomem = 0;
    Py_BEGIN_ALLOW_THREADS
    if (threads > 1 && n >= 2 && 8.0 * (double)n >= PAR_MIN) {
        c.e = malloc(sizeof(double) * (size_t)n);
        if (c.e) {
            par_for(glm_terms_range, &c, n, 8.0 * (double)n, threads);
            r = r_round_sum(vsum(c.e, n));
            free(c.e);
        } else {
            nomem = 1;
        }
    } else {
        LD s = 0.0L;
        if (kind == 0)
            for (Py_ssize_t i = 0; i < n; i++) s += widen(g_dev(c.y[i], c.mu[i], c.wt, i));
        else
            for (Py_ssize_t i = 0; i < n; i++) s += widen(g_dbinom1(c.y[i], c.mu[i]));
        r = r_round_sum(s);
    }
    Py_END_ALLOW_THREADS
    if (hw) PyBuffer_Release(&vw);
    PyBuffer_Release(&vm);
    PyBuffer_Release(&vy);
    if (nomem) return PyErr_NoMemory();
    return PyFloat_FromDouble(r);
}

/* --- LINPACK --- */

/* dnrm2.f90 (LAPACK >= 3.10): Blue's scaling with three accumulators, as a running state
   so that several norms can follow one pass over their columns */
#define TSML 0x1p-511
#define TBIG 0x1p486
#define SSML 0x1p537
#define SBIG 0x1p-538

typedef struct {
    double asml, amed, abig;
    int notbig;
} nrm_t;

static inline void nrm_init(nrm_t *s)
{
    s->asml = s->amed = s->abig = 0.0;
    s->notbig = 1;
}

static inline void nrm_add(nrm_t *s, double v)
{
    const double ax = fabs(v);
    if (ax > TBIG) {
        const double t = ax * SBIG;
        s->abig = s->abig + t * t;
        s->notbig = 0;
    } else if (ax < TSML) {
        if (s->notbig) {
            const double t = ax * SSML;
            s->asml = s->asml + t * t;
        }
    } else {
        s->amed = s->amed + ax * ax;
    }
}

static double nrm_end(const nrm_t *st)
{
    double asml = st->asml, amed = st->amed, abig = st->abig;
    double scl, sumsq;
    if (abig > 0.0) {
        if (amed > 0.0 || amed != amed) abig = abig + (amed * SBIG) * SBIG;
        scl = 1.0 / SBIG;
        sumsq = abig;
    } else if (asml > 0.0) {
        if (amed > 0.0 || amed != amed) {
            amed = sqrt(amed);
            asml = sqrt(asml) / SSML;
            double ymin, ymax;
            if (asml > amed) {
                ymin = amed;
                ymax = asml;
            } else {
                ymin = asml;
                ymax = amed;
            }
            scl = 1.0;
            sumsq = ymax * ymax * (1.0 + (ymin / ymax) * (ymin / ymax));
        } else {
            scl = 1.0 / SSML;
            sumsq = asml;
        }
    } else {
        scl = 1.0;
        sumsq = amed;
    }
    return scl * sqrt(sumsq);
}

static double dnrm2(const double *x, Py_ssize_t n)
{
    nrm_t s;
    nrm_init(&s);
    for (Py_ssize_t i = 0; i < n; i++) nrm_add(&s, x[i]);
    return nrm_end(&s);
}

/* y + t x, skipped for t == 0 */
static inline void daxpy(double t, const double *x, double *y, Py_ssize_t n)
{
    if (t == 0.0) return;
    for (Py_ssize_t i = 0; i < n; i++) y[i] = y[i] + t * x[i];
}

static void rotate_left(double *v, Py_ssize_t n)
{
    if (n < 2) return;
    double first = v[0];
    memmove(v, v + 1, sizeof(double) * (size_t)(n - 1));
    v[n - 1] = first;
}

/* scratch of dqrdc2_f for n x p */
typedef struct {
    double *work1, *work2, *nrm, *dots, *ts, *col;
    nrm_t *ns;
    void *mem;
} qrw_t;

static int qrw_alloc(qrw_t *w, Py_ssize_t n, Py_ssize_t p)
{
    const size_t q = (size_t)(p > 0 ? p : 1);
    w->mem = malloc(sizeof(double) * (5 * q + (size_t)n + 1) + sizeof(nrm_t) * q);
    if (!w->mem) return -1;
    w->ns = w->mem;
    w->work1 = (double *)(w->ns + q);
    w->work2 = w->work1 + q;
    w->nrm = w->work2 + q;
    w->dots = w->nrm + q;
    w->ts = w->dots + q;
    w->col = w->ts + q;
    return 0;
}

/*
 * The two passes of a Householder step over rows L.. (m rows): xl is column L from row L,
 * xc column L+1 from row L (the later columns follow at stride ld).  Pass 1 scales xl
 * (xl[0] += 1 after scaling) and returns the inner products of xl with the nj later
 * columns in dots (and with y, returned); pass 2 adds ts[q] xl to column q (skipped for
 * ts[q] == 0; ty xl to y) and leaves the norms of rows 1.. of the updated columns in nrm.
 * Each sum runs in order from 0; the small-nj versions keep the sums in registers.
 */
#define QR_INLINE CS_ALWAYS_INLINE

QR_INLINE double qr_pass1(double *xl, Py_ssize_t m, double sc, const double *xc, Py_ssize_t ld, const int nj,
                          double *dots, const double *y)
{
    double d[4] = {0.0, 0.0, 0.0, 0.0}, dy = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        double v = sc * xl[i];
        if (i == 0) v = 1.0 + v;
        xl[i] = v;
#if defined(__GNUC__)
#pragma GCC unroll 4
#endif
        for (int q = 0; q < nj; q++) d[q] += v * xc[q * ld + i];
        if (y) dy += v * y[i];
    }
    for (int q = 0; q < nj; q++) dots[q] = d[q];
    return dy;
}

static double qr_pass1_any(double *xl, Py_ssize_t m, double sc, const double *xc, Py_ssize_t ld, Py_ssize_t nj,
                           double *dots, const double *y)
{
    double dy = 0.0;
    for (Py_ssize_t q = 0; q < nj; q++) dots[q] = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        double v = sc * xl[i];
        if (i == 0) v = 1.0 + v;
        xl[i] = v;
        for (Py_ssize_t q = 0; q < nj; q++) dots[q] += v * xc[q * ld + i];
        if (y) dy += v * y[i];
    }
    return dy;
}

QR_INLINE void qr_pass2(const double *xl, Py_ssize_t m, double *xc, Py_ssize_t ld, const int nj, const double *ts,
                        double *nrm, double *y, double ty)
{
    nrm_t s[4];
    for (int q = 0; q < 4; q++) nrm_init(&s[q]);
    for (Py_ssize_t i = 0; i < m; i++) {
        const double v = xl[i];
#if defined(__GNUC__)
#pragma GCC unroll 4
#endif
        for (int q = 0; q < nj; q++) {
            double *c = xc + q * ld + i;
            if (ts[q] != 0.0) *c = *c + ts[q] * v;
            if (i >= 1) nrm_add(&s[q], *c);
        }
        if (y) y[i] = y[i] + ty * v;
    }
    for (int q = 0; q < nj; q++) nrm[q] = nrm_end(&s[q]);
}

static void qr_pass2_any(const double *xl, Py_ssize_t m, double *xc, Py_ssize_t ld, Py_ssize_t nj, const double *ts,
                         double *nrm, double *y, double ty, nrm_t *s)
{
    for (Py_ssize_t q = 0; q < nj; q++) nrm_init(&s[q]);
    for (Py_ssize_t i = 0; i < m; i++) {
        const double v = xl[i];
        for (Py_ssize_t q = 0; q < nj; q++) {
            double *c = xc + q * ld + i;
            if (ts[q] != 0.0) *c = *c + ts[q] * v;
            if (i >= 1) nrm_add(&s[q], *c);
        }
        if (y) y[i] = y[i] + ty * v;
    }
    for (Py_ssize_t q = 0; q < nj; q++) nrm[q] = nrm_end(&s[q]);
}

/*
 * LINPACK dqrdc2 on x (n x p, column-major, in place) given the norms of its columns in
 * w->nrm; returns the rank, jpvt the 1-based original column numbers.  The loops of the
 * reference are fused without changing one operation: each Householder step reads the
 * rows twice, once scaling its column and accumulating every inner product with it
 * (independent sums, each in order from 0), once updating the columns (daxpy) and
 * accumulating the norms of their remaining rows, which are both the next step's norm
 * and dqrdc2's recomputed norm when the downdate loses precision.  With y (length n),
 * dqrsl's Q'y is applied along: reflection L is applied exactly when dqrsl would apply
 * it (L below the final rank and below n - 1); *y_ok is cleared if a step that dqrsl
 * would apply is skipped here (a zero column), and the caller then redoes Q'y.
 */
static Py_ssize_t dqrdc2_f(double *x, Py_ssize_t n, Py_ssize_t p, double tol, double *qraux, int64_t *jpvt,
                           qrw_t *w, double *y, int *y_ok)
{
    double *work1 = w->work1, *work2 = w->work2, *nrm = w->nrm;
    for (Py_ssize_t j = 0; j < p; j++) {
        jpvt[j] = j + 1;
        qraux[j] = n > 0 ? nrm[j] : 0.0;
        work1[j] = qraux[j];
        work2[j] = n > 0 ? (qraux[j] != 0.0 ? qraux[j] : 1.0) : 0.0;
    }
    if (y_ok) *y_ok = 1;
    int valid = 1; /* nrm[j] is the norm of x[L:, j] for the coming step */
    const Py_ssize_t lup = n < p ? n : p;
    Py_ssize_t k = p + 1;
    for (Py_ssize_t l = 1; l <= lup; l++) {
        const Py_ssize_t L = l - 1;
        /* cycle negligible columns to the right-hand edge (R's limited pivoting) */
        while (!(l >= k || qraux[L] >= work2[L] * tol)) {
            memcpy(w->col, x + L * n, sizeof(double) * (size_t)n);
            memmove(x + L * n, x + (L + 1) * n, sizeof(double) * (size_t)(n * (p - L - 1)));
            memcpy(x + (p - 1) * n, w->col, sizeof(double) * (size_t)n);
            int64_t j0 = jpvt[L];
            memmove(jpvt + L, jpvt + L + 1, sizeof(int64_t) * (size_t)(p - L - 1));
            jpvt[p - 1] = j0;
            rotate_left(qraux + L, p - L);
            rotate_left(work1 + L, p - L);
            rotate_left(work2 + L, p - L);
            rotate_left(nrm + L, p - L);
            k -= 1;
        }
        if (l == n) {
            valid = 0;
            continue;
        }
        double *xl = x + L * n + L;
        const Py_ssize_t m = n - L, nj = p - L - 1;
        double nrmxl = valid ? nrm[L] : dnrm2(xl, m);
        const int apply_y = y && l < k;
        if (nrmxl == 0.0) {
            if (apply_y) *y_ok = 0;
            valid = 0;
            continue;
        }
        if (xl[0] != 0.0) nrmxl = copysign(nrmxl, xl[0]);
        const double sc = 1.0 / nrmxl;
        /* pass 1: dscal, x[L, L] += 1, and the inner products of every later column (and y) */
        double *ts = w->ts, dy = 0.0;
        switch (nj) {
        case 0: dy = qr_pass1(xl, m, sc, x + (L + 1) * n + L, n, 0, w->dots, apply_y ? y + L : NULL); break;
        case 1: dy = qr_pass1(xl, m, sc, x + (L + 1) * n + L, n, 1, w->dots, apply_y ? y + L : NULL); break;
        case 2: dy = qr_pass1(xl, m, sc, x + (L + 1) * n + L, n, 2, w->dots, apply_y ? y + L : NULL); break;
        case 3: dy = qr_pass1(xl, m, sc, x + (L + 1) * n + L, n, 3, w->dots, apply_y ? y + L : NULL); break;
        default: dy = qr_pass1_any(xl, m, sc, x + (L + 1) * n + L, n, nj, w->dots, apply_y ? y + L : NULL);
        }
        for (Py_ssize_t q = 0; q < nj; q++) ts[q] = -w->dots[q] / xl[0];
        const double ty = apply_y ? -dy / xl[0] : 0.0;
        /* pass 2: the updates (daxpy, skipped for t == 0) and the norms of rows L+1.. */
        if (nj > 0 || ty != 0.0) {
            double *yl = ty != 0.0 ? y + L : NULL;
            switch (nj) {
            case 0: qr_pass2(xl, m, x + (L + 1) * n + L, n, 0, ts, nrm + L + 1, yl, ty); break;
            case 1: qr_pass2(xl, m, x + (L + 1) * n + L, n, 1, ts, nrm + L + 1, yl, ty); break;
            case 2: qr_pass2(xl, m, x + (L + 1) * n + L, n, 2, ts, nrm + L + 1, yl, ty); break;
            case 3: qr_pass2(xl, m, x + (L + 1) * n + L, n, 3, ts, nrm + L + 1, yl, ty); break;
            default: qr_pass2_any(xl, m, x + (L + 1) * n + L, n, nj, ts, nrm + L + 1, yl, ty, w->ns);
            }
        }
        valid = 1;
        for (Py_ssize_t j = L + 1; j < p; j++) {
            if (qraux[j] != 0.0) {
                const double r = fabs(x[j * n + L]) / qraux[j];
                double tt = 1.0 - r * r;
                if (tt < 0.0) tt = 0.0;
                if (fabs(tt) >= 1e-6) {
                    qraux[j] = qraux[j] * sqrt(tt);
                } else {
                    qraux[j] = nrm[j]; /* dnrm2(x[L+1:, j]) */
                    work1[j] = qraux[j];
                }
            }
        }
        qraux[L] = xl[0];
        xl[0] = -nrmxl;
    }
    return k - 1 < n ? k - 1 : n;
}

/* the norms of the p columns of x (n x p, column-major) in one pass */
static void col_norms(const double *x, Py_ssize_t n, Py_ssize_t p, qrw_t *w)
{
    for (Py_ssize_t j = 0; j < p; j++) nrm_init(&w->ns[j]);
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < p; j++) nrm_add(&w->ns[j], x[j * n + i]);
    for (Py_ssize_t j = 0; j < p; j++) w->nrm[j] = nrm_end(&w->ns[j]);
}

/* qr_qty on one column y (length n): the first min(rank, n - 1) reflections */
static void qty_col(const double *qr, Py_ssize_t n, const double *qraux, Py_ssize_t rank, double *y)
{
    const Py_ssize_t ju = rank < n - 1 ? rank : n - 1;
    for (Py_ssize_t j = 0; j < ju; j++) {
        if (qraux[j] == 0.0) continue;
        const double *col = qr + j * n + j;
        const Py_ssize_t m = n - j;
        /* the reflection's first entry is qraux[j] (dqrsl swaps it into the diagonal) */
        double s = 0.0 + qraux[j] * y[j];
        for (Py_ssize_t i = 1; i < m; i++) s += col[i] * y[j + i];
        const double t = -s / qraux[j];
        if (t == 0.0) continue;
        y[j] = y[j] + t * qraux[j];
        for (Py_ssize_t i = 1; i < m; i++) y[j + i] = y[j + i] + t * col[i];
    }
}

/* dqrdc2(x, n, p, tol, qraux, jpvt) -> rank; x a writable column-major n x p float64 buffer */
static PyObject *py_dqrdc2(PyObject *self, PyObject *args)
{
    PyObject *xo, *qo, *jo;
    Py_ssize_t n, p;
    double tol;
    Py_buffer vx, vq, vj;
    if (!PyArg_ParseTuple(args, "OnndOO", &xo, &n, &p, &tol, &qo, &jo)) return NULL;
    if (get_out(xo, &vx, n * p, sizeof(double), "x") < 0) return NULL;
    if (get_out(qo, &vq, p, sizeof(double), "qraux") < 0) { PyBuffer_Release(&vx); return NULL; }
    if (get_out(jo, &vj, p, sizeof(int64_t), "jpvt") < 0) {
        PyBuffer_Release(&vq);
        PyBuffer_Release(&vx);
        return NULL;
    }
    qrw_t w;
    Py_ssize_t rank = 0;
    int ok = qrw_alloc(&w, n, p) == 0;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        col_norms(vx.buf, n, p, &w);
        rank = dqrdc2_f(vx.buf, n, p, tol, vq.buf, vj.buf, &w, NULL, NULL);
        Py_END_ALLOW_THREADS
        free(w.mem);
    }
    PyBuffer_Release(&vj);
    PyBuffer_Release(&vq);
    PyBuffer_Release(&vx);
    if (!ok) return PyErr_NoMemory();
    return PyLong_FromSsize_t(rank);
}

/* qr_qty(qr, n, p, qraux, rank, y, m): y (column-major n x m) := Q'y in place */
static PyObject *py_qr_qty(PyObject *self, PyObject *args)
{
    PyObject *qo, *ao, *yo;
    Py_ssize_t n, p, rank, m;
    Py_buffer vq, va, vy;
    if (!PyArg_ParseTuple(args, "OnnOnOn", &qo, &n, &p, &ao, &rank, &yo, &m)) return NULL;
    if (get_in(qo, &vq, n * p, sizeof(double), "qr") < 0) return NULL;
    if (get_in(ao, &va, p, sizeof(double), "qraux") < 0) { PyBuffer_Release(&vq); return NULL; }
    if (get_out(yo, &vy, n * m, sizeof(double), "y") < 0) {
        PyBuffer_Release(&va);
        PyBuffer_Release(&vq);
        return NULL;
    }
    if (rank > p) rank = p;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t c = 0; c < m; c++) qty_col(vq.buf, n, va.buf, rank, (double *)vy.buf + c * n);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&vy);
    PyBuffer_Release(&va);
    PyBuffer_Release(&vq);
    Py_RETURN_NONE;
}

/*
 * glm_qrls(X, w, z, tol, qr, qraux, pivot, coef) -> rank: R's Cdqrls(X * w, z * w, tol)
 * for one right-hand side.  X (n x p, float64, any strides), w and z (n); qr receives the
 * column-major compact QR, coef the coefficients in pivoted order (0 past the rank).
 */
static PyObject *py_glm_qrls(PyObject *self, PyObject *args)
{
    PyObject *xo, *wo, *zo, *qo, *ao, *po, *co;
    double tol;
    arr_t X = {0};
    Py_buffer vw, vz, vq, va, vp, vc;
    if (!PyArg_ParseTuple(args, "OOOdOOOO", &xo, &wo, &zo, &tol, &qo, &ao, &po, &co)) return NULL;
    if (get_arr(xo, &X, "X") < 0) return NULL;
    if (X.f32 || X.view.ndim != 2) {
        rel(&X);
        PyErr_SetString(PyExc_TypeError, "_passes: X must be a float64 matrix");
        return NULL;
    }
    const Py_ssize_t n = X.n0, p = X.n1;
    int got = 0;
    Py_ssize_t rank = 0;
    if (get_in(wo, &vw, n, sizeof(double), "w") < 0) goto out;
    got = 1;
    if (get_in(zo, &vz, n, sizeof(double), "z") < 0) goto out;
    got = 2;
    if (get_out(qo, &vq, n * p, sizeof(double), "qr") < 0) goto out;
    got = 3;
    if (get_out(ao, &va, p, sizeof(double), "qraux") < 0) goto out;
    got = 4;
    if (get_out(po, &vp, p, sizeof(int64_t), "pivot") < 0) goto out;
    got = 5;
    if (get_out(co, &vc, p, sizeof(double), "coef") < 0) goto out;
    got = 6;
    qrw_t wk;
    double *y = malloc(sizeof(double) * (size_t)(n + 1));
    if (!y || qrw_alloc(&wk, n, p) < 0) {
        free(y);
        PyErr_NoMemory();
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    double *qr = vq.buf, *qraux = va.buf, *coef = vc.buf;
    const double *w = vw.buf, *z = vz.buf;
    /* X * w and z * w, with the norms of the weighted columns on the way */
    for (Py_ssize_t j = 0; j < p; j++) nrm_init(&wk.ns[j]);
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *r = X.b + i * X.s0;
        const double wi = w[i];
        for (Py_ssize_t j = 0; j < p; j++) {
            const double v = ELEM(double, r + j * X.s1) * wi;
            qr[j * n + i] = v;
            nrm_add(&wk.ns[j], v);
        }
        y[i] = z[i] * wi;
    }
    for (Py_ssize_t j = 0; j < p; j++) wk.nrm[j] = nrm_end(&wk.ns[j]);
    int y_ok;
    rank = dqrdc2_f(qr, n, p, tol, qraux, vp.buf, &wk, y, &y_ok);
    for (Py_ssize_t j = 0; j < p; j++) coef[j] = 0.0;
    if (rank > 0) {
        /* dqrsl with job 1110: Q'y (applied during the factorisation), then the
           column-oriented back substitution */
        const Py_ssize_t k = rank;
        if ((k < n - 1 ? k : n - 1) == 0) {
            if (qr[0] != 0.0) coef[0] = y[0] / qr[0];
        } else {
            if (!y_ok) {
                for (Py_ssize_t i = 0; i < n; i++) y[i] = z[i] * w[i];
                qty_col(qr, n, qraux, k, y);
            }
            for (Py_ssize_t j = 0; j < k; j++) coef[j] = y[j];
            for (Py_ssize_t jj = 0; jj < k; jj++) {
                const Py_ssize_t j = k - 1 - jj;
                if (qr[j * n + j] == 0.0) break;
                coef[j] = coef[j] / qr[j * n + j];
                if (j != 0) daxpy(-coef[j], qr + j * n, coef, j);
            }
        }
    }
    Py_END_ALLOW_THREADS
    free(y);
    free(wk.mem);
    got = -got;
out:;
    int g = got < 0 ? -got : got;
    if (g >= 6) PyBuffer_Release(&vc);
    if (g >= 5) PyBuffer_Release(&vp);
    if (g >= 4) PyBuffer_Release(&va);
    if (g >= 3) PyBuffer_Release(&vq);
    if (g >= 2) PyBuffer_Release(&vz);
    if (g >= 1) PyBuffer_Release(&vw);
    rel(&X);
    if (got >= 0) return NULL;
    return PyLong_FromSsize_t(rank);
}

/* ------------------------------------------------------------------------------------ */

static PyMethodDef passes_methods[] = {
    {"rsum", py_rsum, METH_VARARGS, "R's sum() of a float64/float32 array (row-major order)."},
    {"rmean", py_rmean, METH_VARARGS, "R's mean() of a float64/float32 array (row-major order)."},
    {"lane_sums", py_lane_sums, METH_VARARGS, "rowSums (axis 1) or colSums (axis 0) in long double."},
    {"dot", py_dot, METH_VARARGS, "Sequential double dot product from 0 (reference ddot/dgemm)."},
    {"crossprod", py_crossprod, METH_VARARGS, "t(a) %*% b in the reference dgemm order."},
    {"score", py_score, METH_VARARGS, "Brier score or mean log-likelihood in one pass."},
    {"glm_working", py_glm_working, METH_VARARGS, "IRLS working response, weights and mu.eta."},
    {"glm_update", py_glm_update, METH_VARARGS,
     "eta = X b (+ offset) in dgemv order, mu = linkinv(eta) and the deviance, in one pass."},
    {"glm_sum", py_glm_sum, METH_VARARGS, "R's sum of the binomial deviance residuals or log-densities."},
    {"glm_qrls", py_glm_qrls, METH_VARARGS, "R's Cdqrls (LINPACK dqrdc2 + dqrsl) for one response."},
    {"dqrdc2", py_dqrdc2, METH_VARARGS, "LINPACK dqrdc2 in place on a column-major buffer."},
    {"qr_qty", py_qr_qty, METH_VARARGS, "LINPACK dqrsl's Q'y in place on column-major columns."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef passes_module = {
    PyModuleDef_HEAD_INIT, "_passes",
    "R's one-pass reductions in C (see calstats.numerics.passes).",
    -1, passes_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__passes(void)
{
    return PyModule_Create(&passes_module);
}

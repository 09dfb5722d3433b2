/*
 * calstats.numerics._core: R's arithmetic where it decides the bits and the time.
 *
 * Why C: R runs optim's BFGS (vmmin) in C over a packed lower triangle; NumPy can only
 * vectorise around its sequential accumulations (R's long-double sums, vmmin's loops), which
 * made the O(p^2) inverse-Hessian work slower than R at 50 classes.  Everything here follows
 * the executable reference in Python (calstats/numerics/vmmin.py,
 * calstats/calibrators/_multinomial.py and calstats/calibrators/scaling.py);
 * tests/test_core.py and tests/test_scaling_core.py assert bit identity between the two.
 *
 * Floating point rules kept on purpose (and checked by the build flags):
 *   - no -ffast-math (no reassociation), -ffp-contract=off (no FMA changes a rounding);
 *   - exp/log are the C library's (glibc), as R calls them;
 *   - long double (x87, 64-bit mantissa) exactly where R accumulates in long double
 *     (sum, mean, rowSums, colSums), double everywhere else;
 *   - every sum adds its terms in R's order.  Elementwise loops are free to vectorise.
 *
 * The Python wrappers (calstats/numerics/core.py) check shapes and types; this module
 * trusts them.  The multinomial fit runs without the GIL, so fits of separate folds run
 * in threads on separate cores.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __FAST_MATH__
#error "calstats' C core must not be compiled with -ffast-math: it would change R's numbers"
#endif

#include "_portable.h"
#include "_exp_replica.h"
#include "_bins.h"

/* Hot loops get an AVX2 clone chosen at load time: wider vectors, the same operations in
   the same order (AVX2 brings no FMA, and -ffp-contract=off forbids contraction anyway). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

/* helpers of HOT functions must be inlined into each clone to get its instruction set */
#define INLINE CS_ALWAYS_INLINE

#define STEPREDN 0.2
#define ACCTOL 0.0001
#define RELTEST 10.0

/* status codes shared with core.py */
#define ST_OK 0
#define ST_NONFINITE_PAR 1   /* "non-finite value supplied by optim" */
#define ST_INITIAL 2         /* "initial value in 'vmmin' is not finite" */
#define ST_PYERR 3           /* a Python callback raised */
#define ST_NOMEM 4

/* ------------------------------------------------------------------------------------ */
/* objective interface                                                                   */

typedef int (*obj_fn)(void *ctx, const double *par, double *value);
typedef int (*obj_gr)(void *ctx, const double *par, double *grad);

typedef struct {
    double *par;
    double fmin;
    long funcount, gradcount, iterations;
    int convergence;
} vm_result;

/* ------------------------------------------------------------------------------------ */
/* the packed lower triangle B of the inverse-Hessian approximation; row j starts at     */
/* j(j+1)/2 and holds B[j][0..j].                                                         */

static inline double *tri_row(double *B, Py_ssize_t j)
{
    return B + ((size_t)j * (size_t)(j + 1)) / 2;
}

static void tri_identity(double *B, Py_ssize_t n)
{
    for (Py_ssize_t j = 0; j < n; j++) {
        double *row = tri_row(B, j);
        memset(row, 0, (size_t)j * sizeof(double));
        row[j] = 1.0;
    }
}

/*
 * out_i = sum_l M[i][l] v_l with M the symmetric matrix of B, accumulated from 0.0 over
 * l = 0, 1, ... exactly as vmmin's two inner loops do (B[i][l] for l <= i, then B[l][i]
 * for l > i); with `neg` each term is subtracted (vmmin's "s -= B * g"), which differs
 * from negating the sum in the sign of an exact zero.
 *
 * Streaming over the rows keeps that order for every i and reads B once, in memory order
 * (R walks columns): row j starts out_j with its entries l <= j, then adds its entry i to
 * every out_i, i < j (term l = j of out_i).  Rows go four at a time: their four dot
 * products are independent chains (the chain's latency, not memory, bounds a single
 * one), and each out_i, i < j, receives the four rows' terms in row order in one visit.
 */
#define ACC(s, x) ((neg) ? (s) - (x) : (s) + (x))

/* out_i (+/-)= r0_i v0, then r1_i v1, r2_i v2, r3_i v3, for ilo <= i < ihi: the terms of
   four consecutive rows, in row order, in one visit of out */
INLINE void axpy_rows4(const double *restrict r0, const double *restrict r1, const double *restrict r2,
                       const double *restrict r3, const double *restrict v, Py_ssize_t j0, Py_ssize_t ilo,
                       Py_ssize_t ihi, double *restrict out, const int neg)
{
    const double v0 = v[j0], v1 = v[j0 + 1], v2 = v[j0 + 2], v3 = v[j0 + 3];
    for (Py_ssize_t i = ilo; i < ihi; i++) {
        double o = out[i];
        o = ACC(o, r0[i] * v0);
        o = ACC(o, r1[i] * v1);
        o = ACC(o, r2[i] * v2);
        o = ACC(o, r3[i] * v3);
        out[i] = o;
    }
}

/* rows j0..j0+3: their dot products, then their terms for every out_i, ilo <= i < j0 */
INLINE void rowdot_block4(double *const r[4], Py_ssize_t j0, Py_ssize_t ilo,
                                 const double *restrict v, double *restrict out, const int neg)
{
    const double *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (Py_ssize_t l = 0; l <= j0; l++) {
        const double vl = v[l];
        s0 = ACC(s0, r0[l] * vl);
        s1 = ACC(s1, r1[l] * vl);
        s2 = ACC(s2, r2[l] * vl);
        s3 = ACC(s3, r3[l] * vl);
    }
    s1 = ACC(s1, r1[j0 + 1] * v[j0 + 1]);
    s2 = ACC(s2, r2[j0 + 1] * v[j0 + 1]);
    s3 = ACC(s3, r3[j0 + 1] * v[j0 + 1]);
    s2 = ACC(s2, r2[j0 + 2] * v[j0 + 2]);
    s3 = ACC(s3, r3[j0 + 2] * v[j0 + 2]);
    s3 = ACC(s3, r3[j0 + 3] * v[j0 + 3]);
    axpy_rows4(r0, r1, r2, r3, v, j0, ilo, j0, out, neg);
    const double v1 = v[j0 + 1], v2 = v[j0 + 2], v3 = v[j0 + 3];
    s0 = ACC(s0, r1[j0] * v1);
    s0 = ACC(s0, r2[j0] * v2);
    s0 = ACC(s0, r3[j0] * v3);
    s1 = ACC(s1, r2[j0 + 1] * v2);
    s1 = ACC(s1, r3[j0 + 1] * v3);
    s2 = ACC(s2, r3[j0 + 2] * v3);
    out[j0] = s0;
    out[j0 + 1] = s1;
    out[j0 + 2] = s2;
    out[j0 + 3] = s3;
}

INLINE void rowdot_one(const double *restrict row, Py_ssize_t j, Py_ssize_t ilo,
                              const double *restrict v, double *restrict out, const int neg)
{
    double s = 0.0;
    const double vj = v[j];
    for (Py_ssize_t l = 0; l <= j; l++) s = ACC(s, row[l] * v[l]);
    for (Py_ssize_t i = ilo; i < j; i++) out[i] = ACC(out[i], row[i] * vj);
    out[j] = s;
}

/* row i of vmmin's rank-two update: B[i][j] += (D2*t_i*t_j - X_i*t_j - t_i*X_j) / D1, j <= i */
typedef struct {
    const double *t, *X;
    double D1, D2;
} update_t;

INLINE void update_row(double *restrict row, Py_ssize_t i, const update_t *u)
{
    const double *restrict t = u->t, *restrict X = u->X;
    const double D1 = u->D1, d2t = u->D2 * t[i], xi = X[i], ti = t[i];
    for (Py_ssize_t j = 0; j <= i; j++)
        row[j] += (d2t * t[j] - xi * t[j] - ti * X[j]) / D1;
}

/*
 * One trip through rows [jlo, jhi) of B: the rank-two update of each row (if upd), then,
 * on the updated row (if v), its part of out = (+/-) M v with the terms for out_i, i >= ilo.
 * Updating a row before reading it makes the fused pass equal the two separate ones.
 */
INLINE void tri_pass_impl(double *B, Py_ssize_t jlo, Py_ssize_t jhi, Py_ssize_t ilo,
                                 const update_t *upd, const double *v, double *out, const int neg)
{
    Py_ssize_t j = jlo;
    for (; j + 4 <= jhi; j += 4) {
        double *r[4] = {tri_row(B, j), tri_row(B, j + 1), tri_row(B, j + 2), tri_row(B, j + 3)};
        if (upd)
            for (int a = 0; a < 4; a++) update_row(r[a], j + a, upd);
        if (v) rowdot_block4(r, j, ilo, v, out, neg);
    }
    for (; j < jhi; j++) {
        double *row = tri_row(B, j);
        if (upd) update_row(row, j, upd);
        if (v) rowdot_one(row, j, ilo, v, out, neg);
    }
}

HOT static void tri_pass(double *B, Py_ssize_t jlo, Py_ssize_t jhi, Py_ssize_t ilo,
                         const update_t *upd, const double *v, double *out, int neg)
{
    if (neg) tri_pass_impl(B, jlo, jhi, ilo, upd, v, out, 1);
    else tri_pass_impl(B, jlo, jhi, ilo, upd, v, out, 0);
}

/* the terms of rows [jlo, jhi) for out_i, ilo <= i < ihi, row after row */
INLINE void rect_axpy_impl(double *B, Py_ssize_t jlo, Py_ssize_t jhi, Py_ssize_t ilo,
                                  Py_ssize_t ihi, const double *restrict v, double *restrict out,
                                  const int neg)
{
    Py_ssize_t j = jlo;
    for (; j + 4 <= jhi; j += 4) {
        axpy_rows4(tri_row(B, j), tri_row(B, j + 1), tri_row(B, j + 2), tri_row(B, j + 3), v, j, ilo, ihi,
                   out, neg);
    }
    for (; j < jhi; j++) {
        const double *row = tri_row(B, j);
        const double vj = v[j];
        for (Py_ssize_t i = ilo; i < ihi; i++) out[i] = ACC(out[i], row[i] * vj);
    }
}

HOT static void rect_axpy(double *B, Py_ssize_t jlo, Py_ssize_t jhi, Py_ssize_t ilo, Py_ssize_t ihi,
                          const double *v, double *out, int neg)
{
    if (neg) rect_axpy_impl(B, jlo, jhi, ilo, ihi, v, out, 1);
    else rect_axpy_impl(B, jlo, jhi, ilo, ihi, v, out, 0);
}

/* ------------------------------------------------------------------------------------ */
/* two threads over the triangle                                                          */

/* Below this many parameters a pass costs less than starting a thread. */
#define PAR_MIN_N 384

typedef void (*part_fn)(void *arg, int part);

typedef struct {
    part_fn f;
    void *arg;
    int part;
} part_call;

static void *part_trampoline(void *a)
{
    part_call *pc = a;
    pc->f(pc->arg, pc->part);
    return NULL;
}

/* f(arg, 0) here and f(arg, 1) on a second thread (inline if none can be started). */
static void run_two(part_fn f, void *arg)
{
    cs_thread_t th;
    part_call pc = {f, arg, 1};
    int started = cs_thread_create(&th, part_trampoline, &pc) == 0;
    f(arg, 0);
    if (started) cs_thread_join(&th);
    else f(arg, 1);
}

/*
 * out = (+/-) M v (and/or the update) on two threads without changing one rounding.
 * Phase 1: thread 0 takes rows [0, h), thread 1 rows [h, n) with only their terms for
 * out_i, i >= h; out_i for i < h then holds its terms from rows < h, all in row order.
 * Phase 2: the terms of rows [h, n) for out_i, i < h, are added row after row, the
 * columns split between the threads.  Each out_i thus receives its terms in vmmin's
 * order.  h = n / sqrt(2) balances phase 1 (h^2/2 against (n^2 - h^2)/2 elements).
 */
typedef struct {
    double *B;
    Py_ssize_t n, h;
    const update_t *upd;
    const double *v;
    double *out;
    int neg;
} tri_job;

static void tri_phase1(void *a, int part)
{
    tri_job *j = a;
    if (part == 0) tri_pass(j->B, 0, j->h, 0, j->upd, j->v, j->out, j->neg);
    else tri_pass(j->B, j->h, j->n, j->h, j->upd, j->v, j->out, j->neg);
}

static void tri_phase2(void *a, int part)
{
    tri_job *j = a;
    Py_ssize_t mid = (j->h / 2) & ~(Py_ssize_t)3;
    if (part == 0) rect_axpy(j->B, j->h, j->n, 0, mid, j->v, j->out, j->neg);
    else rect_axpy(j->B, j->h, j->n, mid, j->h, j->v, j->out, j->neg);
}

static void tri_run(double *B, Py_ssize_t n, const update_t *upd, const double *v, double *out, int neg,
                    int nthreads)
{
    if (nthreads < 2 || n < PAR_MIN_N) {
        tri_pass(B, 0, n, 0, upd, v, out, neg);
        return;
    }
    tri_job job = {B, n, ((Py_ssize_t)((double)n / 1.4142135623730951)) & ~(Py_ssize_t)3, upd, v, out, neg};
    run_two(tri_phase1, &job);
    if (v) run_two(tri_phase2, &job);
}

static int all_finite(const double *x, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/*
 * R's vmmin (src/appl/optim.c), statement by statement.  `par` is overwritten with the
 * final b.  With gil_held (Python callbacks) the GIL is released around
 * the O(p^2) passes only; nthreads = 2 runs large passes on two threads (same bits).
 */
static int vmmin_core(Py_ssize_t n, double *b, obj_fn fn, obj_gr gr, void *ctx, long maxit,
                      double abstol, double reltol, vm_result *res,
                      int gil_held, int nthreads)
{
    int status = ST_OK;
    double *g = malloc(sizeof(double) * (size_t)n);
    double *t = malloc(sizeof(double) * (size_t)n);
    double *tnew = malloc(sizeof(double) * (size_t)n);
    double *X = malloc(sizeof(double) * (size_t)n);
    double *c = malloc(sizeof(double) * (size_t)n);
    double *B = malloc(sizeof(double) * (((size_t)n * (size_t)(n + 1)) / 2));
    double f, fmin, gradproj, steplength, D1, D2;
    long funcount, gradcount, iter, ilast, count;
    int accpoint, enough, have_dir = 0;
    PyThreadState *ts = NULL;

#define RELEASE() do { if (gil_held) ts = PyEval_SaveThread(); } while (0)
#define ACQUIRE() do { if (gil_held) PyEval_RestoreThread(ts); } while (0)

    if (!g || !t || !tnew || !X || !c || !B) { status = ST_NOMEM; goto done; }
    if (!all_finite(b, n)) { status = ST_NONFINITE_PAR; goto done; }
    if (fn(ctx, b, &f)) { status = ST_PYERR; goto done; }
    if (!isfinite(f)) { status = ST_INITIAL; goto done; }
    fmin = f;
    funcount = gradcount = 1;
    if (gr(ctx, b, g)) { status = ST_PYERR; goto done; }
    iter = 1;
    ilast = gradcount;
    count = 0;

    do {
        if (ilast == gradcount) {
            RELEASE();
            tri_identity(B, n);
            ACQUIRE();
            have_dir = 0;
        }
        memcpy(X, b, sizeof(double) * (size_t)n);
        memcpy(c, g, sizeof(double) * (size_t)n);
        if (have_dir) {
            memcpy(t, tnew, sizeof(double) * (size_t)n);
        } else {
            RELEASE();
            tri_run(B, n, NULL, g, t, 1, nthreads);
            ACQUIRE();
        }
        have_dir = 0;
        gradproj = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) gradproj += t[i] * g[i];

        if (gradproj < 0.0) {
            steplength = 1.0;
            accpoint = 0;
            do {
                count = 0;
                for (Py_ssize_t i = 0; i < n; i++) {
                    b[i] = X[i] + steplength * t[i];
                    if (RELTEST + X[i] == RELTEST + b[i]) count++;
                }
                if (count < n) {
                    if (!all_finite(b, n)) { status = ST_NONFINITE_PAR; goto done; }
                    if (fn(ctx, b, &f)) { status = ST_PYERR; goto done; }
                    funcount++;
                    accpoint = isfinite(f) && (f <= fmin + gradproj * steplength * ACCTOL);
                    if (!accpoint) steplength *= STEPREDN;
                }
            } while (!(count == n || accpoint));
            enough = (f > abstol) && fabs(f - fmin) > reltol * (fabs(fmin) + reltol);
            if (!enough) {
                count = n;
                fmin = f;
            }
            if (count < n) {
                fmin = f;
                if (gr(ctx, b, g)) { status = ST_PYERR; goto done; }
                gradcount++;
                iter++;
                D1 = 0.0;
                for (Py_ssize_t i = 0; i < n; i++) {
                    t[i] = steplength * t[i];
                    c[i] = g[i] - c[i];
                    D1 += t[i] * c[i];
                }
                if (D1 > 0) {
                    /* the next iteration reads B unless it stops or restarts (steps 6, 7) */
                    int want_dir = iter < maxit && !(gradcount - ilast > 2 * n);
                    RELEASE();
                    tri_run(B, n, NULL, c, X, 0, nthreads);
                    D2 = 0.0;
                    for (Py_ssize_t i = 0; i < n; i++) D2 += X[i] * c[i];
                    D2 = 1.0 + D2 / D1;
                    update_t upd = {t, X, D1, D2};
                    tri_run(B, n, &upd, want_dir ? g : NULL, tnew, 1, nthreads);
                    ACQUIRE();
                    have_dir = want_dir;
                } else {
                    ilast = gradcount;
                }
            } else {
                if (ilast < gradcount) {
                    count = 0;
                    ilast = gradcount;
                }
            }
        } else {
            count = 0;
            if (ilast == gradcount) count = n;
            else ilast = gradcount;
        }
        if (iter >= maxit) break;
        if (gradcount - ilast > 2 * n) ilast = gradcount;
    } while (count != n || ilast != gradcount);

    res->fmin = fmin;
    res->funcount = funcount;
    res->gradcount = gradcount;
    res->iterations = iter;
    res->convergence = iter < maxit ? 0 : 1;
#undef RELEASE
#undef ACQUIRE
done:
    free(g); free(t); free(tnew); free(X); free(c); free(B);
    return status;
}

/* ------------------------------------------------------------------------------------ */
/* the penalised multinomial objective of calstats/calibrators/_multinomial.py            */

typedef struct {
    const double *U;        /* n x d, observation-major */
    const int64_t *codes;   /* 1-based class codes */
    Py_ssize_t n, d, k;
    double lam, mu;
    int has_mu;
    const unsigned char *mask;  /* k*d, column-major like par's W */
    double *P;              /* n x k: probabilities at the last evaluated point */
    double *lp;             /* n: log-likelihood terms */
    const double *w;        /* n case weights, or NULL (R's unweighted objective) */
    double sw;              /* sum(w) as R's sum(), when weighted */
    int nthreads;           /* 1, or 2 for large problems (two threads, same bits) */
} mnl_t;

static double loss_clip(double v)
{
    /* np.minimum(np.maximum(v, 1e-15), 1 - 1e-15), NaN propagating */
    const double lo = 1e-15, hi = 1.0 - 1e-15;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return v;
}

/* R's sum() of doubles: long double, index order (the first term starts the sum). */
static double ld_sum_masked(const double *x, const unsigned char *mask, Py_ssize_t m)
{
    long double s = 0.0L;
    int started = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        if (mask && !mask[i]) continue;
        double sq = x[i] * x[i];
        if (started) s += sq;
        else { s = sq; started = 1; }
    }
    return started ? (double)s : 0.0;
}

#if CS_VECTOR_EXT
/* Four doubles as one value: GCC's vector extension.  Its elementwise + and * are the IEEE
   operations of the scalar code, lane by lane (no contraction with -ffp-contract=off). */
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

INLINE v4d load4(const double *p)
{
    v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE void store4(double *p, v4d v)
{
    memcpy(p, &v, sizeof v);
}

/* 0.0 + sum_l w[c + l k] u_l for the four classes from w, each in l order */
INLINE v4d sum4_classes(const double *w, const double *restrict u, Py_ssize_t k, Py_ssize_t d)
{
    v4d a = {0.0, 0.0, 0.0, 0.0};
    for (Py_ssize_t l = 0; l < d; l++, w += k) {
        const double ul = u[l];
        const v4d uv = {ul, ul, ul, ul};
        a += load4(w) * uv;
    }
    return a;
}

/* z_c = (0.0 + sum_l W[c,l] * u_l) + b_c, each sum in l order (W column-major, k x d,
   followed by the k biases in par); sixteen classes at a time so that the running sums
   stay in vector registers */
HOT static void linear_row(const double *restrict W, const double *restrict bias,
                           const double *restrict u, double *restrict z, Py_ssize_t k, Py_ssize_t d)
{
    Py_ssize_t c = 0;
    for (; c + 16 <= k; c += 16) {
        v4d a0 = {0.0, 0.0, 0.0, 0.0}, a1 = a0, a2 = a0, a3 = a0;
        const double *w = W + c;
        for (Py_ssize_t l = 0; l < d; l++, w += k) {
            const double ul = u[l];
            const v4d uv = {ul, ul, ul, ul};
            a0 += load4(w) * uv;
            a1 += load4(w + 4) * uv;
            a2 += load4(w + 8) * uv;
            a3 += load4(w + 12) * uv;
        }
        store4(z + c, a0 + load4(bias + c));
        store4(z + c + 4, a1 + load4(bias + c + 4));
        store4(z + c + 8, a2 + load4(bias + c + 8));
        store4(z + c + 12, a3 + load4(bias + c + 12));
    }
    for (; c + 4 <= k; c += 4) store4(z + c, sum4_classes(W + c, u, k, d) + load4(bias + c));
    if (c < k) {
        /* the last 1-3 classes in one vector: lanes past class k - 1 read the next column
           of W (or, for the last column, the bias that follows W in par: W + c + 3 +
           (d - 1) k stays inside par's k d + k entries for every k >= 2) and are dropped;
           the kept lanes are the scalar sums, operation for operation */
        const v4d a0 = sum4_classes(W + c, u, k, d);
        for (Py_ssize_t j = 0; c + j < k; j++) z[c + j] = a0[j] + bias[c + j];
    }
}
#else
/* z_c = (0.0 + sum_l W[c,l] * u_l) + b_c, each sum in l order: the vector code's lanes, one
   class at a time */
HOT static void linear_row(const double *restrict W, const double *restrict bias,
                           const double *restrict u, double *restrict z, Py_ssize_t k, Py_ssize_t d)
{
    for (Py_ssize_t c = 0; c < k; c++) {
        double a = 0.0;
        const double *w = W + c;
        for (Py_ssize_t l = 0; l < d; l++, w += k) a += w[0] * u[l];
        z[c] = a + bias[c];
    }
}
#endif

/* Row maximum as np.max: NaN propagates. */
INLINE double row_max(const double *z, Py_ssize_t k)
{
    double m = z[0];
    int has_nan = isnan(m);
    for (Py_ssize_t c = 1; c < k; c++) {
        has_nan |= isnan(z[c]);
        m = z[c] > m ? z[c] : m;
    }
    return has_nan ? NAN : m;
}

/* softmax rows [i0, i1) at par, and their log-likelihood terms.  Rows go in pairs: each
   row's operations are its own and in its own order, but two rows' long-double sums and
   divisions interleave, so that one row's dependency chain (exp, then the x87 sum, then
   the division and the log) overlaps the other's instead of stalling. */
HOT static void mnl_rows(mnl_t *o, const double *par, Py_ssize_t i0, Py_ssize_t i1)
{
    const Py_ssize_t d = o->d, k = o->k;
    const double *W = par, *bias = par + k * d;
    Py_ssize_t i = i0;
    for (; i + 2 <= i1; i += 2) {
        const double *u0 = o->U + i * d, *u1 = u0 + d;
        double *z0 = o->P + i * k, *z1 = z0 + k;
        /* U W^T in reference-BLAS order: 0.0, then += W[c,l]*U[i,l] for l = 0, 1, ... */
        linear_row(W, bias, u0, z0, k, d);
        linear_row(W, bias, u1, z1, k, d);
        /* softmax: row maximum (NaN propagates as np.max), libm exp, long-double rowSums */
        const double m0 = row_max(z0, k), m1 = row_max(z1, k);
        /* exp(z - m) for both rows in one call over their 2k contiguous entries (fewer
           padded vector lanes): z - m is formed first, and exp(x - 0.0) is exp(x) */
        for (Py_ssize_t c = 0; c < k; c++) {
            z0[c] = z0[c] - m0;
            z1[c] = z1[c] - m1;
        }
        exp_shifted(z0, 2 * k, 0.0); /* the C library's exp, bit for bit (_exp_replica.h) */
        long double a0 = z0[0], a1 = z1[0];
        for (Py_ssize_t c = 1; c < k; c++) {
            a0 += z0[c];
            a1 += z1[c];
        }
        const double den0 = (double)a0, den1 = (double)a1;
        for (Py_ssize_t c = 0; c < k; c++) {
            z0[c] = z0[c] / den0;
            z1[c] = z1[c] / den1;
        }
        o->lp[i] = log(loss_clip(z0[o->codes[i] - 1]));
        o->lp[i + 1] = log(loss_clip(z1[o->codes[i + 1] - 1]));
    }
    for (; i < i1; i++) {
        const double *u = o->U + i * d;
        double *z = o->P + i * k;
        linear_row(W, bias, u, z, k, d);
        exp_shifted(z, k, row_max(z, k));
        long double acc = z[0];
        for (Py_ssize_t c = 1; c < k; c++) acc += z[c];
        const double den = (double)acc;
        for (Py_ssize_t c = 0; c < k; c++) z[c] = z[c] / den;
        o->lp[i] = log(loss_clip(z[o->codes[i] - 1]));
    }
}

/* Work (multiply-adds) below which the objective stays on one thread. */
#define PAR_MIN_WORK 400000

typedef struct {
    mnl_t *o;
    const double *par;
} mnl_job;

static void mnl_rows_part(void *a, int part)
{
    mnl_job *j = a;
    Py_ssize_t half = j->o->n / 2;
    if (part == 0) mnl_rows(j->o, j->par, 0, half);
    else mnl_rows(j->o, j->par, half, j->o->n);
}

static int mnl_parallel(const mnl_t *o)
{
    return o->nthreads > 1 && (double)o->n * (double)o->k * (double)(o->d + 1) >= PAR_MIN_WORK;
}

static int mnl_value(void *vctx, const double *par, double *value)
{
    mnl_t *o = (mnl_t *)vctx;
    const Py_ssize_t n = o->n, d = o->d, k = o->k;
    const double *W = par, *bias = par + k * d;
    if (mnl_parallel(o)) {
        mnl_job job = {o, par};
        run_two(mnl_rows_part, &job);
    } else {
        mnl_rows(o, par, 0, n);
    }
    double out;
    if (o->w) {
        /* weighted: -sum(w * lp) / sum(w), both sums R's (long double, index order) */
        long double sw = (long double)(o->w[0] * o->lp[0]);
        for (Py_ssize_t i = 1; i < n; i++) sw += (long double)(o->w[i] * o->lp[i]);
        out = -((double)sw / o->sw);
    } else {
        /* R's mean(): two passes in long double */
        long double s = o->lp[0];
        for (Py_ssize_t i = 1; i < n; i++) s += o->lp[i];
        s = s / (long double)n;
        if (isfinite(s)) {
            long double t = (long double)o->lp[0] - s;
            for (Py_ssize_t i = 1; i < n; i++) t += (long double)o->lp[i] - s;
            s = s + t / (long double)n;
        }
        out = -(double)s;
    }
    if (o->has_mu) {
        if (o->lam > 0) out = out + o->lam * ld_sum_masked(W, o->mask, k * d);
        if (o->mu > 0) out = out + o->mu * ld_sum_masked(bias, NULL, k);
    } else if (o->lam > 0) {
        out = out + o->lam * (ld_sum_masked(W, o->mask, k * d) + ld_sum_masked(bias, NULL, k));
    }
    *value = out;
    return 0;
}

/* gW += r_a u_a^T + r_b u_b^T + ... for a block of m <= 4 observations, each element
   receiving the observations' products one after another (crossprod's order) */
HOT static void outer_block(double *restrict gW, const double *restrict R, const double *restrict U,
                            Py_ssize_t m, Py_ssize_t k, Py_ssize_t d, Py_ssize_t l0, Py_ssize_t l1)
{
    for (Py_ssize_t l = l0; l < l1; l++) {
        double *restrict gw = gW + l * k;
        if (m == 4) {
            const double *r0 = R, *r1 = R + k, *r2 = R + 2 * k, *r3 = R + 3 * k;
            const double u0 = U[l], u1 = U[d + l], u2 = U[2 * d + l], u3 = U[3 * d + l];
            for (Py_ssize_t c = 0; c < k; c++)
                gw[c] = (((gw[c] + r0[c] * u0) + r1[c] * u1) + r2[c] * u2) + r3[c] * u3;
        } else {
            for (Py_ssize_t a = 0; a < m; a++) {
                const double *ra = R + a * k;
                const double ua = U[a * d + l];
                for (Py_ssize_t c = 0; c < k; c++) gw[c] += ra[c] * ua;
            }
        }
    }
}

/* residuals (p - onehot) / n of rows [i0, i1), in place of the probabilities */
static void mnl_resid(mnl_t *o, Py_ssize_t i0, Py_ssize_t i1)
{
    const Py_ssize_t k = o->k;
    const double dn = (double)o->n;
    for (Py_ssize_t i = i0; i < i1; i++) {
        double *r = o->P + i * k;
        r[o->codes[i] - 1] -= 1.0;
        if (o->w) {
            /* (P - Y) * (w / sum(w)) */
            const double f = o->w[i] / o->sw;
            for (Py_ssize_t c = 0; c < k; c++) r[c] = r[c] * f;
        } else {
            for (Py_ssize_t c = 0; c < k; c++) r[c] = r[c] / dn;
        }
    }
}

/* columns [l0, l1) of gW = crossprod(R, U), each entry summed over the observations in order.
   crossprod(): one block (the first product starts each sum) unless n exceeds the block of
   the reference implementation, whose running total starts at 0.0 */
static void mnl_gw(mnl_t *o, double *gW, Py_ssize_t l0, Py_ssize_t l1)
{
    const Py_ssize_t n = o->n, d = o->d, k = o->k, kd = k * d;
    const double *P = o->P, *U = o->U;
    Py_ssize_t step = (Py_ssize_t)((1L << 21) / (kd > 1 ? kd : 1));
    if (step < 1) step = 1;
    Py_ssize_t i0 = 0;
    if (n > step) {
        for (Py_ssize_t j = l0 * k; j < l1 * k; j++) gW[j] = 0.0;
    } else {
        for (Py_ssize_t l = l0; l < l1; l++)
            for (Py_ssize_t c = 0; c < k; c++) gW[l * k + c] = P[c] * U[l];
        i0 = 1;
    }
    for (; i0 < n; i0 += 4) {
        Py_ssize_t m = n - i0 < 4 ? n - i0 : 4;
        outer_block(gW, P + i0 * k, U + i0 * d, m, k, d, l0, l1);
    }
}

typedef struct {
    mnl_t *o;
    double *gW;
} grad_job;

static void mnl_resid_part(void *a, int part)
{
    grad_job *j = a;
    Py_ssize_t half = j->o->n / 2;
    if (part == 0) mnl_resid(j->o, 0, half);
    else mnl_resid(j->o, half, j->o->n);
}

static void mnl_gw_part(void *a, int part)
{
    grad_job *j = a;
    Py_ssize_t half = j->o->d / 2;
    if (part == 0) mnl_gw(j->o, j->gW, 0, half);
    else mnl_gw(j->o, j->gW, half, j->o->d);
}

/* The gradient at the point of the last mnl_value call (vmmin only asks for that one).
   The residuals overwrite the stored probabilities. */
static int mnl_grad(void *vctx, const double *par, double *grad)
{
    mnl_t *o = (mnl_t *)vctx;
    const Py_ssize_t n = o->n, d = o->d, k = o->k, kd = k * d;
    const double *W = par, *bias = par + k * d;
    double *gW = grad, *gb = grad + k * d;
    const double *P = o->P;
    grad_job job = {o, gW};
    if (mnl_parallel(o)) {
        run_two(mnl_resid_part, &job);
        if (d >= 2) run_two(mnl_gw_part, &job);
        else mnl_gw(o, gW, 0, d);
    } else {
        mnl_resid(o, 0, n);
        mnl_gw(o, gW, 0, d);
    }
    /* colSums of the residuals: long double down the observations, four classes at a
       time so that the accumulators stay in x87 registers */
    Py_ssize_t c = 0;
    for (; c + 4 <= k; c += 4) {
        long double a0 = P[c], a1 = P[c + 1], a2 = P[c + 2], a3 = P[c + 3];
        for (Py_ssize_t i = 1; i < n; i++) {
            const double *r = P + i * k + c;
            a0 += r[0]; a1 += r[1]; a2 += r[2]; a3 += r[3];
        }
        gb[c] = (double)a0; gb[c + 1] = (double)a1; gb[c + 2] = (double)a2; gb[c + 3] = (double)a3;
    }
    for (; c < k; c++) {
        long double a = P[c];
        for (Py_ssize_t i = 1; i < n; i++) a += P[i * k + c];
        gb[c] = (double)a;
    }
    const double mu = o->has_mu ? o->mu : o->lam;
    if (o->lam > 0 || mu > 0) {
        if (o->lam > 0) {
            const double tl = 2.0 * o->lam;
            for (Py_ssize_t j = 0; j < kd; j++)
                gW[j] = gW[j] + (tl * W[j]) * (o->mask[j] ? 1.0 : 0.0);
        }
        if (mu > 0) {
            const double tm = 2.0 * mu;
            for (Py_ssize_t j = 0; j < k; j++) gb[j] = gb[j] + tm * bias[j];
        }
    }
    return 0;
}

static int mnl_alloc(mnl_t *o)
{
    o->P = malloc(sizeof(double) * (size_t)o->n * (size_t)o->k);
    o->lp = malloc(sizeof(double) * (size_t)o->n);
    return o->P && o->lp;
}

static void mnl_free(mnl_t *o)
{
    free(o->P); free(o->lp);
}

/* ------------------------------------------------------------------------------------ */
/* the scaling objectives of calstats/calibrators/scaling.py: multiclass temperature      */
/* scaling, softmax(Z / T), and vector scaling, softmax(z_ic s_c + b_c)                    */
/*                                                                                        */
/* Each is the mean negative log-likelihood of the true classes with the reference's      */
/* arithmetic: the linear predictor in double (one division, or a product then a sum),    */
/* the row maximum subtracted, the C library's exp, the long-double rowSums in class      */
/* order, one division, the 1e-15 clipping, the C library's log, and R's two-pass         */
/* long-double mean (or -sum(w * lp) / sum(w)).  The vector-scaling gradient is colSums   */
/* over the observations, in order and in long double, of the residuals and of their      */
/* products with the logits, as the reference's ld_sum_axis0 adds them.                   */

#define SC_TEMPERATURE 0
#define SC_VECTOR 1
/* rows of residuals formed at a time by the gradient (they stay in the L2 cache while
   the long-double accumulators run down them) */
#define SC_GR_ROWS 32

typedef struct {
    const double *Z;        /* n x k logits, observation-major (float64), or NULL when Z32 is set */
    const float *Z32;       /* the same as float32: each entry widened to double as it is read,
                               which is exact, so the bits are those of Z32.astype(float64) */
    const int64_t *codes;   /* 1-based class codes */
    Py_ssize_t n, k;
    int kind;               /* SC_TEMPERATURE (par = T) or SC_VECTOR (par = s_1..s_k, b_1..b_k) */
    const double *w;        /* n case weights, or NULL (R's mean) */
    double sw;              /* sum(w) as R's sum(), when weighted */
    double *P;              /* n x k probabilities at the last point (vector scaling), or NULL */
    double *lp;             /* n log-likelihood terms */
    double *scratch[2];     /* per thread: two rows of the linear predictor (when P is NULL) */
    double *gbuf[2];        /* per thread: residuals and products of SC_GR_ROWS rows */
    long double *gacc;      /* 2 k running column sums of the gradient */
    const double *par;      /* the point being evaluated */
    int nthreads;
} scl_t;

/* the linear predictor of row i into x */
INLINE void scl_eta(const scl_t *o, Py_ssize_t i, double *restrict x)
{
    const Py_ssize_t k = o->k;
    if (o->Z32) {
        const float *restrict z = o->Z32 + i * k;
        if (o->kind == SC_TEMPERATURE) {
            const double T = o->par[0];
            for (Py_ssize_t c = 0; c < k; c++) x[c] = (double)z[c] / T;
        } else {
            const double *restrict s = o->par, *restrict b = o->par + k;
            for (Py_ssize_t c = 0; c < k; c++) x[c] = (double)z[c] * s[c] + b[c];
        }
        return;
    }
    const double *restrict z = o->Z + i * k;
    if (o->kind == SC_TEMPERATURE) {
        const double T = o->par[0];
        for (Py_ssize_t c = 0; c < k; c++) x[c] = z[c] / T;
    } else {
        const double *restrict s = o->par, *restrict b = o->par + k;
        for (Py_ssize_t c = 0; c < k; c++) x[c] = z[c] * s[c] + b[c];
    }
}

/* row_max in four lanes: NaN if any entry is NaN (as np.max), else the largest entry.  The
   lanes may pick the other zero of a tie between -0 and +0, which changes no later bit:
   the maximum is only subtracted before exp, and exp(-0) = exp(+0) = 1. */
#if CS_VECTOR_EXT
INLINE double scl_row_max(const double *z, Py_ssize_t k)
{
    if (k < 8) return row_max(z, k);
    v4d m = load4(z), m2 = load4(z + 4);
    v4l bad = (v4l)(m != m) | (v4l)(m2 != m2);
    Py_ssize_t c = 8;
    for (; c + 8 <= k; c += 8) {
        const v4d x = load4(z + c), x2 = load4(z + c + 4);
        const v4l take = (v4l)(x > m), take2 = (v4l)(x2 > m2);
        bad |= (v4l)(x != x) | (v4l)(x2 != x2);
        m = (v4d)(((v4l)x & take) | ((v4l)m & ~take));
        m2 = (v4d)(((v4l)x2 & take2) | ((v4l)m2 & ~take2));
    }
    int has_nan = (bad[0] | bad[1] | bad[2] | bad[3]) != 0;
    double out = m[0];
    for (int l = 1; l < 4; l++) out = m[l] > out ? m[l] : out;
    for (int l = 0; l < 4; l++) out = m2[l] > out ? m2[l] : out;
    for (; c < k; c++) {
        has_nan |= isnan(z[c]);
        out = z[c] > out ? z[c] : out;
    }
    return has_nan ? NAN : out;
}
#else
INLINE double scl_row_max(const double *z, Py_ssize_t k) { return row_max(z, k); }
#endif

/* softmax of rows [i0, i1) and their log-likelihood terms; rows go in pairs as in mnl_rows
   (each row's operations in its own order, two rows' dependency chains overlapping) */
HOT static void scl_rows(scl_t *o, Py_ssize_t i0, Py_ssize_t i1, double *scratch)
{
    const Py_ssize_t k = o->k;
    Py_ssize_t i = i0;
    for (; i + 2 <= i1; i += 2) {
        double *x0 = o->P ? o->P + i * k : scratch, *x1 = x0 + k;
        scl_eta(o, i, x0);
        scl_eta(o, i + 1, x1);
        const double m0 = scl_row_max(x0, k), m1 = scl_row_max(x1, k);
        for (Py_ssize_t c = 0; c < k; c++) {
            x0[c] = x0[c] - m0;
            x1[c] = x1[c] - m1;
        }
        exp_shifted(x0, 2 * k, 0.0); /* the C library's exp, bit for bit (_exp_replica.h) */
        /* the first term starts each sum; NumPy's start at 0.0 gives the same sum because
           no term is -0 */
        long double a0 = x0[0], a1 = x1[0];
        for (Py_ssize_t c = 1; c < k; c++) {
            a0 += x0[c];
            a1 += x1[c];
        }
        const double den0 = (double)a0, den1 = (double)a1;
        const Py_ssize_t y0 = o->codes[i] - 1, y1 = o->codes[i + 1] - 1;
        double p0, p1;
        if (o->P) {
            for (Py_ssize_t c = 0; c < k; c++) {
                x0[c] = x0[c] / den0;
                x1[c] = x1[c] / den1;
            }
            p0 = x0[y0];
            p1 = x1[y1];
        } else {
            p0 = x0[y0] / den0;
            p1 = x1[y1] / den1;
        }
        o->lp[i] = log(loss_clip(p0));
        o->lp[i + 1] = log(loss_clip(p1));
    }
    for (; i < i1; i++) {
        double *x = o->P ? o->P + i * k : scratch;
        scl_eta(o, i, x);
        exp_shifted(x, k, scl_row_max(x, k));
        long double a = x[0];
        for (Py_ssize_t c = 1; c < k; c++) a += x[c];
        const double den = (double)a;
        const Py_ssize_t y = o->codes[i] - 1;
        double p;
        if (o->P) {
            for (Py_ssize_t c = 0; c < k; c++) x[c] = x[c] / den;
            p = x[y];
        } else {
            p = x[y] / den;
        }
        o->lp[i] = log(loss_clip(p));
    }
}

static void scl_rows_part(void *a, int part)
{
    scl_t *o = a;
    const Py_ssize_t half = o->n / 2;
    if (part == 0) scl_rows(o, 0, half, o->scratch[0]);
    else scl_rows(o, half, o->n, o->scratch[1]);
}

static int scl_parallel(const scl_t *o)
{
    return o->nthreads > 1 && (double)o->n * (double)o->k >= PAR_MIN_WORK;
}

/* -mean(lp) as R's mean() (two passes in long double), or -sum(w * lp) / sum(w) with
   R's sum() (long double, index order, the first term starting the sum) */
static double scl_loss(const scl_t *o)
{
    const Py_ssize_t n = o->n;
    const double *lp = o->lp;
    if (o->w) {
        long double s = (long double)(o->w[0] * lp[0]);
        for (Py_ssize_t i = 1; i < n; i++) s += (long double)(o->w[i] * lp[i]);
        return -((double)s / o->sw);
    }
    long double s = lp[0];
    for (Py_ssize_t i = 1; i < n; i++) s += lp[i];
    s = s / (long double)n;
    if (isfinite(s)) {
        long double t = (long double)lp[0] - s;
        for (Py_ssize_t i = 1; i < n; i++) t += (long double)lp[i] - s;
        s = s + t / (long double)n;
    }
    return -(double)s;
}

static int scl_value(void *vctx, const double *par, double *value)
{
    scl_t *o = vctx;
    o->par = par;
    if (scl_parallel(o)) run_two(scl_rows_part, o);
    else scl_rows(o, 0, o->n, o->scratch[0]);
    *value = scl_loss(o);
    return 0;
}

/*
 * Gradient columns [c0, c1) (scales into grad[c], biases into grad[k + c]) from the
 * probabilities P: r_ic = (p_ic - [c = y_i]) / n (weighted: * (w_i / sum(w))), then per
 * class the long-double sums over i = 0, 1, ... of r_ic z_ic and of r_ic, started at 0.0
 * as R's colSums starts them (a sum of -0 terms is +0), as the reference's ld_sum_axis0.  Rows go
 * in blocks: the residuals of SC_GR_ROWS rows are formed in double (vectorised), then the
 * accumulators, two classes at a time, run down the block.
 */
HOT static void scl_grad_cols(scl_t *o, Py_ssize_t c0, Py_ssize_t c1, double *restrict buf, double *grad)
{
    const Py_ssize_t n = o->n, k = o->k, m = c1 - c0;
    const double dn = (double)n;
    long double *accS = o->gacc, *accB = o->gacc + k;
    double *restrict rb = buf, *restrict rz = buf + SC_GR_ROWS * m;
    if (m <= 0) return;
    for (Py_ssize_t i0 = 0; i0 < n; i0 += SC_GR_ROWS) {
        const Py_ssize_t rows = n - i0 < SC_GR_ROWS ? n - i0 : SC_GR_ROWS;
        for (Py_ssize_t r = 0; r < rows; r++) {
            const Py_ssize_t i = i0 + r;
            const double *restrict p = o->P + i * k + c0;
            double *restrict rr = rb + r * m, *restrict rzz = rz + r * m;
            for (Py_ssize_t c = 0; c < m; c++) rr[c] = p[c];
            const Py_ssize_t y = o->codes[i] - 1;
            if (y >= c0 && y < c1) rr[y - c0] = rr[y - c0] - 1.0;
            if (o->w) {
                const double f = o->w[i] / o->sw;
                for (Py_ssize_t c = 0; c < m; c++) rr[c] = rr[c] * f;
            } else {
                for (Py_ssize_t c = 0; c < m; c++) rr[c] = rr[c] / dn;
            }
            if (o->Z32) {
                const float *restrict z = o->Z32 + i * k + c0;
                for (Py_ssize_t c = 0; c < m; c++) rzz[c] = rr[c] * (double)z[c];
            } else {
                const double *restrict z = o->Z + i * k + c0;
                for (Py_ssize_t c = 0; c < m; c++) rzz[c] = rr[c] * z[c];
            }
        }
        const Py_ssize_t r0 = 0;
        if (i0 == 0)
            for (Py_ssize_t c = 0; c < m; c++) accS[c0 + c] = accB[c0 + c] = 0.0L;
        Py_ssize_t c = 0;
        for (; c + 2 <= m; c += 2) {
            long double s0 = accS[c0 + c], s1 = accS[c0 + c + 1], b0 = accB[c0 + c], b1 = accB[c0 + c + 1];
            for (Py_ssize_t r = r0; r < rows; r++) {
                const double *rzr = rz + r * m + c, *rbr = rb + r * m + c;
                s0 += rzr[0];
                s1 += rzr[1];
                b0 += rbr[0];
                b1 += rbr[1];
            }
            accS[c0 + c] = s0; accS[c0 + c + 1] = s1; accB[c0 + c] = b0; accB[c0 + c + 1] = b1;
        }
        for (; c < m; c++) {
            long double s0 = accS[c0 + c], b0 = accB[c0 + c];
            for (Py_ssize_t r = r0; r < rows; r++) {
                s0 += rz[r * m + c];
                b0 += rb[r * m + c];
            }
            accS[c0 + c] = s0;
            accB[c0 + c] = b0;
        }
    }
    for (Py_ssize_t c = c0; c < c1; c++) {
        grad[c] = (double)accS[c];
        grad[k + c] = (double)accB[c];
    }
}

typedef struct {
    scl_t *o;
    double *grad;
} scl_grad_job;

static void scl_grad_part(void *a, int part)
{
    scl_grad_job *j = a;
    const Py_ssize_t half = j->o->k / 2;
    if (part == 0) scl_grad_cols(j->o, 0, half, j->o->gbuf[0], j->grad);
    else scl_grad_cols(j->o, half, j->o->k, j->o->gbuf[1], j->grad);
}

/* the vector-scaling gradient at the point of the last scl_value call (vmmin only asks
   for that one); every class's sums are its own, so the class split changes no bit */
static int scl_grad(void *vctx, const double *par, double *grad)
{
    scl_t *o = vctx;
    (void)par;
    scl_grad_job job = {o, grad};
    if (scl_parallel(o) && o->k >= 4) run_two(scl_grad_part, &job);
    else scl_grad_cols(o, 0, o->k, o->gbuf[0], grad);
    return 0;
}

/* buffers: lp, the scratch rows, and (with_grad) the gradient's blocks and sums; P is
   allocated here only with own_P */
static int scl_alloc(scl_t *o, int own_P, int with_grad)
{
    const size_t k = (size_t)o->k;
    o->lp = malloc(sizeof(double) * (size_t)o->n);
    o->scratch[0] = malloc(sizeof(double) * 4 * k);
    o->scratch[1] = o->scratch[0] ? o->scratch[0] + 2 * k : NULL;
    if (own_P) o->P = malloc(sizeof(double) * (size_t)o->n * k);
    if (with_grad) {
        o->gbuf[0] = malloc(sizeof(double) * 4 * SC_GR_ROWS * k);
        o->gbuf[1] = o->gbuf[0] ? o->gbuf[0] + 2 * SC_GR_ROWS * k : NULL;
        o->gacc = malloc(sizeof(long double) * 2 * k);
    }
    return o->lp && o->scratch[0] && (!own_P || o->P) && (!with_grad || (o->gbuf[0] && o->gacc));
}

static void scl_free(scl_t *o, int own_P)
{
    free(o->lp);
    free(o->scratch[0]);
    free(o->gbuf[0]);
    free(o->gacc);
    if (own_P) free(o->P);
}

/* ------------------------------------------------------------------------------------ */
/* Python glue                                                                            */

typedef struct {
    Py_buffer view;
    int held;
} buf_t;

static int get_buf(PyObject *obj, buf_t *b, int writable, Py_ssize_t min_bytes, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) return -1;
    b->held = 1;
    if (b->view.len < min_bytes) {
        PyErr_Format(PyExc_ValueError, "_core: buffer %s too small", what);
        return -1;
    }
    return 0;
}

/* a C-contiguous float64 or float32 buffer of at least `count` elements; *f32 says which */
static int get_real_buf(PyObject *obj, buf_t *b, Py_ssize_t count, const char *what, int *f32)
{
    b->held = 0;
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    b->held = 1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (f[0] == 'd' && f[1] == 0 && b->view.itemsize == 8) *f32 = 0;
    else if (f[0] == 'f' && f[1] == 0 && b->view.itemsize == 4) *f32 = 1;
    else {
        PyErr_Format(PyExc_ValueError, "_core: buffer %s must hold float64 or float32", what);
        return -1;
    }
    if (b->view.len < count * b->view.itemsize) {
        PyErr_Format(PyExc_ValueError, "_core: buffer %s too small", what);
        return -1;
    }
    return 0;
}

static void rel_buf(buf_t *b)
{
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

static int parse_mnl(PyObject *args, mnl_t *o, buf_t *bu, buf_t *bc, buf_t *bm, buf_t *bw,
                     PyObject **rest, Py_ssize_t nrest)
{
    PyObject *U, *codes, *mask, *mu_obj, *w_obj;
    Py_ssize_t n, d, k;
    double lam, sw;
    PyObject *a = PyTuple_GetSlice(args, 0, 10);
    if (!a) return -1;
    int ok = PyArg_ParseTuple(a, "OOnnndOOOd", &U, &codes, &n, &d, &k, &lam, &mu_obj, &mask, &w_obj, &sw);
    Py_DECREF(a);
    if (!ok) return -1;
    for (Py_ssize_t j = 0; j < nrest; j++) rest[j] = PyTuple_GET_ITEM(args, 10 + j);
    memset(o, 0, sizeof(*o));
    o->n = n; o->d = d; o->k = k; o->lam = lam;
    if (mu_obj == Py_None) o->has_mu = 0;
    else {
        o->has_mu = 1;
        o->mu = PyFloat_AsDouble(mu_obj);
        if (PyErr_Occurred()) return -1;
    }
    if (n < 1 || d < 1 || k < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: empty problem");
        return -1;
    }
    if (get_buf(U, bu, 0, (Py_ssize_t)(sizeof(double) * n * d), "U") < 0) return -1;
    if (get_buf(codes, bc, 0, (Py_ssize_t)(sizeof(int64_t) * n), "codes") < 0) return -1;
    if (get_buf(mask, bm, 0, k * d, "mask") < 0) return -1;
    o->U = bu->view.buf;
    o->codes = bc->view.buf;
    o->mask = bm->view.buf;
    if (w_obj != Py_None) {
        if (get_buf(w_obj, bw, 0, (Py_ssize_t)(sizeof(double) * n), "weights") < 0) return -1;
        o->w = bw->view.buf;
        o->sw = sw;
    }
    return 0;
}

static PyObject *status_tuple(int status, vm_result *r)
{
    if (status != ST_OK)
        return Py_BuildValue("(iOlllli)", status, Py_None, 0L, 0L, 0L, 0L, 0);
    return Py_BuildValue("(idlllli)", status, r->fmin, r->funcount, r->gradcount, r->iterations,
                         0L, r->convergence);
}

/* multinomial_fit(U, codes, n, d, k, lam, mu, mask, weights, sum_w, par, maxit, abstol, reltol,
                   nthreads)
   -> (status, value, funcount, gradcount, iterations, 0, convergence); par is overwritten. */
static PyObject *py_multinomial_fit(PyObject *self, PyObject *args)
{
    mnl_t o;
    buf_t bu = {0}, bc = {0}, bm = {0}, bw = {0}, bp = {0};
    PyObject *rest[5];
    vm_result r;
    int status, nthreads;
    long maxit;
    double abstol, reltol;
    if (PyTuple_GET_SIZE(args) != 15) {
        PyErr_SetString(PyExc_TypeError, "_core.multinomial_fit takes 15 arguments");
        return NULL;
    }
    if (parse_mnl(args, &o, &bu, &bc, &bm, &bw, rest, 5) < 0) goto fail;
    maxit = PyLong_AsLong(rest[1]);
    abstol = PyFloat_AsDouble(rest[2]);
    reltol = PyFloat_AsDouble(rest[3]);
    nthreads = (int)PyLong_AsLong(rest[4]);
    o.nthreads = nthreads;
    if (PyErr_Occurred()) goto fail;
    Py_ssize_t npar = o.k * o.d + o.k;
    if (get_buf(rest[0], &bp, 1, (Py_ssize_t)(sizeof(double) * npar), "par") < 0) goto fail;
    if (!mnl_alloc(&o)) { mnl_free(&o); PyErr_NoMemory(); goto fail; }
    Py_BEGIN_ALLOW_THREADS
    status = vmmin_core(npar, bp.view.buf, mnl_value, mnl_grad, &o, maxit, abstol, reltol, &r, 0, nthreads);
    Py_END_ALLOW_THREADS
    mnl_free(&o);
    rel_buf(&bu); rel_buf(&bc); rel_buf(&bm); rel_buf(&bw); rel_buf(&bp);
    if (status == ST_NOMEM) return PyErr_NoMemory();
    return status_tuple(status, &r);
fail:
    rel_buf(&bu); rel_buf(&bc); rel_buf(&bm); rel_buf(&bw); rel_buf(&bp);
    return NULL;
}

/* multinomial_eval(U, codes, n, d, k, lam, mu, mask, weights, sum_w, par, grad_out, nthreads)
   -> value */
static PyObject *py_multinomial_eval(PyObject *self, PyObject *args)
{
    mnl_t o;
    buf_t bu = {0}, bc = {0}, bm = {0}, bw = {0}, bp = {0}, bg = {0};
    PyObject *rest[3];
    double value;
    if (PyTuple_GET_SIZE(args) != 13) {
        PyErr_SetString(PyExc_TypeError, "_core.multinomial_eval takes 13 arguments");
        return NULL;
    }
    if (parse_mnl(args, &o, &bu, &bc, &bm, &bw, rest, 3) < 0) goto fail;
    o.nthreads = (int)PyLong_AsLong(rest[2]);
    if (PyErr_Occurred()) goto fail;
    Py_ssize_t npar = o.k * o.d + o.k;
    if (get_buf(rest[0], &bp, 0, (Py_ssize_t)(sizeof(double) * npar), "par") < 0) goto fail;
    if (get_buf(rest[1], &bg, 1, (Py_ssize_t)(sizeof(double) * npar), "grad") < 0) goto fail;
    if (!mnl_alloc(&o)) { mnl_free(&o); PyErr_NoMemory(); goto fail; }
    Py_BEGIN_ALLOW_THREADS
    mnl_value(&o, bp.view.buf, &value);
    mnl_grad(&o, bp.view.buf, bg.view.buf);
    Py_END_ALLOW_THREADS
    mnl_free(&o);
    rel_buf(&bu); rel_buf(&bc); rel_buf(&bm); rel_buf(&bw); rel_buf(&bp); rel_buf(&bg);
    return PyFloat_FromDouble(value);
fail:
    rel_buf(&bu); rel_buf(&bc); rel_buf(&bm); rel_buf(&bw); rel_buf(&bp); rel_buf(&bg);
    return NULL;
}

/* the leading arguments of the scaling functions: (Z, codes, n, k, weights, sum_w, ...) */
static int parse_scl(PyObject *args, Py_ssize_t nargs, const char *name, scl_t *o, buf_t *bz, buf_t *bc,
                     buf_t *bw, PyObject **rest)
{
    PyObject *Z, *codes, *w_obj;
    Py_ssize_t n, k;
    double sw;
    if (PyTuple_GET_SIZE(args) != nargs) {
        PyErr_Format(PyExc_TypeError, "_core.%s takes %zd arguments", name, nargs);
        return -1;
    }
    PyObject *a = PyTuple_GetSlice(args, 0, 6);
    if (!a) return -1;
    int ok = PyArg_ParseTuple(a, "OOnnOd", &Z, &codes, &n, &k, &w_obj, &sw);
    Py_DECREF(a);
    if (!ok) return -1;
    for (Py_ssize_t j = 6; j < nargs; j++) rest[j - 6] = PyTuple_GET_ITEM(args, j);
    memset(o, 0, sizeof(*o));
    o->n = n;
    o->k = k;
    if (n < 1 || k < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: empty problem");
        return -1;
    }
    int f32 = 0;
    if (get_real_buf(Z, bz, n * k, "Z", &f32) < 0) return -1;
    if (get_buf(codes, bc, 0, (Py_ssize_t)(sizeof(int64_t) * n), "codes") < 0) return -1;
    if (f32) o->Z32 = bz->view.buf;
    else o->Z = bz->view.buf;
    o->codes = bc->view.buf;
    if (w_obj != Py_None) {
        if (get_buf(w_obj, bw, 0, (Py_ssize_t)(sizeof(double) * n), "weights") < 0) return -1;
        o->w = bw->view.buf;
        o->sw = sw;
    }
    return 0;
}

/* scaling_value(Z, codes, n, k, weights, sum_w, kind, par, P_out, nthreads) -> value;
   P_out (n x k, or None) receives the probabilities */
static PyObject *py_scaling_value(PyObject *self, PyObject *args)
{
    scl_t o;
    buf_t bz = {0}, bc = {0}, bw = {0}, bp = {0}, bP = {0};
    PyObject *rest[4];
    double value = 0.0;
    int ok = 0;
    if (parse_scl(args, 10, "scaling_value", &o, &bz, &bc, &bw, rest) < 0) goto done;
    o.kind = (int)PyLong_AsLong(rest[0]);
    o.nthreads = (int)PyLong_AsLong(rest[3]);
    if (PyErr_Occurred()) goto done;
    const Py_ssize_t npar = o.kind == SC_TEMPERATURE ? 1 : 2 * o.k;
    if (get_buf(rest[1], &bp, 0, (Py_ssize_t)(sizeof(double) * npar), "par") < 0) goto done;
    if (rest[2] != Py_None) {
        if (get_buf(rest[2], &bP, 1, (Py_ssize_t)(sizeof(double) * o.n * o.k), "P") < 0) goto done;
        o.P = bP.view.buf;
    }
    if (!scl_alloc(&o, 0, 0)) {
        scl_free(&o, 0);
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    scl_value(&o, bp.view.buf, &value);
    Py_END_ALLOW_THREADS
    scl_free(&o, 0);
    ok = 1;
done:
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bp); rel_buf(&bP);
    return ok ? PyFloat_FromDouble(value) : NULL;
}

/* scaling_gradient(Z, codes, n, k, weights, sum_w, P, grad_out, nthreads) -> None: the
   vector-scaling gradient from the probabilities P of a scaling_value call */
static PyObject *py_scaling_gradient(PyObject *self, PyObject *args)
{
    scl_t o;
    buf_t bz = {0}, bc = {0}, bw = {0}, bP = {0}, bg = {0};
    PyObject *rest[3];
    int ok = 0;
    if (parse_scl(args, 9, "scaling_gradient", &o, &bz, &bc, &bw, rest) < 0) goto done;
    o.kind = SC_VECTOR;
    o.nthreads = (int)PyLong_AsLong(rest[2]);
    if (PyErr_Occurred()) goto done;
    if (get_buf(rest[0], &bP, 0, (Py_ssize_t)(sizeof(double) * o.n * o.k), "P") < 0) goto done;
    if (get_buf(rest[1], &bg, 1, (Py_ssize_t)(sizeof(double) * 2 * o.k), "grad") < 0) goto done;
    o.P = bP.view.buf;
    if (!scl_alloc(&o, 0, 1)) {
        scl_free(&o, 0);
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    scl_grad(&o, NULL, bg.view.buf);
    Py_END_ALLOW_THREADS
    scl_free(&o, 0);
    ok = 1;
done:
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bP); rel_buf(&bg);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* vector_scaling_fit(Z, codes, n, k, weights, sum_w, par, maxit, abstol, reltol, nthreads)
   -> status tuple; par (2k) is overwritten: R's BFGS on the vector-scaling objective */
static PyObject *py_vector_scaling_fit(PyObject *self, PyObject *args)
{
    scl_t o;
    buf_t bz = {0}, bc = {0}, bw = {0}, bp = {0};
    PyObject *rest[5];
    vm_result r;
    int status = ST_OK;
    if (parse_scl(args, 11, "vector_scaling_fit", &o, &bz, &bc, &bw, rest) < 0) goto fail;
    o.kind = SC_VECTOR;
    const long maxit = PyLong_AsLong(rest[1]);
    const double abstol = PyFloat_AsDouble(rest[2]), reltol = PyFloat_AsDouble(rest[3]);
    o.nthreads = (int)PyLong_AsLong(rest[4]);
    if (PyErr_Occurred()) goto fail;
    if (get_buf(rest[0], &bp, 1, (Py_ssize_t)(sizeof(double) * 2 * o.k), "par") < 0) goto fail;
    if (!scl_alloc(&o, 1, 1)) {
        scl_free(&o, 1);
        PyErr_NoMemory();
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    status = vmmin_core(2 * o.k, bp.view.buf, scl_value, scl_grad, &o, maxit, abstol, reltol, &r, 0, o.nthreads);
    Py_END_ALLOW_THREADS
    scl_free(&o, 1);
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bp);
    if (status == ST_NOMEM) return PyErr_NoMemory();
    return status_tuple(status, &r);
fail:
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bp);
    return NULL;
}

/* Python callbacks: fn(bytes) -> float, gr(bytes) -> object with a C-contiguous double
   buffer of length n (the wrapper in core.py checks the length with R's message). */
typedef struct {
    PyObject *fn, *gr;
    Py_ssize_t n;
} pyobj_t;

static int py_fn(void *vctx, const double *par, double *value)
{
    pyobj_t *o = vctx;
    PyObject *arg = PyBytes_FromStringAndSize((const char *)par, sizeof(double) * o->n);
    if (!arg) return -1;
    PyObject *res = PyObject_CallOneArg(o->fn, arg);
    Py_DECREF(arg);
    if (!res) return -1;
    *value = PyFloat_AsDouble(res);
    Py_DECREF(res);
    return PyErr_Occurred() ? -1 : 0;
}

static int py_gr(void *vctx, const double *par, double *grad)
{
    pyobj_t *o = vctx;
    buf_t bg = {0};
    PyObject *arg = PyBytes_FromStringAndSize((const char *)par, sizeof(double) * o->n);
    if (!arg) return -1;
    PyObject *res = PyObject_CallOneArg(o->gr, arg);
    Py_DECREF(arg);
    if (!res) return -1;
    if (get_buf(res, &bg, 0, (Py_ssize_t)(sizeof(double) * o->n), "gradient") < 0) {
        Py_DECREF(res);
        return -1;
    }
    memcpy(grad, bg.view.buf, sizeof(double) * o->n);
    rel_buf(&bg);
    Py_DECREF(res);
    return 0;
}

/* vmmin(fn, gr, par, maxit, abstol, reltol, nthreads) -> status tuple; par is overwritten */
static PyObject *py_vmmin(PyObject *self, PyObject *args)
{
    pyobj_t o;
    PyObject *par;
    long maxit;
    double abstol, reltol;
    int nthreads;
    buf_t bp = {0};
    vm_result r;
    if (!PyArg_ParseTuple(args, "OOOlddi", &o.fn, &o.gr, &par, &maxit, &abstol, &reltol, &nthreads))
        return NULL;
    if (get_buf(par, &bp, 1, 0, "par") < 0) { rel_buf(&bp); return NULL; }
    o.n = bp.view.len / (Py_ssize_t)sizeof(double);
    int status = vmmin_core(o.n, bp.view.buf, py_fn, py_gr, &o, maxit, abstol, reltol, &r, 1, nthreads);
    rel_buf(&bp);
    if (status == ST_PYERR) return NULL;
    if (status == ST_NOMEM) return PyErr_NoMemory();
    return status_tuple(status, &r);
}

/* Spiegelhalter's four sums in one pass, each as an error-free extraction (the method of
   calstats/kernels/fsum.py): with sigma = 2^k >= 2 (n + 1) (every term is at most 1 in
   absolute value), q_i = (sigma + x_i) - sigma and r_i = x_i - q_i are exact and sum(q_i) is
   exact in any order, so four lanes may add them; sum(r_i) is within 2 n^2 2^(k - 106).  The
   caller rounds Q + R' once and checks that the bound cannot change the rounding (else it
   sums the terms again exactly).  Each term is formed with NumPy's roundings:
   t = s (1 - s), v = ((w w) s)(1 - s) with w = 1 - 2 s, d = o - s, d w and d d. */
HOT static void spiegel_sums(const double *s, const void *o, int o_int, Py_ssize_t n, double sigma,
                             double q[4], double r[4])
{
    double qa[4][4] = {{0}}, ra[4][4] = {{0}};
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) {
        for (int l = 0; l < 4; l++) {
            const double si = s[i + l];
            const double oi = o_int ? (double)((const int64_t *)o)[i + l] : ((const double *)o)[i + l];
            const double om = 1.0 - si, w = 1.0 - si * 2.0, d = oi - si;
            const double x[4] = {si * om, ((w * w) * si) * om, d * w, d * d};
            for (int j = 0; j < 4; j++) {
                const double qq = (sigma + x[j]) - sigma;
                qa[j][l] += qq;
                ra[j][l] += x[j] - qq;
            }
        }
    }
    for (; i < n; i++) {
        const double si = s[i];
        const double oi = o_int ? (double)((const int64_t *)o)[i] : ((const double *)o)[i];
        const double om = 1.0 - si, w = 1.0 - si * 2.0, d = oi - si;
        const double x[4] = {si * om, ((w * w) * si) * om, d * w, d * d};
        for (int j = 0; j < 4; j++) {
            const double qq = (sigma + x[j]) - sigma;
            qa[j][0] += qq;
            ra[j][0] += x[j] - qq;
        }
    }
    for (int j = 0; j < 4; j++) {
        q[j] = (qa[j][0] + qa[j][1]) + (qa[j][2] + qa[j][3]);
        r[j] = (ra[j][0] + ra[j][1]) + (ra[j][2] + ra[j][3]);
    }
}

/* spiegelhalter_sums(s, o, o_is_int, sigma) -> (Q0..Q3, R0..R3) */
static PyObject *py_spiegelhalter_sums(PyObject *self, PyObject *args)
{
    PyObject *s, *o;
    int o_int;
    double sigma;
    buf_t bs = {0}, bo = {0};
    if (!PyArg_ParseTuple(args, "OOid", &s, &o, &o_int, &sigma)) return NULL;
    if (get_buf(s, &bs, 0, 0, "s") < 0 || get_buf(o, &bo, 0, bs.view.len, "o") < 0) {
        rel_buf(&bs);
        rel_buf(&bo);
        return NULL;
    }
    double q[4], r[4];
    const Py_ssize_t n = bs.view.len / (Py_ssize_t)sizeof(double);
    Py_BEGIN_ALLOW_THREADS
    spiegel_sums(bs.view.buf, bo.view.buf, o_int, n, sigma, q, r);
    Py_END_ALLOW_THREADS
    rel_buf(&bs);
    rel_buf(&bo);
    return Py_BuildValue("(dddddddd)", q[0], q[1], q[2], q[3], r[0], r[1], r[2], r[3]);
}

/* One pass over a probability matrix (n x k, C order) for the checks and the top label:
   whether every entry is in [+0, 1] (as a signed 64-bit pattern it lies in [0, bits(1.0)];
   NaN and any negative value, -0 included, lie outside), the smallest and largest row sums
   (double, index order; the proof in calstats/_validate.py allows any order), and per row the
   first column attaining the maximum (NumPy's argmax: exact comparisons, the first NaN wins)
   as a 1-based code with its value.  NumPy's argmax(axis=1) walks rows of 10 with a small
   reduction each; this is the same answer in one streaming read.  Four rows go side by side
   in the lanes of a vector: each lane is one row's scalar computation, IEEE operation for
   operation, and selections are integer masks because a data-dependent branch per entry
   costs more than reading it. */
#define ONE_BITS 0x3FF0000000000000LL

/* entry j of a row as a double: float32 widens exactly, so every comparison, sum and bit
   test below gives for a float32 matrix what it gives for its float64 copy (a float32 in
   [+0, 1], -0, NaN or out of range widens to a double of the same kind) */
#define PSCAN_AT(row, j) (f32 ? (double)((const float *)(row))[j] : ((const double *)(row))[j])

INLINE void prob_scan_impl(const void *P, const int f32, Py_ssize_t n, Py_ssize_t k, double *r, int64_t *pred,
                           int *unit_ok, double *smin, double *smax)
{
    const size_t esz = f32 ? sizeof(float) : sizeof(double);
    const char *base = P;
    double lo = INFINITY, hi = -INFINITY;
    Py_ssize_t i = 0;
#if CS_VECTOR_EXT
    v4l bad = {0, 0, 0, 0};
    const v4l one = {ONE_BITS, ONE_BITS, ONE_BITS, ONE_BITS}, zero = {0, 0, 0, 0};
    for (; i + 4 <= n; i += 4) {
        const char *r0 = base + (size_t)i * (size_t)k * esz, *r1 = r0 + k * esz, *r2 = r1 + k * esz,
                   *r3 = r2 + k * esz;
        v4d s = {0.0, 0.0, 0.0, 0.0};
        v4d best = {PSCAN_AT(r0, 0), PSCAN_AT(r1, 0), PSCAN_AT(r2, 0), PSCAN_AT(r3, 0)};
        v4l jb = {0, 0, 0, 0};
        for (Py_ssize_t j = 0; j < k; j++) {
            const v4d x = {PSCAN_AT(r0, j), PSCAN_AT(r1, j), PSCAN_AT(r2, j), PSCAN_AT(r3, j)};
            const v4l b = (v4l)x, bb = (v4l)best, jv = {j, j, j, j};
            s += x;
            bad |= (b > one) | (b < zero);
            const v4l take = (x > best) | ((x != x) & (best == best));
            best = (v4d)((b & take) | (bb & ~take));
            jb = (jv & take) | (jb & ~take);
        }
        for (int l = 0; l < 4; l++) {
            r[i + l] = best[l];
            pred[i + l] = jb[l] + 1;
            lo = s[l] < lo ? s[l] : lo;
            hi = s[l] > hi ? s[l] : hi;
        }
    }
    int64_t bad1 = bad[0] | bad[1] | bad[2] | bad[3];
#else
    int64_t bad1 = 0; /* every row by the scalar loop below: the lanes' own computation */
#endif
    for (; i < n; i++) {
        const char *row = base + (size_t)i * (size_t)k * esz;
        double s = 0.0, best = PSCAN_AT(row, 0);
        Py_ssize_t jb = 0;
        for (Py_ssize_t j = 0; j < k; j++) {
            const double x = PSCAN_AT(row, j);
            int64_t b;
            memcpy(&b, &x, sizeof b);
            s += x;
            bad1 |= (b > ONE_BITS) | (b < 0);
            if ((x > best) | ((x != x) & (best == best))) {
                best = x;
                jb = j;
            }
        }
        r[i] = best;
        pred[i] = (int64_t)jb + 1;
        lo = s < lo ? s : lo;
        hi = s > hi ? s : hi;
    }
    *unit_ok = bad1 == 0;
    *smin = lo;
    *smax = hi;
}

HOT static void prob_scan(const void *P, int f32, Py_ssize_t n, Py_ssize_t k, double *r, int64_t *pred,
                          int *unit_ok, double *smin, double *smax)
{
    if (f32) prob_scan_impl(P, 1, n, k, r, pred, unit_ok, smin, smax);
    else prob_scan_impl(P, 0, n, k, r, pred, unit_ok, smin, smax);
}

/* Entries from which the scan splits its rows between two threads: below, a thread's
   start costs more than half the read. */
#define SCAN_PAR_MIN 262144

typedef struct {
    const void *P;
    int f32;
    Py_ssize_t n, k, h;
    double *r;
    int64_t *pred;
    int unit_ok[2];
    double lo[2], hi[2];
} scan_job;

/* rows [0, h) and [h, n): every row's results are its own, and the halves' verdicts and
   extreme sums merge exactly, so the split changes nothing but the time */
static void scan_part(void *a, int part)
{
    scan_job *j = a;
    const Py_ssize_t i0 = part ? j->h : 0, i1 = part ? j->n : j->h;
    const size_t esz = j->f32 ? sizeof(float) : sizeof(double);
    prob_scan((const char *)j->P + (size_t)i0 * (size_t)j->k * esz, j->f32, i1 - i0, j->k, j->r + i0, j->pred + i0,
              &j->unit_ok[part], &j->lo[part], &j->hi[part]);
}

/* prob_scan(P, k, r, pred, nthreads) -> (unit_ok, smin, smax); r and pred (n each) are written */
static PyObject *py_prob_scan(PyObject *self, PyObject *args)
{
    PyObject *P, *r, *pred;
    Py_ssize_t k;
    int nthreads;
    buf_t bp = {0}, br = {0}, bd = {0};
    if (!PyArg_ParseTuple(args, "OnOOi", &P, &k, &r, &pred, &nthreads)) return NULL;
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: prob_scan needs k >= 1");
        return NULL;
    }
    int f32 = 0;
    if (get_real_buf(P, &bp, 0, "P", &f32) < 0) { rel_buf(&bp); return NULL; }
    const Py_ssize_t n = bp.view.len / bp.view.itemsize / k;
    if (get_buf(r, &br, 1, n * (Py_ssize_t)sizeof(double), "r") < 0
        || get_buf(pred, &bd, 1, n * (Py_ssize_t)sizeof(int64_t), "pred") < 0) {
        rel_buf(&bp);
        rel_buf(&br);
        rel_buf(&bd);
        return NULL;
    }
    int ok = 0;
    double lo = INFINITY, hi = -INFINITY;
    Py_BEGIN_ALLOW_THREADS
    if (nthreads > 1 && (double)n * (double)k >= SCAN_PAR_MIN) {
        scan_job job = {bp.view.buf, f32, n, k, n / 2, br.view.buf, bd.view.buf, {0, 0}, {0, 0}, {0, 0}};
        run_two(scan_part, &job);
        ok = job.unit_ok[0] && job.unit_ok[1];
        lo = job.lo[0] < job.lo[1] ? job.lo[0] : job.lo[1];
        hi = job.hi[0] > job.hi[1] ? job.hi[0] : job.hi[1];
    } else {
        prob_scan(bp.view.buf, f32, n, k, br.view.buf, bd.view.buf, &ok, &lo, &hi);
    }
    Py_END_ALLOW_THREADS
    rel_buf(&bp);
    rel_buf(&br);
    rel_buf(&bd);
    return Py_BuildValue("(Odd)", ok ? Py_True : Py_False, lo, hi);
}

/* ------------------------------------------------------------------------------------ */
/* classwise bins of a probability matrix, rows in order                                  */
/*
 * The classwise binned metrics bin every column of an n x K matrix against 1{y = class}
 * and need, per (column, bin), the count, the number of labels of that class and R's
 * mean of the scores: two passes in long double, observations in index order (sum, then
 * the sum of the deviations from sum / count).  Reading the columns one by one costs K
 * strided passes; this walks the rows in memory order instead, keeping per (column, bin)
 * a running long-double sum, so every bin still adds its scores in index order, and a
 * pass may be cut into any blocks of consecutive rows (the state is carried in the
 * caller's arrays).  The first score of a bin starts its sum (np.cumsum's order).
 *
 * Bins: score_bin (_bins.h), shared with the fast engine.
 */
typedef struct {
    const void *P;
    int f32;
    Py_ssize_t n, k;
    int mode;
    const double *breaks;
    Py_ssize_t nb;
    const int64_t *codes;     /* pass 1: 1-based labels (their bin's label count goes up); else NULL */
    int64_t *cnt;             /* k nb: scores seen per (column, bin) */
    long double *acc;         /* k nb: running sums of the scores (pass 1) or deviations (pass 2) */
    int64_t *ysum;            /* k nb, pass 1 */
    const long double *mean;  /* k nb, pass 2: the means subtracted; NULL in pass 1 */
} colbin_t;

/* the pass over columns [c0, c1) with the float type, the bins and the pass fixed */
INLINE void colbin_rows_impl(const colbin_t *o, const int f32, const int mode, const int second,
                             Py_ssize_t c0, Py_ssize_t c1)
{
    const Py_ssize_t k = o->k, nb = o->nb;
    const double *restrict br = o->breaks;
    int64_t *restrict cnt = o->cnt, *restrict ysum = o->ysum;
    long double *restrict acc = o->acc;
    const long double *restrict mean = o->mean;
    const int64_t *restrict codes = o->codes;
    for (Py_ssize_t i = 0; i < o->n; i++) {
        const char *row = (const char *)o->P + (size_t)i * (size_t)k * (f32 ? sizeof(float) : sizeof(double));
        const Py_ssize_t y = codes ? codes[i] - 1 : -1;
        for (Py_ssize_t c = c0; c < c1; c++) {
            const double v = PSCAN_AT(row, c);
            const Py_ssize_t g = c * nb + score_bin(br, nb, mode, v);
            const long double d = second ? (long double)v - mean[g] : (long double)v;
            if (cnt[g]) acc[g] += d;
            else acc[g] = d;
            cnt[g]++;
            if (!second && c == y) ysum[g]++;
        }
    }
}

#define COLBIN_MODES(f32, second)                                        \
    do {                                                                 \
        if (o->mode == 0) colbin_rows_impl(o, f32, 0, second, c0, c1);   \
        else if (o->mode == 1) colbin_rows_impl(o, f32, 1, second, c0, c1); \
        else colbin_rows_impl(o, f32, 2, second, c0, c1);                \
    } while (0)

HOT static void colbin_rows(const colbin_t *o, Py_ssize_t c0, Py_ssize_t c1)
{
    const int second = o->mean != NULL;
    if (o->f32) {
        if (second) COLBIN_MODES(1, 1);
        else COLBIN_MODES(1, 0);
    } else {
        if (second) COLBIN_MODES(0, 1);
        else COLBIN_MODES(0, 0);
    }
}

/* columns [0, k/2) and [k/2, k): every (column, bin) is one thread's, so the split changes
   no sum */
static void colbin_part(void *a, int part)
{
    const colbin_t *o = a;
    const Py_ssize_t half = o->k / 2;
    if (part == 0) colbin_rows(o, 0, half);
    else colbin_rows(o, half, o->k);
}

/* colbin_pass(P, k, mode, breaks, codes, cnt, acc, ysum, mean, nthreads) -> None.  P: n x k
   float64 or float32 (C order); codes and ysum, or mean, are None as the pass requires. */
static PyObject *py_colbin_pass(PyObject *self, PyObject *args)
{
    PyObject *P, *breaks, *codes, *cnt, *acc, *ysum, *mean;
    Py_ssize_t k;
    int mode, nthreads;
    buf_t bp = {0}, bb = {0}, bc = {0}, bn = {0}, ba = {0}, by = {0}, bm = {0};
    colbin_t o;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OniOOOOOOi", &P, &k, &mode, &breaks, &codes, &cnt, &acc, &ysum, &mean,
                          &nthreads))
        return NULL;
    memset(&o, 0, sizeof o);
    if (k < 1 || mode < 0 || mode > 2) {
        PyErr_SetString(PyExc_ValueError, "_core: colbin_pass needs k >= 1 and mode 0, 1 or 2");
        return NULL;
    }
    if (get_real_buf(P, &bp, 0, "P", &o.f32) < 0) goto done;
    o.P = bp.view.buf;
    o.k = k;
    o.n = bp.view.len / bp.view.itemsize / k;
    o.mode = mode;
    if (get_buf(breaks, &bb, 0, 2 * (Py_ssize_t)sizeof(double), "breaks") < 0) goto done;
    o.breaks = bb.view.buf;
    o.nb = bb.view.len / (Py_ssize_t)sizeof(double) - 1;
    const Py_ssize_t g = k * o.nb;
    if (get_buf(cnt, &bn, 1, g * (Py_ssize_t)sizeof(int64_t), "cnt") < 0) goto done;
    if (get_buf(acc, &ba, 1, g * (Py_ssize_t)sizeof(long double), "acc") < 0) goto done;
    o.cnt = bn.view.buf;
    o.acc = ba.view.buf;
    if (codes != Py_None) {
        if (get_buf(codes, &bc, 0, o.n * (Py_ssize_t)sizeof(int64_t), "codes") < 0) goto done;
        if (get_buf(ysum, &by, 1, g * (Py_ssize_t)sizeof(int64_t), "ysum") < 0) goto done;
        o.codes = bc.view.buf;
        o.ysum = by.view.buf;
    }
    if (mean != Py_None) {
        if (get_buf(mean, &bm, 0, g * (Py_ssize_t)sizeof(long double), "mean") < 0) goto done;
        o.mean = bm.view.buf;
    }
    Py_BEGIN_ALLOW_THREADS
    if (nthreads > 1 && k >= 4 && (double)o.n * (double)k >= SCAN_PAR_MIN) run_two(colbin_part, &o);
    else colbin_rows(&o, 0, k);
    Py_END_ALLOW_THREADS
    ok = 1;
done:
    rel_buf(&bp); rel_buf(&bb); rel_buf(&bc); rel_buf(&bn); rel_buf(&ba); rel_buf(&by); rel_buf(&bm);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* exp_mode() -> "replica" (glibc's FMA exp in AVX2 lanes) or "libm" */
static PyObject *py_exp_mode(PyObject *self, PyObject *noargs)
{
    return PyUnicode_FromString(exp_replica_ok ? "replica" : "libm");
}

/* exp_shifted(z, m): z[c] = exp(z[c] - m) in place, as the objective computes it (tests) */
static PyObject *py_exp_shifted(PyObject *self, PyObject *args)
{
    PyObject *z;
    double m;
    buf_t bz = {0};
    if (!PyArg_ParseTuple(args, "Od", &z, &m)) return NULL;
    if (get_buf(z, &bz, 1, 0, "z") < 0) { rel_buf(&bz); return NULL; }
    exp_shifted(bz.view.buf, bz.view.len / (Py_ssize_t)sizeof(double), m);
    rel_buf(&bz);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------------------ */
/* survival's concordance (survival 3.5-3): the C routines fastkm1 and concordance3 (no  */
/* residuals), statement by statement.  The reference is the Python port in              */
/* calstats/ports/survival/concordance.py; tests/test_survival_metrics.py runs both.     */

/* weight above (s[0]), below (s[1]) and tied with (s[2]) node `index` of the balanced
   binary tree stored as an array (node weights nwt, node-plus-subtree totals twt) */
static void conc_walkup(const double *nwt, const double *twt, Py_ssize_t index, Py_ssize_t ntree, double s[3])
{
    s[0] = 0.0;
    s[1] = 0.0;
    s[2] = nwt[index];
    const Py_ssize_t j = 2 * index + 2;
    if (j < ntree) s[0] += twt[j];
    if (j <= ntree) s[1] += twt[j - 1];
    while (index > 0) {
        const Py_ssize_t parent = (index - 1) / 2;
        if (index % 2 == 1) s[0] += twt[parent] - twt[index];
        else s[1] += twt[parent] - twt[index];
        index = parent;
    }
}

static void conc_addin(double *nwt, double *twt, Py_ssize_t index, double wt)
{
    nwt[index] += wt;
    while (index > 0) {
        twt[index] += wt;
        index = (index - 1) / 2;
    }
    twt[0] += wt;
}

static double conc_z2_term(double w, const double s[3])
{
    return w * (s[0] * (w + 2 * (s[1] + s[2])) + s[1] * (w + 2 * (s[0] + s[2])) + (s[0] - s[1]) * (s[0] - s[1]));
}

/* concordance3: count[6] and the influence imat (5 rows of n, zero on entry); tree holds
   4 * ntree zeros (nwt, twt and the deaths' dnwt, dtwt) */
static void conc_concordance3(Py_ssize_t n, const double *time, const double *status, const int64_t *x,
                              const double *wt, const double *timewt, const int64_t *sort2, double *count,
                              double *imat, double *tree, Py_ssize_t ntree)
{
    double *nwt = tree, *twt = tree + ntree, *dnwt = tree + 2 * ntree, *dtwt = tree + 3 * ntree;
    double *im0 = imat, *im1 = imat + n, *im2 = imat + 2 * n, *im3 = imat + 3 * n, *im4 = imat + 4 * n;
    double s[3], z2 = 0.0;
    Py_ssize_t utime = 0, i = 0, j, j2, k, ii, jj, kk, ndeath;
    for (k = 0; k < 6; k++) count[k] = 0.0;
    while (i < n) {
        ii = (Py_ssize_t)sort2[i];
        if (status[ii] == 0) {
            conc_walkup(dnwt, dtwt, (Py_ssize_t)x[ii], ntree, s);
            im0[ii] -= s[1];
            im1[ii] -= s[0];
            im2[ii] -= s[2];
            conc_walkup(nwt, twt, (Py_ssize_t)x[ii], ntree, s);
            z2 += conc_z2_term(wt[ii], s);
            conc_addin(nwt, twt, (Py_ssize_t)x[ii], wt[ii]);
            i++;
            continue;
        }
        double dwt = 0.0, dwt2 = 0.0;
        const double adj = timewt[utime++];
        int64_t xsave = x[ii];
        ndeath = 0;
        j2 = i;
        for (j = i; j < n && time[sort2[j]] == time[ii]; j++) {
            jj = (Py_ssize_t)sort2[j];
            ndeath++;
            count[3] += wt[jj] * dwt * adj;
            dwt += wt[jj];
            if (x[jj] != xsave) {
                if (wt[sort2[j2]] < dwt2) {
                    for (; j2 < j; j2++) {
                        kk = (Py_ssize_t)sort2[j2];
                        im4[kk] += (dwt2 - wt[kk]) * adj;
                        im3[kk] -= (dwt2 - wt[kk]) * adj;
                    }
                } else {
                    j2 = j;
                }
                dwt2 = 0.0;
                xsave = x[jj];
            }
            count[4] += wt[jj] * dwt2 * adj;
            dwt2 += wt[jj];
            conc_walkup(nwt, twt, (Py_ssize_t)x[jj], ntree, s);
            for (k = 0; k < 3; k++) {
                count[k] += wt[jj] * s[k] * adj;
                imat[k * n + jj] += s[k] * adj;
            }
            conc_addin(dnwt, dtwt, (Py_ssize_t)x[jj], adj * wt[jj]);
        }
        if (wt[sort2[j2]] < dwt2) {
            for (; j2 < j; j2++) {
                kk = (Py_ssize_t)sort2[j2];
                im4[kk] += (dwt2 - wt[kk]) * adj;
                im3[kk] -= (dwt2 - wt[kk]) * adj;
            }
        }
        for (j = i; j < i + ndeath; j++) {
            jj = (Py_ssize_t)sort2[j];
            conc_walkup(dnwt, dtwt, (Py_ssize_t)x[jj], ntree, s);
            im0[jj] -= s[1];
            im1[jj] -= s[0];
            im2[jj] -= s[2];
            im3[jj] += (dwt - wt[jj]) * adj;
            conc_walkup(nwt, twt, (Py_ssize_t)x[jj], ntree, s);
            z2 += conc_z2_term(wt[jj], s);
            conc_addin(nwt, twt, (Py_ssize_t)x[jj], wt[jj]);
        }
        count[5] += dwt * adj * z2 / twt[0];
        i += ndeath;
    }
    for (i = 0; i < n; i++) {
        ii = (Py_ssize_t)sort2[i];
        conc_walkup(dnwt, dtwt, (Py_ssize_t)x[ii], ntree, s);
        im0[ii] += s[1];
        im1[ii] += s[0];
        im2[ii] += s[2];
    }
    count[3] -= count[4];
}

/* fastkm1: at each distinct event time (increasing) the lagged survival S, the lagged
   censoring survival G, the weighted number at risk and the time; returns their number.
   work holds 3 * n doubles. */
static Py_ssize_t conc_fastkm1(Py_ssize_t n, const double *time, const double *status, const double *wt,
                               const int64_t *sort, double *S, double *G, double *nrisk, double *etime,
                               double *work)
{
    double *ncount = work, *dcount = work + n, *ccount = work + 2 * n;
    double dtime = time[sort[0]], ntemp = 0.0, dtemp = 0.0, ctemp = 0.0;
    Py_ssize_t nevent = 0, i, k, p;
    for (i = 0; i < n; i++) {
        p = (Py_ssize_t)sort[i];
        if (dtime != time[p]) {
            dtemp = 0.0;
            ctemp = 0.0;
            dtime = time[p];
            if (dcount[i - 1] > 0) nevent++;
        }
        ntemp += wt[p];
        if (status[p] == 0) ctemp += wt[p];
        else dtemp += wt[p];
        ncount[i] = ntemp;
        dcount[i] = dtemp;
        ccount[i] = ctemp;
    }
    if (dcount[n - 1] > 0) nevent++;
    double stemp = 1.0, gtemp = 1.0, ctime = 0.0;
    int dfirst = 1, cfirst = 1;
    k = 0;
    i = n - 1;
    while (k < nevent) {
        p = (Py_ssize_t)sort[i];
        if (status[p] == 1 && (dfirst || time[p] != dtime)) {
            dtime = time[p];
            dfirst = 0;
            nrisk[k] = ncount[i];
            S[k] = stemp;
            G[k] = gtemp;
            etime[k] = dtime;
            k++;
            stemp = stemp * (ncount[i] - dcount[i]) / ncount[i];
        }
        if (status[p] == 0 && (cfirst || time[p] != ctime)) {
            ctime = time[p];
            cfirst = 0;
            gtemp = gtemp * (ncount[i] - ccount[i]) / ncount[i];
        }
        i--;
    }
    return nevent;
}

/* concordance3(time, status, x, wt, timewt, sort2, ntree, count, imat) -> None.  time,
   status, wt: n float64; x, sort2: n int64 (x in 0..ntree-1); timewt: float64 per event
   time in the walk's order; count: 6 float64 (out); imat: 5 x n float64 zeros (out). */
static PyObject *py_concordance3(PyObject *self, PyObject *args)
{
    PyObject *time, *status, *x, *wt, *timewt, *sort2, *count, *imat;
    Py_ssize_t ntree;
    buf_t bt = {0}, bs = {0}, bx = {0}, bw = {0}, btw = {0}, bo = {0}, bc = {0}, bi = {0};
    double *tree = NULL;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOnOO", &time, &status, &x, &wt, &timewt, &sort2, &ntree, &count, &imat))
        return NULL;
    if (get_buf(time, &bt, 0, 0, "time") < 0) goto done;
    const Py_ssize_t n = bt.view.len / (Py_ssize_t)sizeof(double);
    if (n < 1 || ntree < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: concordance3 needs n >= 1 and ntree >= 1");
        goto done;
    }
    if (get_buf(status, &bs, 0, n * (Py_ssize_t)sizeof(double), "status") < 0) goto done;
    if (get_buf(x, &bx, 0, n * (Py_ssize_t)sizeof(int64_t), "x") < 0) goto done;
    if (get_buf(wt, &bw, 0, n * (Py_ssize_t)sizeof(double), "wt") < 0) goto done;
    if (get_buf(timewt, &btw, 0, 0, "timewt") < 0) goto done;
    if (get_buf(sort2, &bo, 0, n * (Py_ssize_t)sizeof(int64_t), "sort2") < 0) goto done;
    if (get_buf(count, &bc, 1, 6 * (Py_ssize_t)sizeof(double), "count") < 0) goto done;
    if (get_buf(imat, &bi, 1, 5 * n * (Py_ssize_t)sizeof(double), "imat") < 0) goto done;
    tree = calloc((size_t)(4 * ntree), sizeof(double));
    if (!tree) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    conc_concordance3(n, bt.view.buf, bs.view.buf, bx.view.buf, bw.view.buf, btw.view.buf, bo.view.buf,
                      bc.view.buf, bi.view.buf, tree, ntree);
    Py_END_ALLOW_THREADS
    ok = 1;
done:
    free(tree);
    rel_buf(&bt); rel_buf(&bs); rel_buf(&bx); rel_buf(&bw); rel_buf(&btw); rel_buf(&bo); rel_buf(&bc);
    rel_buf(&bi);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* fastkm1(time, status, wt, sort, S, G, nrisk, etime) -> nevent.  The four outputs are
   float64 arrays of n (the first nevent are filled). */
static PyObject *py_fastkm1(PyObject *self, PyObject *args)
{
    PyObject *time, *status, *wt, *sort, *S, *G, *nrisk, *etime;
    buf_t bt = {0}, bs = {0}, bw = {0}, bo = {0}, bS = {0}, bG = {0}, bn = {0}, be = {0};
    double *work = NULL;
    Py_ssize_t nevent = -1;
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &time, &status, &wt, &sort, &S, &G, &nrisk, &etime)) return NULL;
    if (get_buf(time, &bt, 0, 0, "time") < 0) goto done;
    const Py_ssize_t n = bt.view.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t nb = n * (Py_ssize_t)sizeof(double);
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: fastkm1 needs n >= 1");
        goto done;
    }
    if (get_buf(status, &bs, 0, nb, "status") < 0) goto done;
    if (get_buf(wt, &bw, 0, nb, "wt") < 0) goto done;
    if (get_buf(sort, &bo, 0, n * (Py_ssize_t)sizeof(int64_t), "sort") < 0) goto done;
    if (get_buf(S, &bS, 1, nb, "S") < 0 || get_buf(G, &bG, 1, nb, "G") < 0 || get_buf(nrisk, &bn, 1, nb, "nrisk") < 0
        || get_buf(etime, &be, 1, nb, "etime") < 0)
        goto done;
    work = malloc((size_t)(3 * n) * sizeof(double));
    if (!work) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    nevent = conc_fastkm1(n, bt.view.buf, bs.view.buf, bw.view.buf, bo.view.buf, bS.view.buf, bG.view.buf,
                          bn.view.buf, be.view.buf, work);
    Py_END_ALLOW_THREADS
done:
    free(work);
    rel_buf(&bt); rel_buf(&bs); rel_buf(&bw); rel_buf(&bo); rel_buf(&bS); rel_buf(&bG); rel_buf(&bn);
    rel_buf(&be);
    if (nevent < 0) return NULL;
    return PyLong_FromSsize_t(nevent);
}

/* ==================================================================================== */
/* cmprsk 2.2-11's Fortran routines cinc and crst (cuminc's curves and Gray's test).    */
/* Statement by statement from cincsub.f and crstm.f (1-based indices kept where they   */
/* make the correspondence plain; Fortran's left-to-right products and divisions kept). */
/* The NumPy reference is calstats/ports/cmprsk/cuminc.py (cinc_many) and crstm.py      */
/* (crst); tests/test_competing_risks.py checks that both give the same bits.            */
/* ==================================================================================== */

/* cinc: the cumulative incidence of one cause and its variance as the corners of a step
   function; y sorted (n >= 1), ic 1 for a failure of any cause, icc 1 for a failure of the
   cause; x, f, v hold at least 2 n + 2 doubles.  Returns the number of corners. */
static Py_ssize_t cmprsk_cinc(Py_ssize_t n, const double *y, const int64_t *ic, const int64_t *icc, double *x,
                              double *f, double *v)
{
    double fk = 1.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, rs = (double)n, fkn, t2, t3, t4, t5, t6, ty;
    Py_ssize_t lcnt = 1, l = 1, ll = 1, i;
    int64_t nd1, nd2, nd;
    x[0] = 0.0;
    f[0] = 0.0;
    v[0] = 0.0;
    ty = y[0];
    for (;;) {
        l++; /* 10 */
        while (l <= n && y[l - 1] == ty) l++;
        l--; /* 60 */
        nd1 = 0;
        nd2 = 0;
        for (i = ll; i <= l; i++) {
            nd1 += icc[i - 1];
            nd2 += ic[i - 1] - icc[i - 1];
        }
        nd = nd1 + nd2;
        if (nd != 0) {
            fkn = fk * (rs - (double)nd) / rs;
            if (nd1 > 0) {
                lcnt += 2;
                f[lcnt - 2] = f[lcnt - 3];
                f[lcnt - 1] = f[lcnt - 2] + fk * (double)nd1 / rs;
            }
            if (!(nd2 <= 0 || fkn <= 0)) {
                t5 = 1.0;
                if (nd2 > 1) t5 = 1.0 - ((double)nd2 - 1.0) / (rs - 1.0);
                t6 = fk * fk * t5 * (double)nd2 / (rs * rs);
                t3 = 1.0 / fkn;
                t4 = f[lcnt - 1] / fkn;
                v1 = v1 + t4 * t4 * t6;
                v2 = v2 + t3 * t4 * t6;
                v3 = v3 + t3 * t3 * t6;
            }
            if (nd1 > 0) { /* 30 */
                t5 = 1.0;
                if (nd1 > 1) t5 = 1.0 - ((double)nd1 - 1.0) / (rs - 1.0);
                t6 = fk * fk * t5 * (double)nd1 / (rs * rs);
                t3 = 0.0;
                if (fkn > 0) t3 = 1.0 / fkn;
                t4 = 1.0 + t3 * f[lcnt - 1];
                v1 = v1 + t4 * t4 * t6;
                v2 = v2 + t3 * t4 * t6;
                v3 = v3 + t3 * t3 * t6;
                t2 = f[lcnt - 1];
                x[lcnt - 2] = y[l - 1];
                x[lcnt - 1] = y[l - 1];
                v[lcnt - 2] = v[lcnt - 3];
                v[lcnt - 1] = v1 + t2 * t2 * v3 - 2.0 * t2 * v2;
            }
            fk = fkn; /* 35 */
        }
        rs = (double)(n - l); /* 40 */
        l++;
        if (l > n) break;
        ll = l;
        ty = y[l - 1];
    }
    lcnt++; /* 50 */
    x[lcnt - 1] = y[n - 1];
    f[lcnt - 1] = f[lcnt - 2];
    v[lcnt - 1] = v[lcnt - 2];
    return lcnt;
}

/* crst: Gray's score s (ng - 1) and the packed lower triangle v (ng (ng - 1) / 2, row by
   row) of its covariance for one stratum; y sorted (n >= 1), m 0 censored / 1 the cause /
   2 another cause, ig groups 1..ng; work holds ng (5 + 3 ng) doubles, iwork 4 ng. */
static void cmprsk_crst(Py_ssize_t n, const double *y, const int64_t *m, const int64_t *ig, Py_ssize_t ng,
                        double rho, double *s, double *v, double *work, int64_t *iwork)
{
    const Py_ssize_t ng1 = ng - 1, nv = ng * ng1 / 2;
    double *f1m = work, *f1 = work + ng, *skmm = work + 2 * ng, *skm = work + 3 * ng, *v3 = work + 4 * ng;
    double *c = work + 5 * ng, *a = c + ng * ng, *v2 = a + ng * ng; /* c[i * ng + j], v2[i * ng + k] */
    int64_t *rs = iwork, *d = iwork + ng;                           /* d[k * ng + j]: k = 0, 1, 2 */
    Py_ssize_t i, j, k, l, ll, lu;
    int64_t nd1, nd2;
    double fm, f, tr, tq, td, fb, t1, t2, t3, t4, t5, t6;
    if (ng < 2) return; /* the caller's check, repeated for the compiler's range analysis */
    for (i = 0; i < ng; i++) rs[i] = 0;
    for (i = 0; i < n; i++) rs[ig[i] - 1]++;
    for (l = 0; l < nv; l++) v[l] = 0.0;
    for (i = 0; i < ng1; i++) s[i] = 0.0;
    for (i = 0; i < ng; i++) {
        f1m[i] = 0.0;
        f1[i] = 0.0;
        skmm[i] = 1.0;
        skm[i] = 1.0;
        v3[i] = 0.0;
        for (j = 0; j < ng1; j++) v2[j * ng + i] = 0.0;
        for (j = 0; j < ng; j++) c[i * ng + j] = 0.0;
    }
    fm = 0.0;
    f = 0.0;
    if (n < 1) return;
    ll = 0;
    for (;;) {
        lu = ll + 1; /* 50 */
        while (lu < n && !(y[lu] > y[ll])) lu++;
        lu--; /* 55 */
        nd1 = 0;
        nd2 = 0;
        for (i = 0; i < 3 * ng; i++) d[i] = 0;
        for (i = ll; i <= lu; i++) d[m[i] * ng + (ig[i] - 1)]++;
        for (i = 0; i < ng; i++) {
            nd1 += d[ng + i];
            nd2 += d[2 * ng + i];
        }
        if (!(nd1 == 0 && nd2 == 0)) {
            tr = 0.0;
            tq = 0.0;
            for (i = 0; i < ng; i++) {
                if (rs[i] <= 0) continue;
                td = (double)(d[ng + i] + d[2 * ng + i]);
                skm[i] = skmm[i] * ((double)rs[i] - td) / (double)rs[i];
                f1[i] = f1m[i] + (skmm[i] * (double)d[ng + i]) / (double)rs[i];
                tr = tr + (double)rs[i] / skmm[i];
                tq = tq + (double)rs[i] * (1.0 - f1m[i]) / skmm[i];
            }
            f = fm + (double)nd1 / tr;
            fb = pow(1.0 - fm, rho);
            for (i = 0; i < ng; i++) {
                for (j = i; j < ng; j++) a[i * ng + j] = 0.0;
                if (rs[i] <= 0) continue;
                t1 = (double)rs[i] / skmm[i];
                a[i * ng + i] = fb * t1 * (1.0 - t1 / tr);
                c[i * ng + i] = c[i * ng + i] + a[i * ng + i] * (double)nd1 / (tr * (1.0 - fm));
                for (j = i + 1; j < ng; j++) {
                    if (rs[j] <= 0) continue;
                    a[i * ng + j] = -(fb * t1 * (double)rs[j] / (skmm[j] * tr));
                    c[i * ng + j] = c[i * ng + j] + a[i * ng + j] * (double)nd1 / (tr * (1.0 - fm));
                }
            }
            for (i = 1; i < ng; i++) {
                for (j = 0; j < i; j++) {
                    a[i * ng + j] = a[j * ng + i];
                    c[i * ng + j] = c[j * ng + i];
                }
            }
            for (i = 0; i < ng1; i++) {
                if (rs[i] <= 0) continue;
                s[i] = s[i] + fb * ((double)d[ng + i] - (double)(nd1 * rs[i]) * (1.0 - f1m[i]) / (skmm[i] * tq));
            }
            if (nd1 > 0) {
                for (k = 0; k < ng; k++) {
                    if (rs[k] <= 0) continue;
                    t4 = 1.0;
                    if (skm[k] > 0) t4 = 1.0 - (1.0 - f) / skm[k];
                    t5 = 1.0;
                    if (nd1 > 1) t5 = 1.0 - (double)(nd1 - 1) / (tr * skmm[k] - 1.0);
                    t3 = t5 * skmm[k] * (double)nd1 / (tr * (double)rs[k]);
                    v3[k] = v3[k] + t4 * t4 * t3;
                    for (i = 0; i < ng1; i++) {
                        t1 = a[i * ng + k] - t4 * c[i * ng + k];
                        v2[i * ng + k] = v2[i * ng + k] + t1 * t4 * t3;
                        for (j = 0; j <= i; j++) {
                            l = i * (i + 1) / 2 + j;
                            t2 = a[j * ng + k] - t4 * c[j * ng + k];
                            v[l] = v[l] + t1 * t2 * t3;
                        }
                    }
                }
            }
            if (nd2 != 0) { /* 77 */
                for (k = 0; k < ng; k++) {
                    if (skm[k] <= 0 || d[2 * ng + k] <= 0) continue;
                    t4 = (1.0 - f) / skm[k];
                    t5 = 1.0;
                    if (d[2 * ng + k] > 1) t5 = 1.0 - ((double)d[2 * ng + k] - 1.0) / ((double)rs[k] - 1.0);
                    t6 = (double)rs[k];
                    t3 = t5 * ((skmm[k] * skmm[k]) * (double)d[2 * ng + k]) / (t6 * t6);
                    v3[k] = v3[k] + t4 * t4 * t3;
                    for (i = 0; i < ng1; i++) {
                        t1 = t4 * c[i * ng + k];
                        v2[i * ng + k] = v2[i * ng + k] - t1 * t4 * t3;
                        for (j = 0; j <= i; j++) {
                            l = i * (i + 1) / 2 + j;
                            t2 = t4 * c[j * ng + k];
                            v[l] = v[l] + t1 * t2 * t3;
                        }
                    }
                }
            }
        }
        if (lu >= n - 1) break; /* 90 */
        for (i = ll; i <= lu; i++) rs[ig[i] - 1]--;
        fm = f;
        for (i = 0; i < ng; i++) {
            f1m[i] = f1[i];
            skmm[i] = skm[i];
        }
        ll = lu + 1;
    }
    l = 0; /* 30 */
    for (i = 0; i < ng1; i++) {
        for (j = 0; j <= i; j++) {
            for (k = 0; k < ng; k++) {
                v[l] = v[l] + c[i * ng + k] * c[j * ng + k] * v3[k];
                v[l] = v[l] + c[i * ng + k] * v2[j * ng + k];
                v[l] = v[l] + c[j * ng + k] * v2[i * ng + k];
            }
            l++;
        }
    }
}

/* cmprsk_cinc(y, ic, icc, x, f, v) -> the number of corners.  y: n float64 (sorted); ic,
   icc: n int64; x, f, v: float64 arrays of at least 2 n + 2 (out). */
static PyObject *py_cmprsk_cinc(PyObject *self, PyObject *args)
{
    PyObject *y, *ic, *icc, *x, *f, *v;
    buf_t by = {0}, bi = {0}, bc = {0}, bx = {0}, bf = {0}, bv = {0};
    Py_ssize_t lcnt = -1;
    if (!PyArg_ParseTuple(args, "OOOOOO", &y, &ic, &icc, &x, &f, &v)) return NULL;
    if (get_buf(y, &by, 0, 0, "y") < 0) goto done;
    const Py_ssize_t n = by.view.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t nout = (2 * n + 2) * (Py_ssize_t)sizeof(double);
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: cmprsk_cinc needs n >= 1");
        goto done;
    }
    if (get_buf(ic, &bi, 0, n * (Py_ssize_t)sizeof(int64_t), "ic") < 0
        || get_buf(icc, &bc, 0, n * (Py_ssize_t)sizeof(int64_t), "icc") < 0
        || get_buf(x, &bx, 1, nout, "x") < 0 || get_buf(f, &bf, 1, nout, "f") < 0
        || get_buf(v, &bv, 1, nout, "v") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    lcnt = cmprsk_cinc(n, by.view.buf, bi.view.buf, bc.view.buf, bx.view.buf, bf.view.buf, bv.view.buf);
    Py_END_ALLOW_THREADS
done:
    rel_buf(&by); rel_buf(&bi); rel_buf(&bc); rel_buf(&bx); rel_buf(&bf); rel_buf(&bv);
    if (lcnt < 0) return NULL;
    return PyLong_FromSsize_t(lcnt);
}

/* cmprsk_crst(y, m, ig, ng, rho, s, v) -> None.  y: n float64 (sorted); m, ig: n int64 (m in
   0..2, ig in 1..ng); s: ng - 1 float64 (out); v: ng (ng - 1) / 2 float64 (out). */
static PyObject *py_cmprsk_crst(PyObject *self, PyObject *args)
{
    PyObject *y, *m, *ig, *s, *v;
    Py_ssize_t ng;
    double rho;
    buf_t by = {0}, bm = {0}, bg = {0}, bs = {0}, bv = {0};
    double *work = NULL;
    int64_t *iwork = NULL;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OOOndOO", &y, &m, &ig, &ng, &rho, &s, &v)) return NULL;
    if (get_buf(y, &by, 0, 0, "y") < 0) goto done;
    const Py_ssize_t n = by.view.len / (Py_ssize_t)sizeof(double);
    if (ng < 2) {
        PyErr_SetString(PyExc_ValueError, "_core: cmprsk_crst needs ng >= 2");
        goto done;
    }
    if (get_buf(m, &bm, 0, n * (Py_ssize_t)sizeof(int64_t), "m") < 0
        || get_buf(ig, &bg, 0, n * (Py_ssize_t)sizeof(int64_t), "ig") < 0
        || get_buf(s, &bs, 1, (ng - 1) * (Py_ssize_t)sizeof(double), "s") < 0
        || get_buf(v, &bv, 1, ng * (ng - 1) / 2 * (Py_ssize_t)sizeof(double), "v") < 0)
        goto done;
    work = malloc((size_t)(ng * (5 + 3 * ng)) * sizeof(double));
    iwork = malloc((size_t)(4 * ng) * sizeof(int64_t));
    if (!work || !iwork) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    cmprsk_crst(n, by.view.buf, bm.view.buf, bg.view.buf, ng, rho, bs.view.buf, bv.view.buf, work, iwork);
    Py_END_ALLOW_THREADS
    ok = 1;
done:
    free(work);
    free(iwork);
    rel_buf(&by); rel_buf(&bm); rel_buf(&bg); rel_buf(&bs); rel_buf(&bv);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* ==================================================================================== */
/* survival 3.5-3's coxfit6_iter (coxfit6.c) without strata, with offset 0 and case     */
/* weights 1, Efron's ties: the log partial likelihood, the score and the information   */
/* at beta, statement by statement (the weights' products by 1.0 kept).  The NumPy      */
/* reference is calstats/ports/survival/coxph.py (_coxfit6_iter_numpy); tests/          */
/* test_coxph.py checks that both give the same bits.                                    */
/* ==================================================================================== */

/* time, status: n sorted by time (status 0 censored, else a death); covar: n x nvar
   (row-major, centred and scaled); u: nvar (out); imat: nvar x nvar (out, both triangles);
   work: 2 nvar + 2 nvar^2 doubles. */
static double cox_fit6_iter(Py_ssize_t n, Py_ssize_t nvar, const double *time, const double *status,
                            const double *covar, const double *beta, double *u, double *imat, double *work)
{
    double *a = work, *a2 = work + nvar, *cmat = work + 2 * nvar, *cmat2 = cmat + nvar * nvar;
    double loglik = 0.0, denom = 0.0, zbeta, risk, temp2, dtime, deadwt, denom2, wtave;
    Py_ssize_t person, i, j, k, ndead;
    for (i = 0; i < nvar; i++) {
        u[i] = 0.0;
        a2[i] = 0.0;
        a[i] = 0.0;
        for (j = 0; j < nvar; j++) {
            imat[i * nvar + j] = 0.0;
            cmat2[i * nvar + j] = 0.0;
            cmat[i * nvar + j] = 0.0;
        }
    }
    person = n - 1;
    while (person >= 0) {
        dtime = time[person];
        ndead = 0;
        deadwt = 0.0;
        denom2 = 0.0;
        while (person >= 0 && time[person] == dtime) {
            const double *x = covar + person * nvar;
            zbeta = 0.0; /* offset */
            for (i = 0; i < nvar; i++) zbeta += beta[i] * x[i];
            risk = exp(zbeta) * 1.0;
            if (status[person] == 0) {
                denom += risk;
                for (i = 0; i < nvar; i++) {
                    a[i] += risk * x[i];
                    for (j = 0; j <= i; j++) cmat[i * nvar + j] += risk * x[i] * x[j];
                }
            } else {
                ndead++;
                deadwt += 1.0;
                denom2 += risk;
                loglik += 1.0 * zbeta;
                for (i = 0; i < nvar; i++) {
                    u[i] += 1.0 * x[i];
                    a2[i] += risk * x[i];
                    for (j = 0; j <= i; j++) cmat2[i * nvar + j] += risk * x[i] * x[j];
                }
            }
            person--;
        }
        if (ndead > 0) {
            if (ndead == 1) { /* Breslow */
                denom += denom2;
                loglik -= deadwt * log(denom);
                for (i = 0; i < nvar; i++) {
                    a[i] += a2[i];
                    temp2 = a[i] / denom;
                    u[i] -= deadwt * temp2;
                    for (j = 0; j <= i; j++) {
                        cmat[i * nvar + j] += cmat2[i * nvar + j];
                        imat[j * nvar + i] += deadwt * (cmat[i * nvar + j] - temp2 * a[j]) / denom;
                    }
                }
            } else { /* Efron */
                wtave = deadwt / (double)ndead;
                for (k = 0; k < ndead; k++) {
                    denom += denom2 / (double)ndead;
                    loglik -= wtave * log(denom);
                    for (i = 0; i < nvar; i++) {
                        a[i] += a2[i] / (double)ndead;
                        temp2 = a[i] / denom;
                        u[i] -= wtave * temp2;
                        for (j = 0; j <= i; j++) {
                            cmat[i * nvar + j] += cmat2[i * nvar + j] / (double)ndead;
                            imat[j * nvar + i] += wtave * (cmat[i * nvar + j] - temp2 * a[j]) / denom;
                        }
                    }
                }
            }
            for (i = 0; i < nvar; i++) {
                a2[i] = 0.0;
                for (j = 0; j < nvar; j++) cmat2[i * nvar + j] = 0.0;
            }
        }
    }
    for (i = 0; i < nvar; i++)
        for (j = 0; j < i; j++) imat[i * nvar + j] = imat[j * nvar + i];
    return loglik;
}

/* cox_fit6_iter(time, status, covar, beta, u, imat) -> loglik.  time, status: n float64
   (sorted by time); covar: n x nvar float64 (C order); beta: nvar float64; u: nvar float64
   (out); imat: nvar x nvar float64 (out). */
static PyObject *py_cox_fit6_iter(PyObject *self, PyObject *args)
{
    PyObject *time, *status, *covar, *beta, *u, *imat;
    buf_t bt = {0}, bs = {0}, bc = {0}, bb = {0}, bu = {0}, bi = {0};
    double *work = NULL, loglik = 0.0;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OOOOOO", &time, &status, &covar, &beta, &u, &imat)) return NULL;
    if (get_buf(time, &bt, 0, 0, "time") < 0 || get_buf(beta, &bb, 0, 0, "beta") < 0) goto done;
    const Py_ssize_t n = bt.view.len / (Py_ssize_t)sizeof(double);
    const Py_ssize_t nvar = bb.view.len / (Py_ssize_t)sizeof(double);
    if (nvar < 1) {
        PyErr_SetString(PyExc_ValueError, "_core: cox_fit6_iter needs nvar >= 1");
        goto done;
    }
    if (get_buf(status, &bs, 0, n * (Py_ssize_t)sizeof(double), "status") < 0
        || get_buf(covar, &bc, 0, n * nvar * (Py_ssize_t)sizeof(double), "covar") < 0
        || get_buf(u, &bu, 1, nvar * (Py_ssize_t)sizeof(double), "u") < 0
        || get_buf(imat, &bi, 1, nvar * nvar * (Py_ssize_t)sizeof(double), "imat") < 0)
        goto done;
    work = malloc((size_t)(2 * nvar + 2 * nvar * nvar) * sizeof(double));
    if (!work) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    loglik = cox_fit6_iter(n, nvar, bt.view.buf, bs.view.buf, bc.view.buf, bb.view.buf, bu.view.buf, bi.view.buf,
                           work);
    Py_END_ALLOW_THREADS
    ok = 1;
done:
    free(work);
    rel_buf(&bt); rel_buf(&bs); rel_buf(&bc); rel_buf(&bb); rel_buf(&bu); rel_buf(&bi);
    if (!ok) return NULL;
    return PyFloat_FromDouble(loglik);
}

static PyMethodDef core_methods[] = {
    {"spiegelhalter_sums", py_spiegelhalter_sums, METH_VARARGS,
     "Spiegelhalter's four sums in one pass, as exact extractions plus a rest."},
    {"prob_scan", py_prob_scan, METH_VARARGS,
     "Checks and top label of a probability matrix in one pass."},
    {"colbin_pass", py_colbin_pass, METH_VARARGS,
     "One pass of the classwise bins of a probability matrix: counts and long-double sums."},
    {"exp_mode", py_exp_mode, METH_NOARGS, "Which exp the objective uses: 'replica' or 'libm'."},
    {"exp_shifted", py_exp_shifted, METH_VARARGS, "z[c] = exp(z[c] - m) in place (the objective's exp)."},
    {"multinomial_fit", py_multinomial_fit, METH_VARARGS,
     "R's BFGS on the penalised multinomial objective, without the GIL."},
    {"multinomial_eval", py_multinomial_eval, METH_VARARGS,
     "Objective value and gradient of the penalised multinomial fit at one point."},
    {"vmmin", py_vmmin, METH_VARARGS, "R's vmmin with Python objective and gradient."},
    {"scaling_value", py_scaling_value, METH_VARARGS,
     "Temperature- or vector-scaling objective at one point (optionally its probabilities)."},
    {"scaling_gradient", py_scaling_gradient, METH_VARARGS,
     "Vector-scaling gradient from the probabilities of a scaling_value call."},
    {"vector_scaling_fit", py_vector_scaling_fit, METH_VARARGS,
     "R's BFGS on the vector-scaling objective, without the GIL."},
    {"concordance3", py_concordance3, METH_VARARGS,
     "survival's concordance3: pair counts and influence from two balanced binary trees."},
    {"fastkm1", py_fastkm1, METH_VARARGS, "survival's fastkm1: lagged KM of events and censorings."},
    {"cmprsk_cinc", py_cmprsk_cinc, METH_VARARGS,
     "cmprsk's cinc: one cause's cumulative incidence and variance as step-function corners."},
    {"cmprsk_crst", py_cmprsk_crst, METH_VARARGS, "cmprsk's crst: Gray's score and its variance in one stratum."},
    {"cox_fit6_iter", py_cox_fit6_iter, METH_VARARGS,
     "survival's coxfit6_iter (Efron, no strata): log partial likelihood, score and information."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core",
    "R's arithmetic in C: vmmin, the multinomial and scaling objectives (see calstats.numerics.core).",
    -1, core_methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    exp_replica_init();
    return PyModule_Create(&core_module);
}

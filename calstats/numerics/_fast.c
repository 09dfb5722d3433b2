/* calstats' fast engine (engine = "fast"): vectorised exp and pairwise sums for the
 * scaling objectives and the metrics. Not R's bits: the same optimum to 1e-8 relative.
 * Built with its own flags (setup.py); R's engine lives in _core.c.
 *
 * What differs from R's engine (_core.c), on purpose:
 *   - exp is the branch-free range reduction + polynomial below (error within about
 *     1 ulp of the exact value), which GCC vectorises, instead of the C library's; in the
 *     softmax, terms below 2^-1021 are 0 (see fexp_neg);
 *   - every sum is pairwise in double (NumPy's scheme for a row; a binary tree of blocks
 *     down the rows) instead of R's sequential long-double sums; the binned metrics' sums
 *     per bin are blocked, the blocks added with compensation (their bins are R's);
 *   - the temperature objective forms (z - max) / T as (z - max) * (1 / T), and the
 *     softmax multiplies by the reciprocal of its denominator; fused multiply-adds are
 *     allowed where the CPU has them.
 * Everything else is R's objective: the same clipping of the true class's probability to
 * [1e-15, 1 - 1e-15], the same log, the same NaN propagation.  Results do not depend on the
 * number of threads: rows go in two fixed halves whichever thread runs them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_portable.h"

#include "_bins.h"

#ifdef __FAST_MATH__
#error "calstats' fast engine is compiled without -ffast-math: it must keep NaN and infinities"
#endif

/* Let the clones for CPUs with FMA fuse multiply-adds (the ISO C mode of -std=c99 turns
   contraction off). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* Hot loops get clones for x86-64-v4 (AVX-512) and x86-64-v3 (AVX2 + FMA), chosen at load
   time; the default clone runs everywhere.  The v3 and v4 clones perform the same
   operations; the default one has no FMA and may differ from them in the last bits.
   (GCC before 11 does not know these levels: an AVX2 clone without FMA then.) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define HOT __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif
/* helpers of HOT functions are inlined into each clone to get its instruction set */
#define INLINE CS_ALWAYS_INLINE

/* ------------------------------------------------------------------------------------ */
/* exp                                                                                    */

/* exp(x) = 2^n exp(r), n = round(x / log 2), r = x - n log 2 in two parts (Cody and Waite;
   log 2's high part has 32 trailing zero bits, so n * LN2_HI is exact), exp(r) by a
   polynomial of degree 11 interpolating exp at the Chebyshev nodes of |r| <= 0.347
   (relative error 2e-17 before rounding; results within 1.1 ulp).  2^n is
   built from the exponent bits as 2^n1 * 2^n2, n1 + n2 = n, so that subnormal results and
   overflow to infinity come out right without a branch.  x is clamped to [-746, 710] first
   (exp underflows to 0 below and overflows above); NaN passes the clamps and propagates. */
#define FX_LOG2E 0x1.71547652b82fep0
#define FX_SHIFT 0x1.8p52
#define FX_LN2_HI 0x1.62e42feep-1
#define FX_LN2_LO 0x1.a39ef35793c76p-33

INLINE uint64_t fx_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

INLINE double fx_double(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* exp(r) for |r| <= 0.347 */
INLINE double fexp_poly(double r)
{
    double p = 0x1.af631d60cefdcp-26;
    p = p * r + 0x1.28b405cda9f62p-22;
    p = p * r + 0x1.71ddf57468efap-19;
    p = p * r + 0x1.a01991ac32710p-16;
    p = p * r + 0x1.a01a01b1438c7p-13;
    p = p * r + 0x1.6c16c187fbffdp-10;
    p = p * r + 0x1.111111110f225p-7;
    p = p * r + 0x1.555555554f0cep-5;
    p = p * r + 0x1.555555555555ap-3;
    p = p * r + 0x1.0000000000011p-1;
    return 1.0 + (r + (r * r) * p);
}

INLINE double fexp(double x)
{
    double xc = x < -746.0 ? -746.0 : x;
    xc = xc > 710.0 ? 710.0 : xc;
    const double kd = xc * FX_LOG2E + FX_SHIFT; /* n in the low bits of kd */
    const double nd = kd - FX_SHIFT;
    const double r = (xc - nd * FX_LN2_HI) - nd * FX_LN2_LO;
    const double e = fexp_poly(r);
    /* n1 = round(n / 2) and n2 = n - n1, each within a normal exponent */
    const double h = nd * 0.5 + FX_SHIFT;
    const double n1 = h - FX_SHIFT;
    const double k2 = (nd - n1) + FX_SHIFT;
    const uint64_t bias = (uint64_t)1023 << 52;
    const double s1 = fx_double((fx_bits(h) << 52) + bias);
    const double s2 = fx_double((fx_bits(k2) << 52) + bias);
    return (e * s1) * s2;
}

/* exp(x) for the softmax, where x = eta - max(eta) <= 0 (or NaN): as fexp, but results
   below 2^-1021 (x < -708) are 0 instead of tiny or subnormal numbers.  Next to the row's
   largest term, 1, they change no sum and no probability that the 1e-15 clipping does not
   already replace, and one scale factor then suffices (a fifth fewer operations). */
INLINE double fexp_neg(double x)
{
    const double xc = x < -708.0 ? -708.0 : x;
    const double kd = xc * FX_LOG2E + FX_SHIFT;
    const double nd = kd - FX_SHIFT;
    const double r = (xc - nd * FX_LN2_HI) - nd * FX_LN2_LO;
    const double e = fexp_poly(r) * fx_double((fx_bits(kd) << 52) + ((uint64_t)1023 << 52));
    return x < -708.0 ? 0.0 : e;
}

/* ------------------------------------------------------------------------------------ */
/* pairwise sums                                                                          */

/* NumPy's pairwise summation: eight running sums over blocks of at most 128 terms, the
   blocks combined by halving.  Error O(log2(n)) ulp of the sum of magnitudes. */
#define PW_BLOCK 128

HOT static double pw_sum(const double *a, Py_ssize_t n)
{
    if (n < 8) {
        double s = 0.0;
        for (Py_ssize_t i = 0; i < n; i++) s += a[i];
        return s;
    }
    if (n <= PW_BLOCK) {
        double r[8];
        for (int l = 0; l < 8; l++) r[l] = a[l];
        Py_ssize_t i = 8;
        for (; i + 8 <= n; i += 8)
            for (int l = 0; l < 8; l++) r[l] += a[i + l];
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) s += a[i];
        return s;
    }
    Py_ssize_t n2 = n / 2;
    n2 -= n2 % 8;
    return pw_sum(a, n2) + pw_sum(a + n2, n - n2);
}

#if CS_VECTOR_EXT
/* Four doubles as one value (GCC's vector extension): the row maximum's lanes, which the
   loop vectoriser leaves scalar without -ffast-math. */
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

INLINE v4d load4(const double *p)
{
    v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE v4d max4(v4d m, v4d x)
{
    const v4l take = x > m;
    return (v4d)(((v4l)x & take) | ((v4l)m & ~take));
}

/* the largest entry; a lane that meets a NaN ignores it (exp(NaN - m) then makes the row
   NaN) */
INLINE double row_max(const double *x, Py_ssize_t k)
{
    Py_ssize_t c = 0;
    double out = -INFINITY;
    if (k >= 8) {
        v4d m0 = load4(x), m1 = load4(x + 4);
        for (c = 8; c + 8 <= k; c += 8) {
            m0 = max4(m0, load4(x + c));
            m1 = max4(m1, load4(x + c + 4));
        }
        m0 = max4(m0, m1);
        for (int l = 0; l < 4; l++) out = m0[l] > out ? m0[l] : out;
    }
    for (; c < k; c++) out = x[c] > out ? x[c] : out;
    return out;
}
#else
/* the largest entry (NaN ignored, as the lanes ignore it), one entry at a time */
INLINE double row_max(const double *x, Py_ssize_t k)
{
    double out = -INFINITY;
    for (Py_ssize_t c = 0; c < k; c++) out = x[c] > out ? x[c] : out;
    return out;
}
#endif

static double loss_clip(double v)
{
    /* np.minimum(np.maximum(v, 1e-15), 1 - 1e-15), NaN propagating (R's clipping) */
    const double lo = 1e-15, hi = 1.0 - 1e-15;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return v;
}

/* ------------------------------------------------------------------------------------ */
/* two fixed halves, on two threads when asked                                            */

typedef void (*part_fn)(void *arg, int part);

typedef struct {
    part_fn f;
    void *arg;
} part_call;

static void *part_trampoline(void *a)
{
    part_call *pc = a;
    pc->f(pc->arg, 1);
    return NULL;
}

/* f(arg, 0) and f(arg, 1): on two threads with nthreads > 1, else one after the other
   (each part computes the same numbers either way) */
static void run_halves(part_fn f, void *arg, int nthreads)
{
    if (nthreads > 1) {
        cs_thread_t th;
        part_call pc = {f, arg};
        if (cs_thread_create(&th, part_trampoline, &pc) == 0) {
            f(arg, 0);
            cs_thread_join(&th);
            return;
        }
    }
    f(arg, 0);
    f(arg, 1);
}

/* ------------------------------------------------------------------------------------ */
/* the scaling objectives                                                                 */
/*                                                                                        */
/* Mean negative log-likelihood of the true classes (weighted: -sum(w lp) / sum(w)),      */
/* lp_i = log(clip(p_i,y_i)), of softmax(Z / T) (temperature) or softmax(z_ic s_c + b_c)  */
/* (vector scaling, with its gradient).  Z is n x k, observation-major, float64 or        */
/* float32 (converted row by row).                                                        */

/* rows per block of the gradient's column sums: each block is summed in order, the blocks
   pairwise (a binary counter of partial sums, at most 64 levels) */
#define GR_ROWS 32
#define GR_LEVELS 64

typedef struct {
    const void *Z;
    int f32;
    const int64_t *codes;   /* 1-based class codes */
    Py_ssize_t n, k;
    const double *w;        /* n case weights, or NULL (the mean) */
    /* temperature: the row maxima and the true classes' logits, and 1 / T */
    const double *m, *zy;
    double inv_t;
    /* vector scaling: scales and biases; grad (2k) or NULL */
    const double *s, *b;
    double *grad;
    double *lp;             /* n log-likelihood terms (times w_i when weighted) */
    double *row[2];         /* per half: 2k doubles of row work */
    double *acc[2];         /* per half: the block's 2k column sums */
    double *stack[2];       /* per half: GR_LEVELS x 2k partial sums */
    int level[2][GR_LEVELS];
    int depth[2];
} fs_t;

/* Rows are read in chunks of FS_CHUNK entries; with each chunk, the same entries of the
   row FS_AHEAD rows on are prefetched.  The hardware prefetcher alone left the loops waiting
   on memory half the time (2x slower at k = 1000); prefetching whole rows at once stalled
   on the fill buffers (measured, 1.4x slower than spreading the requests). */
#define FS_CHUNK 64
#define FS_AHEAD 2

INLINE void fs_prefetch(const fs_t *o, Py_ssize_t i, Py_ssize_t c0, Py_ssize_t c1)
{
    if (i + FS_AHEAD >= o->n) return;
    const size_t width = o->f32 ? sizeof(float) : sizeof(double);
    const char *base = (const char *)o->Z + ((size_t)(i + FS_AHEAD) * (size_t)o->k) * width;
    for (size_t off = (size_t)c0 * width; off < (size_t)c1 * width; off += 64) CS_PREFETCH(base + off);
}

/* row i as doubles: float64 rows in place (the caller prefetches as it reads), float32
   rows converted into buf */
INLINE const double *fs_row(const fs_t *o, Py_ssize_t i, double *buf)
{
    const Py_ssize_t k = o->k;
    if (!o->f32) return (const double *)o->Z + i * k;
    const float *z = (const float *)o->Z + i * k;
    for (Py_ssize_t c0 = 0; c0 < k; c0 += FS_CHUNK) {
        const Py_ssize_t c1 = c0 + FS_CHUNK < k ? c0 + FS_CHUNK : k;
        fs_prefetch(o, i, c0, c1);
        for (Py_ssize_t c = c0; c < c1; c++) buf[c] = (double)z[c];
    }
    return buf;
}

/* the half of the rows part p works on: a fixed split on a block boundary */
static void fs_half(const fs_t *o, int part, Py_ssize_t *i0, Py_ssize_t *i1)
{
    const Py_ssize_t nb = (o->n + GR_ROWS - 1) / GR_ROWS;
    Py_ssize_t h = (nb / 2) * GR_ROWS;
    if (h > o->n) h = o->n;
    *i0 = part == 0 ? 0 : h;
    *i1 = part == 0 ? h : o->n;
}

HOT static void tmp_rows(void *a, int part)
{
    fs_t *o = a;
    const Py_ssize_t k = o->k;
    const double inv_t = o->inv_t;
    double *restrict e = o->row[part], *conv = e + k;
    Py_ssize_t i0, i1;
    fs_half(o, part, &i0, &i1);
    for (Py_ssize_t i = i0; i < i1; i++) {
        const double *restrict z = fs_row(o, i, conv);
        const double m = o->m[i];
        for (Py_ssize_t c0 = 0; c0 < k; c0 += FS_CHUNK) {
            const Py_ssize_t c1 = c0 + FS_CHUNK < k ? c0 + FS_CHUNK : k;
            if (!o->f32) fs_prefetch(o, i, c0, c1);
            for (Py_ssize_t c = c0; c < c1; c++) e[c] = fexp_neg((z[c] - m) * inv_t);
        }
        const double den = pw_sum(e, k);
        const double lp = log(loss_clip(fexp_neg((o->zy[i] - m) * inv_t) / den));
        o->lp[i] = o->w ? o->w[i] * lp : lp;
    }
}

/* push the block sums acc (2k) onto the binary counter of part p */
static void fs_push(fs_t *o, int part)
{
    const Py_ssize_t k2 = 2 * o->k;
    int d = o->depth[part];
    double *st = o->stack[part];
    memcpy(st + d * k2, o->acc[part], sizeof(double) * (size_t)k2);
    o->level[part][d] = 0;
    d++;
    while (d >= 2 && o->level[part][d - 1] == o->level[part][d - 2]) {
        double *restrict lo = st + (d - 2) * k2;
        const double *restrict hi = st + (d - 1) * k2;
        for (Py_ssize_t c = 0; c < k2; c++) lo[c] += hi[c];
        o->level[part][d - 2]++;
        d--;
    }
    o->depth[part] = d;
}

/* the part's column sums into out (2k): the counter's partial sums, the newest first */
static void fs_pop_all(const fs_t *o, int part, double *out)
{
    const Py_ssize_t k2 = 2 * o->k;
    const int d = o->depth[part];
    const double *st = o->stack[part];
    if (d == 0) {
        for (Py_ssize_t c = 0; c < k2; c++) out[c] = 0.0;
        return;
    }
    memcpy(out, st + (d - 1) * k2, sizeof(double) * (size_t)k2);
    for (int j = d - 2; j >= 0; j--)
        for (Py_ssize_t c = 0; c < k2; c++) out[c] = st[j * k2 + c] + out[c];
}

HOT static void vs_rows(void *a, int part)
{
    fs_t *o = a;
    const Py_ssize_t k = o->k;
    const double *restrict s = o->s, *restrict b = o->b;
    double *restrict x = o->row[part], *conv = x + k;
    double *restrict accS = o->acc[part], *restrict accB = accS + k;
    Py_ssize_t i0, i1;
    fs_half(o, part, &i0, &i1);
    o->depth[part] = 0;
    for (Py_ssize_t blk = i0; blk < i1; blk += GR_ROWS) {
        const Py_ssize_t end = blk + GR_ROWS < i1 ? blk + GR_ROWS : i1;
        if (o->grad)
            for (Py_ssize_t c = 0; c < 2 * k; c++) accS[c] = 0.0;
        for (Py_ssize_t i = blk; i < end; i++) {
            const double *restrict z = fs_row(o, i, conv);
            for (Py_ssize_t c0 = 0; c0 < k; c0 += FS_CHUNK) {
                const Py_ssize_t c1 = c0 + FS_CHUNK < k ? c0 + FS_CHUNK : k;
                if (!o->f32) fs_prefetch(o, i, c0, c1);
                for (Py_ssize_t c = c0; c < c1; c++) x[c] = z[c] * s[c] + b[c];
            }
            const double m = row_max(x, k);
            for (Py_ssize_t c = 0; c < k; c++) x[c] = fexp_neg(x[c] - m);
            const double den = pw_sum(x, k);
            const Py_ssize_t y = o->codes[i] - 1;
            const double wi = o->w ? o->w[i] : 1.0;
            const double lp = log(loss_clip(x[y] / den));
            o->lp[i] = o->w ? wi * lp : lp;
            if (o->grad) {
                /* w_i (p_ic - [c = y_i]) times (z_ic, 1) */
                const double f = wi / den;
                for (Py_ssize_t c = 0; c < k; c++) {
                    const double q = x[c] * f;
                    accB[c] += q;
                    accS[c] += q * z[c];
                }
                accB[y] -= wi;
                accS[y] -= wi * z[y];
            }
        }
        if (o->grad) fs_push(o, part);
    }
}

static int fs_parallel(const fs_t *o, int nthreads)
{
    return nthreads > 1 && (double)o->n * (double)o->k >= 200000.0 ? 2 : 1;
}

/* -sum(lp) / n, or -sum(w lp) / sum(w), both sums pairwise */
static double fs_loss(const fs_t *o)
{
    const double total = pw_sum(o->lp, o->n);
    if (o->w) return -(total / pw_sum(o->w, o->n));
    return -(total / (double)o->n);
}

static int fs_alloc(fs_t *o)
{
    const size_t k = (size_t)o->k;
    o->lp = malloc(sizeof(double) * (size_t)o->n);
    o->row[0] = malloc(sizeof(double) * 4 * k);
    o->row[1] = o->row[0] ? o->row[0] + 2 * k : NULL;
    if (o->grad) {
        o->acc[0] = malloc(sizeof(double) * 4 * k);
        o->acc[1] = o->acc[0] ? o->acc[0] + 2 * k : NULL;
        o->stack[0] = malloc(sizeof(double) * 2 * GR_LEVELS * 2 * k);
        o->stack[1] = o->stack[0] ? o->stack[0] + GR_LEVELS * 2 * k : NULL;
    }
    return o->lp && o->row[0] && (!o->grad || (o->acc[0] && o->stack[0]));
}

static void fs_free(fs_t *o)
{
    free(o->lp);
    free(o->row[0]);
    free(o->acc[0]);
    free(o->stack[0]);
}

/* ------------------------------------------------------------------------------------ */
/* the binned metrics                                                                     */

/* Per cell (column or group, bin): the number of scores, the number of them whose row's
   label is the cell's class, and the sum of the scores.  The bins are R's (score_bin,
   shared with R's engine), so counts and label counts are R's exactly; only the sums
   differ: one pass in double, blocked (each block of rows summed in its own table, the
   blocks' sums added with Neumaier's compensation), where R takes two long-double passes
   per bin (its mean).  A cell's error is then within a few more roundings than it has
   scores in one block, whatever n.
   Scores are an n x k matrix (classwise: cell bin k + c, bin-major, so that a row's
   entries in one bin update adjacent cells) or, with k = 1, a vector, optionally with a
   0-based group per row (cell group nb + bin; the top-label ECE's predicted classes).  A
   row's label column is codes[i] - 1 (k = 1: 1 marks the event). */

typedef struct {
    const void *P;
    int f32;
    Py_ssize_t n, k;
    int mode;
    const double *br;
    Py_ssize_t nb;
    const int64_t *codes;   /* 1-based label column per row, or NULL */
    const int64_t *group;   /* k = 1: 0-based group per row, or NULL */
    Py_ssize_t cells;
    Py_ssize_t block;       /* rows per block */
    Py_ssize_t split;       /* first row of the second half */
    int64_t *cnt[2], *ysum[2];
    double *sum[2], *blk[2], *comp[2];
} fb_t;

#define FB_AT(row, c) (f32 ? (double)((const float *)(row))[c] : ((const double *)(row))[c])

/* mode 0's bin of v, 0-based: score_bin's arithmetic with the breaks j * (1/B) formed as
   they are (one rounded product each) instead of read, so that the compiler vectorises it */
INLINE int32_t fb_unit_bin(double v, double nbd, double step, int32_t nb)
{
    int32_t g = (int32_t)(v * nbd);
    g = g > nb - 1 ? nb - 1 : g;
    g -= v < (double)g * step;
    g += (v >= (double)(g + 1) * step) & (g + 1 < nb);
    return g;
}

/* rows are cut into chunks of columns: their bins first (vectorised in mode 0), then the
   cells' updates */
#define FB_CHUNK 64

INLINE void fb_rows_impl(fb_t *o, const int part, const int f32, const int mode)
{
    const Py_ssize_t k = o->k, nb = o->nb, cells = o->cells;
    const double *restrict br = o->br;
    const double nbd = (double)nb, step = 1.0 / (double)nb;
    int64_t *restrict cnt = o->cnt[part], *restrict ysum = o->ysum[part];
    double *restrict sum = o->sum[part], *restrict blk = o->blk[part], *restrict comp = o->comp[part];
    const size_t width = f32 ? sizeof(float) : sizeof(double);
    const Py_ssize_t i0 = part == 0 ? 0 : o->split, i1 = part == 0 ? o->split : o->n;
    double vals[FB_CHUNK];
    int32_t bin[FB_CHUNK];
    for (Py_ssize_t g = 0; g < cells; g++) {
        cnt[g] = 0;
        ysum[g] = 0;
        sum[g] = 0.0;
        blk[g] = 0.0;
        comp[g] = 0.0;
    }
    for (Py_ssize_t b0 = i0; b0 < i1; b0 += o->block) {
        const Py_ssize_t b1 = b0 + o->block < i1 ? b0 + o->block : i1;
        for (Py_ssize_t i = b0; i < b1; i++) {
            const char *row = (const char *)o->P + (size_t)i * (size_t)k * width;
            const Py_ssize_t base = o->group ? o->group[i] * nb * k : 0;
            for (Py_ssize_t c0 = 0; c0 < k; c0 += FB_CHUNK) {
                const Py_ssize_t m = k - c0 < FB_CHUNK ? k - c0 : FB_CHUNK;
                for (Py_ssize_t c = 0; c < m; c++) vals[c] = FB_AT(row, c0 + c);
                if (mode == 0)
                    for (Py_ssize_t c = 0; c < m; c++) bin[c] = fb_unit_bin(vals[c], nbd, step, (int32_t)nb);
                else
                    for (Py_ssize_t c = 0; c < m; c++) bin[c] = (int32_t)score_bin(br, nb, mode, vals[c]);
                for (Py_ssize_t c = 0; c < m; c++) {
                    const Py_ssize_t g = base + (Py_ssize_t)bin[c] * k + c0 + c;
                    cnt[g]++;
                    blk[g] += vals[c];
                }
            }
            if (o->codes) {
                const int64_t y = o->codes[i] - 1;
                if (y >= 0 && y < k) ysum[base + score_bin(br, nb, mode, FB_AT(row, y)) * k + y]++;
            }
        }
        for (Py_ssize_t g = 0; g < cells; g++) {
            const double s0 = sum[g], x = blk[g], t = s0 + x;
            comp[g] += fabs(s0) >= fabs(x) ? (s0 - t) + x : (x - t) + s0;
            sum[g] = t;
            blk[g] = 0.0;
        }
    }
    for (Py_ssize_t g = 0; g < cells; g++) sum[g] += comp[g];
}

HOT static void fb_rows(void *a, int part)
{
    fb_t *o = a;
    if (o->f32) {
        if (o->mode == 0) fb_rows_impl(o, part, 1, 0);
        else if (o->mode == 1) fb_rows_impl(o, part, 1, 1);
        else fb_rows_impl(o, part, 1, 2);
    } else {
        if (o->mode == 0) fb_rows_impl(o, part, 0, 0);
        else if (o->mode == 1) fb_rows_impl(o, part, 0, 1);
        else fb_rows_impl(o, part, 0, 2);
    }
}

/* Rows per block: at least 64, and enough entries that emptying the block's table (every
   cell) costs at most an eighth of reading the block. */
static Py_ssize_t fb_block(Py_ssize_t k, Py_ssize_t cells)
{
    const Py_ssize_t rows = (8 * cells + k - 1) / k;
    return rows > 64 ? rows : 64;
}

/* ------------------------------------------------------------------------------------ */
/* Brier score and log-loss: per-row terms, summed pairwise                               */

#define SC_BRIER_BINARY 0
#define SC_BRIER_MATRIX 1
#define SC_LOGLIK_BINARY 2
#define SC_LOGLIK_MATRIX 3

typedef struct {
    const void *P;
    int f32;
    Py_ssize_t n, k;        /* k = 1: binary (a vector) */
    int kind;
    const double *y;        /* binary: 0/1 labels */
    const int64_t *codes;   /* matrix: 1-based classes (checked by the caller) */
    double *e;              /* n terms */
    double *row[2];         /* per half: k doubles */
} sc_t;

HOT static void sc_rows(void *a, int part)
{
    sc_t *o = a;
    const Py_ssize_t k = o->k;
    const Py_ssize_t h = o->n / 2, i0 = part == 0 ? 0 : h, i1 = part == 0 ? h : o->n;
    const int f32 = o->f32;
    for (Py_ssize_t i = i0; i < i1; i++) {
        const char *row = (const char *)o->P + (size_t)i * (size_t)k * (f32 ? sizeof(float) : sizeof(double));
        switch (o->kind) {
        case SC_BRIER_BINARY: {
            const double d = FB_AT(row, 0) - o->y[i];
            o->e[i] = d * d;
            break;
        }
        case SC_LOGLIK_BINARY: {
            const double q = loss_clip(FB_AT(row, 0)), y = o->y[i];
            o->e[i] = y * log(q) + (1.0 - y) * log1p(-q);
            break;
        }
        case SC_LOGLIK_MATRIX:
            o->e[i] = log(loss_clip(FB_AT(row, o->codes[i] - 1)));
            break;
        default: {
            /* sum_c (p_c - [c = y])^2, pairwise over the row */
            double *restrict d = o->row[part];
            const Py_ssize_t y = o->codes[i] - 1;
            for (Py_ssize_t c = 0; c < k; c++) {
                const double v = FB_AT(row, c);
                d[c] = v * v;
            }
            const double t = FB_AT(row, y) - 1.0;
            d[y] = t * t;
            o->e[i] = pw_sum(d, k);
        }
        }
    }
}

/* ------------------------------------------------------------------------------------ */
/* Python glue (calstats/numerics/fast.py checks shapes and types; this module trusts it) */

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
        PyErr_Format(PyExc_ValueError, "_fast: buffer %s too small", what);
        return -1;
    }
    return 0;
}

static void rel_buf(buf_t *b)
{
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

/* the data arguments (Z, f32, codes, n, k, weights) */
static int parse_data(PyObject *Z, int f32, PyObject *codes, Py_ssize_t n, Py_ssize_t k, PyObject *w,
                      fs_t *o, buf_t *bz, buf_t *bc, buf_t *bw)
{
    memset(o, 0, sizeof(*o));
    if (n < 1 || k < 1) {
        PyErr_SetString(PyExc_ValueError, "_fast: empty problem");
        return -1;
    }
    o->n = n;
    o->k = k;
    o->f32 = f32;
    if (get_buf(Z, bz, 0, (Py_ssize_t)((f32 ? sizeof(float) : sizeof(double)) * n * k), "Z") < 0) return -1;
    if (get_buf(codes, bc, 0, (Py_ssize_t)(sizeof(int64_t) * n), "codes") < 0) return -1;
    o->Z = bz->view.buf;
    o->codes = bc->view.buf;
    if (w != Py_None) {
        if (get_buf(w, bw, 0, (Py_ssize_t)(sizeof(double) * n), "weights") < 0) return -1;
        o->w = bw->view.buf;
    }
    return 0;
}

/* temperature_value(Z, f32, codes, n, k, weights, m, zy, T, nthreads) -> value */
static PyObject *py_temperature_value(PyObject *self, PyObject *args)
{
    PyObject *Z, *codes, *w, *mo, *zyo;
    Py_ssize_t n, k;
    int f32, nthreads;
    double T, value = 0.0;
    fs_t o;
    buf_t bz = {0}, bc = {0}, bw = {0}, bm = {0}, by = {0};
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OiOnnOOOdi", &Z, &f32, &codes, &n, &k, &w, &mo, &zyo, &T, &nthreads)) return NULL;
    if (parse_data(Z, f32, codes, n, k, w, &o, &bz, &bc, &bw) < 0) goto done;
    if (get_buf(mo, &bm, 0, (Py_ssize_t)(sizeof(double) * n), "m") < 0) goto done;
    if (get_buf(zyo, &by, 0, (Py_ssize_t)(sizeof(double) * n), "zy") < 0) goto done;
    o.m = bm.view.buf;
    o.zy = by.view.buf;
    o.inv_t = 1.0 / T;
    if (!fs_alloc(&o)) {
        fs_free(&o);
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    run_halves(tmp_rows, &o, fs_parallel(&o, nthreads));
    value = fs_loss(&o);
    Py_END_ALLOW_THREADS
    fs_free(&o);
    ok = 1;
done:
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bm); rel_buf(&by);
    return ok ? PyFloat_FromDouble(value) : NULL;
}

/* vector_scaling_eval(Z, f32, codes, n, k, weights, par, grad_or_None, nthreads) -> value;
   grad (2k) receives the gradient of the value */
static PyObject *py_vector_scaling_eval(PyObject *self, PyObject *args)
{
    PyObject *Z, *codes, *w, *po, *go;
    Py_ssize_t n, k;
    int f32, nthreads;
    double value = 0.0;
    fs_t o;
    buf_t bz = {0}, bc = {0}, bw = {0}, bp = {0}, bg = {0};
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OiOnnOOOi", &Z, &f32, &codes, &n, &k, &w, &po, &go, &nthreads)) return NULL;
    if (parse_data(Z, f32, codes, n, k, w, &o, &bz, &bc, &bw) < 0) goto done;
    if (get_buf(po, &bp, 0, (Py_ssize_t)(sizeof(double) * 2 * k), "par") < 0) goto done;
    o.s = bp.view.buf;
    o.b = o.s + k;
    if (go != Py_None) {
        if (get_buf(go, &bg, 1, (Py_ssize_t)(sizeof(double) * 2 * k), "grad") < 0) goto done;
        o.grad = bg.view.buf;
    }
    if (!fs_alloc(&o)) {
        fs_free(&o);
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    run_halves(vs_rows, &o, fs_parallel(&o, nthreads));
    value = fs_loss(&o);
    if (o.grad) {
        const Py_ssize_t k2 = 2 * k;
        double *g1 = o.acc[0]; /* the block buffers are free now: 4k doubles */
        fs_pop_all(&o, 0, o.grad);
        fs_pop_all(&o, 1, g1);
        const double scale = o.w ? pw_sum(o.w, n) : (double)n;
        for (Py_ssize_t c = 0; c < k2; c++) o.grad[c] = (o.grad[c] + g1[c]) / scale;
    }
    Py_END_ALLOW_THREADS
    fs_free(&o);
    ok = 1;
done:
    rel_buf(&bz); rel_buf(&bc); rel_buf(&bw); rel_buf(&bp); rel_buf(&bg);
    return ok ? PyFloat_FromDouble(value) : NULL;
}

HOT static void exp_array(const double *x, double *out, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) out[i] = fexp(x[i]);
}

/* exp(x, out): the engine's exp of every element (for tests and the metrics) */
static PyObject *py_exp(PyObject *self, PyObject *args)
{
    PyObject *xo, *oo;
    buf_t bx = {0}, bo = {0};
    if (!PyArg_ParseTuple(args, "OO", &xo, &oo)) return NULL;
    if (get_buf(xo, &bx, 0, 0, "x") < 0 || get_buf(oo, &bo, 1, bx.view.len, "out") < 0) {
        rel_buf(&bx); rel_buf(&bo);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    exp_array(bx.view.buf, bo.view.buf, bx.view.len / (Py_ssize_t)sizeof(double));
    Py_END_ALLOW_THREADS
    rel_buf(&bx); rel_buf(&bo);
    Py_RETURN_NONE;
}

/* pairwise_sum(x) -> the engine's sum of a float64 buffer */
static PyObject *py_pairwise_sum(PyObject *self, PyObject *arg)
{
    buf_t bx = {0};
    double s;
    if (get_buf(arg, &bx, 0, 0, "x") < 0) return NULL;
    s = pw_sum(bx.view.buf, bx.view.len / (Py_ssize_t)sizeof(double));
    rel_buf(&bx);
    return PyFloat_FromDouble(s);
}


/* bins(P, f32, n, k, mode, breaks, codes_or_None, group_or_None, cells, cnt, ysum, sums, nthreads):
   the cells of the binned metrics (see above; cells = k B, or groups B): cnt and ysum int64,
   sums float64 */
static PyObject *py_bins(PyObject *self, PyObject *args)
{
    PyObject *P, *breaks, *codes, *group, *cnto, *ysumo, *sumo;
    Py_ssize_t n, k, cells;
    int f32, mode, nthreads;
    buf_t bp = {0}, bb = {0}, bc = {0}, bg = {0}, bn = {0}, by = {0}, bs = {0};
    fb_t o;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "OinniOOOnOOOi", &P, &f32, &n, &k, &mode, &breaks, &codes, &group, &cells, &cnto,
                          &ysumo, &sumo, &nthreads))
        return NULL;
    memset(&o, 0, sizeof o);
    if (n < 1 || k < 1 || mode < 0 || mode > 2 || cells < 1 || (group != Py_None && k != 1)) {
        PyErr_SetString(PyExc_ValueError, "_fast: bins needs n, k, cells >= 1, mode 0, 1 or 2, and k = 1 with groups");
        return NULL;
    }
    if (get_buf(P, &bp, 0, (Py_ssize_t)((f32 ? sizeof(float) : sizeof(double)) * n * k), "P") < 0) goto done;
    if (get_buf(breaks, &bb, 0, 2 * (Py_ssize_t)sizeof(double), "breaks") < 0) goto done;
    o.P = bp.view.buf;
    o.f32 = f32;
    o.n = n;
    o.k = k;
    o.mode = mode;
    o.br = bb.view.buf;
    o.nb = bb.view.len / (Py_ssize_t)sizeof(double) - 1;
    o.cells = cells;
    if (group == Py_None && cells != k * o.nb) {
        PyErr_SetString(PyExc_ValueError, "_fast: bins needs cells = k * bins");
        goto done;
    }
    if (codes != Py_None) {
        if (get_buf(codes, &bc, 0, n * (Py_ssize_t)sizeof(int64_t), "codes") < 0) goto done;
        o.codes = bc.view.buf;
    }
    if (group != Py_None) {
        if (get_buf(group, &bg, 0, n * (Py_ssize_t)sizeof(int64_t), "group") < 0) goto done;
        o.group = bg.view.buf;
    }
    if (get_buf(cnto, &bn, 1, cells * (Py_ssize_t)sizeof(int64_t), "cnt") < 0) goto done;
    if (get_buf(ysumo, &by, 1, cells * (Py_ssize_t)sizeof(int64_t), "ysum") < 0) goto done;
    if (get_buf(sumo, &bs, 1, cells * (Py_ssize_t)sizeof(double), "sums") < 0) goto done;
    o.cnt[0] = bn.view.buf;
    o.ysum[0] = by.view.buf;
    o.sum[0] = bs.view.buf;
    /* the second half's tables, and both halves' block tables */
    o.cnt[1] = malloc(sizeof(int64_t) * 2 * (size_t)cells);
    o.sum[1] = malloc(sizeof(double) * 5 * (size_t)cells);
    if (!o.cnt[1] || !o.sum[1]) {
        free(o.cnt[1]);
        free(o.sum[1]);
        PyErr_NoMemory();
        goto done;
    }
    o.ysum[1] = o.cnt[1] + cells;
    o.blk[0] = o.sum[1] + cells;
    o.blk[1] = o.blk[0] + cells;
    o.comp[0] = o.blk[1] + cells;
    o.comp[1] = o.comp[0] + cells;
    o.block = fb_block(k, cells);
    /* a fixed split on a block boundary: the numbers do not depend on the threads */
    o.split = ((n / 2) / o.block) * o.block;
    Py_BEGIN_ALLOW_THREADS
    run_halves(fb_rows, &o, nthreads > 1 && (double)n * (double)k >= 200000.0 ? 2 : 1);
    for (Py_ssize_t g = 0; g < cells; g++) {
        o.cnt[0][g] += o.cnt[1][g];
        o.ysum[0][g] += o.ysum[1][g];
        o.sum[0][g] += o.sum[1][g];
    }
    Py_END_ALLOW_THREADS
    free(o.cnt[1]);
    free(o.sum[1]);
    ok = 1;
done:
    rel_buf(&bp); rel_buf(&bb); rel_buf(&bc); rel_buf(&bg); rel_buf(&bn); rel_buf(&by); rel_buf(&bs);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* score(kind, P, f32, n, k, y_or_codes, weights_or_None, nthreads) -> the mean (weighted:
   sum(w e) / sum(w)) of the Brier terms or of the clipped log-likelihood terms (kind 0..3 as
   calstats.numerics.passes: binary Brier, matrix Brier, binary and matrix log-likelihood) */
static PyObject *py_score(PyObject *self, PyObject *args)
{
    PyObject *P, *yo, *wo;
    Py_ssize_t n, k;
    int kind, f32, nthreads;
    buf_t bp = {0}, by = {0}, bw = {0};
    sc_t o;
    double value = 0.0;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "iOinnOOi", &kind, &P, &f32, &n, &k, &yo, &wo, &nthreads)) return NULL;
    memset(&o, 0, sizeof o);
    const int matrix = kind == SC_BRIER_MATRIX || kind == SC_LOGLIK_MATRIX;
    if (kind < 0 || kind > 3 || n < 1 || k < 1 || matrix == (k == 1)) {
        PyErr_SetString(PyExc_ValueError, "_fast: score kind or shape");
        return NULL;
    }
    if (get_buf(P, &bp, 0, (Py_ssize_t)((f32 ? sizeof(float) : sizeof(double)) * n * k), "P") < 0) goto done;
    if (get_buf(yo, &by, 0, n * (Py_ssize_t)(matrix ? sizeof(int64_t) : sizeof(double)), "y") < 0) goto done;
    if (wo != Py_None && get_buf(wo, &bw, 0, n * (Py_ssize_t)sizeof(double), "weights") < 0) goto done;
    o.P = bp.view.buf;
    o.f32 = f32;
    o.n = n;
    o.k = k;
    o.kind = kind;
    if (matrix) o.codes = by.view.buf;
    else o.y = by.view.buf;
    o.e = malloc(sizeof(double) * (size_t)n);
    o.row[0] = malloc(sizeof(double) * 2 * (size_t)k);
    if (!o.e || !o.row[0]) {
        free(o.e);
        free(o.row[0]);
        PyErr_NoMemory();
        goto done;
    }
    o.row[1] = o.row[0] + k;
    Py_BEGIN_ALLOW_THREADS
    run_halves(sc_rows, &o, nthreads > 1 && (double)n * (double)k >= 200000.0 ? 2 : 1);
    if (bw.held) {
        const double *w = bw.view.buf;
        for (Py_ssize_t i = 0; i < n; i++) o.e[i] *= w[i];
        value = pw_sum(o.e, n) / pw_sum(w, n);
    } else {
        value = pw_sum(o.e, n) / (double)n;
    }
    Py_END_ALLOW_THREADS
    free(o.e);
    free(o.row[0]);
    ok = 1;
done:
    rel_buf(&bp); rel_buf(&by); rel_buf(&bw);
    return ok ? PyFloat_FromDouble(value) : NULL;
}

static PyMethodDef fast_methods[] = {
    {"temperature_value", py_temperature_value, METH_VARARGS,
     "temperature_value(Z, f32, codes, n, k, weights, m, zy, T, nthreads) -> mean NLL of softmax(Z / T)"},
    {"vector_scaling_eval", py_vector_scaling_eval, METH_VARARGS,
     "vector_scaling_eval(Z, f32, codes, n, k, weights, par, grad, nthreads) -> mean NLL (grad filled)"},
    {"exp", py_exp, METH_VARARGS, "exp(x, out): the fast engine's exp of a float64 buffer"},
    {"pairwise_sum", py_pairwise_sum, METH_O, "pairwise_sum(x) -> the fast engine's sum of a float64 buffer"},
    {"bins", py_bins, METH_VARARGS,
     "bins(P, f32, n, k, mode, breaks, codes, group, cells, cnt, ysum, sums, nthreads): the binned metrics' cells"},
    {"score", py_score, METH_VARARGS,
     "score(kind, P, f32, n, k, y, weights, nthreads) -> mean Brier or log-likelihood term"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT, "_fast",
    "The fast engine: vectorised exp and pairwise sums (see calstats.numerics.fast).",
    -1, fast_methods,
};

PyMODINIT_FUNC PyInit__fast(void)
{
    return PyModule_Create(&fast_module);
}

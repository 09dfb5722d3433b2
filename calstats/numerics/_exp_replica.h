/*
 * exp(z[c] - m) for a row, four lanes at a time, with the bits of the C library's exp.
 *
 * Why: the softmax of the multinomial objective calls exp once per class and observation;
 * at K = 10 those calls are a quarter of a Dirichlet fit, and the C library's exp is
 * scalar.  R calls that same exp, so only its bits are acceptable.
 *
 * What: glibc (2.28 and newer) computes exp(x) = 2^(k/N) exp(r), N = 128, with a table of
 * 2^(k/N) (tools/make_exp_table.py) and a degree-5 polynomial; on a CPU with AVX2 and FMA
 * glibc selects its FMA build (__exp_fma), whose fused multiply-adds are those below
 * (read off its machine code: the reduction, the two polynomial halves, the final
 * scale + scale * tmp).  Each lane here performs exactly those operations, so each result
 * is the C library's, bit for bit.  Lanes outside the main path (|x| < 2^-54, |x| >= 512,
 * NaN, infinities) take 1 + x as glibc does for the tiny ones, or the C library's exp.
 *
 * When: only on x86-64 with AVX2 and FMA (where glibc uses __exp_fma too), and only after
 * exp_replica_init() has compared the replica with the C library's exp on inputs covering
 * every table entry, the polynomial's range and the special cases.  Otherwise, or if one
 * result differs, the C library's exp is called (core.exp_mode() says which); the numbers
 * are the same either way, only the time differs.  CALSTATS_EXP=libm in the environment
 * selects the C library's exp (benchmarks/bench_dirichlet.py --exp-ab times both).
 */
#include "_exp_table.h"

static int exp_replica_ok = 0;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define EXP_INVLN2N (0x1.71547652b82fep0 * 128)
#define EXP_SHIFT 0x1.8p52
#define EXP_NEGLN2HIN (-0x1.62e42fefa0000p-8)
#define EXP_NEGLN2LON (-0x1.cf79abc9e3b3ap-47)
#define EXP_C2 0x1.ffffffffffdbdp-2
#define EXP_C3 0x1.555555555543cp-3
#define EXP_C4 0x1.55555cf172b91p-5
#define EXP_C5 0x1.1111167a4d017p-7

/* exp of four lanes; *special gets a mask of the lanes that need the C library */
__attribute__((target("avx2,fma"))) static inline __m256d exp4(__m256d x, int *special)
{
    const __m256i ux = _mm256_castpd_si256(x);
    const __m256i abstop = _mm256_and_si256(_mm256_srli_epi64(ux, 52), _mm256_set1_epi64x(0x7ff));
    /* main path: 0x3c9 <= abstop <= 0x407 (2^-54 <= |x| < 512); tiny: abstop < 0x3c9 */
    const __m256i tiny = _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x3c9), abstop);
    const __m256i big = _mm256_cmpgt_epi64(abstop, _mm256_set1_epi64x(0x407));
    *special = _mm256_movemask_pd(_mm256_castsi256_pd(big));

    __m256d kd = _mm256_fmadd_pd(x, _mm256_set1_pd(EXP_INVLN2N), _mm256_set1_pd(EXP_SHIFT));
    const __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, _mm256_set1_pd(EXP_SHIFT));
    __m256d r = _mm256_fmadd_pd(kd, _mm256_set1_pd(EXP_NEGLN2HIN), x);
    r = _mm256_fmadd_pd(kd, _mm256_set1_pd(EXP_NEGLN2LON), r);
    const __m256i idx = _mm256_slli_epi64(_mm256_and_si256(ki, _mm256_set1_epi64x(127)), 1);
    const __m256i top = _mm256_slli_epi64(ki, 45);
    const __m256d tail = _mm256_i64gather_pd((const double *)exp_table, idx, 8);
    const __m256i sbits = _mm256_add_epi64(
        _mm256_i64gather_epi64((const long long *)(exp_table + 1), idx, 8), top);
    const __m256d a = _mm256_fmadd_pd(r, _mm256_set1_pd(EXP_C3), _mm256_set1_pd(EXP_C2));
    const __m256d t1 = _mm256_add_pd(r, tail);
    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d b = _mm256_fmadd_pd(r, _mm256_set1_pd(EXP_C5), _mm256_set1_pd(EXP_C4));
    const __m256d t2 = _mm256_fmadd_pd(a, r2, t1);
    const __m256d r4 = _mm256_mul_pd(r2, r2);
    const __m256d tmp = _mm256_fmadd_pd(r4, b, t2);
    const __m256d scale = _mm256_castsi256_pd(sbits);
    const __m256d y = _mm256_fmadd_pd(scale, tmp, scale);
    /* glibc returns 1.0 + x for |x| < 2^-54 (0 included: the row maximum) */
    const __m256d one_plus = _mm256_add_pd(_mm256_set1_pd(1.0), x);
    return _mm256_blendv_pd(y, one_plus, _mm256_castsi256_pd(tiny));
}

__attribute__((target("avx2,fma"))) static void exp_shifted_avx2(double *z, Py_ssize_t k, double m)
{
    const __m256d mv = _mm256_set1_pd(m);
    Py_ssize_t c = 0;
    for (; c + 4 <= k; c += 4) {
        const __m256d x = _mm256_sub_pd(_mm256_loadu_pd(z + c), mv);
        int special;
        const __m256d y = exp4(x, &special);
        if (__builtin_expect(special != 0, 0)) {
            double xs[4], ys[4];
            _mm256_storeu_pd(xs, x);
            _mm256_storeu_pd(ys, y);
            for (int j = 0; j < 4; j++) z[c + j] = (special >> j) & 1 ? exp(xs[j]) : ys[j];
        } else {
            _mm256_storeu_pd(z + c, y);
        }
    }
    if (c < k) { /* the last 1-3 classes: lanes padded with x = 0 */
        double xs[4] = {0.0, 0.0, 0.0, 0.0}, ys[4];
        for (Py_ssize_t j = 0; c + j < k; j++) xs[j] = z[c + j] - m;
        int special;
        _mm256_storeu_pd(ys, exp4(_mm256_loadu_pd(xs), &special));
        for (Py_ssize_t j = 0; c + j < k; j++) z[c + j] = (special >> j) & 1 ? exp(xs[j]) : ys[j];
    }
}

/* Compare the replica with the C library on inputs covering every table entry and each
   path; returns the number of differing results (0: the replica may be used). */
static long exp_replica_selfcheck(void)
{
    long bad = 0;
    double z[4];
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 40000; i++) {
        for (int j = 0; j < 4; j++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const double u = (double)(state >> 11) * 0x1.0p-53; /* [0, 1) */
            double x;
            switch ((i + j) % 5) {
            case 0: x = -40.0 * u; break;                       /* softmax's typical range */
            case 1: x = (u - 0.5) * 1400.0; break;              /* both ends, specials */
            case 2: x = (u - 0.5) * 0x1.0p-50; break;           /* tiny and near tiny */
            case 3: x = ((double)(i % 128) + u - 0.5) * (0.6931471805599453 / 128); break;
            default: x = -745.2 * u; break;                     /* underflow region */
            }
            z[j] = x;
        }
        double want[4];
        for (int j = 0; j < 4; j++) want[j] = exp(z[j]);
        exp_shifted_avx2(z, 4, 0.0);
        for (int j = 0; j < 4; j++) bad += memcmp(&z[j], &want[j], sizeof(double)) != 0;
    }
    const double specials[8] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 709.8, -745.2, 0x1.0p-1074};
    double s[8];
    memcpy(s, specials, sizeof s);
    exp_shifted_avx2(s, 8, 0.0);
    for (int j = 0; j < 8; j++) {
        const double w = exp(specials[j]);
        bad += !(memcmp(&s[j], &w, sizeof(double)) == 0 || (isnan(s[j]) && isnan(w)));
    }
    return bad;
}

static void exp_replica_init(void)
{
    const char *env = getenv("CALSTATS_EXP"); /* "libm": time the C library's exp instead */
    if (env != NULL && strcmp(env, "libm") == 0) {
        exp_replica_ok = 0;
        return;
    }
    __builtin_cpu_init();
    exp_replica_ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                     && exp_replica_selfcheck() == 0;
}

#define EXP_REPLICA_BUILT 1
#else
static void exp_replica_init(void) { exp_replica_ok = 0; }
#define EXP_REPLICA_BUILT 0
#endif

/* z[c] = exp(z[c] - m) for c < k: the replica when it was checked, else the C library */
static inline void exp_shifted(double *z, Py_ssize_t k, double m)
{
#if EXP_REPLICA_BUILT
    if (exp_replica_ok) {
        exp_shifted_avx2(z, k, m);
        return;
    }
#endif
    for (Py_ssize_t c = 0; c < k; c++) z[c] = exp(z[c] - m);
}

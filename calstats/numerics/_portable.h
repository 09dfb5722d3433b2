/*
 * What calstats' C core needs from the compiler, for GCC, clang and MSVC alike.
 *
 * - CS_ALWAYS_INLINE: a helper inlined into each caller (GCC/clang always_inline, MSVC
 *   __forceinline).
 * - restrict: C99's keyword (MSVC spells it __restrict).
 * - CS_VECTOR_EXT: 1 where GCC's vector extension (vector_size) exists (GCC, clang), else
 *   0; the code without it runs the same IEEE operations one lane at a time (each lane is
 *   one row's or one class's own computation), so the results are the same bits.  Define
 *   CALSTATS_NO_VECTOR_EXT to build that code with GCC too (the tests of the portable path).
 * - cs_thread_t, cs_thread_create, cs_thread_join: one extra thread (POSIX threads, or the
 *   Windows API); a thread that cannot be started is reported and the caller runs its part
 *   itself.
 * - CS_PREFETCH: a read hint where the compiler has one.
 *
 * Not portable, and said where it matters: `long double` is the 80-bit x87 format on
 * x86-64 Linux and macOS with GCC and clang (R's LDOUBLE there), but plain double with
 * MSVC and on arm64; sums that R accumulates in long double are then rounded as R on those
 * platforms rounds them (R on Windows is built with GCC and keeps 80 bits: a Windows wheel
 * built with MSVC gives R's numbers to rounding, not to the last bit).
 */
#ifndef CALSTATS_PORTABLE_H
#define CALSTATS_PORTABLE_H

#if defined(_MSC_VER) && !defined(__clang__)
#define CS_ALWAYS_INLINE static __forceinline
#ifndef restrict
#define restrict __restrict
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define CS_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define CS_ALWAYS_INLINE static inline
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(CALSTATS_NO_VECTOR_EXT)
#define CS_VECTOR_EXT 1
#else
#define CS_VECTOR_EXT 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CS_PREFETCH(p) __builtin_prefetch(p)
#else
#define CS_PREFETCH(p) ((void)(p))
#endif

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
typedef struct {
    HANDLE h;
    void *(*fn)(void *);
    void *arg;
} cs_thread_t;

static DWORD WINAPI cs_thread_main(LPVOID p)
{
    cs_thread_t *t = (cs_thread_t *)p;
    t->fn(t->arg);
    return 0;
}

/* 0 when the thread started (as pthread_create) */
static int cs_thread_create(cs_thread_t *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    t->h = CreateThread(NULL, 0, cs_thread_main, t, 0, NULL);
    return t->h != NULL ? 0 : -1;
}

static void cs_thread_join(cs_thread_t *t)
{
    WaitForSingleObject(t->h, INFINITE);
    CloseHandle(t->h);
}
#else
#include <pthread.h>
typedef struct {
    pthread_t th;
} cs_thread_t;

static int cs_thread_create(cs_thread_t *t, void *(*fn)(void *), void *arg)
{
    return pthread_create(&t->th, NULL, fn, arg);
}

static void cs_thread_join(cs_thread_t *t) { pthread_join(t->th, NULL); }
#endif

#endif

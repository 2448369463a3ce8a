/* What the core's long loops watch while they run: a monotonic clock for time limits and a
   stop word that another thread may set (scopa_core.StopFlag). */
#ifndef SCOPA_WATCH_H
#define SCOPA_WATCH_H

#if defined(_WIN32)
#include <windows.h>
/* Seconds on a monotonic clock (an arbitrary origin): only differences mean anything. */
static double scopa_now(void) {
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (freq.QuadPart == 0)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)freq.QuadPart;
}
#else
#include <time.h>
static double scopa_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#endif

/* The stop word (and the other words that threads of a search set for one another: a
   parallel solve's done word and pooled bounds) is read and written whole, as a relaxed atomic,
   so a search loop sees a write made by another thread (it is read every few thousand nodes,
   never cached). Plain volatile accesses were a data race under C11 (ThreadSanitizer said so).
   MSVC's volatile accesses of an aligned int are whole (its /volatile:ms, the default on x86). */
#if defined(_MSC_VER)
static inline int scopa_flag_read(const int *p) { return *(const volatile int *)p; }
static inline void scopa_flag_write(int *p, int v) { *(volatile int *)p = v; }
#else
static inline int scopa_flag_read(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void scopa_flag_write(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

#endif

/* A one-byte spin lock for the buckets of a transposition table that threads share: held
   only while one entry is copied or written (a few dozen instructions), so spinning beats
   sleeping. The table's searches take it only when the table is shared (SState.shared). */
#ifndef SCOPA_SPINLOCK_H
#define SCOPA_SPINLOCK_H

#if defined(_MSC_VER)
#include <intrin.h>
static inline void scopa_lock(char *l) {
    while (_InterlockedExchange8(l, 1))
        while (*(volatile char *)l)
            _mm_pause();
}
static inline void scopa_unlock(char *l) { _InterlockedExchange8(l, 0); }
#else
static inline void scopa_lock(char *l) {
    while (__atomic_exchange_n(l, (char)1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#else
            ;
#endif
}
static inline void scopa_unlock(char *l) { __atomic_store_n(l, (char)0, __ATOMIC_RELEASE); }
#endif

/* Relaxed 64-bit loads and stores of words other threads write (the table of moves being
   searched): whole words, never torn, no ordering implied. */
#if defined(_MSC_VER)
static inline unsigned long long scopa_load64(const unsigned long long *p) { return *(const volatile unsigned long long *)p; }
static inline void scopa_store64(unsigned long long *p, unsigned long long v) { *(volatile unsigned long long *)p = v; }
#else
static inline unsigned long long scopa_load64(const unsigned long long *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void scopa_store64(unsigned long long *p, unsigned long long v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

#endif

/* A one-byte spin lock for the buckets of a transposition table that threads share: held
   only while one entry is copied or written (a few dozen instructions), so spinning beats
   sleeping. The table's searches take it only when the table is shared (SState.shared). */
#ifndef SCOPA_SPINLOCK_H
#define SCOPA_SPINLOCK_H

#include <stdint.h>

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
   searched): whole words, never torn, no ordering implied. uint64_t, as the core declares them:
   on 64-bit Linux it is unsigned long, not unsigned long long, and GCC 14 refuses the mismatch. */
#if defined(_MSC_VER)
static inline uint64_t scopa_load64(const uint64_t *p) { return *(const volatile uint64_t *)p; }
static inline void scopa_store64(uint64_t *p, uint64_t v) { *(volatile uint64_t *)p = v; }
#else
static inline uint64_t scopa_load64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void scopa_store64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
#endif

#endif

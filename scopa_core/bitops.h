/* Portable bit operations on 64-bit card masks for the scopa core. */
#ifndef SCOPA_BITOPS_H
#define SCOPA_BITOPS_H
#include <stdint.h>

/* Bit count without a POPCNT instruction: MSVC, and GCC/Clang on the portable x86-64
   baseline (where __builtin_popcountll becomes a library call, slower than this). */
static inline int scopa_popcount_swar(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static __inline int scopa_ctz(uint64_t x) {
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
static __inline int scopa_popcount(uint64_t x) { return scopa_popcount_swar(x); }
/* scopa_prefetch: ask for the cache line at p ahead of its use (a hint, no effect on results). */
#if defined(_M_X64) || defined(_M_IX86)
#include <xmmintrin.h>
static __inline void scopa_prefetch(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T0); }
#else
static __inline void scopa_prefetch(const void *p) { (void)p; }
#endif
#else
static inline void scopa_prefetch(const void *p) { __builtin_prefetch(p); }
static inline int scopa_ctz(uint64_t x) { return __builtin_ctzll(x); }
#if defined(__POPCNT__)
static inline int scopa_popcount(uint64_t x) { return __builtin_popcountll(x); }
#else
static inline int scopa_popcount(uint64_t x) { return scopa_popcount_swar(x); }
#endif
#endif

/* SCOPA_HW_POPCOUNT: 1 when the build counts bits with the POPCNT instruction (setup.py
   asks for it on x86-64 unless SCOPA_PORTABLE=1). scopa_cpu_supported: whether this CPU
   has the instructions the build relies on beyond its architecture's baseline; the module
   checks it on import, before anything else runs. */
#if defined(__POPCNT__) && !(defined(_MSC_VER) && !defined(__clang__))
#define SCOPA_HW_POPCOUNT 1
#if defined(__x86_64__) || defined(__i386__)
/* CPUID read directly: __builtin_cpu_supports needs a runtime symbol (__cpu_model) that
   Apple's Clang does not provide. */
#include <cpuid.h>
static inline int scopa_cpu_supported(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return (c & bit_POPCNT) != 0;
}
#else
static inline int scopa_cpu_supported(void) { return 1; }
#endif
#else
#define SCOPA_HW_POPCOUNT 0
static inline int scopa_cpu_supported(void) { return 1; }
#endif

#endif

/* Allocation of the solver's transposition table, aligned so that a bucket (two 64-byte
   entries) is two adjacent cache lines: to 128 bytes, and on Linux tables of 2 MB or more
   to 2 MB and marked for transparent huge pages, so random probes into a table of hundreds
   of megabytes miss the TLB far less often. Release with scopa_table_free only. */
#ifndef SCOPA_TABLE_ALLOC_H
#define SCOPA_TABLE_ALLOC_H
#include <stdlib.h>

#if defined(_WIN32)
#include <malloc.h>
static void *scopa_table_alloc(size_t size) { return _aligned_malloc(size, 128); }
static void scopa_table_free(void *p) { _aligned_free(p); }
#else
#if defined(__linux__)
#include <sys/mman.h>
#endif
static void *scopa_table_alloc(size_t size) {
    void *p = NULL;
    size_t align = 128;
#if defined(__linux__)
    if (size >= ((size_t)2 << 20))
        align = (size_t)2 << 20;
#endif
    if (posix_memalign(&p, align, size) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align > 128)
        madvise(p, size, MADV_HUGEPAGE);  /* advice only: failure changes speed, not results */
#endif
    return p;
}
/* posix_memalign memory is released by free */
static void scopa_table_free(void *p) { free(p); }
#endif

#endif

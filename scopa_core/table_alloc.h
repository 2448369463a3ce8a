/* Allocation of the solver's transposition table: on Linux aligned to 2 MB and marked
   for transparent huge pages, so random probes into a table of hundreds of megabytes
   miss the TLB far less often; plain malloc elsewhere. */
#ifndef SCOPA_TABLE_ALLOC_H
#define SCOPA_TABLE_ALLOC_H
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
static void *scopa_table_alloc(size_t size) {
    void *p = NULL;
    const size_t huge = (size_t)2 << 20;
    if (size >= huge) {
        if (posix_memalign(&p, huge, size) != 0)
            return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);  /* advice only: failure changes speed, not results */
#endif
        return p;
    }
    return malloc(size);
}
#else
static void *scopa_table_alloc(size_t size) { return malloc(size); }
#endif

/* posix_memalign memory is released by free, like malloc's */
static void scopa_table_free(void *p) { free(p); }

#endif

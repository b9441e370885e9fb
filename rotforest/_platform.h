/* rotforest: small platform helpers of the builder: large allocations, the machine's
   memory, the random generator, bit counts and a comparison for qsort. */
#ifndef ROTFOREST_PLATFORM_H
#define ROTFOREST_PLATFORM_H
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include "_compiler.h"

/* Large buffers (a tree's sorted lists, from 32 MiB): on Linux, aligned to 2 MiB
   and offered to transparent huge pages, which spares the build most of its TLB
   misses and page faults (numpy does the same for its large arrays).  Freed with
   free(). */
#if defined(__linux__)
#include <sys/mman.h>
#include <stdlib.h>
static void *rf_alloc_big(size_t size) {
    void *p = NULL;
    if (size < ((size_t)32 << 20)) return malloc(size);   /* measured: no gain below */
    if (posix_memalign(&p, (size_t)2 << 20, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}
#else
static void *rf_alloc_big(size_t size) { return malloc(size); }
#endif
#if defined(_WIN32)
#include <windows.h>
static uint64_t rf_physical_memory(void) {
    MEMORYSTATUSEX m; m.dwLength = sizeof(m);
    return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : (uint64_t)-1;
}
#else
#include <unistd.h>
static uint64_t rf_physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && size > 0) ? (uint64_t)pages * (uint64_t)size : (uint64_t)-1;
}
#endif
/* splitmix64: a small, fast generator with a 64-bit state. */
static inline uint64_t rf_rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct { double v; int64_t i; } rf_vi;
/* (value, index) order, for the rare runs the sort keys could not tell apart */
static int rf_cmp_vi(const void *a, const void *b) {
    const rf_vi *x = (const rf_vi *)a, *y = (const rf_vi *)b;
    if (x->v < y->v) return -1;
    if (x->v > y->v) return 1;
    return (x->i > y->i) - (x->i < y->i);
}
/* Whether children of values vl / vr (class-0 fractions, means or medians) keep a
   split's monotonic constraint cst (1: vl <= vr, -1: vl >= vr) and the node's bounds:
   the test scikit-learn applies, shared by the exact and the binned builders. */
static inline int rf_values_ok(double vl, double vr, int cst, double lower,
                               double upper) {
    return vl >= lower && vr >= lower && vl <= upper && vr <= upper
           && (vl - vr) * cst <= 0.0;
}
/* bit scans and counts (rf_ctz32, rf_ctz64, rf_clz64, rf_popcount64): _compiler.h */

#endif  /* ROTFOREST_PLATFORM_H */

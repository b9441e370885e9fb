/* rotforest: prefetch hints for the kernels' gathers.  GCC and Clang get
   __builtin_prefetch; other compilers (MSVC) nothing, which changes no result, only
   the time the gathers wait on memory. */
#ifndef ROTFOREST_PREFETCH_H
#define ROTFOREST_PREFETCH_H
#if defined(__GNUC__) || defined(__clang__)
/* a read of address a, kept in every cache level */
#define RF_PREFETCH(a) __builtin_prefetch(a)
/* rw: 0 a read, 1 a write; loc: 0 (used once) to 3 (kept in every level) */
#define RF_PREFETCH_RW(a, rw, loc) __builtin_prefetch(a, rw, loc)
#else
#define RF_PREFETCH(a) ((void)0)
#define RF_PREFETCH_RW(a, rw, loc) ((void)0)
#endif
#endif

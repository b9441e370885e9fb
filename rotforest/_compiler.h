/* rotforest: what the C headers ask of the compiler, in one place.  GCC and Clang get
   the attributes; MSVC (and any other compiler) gets empty macros and its own bit-scan
   intrinsics, and the portable kernels (the AVX-512 ones are compiled only on x86-64
   with GCC or Clang, see RF_X86_AVX512). */
#ifndef ROTFOREST_COMPILER_H
#define ROTFOREST_COMPILER_H
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define RF_ALWAYS_INLINE __attribute__((always_inline))
/* the functions with this attribute must not fuse a*b+c into one rounding (their
   results would differ from the portable kernels'); Clang has no per-function
   switch: the build passes it -ffp-contract=off (meson.build) */
#if defined(__clang__)
#define RF_NO_CONTRACT
#else
#define RF_NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#endif
#define RF_TARGET_AVX512F __attribute__((target("avx512f")))
#define RF_TARGET_AVX512 __attribute__((target("avx512f,avx512dq")))
#define RF_TARGET_AVX512VL __attribute__((target("avx512f,avx512vl,avx512dq")))
static inline int rf_ctz32(uint32_t x) { return __builtin_ctz(x); }
static inline int rf_ctz64(uint64_t x) { return __builtin_ctzll(x); }
static inline int rf_clz64(uint64_t x) { return __builtin_clzll(x); }
#else
#define RF_ALWAYS_INLINE
#define RF_NO_CONTRACT
#if defined(_MSC_VER)
#include <intrin.h>
/* (x nonzero, as for the builtins) */
static __inline int rf_ctz32(uint32_t x) {
    unsigned long i; _BitScanForward(&i, x); return (int)i;
}
#if defined(_M_X64) || defined(_M_ARM64)
static __inline int rf_ctz64(uint64_t x) {
    unsigned long i; _BitScanForward64(&i, x); return (int)i;
}
static __inline int rf_clz64(uint64_t x) {
    unsigned long i; _BitScanReverse64(&i, x); return 63 - (int)i;
}
#else
static __inline int rf_ctz64(uint64_t x) {
    unsigned long i;
    if (_BitScanForward(&i, (unsigned long)x)) return (int)i;
    _BitScanForward(&i, (unsigned long)(x >> 32)); return 32 + (int)i;
}
static __inline int rf_clz64(uint64_t x) {
    unsigned long i;
    if (_BitScanReverse(&i, (unsigned long)(x >> 32))) return 31 - (int)i;
    _BitScanReverse(&i, (unsigned long)x); return 63 - (int)i;
}
#endif
#else
static inline int rf_ctz32(uint32_t x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static inline int rf_ctz64(uint64_t x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static inline int rf_clz64(uint64_t x) {
    int n = 0; while (!(x & ((uint64_t)1 << 63))) { x <<= 1; n++; } return n;
}
#endif
#endif

/* the AVX-512 kernels: x86-64 with GCC or Clang (not on Windows, whose ABI the
   kernels were not checked on) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define RF_X86_AVX512 1
#else
#define RF_X86_AVX512 0
#endif

/* bit counts by halves (compilers turn this into one instruction where the
   target has one; __builtin_popcount would call a library routine otherwise) */
static inline int rf_popcount64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#define rf_popcount32(x) rf_popcount64((uint64_t)(x))

#endif  /* ROTFOREST_COMPILER_H */

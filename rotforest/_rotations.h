/* rotforest: the rotation forest's PCA moments (see _rotations.pxi: group_moments). */
#ifndef ROTFOREST_ROTATIONS_H
#define ROTFOREST_ROTATIONS_H
#include <stdint.h>
#include <string.h>

#define RF_MOM_LANES 8
#define RF_MOM_MAX 8              /* the largest group handled here */

/* For each of the m groups of `size` features (row g of groups: their rows in Zt, the
   data transposed, n values a row), the sums over the rows kept for the group (keep[g *
   n + i] nonzero) of each feature, into sums[g * size + a], and of the product of each
   two, into cross[(g * size + a) * size + b] (both triangles).  Rows are taken 8 at a
   time, each of the 8 lanes summing its own rows (the loops over lanes vectorise: no
   sum crosses lanes until the end), and the lanes are then added in a fixed order, so
   the result does not depend on the processor. */
static inline __attribute__((always_inline, optimize("fp-contract=off")))
void rf_group_moments_impl(const double* Zt, int64_t n, const int64_t* groups,
                           int64_t m, const int64_t size, const uint8_t* keep,
                           double* sums, double* cross) {
    double acc[(RF_MOM_MAX + RF_MOM_MAX * (RF_MOM_MAX + 1) / 2) * RF_MOM_LANES];
    double z[RF_MOM_MAX][RF_MOM_LANES], w[RF_MOM_LANES], t;
    uint64_t mk[RF_MOM_LANES], u;
    const double* rows[RF_MOM_MAX];
    int64_t g, i, a, b, j, k, nacc = size + size * (size + 1) / 2, full = n - n % 8;
    for (g = 0; g < m; g++) {
        const uint8_t* kg = keep + g * n;
        for (a = 0; a < size; a++)
            rows[a] = Zt + groups[g * size + a] * n;
        memset(acc, 0, nacc * RF_MOM_LANES * sizeof(double));
        for (i = 0; i <= n; i += RF_MOM_LANES) {
            if (i < full) {
                /* a row not kept reads as 0: its bits and-ed with a mask of zeros (no
                   branch: rows are kept at random) */
                for (j = 0; j < RF_MOM_LANES; j++)
                    mk[j] = (uint64_t)0 - (uint64_t)(kg[i + j] != 0);
                for (a = 0; a < size; a++)
                    for (j = 0; j < RF_MOM_LANES; j++) {
                        memcpy(&u, &rows[a][i + j], sizeof(u));
                        u &= mk[j];
                        memcpy(&z[a][j], &u, sizeof(u));
                    }
            } else if (i < n) {            /* the last rows, short of 8 */
                for (j = 0; j < RF_MOM_LANES; j++)
                    w[j] = (i + j < n && kg[i + j]) ? 1.0 : 0.0;
                for (a = 0; a < size; a++)
                    for (j = 0; j < RF_MOM_LANES; j++)
                        z[a][j] = w[j] != 0.0 ? rows[a][i + j] : 0.0;
            } else {
                break;
            }
            /* z holds the kept values (0 elsewhere): sums, then the products */
            k = 0;
            for (a = 0; a < size; a++, k++)
                for (j = 0; j < RF_MOM_LANES; j++)
                    acc[k * RF_MOM_LANES + j] += z[a][j];
            for (a = 0; a < size; a++)
                for (b = a; b < size; b++, k++)
                    for (j = 0; j < RF_MOM_LANES; j++) {
                        t = z[a][j] * z[b][j];        /* (a statement of its own: */
                        acc[k * RF_MOM_LANES + j] += t;   /*  never a fused multiply-add) */
                    }
        }
        k = 0;
        for (a = 0; a < size; a++, k++) {
            t = 0.0;
            for (j = 0; j < RF_MOM_LANES; j++)
                t += acc[k * RF_MOM_LANES + j];
            sums[g * size + a] = t;
        }
        for (a = 0; a < size; a++)
            for (b = a; b < size; b++, k++) {
                t = 0.0;
                for (j = 0; j < RF_MOM_LANES; j++)
                    t += acc[k * RF_MOM_LANES + j];
                cross[(g * size + a) * size + b] = t;
                cross[(g * size + b) * size + a] = t;
            }
    }
}
/* A call of IMPL (an rf_group_moments_impl) with the group size as a constant, 1 to 8:
   its loops then unroll. */
#define RF_MOM_SIZES(IMPL) \
    switch (size) { \
    case 1: IMPL(Zt, n, groups, m, 1, keep, sums, cross); break; \
    case 2: IMPL(Zt, n, groups, m, 2, keep, sums, cross); break; \
    case 3: IMPL(Zt, n, groups, m, 3, keep, sums, cross); break; \
    case 4: IMPL(Zt, n, groups, m, 4, keep, sums, cross); break; \
    case 5: IMPL(Zt, n, groups, m, 5, keep, sums, cross); break; \
    case 6: IMPL(Zt, n, groups, m, 6, keep, sums, cross); break; \
    case 7: IMPL(Zt, n, groups, m, 7, keep, sums, cross); break; \
    case 8: IMPL(Zt, n, groups, m, 8, keep, sums, cross); break; \
    default: break; \
    }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RF_MOM_AVX512 1
/* rf_group_moments_impl with AVX-512: one register a sum, its 8 lanes the 8 lanes
   there, the rows not kept read as 0 by masked loads; the same additions in the same
   order (no fused multiply-add), so the same numbers. */
static inline __attribute__((always_inline, target("avx512f,avx512dq"),
                             optimize("fp-contract=off")))
void rf_group_moments_avx512_impl(const double* Zt, int64_t n, const int64_t* groups,
                                  int64_t m, const int64_t size, const uint8_t* keep,
                                  double* sums, double* cross) {
    __m512d acc[RF_MOM_MAX + RF_MOM_MAX * (RF_MOM_MAX + 1) / 2], z[RF_MOM_MAX];
    double lanes[RF_MOM_LANES], t;
    const double* rows[RF_MOM_MAX];
    const __m512i zero = _mm512_setzero_si512();
    int64_t g, i, a, b, j, k, nacc = size + size * (size + 1) / 2, left;
    uint64_t bytes;
    for (g = 0; g < m; g++) {
        const uint8_t* kg = keep + g * n;
        for (a = 0; a < size; a++)
            rows[a] = Zt + groups[g * size + a] * n;
        for (k = 0; k < nacc; k++)
            acc[k] = _mm512_setzero_pd();
        for (i = 0; i < n; i += RF_MOM_LANES) {
            left = n - i;
            if (left >= RF_MOM_LANES) {
                memcpy(&bytes, kg + i, sizeof(bytes));
            } else {
                bytes = 0;
                memcpy(&bytes, kg + i, (size_t)left);
            }
            __mmask8 kept = _mm512_cmpneq_epi64_mask(
                _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)bytes)), zero);
            for (a = 0; a < size; a++)
                z[a] = _mm512_maskz_loadu_pd(kept, rows[a] + i);
            k = 0;
            for (a = 0; a < size; a++, k++)
                acc[k] = _mm512_add_pd(acc[k], z[a]);
            for (a = 0; a < size; a++)
                for (b = a; b < size; b++, k++)
                    acc[k] = _mm512_add_pd(acc[k], _mm512_mul_pd(z[a], z[b]));
        }
        k = 0;
        for (a = 0; a < size; a++, k++) {
            _mm512_storeu_pd(lanes, acc[k]);
            t = 0.0;
            for (j = 0; j < RF_MOM_LANES; j++)
                t += lanes[j];
            sums[g * size + a] = t;
        }
        for (a = 0; a < size; a++)
            for (b = a; b < size; b++, k++) {
                _mm512_storeu_pd(lanes, acc[k]);
                t = 0.0;
                for (j = 0; j < RF_MOM_LANES; j++)
                    t += lanes[j];
                cross[(g * size + a) * size + b] = t;
                cross[(g * size + b) * size + a] = t;
            }
    }
}
__attribute__((target("avx512f,avx512dq"), optimize("fp-contract=off")))
static void rf_group_moments_avx512(const double* Zt, int64_t n, const int64_t* groups,
                                    int64_t m, int64_t size, const uint8_t* keep,
                                    double* sums, double* cross) {
    RF_MOM_SIZES(rf_group_moments_avx512_impl)
}
#else
#define RF_MOM_AVX512 0
static void rf_group_moments_avx512(const double* Zt, int64_t n, const int64_t* groups,
                                    int64_t m, int64_t size, const uint8_t* keep,
                                    double* sums, double* cross) {}
#endif

/* rf_group_moments_impl with the group size a constant (its loops unrolled), or its
   AVX-512 form when avx512 is set. */
__attribute__((optimize("fp-contract=off")))
static void rf_group_moments(const double* Zt, int64_t n, const int64_t* groups,
                             int64_t m, int64_t size, const uint8_t* keep,
                             double* sums, double* cross, int avx512) {
    if (avx512 && RF_MOM_AVX512) {
        rf_group_moments_avx512(Zt, n, groups, m, size, keep, sums, cross);
        return;
    }
    RF_MOM_SIZES(rf_group_moments_impl)
}
#endif

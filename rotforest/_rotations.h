/* rotforest: one tree's rotation for the rotation forest, drawn without the GIL (see
   _rotations.pxi: rotation): its random groups of features, the PCA moments of each
   group over its random rows, the principal axes (Jacobi), and random orthonormal
   blocks (Gaussian draws, Gram-Schmidt). */
#ifndef ROTFOREST_ROTATIONS_H
#define ROTFOREST_ROTATIONS_H
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include "_platform.h"

#define RF_MOM_LANES 8
#define RF_MOM_MAX 8              /* the largest group handled here */

/* For each of the m groups of `size` features (row g of groups: their rows in Zt, the
   data transposed, n values a row), the sums over the rows kept for the group (keep[g *
   n + i] nonzero) of each feature, into sums[g * size + a], and of the product of each
   two, into cross[(g * size + a) * size + b] (both triangles).  Rows are taken 8 at a
   time, each of the 8 lanes summing its own rows (the loops over lanes vectorise: no
   sum crosses lanes until the end), and the lanes are then added in a fixed order, so
   the result does not depend on the processor. */
static inline RF_ALWAYS_INLINE RF_NO_CONTRACT
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

#if RF_X86_AVX512
#include <immintrin.h>
#define RF_MOM_AVX512 1
/* rf_group_moments_impl with AVX-512: one register a sum, its 8 lanes the 8 lanes
   there, the rows not kept read as 0 by masked loads; the same additions in the same
   order (no fused multiply-add), so the same numbers. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
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
RF_TARGET_AVX512 RF_NO_CONTRACT
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
RF_NO_CONTRACT
static void rf_group_moments(const double* Zt, int64_t n, const int64_t* groups,
                             int64_t m, int64_t size, const uint8_t* keep,
                             double* sums, double* cross, int avx512) {
    if (avx512 && RF_MOM_AVX512) {
        rf_group_moments_avx512(Zt, n, groups, m, size, keep, sums, cross);
        return;
    }
    RF_MOM_SIZES(rf_group_moments_impl)
}

/* ------------------------------------------------------------------------------------
   One tree's rotation
   ------------------------------------------------------------------------------------ */

/* A uniform double in (0, 1]: 53 random bits. */
static inline double rf_rot_uniform(uint64_t* rng) {
    return (double)((rf_rng_next(rng) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* A standard normal draw (Box-Muller, one of its pair). */
RF_NO_CONTRACT
static double rf_rot_normal(uint64_t* rng) {
    double u = rf_rot_uniform(rng), v = rf_rot_uniform(rng);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* A uniformly random s x s orthonormal matrix (Q of a standard normal one with R's
   diagonal positive, by Gram-Schmidt on its columns, each taken twice), row-major.  A
   column (nearly) in the span of the ones before (probability ~1e-8) is drawn again. */
RF_NO_CONTRACT
static void rf_rot_orthonormal(uint64_t* rng, int64_t s, double* Q) {
    int64_t i, j, k, pass;
    double d, norm;
    for (j = 0; j < s; j++) {
        do {
            for (i = 0; i < s; i++)
                Q[i * s + j] = rf_rot_normal(rng);
            for (pass = 0; pass < 2; pass++)
                for (k = 0; k < j; k++) {
                    d = 0.0;
                    for (i = 0; i < s; i++)
                        d += Q[i * s + k] * Q[i * s + j];
                    for (i = 0; i < s; i++)
                        Q[i * s + j] -= d * Q[i * s + k];
                }
            norm = 0.0;
            for (i = 0; i < s; i++)
                norm += Q[i * s + j] * Q[i * s + j];
            norm = sqrt(norm);
        } while (!(norm > 1e-8));
        for (i = 0; i < s; i++)
            Q[i * s + j] /= norm;
    }
}

/* The eigenvalues (w, decreasing) and eigenvectors (columns of the row-major V) of the
   symmetric s x s matrix A (destroyed), by cyclic Jacobi rotations until every
   off-diagonal entry is negligible beside its diagonal ones.  Each vector's largest
   loading is made positive, so that the axes do not depend on the rotations' path. */
RF_NO_CONTRACT
static void rf_rot_eigen(double* A, int64_t s, double* V, double* w) {
    int64_t i, j, k, p, q, sweep, order[RF_MOM_MAX], best;
    double apq, app, aqq, theta, t, c, sn, x, y, tmp[RF_MOM_MAX * RF_MOM_MAX], wt[RF_MOM_MAX];
    int rotated;
    for (i = 0; i < s * s; i++)
        V[i] = 0.0;
    for (i = 0; i < s; i++)
        V[i * s + i] = 1.0;
    for (sweep = 0; sweep < 64; sweep++) {
        rotated = 0;
        for (p = 0; p < s; p++)
            for (q = p + 1; q < s; q++) {
                apq = A[p * s + q];
                app = A[p * s + p];
                aqq = A[q * s + q];
                if (apq == 0.0)
                    continue;
                if (fabs(apq) <= 1e-18 * (fabs(app) + fabs(aqq))) {
                    A[p * s + q] = A[q * s + p] = 0.0;
                    continue;
                }
                theta = (aqq - app) / (2.0 * apq);
                if (fabs(theta) > 1e150)
                    t = 0.5 / theta;
                else
                    t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                c = 1.0 / sqrt(t * t + 1.0);
                sn = t * c;
                for (k = 0; k < s; k++) {          /* A J: columns p and q */
                    x = A[k * s + p];
                    y = A[k * s + q];
                    A[k * s + p] = c * x - sn * y;
                    A[k * s + q] = sn * x + c * y;
                }
                for (k = 0; k < s; k++) {          /* J' (A J): rows p and q */
                    x = A[p * s + k];
                    y = A[q * s + k];
                    A[p * s + k] = c * x - sn * y;
                    A[q * s + k] = sn * x + c * y;
                }
                A[p * s + q] = A[q * s + p] = 0.0;
                for (k = 0; k < s; k++) {          /* V J */
                    x = V[k * s + p];
                    y = V[k * s + q];
                    V[k * s + p] = c * x - sn * y;
                    V[k * s + q] = sn * x + c * y;
                }
                rotated = 1;
            }
        if (!rotated)
            break;
    }
    /* decreasing eigenvalues, ties in index order (insertion sort: stable) */
    for (i = 0; i < s; i++) {
        wt[i] = A[i * s + i];
        for (j = i; j > 0 && wt[order[j - 1]] < wt[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    memcpy(tmp, V, (size_t)(s * s) * sizeof(double));
    for (j = 0; j < s; j++) {
        w[j] = wt[order[j]];
        best = 0;
        for (i = 1; i < s; i++)
            if (fabs(tmp[i * s + order[j]]) > fabs(tmp[best * s + order[j]]))
                best = i;
        x = tmp[best * s + order[j]] < 0.0 ? -1.0 : 1.0;
        for (i = 0; i < s; i++)
            V[i * s + j] = x * tmp[i * s + order[j]];
    }
}

/* One tree's rotation of the n_axes features `features` (increasing, rows of Zt: the
   normalised data transposed, n values a row), as a CSC matrix with one column an axis:
   indptr (n_axes + 1), indices and data (n_full * size + r * r entries, r the last
   group's size).  The features are taken in a random order and cut into groups of
   `size` (<= RF_MOM_MAX; the last one shorter), each sorted; axis j belongs to the group
   of features[j].  With pca, each group's axes are the principal axes (largest variance
   first) of its rows whose code y (0..n_classes-1) is in a random non-empty subset of
   the codes (each in with probability 1/2), each such row kept with probability 3/4; a
   group with fewer than two such rows, and every group without pca, gets a uniformly
   random orthonormal block.  Loadings below `noise` are set to 0.  Everything random
   comes from the generator seeded with `seed`.  order_out (n_axes) and keep_out (groups
   x n), when not NULL, receive the order of the features and the rows each group kept
   (for tests).  Returns 0, or -1 when memory ran out. */
RF_NO_CONTRACT
static int rf_draw_rotation(const double* Zt, int64_t n, const int32_t* y,
                            int64_t n_classes, const int64_t* features, int64_t n_axes,
                            int64_t size, int pca, uint64_t seed, double noise, int avx512,
                            int32_t* indptr, int32_t* indices, double* data,
                            int64_t* order_out, uint8_t* keep_out) {
    uint64_t rng = seed, word = 0;
    int64_t n_full = n_axes / size, r = n_axes - n_full * size;
    int64_t n_groups = n_full + (r > 0), g, i, j, a, b, s, col, left, tmp;
    int64_t *order = NULL, *groups = NULL, *counts = NULL;
    uint8_t *keep = NULL, *chosen = NULL;
    double *sums = NULL, *cross = NULL, cov[RF_MOM_MAX * RF_MOM_MAX],
           V[RF_MOM_MAX * RF_MOM_MAX], w[RF_MOM_MAX], cnt, mean[RF_MOM_MAX];
    int status = -1;
    order = (int64_t*)malloc((size_t)n_axes * sizeof(int64_t));
    groups = (int64_t*)malloc((size_t)n_axes * sizeof(int64_t));
    counts = (int64_t*)calloc((size_t)n_groups, sizeof(int64_t));
    sums = (double*)malloc((size_t)(n_groups * RF_MOM_MAX) * sizeof(double));
    cross = (double*)malloc((size_t)(n_groups * RF_MOM_MAX * RF_MOM_MAX) * sizeof(double));
    if (!order || !groups || !counts || !sums || !cross)
        goto done;
    if (pca) {
        keep = (uint8_t*)malloc((size_t)(n_groups * n) + 1);
        chosen = (uint8_t*)malloc((size_t)n_classes + 1);
        if (!keep || !chosen)
            goto done;
    }
    /* the order: a random permutation (Fisher-Yates); the groups: runs of it, sorted */
    for (i = 0; i < n_axes; i++)
        order[i] = i;
    for (i = n_axes - 1; i > 0; i--) {
        j = (int64_t)(rf_rng_next(&rng) % (uint64_t)(i + 1));
        tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    if (order_out)
        memcpy(order_out, order, (size_t)n_axes * sizeof(int64_t));
    for (g = 0; g < n_groups; g++) {
        int64_t* o = order + g * size;
        s = g < n_full ? size : r;
        for (a = 1; a < s; a++)
            for (b = a; b > 0 && o[b - 1] > o[b]; b--) {
                tmp = o[b];
                o[b] = o[b - 1];
                o[b - 1] = tmp;
            }
        for (a = 0; a < s; a++) {
            groups[g * size + a] = features[o[a]];
            indptr[o[a] + 1] = (int32_t)s;
        }
    }
    indptr[0] = 0;
    for (j = 0; j < n_axes; j++)
        indptr[j + 1] += indptr[j];
    if (pca) {
        /* each group's codes and rows: a bit a code, a byte a row (kept below 192) */
        for (g = 0; g < n_groups; g++) {
            uint8_t* kg = keep + g * n;
            int any = 0;
            for (j = 0; j < n_classes; j++) {
                if ((j & 63) == 0)
                    word = rf_rng_next(&rng);
                chosen[j] = (uint8_t)((word >> (j & 63)) & 1);
                any |= chosen[j];
            }
            if (!any)
                chosen[rf_rng_next(&rng) % (uint64_t)n_classes] = 1;
            left = 0;
            for (i = 0; i < n; i++) {
                if ((i & 7) == 0)
                    word = rf_rng_next(&rng);
                kg[i] = (uint8_t)(chosen[y[i]] & (((word >> ((i & 7) * 8)) & 255) < 192));
                left += kg[i];
            }
            counts[g] = left;
        }
        if (keep_out)
            memcpy(keep_out, keep, (size_t)(n_groups * n));
        /* the moments of the full groups, then of the last one */
        if (n_full > 0)
            rf_group_moments(Zt, n, groups, n_full, size, keep, sums, cross, avx512);
        if (r > 0)
            rf_group_moments(Zt, n, groups + n_full * size, 1, r, keep + n_full * n,
                             sums + n_full * size, cross + n_full * size * size, avx512);
    }
    for (g = 0; g < n_groups; g++) {
        const int64_t* o = order + g * size;
        s = g < n_full ? size : r;
        if (pca && counts[g] >= 2) {
            const double* sg = sums + g * size;
            const double* cg = cross + g * size * size;
            cnt = (double)counts[g];
            for (a = 0; a < s; a++)
                mean[a] = sg[a] / cnt;
            for (a = 0; a < s; a++)
                for (b = 0; b < s; b++)
                    cov[a * s + b] = (cg[a * s + b] - cnt * mean[a] * mean[b]) / (cnt - 1.0);
            rf_rot_eigen(cov, s, V, w);
            for (a = 0; a < s * s; a++)
                if (fabs(V[a]) < noise)
                    V[a] = 0.0;
        } else {
            rf_rot_orthonormal(&rng, s, V);
        }
        /* axis o[b] (b-th of the group, increasing) takes the group's b-th axis */
        for (b = 0; b < s; b++) {
            col = indptr[o[b]];
            for (a = 0; a < s; a++) {
                indices[col + a] = (int32_t)features[o[a]];
                data[col + a] = V[a * s + b];
            }
        }
    }
    status = 0;
done:
    free(order);
    free(groups);
    free(counts);
    free(sums);
    free(cross);
    free(keep);
    free(chosen);
    return status;
}
#endif

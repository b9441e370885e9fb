/* rotforest: the kernels of random cuts on the values (Settings.values; see
   _scan_random.pxi): a drawn feature's values of a node's samples gathered from X with
   their extremes, and the two-class count of the samples at or below a threshold
   (AVX-512, chosen at run time, with a portable stand-in: exact integer sums, so both
   give the same counts). */
#ifndef ROTFOREST_VALUES_H
#define ROTFOREST_VALUES_H
#include <stdint.h>
#include <math.h>
#include "_prefetch.h"
#include "_compiler.h"

/* samples ahead whose value is prefetched: the gathers miss the cache in deep nodes,
   and the prefetches keep more of them in flight than the out-of-order window does */
#define RF_GATHER_AHEAD 32

/* V[q] = xf[(S[q] & im) * rs] for q in [s, e) (xf of type T), the least and largest
   present value (NaN skipped: +inf and -inf when none) and, when COUNT, the count of
   missing ones (0 otherwise: for a feature without any).  Two pairs of extremes, for
   the even and the odd samples, so that the chains of comparisons run side by side
   (the same extremes: a minimum of the same values). */
#define RF_GATHER_FLOATS(NAME, T, COUNT)                                               \
static inline int64_t NAME(const T *xf, int64_t rs, const uint64_t *S, uint64_t im,    \
                           int64_t s, int64_t e, double *V, double *lo_out,            \
                           double *hi_out) {                                           \
    double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY, v, w;     \
    int64_t nm = 0, q;                                                                 \
    for (q = s; q + 1 < e; q += 2) {                                                   \
        if (q + 1 + RF_GATHER_AHEAD < e) {                                             \
            RF_PREFETCH_RW(&xf[(int64_t)(S[q + RF_GATHER_AHEAD] & im) * rs], 0, 0);    \
            RF_PREFETCH_RW(&xf[(int64_t)(S[q + 1 + RF_GATHER_AHEAD] & im) * rs], 0, 0); \
        }                                                                              \
        v = (double)xf[(int64_t)(S[q] & im) * rs];                                     \
        w = (double)xf[(int64_t)(S[q + 1] & im) * rs];                                 \
        V[q] = v;                                                                      \
        V[q + 1] = w;                                                                  \
        lo0 = v < lo0 ? v : lo0;                                                       \
        hi0 = v > hi0 ? v : hi0;                                                       \
        lo1 = w < lo1 ? w : lo1;                                                       \
        hi1 = w > hi1 ? w : hi1;                                                       \
        if (COUNT)                                                                     \
            nm += isnan(v) + isnan(w);                                                 \
    }                                                                                  \
    if (q < e) {                                                                       \
        v = (double)xf[(int64_t)(S[q] & im) * rs];                                     \
        V[q] = v;                                                                      \
        lo0 = v < lo0 ? v : lo0;                                                       \
        hi0 = v > hi0 ? v : hi0;                                                       \
        if (COUNT)                                                                     \
            nm += isnan(v);                                                            \
    }                                                                                  \
    *lo_out = lo1 < lo0 ? lo1 : lo0;                                                   \
    *hi_out = hi1 > hi0 ? hi1 : hi0;                                                   \
    return nm;                                                                         \
}
RF_GATHER_FLOATS(rf_gather_values, double, 1)
RF_GATHER_FLOATS(rf_gather_f32, float, 1)
RF_GATHER_FLOATS(rf_gather_f32_present, float, 0)

/* nodes of at most this many samples prefetch their next feature's values (larger
   ones prefetch ahead within their gathers) */
#define RF_PREFETCH_NODE 64

/* Prefetches base[(S[q] & im) * stride] (stride in bytes) for q in [s, e). */
static inline void rf_prefetch_rows(const void *base, int64_t stride, const uint64_t *S,
                                    uint64_t im, int64_t s, int64_t e) {
    const char *b = (const char *)base;
    for (int64_t q = s; q < e; q++)
        RF_PREFETCH_RW(b + (int64_t)(S[q] & im) * stride, 0, 0);
}

/* Whether any of V[s:e) equals u (eight at a time, without a branch within them). */
static inline int rf_any_equal(const double *V, int64_t s, int64_t e, double u) {
    int64_t q = s;
    for (; q + 8 <= e; q += 8) {
        int hit = (V[q] == u) | (V[q + 1] == u) | (V[q + 2] == u) | (V[q + 3] == u) |
                  (V[q + 4] == u) | (V[q + 5] == u) | (V[q + 6] == u) | (V[q + 7] == u);
        if (hit)
            return 1;
    }
    for (; q < e; q++)
        if (V[q] == u)
            return 1;
    return 0;
}

/* The same from a feature's integer codes (see _builder.integer_codes: the values
   themselves, small non-negative integers, in one byte or two; the code `missing`, the
   dtype's largest or, where no value is missing, one beyond it, marks NaN): V[q] holds
   the value as a double, or NaN. */
/* One code c read into V[q] (NaN for the code missing), folded into the integer
   extremes lo, hi and the missing count nm (see rf_gather_codes). */
#define RF_TAKE_CODE(c, q)                                                              \
    do {                                                                                \
        int64_t miss_ = (c) == missing;                                                 \
        V[q] = miss_ ? NAN : (double)(c);                                               \
        lo = (c) < lo ? (c) : lo;                                                       \
        hi = (!miss_ & ((c) > hi)) ? (c) : hi;                                          \
        nm += miss_;                                                                    \
    } while (0)

/* count (> 0 or none) samples of code c, folded in as RF_TAKE_CODE folds one. */
#define RF_TAKE_CODES(c, count)                                                         \
    do {                                                                                \
        if ((count) > 0 && (c) == missing)                                              \
            nm += (count);                                                              \
        else if ((count) > 0) {                                                         \
            lo = (c) < lo ? (c) : lo;                                                   \
            hi = (c) > hi ? (c) : hi;                                                   \
        }                                                                               \
    } while (0)

#define RF_GATHER_CODES(NAME, CODE_T)                                                   \
static inline int64_t NAME(const CODE_T *cf, const uint64_t *S, uint64_t im, int64_t s, \
                           int64_t e, int64_t missing, double *V, double *lo_out,       \
                           double *hi_out) {                                            \
    /* (the extremes as integers: one-cycle chains; NaN's code is the largest, so the   \
       least code is a value's unless all are missing) */                               \
    int64_t nm = 0, q, lo = missing, hi = -1;                                           \
    for (q = s; q < e; q++) {                                                           \
        if (q + RF_GATHER_AHEAD < e)                                                    \
            RF_PREFETCH_RW(&cf[S[q + RF_GATHER_AHEAD] & im], 0, 0);                 \
        int64_t c = cf[S[q] & im];                                                      \
        RF_TAKE_CODE(c, q);                                                             \
    }                                                                                   \
    *lo_out = hi < 0 ? INFINITY : (double)lo;                                           \
    *hi_out = hi < 0 ? -INFINITY : (double)hi;                                          \
    return nm;                                                                          \
}
RF_GATHER_CODES(rf_gather_codes8, uint8_t)
RF_GATHER_CODES(rf_gather_codes16, uint16_t)

/* rf_gather_codes for a feature whose codes are mostly one, mode (see
   _builder.code_bits): bit r of bits is set where row r's code is not the mode.  The
   bits say which rows to read (their indices q collected in Q first, without a
   branch), the others take the mode; a feature of two codes (other >= 0) reads no
   code at all.  The same values, extremes and count of missing ones. */
#define RF_GATHER_MODED(NAME, CODE_T)                                                   \
static inline int64_t NAME(const CODE_T *cf, const uint64_t *bits, int64_t mode,        \
                           int64_t other, const uint64_t *S, uint64_t im, int64_t s,    \
                           int64_t e, int64_t missing, double *V, uint64_t *Q,          \
                           double *lo_out, double *hi_out) {                            \
    double mv = mode == missing ? NAN : (double)mode;                                   \
    /* (the value of a bit, read from a table: a branch would be mispredicted) */       \
    double tab[2] = {mv, other == missing ? NAN : (double)other};                       \
    int64_t nm = 0, q, j, k = 0, lo = missing, hi = -1, c, r, b;                        \
    if (other >= 0) {                                                                   \
        for (q = s; q < e; q++) {                                                       \
            r = (int64_t)(S[q] & im);                                                   \
            b = (int64_t)((bits[r >> 6] >> (r & 63)) & 1);                              \
            V[q] = tab[b];                                                              \
            k += b;                                                                     \
        }                                                                               \
        RF_TAKE_CODES(other, k);                                                        \
    } else {                                                                            \
        for (q = s; q < e; q++) {                                                       \
            r = (int64_t)(S[q] & im);                                                   \
            b = (int64_t)((bits[r >> 6] >> (r & 63)) & 1);                              \
            V[q] = mv;                                                                  \
            Q[k] = (uint64_t)q;                                                         \
            k += b;                                                                     \
        }                                                                               \
        for (j = 0; j < k; j++) {                                                       \
            if (j + RF_GATHER_AHEAD < k)                                                \
                RF_PREFETCH_RW(&cf[S[Q[j + RF_GATHER_AHEAD]] & im], 0, 0);          \
            q = (int64_t)Q[j];                                                          \
            c = cf[S[q] & im];                                                          \
            RF_TAKE_CODE(c, q);                                                         \
        }                                                                               \
    }                                                                                   \
    RF_TAKE_CODES(mode, e - s - k);                                                     \
    *lo_out = hi < 0 ? INFINITY : (double)lo;                                           \
    *hi_out = hi < 0 ? -INFINITY : (double)hi;                                          \
    return nm;                                                                          \
}
RF_GATHER_MODED(rf_gather_moded8, uint8_t)
RF_GATHER_MODED(rf_gather_moded16, uint16_t)

/* bits (n bits, zero on entry): bit i set where c[i] != mode (see code_bits). */
#define RF_MARK_OTHER(NAME, CODE_T)                                                     \
static inline void NAME(const CODE_T *c, int64_t n, CODE_T mode, uint64_t *bits) {      \
    int64_t w, j;                                                                       \
    for (w = 0; w < (n >> 6); w++) {                                                    \
        uint64_t x = 0;                                                                 \
        for (j = 0; j < 64; j++)                                                        \
            x |= (uint64_t)(c[64 * w + j] != mode) << j;                                \
        bits[w] = x;                                                                    \
    }                                                                                   \
    for (j = 64 * w; j < n; j++)                                                        \
        bits[w] |= (uint64_t)(c[j] != mode) << (j & 63);                                \
}
RF_MARK_OTHER(rf_mark_other8, uint8_t)
RF_MARK_OTHER(rf_mark_other16, uint16_t)

/* Of the samples S[s:e) (keys with integer weights: field (k >> ws) & wm, class bit
   (k >> cs) & 1), those whose value V[q] is at most t, or missing when ml: their
   count (returned), total weight (*wn) and weight of class 1 (*w1). */
static inline int64_t rf_values_left2(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, int ws,
                                      uint64_t wm, int64_t *wn, int64_t *w1) {
    int64_t q, g, wi, n = 0, a = 0, b = 0;
    for (q = s; q < e; q++) {
        double v = V[q];
        uint64_t k = S[q];
        g = (v <= t) | (ml & isnan(v));
        wi = (int64_t)((k >> ws) & wm) * g;
        a += wi;
        b += wi * (int64_t)((k >> cs) & 1);
        n += g;
    }
    *wn = a;
    *w1 = b;
    return n;
}

/* The lanes of rf_values_left_sq added in one fixed order. */
static inline double rf_lanes_sum(const double *a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* Of the samples S[s:e) (keys with integer weights: field (k >> ws) & wm) and their
   numeric targets Y[s:e), those whose value V[q] is at most t, or missing when ml:
   their count (returned), their sum of w (*wl) and, in out[0..1], of w y and w y^2.  Summed in
   eight lanes, sample q in lane (q - s) % 8, each lane in order, the lanes then added
   in one order (rf_lanes_sum): the AVX-512 kernel adds the same numbers in the same
   order, so both give the same sums. */
RF_NO_CONTRACT
static inline int64_t rf_values_left_sq(const double *V, const double *Y,
                                        const uint64_t *S, int64_t s, int64_t e, double t,
                                        int ml, int ws, uint64_t wm, double *wl,
                                        double *out) {
    double a0[8] = {0}, a1[8] = {0}, a2[8] = {0};
    int64_t q, n = 0;
    int j;
    for (q = s, j = 0; q < e; q++, j = (j + 1) & 7) {
        double v = V[q];
        int64_t g = (v <= t) | (ml & isnan(v));
        double w = (double)((int64_t)((S[q] >> ws) & wm) * g);
        double wy = w * Y[q];
        a0[j] += w;
        a1[j] += wy;
        a2[j] += wy * Y[q];
        n += g;
    }
    *wl = rf_lanes_sum(a0);
    out[0] = rf_lanes_sum(a1);
    out[1] = rf_lanes_sum(a2);
    return n;
}

/* Of the samples S[s:e) (keys with integer weights: field (k >> ws) & wm, class
   (k >> cs) & cm, one of the np classes P[0..np)), those whose value V[q] is at most t,
   or missing when ml: their count (returned), total weight (*wn) and weight of each of
   those classes (cli[P[i]]).  Two tables of counts, for the even and the odd samples,
   so that runs of one class (deep nodes are nearly pure) do not wait on their own
   stores; exact integers; unit weights (wm == 1) without reading the field. */
#define RF_LEFTK_LOOP(WEIGHT)                                                       \
    for (q = s; q + 1 < e; q += 2) {                                                \
        double v0 = V[q], v1 = V[q + 1];                                            \
        uint64_t k0 = S[q], k1 = S[q + 1];                                          \
        int64_t g0 = (v0 <= t) | (ml & isnan(v0)), g1 = (v1 <= t) | (ml & isnan(v1)); \
        int64_t w0 = WEIGHT(k0) * g0, w1 = WEIGHT(k1) * g1;                         \
        cli[(k0 >> cs) & cm] += w0;                                                 \
        spare[(k1 >> cs) & cm] += w1;                                               \
        a += w0 + w1;                                                               \
        n += g0 + g1;                                                               \
    }                                                                               \
    if (q < e) {                                                                    \
        double v0 = V[q];                                                           \
        uint64_t k0 = S[q];                                                         \
        int64_t g0 = (v0 <= t) | (ml & isnan(v0));                                  \
        int64_t w0 = WEIGHT(k0) * g0;                                               \
        cli[(k0 >> cs) & cm] += w0;                                                 \
        a += w0;                                                                    \
        n += g0;                                                                    \
    }
#define RF_UNIT_WEIGHT(k) ((int64_t)1)
#define RF_KEY_WEIGHT(k) ((int64_t)(((k) >> ws) & wm))
static inline int64_t rf_values_leftk(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, uint64_t cm,
                                      int ws, uint64_t wm, const int64_t *P, int64_t np,
                                      int64_t *cli, int64_t *spare, int64_t *wn) {
    int64_t q, n = 0, a = 0, i;
    for (i = 0; i < np; i++) {
        cli[P[i]] = 0;
        spare[P[i]] = 0;
    }
    if (wm == 1) {
        RF_LEFTK_LOOP(RF_UNIT_WEIGHT)
    } else {
        RF_LEFTK_LOOP(RF_KEY_WEIGHT)
    }
    for (i = 0; i < np; i++)
        cli[P[i]] += spare[P[i]];
    *wn = a;
    return n;
}

#if RF_X86_AVX512
#include <immintrin.h>
/* rf_values_left2 on 8 samples at a time. */
RF_TARGET_AVX512
static int64_t rf_values_left2_avx512(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, int ws,
                                      uint64_t wm, int64_t *wn, int64_t *w1) {
    const __m512d tt = _mm512_set1_pd(t);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m512i cbit = _mm512_set1_epi64((long long)((uint64_t)1 << cs));
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    __m512i aw = _mm512_setzero_si512(), a1 = _mm512_setzero_si512();
    int64_t q, n = 0, rw, r1;
    for (q = s; q + 8 <= e; q += 8) {
        __m512d v = _mm512_loadu_pd(V + q);
        __m512i k = _mm512_loadu_si512((const void *)(S + q));
        __mmask8 g = _mm512_cmp_pd_mask(v, tt, _CMP_LE_OQ);
        if (ml) g |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
        __m512i w = _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
        __mmask8 g1 = g & _mm512_test_epi64_mask(k, cbit);
        aw = _mm512_mask_add_epi64(aw, g, aw, w);
        a1 = _mm512_mask_add_epi64(a1, g1, a1, w);
        n += __builtin_popcount((unsigned)g);
    }
    n += rf_values_left2(V, S, q, e, t, ml, cs, ws, wm, &rw, &r1);
    *wn = _mm512_reduce_add_epi64(aw) + rw;
    *w1 = _mm512_reduce_add_epi64(a1) + r1;
    return n;
}

/* rf_values_left_sq on 8 samples at a time (the same lanes and order). */
RF_TARGET_AVX512 RF_NO_CONTRACT
static int64_t rf_values_left_sq_avx512(const double *V, const double *Y,
                                        const uint64_t *S, int64_t s, int64_t e, double t,
                                        int ml, int ws, uint64_t wm, double *wl,
                                        double *out) {
    const __m512d tt = _mm512_set1_pd(t);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd(), a2 = _mm512_setzero_pd();
    double l0[8], l1[8], l2[8];
    int64_t q, n = 0;
    for (q = s; q < e; q += 8) {
        __mmask8 live = e - q >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (e - q)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(live, V + q);
        __m512d y = _mm512_maskz_loadu_pd(live, Y + q);
        __m512i k = _mm512_maskz_loadu_epi64(live, (const void *)(S + q));
        __mmask8 g = _mm512_cmp_pd_mask(v, tt, _CMP_LE_OQ);
        if (ml) g |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
        g &= live;
        __m512d w = _mm512_cvtepi64_pd(_mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv));
        __m512d wy = _mm512_mul_pd(w, y);
        a0 = _mm512_mask_add_pd(a0, g, a0, w);
        a1 = _mm512_mask_add_pd(a1, g, a1, wy);
        a2 = _mm512_mask_add_pd(a2, g, a2, _mm512_mul_pd(wy, y));
        n += __builtin_popcount((unsigned)g);
    }
    _mm512_storeu_pd(l0, a0);
    _mm512_storeu_pd(l1, a1);
    _mm512_storeu_pd(l2, a2);
    *wl = rf_lanes_sum(l0);
    out[0] = rf_lanes_sum(l1);
    out[1] = rf_lanes_sum(l2);
    return n;
}

/* rf_values_leftk on 8 samples at a time (nodes of at least RF_LEFTK_VECTOR samples
   and at most 16 classes present; others, and the last samples, by rf_values_leftk):
   a lane of counts per present class, each sample's weight added to its class's lane
   under the mask of the samples at or below t.  Exact integers: the same counts. */
#define RF_LEFTK_VECTOR 32
RF_TARGET_AVX512
static int64_t rf_values_leftk_avx512(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, uint64_t cm,
                                      int ws, uint64_t wm, const int64_t *P, int64_t np,
                                      int64_t *cli, int64_t *spare, int64_t *wn) {
    if (e - s < RF_LEFTK_VECTOR || np > 16)
        return rf_values_leftk(V, S, s, e, t, ml, cs, cm, ws, wm, P, np, cli, spare, wn);
    const __m512d tt = _mm512_set1_pd(t);
    const __m512i cmv = _mm512_set1_epi64((long long)cm);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m512i one = _mm512_set1_epi64(1);
    const __m128i csv = _mm_cvtsi32_si128(cs), wsv = _mm_cvtsi32_si128(ws);
    __m512i acc[16], aw = _mm512_setzero_si512();
    int64_t q = s, n, i, tail_w;
    int64_t m = s + ((e - s) & ~(int64_t)7);
    /* the last samples (fewer than 8) first: that call sets the present classes' counts */
    n = rf_values_leftk(V, S, m, e, t, ml, cs, cm, ws, wm, P, np, cli, spare, &tail_w);
#pragma GCC unroll 16
    for (i = 0; i < 16; i++)
        acc[i] = _mm512_setzero_si512();
    for (; q < m; q += 8) {
        __m512d v = _mm512_loadu_pd(V + q);
        __m512i k = _mm512_loadu_si512((const void *)(S + q));
        __mmask8 g = _mm512_cmp_pd_mask(v, tt, _CMP_LE_OQ);
        if (ml) g |= _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q);
        __m512i c = _mm512_and_si512(_mm512_srl_epi64(k, csv), cmv);
        __m512i w = wm == 1 ? one : _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
        aw = _mm512_mask_add_epi64(aw, g, aw, w);
#pragma GCC unroll 16
        for (i = 0; i < 16; i++) {
            if (i < np) {
                __mmask8 h = _mm512_mask_cmpeq_epi64_mask(g, c, _mm512_set1_epi64(P[i]));
                acc[i] = _mm512_mask_add_epi64(acc[i], h, acc[i], w);
            }
        }
        n += __builtin_popcount((unsigned)g);
    }
#pragma GCC unroll 16
    for (i = 0; i < 16; i++)
        if (i < np)
            cli[P[i]] += _mm512_reduce_add_epi64(acc[i]);
    *wn = _mm512_reduce_add_epi64(aw) + tail_w;
    return n;
}

/* rf_any_equal on 8 values at a time. */
RF_TARGET_AVX512F
static int rf_any_equal_avx512(const double *V, int64_t s, int64_t e, double u) {
    const __m512d uu = _mm512_set1_pd(u);
    int64_t q;
    for (q = s; q < e; q += 8) {
        __mmask8 live = e - q >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (e - q)) - 1);
        __m512d v = _mm512_maskz_loadu_pd(live, V + q);
        if (_mm512_mask_cmp_pd_mask(live, v, uu, _CMP_EQ_OQ))
            return 1;
    }
    return 0;
}
#else
static int64_t rf_values_left2_avx512(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, int ws,
                                      uint64_t wm, int64_t *wn, int64_t *w1) {
    return rf_values_left2(V, S, s, e, t, ml, cs, ws, wm, wn, w1);
}
static int64_t rf_values_left_sq_avx512(const double *V, const double *Y,
                                        const uint64_t *S, int64_t s, int64_t e, double t,
                                        int ml, int ws, uint64_t wm, double *wl,
                                        double *out) {
    return rf_values_left_sq(V, Y, S, s, e, t, ml, ws, wm, wl, out);
}
static int rf_any_equal_avx512(const double *V, int64_t s, int64_t e, double u) {
    return rf_any_equal(V, s, e, u);
}
static int64_t rf_values_leftk_avx512(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, uint64_t cm,
                                      int ws, uint64_t wm, const int64_t *P, int64_t np,
                                      int64_t *cli, int64_t *spare, int64_t *wn) {
    return rf_values_leftk(V, S, s, e, t, ml, cs, cm, ws, wm, P, np, cli, spare, wn);
}
#endif
#endif

/* rotforest: the kernels of random cuts on the values (Settings.values; see
   _scan_random.pxi): a drawn feature's values of a node's samples gathered from X with
   their extremes, and the two-class count of the samples at or below a threshold
   (AVX-512, chosen at run time, with a portable stand-in: exact integer sums, so both
   give the same counts). */
#ifndef ROTFOREST_VALUES_H
#define ROTFOREST_VALUES_H
#include <stdint.h>
#include <math.h>

/* samples ahead whose value is prefetched: the gathers miss the cache in deep nodes,
   and the prefetches keep more of them in flight than the out-of-order window does */
#define RF_GATHER_AHEAD 32

/* V[q] = xf[(S[q] & im) * rs] for q in [s, e); the least and largest present value
   (NaN skipped: +inf and -inf when none) and the count of missing ones. */
static inline int64_t rf_gather_values(const double *xf, int64_t rs, const uint64_t *S,
                                       uint64_t im, int64_t s, int64_t e, double *V,
                                       double *lo_out, double *hi_out) {
    double lo = INFINITY, hi = -INFINITY, v;
    int64_t nm = 0, q, stop = e - RF_GATHER_AHEAD;
    for (q = s; q < stop; q++) {
        __builtin_prefetch(&xf[(int64_t)(S[q + RF_GATHER_AHEAD] & im) * rs], 0, 0);
        v = xf[(int64_t)(S[q] & im) * rs];
        V[q] = v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        nm += isnan(v);
    }
    for (q = q > s ? q : s; q < e; q++) {
        v = xf[(int64_t)(S[q] & im) * rs];
        V[q] = v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        nm += isnan(v);
    }
    *lo_out = lo;
    *hi_out = hi;
    return nm;
}

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

#if defined(__GNUC__) && defined(__x86_64__) && !defined(_WIN32)
#include <immintrin.h>
/* rf_values_left2 on 8 samples at a time. */
__attribute__((target("avx512f,avx512dq")))
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
#else
static int64_t rf_values_left2_avx512(const double *V, const uint64_t *S, int64_t s,
                                      int64_t e, double t, int ml, int cs, int ws,
                                      uint64_t wm, int64_t *wn, int64_t *w1) {
    return rf_values_left2(V, S, s, e, t, ml, cs, ws, wm, wn, w1);
}
#endif
#endif

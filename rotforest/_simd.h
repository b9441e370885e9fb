/* rotforest: the builder's vector kernels (AVX-512, chosen at run time) and their
   portable stand-ins where the compiler cannot build them.  Each performs the same
   operations in the same order as the portable Cython scan or partition it replaces. */
#ifndef ROTFOREST_SIMD_H
#define ROTFOREST_SIMD_H
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include "_compiler.h"

/* Screening factor of the scalar two-class Gini kernel, which divides only for cuts
   that may beat the best so far: a cut whose proxy q = num / den (rounded) exceeds
   best > 0 has num > best * RF_SCREEN * den even after the two roundings of the
   right-hand side, so a cut failing the screen cannot be better.  (With best = -inf
   or 0 the screen is exact.)  Both kernels thus compare the rounded quotients. */
#define RF_SCREEN (1.0 - 0x1p-48)
/* AVX-512 kernels, chosen at run time when the processor has them. */
#if RF_X86_AVX512
#include <immintrin.h>
/* Inclusive prefix sum of the 8 lanes of c, plus carry (the same in every lane). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512i rf_prefix_sum8(__m512i c, __m512i carry) {
    const __m512i zero = _mm512_setzero_si512();
    c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 7));
    c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 6));
    c = _mm512_add_epi64(c, _mm512_alignr_epi64(c, zero, 4));
    return _mm512_add_epi64(c, carry);
}
/* The last lane of c in every lane: the carry of the next block, kept in a register
   (a round trip through a general register would lengthen the loop's chain). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512i rf_last_lane(__m512i c) {
    return _mm512_permutexvar_epi64(_mm512_set1_epi64(7), c);
}
/* Lanes j of a block at p whose cut p + 1 + j lies in [lo, hi]. */
static inline uint32_t rf_cut_lanes(int64_t p, int64_t lo, int64_t hi) {
    int64_t a = lo - p - 1, b = hi - p - 1;
    uint32_t m = 0xFF;
    if (b < 0 || a > 7) return 0;
    if (a > 0) m &= 0xFFu << a;
    if (b < 7) m &= 0xFFu >> (7 - b);
    return m & 0xFF;
}
/* The largest lane of v, in every lane. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512d rf_bcast_max(__m512d v) {
    v = _mm512_max_pd(v, _mm512_shuffle_f64x2(v, v, 0x4E));
    v = _mm512_max_pd(v, _mm512_shuffle_f64x2(v, v, 0xB1));
    return _mm512_max_pd(v, _mm512_permute_pd(v, 0x55));
}
/* Keeps, in each lane, the best cut that lane has seen among the lanes `lanes` with
   proxies q = vn / vd: q replaces the lane's best when q > best (so a lane keeps the
   first of equals).  Only cuts that may beat a threshold t (in every lane: the best
   of all lanes so far, or a floor given by the caller) matter: thr_s is t times
   RF_SCREEN, the others fail that screen, and when all do, the division (the loop's
   costliest step) is skipped.  Returns whether a lane's best changed. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
int rf_keep8(__mmask8 lanes, __m512d vn, __m512d vd, __m512i cut, __m512d thr_s,
             __m512d *best, __m512i *pos) {
    lanes &= _mm512_cmp_pd_mask(vn, _mm512_mul_pd(thr_s, vd), _CMP_GT_OQ);
    if (!lanes) return 0;
    __m512d q = _mm512_mask_div_pd(_mm512_set1_pd(-INFINITY), lanes, vn, vd);
    __mmask8 up = _mm512_cmp_pd_mask(q, *best, _CMP_GT_OQ);
    *best = _mm512_mask_mov_pd(*best, up, q);
    *pos = _mm512_mask_mov_epi64(*pos, up, cut);
    return up != 0;
}
/* rf_keep8 for two classes: the cuts of lanes `lanes` with l1 of class 1 and weight
   wl on the left (totals vt1, vwt). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
int rf_track8(__mmask8 lanes, __m512d dl1, __m512d dwl, __m512d vt1, __m512d vwt,
              __m512i cut, __m512d thr_s, __m512d *best, __m512i *pos) {
    __m512d dwr = _mm512_sub_pd(vwt, dwl);
    __m512d dr1 = _mm512_sub_pd(vt1, dl1);
    __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                               _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
    return rf_keep8(lanes, vn, _mm512_mul_pd(dwl, dwr), cut, thr_s, best, pos);
}
/* Folds the lanes' bests into (*best, *pos): the largest proxy, at its first cut, if
   it beats *best (what a scan in cut order keeping the first of equals finds). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
void rf_fold8(__m512d bv, __m512i pv, double *best, int64_t *pos) {
    double mx = _mm512_reduce_max_pd(bv);
    if (mx > *best) {
        __mmask8 at = _mm512_cmp_pd_mask(bv, _mm512_set1_pd(mx), _CMP_EQ_OQ);
        *best = mx;
        *pos = _mm512_mask_reduce_min_epi64(at, pv);
    }
}
/* The 8 keys at p, returned; *m, the lanes whose rank differs from the next key's
   (a cut may follow them); *w their weights, read from the keys or all 1 (unit). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512i rf_keys8(const uint64_t *L, int64_t p, const int unit, __m128i rsv,
                 __m128i wsv, __m512i wmv, __mmask8 *m, __m512i *w) {
    __m512i k = _mm512_loadu_si512((const void *)(L + p));
    __m512i kn = _mm512_loadu_si512((const void *)(L + p + 1));
    *m = _mm512_test_epi64_mask(_mm512_srl_epi64(_mm512_xor_si512(k, kn), rsv),
                                _mm512_set1_epi64(-1));
    *w = unit ? _mm512_set1_epi64(1) : _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
    return k;
}
/* The block of 8 keys at p (rf_keys8) with two classes: the class-1 weight (*l1v)
   and weight (*wlv) up to and including each lane, carried from block to block in
   *l1c and *wlc (unit: *wlv is left alone, the caller knows it). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
void rf_block8(const uint64_t *L, int64_t p, const int unit, __m128i rsv, __m128i csv,
               __m128i wsv, __m512i wmv, __mmask8 *m, __m512i *l1v, __m512i *wlv,
               __m512i *l1c, __m512i *wlc) {
    __m512i wv;
    __m512i k = rf_keys8(L, p, unit, rsv, wsv, wmv, m, &wv);
    __m512i c = _mm512_and_si512(_mm512_srl_epi64(k, csv), _mm512_set1_epi64(1));
    if (!unit) {
        c = _mm512_mullo_epi64(c, wv);
        *wlv = rf_prefix_sum8(wv, *wlc);
        *wlc = rf_last_lane(*wlv);
    }
    *l1v = rf_prefix_sum8(c, *l1c);
    *l1c = rf_last_lane(*l1v);
}
/* The two-class Gini scan over 8 cuts at a time with AVX-512 (integer weights), used
   when the processor has it.  It performs the same floating-point operations in the
   same order as the scalar kernel (no fused multiply-add), so both choose the same
   split.  Cuts lie at c = p + 1 for p in [s, hi), where the values on both sides
   differ; each is scored with the left counts as they are (when c is in [lo1, hi1])
   and plus (m1, mw), the missing samples of the node (when c is in [lo2, hi2]; an
   empty range when there are none: two = 0).  It scans all of [s, hi): the last
   block is read whole (L must be readable 8 keys past hi), its lanes past hi masked.
   Integer weights read from the keys, or all 1 (unit: the left weight is the
   position). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
void rf_gini_binary_avx512_impl(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
        int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, const int unit,
        const int two, double dt1, double dwt, double m1, double mw, double *best1_io,
        int64_t *pos1, double *best2_io, int64_t *pos2) {
    const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    const __m512d vt1 = _mm512_set1_pd(dt1), vwt = _mm512_set1_pd(dwt);
    const __m512d vm1 = _mm512_set1_pd(m1), vmw = _mm512_set1_pd(mw);
    __m512i l1c = _mm512_setzero_si512(), wlc = l1c;
    __m512d b1 = _mm512_set1_pd(*best1_io), b2 = _mm512_set1_pd(*best2_io);
    const __m512d vs = _mm512_set1_pd(RF_SCREEN);
    __m512d t1 = b1, t2 = _mm512_max_pd(b1, b2);
    __m512d t1s = _mm512_mul_pd(t1, vs), t2s = _mm512_mul_pd(t2, vs);
    /* With missing samples, one screen serves both directions in most blocks: for
       either direction, l1^2/wl + r1^2/wr is at most the proxy of the three groups
       (present left, present right, missing), l1^2/wl + rp1^2/wrp + m1^2/mw (the
       square of a sum over a sum never exceeds the sum of the squares over their
       weights), so a cut that beats t1 (<= t2) has l1^2/wl + rp1^2/wrp > t1 - C,
       C = m1^2/mw.  The slack of 2^-46 on t1 and C covers every rounding, and the
       test is the screen of RF_SCREEN on the split of the present samples alone. */
    const __m512d vt1p = _mm512_sub_pd(vt1, vm1), vwtp = _mm512_sub_pd(vwt, vmw);
    const __m512d va = _mm512_set1_pd(1.0 - 0x1p-46);
    const __m512d vcb = _mm512_set1_pd(two ? m1 * m1 / mw * (1.0 + 0x1p-46) : 0.0);
    __m512d t3s = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(t1, va), vcb), vs);
    __m512i q1 = _mm512_set1_epi64(-1), q2 = q1;
    int64_t p;
    for (p = s; p < hi; p += 8) {
        __mmask8 m;
        __m512i l1v, wlv = _mm512_setzero_si512();
        rf_block8(L, p, unit, rsv, csv, wsv, wmv, &m, &l1v, &wlv, &l1c, &wlc);
        __m512d dwl = unit ? _mm512_add_pd(_mm512_set1_pd((double)(p - s)), iota)
                           : _mm512_cvtepi64_pd(wlv);
        __mmask8 m1k = m & (__mmask8)rf_cut_lanes(p, lo1, hi1);
        __mmask8 m2k = two ? m & (__mmask8)rf_cut_lanes(p, lo2, hi2) : 0;
        if (!(m1k | m2k)) continue;
        __m512d dl1 = _mm512_cvtepi64_pd(l1v);
        __m512i cut = _mm512_add_epi64(_mm512_set1_epi64(p), iotai);
        if (two) {
            __m512d dwr = _mm512_sub_pd(vwtp, dwl), dr1 = _mm512_sub_pd(vt1p, dl1);
            __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                                       _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
            __m512d vd = _mm512_mul_pd(dwl, dwr);
            if (!_mm512_mask_cmp_pd_mask(m1k | m2k, vn, _mm512_mul_pd(t3s, vd),
                                         _CMP_GT_OQ))
                continue;
        }
        if (rf_track8(m1k, dl1, dwl, vt1, vwt, cut, t1s, &b1, &q1)) {
            t1 = rf_bcast_max(b1);
            t2 = _mm512_max_pd(t2, t1);
            t1s = _mm512_mul_pd(t1, vs);
            t2s = _mm512_mul_pd(t2, vs);
            t3s = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(t1, va), vcb), vs);
        }
        /* a cut missing-left wins only if it beats every cut missing-right */
        if (two && rf_track8(m2k, _mm512_add_pd(dl1, vm1), _mm512_add_pd(dwl, vmw),
                             vt1, vwt, cut, t2s, &b2, &q2)) {
            t2 = _mm512_max_pd(t2, rf_bcast_max(b2));
            t2s = _mm512_mul_pd(t2, vs);
        }
    }
    rf_fold8(b1, q1, best1_io, pos1);
    if (two) rf_fold8(b2, q2, best2_io, pos2);
}
RF_TARGET_AVX512 RF_NO_CONTRACT
static void rf_gini_binary_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
        int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1,
        double dwt, double m1, double mw, double *best1_io, int64_t *pos1,
        double *best2_io, int64_t *pos2) {
    /* unit and two are constants inside: four specialised loops */
    #define RF_GINI2(U, T) rf_gini_binary_avx512_impl(L, s, hi, lo1, hi1, lo2, hi2, \
        cs, rs, ws, wm, U, T, dt1, dwt, m1, mw, best1_io, pos1, best2_io, pos2)
    int two = lo2 <= hi2;
    if (wm == 1) { if (two) RF_GINI2(1, 1); else RF_GINI2(1, 0); }
    else { if (two) RF_GINI2(0, 1); else RF_GINI2(0, 0); }
    #undef RF_GINI2
}
/* Bound for the two-class entropy screen below: a cut whose entropy proxy beats t
   has a Gini proxy l1^2/wl + r1^2/wr above the value returned (-inf for t = -inf). */
static inline double rf_entropy_screen(double t, double dt1, double slack) {
    if (t == -INFINITY) return -INFINITY;
    return dt1 + t * (1.0 / (4.0 * 0.693147180559945309417)) - slack;
}
/* The two-class entropy scan with AVX-512, for integer weights read from the keys and
   x log x read from the table f (x up to the node's weight).  The proxy of a cut is
   f(l0) + f(r0) + f(l1) + f(r1) - f(wl) - f(wr), formed in the scalar kernel's order,
   so both choose the same cut.  Cuts c = p + 1 for p in [s, hi) between distinct
   values, scored when c is in [lo, hi1]; only cuts beating *best_io (the node's best
   proxy so far) matter, and the result is the first of the best of those (*best_io,
   *pos_io unchanged when none).  Screen: binary entropy in nats is at least
   4 ln 2 p (1 - p), so a cut's proxy -(wl H(pl) + wr H(pr)) is at most
   4 ln 2 (Q - t1), Q = l1^2/wl + r1^2/wr; a cut can beat t only if
   Q > t1 + t / (4 ln 2), tested as a product (a slack of 1e-9 of the proxies'
   scale covers the roundings), and the table is read only for lanes that pass. */
RF_TARGET_AVX512 RF_NO_CONTRACT
static void rf_entropy_binary_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
        int rs, int ws, uint64_t wm, double dt1, double dwt, const double *f,
        double *best_io, int64_t *pos_io) {
    const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    const __m512d vt1 = _mm512_set1_pd(dt1), vwt = _mm512_set1_pd(dwt);
    const __m512i it1 = _mm512_set1_epi64((long long)dt1);
    const __m512i iwt = _mm512_set1_epi64((long long)dwt);
    const double slack = 1e-9 * (dwt * (log(dwt) + 1.0) + dt1);   /* >= |proxies| */
    __m512i l1c = _mm512_setzero_si512(), wlc = l1c;
    __m512d b = _mm512_set1_pd(*best_io);
    __m512d vbs = _mm512_set1_pd(rf_entropy_screen(*best_io, dt1, slack));
    __m512i q = _mm512_set1_epi64(-1);
    int64_t p;
    for (p = s; p < hi; p += 8) {
        __mmask8 m;
        __m512i l1v, wlv = _mm512_setzero_si512();
        rf_block8(L, p, 0, rsv, csv, wsv, wmv, &m, &l1v, &wlv, &l1c, &wlc);
        __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi1);
        if (!lanes) continue;
        __m512d dl1 = _mm512_cvtepi64_pd(l1v), dwl = _mm512_cvtepi64_pd(wlv);
        __m512d dwr = _mm512_sub_pd(vwt, dwl), dr1 = _mm512_sub_pd(vt1, dl1);
        __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(dl1, dl1), dwr),
                                   _mm512_mul_pd(_mm512_mul_pd(dr1, dr1), dwl));
        lanes = _mm512_mask_cmp_pd_mask(lanes, vn,
                                        _mm512_mul_pd(vbs, _mm512_mul_pd(dwl, dwr)),
                                        _CMP_GT_OQ);
        if (!lanes) continue;
        __m512i iwr = _mm512_sub_epi64(iwt, wlv), ir1 = _mm512_sub_epi64(it1, l1v);
        __m512i il0 = _mm512_sub_epi64(wlv, l1v), ir0 = _mm512_sub_epi64(iwr, ir1);
        const __m512d z = _mm512_setzero_pd();
        __m512d fl0 = _mm512_mask_i64gather_pd(z, lanes, il0, f, 8);
        __m512d fr0 = _mm512_mask_i64gather_pd(z, lanes, ir0, f, 8);
        __m512d fl1 = _mm512_mask_i64gather_pd(z, lanes, l1v, f, 8);
        __m512d fr1 = _mm512_mask_i64gather_pd(z, lanes, ir1, f, 8);
        __m512d fwl = _mm512_mask_i64gather_pd(z, lanes, wlv, f, 8);
        __m512d fwr = _mm512_mask_i64gather_pd(z, lanes, iwr, f, 8);
        __m512d acc = _mm512_add_pd(_mm512_add_pd(fl0, fr0), _mm512_add_pd(fl1, fr1));
        __m512d pr = _mm512_sub_pd(_mm512_sub_pd(acc, fwl), fwr);
        __mmask8 up = _mm512_mask_cmp_pd_mask(lanes, pr, b, _CMP_GT_OQ);
        if (!up) continue;
        b = _mm512_mask_mov_pd(b, up, pr);
        q = _mm512_mask_mov_epi64(q, up, _mm512_add_epi64(_mm512_set1_epi64(p), iotai));
        vbs = _mm512_set1_pd(rf_entropy_screen(_mm512_reduce_max_pd(b), dt1, slack));
    }
    rf_fold8(b, q, best_io, pos_io);
}
/* The block of 8 keys at p of the multiclass scan (rf_keys8): their classes (*c) and,
   returned, each lane's weight of the earlier lanes of its class in the block, found by
   comparing the classes shifted by 1 to 7 lanes. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512i rf_same_class8(const uint64_t *L, int64_t p, const int unit, __m128i rsv,
                       __m128i csv, __m128i wsv, __m512i wmv, __m512i cmv, __mmask8 *m,
                       __m512i *w, __m512i *c) {
    const __m512i zero = _mm512_setzero_si512(), none = _mm512_set1_epi64(-1);
    __m512i k = rf_keys8(L, p, unit, rsv, wsv, wmv, m, w);
    __m512i e = zero;
    *c = _mm512_and_si512(_mm512_srl_epi64(k, csv), cmv);
    #define RF_SAME(D) e = _mm512_mask_add_epi64(e, _mm512_cmpeq_epi64_mask(*c, \
        _mm512_alignr_epi64(*c, none, 8 - D)), e, _mm512_alignr_epi64(*w, zero, 8 - D))
    RF_SAME(1); RF_SAME(2); RF_SAME(3); RF_SAME(4); RF_SAME(5); RF_SAME(6); RF_SAME(7);
    #undef RF_SAME
    return e;
}
/* The cuts `lanes` of a block of the multiclass Gini scan: with the left sums of
   squared class weights sql and of w tot[class] st, the right one is sqr = t2 - 2 st
   + sql, and the proxy (sql wr + sqr wl) / (wl wr) is kept by rf_keep8 (the screen
   *ts follows the best of all lanes). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
void rf_multi_cuts8(__mmask8 lanes, __m512i sql, __m512i st, __m512d dwl, __m512i vt2,
                    __m512d vwt, int64_t p, __m512d vs, __m512d *ts, __m512d *b,
                    __m512i *q) {
    const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
    __m512i sqr = _mm512_add_epi64(_mm512_sub_epi64(vt2, _mm512_add_epi64(st, st)), sql);
    __m512d dwr = _mm512_sub_pd(vwt, dwl);
    __m512d vn = _mm512_add_pd(_mm512_mul_pd(_mm512_cvtepi64_pd(sql), dwr),
                               _mm512_mul_pd(_mm512_cvtepi64_pd(sqr), dwl));
    if (rf_keep8(lanes, vn, _mm512_mul_pd(dwl, dwr),
                 _mm512_add_epi64(_mm512_set1_epi64(p), iotai), *ts, b, q))
        *ts = _mm512_mul_pd(rf_bcast_max(*b), vs);
}
/* The Gini scan with more than two classes, 8 cuts at a time with AVX-512, for
   integer weights read from the keys (or all 1: unit).  A cut's proxy is
   (sql wr + sqr wl) / (wl wr), sql and sqr the sums of the squared class weights
   left and right, formed from exact integers in the portable kernel's order, so
   both choose the same cut.  The class weights left live in cl (set by the
   caller: zero, or the class weights of samples carried into the left side from
   the start, a feature's missing samples, with sq0 = sum cl^2, st0 = sum cl tot
   and w0 = sum cl), gathered at each block and scattered back after it (a scatter writes
   its lanes in order, so the last lane of a class leaves its count); within a
   block, each lane adds the weights of the earlier lanes of its class, found by
   comparing the classes shifted by 1 to 7 lanes.  sql grows by w (2a + w) when a
   sample of weight w joins a class holding a, and sqr = t2 - 2 S + sql with
   t2 = sum of tot^2 and S = sum over the samples left of w tot[class] (tot: the
   node's class weights).  Cuts c = p + 1 for p in [s, hi) between distinct
   values, scored when c is in [lo, hi]; only cuts beating *best_io (the node's
   best so far) matter, screened by rf_keep8; the first of the best of those
   is returned (*best_io, *pos_io unchanged when none).  The last block is read
   whole (L readable 8 keys past hi), its lanes past hi masked. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
void rf_gini_multi_avx512_impl(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
        uint64_t cm, uint64_t wm, const int unit, int64_t *cl, const int64_t *tot,
        int64_t t2, double dwt, int64_t sq0, int64_t st0, int64_t w0, double *best_io,
        int64_t *pos_io) {
    const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i cmv = _mm512_set1_epi64((long long)cm);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    const __m512i zero = _mm512_setzero_si512(), none = _mm512_set1_epi64(-1);
    const __m512i vt2 = _mm512_set1_epi64((long long)t2);
    const __m512d vwt = _mm512_set1_pd(dwt), vs = _mm512_set1_pd(RF_SCREEN);
    __m512i sqc = _mm512_set1_epi64((long long)sq0), stc = _mm512_set1_epi64((long long)st0);
    __m512i wlc = _mm512_set1_epi64((long long)w0), q = none;
    __m512d b = _mm512_set1_pd(*best_io);
    __m512d ts = _mm512_mul_pd(b, vs);
    int64_t p;
    for (p = s; p < hi; p += 8) {
        __mmask8 m;
        __m512i w, c;
        __m512i e = rf_same_class8(L, p, unit, rsv, csv, wsv, wmv, cmv, &m, &w, &c);
        __m512i a = _mm512_add_epi64(_mm512_i64gather_epi64(c, (const void *)cl, 8), e);
        _mm512_i64scatter_epi64((void *)cl, c, _mm512_add_epi64(a, w), 8);
        __m512i sql = rf_prefix_sum8(
            _mm512_mullo_epi64(w, _mm512_add_epi64(_mm512_add_epi64(a, a), w)), sqc);
        sqc = rf_last_lane(sql);
        __m512i st = rf_prefix_sum8(
            _mm512_mullo_epi64(w, _mm512_i64gather_epi64(c, (const void *)tot, 8)), stc);
        stc = rf_last_lane(st);
        __m512d dwl;
        if (unit) {
            dwl = _mm512_add_pd(_mm512_set1_pd((double)(p - s + w0)), iota);
        } else {
            __m512i wl = rf_prefix_sum8(w, wlc);
            wlc = rf_last_lane(wl);
            dwl = _mm512_cvtepi64_pd(wl);
        }
        __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi);
        if (!lanes) continue;
        rf_multi_cuts8(lanes, sql, st, dwl, vt2, vwt, p, vs, &ts, &b, &q);
    }
    rf_fold8(b, q, best_io, pos_io);
}
/* rf_gini_multi_avx512_impl for at most 16 classes (K) and weights below 32 (unit
   weights, the rotation forest's usual case, or small bootstrap counts): the class
   counts live in registers, lane k of the
   first holding class k's and lane k of the second (two: K > 8) class k + 8's,
   instead of memory.  A sample's count before it is a permute of them (plus the
   earlier lanes of its class in the block), and the block's counts per class are
   sums of 8 one-byte fields (w << 8 c, one sum per register; 8 weights below 32 fit
   a byte) spread back to 8 lanes
   (the lanes past K stay 0: a class is below K, and only K counts are read and
   written): no scatter whose store the next block's gather must wait for.  The same
   exact integers as the general kernel, so the same cuts. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
void rf_gini_multi16_impl(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
        uint64_t cm, uint64_t wm, const int unit, int64_t K, const int two, int64_t *cl,
        const int64_t *tot, int64_t t2, double dwt, int64_t sq0, int64_t st0,
        int64_t w0, double *best_io, int64_t *pos_io) {
    const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i cmv = _mm512_set1_epi64((long long)cm);
    const __m128i csv = _mm_cvtsi32_si128(cs), rsv = _mm_cvtsi32_si128(rs);
    const __m128i wsv = _mm_cvtsi32_si128(ws);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m512i zero = _mm512_setzero_si512(), none = _mm512_set1_epi64(-1);
    const __m512i one = _mm512_set1_epi64(1), seven = _mm512_set1_epi64(7);
    const __m512i vt2 = _mm512_set1_epi64((long long)t2);
    const __m512d vwt = _mm512_set1_pd(dwt), vs = _mm512_set1_pd(RF_SCREEN);
    /* the K classes' lanes in the two registers */
    const __mmask8 k0 = K >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << K) - 1);
    const __mmask8 k1 = K > 8 ? (__mmask8)((1u << (K - 8)) - 1) : (__mmask8)0;
    const __m512i tot0 = _mm512_maskz_loadu_epi64(k0, (const void *)tot);
    const __m512i tot1 = two ? _mm512_maskz_loadu_epi64(k1, (const void *)(tot + 8)) : zero;
    __m512i cl0 = _mm512_maskz_loadu_epi64(k0, (const void *)cl);
    __m512i cl1 = two ? _mm512_maskz_loadu_epi64(k1, (const void *)(cl + 8)) : zero;
    __m512i sqc = _mm512_set1_epi64((long long)sq0), stc = _mm512_set1_epi64((long long)st0);
    __m512i q = none, w = one, wlc = _mm512_set1_epi64((long long)w0);
    __m512d b = _mm512_set1_pd(*best_io);
    __m512d ts = _mm512_mul_pd(b, vs);
    int64_t p;
    for (p = s; p < hi; p += 8) {
        __mmask8 m;
        __m512i c;
        __m512i e = rf_same_class8(L, p, unit, rsv, csv, wsv, wmv, cmv, &m, &w, &c);
        __m512i a, tc;
        /* one byte field a class: w << 8 (c mod 8), summed over the block */
        __m512i f = _mm512_sllv_epi64(w, _mm512_slli_epi64(_mm512_and_si512(c, seven), 3));
        if (two) {
            a = _mm512_permutex2var_epi64(cl0, c, cl1);
            tc = _mm512_permutex2var_epi64(tot0, c, tot1);
            __mmask8 up = _mm512_cmpgt_epi64_mask(c, seven);
            uint64_t h0 = (uint64_t)_mm512_reduce_add_epi64(_mm512_maskz_mov_epi64((__mmask8)~up, f));
            uint64_t h1 = (uint64_t)_mm512_reduce_add_epi64(_mm512_maskz_mov_epi64(up, f));
            cl0 = _mm512_add_epi64(cl0, _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)h0)));
            cl1 = _mm512_add_epi64(cl1, _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)h1)));
        } else {
            a = _mm512_permutexvar_epi64(c, cl0);
            tc = _mm512_permutexvar_epi64(c, tot0);
            uint64_t h0 = (uint64_t)_mm512_reduce_add_epi64(f);
            cl0 = _mm512_add_epi64(cl0, _mm512_cvtepu8_epi64(_mm_cvtsi64_si128((long long)h0)));
        }
        a = _mm512_add_epi64(a, e);
        __m512i sql, st;
        __m512d dwl;
        if (unit) {
            sql = rf_prefix_sum8(_mm512_add_epi64(_mm512_add_epi64(a, a), one), sqc);
            st = rf_prefix_sum8(tc, stc);
            dwl = _mm512_add_pd(_mm512_set1_pd((double)(p - s + w0)), iota);
        } else {
            sql = rf_prefix_sum8(
                _mm512_mullo_epi64(w, _mm512_add_epi64(_mm512_add_epi64(a, a), w)), sqc);
            st = rf_prefix_sum8(_mm512_mullo_epi64(w, tc), stc);
            __m512i wl = rf_prefix_sum8(w, wlc);
            wlc = rf_last_lane(wl);
            dwl = _mm512_cvtepi64_pd(wl);
        }
        sqc = rf_last_lane(sql);
        stc = rf_last_lane(st);
        __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi);
        if (!lanes) continue;
        rf_multi_cuts8(lanes, sql, st, dwl, vt2, vwt, p, vs, &ts, &b, &q);
    }
    _mm512_mask_storeu_epi64((void *)cl, k0, cl0);
    if (two)
        _mm512_mask_storeu_epi64((void *)(cl + 8), k1, cl1);
    rf_fold8(b, q, best_io, pos_io);
}
RF_TARGET_AVX512 RF_NO_CONTRACT
static void rf_gini_multi_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
        uint64_t cm, uint64_t wm, int64_t K, int64_t *cl, const int64_t *tot, int64_t t2,
        double dwt, int64_t sq0, int64_t st0, int64_t w0, double *best_io,
        int64_t *pos_io) {
    /* at most 16 classes and weights below 32: the counts in registers */
    if (wm == 1 && K <= 8)
        rf_gini_multi16_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 1, K, 0, cl, tot, t2, dwt,
                             sq0, st0, w0, best_io, pos_io);
    else if (wm == 1 && K <= 16)
        rf_gini_multi16_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 1, K, 1, cl, tot, t2, dwt,
                             sq0, st0, w0, best_io, pos_io);
    else if (wm < 32 && K <= 8)
        rf_gini_multi16_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 0, K, 0, cl, tot, t2, dwt,
                             sq0, st0, w0, best_io, pos_io);
    else if (wm < 32 && K <= 16)
        rf_gini_multi16_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 0, K, 1, cl, tot, t2, dwt,
                             sq0, st0, w0, best_io, pos_io);
    else if (wm == 1)
        rf_gini_multi_avx512_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 1, cl, tot, t2,
                                  dwt, sq0, st0, w0, best_io, pos_io);
    else
        rf_gini_multi_avx512_impl(L, s, hi, lo, cs, rs, ws, cm, wm, 0, cl, tot, t2,
                                  dwt, sq0, st0, w0, best_io, pos_io);
}
/* The missing samples at the end of L[s:e), those whose rank (key >> rs) is at least
   nan_rank: their number, returned, and their class-1 weight and weight in *m1 and
   *mw (weights read from the keys).  Read backwards, 8 keys at a time, until a block
   holds a present value: no binary search, and the tail is summed in the same pass. */
RF_TARGET_AVX512
static int64_t rf_missing_tail_avx512(const uint64_t *L, int64_t s, int64_t e,
                                      uint64_t nan_rank, int rs, int cs, int ws,
                                      uint64_t wm, int64_t *m1, int64_t *mw) {
    const __m128i rsv = _mm_cvtsi32_si128(rs), wsv = _mm_cvtsi32_si128(ws);
    const __m512i nr = _mm512_set1_epi64((long long)nan_rank);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m512i cbit = _mm512_set1_epi64((long long)(1ULL << cs));
    __m512i a1 = _mm512_setzero_si512(), aw = a1;
    int64_t q = e, p, nm = 0;
    while (q > s) {
        __mmask8 ld;
        __m512i k;
        if (q - s >= 8) {
            p = q - 8;
            ld = 0xFF;
            k = _mm512_loadu_si512((const void *)(L + p));
        } else {
            p = s;
            ld = (__mmask8)((1u << (q - s)) - 1);
            k = _mm512_maskz_loadu_epi64(ld, (const void *)(L + p));
        }
        __mmask8 miss = _mm512_mask_cmpge_epu64_mask(ld, _mm512_srl_epi64(k, rsv), nr);
        __m512i w = _mm512_and_si512(_mm512_srl_epi64(k, wsv), wmv);
        aw = _mm512_mask_add_epi64(aw, miss, aw, w);
        a1 = _mm512_mask_add_epi64(a1, miss & _mm512_test_epi64_mask(k, cbit), a1, w);
        nm += __builtin_popcount((unsigned)miss);
        if (miss != ld) break;       /* present values below: the tail starts here */
        q = p;
    }
    *m1 = _mm512_reduce_add_epi64(a1);
    *mw = _mm512_reduce_add_epi64(aw);
    return nm;
}
/* Inclusive prefix sum of the 8 lanes of v, plus carry: lane j gets
   ((v_j + v_j-1) + (v_j-2 + v_j-3)) + ... in the order of rf_prefix_sum8 (the
   portable regression scan adds in the same order, so both get the same sums). */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512
__m512d rf_prefix_sum8_pd(__m512d v, __m512d carry) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i c = _mm512_castpd_si512(v);
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(c, zero, 7)));
    c = _mm512_castpd_si512(v);
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(c, zero, 6)));
    c = _mm512_castpd_si512(v);
    v = _mm512_add_pd(v, _mm512_castsi512_pd(_mm512_alignr_epi64(c, zero, 4)));
    return _mm512_add_pd(v, carry);
}
/* The squared-error scan (Friedman's orders the cuts alike) over 8 cuts at a time
   with AVX-512, for a feature without constraint (one run of the cuts of a feature
   with missing values: see _scan_regression).  The left sums
   of w y and w are prefix sums within blocks of 8 keys from s, carried from block
   to block (rf_prefix_sum8_pd; exact integers with integer weights), and a cut's
   proxy is (sl^2 wr + sr^2 wl) / (wl wr) = sl^2/wl + sr^2/wr, formed as the
   portable scan forms it, so both choose the same cut.  Weights: all 1 (mode 0),
   integers in the keys (1), or doubles w[i] (2); y is gathered from yv.  sc0 and wc0
   are carried into the left sums from the start (a feature's missing samples sent
   left: their sums of w y and w; an integer in modes 0 and 1).  Cuts
   c = p + 1 for p in [s, hi) between distinct values, scored when c is in [lo, hi],
   both sides weigh at least minw and the right side more than 0 (real weights of very
   different sizes can round it to 0); only cuts beating *best_io (the node's best
   so far) matter, screened as in the portable scan (RF_SCREEN, with the same escape
   for a bound below 1e-290); the first of the best of those is returned (*best_io,
   *pos_io unchanged when none).  The last block's keys are read whole (L readable
   8 keys past hi); its lanes past hi gather nothing and are masked. */
static inline RF_ALWAYS_INLINE RF_TARGET_AVX512 RF_NO_CONTRACT
void rf_sqerr_avx512_impl(const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int rs,
                          int ws, uint64_t wm, uint64_t im, const double *yv,
                          const double *w, const int mode, double st, double wtot,
                          double minw, double sc0, double wc0, double *best_io,
                          int64_t *pos_io) {
    const __m512d iota = _mm512_set_pd(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i iotai = _mm512_set_epi64(8, 7, 6, 5, 4, 3, 2, 1);
    const __m512i wmv = _mm512_set1_epi64((long long)wm);
    const __m512i imv = _mm512_set1_epi64((long long)im);
    const __m128i rsv = _mm_cvtsi32_si128(rs), wsv = _mm_cvtsi32_si128(ws);
    const __m512d vst = _mm512_set1_pd(st), vwt = _mm512_set1_pd(wtot);
    const __m512d vminw = _mm512_set1_pd(minw), vs = _mm512_set1_pd(RF_SCREEN);
    const __m512d tiny = _mm512_set1_pd(1e-290), zd = _mm512_setzero_pd();
    __m512d b = _mm512_set1_pd(*best_io);
    __m512d ts = _mm512_mul_pd(b, vs);
    __m512i q = _mm512_set1_epi64(-1), wic = _mm512_set1_epi64((long long)wc0);
    __m512d sc = _mm512_set1_pd(sc0), wc = _mm512_set1_pd(wc0);
    int64_t p;
    for (p = s; p < hi; p += 8) {
        __mmask8 m, valid = hi - p >= 8 ? 0xFF : (__mmask8)((1u << (hi - p)) - 1);
        __m512i wv;
        __m512i k = rf_keys8(L, p, mode == 0, rsv, wsv, wmv, &m, &wv);
        __m512i idx = _mm512_and_si512(k, imv);
        __m512d y = _mm512_mask_i64gather_pd(zd, valid, idx, yv, 8);
        __m512d wy, dwl;
        if (mode == 0) {
            wy = y;
            dwl = _mm512_add_pd(_mm512_set1_pd((double)(p - s) + wc0), iota);
        } else if (mode == 1) {
            wy = _mm512_mul_pd(_mm512_cvtepi64_pd(wv), y);
            __m512i wlv = rf_prefix_sum8(wv, wic);
            wic = rf_last_lane(wlv);
            dwl = _mm512_cvtepi64_pd(wlv);
        } else {
            __m512d wd = _mm512_mask_i64gather_pd(zd, valid, idx, w, 8);
            wy = _mm512_mul_pd(wd, y);
            dwl = rf_prefix_sum8_pd(wd, wc);
            wc = _mm512_castsi512_pd(rf_last_lane(_mm512_castpd_si512(dwl)));
        }
        __m512d sl = rf_prefix_sum8_pd(wy, sc);
        sc = _mm512_castsi512_pd(rf_last_lane(_mm512_castpd_si512(sl)));
        __mmask8 lanes = m & (__mmask8)rf_cut_lanes(p, lo, hi);
        if (!lanes) continue;
        __m512d dwr = _mm512_sub_pd(vwt, dwl);
        lanes = _mm512_mask_cmp_pd_mask(lanes, dwr, zd, _CMP_GT_OQ);   /* as the portable scan */
        if (minw > 0.0)
            lanes = _mm512_mask_cmp_pd_mask(
                _mm512_mask_cmp_pd_mask(lanes, dwl, vminw, _CMP_GE_OQ), dwr, vminw,
                _CMP_GE_OQ);
        __m512d sr = _mm512_sub_pd(vst, sl);
        __m512d num = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(sl, sl), dwr),
                                    _mm512_mul_pd(_mm512_mul_pd(sr, sr), dwl));
        __m512d den = _mm512_mul_pd(dwl, dwr);
        __m512d bound = _mm512_mul_pd(ts, den);
        lanes = _mm512_mask_cmp_pd_mask(lanes, num, bound, _CMP_GT_OQ)
              | _mm512_mask_cmp_pd_mask(lanes, bound, tiny, _CMP_LT_OQ);
        if (!lanes) continue;
        __m512d qv = _mm512_mask_div_pd(_mm512_set1_pd(-INFINITY), lanes, num, den);
        __mmask8 up = _mm512_cmp_pd_mask(qv, b, _CMP_GT_OQ);
        if (!up) continue;
        b = _mm512_mask_mov_pd(b, up, qv);
        q = _mm512_mask_mov_epi64(q, up, _mm512_add_epi64(_mm512_set1_epi64(p), iotai));
        ts = _mm512_mul_pd(rf_bcast_max(b), vs);
    }
    rf_fold8(b, q, best_io, pos_io);
}
RF_TARGET_AVX512 RF_NO_CONTRACT
static void rf_sqerr_avx512(const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int rs,
                            int ws, uint64_t wm, uint64_t im, const double *yv,
                            const double *w, int mode, double st, double wtot,
                            double minw, double sc0, double wc0, double *best_io,
                            int64_t *pos_io) {
    /* the weights' mode is a constant inside: three specialised loops */
    if (mode == 0)
        rf_sqerr_avx512_impl(L, s, hi, lo, rs, ws, wm, im, yv, w, 0, st, wtot, minw,
                             sc0, wc0, best_io, pos_io);
    else if (mode == 1)
        rf_sqerr_avx512_impl(L, s, hi, lo, rs, ws, wm, im, yv, w, 1, st, wtot, minw,
                             sc0, wc0, best_io, pos_io);
    else
        rf_sqerr_avx512_impl(L, s, hi, lo, rs, ws, wm, im, yv, w, 2, st, wtot, minw,
                             sc0, wc0, best_io, pos_io);
}
/* Stable partition of L[s:e) in place: the left samples are packed from L[s], the
   right ones go to the scratch R and are copied back to L[p:e) at the end; mode 0
   keeps both sides, 1 only the left, 2 only the right.  Packing the left side in
   place is safe: it is written at or before the keys just loaded.  The side of each
   sample is bit i of the bitmap gl (a bit a sample keeps it in L2 beside the streams
   of keys; 32-bit words gathered 8 at a time).  Each side's keys are compressed in a
   register and stored as a whole block of 8, the lanes past that side's keys being
   overwritten by the next block: a compress-store to memory is microcoded on AMD's
   Zen 4, about five times slower here.  A block at q writes 8 keys from il <= q on
   the left (within keys already loaded) and from ir <= q - s on the right (so below
   e - s: R needs no more room than e - s keys); with mode 1, L[p:e) is left
   unspecified. */
RF_TARGET_AVX512VL
static void rf_partition_avx512(uint64_t *L, uint64_t *R, int64_t s, int64_t e,
                                int64_t p, const uint32_t *gl, uint64_t imask, int mode) {
    const __m512i im = _mm512_set1_epi64((long long)imask);
    const __m512i m31 = _mm512_set1_epi64(31), one = _mm512_set1_epi64(1);
    int64_t il = s, ir = 0, q;
    for (q = s; q + 8 <= e; q += 8) {
        __m512i k = _mm512_loadu_si512((const void *)(L + q));
        __m512i i = _mm512_and_si512(k, im);
        __m256i g = _mm512_i64gather_epi32(_mm512_srli_epi64(i, 5), (const void *)gl, 4);
        __m512i b = _mm512_srlv_epi64(_mm512_cvtepu32_epi64(g), _mm512_and_si512(i, m31));
        __mmask8 left = _mm512_test_epi64_mask(b, one);
        int nl = __builtin_popcount((unsigned)left);
        if (mode != 2) _mm512_storeu_si512((void *)(L + il), _mm512_maskz_compress_epi64(left, k));
        if (mode != 1)
            _mm512_storeu_si512((void *)(R + ir), _mm512_maskz_compress_epi64((__mmask8)~left, k));
        il += nl;
        ir += 8 - nl;
    }
    for (; q < e; q++) {
        uint64_t k = L[q];
        uint64_t i = k & imask;
        if ((gl[i >> 5] >> (i & 31)) & 1) { if (mode != 2) L[il] = k; il++; }
        else { if (mode != 1) R[ir] = k; ir++; }
    }
    if (mode != 1) memcpy(L + p, R, (size_t)(ir < e - p ? ir : e - p) * sizeof(uint64_t));
}
static int rf_cpu_has_avx512(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl");
}
#else
static void rf_partition_avx512(uint64_t *L, uint64_t *R, int64_t s, int64_t e,
                                int64_t p, const uint32_t *gl, uint64_t imask, int mode) {}
static void rf_gini_binary_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo1, int64_t hi1,
        int64_t lo2, int64_t hi2, int cs, int rs, int ws, uint64_t wm, double dt1,
        double dwt, double m1, double mw, double *best1_io, int64_t *pos1,
        double *best2_io, int64_t *pos2) {}
static int64_t rf_missing_tail_avx512(const uint64_t *L, int64_t s, int64_t e,
                                      uint64_t nan_rank, int rs, int cs, int ws,
                                      uint64_t wm, int64_t *m1, int64_t *mw) {
    return 0;
}
static void rf_entropy_binary_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int64_t hi1, int cs,
        int rs, int ws, uint64_t wm, double dt1, double dwt, const double *f,
        double *best_io, int64_t *pos_io) {}
static void rf_gini_multi_avx512(
        const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int cs, int rs, int ws,
        uint64_t cm, uint64_t wm, int64_t K, int64_t *cl, const int64_t *tot, int64_t t2,
        double dwt, int64_t sq0, int64_t st0, int64_t w0, double *best_io,
        int64_t *pos_io) {}
static void rf_sqerr_avx512(const uint64_t *L, int64_t s, int64_t hi, int64_t lo, int rs,
                            int ws, uint64_t wm, uint64_t im, const double *yv,
                            const double *w, int mode, double st, double wtot,
                            double minw, double sc0, double wc0, double *best_io,
                            int64_t *pos_io) {}
static int rf_cpu_has_avx512(void) { return 0; }
#endif

#endif  /* ROTFOREST_SIMD_H */
